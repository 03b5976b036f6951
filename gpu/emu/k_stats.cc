#include "../kernels/stats.cu"
