#!/usr/bin/env bash
# bench-box3d.sh SANDBOX [BOX3D_BENCHMARK] [JOLT_RUNNER]: Tumble's CPU step against Box3D's own
# benchmark runner and Jolt v5.5.0 on Box3D's three benchmark scenes (the presets large_pyramid,
# many_pyramids, joint_grid, exported byte for byte as the Box3D peer's files; docs/PERF.md).
#
# Interleaved: for each scene and worker count, ROUNDS rounds (default 5) of Box3D, Tumble, Jolt, the
# order reversed every other round, so that all three see the same machine load. Each run is timed by
# /usr/bin/time, whose CPU share (user + system over wall; 100% is one core busy, W x 100% the most W
# threads can take) is logged beside the load average, so that a loaded machine shows in the figures.
#
# Steps are Box3D's (benchmark/main.c): large_pyramid 200, many_pyramids and joint_grid 100.
#   Box3D  `benchmark -b=SCENE -t=W -w=W -r=1 -s`: "own" is its "run 0 : X (ms)" over steps 1..N-1
#          divided by N-1; "median" the median of its per-step times (b3Profile, the -s file).
#   Tumble `sandbox bench -scene FILE -warmup 60 -steps N -workers W`: the median of "total (wall)".
#   Jolt   `jolt-runner bench -scene FILE -warmup 60 -steps N -threads W`: median_ms.
# The table gives per engine the median over the rounds [fastest - slowest] in ms/step and the median
# CPU share; the ratios divide Tumble's median by Box3D's median step and by Jolt's median.
#
# Environment: ROUNDS (default 5), WORKERS (default "1 NPROC"), SCENES (default the three),
# LOG=FILE keeps one line per run (engine, scene, W, round, ms/step, CPU share, load). SOLVER=name or
# FLAGS=... change Tumble's run as in bench-jolt.sh. A missing runner leaves its columns "-".
set -eu

sandbox=$(realpath -- "${1:?usage: bench-box3d.sh SANDBOX [BOX3D_BENCHMARK] [JOLT_RUNNER]}")
box3d=${2:-../shared/tools/peers/box3d/bin/benchmark}
jolt=${3:-../shared/tools/peers/jolt-runner}
rounds=${ROUNDS:-5}
workers=${WORKERS:-"1 $(nproc)"}
scenes=${SCENES:-"large_pyramid many_pyramids joint_grid"}
if [ -x "$box3d" ]; then box3d=$(realpath -- "$box3d"); else
	echo "bench-box3d: no Box3D runner at $box3d: its columns are left empty" >&2
	box3d=
fi
if [ -x "$jolt" ]; then jolt=$(realpath -- "$jolt"); else
	echo "bench-box3d: no jolt-runner at $jolt: its columns are left empty" >&2
	jolt=
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/tumble-bench-box3d-XXXXXX")
trap 'rm -rf "$dir"' EXIT
log=$dir/log
cd "$dir"

steps_of() { # Box3D's benchmark/main.c step counts
	case $1 in
	large_pyramid) echo 200 ;;
	*) echo 100 ;;
	esac
}

# note ENGINE SCENE W ROUND MS OWN appends a run's log line, with the CPU share /usr/bin/time wrote.
note() {
	echo "engine=$1 scene=$2 W=$3 round=$4 ms=$5 own=$6 cpu=$(tr -d '%\n' <time.txt) load=$(cut -d' ' -f1 /proc/loadavg)" >>"$log"
}

run_box3d() { # scene W round
	[ -n "$box3d" ] || return 0
	local n total med
	n=$(steps_of "$1")
	rm -f "$1_t$2.dat"
	/usr/bin/time -f %P -o time.txt "$box3d" -b="$1" -t="$2" -w="$2" -r=1 -s >out.txt 2>&1
	total=$(sed -n 's/^run 0 : \([0-9.e+]*\) (ms)/\1/p' out.txt)
	med=$(awk 'NR > 1 { print $1 }' "$1_t$2.dat" | sort -g | awk '{ a[NR] = $1 } END {
		if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
	note box3d "$1" "$2" "$3" "$med" "$(awk -v t="$total" -v n="$n" 'BEGIN { printf "%.3f", t / (n - 1) }')"
}

run_tumble() { # scene W round
	/usr/bin/time -f %P -o time.txt "$sandbox" bench -scene "$1.json" -warmup 60 -steps "$(steps_of "$1")" \
		-workers "$2" ${SOLVER:+-solver "$SOLVER"} ${FLAGS:-} >out.txt 2>&1
	note tumble "$1" "$2" "$3" "$(awk '/^total \(wall\)/ { print $NF }' out.txt)" -
}

run_jolt() { # scene W round
	[ -n "$jolt" ] || return 0
	/usr/bin/time -f %P -o time.txt "$jolt" bench -scene "$1.json" -warmup 60 -steps "$(steps_of "$1")" \
		-threads "$2" >out.txt 2>&1
	note jolt "$1" "$2" "$3" "$(awk '$1 == "median_ms" { print $2 }' out.txt)" -
}

echo "Box3D, Tumble (solver ${SOLVER:-default}${FLAGS:+ $FLAGS}) and Jolt, $rounds rounds interleaved, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) ($(date -u '+%Y-%m-%d %H:%M UTC'))"
for s in $scenes; do
	"$sandbox" scenes export "$s" >"$s.json"
	for w in $workers; do
		for r in $(seq "$rounds"); do
			order="box3d tumble jolt"
			[ $((r % 2)) -eq 1 ] || order="jolt tumble box3d"
			for e in $order; do "run_$e" "$s" "$w" "$r"; done
		done
	done
done
[ -z "${LOG:-}" ] || cp "$log" "$LOG"

# The table: per scene and W, each engine's median over the rounds [least - most] and median CPU share.
awk -v scenes="$scenes" -v workers="$workers" '
function field(k,    i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] } return "" }
function med(list,    a, n) { n = split(list, a, " "); if (n == 0) return "-"; sortn(a, n)
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function lo(list,    a, n) { n = split(list, a, " "); sortn(a, n); return a[1] }
function hi(list,    a, n) { n = split(list, a, " "); sortn(a, n); return a[n] }
function sortn(a, n,    i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t } }
function cell(k) { if (!(k in ms)) return "-"; return sprintf("%.1f [%.1f-%.1f] %s%%", med(ms[k]), lo(ms[k]), hi(ms[k]), med(cpu[k])) }
{
	k = field("engine") SUBSEP field("scene") SUBSEP field("W")
	if (field("ms") == "") next
	ms[k] = ms[k] " " field("ms"); cpu[k] = cpu[k] " " field("cpu")
	if (field("own") != "-") own[k] = own[k] " " field("own")
}
END {
	print "| scene | W | Box3D median step | Box3D own (total / steps) | Tumble | Jolt | Tumble / Box3D | Tumble / Jolt |"
	print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	ns = split(scenes, S, " "); nw = split(workers, Wk, " ")
	for (i = 1; i <= ns; i++) for (j = 1; j <= nw; j++) {
		b = "box3d" SUBSEP S[i] SUBSEP Wk[j]; t = "tumble" SUBSEP S[i] SUBSEP Wk[j]; jo = "jolt" SUBSEP S[i] SUBSEP Wk[j]
		o = (b in own) ? sprintf("%.1f [%.1f-%.1f]", med(own[b]), lo(own[b]), hi(own[b])) : "-"
		rb = ((b in ms) && (t in ms)) ? sprintf("%.2fx", med(ms[t]) / med(ms[b])) : "-"
		rj = ((jo in ms) && (t in ms)) ? sprintf("%.2fx", med(ms[t]) / med(ms[jo])) : "-"
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", S[i], Wk[j], cell(b), o, cell(t), cell(jo), rb, rj
	}
	print ""
	print "cells: median ms/step over the rounds [fastest - slowest round], then the median CPU share of the runs"
	print "(100% = one core busy; W threads can take at most W x 100%)"
}' "$log"
