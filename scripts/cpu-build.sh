#!/usr/bin/env bash
# cpu-build.sh: build here (where Go is) what scripts/cpu-run.sh runs on a machine without Go: the
# sandbox with the wide passes, the sim package's test binary (its benchmarks) and a copy of the
# jolt-runner (JOLT, default ../shared/tools/peers/jolt-runner), into bin/cpu (ignored by git; carry
# it). About 26 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin/cpu
GOEXPERIMENT=simd go build -o bin/cpu/sandbox ./cmd/sandbox
GOEXPERIMENT=simd go test -c -o bin/cpu/sim.test ./sim
jolt=${JOLT:-../shared/tools/peers/jolt-runner}
cp "$jolt" bin/cpu/jolt-runner
# The shared libraries the sandbox links, but for the C and driver ones, for a machine that lacks them.
mkdir -p bin/cpu/lib
for f in $(ldd bin/cpu/sandbox | awk '$3 ~ /^\// {print $3}'); do
	case $(basename "$f") in
	libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | ld-linux* | libstdc++.so.* | libgcc_s.so.*) ;;
	*) cp -L "$f" bin/cpu/lib/ ;;
	esac
done
ls -la bin/cpu
