#include "../kernels/bounds.cu"
