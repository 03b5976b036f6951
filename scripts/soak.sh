#!/usr/bin/env bash
# soak.sh SANDBOX [STEPS [PILE_STEPS]] : the long runs (make soak). Every preset of up to 1,000 bodies
# under every solver for STEPS steps (default 100,000), and the piles of the CPU (rain and pile, 10,000
# boxes each) under their default solver for PILE_STEPS steps (default 10,000), one `sandbox soak`
# process after another (never side by side, which would skew the step times). It prints a markdown
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
echo "soak: $steps steps of: $(echo $scenes) under: $(echo $solvers); $pile_steps steps of: $(echo $piles); flags: ${SOAK_FLAGS:-none}; load average $(load)"
echo
echo '| scene | solver | bodies | steps | wall s | CPU s | mean ms | 99.9% ms | slowest ms (step) | heap MiB early → end | RSS MiB early → end | memory | blow-up |'
echo '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |'
status=0
start=$SECONDS
soak() { # SCENE STEPS FLAGS...
	local s=$1 n=$2
	shift 2
	# shellcheck disable=SC2086 # SOAK_FLAGS is a list of flags
	"$bin" soak -row -scene "$s" -steps "$n" ${SOAK_FLAGS:-} "$@" || {
		echo "soak.sh: $s $*: exit status $?" >&2
		status=1
	}
}
for s in $scenes; do
	for solver in $solvers; do
		soak "$s" "$steps" -solver "$solver"
	done
done
for s in $piles; do
	soak "$s" "$pile_steps"
done
echo
echo "soak: $((SECONDS - start)) s in all; load average $(load); $([ $status = 0 ] && echo 'no blow-up, no growth' || echo 'FAILED (above)')"
exit $status
