package sim

import (
	"math"
	"slices"
	"time"
)

// Coarse and fine grains. The grains (bodyGrain and the others, wideSplit, regionBodies)
// say how much work a loop must hold before it is split between the workers. Whether a smaller split
// pays depends on the machine more than on the scene: on the 2-core AMD machine, grains 8 times
// smaller and the pyramid's colours split by region made pyramid20 twice as slow on 2 workers
// (1.11 ms a step against 0.55), while on the GPU machine's 16 Intel cores the same binary ran the
// pyramid 10-20% faster on 2 to 16 workers (1.8-2.1 ms against 2.2-3.1), and with a colour pass as one
// hand-off (RunPhases) 1.5-1.7 ms on 16. So the world measures it: a
// trial of a few steps with each (grainTuner), then the faster for a while, then another trial.
// Which worker runs which chunk changes no result (TestGrainsChangeNoResult).

// The fine grains: the coarse ones divided by fineDiv, a colour's wide pass split when each of two
// workers gets fineWideSplit batches, and regions of at least fineRegionBodies bodies.
const (
	fineDiv          = 8
	fineWideSplit    = 4
	fineRegionBodies = 48
)

// The trials: trialBlocks blocks of trialBlock steps, coarse and fine by turns, the first step of
// each block not counted (it pays for the switch: new regions, rows in other caches). The first trial
// starts at step firstTrial; the next one minGap steps after a trial, the gap doubling up to maxGap
// while the trials keep the same grains. Fine grains win a trial when their median step is at least
// fineGain faster than the coarse ones'. A trial that would change the grains is run again at once,
// and the grains change only when the second agrees: on the 2-core machine one trial in a few
// dozen, caught by a slow phase, had fine grains win and left them on for minGap steps at twice
// the step time (the ragdoll on 2 workers).
//
// The bodies a trial counts are the awake ones. A world with fewer than minTrialBodies awake is not
// tried: a sleeping stack's steps took some 30 us with either grains, and its trials chose by noise
// (the window showed fine grains on the sleeping 20-box stack). A world woken with fine grains chosen
// so kept them until its next trial, up to maxGap steps, and on the 2-core machine they make
// pyramid20's step twice as long. So the grains a world chose while awake stay while it sleeps, and
// waking or falling asleep by half or more is tried again at once.
const (
	trialBlock     = 4
	trialBlocks    = 6
	firstTrial     = 16
	minGap         = 256
	maxGap         = 8192
	fineGain       = 0.05
	minTrialBodies = 32
)

// GrainTrial is the last trial of coarse against fine grains (World.Grains).
type GrainTrial struct {
	Fine     bool          // fine grains are in use (between trials)
	Trials   int           // trials run so far
	Coarse   time.Duration // the last trial's median step with coarse grains
	FineStep time.Duration // and with fine grains
}

// grainTuner chooses coarse or fine grains for a world of more than one worker by trials.
type grainTuner struct {
	held    bool  // the grains are held (World.SetGrains): no trials
	fine    bool  // the grains of the next step
	chosen  bool  // the grains the trials chose (fine: true)
	confirm bool  // the current trial repeats one that would change the grains
	step    int64 // steps seen
	next    int64 // the step the next trial starts at
	gap     int64 // steps from a trial to the next
	at      int   // steps into the current trial; -1 between trials
	bodies  int   // awake bodies at the last trial's start: twice or half as many start one
	samples [2][]time.Duration
	last    GrainTrial
}

func newGrainTuner() grainTuner {
	return grainTuner{next: firstTrial, gap: minGap / 2, at: -1} // doubled by the first trial's verdict
}

// observe takes a step's wall time (of a world of bodies awake bodies; stalled: a helper kept the
// step waiting, workpool.Pool.Stalls) and sets the grains of the next step. A stall under fine grains
// starts a trial at once: fine grains wait for every helper at each colour, so a machine whose cores
// are taken by other work may have made them the slower.
func (t *grainTuner) observe(d time.Duration, bodies int, stalled bool) {
	t.step++
	if t.held {
		return
	}
	if t.at >= 0 {
		if t.at%trialBlock != 0 { // the first step of a block pays for the switch
			t.samples[b2i(t.fine)] = append(t.samples[b2i(t.fine)], d)
		}
		t.at++
		if t.at == trialBlock*trialBlocks {
			t.decide()
		} else {
			t.fine = t.at/trialBlock%2 == 1
		}
		return
	}
	if bodies < minTrialBodies {
		return // asleep, or nearly: nothing to try, and the grains chosen awake stay
	}
	if t.step >= t.next || (t.bodies > 0 && (bodies > 2*t.bodies || 2*bodies < t.bodies)) || (stalled && t.chosen) {
		t.at, t.bodies, t.fine = 0, bodies, false
		t.samples[0], t.samples[1] = t.samples[0][:0], t.samples[1][:0]
	}
}

// decide ends a trial: the faster grains, and when the next trial starts.
func (t *grainTuner) decide() {
	c, f := medianDuration(t.samples[0]), medianDuration(t.samples[1])
	fine := float64(f) < (1-fineGain)*float64(c)
	t.last = GrainTrial{Fine: fine, Trials: t.last.Trials + 1, Coarse: c, FineStep: f}
	t.at = -1
	switch {
	case fine != t.chosen && !t.confirm: // run it again before changing
		t.confirm = true
		t.next = t.step
	case fine != t.chosen: // confirmed
		t.confirm = false
		t.chosen = fine
		t.gap = minGap
		t.next = t.step + t.gap
	default:
		t.confirm = false
		t.gap = min(2*t.gap, maxGap)
		t.next = t.step + t.gap
	}
	t.fine = t.chosen
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// medianDuration returns the median of d (sorting it).
func medianDuration(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// Grains returns the last trial of coarse against fine grains, and which are in use; the zero
// GrainTrial for a world of one worker (or before the first trial).
func (w *World) Grains() GrainTrial {
	p := w.pipe.work.pool
	if p == nil || p.p.Workers() < 2 {
		return GrainTrial{}
	}
	g := p.tune.last
	g.Fine = p.tune.chosen
	return g
}

// GrainMode is how a world of more than one worker chooses its grains (World.SetGrains).
type GrainMode int

// The grain modes.
const (
	GrainsByTrial GrainMode = iota // coarse or fine, by trials (the default)
	GrainsCoarse                   // coarse, held: no trials
	GrainsFine                     // fine, held: no trials
)

// setGrains sets how the pool chooses its grains (Options.Grains): by trials, which start again, or
// held coarse or fine. A pool of one worker has none.
func (p *pool) setGrains(m GrainMode) {
	if p == nil {
		return
	}
	switch m {
	case GrainsByTrial:
		p.tune = newGrainTuner()
	default:
		fine := m == GrainsFine
		p.tune = grainTuner{held: true, fine: fine, chosen: fine, next: math.MaxInt64, at: -1}
	}
}

// wideSplitNow is the grain of a colour's wide pass (wideSplit, or fineWideSplit under fine grains).
func (p *pipeline) wideSplitNow() int {
	if p.work.pool.isFine() {
		return fineWideSplit
	}
	return wideSplit
}

// regionBodiesNow is the fewest bodies a region holds (regionBodies, or fineRegionBodies).
func (p *pipeline) regionBodiesNow() int {
	if p.work.pool.isFine() {
		return fineRegionBodies
	}
	return regionBodies
}
