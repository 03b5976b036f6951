package sim

import (
	"slices"

	"tumble/sim/broad"
	"tumble/sim/geom"
)

// The broad phase's pairs are kept from step to step while the bodies stay put (Box2D's and Jolt's
// fat boxes): the query runs on each body's box grown by FatMargin, and a later step whose boxes all
// still lie inside those takes the query's pairs again, keeping the ones whose own boxes overlap.
// Those are exactly the pairs a query of the boxes themselves gives, in the same order, so the step's
// results do not depend on when the query last ran. When a few bodies (at most MaxMoved) have left
// their grown boxes, only their pairs are found again, each tested against every body's grown box,
// and the others' are kept: a settling ragdoll pile's broad stage is then a few thousand box tests.
// A resting pyramid queries once. A scene whose
// bodies leave their grown boxes at once (a falling pile) would query grown boxes, with more pairs, for
// nothing: after a grown query whose pairs were never kept, the next FatRetry queries are of the
// boxes themselves.

// FatMargin is how much, m, a body's box is grown on each side for the broad phase's query; the query
// runs again once any body's box leaves its grown one.
const FatMargin = 0.05

// FatRetry is how many queries of the bodies' own boxes follow a grown query whose pairs were not kept
// even once.
const FatRetry = 8

// MaxMoved is the most bodies that may leave their grown boxes in a step for the step to find their
// pairs by testing each against every body, keeping the others' pairs; with more, the broad phase runs.
const MaxMoved = 32

// keptPairs reports whether the last query's pairs hold for the bodies' boxes and moving flags
// (the bounds stage's), brought up to date: the same number of bodies, and at most MaxMoved of them outside the grown boxes the query used (or with another moving
// flag), whose pairs it then finds again by testing each against every body's grown box. It sets
// Stats.Moved to how many did.
func (w *World) keptPairs(boxes []geom.AABB, dynamic []bool) bool {
	p := &w.pipe
	n := len(boxes)
	w.Stats.Moved = 0
	if !p.broad.fatOK || len(p.broad.fat) != n || len(p.broad.fatMoving) != n {
		return false
	}
	p.broad.moved = p.broad.moved[:0]
	for i := range n {
		b, f := &boxes[i], &p.broad.fat[i]
		if dynamic[i] != p.broad.fatMoving[i] || !(f.Min[0] <= b.Min[0] && f.Min[1] <= b.Min[1] && f.Min[2] <= b.Min[2] &&
			b.Max[0] <= f.Max[0] && b.Max[1] <= f.Max[1] && b.Max[2] <= f.Max[2]) {
			if len(p.broad.moved) == MaxMoved {
				return false
			}
			p.broad.moved = append(p.broad.moved, int32(i))
		}
	}
	if len(p.broad.moved) > 0 {
		w.updateMoved(boxes, dynamic)
	}
	w.Stats.Moved = len(p.broad.moved)
	return true
}

// updateMoved brings the grown boxes and their pairs up to date for the bodies in moved (in index
// order): each gets its box grown afresh and its moving flag; the pairs of the others stay, and a
// moved body's are found by testing its grown box against every other body's. The pairs stay sorted.
func (w *World) updateMoved(boxes []geom.AABB, dynamic []bool) {
	p := &w.pipe
	n := len(boxes)
	p.broad.isMoved = resize(p.broad.isMoved, n)
	m := p.broad.fatMargin
	for _, i := range p.broad.moved {
		p.broad.isMoved[i] = true
		p.broad.fat[i] = grow(boxes[i], m)
		p.broad.fatMoving[i] = dynamic[i]
	}
	// The moved bodies' pairs, each once: from its smaller moved body when both moved.
	p.broad.newPairs = p.broad.newPairs[:0]
	for _, i := range p.broad.moved {
		a := &p.broad.fat[i]
		if !broad.Valid(a) {
			continue
		}
		for j := range int32(n) {
			if j == i || p.broad.isMoved[j] && j < i || !(p.broad.fatMoving[i] || p.broad.fatMoving[j]) || !boxesOverlap(a, &p.broad.fat[j]) {
				continue
			}
			p.broad.newPairs = append(p.broad.newPairs, broad.Pair{A: min(i, j), B: max(i, j)})
		}
	}
	slices.SortFunc(p.broad.newPairs, func(x, y broad.Pair) int {
		if x.A != y.A {
			return int(x.A - y.A)
		}
		return int(x.B - y.B)
	})
	// Merge the others' pairs with them, in order.
	p.broad.mergePairs = p.broad.mergePairs[:0]
	k := 0
	for _, pr := range p.broad.fatPairs {
		if p.broad.isMoved[pr.A] || p.broad.isMoved[pr.B] {
			continue
		}
		for k < len(p.broad.newPairs) && (p.broad.newPairs[k].A < pr.A || p.broad.newPairs[k].A == pr.A && p.broad.newPairs[k].B < pr.B) {
			p.broad.mergePairs = append(p.broad.mergePairs, p.broad.newPairs[k])
			k++
		}
		p.broad.mergePairs = append(p.broad.mergePairs, pr)
	}
	p.broad.mergePairs = append(p.broad.mergePairs, p.broad.newPairs[k:]...)
	p.broad.fatPairs, p.broad.mergePairs = p.broad.mergePairs, p.broad.fatPairs
	for _, i := range p.broad.moved {
		p.broad.isMoved[i] = false
	}
}

// grow returns box b grown by m on each side; an invalid box, or a plane's, as it is.
func grow(b geom.AABB, m float32) geom.AABB {
	if m > 0 && broad.Valid(&b) && b.Max[0]-b.Min[0] < geom.PlaneExtent {
		b.Min = b.Min.Sub(Vec3{m, m, m})
		b.Max = b.Max.Add(Vec3{m, m, m})
	}
	return b
}

// queryFat runs the broad phase on the bodies' boxes (with their moving flags) grown by FatMargin (or not grown, after a grown
// query that was wasted), into fatPairs.
func (w *World) queryFat(boxes []geom.AABB, dynamic []bool) {
	p := &w.pipe
	if p.broad.fatOK && p.broad.fatMargin > 0 && p.broad.fatUses == 0 {
		p.broad.fatWait = FatRetry
	}
	p.broad.fatMargin, p.broad.fatUses = FatMargin, 0
	if p.broad.fatWait > 0 {
		p.broad.fatWait--
		p.broad.fatMargin = 0
	}
	m := p.broad.fatMargin
	n := len(boxes)
	p.broad.fat = resize(p.broad.fat, n)
	p.broad.fatMoving = resize(p.broad.fatMoving, n)
	copy(p.broad.fatMoving, dynamic)
	for i := range n {
		p.broad.fat[i] = grow(boxes[i], m)
	}
	p.broad.fatPairs = p.broad.phase.Pairs(p.broad.fat, dynamic, p.broad.fatPairs)
	p.broad.fatOK = true
}

// boxesOverlap is the broad phases' test (geom.AABB.Overlaps, on pointers: the kept pairs' filter
// copied each box through the value receiver, a third slower): both boxes valid and overlapping,
// touching counting.
func boxesOverlap(a, b *geom.AABB) bool {
	return a.Min[0] <= b.Max[0] && b.Min[0] <= a.Max[0] && a.Min[1] <= b.Max[1] && b.Min[1] <= a.Max[1] &&
		a.Min[2] <= b.Max[2] && b.Min[2] <= a.Max[2] && broad.Valid(a) && broad.Valid(b)
}

// broadStage is the Broad stage's: the broad phase, its pairs, and the grown boxes whose pairs later steps may keep.
type broadStage struct {
	phase      broad.Phase
	kind       BroadphaseKind // of phase
	pairs      []broad.Pair
	fat        []geom.AABB  // per body: its box grown by FatMargin when the broad phase last ran (broad_keep.go)
	fatMoving  []bool       // per body: its moving flag then
	fatPairs   []broad.Pair // the pairs of the grown boxes
	fatOK      bool         // fat, fatMoving and fatPairs hold a query
	fatMargin  float32      // how much the query grew the boxes: FatMargin, or 0 (broad_keep.go)
	fatUses    int          // steps since the query that kept its pairs
	fatWait    int          // queries left with no margin before the next grown one
	moved      []int32      // the bodies outside their grown boxes this step (keptPairs)
	isMoved    []bool       // per body: in moved
	newPairs   []broad.Pair // the moved bodies' pairs
	mergePairs []broad.Pair // the next fatPairs being merged
}
