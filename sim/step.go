package sim

import (
	"math"
	"time"

	"tumble/sim/broad"
	"tumble/sim/broad/bvh"
	"tumble/sim/collide"
)

// pipeline is the step's working state. Its slices are kept between steps so a steady-state step
// allocates nothing.
type pipeline struct {
	work    workStage
	bounds  boundsStage
	broad   broadStage
	narrow  narrowStage
	graph   graphStage
	islands islandStage
	sleep   sleepStage
	joints  jointStage
	match   matchStage
	xpbd    xpbdStage
	impulse impulseStage
	rigid   rigidStage
	wide    wideStage
	jwide   jointWideStage
	plan    planStage
	loops   loopStage
}

// keeper is a stage that keeps state from one step to the next beside the bodies and the joints.
// The World's public reads and edits of that state between steps (Contacts, SaveState, RestoreState,
// RemoveBody, a backend switch) reach each stage's part through keepers, so a stage that starts
// keeping state is listed there once and the entry points read no stage's struct.
type keeper interface {
	// appendContacts appends the contact points the stage keeps, all of them (body < 0) or those
	// body takes part in, as Contacts lists them; b gives the points' world positions.
	appendContacts(b *Bodies, body int, out []ContactPoint) []ContactPoint
	// saveState copies the stage's part of the state into s; restoreState makes it s's.
	saveState(s *State)
	restoreState(s *State)
	// removeBody drops body i after the last body moved into i (Bodies.moveLast); renames says
	// whether the solver keeps the moved body's warm starts (renamed from last to i) or drops
	// every kept contact (solverTraits.renamesContacts).
	removeBody(i, last int, renames bool)
	// forget drops what the stage keeps: another backend stepped the world meanwhile.
	forget()
}

// keepers lists the stages that keep state between steps, in the order Contacts lists their
// points: the narrow phase's last manifolds (warm starts and the contact cache) and the sleeping
// islands' contacts and labels. The broad phase keeps its tree, sweep order and grown boxes' pairs
// too but is none: those are caches over the boxes alone, which cannot change a step's pairs
// (broad_keep.go, State), so a snapshot or an edit need not reach them.
func (p *pipeline) keepers() [2]keeper { return [2]keeper{&p.narrow, &p.sleep} }

// invalidate drops what the stages keep between steps.
func (p *pipeline) invalidate() {
	for _, k := range p.keepers() {
		k.forget()
	}
}

// Close stops the world's worker goroutines. A World that is dropped without Close releases them when
// it is garbage collected.
func (w *World) Close() { w.pipe.work.pool.close() }

// selectBroadphase makes the broad phase the settings ask for, keeping the current one (and the state
// it carries between steps: SAP's order, the BVH's tree) while the kind is unchanged.
func (w *World) selectBroadphase() {
	p := &w.pipe
	kind := w.settings.Broadphase
	if p.broad.phase == nil || p.broad.kind != kind {
		switch kind {
		case SAP:
			p.broad.phase = broad.NewSAP()
		case Grid:
			p.broad.phase = broad.NewGrid()
		case Brute:
			p.broad.phase = broad.Brute{}
		default:
			p.broad.phase = bvh.New()
		}
		p.broad.kind = kind
		p.broad.fatOK = false // the new broad phase queries on the next step (and builds what BVHLevel draws)
	}
	if ph, ok := p.broad.phase.(broad.Parallel); ok {
		ph.SetParallel(p.loops.parallel, p.work.workers)
	}
	if t, ok := p.broad.phase.(*bvh.LBVH); ok {
		t.RefitGrowth = w.settings.BVHRefit // at most 1: rebuild every step
	}
}

// Grain sizes, one per loop kind: a loop runs on the workers only when it gives each of two workers at
// least a grain of items (workpool.Pool.Run), and on the calling goroutine alone otherwise. These are
// the coarse grains, sized on the 2-core machine; under fine grains, where the world's trials find
// them faster (grains.go, the 16-core machine), each is fineDiv times smaller. A coarse grain is
// about 50 us of work: handing a loop to a second worker costs tens of microseconds on a loaded
// machine (waking the helper's thread, the rows' cache lines moving between cores), so a loop of less
// work is faster on one worker. Measured per item on the 2-core machine (pile, 1 worker, pprof): a
// contact row pass (solve, relax, restitution) ~90 ns a manifold, a refresh or warm start ~20 ns,
// prepare ~280 ns, narrow ~110 ns a pair, bounds ~170 ns a body, finishing ~75 ns, integrating 4-250
// ns; a joint's refresh, warm start or pass ~100 ns (ragdoll; jointGrain). With grains of 256, the
// 221-body ragdoll ran 15 parallel loops a step of 10-30 us each and was 25% slower on two workers
// than on one; with narrow and prepare split at 512 pairs and 256 manifolds, the 386-box pyramid's two
// split loops cost two workers more than one (3.5-4.8 ms/step against 3.1-4.1). The helpers spin
// between loops (workpool), so a hand-off waits for no thread to wake, yet grains 4 and 8 times
// smaller gain nothing on the pyramid at 2 workers (2.18-2.21 and 2.21-2.23 ms/step against
// 2.16-2.21): what is left of a hand-off is the cache lines it moves, about 0.2 us each between this
// machine's cores. The wide contact passes split by region (wide.go).
const (
	bodyGrain     = 1024 // bounds, integrate, finish, gather: a body
	pairGrain     = 1024 // narrow: a pair
	manifoldGrain = 1024 // prepare: a manifold's rows
	passGrain     = 512  // solve, relax, restitution: one pass over a manifold's rows
	refreshGrain  = 2048 // refresh and warm start: a manifold
)

// Step advances the world by one time step: it runs the step's Plan, which the selected solver writes
// (Solver.Plan; for the velocity solvers the bounds, the broad and narrow phases, prepare, then
// Substeps soft sub-steps of integrate velocities, warm start, solve, integrate positions and relax,
// then restitution and storing impulses for the next step's warm start), timing each stage. It returns
// a *BlowUpError naming the first body whose state became non-finite or faster than MaxLinearSpeed; the
// world is then left as the step made it.
func (w *World) Step() error {
	if w.backend != nil {
		w.Stats.Handed, w.Stats.Stalls, w.Stats.FineGrains, w.Stats.IslandRegions = 0, 0, false, 0
		err := w.stepBackend()
		w.endTrace()
		return err
	}
	if err := w.settings.Check(); err != nil {
		return err
	}
	w.bindLoops()
	p := &w.pipe
	p.work.opts, p.work.kern = w.opts, w.opts.kernels()
	n := w.Bodies.Len()
	p.bounds.boxes = resize(p.bounds.boxes, n)
	p.bounds.dynamic = resize(p.bounds.dynamic, n)
	w.Bodies.rot = resize(w.Bodies.rot, n)
	p.graph.bodyColors = resize(p.graph.bodyColors, n)
	st := &w.Stats.Timings
	*st = Timings{}
	w.Broken = w.Broken[:0]
	w.Stats.Asleep = 0
	handed, stalls := p.work.pool.handed(), p.work.pool.stalls()
	w.Stats.FineGrains = p.work.pool.isFine()
	t := time.Now()
	t0 := t
	plan := w.plan()
	for k := 0; k < len(plan); k++ {
		op := plan[k]
		if op.Stage == StageIslands {
			if p.islands.on { // this step runs the block by island (planIslands)
				w.islandBlock(plan[k+1:k+1+op.Passes], st)
				k += op.Passes
			}
			t = time.Now()
			continue
		}
		p.plan.at = k
		w.runStage(op)
		now := time.Now()
		st[op.Stage] += now.Sub(t)
		t = now
	}
	w.Stats.IslandRegions = 0
	if p.islands.on {
		w.Stats.IslandRegions = p.graph.nRegions
	}
	w.Stats.Handed = p.work.pool.handed() - handed
	w.Stats.Stalls = p.work.pool.stalls() - stalls
	p.work.pool.stepTook(t.Sub(t0), n-w.Stats.Asleep, w.Stats.Stalls > 0)
	w.StepCount++
	w.Time = float64(w.StepCount) * float64(w.settings.Dt)
	w.endTrace()
	return w.checkBlowUp()
}

// plan returns the step's plan under the current settings, written again only when they change.
func (w *World) plan() Plan {
	p := &w.pipe
	if p.plan.planFor != w.settings || p.plan.steps == nil {
		p.plan.planFor = w.settings
		p.plan.solver = SolverOf(w.settings.Solver)
		p.plan.steps = p.plan.solver.Plan(&w.settings, p.plan.steps[:0])
	}
	return p.plan.steps
}

// Plan returns the stages one step runs under the world's current settings.
func (w *World) Plan() Plan { return PlanOf(w.settings) }

// runStage runs one entry of the plan on the CPU: the solver's own stages through the solver, the
// common ones here.
func (w *World) runStage(op Op) {
	p := &w.pipe
	if p.plan.solver.run(w, op) {
		return
	}
	s := &w.settings
	n := w.Bodies.Len()
	switch op.Stage {
	case StageBounds:
		w.prepareJoints()
		w.selectBroadphase()
		w.each(loopBounds, n, bodyGrain)
	case StageBroad:
		w.broadPhase()
	case StageNarrow:
		w.narrowPhaseAll()
		// With sleeping on, a sleeping island that an awake body now touches wakes whole, and the
		// collision stages run again so that its contacts are there for this step's solve (a few
		// rounds at most; a wake chain longer than that finishes on the next steps).
		for round := 1; s.Sleep && round < maxWakeRounds && w.wakeTouched(p.narrow.manifolds, p.bounds.boxes); round++ {
			w.each(loopBounds, n, bodyGrain)
			w.broadPhase()
			w.narrowPhaseAll()
		}
	case StagePrepare:
		w.prepare()
	case StageIntegrateVelocities:
		w.each(loopIntVel, n, bodyGrain)
	case StageIntegratePositions:
		w.each(loopIntPos, n, bodyGrain)
		p.plan.posesMoved = true
	case StageStoreImpulses:
		w.syncWideImpulses()
		w.syncWideJoints()
		if s.Sleep {
			w.restoreSleepers()
		}
		w.each(loopFinish, n, bodyGrain)
		w.breakJoints()
		if s.Sleep {
			w.holdJointForces()
		}
		// This step's manifolds become the next step's warm-start source.
		p.narrow.prev, p.narrow.manifolds = p.narrow.manifolds, p.narrow.prev
	case StageSleep:
		// This step's manifolds were swapped into prev as it stored its impulses.
		w.updateSleep(p.narrow.prev, p.plan.steps.Uses(StageShapeMatch))
	default:
		panic("sim: the " + op.Stage.String() + " stage is not run by the " + p.plan.solver.Kind().String() + " solver")
	}
}

// broadPhase finds the pairs of overlapping boxes: from the last query's pairs when every body is
// still inside the box that query used (keptPairs), else with the selected broad phase.
func (w *World) broadPhase() {
	p := &w.pipe
	w.Stats.BVH = BVHStats{}
	w.Stats.PairsKept = w.keptPairs(p.bounds.boxes, p.bounds.dynamic)
	if w.Stats.PairsKept {
		p.broad.fatUses++
	} else {
		w.queryFat(p.bounds.boxes, p.bounds.dynamic)
		if t, ok := p.broad.phase.(*bvh.LBVH); ok {
			w.Stats.BVH = BVHStats{Used: true, Rebuilt: t.Rebuilt, Stages: t.Times}
		}
	}
	if p.broad.fatMargin == 0 {
		p.broad.pairs = append(p.broad.pairs[:0], p.broad.fatPairs...) // the boxes' own pairs
	} else {
		// The pairs whose own boxes overlap, in the query's order: exactly what the broad phase gives
		// for the boxes themselves (every box lies inside its grown one, so every such pair is among
		// the grown boxes' pairs, and the moving flags are the query's).
		p.broad.pairs = p.broad.pairs[:0]
		for _, pr := range p.broad.fatPairs {
			if a, b := &p.bounds.boxes[pr.A], &p.bounds.boxes[pr.B]; boxesOverlap(a, b) {
				p.broad.pairs = append(p.broad.pairs, pr)
			}
		}
	}
	w.Stats.Pairs = len(p.broad.pairs)
}

// narrowPhaseAll makes the manifolds of every pair and matches them with last step's.
func (w *World) narrowPhaseAll() {
	p := &w.pipe
	p.narrow.pairs = p.broad.pairs
	p.narrow.cand = resize(p.narrow.cand, len(p.broad.pairs))
	p.narrow.candN = resize(p.narrow.candN, len(p.broad.pairs))
	p.narrow.candMulti = resize(p.narrow.candMulti, len(p.broad.pairs))
	p.narrow.candFrom = resize(p.narrow.candFrom, len(p.broad.pairs))
	p.narrow.candMargin = resize(p.narrow.candMargin, len(p.broad.pairs))
	p.narrow.cacheOn = w.ContactCacheOn()
	p.narrow.speculative = w.settings.Speculative
	if len(p.narrow.multiCand) < len(p.broad.pairs) {
		p.narrow.multiCand = append(p.narrow.multiCand, make([][]collide.Manifold, len(p.broad.pairs)-len(p.narrow.multiCand))...)
		p.narrow.multiChild = append(p.narrow.multiChild, make([][]childPair, len(p.broad.pairs)-len(p.narrow.multiChild))...)
	}
	w.each(loopNarrow, len(p.broad.pairs), pairGrain)
	w.gatherManifolds()
}

// prepare is the Prepare stage: the step's constants, the bodies' constraint lists, the graph colours
// for a solver that visits rows by colour, the contact rows and the joints' masses.
func (w *World) prepare() {
	s := &w.settings
	p := &w.pipe
	b := &w.Bodies
	n := b.Len()
	if s.Sleep {
		w.keepSleepers()
	}
	p.plan.ctx.h, p.plan.ctx.invH, p.plan.ctx.soft, p.plan.ctx.staticSoft, p.joints.jointSoft, p.joints.limitSoft = stepSoftness(s)
	p.plan.ctx.maxPush = s.MaxPushOut
	p.joints.softSolve = w.plan().solvesBiased()
	p.plan.ctx.restThreshold = s.RestitutionThreshold
	p.plan.ctx.anchorReach = 2 * s.LinearSlop
	p.joints.split = p.plan.solver.traits().split
	p.graph.buildAdjacency(n, p.narrow.manifolds)
	p.jointAdjacency(n, w.joints)
	// Split masses divide each body's mass between the rows that touch it: the executor hands the
	// contact and joint rows the graph's counts.
	p.narrow.splitCount, p.joints.splitCount = nil, nil
	if p.joints.split {
		p.narrow.splitCount, p.joints.splitCount = p.graph.count, p.graph.count
	}
	p.joints.useDirect = s.DirectJoints && p.plan.solver.Params().Has(ParamDirectJoints) && len(w.joints) > 0
	w.Stats.Colors = 0
	p.islands.on = false
	if p.plan.solver.traits().colours {
		p.colourJoints(b, w.joints)
		if !w.conv.on { // traced passes are measured over the whole world (convergence.go)
			p.islands.planIslands(w.islandInputs(), b, w.joints)
		}
		fits := p.graph.colourManifolds(b, graphInputs{
			manifolds: p.narrow.manifolds, regions: p.regions(n), wideSplit: p.wideSplitNow(),
			byIsland: p.islands.on, islandRegions: p.islands.nIslandRegions, bodyRegion: p.islands.bodyRegion,
		})
		p.islands.on = p.islands.on && fits
		w.Stats.Colors = p.graph.colors
	}
	p.narrow.sums = resize(p.narrow.sums, len(p.narrow.manifolds))
	p.joints.jsums = resize(p.joints.jsums, len(w.joints))
	p.graph.gather.sums, p.graph.gather.jsums = p.narrow.sums, p.joints.jsums
	p.wide.decideWide(p.work.kern != nil && p.plan.solver.traits().wideContacts, len(p.narrow.manifolds), p.work.opts.rowPrepare)
	p.narrow.mayBounce = 0 // (noteApproach sets it)
	p.narrow.widePrep = p.wide.widePrep
	w.each(loopPrepare, len(p.narrow.manifolds), manifoldGrain)
	jin := w.jointWideInputs()
	if !jin.on { // else the lanes take the masses from the bodies, and the joints left out get theirs below
		w.each(loopJointMass, len(w.joints), jointGrain)
	}
	if p.joints.useDirect {
		w.prepareDirect()
	}
	if s.NoWarmStart {
		w.resetJointImpulses()
	}
	w.planWideJoints(jin)
	if p.jwide.jwideOn {
		w.eachOf(loopJRestMass, p.jwide.jrest, jointGrain)
	}
	w.packWide(w.wideInputs())
	overflow := 0
	if p.wide.wideOn {
		overflow = len(p.graph.overflow())
	}
	jointsAll := (p.jwide.jwideOn && len(p.jwide.jrest) == 0) || len(w.joints) == 0
	p.wide.planState(p.work.opts.bodyRows, p.jwide.jwideOn, jointsAll, overflow, len(p.narrow.manifolds))
	p.plan.posesMoved = true // the rows are refreshed before the first pass reads them
}

// jointsWide reports whether the joints' passes may run wide: lane kernels, a solver whose traits
// allow it, the options, no direct joint solve and no split masses.
func (w *World) jointsWide() bool {
	p := &w.pipe
	return p.work.kern != nil && !p.work.opts.partJoints && p.plan.solver.traits().wideJoints && !p.joints.useDirect && !p.joints.split
}

// islandInputs hands planIslands what it reads of the other stages: whether the step may run its
// sub-steps by island at all (more than one worker, fine grains, a plan with a StageIslands block,
// rows that are neither split nor solved directly, the wide lanes for the contacts and the joints,
// and no joint outside the colours), the workers and the manifolds.
func (w *World) islandInputs() islandInputs {
	p := &w.pipe
	joints := w.joints
	eligible := !(p.work.workers < 2 || p.work.workers > maxIslandRegions || !p.work.pool.isFine() || p.work.opts.NoIslands || !p.plan.steps.Uses(StageIslands) ||
		p.joints.split || p.joints.useDirect || p.work.kern == nil || (len(joints) > 0 && !w.jointsWide())) &&
		!(len(joints) > 0 && p.graph.jointColorStart[maxColors+1] > p.graph.jointColorStart[maxColors])
	return islandInputs{workers: p.work.workers, eligible: eligible, manifolds: p.narrow.manifolds}
}

// jointWideInputs hands planWideJoints what it reads of the other stages: the joints by colour (and
// by region, where the sub-steps run by island), the overflow joints and the gather capacity.
func (w *World) jointWideInputs() jointWideInputs {
	p := &w.pipe
	in := jointWideInputs{on: w.jointsWide()}
	if !in.on || len(w.joints) == 0 {
		return in
	}
	start := p.graph.jointColorStart
	in.order, in.seg, in.r = p.graph.jointColorOrder, start, 1
	if p.islands.on {
		in.r = p.graph.nRegions
		in.order, in.seg = p.islands.jointsByRegion(&w.Bodies, w.joints, p.graph.jointColorOrder, start, in.r)
	}
	in.overflow = p.graph.jointColorOrder[start[maxColors]:start[maxColors+1]]
	in.gatherCap = gatherCapOf(&w.Bodies, w.Bodies.rot)
	return in
}

// wideInputs hands the wide contact stage what it reads of the other stages (packWide).
func (w *World) wideInputs() wideInputs {
	p := &w.pipe
	in := wideInputs{
		manifolds: p.narrow.manifolds, colorOrder: p.graph.colorOrder, segStart: p.graph.segStart,
		split: p.graph.splitColour, r: p.graph.nRegions, workers: p.work.workers, kern: p.work.kern,
		gatherCap: gatherCapOf(&w.Bodies, w.Bodies.rot),
		warmSums:  warmFollows(p.plan.steps, p.plan.at),
	}
	if p.wide.wideOn {
		in.overflow = p.graph.overflow()
	}
	return in
}

// eachColour runs fn over the manifolds of each colour in turn (in parallel within a colour), then
// over the overflow serially.
func (w *World) eachColour(l loop) {
	p := &w.pipe
	w.runColours(p.graph.colorStart, p.graph.colorOrder, passGrain, l)
}

// runColours runs loop l over each colour's items (order[start[c]:start[c+1]]) in turn, in parallel
// within a colour, then over the overflow (colour maxColors) serially.
func (w *World) runColours(start, order []int32, grain int, l loop) {
	for c := 0; c < maxColors; c++ {
		lo, hi := start[c], start[c+1]
		if lo == hi {
			continue
		}
		w.eachOf(l, order[lo:hi], grain)
	}
	if lo, hi := start[maxColors], start[maxColors+1]; hi > lo {
		w.eachOf(l, order[lo:hi], 0)
	}
}

func lap(st *Timings, s Stage, t time.Time) time.Time {
	now := time.Now()
	st[s] += now.Sub(t)
	return now
}

func lapInto(d *time.Duration, t time.Time) time.Time {
	now := time.Now()
	*d += now.Sub(t)
	return now
}

// checkBlowUp reports the first dynamic body whose position or velocity is non-finite or whose speed
// exceeds MaxLinearSpeed.
func (w *World) checkBlowUp() error {
	b := &w.Bodies
	limit := float64(w.settings.MaxLinearSpeed)
	// The common case first, in one cheap pass: a NaN or an infinity anywhere makes the sum of a
	// body's components one, and the speeds are compared squared. Only a body that fails it (or a sum
	// that overflowed) is looked at closely below, to name what went wrong.
	lim2 := float32(limit*limit) * 0.999 // a little under, so that float32's rounding never lets one by
	bad := false
	for i := range b.Position {
		if b.Type[i] == Static {
			continue
		}
		p, v, a, q := &b.Position[i], &b.Velocity[i], &b.AngularVelocity[i], &b.Rotation[i]
		sum := p[0] + p[1] + p[2] + v[0] + v[1] + v[2] + a[0] + a[1] + a[2] + q.W + q.V[0] + q.V[1] + q.V[2]
		if sum-sum != 0 || v[0]*v[0]+v[1]*v[1]+v[2]*v[2] > lim2 {
			bad = true
			break
		}
	}
	if !bad {
		return nil
	}
	for i := range b.Position {
		if b.Type[i] == Static {
			continue
		}
		for _, c := range [...]struct {
			what string
			v    Vec3
		}{{"position", b.Position[i]}, {"velocity", b.Velocity[i]}, {"angular velocity", b.AngularVelocity[i]}} {
			x, y, z := float64(c.v[0]), float64(c.v[1]), float64(c.v[2])
			if math.IsNaN(x+y+z) || math.IsInf(x+y+z, 0) {
				return &BlowUpError{Body: b.Name[i], Step: w.StepCount, What: c.what, Value: c.v}
			}
		}
		if v := b.Velocity[i]; float64(v.Len()) > limit {
			return &BlowUpError{Body: b.Name[i], Step: w.StepCount, What: "velocity (over MaxLinearSpeed)", Value: v}
		}
		q := b.Rotation[i]
		if f := float64(q.W + q.V[0] + q.V[1] + q.V[2]); math.IsNaN(f) || math.IsInf(f, 0) {
			return &BlowUpError{Body: b.Name[i], Step: w.StepCount, What: "rotation", Value: q.V}
		}
	}
	return nil
}

// workStage is the step's workers and the options it runs with.
type workStage struct {
	pool    *pool
	workers int
	opts    Options      // the world's, as of this step
	kern    *laneKernels // the wide kernels the options select; nil: the scalar passes
}

// planStage is the step's plan, written for the settings planFor by solver: its ops and the constants
// they run with (Box2D v3's b2StepContext, the context handed to every stage), which the executor
// fixes in prepare before any stage of the step runs and no stage writes.
type planStage struct {
	planFor    Settings
	solver     Solver
	steps      Plan
	ctx        stepContext
	posesMoved bool // the bodies moved since the rows were last refreshed (refreshRows)
	at         int  // the index in steps of the op that runs (runStage)
}

// warmFollows reports whether the first op after ops[k] that reads or writes the contacts'
// accumulated impulses is a warm start: the ops between only integrate (velocities from forces,
// positions from velocities) or mark an island block, which move no impulse and no row the warm
// start reads (the rows' lever arms and masses are fixed at prepare; a refresh writes only the
// separations and the friction drift). Then the sums the warm start records (warm_W) can be taken
// from ops[k]'s last pass over a batch, while its rows are in the cache, instead of from a pass of
// their own over every batch.
func warmFollows(ops []Op, k int) bool {
	for _, o := range ops[k+1:] {
		switch o.Stage {
		case StageIntegrateVelocities, StageIntegratePositions, StageIslands:
			continue
		case StageWarmStart:
			return true
		}
		return false
	}
	return false
}

// markPosesMoved tells the executor that an op moved the bodies, so that the next refreshRows brings
// the rows to the new poses.
func (w *World) markPosesMoved() { w.pipe.plan.posesMoved = true }

// traceInputs hands the convergence trace where the bodies' velocities are between passes: XPBD's
// pose corrections for position passes (pos), the wide stage's velocity rows while they hold them.
func (w *World) traceInputs(pos bool) traceSource {
	p := &w.pipe
	src := traceSource{pos: pos}
	switch {
	case pos:
		src.corrX, src.corrTh = p.xpbd.corrX, p.xpbd.corrTh
	case p.wide.stateOn:
		src.vel = p.wide.vel
	}
	return src
}
