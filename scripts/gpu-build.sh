#!/usr/bin/env bash
# gpu-build.sh: build, on this machine (which has Go and the CUDA toolkit but maybe no GPU), what
# scripts/gpu-run.sh runs on a GPU machine (which has no Go): the cuda-tagged sandbox, the gpu
# package's test binary (parity, interop), ui's (the probe over the interop path), render/egl's (a headless EGL context), and for the CPU
# table against Jolt (gpu-run.sh's GPU_RUN_CPU=1) the simd build, sandbox-cpu, and the jolt-runner
# (JOLT, default ../shared/tools/peers/jolt-runner). They go to bin/gpu/ (ignored by git; carry it to
# the GPU machine), with bin/gpu/lib: this machine's copies of the shared libraries the sandbox links
# (X11, glvnd's libGL) and opens (glvnd's libEGL), which gpu-run.sh puts on the library path only where
# the GPU machine lacks them. The C libraries (glibc, libstdc++) and the driver's (libcuda) are not
# copied.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin/gpu/lib
go build -tags cuda -o bin/gpu/sandbox ./cmd/sandbox
go test -c -tags cuda -o bin/gpu/gpu.test ./gpu
go test -c -tags cuda -o bin/gpu/ui.test ./ui
go test -c -o bin/gpu/egl.test ./render/egl
# For gpu-run.sh's CPU table (GPU_RUN_CPU=1): the CPU build with the wide passes, and the jolt-runner.
GOEXPERIMENT=simd go build -o bin/gpu/sandbox-cpu ./cmd/sandbox
jolt=${JOLT:-../shared/tools/peers/jolt-runner}
if [ -x "$jolt" ]; then cp "$jolt" bin/gpu/jolt-runner; else echo "gpu-build: no jolt-runner at $jolt: no CPU table there" >&2; fi
libs=$(ldd bin/gpu/sandbox | awk '$3 ~ /^\// {print $3}')
egl=$(ldconfig -p | awk '/libEGL\.so\.1 .*x86-64/ {print $NF; exit}')
for f in $libs $egl; do
	case $(basename "$f") in
	libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | ld-linux* | libstdc++.so.* | libgcc_s.so.* | libcuda.so.*) ;;
	*) cp -L "$f" bin/gpu/lib/ ;;
	esac
done
ls -la bin/gpu bin/gpu/lib
