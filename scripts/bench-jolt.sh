#!/bin/sh
# bench-jolt.sh SANDBOX [JOLT_RUNNER]: Tumble's CPU step against Jolt v5.5.0 on the same scene files,
# side by side, interleaved scene by scene so that both see the same machine load (docs/PERF.md).
#
# Each scene is exported from its preset and stepped by both engines with 60 warm-up steps, then
# STEPS timed steps (540; 120 for the 10,000-body pile and rain so that the table takes minutes); the
# figure is the median ms per timed step. Tumble runs its default CPU solver with 1 worker and with
# one per core, Jolt with 1 thread and one per core. ROUNDS=n repeats the table n times (the spread is
# the noise of a shared machine). SCENES overrides the list. Without the jolt-runner the Jolt columns
# read "-" and Tumble's are still measured. SOLVER=name runs Tumble with that solver instead of its
# default (SOLVER=rigid: Jolt's formulation, docs/PERF.md); FLAGS adds bench flags (FLAGS=-scalar: PGS's
# scalar contact and joint passes instead of the wide ones). With ROUNDS > 1 a last table gives each
# column's least figure over the rounds. KEEP=DIR keeps each Tumble run's whole bench output (its stage
# table) there, as SCENE-wWORKERS-rROUND.txt.
set -eu

sandbox=${1:?usage: bench-jolt.sh SANDBOX [JOLT_RUNNER]}
jolt=${2:-../shared/tools/peers/jolt-runner}
scenes=${SCENES:-pyramid20 pyramid ragdoll pile rain}
rounds=${ROUNDS:-1}
cores=$(nproc)
[ -x "$jolt" ] || { echo "bench-jolt: no jolt-runner at $jolt: the Jolt columns are left empty" >&2; jolt=; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/tumble-bench-XXXXXX")
trap 'rm -rf "$dir"' EXIT

# tumble FILE STEPS WORKERS prints Tumble's median ms/step over the timed steps.
tumble() {
	"$sandbox" bench -scene "$1" -warmup 60 -steps "$2" -workers "$3" ${SOLVER:+-solver "$SOLVER"} ${FLAGS:-} >"$dir/last"
	[ -z "${KEEP:-}" ] || cp "$dir/last" "$KEEP/$(basename "$1" .json)-w$3-r$r.txt"
	awk '/^total \(wall\)/ { print $NF }' "$dir/last"
}

# joltms FILE STEPS THREADS prints Jolt's median ms/step, or - without the runner.
joltms() {
	if [ -z "$jolt" ]; then echo -; return; fi
	"$jolt" bench -scene "$1" -warmup 60 -steps "$2" -threads "$3" 2>/dev/null | awk '$1 == "median_ms" { print $2 }'
}

echo "median ms/step, $cores cores, Tumble's solver ${SOLVER:-default}${FLAGS:+ $FLAGS} ($(date -u '+%Y-%m-%d %H:%M UTC')); ratio = Tumble's best / Jolt's best"
printf '| %-9s | %6s | %13s | %14s | %16s | %17s | %6s |\n' scene steps "Jolt 1 thread" "Jolt $cores threads" \
	"Tumble 1 worker" "Tumble $cores workers" ratio
echo '| --- | ---: | ---: | ---: | ---: | ---: | ---: |'
for r in $(seq "$rounds"); do
	for s in $scenes; do
		f="$dir/$s.json"
		[ -f "$f" ] || "$sandbox" scenes export "$s" >"$f"
		case $s in pile | rain) n=120 ;; *) n=540 ;; esac
		j1=$(joltms "$f" $n 1)
		t1=$(tumble "$f" $n 1)
		jn=$(joltms "$f" $n "$cores")
		tn=$(tumble "$f" $n "$cores")
		ratio=$(awk -v a="$j1" -v b="$jn" -v c="$t1" -v d="$tn" 'BEGIN {
			if (a == "-" || a == "") { print "-"; exit }
			j = (a < b) ? a : b; t = (c < d) ? c : d; printf "%.2f", t / j }')
		printf '| %-9s | %6d | %13s | %14s | %16s | %17s | %6s |\n' "$s" $n "$j1" "$jn" "$t1" "$tn" "$ratio"
		echo "$s $n $j1 $jn $t1 $tn" >>"$dir/rows"
	done
done
# With several rounds, each column's least figure over the rounds: noise on a shared machine only adds
# time, and a slow phase that catches one engine's run and not the other's skews a round's ratio.
if [ "$rounds" -gt 1 ]; then
	echo
	echo "least of the $rounds rounds, each column; ratio = Tumble's best / Jolt's best"
	printf '| %-9s | %6s | %13s | %14s | %16s | %17s | %6s |\n' scene steps "Jolt 1 thread" "Jolt $cores threads" \
		"Tumble 1 worker" "Tumble $cores workers" ratio
	echo '| --- | ---: | ---: | ---: | ---: | ---: | ---: |'
	for s in $scenes; do
		awk -v s="$s" '$1 == s {
			n = $2
			for (c = 3; c <= 6; c++) if ($c != "-" && (!(c in m) || $c + 0 < m[c])) m[c] = $c + 0
		} END {
			for (c = 3; c <= 6; c++) v[c] = (c in m) ? sprintf("%.4f", m[c]) : "-"
			r = "-"
			if ((3 in m) && (4 in m)) { j = (m[3] < m[4]) ? m[3] : m[4]; t = (m[5] < m[6]) ? m[5] : m[6]; r = sprintf("%.2f", t / j) }
			printf "| %-9s | %6d | %13s | %14s | %16s | %17s | %6s |\n", s, n, v[3], v[4], v[5], v[6], r
		}' "$dir/rows"
	done
fi
