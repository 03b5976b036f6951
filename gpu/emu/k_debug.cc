#include "../kernels/debug.cu"
