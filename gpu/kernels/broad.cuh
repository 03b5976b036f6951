// broad.cuh: what the bounds and LBVH kernels (bounds.cu, lbvh.cu) share. Private to the broad phase:
// the other stages see only its output, the sorted pair list (layout.cuh).
#pragma once
#include "layout.cuh"

// TbBox is an AABB as sim/geom.AABB lays it out: min xyz, then max xyz (24 bytes, so that the Go side
// reads a box buffer straight into []geom.AABB).
struct TbBox {
	float lo[3], hi[3];
};

// TbNode is an internal node of the LBVH, as sim/bvh's inner: both children's boxes (a query reads one
// 64-byte line per node), each child an internal node (>= 0) or a leaf (~body), and per child the last
// sorted leaf below it (low 31 bits) with TB_MOVING_BIT set when a moving body is among its leaves.
struct TbNode {
	TbBox box[2];
	int child[2];
	unsigned last[2];
};

// TbBig is a body left out of the tree walk (tb_broad_fit lists it, tb_broad_query tests every leaf
// against it): its box, its sorted leaf position, the body, and whether it moves.
struct TbBig {
	TbBox box;
	int leaf, body;
	unsigned moving;
};

// TB_BIG_CAP is the most bodies the big list holds; past it, big bodies walk the tree as the others.
#define TB_BIG_CAP 32
// TB_BIG_SPAN: a box spanning at least 1024/TB_BIG_SPAN Morton cells (a quarter of the scene's span)
// on two axes or more is big.
#define TB_BIG_SPAN 4

#define TB_MOVING_BIT 0x80000000u
#define TB_LAST_MASK 0x7fffffffu

// TB_PLANE_EXTENT is sim/geom.PlaneExtent: the half size of a plane's box.
#define TB_PLANE_EXTENT 1e6f
// TB_HUGE_EXTENT is sim/bvh's hugeExtent: boxes larger than this along an axis (planes') stay out of the
// Morton frame, where they would swamp everyone else's centres.
#define TB_HUGE_EXTENT (TB_PLANE_EXTENT / 2)
#define TB_FLT_MAX 3.40282346638528859812e+38f

// tbBoxValid is sim/broad's valid: non-empty with a finite size. NaN fails the comparisons; an
// infinite coordinate makes a size NaN or +Inf, which the sum catches.
TB_FN bool tbBoxValid(const TbBox &b) {
	float dx = b.hi[0] - b.lo[0], dy = b.hi[1] - b.lo[1], dz = b.hi[2] - b.lo[2];
	return dx >= 0 && dy >= 0 && dz >= 0 && dx + dy + dz <= TB_FLT_MAX;
}

// tbBoxOrdinary is sim/bvh's ordinary: valid and not world-spanning.
TB_FN bool tbBoxOrdinary(const TbBox &b) {
	return tbBoxValid(b) && b.hi[0] - b.lo[0] <= TB_HUGE_EXTENT && b.hi[1] - b.lo[1] <= TB_HUGE_EXTENT &&
	       b.hi[2] - b.lo[2] <= TB_HUGE_EXTENT;
}

// tbBoxBig reports whether a valid box stays out of the tree walk: world-spanning (a plane's), or
// spanning a quarter of the scene (scale is the Morton frame's, cells per metre) on two axes or more,
// such as a floor slab or a wall, whose walk would visit every subtree along it.
TB_FN bool tbBoxBig(const TbBox &b, float scale) {
	if (!tbBoxOrdinary(b)) {
		return true;
	}
	int wide = 0;
	for (int k = 0; k < 3; k++) {
		wide += (b.hi[k] - b.lo[k]) * scale >= 1024 / TB_BIG_SPAN;
	}
	return wide >= 2;
}
