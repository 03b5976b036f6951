package sim

import (
	"math"
	"time"

	"tumble/sim/broad"
	"tumble/sim/broad/bvh"
	"tumble/sim/collide"
	"tumble/sim/geom"
)

// pipeline is the step's working state. Its slices are kept between steps so a steady-state step
// allocates nothing.
type pipeline struct {
	pool    *pool
	workers int
	opts    Options      // the world's, as of this step
	kern    *laneKernels // the wide kernels the options select; nil: the scalar passes

	broad     broad.Phase
	broadKind BroadphaseKind // of broad

	// per body
	boxes      []geom.AABB
	dynamic    []bool
	rot        []Mat3 // current rotation matrices
	bodyColors []uint64
	count      []int32 // contact points touching each body
	adjStart   []int32
	adj        []int32
	fill       []int32

	// per pair and manifold
	pairs        []broad.Pair
	fat          []geom.AABB  // per body: its box grown by FatMargin when the broad phase last ran (broad_keep.go)
	fatMoving    []bool       // per body: its moving flag then
	fatPairs     []broad.Pair // the pairs of the grown boxes
	fatOK        bool         // fat, fatMoving and fatPairs hold a query
	fatMargin    float32      // how much the query grew the boxes: FatMargin, or 0 (broad_keep.go)
	fatUses      int          // steps since the query that kept its pairs
	fatWait      int          // queries left with no margin before the next grown one
	moved        []int32      // the bodies outside their grown boxes this step (keptPairs)
	isMoved      []bool       // per body: in moved
	newPairs     []broad.Pair // the moved bodies' pairs
	mergePairs   []broad.Pair // the next fatPairs being merged
	cand         []collide.Manifold
	meshCand     [][]collide.Manifold // per pair with a mesh: its manifolds (cand[k] is then empty)
	manSub       []int32              // per manifold: its index in meshCand[pair], or -1 (cand[pair])
	candN        []int32              // per pair: the manifolds it gives (narrowPhase)
	candMesh     []bool               // per pair: a mesh's (its manifolds are in meshCand)
	candFrom     []int32              // per pair: the prev manifold whose cached points it reused, or -1
	candMargin   []float32            // per pair: the margin its points were made with (the cache's)
	cacheOn      bool                 // the narrow phase reuses cached manifolds (contact_cache.go)
	speculative  float32              // Settings.Speculative, for the cache
	gatherAt     []int32              // per chunk of gatherChunk pairs: its first manifold
	gatherPoints []int32              // per chunk of gatherChunk pairs: its manifolds' points
	gatherReused []int32              // per chunk of gatherChunk pairs: its manifolds reused from the cache
	manifolds    []manifold
	prev         []manifold   // last step's, sorted by (a, b): warm starting and Contacts
	sums         []impulseSum // per manifold: the impulses it recorded for gatherImpulses
	jsums        []impulseSum // per joint: the same (kept apart from the joints for the gather, as sums)
	manColor     []uint8
	colorOrder   []int32
	byRegion     []int32             // manifold indices by region of bodies, then by point count, most first
	regionStart  []int32             // colourManifolds' counting sort's buckets
	nRegions     int                 // regions of bodies (regions)
	splitColour  [maxColors + 1]bool // the colour's wide pass is split between the workers by region
	segStart     []int32             // colour c's manifolds of region g start at colorOrder[segStart[c*nRegions+g]]
	// sub-steps by island (islands.go)
	islands        bool          // this step's sub-steps run by island, a region each
	nIslandRegions int           // the regions the islands are dealt to
	islandWait     int           // steps before planIslands looks at the islands again
	bodyRegion     []int32       // per body: its island's region (-1 for a body in no constraint)
	islandWeight   []int32       // per island root: its rows' weight
	islandOps      []Op          // the sub-steps' stages running by island (islandBlock)
	islandTimes    []islandTimes // per worker: its time in each stage of the block
	runs           []int32       // by island: runs of consecutive bodies, first and end (bodyRuns)
	runStart       []int32       // region g's runs are runs[2*runStart[g]:2*runStart[g+1]]
	runNext        []int32       // bodyRuns' scratch
	jwideSeg       []int32       // by island: colour c's joint batches of region g start at jwide[jwideSeg[c*nRegions+g]]
	jrestSeg       []int32       // and its joints left to solveJoint at jrest[jrestSeg[c*nRegions+g]]
	jointOrder     []int32       // by island: the joints by colour, then region (jointsByRegion)
	jointSeg       []int32       // where colour c's joints of region g start in jointOrder
	colorStart     []int32
	colors         int
	current        []int32 // manifold indices of the colour being solved

	// sleeping
	sleepers []sleeper // sleeping bodies' poses, kept across the solve
	// slept are the contacts of sleeping islands as they were when each fell asleep, for Contacts:
	// a sleeping island's pairs make no manifolds, but it has not moved, so they still hold.
	slept        []sleptContact
	sleptStale   bool // a body woke since slept was last pruned
	sleptScratch []ContactPoint
	island       []int32   // union-find parent per body
	islandRest   []float32 // least rest time per island root
	islandLabel  []uint32  // label given to a sleeping island, per root
	nextLabel    uint32
	wakeLabels   []uint32 // islands to wake whole (flushWakes)

	// joints
	connected       []uint64 // jointed body pairs (a<<32 | b, a < b), sorted: they do not collide
	jointColorStart []int32
	jointColorOrder []int32
	currentJoints   []int32
	jointAdjStart   []int32
	jointAdj        []int32
	gatherJoints    bool // gatherImpulses adds the joints' recorded impulses
	split           bool // the solver's rows use split masses (Jacobi)
	jointSoft       softness
	useDirect       bool         // the joints' equality rows are solved directly (Settings.DirectJoints)
	direct          directSystem // the direct joint solve's system

	cluster []clusterScratch // the cluster being matched (cluster.go)

	// XPBD: the bodies' poses at the start of the sub-step and the corrections since
	prevPos       []Vec3
	prevRot       []Mat3
	corrX, corrTh []vec

	// the rigid solver's position passes: the bodies' pseudo-velocities and the joints' impulses kept
	// across them (solver_rigid.go)
	pseudoV, pseudoW []Vec3
	jointKeep        []jointImpulses
	pseudo           bool // a position pass is running: contact rows push out overlap, motors rest

	// the wide contact pass (wide.go): batches of eight manifolds of a colour, and where each colour's
	// batches start
	wideOn, wideDirty bool
	widePrep          bool          // the wide path computes its batches' rows as it packs them (prepareWide)
	packScratch       []packScratch // per worker: packBatch's lists (on the heap once, not at every call)
	wide, curWide     []wideBatch
	wideStart         []int32
	wideFirst         []int32 // per batch: its first entry in colorOrder
	wideLen           []uint8 // per batch: its manifolds
	wideSeg           []int32 // colour c's batches of region g start at wide[wideSeg[c*nRegions+g]]
	curColour         int     // the colour whose pass runs (fnWideRegion)
	phaseSizes        []int32 // a wide pass as phases (eachContactColour): chunks per phase
	phaseColour       []int32 // and each phase's colour

	// the wide joint pass (joint_wide.go): batches of eight joints of a colour and kind, where each
	// colour's batches start, and the joints left to solveJoint (jrest, by colour, then the overflow)
	jwideOn, jwideDirty    bool
	jwide, curJWide        []wideJointBatch
	jwideStart, jrestStart []int32
	jrest                  []int32
	gatherCap              int // the least capacity of the arrays the wide kernels gather from

	// the bodies' velocities while a stage's wide passes run, one row each and a zero row last
	// (wide.go: loadState)
	vel     []stateRow
	stateOn bool

	// per step
	h, invH       float32
	soft          softness
	staticSoft    softness
	maxPush       float32
	restThreshold float32
	useBias       bool
	posesMoved    bool // the bodies moved since the rows were last refreshed (refreshRows)

	// the plan (w.plan), written for the settings planFor by solver
	planFor     Settings
	solver      Solver
	steps       Plan
	anchorReach float32 // friction anchors further apart than this are dropped

	// loop bodies, made once so running them allocates nothing
	fnBounds, fnNarrow, fnPrepare, fnIntVel, fnIntPos, fnFinish      func(worker, lo, hi int)
	fnGather, fnJacobi, fnWarm, fnRestJacobi, fnColour, fnRestColour func(worker, lo, hi int)
	fnRefresh, fnGatherFill                                          func(worker, lo, hi int)
	fnJointMass, fnJointRefresh, fnJointWarm, fnJointColour          func(worker, lo, hi int)
	fnJointJacobi                                                    func(worker, lo, hi int)
	fnXStart, fnXSave, fnXJoint, fnXContact, fnXVel, fnXContactVel   func(worker, lo, hi int)
	fnXJointVel                                                      func(worker, lo, hi int)
	fnWide, fnWidePack, fnWideUnpack, fnWideWarm, fnWideRefresh      func(worker, lo, hi int)
	fnJWide, fnJWideMass, fnJWideWarm                                func(worker, lo, hi int)
	fnLoadState, fnStoreState                                        func(worker, lo, hi int)
	fnWideRegion, fnRegions, regionFn                                func(worker, lo, hi int)
	fnWidePhase                                                      func(worker, phase, chunk int)
	fnIslandBlock                                                    func(worker, lo, hi int)
	fnParallel                                                       func(n int, fn func(worker, lo, hi int))
}

func (p *pipeline) invalidate() {
	p.prev = p.prev[:0]
	p.slept = p.slept[:0]
}

// Close stops the world's worker goroutines. A World that is dropped without Close releases them when
// it is garbage collected.
func (w *World) Close() { w.pipe.pool.close() }

func (w *World) bindStages() {
	p := &w.pipe
	if p.fnBounds != nil {
		return
	}
	p.fnBounds = func(_, lo, hi int) { w.updateBounds(lo, hi) }
	p.fnNarrow = func(_, lo, hi int) { w.narrowPhase(lo, hi) }
	p.fnPrepare = func(_, lo, hi int) { w.prepareContacts(lo, hi) }
	p.fnIntVel = func(_, lo, hi int) { w.integrateVelocities(lo, hi) }
	p.fnIntPos = func(_, lo, hi int) { w.integratePositions(lo, hi) }
	p.fnFinish = func(_, lo, hi int) { w.finishStep(lo, hi) }
	p.fnGather = func(_, lo, hi int) { w.gatherImpulses(lo, hi) }
	p.fnJacobi = func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			w.jacobiManifold(k, p.useBias)
		}
	}
	p.fnWarm = func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			w.warmStartManifold(k)
		}
	}
	p.fnParallel = func(n int, fn func(worker, lo, hi int)) { p.pool.run(n, 1, fn) }
	p.fnGatherFill = func(_, lo, hi int) {
		for g := lo; g < hi; g++ {
			w.gatherFill(g)
		}
	}
	p.fnRefresh = func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			w.refreshManifold(&p.manifolds[k])
		}
	}
	p.fnJointMass = func(_, lo, hi int) { w.jointMasses(lo, hi) }
	p.fnJointRefresh = func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			if j := &w.joints[k]; !p.jwideOn || j.wide < 0 {
				w.refreshJoint(j) // a wide batch's joints: fnJWideMass
			}
		}
	}
	p.fnJWideMass = func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			bt := &p.jwide[i]
			wideJointRefreshKernel(w, bt)
			wideAnchorMassKernel(bt)
		}
	}
	p.fnJWideWarm = func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			if bt := &p.jwide[i]; bt.hinge {
				wideHingeWarmKernel(w, bt)
			} else {
				wideBallWarmKernel(w, bt)
			}
		}
	}
	p.fnLoadState = func(_, lo, hi int) { w.loadStateRange(lo, hi) }
	p.fnStoreState = func(_, lo, hi int) { w.storeStateRange(lo, hi) }
	p.fnJWide = func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			if bt := &p.curJWide[i]; bt.hinge {
				p.kern.hinge(w, bt, p.useBias)
			} else {
				p.kern.ball(w, bt, p.useBias)
			}
		}
	}
	p.fnJointWarm = func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			if j := &w.joints[k]; !p.jwideOn || j.wide < 0 {
				w.warmJoint(j, &p.jsums[k]) // a wide batch's joints: fnJWideWarm
			}
		}
	}
	p.fnJointJacobi = func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			w.jacobiJoint(&w.joints[k], &p.jsums[k], p.useBias)
		}
	}
	p.fnJointColour = func(_, lo, hi int) {
		for _, k := range p.currentJoints[lo:hi] {
			w.solveJoint(&w.joints[k], p.useBias)
		}
	}
	p.fnXStart = func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			w.xpbdStartContacts(&p.manifolds[k])
		}
	}
	p.fnXSave = func(_, lo, hi int) { w.xpbdSaveBodies(lo, hi) }
	p.fnXVel = func(_, lo, hi int) { w.xpbdVelocities(lo, hi) }
	p.fnXJoint = func(_, lo, hi int) {
		for _, k := range p.currentJoints[lo:hi] {
			w.xpbdJoint(&w.joints[k])
		}
	}
	p.fnXJointVel = func(_, lo, hi int) {
		for _, k := range p.currentJoints[lo:hi] {
			w.xpbdJointVelocity(&w.joints[k])
		}
	}
	p.fnXContact = func(_, lo, hi int) {
		for _, k := range p.current[lo:hi] {
			w.xpbdContact(&p.manifolds[k])
		}
	}
	p.fnXContactVel = func(_, lo, hi int) {
		for _, k := range p.current[lo:hi] {
			w.xpbdContactVelocity(&p.manifolds[k])
		}
	}
	p.fnRestJacobi = func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			w.restituteManifold(k, true)
		}
	}
	p.fnColour = func(_, lo, hi int) {
		if p.pseudo {
			for _, k := range p.current[lo:hi] {
				w.pushManifold(&p.manifolds[k])
			}
			return
		}
		for _, k := range p.current[lo:hi] {
			w.solveManifold(&p.manifolds[k], p.useBias)
		}
	}
	p.fnWide = func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			p.kern.solve(w, &p.curWide[i], p.useBias)
		}
	}
	p.fnWideRegion = func(_, lo, hi int) {
		r := p.nRegions
		for g := lo; g < hi; g++ {
			for i := p.wideSeg[p.curColour*r+g]; i < p.wideSeg[p.curColour*r+g+1]; i++ {
				p.kern.solve(w, &p.wide[i], p.useBias)
			}
		}
	}
	p.fnWidePhase = func(_, phase, g int) {
		c, r := int(p.phaseColour[phase]), p.nRegions
		lo, hi := p.wideStart[c], p.wideStart[c+1]
		if p.splitColour[c] {
			lo, hi = p.wideSeg[c*r+g], p.wideSeg[c*r+g+1]
		}
		for i := lo; i < hi; i++ {
			p.kern.solve(w, &p.wide[i], p.useBias)
		}
	}
	p.fnIslandBlock = func(worker, lo, hi int) {
		for g := lo; g < hi; g++ {
			w.islandRegionBlock(worker, g)
		}
	}
	p.fnRegions = func(worker, lo, hi int) {
		for g := lo; g < hi; g++ {
			w.regionBatches(worker, g)
		}
	}
	p.fnWideWarm = func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			p.kern.warm(w, &p.wide[i])
		}
	}
	p.fnWideRefresh = func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			p.kern.refresh(w, &p.wide[i])
		}
	}
	p.fnWidePack = func(worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			w.packBatch(worker, i)
		}
	}
	p.fnWideUnpack = func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			w.unpackWide(i)
		}
	}
	p.fnRestColour = func(_, lo, hi int) {
		for _, k := range p.current[lo:hi] {
			w.restituteManifold(int(k), false)
		}
	}
}

// selectBroadphase makes the broad phase the settings ask for, keeping the current one (and the state
// it carries between steps: SAP's order, the BVH's tree) while the kind is unchanged.
func (w *World) selectBroadphase() {
	p := &w.pipe
	kind := w.settings.Broadphase
	if p.broad == nil || p.broadKind != kind {
		switch kind {
		case SAP:
			p.broad = broad.NewSAP()
		case Grid:
			p.broad = broad.NewGrid()
		case Brute:
			p.broad = broad.Brute{}
		default:
			p.broad = bvh.New()
		}
		p.broadKind = kind
		p.fatOK = false // the new broad phase queries on the next step (and builds what BVHLevel draws)
	}
	if ph, ok := p.broad.(broad.Parallel); ok {
		ph.SetParallel(p.fnParallel, p.workers)
	}
	if t, ok := p.broad.(*bvh.LBVH); ok {
		t.RefitGrowth = w.settings.BVHRefit // at most 1: rebuild every step
	}
}

// Grain sizes, one per loop kind: a loop runs on the workers only when it gives each of two workers at
// least a grain of items (workpool.Pool.Run), and on the calling goroutine alone otherwise. These are
// the coarse grains, sized on the 2-core machine; under fine grains, where the world's trials find
// them faster (grains.go, the 16-core machine), each is fineDiv times smaller. A coarse grain is
// about 50 us of work: handing a loop to a second worker costs tens of microseconds on a loaded
// machine (waking the helper's thread, the rows' cache lines moving between cores), so a loop of less
// work is faster on one worker (issue 14). Measured per item on the 2-core machine (pile, 1 worker,
// pprof): a contact row pass (solve, relax, restitution) ~90 ns a manifold, a refresh or warm start
// ~20 ns, prepare ~280 ns, narrow ~110 ns a pair, bounds ~170 ns a body, finishing ~75 ns, integrating
// 4-250 ns; a joint's refresh, warm start or pass ~100 ns (ragdoll; jointGrain). With the grains of 256
// (bodies 1024) used for every loop before, the 221-body ragdoll ran 15 parallel loops a step of 10-30
// us each and was 25% slower on two workers than on one; the same loops serial made two workers equal
// one (docs/PERF.md). Narrow and prepare were split from 512 pairs and 256 manifolds; with the contact
// passes wide, the 386-box pyramid's two split loops were what was left of its second worker's cost
// (2 workers 3.5-4.8 ms/step against 1 worker's 3.1-4.1; at 1024 each, 3.1-3.2 against 3.1-4.3).
// Since the helpers spin between loops (workpool) a hand-off no longer waits for a thread to wake, but
// grains 4 and 8 times smaller still gained nothing on the pyramid at 2 workers (2.18-2.21 and
// 2.21-2.23 ms/step against 2.16-2.21): what is left of a hand-off is the cache lines it moves, about
// 0.2 us each between this machine's cores. The wide contact passes split by region (wide.go).
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
		return w.stepBackend()
	}
	if err := w.settings.Check(); err != nil {
		return err
	}
	w.bindStages()
	p := &w.pipe
	p.opts, p.kern = w.opts, w.opts.kernels()
	n := w.Bodies.Len()
	p.boxes = resize(p.boxes, n)
	p.dynamic = resize(p.dynamic, n)
	p.rot = resize(p.rot, n)
	p.bodyColors = resize(p.bodyColors, n)
	st := &w.Stats.Timings
	*st = Timings{}
	w.Broken = w.Broken[:0]
	w.Stats.Asleep = 0
	handed, stalls := p.pool.handed(), p.pool.stalls()
	w.Stats.FineGrains = p.pool.isFine()
	t := time.Now()
	t0 := t
	plan := w.plan()
	for k := 0; k < len(plan); k++ {
		op := plan[k]
		if op.Stage == StageIslands {
			if p.islands { // this step runs the block by island (planIslands)
				w.islandBlock(plan[k+1:k+1+op.Passes], st)
				k += op.Passes
			}
			t = time.Now()
			continue
		}
		w.runStage(op)
		now := time.Now()
		st[op.Stage] += now.Sub(t)
		t = now
	}
	w.Stats.IslandRegions = 0
	if p.islands {
		w.Stats.IslandRegions = p.nRegions
	}
	w.Stats.Handed = p.pool.handed() - handed
	w.Stats.Stalls = p.pool.stalls() - stalls
	p.pool.stepTook(t.Sub(t0), n-w.Stats.Asleep, w.Stats.Stalls > 0)
	w.StepCount++
	w.Time = float64(w.StepCount) * float64(w.settings.Dt)
	return w.checkBlowUp()
}

// plan returns the step's plan under the current settings, written again only when they change.
func (w *World) plan() Plan {
	p := &w.pipe
	if p.planFor != w.settings || p.steps == nil {
		p.planFor = w.settings
		p.solver = SolverOf(w.settings.Solver)
		p.steps = p.solver.Plan(&w.settings, p.steps[:0])
	}
	return p.steps
}

// Plan returns the stages one step runs under the world's current settings.
func (w *World) Plan() Plan { return PlanOf(w.settings) }

// runStage runs one entry of the plan on the CPU: the solver's own stages through the solver, the
// common ones here.
func (w *World) runStage(op Op) {
	p := &w.pipe
	if p.solver.run(w, op) {
		return
	}
	s := &w.settings
	n := w.Bodies.Len()
	switch op.Stage {
	case StageBounds:
		w.prepareJoints()
		w.selectBroadphase()
		p.pool.run(n, bodyGrain, p.fnBounds)
	case StageBroad:
		w.broadPhase()
	case StageNarrow:
		w.narrowPhaseAll()
		// With sleeping on, a sleeping island that an awake body now touches wakes whole, and the
		// collision stages run again so that its contacts are there for this step's solve (a few
		// rounds at most; a wake chain longer than that finishes on the next steps).
		for round := 1; s.Sleep && round < maxWakeRounds && w.wakeTouched(); round++ {
			p.pool.run(n, bodyGrain, p.fnBounds)
			w.broadPhase()
			w.narrowPhaseAll()
		}
	case StagePrepare:
		w.prepare()
	case StageIntegrateVelocities:
		p.pool.run(n, bodyGrain, p.fnIntVel)
	case StageIntegratePositions:
		p.pool.run(n, bodyGrain, p.fnIntPos)
		p.posesMoved = true
	case StageStoreImpulses:
		w.syncWideImpulses()
		w.syncWideJoints()
		if s.Sleep {
			w.restoreSleepers()
		}
		p.pool.run(n, bodyGrain, p.fnFinish)
		w.breakJoints()
		// This step's manifolds become the next step's warm-start source.
		p.prev, p.manifolds = p.manifolds, p.prev
	case StageSleep:
		w.updateSleep()
	default:
		panic("sim: the " + op.Stage.String() + " stage is not run by the " + p.solver.Kind().String() + " solver")
	}
}

// broadPhase finds the pairs of overlapping boxes: from the last query's pairs when every body is
// still inside the box that query used (keptPairs), else with the selected broad phase.
func (w *World) broadPhase() {
	p := &w.pipe
	w.Stats.BVH = BVHStats{}
	w.Stats.PairsKept = w.keptPairs()
	if w.Stats.PairsKept {
		p.fatUses++
	} else {
		w.queryFat()
		if t, ok := p.broad.(*bvh.LBVH); ok {
			w.Stats.BVH = BVHStats{Used: true, Rebuilt: t.Rebuilt, Stages: t.Times}
		}
	}
	if p.fatMargin == 0 {
		p.pairs = append(p.pairs[:0], p.fatPairs...) // the boxes' own pairs
	} else {
		// The pairs whose own boxes overlap, in the query's order: exactly what the broad phase gives
		// for the boxes themselves (every box lies inside its grown one, so every such pair is among
		// the grown boxes' pairs, and the moving flags are the query's).
		p.pairs = p.pairs[:0]
		for _, pr := range p.fatPairs {
			if a, b := &p.boxes[pr.A], &p.boxes[pr.B]; boxesOverlap(a, b) {
				p.pairs = append(p.pairs, pr)
			}
		}
	}
	w.Stats.Pairs = len(p.pairs)
}

// narrowPhaseAll makes the manifolds of every pair and matches them with last step's.
func (w *World) narrowPhaseAll() {
	p := &w.pipe
	p.cand = resize(p.cand, len(p.pairs))
	p.candN = resize(p.candN, len(p.pairs))
	p.candMesh = resize(p.candMesh, len(p.pairs))
	p.candFrom = resize(p.candFrom, len(p.pairs))
	p.candMargin = resize(p.candMargin, len(p.pairs))
	p.cacheOn = w.ContactCacheOn()
	p.speculative = w.settings.Speculative
	if len(p.meshCand) < len(p.pairs) {
		p.meshCand = append(p.meshCand, make([][]collide.Manifold, len(p.pairs)-len(p.meshCand))...)
	}
	p.pool.run(len(p.pairs), pairGrain, p.fnNarrow)
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
	p.h, p.invH, p.soft, p.staticSoft, p.jointSoft = stepSoftness(s)
	p.maxPush = s.MaxPushOut
	p.restThreshold = s.RestitutionThreshold
	p.anchorReach = 2 * s.LinearSlop
	p.split = p.solver.traits().split
	p.buildAdjacency(n)
	p.jointAdjacency(n, w.joints)
	p.useDirect = s.DirectJoints && p.solver.Params().Has(ParamDirectJoints) && len(w.joints) > 0
	w.Stats.Colors = 0
	p.islands = false
	if p.solver.traits().colours {
		p.colourJoints(b, w.joints)
		p.planIslands(b, w.joints)
		p.colourManifolds(b)
		w.Stats.Colors = p.colors
	}
	p.sums = resize(p.sums, len(p.manifolds))
	p.jsums = resize(p.jsums, len(w.joints))
	w.decideWide()
	p.pool.run(len(p.manifolds), manifoldGrain, p.fnPrepare)
	p.pool.run(len(w.joints), jointGrain, p.fnJointMass)
	if p.useDirect {
		w.prepareDirect()
	}
	if s.NoWarmStart {
		w.resetJointImpulses()
	}
	w.planWideJoints()
	w.packWide()
	w.planState()
	p.posesMoved = true // the rows are refreshed before the first pass reads them
}

// eachColour runs fn over the manifolds of each colour in turn (in parallel within a colour), then
// over the overflow serially.
func (w *World) eachColour(fn func(worker, lo, hi int)) {
	p := &w.pipe
	p.runColours(p.colorStart, p.colorOrder, &p.current, passGrain, fn)
}

// runColours runs fn over each colour's items (order[start[c]:start[c+1]], published in *current) in
// turn, in parallel within a colour, then over the overflow (colour maxColors) serially.
func (p *pipeline) runColours(start, order []int32, current *[]int32, grain int, fn func(worker, lo, hi int)) {
	for c := 0; c < maxColors; c++ {
		lo, hi := start[c], start[c+1]
		if lo == hi {
			continue
		}
		*current = order[lo:hi]
		p.pool.run(int(hi-lo), grain, fn)
	}
	if lo, hi := start[maxColors], start[maxColors+1]; hi > lo {
		*current = order[lo:hi]
		fn(0, 0, int(hi-lo))
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
