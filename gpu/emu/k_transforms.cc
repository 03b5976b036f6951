#include "../kernels/transforms.cu"
