#!/usr/bin/env bash
# gpu-build.sh: build, on this machine (which has Go and the CUDA toolkit but maybe no GPU), the
# cuda-tagged binaries that scripts/gpu-run.sh runs on a GPU machine (which has no Go): the sandbox and
# the gpu package's test binary. They go to bin/gpu/ (ignored by git; carry it to the GPU machine).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin/gpu
go build -tags cuda -o bin/gpu/sandbox ./cmd/sandbox
go test -c -tags cuda -o bin/gpu/gpu.test ./gpu
ls -la bin/gpu
