#include "../kernels/integrate.cu"
