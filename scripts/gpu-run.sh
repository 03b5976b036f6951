#!/usr/bin/env bash
# gpu-run.sh OUTDIR: on a machine with an NVIDIA GPU, take docs/PERF.md's GPU figures and checks, from what
# scripts/gpu-build.sh built (bin/gpu; the GPU machine needs no Go), in under 10 minutes:
#   1. the GPU and its driver (nvidia-smi);
#   2. headless rendering through EGL, no X: render/egl's test on NVIDIA's EGL, the interop tests
#      (gpu.test: the transforms kernel, and CUDA writing a GL buffer of the app's EGL context), a
#      screenshot of pile on the cuda backend (interop must say "on"), and the window's frame time
#      split (-perf: step, panel, fill, upload, draw) for 100k boxes (pile100k) on the cuda backend
#      through interop, and on the CPU backend through the host copy;
#   3. the speed table: sandbox bench -backend cuda -substeps 4 on pile, pile100k, pile1m, pyramid20
#      and ragdoll (ms per step by stage; launches, waits, read-backs and bytes of the last step), and
#      the untimed step's cost (wall clock of run, N2 minus N1 steps: 2,200 and 200 for pyramid20 and
#      ragdoll, fewer for the piles); then the PGS solver at its defaults (6 x (4+2) passes) on
#      pyramid20, ragdoll, pile and pile100k (bench -backend cuda -solver pgs);
#   4. the CUDA parity tests (stack, pyramid20, pendulum, chain; TestCUDAStep*, a step as one CUDA
#      graph, where the build has it), the small-world path on and off (TestCUDASmallPathTimes: the
#      untimed step of stack, pyramid20 and ragdoll through one launch of the sub-step loop and through
#      the per-pass kernels, the same bits, sleeping off and on; TestCUDASmallPathSleepsAsTheCPU: with
#      sleeping on, scenes that sleep and wake on the small path, the CPU's bits), then the rain in the
#      background;
#   5. compute-sanitizer memcheck, racecheck and synccheck over 30 steps of stack, pendulum and
#      ragdoll on the cuda backend, API errors reported; where memcheck fails, once more with
#      --report-api-errors no (the fallback line: kernel errors alone).
# Each check writes OUTDIR/NAME.txt and one summary line here; each has a time limit, and the whole is
# cut at 9.5 minutes (a check with too little time left is skipped and says so).
# GPU_RUN_CPU=1 first measures the CPU step against Jolt (0., below). GPU_RUN_BUDGET=S cuts the whole
# at S seconds instead; GPU_RUN_ONLY=REGEX runs only the checks whose
# names it matches (egl-context, egl-interop, egl-screenshot, probe-interop, probe-screenshot,
# frame-split-100k-cuda|cpu, parity, small,
# bench-SCENE, untimed-SCENE-N, bench-pgs-SCENE, parity-rain, sanitizer-TOOL), for a device lease split
# in two.
# It cannot run on a machine without an NVIDIA GPU (it stops at nvidia-smi).
#
# EGL on NVIDIA: glvnd's libEGL.so.1 loads NVIDIA's EGL through a vendor file, 10_nvidia.json. Where the
# driver is mounted outside glvnd's search path (containers: /usr/local/nvidia), point glvnd at it:
#   export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
# This script does that when the variable is unset and one of the usual files exists. Libraries the
# sandbox needs that are not installed (X11, glvnd's libGL and libEGL) are taken from bin/gpu/lib.
set -uo pipefail
[ $# -eq 1 ] || {
	echo "usage: gpu-run.sh OUTDIR" >&2
	exit 2
}
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/.." || exit 2
bin=$PWD/bin/gpu
for f in sandbox gpu.test egl.test; do
	[ -x "$bin/$f" ] || {
		echo "gpu-run: no $bin/$f: run scripts/gpu-build.sh where Go is, and carry bin/gpu" >&2
		exit 2
	}
done
start=$(date +%s)
budget=${GPU_RUN_BUDGET:-570} # seconds: 9.5 minutes unless set

# step NAME LIMIT COMMAND...: run COMMAND with at most LIMIT seconds (less if the budget is short),
# its output in OUTDIR/NAME.txt; one line with its exit status and time. Returns the exit status.
step() {
	local name=$1 limit=$2
	shift 2
	if [ -n "${GPU_RUN_ONLY:-}" ] && ! [[ $name =~ ^($GPU_RUN_ONLY)$ ]]; then
		echo "== $name: not in GPU_RUN_ONLY" >"$out/$name.txt"
		return 125
	fi
	local left=$((budget - ($(date +%s) - start)))
	if [ "$left" -lt 15 ]; then
		echo "== $name: skipped, the $budget-second budget is spent" | tee "$out/$name.txt"
		return 125
	fi
	[ "$limit" -gt "$left" ] && limit=$left
	local s rc note=""
	s=$(date +%s)
	timeout --kill-after=10 "$limit" "$@" >"$out/$name.txt" 2>&1
	rc=$?
	[ $rc -eq 124 ] && note=" (cut at its $limit s limit)"
	echo "== $name: exit $rc$note, $(($(date +%s) - s)) s"
	return $rc
}

echo "== gpu"
nvidia-smi -L | tee "$out/gpu.txt" || {
	echo "gpu-run: nvidia-smi found no NVIDIA GPU; nothing here can run without one" >&2
	exit 1
}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >>"$out/gpu.txt"

# NVIDIA's EGL vendor file, for glvnd.
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ]; then
	for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json \
		/etc/glvnd/egl_vendor.d/10_nvidia.json; do
		if [ -f "$f" ]; then
			export __EGL_VENDOR_LIBRARY_FILENAMES=$f
			break
		fi
	done
fi
echo "__EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-(unset: glvnd searches its default folders)}" | tee -a "$out/gpu.txt"

# Shared libraries this machine lacks, from bin/gpu/lib (three passes: a missing library's own needs
# show only once it is found).
lib=$out/lib
mkdir -p "$lib"
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for _ in 1 2 3; do
	need=$(ldd "$bin/sandbox" 2>/dev/null | awk '/not found/ {print $1}')
	if ! ldconfig -p | grep -q 'libEGL\.so\.1 ' && [ ! -e "$lib/libEGL.so.1" ]; then
		need="$need libEGL.so.1"
	fi
	[ -e "$lib/libEGL.so.1" ] && need="$need $(ldd "$lib/libEGL.so.1" 2>/dev/null | awk '/not found/ {print $1}')"
	for l in $need; do
		if [ -f "$bin/lib/$l" ]; then
			ln -sf "$bin/lib/$l" "$lib/$l" && echo "gpu-run: $l is not installed here: bin/gpu/lib's"
		else
			echo "gpu-run: $l is missing here, and bin/gpu/lib has none"
		fi
	done
done | sort -u | tee "$out/libs.txt"

# 0. With GPU_RUN_CPU=1: the CPU step against Jolt on this machine's cores, first, while
# nothing else runs: scripts/bench-jolt.sh with the simd build and the jolt-runner that gpu-build.sh
# puts in bin/gpu, then the small scenes by worker count, twice. About 4 minutes on the H100's
# 16-core host: give it the budget (GPU_RUN_BUDGET).
if [ "${GPU_RUN_CPU:-}" = 1 ]; then
	echo "== 0. the CPU step against Jolt, $(nproc) cores"
	if [ -x "$bin/sandbox-cpu" ] && [ -x "$bin/jolt-runner" ]; then
		step cpu-table 240 env ROUNDS=1 scripts/bench-jolt.sh "$bin/sandbox-cpu" "$bin/jolt-runner"
		cat "$out/cpu-table.txt"
		step cpu-sweep 90 bash -c 'for r in 1 2; do for s in pyramid20 ragdoll pyramid; do printf "%s" $s
			for w in 1 2 4 8 16; do printf " w%s=%s" $w "$("$1" bench -scene $s -warmup 60 -steps 300 -workers $w |
				awk "/^total \(wall\)/ {print \$NF}")"; done; echo; done; done' _ "$bin/sandbox-cpu"
		cat "$out/cpu-sweep.txt"
	else
		echo "no bin/gpu/sandbox-cpu or bin/gpu/jolt-runner (scripts/gpu-build.sh copies them): skipped"
	fi
fi

echo "== 2. headless rendering through EGL (no X, DISPLAY unset)"
unset DISPLAY
step egl-context 60 "$bin/egl.test" -test.v
grep -E '^(---|ok|FAIL)|device|surfaceless' "$out/egl-context.txt" | head -8
(cd gpu && step egl-interop 120 env TUMBLE_REQUIRE_EGL=1 "$bin/gpu.test" -test.v \
	-test.run 'TestInteropWritesTheGLBuffer|TestTransformsOnTheGPUMatchFill')
grep -E '^(---|ok|FAIL|PASS)|GL ' "$out/egl-interop.txt" | head -8
step egl-screenshot 120 "$bin/sandbox" -gl egl -backend cuda -scene pile -frames 120 -screenshot "$out/pile-egl.png" -perf
grep -E '^(wrote|OpenGL|sandbox)|interop' "$out/egl-screenshot.txt" | head -5
if grep -q 'interop on' "$out/egl-screenshot.txt"; then echo "interop: on"; else echo "interop: NOT on (see egl-screenshot.txt)"; fi
# The probe's lines over the kernel-written debug lines (the window's interop path), and its picture.
if [ -x "$bin/ui.test" ]; then
	step probe-interop 90 "$bin/ui.test" -test.v -test.run 'TestProbeLinesOverCUDAInteropOnAGPU'
	grep -E '^(\s*---|ok|FAIL|PASS)|probe' "$out/probe-interop.txt" | head -6
else
	echo "== probe-interop: no $bin/ui.test (scripts/gpu-build.sh builds it)"
fi
step probe-screenshot 90 "$bin/sandbox" -gl egl -backend cuda -scene pile -frames 60 -debug contacts,probe -screenshot "$out/pile-probe-egl.png"
step frame-split-100k-cuda 150 "$bin/sandbox" -gl egl -backend cuda -scene pile100k -frames 121 -screenshot "$out/pile100k-egl.png" -perf
cat "$out/frame-split-100k-cuda.txt"
step frame-split-100k-cpu 120 "$bin/sandbox" -gl egl -backend cpu -scene pile100k -frames 21 -screenshot "$out/pile100k-cpu-egl.png" -perf
cat "$out/frame-split-100k-cpu.txt"

echo "== 4a. parity (the CPU's step against the GPU's)"
(cd gpu && step parity 240 "$bin/gpu.test" -test.run 'TestCUDAParity|TestCUDAStep|TestCUDASleep' -test.v)
grep -E '^(\s*---|ok|FAIL|PASS)|apart|bit|difference' "$out/parity.txt" | head -20

echo "== 4c. the small-world path: the sub-step loop as one launch against the per-pass kernels (untimed ms a step)"
(cd gpu && step small 180 "$bin/gpu.test" -test.run 'TestCUDASmallPath' -test.v)
grep -E '^(\s*---|ok|FAIL|PASS)|untimed step' "$out/small.txt" | head -40

echo "== 3. speed: sandbox bench -backend cuda -substeps 4 (median ms per step; the last step's device counts)"
for scene in pile pile100k pile1m pyramid20 ragdoll; do
	w=120 n=300
	[ "$scene" = pile1m ] && w=40 n=120
	step "bench-$scene" 120 "$bin/sandbox" bench -backend cuda -scene "$scene" -substeps 4 -warmup "$w" -steps "$n"
	grep -E 'total \(wall\)|^device, last step|^bandwidth floor|re-run|^sandbox' "$out/bench-$scene.txt"
done
echo "== the untimed step: wall clock of run -backend cuda -substeps 4, (N2 steps - N1 steps) / (N2 - N1)"
for spec in pyramid20:200:2200 ragdoll:200:2200 pile:100:600 pile100k:50:250 pile1m:20:70; do
	IFS=: read -r scene n1 n2 <<<"$spec"
	t=() ran=1
	for n in "$n1" "$n2"; do
		s=$(date +%s.%N)
		step "untimed-$scene-$n" 90 "$bin/sandbox" run -backend cuda -scene "$scene" -substeps 4 -steps "$n"
		[ $? -eq 0 ] || ran=0
		t+=("$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')")
	done
	[ $ran -eq 1 ] && awk -v s="$scene" -v a="${t[0]}" -v b="${t[1]}" -v n="$((n2 - n1))" \
		'BEGIN {printf "%s: %.3f ms per untimed step\n", s, (b - a) * 1000 / n}' | tee -a "$out/untimed.txt"
done

echo "== 3b. PGS at its defaults, 6 x (4+2) passes: sandbox bench -backend cuda -solver pgs (a launch per colour per pass)"
for scene in pyramid20 ragdoll pile pile100k; do
	step "bench-pgs-$scene" 120 "$bin/sandbox" bench -backend cuda -solver pgs -scene "$scene" -warmup 60 -steps 200
	grep -E 'total \(wall\)|^device, last step|re-run|^sandbox' "$out/bench-pgs-$scene.txt"
done

echo "== 4b. the rain's parity, in the background while the sanitizer runs"
(cd gpu && step parity-rain 270 "$bin/gpu.test" -test.run 'TestCUDARainParity' -test.v) >"$out/parity-rain.summary" &
rain=$!

echo "== 5. compute-sanitizer over 30 steps of stack, pendulum and ragdoll on the cuda backend"
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -z "$san" ]; then
	echo "compute-sanitizer not found" | tee "$out/sanitizer.txt"
else
	# sanitize TOOL [FLAGS...]: the three scenes under one tool (a child shell, so that timeout can run it).
	sanitize=(bash -c 'san=$1 tool=$2 bin=$3; shift 3; rc=0
		for scene in stack pendulum ragdoll; do
			echo "-- $scene"
			"$san" --tool "$tool" "$@" --error-exitcode 3 "$bin/sandbox" run -backend cuda -scene "$scene" -steps 30 || rc=$?
		done
		exit $rc' _ "$san")
	for tool in memcheck racecheck synccheck; do
		step "sanitizer-$tool" 100 "${sanitize[@]}" "$tool" "$bin"
		rc=$?
		grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|Program hit|^sandbox' "$out/sanitizer-$tool.txt" | sort | uniq -c | head -8
		if [ "$tool" = memcheck ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 125 ]; then
			echo "memcheck failed; the fallback line, API errors not reported:"
			step sanitizer-memcheck-no-api-errors 100 "${sanitize[@]}" memcheck "$bin" --report-api-errors no
			grep -E 'ERROR SUMMARY|^sandbox' "$out/sanitizer-memcheck-no-api-errors.txt" | sort | uniq -c | head -4
		fi
	done
fi

wait "$rain"
cat "$out/parity-rain.summary"
grep -E '^(---|ok|FAIL|PASS)|mean height' "$out/parity-rain.txt" | head -6
echo "== done in $(($(date +%s) - start)) s; the outputs are in $out"
