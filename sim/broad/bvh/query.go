package bvh

import (
	"math"
	"time"

	"tumble/sim/broad"
	"tumble/sim/geom"
)

// Scene queries on the tree: Build makes it over a set of boxes without looking for pairs, and Cast and
// Overlap walk it from the root, so a query tests the boxes along its way instead of every body.

// Build builds the tree over boxes (or refits it, as Pairs does, by RefitGrowth) for Cast and Overlap,
// without the pair query. Invalid boxes (broad.Valid) are never reported.
func (t *LBVH) Build(boxes []geom.AABB) {
	t.Times = [NumStages]time.Duration{}
	n := len(boxes)
	t.boxes, t.moving = boxes, nil
	defer func() { t.boxes = nil }()
	t.bind()
	if n < 2 {
		// No internal node: the one leaf, if any, is held on its own.
		t.n, t.nodes, t.Rebuilt, t.builtCost = n, t.nodes[:0], true, 0
		t.leafBody, t.leafBox = resize(t.leafBody, n), resize(t.leafBox, n)
		if n == 1 {
			t.leafBody[0], t.leafBox[0] = 0, boxes[0]
			if !broad.Valid(&boxes[0]) {
				t.leafBox[0] = empty
			}
		}
		return
	}
	if n > math.MaxInt32/2 {
		panic("bvh: too many bodies")
	}
	clock := time.Now()
	refit := t.RefitGrowth > 1 && n == t.n && t.builtCost > 0
	if refit {
		t.fit(clock)
		if sum(t.cost) > float64(t.RefitGrowth)*t.builtCost {
			refit = false
		}
	}
	if !refit {
		t.n = n
		t.fit(t.build(clock))
		t.builtCost = sum(t.cost)
	}
	t.Rebuilt = !refit
}

// Cast calls visit for each body whose box, grown by ext on every side, the segment o + s d (s in
// [0, tmax]) meets, with the distance s at which it enters that box; visit returns the segment's new
// end. Returning tmax unchanged visits every such body; returning a nearer hit's distance prunes what
// lies beyond it, which is how a closest-hit query finds its answer without visiting the rest. Nearer
// subtrees are walked first. d need not be unit; s is in its units. Planes' world-spanning boxes are
// met by nearly every segment.
//
// Casting a box of half extents ext this way finds every body a box swept along the segment could
// touch: the swept box meets a body's box exactly when the centre's segment meets that box grown by
// ext (their Minkowski sum).
func (t *LBVH) Cast(o, d, ext geom.Vec3, tmax float32, visit func(body int32, enter, tmax float32) float32) {
	if t.n == 0 || !(tmax >= 0) {
		return
	}
	r := newSegment(o, d, ext)
	if t.n == 1 {
		if s, ok := r.enter(&t.leafBox[0], tmax); ok {
			visit(t.leafBody[0], s, tmax)
		}
		return
	}
	type entry struct {
		node  int32
		enter float32
	}
	var stack [64]entry // the tree is at most 64 deep, and each level holds at most one sibling
	top := 0
	node := int32(0)
	for {
		nd := &t.nodes[node]
		var next [2]entry
		m := 0
		for c := range 2 {
			s, ok := r.enter(&nd.box[c], tmax)
			if !ok {
				continue
			}
			if ch := nd.child[c]; ch < 0 {
				tmax = visit(^ch, s, tmax)
			} else {
				next[m] = entry{ch, s}
				m++
			}
		}
		if m == 2 && next[1].enter < next[0].enter {
			next[0], next[1] = next[1], next[0]
		}
		if m == 2 {
			stack[top] = next[1]
			top++
		}
		if m > 0 {
			node = next[0].node
			continue
		}
		// Pop the next subtree that still begins before the (possibly shortened) segment's end.
		for {
			if top == 0 {
				return
			}
			top--
			if stack[top].enter <= tmax {
				node = stack[top].node
				break
			}
		}
	}
}

// Overlap calls visit for each body whose box overlaps box (touching counts).
func (t *LBVH) Overlap(box geom.AABB, visit func(body int32)) {
	switch t.n {
	case 0:
		return
	case 1:
		if overlaps(&box, &t.leafBox[0]) {
			visit(t.leafBody[0])
		}
		return
	}
	var stack [64]int32
	top := 0
	node := int32(0)
	for {
		nd := &t.nodes[node]
		var next [2]int32
		m := 0
		for c := range 2 {
			if !overlaps(&box, &nd.box[c]) {
				continue
			}
			if ch := nd.child[c]; ch < 0 {
				visit(^ch)
			} else {
				next[m] = ch
				m++
			}
		}
		switch m {
		case 2:
			stack[top] = next[1]
			top++
			node = next[0]
		case 1:
			node = next[0]
		default:
			if top == 0 {
				return
			}
			top--
			node = stack[top]
		}
	}
}

// segment is a cast's ray as scalars (the compiler keeps them in registers; an array field is read
// from memory at each use): the origin, the reciprocal direction, and the half extents every box is
// grown by.
type segment struct {
	ox, oy, oz, ix, iy, iz, ex, ey, ez float32
}

// newSegment prepares the slab test of o + s d against boxes grown by ext. A zero component of d
// becomes a tiny positive one, so its slab bounds are huge (the ray lies in the slab or never reaches
// it) instead of 0 x Inf.
func newSegment(o, d, ext geom.Vec3) segment {
	inv := func(x float32) float32 {
		if x == 0 {
			x = 1e-30
		}
		return 1 / x
	}
	return segment{ox: o[0], oy: o[1], oz: o[2], ix: inv(d[0]), iy: inv(d[1]), iz: inv(d[2]), ex: ext[0], ey: ext[1], ez: ext[2]}
}

// enter returns where the segment, cut at tmax, enters box b grown by the extents, and whether it
// does. An empty box (Min > Max) has its near plane beyond its far one on some axis: never entered.
func (r *segment) enter(b *geom.AABB, tmax float32) (float32, bool) {
	t0, t1 := float32(0), tmax
	lo, hi := b.Min[0]-r.ex, b.Max[0]+r.ex
	if r.ix < 0 {
		lo, hi = hi, lo
	}
	t0, t1 = max(t0, (lo-r.ox)*r.ix), min(t1, (hi-r.ox)*r.ix)
	lo, hi = b.Min[1]-r.ey, b.Max[1]+r.ey
	if r.iy < 0 {
		lo, hi = hi, lo
	}
	t0, t1 = max(t0, (lo-r.oy)*r.iy), min(t1, (hi-r.oy)*r.iy)
	lo, hi = b.Min[2]-r.ez, b.Max[2]+r.ez
	if r.iz < 0 {
		lo, hi = hi, lo
	}
	t0, t1 = max(t0, (lo-r.oz)*r.iz), min(t1, (hi-r.oz)*r.iz)
	return t0, t0 <= t1
}
