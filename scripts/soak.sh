#!/usr/bin/env bash
# soak.sh SANDBOX [STEPS [PILE_STEPS]] : the long runs (make soak). Every preset of up to 1,000 bodies
# under every solver for STEPS steps (default 100,000), and the piles of the CPU (rain and pile, 10,000
# boxes each) under their default solver for PILE_STEPS steps (default 10,000). With SOAK_JOBS=1 (the
# default) the `sandbox soak` processes run one after another; SOAK_JOBS=N runs N at a time, each on
# one worker, the costliest (bodies x steps) first, so that the longest run starts at once and the
# wall time is about max(longest run, total CPU / N). Keep N at or under the cores, or the runs' step
# times measure each other rather than the step. It prints a markdown
# table, one row a run (the memory early and at the end, growth flagged, a blow-up named, the mean, the
# 99.9th percentile and the slowest step), and exits 1 if any run blew up, grew or failed.
# SOAK_SCENES and SOAK_SOLVERS (space-separated) narrow the runs; SOAK_PILES (default "rain pile")
# names the piles; SOAK_FLAGS are passed to every run (e.g. -workers 1).
set -u
bin=${1:?usage: soak.sh SANDBOX [STEPS [PILE_STEPS]]}
steps=${2:-100000}
pile_steps=${3:-10000}
piles=${SOAK_PILES-rain pile}
# The presets and their sizes from "sandbox scenes -l" (name, group, bodies, ...); the solvers from the
# help's "Solvers: a, b or c." line, which is sim.SolverNames.
scenes=${SOAK_SCENES-$("$bin" scenes -l | awk 'NR > 1 && $3 <= 1000 { print $1 }')}
solvers=${SOAK_SOLVERS-$("$bin" help | sed -n 's/.*Solvers: \(.*\)\./\1/p' | sed 's/,//g; s/ or / /')}
if [ -z "$scenes$piles" ] || [ -z "$solvers" ]; then
	echo "soak.sh: no scenes or no solvers found" >&2
	exit 1
fi
# The load average at the start and the end: the step times are wall time, and other work on the
# machine shows in them (above all in the slowest step).
load() { [ -r /proc/loadavg ] && cut -d' ' -f1-3 /proc/loadavg || echo unknown; }
echo "soak: $steps steps of: $(echo $scenes) under: $(echo $solvers); $pile_steps steps of: $(echo $piles); ${SOAK_JOBS:-1} at a time; flags: ${SOAK_FLAGS:-none}; load average $(load)"
echo
echo '| scene | solver | bodies | steps | wall s | CPU s | mean ms | 99.9% ms | slowest ms (step) | heap MiB early → end | RSS MiB early → end | memory | blow-up |'
echo '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |'
status=0
start=$SECONDS
jobs=${SOAK_JOBS:-1}
# The runs as lines "COST SCENE STEPS [-solver S]", costliest first (COST = bodies x steps, from the
# scene list): with several jobs the longest run must not start last.
declare -A bodies
while read -r name _ n _; do bodies[$name]=$n; done < <("$bin" scenes -l | awk 'NR > 1')
runs=$(
	for s in $scenes; do
		for solver in $solvers; do echo "$((${bodies[$s]:-1} * steps)) $s $steps -solver $solver"; done
	done
	for s in $piles; do echo "$((${bodies[$s]:-1} * pile_steps)) $s $pile_steps"; done
)
[ "$jobs" -gt 1 ] && runs=$(sort -k1,1nr <<<"$runs")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# soak I SCENE STEPS FLAGS...: one run, its row in $tmp/I.row and its exit status in $tmp/I.rc.
soak() {
	local i=$1 s=$2 n=$3 rc=0
	shift 3
	local more=()
	[ "$jobs" -gt 1 ] && more=(-workers 1)
	# shellcheck disable=SC2086 # SOAK_FLAGS is a list of flags
	"$bin" soak -row -scene "$s" -steps "$n" "${more[@]}" ${SOAK_FLAGS:-} "$@" >"$tmp/$i.row" || rc=$?
	[ $rc -ne 0 ] && echo "soak.sh: $s $*: exit status $rc" >&2
	echo $rc >"$tmp/$i.rc"
}
i=0
while read -r _ s n flags; do
	[ -n "$s" ] || continue
	i=$((i + 1))
	if [ "$jobs" -gt 1 ]; then
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
		# shellcheck disable=SC2086 # flags is "-solver NAME" or empty
		soak "$i" "$s" "$n" $flags &
	else
		# shellcheck disable=SC2086
		soak "$i" "$s" "$n" $flags
		cat "$tmp/$i.row"
	fi
done <<<"$runs"
wait
for k in $(seq 1 "$i"); do
	[ "$jobs" -gt 1 ] && cat "$tmp/$k.row"
	[ "$(cat "$tmp/$k.rc" 2>/dev/null || echo 1)" = 0 ] || status=1
done
echo
echo "soak: $((SECONDS - start)) s in all; load average $(load); $([ $status = 0 ] && echo 'no blow-up, no growth' || echo 'FAILED (above)')"
exit $status
