package broad

import (
	"math"
	"slices"

	"tumble/sim/geom"
)

// Grid is a uniform-grid broad phase (seed 001: good when the bodies' sizes are alike). Space is cut
// into cubic cells a little larger than a typical box; each box is entered in every cell it touches,
// the entries are sorted by a hash of their cell (a radix sort, as a GPU does it), and the boxes
// sharing a cell are tested against each other. A pair is reported only from the cell that holds the
// corner of the two boxes' overlap nearest -infinity, which both boxes touch, so it is reported once.
//
// Boxes much larger than a cell (more than BigCells cells across, and world-spanning plane boxes) would
// fill many cells; they are kept out of the grid and tested against every box instead, which costs
// O(n) each. With sizes spread over decades (a few large bodies among many small ones) that cost grows;
// the LBVH (package bvh) handles any mix.
//
// All buffers are kept between calls, so once they have grown a call allocates nothing. A Grid is not
// safe for concurrent use. Create one with NewGrid.
type Grid struct {
	// Parallel, when set, calls fn over [0, n) split across workers (worker < Workers), and returns
	// when all calls have: the world's worker pool. Nil runs on the caller.
	Parallel func(n int, fn func(worker, lo, hi int))
	Workers  int

	// CellSize is the cells' edge in metres; 0 picks it on each call: 1.25 times the mean largest
	// extent of (a sample of) the ordinary boxes.
	CellSize float32

	boxes  []geom.AABB
	moving []bool
	origin [3]float32
	inv    float32 // 1 / cell size
	mask   uint32  // buckets - 1

	first     []int32     // per box: its first entry; first[n] = number of entries
	ents      []cellEntry // per (box, cell), in box order
	keys, tmp []uint64    // per entry: hash<<32 | entry index, then sorted
	hashBits  uint
	radix     RadixSorter
	sorted    []cellEntry // ents in key order: entries of one hash are adjacent
	big       []int32     // boxes too big for the grid

	runs   [][]Pair
	sorter PairSorter

	fnCount, fnFill, fnKeys, fnGather, fnCells, fnBig func(worker, lo, hi int)
}

type cellEntry struct {
	cell   [3]int32
	id     int32
	moving bool
}

// NewGrid returns a uniform-grid broad phase that picks its cell size on each call.
func NewGrid() *Grid { return &Grid{} }

// BigCells is how many cells across a box may span, along any axis, before the grid treats it as big.
const BigCells = 3

// Pairs implements Phase.
func (g *Grid) Pairs(boxes []geom.AABB, moving []bool, out []Pair) []Pair {
	checkMoving(boxes, moving)
	out = out[:0]
	n := len(boxes)
	if n < 2 {
		return out
	}
	g.boxes, g.moving = boxes, moving
	defer func() { g.boxes, g.moving = nil, nil }()
	g.bind()
	g.plan()

	// Entries: count per box, scan, fill.
	g.first = grow(g.first, n+1)
	g.par(n, g.fnCount)
	total := int32(0)
	for i := 0; i < n; i++ {
		c := g.first[i]
		g.first[i] = total
		total += c
	}
	g.first[n] = total
	g.ents = grow(g.ents, int(total))
	g.par(n, g.fnFill)
	g.big = g.big[:0]
	for i := range boxes {
		if g.first[i+1] == g.first[i] && Valid(&boxes[i]) {
			g.big = append(g.big, int32(i))
		}
	}

	// Sort the entries by cell hash, with about two hash values per entry.
	g.hashBits = 1
	for 1<<g.hashBits < 2*int(total) && g.hashBits < 32 {
		g.hashBits++
	}
	g.mask = uint32(1<<g.hashBits - 1)
	g.keys = grow(g.keys, int(total))
	g.tmp = grow(g.tmp, int(total))
	g.par(int(total), g.fnKeys)
	var par func(int, func(int, int, int))
	if g.Workers > 1 {
		par = g.Parallel
	}
	if sorted := g.radix.Sort(g.keys, g.tmp, 32, 32+g.hashBits, par); total > 0 && &sorted[0] != &g.keys[0] {
		g.keys, g.tmp = g.tmp, g.keys
	}
	g.sorted = grow(g.sorted, int(total))
	g.par(int(total), g.fnGather)

	// Pairs within each bucket's cells, then the big boxes against everyone.
	workers := max(1, g.Workers)
	if len(g.runs) < workers {
		g.runs = append(g.runs, make([][]Pair, workers-len(g.runs))...)
	}
	for w := range g.runs {
		g.runs[w] = g.runs[w][:0]
	}
	g.par(int(total), g.fnCells)
	g.par(len(g.big), g.fnBig)
	return g.sorter.Sort(g.runs, n, out, g.Parallel)
}

// plan sets the cell size and origin.
func (g *Grid) plan() {
	size := g.CellSize
	origin := [3]float32{}
	if size <= 0 {
		var ext float64
		m := 0
		stride := max(1, len(g.boxes)/planSamples)
		for i := 0; i < len(g.boxes); i += stride {
			b := &g.boxes[i]
			if !Valid(b) || b.Max[0]-b.Min[0] > hugeExtent || b.Max[1]-b.Min[1] > hugeExtent || b.Max[2]-b.Min[2] > hugeExtent {
				continue
			}
			ext += float64(max(b.Max[0]-b.Min[0], b.Max[1]-b.Min[1], b.Max[2]-b.Min[2]))
			if m == 0 {
				origin = b.Min
			}
			m++
		}
		size = 1
		if m > 0 && ext > 0 {
			size = float32(1.25 * ext / float64(m))
		}
	}
	g.origin, g.inv = origin, 1/size
}

// cellOf is the cell coordinate of x along axis k, clamped to a range that cannot overflow.
func (g *Grid) cellOf(x float32, k int) int32 {
	c := math.Floor(float64((x - g.origin[k]) * g.inv))
	return int32(min(max(c, -1e9), 1e9))
}

// span returns the cells a box touches along each axis, and whether it fits the grid at all.
func (g *Grid) span(b *geom.AABB) (lo, hi [3]int32, ok bool) {
	if !Valid(b) {
		return lo, hi, false
	}
	for k := 0; k < 3; k++ {
		lo[k], hi[k] = g.cellOf(b.Min[k], k), g.cellOf(b.Max[k], k)
		if hi[k]-lo[k] >= BigCells {
			return lo, hi, false
		}
	}
	return lo, hi, true
}

func hashCell(c [3]int32) uint32 {
	return uint32(c[0])*73856093 ^ uint32(c[1])*19349663 ^ uint32(c[2])*83492791
}

func (g *Grid) bind() {
	if g.fnCount != nil {
		return
	}
	g.fnCount = func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			l, h, ok := g.span(&g.boxes[i])
			g.first[i] = 0
			if ok {
				g.first[i] = (h[0] - l[0] + 1) * (h[1] - l[1] + 1) * (h[2] - l[2] + 1)
			}
		}
	}
	g.fnFill = func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			l, h, ok := g.span(&g.boxes[i])
			if !ok {
				continue
			}
			e := g.ents[g.first[i]:g.first[i+1]]
			mv := g.moving == nil || g.moving[i]
			k := 0
			for x := l[0]; x <= h[0]; x++ {
				for y := l[1]; y <= h[1]; y++ {
					for z := l[2]; z <= h[2]; z++ {
						e[k] = cellEntry{cell: [3]int32{x, y, z}, id: int32(i), moving: mv}
						k++
					}
				}
			}
		}
	}
	g.fnKeys = func(_, lo, hi int) {
		for e := lo; e < hi; e++ {
			g.keys[e] = uint64(hashCell(g.ents[e].cell)&g.mask)<<32 | uint64(e)
		}
	}
	g.fnGather = func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			g.sorted[k] = g.ents[uint32(g.keys[k])]
		}
	}
	// Each call takes the runs of equal hash that start in [lo, hi), wherever they end.
	g.fnCells = func(w, lo, hi int) {
		out := g.runs[w]
		keys := g.keys
		k := lo
		for k > 0 && k < hi && keys[k]>>32 == keys[k-1]>>32 {
			k++ // the run started before lo: the previous range has it
		}
		for k < hi {
			end := k + 1
			for end < len(keys) && keys[end]>>32 == keys[k]>>32 {
				end++
			}
			out = g.cellPairs(g.sorted[k:end], out)
			k = end
		}
		g.runs[w] = out
	}
	g.fnBig = func(w, lo, hi int) {
		out := g.runs[w]
		for _, i := range g.big[lo:hi] {
			out = g.bigPairs(i, out)
		}
		g.runs[w] = out
	}
}

// cellPairs appends the pairs reported from the cells of one run of entries with the same hash.
func (g *Grid) cellPairs(es []cellEntry, out []Pair) []Pair {
	for i := range es {
		e := &es[i]
		for j := i + 1; j < len(es); j++ {
			f := &es[j]
			if f.cell != e.cell || !(e.moving || f.moving) {
				continue
			}
			a, b := &g.boxes[e.id], &g.boxes[f.id]
			if !a.Overlaps(*b) {
				continue
			}
			// Report from the cell of the overlap's lowest corner only.
			if g.cellOf(max(a.Min[0], b.Min[0]), 0) != e.cell[0] || g.cellOf(max(a.Min[1], b.Min[1]), 1) != e.cell[1] ||
				g.cellOf(max(a.Min[2], b.Min[2]), 2) != e.cell[2] {
				continue
			}
			x, y := e.id, f.id
			if x > y {
				x, y = y, x
			}
			out = append(out, Pair{x, y})
		}
	}
	return out
}

// bigPairs appends the pairs of big box i with every other valid box, except the big boxes before it
// in g.big (which report their pair with i themselves).
func (g *Grid) bigPairs(i int32, out []Pair) []Pair {
	a := g.boxes[i]
	mi := g.moving == nil || g.moving[i]
	for j := range g.boxes {
		b := &g.boxes[j]
		if int32(j) == i || !(mi || g.moving[j]) || !a.Overlaps(*b) || !Valid(b) {
			continue
		}
		if g.first[j+1] == g.first[j] && int32(j) < i { // j is big too: the smaller index reports
			continue
		}
		x, y := i, int32(j)
		if x > y {
			x, y = y, x
		}
		out = append(out, Pair{x, y})
	}
	return out
}

// par runs fn over [0, n): on the workers when there are several.
func (g *Grid) par(n int, fn func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	if g.Parallel == nil || g.Workers < 2 || n < 2 {
		fn(0, 0, n)
		return
	}
	g.Parallel(n, fn)
}

// grow returns s with length n, reusing its storage when it is large enough.
func grow[T any](s []T, n int) []T {
	return slices.Grow(s[:0], n)[:n]
}

// SetParallel sets the Parallel and Workers fields (the broad.Parallel interface).
func (g *Grid) SetParallel(fn func(n int, body func(worker, lo, hi int)), workers int) {
	g.Parallel, g.Workers = fn, workers
}
