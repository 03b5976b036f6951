#!/usr/bin/env bash
# cuda-deps.sh: make sure the CUDA toolkit that compiles the cuda build is here: nvcc (make kernels),
# cuda.h and cudaGL.h (gorgonia.org/cu and the interop shim) and libcuda for linking. Installs Debian's
# CUDA 11.8 toolkit from the non-free component when something is missing (about 2.3 GB of packages,
# a few minutes); does nothing, and touches no network, when all of it is there. A machine without a GPU
# can compile the cuda build but not run it (see DESIGN.md, "Errors and limits").
set -euo pipefail

have() {
	command -v nvcc >/dev/null 2>&1 &&
		{ [ -f /usr/include/cuda.h ] || [ -f /usr/local/cuda/include/cuda.h ]; } &&
		{ [ -f /usr/include/cudaGL.h ] || [ -f /usr/local/cuda/include/cudaGL.h ]; }
}
have && exit 0

echo "cuda-deps: installing Debian's CUDA toolkit (nvidia-cuda-toolkit, nvidia-cuda-dev; a few minutes)"
DEPS_NONFREE=1 "$(dirname "$0")/deps.sh" nvidia-cuda-toolkit nvidia-cuda-dev
have || { echo "cuda-deps: installed, but nvcc or cuda.h is still missing" >&2; exit 1; }
nvcc --version | tail -1
