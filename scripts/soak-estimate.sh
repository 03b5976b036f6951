#!/usr/bin/env bash
# soak-estimate.sh SANDBOX [SHORT [LONG]] : how long the full `make soak` takes here, from short runs
# (make soak-estimate). scripts/soak.sh's runs twice, SHORT (default 1000) and LONG (default 3000)
# steps, the piles PILE_SHORT and PILE_LONG (SOAK_PILE_SHORT, SOAK_PILE_LONG: 200 and 600), each run
# on one worker, one at a time (so that each run's CPU time is its own step's). A scene's first
# seconds cost differently from its later rest (a ragdoll pile forms, a pyramid holds still), so a
# run's full cost is extrapolated from the difference of the two lengths, not from a mean:
#
#	CPU(full) = CPU(SHORT) + (CPU(LONG) - CPU(SHORT)) / (LONG - SHORT) x (FULL - SHORT)
#
# with FULL 100,000 steps (10,000 for the piles; SOAK_FULL and SOAK_PILE_FULL change them); a run that
# blew up in the longer table stops at the same step in the full one, and costs what it cost there. It prints
# both tables, then each run's estimate, the total CPU time, and the wall time of the full target on
# 1, 2, 4 and 8 jobs, the costliest run first (as scripts/soak.sh orders them): the makespan of that
# order when each job keeps one core. SOAK_SCENES, SOAK_SOLVERS and SOAK_PILES narrow it as for soak.sh.
#
# soak-estimate.sh -tables SHORT.md LONG.md : the estimate from two tables soak.sh wrote earlier (one
# row a run; a run missing from either is left out).
set -u
usage='usage: soak-estimate.sh SANDBOX [SHORT [LONG]] | -tables SHORT.md LONG.md'
bin=${1:?$usage}
short=${2:-1000}
long=${3:-3000}
pshort=${SOAK_PILE_SHORT:-200}
plong=${SOAK_PILE_LONG:-600}
full=${SOAK_FULL:-100000}
pfull=${SOAK_PILE_FULL:-10000}
here=$(dirname "$0")
piles=${SOAK_PILES-rain pile}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$bin" = -tables ]; then
	cp "${2:?$usage}" "$tmp/short.md" && cp "${3:?$usage}" "$tmp/long.md" || exit 1
else
	export SOAK_JOBS=1 SOAK_FLAGS="-workers 1 ${SOAK_FLAGS:-}"
	"$here/soak.sh" "$bin" "$short" "$pshort" | tee "$tmp/short.md"
	"$here/soak.sh" "$bin" "$long" "$plong" | tee "$tmp/long.md"
	echo
fi
# The rows' columns (split on |): 2 scene, 3 solver, 5 steps, 7 CPU s.
awk -F'|' -v piles=" $piles " -v full="$full" -v pfull="$pfull" '
function trim(x) { gsub(/^ +| +$/, "", x); return x }
FNR == 1 { f++ }
$5 !~ /^ *[0-9]+ *$/ { next }
{ key = trim($2) " " trim($3); cpu[f, key] = trim($7) + 0; n[f, key] = trim($5) + 0; keys[key] = 1; stop[f, key] = trim($14) != "none" }
END {
	m = 0
	for (k in keys) {
		if (!((1, k) in cpu) || !((2, k) in cpu)) continue
		a = n[1, k]; b = n[2, k]; split(k, sc, " "); F = index(piles, " " sc[1] " ") ? pfull : full
		if (stop[2, k]) {
			# The run blew up (or failed) at step b: the full run, the same steps, stops there too.
			est = cpu[2, k]; rate = 0; F = b; note = " (stops: blow-up)"
		} else {
			if (b <= a) continue
			rate = (cpu[2, k] - cpu[1, k]) / (b - a); if (rate < 0) rate = 0
			est = cpu[1, k] + rate * (F - a); note = ""
		}
		t[++m] = est; total += est
		row[m] = sprintf("| %s | %s | %d, %d | %.1f, %.1f | %.2f | %d%s | %.0f |", sc[1], sc[2], a, b, cpu[1, k], cpu[2, k], rate * 1000, F, note, est)
	}
	# costliest first: the order of the table, and the order soak.sh starts the runs in
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (t[j] > t[i]) { x = t[i]; t[i] = t[j]; t[j] = x; x = row[i]; row[i] = row[j]; row[j] = x }
	print "| scene | solver | steps | CPU s | CPU s per 1,000 steps after the shorter run | steps in full | CPU s in full (estimate) |"
	print "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
	for (i = 1; i <= m; i++) print row[i]
	printf "\nfull soak, estimated: %.0f CPU s (%.2f h) over %d runs; the longest %.0f s (%.2f h)\n", total, total / 3600, m, t[1], t[1] / 3600
	split("1 2 4 8", js, " ")
	for (q = 1; q <= 4; q++) {
		J = js[q]; for (i = 1; i <= J; i++) load[i] = 0
		for (i = 1; i <= m; i++) { lo = 1; for (j = 2; j <= J; j++) if (load[j] < load[lo]) lo = j; load[lo] += t[i] }
		w = 0; for (i = 1; i <= J; i++) if (load[i] > w) w = load[i]
		printf "wall time on %d jobs (SOAK_JOBS=%d, a core each): %.2f h\n", J, J, w / 3600
	}
}' "$tmp/short.md" "$tmp/long.md"
