#!/usr/bin/env bash
# window-shots.sh [DIR]: take docs/WINDOW.md's pictures of the tools a person drives with the mouse
# (probe.png: a ray's hits from a placed origin; convergence.png: the solver's residual per pass;
# drift.png: the re-simulation's marks on the timeline), which `sandbox -frames -screenshot` cannot
# set up. ui's TestDocScreenshots drives the window under Xvfb by its input (clicks, keys, cursor
# moves), checks each picture shows what it must, and saves it with F12 into DIR (default
# docs/screenshots). About a minute on llvmpipe.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(realpath -m "${1:-docs/screenshots}")
mkdir -p "$dir"
TUMBLE_SHOTS=$dir TUMBLE_REQUIRE_DISPLAY=1 GOEXPERIMENT=simd xvfb-run -a -s '-screen 0 1280x800x24' \
	go test -count=1 -timeout 10m -run '^TestDocScreenshots$' ./ui/
ls -la "$dir"/probe.png "$dir"/convergence.png "$dir"/drift.png
