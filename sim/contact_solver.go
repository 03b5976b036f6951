package sim

import "math"

// softness holds the coefficients of a soft constraint (Box2D v3's soft step): a spring of the given
// frequency and damping ratio, discretised implicitly over a sub-step h. biasRate turns a position error
// into a velocity bias; massScale and impulseScale soften the effective mass and leak the accumulated
// impulse, so the constraint behaves like a stiff, critically damped spring instead of a rigid one that
// overshoots.
type softness struct {
	biasRate, massScale, impulseScale float32
	compliance                        float32 // 1 / a2: the row's compliance relative to its inverse mass
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
func (w *World) prepareContacts(lo, hi int) {
	b := &w.Bodies
	p := &w.pipe
	warm := !w.settings.NoWarmStart
	jacobi := w.settings.Solver == Jacobi
	for k := lo; k < hi; k++ {
		m := &p.manifolds[k]
		c := &p.cand[m.pair]
		a, o := m.a, m.b
		mA, mB := b.InvMass[a], b.InvMass[o]
		iA, iB := &b.InvInertiaWorld[a], &b.InvInertiaWorld[o]
		sA, sB := float32(1), float32(1)
		if jacobi {
			sA, sB = float32(max(p.count[a], 1)), float32(max(p.count[o], 1))
		}
		n := m.normal
		m.t1, m.t2 = tangents(n)
		soft := &p.soft
		if mA == 0 || mB == 0 {
			soft = &p.staticSoft
		}
		m.biasRate, m.massScale, m.leak = soft.biasRate, soft.massScale, soft.impulseScale
		var old *manifold
		if warm {
			old = p.findPrev(a, o)
		}
		xA, xB := vv(b.Position[a]), vv(b.Position[o])
		vA, wA := vv(b.Velocity[a]), vv(b.AngularVelocity[a])
		vB, wB := vv(b.Velocity[o]), vv(b.AngularVelocity[o])
		for i := 0; i < int(m.count); i++ {
			pt := &c.Points[i]
			cp := &m.pts[i]
			half := n.scale(0.5 * pt.Separation)
			pos := vv(pt.Position)
			rA := pos.sub(half).sub(xA)
			rB := pos.add(half).sub(xB)
			cp.rA, cp.rB = rA, rB
			cp.localA = mulMatT(&p.rot[a], rA)
			cp.localB = mulMatT(&p.rot[o], rB)
			cp.normalMass = effMass(n, rA, rB, mA, mB, iA, iB, sA, sB)
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
			cp.tangentMass[0] = effMass(m.t1, rA, rB, mA, mB, iA, iB, sA, sB)
			cp.tangentMass[1] = effMass(m.t2, rA, rB, mA, mB, iA, iB, sA, sB)
			dv := vB.add(wB.cross(rB)).sub(vA).sub(wA.cross(rA))
			cp.relVel = dv.dot(n)
			cp.maxNormal = 0
			cp.normalImpulse, cp.tangentImpulse = 0, [2]float32{}
			cp.anchorA, cp.anchorB, cp.sliding = cp.localA, cp.localB, false
			if old == nil {
				continue
			}
			for j := 0; j < int(old.count); j++ {
				op := &old.pts[j]
				if op.id != cp.id {
					continue
				}
				if !op.sliding {
					// Keep the old anchors unless they lie far apart along the contact plane: a
					// sticking point drifts by millimetres, so a larger gap means the feature id now
					// names another point of the manifold.
					d := mulMat(&p.rot[o], op.anchorB).add(xB).sub(mulMat(&p.rot[a], op.anchorA)).sub(xA)
					d = d.sub(n.scale(d.dot(n)))
					if d.dot(d) < p.anchorReach*p.anchorReach {
						cp.anchorA, cp.anchorB = op.anchorA, op.anchorB
					}
				}
				cp.normalImpulse = op.normalImpulse
				// Carry the old friction impulse as a world vector onto the new tangents.
				t := old.t1.scale(op.tangentImpulse[0]).add(old.t2.scale(op.tangentImpulse[1]))
				cp.tangentImpulse = [2]float32{t.dot(m.t1), t.dot(m.t2)}
				break
			}
		}
	}
}

// effMass returns 1 / (J M^-1 J^T) for a row along dir at anchors rA, rB; sA and sB scale each body's
// inverse mass (mass splitting).
func effMass(dir, rA, rB vec, mA, mB float32, iA, iB *Mat3, sA, sB float32) float32 {
	ra := rA.cross(dir)
	rb := rB.cross(dir)
	k := sA*(mA+ra.dot(mulMat(iA, ra))) + sB*(mB+rb.dot(mulMat(iB, rb)))
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
		imp = -cp.normalMass * (vn + s*p.invH)
	case useBias:
		imp = -cp.softMass*(vn+max(biasRate*s, -p.maxPush)) - cp.leak*cp.normalImpulse
	default:
		imp = -cp.normalMass * vn
	}
	acc := max(cp.normalImpulse+imp, 0)
	imp = acc - cp.normalImpulse
	cp.normalImpulse = acc
	cp.maxNormal = max(cp.maxNormal, imp)
	return imp
}

// bodyPair is the state of a manifold's two bodies that the solver reads and updates.
type bodyPair struct {
	xA, xB, vA, wA, vB, wB vec
	rotA, rotB, iA, iB     *Mat3
	mA, mB                 float32
}

func (w *World) loadPair(m *manifold) bodyPair {
	b := &w.Bodies
	a, o := m.a, m.b
	return bodyPair{
		xA: vv(b.Position[a]), xB: vv(b.Position[o]),
		vA: vv(b.Velocity[a]), wA: vv(b.AngularVelocity[a]),
		vB: vv(b.Velocity[o]), wB: vv(b.AngularVelocity[o]),
		rotA: &w.pipe.rot[a], rotB: &w.pipe.rot[o],
		iA: &b.InvInertiaWorld[a], iB: &b.InvInertiaWorld[o],
		mA: b.InvMass[a], mB: b.InvMass[o],
	}
}

// apply adds impulse P at anchors rA (negated) and rB.
func (s *bodyPair) apply(P, rA, rB vec) {
	s.vA = s.vA.sub(P.scale(s.mA))
	s.wA = s.wA.sub(mulMat(s.iA, rA.cross(P)))
	s.vB = s.vB.add(P.scale(s.mB))
	s.wB = s.wB.add(mulMat(s.iB, rB.cross(P)))
}

// relVel returns the velocity of b's anchor relative to a's.
func (s *bodyPair) relVel(rA, rB vec) vec {
	return s.vB.add(s.wB.cross(rB)).sub(s.vA).sub(s.wA.cross(rA))
}

// store writes the velocities of the dynamic bodies back. Static and kinematic bodies are never
// written: several manifolds of one colour may share them.
func (w *World) store(m *manifold, s *bodyPair) {
	b := &w.Bodies
	if s.mA != 0 {
		b.Velocity[m.a], b.AngularVelocity[m.a] = s.vA.v3(), s.wA.v3()
	}
	if s.mB != 0 {
		b.Velocity[m.b], b.AngularVelocity[m.b] = s.vB.v3(), s.wB.v3()
	}
}

// solveManifold is one Gauss-Seidel pass over a manifold: each row sees the previous rows' updates.
// Bodies of one graph colour are disjoint, so a colour's manifolds run in parallel.
func (w *World) solveManifold(m *manifold, useBias bool) {
	p := &w.pipe
	s := w.loadPair(m)
	n := m.normal
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		dv := s.relVel(cp.rA, cp.rB)
		imp := p.normalRow(cp, m.biasRate, cp.sep, dv.dot(n), useBias)
		s.apply(n.scale(imp), cp.rA, cp.rB)
	}
	if !w.settings.NoFriction {
		for i := 0; i < int(m.count); i++ {
			cp := &m.pts[i]
			d1, d2 := friction(cp, m, s.relVel(cp.rA, cp.rB), useBias, m.drift)
			s.apply(m.t1.scale(d1).add(m.t2.scale(d2)), cp.rA, cp.rB)
		}
	}
	w.store(m, &s)
}

// refreshManifold recomputes what depends on body positions, which change only between the solve
// and relax passes of a sub-step: each point's current separation (measured between its anchors, so
// the solver sees penetration shrink as it pushes out) and the friction anchors' drift.
func (w *World) refreshManifold(m *manifold) {
	b := &w.Bodies
	rotA, rotB := &w.pipe.rot[m.a], &w.pipe.rot[m.b]
	xA, xB := vv(b.Position[m.a]), vv(b.Position[m.b])
	var drift vec
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		cp.sep = xB.add(mulMat(rotB, cp.localB)).sub(xA).sub(mulMat(rotA, cp.localA)).dot(m.normal)
		drift = drift.add(xB.add(mulMat(rotB, cp.anchorB)).sub(xA).sub(mulMat(rotA, cp.anchorA)))
	}
	m.drift = drift.scale(1 / float32(m.count))
}

// friction updates a point's two friction impulses for relative velocity dv and returns their change.
// In the biased pass a sticking contact also closes the mean drift between its points' friction anchors
// (the material points where each started sticking), softly,
// with the normal row's spring and damping, so static friction holds positions and not only
// velocities: without it a tall pyramid creeps apart by centimetres. The pair of impulses is clamped
// to the Coulomb disc |f_t| <= mu f_n using the current normal impulse, so friction is isotropic; a
// clamped point is sliding and its anchors are dropped at the next step.
func friction(cp *contactPoint, m *manifold, dv vec, useBias bool, drift vec) (float32, float32) {
	ms, leak := float32(1), float32(0)
	if useBias {
		dv = dv.add(drift.scale(m.biasRate))
		ms, leak = m.massScale, m.leak
	}
	l1 := cp.tangentImpulse[0] - cp.tangentMass[0]*ms*dv.dot(m.t1) - leak*cp.tangentImpulse[0]
	l2 := cp.tangentImpulse[1] - cp.tangentMass[1]*ms*dv.dot(m.t2) - leak*cp.tangentImpulse[1]
	maxF := m.friction * cp.normalImpulse
	cp.sliding = false
	if mag2 := l1*l1 + l2*l2; mag2 > maxF*maxF {
		s := maxF / sqrt32(mag2)
		l1, l2 = l1*s, l2*s
		cp.sliding = true
	}
	d1, d2 := l1-cp.tangentImpulse[0], l2-cp.tangentImpulse[1]
	cp.tangentImpulse = [2]float32{l1, l2}
	return d1, d2
}

// jacobiManifold computes a manifold's row updates from the velocities at the start of the pass (it
// writes no body) and records their sum for gatherImpulses.
func (w *World) jacobiManifold(m *manifold, useBias bool) {
	p := &w.pipe
	s := w.loadPair(m)
	n := m.normal
	var lin, angA, angB vec
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		dv := s.relVel(cp.rA, cp.rB)
		imp := p.normalRow(cp, m.biasRate, cp.sep, dv.dot(n), useBias)
		P := n.scale(imp)
		if !w.settings.NoFriction {
			d1, d2 := friction(cp, m, dv, useBias, m.drift)
			P = P.add(m.t1.scale(d1)).add(m.t2.scale(d2))
		}
		lin = lin.add(P)
		angA = angA.add(cp.rA.cross(P))
		angB = angB.add(cp.rB.cross(P))
	}
	m.linImp, m.angA, m.angB = lin, angA, angB
}

// warmStartManifold records the accumulated impulses of a manifold for gatherImpulses to apply.
func (w *World) warmStartManifold(m *manifold) {
	var lin, angA, angB vec
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		P := m.normal.scale(cp.normalImpulse).add(m.t1.scale(cp.tangentImpulse[0])).add(m.t2.scale(cp.tangentImpulse[1]))
		lin = lin.add(P)
		angA = angA.add(cp.rA.cross(P))
		angB = angB.add(cp.rB.cross(P))
	}
	m.linImp, m.angA, m.angB = lin, angA, angB
}

// restitutionImpulse returns the impulse change that makes a point leave at e times its approach speed.
// Only points that approached faster than the threshold and actually pushed this step bounce: resting
// contacts (slow approach) stay put.
func (p *pipeline) restitutionImpulse(cp *contactPoint, e, vn float32) float32 {
	if cp.relVel > -p.restThreshold || cp.maxNormal == 0 {
		return 0
	}
	imp := -cp.normalMass * (vn + e*cp.relVel)
	acc := max(cp.normalImpulse+imp, 0)
	imp = acc - cp.normalImpulse
	cp.normalImpulse = acc
	cp.maxNormal = max(cp.maxNormal, imp)
	return imp
}

// restituteManifold applies restitution to a manifold, Gauss-Seidel style (PGS) or, with record set,
// Jacobi style: from the pass's start velocities, recording the impulses for gatherImpulses.
func (w *World) restituteManifold(m *manifold, record bool) {
	p := &w.pipe
	s := w.loadPair(m)
	var lin, angA, angB vec
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		imp := p.restitutionImpulse(cp, m.restitution, s.relVel(cp.rA, cp.rB).dot(m.normal))
		if imp == 0 {
			continue
		}
		P := m.normal.scale(imp)
		if record {
			lin = lin.add(P)
			angA = angA.add(cp.rA.cross(P))
			angB = angB.add(cp.rB.cross(P))
			continue
		}
		s.apply(P, cp.rA, cp.rB)
	}
	if record {
		m.linImp, m.angA, m.angB = lin, angA, angB
		return
	}
	w.store(m, &s)
}

// gatherImpulses adds to each dynamic body the impulses its manifolds recorded in this pass (the
// per-body accumulation of seed 000's Jacobi solver, done as a gather so it needs no atomics).
func (w *World) gatherImpulses(lo, hi int) {
	b := &w.Bodies
	p := &w.pipe
	for i := lo; i < hi; i++ {
		if b.InvMass[i] == 0 {
			continue
		}
		var lin, ang vec
		for _, e := range p.adj[p.adjStart[i]:p.adjStart[i+1]] {
			m := &p.manifolds[e>>1]
			if e&1 == 0 {
				lin = lin.sub(m.linImp)
				ang = ang.sub(m.angA)
			} else {
				lin = lin.add(m.linImp)
				ang = ang.add(m.angB)
			}
		}
		b.Velocity[i] = vv(b.Velocity[i]).add(lin.scale(b.InvMass[i])).v3()
		b.AngularVelocity[i] = vv(b.AngularVelocity[i]).add(mulMat(&b.InvInertiaWorld[i], ang)).v3()
	}
}
