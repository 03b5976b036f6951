package gpu

import (
	"testing"

	"tumble/sim"
)

// restingGrid is a side x side grid of boxes resting apart on a ground box, each an island of its
// own, under Jacobi with sleeping on, stepped on the CPU until every box sleeps (settle) or not at all.
func restingGrid(t testing.TB, side int, settle bool) *sim.World {
	t.Helper()
	w := sim.NewWorld(sim.Settings{Solver: sim.Jacobi, Gravity: sim.Vec3{0, -9.81, 0}, Workers: 1, Sleep: true})
	g := ground(0.6, 0)
	_, err := w.AddBody(g)
	must(t, err)
	for i := range side {
		for k := range side {
			_, err := w.AddBody(box("", sim.Vec3{2 * float32(i), 0.5, 2 * float32(k)}, 0.5))
			must(t, err)
		}
	}
	for step := 0; settle && w.Stats.Asleep < side*side; step++ {
		if step == 200 {
			t.Fatalf("%d of %d boxes asleep after 200 steps", w.Stats.Asleep, side*side)
		}
		must(t, w.Step())
	}
	return w
}

// partlyAsleepStep returns what one step of restingGrid asked of the emulated device, every kernel
// launched on its own: awake (nothing asleep yet), and with a tenth of the boxes woken by a push
// after every box slept.
func partlyAsleepStep(t testing.TB, side int) (awake, partly Counts, asleep, n int) {
	t.Helper()
	measure := func(settle bool, push func(w *sim.World)) (Counts, int) {
		w := restingGrid(t, side, settle)
		defer w.Close()
		b := NewEmulated()
		b.NoGraphs = true
		must(t, w.SetBackend(b))
		defer w.SetBackend(nil)
		must(t, w.Step()) // the upload of the world, and the lists' first fit
		if push != nil {
			push(w)
			must(t, w.Step()) // the pushes' uploads and wakes
		}
		must(t, w.Step())
		return b.LastStep, w.Stats.Asleep
	}
	awake, _ = measure(false, nil)
	partly, asleep = measure(true, func(w *sim.World) {
		for i := 1; i < w.Bodies.Len(); i += 10 {
			must(t, w.SetVelocity(w.HandleAt(i), sim.Vec3{0, 0.5, 0}, sim.Vec3{}))
		}
	})
	return awake, partly, asleep, side * side
}

// TestEmulatedPartlyAsleepStepCostsItsAwakeShare: a step of 900 resting boxes with nine in ten asleep
// launches its kernels over the awake bodies and the step's pairs and rows, not the whole world: its
// threads are at most a quarter of an awake step's.
func TestEmulatedPartlyAsleepStepCostsItsAwakeShare(t *testing.T) {
	awake, partly, asleep, n := partlyAsleepStep(t, 30)
	t.Logf("awake step: %+v", awake)
	t.Logf("%d of %d asleep: %+v", asleep, n, partly)
	if asleep < n*8/10 {
		t.Fatalf("%d of %d boxes asleep after the push, want nine in ten", asleep, n)
	}
}
