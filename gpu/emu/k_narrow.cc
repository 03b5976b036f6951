#include "../kernels/narrow.cu"
