package gpu

import (
	"fmt"
	"math"
	"slices"
	"time"
	"unsafe"

	"tumble/sim"
	"tumble/sim/broad/bvh"
	"tumble/sim/geom"
)

// Backend is the CUDA backend: a sim.Backend that keeps the world's body state in device memory and
// runs every stage of the step as kernels, one launch sequence per step with no read-back inside it,
// recorded and run as one graph (graph.go) unless NoGraphs or Timed is set.
// On the emulated device (NewEmulated) the same sequence runs the same kernels compiled for the CPU.
//
// A step is optimistic about its fixed-capacity lists (pairs, contacts) and, under PGS, about its
// colours (gs.go): at its end one small read-back brings the counters, and when a list overflowed or
// the passes launched too few colours, the state saved at the start of the step is put back, the lists
// or the colours grow to fit and the step runs again. The same read-back carries the blow-up check.
type Backend struct {
	dev    device
	graphs *graphing // dev: records each step's launches and runs them as one graph
	bodies bodyBuffers
	inst   instanceWriter // WriteInstances' scratch (transforms.go)
	dbg    debugWriter    // WriteDebugLines' scratch (debug.go)
	// closers run first in Close: interop registrations must go before the context does.
	closers []func()
	saved   bodyBuffers // pos, rot, vel, omega, invIW at the start of the step, for a re-run
	// savedJoints is the joints' array (accumulated impulses) at the start of the step, for a re-run.
	savedJoints buffer
	stats       buffer // uint32: contact points, then the four counters tb_stats_gather packs
	broad       broadStage
	narrow      narrowStage
	solver      solverStage
	joints      jointStage
	sleep       sleepStage
	// slept keeps the sleeping islands' contact points for Contacts (slept.go); savedSlept is its count
	// at the start of the step, for a re-run.
	slept      sleptStage
	savedSlept buffer
	// moving lists the bodies a step moves when some body sleeps (awake.go); woken counts the bodies
	// the step's rounds of waking woke, for the list's estimate.
	moving awakeList
	woken  int
	// pushedWake: this step's edits pushed a body, whose island woke on the device by a size the
	// host does not know (the list's estimate is then every body).
	pushedWake bool
	// savedSleep is the sleeping state at the start of the step (island labels, rest times), for a
	// re-run; the bodies' flags, which carry TB_ASLEEP, are kept in saved.flags.
	savedSleep [2]buffer
	// kinematic lists the moving kinematic bodies (int32 dense indices, nKinematic of them), whose boxes
	// wake what they reach; their velocities change only by edits, so the list is made at apply.
	kinematic  buffer
	nKinematic int
	// asleep and awake count the sleeping and the awake dynamic bodies at the end of the last step (the
	// step's read-back; a split step's counts the bodies of its awake list that fell asleep, which the
	// host adds to those asleep before less those woken), or as the host's state uploaded since says;
	// kinematics counts the kinematic bodies, moving or not (with awake and the bodies woken since,
	// the length of the awake list).
	asleep, awake, kinematics int
	// split: this step's broad phase runs over the awake bodies, with the resting bodies' tree rest
	// (broad.go's restTree), which restOK says holds every body that rests now: it is built at a split
	// step without it and kept until an edit, a push or a body falling asleep changes the set of
	// resting bodies. awakeLeaves are the awake tree's leaves.
	split       bool
	rest        restTree
	restOK      bool
	awakeLeaves part
	// listKept: the awake list holds the bodies the last step left awake (it was a split step, after
	// which no body fell asleep, no edit came, and nothing woke but in its rounds, which made the list
	// again); listReused: this attempt takes it as it is instead of making it over every body.
	listKept, listReused bool

	nJoints             int
	pairCap, contactCap int
	consts              stepConsts
	plan                sim.Plan     // the step's stages, for the settings planFor
	planFor             sim.Settings // resolved
	host                state        // Pull's staging
	one                 few          // PullStates' and the impulses' staging

	// Pulled counts the bodies whose state was read back to the host (Pull: all of them; PullStates:
	// those asked for), for tests and the curious.
	Pulled int

	// Timed makes Step wait for the device after each stage so that World.Stats.Timings splits the
	// step by stage (benchmarks); otherwise only the whole step is timed.
	Timed bool
	// NoGraphs launches a step's kernels one by one instead of as one graph (graph.go): to compare.
	NoGraphs bool
	// NoSmall keeps a small world's sub-step loop on the per-pass kernels and its broad-phase sorts on
	// the multi-block ones instead of the small path's one launch each (small.go): to compare. A timed
	// step (Timed) keeps them too.
	NoSmall bool
	// Reruns counts steps that ran again because a list overflowed or, under PGS, the passes launched
	// fewer colours than the step needed.
	Reruns int
	// Idle counts the steps that launched nothing because every dynamic body slept, nothing was
	// edited, and no joint or moving kinematic body could wake or move anything.
	Idle int
	// LastStep is what the last Step asked of the device (launches, waits, copies), from the start of
	// Step to its return: the edits it applied, every attempt, the read-back.
	LastStep Counts
}

// StepCounts returns LastStep.
func (b *Backend) StepCounts() Counts { return b.LastStep }

// DeviceCounts returns everything asked of the device since the backend opened: the steps' work and
// the read-backs between steps (Pull, PullStates, Contacts, ContactsOf, JointForces), which a caller
// compares before and after what it measures, such as a frame of the panel.
func (b *Backend) DeviceCounts() Counts {
	if c := counterOf(b.dev); c != nil {
		return c.c
	}
	return Counts{}
}

var (
	_ sim.Backend          = (*Backend)(nil)
	_ sim.JointForceReader = (*Backend)(nil)
	_ sim.StateReader      = (*Backend)(nil)
	_ sim.ContactReader    = (*Backend)(nil)
)

// New returns the backend on the first CUDA device. A build without the cuda tag returns ErrNoCUDA.
func New() (*Backend, error) {
	d, err := openCUDA(0)
	if err != nil {
		return nil, err
	}
	return newBackend(d), nil
}

func newBackend(d device) *Backend {
	g := newGraphing(&counting{device: d})
	return &Backend{dev: g, graphs: g}
}

// NewEmulated returns the backend on the kernel emulator: the CUDA step's kernels compiled for the
// CPU, one thread at a time. It is slow (tens of times slower than the CPU backend) and exists to test
// and inspect the GPU code path on machines without a GPU.
func NewEmulated() *Backend { return newBackend(emulated{}) }

// Name says which device runs the steps.
func (b *Backend) Name() string { return "cuda (" + b.dev.Name() + ")" }

// capabilities are the CUDA backend's: boxes, spheres, capsules, planes, convex hulls and static
// triangle meshes (the kinds of layout.cuh and of the narrow phase's routines), the Jacobi solver (the
// default) and PGS with their joints solved iteratively, sleeping (sleep.go), its LBVH rebuilt every
// step.
var capabilities = sim.Capabilities{
	Name:        "the CUDA backend",
	Shapes:      []geom.Kind{geom.Box, geom.Sphere, geom.Capsule, geom.Plane, geom.ConvexHull, geom.TriMesh},
	Solvers:     []sim.SolverKind{sim.Jacobi, sim.PGS},
	Sleep:       true,
	Broadphases: []sim.BroadphaseKind{sim.LBVH},
	Note:        "the LBVH is rebuilt each step",
}

// Capabilities says what the backend runs (sim.Backend): boxes, spheres, capsules, planes, convex hulls
// and static triangle meshes; it solves with Jacobi or PGS, puts quiet islands to sleep, and always uses
// its LBVH.
func (b *Backend) Capabilities() sim.Capabilities { return capabilities }

// settings resolves the world's settings for this backend.
func settings(w *sim.World) (sim.Settings, error) {
	if err := sim.CheckFor(capabilities, w.Settings()); err != nil {
		return sim.Settings{}, err
	}
	return sim.ResolveFor(capabilities, w.Settings()), nil
}

// broadStages maps the broad stage's stage names to the LBVH's (sim/broad/bvh) stages for World.Stats.
var broadStages = map[string]bvh.Stage{"scene": bvh.StageBounds, "morton": bvh.StageMorton, "sort": bvh.StageSort,
	"build": bvh.StageBuild, "fit": bvh.StageFit, "query": bvh.StageQuery, "pairs": bvh.StagePairs}

// Step advances w by one step on the device: it runs the stages of the world's Plan (sim.PlanOf), the
// same list the CPU runs, each as kernel launches, and reports the statistics, the joints that broke
// and a blow-up in r.
func (b *Backend) Step(w *sim.World, r *sim.StepReport) (err error) {
	start := time.Now()
	if c := counterOf(b.dev); c != nil {
		before := c.c
		defer func() { b.LastStep = c.c.since(before) }()
	}
	// The step's device work is recorded and runs as one graph at its read-back (graph.go).
	if err := b.graphs.record(!b.NoGraphs && !b.Timed); err != nil {
		return err
	}
	defer func() {
		if ferr := b.graphs.record(false); err == nil {
			err = ferr
		}
	}()
	s, err := settings(w)
	if err != nil {
		return err
	}
	e := w.TakeEdits()
	b.pushedWake = false
	if err := b.apply(w, e, s.Sleep, s.Solver); err != nil {
		return err
	}
	n := w.Bodies.Len()
	b.consts = makeConsts(s)
	// A timed step splits its time by stage, which the small path's launches merge: it keeps the
	// per-pass kernels.
	small := !b.NoSmall && !b.Timed
	b.solver.small = small && smallWorld(n, b.nJoints)
	b.broad.small = small && n <= smallBodies
	if b.planFor != s || b.plan == nil {
		b.plan, b.planFor = sim.PlanOf(s), s
	}
	if b.solver.small {
		// The program goes up before the step's first launch, so that its upload (at a new plan) does
		// not cut the step's graph in two.
		if err := b.solver.program.put(b.dev, smallOps(b.plan, b.solver.ops[:0])); err != nil {
			return err
		}
	}
	// A world of which some body sleeps, pushed by no impulse this step (whose island's size the host
	// does not know), runs its broad phase over the awake bodies and the resting tree (splitBounds).
	b.split = s.Sleep && b.asleep > 0 && !b.pushedWake
	if !b.split {
		b.restOK = false
	}
	asleepBefore := b.asleep
	if b.idle(w, e, s.Sleep) {
		// Every dynamic body sleeps and nothing can wake one: the step would make no pair, move no
		// body and change no state but the warm-start cache, which it would leave empty.
		b.solver.forget()
		b.Idle++
		r.Stats.Asleep = b.asleep
		r.Stats.BVH = sim.BVHStats{Used: true}
		if !b.Timed {
			r.Stats.Timings[sim.StageSolve] = time.Since(start)
		}
		return nil
	}
	st := &r.Stats.Timings
	var bvhStages [bvh.NumStages]time.Duration
	b.broad.timer = nil
	var tb time.Time
	if b.Timed {
		// The broad stage's own stages, as the CPU's LBVH reports them.
		b.broad.timer = func(stage string) {
			if err == nil {
				err = b.dev.sync()
			}
			now := time.Now()
			if k, ok := broadStages[stage]; ok {
				bvhStages[k] += now.Sub(tb)
			}
			tb = now
		}
	}
	// pairs, contacts, blow-up index (int32), contact points; under PGS the colours the manifolds and
	// the joints needed; with sleeping on, the sleeping and the awake dynamic bodies, and the room the
	// sleeping islands' contacts needed
	var counts [9]uint32
	for attempt := 0; ; attempt++ {
		*st = sim.Timings{}
		bvhStages = [bvh.NumStages]time.Duration{}
		if err := b.save(n); err != nil {
			return err
		}
		// A re-run's first attempt may have listed bodies that its waking woke, which the restore put
		// back to sleep: it makes the list again.
		b.listReused = attempt == 0 && b.split && b.listKept
		if err := b.runPlan(st, &tb); err != nil {
			return err
		}
		if err != nil {
			return err
		}
		// The step's one read-back: the list counters, the blow-up index and the contact points (and
		// the sleeping bodies).
		_, pairCount, pairCap := b.broad.pairList()
		contacts, contactCount, contactCap := b.narrow.contactList()
		gs := s.Solver == sim.PGS
		if err := b.gatherStats(pairCount, contactCount, contacts, contactCap, gs, s.Sleep, &counts); err != nil {
			return err
		}
		// Under PGS the passes launched a budget of colours (gs.go): a step that needed more runs again.
		short := gs && b.solver.fitColours(counts[4], counts[5], b.nJoints > 0)
		sleptShort := s.Sleep && int(counts[8]) > b.slept.cap
		if int(counts[0]) <= pairCap && int(counts[1]) <= contactCap && !short && !sleptShort {
			break
		}
		if attempt == 3 {
			return fmt.Errorf("gpu: the pair or contact list still overflowed after %d re-runs (%d pairs, %d contacts; %d and %d colours)",
				attempt, counts[0], counts[1], counts[4], counts[5])
		}
		// Put the state back, grow the lists to what the counters saw, and run the step again.
		if err := b.restore(n); err != nil {
			return err
		}
		b.solver.rewind()
		b.Reruns++
		b.pairCap = max(b.pairCap, int(counts[0])+int(counts[0])/2)
		b.contactCap = max(b.contactCap, int(counts[1])+int(counts[1])/2)
		if err := b.reserve(n); err != nil {
			return err
		}
		if sleptShort {
			if err := b.growSlept(w, int(counts[8])); err != nil {
				return err
			}
		}
	}
	b.fitLists(int(counts[0]), int(counts[1]))
	r.Stats.Pairs = int(counts[0])
	r.Stats.Manifolds = int(counts[1])
	r.Stats.Contacts = int(counts[3])
	if s.Sleep {
		b.asleep, b.awake = int(counts[6]), int(counts[7])
		if b.split {
			// counts[6] is the bodies that fell asleep: the resting tree lacks them.
			b.asleep = asleepBefore - b.woken + int(counts[6])
			if counts[6] > 0 {
				b.restOK = false
			}
		}
		r.Stats.Asleep = b.asleep
	}
	b.listKept = b.split && b.restOK
	r.Stats.BVH = sim.BVHStats{Used: true, Rebuilt: true, Stages: bvhStages}
	if !b.Timed {
		// Untimed, the stages are not waited for: the whole step is one figure, kept under solve.
		*st = sim.Timings{}
		st[sim.StageSolve] = time.Since(start)
	}
	if bad := int32(counts[2]); bad >= 0 && int(bad) < n {
		r.BlowUp = int(bad)
		return nil
	}
	return b.breakJoints(w, r)
}

// runPlan launches one attempt of the step: every stage of the plan, in order. Timed, it waits for the
// device after each stage and adds its time to st (tb is the broad stage's clock).
func (b *Backend) runPlan(st *sim.Timings, tb *time.Time) error {
	s := &b.consts.s
	t := time.Now()
	var run solverRun
	b.woken, b.moving.on = 0, false
	b.solver.awake = &b.moving
	for _, op := range b.plan {
		*tb = t
		var err error
		switch op.Stage {
		case sim.StageBounds:
			if b.split {
				err = b.splitBounds()
			} else {
				err = b.broad.bounds(b.dev, &b.bodies, s.Dt, s.Speculative, 0, 0, 0)
			}
		case sim.StageBroad:
			if b.split {
				err = b.splitPairs()
			} else {
				err = b.broad.pairsOf(b.dev, b.bodies.n)
			}
		case sim.StageNarrow:
			pairs, pairCount, pairCap := b.broad.pairList()
			err = b.narrow.run(b.dev, &b.bodies, pairs, pairCount, pairCap, s.Dt, s.Speculative)
			if err == nil && s.Sleep && b.asleep > 0 {
				err = b.wakeRounds()
			}
		case sim.StagePrepare:
			if s.Sleep && b.asleep > 0 && !b.solver.small && !b.split {
				// Some body sleeps: the body kernels from here on run over the awake ones, listed after
				// the waking (a split step listed them for its broad phase, and again after a waking).
				// The small path's one block skips the sleeping bodies by their flags, and the sleep
				// stage's kernels without the list run over every body to the same effect.
				if err = b.moving.make(b.dev, &b.bodies, b.movingEstimate(), nil); err != nil {
					break
				}
			}
			contacts, contactCount, contactCap := b.narrow.contactList()
			var hooks jointHooks
			if b.nJoints > 0 {
				hooks = &b.joints
			}
			err = b.solver.prepare(&run, b.dev, &b.bodies, contacts, contactCount, contactCap, hooks, &b.consts)
		case sim.StageSleep:
			if b.solver.small {
				// The small path's launch runs the sleep stage and keeps the sleeping islands'
				// contacts, with the still bodies and the joints' held forces of the step's end before.
				err = b.smallSleep(&run, op)
				break
			}
			err = b.sleep.run(b.dev, b.sleepInput())
			if err == nil {
				err = b.keepSlept()
			}
		case sim.StageStoreImpulses:
			small := s.Sleep && b.solver.small // the launch at the sleep stage does both
			// Jacobi's step over the awake list, with no joint, moves no sleeping body's velocity (its
			// integration and gathers skip them): there is none to zero.
			if s.Sleep && !small && (!b.moving.on || b.nJoints > 0 || s.Solver != sim.Jacobi) {
				err = b.sleep.still(b.dev, &b.bodies)
			}
			if err == nil {
				err = b.solver.run(&run, op)
			}
			if err == nil && s.Sleep && b.nJoints > 0 && !small {
				err = b.joints.hold(b.dev, &b.bodies)
			}
		default:
			err = b.solver.run(&run, op)
		}
		if err == nil && b.Timed {
			err = b.dev.sync()
		}
		if err != nil {
			return err
		}
		if b.Timed {
			now := time.Now()
			st[op.Stage] += now.Sub(t)
			t = now
		}
	}
	return nil
}

// smallSleep launches the small path's kept ops with the sleep stage (op) at their end.
func (b *Backend) smallSleep(run *solverRun, op sim.Op) error {
	if err := b.slept.reserve(b.dev, b.contactCap); err != nil {
		return err
	}
	if err := grow(b.dev, &b.stats, statsWords*4); err != nil {
		return err
	}
	// The arguments live in the solver stage, which spares an allocation a step.
	z := &b.solver.sleepArgs
	*z = smallSleep{in: b.sleepInput(), stage: &b.sleep, slept: &b.slept, need: b.stats.p + 4*statsSleptNeed}
	if b.nJoints > 0 {
		var err error
		if z.held, err = b.joints.heldBuffer(b.dev); err != nil {
			return err
		}
	}
	run.sleep = z
	return b.solver.run(run, op)
}

// sleepInput is what the sleep stage reads of this step: the narrow phase's contacts, the jointed
// pairs, the step's time and the sleep time.
func (b *Backend) sleepInput() sleepInput {
	contacts, count, capacity := b.narrow.contactList()
	var awake *awakeList
	if b.moving.on {
		awake = &b.moving
	}
	return sleepInput{bodies: &b.bodies, awake: awake, contacts: contacts, contactCount: count, contactCap: capacity,
		jointed: b.narrow.jointed.p, nJointed: b.narrow.nJointed, dt: b.consts.s.Dt, sleepTime: b.consts.s.SleepTime}
}

// keepSlept appends the contact points of the islands that fell asleep this step to b.slept, at the
// sleep stage (after StoreImpulses made this step's manifolds the solver's kept ones); the room the
// list needed goes to the step's read-back.
func (b *Backend) keepSlept() error {
	if err := b.slept.reserve(b.dev, b.contactCap); err != nil {
		return err
	}
	if err := grow(b.dev, &b.stats, statsWords*4); err != nil {
		return err
	}
	man, kept := b.solver.lastManifolds()
	return b.slept.keep(b.dev, sleptInput{man: man, kept: kept, capacity: b.contactCap, parent: b.sleep.parent.p,
		label: b.sleep.label.p, asleep: b.sleep.asleep.p, bodies: &b.bodies, need: b.stats.p + 4*statsSleptNeed})
}

// growSlept makes room for need of the sleeping islands' manifolds (a step found the list short), the
// step's state having been put back.
func (b *Backend) growSlept(w *sim.World, need int) error {
	asleep, dynamic, err := b.sleepLabels(w)
	if err != nil {
		return err
	}
	return b.slept.grow(b.dev, need, asleep, dynamic)
}

// sleepLabels reads back every body's sleeping label (0: awake), and returns with it whether a body is
// dynamic: what tells a kept contact whose island still sleeps (sleptPoint.live).
func (b *Backend) sleepLabels(w *sim.World) ([]uint32, func(int) bool, error) {
	asleep := make([]uint32, b.sleep.n)
	if err := downloadSlice(b.dev, asleep, b.sleep.asleep.p); err != nil {
		return nil, nil, err
	}
	dynamic := func(i int) bool { return i < w.Bodies.Len() && w.Bodies.Type[i] == sim.Dynamic }
	return asleep, dynamic, nil
}

// appendSlept appends the kept points of the islands that still sleep, all of them (body < 0) or
// those body takes part in, as sim's sleep stage lists them after the solver's.
func (b *Backend) appendSlept(w *sim.World, body int, out []sim.ContactPoint) ([]sim.ContactPoint, error) {
	if !b.planFor.Sleep || b.sleep.n == 0 || body >= b.sleep.n {
		return out, nil
	}
	if body >= 0 && body < w.Bodies.Len() && w.Bodies.Type[body] == sim.Dynamic {
		// Only a sleeping dynamic body has points of a sleeping island.
		var label [1]uint32
		if err := downloadSlice(b.dev, label[:], b.sleep.asleep.at(body, 4)); err != nil {
			return out, err
		}
		if label[0] == 0 {
			return out, nil
		}
	}
	pts, err := b.slept.selected(b.dev, b.bodies.flags.p, b.sleep.asleep.p, b.sleep.n, body)
	if err != nil {
		return out, err
	}
	for _, p := range pts {
		if p.A >= 0 {
			out = append(out, p.contactPoint())
		}
	}
	return out, nil
}

// wakeRounds wakes the sleeping islands that an awake body touches, is jointed to, or a moving
// kinematic body's box reaches, after the narrow phase; when any woke, the collision stages run again
// with them moving, so that their contacts are in this step's solve, as sim's Step does for
// sim.MaxWakeRounds rounds at most. Whether any woke is the one read-back (4 bytes) each round costs,
// and only a world with a sleeping body runs a round.
func (b *Backend) wakeRounds() error {
	s := &b.consts.s
	for round := 1; round < sim.MaxWakeRounds; round++ {
		in := wakeInput{sleepInput: b.sleepInput(), boxes: b.broad.boxes.p, kinematic: b.kinematic.p,
			nKinematic: b.nKinematic}
		if err := b.sleep.wake(b.dev, in); err != nil {
			return err
		}
		var woke [1]uint32
		if err := downloadSlice(b.dev, woke[:], b.sleep.counts.p+4); err != nil {
			return err
		}
		if woke[0] == 0 {
			return nil
		}
		b.woken += int(woke[0])
		if b.split {
			// The woken bodies join the awake list and tree; the resting tree skips them.
			if err := b.splitBounds(); err != nil {
				return err
			}
			if err := b.splitPairs(); err != nil {
				return err
			}
		} else {
			if err := b.broad.bounds(b.dev, &b.bodies, s.Dt, s.Speculative, 0, 0, 0); err != nil {
				return err
			}
			if err := b.broad.pairsOf(b.dev, b.bodies.n); err != nil {
				return err
			}
		}
		pairs, pairCount, pairCap := b.broad.pairList()
		if err := b.narrow.run(b.dev, &b.bodies, pairs, pairCount, pairCap, s.Dt, s.Speculative); err != nil {
			return err
		}
	}
	return nil
}

// splitBounds is a split step's Bounds stage (and a round of waking's): the awake list, made here
// (with its complement, the resting bodies, when the resting tree is to be built: made again by a
// round of waking after it woke bodies), the boxes of the awake bodies, and, when the resting tree
// does not hold every resting body, every body's box and the resting tree over the resting ones.
func (b *Backend) splitBounds() error {
	s := &b.consts.s
	if !b.moving.on && b.woken == 0 && b.listReused && b.restOK {
		b.moving.keep(b.movingEstimate())
	} else if !b.moving.on || b.woken > 0 {
		var rest *buffer
		if !b.restOK {
			rest = &b.rest.leaves.ids
		}
		if err := b.moving.make(b.dev, &b.bodies, b.movingEstimate(), rest); err != nil {
			return err
		}
	}
	if !b.restOK {
		if err := b.broad.bounds(b.dev, &b.bodies, s.Dt, s.Speculative, 0, 0, 0); err != nil {
			return err
		}
		if err := b.rest.build(b.dev, b.broad.boxes.p, b.broad.moving.p, b.bodies.n-b.awakeListed()); err != nil {
			return err
		}
		b.restOK = true
		return nil
	}
	list, listN, grid := b.moving.args(b.bodies.n, broadThreads)
	return b.broad.bounds(b.dev, &b.bodies, s.Dt, s.Speculative, list, listN, grid)
}

// splitPairs is a split step's Broad stage: the awake bodies' tree, its pairs and theirs with the
// resting tree's bodies, the same sorted list as one tree over every body gives.
func (b *Backend) splitPairs() error {
	m := b.awakeListed()
	if err := b.awakeLeaves.gather(b.dev, b.broad.boxes.p, b.broad.moving.p, b.moving.list.p, m); err != nil {
		return err
	}
	return b.broad.pairsOver(b.dev, b.awakeLeaves.boxes.p, b.awakeLeaves.moving.p, m, partOf{ids: b.moving.list.p,
		bodies: b.bodies.n, flags: b.bodies.flags.p, rest: &b.rest})
}

// awakeListed is the length of the awake list as the host knows it exactly at a split step: the
// dynamic bodies awake at the end of the last step (or as uploaded since), those woken in this step's
// rounds, and the kinematic ones.
func (b *Backend) awakeListed() int { return b.awake + b.woken + b.kinematics }

// idle says whether this step can launch nothing (Backend.Idle): with sleeping on, the last step left
// every dynamic body asleep, and nothing since can wake or move one: no edit, no joint (a joint
// between sleeping bodies is still solved, as on the CPU), no moving kinematic body.
func (b *Backend) idle(w *sim.World, e sim.Edits, sleep bool) bool {
	edited := e.All || e.Removed || e.Joints || e.Settings || len(e.Bodies) > 0 || len(e.Impulses) > 0
	return sleep && !edited && b.asleep > 0 && b.awake == 0 && b.nJoints == 0 && b.nKinematic == 0 &&
		b.bodies.n == w.Bodies.Len()
}

// listFloor is the least capacity of the pair and the contact lists (a fresh world's first guess
// is at least four times it).
const listFloor = 256

// fitLists lets the pair and contact lists' capacities follow the step's need: a list that used less
// than a quarter of its capacity gets twice what it used (at least listFloor). The per-pair and
// per-manifold kernels are launched over the capacities, each thread past the list's count returning
// at once, so a world whose bodies mostly sleep (its pairs and manifolds those of its awake bodies) or
// that needs far fewer than the first guess (8 pairs and 4 manifolds a body) launches grids of about
// its lists. A list that outgrows its capacity makes the step run again with half as much room more
// than it needed (Step), so the shrink leaves a margin of twice the need against that.
func (b *Backend) fitLists(pairs, contacts int) {
	fit := func(c *int, need int) {
		if 4*need < *c && *c > listFloor {
			*c = max(listFloor, 2*need)
		}
	}
	fit(&b.pairCap, pairs)
	fit(&b.contactCap, contacts)
}

// movingEstimate is the host's estimate of the bodies the step moves: the awake dynamic bodies the last
// read-back counted, the bodies woken in this step's rounds and the moving kinematic ones; every body
// after a push, which wakes an island of a size the host does not know (an estimate too low only
// makes each thread take more bodies).
func (b *Backend) movingEstimate() int {
	if b.pushedWake {
		return b.bodies.n
	}
	return b.awake + b.woken + b.nKinematic
}

// reserve sizes every buffer for n bodies and the current list capacities.
func (b *Backend) reserve(n int) error {
	if b.pairCap == 0 {
		b.pairCap = max(4*listFloor, 8*n)
		b.contactCap = max(4*listFloor, 4*n)
	}
	if err := b.broad.reserve(b.dev, n, b.pairCap); err != nil {
		return err
	}
	if err := b.narrow.reserve(b.dev, b.pairCap, b.contactCap); err != nil {
		return err
	}
	return b.solver.reserve(b.dev, n, b.contactCap)
}

// apply mirrors the world's edits on the device: changed bodies are uploaded one contiguous run at a
// time (no full re-upload), the joints (few) whole when they changed. With sleeping on (sleep), an edit
// that read the bodies back first (every edit but an impulse on a body the host saw awake) leaves the
// host's sleeping state current, so it is uploaded whole: the islands the World woke wake on the device
// too; the bodies impulses push wake with their islands on the device. Last step's contacts follow
// removals as the CPU's do under the step's solver (solver).
func (b *Backend) apply(w *sim.World, e sim.Edits, sleep bool, solver sim.SolverKind) error {
	n := w.Bodies.Len()
	old := b.bodies.n
	if e.All {
		old = 0
	}
	if err := b.bodies.reserve(b.dev, n, min(old, n)); err != nil {
		return err
	}
	if err := b.reserve(n); err != nil {
		return err
	}
	if e.All {
		if err := b.bodies.put(b.dev, &w.Bodies, 0, n); err != nil {
			return err
		}
	} else {
		// Bodies appended since the last step, then the edited ones in runs of consecutive indices.
		if err := b.bodies.put(b.dev, &w.Bodies, min(old, n), n); err != nil {
			return err
		}
		for k := 0; k < len(e.Bodies); {
			lo := int(e.Bodies[k])
			hi := lo + 1
			for k++; k < len(e.Bodies) && int(e.Bodies[k]) == hi; k++ {
				hi++
			}
			if lo >= old || lo >= n {
				continue // uploaded with the appended bodies
			}
			if err := b.bodies.put(b.dev, &w.Bodies, lo, min(hi, old, n)); err != nil {
				return err
			}
		}
	}
	// Indices moved: last step's contacts no longer name the same bodies. They follow the moves where
	// the solver's CPU form renames its contacts (PGS), as the CPU's do, and are dropped otherwise.
	switch {
	case e.All || (e.Removed || n < old) && (len(e.Moves) == 0 || !sim.RenamesContacts(solver)):
		b.solver.forget()
	case e.Removed:
		if err := b.solver.rename(b.dev, e.Moves); err != nil {
			return err
		}
	}
	// The sleeping islands' points follow the moves whatever the solver (sim's sleep stage renames
	// them: they are points to show, not warm starts).
	if e.All {
		if err := b.slept.forget(b.dev); err != nil {
			return err
		}
	} else if e.Removed {
		if err := b.slept.rename(b.dev, e.Moves); err != nil {
			return err
		}
	}
	// Joints name bodies by dense index, which a removal changes: they are re-uploaded (they are few)
	// after any structural edit.
	if e.All || e.Joints || n != old || (len(e.Bodies) > 0 && w.NumJoints() > 0) {
		if err := b.joints.upload(b.dev, w); err != nil {
			return err
		}
		b.nJoints = w.NumJoints()
		if err := b.narrow.setJointed(b.dev, jointedPairs(w)); err != nil {
			return err
		}
	}
	if err := b.bodies.applyImpulses(b.dev, &b.one, e.Impulses); err != nil {
		return err
	}
	return b.applySleep(w, e, sleep, old)
}

// applySleep brings the device's sleeping state up to the edits e (apply), old being the bodies on
// the device before them.
func (b *Backend) applySleep(w *sim.World, e sim.Edits, sleep bool, old int) error {
	n := w.Bodies.Len()
	fresh := e.All || e.Removed || e.Joints || e.Settings || len(e.Bodies) > 0
	if fresh || n != old || len(e.Impulses) > 0 {
		b.restOK = false // the resting bodies, their boxes or the bodies' indices may have changed
	}
	if !sleep {
		b.asleep, b.awake = 0, 0
		if !e.Settings || b.sleep.n == 0 {
			return nil // no TB_ASLEEP flag was ever set, or none since the last change of settings
		}
		// Sleeping turned off: the host woke every body, and the upload clears every TB_ASLEEP flag.
		if err := b.sleep.reserve(b.dev, n, min(old, n)); err != nil {
			return err
		}
		return b.sleep.put(b.dev, &b.bodies, &w.Bodies)
	}
	if err := b.sleep.reserve(b.dev, n, min(old, n)); err != nil {
		return err
	}
	if err := b.slept.reserve(b.dev, b.contactCap); err != nil {
		return err
	}
	if fresh {
		if err := b.sleep.put(b.dev, &b.bodies, &w.Bodies); err != nil {
			return err
		}
		b.asleep, b.awake, b.kinematics = 0, 0, 0
		for i, t := range w.Bodies.Type {
			switch {
			case t == sim.Kinematic:
				b.kinematics++
			case t != sim.Dynamic:
			case w.Bodies.Asleep[i]:
				b.asleep++
			default:
				b.awake++
			}
		}
		if err := b.listKinematic(&w.Bodies); err != nil {
			return err
		}
	}
	if !sleep || len(e.Impulses) == 0 {
		return nil
	}
	idx := make([]int32, len(e.Impulses))
	for k, im := range e.Impulses {
		idx[k] = im.Body
	}
	b.awake++ // at least the pushed body: the next step is not idle
	b.pushedWake = true
	return b.sleep.pushed(b.dev, &b.bodies, idx)
}

// listKinematic uploads the list of moving kinematic bodies (Backend.kinematic).
func (b *Backend) listKinematic(src *sim.Bodies) error {
	var moving []int32
	for i, t := range src.Type {
		if t == sim.Kinematic && (src.Velocity[i] != sim.Vec3{} || src.AngularVelocity[i] != sim.Vec3{}) {
			moving = append(moving, int32(i))
		}
	}
	b.nKinematic = len(moving)
	if len(moving) == 0 {
		return nil
	}
	if err := grow(b.dev, &b.kinematic, 4*len(moving)); err != nil {
		return err
	}
	return uploadSlice(b.dev, b.kinematic.p, moving)
}

// jointedPairs lists the body pairs that a joint links (they do not collide), as sorted a<<32|b keys.
func jointedPairs(w *sim.World) []uint64 {
	var keys []uint64
	for i := range w.NumJoints() {
		d := w.Joint(i)
		a, okA := w.Index(d.BodyA)
		c, okB := w.Index(d.BodyB)
		if !okA || !okB {
			continue
		}
		if a > c {
			a, c = c, a
		}
		keys = append(keys, uint64(a)<<32|uint64(c))
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// save copies the moving state at the start of a step, so that a step whose lists overflowed can run
// again from it.
func (b *Backend) save(n int) error {
	for _, c := range b.savedArrays(n) {
		if c.bytes == 0 {
			continue
		}
		if err := grow(b.dev, c.saved, c.bytes); err != nil {
			return err
		}
		if err := b.dev.copy(c.saved.p, c.live.p, c.bytes); err != nil {
			return err
		}
	}
	return nil
}

// restore puts back the state save copied.
func (b *Backend) restore(n int) error {
	for _, c := range b.savedArrays(n) {
		if c.bytes == 0 {
			continue
		}
		if err := b.dev.copy(c.live.p, c.saved.p, c.bytes); err != nil {
			return err
		}
	}
	return nil
}

// savedArrays pairs each array a step changes and a re-run must start from with its copy: the bodies'
// moving state and their world inverse inertia, which the step's end recomputes from the new rotations
// (left as the overflowing attempt made it, the re-run's prepare used the end-of-step inertia where the
// CPU uses the start-of-step one: the rain's first step, which always overflows the default lists,
// left velocities 1.8e-7 m/s off the CPU's with one sub-step and one iteration, and angular ones up
// to 6e-4 rad/s with the default settings), and the joints' accumulated impulses.
func (b *Backend) savedArrays(n int) []struct {
	saved, live *buffer
	bytes       int
} {
	return []struct {
		saved, live *buffer
		bytes       int
	}{
		{&b.saved.pos, &b.bodies.pos, n * sizeFloat4}, {&b.saved.rot, &b.bodies.rot, n * sizeFloat4},
		{&b.saved.vel, &b.bodies.vel, n * sizeFloat4}, {&b.saved.omega, &b.bodies.omega, n * sizeFloat4},
		{&b.saved.invIW, &b.bodies.invIW, n * sizeInvIW},
		// The joints' impulses warm start every sub-step; the attempt left them as its end made them.
		{&b.savedJoints, &b.joints.joints, b.joints.n * int(unsafe.Sizeof(tbJoint{}))},
		// The sleeping state the attempt's waking and sleep stage changed (none without sleeping).
		{&b.saved.flags, &b.bodies.flags, sleepBytes(b, n)}, {&b.savedSleep[0], &b.sleep.asleep, sleepBytes(b, n)},
		{&b.savedSleep[1], &b.sleep.rest, sleepBytes(b, n)},
		// The sleeping islands' points the attempt appended.
		{&b.savedSlept, &b.slept.n, min(sleepBytes(b, n), 4)},
	}
}

// sleepBytes is the size of one per-body uint32 array of sleeping state to save: 4n with sleeping
// on, 0 without.
func sleepBytes(b *Backend, n int) int {
	if !b.consts.s.Sleep || b.sleep.n != n {
		return 0
	}
	return 4 * n
}

// breakJoints reads the joints' forces when some joint can break, and reports in r those whose force
// exceeded their break force (the World removes them, and re-uploads the joints before the next step).
func (b *Backend) breakJoints(w *sim.World, r *sim.StepReport) error {
	breakable := false
	for i := range w.NumJoints() {
		if w.Joint(i).BreakForce > 0 {
			breakable = true
			break
		}
	}
	if !breakable {
		return nil
	}
	fp, nf := b.joints.forces()
	forces := make([]float32, nf)
	if err := downloadSlice(b.dev, forces, fp); err != nil {
		return err
	}
	for i := range min(nf, w.NumJoints()) {
		if d := w.Joint(i); d.BreakForce > 0 && forces[i] > d.BreakForce {
			r.Broken = append(r.Broken, sim.BrokenJoint{Index: i, Def: d, Force: forces[i], Step: w.StepCount + 1})
		}
	}
	return nil
}

// Pull copies the device's body state into w.Bodies.
func (b *Backend) Pull(w *sim.World) error {
	n := min(w.Bodies.Len(), b.bodies.n)
	if err := b.bodies.get(b.dev, &b.host, n); err != nil {
		return err
	}
	b.host.store(&w.Bodies)
	b.Pulled += n
	if b.planFor.Sleep {
		return b.sleep.get(b.dev, &w.Bodies, n)
	}
	return nil
}

// PullStates reads back the moving state of the bodies at the dense indices idx, one body at a time,
// into out (sim.StateReader): the narrow read of a mouse drag, which leaves every other body on the
// device.
func (b *Backend) PullStates(w *sim.World, idx []int32, out []sim.BodyState) error {
	for k, i := range idx {
		if int(i) >= b.bodies.n {
			return fmt.Errorf("gpu: body %d is not on the device (%d bodies)", i, b.bodies.n)
		}
		if err := b.bodies.getOne(b.dev, &b.one, int(i), false); err != nil {
			return err
		}
		b.one.bodyState(&out[k], false)
		if b.planFor.Sleep && int(i) < b.sleep.n {
			// Its island's label, as Pull reads every body's (0: awake); without sleeping the host's
			// flag stands, as Pull leaves it.
			var label [1]uint32
			if err := downloadSlice(b.dev, label[:], b.sleep.asleep.at(int(i), 4)); err != nil {
				return err
			}
			out[k].Asleep = label[0] != 0
		}
		b.Pulled++
	}
	return nil
}

// JointForces appends the force (N) each of w's joints held in the last step, read back from the
// device: what breakJoints compares with the joints' break forces (sim.JointForceReader). A joint not
// on the device yet (added since the last step) gets NaN.
func (b *Backend) JointForces(w *sim.World, out []float32) ([]float32, error) {
	fp, nf := b.joints.forces()
	if h := b.joints.held; b.planFor.Sleep && h.p != 0 && h.bytes >= 4*nf {
		fp = h.p // a sleeping joint's is the force it held when its island fell asleep
	}
	dev := make([]float32, nf)
	if err := downloadSlice(b.dev, dev, fp); err != nil {
		return out, err
	}
	ids := b.joints.ids
	next := 0
	for i := range w.NumJoints() {
		id, f := w.JointFrame(i).ID, float32(math.NaN())
		for o := next; o < min(len(ids), nf); o++ {
			if ids[o] == id {
				f, next = dev[o], o+1
				break
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// QueryWalks reads back what the last step's LBVH queries walked: the longest and the mean number of
// nodes (and big bodies) one query thread tested. It is a download of 4 bytes per body, outside any
// step, for benchmarks and tests.
func (b *Backend) QueryWalks() (Walks, error) { return b.broad.walks(b.dev) }

// Contacts appends the last step's contact points, read back from the device.
func (b *Backend) Contacts(w *sim.World, out []sim.ContactPoint) []sim.ContactPoint {
	got, err := b.solver.readContacts(b.dev, &b.bodies, out)
	if err != nil {
		return out
	}
	if got, err = b.appendSlept(w, -1, got); err != nil {
		return out
	}
	return got
}

// ContactsOf appends the last step's contact points that the body at dense index i takes part in, in
// Contacts' order, reading back that body's points alone (sim.ContactReader); ok is false for a body
// whose points it cannot tell apart (a static or kinematic one), which World.ContactsOf then filters
// from Contacts. A failed read-back is ok with no points, as Contacts reports one.
func (b *Backend) ContactsOf(w *sim.World, i int, out []sim.ContactPoint) ([]sim.ContactPoint, bool) {
	got, ok, err := b.solver.readContactsOf(b.dev, &b.bodies, i, out)
	if err != nil {
		return out, true
	}
	if ok {
		if got, err = b.appendSlept(w, i, got); err != nil {
			return out, true
		}
	}
	return got, ok
}

// Close releases the device buffers and the device. Interop registrations go first, before the
// context does.
func (b *Backend) Close() {
	for _, c := range b.closers {
		c()
	}
	b.closers = nil
	b.inst.release(b.dev)
	b.dbg.release(b.dev)
	b.broad.release(b.dev)
	b.rest.release(b.dev)
	b.awakeLeaves.release(b.dev)
	b.narrow.release(b.dev)
	b.solver.release(b.dev)
	b.joints.release(b.dev)
	b.sleep.release(b.dev)
	b.slept.release(b.dev)
	b.moving.release(b.dev)
	release(b.dev, &b.savedSlept)
	release(b.dev, &b.savedSleep[0])
	release(b.dev, &b.savedSleep[1])
	release(b.dev, &b.kinematic)
	b.bodies.release(b.dev)
	b.saved.release(b.dev)
	release(b.dev, &b.stats)
	release(b.dev, &b.savedJoints)
	b.dev.close()
}

// The words of b.stats: the contact points, then the counters the step reads back, the last of which
// (statsSleptNeed) tb_solver_slept_count writes at the sleep stage.
const (
	statsWords     = 10
	statsSleptNeed = 9
)

// gatherStats counts the contact points and reads the step's counters back in one copy: 16 bytes, 24
// with the colours the Gauss-Seidel passes needed (gs), 36 with sleeping on (the sleeping and the
// awake dynamic bodies after the colours' words, then the room the sleeping islands' contacts needed).
func (b *Backend) gatherStats(pairCount, contactCount, contacts ptr, contactCap int, gs, sleep bool, out *[9]uint32) error {
	d := b.dev
	if err := grow(d, &b.stats, statsWords*4); err != nil {
		return err
	}
	points, packed := b.stats.p, b.stats.p+4
	if err := d.zero(points, 4); err != nil {
		return err
	}
	ks := kernelSet{d}
	if err := ks.statsPoints(blocks(max(contactCap, 1), 256), 256, statsPointsArgs{Contacts: contacts,
		Count: contactCount, Cap: int32(contactCap), Points: points}); err != nil {
		return err
	}
	if err := ks.statsGather(1, 1, statsGatherArgs{Pairs: pairCount, Contacts: contactCount, Bad: b.solver.blowUp(),
		Points: points, Colours: b.solver.needed.p, Out: packed}); err != nil {
		return err
	}
	bytes := 16
	if gs {
		bytes = 24
	}
	if sleep {
		// A split step knows the sleeping bodies but for those of its awake list that fell asleep.
		var awake *awakeList
		if b.split {
			awake = &b.moving
		}
		if err := b.sleep.count(d, &b.bodies, packed+24, awake); err != nil {
			return err
		}
		bytes = 36
	}
	return d.download(unsafe.Pointer(&out[0]), packed, bytes)
}
