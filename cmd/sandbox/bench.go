package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"tumble/gpu"
	"tumble/sim"
	"tumble/sim/broad/bvh"
)

// Steps 60..599 of a 600-step run are the benchmark protocol's window: the first second (at 60 Hz) of
// settling is left out.
const protoFirst, protoSteps = 60, 600

// stepSettings returns the settings the world's steps run with: the world's own where the CPU stages
// step it, else its settings resolved for its backend's capabilities (the backend's default solver
// where the scene names none, with that solver's sub-steps, iterations and stiffness).
func stepSettings(w *sim.World) sim.Settings {
	if w.Backend() == nil {
		return w.Resolved()
	}
	return sim.ResolveFor(w.Capabilities(), w.Settings())
}

// cmdBench is "sandbox bench": step a scene N times and print the time per step, by stage.
func cmdBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var wf worldFlags
	wf.register(fs)
	steps := fs.Int("steps", protoSteps, "number of timed steps")
	warmup := fs.Int("warmup", 0, "untimed steps before the timed ones")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed steps to this file (go tool pprof)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if !wf.check("bench", stderr) {
		return exitUsage
	}
	if *steps < 1 || *warmup < 0 {
		fmt.Fprintf(stderr, "sandbox bench: want -steps >= 1 and -warmup >= 0, got %d and %d\n", *steps, *warmup)
		return exitUsage
	}
	_, w, err := wf.open(stderr)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	backend := "cpu"
	if b := w.Backend(); b != nil {
		if t, ok := b.(interface{ SetTimed(bool) }); ok {
			t.SetTimed(true) // wait for the device after each stage, so the stages' times add up
		}
		backend = b.Name()
		defer b.Close()
	}

	prog := newProgress(stderr, "bench "+wf.scene, *warmup+*steps)
	for i := 1; i <= *warmup; i++ {
		if err := stepWorld(w); err != nil {
			prog.done()
			return fail(stderr, "%s: warm-up: %v", wf.scene, err)
		}
		prog.update(i)
	}
	var stages [sim.NumStages][]float64 // ms per timed step
	var bvhStages [bvh.NumStages][]float64
	rebuilds := 0
	kept := 0                            // timed steps that kept the last query's pairs
	partial, mostMoved := 0, 0           // of them, those that found some bodies' pairs again; the most such bodies
	handed := make([]float64, 0, *steps) // loops handed to the helper workers, per timed step
	fine := 0                            // timed steps run with fine grains (sim.World.Grains)
	byIsland, islandRegions := 0, 0      // timed steps whose sub-steps ran by island, and their most regions
	reused, made := 0, 0                 // manifolds over the timed steps: from the contact cache, in all
	stalls := 0                          // helpers that stalled over the timed steps
	gap := float32(0)                    // the joints' largest anchor gap over the timed steps (CPU backend)
	total := make([]float64, 0, *steps)
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		prog.done()
		return fail(stderr, "%v", err)
	}
	defer stopProfile()
	for i := 0; i < *steps; i++ {
		t0 := time.Now()
		err := stepWorld(w)
		total = append(total, ms(time.Since(t0)))
		if err != nil {
			prog.done()
			return fail(stderr, "%s: %v", wf.scene, err)
		}
		for s := range sim.NumStages {
			stages[s] = append(stages[s], ms(w.Stats.Timings[s]))
		}
		if w.Backend() == nil {
			gap = max(gap, w.MaxJointGap())
			handed = append(handed, float64(w.Stats.Handed))
			if w.Stats.FineGrains {
				fine++
			}
			if w.Stats.IslandRegions > 0 {
				byIsland++
				islandRegions = max(islandRegions, w.Stats.IslandRegions)
			}
			reused += w.Stats.Reused
			stalls += w.Stats.Stalls
			made += w.Stats.Manifolds
		}
		if w.Stats.PairsKept {
			kept++
			if w.Stats.Moved > 0 {
				partial++
				mostMoved = max(mostMoved, w.Stats.Moved)
			}
		}
		if b := &w.Stats.BVH; b.Used {
			for s := range bvh.NumStages {
				bvhStages[s] = append(bvhStages[s], ms(b.Stages[s]))
			}
			if b.Rebuilt {
				rebuilds++
			}
		}
		prog.update(*warmup + i + 1)
	}
	prog.done()
	// The device's counts: the last timed step's (waits after each stage, kernels launched one by one),
	// then one more step untimed, as run and the window step: one graph launch when steady.
	type counter interface{ StepCounts() gpu.Counts }
	var timedCounts, untimedCounts gpu.Counts
	if b, ok := w.Backend().(counter); ok {
		timedCounts = b.StepCounts()
		if t, ok := w.Backend().(interface{ SetTimed(bool) }); ok {
			t.SetTimed(false)
			if err := stepWorld(w); err != nil {
				return fail(stderr, "%s: the untimed step: %v", wf.scene, err)
			}
			untimedCounts = b.StepCounts()
			t.SetTimed(true)
		}
	}

	set := stepSettings(w)
	fmt.Fprintf(stdout, "scene %s: %d bodies, %d joints\n", wf.scene, w.Bodies.Len(), w.NumJoints())
	fmt.Fprintf(stdout, "solver %s, %s, broad phase %s, %d workers, backend %s\n",
		set.Solver, sim.SolverOf(set.Solver).Schedule(&set), set.Broadphase, set.Workers, backend)
	if sim.WidePasses(set.Solver) {
		fmt.Fprintf(stdout, "contact pass: %s\n", contactPass(w))
	}
	if set.DirectJoints && sim.PlanOf(set).Uses(sim.StageProject) {
		fmt.Fprintf(stdout, "joints' equality rows solved directly (directJoints)\n")
	}
	fmt.Fprintf(stdout, "%d timed steps after %d warm-up steps\n\n", *steps, *warmup)
	const row = "%-22s %14.4f %14.4f\n"
	fmt.Fprintf(stdout, "%-22s %14s %14s\n", "stage", "mean ms/step", "median ms/step")
	plan := sim.PlanOf(set)
	for s := range sim.NumStages {
		if (!plan.Uses(s) || s == sim.StageIslands) && mean(stages[s]) == 0 {
			continue // a stage this solver's plan does not run, or the island block, whose time is its stages'
		}
		fmt.Fprintf(stdout, row, s, mean(stages[s]), median(stages[s]))
		if s == sim.StageBroad && len(bvhStages[0]) > 0 {
			for b := range bvh.NumStages {
				fmt.Fprintf(stdout, row, "  lbvh "+b.String(), mean(bvhStages[b]), median(bvhStages[b]))
			}
		}
	}
	fmt.Fprintf(stdout, row, "total (wall)", mean(total), median(total))
	st := w.Stats
	fmt.Fprintf(stdout, "\nlast step: %d bodies, %d pairs, %d manifolds, %d contacts",
		w.Bodies.Len(), st.Pairs, st.Manifolds, st.Contacts)
	if set.Sleep {
		fmt.Fprintf(stdout, ", %d asleep", st.Asleep)
	}
	fmt.Fprintln(stdout)
	if w.Backend() == nil && made > 0 {
		if !w.ContactCacheOn() {
			fmt.Fprintf(stdout, "contact cache: off (every touching pair tested afresh each step)\n")
		} else {
			fmt.Fprintf(stdout, "contact cache: %.1f%% of the timed steps' manifolds reused their points\n", 100*float64(reused)/float64(made))
		}
	}
	if w.NumJoints() > 0 && w.Backend() == nil {
		fmt.Fprintf(stdout, "joints: largest anchor gap (ball, hinge, fixed) over the timed steps %.3g m\n", gap)
	}
	if set.Workers > 1 && len(handed) > 0 {
		// A loop goes to the helpers only when each of two gets enough work to pay for the hand-off, so
		// under coarse grains a small scene runs on the calling goroutine at any worker count; the
		// world's trials say whether fine grains pay on this machine (sim.World.Grains).
		if mx := slices.Max(handed); mx == 0 {
			fmt.Fprintf(stdout, "workers: every loop of every timed step ran on the calling goroutine (too small to hand out)\n")
		} else {
			fmt.Fprintf(stdout, "workers: %.0f loops a step handed to the %d helpers (median; at most %.0f)\n", median(handed), set.Workers-1, mx)
		}
		if g := w.Grains(); g.Trials > 0 {
			fmt.Fprintf(stdout, "workers: fine grains on %d of %d timed steps; the last of %d trials took %.3f ms a step with fine grains, %.3f with coarse\n",
				fine, *steps, g.Trials, float64(g.FineStep.Microseconds())/1000, float64(g.Coarse.Microseconds())/1000)
		}
		if byIsland > 0 {
			fmt.Fprintf(stdout, "workers: the sub-steps ran island by island on %d of %d timed steps, in up to %d regions (-islands)\n", byIsland, *steps, islandRegions)
		}
		if stalls > 0 {
			fmt.Fprintf(stdout, "workers: a helper stalled %d times over the timed steps (its core taken away); after each, that helper sat out the loops for a while\n", stalls)
		}
	}
	if w.Backend() == nil {
		fmt.Fprintf(stdout, "broad phase: queried on %d of %d timed steps; the others kept the last query's pairs, grown by %g m",
			*steps-kept, *steps, sim.FatMargin)
		if partial > 0 {
			fmt.Fprintf(stdout, ", %d of them finding again those of the bodies that had left their grown boxes (at most %d a step)", partial, mostMoved)
		}
		fmt.Fprintln(stdout)
	}
	if q := len(bvhStages[0]); q > 0 {
		if rebuilds == q {
			fmt.Fprintf(stdout, "lbvh: rebuilt on each of its %d queries (never refitted)\n", q)
		} else {
			fmt.Fprintf(stdout, "lbvh: rebuilt on %d of its %d queries, refitted on the others\n", rebuilds, q)
		}
	}
	if _, ok := w.Backend().(counter); ok {
		// The last timed step's: its waits are the timing's, one per stage. Then the untimed step's.
		for _, r := range []struct {
			what string
			c    gpu.Counts
		}{{"last timed step", timedCounts}, {"one untimed step", untimedCounts}} {
			c := r.c
			fmt.Fprintf(stdout, "device, %s: %d launches (%d of them graphs), %d waits, %d read-backs (%d bytes), "+
				"%d uploads (%d bytes), %d copies and %d clears on the device outside graphs\n", r.what, c.Launches,
				c.Graphs, c.Syncs, c.Downloads, c.DownloadBytes, c.Uploads, c.UploadBytes, c.DeviceCopies, c.Zeroes)
		}
	}
	if b, ok := w.Backend().(interface{ QueryWalks() (gpu.Walks, error) }); ok {
		if q, err := b.QueryWalks(); err != nil {
			fmt.Fprintf(stdout, "lbvh query walks: %v\n", err)
		} else {
			fmt.Fprintln(stdout, q)
		}
	}
	if b, ok := w.Backend().(interface{ RerunCount() int }); ok && b.RerunCount() > 0 {
		fmt.Fprintf(stdout, "steps re-run because a list overflowed: %d\n", b.RerunCount())
	}
	if b, ok := w.Backend().(interface {
		MeasureFloor(reps int) (gpu.Floor, error)
	}); ok {
		if f, err := b.MeasureFloor(20); err != nil {
			fmt.Fprintf(stdout, "bandwidth floor: %v\n", err)
		} else {
			fmt.Fprintln(stdout, f)
		}
	}
	if *steps >= protoSteps {
		fmt.Fprintf(stdout, "median ms/step over steps %d..%d: %.4f\n",
			protoFirst, protoSteps-1, median(total[protoFirst:protoSteps]))
	}
	return exitOK
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	n := len(y)
	if n%2 == 1 {
		return y[n/2]
	}
	return (y[n/2-1] + y[n/2]) / 2
}

// contactPass names the contact pass PGS runs in this build: the wide one (16 manifolds per AVX-512
// instruction or 8 per AVX2 one, GOEXPERIMENT=simd, with the wide joint pass beside it) or the scalar
// one.
func contactPass(w *sim.World) string {
	switch {
	case !sim.WideAvailable():
		return "scalar (this build has no wide pass: build with GOEXPERIMENT=simd, as make build does)"
	case w.Options().Scalar:
		return "scalar (-scalar)"
	}
	lanes, about := w.ContactLanes()
	if lanes == 16 {
		// the 16-lane kernels take a batch of more than eight joints in one go, the 8-lane ones the rest
		return "wide, " + about + " (-lanes); joints 16 ball joints, hinges or pistons at once (8 in a batch of eight or fewer)"
	}
	return "wide, " + about + " (-lanes); joints 8 ball joints, hinges or pistons at once"
}
