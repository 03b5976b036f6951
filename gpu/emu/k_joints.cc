#include "../kernels/joints.cu"
