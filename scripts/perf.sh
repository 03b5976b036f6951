#!/usr/bin/env bash
# perf.sh SANDBOX : the frame time split of docs/PERF.md, for 1,000 and 10,000 boxes (the pile preset
# cut to 10 layers, and whole), at 1280 x 800 with the panel, under whatever display $DISPLAY names
# (make perf runs it under xvfb-run: Mesa's llvmpipe). First headless frames (one step, then one draw,
# timed by part), then the real window for FOR (default 15 s): frames and steps per second.
set -euo pipefail
bin=$1
out=${2:-out}
mkdir -p "$out"
"$bin" scenes export pile | python3 -c '
import json, sys
s = json.load(sys.stdin)
s["name"] = "pile1k"
s["bodies"] = s["bodies"][:1001]  # the ground and 10 layers of 10 x 10 boxes
json.dump(s, sys.stdout)' >"$out/pile1k.json"
for scene in "$out/pile1k.json" pile; do
	echo "== $scene: headless, one step then one draw per frame"
	"$bin" -scene "$scene" -frames "${FRAMES:-61}" -screenshot "$out/perf.png" -perf
	echo "== $scene: the window, the simulation on its own goroutine"
	"$bin" -scene "$scene" -for "${FOR:-15s}"
done
