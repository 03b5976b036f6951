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

if ! command -v apt-get >/dev/null 2>&1; then
	echo "cuda-deps: no CUDA toolkit (nvcc, cuda.h) and no apt-get: install the CUDA toolkit by hand." >&2
	exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1; then
	sudo=(sudo)
else
	echo "cuda-deps: the CUDA toolkit is missing; as root run: apt-get install nvidia-cuda-toolkit nvidia-cuda-dev (from Debian's non-free)" >&2
	exit 1
fi
echo "cuda-deps: installing Debian's CUDA toolkit (nvidia-cuda-toolkit, nvidia-cuda-dev; a few minutes)"
src=/etc/apt/sources.list.d/debian-nonfree.sources
if [ ! -f "$src" ] && [ -f /etc/apt/sources.list.d/debian.sources ]; then
	sed -e 's/^Components: main$/Components: contrib non-free/' /etc/apt/sources.list.d/debian.sources |
		"${sudo[@]}" tee "$src" >/dev/null
fi
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	nvidia-cuda-toolkit nvidia-cuda-dev >/dev/null
have || { echo "cuda-deps: installed, but nvcc or cuda.h is still missing" >&2; exit 1; }
nvcc --version | tail -1
