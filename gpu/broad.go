package gpu

import (
	"fmt"
	"math/bits"
)

// Launch geometry of bounds.cu and lbvh.cu.
const (
	broadThreads = 256                     // TB_BROAD_THREADS
	radixBits    = 4                       // TB_RADIX_BITS
	radixDigits  = 1 << radixBits          // TB_RADIX_DIGITS
	radixThreads = 128                     // TB_RADIX_THREADS
	radixTile    = radixThreads * 8        // TB_RADIX_TILE
	sceneBlocks  = 64                      // most blocks of the first scene-bounds reduction
	mortonBits   = 30                      // bits of a Morton code
	tbBoxSize    = 24                      // sizeof(TbBox)
	tbNodeSize   = 2*tbBoxSize + 2*4 + 2*4 // sizeof(TbNode)
)

// tbBox mirrors broad.cuh's TbBox (the layout of geom.AABB).
type tbBox struct{ Lo, Hi [3]float32 }

// tbNode mirrors broad.cuh's TbNode: an internal node of the LBVH.
type tbNode struct {
	Box   [2]tbBox
	Child [2]int32  // internal node, or ^body for a leaf
	Last  [2]uint32 // last sorted leaf below the child, | broadMovingBit if a moving body is
}

// broadMovingBit is the top bit of tbNode.Last (TB_MOVING_BIT).
const broadMovingBit = 1 << 31

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
	pairs, count   buffer    // the output: int2 pairs, and the uint32 counter
	scan           scanner

	cur int // which of codes/index holds the sorted keys after the sort
	// treeN is the number of leaves of the tree the last pairsOf built (0: none yet), for the debug
	// draw's BVH layer (debug.go).
	treeN int
}

// reserve makes room for the given number of bodies and pairs (growing, never shrinking).
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
		{&s.count, 4},
	}
	for _, g := range grows {
		if err := grow(d, g.b, g.bytes); err != nil {
			return fmt.Errorf("broad phase: reserving %d bodies, %d pairs: %w", bodies, pairCapacity, err)
		}
	}
	s.bodies, s.capacity = max(s.bodies, bodies), max(s.capacity, pairCapacity)
	return nil
}

// run computes the bodies' boxes for a step of dt (grown by half the speculative distance, as sim's
// updateBounds) and their moving flags, then the pair list.
func (s *broadStage) run(d device, b *bodyBuffers, dt, speculative float32) error {
	if err := s.reserve(d, b.n, s.capacity); err != nil {
		return err
	}
	if err := d.launch("tb_broad_bounds", blocks(b.n, broadThreads), broadThreads, b.pos, b.rot, b.vel, b.omega,
		b.shape, b.flags, s.boxes, s.moving, int32(b.n), dt, 0.5*speculative); err != nil {
		return err
	}
	s.lap("bounds")
	return s.pairsOf(d, b.n)
}

// pairsOf runs the LBVH over the first n boxes and moving flags in s.boxes and s.moving.
func (s *broadStage) pairsOf(d device, n int) error {
	if err := d.zero(s.count.p, 4); err != nil {
		return err
	}
	s.treeN = 0
	if n < 2 {
		return nil
	}
	nb := min(blocks(n, broadThreads), sceneBlocks)
	if err := d.launch("tb_broad_scene_blocks", nb, broadThreads, s.boxes, int32(n), s.partial); err != nil {
		return err
	}
	if err := d.launch("tb_broad_scene_frame", 1, broadThreads, s.partial, int32(nb), s.frame); err != nil {
		return err
	}
	s.lap("scene")
	if err := d.launch("tb_broad_morton", blocks(n, broadThreads), broadThreads, s.boxes, s.frame,
		s.codes[0], s.index[0], int32(n)); err != nil {
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
	if err := d.launch("tb_broad_build", blocks(n-1, broadThreads), broadThreads, codes, index, int32(n),
		s.nodes, s.parent); err != nil {
		return err
	}
	s.lap("build")
	if err := d.zero(s.flags.p, 4*(n-1)); err != nil {
		return err
	}
	if err := d.launch("tb_broad_fit", blocks(n, broadThreads), broadThreads, s.boxes, s.moving, index, int32(n),
		s.parent, s.nodes, s.leafBox, s.flags); err != nil {
		return err
	}
	s.lap("fit")
	s.treeN = n
	if err := d.launch("tb_broad_query", blocks(n, broadThreads), broadThreads, s.nodes, s.parent, s.leafBox,
		index, s.moving, int32(n), s.pairA[0], s.pairB[0], s.count, int32(s.capacity)); err != nil {
		return err
	}
	s.lap("query")
	// Sort by (a, b): stably by b, then by a. Indices are below n, so bits.Len(n-1) bits of each.
	width := bits.Len(uint(n - 1))
	cur, err := s.radixSort(d, &s.pairB, &s.pairA, 0, s.capacity, s.count.p, width)
	if err != nil {
		return err
	}
	if cur, err = s.radixSort(d, &s.pairA, &s.pairB, cur, s.capacity, s.count.p, width); err != nil {
		return err
	}
	if err := d.launch("tb_broad_pairs_out", blocks(s.capacity, broadThreads), broadThreads, s.pairA[cur],
		s.pairB[cur], s.count, int32(s.capacity), s.pairs); err != nil {
		return err
	}
	s.lap("pairs")
	return nil
}

// radixSort sorts keys[cur] by their low bits bits, stably, moving vals[cur] along, over n values (or
// the device's *count of them, at most n, when count is not 0). Each pass of radixBits moves the data
// to the other buffer of each pair; it returns the one that holds the result.
func (s *broadStage) radixSort(d device, keys, vals *[2]buffer, cur, n int, count ptr, bits int) (int, error) {
	nb := blocks(n, radixTile)
	for shift := 0; shift < bits; shift += radixBits {
		if err := d.launch("tb_broad_radix_count", nb, radixThreads, keys[cur], int32(n), count, int32(shift),
			s.hist); err != nil {
			return cur, err
		}
		if err := s.scan.run(d, s.hist.p, s.hist.p, radixDigits*nb); err != nil {
			return cur, err
		}
		if err := d.launch("tb_broad_radix_scatter", nb, radixThreads, keys[cur], vals[cur], keys[1-cur],
			vals[1-cur], int32(n), count, int32(shift), s.hist); err != nil {
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
		&s.pairA[1], &s.pairB[0], &s.pairB[1], &s.pairs, &s.count} {
		release(d, b)
	}
	s.scan.release(d)
	s.bodies, s.capacity, s.treeN = 0, 0, 0
}
