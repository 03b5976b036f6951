#include "../kernels/layout.cuh"
#include <string>
#include "emu.h"
extern "C" size_t tb_sizeof(const char* name) {
	std::string n(name);
	if (n == "TbShape") return sizeof(TbShape);
	if (n == "TbPoint") return sizeof(TbPoint);
	if (n == "TbContact") return sizeof(TbContact);
	if (n == "float4") return sizeof(float4);
	if (n == "float2") return sizeof(float2);
	if (n == "int2") return sizeof(int2);
	return 0;
}
