package sim

import (
	"testing"
	"time"
)

// forceGrains keeps w's grains coarse or fine, with no trials.
func forceGrains(w *World, fine bool) {
	o := w.Options()
	o.Grains = map[bool]GrainMode{false: GrainsCoarse, true: GrainsFine}[fine]
	if err := w.SetOptions(o); err != nil {
		panic(err)
	}
}

// mustOptions sets w's options, failing the test where the build or CPU cannot run them.
func mustOptions(t testing.TB, w *World, o Options) {
	t.Helper()
	if err := w.SetOptions(o); err != nil {
		t.Fatal(err)
	}
}

// Fine grains split the loops and the colours' wide passes into smaller chunks, coarse ones hardly at
// all, and neither changes a result: a 20-row pyramid (its colours of about 100 manifolds split by
// region under fine grains only), chains of ball joints and tangles of wide and other joints on the
// ground (both run by island under fine grains, islands.go), on 4 workers with coarse grains, with
// fine grains and with trials switching between them, step for step bit for bit as on 1 worker.
func TestGrainsChangeNoResult(t *testing.T) {
	build := map[string]func(s Settings) *World{
		"pyramid": func(s Settings) *World { return pyramidWorld(t, s, 20) },
		"chains":  func(s Settings) *World { return chainsWorld(t, s, 12, 24) },
		"falling": func(s Settings) *World { // no constraint for the first steps, then islands
			w := gravityWorld(s)
			groundPlane(t, w, 0.6, 0)
			for k := range 40 { // enough awake bodies for a trial
				mustAdd(t, w, BodyDef{Shape: boxShape(0.2, 0.2, 0.2), Position: Vec3{0.5 * float32(k), 0.6, 0}, Mass: 1})
			}
			return w
		},
		"tangles": func(s Settings) *World { // islands of wide and other joints, with contacts
			w := gravityWorld(s)
			groundPlane(t, w, 0.6, 0)
			for k := range 8 {
				z := 3 * float32(k)
				addTangle(t, w, z)
				for i := range 3 { // a stack: contacts of several colours
					mustAdd(t, w, BodyDef{Shape: boxShape(0.2, 0.2, 0.2), Position: Vec3{4, 0.2 + 0.4*float32(i), z}, Mass: 1})
				}
			}
			return w
		},
	}
	for name, make := range build {
		one := make(Settings{Workers: 1})
		coarse, fine, tried := make(Settings{Workers: 4}), make(Settings{Workers: 4}), make(Settings{Workers: 4})
		forceGrains(coarse, false)
		forceGrains(fine, true)
		tried.pipe.work.pool.tune = newGrainTuner()
		tried.pipe.work.pool.tune.next = 2 // a trial right away
		split, islands, fineHanded, coarseHanded, switched := false, false, 0, 0, 0
		for step := range 150 {
			for _, w := range []*World{one, coarse, fine, tried} {
				if err := w.Step(); err != nil {
					t.Fatal(err)
				}
			}
			split = split || fine.pipe.graph.nRegions > 1
			islands = islands || fine.pipe.islands.on
			fineHanded += fine.Stats.Handed
			coarseHanded += coarse.Stats.Handed
			if step > 0 && tried.Stats.FineGrains {
				switched++
			}
			want := &one.Bodies
			for _, w := range []*World{coarse, fine, tried} {
				for i := range want.Position {
					b := &w.Bodies
					if b.Position[i] != want.Position[i] || b.Rotation[i] != want.Rotation[i] ||
						b.Velocity[i] != want.Velocity[i] || b.AngularVelocity[i] != want.AngularVelocity[i] {
						t.Fatalf("%s, step %d: body %d differs on 4 workers (fine grains %v) from 1 worker",
							name, step, i, w.Stats.FineGrains)
					}
				}
			}
		}
		small := name == "tangles" || name == "falling" // too small to split but by island
		if fineHanded <= coarseHanded && (!small || WideAvailable()) {
			t.Errorf("%s: fine grains handed %d loops to the helpers, coarse %d: want more", name, fineHanded, coarseHanded)
		}
		if name == "pyramid" && !split {
			t.Errorf("pyramid: fine grains never split a colour by region")
		}
		if name != "pyramid" && WideAvailable() && !islands {
			t.Errorf("%s: fine grains never ran the passes by island", name)
		}
		if switched == 0 {
			t.Errorf("%s: the trial never ran a step with fine grains", name)
		}
		for _, w := range []*World{one, coarse, fine, tried} {
			w.Close()
		}
	}
}

// A trial runs blocks of coarse and fine steps by turns, counts all but each block's first step, and
// has fine grains win when their median step is fineGain faster. A trial that would change the grains
// runs again at once, and they change only when the second agrees. The next trial comes minGap steps
// after a change, the gap doubling while trials agree; a world whose awake bodies double, or a stall
// under fine grains, starts a trial at once, and a world asleep is not tried.
func TestGrainTunerChoosesTheFasterGrains(t *testing.T) {
	const coarseStep, fineStep = 2 * time.Millisecond, 1700 * time.Microsecond
	const trialSteps = trialBlock * trialBlocks
	g := newGrainTuner()
	// trial feeds steps until a trial ends, each taking coarse or fine time (fineFaster: fine are),
	// and returns the grains of its steps.
	trial := func(fineFaster bool, bodies int) (modes []bool) {
		trials := g.last.Trials
		for range 100000 {
			d := coarseStep
			if g.fine == fineFaster {
				d = fineStep
			}
			if g.at >= 0 {
				modes = append(modes, g.fine)
			}
			g.observe(d, bodies, false)
			if g.last.Trials > trials {
				return modes
			}
		}
		t.Fatal("no trial ended")
		return nil
	}
	modes := trial(true, 100)
	if g.step != firstTrial+trialSteps {
		t.Errorf("the first trial ended at step %d, want %d", g.step, firstTrial+trialSteps)
	}
	for i, fine := range modes {
		if want := i/trialBlock%2 == 1; fine != want {
			t.Fatalf("trial step %d: fine %v, want %v (blocks of %d by turns, coarse first)", i, fine, want, trialBlock)
		}
	}
	if g.fine || !g.last.Fine || g.last.FineStep != fineStep || g.last.Coarse != coarseStep || g.next != g.step {
		t.Errorf("fine grains faster in one trial: fine %v (want coarse until a second trial agrees), verdict %v, "+
			"medians fine %v coarse %v, next trial in %d steps (want 0)", g.fine, g.last.Fine, g.last.FineStep, g.last.Coarse, g.next-g.step)
	}
	end := g.step
	trial(true, 100)
	if !g.fine || g.step != end+1+trialSteps || g.next != g.step+minGap {
		t.Errorf("a second trial agreeing: fine %v, %d steps after the first, next in %d; want fine, %d, %d",
			g.fine, g.step-end, g.next-g.step, 1+trialSteps, minGap)
	}
	trial(true, 100)
	if !g.fine || g.next != g.step+2*minGap {
		t.Errorf("a third trial agreeing: fine %v, next in %d steps; want fine, %d", g.fine, g.next-g.step, 2*minGap)
	}
	// One trial that has coarse grains win, then one that has fine win: no change.
	trial(false, 100)
	if !g.fine || g.next != g.step {
		t.Errorf("coarse grains faster in one trial: fine %v, next trial in %d steps; want fine, 0", g.fine, g.next-g.step)
	}
	trial(true, 100)
	if !g.fine || g.next != g.step+4*minGap {
		t.Errorf("not confirmed: fine %v, next trial in %d steps; want fine, %d", g.fine, g.next-g.step, 4*minGap)
	}
	trial(false, 100)
	trial(false, 100)
	if g.fine || g.next != g.step+minGap {
		t.Errorf("coarse grains faster in two trials: fine %v, next in %d steps; want coarse, %d", g.fine, g.next-g.step, minGap)
	}
	// A gain under fineGain keeps coarse grains.
	g = newGrainTuner()
	for range firstTrial + trialSteps {
		d := coarseStep
		if g.fine {
			d = coarseStep * 98 / 100
		}
		g.observe(d, 100, false)
	}
	if g.last.Trials != 1 || g.last.Fine || g.fine || g.next != g.step+minGap {
		t.Errorf("fine grains 2%% faster: %d trials, verdict fine %v, fine %v, next in %d; want 1, coarse, coarse, %d",
			g.last.Trials, g.last.Fine, g.fine, g.next-g.step, minGap)
	}
	// A stall under coarse grains starts nothing; under fine grains, a trial at once.
	g.observe(coarseStep, 100, true)
	if g.at >= 0 {
		t.Errorf("a stall under coarse grains started a trial")
	}
	g.chosen, g.fine = true, true
	g.observe(fineStep, 100, true)
	if g.at != 0 {
		t.Errorf("a stall under fine grains: trial at %d, want one started", g.at)
	}
	g = newGrainTuner()
	for range firstTrial + trialSteps {
		g.observe(coarseStep, 100, false)
	}
	end = g.step
	g.observe(coarseStep, 250, false) // the world grew past twice its bodies: a trial starts
	if g.at != 0 || g.step-end != 1 {
		t.Errorf("after the bodies more than doubled: trial at %d, %d steps after the last", g.at, g.step-end)
	}
	// A world asleep (fewer than minTrialBodies awake) is not tried, however long it sleeps, and keeps
	// the grains it chose awake; waking past twice the bodies of its last trial starts one at once.
	g = newGrainTuner()
	trial(true, 100)
	trial(true, 100)
	if !g.fine {
		t.Fatal("two trials with fine grains faster left coarse grains")
	}
	trials := g.last.Trials
	for range 4 * maxGap {
		g.observe(fineStep/50, minTrialBodies-1, false) // a sleeping world: short steps whatever the grains
		if g.at >= 0 {
			t.Fatalf("a trial started with %d bodies awake", minTrialBodies-1)
		}
	}
	if !g.fine || g.last.Trials != trials {
		t.Errorf("asleep: fine %v, %d trials; want the grains chosen awake and no trial", g.fine, g.last.Trials-trials)
	}
	g.observe(fineStep, 100, false) // woken: a trial is due (its gap went by while it slept)
	if g.at != 0 {
		t.Errorf("woken after its gap went by: trial at %d, want one started", g.at)
	}
	g = newGrainTuner()
	for range firstTrial + trialSteps {
		g.observe(coarseStep, 40, false)
	}
	g.observe(coarseStep, 100, false) // 40 of 100 bodies were awake at the last trial: all woke
	if g.at != 0 {
		t.Errorf("after the awake bodies more than doubled: trial at %d, want one started", g.at)
	}
}

// Grains held by Options.Grains stay as set: no trial starts, not even after a stall or a doubling of the
// awake bodies; GrainsByTrial starts the trials again.
func TestHeldGrainsRunNoTrial(t *testing.T) {
	w := gravityWorld(Settings{Workers: 2})
	defer w.Close()
	for _, fine := range []bool{false, true} {
		forceGrains(w, fine)
		g := &w.pipe.work.pool.tune
		for k := range 3000 {
			g.observe(time.Millisecond, 100+100*(k%2), k%7 == 0)
			if g.fine != fine || g.at >= 0 {
				t.Fatalf("held fine %v: step %d ran fine %v, trial at %d", fine, k, g.fine, g.at)
			}
		}
	}
	mustOptions(t, w, Options{Grains: GrainsByTrial})
	g := &w.pipe.work.pool.tune
	for range firstTrial + 1 {
		g.observe(time.Millisecond, 100, false)
	}
	if g.at < 0 {
		t.Error("GrainsByTrial: no trial began")
	}
}
