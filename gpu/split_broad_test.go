package gpu

import (
	"slices"
	"testing"

	"tumble/sim"
)

// stagePairs reads back the sorted pair list of s (at most its capacity).
func stagePairs(t *testing.T, d device, s *broadStage) (pairs []int32, count int) {
	t.Helper()
	var c [1]uint32
	must(t, downloadSlice(d, c[:], s.count.p))
	count = int(c[0])
	pairs = make([]int32, 2*min(count, s.capacity))
	if len(pairs) > 0 {
		must(t, downloadSlice(d, pairs, s.pairs.p))
	}
	return pairs, count
}

// TestSplitBroadPhaseFindsTheWholeTreesPairs: with some bodies asleep, the broad phase over the awake
// bodies' tree and the kept tree of the resting ones (Backend.splitBounds, splitPairs) gives the very
// pair list one tree over every body gives, step after step, while dropped boxes wake the sleeping
// boxes they land on (bodies that leave the resting tree without its being built again) and others
// fall asleep (after which it is built again).
func TestSplitBroadPhaseFindsTheWholeTreesPairs(t *testing.T) {
	b := NewEmulated()
	b.NoGraphs = true
	checkSplitBroadPhase(t, b)
}

// checkSplitBroadPhase is TestSplitBroadPhaseFindsTheWholeTreesPairs on the backend b.
func checkSplitBroadPhase(t *testing.T, b *Backend) {
	w := restingGrid(t, 6, true)
	defer w.Close()
	// A box on the corner box, and one across the four boxes around (1, 1): the boxes are 2 m apart,
	// 1 m wide.
	_, err := w.AddBody(box("drop", sim.Vec3{0, 2.2, 0}, 0.5))
	must(t, err)
	_, err = w.AddBody(box("across", sim.Vec3{1, 2.5, 1}, 0.7))
	must(t, err)
	must(t, w.SetBackend(b))
	defer w.SetBackend(nil)
	kept, woke, compared := 0, 0, 0
	last := w.Stats.Asleep
	for step := range 80 {
		must(t, w.Step())
		if w.Stats.Asleep < last {
			woke++
		}
		last = w.Stats.Asleep
		if b.asleep == 0 || b.pushedWake {
			continue
		}
		if b.restOK {
			kept++
		}
		// The split broad phase at the state the step left, then one tree over every body.
		b.split, b.woken, b.moving.on = true, 0, false
		must(t, b.splitBounds(), b.splitPairs())
		split, nSplit := stagePairs(t, b.dev, &b.broad)
		var whole broadStage
		s := &b.consts.s
		must(t, whole.reserve(b.dev, b.bodies.n, b.broad.capacity),
			whole.bounds(b.dev, &b.bodies, s.Dt, s.Speculative, 0, 0, 0), whole.pairsOf(b.dev, b.bodies.n))
		all, nAll := stagePairs(t, b.dev, &whole)
		whole.release(b.dev)
		if nSplit != nAll || !slices.Equal(split, all) {
			t.Fatalf("step %d (%d asleep, resting tree of %d): %d pairs split %v, %d from one tree %v", step,
				b.asleep, b.rest.leaves.n, nSplit, split, nAll, all)
		}
		compared++
	}
	t.Logf("%d steps compared, %d with the resting tree kept, %d in which bodies woke", compared, kept, woke)
	if kept == 0 || woke == 0 || compared < 50 {
		t.Errorf("%d steps compared, %d with the resting tree kept, %d in which bodies woke: want the kept tree and wakes", compared, kept, woke)
	}
}
