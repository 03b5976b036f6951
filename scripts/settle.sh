#!/usr/bin/env bash
# settle.sh [SANDBOX] [SECONDS] : the check of rest for the joint presets, Tumble and Jolt side by side.
# Each preset is exported to a scene file and run for SECONDS (default 60) with sleeping off, by
# SANDBOX (default bin/sandbox) under each solver of $SOLVERS (default pgs) and by the jolt-runner
# ($JOLT, default ../shared/tools/peers/jolt-runner) on the same file; then by SANDBOX again with
# sleeping on for $SLEEP_SECONDS (default 30). Columns: the largest speed of a body's centre (m/s) and
# the count of bodies faster than 1 cm/s at the end (of the dynamic bodies, for ours); with sleeping on, the bodies still awake and when
# all first slept. "car-parked" and "engine-stopped" are car and engine with their motors' speed set to
# 0 (the motors hold the wheels and the crank); "engine" is driven and never rests, "chain" hangs from a
# fixed point and swings, "door"'s ball rolls on (no rolling resistance). With JOINT_FRICTION=off every
# joint's friction is taken out of the files (the ragdoll preset's joints have some). The jolt-runner
# takes no joint friction: Jolt always runs the file without it.
set -u
bin=${1:-bin/sandbox}
secs=${2:-60}
sleepSecs=${SLEEP_SECONDS:-30}
jolt=${JOLT:-../shared/tools/peers/jolt-runner}
solvers=${SOLVERS:-pgs}
presets=${PRESETS:-ragdoll bridge chain car-parked door engine engine-stopped}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ours FILE SOLVER SECONDS: "speed (body) moving/dynamic [awake, asleep from]" from run -settle.
ours() {
	local out
	out=$("$bin" run -scene "$1" -solver "$2" -settle "$3" -workers 1 2>&1) || { echo "failed: ${out##*$'\n'}"; return; }
	sed -n 's/^settle: .*largest speed \([0-9.]*\) m\/s (\([^)]*\)), \([0-9]*\) of \([0-9]*\) bodies.*/\1 (\2) \3\/\4/p' <<<"$out"
}
# asleep FILE SOLVER SECONDS: "awake/dynamic, all asleep from T s" (or "never") with sleeping on.
asleep() {
	local out
	out=$("$bin" run -scene "$1" -solver "$2" -settle "$3" -workers 1 2>&1) || { echo "failed: ${out##*$'\n'}"; return; }
	sed -n 's/^settle: .*sleeping: \([0-9]*\) of \([0-9]*\) bodies awake, \(.*\)$/\1\/\2 awake, \3/p' <<<"$out"
}
# jolt FILE: the same figures from the last step of a jolt-runner trace (vx, vy, vz: fields 11-13).
jolt() {
	local steps=$(awk -v s="$secs" '/"dt":/ {gsub(/[",]/, "", $2); printf "%d", s / $2 + 0.5; exit}' "$1")
	"$jolt" run -scene "$1" -steps "$steps" -every "$steps" -trace "$tmp/jolt.csv" -threads 1 >/dev/null 2>&1 ||
		{ echo "cannot run it"; return; }
	awk -F, -v steps="$steps" 'NR > 1 && $1 == steps {
			v = sqrt($11 * $11 + $12 * $12 + $13 * $13)
			if (v > top) { top = v; who = $3 }
			if (v > 0.01) moving++
		}
		END { printf "%.4f (%s) %d\n", top, who == "" ? "-" : who, moving }' "$tmp/jolt.csv"
}

printf '%-15s %-8s | %-44s | %-36s | %s\n' preset solver "ours: largest m/s (body) moving/bodies" "ours, sleeping: awake, all asleep" "Jolt 5.5: largest m/s (body) moving"
for p in $presets; do
	f=$tmp/$p.json
	case $p in
	car-parked) "$bin" scenes export car | sed -e 's/"speed": [-0-9.e]*/"speed": 0/' -e '/"view":/d' >"$f" ;;
	engine-stopped) "$bin" scenes export engine | sed -e 's/"speed": [-0-9.e]*/"speed": 0/' >"$f" ;;
	*) "$bin" scenes export "$p" | sed -e '/"view":/d' >"$f" ;;
	esac
	# A joint's friction is the last field of its line; a body's lines have no "bodyA".
	sed -e '/"bodyA"/s/, "friction": [-0-9.e+]*//' "$f" >"$tmp/$p.jolt.json"
	[ "${JOINT_FRICTION:-on}" = off ] && cp "$tmp/$p.jolt.json" "$f"
	# Sleeping on: after the file's "dt", or its "name" where it keeps the default step (the robots).
	if grep -q '^  "dt": ' "$f"; then
		sed -e 's/^  "dt": \(.*\),$/  "dt": \1,\n  "solver": {"sleep": true},/' "$f" >"$tmp/$p.sleep.json"
	else
		sed -e 's/^  "name": \(.*\),$/  "name": \1,\n  "solver": {"sleep": true},/' "$f" >"$tmp/$p.sleep.json"
	fi
	j=$(jolt "$tmp/$p.jolt.json")
	for s in $solvers; do
		printf '%-15s %-8s | %-44s | %-36s | %s\n' "$p" "$s" "$(ours "$f" "$s" "$secs")" "$(asleep "$tmp/$p.sleep.json" "$s" "$sleepSecs")" "$j"
	done
done
