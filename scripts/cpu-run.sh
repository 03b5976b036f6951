#!/usr/bin/env bash
# cpu-run.sh OUTDIR: docs/PERF.md's CPU measurements on a machine without Go (the GPU machine's 16-core host),
# from what `scripts/cpu-build.sh` put in bin/cpu (carry it): the simd sandbox, the jolt-runner and
# the sim package's test binary. In order, each into OUTDIR:
#   cpu.txt      the processor (lscpu);
#   table.txt    Tumble against Jolt side by side (scripts/bench-jolt.sh, ROUNDS rounds, default 1), and
#                every Tumble run's stage table (KEEP: stages.tgz, SCENE-wW-rR.txt);
#   sweep.txt    the small scenes by worker count, 1 2 4 8 16 (median ms per step, 300 steps after 60),
#                twice, with how many steps ran with fine grains; BASE="NAME..." runs bin/cpu/NAME beside
#                each (other builds, for a comparison in one run); and pyramid20 with the wide
#                passes against -scalar, interleaved;
#   profiles.tgz CPU profiles of the timed steps: pyramid20 and pyramid on 1 worker, pyramid and pile
#                on all cores (read them here with the same binary: go tool pprof bin/cpu/sandbox F);
#   islands.txt  the ragdolls apart (scripts/scenes/ragdolls-apart.json: the ragdoll preset's twenty
#                ragdolls side by side on the ground, twenty islands) by worker count, 2 4 8 16, with
#                -grains coarse, fine -islands=false, fine and auto, three rounds interleaved, and Jolt
#                on 1 and all threads;
#   lanes.txt    the small scenes with the contact kernels of 8 lanes (AVX2) and of 16 (AVX-512),
#                `-lanes 8|16`, on 1 worker and all cores, three rounds interleaved (median ms a step);
#   micro.txt    the sim package's benchmarks (the store-then-load patterns and a pyramid20 step),
#                where bin/cpu has sim.test.
# CPU_RUN_ONLY=REGEX runs only the parts named (cpu, table, sweep, islands, lanes, prof, micro). Each
# part has a time limit; the whole takes about 7 minutes on 16 cores.
set -uo pipefail
[ $# -eq 1 ] || {
	echo "usage: cpu-run.sh OUTDIR" >&2
	exit 2
}
mkdir -p "$1/stages" || exit 2
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/.." || exit 2
bin=$PWD/bin/cpu
for f in sandbox jolt-runner; do
	[ -x "$bin/$f" ] || {
		echo "cpu-run: no $bin/$f: run scripts/cpu-build.sh where Go is, and carry bin/cpu" >&2
		exit 2
	}
done
cores=$(nproc)
# Shared libraries the sandbox links (libGL, X11) that this machine may lack: bin/cpu/lib's copies.
export LD_LIBRARY_PATH="$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# part NAME LIMIT COMMAND...: run COMMAND, at most LIMIT seconds, into OUTDIR/NAME.txt.
part() {
	local name=$1 limit=$2
	shift 2
	if [ -n "${CPU_RUN_ONLY:-}" ] && ! [[ $name =~ ^($CPU_RUN_ONLY)$ ]]; then return 0; fi
	local s=$(date +%s)
	timeout --kill-after=5 "$limit" "$@" >"$out/$name.txt" 2>&1
	echo "== $name: exit $?, $(($(date +%s) - s)) s"
	cat "$out/$name.txt"
}

ms() { awk '/^total \(wall\)/ { print $NF }'; }

sweep() {
	for r in 1 2; do
		for s in pyramid20 ragdoll pyramid; do
			for w in 1 2 4 8 16; do
				[ "$w" -le "$cores" ] || continue
				printf '%s w%s' "$s" "$w"
				for b in "$bin/sandbox" $(for n in ${BASE:-}; do echo "$bin/$n"; done); do
					o=$("$b" bench -scene "$s" -warmup 60 -steps 300 -workers "$w")
					printf ' %s=%s' "$(basename "$b")" "$(echo "$o" | ms)"
					echo "$o" | awk '/fine grains on/ { printf "(fine on %s of %s)", $5, $7 }'
				done
				echo
			done
		done
	done
	echo "pyramid20, 1 worker, wide passes against -scalar, interleaved:"
	for r in 1 2 3; do
		printf 'wide=%s scalar=%s\n' "$("$bin/sandbox" bench -scene pyramid20 -warmup 60 -steps 300 -workers 1 | ms)" \
			"$("$bin/sandbox" bench -scene pyramid20 -warmup 60 -steps 300 -workers 1 -scalar | ms)"
	done
}

islands() {
	local f=scripts/scenes/ragdolls-apart.json
	for r in 1 2 3; do
		for w in 2 4 8 16; do
			[ "$w" -le "$cores" ] || continue
			printf 'ragdolls-apart w%s' "$w"
			for g in "coarse" "fine -islands=false" "fine" "auto"; do
				o=$("$bin/sandbox" bench -scene "$f" -warmup 60 -steps 300 -workers "$w" -grains $g)
				printf ' %s=%s' "$(echo "$g" | tr -d ' ')" "$(echo "$o" | ms)"
				echo "$o" | awk '/island by island on/ { printf "(islands on %s, %s regions)", $9, $17 } /fine grains on/ { printf "(fine on %s)", $5 }'
			done
			echo
		done
		printf 'jolt 1=%s %s=%s\n' "$("$bin/jolt-runner" bench -scene "$f" -warmup 60 -steps 300 -threads 1 | awk '$1 == "median_ms" { print $2 }')" \
			"$cores" "$("$bin/jolt-runner" bench -scene "$f" -warmup 60 -steps 300 -threads "$cores" | awk '$1 == "median_ms" { print $2 }')"
	done
}

profiles() {
	"$bin/sandbox" bench -scene pyramid20 -warmup 60 -steps 2000 -workers 1 -cpuprofile "$out/pyramid20-w1.prof" | ms
	"$bin/sandbox" bench -scene pyramid -warmup 60 -steps 600 -workers 1 -cpuprofile "$out/pyramid-w1.prof" | ms
	"$bin/sandbox" bench -scene pyramid -warmup 60 -steps 600 -workers "$cores" -cpuprofile "$out/pyramid-wn.prof" | ms
	"$bin/sandbox" bench -scene pile -warmup 60 -steps 120 -workers "$cores" -cpuprofile "$out/pile-wn.prof" | ms
}

lanes() {
	for r in 1 2 3; do
		for s in pyramid20 pyramid ragdoll; do
			for w in 1 "$cores"; do
				printf '%s w%s round %s' "$s" "$w" "$r"
				for l in 8 16; do
					printf ' lanes%s %s' "$l" "$("$bin/sandbox" bench -scene "$s" -workers "$w" -steps 300 -warmup 60 -lanes "$l" | ms)"
				done
				echo
			done
		done
	done
}

export -f ms sweep islands profiles lanes
export bin out cores BASE
part cpu 10 lscpu
part table 300 env ROUNDS="${ROUNDS:-1}" KEEP="$out/stages" scripts/bench-jolt.sh "$bin/sandbox" "$bin/jolt-runner"
part sweep 150 bash -c sweep
part islands 120 bash -c islands
part lanes 90 bash -c lanes
part prof 90 bash -c profiles
if [ -x "$bin/sim.test" ]; then
	(cd sim && part micro 60 "$bin/sim.test" -test.run '^$' -test.bench 'StoreThen|StepPyramid20' -test.benchtime 1s)
fi
# At most 8 files come back from the device tool: the stage tables and the profiles in two archives.
tar -C "$out" -czf "$out/stages.tgz" stages && rm -rf "$out/stages"
(cd "$out" && ls ./*.prof >/dev/null 2>&1 && tar -czf profiles.tgz ./*.prof && rm -f ./*.prof)
ls -la "$out"
