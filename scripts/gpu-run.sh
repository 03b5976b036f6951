#!/usr/bin/env bash
# gpu-run.sh OUTDIR: on a machine with an NVIDIA GPU, run what scripts/gpu-build.sh built: the CUDA
# parity tests and the emulated ones (same binary), compute-sanitizer's memcheck, racecheck and
# synccheck over the parity tests, and sandbox bench -backend cuda on the 10k, 100k and 1M-box piles.
# Everything is written to OUTDIR (one file per check) and summarised on stdout.
set -uo pipefail
out=${1:?usage: gpu-run.sh OUTDIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
nvidia-smi -L | tee "$out/gpu.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >>"$out/gpu.txt"

echo "== parity tests"
(cd gpu && ../bin/gpu/gpu.test -test.run 'CUDA' -test.v -test.timeout 20m) >"$out/parity.txt" 2>&1
echo "exit $?"; grep -E '^(=== RUN|--- |ok|FAIL|PASS)|largest|mean height' "$out/parity.txt" | head -40

san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$san" ]; then
	for tool in memcheck racecheck synccheck; do
		echo "== compute-sanitizer --tool $tool"
		(cd gpu && "$san" --tool "$tool" --error-exitcode 3 ../bin/gpu/gpu.test \
			-test.run 'TestCUDAParity/(stack|pendulum)' -test.timeout 20m) >"$out/sanitizer-$tool.txt" 2>&1
		echo "exit $?"; tail -3 "$out/sanitizer-$tool.txt"
	done
else
	echo "== compute-sanitizer not found" | tee "$out/sanitizer.txt"
fi

for scene in pile pile100k pile1m; do
	echo "== sandbox bench -backend cuda -scene $scene"
	bin/gpu/sandbox bench -backend cuda -scene "$scene" -substeps 4 -warmup 120 -steps 300 >"$out/bench-$scene.txt" 2>&1
	echo "exit $?"; cat "$out/bench-$scene.txt"
done
