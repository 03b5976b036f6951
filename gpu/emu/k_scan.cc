#include "../kernels/scan.cu"
