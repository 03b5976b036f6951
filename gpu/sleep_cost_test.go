package gpu

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
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

// measuredStep steps w once on b with each kernel's threads counted, and returns the step's counts
// and its threads by kernel.
func measuredStep(t testing.TB, w *sim.World, b *Backend) (Counts, map[string]int64) {
	t.Helper()
	c := counterOf(b.dev)
	c.threads = map[string]int64{}
	defer func() { c.threads = nil }()
	must(t, w.Step())
	return b.LastStep, c.threads
}

// byKernel lists threads by kernel, the most first, with each one's share of total.
func byKernel(threads map[string]int64, total int64) string {
	names := make([]string, 0, len(threads))
	for k := range threads {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if threads[names[i]] != threads[names[j]] {
			return threads[names[i]] > threads[names[j]]
		}
		return names[i] < names[j]
	})
	var sb strings.Builder
	for _, k := range names {
		fmt.Fprintf(&sb, "\n\t%-28s %10d  %5.1f%%", k, threads[k], 100*float64(threads[k])/float64(max(total, 1)))
	}
	return sb.String()
}

// partlyAsleepStep returns what one step of restingGrid asked of the emulated device, every kernel
// launched on its own: awake (nothing asleep yet), and with a tenth of the boxes woken by a push
// after every box slept.
func partlyAsleepStep(t testing.TB, side int) (awake, partly Counts, awakeK, partlyK map[string]int64, asleep, n int) {
	t.Helper()
	measure := func(settle bool, push func(w *sim.World)) (Counts, map[string]int64, int) {
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
		c, k := measuredStep(t, w, b)
		return c, k, w.Stats.Asleep
	}
	awake, awakeK, _ = measure(false, nil)
	partly, partlyK, asleep = measure(true, func(w *sim.World) {
		for i := 1; i < w.Bodies.Len(); i += 10 {
			must(t, w.SetVelocity(w.HandleAt(i), sim.Vec3{0, 0.5, 0}, sim.Vec3{}))
		}
	})
	return awake, partly, awakeK, partlyK, asleep, side * side
}

// TestEmulatedPartlyAsleepStepCostsItsAwakeShare: a step of 900 resting boxes with nine in ten asleep
// launches its kernels over the awake bodies and the step's pairs and rows, not the whole world: its
// threads are at most 16.5% of an awake step's (16.0% measured). The solver's, the narrow phase's and
// the slept points' kernels take about 12% of the awake step's threads at their grids' granularity:
// the body kernels one block of 128 threads over the 90 awake boxes against eight over the 900
// (12.5%), the per-manifold ones the lists' least capacity, listFloor (256) rows, against about 1,850
// (13.8%). The broad phase's and the sleep stage's launches over the awake part take a block each
// whatever their size (1.5%), the radix sorts' and scans' least grids 2.1%, and the waking's flush,
// the one launch left over every body, 0.3%.
func TestEmulatedPartlyAsleepStepCostsItsAwakeShare(t *testing.T) {
	awake, partly, awakeK, partlyK, asleep, n := partlyAsleepStep(t, 30)
	t.Logf("awake step: %+v%s", awake, byKernel(awakeK, awake.Threads))
	t.Logf("%d of %d asleep: %+v%s", asleep, n, partly, byKernel(partlyK, partly.Threads))
	if asleep < n*8/10 {
		t.Fatalf("%d of %d boxes asleep after the push, want nine in ten", asleep, n)
	}
	if 1000*partly.Threads > 165*awake.Threads || partly.Launches > awake.Launches+10 || partly.DownloadBytes > 2*awake.DownloadBytes {
		t.Errorf("a step with %d of %d asleep: %d threads, %d launches, %d bytes read back; awake: %d, %d, %d", asleep, n,
			partly.Threads, partly.Launches, partly.DownloadBytes, awake.Threads, awake.Launches, awake.DownloadBytes)
	}
}

// TestEmulatedPilePartlyAsleepCost measures (make gpu-sleep-cost, minutes) a step of pile100k, or of
// the preset or scene file TUMBLE_SLEEP_COST_SCENE names, on the emulated device, every kernel launched on its own:
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
		var err error
		if sc, err = scenes.Load(scene); err != nil {
			t.Fatal(err)
		}
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
	must(t, w.Step())
	partly, partlyK := measuredStep(t, w, b)
	asleep := w.Stats.Asleep
	t.Logf("sleeping on, %d of %d asleep: %+v%s", asleep, w.Bodies.Len(), partly, byKernel(partlyK, partly.Threads))
	set.Sleep = false
	w.SetSettings(set)
	must(t, w.Step())
	awake, awakeK := measuredStep(t, w, b)
	t.Logf("sleeping off, every body awake: %+v%s", awake, byKernel(awakeK, awake.Threads))
	t.Logf("threads %.1f%%, launches %.1f%%, bytes read back %.1f%% of the awake step's",
		100*float64(partly.Threads)/float64(awake.Threads), 100*float64(partly.Launches)/float64(awake.Launches),
		100*float64(partly.DownloadBytes)/float64(awake.DownloadBytes))
}
