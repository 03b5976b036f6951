#!/bin/bash
# bench-ab.sh SCENE ROUNDS SANDBOX... : two (or more) sandbox binaries on one scene, interleaved run
# by run so that they see the same machine load, ROUNDS runs each of `bench -scene SCENE -workers W
# -steps STEPS -warmup 60`; prints, per binary, the minimum, median and maximum of the runs' median
# ms/step. W (1), STEPS (600) and FLAGS (extra bench flags) come from the environment; STAGE="solve
# relax" sums those stages' medians instead of the total.
set -eu
scene=${1:?usage: bench-ab.sh SCENE ROUNDS SANDBOX...}
rounds=${2:?usage: bench-ab.sh SCENE ROUNDS SANDBOX...}
shift 2
pat='^total \(wall\)'
[ -n "${STAGE:-}" ] && pat="^($(echo "$STAGE" | sed 's/ /|/g')) "
declare -A res
for _ in $(seq "$rounds"); do
	for b in "$@"; do
		v=$("$b" bench -scene "$scene" -workers "${W:-1}" -steps "${STEPS:-600}" -warmup 60 ${FLAGS:-} |
			grep -E "$pat" | awk '{ s += $NF } END { print s }')
		res[$b]="${res[$b]:-} $v"
	done
done
for b in "$@"; do
	printf '%s: ' "$b"
	echo ${res[$b]} | tr ' ' '\n' | sort -n |
		awk '{ a[NR] = $1 } END { printf "min %.4f med %.4f max %.4f (%d runs)\n", a[1], a[int((NR + 1) / 2)], a[NR], NR }'
done
