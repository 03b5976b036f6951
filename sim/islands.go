package sim

import (
	"slices"
	"time"
)

// Sub-steps by island. Stage by stage, every stage of a sub-step waits for every worker,
// and within a pass every colour does, because two colours' rows share bodies. Rows in two islands
// (groups of dynamic bodies that no contact or joint links) share none, and neither do their bodies'
// integration. So under fine grains, a world whose constraints fall into islands that can be dealt
// out evenly gives each worker whole islands (its region), and the step's sub-steps (integrate
// velocities, warm start, solve, integrate positions, relax: islandBlock) run as one hand-off, each
// region's every stage and colour on one worker with no wait between them, as Jolt solves islands
// (Box2D v3 solves its one constraint graph colour by colour instead). Worlds of many small islands
// (ragdolls or stacks apart, boxes raining before they heap) have colours too small to split between
// workers; the ragdoll preset is not one: its twenty ragdolls are one pile, one island. The regions
// are also the ones the contact batches are packed, refreshed, warm-started and unpacked by
// (eachRegion). A world with a kinematic body, a joint or a manifold that fits no colour, or the direct
// joint solve runs stage by stage.
//
// The result is the stage-by-stage step's bit for bit: a region's bodies and rows go through the
// stages in the order the whole world's do (the joints colour by colour, then the contacts colour by
// colour), and no other region's rows touch its bodies (TestGrainsChangeNoResult).

// islandBalance: the sub-steps go by island when the heaviest region holds at most islandBalance
// percent of an even share of the rows, so that the regions take about as long as each other.
const islandBalance = 125

// islandRecheck: a world found to be one island, or nearly (a heap that holds most of the rows), is
// looked at again only after this many steps: the look (a union-find over the rows) cost the 386-box
// pyramid a few percent of its prepare stage at every step.
const islandRecheck = 16

// maxIslandRegions is the most regions the islands are dealt to.
const maxIslandRegions = 64

// islandInputs is what planIslands reads of the rest of the step, handed over by prepare.
type islandInputs struct {
	workers   int        // the step's workers: at most one region each
	eligible  bool       // the plan, the options and the rows allow a block by island at all
	manifolds []manifold // this step's contacts
}

// planIslands decides whether this step's sub-steps run by island, before the colours
// are grouped by region (colourManifolds), and if so gives every dynamic body in a constrained island
// its region (s.bodyRegion) and sets s.nIslandRegions. The islands are dealt out in the order of their
// lowest body, each to the region its middle falls in when their weights (a manifold's points, four
// per joint) are laid end to end: no sort, and a world that does not change keeps its regions.
func (s *islandStage) planIslands(in islandInputs, b *Bodies, joints []joint) {
	s.on = false
	if !in.eligible {
		return
	}
	if s.islandWait > 0 { // the last look found one island holding most of the rows
		s.islandWait--
		return
	}
	n := b.Len()
	for i := range n {
		if b.Type[i] == Kinematic {
			return // it moves in the sub-steps, and rows of several regions may read it
		}
	}
	s.island.reset(n)
	dyn := b.InvMass
	for k := range in.manifolds {
		if m := &in.manifolds[k]; dyn[m.a] != 0 && dyn[m.b] != 0 {
			s.island.union(m.a, m.b)
		}
	}
	for k := range joints {
		if j := &joints[k]; j.b >= 0 && dyn[j.a] != 0 && dyn[j.b] != 0 {
			s.island.union(j.a, j.b)
		}
	}
	// weight of each island, at its root (the island's lowest body)
	wt := resize(s.islandWeight, n)
	clear(wt)
	s.islandWeight = wt
	root := func(a, b int32) int32 {
		if dyn[a] == 0 {
			return s.island.find(b)
		}
		return s.island.find(a)
	}
	for k := range in.manifolds {
		m := &in.manifolds[k]
		wt[root(m.a, m.b)] += m.count
	}
	for k := range joints {
		j := &joints[k]
		if j.b < 0 {
			wt[s.island.find(j.a)] += 4
		} else {
			wt[root(j.a, j.b)] += 4
		}
	}
	var total, heaviest int64
	count := 0
	for i, v := range wt {
		if v > 0 && s.island[i] == int32(i) {
			total += int64(v)
			heaviest = max(heaviest, int64(v))
			count++
		}
	}
	// As many regions as the heaviest island leaves room for, no region's share under it; and if
	// dealing the islands out leaves the regions uneven (twenty equal islands in sixteen regions:
	// some get two), as many as give each region the same number of them (ten of two).
	if count < 2 {
		s.islandWait = islandRecheck * count // one island: it will not come apart at once
		return
	}
	r := int(min(int64(min(in.workers, count)), total/heaviest))
	if r >= 2 && !s.dealIslands(r, total) {
		per := (count + r - 1) / r
		r = (count + per - 1) / per
		if r < 2 || !s.dealIslands(r, total) {
			return
		}
	}
	if r < 2 || 2*r < in.workers {
		// Fewer regions than half the workers: colour by colour, a colour's pass is split wider.
		s.islandWait = islandRecheck
		return
	}
	for i := range s.bodyRegion {
		if dyn[i] != 0 {
			s.bodyRegion[i] = s.bodyRegion[s.island.find(int32(i))]
		}
	}
	s.bodyRuns(b, r)
	s.on = true
	s.nIslandRegions = r
}

// bodyRuns lists each region's bodies as runs of consecutive indices (s.runs[2*k], s.runs[2*k+1]: the
// k-th run's first and end; region g's runs are k in runStart[g]:runStart[g+1]): its islands' bodies,
// and the dynamic bodies in no constraint dealt out by index (i*r/n), which the sub-steps integrate
// too. Static bodies are in none: the sub-steps never write them.
func (s *islandStage) bodyRuns(b *Bodies, r int) {
	n := b.Len()
	region := func(i int) int32 {
		if b.Type[i] != Dynamic {
			return -1
		}
		if g := s.bodyRegion[i]; g >= 0 {
			return g
		}
		return int32(i * r / n)
	}
	s.runStart = resize(s.runStart, r+1)
	clear(s.runStart)
	for i := 0; i < n; i++ { // count each region's runs
		if g := region(i); g >= 0 && (i == 0 || region(i-1) != g) {
			s.runStart[g+1]++
		}
	}
	for g := range r {
		s.runStart[g+1] += s.runStart[g]
	}
	s.runs = resize(s.runs, 2*int(s.runStart[r]))
	next := resize(s.runNext, r)
	copy(next, s.runStart[:r])
	s.runNext = next
	for i := 0; i < n; {
		g := region(i)
		j := i + 1
		for j < n && region(j) == g {
			j++
		}
		if g >= 0 {
			k := next[g]
			s.runs[2*k], s.runs[2*k+1] = int32(i), int32(j)
			next[g]++
		}
		i = j
	}
}

// dealIslands deals the islands (the roots with a weight in s.islandWeight, of total weight total) out
// to r regions in the order of their lowest body, setting their roots' s.bodyRegion, and reports
// whether the heaviest region holds at most islandBalance percent of an even share.
func (s *islandStage) dealIslands(r int, total int64) bool {
	s.bodyRegion = resize(s.bodyRegion, len(s.islandWeight))
	var at int64
	var load [maxIslandRegions]int64
	for i, v := range s.islandWeight {
		s.bodyRegion[i] = -1
		if v > 0 && s.island[i] == int32(i) {
			g := int32((2*at + int64(v)) * int64(r) / (2 * total))
			s.bodyRegion[i] = g
			load[g] += int64(v)
			at += int64(v)
		}
	}
	return slices.Max(load[:r])*int64(r)*100 <= islandBalance*total
}

// islandRegion is the region of a row between bodies a and c (c may be -1): its dynamic body's, of
// the regions bodyRegion gives (islandStage.bodyRegion).
func islandRegion(bodyRegion []int32, b *Bodies, a, c int32) int32 {
	if b.InvMass[a] == 0 && c >= 0 {
		return bodyRegion[c]
	}
	return bodyRegion[a]
}

// islandBlock runs the plan's sub-steps, ops (the ops of a StageIslands block), by island: one hand-off, each
// region's every stage on one worker. It adds the block's wall time to st, shared between the stages
// as the regions' own times of each are.
func (w *World) islandBlock(ops []Op, st *Timings) {
	p := &w.pipe
	t0 := time.Now()
	if p.wide.stateOn { // the other bodies' rows, which no region loads (each loads its own dynamic bodies')
		b := &w.Bodies
		n := b.Len()
		p.wide.vel = resize(p.wide.vel, n+1)
		p.wide.vel[n] = stateRow{}
		for i := range n {
			if b.Type[i] != Dynamic {
				w.loadStateRange(i, i+1)
			}
		}
	}
	p.graph.gather.joints = true
	p.islands.islandOps = ops
	p.islands.rows = regionRows{
		r: p.graph.nRegions, kern: p.work.kern, stateOn: p.wide.stateOn, jsums: p.joints.jsums,
		wideOn: p.wide.wideOn, sumsReady: p.wide.wideOn && p.wide.sumsReady, wide: p.wide.wide, wideSeg: p.wide.wideSeg,
		jwideOn: p.jwide.jwideOn, jwide: p.jwide.jwide, jwideSeg: p.jwide.jwideSeg, jrest: p.jwide.jrest, jrestSeg: p.jwide.jrestSeg,
	}
	p.islands.islandTimes = resize(p.islands.islandTimes, max(p.work.workers, 1))
	clear(p.islands.islandTimes)
	w.each(loopIslandBlock, p.graph.nRegions, 1)
	// as the stages would leave them
	p.wide.wideDirty, p.jwide.jwideDirty = p.wide.wideOn, p.jwide.jwideOn
	p.wide.sumsReady = false
	last := ops[len(ops)-1]
	p.plan.posesMoved = last.Stage == StageIntegratePositions
	p.loops.mode = last.Mode
	var sum Timings
	var all time.Duration
	for k := range p.islands.islandTimes {
		for s, d := range p.islands.islandTimes[k].t {
			sum[s] += d
			all += d
		}
	}
	wall := time.Since(t0)
	for s, d := range sum {
		if all > 0 {
			st[s] += time.Duration(float64(wall) * float64(d) / float64(all))
		}
	}
}

// islandTimes is a worker's time in each stage over a block's regions, apart from the next worker's.
type islandTimes struct {
	t Timings
	_ [64]byte
}

// regionRows is what a region's sub-steps read of the other stages, handed over by islandBlock: the
// lane kernels, the contact and joint batches with where each colour's batches of each of the r
// regions start, the joints left to solveJoint, the joints' impulse sums, and whether the passes run
// on the wide stage's velocity rows.
type regionRows struct {
	r                  int
	kern               *laneKernels
	stateOn            bool
	jsums              []impulseSum
	wideOn             bool
	sumsReady          bool // the packing recorded the batches' warm-start sums (wideInputs.warmSums)
	wide               []wideBatch
	wideSeg            []int32
	jwideOn            bool
	jwide              []wideJointBatch
	jwideSeg, jrestSeg []int32
	jrest              []int32
}

// islandRegionBlock runs the block's stages (s.islandOps) over region g: its bodies (s.runs), its
// contacts and joints, as the stages run them over the whole world.
func (w *World) islandRegionBlock(worker, g int) {
	s := &w.pipe.islands
	runs := s.runs[2*s.runStart[g] : 2*s.runStart[g+1]]
	bodies := func(fn func(lo, hi int)) {
		for k := 0; k < len(runs); k += 2 {
			fn(int(runs[k]), int(runs[k+1]))
		}
	}
	tm := &s.islandTimes[worker].t
	moved := true // prepare leaves the rows to be refreshed
	ready := s.rows.sumsReady
	t := time.Now()
	for k, op := range s.islandOps {
		switch op.Stage {
		case StageIntegrateVelocities:
			bodies(w.integrateVelocities)
		case StageIntegratePositions:
			bodies(w.integratePositions)
			moved = true
		case StageWarmStart:
			if moved {
				w.islandRefresh(g)
				moved = false
			}
			w.islandWarm(g, ready)
			ready = false
			bodies(w.gatherImpulses)
		case StageSolve, StageRelax:
			if moved {
				w.islandRefresh(g)
				moved = false
			}
			if s.rows.stateOn {
				bodies(w.loadStateRange)
			}
			// the last pass records the warm-start sums where a warm start reads them next
			ready = s.rows.wideOn && op.Passes > 0 && warmFollows(s.islandOps, k)
			w.islandPasses(g, op.Passes, op.Mode, ready)
			if s.rows.stateOn {
				bodies(w.storeStateRange)
			}
		}
		now := time.Now()
		tm[op.Stage] += now.Sub(t)
		t = now
	}
}

// islandRefresh brings region g's contact and joint rows to the bodies' poses (refreshRows).
func (w *World) islandRefresh(g int) {
	w.islandRows(g, w.pipe.islands.rows.kern.refresh, func(w *World, bt *wideJointBatch) {
		w.refreshJointBatch(bt)
	}, func(w *World, k int32) { w.refreshJoint(&w.joints[k]) })
}

// islandWarm records region g's contacts' and joints' warm-start impulses (warmStart, before the
// gather); the contact batches' only where the last pass over them has not (ready).
func (w *World) islandWarm(g int, ready bool) {
	rows := &w.pipe.islands.rows
	contact := rows.kern.warm
	if ready {
		contact = func(*World, *wideBatch) {}
	}
	w.islandRows(g, contact, func(w *World, bt *wideJointBatch) {
		w.warmJointBatch(bt, rows.jsums)
	}, func(w *World, k int32) { w.warmJoint(&w.joints[k], &rows.jsums[k]) })
}

// islandRows runs contact over region g's contact batches, joint over its joint batches and rest over
// its other joints, colour by colour. The order is free: refresh and warm start each write a row's own
// state only.
func (w *World) islandRows(g int, contact func(*World, *wideBatch), joint func(*World, *wideJointBatch), rest func(*World, int32)) {
	v := &w.pipe.islands.rows
	r := v.r
	for c := 0; c < maxColors; c++ {
		if v.wideOn {
			for i := v.wideSeg[c*r+g]; i < v.wideSeg[c*r+g+1]; i++ {
				contact(w, &v.wide[i])
			}
		}
		if v.jwideOn {
			for i := v.jwideSeg[c*r+g]; i < v.jwideSeg[c*r+g+1]; i++ {
				joint(w, &v.jwide[i])
			}
			for _, k := range v.jrest[v.jrestSeg[c*r+g]:v.jrestSeg[c*r+g+1]] {
				rest(w, k)
			}
		}
	}
}

// islandPasses runs passes of the given mode over region g's rows: its joints colour by colour, then its contacts
// colour by colour, as jointPass and eachContactColour visit them. With sums the last pass records the
// contact batches' warm-start sums after each batch (loopStage.sums).
func (w *World) islandPasses(g, passes int, mode PassMode, sums bool) {
	useBias := mode.bias()
	v := &w.pipe.islands.rows
	r := v.r
	for pass := range passes {
		if v.jwideOn {
			for c := 0; c < maxColors; c++ {
				for i := v.jwideSeg[c*r+g]; i < v.jwideSeg[c*r+g+1]; i++ {
					w.solveJointBatch(v.kern, &v.jwide[i], mode)
				}
				for _, k := range v.jrest[v.jrestSeg[c*r+g]:v.jrestSeg[c*r+g+1]] {
					w.solveJoint(&w.joints[k], mode)
				}
			}
		}
		if v.wideOn {
			for c := 0; c < maxColors; c++ {
				for i := v.wideSeg[c*r+g]; i < v.wideSeg[c*r+g+1]; i++ {
					v.kern.solve(w, &v.wide[i], useBias)
					if sums && pass == passes-1 {
						v.kern.warm(w, &v.wide[i])
					}
				}
			}
		}
	}
}

// jointsByRegion returns the coloured joints (colorOrder, by colour: colorStart) ordered by colour,
// then region (stable), with seg[c*r+g] the first of colour c's joints of region g, and r the
// regions.
func (s *islandStage) jointsByRegion(b *Bodies, joints []joint, colorOrder, colorStart []int32, r int) (order, seg []int32) {
	colored := colorOrder[:colorStart[maxColors]]
	key := func(k int32) int {
		j := &joints[k]
		return int(j.color)*r + int(islandRegion(s.bodyRegion, b, j.a, j.b))
	}
	seg = resize(s.jointSeg, maxColors*r+1)
	clear(seg)
	for _, k := range colored {
		seg[key(k)+1]++
	}
	for i := 1; i < len(seg); i++ {
		seg[i] += seg[i-1]
	}
	order = resize(s.jointOrder, len(colored))
	for _, k := range colored {
		key := key(k)
		order[seg[key]] = k
		seg[key]++
	}
	copy(seg[1:], seg) // back to the starts
	seg[0] = 0
	s.jointSeg, s.jointOrder = seg, order
	return order, seg
}

// islandStage is the sub-steps by island (StageIslands).
type islandStage struct {
	// sub-steps by island (islands.go)
	on             bool          // this step's sub-steps run by island, a region each
	nIslandRegions int           // the regions the islands are dealt to
	islandWait     int           // steps before planIslands looks at the islands again
	bodyRegion     []int32       // per body: its island's region (-1 for a body in no constraint)
	island         unionFind     // the islands of dynamic bodies (planIslands)
	islandWeight   []int32       // per island root: its rows' weight
	islandOps      []Op          // the sub-steps' stages running by island (islandBlock)
	rows           regionRows    // what the block's regions read of the other stages (islandBlock)
	islandTimes    []islandTimes // per worker: its time in each stage of the block
	runs           []int32       // by island: runs of consecutive bodies, first and end (bodyRuns)
	runStart       []int32       // region g's runs are runs[2*runStart[g]:2*runStart[g+1]]
	runNext        []int32       // bodyRuns' scratch
	jointOrder     []int32       // by island: the joints by colour, then region (jointsByRegion)
	jointSeg       []int32       // where colour c's joints of region g start in jointOrder
}
