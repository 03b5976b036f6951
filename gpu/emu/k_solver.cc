#include "../kernels/solver.cu"
