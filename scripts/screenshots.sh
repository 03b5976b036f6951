#!/usr/bin/env bash
# screenshots.sh SANDBOX DIR : render every preset, and the panel, to PNGs in DIR (make screenshots runs
# it under xvfb-run). Each image is reproducible: N frames, exactly one simulation step each.
set -euo pipefail
bin=$1 dir=$2
mkdir -p "$dir"
shot() { # NAME FRAMES [FLAGS...]
	local name=$1 frames=$2
	shift 2
	"$bin" -frames "$frames" -screenshot "$dir/$name.png" "$@"
}
for scene in $("$bin" scenes | awk '{print $1}'); do
	frames=90 view=()
	case $scene in
	bowling) frames=75 ;;                   # the ball among the pins
	rain) frames=120 view=(-pitch 65) ;;    # most boxes down, seen into the bin
	pile) frames=60 ;;                      # 10,000 boxes: a second of it
	pile100k | pile1m) continue ;;          # GPU benchmarks: minutes a frame under llvmpipe
	tumbling) view=(-pitch 20) ;;           # no ground: a handle spinning in zero g
	esac
	shot "$scene" "$frames" -scene "$scene" -no-panel -width 640 -height 400 "${view[@]}"
done
# The broad phase's tree: the LBVH's boxes at depth 6 over the settling rain.
shot bvh 120 -scene rain -pitch 65 -debug bvh -no-panel -width 640 -height 400
# The panel: a body selected (its contacts in the table, highlighted), contact debug lines.
shot panel 30 -scene pyramid -select box2_7_7 -debug contacts,normals -open scene,inspect,stats -width 1280 -height 800
shot panel-spawn-joints 30 -scene ragdoll -open spawn,shoot,joints,debug -debug aabbs -color type -width 1280 -height 800
# The labels layer: the nearest bodies' names and masses.
shot labels 90 -scene mixed -debug labels -no-panel -width 640 -height 400
