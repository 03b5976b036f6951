// Package bvh is the linear BVH broad phase of DESIGN.md, after seed 001 and Karras 2012 ("Maximizing
// Parallelism in the Construction of BVHs, Octrees, and k-d Trees"). Every stage is a loop over bodies,
// nodes or blocks whose iterations are independent, written so that each maps one-to-one onto a GPU
// kernel (the CUDA backend ports them as they are):
//
//  1. bounds: the box of the bodies' AABB centres, by a parallel reduction (per-worker partials);
//  2. morton: a 30-bit Morton code of each centre in those bounds, made unique by appending the body
//     index: key = code<<32 | index;
//  3. sort: a parallel LSD radix sort of the keys (per-block histograms, a scan, a stable scatter);
//  4. build: the Karras radix tree, each internal node on its own (direction, range by doubling and
//     binary search, split at the longest common prefix), with parent links;
//  5. fit: the bottom-up AABB pass: each leaf walks up, and at each node the first child to arrive
//     sets an atomic flag and stops while the second fits the node's box around both and goes on;
//  6. query: per body, a loop traversal with an explicit stack that reports each overlapping pair once;
//  7. pairs: the pairs sorted by (A, B) (broad.PairSorter; on the GPU, a sort of the compacted list).
//
// A tree can also be refitted instead of rebuilt: stages 1 to 4 are skipped and stage 5 runs over the
// old topology with the new boxes. See LBVH.RefitGrowth.
//
// The same tree answers scene queries (query.go): Build makes it without the pair query, and Cast and
// Overlap walk it from the root for a ray, a swept box or a box.
package bvh

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"

	"tumble/sim/broad"
	"tumble/sim/geom"
)

// Stage names a stage of LBVH.Pairs, for timing.
type Stage int

// The stages, in the order they run.
const (
	StageBounds Stage = iota
	StageMorton
	StageSort
	StageBuild
	StageFit
	StageQuery
	StagePairs
	NumStages
)

var stageNames = [NumStages]string{"bounds", "morton", "sort", "build", "fit", "query", "pairs"}

// String returns the stage's name.
func (s Stage) String() string {
	if s >= 0 && s < NumStages {
		return stageNames[s]
	}
	return "unknown"
}

// LBVH is a linear BVH broad phase; it implements broad.Phase. Create one with New. It is not safe for
// concurrent use.
type LBVH struct {
	// Parallel, when set, calls fn over [0, n) split across workers (worker < Workers) and returns when
	// all calls have: the world's worker pool. Nil runs every stage on the caller.
	Parallel func(n int, fn func(worker, lo, hi int))
	Workers  int

	// RefitGrowth chooses between rebuilding and refitting. At 0 the tree is rebuilt on every call. At
	// g > 1 a call keeps the last tree's topology and refits its boxes, as long as the body count is
	// unchanged and the tree's cost (the summed surface area of its internal nodes, which tracks the
	// expected number of nodes a query visits) stays within g times its cost just after the last
	// rebuild; past that it rebuilds.
	RefitGrowth float32

	// Times holds the last call's wall time per stage (zero for stages it skipped).
	Times [NumStages]time.Duration
	// Rebuilt reports whether the last call rebuilt the tree (false: it refitted).
	Rebuilt bool

	n      int
	boxes  []geom.AABB // this call's input
	moving []bool

	partial []centreBounds // per worker
	lo      [3]float32     // Morton frame: origin and scale to [0, 1024)
	scale   [3]float32

	keys, keys2 []uint64 // sorted keys; scratch
	radix       broad.RadixSorter

	nodes     []inner     // internal nodes 0..n-2; the root is 0
	parent    []int32     // per node (internal 0..n-2, then leaf k at n-1+k): parent<<1 | side; -1 at the root
	leafBody  []int32     // per leaf, in key order: its body
	leafBox   []geom.AABB // per leaf: its body's box (empty for an invalid one)
	flags     []int32     // per internal node: children arrived in the fit pass (0 between passes)
	cost      []float64   // per worker: summed surface area of the nodes it fitted
	builtCost float64     // the tree's cost right after its last rebuild

	runs   [][]broad.Pair // per worker, the pairs its queries found
	sorter broad.PairSorter

	fnBounds, fnMorton, fnBuild, fnFit, fnQuery func(worker, lo, hi int)
}

// inner is an internal node. It holds its two children's boxes, so that a query visiting it reads one
// 64-byte line: child c is an internal node (child[c] >= 0) or a leaf (child[c] = ^body); the leaves
// below it are at sorted positions up to last[c] & lastMask, and the top bit of last[c] says whether a
// moving body is among them.
type inner struct {
	box   [2]geom.AABB
	child [2]int32
	last  [2]uint32
}

const (
	movingBit = 1 << 31
	lastMask  = movingBit - 1
)

type centreBounds struct{ lo, hi [3]float32 }

// New returns an LBVH that rebuilds its tree on every call.
func New() *LBVH { return &LBVH{} }

// Grain sizes: loops shorter than this stay on the caller.
const (
	bodyGrain  = 4096
	queryGrain = 1024
)

// hugeExtent marks a box as spanning the world (a plane's): such boxes are left out of the Morton frame,
// where their centres and sizes would swamp everyone else's.
const hugeExtent = geom.PlaneExtent / 2

// Pairs implements broad.Phase.
func (t *LBVH) Pairs(boxes []geom.AABB, moving []bool, out []broad.Pair) []broad.Pair {
	if moving != nil && len(moving) != len(boxes) {
		panic("bvh: len(moving) != len(boxes)")
	}
	t.Times = [NumStages]time.Duration{}
	n := len(boxes)
	t.boxes, t.moving = boxes, moving
	defer func() { t.boxes, t.moving = nil, nil }()
	t.bind()
	if n < 2 {
		t.n, t.nodes, t.Rebuilt = n, t.nodes[:0], true
		return out[:0]
	}
	if n > math.MaxInt32/2 {
		panic("bvh: too many bodies")
	}
	clock := time.Now()
	refit := t.RefitGrowth > 1 && n == t.n && t.builtCost > 0
	if refit {
		clock = t.fit(clock)
		if sum(t.cost) > float64(t.RefitGrowth)*t.builtCost {
			refit = false
		}
	}
	if !refit {
		t.n = n
		clock = t.build(clock)
		clock = t.fit(clock)
		t.builtCost = sum(t.cost)
	}
	t.Rebuilt = !refit

	if len(t.runs) < max(1, t.Workers) {
		t.runs = append(t.runs, make([][]broad.Pair, max(1, t.Workers)-len(t.runs))...)
	}
	for w := range t.runs {
		t.runs[w] = t.runs[w][:0]
	}
	t.par(n, queryGrain, t.fnQuery)
	clock = t.lap(StageQuery, clock)
	out = t.sorter.Sort(t.runs, n, out, t.Parallel)
	t.lap(StagePairs, clock)
	return out
}

// build runs stages 1 to 4.
func (t *LBVH) build(clock time.Time) time.Time {
	n := t.n
	workers := max(1, t.Workers)
	t.partial = resize(t.partial, workers)
	for w := range t.partial {
		t.partial[w] = centreBounds{lo: [3]float32{posInf, posInf, posInf}, hi: [3]float32{negInf, negInf, negInf}}
	}
	t.par(n, bodyGrain, t.fnBounds)
	b := t.partial[0]
	for _, p := range t.partial[1:] {
		for k := 0; k < 3; k++ {
			b.lo[k], b.hi[k] = min(b.lo[k], p.lo[k]), max(b.hi[k], p.hi[k])
		}
	}
	// One scale for all three axes, so that Morton cells are cubes, not stretched along the scene's
	// short axes (on the benchmark piles this saves 2% of the node visits).
	span := float32(0)
	for k := 0; k < 3; k++ {
		t.lo[k] = 0
		if b.lo[k] <= b.hi[k] { // some ordinary box
			t.lo[k] = b.lo[k]
			span = max(span, b.hi[k]-b.lo[k])
		}
	}
	scale := float32(0)
	if span > 0 {
		scale = 1024 / span
	}
	t.scale = [3]float32{scale, scale, scale}
	clock = t.lap(StageBounds, clock)

	t.keys = resize(t.keys, n)
	t.par(n, bodyGrain, t.fnMorton)
	clock = t.lap(StageMorton, clock)

	// The keys start in body order and their low 32 bits are the body index, so a stable sort on the
	// 30 code bits alone leaves them in full 64-bit order: the index bits need no passes.
	t.keys2 = resize(t.keys2, n)
	if sorted := t.radix.Sort(t.keys, t.keys2, 32, 32+30, t.parallel(2*broad.RadixBlock)); &sorted[0] != &t.keys[0] {
		t.keys, t.keys2 = t.keys2, t.keys
	}
	clock = t.lap(StageSort, clock)

	t.nodes = resize(t.nodes, n-1)
	t.parent = resize(t.parent, 2*n-1)
	t.leafBody = resize(t.leafBody, n)
	t.leafBox = resize(t.leafBox, n)
	t.flags = resize(t.flags, n-1)
	t.parent[0] = -1
	t.par(n, bodyGrain, t.fnBuild)
	return t.lap(StageBuild, clock)
}

// fit runs stage 5: leaf boxes from the bodies, then the bottom-up pass.
func (t *LBVH) fit(clock time.Time) time.Time {
	t.cost = resize(t.cost, max(1, t.Workers))
	clear(t.cost)
	t.par(t.n, bodyGrain, t.fnFit)
	return t.lap(StageFit, clock)
}

func (t *LBVH) bind() {
	if t.fnBounds != nil {
		return
	}
	t.fnBounds = func(w, lo, hi int) { t.boundsKernel(w, lo, hi) }
	t.fnMorton = func(_, lo, hi int) { t.mortonKernel(lo, hi) }
	t.fnBuild = func(_, lo, hi int) { t.buildKernel(lo, hi) }
	t.fnFit = func(w, lo, hi int) { t.fitKernel(w, lo, hi) }
	t.fnQuery = func(w, lo, hi int) { t.runs[w] = t.queryKernel(lo, hi, t.runs[w]) }
}

// boundsKernel folds the centres of bodies lo..hi-1 into worker w's partial bounds, leaving out the
// invalid and the world-spanning boxes.
func (t *LBVH) boundsKernel(w, lo, hi int) {
	p := t.partial[w]
	for i := lo; i < hi; i++ {
		b := &t.boxes[i]
		if !ordinary(b) {
			continue
		}
		for k := 0; k < 3; k++ {
			c := 0.5 * (b.Min[k] + b.Max[k])
			p.lo[k], p.hi[k] = min(p.lo[k], c), max(p.hi[k], c)
		}
	}
	t.partial[w] = p
}

// mortonKernel writes the keys of bodies lo..hi-1. Centres outside the frame (world-spanning boxes)
// clamp to its faces; invalid boxes get the last code.
func (t *LBVH) mortonKernel(lo, hi int) {
	for i := lo; i < hi; i++ {
		b := &t.boxes[i]
		code := uint32(1<<30 - 1)
		if broad.Valid(b) {
			var q [3]uint32
			for k := 0; k < 3; k++ {
				c := (0.5*(b.Min[k]+b.Max[k]) - t.lo[k]) * t.scale[k]
				q[k] = uint32(min(max(c, 0), 1023)) // !(c >= 0), such as NaN from Inf-Inf, gives 0
			}
			code = morton3(q[0], q[1], q[2])
		}
		t.keys[i] = uint64(code)<<32 | uint64(i)
	}
}

// expandBits spreads the low 10 bits of v so that two zero bits follow each: bit k moves to bit 3k.
func expandBits(v uint32) uint32 {
	v = (v * 0x00010001) & 0xFF0000FF
	v = (v * 0x00000101) & 0x0F00F00F
	v = (v * 0x00000011) & 0xC30C30C3
	v = (v * 0x00000005) & 0x49249249
	return v
}

// morton3 interleaves three 10-bit coordinates into a 30-bit Morton code, x highest.
func morton3(x, y, z uint32) uint32 {
	return expandBits(x)<<2 | expandBits(y)<<1 | expandBits(z)
}

// delta is the length of the common prefix of sorted keys i and j, or -1 when j is out of range.
func (t *LBVH) delta(i, j int) int {
	if j < 0 || j >= t.n {
		return -1
	}
	return bits.LeadingZeros64(t.keys[i] ^ t.keys[j])
}

// buildKernel makes internal nodes lo..hi-1 (those below n-1) and leaves lo..hi-1.
func (t *LBVH) buildKernel(lo, hi int) {
	n := t.n
	for i := lo; i < hi; i++ {
		t.leafBody[i] = int32(uint32(t.keys[i]))
		if i == n-1 {
			continue
		}
		// Direction of the range: towards the neighbour sharing the longer prefix.
		d := 1
		if t.delta(i, i+1) < t.delta(i, i-1) {
			d = -1
		}
		// The other end: double an upper bound on the length, then binary search.
		dmin := t.delta(i, i-d)
		lmax := 2
		for t.delta(i, i+lmax*d) > dmin {
			lmax *= 2
		}
		l := 0
		for s := lmax / 2; s > 0; s /= 2 {
			if t.delta(i, i+(l+s)*d) > dmin {
				l += s
			}
		}
		j := i + l*d
		// The split: the last key (from i) that shares more than the node's prefix with key i.
		dnode := t.delta(i, j)
		s := 0
		for step := (l + 1) / 2; ; step = (step + 1) / 2 {
			if t.delta(i, i+(s+step)*d) > dnode {
				s += step
			}
			if step == 1 {
				break
			}
		}
		gamma := i + s*d + min(d, 0)
		first, last := min(i, j), max(i, j)
		nd := &t.nodes[i]
		// Left child: leaves first..gamma, right child: gamma+1..last. A one-leaf child is that leaf.
		nd.last = [2]uint32{uint32(gamma), uint32(last)}
		left, right := gamma, gamma+1
		nd.child = [2]int32{int32(gamma), int32(gamma + 1)}
		if first == gamma {
			left += n - 1
			nd.child[0] = ^int32(uint32(t.keys[gamma]))
		}
		if last == gamma+1 {
			right += n - 1
			nd.child[1] = ^int32(uint32(t.keys[gamma+1]))
		}
		t.parent[left] = int32(i) << 1
		t.parent[right] = int32(i)<<1 | 1
	}
}

// fitKernel gives leaves lo..hi-1 their bodies' boxes and walks up from each, writing each fitted box
// into its parent's slot for it. At each internal node the first child to arrive sets the node's flag
// and stops; the second resets it, fits the node around both children and goes on, so every node is
// fitted once, after both of its children. The second arrival adds the node's surface area to worker
// w's cost.
func (t *LBVH) fitKernel(w, lo, hi int) {
	n := t.n
	cost := 0.0
	for k := lo; k < hi; k++ {
		body := t.leafBody[k]
		box := t.boxes[body]
		if !broad.Valid(&box) {
			box = empty
		}
		t.leafBox[k] = box
		last := uint32(k)
		if t.moving == nil || t.moving[body] {
			last |= movingBit
		}
		for up := t.parent[n-1+k]; up >= 0; {
			idx, side := up>>1, up&1
			nd := &t.nodes[idx]
			nd.box[side] = box
			nd.last[side] = nd.last[side]&lastMask | last&movingBit
			if atomic.AddInt32(&t.flags[idx], 1) == 1 {
				break // the sibling is not fitted yet: it will come up this way
			}
			atomic.StoreInt32(&t.flags[idx], 0)
			box = union(&nd.box[0], &nd.box[1])
			last = (nd.last[0] | nd.last[1]) & movingBit
			cost += area(&box)
			up = t.parent[idx]
		}
	}
	t.cost[w] += cost
}

// queryKernel appends the pairs found from the leaves at sorted positions lo..hi-1. Each pair is found
// once, from the one of its two leaves that comes first in key order, so from position k only the
// leaves after k matter; they are exactly the right children of the ancestors of k whose left subtree
// holds k. The query walks up from its leaf through the parent links and, at each such ancestor, tests
// the right child's box (held in the ancestor) and, if it overlaps, walks that subtree depth first
// with an explicit stack. From a resting body it looks only into subtrees holding a moving one, so
// resting pairs cost nothing.
//
// Walking up instead of down from the root skips the half of the path from the root whose other
// child holds only leaves before k, and tests one box per level instead of two.
func (t *LBVH) queryKernel(lo, hi int, out []broad.Pair) []broad.Pair {
	nodes, parent := t.nodes, t.parent
	leaves := int32(t.n - 1)
	var stack [64]int32 // the tree is at most 64 deep: each level lengthens the 64-bit key prefix
	for k := lo; k < hi; k++ {
		q := t.leafBox[k]
		if q.Min[0] > q.Max[0] {
			continue // invalid body
		}
		// The query box as six scalars, which the compiler keeps in registers (an array field is
		// read from memory at each use).
		qx0, qy0, qz0, qx1, qy1, qz1 := q.Min[0], q.Min[1], q.Min[2], q.Max[0], q.Max[1], q.Max[2]
		body := t.leafBody[k]
		// From a resting body, a child is worth a look only if it holds a moving body.
		need := uint32(0)
		if t.moving != nil && !t.moving[body] {
			need = movingBit
		}
		for up := parent[leaves+int32(k)]; up >= 0; {
			idx := up >> 1
			if up&1 != 0 { // k is in the right subtree: the left one holds only leaves before k
				up = parent[idx]
				continue
			}
			up = parent[idx]
			nd := &nodes[idx]
			b := &nd.box[1]
			if nd.last[1]&need != need || !(qx0 <= b.Max[0] && b.Min[0] <= qx1 && qy0 <= b.Max[1] &&
				b.Min[1] <= qy1 && qz0 <= b.Max[2] && b.Min[2] <= qz1) {
				continue
			}
			c := nd.child[1]
			if c < 0 {
				out = appendPair(out, body, ^c)
				continue
			}
			// Every leaf below c comes after k: walk the subtree.
			top := 0
			for {
				nd := &nodes[c]
				// overlaps(&q, &nd.box[i]), written out: the call is too big for the inliner,
				// and this loop is most of the broad phase's time.
				b0, b1 := &nd.box[0], &nd.box[1]
				hit0 := nd.last[0]&need == need &&
					b2u(qx0 <= b0.Max[0])&b2u(b0.Min[0] <= qx1)&b2u(qy0 <= b0.Max[1])&
						b2u(b0.Min[1] <= qy1)&b2u(qz0 <= b0.Max[2])&b2u(b0.Min[2] <= qz1) != 0
				hit1 := nd.last[1]&need == need &&
					b2u(qx0 <= b1.Max[0])&b2u(b1.Min[0] <= qx1)&b2u(qy0 <= b1.Max[1])&
						b2u(b1.Min[1] <= qy1)&b2u(qz0 <= b1.Max[2])&b2u(b1.Min[2] <= qz1) != 0
				c0, c1 := nd.child[0], nd.child[1]
				if hit0 && c0 < 0 {
					out = appendPair(out, body, ^c0)
					hit0 = false
				}
				if hit1 && c1 < 0 {
					out = appendPair(out, body, ^c1)
					hit1 = false
				}
				switch {
				case hit0 && hit1:
					stack[top] = c1
					top++
					c = c0
				case hit0:
					c = c0
				case hit1:
					c = c1
				case top > 0:
					top--
					c = stack[top]
				default:
					goto done
				}
			}
		done:
		}
	}
	return out
}

func appendPair(out []broad.Pair, a, b int32) []broad.Pair {
	if a > b {
		a, b = b, a
	}
	return append(out, broad.Pair{A: a, B: b})
}

// par runs fn over [0, n): on the workers when there are several and n is at least grain.
func (t *LBVH) par(n, grain int, fn func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	if t.Parallel == nil || t.Workers < 2 || n < grain {
		fn(0, 0, n)
		return
	}
	t.Parallel(n, fn)
}

// parallel returns t.Parallel when the tree is large enough (grain bodies) to split a loop, else nil.
func (t *LBVH) parallel(grain int) func(n int, fn func(worker, lo, hi int)) {
	if t.Workers < 2 || t.n < grain {
		return nil
	}
	return t.Parallel
}

func (t *LBVH) lap(s Stage, since time.Time) time.Time {
	now := time.Now()
	t.Times[s] += now.Sub(since)
	return now
}

var (
	posInf, negInf = float32(math.Inf(1)), float32(math.Inf(-1))
	// empty is the box of an invalid body: it overlaps nothing, and a union ignores it.
	empty = geom.AABB{Min: geom.Vec3{posInf, posInf, posInf}, Max: geom.Vec3{negInf, negInf, negInf}}
)

// ordinary reports whether a box is valid and not world-spanning.
func ordinary(b *geom.AABB) bool {
	return broad.Valid(b) && b.Max[0]-b.Min[0] <= hugeExtent && b.Max[1]-b.Min[1] <= hugeExtent && b.Max[2]-b.Min[2] <= hugeExtent
}

// overlaps is geom.AABB.Overlaps on pointers, with one branch: touching counts.
func overlaps(a, b *geom.AABB) bool {
	return b2u(a.Min[0] <= b.Max[0])&b2u(b.Min[0] <= a.Max[0])&b2u(a.Min[1] <= b.Max[1])&
		b2u(b.Min[1] <= a.Max[1])&b2u(a.Min[2] <= b.Max[2])&b2u(b.Min[2] <= a.Max[2]) != 0
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func union(a, b *geom.AABB) geom.AABB {
	return geom.AABB{
		Min: geom.Vec3{min(a.Min[0], b.Min[0]), min(a.Min[1], b.Min[1]), min(a.Min[2], b.Min[2])},
		Max: geom.Vec3{max(a.Max[0], b.Max[0]), max(a.Max[1], b.Max[1]), max(a.Max[2], b.Max[2])},
	}
}

// area is the box's surface area (zero for an empty box), capped so that a world-spanning box does not
// make every other term vanish in the sum.
func area(b *geom.AABB) float64 {
	dx, dy, dz := float64(b.Max[0]-b.Min[0]), float64(b.Max[1]-b.Min[1]), float64(b.Max[2]-b.Min[2])
	if !(dx >= 0 && dy >= 0 && dz >= 0) {
		return 0
	}
	return min(2*(dx*dy+dy*dz+dz*dx), 1e6)
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// resize returns s with length n, reusing its storage when it is large enough.
func resize[T any](s []T, n int) []T {
	return slices.Grow(s[:0], n)[:n]
}

// SetParallel sets the Parallel and Workers fields (the broad.Parallel interface).
func (t *LBVH) SetParallel(fn func(n int, body func(worker, lo, hi int)), workers int) {
	t.Parallel, t.Workers = fn, workers
}

// LevelBoxes appends to out the boxes of the tree's subtrees at depth d (the root is depth 0, its two
// children depth 1), as of the last call: the view a debug drawing of "BVH level d" shows. A leaf
// above depth d stands for itself, so every level covers every body. It appends nothing before the
// first call with two or more bodies.
func (t *LBVH) LevelBoxes(d int, out []geom.AABB) []geom.AABB {
	if t.n < 2 || len(t.nodes) < t.n-1 {
		return out
	}
	if d <= 0 {
		return append(out, union(&t.nodes[0].box[0], &t.nodes[0].box[1]))
	}
	var visit func(idx int32, depth int)
	visit = func(idx int32, depth int) {
		nd := &t.nodes[idx]
		for c := 0; c < 2; c++ {
			if depth+1 == d || nd.child[c] < 0 {
				if b := nd.box[c]; b.Min[0] <= b.Max[0] {
					out = append(out, b)
				}
				continue
			}
			visit(nd.child[c], depth+1)
		}
	}
	visit(0, 0)
	return out
}

// Depth returns the number of levels below the root in the last call's tree (0 with under two bodies).
func (t *LBVH) Depth() int {
	if t.n < 2 || len(t.nodes) < t.n-1 {
		return 0
	}
	var depth func(idx int32) int
	depth = func(idx int32) int {
		nd := &t.nodes[idx]
		d := 0
		for c := 0; c < 2; c++ {
			if nd.child[c] >= 0 {
				d = max(d, depth(nd.child[c]))
			}
		}
		return d + 1
	}
	return depth(0)
}
