package gpu

import (
	"fmt"
	"math/bits"
)

// Launch geometry of bounds.cu and lbvh.cu.
const (
	broadThreads = 256              // TB_BROAD_THREADS
	radixBits    = 4                // TB_RADIX_BITS
	radixDigits  = 1 << radixBits   // TB_RADIX_DIGITS
	radixThreads = 128              // TB_RADIX_THREADS
	radixTile    = radixThreads * 8 // TB_RADIX_TILE
	sceneBlocks  = 64               // most blocks of the first scene-bounds reduction
	mortonBits   = 30               // bits of a Morton code
)

// broadMovingBit is the top bit of tbNode.Last (TB_MOVING_BIT).
const broadMovingBit = 1 << 31

// bigCap is TB_BIG_CAP: the most bodies the query's big list holds.
const bigCap = 32

// broadStage runs the bounds and the LBVH broad phase of sim (updateBounds, then sim/broad/bvh) on the
// device: per body a box and a moving flag, then the pair list, sorted by (a, b), that sim's LBVH gives
// on those boxes. It only launches kernels; the pair count stays on the device, counting on past the
// list's capacity, so that the backend can read it at the end of the step and grow (reserve) and re-run
// when it overflowed. The tree is rebuilt every step: sim/broad/bvh's refit (Settings.BVHRefit) is not
// ported, which changes its cost, not its pairs.
type broadStage struct {
	// timer, when set, is called after each stage's launches with the stage's name (bounds, scene,
	// morton, sort, build, fit, query, pairs), for benchmarks that sync and read a clock there.
	timer func(stage string)

	bodies, capacity int // reserved for

	boxes, moving  buffer    // per body: TbBox, uint32 (dynamic)
	partial, frame buffer    // scene bounds per block; Morton frame (origin xyz, scale)
	codes, index   [2]buffer // per body: Morton codes and body indices, sorted together (ping-pong)
	hist           buffer    // radix digit counts per block, then their scan
	nodes, parent  buffer    // n-1 TbNode; 2n-1 int32 (parent<<1 | side, -1 at the root)
	leafBox, flags buffer    // per sorted leaf: TbBox; per node: children arrived in the fit
	pairA, pairB   [2]buffer // the pair columns as the query appends them, sorted (ping-pong)
	pairs, count   buffer    // the output: int2 pairs, and two uint32 counters: pairs, big bodies
	big            buffer    // TB_BIG_CAP TbBig: the bodies left out of the tree walk
	visits         buffer    // per sorted leaf: nodes and big bodies its query tested
	scan           scanner

	cur int // which of codes/index holds the sorted keys after the sort
	// small: a sort of at most smallSortTiles tiles is one launch (tb_broad_radix_one, small.go).
	small bool
	// treeN is the number of leaves of the tree the last pairsOf built (0: none yet), for the debug
	// draw's BVH layer (debug.go).
	treeN int
}

// reserve makes room for the given number of bodies and pairs (its buffers grow, never shrink) and
// makes pairCapacity the pair list's capacity, which the pair kernels' grids are sized by.
func (s *broadStage) reserve(d device, bodies, pairCapacity int) error {
	bodies, pairCapacity = max(bodies, 1), max(pairCapacity, 1)
	grows := []struct {
		b     *buffer
		bytes int
	}{
		{&s.boxes, tbBoxSize * bodies},
		{&s.moving, 4 * bodies},
		{&s.partial, tbBoxSize * sceneBlocks},
		{&s.frame, 4 * 4},
		{&s.codes[0], 4 * bodies}, {&s.codes[1], 4 * bodies},
		{&s.index[0], 4 * bodies}, {&s.index[1], 4 * bodies},
		{&s.hist, 4 * radixDigits * blocks(max(bodies, pairCapacity), radixTile)},
		{&s.nodes, tbNodeSize * bodies},
		{&s.parent, 4 * 2 * bodies},
		{&s.leafBox, tbBoxSize * bodies},
		{&s.flags, 4 * bodies},
		{&s.pairA[0], 4 * pairCapacity}, {&s.pairA[1], 4 * pairCapacity},
		{&s.pairB[0], 4 * pairCapacity}, {&s.pairB[1], 4 * pairCapacity},
		{&s.pairs, 8 * pairCapacity},
		{&s.count, 8},
		{&s.big, tbBigSize * bigCap},
		{&s.visits, 4 * bodies},
	}
	for _, g := range grows {
		if err := grow(d, g.b, g.bytes); err != nil {
			return fmt.Errorf("broad phase: reserving %d bodies, %d pairs: %w", bodies, pairCapacity, err)
		}
	}
	s.bodies, s.capacity = max(s.bodies, bodies), pairCapacity
	return nil
}

// bounds is the Bounds stage on the device: each body's box, enlarged by its motion over the step
// (dt) and half the speculative distance, and its moving flag, for pairsOf; of every body, or of
// those list names (listN of them, over grid blocks) when list is not 0.
func (s *broadStage) bounds(d device, b *bodyBuffers, dt, speculative float32, list, listN ptr, grid int) error {
	if err := s.reserve(d, b.n, s.capacity); err != nil {
		return err
	}
	if list == 0 {
		grid = blocks(b.n, broadThreads)
	}
	if err := (kernelSet{d}).broadBounds(grid, broadThreads, broadBoundsArgs{List: list, ListN: listN,
		Pos: b.pos.p, Rot: b.rot.p, Vel: b.vel.p, Omega: b.omega.p, Shape: b.shape.p,
		Hulls: b.hulls.dHulls.p, HullVerts: b.hulls.dVerts.p, Flags: b.flags.p, Boxes: s.boxes.p, Moving: s.moving.p, N: int32(b.n), Dt: dt, Margin: 0.5 * speculative,
	}); err != nil {
		return err
	}
	return nil
}

// pairsOf runs the LBVH over the first n boxes and moving flags in s.boxes and s.moving.
func (s *broadStage) pairsOf(d device, n int) error {
	return s.pairsOver(d, s.boxes.p, s.moving.p, n, partOf{})
}

// partOf says which bodies a tree's leaves are when they are not the world's n first ones: leaf j is
// body ids[j] of a world of bodies bodies, whose flags are flags; rest, when not nil, is the tree of
// the resting bodies to find the leaves' pairs with (tb_broad_cross).
type partOf struct {
	ids    ptr
	bodies int
	flags  ptr
	rest   *restTree
}

// part is a tree over part of the world's bodies, leaf j being body ids[j] (ids in increasing order):
// the awake bodies' (the boxes and moving flags of its leaves gathered in leaves and moving), or the
// resting bodies' (restTree).
type part struct {
	boxes, moving buffer // per leaf: TbBox, uint32
	ids           buffer // per leaf: int32, its body
	n             int
}

// gather fills p's leaves with the boxes and moving flags of the n bodies ids lists (the bounds stage's
// per-body boxes and flags), ids being kept as p's.
func (p *part) gather(d device, boxes, moving, ids ptr, n int) error {
	for _, g := range []*buffer{&p.boxes, &p.moving} {
		size := 4
		if g == &p.boxes {
			size = tbBoxSize
		}
		if err := grow(d, g, size*max(n, 1)); err != nil {
			return err
		}
	}
	p.n = n
	if n == 0 {
		return nil
	}
	return kernelSet{d}.broadGather(blocks(n, broadThreads), broadThreads, broadGatherArgs{Boxes: boxes,
		Moving: moving, Ids: ids, N: int32(n), BoxesOut: p.boxes.p, MovingOut: p.moving.p})
}

// release frees p's buffers.
func (p *part) release(d device) {
	for _, b := range []*buffer{&p.boxes, &p.moving, &p.ids} {
		release(d, b)
	}
	*p = part{}
}

// restTree is the LBVH of the bodies that move in no step while they stay as they are: the static
// bodies and the sleeping ones. A world that mostly sleeps builds it when the set of sleeping bodies
// grows (Backend.restTree) and keeps it, building each step only the awake bodies' tree: the pairs of
// two awake bodies come from that tree's query, those of an awake body and a resting one from
// tb_broad_cross, which walks this tree. A sleeping body does not move (its velocity is zeroed and
// the integration skips it), so its box stays what it was when the tree was built; one that woke
// since is skipped there, being a leaf of the awake tree.
type restTree struct {
	stage  broadStage // the tree, over leaves.boxes and leaves.moving
	leaves part
}

// build makes the tree over the n bodies ids lists, whose boxes and moving flags are in boxes and
// moving (per body, just bounded).
func (r *restTree) build(d device, boxes, moving ptr, n int) error {
	if err := r.leaves.gather(d, boxes, moving, r.leaves.ids.p, n); err != nil {
		return err
	}
	if err := r.stage.reserve(d, n, 1); err != nil {
		return err
	}
	if err := d.zero(r.stage.count.p, 8); err != nil { // the big list's count
		return err
	}
	if n < 2 {
		return nil
	}
	return r.stage.tree(d, r.leaves.boxes.p, r.leaves.moving.p, n)
}

// release frees the tree's buffers.
func (r *restTree) release(d device) {
	r.stage.release(d)
	r.leaves.release(d)
}

// pairsOver runs the LBVH over the n leaves boxes and moving (the bodies of, or the world's first n),
// and, with of.rest, finds the pairs of the leaves that move with the bodies of its tree: the pair
// list, sorted by bodies.
func (s *broadStage) pairsOver(d device, boxes, moving ptr, n int, of partOf) error {
	ids, rest := of.ids, of.rest
	if err := d.zero(s.count.p, 8); err != nil { // the pair count and the big list's
		return err
	}
	s.treeN = 0
	k := kernelSet{d}
	if n >= 2 {
		if err := s.tree(d, boxes, moving, n); err != nil {
			return err
		}
		s.treeN = n
		if err := k.broadQuery(blocks(n, broadThreads), broadThreads, broadQueryArgs{Nodes: s.nodes.p,
			Parent: s.parent.p, LeafBox: s.leafBox.p, Index: s.index[s.cur].p, Moving: moving, N: int32(n),
			Big: s.big.p, BigCount: s.count.p + 4, PairA: s.pairA[0].p, PairB: s.pairB[0].p, Count: s.count.p,
			Cap: int32(s.capacity), Visits: s.visits.p, Ids: ids}); err != nil {
			return err
		}
	}
	if rest != nil && n > 0 && rest.leaves.n > 0 {
		if err := k.broadCross(blocks(n, broadThreads), broadThreads, broadCrossArgs{Boxes: boxes, Moving: moving,
			Ids: ids, N: int32(n), Nodes: rest.stage.nodes.p, OtherBoxes: rest.leaves.boxes.p,
			OtherIds: rest.leaves.ids.p, NOther: int32(rest.leaves.n), Flags: of.flags, PairA: s.pairA[0].p,
			PairB: s.pairB[0].p, Count: s.count.p, Cap: int32(s.capacity)}); err != nil {
			return err
		}
	}
	if n < 2 && (rest == nil || rest.leaves.n == 0) {
		return nil
	}
	s.lap("query")
	// Sort by (a, b): stably by b, then by a. Indices are below the world's bodies, so bits.Len of the
	// largest of each.
	bodies := n
	if ids != 0 {
		bodies = of.bodies
	}
	width := bits.Len(uint(bodies - 1))
	cur, err := s.radixSort(d, &s.pairB, &s.pairA, 0, s.capacity, s.count.p, width)
	if err != nil {
		return err
	}
	if cur, err = s.radixSort(d, &s.pairA, &s.pairB, cur, s.capacity, s.count.p, width); err != nil {
		return err
	}
	if err := k.broadPairsOut(blocks(s.capacity, broadThreads), broadThreads, broadPairsOutArgs{
		PairA: s.pairA[cur].p, PairB: s.pairB[cur].p, Count: s.count.p, Cap: int32(s.capacity),
		Pairs: s.pairs.p}); err != nil {
		return err
	}
	s.lap("pairs")
	return nil
}

// tree builds the LBVH over the n >= 2 leaves boxes and moving: the Morton frame, the codes, their
// sort (s.cur then says which of s.codes and s.index holds them), the tree and its fit, with the big
// list (whose count, s.count's second word, the caller zeroed).
func (s *broadStage) tree(d device, boxes, moving ptr, n int) error {
	k := kernelSet{d}
	nb := min(blocks(n, broadThreads), sceneBlocks)
	if err := k.broadSceneBlocks(nb, broadThreads, broadSceneBlocksArgs{Boxes: boxes, N: int32(n),
		Partial: s.partial.p}); err != nil {
		return err
	}
	if err := k.broadSceneFrame(1, broadThreads, broadSceneFrameArgs{Partial: s.partial.p, Nb: int32(nb),
		Frame: s.frame.p}); err != nil {
		return err
	}
	s.lap("scene")
	if err := k.broadMorton(blocks(n, broadThreads), broadThreads, broadMortonArgs{Boxes: boxes,
		Frame: s.frame.p, Codes: s.codes[0].p, Index: s.index[0].p, N: int32(n)}); err != nil {
		return err
	}
	s.lap("morton")
	// The keys start in body order, so a stable sort on the code bits alone leaves them sorted by
	// code<<32 | index, the order of sim/broad/bvh's 64-bit keys.
	var err error
	if s.cur, err = s.radixSort(d, &s.codes, &s.index, 0, n, 0, mortonBits); err != nil {
		return err
	}
	s.lap("sort")
	codes, index := s.codes[s.cur], s.index[s.cur]
	if err := k.broadBuild(blocks(n-1, broadThreads), broadThreads, broadBuildArgs{Codes: codes.p, Index: index.p,
		N: int32(n), Nodes: s.nodes.p, Parent: s.parent.p}); err != nil {
		return err
	}
	s.lap("build")
	if err := d.zero(s.flags.p, 4*(n-1)); err != nil {
		return err
	}
	if err := k.broadFit(blocks(n, broadThreads), broadThreads, broadFitArgs{Boxes: boxes, Moving: moving,
		Index: index.p, N: int32(n), Parent: s.parent.p, Nodes: s.nodes.p, LeafBox: s.leafBox.p,
		Flags: s.flags.p, Frame: s.frame.p, Big: s.big.p, BigCount: s.count.p + 4}); err != nil {
		return err
	}
	s.lap("fit")
	return nil
}

// radixSort sorts keys[cur] by their low bits bits, stably, moving vals[cur] along, over n values (or
// the device's *count of them, at most n, when count is not 0). Each pass of radixBits moves the data
// to the other buffer of each pair; it returns the one that holds the result.
func (s *broadStage) radixSort(d device, keys, vals *[2]buffer, cur, n int, count ptr, bits int) (int, error) {
	k := kernelSet{d}
	nb := blocks(n, radixTile)
	if s.small && nb <= smallSortTiles {
		if err := k.broadRadixOne(1, radixThreads, broadRadixOneArgs{Keys0: keys[cur].p, Vals0: vals[cur].p,
			Keys1: keys[1-cur].p, Vals1: vals[1-cur].p, N: int32(n), Count: count, Bits: int32(bits),
			Hist: s.hist.p}); err != nil {
			return cur, err
		}
		return cur ^ (bits+radixBits-1)/radixBits&1, nil
	}
	for shift := 0; shift < bits; shift += radixBits {
		if err := k.broadRadixCount(nb, radixThreads, broadRadixCountArgs{Keys: keys[cur].p, N: int32(n),
			Count: count, Shift: int32(shift), Hist: s.hist.p}); err != nil {
			return cur, err
		}
		if err := s.scan.run(d, s.hist.p, s.hist.p, radixDigits*nb); err != nil {
			return cur, err
		}
		if err := k.broadRadixScatter(nb, radixThreads, broadRadixScatterArgs{Keys: keys[cur].p,
			Vals: vals[cur].p, KeysOut: keys[1-cur].p, ValsOut: vals[1-cur].p, N: int32(n), Count: count,
			Shift: int32(shift), Offsets: s.hist.p}); err != nil {
			return cur, err
		}
		cur = 1 - cur
	}
	return cur, nil
}

func (s *broadStage) lap(stage string) {
	if s.timer != nil {
		s.timer(stage)
	}
}

// pairList is the stage's output: the int2 pairs (a < b, sorted by (a, b)), the device address of
// their uint32 count (which can exceed capacity: the list then holds capacity pairs and the step must
// be re-run with more room), and the capacity.
func (s *broadStage) pairList() (pairs ptr, count ptr, capacity int) {
	return s.pairs.p, s.count.p, s.capacity
}

// release frees the stage's buffers.
func (s *broadStage) release(d device) {
	for _, b := range []*buffer{&s.boxes, &s.moving, &s.partial, &s.frame, &s.codes[0], &s.codes[1],
		&s.index[0], &s.index[1], &s.hist, &s.nodes, &s.parent, &s.leafBox, &s.flags, &s.pairA[0],
		&s.pairA[1], &s.pairB[0], &s.pairB[1], &s.pairs, &s.count, &s.big, &s.visits} {
		release(d, b)
	}
	s.scan.release(d)
	s.bodies, s.capacity, s.treeN = 0, 0, 0
}

// Walks is what the last tree's queries did: per query thread (one per body), the internal nodes and
// big bodies it tested. Max is the serial tail of the query kernel; on a GPU the kernel takes about
// as long as its longest walk.
type Walks struct {
	Leaves int     // query threads (bodies in the tree)
	Max    int     // the longest walk
	Mean   float64 // the mean walk
	Big    int     // bodies on the big list, left out of the walk (at most bigCap)
}

func (w Walks) String() string {
	return fmt.Sprintf("lbvh query, last step: %d threads, longest walk %d nodes, mean %.1f; %d big bodies tested by every leaf",
		w.Leaves, w.Max, w.Mean, w.Big)
}

// walks reads back the last query's per-thread visit counts (a download of 4 bytes per body).
func (s *broadStage) walks(d device) (Walks, error) {
	n := s.treeN
	if n == 0 {
		return Walks{}, nil
	}
	v := make([]uint32, n)
	if err := downloadSlice(d, v, s.visits.p); err != nil {
		return Walks{}, err
	}
	var c [2]uint32
	if err := downloadSlice(d, c[:], s.count.p); err != nil {
		return Walks{}, err
	}
	w := Walks{Leaves: n, Big: int(min(c[1], bigCap))}
	sum := 0
	for _, x := range v {
		w.Max = max(w.Max, int(x))
		sum += int(x)
	}
	w.Mean = float64(sum) / float64(n)
	return w, nil
}
