#!/bin/bash
# check-sse.sh SANDBOX: fails if the simulation code of a GOEXPERIMENT=simd build runs a legacy (non-VEX)
# SSE instruction where the YMM registers' upper halves may be dirty: after a 256-bit instruction and
# before the next VZEROUPPER, in address order, within one function of the tumble packages.
#
# On the GPU machine's Intel Xeon (Emerald Rapids) each such instruction cost about 140 cycles, which
# this AMD machine does not pay (docs/PERF.md, "The wide passes"). Go compiles scalar float code, float constants 0, conversions and copies of arrays
# and structs to legacy SSE (XORPS, MOVSS, CVTSI2SS, MOVUPS), so an innocent edit of a wide pass
# (bc(0), bc(float32(i)), an m8 returned by value) brings them back; this check says where. Address order stands in for control flow: a cold path laid out after vector code
# is listed too, and belongs in a function of its own that starts with ClearAVXUpperBits (gatherLast).
set -euo pipefail
bin=${1:?usage: check-sse.sh SANDBOX}
command -v objdump >/dev/null || { echo "check-sse: objdump (binutils) is missing" >&2; exit 2; }
found=$(objdump -d --no-show-raw-insn "$bin" | awk '
	/^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn); mine = fn ~ /^tumble\//; d = 0; next }
	!mine || !/^ *[0-9a-f]+:/ { next }
	{ sub(":", "", $1) }
	$2 == "vzeroupper" { d = 0; if (fn ~ /^tumble\/sim\./) wide = 1; next }
	/%ymm|%zmm/ { d = 1; next }
	d && $2 !~ /^v/ && /%xmm/ { print fn, $1, $2, $3 }
	END { if (!wide) print "NOWIDE" }')
if [ "$found" = NOWIDE ] || grep -q NOWIDE <<<"$found"; then
	echo "check-sse: $bin has no wide passes (build it with GOEXPERIMENT=simd)" >&2
	exit 2
fi
if [ -z "$found" ]; then
	echo "check-sse: no legacy SSE instruction after 256-bit code in the tumble packages of $bin"
	exit 0
fi
echo "check-sse: legacy (non-VEX) SSE instructions after 256-bit code, before a VZEROUPPER:"
while read -r fn addr op args; do
	line=$(go tool objdump -s "^${fn//./\\.}\$" "$bin" 2>/dev/null | awk -v a="0x$addr" '$2 == a { print $1; exit }')
	echo "  $fn ${line:-?}: $op $args"
done <<<"$found"
exit 1
