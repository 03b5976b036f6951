package sim

import "tumble/sim/collide"

// The wide contact pass: PGS's contact pass over sixteen manifolds at once, one per lane
// of an AVX-512 register, or eight at once on a CPU with AVX2 only, in builds with Go's SIMD
// experiment (GOEXPERIMENT=simd; wide16_simd.go, wide_simd.go). The manifolds of one graph colour
// share no dynamic body, so the scalar pass (solveManifold) visits them in any order with the same
// result; the wide pass takes them sixteen (or eight) at a time, in colour order, and does each lane's
// arithmetic in the scalar pass's order with the same float32 operations (Go fuses no multiply-add on
// amd64 at GOAMD64=v1), so its results are bit for bit the scalar pass's (TestWidePassMatchesScalar,
// with each set of kernels). The rows live in wideBatch, one per sixteen manifolds of a colour, laid
// out lane-major (every field is sixteen floats), packed from the manifolds after Prepare; the
// refresh (separations, friction drift) and the warm start's sums run on the batches too, and the
// impulses are copied back to the manifolds before anything else reads them (restitution, the next
// step's warm start, inspection). Without the experiment, or on a CPU without AVX2, there are no
// laneKernelSets and PGS runs the scalar pass. On some older Intel CPUs 512-bit instructions lower the clock;
// `sandbox bench -lanes 8` runs the eight-lane kernels there for a comparison.

// wideLanes is the float32 lanes of an AVX2 register: the joints' batches (joint_wide.go) hold this
// many joints, and the eight-lane contact kernels take a contact batch half at a time.
const wideLanes = 8

// batchLanes is the number of manifolds a wide contact batch holds: sixteen, the lanes of an AVX-512
// register. Where the CPU has AVX-512 the contact kernels take a batch of more than eight manifolds
// at once (wide16_simd.go); elsewhere, and for a batch of eight or fewer, they take it eight lanes at
// a time (its halves). Sixteen lanes solve a batch's rows about 1.6 times faster than two runs of
// eight.
const batchLanes = 2 * wideLanes

// lanes is one float per lane of a register; lanes3 a vector per lane, component-major. blanes and
// blanes3 are the same over a contact batch's sixteen lanes.
type (
	lanes   = [wideLanes]float32
	lanes3  = [3]lanes
	blanes  = [batchLanes]float32
	blanes3 = [3]blanes
)

// widePoint is one contact point slot of a batch: contactPoint's rows, lane-major. Its first
// pointFloats rows are contactPoint's first pointFloats floats in their order (the rows, impulses and
// masses), so that a full batch packs them with a transpose (widePackKernel; TestWideLayout).
//
// Every row is 64 bytes and starts 64 bytes after the one before it, so that a sixteen-lane load
// reads one cache line where the batches' array is 64-byte aligned (Go page-aligns one over 32 KB,
// and smaller ones fall in size classes of multiples of 64 bytes; misaligned would be slower, not
// wrong).
type widePoint struct {
	nA, nB, inA, inB                          blanes3
	t1A, t1B, it1A, it1B                      blanes3
	t2A, t2B, it2A, it2B                      blanes3
	normalImpulse, ti1, ti2, maxNormal        blanes
	normalMass, softMass, leak, tm1, tm2, sep blanes

	// the anchors in the bodies' frames, for the wide refresh (separation, friction drift)
	localA, localB, anchorA, anchorB blanes3

	sliding uint16 // bit l: lane l's point slid in the last friction pass
	_       [62]byte
}

// batchRows is a batch's rows of its manifolds (the points' are in widePoint).
type batchRows struct {
	count, mA, mB                 blanes
	n, t1, t2, drift              blanes3
	biasRate, massScale, leak, mu blanes
}

// wideBatch holds up to sixteen manifolds of one colour. Its rows come first and its points right
// after them, so that a view of half h (rows8, point8: the rows shifted by 8h floats) stays
// inside the batch.
type wideBatch struct {
	batchRows
	pts      [4]widePoint
	a, b     [batchLanes]int32 // bodies; -1 in an empty lane
	k        [batchLanes]int32 // manifold index; -1 in an empty lane
	lanes    int               // lanes in use
	maxCount int               // most points of any lane
	ragged   uint8             // bit i: some used lane has no point i
	safe     bool              // no used lane's body is the last of its arrays (see gather)
	resists  uint16            // bit l: lane l's manifold has resistance rows (resistLanes)
	_        [44]byte
}

// pointFloats is the number of leading float32 fields that contactPoint and widePoint share.
const pointFloats = 46

// widePackKernel copies the first pointFloats floats of the points src[l], l below used (8 or 16),
// into dst's rows, lane l each (a transpose); nil without the wide pass.
var widePackKernel func(dst *widePoint, src *[batchLanes]*contactPoint, used int)

// usedLanes is the lanes of a batch of n manifolds that the kernels read: its first half only where
// n is at most eight, else both.
func usedLanes(n int) int {
	if n > wideLanes {
		return batchLanes
	}
	return wideLanes
}

// stateRow is a body's velocity and angular velocity as the wide passes keep them while a stage's
// passes run (vx, vy, vz, wx, wy, wz, 0, 0): 32 bytes that a batch loads and stores whole, eight rows
// at a time through a transpose in registers, where Bodies' 12-byte vectors need a float at a time
// on the way back (about half of a small scene's contact pass, measured).
type stateRow = [8]float32

// wideStateKernel says that this build's wide kernels can run on the rows of pipeline.vel.
var wideStateKernel bool

// planState decides, after the batches are packed, whether this step's passes run on s.vel: where
// every contact and joint row of a pass is in a wide batch (no scalar joints, no overflow manifolds),
// so that nothing reads Bodies' velocities while the rows hold them. bodyRows is Options.bodyRows;
// jointsWide says the joints' passes are wide, jointsAll that every joint's rows are in a batch (or
// there is no joint); overflow and manifolds count the manifolds outside the batches and in all.
func (s *wideStage) planState(bodyRows, jointsWide, jointsAll bool, overflow, manifolds int) {
	contacts := s.wideOn && overflow == 0
	s.stateOn = wideStateKernel && !bodyRows && (s.wideOn || jointsWide) && (contacts || manifolds == 0) && jointsAll
}

// loadState copies the bodies' velocities into pipeline.vel before a stage's passes (when they run on
// it), with a zero row last for a batch's empty lanes.
func (w *World) loadState() {
	p := &w.pipe
	if !p.wide.stateOn {
		return
	}
	n := w.Bodies.Len()
	p.wide.vel = resize(p.wide.vel, n+1)
	p.wide.vel[n] = stateRow{}
	w.each(loopLoadState, n, bodyGrain)
}

func (w *World) loadStateRange(lo, hi int) {
	b := &w.Bodies
	vel := w.pipe.wide.vel[lo:hi]
	v, a := b.Velocity[lo:hi:hi], b.AngularVelocity[lo:hi:hi]
	v, a = v[:len(vel)], a[:len(vel)]
	for i := range vel {
		r := &vel[i]
		r[0], r[1], r[2] = v[i][0], v[i][1], v[i][2]
		r[3], r[4], r[5] = a[i][0], a[i][1], a[i][2]
		r[6], r[7] = 0, 0
	}
}

// storeState copies the dynamic bodies' velocities back after a stage's passes.
func (w *World) storeState() {
	p := &w.pipe
	if p.wide.stateOn {
		w.each(loopStoreState, w.Bodies.Len(), bodyGrain)
	}
}

func (w *World) storeStateRange(lo, hi int) {
	b := &w.Bodies
	vel := w.pipe.wide.vel[lo:hi]
	v, a, m := b.Velocity[lo:hi:hi], b.AngularVelocity[lo:hi:hi], b.InvMass[lo:hi:hi]
	v, a, m = v[:len(vel)], a[:len(vel)], m[:len(vel)]
	for i := range vel {
		if m[i] != 0 {
			r := &vel[i]
			v[i][0], v[i][1], v[i][2] = r[0], r[1], r[2]
			a[i][0], a[i][1], a[i][2] = r[3], r[4], r[5]
		}
	}
}

// wideSplit is the grain of a colour's contact pass under coarse grains (grains.go): it goes to the
// workers, by region (colourManifolds), when each of two would get at least wideSplit batches (about
// 10 us of work): the workers spin between loops (workpool), but handing a loop over still moves a
// few cache lines between cores, each about 0.2 us on the 2-core machine. Packing goes by region
// too, so that a batch is written by the worker that solves it: packed by chunks of 48 batches
// instead, the 386-box pyramid's batches were half packed on the second worker and pulled back by
// the first for every pass, and two workers took 2.43-2.53 ms/step against one's 2.14-2.26.
const wideSplit = 32

// decideWide decides, before Prepare, whether this step's contact passes run wide (allowed: lane
// kernels and a solver whose traits allow it; and some manifolds), and whether the batches' rows are
// computed as they are packed (rowPrepare: Options.rowPrepare, off).
func (s *wideStage) decideWide(allowed bool, manifolds int, rowPrepare bool) {
	s.wideOn = allowed && manifolds > 0
	s.widePrep = s.wideOn && !rowPrepare
}

// wideInputs is what the wide contact stage reads of the other stages, handed over by prepare when
// the batches are packed (packWide) and kept for the step's passes.
type wideInputs struct {
	manifolds  []manifold          // this step's contacts
	colorOrder []int32             // the manifolds by colour, then region, then point count
	segStart   []int32             // colour c's manifolds of region g start at colorOrder[segStart[c*r+g]]
	split      [maxColors + 1]bool // the colour's pass is split between the workers by region
	overflow   []int32             // the manifolds that fit no colour
	r          int                 // the regions of bodies
	workers    int
	kern       *laneKernels
	gatherCap  int // the least capacity of the arrays the wide kernels gather from (gatherCapOf)
	// warmSums: the plan's next use of the impulses is a warm start (warmFollows), so packBatch
	// records each batch's warm-start sums as it fills the batch
	warmSums bool
}

// packWide builds the batches of the colours' manifolds after Prepare (decideWide).
func (w *World) packWide(in wideInputs) {
	p := &w.pipe
	p.wide.in = in
	p.wide.wideDirty, p.wide.sumsReady = false, false
	if !p.wide.wideOn {
		return
	}
	// Room for as many batches as the manifolds' capacity can need, so that the batches grow only
	// when the manifolds do (a steady step allocates nothing, also while contacts come and go).
	if need := cap(in.manifolds)/batchLanes + min(cap(in.manifolds), maxColors*in.r); cap(p.wide.wide) < need {
		p.wide.wide = make([]wideBatch, 0, need)
		p.wide.wideFirst = make([]int32, 0, need)
		p.wide.wideLen = make([]uint8, 0, need)
	}
	r := in.r
	p.wide.packScratch = resize(p.wide.packScratch, max(in.workers, 1))
	p.wide.wideStart = resize(p.wide.wideStart, maxColors+1)
	p.wide.wideSeg = resize(p.wide.wideSeg, maxColors*r+1)
	p.wide.wideFirst = p.wide.wideFirst[:0]
	p.wide.wideLen = p.wide.wideLen[:0]
	nb := int32(0)
	for c := 0; c < maxColors; c++ {
		p.wide.wideStart[c] = nb
		for g := range r {
			p.wide.wideSeg[c*r+g] = nb
			end := in.segStart[c*r+g+1]
			for lo := in.segStart[c*r+g]; lo < end; lo += batchLanes {
				p.wide.wideFirst = append(p.wide.wideFirst, lo)
				p.wide.wideLen = append(p.wide.wideLen, uint8(min(end-lo, batchLanes)))
				nb++
			}
		}
	}
	p.wide.wideStart[maxColors] = nb
	p.wide.wideSeg[maxColors*r] = nb
	p.wide.wide = resize(p.wide.wide, int(nb))
	w.eachRegion(loopWidePack)
	p.wide.sumsReady = in.warmSums
	if p.wide.widePrep {
		for _, k := range in.overflow {
			w.prepareRows(int(k))
		}
	}
}

// packScratch is a worker's lists for packBatch: the kernels that take them are function values, so
// that a packBatch's own would escape to the heap at every call.
type packScratch struct {
	src  [4][batchLanes]*contactPoint
	at   [4][batchLanes]*collide.Point // the narrow phase's points, for prepareWide
	kept [4]uint16                     // bit l: lane l's point keeps last step's friction anchors
	comp blanes                        // the soft rows' compliance
	_    [64]byte                      // apart from the next worker's
}

// packBatch fills batch i from its manifolds. The kernels (and unpackWide and rowsFromBatch) read
// point slots below the batch's maxCount only, and mask a lane's slots past its own count: the slots
// from maxCount on are left as they are, and below it an empty lane and a missing point get zero
// rows all the same (from zeroPoint), so that nothing read is stale from the batch's last use.
func (w *World) packBatch(worker, i int) {
	p := &w.pipe
	b := &w.Bodies
	bt := &p.wide.wide[i]
	first, n := p.wide.wideFirst[i], int(p.wide.wideLen[i])
	maxCount := 0
	for l := range n {
		maxCount = max(maxCount, int(p.wide.in.manifolds[p.wide.in.colorOrder[int(first)+l]].count))
	}
	bt.lanes, bt.maxCount, bt.ragged, bt.resists = n, maxCount, 0, 0
	sc := &p.wide.packScratch[worker]
	src, at, kept, comp := &sc.src, &sc.at, &sc.kept, &sc.comp
	*kept = [4]uint16{}
	prep := p.wide.widePrep
	for j := range maxCount {
		bt.pts[j].sliding = 0
	}
	used := usedLanes(n) // the halves in use: the kernels read no lane past them
	for l := range used {
		var m *manifold
		var c *collide.Manifold
		count := 0
		bt.a[l], bt.b[l], bt.k[l] = -1, -1, -1
		comp[l] = 0
		if l < n {
			k := p.wide.in.colorOrder[int(first)+l]
			m = &p.wide.in.manifolds[k]
			count = int(m.count)
			bt.a[l], bt.b[l], bt.k[l] = m.a, m.b, k
			bt.mA[l], bt.mB[l] = b.InvMass[m.a], b.InvMass[m.b]
			put3(&bt.n, l, m.normal)
			put3(&bt.t1, l, m.t1)
			put3(&bt.t2, l, m.t2)
			put3(&bt.drift, l, m.drift)
			bt.biasRate[l], bt.massScale[l], bt.leak[l], bt.mu[l] = m.biasRate, m.massScale, m.leak, m.friction
			if m.resist.on() {
				bt.resists |= 1 << l
				if prep {
					w.prepareResist(int(k))
				}
			}
			if prep {
				c = p.candOf(int(k))
				comp[l] = w.softOf(m).compliance
				m.slot = int32(i*batchLanes + l)
			}
		} else {
			bt.mA[l], bt.mB[l] = 0, 0
			put3(&bt.n, l, vec{})
			put3(&bt.t1, l, vec{})
			put3(&bt.t2, l, vec{})
			put3(&bt.drift, l, vec{})
			bt.biasRate[l], bt.massScale[l], bt.leak[l], bt.mu[l] = 0, 0, 0, 0
		}
		bt.count[l] = float32(count)
		for j := range maxCount {
			wp := &bt.pts[j]
			cp := &zeroPoint
			at[j][l] = &zeroCandPoint
			if j < count {
				cp = &m.pts[j]
				if cp.sliding {
					wp.sliding |= 1 << l
				}
				if prep {
					at[j][l] = &c.Points[j]
					if cp.kept {
						kept[j] |= 1 << l
					}
				}
			}
			src[j][l] = cp
			put3(&wp.anchorA, l, cp.anchorA)
			put3(&wp.anchorB, l, cp.anchorB)
			if prep {
				wp.normalImpulse[l], wp.ti1[l], wp.ti2[l] = cp.normalImpulse, cp.tangentImpulse[0], cp.tangentImpulse[1]
			} else {
				put3(&wp.localA, l, cp.localA)
				put3(&wp.localB, l, cp.localB)
			}
		}
	}
	for j := range bt.maxCount {
		for l := range n {
			if int(bt.count[l]) <= j {
				bt.ragged |= 1 << j
			}
		}
	}
	if prep {
		p.wide.in.kern.prep(w, bt, src, at, kept, comp)
	} else {
		for j := range bt.maxCount {
			if widePackKernel != nil {
				widePackKernel(&bt.pts[j], &src[j], used)
			} else {
				for l, cp := range src[j][:used] {
					packPoint(&bt.pts[j], l, cp)
				}
			}
		}
	}
	bt.safe = gatherSafe(bt.a[:n], bt.b[:n], p.wide.in.gatherCap)
	if p.wide.in.warmSums {
		// the warm start's sums while the batch is in the cache: nothing moves its impulses or its
		// rows before the warm start reads them (warmFollows)
		p.wide.in.kern.warm(w, bt)
	}
}

// rowsFromBatch copies the normal rows of manifold m's points from the batch whose rows prepareWide
// computed (restitution reads them).
func (w *World) rowsFromBatch(m *manifold) {
	bt := &w.pipe.wide.wide[m.slot/batchLanes]
	l := int(m.slot % batchLanes)
	get := func(v *blanes3) vec { return vec{X: v[0][l], Y: v[1][l], Z: v[2][l]} }
	for j := range m.pts[:m.count] {
		cp, wp := &m.pts[j], &bt.pts[j]
		cp.nA, cp.nB, cp.inA, cp.inB = get(&wp.nA), get(&wp.nB), get(&wp.inA), get(&wp.inB)
		cp.normalMass = wp.normalMass[l]
	}
}

// zeroCandPoint is the narrow phase's point for a missing one (packBatch).
var zeroCandPoint collide.Point

// zeroPoint is the rows of a missing point (packBatch).
var zeroPoint contactPoint

// packPoint copies point cp's first pointFloats floats into lane l of wp's rows: widePackKernel's
// work a lane at a time.
func packPoint(wp *widePoint, l int, cp *contactPoint) {
	put3(&wp.nA, l, cp.nA)
	put3(&wp.nB, l, cp.nB)
	put3(&wp.inA, l, cp.inA)
	put3(&wp.inB, l, cp.inB)
	put3(&wp.t1A, l, cp.t1A)
	put3(&wp.t1B, l, cp.t1B)
	put3(&wp.it1A, l, cp.it1A)
	put3(&wp.it1B, l, cp.it1B)
	put3(&wp.t2A, l, cp.t2A)
	put3(&wp.t2B, l, cp.t2B)
	put3(&wp.it2A, l, cp.it2A)
	put3(&wp.it2B, l, cp.it2B)
	wp.normalMass[l], wp.softMass[l], wp.leak[l] = cp.normalMass, cp.softMass, cp.leak
	wp.tm1[l], wp.tm2[l], wp.sep[l] = cp.tangentMass[0], cp.tangentMass[1], cp.sep
	wp.normalImpulse[l], wp.ti1[l], wp.ti2[l] = cp.normalImpulse, cp.tangentImpulse[0], cp.tangentImpulse[1]
	wp.maxNormal[l] = cp.maxNormal
}

// below reports whether every index in idx is below n-1. The gathers (wide_simd.go, ld4f) load a
// vector's three floats as four, one plain 16-byte load, and the fourth must lie inside the array: they
// load an array's last element through a copy instead.
func below(idx []int32, n int) bool {
	m := int32(-1)
	for _, i := range idx {
		m = max(m, i)
	}
	return int(m)+1 < n
}

// gatherSafe reports whether every index in ia and ib is below n-1 (n the least capacity of the arrays
// a wide kernel gathers from: gatherCapOf).
func gatherSafe(ia, ib []int32, n int) bool { return below(ia, n) && below(ib, n) }

// gatherCapOf is the least capacity of the arrays the wide kernels gather from: the bodies' and the
// rotation matrices rot.
func gatherCapOf(b *Bodies, rot []Mat3) int {
	return min(cap(b.Velocity), cap(b.AngularVelocity), cap(b.Position), cap(rot))
}

// put3 puts v in lane l of a vector row, of a register's lanes or of a contact batch's.
func put3[L lanes | blanes](d *[3]L, l int, v vec) { d[0][l], d[1][l], d[2][l] = v.X, v.Y, v.Z }

// refreshContacts brings every manifold's separations and friction drift to the current poses: the
// batches' with the wide refresh (the manifolds' own copies are then stale; nothing reads them until
// the next Prepare), the overflow's and every manifold's without the wide pass with refreshManifold;
// sepOnly (a solver of no wide pass whose rows read no drift) the separations alone.
func (w *World) refreshContacts(sepOnly bool) {
	s := &w.pipe.wide
	if !s.wideOn {
		loop := loopRefresh
		if sepOnly {
			loop = loopRefreshSep
		}
		w.each(loop, len(s.in.manifolds), refreshGrain)
		return
	}
	w.eachRegion(loopWideRefresh)
	for _, k := range s.in.overflow {
		w.refreshManifold(&s.in.manifolds[k])
	}
}

// unpackWide copies batch i's impulses (and sliding flags) back to its manifolds.
func (w *World) unpackWide(i int) {
	s := &w.pipe.wide
	bt := &s.wide[i]
	for l := range bt.lanes {
		m := &s.in.manifolds[bt.k[l]]
		for j := range m.pts[:m.count] {
			cp, wp := &m.pts[j], &bt.pts[j]
			cp.normalImpulse, cp.maxNormal = wp.normalImpulse[l], wp.maxNormal[l]
			cp.tangentImpulse = [2]float32{wp.ti1[l], wp.ti2[l]}
			cp.sliding = wp.sliding&(1<<l) != 0
		}
	}
}

// syncWideImpulses copies the batches' impulses back to the manifolds if a wide pass changed them.
func (w *World) syncWideImpulses() {
	p := &w.pipe
	if !p.wide.wideDirty {
		return
	}
	p.wide.wideDirty = false
	w.eachRegion(loopWideUnpack)
}

// eachContactColour runs one PGS pass over the manifolds, colour by colour: wide where the batches
// are packed, then the overflow (manifolds that fit no colour) with the scalar pass.
func (w *World) eachContactColour() {
	s := &w.pipe.wide
	if !s.wideOn {
		w.eachColour(loopColour)
		return
	}
	if s.in.r > 1 && w.fineGrains() {
		// Fine grains: the whole pass in one hand-off, a phase per colour (a chunk per region where
		// the colour is split), instead of one per split colour.
		s.phaseSizes, s.phaseColour = s.phaseSizes[:0], s.phaseColour[:0]
		for c := 0; c < maxColors; c++ {
			if s.wideStart[c] < s.wideStart[c+1] {
				s.phaseSizes = append(s.phaseSizes, int32(max(b2i(s.in.split[c])*s.in.r, 1)))
				s.phaseColour = append(s.phaseColour, int32(c))
			}
		}
		w.eachPhase(loopWidePhase, s.phaseSizes)
	} else {
		for c := 0; c < maxColors; c++ {
			lo, hi := s.wideStart[c], s.wideStart[c+1]
			if lo == hi {
				continue
			}
			if !s.in.split[c] {
				s.curWide = s.wide[lo:hi]
				w.body(loopWide, 0, 0, int(hi-lo))
				continue
			}
			s.curColour = c
			w.each(loopWideRegion, s.in.r, 1)
		}
	}
	s.wideDirty = true
	if o := s.in.overflow; len(o) > 0 {
		w.eachOf(loopColour, o, 0)
	}
}

// segment returns the batches of colour c in region g: wide[lo:hi].
func (s *wideStage) segment(c, g int) (lo, hi int32) {
	r := s.in.r
	return s.wideSeg[c*r+g], s.wideSeg[c*r+g+1]
}

// phaseBatches returns the batches of chunk g of phase k of a pass by phases (eachContactColour):
// its colour's, or their region g's where the colour is split.
func (s *wideStage) phaseBatches(k, g int) (lo, hi int32) {
	c := int(s.phaseColour[k])
	if s.in.split[c] {
		return s.segment(c, g)
	}
	return s.wideStart[c], s.wideStart[c+1]
}

// overflow lists the manifolds that fit no colour (solved serially after the colours).
func (g *graphStage) overflow() []int32 {
	return g.colorOrder[g.colorStart[maxColors]:g.colorStart[maxColors+1]]
}

// warmStartContacts records every manifold's warm-start impulses for gatherImpulses: from the batches
// where they are packed (their impulses are the current ones), the overflow's from the manifolds.
// Where the last pass over the batches (or their packing) recorded the batches' sums already
// (sumsReady), only the overflow's are left.
func (w *World) warmStartContacts() {
	s := &w.pipe.wide
	if !s.wideOn {
		w.each(loopWarm, len(s.in.manifolds), refreshGrain)
		return
	}
	if !s.sumsReady {
		w.eachRegion(loopWideWarm)
	}
	s.sumsReady = false
	for _, k := range s.in.overflow {
		w.warmStartManifold(int(k))
	}
}

// eachRegion runs loop l over every batch, each region's batches of every colour on the worker that
// solves them (the region's chunk of a colour's pass).
func (w *World) eachRegion(l loop) {
	s := &w.pipe.wide
	if s.in.r == 1 {
		w.body(l, 0, 0, len(s.wide))
		return
	}
	w.eachInner(l, s.in.r)
}

// regionLoop runs loop l over region g's batches of every colour.
func (w *World) regionLoop(l loop, worker, g int) {
	s := &w.pipe.wide
	for c := 0; c < maxColors; c++ {
		if lo, hi := s.segment(c, g); lo < hi {
			w.body(l, worker, int(lo), int(hi))
		}
	}
}

// wideStage is the wide contact pass: batches of a colour's manifolds, where each colour's batches start, and the velocity rows the wide passes run on.
type wideStage struct {
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
	// the bodies' velocities while a stage's wide passes run, one row each and a zero row last
	// (wide.go: loadState)
	vel     []stateRow
	stateOn bool
	// sumsReady: narrow.sums holds every batch's warm-start sums of the batches' current impulses,
	// recorded by their packing or by the last pass before the warm start (warmFollows)
	sumsReady bool
	in        wideInputs // what the stage reads of the others (packWide)
}
