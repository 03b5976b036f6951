package sim

import (
	"slices"
	"time"
)

// Sub-steps by island (issue 14). Stage by stage, every stage of a sub-step waits for every worker,
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

// planIslands decides whether this step's sub-steps run by island, before the colours
// are grouped by region (colourManifolds), and if so gives every dynamic body in a constrained island
// its region (p.bodyRegion) and sets p.nIslandRegions. The islands are dealt out in the order of their
// lowest body, each to the region its middle falls in when their weights (a manifold's points, four
// per joint) are laid end to end: no sort, and a world that does not change keeps its regions.
func (p *pipeline) planIslands(b *Bodies, joints []joint) {
	p.islands = false
	if p.workers < 2 || p.workers > maxIslandRegions || !p.pool.isFine() || p.opts.NoIslands || !p.steps.Uses(StageIslands) ||
		p.split || p.useDirect || p.kern == nil || (len(joints) > 0 && !p.jointsWide()) {
		return
	}
	if len(joints) > 0 && p.jointColorStart[maxColors+1] > p.jointColorStart[maxColors] {
		return // a joint that fits no colour is solved after them all
	}
	if p.islandWait > 0 { // the last look found one island holding most of the rows
		p.islandWait--
		return
	}
	n := b.Len()
	for i := range n {
		if b.Type[i] == Kinematic {
			return // it moves in the sub-steps, and rows of several regions may read it
		}
	}
	p.island = resize(p.island, n)
	for i := range p.island {
		p.island[i] = int32(i)
	}
	dyn := b.InvMass
	for k := range p.manifolds {
		if m := &p.manifolds[k]; dyn[m.a] != 0 && dyn[m.b] != 0 {
			p.union(m.a, m.b)
		}
	}
	for k := range joints {
		if j := &joints[k]; j.b >= 0 && dyn[j.a] != 0 && dyn[j.b] != 0 {
			p.union(j.a, j.b)
		}
	}
	// weight of each island, at its root (the island's lowest body)
	wt := resize(p.islandWeight, n)
	clear(wt)
	p.islandWeight = wt
	root := func(a, b int32) int32 {
		if dyn[a] == 0 {
			return p.find(b)
		}
		return p.find(a)
	}
	for k := range p.manifolds {
		m := &p.manifolds[k]
		wt[root(m.a, m.b)] += m.count
	}
	for k := range joints {
		j := &joints[k]
		if j.b < 0 {
			wt[p.find(j.a)] += 4
		} else {
			wt[root(j.a, j.b)] += 4
		}
	}
	var total, heaviest int64
	count := 0
	for i, v := range wt {
		if v > 0 && p.island[i] == int32(i) {
			total += int64(v)
			heaviest = max(heaviest, int64(v))
			count++
		}
	}
	// As many regions as the heaviest island leaves room for, no region's share under it; and if
	// dealing the islands out leaves the regions uneven (twenty equal islands in sixteen regions:
	// some get two), as many as give each region the same number of them (ten of two).
	if count < 2 {
		p.islandWait = islandRecheck * count // one island: it will not come apart at once
		return
	}
	r := int(min(int64(min(p.workers, count)), total/heaviest))
	if r >= 2 && !p.dealIslands(r, total) {
		per := (count + r - 1) / r
		r = (count + per - 1) / per
		if r < 2 || !p.dealIslands(r, total) {
			return
		}
	}
	if r < 2 || 2*r < p.workers {
		// Fewer regions than half the workers: colour by colour, a colour's pass is split wider.
		p.islandWait = islandRecheck
		return
	}
	for i := range p.bodyRegion {
		if dyn[i] != 0 {
			p.bodyRegion[i] = p.bodyRegion[p.find(int32(i))]
		}
	}
	p.bodyRuns(b, r)
	p.islands = true
	p.nIslandRegions = r
}

// bodyRuns lists each region's bodies as runs of consecutive indices (p.runs[2*k], p.runs[2*k+1]: the
// k-th run's first and end; region g's runs are k in runStart[g]:runStart[g+1]): its islands' bodies,
// and the dynamic bodies in no constraint dealt out by index (i*r/n), which the sub-steps integrate
// too. Static bodies are in none: the sub-steps never write them.
func (p *pipeline) bodyRuns(b *Bodies, r int) {
	n := b.Len()
	region := func(i int) int32 {
		if b.Type[i] != Dynamic {
			return -1
		}
		if g := p.bodyRegion[i]; g >= 0 {
			return g
		}
		return int32(i * r / n)
	}
	p.runStart = resize(p.runStart, r+1)
	clear(p.runStart)
	for i := 0; i < n; i++ { // count each region's runs
		if g := region(i); g >= 0 && (i == 0 || region(i-1) != g) {
			p.runStart[g+1]++
		}
	}
	for g := range r {
		p.runStart[g+1] += p.runStart[g]
	}
	p.runs = resize(p.runs, 2*int(p.runStart[r]))
	next := resize(p.runNext, r)
	copy(next, p.runStart[:r])
	p.runNext = next
	for i := 0; i < n; {
		g := region(i)
		j := i + 1
		for j < n && region(j) == g {
			j++
		}
		if g >= 0 {
			k := next[g]
			p.runs[2*k], p.runs[2*k+1] = int32(i), int32(j)
			next[g]++
		}
		i = j
	}
}

// dealIslands deals the islands (the roots with a weight in p.islandWeight, of total weight total) out
// to r regions in the order of their lowest body, setting their roots' p.bodyRegion, and reports
// whether the heaviest region holds at most islandBalance percent of an even share.
func (p *pipeline) dealIslands(r int, total int64) bool {
	p.bodyRegion = resize(p.bodyRegion, len(p.islandWeight))
	var at int64
	var load [maxIslandRegions]int64
	for i, v := range p.islandWeight {
		p.bodyRegion[i] = -1
		if v > 0 && p.island[i] == int32(i) {
			g := int32((2*at + int64(v)) * int64(r) / (2 * total))
			p.bodyRegion[i] = g
			load[g] += int64(v)
			at += int64(v)
		}
	}
	return slices.Max(load[:r])*int64(r)*100 <= islandBalance*total
}

// jointsWide reports whether planWideJoints will lay the joints out in wide batches.
func (p *pipeline) jointsWide() bool {
	return p.kern != nil && !p.opts.partJoints && p.solver.traits().wideJoints && !p.useDirect
}

// islandRegion is the region of a row between bodies a and b (b may be -1): its dynamic body's.
func (p *pipeline) islandRegion(b *Bodies, a, c int32) int32 {
	if b.InvMass[a] == 0 && c >= 0 {
		return p.bodyRegion[c]
	}
	return p.bodyRegion[a]
}

// islandBlock runs the plan's sub-steps, ops (the ops of a StageIslands block), by island: one hand-off, each
// region's every stage on one worker. It adds the block's wall time to st, shared between the stages
// as the regions' own times of each are.
func (w *World) islandBlock(ops []Op, st *Timings) {
	p := &w.pipe
	t0 := time.Now()
	if p.stateOn { // the other bodies' rows, which no region loads (each loads its own dynamic bodies')
		b := &w.Bodies
		n := b.Len()
		p.vel = resize(p.vel, n+1)
		p.vel[n] = stateRow{}
		for i := range n {
			if b.Type[i] != Dynamic {
				w.loadStateRange(i, i+1)
			}
		}
	}
	p.gatherJoints = true
	p.islandOps = ops
	p.islandTimes = resize(p.islandTimes, max(p.workers, 1))
	clear(p.islandTimes)
	p.pool.run(p.nRegions, 1, p.fnIslandBlock)
	// as the stages would leave them
	p.wideDirty, p.jwideDirty = p.wideOn, p.jwideOn
	last := ops[len(ops)-1].Stage
	p.posesMoved = last == StageIntegratePositions
	p.useBias = last == StageSolve
	var sum Timings
	var all time.Duration
	for k := range p.islandTimes {
		for s, d := range p.islandTimes[k].t {
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

// islandRegionBlock runs the block's stages (p.islandOps) over region g: its bodies (p.runs), its
// contacts and joints, as the stages run them over the whole world.
func (w *World) islandRegionBlock(worker, g int) {
	p := &w.pipe
	runs := p.runs[2*p.runStart[g] : 2*p.runStart[g+1]]
	bodies := func(fn func(lo, hi int)) {
		for k := 0; k < len(runs); k += 2 {
			fn(int(runs[k]), int(runs[k+1]))
		}
	}
	tm := &p.islandTimes[worker].t
	moved := true // prepare leaves the rows to be refreshed
	t := time.Now()
	for _, op := range p.islandOps {
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
			w.islandWarm(g)
			bodies(w.gatherImpulses)
		case StageSolve, StageRelax:
			if moved {
				w.islandRefresh(g)
				moved = false
			}
			if p.stateOn {
				bodies(w.loadStateRange)
			}
			w.islandPasses(g, op.Passes, op.Stage == StageSolve)
			if p.stateOn {
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
	w.islandRows(g, w.pipe.kern.refresh, func(w *World, bt *wideJointBatch) {
		wideJointRefreshKernel(w, bt)
		wideAnchorMassKernel(bt)
	}, func(w *World, k int32) { w.refreshJoint(&w.joints[k]) })
}

// islandWarm records region g's contacts' and joints' warm-start impulses (warmStart, before the
// gather).
func (w *World) islandWarm(g int) {
	w.islandRows(g, w.pipe.kern.warm, func(w *World, bt *wideJointBatch) {
		if bt.hinge {
			wideHingeWarmKernel(w, bt)
		} else {
			wideBallWarmKernel(w, bt)
		}
	}, func(w *World, k int32) { w.warmJoint(&w.joints[k], &w.pipe.jsums[k]) })
}

// islandRows runs contact over region g's contact batches, joint over its joint batches and rest over
// its other joints, colour by colour. The order is free: refresh and warm start each write a row's own
// state only.
func (w *World) islandRows(g int, contact func(*World, *wideBatch), joint func(*World, *wideJointBatch), rest func(*World, int32)) {
	p := &w.pipe
	r := p.nRegions
	for c := 0; c < maxColors; c++ {
		if p.wideOn {
			for i := p.wideSeg[c*r+g]; i < p.wideSeg[c*r+g+1]; i++ {
				contact(w, &p.wide[i])
			}
		}
		if p.jwideOn {
			for i := p.jwideSeg[c*r+g]; i < p.jwideSeg[c*r+g+1]; i++ {
				joint(w, &p.jwide[i])
			}
			for _, k := range p.jrest[p.jrestSeg[c*r+g]:p.jrestSeg[c*r+g+1]] {
				rest(w, k)
			}
		}
	}
}

// islandPasses runs passes over region g's rows: its joints colour by colour, then its contacts
// colour by colour, as jointPass and eachContactColour visit them.
func (w *World) islandPasses(g, passes int, useBias bool) {
	p := &w.pipe
	r := p.nRegions
	for range passes {
		if p.jwideOn {
			for c := 0; c < maxColors; c++ {
				for i := p.jwideSeg[c*r+g]; i < p.jwideSeg[c*r+g+1]; i++ {
					if bt := &p.jwide[i]; bt.hinge {
						p.kern.hinge(w, bt, useBias)
					} else {
						p.kern.ball(w, bt, useBias)
					}
				}
				for _, k := range p.jrest[p.jrestSeg[c*r+g]:p.jrestSeg[c*r+g+1]] {
					w.solveJoint(&w.joints[k], useBias)
				}
			}
		}
		if p.wideOn {
			for c := 0; c < maxColors; c++ {
				for i := p.wideSeg[c*r+g]; i < p.wideSeg[c*r+g+1]; i++ {
					p.kern.solve(w, &p.wide[i], useBias)
				}
			}
		}
	}
}

// jointsByRegion returns the joints of the colours ordered by colour, then region (stable), with
// seg[c*r+g] the first of colour c's joints of region g, and r the regions.
func (p *pipeline) jointsByRegion(w *World) (order, seg []int32, r int) {
	r = p.nRegions
	colored := p.jointColorOrder[:p.jointColorStart[maxColors]]
	key := func(k int32) int {
		j := &w.joints[k]
		return int(j.color)*r + int(p.islandRegion(&w.Bodies, j.a, j.b))
	}
	seg = resize(p.jointSeg, maxColors*r+1)
	clear(seg)
	for _, k := range colored {
		seg[key(k)+1]++
	}
	for i := 1; i < len(seg); i++ {
		seg[i] += seg[i-1]
	}
	order = resize(p.jointOrder, len(colored))
	for _, k := range colored {
		key := key(k)
		order[seg[key]] = k
		seg[key]++
	}
	copy(seg[1:], seg) // back to the starts
	seg[0] = 0
	p.jointSeg, p.jointOrder = seg, order
	return order, seg, r
}
