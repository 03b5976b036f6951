#!/usr/bin/env bash
# kernels.sh: compile every gpu/kernels/*.cu to gpu/kernels/ptx/NAME.ptx with nvcc, and record the
# SHA-256 of each source in ptx/SOURCES (the test TestPTXIsCurrent compares it with the sources).
# PTX for compute capability 7.0: the driver compiles it for the GPU it runs on (an H100 is 9.0).
set -euo pipefail
cd "$(dirname "$0")/../gpu/kernels"
mkdir -p ptx
rm -f ptx/*.ptx
for f in *.cu; do
	nvcc -ptx -arch=compute_70 -O3 -lineinfo -o "ptx/${f%.cu}.ptx" "$f"
	echo "kernels: ptx/${f%.cu}.ptx"
done
sha256sum -- *.cu *.cuh | LC_ALL=C sort -k2 >ptx/SOURCES
