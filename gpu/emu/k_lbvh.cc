#include "../kernels/lbvh.cu"
