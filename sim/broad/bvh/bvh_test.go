package bvh

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"tumble/sim/broad"
	"tumble/sim/broad/broadtest"
	"tumble/sim/geom"
)

// checkTree checks the tree's invariants after a call: keys strictly increasing, every leaf reached
// exactly once from the root, parent links that match the child links, the leaves' last positions and
// bodies, each node's slot boxes containing its children's, and the moving bits.
func checkTree(t *testing.T, what string, tr *LBVH, moving []bool) {
	t.Helper()
	n := tr.n
	if n < 2 {
		return
	}
	if tr.Rebuilt {
		for k := 1; k < n; k++ {
			if tr.keys[k-1] >= tr.keys[k] {
				t.Fatalf("%s: keys %d, %d out of order: %x, %x", what, k-1, k, tr.keys[k-1], tr.keys[k])
			}
		}
	}
	if tr.parent[0] != -1 {
		t.Fatalf("%s: root has parent %d", what, tr.parent[0])
	}
	seen := make([]int, n)
	bodies := make([]int, n)
	// walk returns the first and last leaf position under internal node idx, its moving bit, and the
	// union of its slots.
	var walk func(idx int32, depth int) (first, last uint32, moving uint32, box geom.AABB)
	walk = func(idx int32, depth int) (uint32, uint32, uint32, geom.AABB) {
		if depth > 64 {
			t.Fatalf("%s: tree deeper than 64", what)
		}
		nd := &tr.nodes[idx]
		var first, last [2]uint32
		var anyMoving uint32
		for c := 0; c < 2; c++ {
			var box geom.AABB
			var mv uint32
			if ch := nd.child[c]; ch < 0 { // leaf
				k := nd.last[c] & lastMask
				if int(k) >= n {
					t.Fatalf("%s: node %d slot %d: leaf position %d out of range", what, idx, c, k)
				}
				seen[k]++
				body := ^ch
				bodies[body]++
				if tr.leafBody[k] != body {
					t.Fatalf("%s: leaf %d holds body %d, its parent says %d", what, k, tr.leafBody[k], body)
				}
				if got := tr.parent[n-1+int(k)]; got != idx<<1|int32(c) {
					t.Fatalf("%s: leaf %d has parent %x, want %x", what, k, got, idx<<1|int32(c))
				}
				first[c], last[c], box = k, k, tr.leafBox[k]
				if moving == nil || moving[body] {
					mv = movingBit
				}
			} else {
				if got := tr.parent[ch]; got != idx<<1|int32(c) {
					t.Fatalf("%s: node %d has parent %x, want %x", what, ch, got, idx<<1|int32(c))
				}
				first[c], last[c], mv, box = walk(ch, depth+1)
				if nd.last[c]&lastMask != last[c] {
					t.Fatalf("%s: node %d slot %d says last %d, its subtree ends at %d", what, idx, c, nd.last[c]&lastMask, last[c])
				}
			}
			if nd.last[c]&movingBit != mv {
				t.Fatalf("%s: node %d slot %d moving bit %x, want %x", what, idx, c, nd.last[c]&movingBit, mv)
			}
			if box.Min[0] <= box.Max[0] && !contains(nd.box[c], box) {
				t.Fatalf("%s: node %d slot %d box %v does not contain its child's %v", what, idx, c, nd.box[c], box)
			}
			anyMoving |= mv
		}
		if last[0]+1 != first[1] {
			t.Fatalf("%s: node %d's children cover %d..%d and %d..%d: not adjacent", what, idx, first[0], last[0], first[1], last[1])
		}
		return first[0], last[1], anyMoving, union(&nd.box[0], &nd.box[1])
	}
	first, last, _, _ := walk(0, 0)
	if first != 0 || int(last) != n-1 {
		t.Fatalf("%s: the root covers %d..%d, want 0..%d", what, first, last, n-1)
	}
	for k := range seen {
		if seen[k] != 1 {
			t.Fatalf("%s: leaf %d reached %d times", what, k, seen[k])
		}
		if bodies[k] != 1 {
			t.Fatalf("%s: body %d is in %d leaves", what, k, bodies[k])
		}
	}
	for i, f := range tr.flags[:n-1] {
		if f != 0 {
			t.Fatalf("%s: fit flag %d left at %d", what, i, f)
		}
	}
}

func contains(outer, inner geom.AABB) bool {
	for k := 0; k < 3; k++ {
		if inner.Min[k] < outer.Min[k] || inner.Max[k] > outer.Max[k] {
			return false
		}
	}
	return true
}

func TestLBVHMatchesBruteOnRandomScenes(t *testing.T) {
	sizes := []int{0, 1, 2, 3, 17, 200, 1000}
	fractions := []float64{1, 0.5, 0.05, 0}
	for name, gen := range broadtest.Scenes {
		for _, n := range sizes {
			for _, p := range fractions {
				r := rand.New(rand.NewPCG(uint64(n), uint64(p*100)))
				boxes := gen(r, n)
				moving := broadtest.RandomMoving(r, n, p)
				want := broad.Brute{}.Pairs(boxes, moving, nil)
				what := fmt.Sprintf("%s n=%d moving=%.2f", name, n, p)
				tr := New()
				broadtest.CheckPairs(t, what, tr.Pairs(boxes, moving, nil), want)
				checkTree(t, what, tr, moving)
				par := New()
				par.Parallel, par.Workers = broadtest.ParallelFor(3), 3
				broadtest.CheckPairs(t, what+" parallel", par.Pairs(boxes, moving, nil), want)
				checkTree(t, what+" parallel", par, moving)
			}
		}
	}
}

// TestLBVHRefit moves the bodies of a scene step by step and checks a refitting tree against brute
// force at each step, with a growth limit low enough that it rebuilds now and then.
func TestLBVHRefit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	boxes := broadtest.Scenes["clustered"](r, 2000)
	moving := broadtest.RandomMoving(r, len(boxes), 0.8)
	for _, workers := range []int{1, 3} {
		tr := New()
		tr.RefitGrowth = 1.15
		if workers > 1 {
			tr.Parallel, tr.Workers = broadtest.ParallelFor(workers), workers
		}
		rebuilds, refits := 0, 0
		var out []broad.Pair
		for step := 0; step < 40; step++ {
			for i := range boxes {
				if moving[i] {
					d := broadtest.RandVec(r, -0.4, 0.4)
					d[1] -= 0.1 // everything falls a little: the tree's boxes stretch
					boxes[i] = geom.AABB{Min: boxes[i].Min.Add(d), Max: boxes[i].Max.Add(d)}
				}
			}
			want := broad.Brute{}.Pairs(boxes, moving, nil)
			out = tr.Pairs(boxes, moving, out)
			what := fmt.Sprintf("workers=%d step %d", workers, step)
			broadtest.CheckPairs(t, what, out, want)
			checkTree(t, what, tr, moving)
			if tr.Rebuilt {
				rebuilds++
			} else {
				refits++
			}
		}
		if rebuilds < 2 || refits < 10 {
			t.Errorf("workers=%d: %d rebuilds and %d refits in 40 steps: want both used", workers, rebuilds, refits)
		}
		// A change in the number of bodies forces a rebuild.
		out = tr.Pairs(boxes[:1500], moving[:1500], out)
		if !tr.Rebuilt {
			t.Errorf("workers=%d: no rebuild after the body count changed", workers)
		}
		broadtest.CheckPairs(t, "fewer bodies", out, broad.Brute{}.Pairs(boxes[:1500], moving[:1500], nil))
	}
}

func TestExpandBitsAndMorton(t *testing.T) {
	for v := uint32(0); v < 1024; v++ {
		want := uint32(0)
		for k := 0; k < 10; k++ {
			want |= (v >> k & 1) << (3 * k)
		}
		if got := expandBits(v); got != want {
			t.Fatalf("expandBits(%#x) = %#x, want %#x", v, got, want)
		}
	}
	// Each coordinate lands in its own bit lane (seed 001's listing passes x twice; this would catch it).
	if got := morton3(1023, 0, 0); got != 0x24924924 {
		t.Errorf("morton3(1023, 0, 0) = %#x", got)
	}
	if got := morton3(0, 1023, 0); got != 0x12492492 {
		t.Errorf("morton3(0, 1023, 0) = %#x", got)
	}
	if got := morton3(0, 0, 1023); got != 0x09249249 {
		t.Errorf("morton3(0, 0, 1023) = %#x", got)
	}
	if bits.OnesCount32(morton3(1023, 1023, 1023)) != 30 {
		t.Error("morton3 of all ones is not 30 ones")
	}
}

func TestLBVHSecondCallDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	boxes := broadtest.Scenes["pile on planes"](r, 3000)
	moving := broadtest.RandomMoving(r, len(boxes), 0.9)
	for _, refit := range []float32{0, 1.5} {
		tr := New()
		tr.RefitGrowth = refit
		tr.Parallel, tr.Workers = broadtest.ParallelFor(2), 2
		out := tr.Pairs(boxes, moving, nil)
		allocs := testing.AllocsPerRun(10, func() { out = tr.Pairs(boxes, moving, out) })
		// parallelFor itself allocates (goroutines, closures); count the tree's own with it off.
		tr.Parallel, tr.Workers = nil, 1
		out = tr.Pairs(boxes, moving, out)
		own := testing.AllocsPerRun(10, func() { out = tr.Pairs(boxes, moving, out) })
		if own != 0 {
			t.Errorf("refit %v: steady-state Pairs allocates %.1f times per call, want 0 (with workers: %.1f)", refit, own, allocs)
		}
		if len(out) == 0 {
			t.Fatal("no pairs: the scene is wrong")
		}
	}
}

func TestLBVHPanicsOnShortMoving(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for len(moving) != len(boxes)")
		}
	}()
	New().Pairs(make([]geom.AABB, 3), make([]bool, 2), nil)
}

// Every level of the tree covers every body: each body's box lies inside some box of the level, the
// level count grows with depth up to the number of valid bodies, and the deepest level is the leaves.
func TestLevelBoxesCoverEveryBody(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	boxes := broadtest.Scenes["clustered"](r, 500)
	tr := New()
	tr.Pairs(boxes, nil, nil)
	depth := tr.Depth()
	if depth < 9 || depth > 64 { // at least log2(500)
		t.Fatalf("depth %d for 500 bodies", depth)
	}
	prev := 0
	for d := 0; d <= depth; d++ {
		level := tr.LevelBoxes(d, nil)
		if len(level) < prev || len(level) > len(boxes) {
			t.Fatalf("level %d has %d boxes after %d", d, len(level), prev)
		}
		prev = len(level)
		for i, b := range boxes {
			inside := false
			for _, l := range level {
				inside = inside || contains(l, b)
			}
			if !inside {
				t.Fatalf("level %d: body %d's box %v is in none of its %d boxes", d, i, b, len(level))
			}
		}
	}
	if prev != len(boxes) {
		t.Errorf("deepest level has %d boxes, want one per body (%d)", prev, len(boxes))
	}
	if got := New().LevelBoxes(3, nil); len(got) != 0 {
		t.Errorf("an unused tree gave %d boxes", len(got))
	}
}
