package gpu

import (
	"os"
	"strconv"
	"testing"

	"tumble/scenes"
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
	if 4*partly.Threads > awake.Threads || partly.Launches > awake.Launches+10 || partly.DownloadBytes > 2*awake.DownloadBytes {
		t.Errorf("a step with %d of %d asleep: %d threads, %d launches, %d bytes read back; awake: %d, %d, %d", asleep, n,
			partly.Threads, partly.Launches, partly.DownloadBytes, awake.Threads, awake.Launches, awake.DownloadBytes)
	}
}

// TestEmulatedPilePartlyAsleepCost measures (make gpu-sleep-cost, minutes) a step of pile100k, or of
// the preset TUMBLE_SLEEP_COST_SCENE names, on the emulated device, every kernel launched on its own:
// the CPU steps the pile under Jacobi with sleeping on for TUMBLE_SLEEP_COST_STEPS steps (122 by
// default, when most of pile100k sleeps), the emulated backend takes it over and steps it twice, and
// the second step is measured, then the same with sleeping turned off (every body awake, the same
// pile at the same moment).
func TestEmulatedPilePartlyAsleepCost(t *testing.T) {
	if os.Getenv("TUMBLE_SLEEP_COST") == "" {
		t.Skip("minutes: make gpu-sleep-cost runs it")
	}
	scene := os.Getenv("TUMBLE_SLEEP_COST_SCENE")
	if scene == "" {
		scene = "pile100k"
	}
	steps := 122
	if v := os.Getenv("TUMBLE_SLEEP_COST_STEPS"); v != "" {
		var err error
		if steps, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	sc, ok := scenes.Preset(scene)
	if !ok {
		t.Fatalf("no preset %s", scene)
	}
	w, err := sc.World(scenes.Options{Solver: sim.Jacobi})
	must(t, err)
	defer w.Close()
	set := w.Settings()
	set.Sleep = true
	w.SetSettings(set)
	for range steps {
		must(t, w.Step())
	}
	t.Logf("%s on the CPU: %d of %d bodies asleep at step %d", scene, w.Stats.Asleep, w.Bodies.Len(), steps)
	b := NewEmulated()
	b.NoGraphs = true
	must(t, w.SetBackend(b))
	defer w.SetBackend(nil)
	must(t, w.Step(), w.Step())
	partly, asleep := b.LastStep, w.Stats.Asleep
	t.Logf("sleeping on, %d of %d asleep: %+v", asleep, w.Bodies.Len(), partly)
	set.Sleep = false
	w.SetSettings(set)
	must(t, w.Step(), w.Step())
	awake := b.LastStep
	t.Logf("sleeping off, every body awake: %+v", awake)
	t.Logf("threads %.1f%%, launches %.1f%%, bytes read back %.1f%% of the awake step's",
		100*float64(partly.Threads)/float64(awake.Threads), 100*float64(partly.Launches)/float64(awake.Launches),
		100*float64(partly.DownloadBytes)/float64(awake.DownloadBytes))
}
