// Package broad is the broad phase: from the bodies' world boxes it finds the candidate pairs that the
// narrow phase then tests exactly. Every implementation satisfies Phase and returns the same list: each
// overlapping pair once, as (A, B) with A < B, sorted, skipping pairs where neither body moves.
//
// SAP (sort and sweep) sorts the boxes along one axis and sweeps that order, keeping the order from
// step to step so that the sort is an insertion sort over a nearly sorted list. Grid hashes the boxes
// into uniform cells. Brute tests every pair and is the reference the others are tested against. The
// linear BVH, the World's default, is package bvh below this one.
//
// Boxes are geom.AABBs. Touching boxes overlap (geom.AABB.Overlaps). A box with a NaN or infinite
// coordinate, or with Min > Max on some axis, is treated as empty: it pairs with nothing. (A blown-up
// body must not disturb the pairs of the others; the world reports it separately.)
package broad

import (
	"math"

	"tumble/sim/geom"
)

// Pair is a candidate pair of bodies by dense index, A < B.
type Pair struct{ A, B int32 }

// Phase finds overlapping pairs.
type Phase interface {
	// Pairs returns out[:0] appended with every pair (i < j) whose boxes overlap (touching counts) and
	// of which at least one is moving (moving[i] || moving[j]); sorted by (A, B), no duplicates.
	// moving has one entry per box, or is nil to mean that every body moves.
	Pairs(boxes []geom.AABB, moving []bool, out []Pair) []Pair
}

// Parallel is a Phase that can spread its work over the world's worker pool: fn runs a loop body over
// [0, n) split across workers (worker < workers) and returns when all calls have.
type Parallel interface {
	Phase
	SetParallel(fn func(n int, body func(worker, lo, hi int)), workers int)
}

// Brute is the O(n^2) reference broad phase: it tests every pair. Its zero value is ready to use.
type Brute struct{}

// Pairs implements Phase.
func (Brute) Pairs(boxes []geom.AABB, moving []bool, out []Pair) []Pair {
	checkMoving(boxes, moving)
	out = out[:0]
	for i := range boxes {
		a := boxes[i]
		if !Valid(&a) {
			continue
		}
		mi := moving == nil || moving[i]
		for j := i + 1; j < len(boxes); j++ {
			if (mi || moving[j]) && a.Overlaps(boxes[j]) && Valid(&boxes[j]) {
				out = append(out, Pair{int32(i), int32(j)})
			}
		}
	}
	return out
}

// Valid reports whether a box is non-empty with a finite size: no NaN, no infinity, Min <= Max. A NaN
// coordinate makes a difference NaN, which fails >= 0; an infinite one makes it NaN or +Inf, which the
// sum catches (as it does a size too large for a float32, which no body has).
func Valid(b *geom.AABB) bool {
	dx, dy, dz := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1], b.Max[2]-b.Min[2]
	return dx >= 0 && dy >= 0 && dz >= 0 && dx+dy+dz <= math.MaxFloat32
}

// checkMoving panics on a moving slice of the wrong length: that is a programmer error.
func checkMoving(boxes []geom.AABB, moving []bool) {
	if moving != nil && len(moving) != len(boxes) {
		panic("broad: len(moving) != len(boxes)")
	}
}
