// layout.h: the emulator's registry of the kernels' structures. The generated files (layout.cc and
// the k_*.cc, written by gpu/internal/kerngen) register, in the translation unit that defines each
// structure, its size and every field's offset as the host compiler lays them out, so that a Go test
// can check the generated Go mirrors field by field (tb_sizeof, tb_offsetof in emu.h).
#pragma once
#include <cstddef>

namespace tbemu {
struct field_offset {
	const char *name;
	size_t offset;
};
void register_layout(const char *name, size_t size, const field_offset *fields, int nfields);
struct layout_registrar {
	layout_registrar(const char *name, size_t size, const field_offset *fields, int nfields) {
		register_layout(name, size, fields, nfields);
	}
};
} // namespace tbemu
