package sim

import (
	"math"
	"sync/atomic"
	"tumble/sim/internal/vecmath"
)

// softness holds the coefficients of a soft constraint (Box2D v3's soft step): a spring of the given
// frequency and damping ratio, discretised implicitly over a sub-step h. biasRate turns a position error
// into a velocity bias; massScale and impulseScale soften the effective mass and leak the accumulated
// impulse, so the constraint behaves like a stiff, critically damped spring instead of a rigid one that
// overshoots.
type softness struct {
	biasRate, massScale, impulseScale float32
	compliance                        float32 // 1 / a2: the row's compliance relative to its inverse mass
}

// prevPoint finds last step's point with feature id among the manifolds of old's pair (old is the
// first of them, at index first; a pair with a mesh has one per contact normal): the point and its manifold, or nils.
func (p *pipeline) prevPoint(first int, id uint32) (*contactPoint, *manifold) {
	a, b := p.narrow.prev[first].a, p.narrow.prev[first].b
	for k := first; k < len(p.narrow.prev) && p.narrow.prev[k].a == a && p.narrow.prev[k].b == b; k++ {
		m := &p.narrow.prev[k]
		for j := 0; j < int(m.count); j++ {
			if m.pts[j].id == id {
				return &m.pts[j], m
			}
		}
	}
	return nil, nil
}

// firstID reports whether no point of m before point i has point i's feature id.
func firstID(m *manifold, i int) bool {
	for j := range i {
		if m.pts[j].id == m.pts[i].id {
			return false
		}
	}
	return true
}

func makeSoft(hertz, zeta, h float32) softness {
	if hertz == 0 {
		return softness{0, 1, 0, 0}
	}
	omega := 2 * math.Pi * float64(hertz)
	a1 := 2*float64(zeta) + float64(h)*omega
	a2 := float64(h) * omega * a1
	a3 := 1 / (1 + a2)
	return softness{float32(omega / a1), float32(a2 * a3), float32(a3), float32(1 / a2)}
}

// prepareContacts fixes, for the whole step, each point's anchors, effective masses and pre-solve
// relative normal velocity, and seeds its impulses from last step's matching point (same feature id).
// With the Jacobi solver the effective masses use split masses: a body touched by c contact points
// counts as c bodies of mass m/c (Tonge et al. 2012), so c simultaneous corrections sum to one.
//
// The seeded friction impulse is what the friction rows may hold now. It is none when friction is off
// or the pair's coefficient is 0: the warm start would otherwise apply last step's impulse every
// sub-step with no friction row to take it back, and a resting box would stay glued to its slope. When
// the coefficient was lowered since last step it is clamped to the new Coulomb disc, mu times the
// seeded normal impulse. An unchanged coefficient is left alone: the last friction pass clamped the
// impulse to that disc already, and clamping it again only rescales it by rounding, which a chaotic
// pile amplifies (measured: the 1,000 rained boxes settled at other times). A point that does not rub
// is marked sliding, so its friction anchors are taken afresh when friction returns.
func (w *World) prepareContacts(lo, hi int) {
	b := &w.Bodies
	p := &w.pipe
	warm := !w.settings.NoWarmStart
	noFriction := w.settings.NoFriction
	rows := !p.narrow.widePrep // the wide path computes the rows of its batches' points as it packs them
	hint := 0
	for k := lo; k < hi; k++ {
		m := &p.narrow.manifolds[k]
		a, o := m.a, m.b
		n := m.normal
		m.t1, m.t2 = tangents(n)
		m.slot = -1
		soft := w.softOf(m)
		m.biasRate, m.massScale, m.leak = soft.biasRate, soft.massScale, soft.impulseScale
		rubs := !noFriction && m.friction > 0
		old, cached := -1, false
		if warm {
			if p.narrow.cacheOn && p.narrow.manSub[k] <= 0 && p.narrow.candFrom[m.pair] >= 0 {
				// Reused from the cache: last step's manifold of the pair, with the same points in the
				// same order. A height field's pair (reuseField) copies last step's manifolds in
				// order, so its first is the pair's first: prevPoint, which searches from there,
				// finds each point where it was.
				old, cached = int(p.narrow.candFrom[m.pair]), true
			} else {
				old, hint = p.findPrev(a, o, hint)
			}
		}
		xA, xB := ldv(&b.Position[a]), ldv(&b.Position[o])
		var near uint8 // the points of prev[old] that nearPoint gave to earlier points
		for i := 0; i < int(m.count); i++ {
			cp := &m.pts[i]
			cp.maxNormal = 0
			cp.normalImpulse, cp.tangentImpulse = 0, [2]float32{}
			cp.sliding, cp.kept = !rubs, false
			if old < 0 {
				continue
			}
			var op *contactPoint
			var om *manifold
			if pm := &p.narrow.prev[old]; cached && pm.pts[i].id == cp.id && firstID(pm, i) {
				op, om = &pm.pts[i], pm // what prevPoint finds, without the search
			} else {
				op, om = p.prevPoint(old, cp.id)
			}
			if op == nil {
				pm := &p.narrow.prev[old]
				pt := &p.candOf(k).Points[i]
				rA := ldv(&pt.Position).Sub(n.Scale(0.5 * pt.Separation)).Sub(xA)
				if j := nearPoint(pm, m, rA, &b.rot[a], p.plan.ctx.anchorReach, near); j >= 0 {
					op, om = &pm.pts[j], pm
					near |= 1 << j
				}
			}
			if op != nil {
				old := om
				if !op.sliding {
					// Keep the old anchors unless they lie far apart along the contact plane: a
					// sticking point drifts by millimetres, so a larger gap means the feature id now
					// names another point of the manifold.
					d := mulMat(&b.rot[o], op.anchorB).Add(xB).Sub(mulMat(&b.rot[a], op.anchorA)).Sub(xA)
					d = d.Sub(n.Scale(d.Dot(n)))
					if d.Dot(d) < p.plan.ctx.anchorReach*p.plan.ctx.anchorReach {
						cp.anchorA, cp.anchorB, cp.kept = op.anchorA, op.anchorB, true
					}
				}
				cp.normalImpulse = op.normalImpulse
				if rubs {
					// Carry the old friction impulse as a world vector onto the new tangents.
					t := old.t1.Scale(op.tangentImpulse[0]).Add(old.t2.Scale(op.tangentImpulse[1]))
					cp.tangentImpulse = [2]float32{t.Dot(m.t1), t.Dot(m.t2)}
					if m.friction < old.friction {
						cp.tangentImpulse = coulomb(cp.tangentImpulse, m.friction*cp.normalImpulse)
					}
				}
			}
		}
		m.resist.impulse = [3]float32{}
		if old >= 0 && !noFriction && m.resist.on() {
			m.resist.carry(m, &p.narrow.prev[old])
		}
		if rows {
			w.prepareRows(k)
		}
	}
}

// nearPoint returns the point of pm, last step's first manifold of m's pair, that a point of m at arm
// rA from A's centre continues although its feature id changed, or -1: the nearest on body A within
// reach (A's current rotation rotA carrying last step's point, fixed in A, to where it is now) among
// those no point of m names by id and not given already (the bits of taken). A clipped manifold
// renames a point when a corner flush with the reference face's side (equal boxes in a row, one box
// deep) drifts across the clip band: the contact is the same one, and starting it from no impulse
// would drop its share of the load for a step. Box2D v3 and Box3D keep such a manifold whole while
// the bodies move less than their recycle distance.
func nearPoint(pm, m *manifold, rA vec, rotA *Mat3, reach float32, taken uint8) int {
	best, found := reach*reach, -1
	for j := 0; j < int(pm.count); j++ {
		if taken&(1<<j) != 0 || hasID(m, pm.pts[j].id) {
			continue
		}
		d := mulMat(rotA, pm.pts[j].localA).Sub(rA)
		if d2 := d.Dot(d); d2 < best {
			best, found = d2, j
		}
	}
	return found
}

// hasID reports whether a point of m has feature id id.
func hasID(m *manifold, id uint32) bool {
	for i := 0; i < int(m.count); i++ {
		if m.pts[i].id == id {
			return true
		}
	}
	return false
}

// softOf returns the softness of manifold m's biased rows: the static one where a body does not move.
func (w *World) softOf(m *manifold) *softness {
	if b := &w.Bodies; b.InvMass[m.a] == 0 || b.InvMass[m.b] == 0 {
		return &w.pipe.plan.ctx.staticSoft
	}
	return &w.pipe.plan.ctx.soft
}

// prepareRows computes the rows of manifold k's points (prepareContacts): their lever arms, inertia
// products and effective masses, the anchors in the bodies' frames, the friction anchors of the points
// that kept none from last step, and the relative normal velocity before the solve. The wide path
// computes the same, bit for bit, for the manifolds of its batches (prepareWide) and this for the
// overflow's.
func (w *World) prepareRows(k int) {
	b := &w.Bodies
	p := &w.pipe
	m := &p.narrow.manifolds[k]
	c := p.candOf(k)
	a, o := m.a, m.b
	mA, mB := b.InvMass[a], b.InvMass[o]
	iA, iB := &b.InvInertiaWorld[a], &b.InvInertiaWorld[o]
	sA, sB := float32(1), float32(1)
	if c := p.narrow.splitCount; c != nil {
		sA, sB = float32(max(c[a], 1)), float32(max(c[o], 1))
	}
	n := m.normal
	soft := w.softOf(m)
	xA, xB := ldv(&b.Position[a]), ldv(&b.Position[o])
	vA, wA := ldv(&b.Velocity[a]), ldv(&b.AngularVelocity[a])
	vB, wB := ldv(&b.Velocity[o]), ldv(&b.AngularVelocity[o])
	for i := 0; i < int(m.count); i++ {
		pt := &c.Points[i]
		cp := &m.pts[i]
		half := n.Scale(0.5 * pt.Separation)
		pos := ldv(&pt.Position)
		rA := pos.Sub(half).Sub(xA)
		rB := pos.Add(half).Sub(xB)
		cp.nA, cp.nB = rA.Cross(n), rB.Cross(n)
		cp.t1A, cp.t1B = rA.Cross(m.t1), rB.Cross(m.t1)
		cp.t2A, cp.t2B = rA.Cross(m.t2), rB.Cross(m.t2)
		cp.inA, cp.inB = mulMat(iA, cp.nA), mulMat(iB, cp.nB)
		cp.it1A, cp.it1B = mulMat(iA, cp.t1A), mulMat(iB, cp.t1B)
		cp.it2A, cp.it2B = mulMat(iA, cp.t2A), mulMat(iB, cp.t2B)
		cp.localA = mulMatT(&b.rot[a], rA)
		cp.localB = mulMatT(&b.rot[o], rB)
		if !cp.kept {
			cp.anchorA, cp.anchorB = cp.localA, cp.localB
		}
		cp.normalMass = effMass(cp.nA, cp.nB, cp.inA, cp.inB, mA, mB, sA, sB)
		// The soft row is the constraint plus a compliance gamma = K / a2 (K the row's inverse
		// effective mass): its update is -(vn + bias + gamma lambda) / (K + gamma), which is
		// Box2D's massScale and impulseScale. With Jacobi K is the split one, so the contact is as
		// soft as its split mass: taking gamma from the unsplit K instead made Jacobi unstable
		// (measured: heavy-on-light blew apart), so Jacobi needs a higher frequency (more
		// sub-steps) for the same stiffness.
		cp.softMass, cp.leak = 0, 0
		if cp.normalMass > 0 {
			gamma := soft.compliance / cp.normalMass
			cp.softMass = 1 / (1/cp.normalMass + gamma)
			cp.leak = gamma * cp.softMass
		}
		cp.tangentMass[0] = effMass(cp.t1A, cp.t1B, cp.it1A, cp.it1B, mA, mB, sA, sB)
		cp.tangentMass[1] = effMass(cp.t2A, cp.t2B, cp.it2A, cp.it2B, mA, mB, sA, sB)
		dv := vB.Add(wB.Cross(rB)).Sub(vA).Sub(wA.Cross(rA))
		cp.relVel = dv.Dot(n)
		p.noteApproach(cp.relVel)
	}
	if m.resist.on() {
		w.prepareResist(k)
	}
}

// coulomb returns the friction impulse l clamped to the Coulomb disc of radius maxF.
func coulomb(l [2]float32, maxF float32) [2]float32 {
	if mag2 := l[0]*l[0] + l[1]*l[1]; mag2 > maxF*maxF {
		s := maxF / vecmath.Sqrt(mag2)
		l[0], l[1] = l[0]*s, l[1]*s
	}
	return l
}

// effMass returns 1 / (J M^-1 J^T) for a row with angular terms ra = rA x d, rb = rB x d and their
// inertia products ia, ib; sA and sB scale each body's inverse mass (mass splitting).
func effMass(ra, rb, ia, ib vec, mA, mB float32, sA, sB float32) float32 {
	k := sA*(mA+ra.Dot(ia)) + sB*(mB+rb.Dot(ib))
	if k > 0 {
		return 1 / k
	}
	return 0
}

// normalRow returns the impulse change of a normal row at current separation s and relative normal
// velocity vn. An open contact (s > 0, speculative) may close its gap this sub-step and no more; a
// penetrating one is pushed out softly, and not at all in the relax pass, so the push-out velocity does
// not remain in the bodies as energy. The accumulated impulse stays non-negative.
func (p *pipeline) normalRow(cp *contactPoint, biasRate, s, vn float32, useBias bool) float32 {
	var imp float32
	switch {
	case s > 0:
		imp = -cp.normalMass * (vn + s*p.plan.ctx.invH)
	case useBias:
		// max(biasRate s, -maxPush) as a comparison: the same value for every input (NaN passes,
		// and maxPush, 0 meaning 3, is never a zero), without the branches of Go's max.
		push := biasRate * s
		if push < -p.plan.ctx.maxPush {
			push = -p.plan.ctx.maxPush
		}
		imp = -cp.softMass*(vn+push) - cp.leak*cp.normalImpulse
	default:
		imp = -cp.normalMass * vn
	}
	// max(acc, 0) and max(maxNormal, imp) as comparisons, as solveManifold writes them: the same
	// values for every non-NaN input (acc is never -0, so neither is imp), without the branches Go's
	// max takes to order -0 below +0 and pass NaN on.
	acc := cp.normalImpulse + imp
	if !(acc > 0) {
		acc = 0
	}
	imp = acc - cp.normalImpulse
	cp.normalImpulse = acc
	if imp > cp.maxNormal {
		cp.maxNormal = imp
	}
	return imp
}

// bodyPair is the state of a manifold's two bodies that the solver reads and updates.
type bodyPair struct {
	vA, wA, vB, wB vec
	mA, mB         float32
}

func (w *World) loadPair(m *manifold) bodyPair {
	b := &w.Bodies
	a, o := m.a, m.b
	return bodyPair{
		vA: ldv(&b.Velocity[a]), wA: ldv(&b.AngularVelocity[a]),
		vB: ldv(&b.Velocity[o]), wB: ldv(&b.AngularVelocity[o]),
		mA: b.InvMass[a], mB: b.InvMass[o],
	}
}

// apply adds an impulse of size imp along a row of direction d with angular terms (ra, rb) and their
// inertia products (ia, ib): a gets the negative.
func (s *bodyPair) apply(imp float32, d, ia, ib vec) {
	s.vA = s.vA.Sub(d.Scale(imp * s.mA))
	s.wA = s.wA.Sub(ia.Scale(imp))
	s.vB = s.vB.Add(d.Scale(imp * s.mB))
	s.wB = s.wB.Add(ib.Scale(imp))
}

// rowVel returns the relative velocity along a row: d . (vB - vA) + rb . wB - ra . wA.
func (s *bodyPair) rowVel(d, ra, rb vec) float32 {
	return d.Dot(s.vB.Sub(s.vA)) + rb.Dot(s.wB) - ra.Dot(s.wA)
}

// store writes the velocities of the dynamic bodies back. Static and kinematic bodies are never
// written: several manifolds of one colour may share them.
func (w *World) store(m *manifold, s *bodyPair) {
	b := &w.Bodies
	if s.mA != 0 {
		stp(&b.Velocity[m.a], &s.vA)
		stp(&b.AngularVelocity[m.a], &s.wA)
	}
	if s.mB != 0 {
		stp(&b.Velocity[m.b], &s.vB)
		stp(&b.AngularVelocity[m.b], &s.wB)
	}
}

// storeVelocities writes the velocities of a pair's dynamic bodies back (static and kinematic ones,
// inverse mass 0, are never written: several manifolds of one colour may share them).
func (b *Bodies) storeVelocities(ia, ib int32, mA, mB float32, vA, wA, vB, wB vec) {
	if mA != 0 {
		stv(&b.Velocity[ia], vA)
		stv(&b.AngularVelocity[ia], wA)
	}
	if mB != 0 {
		stv(&b.Velocity[ib], vB)
		stv(&b.AngularVelocity[ib], wB)
	}
}

// solveManifold is one Gauss-Seidel pass over a manifold: each row sees the previous rows' updates.
// Bodies of one graph colour are disjoint, so a colour's manifolds run in parallel.
//
// It is the hot loop of the CPU step, so it is written out by hand, and in a form that carries little
// from row to row. A normal row sees the linear velocities only through dvn = n.(vB - vA), and its
// impulse imp moves dvn by imp (mA + mB), n being a unit vector; so the rows carry dvn, the angular
// velocities and the sum of their impulses, and the linear velocities take that sum once, after the
// last row. The friction rows carry t1.(vB - vA) and t2.(vB - vA) the same way (n, t1 and t2
// orthonormal: an impulse along t1 leaves the t2 row alone). In exact arithmetic this is the
// Gauss-Seidel pass row by row that solveManifoldHelpers writes with the row helpers (which the
// Jacobi and restitution passes use); in float32 the two differ by rounding
// (TestSolveManifoldMatchesHelpers bounds it). The wide pass (solveWide) does each lane's arithmetic
// in this order, bit for bit.
func (w *World) solveManifold(m *manifold, useBias bool) {
	p := &w.pipe
	b := &w.Bodies
	ia, ib := m.a, m.b
	mA, mB := b.InvMass[ia], b.InvMass[ib]
	mAB := mA + mB
	vA, wA := ldv(&b.Velocity[ia]), ldv(&b.AngularVelocity[ia])
	vB, wB := ldv(&b.Velocity[ib]), ldv(&b.AngularVelocity[ib])
	n := m.normal
	pts := m.pts[:m.count]
	invH, maxPush, biasRate := p.plan.ctx.invH, p.plan.ctx.maxPush, m.biasRate
	dvn := n.Dot(vB.Sub(vA))
	var sum float32
	for i := range pts {
		cp := &pts[i]
		vn := dvn + cp.nB.Dot(wB) - cp.nA.Dot(wA)
		var imp float32
		switch s := cp.sep; {
		case s > 0:
			imp = -cp.normalMass * (vn + s*invH)
		case useBias:
			imp = -cp.softMass*(vn+max(biasRate*s, -maxPush)) - cp.leak*cp.normalImpulse
		default:
			imp = -cp.normalMass * vn
		}
		// max(acc, 0) and max(maxNormal, imp) as comparisons: Go's max also orders -0 below +0 and
		// passes NaN on, which costs branches; these give the same values for every non-NaN input.
		acc := cp.normalImpulse + imp
		if !(acc > 0) {
			acc = 0
		}
		imp = acc - cp.normalImpulse
		cp.normalImpulse = acc
		if imp > cp.maxNormal {
			cp.maxNormal = imp
		}
		wA = wA.Sub(cp.inA.Scale(imp))
		wB = wB.Add(cp.inB.Scale(imp))
		dvn += imp * mAB
		sum += imp
	}
	vA = vA.Sub(n.Scale(sum * mA))
	vB = vB.Add(n.Scale(sum * mB))
	if !w.settings.NoFriction {
		t1, t2 := m.t1, m.t2
		dv := vB.Sub(vA)
		d1, d2 := t1.Dot(dv), t2.Dot(dv)
		if useBias {
			d1 += m.drift.Dot(t1) * biasRate
			d2 += m.drift.Dot(t2) * biasRate
		}
		mu := m.friction
		var sum1, sum2 float32
		for i := range pts {
			cp := &pts[i]
			vt1 := d1 + cp.t1B.Dot(wB) - cp.t1A.Dot(wA)
			vt2 := d2 + cp.t2B.Dot(wB) - cp.t2A.Dot(wA)
			old1, old2 := cp.tangentImpulse[0], cp.tangentImpulse[1]
			var l1, l2 float32
			if useBias {
				l1 = old1 - cp.tangentMass[0]*m.massScale*vt1 - m.leak*old1
				l2 = old2 - cp.tangentMass[1]*m.massScale*vt2 - m.leak*old2
			} else {
				l1 = old1 - cp.tangentMass[0]*vt1
				l2 = old2 - cp.tangentMass[1]*vt2
			}
			maxF := mu * cp.normalImpulse
			cp.sliding = false
			if mag2 := l1*l1 + l2*l2; mag2 > maxF*maxF {
				s := maxF / vecmath.Sqrt(mag2)
				l1, l2 = l1*s, l2*s
				cp.sliding = true
			}
			e1, e2 := l1-old1, l2-old2
			cp.tangentImpulse = [2]float32{l1, l2}
			wA = wA.Sub(cp.it1A.Scale(e1)).Sub(cp.it2A.Scale(e2))
			wB = wB.Add(cp.it1B.Scale(e1)).Add(cp.it2B.Scale(e2))
			d1 += e1 * mAB
			d2 += e2 * mAB
			sum1 += e1
			sum2 += e2
		}
		vA = vA.Sub(t1.Scale(sum1 * mA)).Sub(t2.Scale(sum2 * mA))
		vB = vB.Add(t1.Scale(sum1 * mB)).Add(t2.Scale(sum2 * mB))
		if m.resist.on() {
			wA, wB = m.resist.apply(m.resist.solve(m, m.normalTotal(), wA, wB), wA, wB)
		}
	}
	b.storeVelocities(ia, ib, mA, mB, vA, wA, vB, wB)
}

// solveManifoldHelpers is the Gauss-Seidel pass over a manifold row by row with the row helpers, each
// row applied to both bodies' velocities before the next: the reference that
// TestSolveManifoldMatchesHelpers compares solveManifold's form with.
func (w *World) solveManifoldHelpers(m *manifold, useBias bool) {
	p := &w.pipe
	s := w.loadPair(m)
	n := m.normal
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		imp := p.normalRow(cp, m.biasRate, cp.sep, s.rowVel(n, cp.nA, cp.nB), useBias)
		s.apply(imp, n, cp.inA, cp.inB)
	}
	if !w.settings.NoFriction {
		b1, b2 := frictionBias(m)
		for i := 0; i < int(m.count); i++ {
			cp := &m.pts[i]
			d1, d2 := friction(cp, m, s.rowVel(m.t1, cp.t1A, cp.t1B), s.rowVel(m.t2, cp.t2A, cp.t2B), b1, b2, useBias)
			s.apply(d1, m.t1, cp.it1A, cp.it1B)
			s.apply(d2, m.t2, cp.it2A, cp.it2B)
		}
		if m.resist.on() {
			s.wA, s.wB = m.resist.apply(m.resist.solve(m, m.normalTotal(), s.wA, s.wB), s.wA, s.wB)
		}
	}
	w.store(m, &s)
}

// refreshManifold recomputes what depends on body positions, which change only between the solve
// and relax passes of a sub-step: each point's current separation (measured between its anchors, so
// the solver sees penetration shrink as it pushes out) and the friction anchors' drift.
func (w *World) refreshManifold(m *manifold) {
	b := &w.Bodies
	rotA, rotB := &b.rot[m.a], &b.rot[m.b]
	xA, xB := ldv(&b.Position[m.a]), ldv(&b.Position[m.b])
	var drift vec
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		cp.sep = pointSep(xA, xB, rotA, rotB, cp, m.normal)
		drift = drift.Add(xB.Add(mulMat(rotB, cp.anchorB)).Sub(xA).Sub(mulMat(rotA, cp.anchorA)))
	}
	m.drift = drift.Scale(1 / float32(m.count))
}

// refreshSeparations is refreshManifold for a solver whose rows read the separations alone
// (solverTraits.separationsOnly): each point's current separation, not the friction anchors' drift,
// which costs as much again.
func (w *World) refreshSeparations(m *manifold) {
	b := &w.Bodies
	rotA, rotB := &b.rot[m.a], &b.rot[m.b]
	xA, xB := ldv(&b.Position[m.a]), ldv(&b.Position[m.b])
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		cp.sep = pointSep(xA, xB, rotA, rotB, cp, m.normal)
	}
}

// pointSep is a contact point's separation along normal n at the bodies' poses (centres xA, xB,
// rotations rotA, rotB): the offset between its two anchors, (xB + RB lB) - (xA + RA lA), along n.
func pointSep(xA, xB vec, rotA, rotB *Mat3, cp *contactPoint, n vec) float32 {
	return xB.Add(mulMat(rotB, cp.localB)).Sub(xA).Sub(mulMat(rotA, cp.localA)).Dot(n)
}

// frictionBias returns the velocities along t1 and t2 at which the biased pass closes a manifold's
// mean anchor drift (refreshManifold), the same for all its points: friction adds them.
func frictionBias(m *manifold) (float32, float32) {
	return m.drift.Dot(m.t1) * m.biasRate, m.drift.Dot(m.t2) * m.biasRate
}

// friction updates a point's two friction impulses for relative tangential velocities vt1, vt2 and
// returns their change. In the biased pass a sticking contact also closes the mean drift between its
// points' friction anchors (the material points where each started sticking; see refreshManifold),
// softly, with the normal row's spring and damping, so static friction holds positions and not only
// velocities: without it a tall pyramid creeps apart by centimetres. The pair of impulses is clamped
// to the Coulomb disc |f_t| <= mu f_n using the current normal impulse, so friction is isotropic; a
// clamped point is sliding and its anchors are dropped at the next step. b1 and b2 are the drift's
// closing velocities along t1 and t2 (frictionBias), read in the biased pass.
func friction(cp *contactPoint, m *manifold, vt1, vt2, b1, b2 float32, useBias bool) (float32, float32) {
	ms, leak := float32(1), float32(0)
	if useBias {
		vt1 += b1
		vt2 += b2
		ms, leak = m.massScale, m.leak
	}
	l1 := cp.tangentImpulse[0] - cp.tangentMass[0]*ms*vt1 - leak*cp.tangentImpulse[0]
	l2 := cp.tangentImpulse[1] - cp.tangentMass[1]*ms*vt2 - leak*cp.tangentImpulse[1]
	maxF := m.friction * cp.normalImpulse
	cp.sliding = false
	if mag2 := l1*l1 + l2*l2; mag2 > maxF*maxF {
		s := maxF / vecmath.Sqrt(mag2)
		l1, l2 = l1*s, l2*s
		cp.sliding = true
	}
	d1, d2 := l1-cp.tangentImpulse[0], l2-cp.tangentImpulse[1]
	cp.tangentImpulse = [2]float32{l1, l2}
	return d1, d2
}

// jacobiManifold computes a manifold's row updates from the velocities at the start of the pass (it
// writes no body) and records their sum for gatherImpulses: the linear impulse on b and the angular
// impulses sum(r x P) on each body.
func (w *World) jacobiManifold(k int, useBias bool) {
	p := &w.pipe
	m := &p.narrow.manifolds[k]
	s := w.loadPair(m)
	n := m.normal
	// Every row reads the pass's start velocities, so the linear part of each row's relative
	// velocity, d . (vB - vA) (s.rowVel's first term), is the same for all the manifold's points.
	dv := s.vB.Sub(s.vA)
	dn, dt1, dt2 := n.Dot(dv), m.t1.Dot(dv), m.t2.Dot(dv)
	fric := !w.settings.NoFriction
	var b1, b2 float32
	if fric && useBias {
		b1, b2 = frictionBias(m)
	}
	var lin, angA, angB vec
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		imp := p.normalRow(cp, m.biasRate, cp.sep, dn+cp.nB.Dot(s.wB)-cp.nA.Dot(s.wA), useBias)
		lin = lin.Add(n.Scale(imp))
		angA = angA.Add(cp.nA.Scale(imp))
		angB = angB.Add(cp.nB.Scale(imp))
		if fric {
			d1, d2 := friction(cp, m, dt1+cp.t1B.Dot(s.wB)-cp.t1A.Dot(s.wA), dt2+cp.t2B.Dot(s.wB)-cp.t2A.Dot(s.wA), b1, b2, useBias)
			lin = lin.Add(m.t1.Scale(d1)).Add(m.t2.Scale(d2))
			angA = angA.Add(cp.t1A.Scale(d1)).Add(cp.t2A.Scale(d2))
			angB = angB.Add(cp.t1B.Scale(d1)).Add(cp.t2B.Scale(d2))
		}
	}
	if !w.settings.NoFriction && m.resist.on() {
		l := m.resist.world(m, m.resist.solve(m, m.normalTotal(), s.wA, s.wB))
		angA, angB = angA.Add(l), angB.Add(l)
	}
	p.narrow.sums[k] = impulseSum{lin, angA, angB}
}

// warmStartManifold records the accumulated impulses of a manifold for gatherImpulses to apply.
func (w *World) warmStartManifold(k int) {
	m := &w.pipe.narrow.manifolds[k]
	var lin, angA, angB vec
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		ln, l1, l2 := cp.normalImpulse, cp.tangentImpulse[0], cp.tangentImpulse[1]
		lin = lin.Add(m.normal.Scale(ln)).Add(m.t1.Scale(l1)).Add(m.t2.Scale(l2))
		angA = angA.Add(cp.nA.Scale(ln)).Add(cp.t1A.Scale(l1)).Add(cp.t2A.Scale(l2))
		angB = angB.Add(cp.nB.Scale(ln)).Add(cp.t1B.Scale(l1)).Add(cp.t2B.Scale(l2))
	}
	if m.resist.on() {
		l := m.resist.world(m, m.resist.impulse)
		angA, angB = angA.Add(l), angB.Add(l)
	}
	w.pipe.narrow.sums[k] = impulseSum{lin, angA, angB}
}

// restitutionImpulse returns the impulse change that makes a point leave at e times its approach speed.
// Only points that approached faster than the threshold and actually pushed this step bounce: resting
// contacts (slow approach) stay put.
func (p *pipeline) restitutionImpulse(cp *contactPoint, e, vn float32) float32 {
	if cp.relVel > -p.plan.ctx.restThreshold || cp.maxNormal == 0 {
		return 0
	}
	imp := -cp.normalMass * (vn + e*cp.relVel)
	// max(acc, 0) and max(maxNormal, imp) as comparisons, as solveManifold writes them: the same
	// values for every non-NaN input (acc is never -0, so neither is imp), without the branches Go's
	// max takes to order -0 below +0 and pass NaN on.
	acc := cp.normalImpulse + imp
	if !(acc > 0) {
		acc = 0
	}
	imp = acc - cp.normalImpulse
	cp.normalImpulse = acc
	if imp > cp.maxNormal {
		cp.maxNormal = imp
	}
	return imp
}

// restitutionColours is a colour solver's restitution pass: restituteManifold over the manifolds colour
// by colour. Where no point approached faster than the threshold at prepare time
// (narrowStage.mayBounce), every manifold would return from restituteManifold untouched, so the pass
// is skipped: a step in which nothing closes that fast (a resting pile) pays nothing for it. A point of
// restitution 0 that does close fast still takes the pass, which stops its approach (e = 0 is not a
// no-op there).
func (w *World) restitutionColours() {
	if atomic.LoadUint32(&w.pipe.narrow.mayBounce) == 0 {
		return
	}
	w.eachColour(loopRestColour)
}

// restituteManifold applies restitution to a manifold, Gauss-Seidel style (PGS) or, with record set,
// Jacobi style: from the pass's start velocities, recording the impulses for gatherImpulses.
func (w *World) restituteManifold(k int, record bool) {
	p := &w.pipe
	m := &p.narrow.manifolds[k]
	// Most manifolds have no point that bounces (restitutionImpulse's test): they change nothing, so
	// their bodies are neither loaded nor stored.
	bounces := false
	for i := range m.pts[:m.count] {
		if cp := &m.pts[i]; cp.relVel <= -p.plan.ctx.restThreshold && cp.maxNormal != 0 {
			bounces = true
			break
		}
	}
	if !bounces {
		if record {
			p.narrow.sums[k] = impulseSum{}
		}
		return
	}
	if p.narrow.widePrep && m.slot >= 0 {
		w.rowsFromBatch(m)
	}
	s := w.loadPair(m)
	n := m.normal
	var lin, angA, angB vec
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		imp := p.restitutionImpulse(cp, m.restitution, s.rowVel(n, cp.nA, cp.nB))
		if imp == 0 {
			continue
		}
		if record {
			lin = lin.Add(n.Scale(imp))
			angA = angA.Add(cp.nA.Scale(imp))
			angB = angB.Add(cp.nB.Scale(imp))
			continue
		}
		s.apply(imp, n, cp.inA, cp.inB)
	}
	if record {
		p.narrow.sums[k] = impulseSum{lin, angA, angB}
		return
	}
	w.store(m, &s)
}

// gatherImpulses adds to each dynamic body the impulses its manifolds recorded in this pass (the
// per-body accumulation of seed 000's Jacobi solver, done as a gather so it needs no atomics).
func (w *World) gatherImpulses(lo, hi int) {
	b := &w.Bodies
	p := &w.pipe
	g := &p.graph.gather
	joints := g.joints && len(w.joints) > 0 // (a world without joints skips their empty lists)
	for i := lo; i < hi; i++ {
		if b.InvMass[i] == 0 {
			continue
		}
		var lin, ang vec
		for _, e := range p.graph.adj[p.graph.adjStart[i]:p.graph.adjStart[i+1]] {
			m := &g.sums[e>>1]
			if e&1 == 0 {
				lin = lin.Sub(m.lin)
				ang = ang.Sub(m.angA)
			} else {
				lin = lin.Add(m.lin)
				ang = ang.Add(m.angB)
			}
		}
		if joints {
			for _, e := range p.graph.jointAdj[p.graph.jointAdjStart[i]:p.graph.jointAdjStart[i+1]] {
				j := &g.jsums[e>>1]
				if e&1 == 0 {
					lin = lin.Sub(j.lin)
					ang = ang.Sub(j.angA)
				} else {
					lin = lin.Add(j.lin)
					ang = ang.Add(j.angB)
				}
			}
		}
		stv(&b.Velocity[i], ldv(&b.Velocity[i]).Add(lin.Scale(b.InvMass[i])))
		stv(&b.AngularVelocity[i], ldv(&b.AngularVelocity[i]).Add(mulMat(&b.InvInertiaWorld[i], ang)))
	}
}
