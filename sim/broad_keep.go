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

// keptPairs reports whether the last query's pairs hold, brought up to date: the same number of
// bodies, and at most MaxMoved of them outside the grown boxes the query used (or with another moving
// flag), whose pairs it then finds again by testing each against every body's grown box. It sets
// Stats.Moved to how many did.
func (w *World) keptPairs() bool {
	p := &w.pipe
	n := len(p.boxes)
	w.Stats.Moved = 0
	if !p.fatOK || len(p.fat) != n || len(p.fatMoving) != n {
		return false
	}
	p.moved = p.moved[:0]
	for i := range n {
		b, f := &p.boxes[i], &p.fat[i]
		if p.dynamic[i] != p.fatMoving[i] || !(f.Min[0] <= b.Min[0] && f.Min[1] <= b.Min[1] && f.Min[2] <= b.Min[2] &&
			b.Max[0] <= f.Max[0] && b.Max[1] <= f.Max[1] && b.Max[2] <= f.Max[2]) {
			if len(p.moved) == MaxMoved {
				return false
			}
			p.moved = append(p.moved, int32(i))
		}
	}
	if len(p.moved) > 0 {
		w.updateMoved()
	}
	w.Stats.Moved = len(p.moved)
	return true
}

// updateMoved brings the grown boxes and their pairs up to date for the bodies in moved (in index
// order): each gets its box grown afresh and its moving flag; the pairs of the others stay, and a
// moved body's are found by testing its grown box against every other body's. The pairs stay sorted.
func (w *World) updateMoved() {
	p := &w.pipe
	n := len(p.boxes)
	p.isMoved = resize(p.isMoved, n)
	m := p.fatMargin
	for _, i := range p.moved {
		p.isMoved[i] = true
		p.fat[i] = grow(p.boxes[i], m)
		p.fatMoving[i] = p.dynamic[i]
	}
	// The moved bodies' pairs, each once: from its smaller moved body when both moved.
	p.newPairs = p.newPairs[:0]
	for _, i := range p.moved {
		a := &p.fat[i]
		if !broad.Valid(a) {
			continue
		}
		for j := range int32(n) {
			if j == i || p.isMoved[j] && j < i || !(p.fatMoving[i] || p.fatMoving[j]) || !boxesOverlap(a, &p.fat[j]) {
				continue
			}
			p.newPairs = append(p.newPairs, broad.Pair{A: min(i, j), B: max(i, j)})
		}
	}
	slices.SortFunc(p.newPairs, func(x, y broad.Pair) int {
		if x.A != y.A {
			return int(x.A - y.A)
		}
		return int(x.B - y.B)
	})
	// Merge the others' pairs with them, in order.
	p.mergePairs = p.mergePairs[:0]
	k := 0
	for _, pr := range p.fatPairs {
		if p.isMoved[pr.A] || p.isMoved[pr.B] {
			continue
		}
		for k < len(p.newPairs) && (p.newPairs[k].A < pr.A || p.newPairs[k].A == pr.A && p.newPairs[k].B < pr.B) {
			p.mergePairs = append(p.mergePairs, p.newPairs[k])
			k++
		}
		p.mergePairs = append(p.mergePairs, pr)
	}
	p.mergePairs = append(p.mergePairs, p.newPairs[k:]...)
	p.fatPairs, p.mergePairs = p.mergePairs, p.fatPairs
	for _, i := range p.moved {
		p.isMoved[i] = false
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
		p.fat[i] = grow(p.boxes[i], m)
	}
	p.fatPairs = p.broad.Pairs(p.fat, p.dynamic, p.fatPairs)
	p.fatOK = true
}

// boxesOverlap is the broad phases' test (geom.AABB.Overlaps, on pointers: the kept pairs' filter
// copied each box through the value receiver, a third slower): both boxes valid and overlapping,
// touching counting.
func boxesOverlap(a, b *geom.AABB) bool {
	return a.Min[0] <= b.Max[0] && b.Min[0] <= a.Max[0] && a.Min[1] <= b.Max[1] && b.Min[1] <= a.Max[1] &&
		a.Min[2] <= b.Max[2] && b.Min[2] <= a.Max[2] && broad.Valid(a) && broad.Valid(b)
}
