package sim

import (
	"slices"
	"testing"

	"tumble/sim/broad"
)

// TestKeptPairsAreTheBoxesOwnPairs: every step's pairs, kept from an earlier query of grown boxes or
// queried afresh, are exactly the pairs the brute-force broad phase finds for the step's own boxes,
// in the same order: a settling pile of boxes beside a resting pyramid, a box pushed through the
// pyramid's side so that a few bodies leave their grown boxes (their pairs found again, the others'
// kept), and the pile thrown up, so that more than MaxMoved bodies leave them at every step and the
// queries go without a margin (FatRetry).
func TestKeptPairsAreTheBoxesOwnPairs(t *testing.T) {
	w := pyramidWorld(t, Settings{}, 6)
	defer w.Close()
	for k := range MaxMoved + 8 {
		mustAdd(t, w, BodyDef{Shape: boxShape(0.2, 0.2, 0.2), Position: Vec3{6 + 0.5*float32(k%4), 0.3 + 0.5*float32(k/8), 0.5 * float32(k/4%2)},
			Friction: 0.5})
	}
	ram := mustAdd(t, w, BodyDef{Shape: boxShape(0.3, 0.3, 0.3), Position: Vec3{-6, 0.3, 0}, Friction: 0.5})
	p := &w.pipe
	kept, partial, queried, bare := 0, 0, 0, 0
	var want []broad.Pair
	for step := range 400 {
		if step == 200 {
			if err := w.SetVelocity(ram, Vec3{8, 0, 0}, Vec3{}); err != nil {
				t.Fatal(err)
			}
		}
		if step == 300 {
			for i := range w.Bodies.Len() {
				if w.Bodies.Shape[i].HalfExtents[0] == 0.2 {
					w.Bodies.Velocity[i] = Vec3{0, 6, 0}
				}
			}
		}
		run(t, w, 1)
		want = broad.Brute{}.Pairs(p.bounds.boxes, p.bounds.dynamic, want[:0])
		if !slices.Equal(p.broad.pairs, want) {
			t.Fatalf("step %d (pairs kept %v): %d pairs, the boxes' own are %d", step, w.Stats.PairsKept, len(p.broad.pairs), len(want))
		}
		if w.Stats.PairsKept {
			kept++
			if w.Stats.Moved > 0 {
				partial++
			}
		} else {
			queried++
			if p.broad.fatMargin == 0 {
				bare++
			}
		}
	}
	if kept < 100 || partial < 10 || queried < 10 || bare < 10 {
		t.Errorf("%d steps kept their pairs (%d finding some bodies' again), %d queried (%d without a margin): the test "+
			"wants each many times", kept, partial, queried, bare)
	}
	t.Logf("%d steps kept their pairs (%d finding some bodies' again), %d queried (%d without a margin)", kept, partial,
		queried, bare)
}
