package sim

import (
	"math"

	"tumble/sim/geom"
)

// The broad phase's pairs are kept from step to step while the bodies stay put (Box2D's and Jolt's
// fat boxes): the query runs on each body's box grown by FatMargin, and a later step whose boxes all
// still lie inside those takes the query's pairs again, keeping the ones whose own boxes overlap.
// Those are exactly the pairs a query of the boxes themselves gives, in the same order, so the step's
// results do not depend on when the query last ran. A resting pyramid queries once. A scene whose
// bodies leave their grown boxes at once (a falling pile) would query grown boxes, with more pairs, for
// nothing: after a grown query whose pairs were never kept, the next FatRetry queries are of the
// boxes themselves.

// FatMargin is how much, m, a body's box is grown on each side for the broad phase's query; the query
// runs again once any body's box leaves its grown one.
const FatMargin = 0.05

// FatRetry is how many queries of the bodies' own boxes follow a grown query whose pairs were not kept
// even once.
const FatRetry = 8

// keptPairs reports whether the last query's pairs still hold: the same bodies, each box inside the
// grown one the query used, and the same moving flags.
func (w *World) keptPairs() bool {
	p := &w.pipe
	n := len(p.boxes)
	if !p.fatOK || len(p.fat) != n || len(p.fatMoving) != n {
		return false
	}
	for i := range n {
		b, f := &p.boxes[i], &p.fat[i]
		if p.dynamic[i] != p.fatMoving[i] || !(f.Min[0] <= b.Min[0] && f.Min[1] <= b.Min[1] && f.Min[2] <= b.Min[2] &&
			b.Max[0] <= f.Max[0] && b.Max[1] <= f.Max[1] && b.Max[2] <= f.Max[2]) {
			return false
		}
	}
	return true
}

// queryFat runs the broad phase on the bodies' boxes grown by FatMargin (or not grown, after a grown
// query that was wasted), into fatPairs.
func (w *World) queryFat() {
	p := &w.pipe
	if p.fatOK && p.fatMargin > 0 && p.fatUses == 0 {
		p.fatWait = FatRetry
	}
	p.fatMargin, p.fatUses = FatMargin, 0
	if p.fatWait > 0 {
		p.fatWait--
		p.fatMargin = 0
	}
	m := p.fatMargin
	n := len(p.boxes)
	p.fat = resize(p.fat, n)
	p.fatMoving = resize(p.fatMoving, n)
	copy(p.fatMoving, p.dynamic)
	for i := range n {
		b := p.boxes[i]
		if m > 0 && boxValid(&b) && b.Max[0]-b.Min[0] < geom.PlaneExtent {
			b.Min = b.Min.Sub(Vec3{m, m, m})
			b.Max = b.Max.Add(Vec3{m, m, m})
		}
		p.fat[i] = b
	}
	p.fatPairs = p.broad.Pairs(p.fat, p.dynamic, p.fatPairs)
	p.fatOK = true
}

// boxValid reports whether a box is non-empty with a finite size, as the broad phases test it.
func boxValid(b *geom.AABB) bool {
	dx, dy, dz := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1], b.Max[2]-b.Min[2]
	return dx >= 0 && dy >= 0 && dz >= 0 && dx+dy+dz <= math.MaxFloat32
}

// boxesOverlap is the broad phases' test: both boxes valid and overlapping (touching counts).
func boxesOverlap(a, b *geom.AABB) bool {
	return a.Min[0] <= b.Max[0] && b.Min[0] <= a.Max[0] && a.Min[1] <= b.Max[1] && b.Min[1] <= a.Max[1] &&
		a.Min[2] <= b.Max[2] && b.Min[2] <= a.Max[2] && boxValid(a) && boxValid(b)
}
