package sim

// loop names one of the step's parallel loops: a body over a range of items (bodies, pairs, manifolds,
// joints, batches or regions) that the worker pool splits into chunks. Each kind has one body
// (World.body), so a stage's loops are found by name and running one allocates nothing.
type loop uint8

// The loops.
const (
	loopBounds       loop = iota // StageBounds: each body's box (updateBounds), over bodies
	loopNarrow                   // StageNarrow: each pair's manifolds (narrowPhase), over pairs
	loopPrepare                  // StagePrepare: each manifold's rows (prepareContacts), over manifolds
	loopIntVel                   // StageIntegrateVelocities, over bodies
	loopIntPos                   // StageIntegratePositions, over bodies
	loopFinish                   // StageStoreImpulses: world inertias and the bodies' end of step, over bodies
	loopGather                   // the impulses the rows recorded, summed per body (gatherImpulses), over bodies
	loopJacobi                   // a Jacobi pass over manifolds
	loopWarm                     // the warm start's impulses of manifolds
	loopGatherFill               // the narrow phase's manifolds gathered into the step's list, over chunks of pairs
	loopRefresh                  // the rows of manifolds brought to the current poses
	loopRefreshSep               // the same, the separations alone (solverTraits.separationsOnly)
	loopJointMass                // the joints' masses for the step
	loopJointRefresh             // the joints' rows brought to the current poses (those outside wide batches)
	loopJWideMass                // the same for the wide joint batches
	loopJWideWarm                // the wide joint batches' warm start
	loopLoadState                // the bodies' velocities into the velocity rows
	loopStoreState               // the velocity rows back into the bodies
	loopJWide                    // a wide pass over the joint batches of the colour being solved
	loopJointWarm                // the joints' warm start (those outside wide batches)
	loopJRestRefresh             // loopJointRefresh over a list of joints (jointWideStage.jrest: those outside the batches)
	loopJRestWarm                // loopJointWarm over such a list
	loopJRestMass                // loopJointMass over such a list
	loopJointJacobi              // a Jacobi pass over joints
	loopJointColour              // a Gauss-Seidel pass over the joints of the colour being solved
	loopXStart                   // XPBD: the manifolds' sub-step start
	loopXSave                    // XPBD: the bodies' poses at the sub-step's start
	loopXVel                     // XPBD: the velocities from the pose change
	loopXJoint                   // XPBD: a position pass over the colour's joints
	loopXJointVel                // XPBD: the velocity pass over the colour's joints
	loopXContact                 // XPBD: a position pass over the colour's manifolds
	loopXContactVel              // XPBD: the velocity pass over the colour's manifolds
	loopRestJacobi               // a Jacobi restitution pass over manifolds
	loopColour                   // a Gauss-Seidel pass over the manifolds of the colour being solved (position passes: pushManifold)
	loopWide                     // a wide pass over the contact batches of the colour being solved
	loopWideRegion               // a wide pass over the colour's contact batches, by region
	loopIslandBlock              // the sub-steps of an island block, by region
	loopWideWarm                 // the contact batches' warm start
	loopWideRefresh              // the contact batches' rows brought to the current poses
	loopWidePack                 // the contact batches packed from the manifolds
	loopWideUnpack               // the contact batches' impulses back into the manifolds
	loopRestColour               // a restitution pass over the manifolds of the colour being solved
	loopRegions                  // eachRegion: the loop inner, region by region, over regions
	loopWidePhase                // a wide pass over the contact batches by phases: a colour each, a chunk per region where the colour is split
)

// loopStage holds the pool's entry points, bound once, and what the loop that runs is given: body
// runs the loop cur over a range of items, phase runs it over a phase's chunk (body gets the phase and
// the chunk for lo and hi), parallel runs the broad phase's own loops. inner is the loop a loopRegions
// runs region by region, items the manifold or joint indices a loop over a list runs over (a
// colour's, the overflow), and mode the pass mode of the plan's op whose passes run (Op.Mode), set by
// the op's executor and handed by body to the rows as an argument.
type loopStage struct {
	cur, inner loop
	items      []int32
	mode       PassMode
	sums       bool // the wide pass also records its batches' warm-start sums (warmFollows)
	body       func(worker, lo, hi int)
	phase      func(worker, phase, chunk int)
	parallel   func(n int, fn func(worker, lo, hi int))
}

// bindLoops makes the pool's entry points once.
func (w *World) bindLoops() {
	p := &w.pipe
	if p.loops.body != nil {
		return
	}
	p.loops.body = func(worker, lo, hi int) { w.body(p.loops.cur, worker, lo, hi) }
	p.loops.phase = func(worker, phase, chunk int) { w.body(p.loops.cur, worker, phase, chunk) }
	p.loops.parallel = func(n int, fn func(worker, lo, hi int)) { p.work.pool.run(n, 1, fn) }
}

// each runs loop l over [0, n) on the worker pool, in chunks of at least grain items (fewer items run
// on the caller alone).
func (w *World) each(l loop, n, grain int) {
	p := &w.pipe
	p.loops.cur = l
	p.work.pool.run(n, grain, p.loops.body)
}

// eachOf runs loop l over the manifold or joint indices items on the worker pool, in chunks of at
// least grain; a grain of 0 runs them all on the caller.
func (w *World) eachOf(l loop, items []int32, grain int) {
	w.pipe.loops.items = items
	if grain == 0 {
		w.body(l, 0, 0, len(items))
		return
	}
	w.each(l, len(items), grain)
}

// eachPhase runs loop l over every chunk of every phase (sizes[k] chunks in phase k), phase by phase,
// on the worker pool in one hand-off.
func (w *World) eachPhase(l loop, sizes []int32) {
	p := &w.pipe
	p.loops.cur = l
	p.work.pool.runPhases(sizes, p.loops.phase)
}

// eachInner runs loopRegions over r regions, each running loop inner over its region's batches.
func (w *World) eachInner(inner loop, r int) {
	w.pipe.loops.inner = inner
	w.each(loopRegions, r, 1)
}

// fineGrains reports whether the step runs with fine grains (grains.go).
func (w *World) fineGrains() bool { return w.pipe.work.pool.isFine() }

// body runs loop l over the items [lo, hi) on worker.
func (w *World) body(l loop, worker, lo, hi int) {
	p := &w.pipe
	switch l {
	case loopBounds:
		w.updateBounds(lo, hi)
	case loopNarrow:
		w.narrowPhase(lo, hi)
	case loopPrepare:
		w.prepareContacts(lo, hi)
	case loopIntVel:
		w.integrateVelocities(lo, hi)
	case loopIntPos:
		w.integratePositions(lo, hi)
	case loopFinish:
		w.finishStep(lo, hi)
	case loopGather:
		w.gatherImpulses(lo, hi)
	case loopJacobi:
		for k := lo; k < hi; k++ {
			w.jacobiManifold(k, p.loops.mode.bias())
		}

	case loopWarm:
		for k := lo; k < hi; k++ {
			w.warmStartManifold(k)
		}

	case loopGatherFill:
		for g := lo; g < hi; g++ {
			w.gatherFill(g)
		}

	case loopRefresh:
		for k := lo; k < hi; k++ {
			w.refreshManifold(&p.narrow.manifolds[k])
		}
	case loopRefreshSep:
		for k := lo; k < hi; k++ {
			w.refreshSeparations(&p.narrow.manifolds[k])
		}

	case loopJointMass:
		w.jointMasses(lo, hi)
	case loopJointRefresh:
		for k := lo; k < hi; k++ {
			if j := &w.joints[k]; !p.jwide.jwideOn || j.wide < 0 {
				w.refreshJoint(j) // a wide batch's joints: fnJWideMass
			}
		}

	case loopJWideMass:
		for i := lo; i < hi; i++ {
			w.refreshJointBatch(&p.jwide.jwide[i])
		}

	case loopJWideWarm:
		for i := lo; i < hi; i++ {
			w.warmJointBatch(&p.jwide.jwide[i], p.joints.jsums)
		}

	case loopLoadState:
		w.loadStateRange(lo, hi)
	case loopStoreState:
		w.storeStateRange(lo, hi)
	case loopJWide:
		for i := lo; i < hi; i++ {
			w.solveJointBatch(p.work.kern, &p.jwide.curJWide[i], p.loops.mode)
		}

	case loopJointWarm:
		for k := lo; k < hi; k++ {
			if j := &w.joints[k]; !p.jwide.jwideOn || j.wide < 0 {
				w.warmJoint(j, &p.joints.jsums[k]) // a wide batch's joints: fnJWideWarm
			}
		}

	case loopJRestRefresh:
		for _, k := range p.loops.items[lo:hi] {
			w.refreshJoint(&w.joints[k])
		}
	case loopJRestMass:
		for _, k := range p.loops.items[lo:hi] {
			w.jointMasses(int(k), int(k)+1)
		}
	case loopJRestWarm:
		for _, k := range p.loops.items[lo:hi] {
			w.warmJoint(&w.joints[k], &p.joints.jsums[k])
		}

	case loopJointJacobi:
		for k := lo; k < hi; k++ {
			w.jacobiJoint(&w.joints[k], &p.joints.jsums[k], p.loops.mode)
		}

	case loopJointColour:
		for _, k := range p.loops.items[lo:hi] {
			w.solveJoint(&w.joints[k], p.loops.mode)
		}

	case loopXStart:
		for k := lo; k < hi; k++ {
			w.xpbdStartContacts(&p.narrow.manifolds[k])
		}

	case loopXSave:
		w.xpbdSaveBodies(lo, hi)
	case loopXVel:
		w.xpbdVelocities(lo, hi)
	case loopXJoint:
		for _, k := range p.loops.items[lo:hi] {
			w.xpbdJoint(&w.joints[k])
		}

	case loopXJointVel:
		for _, k := range p.loops.items[lo:hi] {
			w.xpbdJointVelocity(&w.joints[k])
		}

	case loopXContact:
		for _, k := range p.loops.items[lo:hi] {
			w.xpbdContact(&p.narrow.manifolds[k])
		}

	case loopXContactVel:
		for _, k := range p.loops.items[lo:hi] {
			w.xpbdContactVelocity(&p.narrow.manifolds[k])
		}

	case loopRestJacobi:
		for k := lo; k < hi; k++ {
			w.restituteManifold(k, true)
		}

	case loopColour:
		if p.loops.mode.pseudo() {
			for _, k := range p.loops.items[lo:hi] {
				w.pushManifold(&p.narrow.manifolds[k])
			}
			return
		}
		for _, k := range p.loops.items[lo:hi] {
			w.solveManifold(&p.narrow.manifolds[k], p.loops.mode.bias())
		}

	case loopWide:
		for i := lo; i < hi; i++ {
			w.solveBatch(&p.wide.curWide[i])
		}

	case loopWideRegion:
		for g := lo; g < hi; g++ {
			first, end := p.wide.segment(p.wide.curColour, g)
			for i := first; i < end; i++ {
				w.solveBatch(&p.wide.wide[i])
			}
		}

	case loopIslandBlock:
		for g := lo; g < hi; g++ {
			w.islandRegionBlock(worker, g)
		}

	case loopWideWarm:
		for i := lo; i < hi; i++ {
			p.work.kern.warm(w, &p.wide.wide[i])
		}

	case loopWideRefresh:
		for i := lo; i < hi; i++ {
			p.work.kern.refresh(w, &p.wide.wide[i])
		}

	case loopWidePack:
		for i := lo; i < hi; i++ {
			w.packBatch(worker, i)
		}

	case loopWideUnpack:
		for i := lo; i < hi; i++ {
			w.unpackWide(i)
		}

	case loopRestColour:
		for _, k := range p.loops.items[lo:hi] {
			w.restituteManifold(int(k), false)
		}

	case loopRegions:
		for g := lo; g < hi; g++ {
			w.regionLoop(p.loops.inner, worker, g)
		}

	case loopWidePhase:
		first, end := p.wide.phaseBatches(lo, hi) // a phase and its chunk
		for i := first; i < end; i++ {
			w.solveBatch(&p.wide.wide[i])
		}
	default:
		panic("sim: unknown loop")
	}
}

// solveBatch runs the wide pass over batch bt in the loop stage's mode, and where the pass is the last
// before a warm start (loopStage.sums) records the batch's warm-start sums after it, while its rows
// are in the cache.
func (w *World) solveBatch(bt *wideBatch) {
	p := &w.pipe
	p.work.kern.solve(w, bt, p.loops.mode.bias())
	if p.loops.sums {
		p.work.kern.warm(w, bt)
	}
}
