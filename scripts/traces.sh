#!/usr/bin/env bash
# traces.sh SANDBOX OUTDIR : a trace of every preset (but pile100k and pile1m) under every solver on one
# worker, and under the default solver on two workers (grains by trial and held fine), with -lanes 8
# and with -scalar: OUTDIR/SCENE.VARIANT.csv, 150 steps each (60 for pile and rain). Two builds'
# OUTDIRs compared file by file (cmp) say whether a change kept the step's results bit for bit:
#   scripts/traces.sh OLD/sandbox old; scripts/traces.sh bin/sandbox new
#   for f in old/*.csv; do cmp -s "$f" "new/${f##*/}" || echo "differs: ${f##*/}"; done
set -u
bin=${1:?usage: traces.sh SANDBOX OUTDIR}
out=${2:?usage: traces.sh SANDBOX OUTDIR}
mkdir -p "$out"
status=0
for s in $("$bin" scenes); do
	case $s in pile100k | pile1m) continue ;; esac
	steps=150
	case $s in pile | rain) steps=60 ;; esac
	run() { # NAME FLAGS...
		local name=$1
		shift
		"$bin" run -scene "$s" -steps "$steps" -trace "$out/$s.$name.csv" "$@" >/dev/null ||
			{ echo "traces.sh: $s $name failed" >&2; status=1; }
	}
	for solver in jacobi pgs rigid xpbd impulse penalty shapematch; do
		run "$solver" -solver "$solver" -workers 1
	done
	run w2 -workers 2
	run w2fine -workers 2 -grains fine
	run l8 -workers 1 -lanes 8
	run scalar -workers 1 -scalar
done
exit $status
