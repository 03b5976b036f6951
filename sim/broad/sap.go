package broad

import (
	"math"
	"slices"

	"tumble/sim/geom"
)

// SAP is a sort-and-sweep broad phase. Each call sorts the boxes by their minimum along the sweep axis
// (the axis along which the box centres spread most), then sweeps that order: a box can only overlap the
// boxes that start before it ends, so each box is tested against that run of successors alone.
//
// Bodies move little between steps, so the order of the previous call is nearly sorted for this one. SAP
// keeps it and re-sorts it by insertion, which costs O(n + number of swaps). A full radix sort runs on the
// first call, when the number of boxes or the sweep axis changes, or when the insertion sort finds the
// order too scrambled to be worth finishing. All buffers are kept between calls, so once they have grown
// a call allocates nothing.
//
// An SAP is not safe for concurrent use. Create one with NewSAP.
type SAP struct {
	axis  int     // sweep axis of order; -1 when order is not valid
	order []int32 // box indices by increasing minimum along axis, from the last call
	ents  []entry // this call's boxes in sweep order
	raw   []Pair  // pairs in the order the sweep finds them
	count []int32 // pairs per A; then the bucket ends when sorting

	// Scratch for the full radix sort.
	keys, keys2 []uint32
	idx, idx2   []int32
}

// entry is a box as the sweep reads it: its extent along the sweep axis, then along the other two.
// 32 bytes, so two fit a cache line.
type entry struct {
	lo, hi     float32 // sweep axis; an invalid box is (+Inf, -Inf)
	min1, max1 float32
	min2, max2 float32
	id         int32
	moving     bool
}

// NewSAP returns a sort-and-sweep broad phase with no order yet.
func NewSAP() *SAP { return &SAP{axis: -1} }

// hugeExtent marks a box as spanning the world (a plane's box): such boxes are left out of the choice of
// the sweep axis, where their centres would swamp everyone else's.
const hugeExtent = geom.PlaneExtent / 2

// axisHysteresis is how much more spread another axis needs before SAP leaves its current sweep axis,
// which costs a full sort; without it a roughly cubic scene could flip axes every step.
const axisHysteresis = 1.25

// Pairs implements Phase.
func (s *SAP) Pairs(boxes []geom.AABB, moving []bool, out []Pair) []Pair {
	checkMoving(boxes, moving)
	out = out[:0]
	n := len(boxes)
	if n < 2 {
		return out
	}
	s.sort(boxes, moving, s.chooseAxis(boxes))
	s.sweep(n)
	return s.sortPairs(out)
}

// chooseAxis returns the axis along which the centres of the ordinary (valid, not world-spanning) boxes
// have the greatest variance, keeping the current axis unless another beats it by axisHysteresis.
func (s *SAP) chooseAxis(boxes []geom.AABB) int {
	var sum, sq [3]float64
	m := 0
	for i := range boxes {
		b := &boxes[i]
		if !valid(*b) || b.Max[0]-b.Min[0] > hugeExtent || b.Max[1]-b.Min[1] > hugeExtent || b.Max[2]-b.Min[2] > hugeExtent {
			continue
		}
		for k := 0; k < 3; k++ {
			c := 0.5 * (float64(b.Min[k]) + float64(b.Max[k]))
			sum[k] += c
			sq[k] += c * c
		}
		m++
	}
	if m == 0 {
		if s.axis >= 0 {
			return s.axis
		}
		return 0
	}
	var v [3]float64
	best := 0
	for k := 0; k < 3; k++ {
		mean := sum[k] / float64(m)
		v[k] = sq[k]/float64(m) - mean*mean
		if v[k] > v[best] {
			best = k
		}
	}
	if s.axis >= 0 && v[s.axis]*axisHysteresis >= v[best] {
		return s.axis
	}
	return best
}

// makeEntry builds the sweep entry of box i for the given axis.
func makeEntry(b *geom.AABB, i int, moving []bool, axis int) entry {
	k1, k2 := (axis+1)%3, (axis+2)%3
	e := entry{
		lo: b.Min[axis], hi: b.Max[axis],
		min1: b.Min[k1], max1: b.Max[k1],
		min2: b.Min[k2], max2: b.Max[k2],
		id:     int32(i),
		moving: moving == nil || moving[i],
	}
	if !valid(*b) {
		// Sorted after every valid box, and its hi stops any sweep from it at once.
		e.lo, e.hi = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	return e
}

// sort fills s.ents with the boxes in increasing order of their minimum along axis, and records that
// order for the next call.
func (s *SAP) sort(boxes []geom.AABB, moving []bool, axis int) {
	n := len(boxes)
	s.ents = slices.Grow(s.ents[:0], n)[:n]
	if s.axis != axis || len(s.order) != n || !s.insertionSort(boxes, moving) {
		s.radixSort(boxes, moving, axis)
	}
	s.axis = axis
	for k := range s.ents {
		s.order[k] = s.ents[k].id
	}
}

// insertionSort fills s.ents in the previous call's order and sorts it by insertion. It gives up, and
// returns false, once it has moved more entries than a full sort would cost.
func (s *SAP) insertionSort(boxes []geom.AABB, moving []bool) bool {
	ents, axis := s.ents, s.axis
	for k, i := range s.order {
		ents[k] = makeEntry(&boxes[i], int(i), moving, axis)
	}
	budget := len(ents) + 256
	for i := 1; i < len(ents); i++ {
		if ents[i-1].lo <= ents[i].lo {
			continue
		}
		e := ents[i]
		j := i
		for j > 0 && ents[j-1].lo > e.lo {
			ents[j] = ents[j-1]
			j--
		}
		ents[j] = e
		if budget -= i - j; budget < 0 {
			return false
		}
	}
	return true
}

// radixSort sorts the boxes by their minimum along axis from scratch: an LSD radix sort of the minima's
// order-preserving bit patterns, three passes of 11 bits, then s.ents is gathered in that order.
func (s *SAP) radixSort(boxes []geom.AABB, moving []bool, axis int) {
	n := len(boxes)
	s.keys = slices.Grow(s.keys[:0], n)[:n]
	s.keys2 = slices.Grow(s.keys2[:0], n)[:n]
	s.idx = slices.Grow(s.idx[:0], n)[:n]
	s.idx2 = slices.Grow(s.idx2[:0], n)[:n]
	s.order = slices.Grow(s.order[:0], n)[:n]
	keys, keys2, idx, idx2 := s.keys, s.keys2, s.idx, s.idx2
	for i := range boxes {
		lo := boxes[i].Min[axis]
		if !valid(boxes[i]) {
			lo = float32(math.Inf(1))
		}
		keys[i] = sortableBits(lo)
		idx[i] = int32(i)
	}
	var count [1 << 11]int32
	for shift := uint(0); shift < 32; shift += 11 {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&(1<<11-1)]++
		}
		if count[(keys[0]>>shift)&(1<<11-1)] == int32(n) {
			continue // every key has this digit: the pass would not move anything
		}
		sum := int32(0)
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for i, k := range keys {
			d := (k >> shift) & (1<<11 - 1)
			keys2[count[d]] = k
			idx2[count[d]] = idx[i]
			count[d]++
		}
		keys, keys2 = keys2, keys
		idx, idx2 = idx2, idx
	}
	for k, i := range idx {
		s.ents[k] = makeEntry(&boxes[i], int(i), moving, axis)
	}
}

// sortableBits maps a float32 to a uint32 whose unsigned order is the float's order: positive floats
// get the sign bit set, negative ones have all bits flipped.
func sortableBits(f float32) uint32 {
	b := math.Float32bits(f)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// sweep appends to s.raw every overlapping pair with a moving member, each found once, from the sorted
// s.ents, and counts in s.count the pairs of each A.
func (s *SAP) sweep(n int) {
	s.count = slices.Grow(s.count[:0], n)[:n]
	clear(s.count)
	raw, count, ents := s.raw[:0], s.count, s.ents
	for i := range ents {
		e := &ents[i]
		for j := i + 1; j < len(ents); j++ {
			f := &ents[j]
			if f.lo > e.hi {
				break // sorted by lo: no later box starts before e ends
			}
			if (e.moving || f.moving) && f.min1 <= e.max1 && e.min1 <= f.max1 && f.min2 <= e.max2 && e.min2 <= f.max2 {
				a, b := e.id, f.id
				if a > b {
					a, b = b, a
				}
				raw = append(raw, Pair{a, b})
				count[a]++
			}
		}
	}
	s.raw = raw
}

// sortPairs writes s.raw into out sorted by (A, B): a counting sort by A into buckets, then each bucket
// sorted by B (by insertion when small, as buckets mostly are).
func (s *SAP) sortPairs(out []Pair) []Pair {
	out = slices.Grow(out, len(s.raw))[:len(s.raw)]
	count := s.count
	start := int32(0)
	for a, c := range count {
		count[a] = start
		start += c
	}
	for _, p := range s.raw {
		out[count[p.A]] = p
		count[p.A]++
	}
	lo := int32(0)
	for _, hi := range count { // count[a] is now the end of bucket a
		sortByB(out[lo:hi])
		lo = hi
	}
	return out
}

// sortByB sorts pairs that share A by B.
func sortByB(ps []Pair) {
	if len(ps) > 24 {
		slices.SortFunc(ps, func(p, q Pair) int { return int(p.B - q.B) })
		return
	}
	for i := 1; i < len(ps); i++ {
		p := ps[i]
		j := i
		for j > 0 && ps[j-1].B > p.B {
			ps[j] = ps[j-1]
			j--
		}
		ps[j] = p
	}
}
