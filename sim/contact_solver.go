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
		xA, xB := b.Position[a], b.Position[o]
		vA, wA := b.Velocity[a], b.AngularVelocity[a]
		vB, wB := b.Velocity[o], b.AngularVelocity[o]
		for i := 0; i < int(m.count); i++ {
			pt := &c.Points[i]
			cp := &m.pts[i]
			half := n.Mul(0.5 * pt.Separation)
			rA := pt.Position.Sub(half).Sub(xA)
			rB := pt.Position.Add(half).Sub(xB)
			cp.rA, cp.rB = rA, rB
			cp.localA = mulMTV(&p.rot[a], rA)
			cp.localB = mulMTV(&p.rot[o], rB)
			cp.normalMass = effMass(n, rA, rB, mA, mB, iA, iB, sA, sB)
			// The soft row is the constraint plus a compliance gamma = K / a2 (K the row's inverse
			// effective mass): its update is -(vn + bias + gamma lambda) / (K + gamma), which is
			// Box2D's massScale and impulseScale. With Jacobi K is the split one, so the contact is as
			// soft as its split mass: taking gamma from the unsplit K instead made Jacobi unstable
			// (measured: heavy-on-light blew apart), so stacks under Jacobi compress more than under PGS.
			cp.softMass, cp.leak = 0, 0
			if cp.normalMass > 0 {
				gamma := soft.compliance / cp.normalMass
				cp.softMass = 1 / (1/cp.normalMass + gamma)
				cp.leak = gamma * cp.softMass
			}
			cp.tangentMass[0] = effMass(m.t1, rA, rB, mA, mB, iA, iB, sA, sB)
			cp.tangentMass[1] = effMass(m.t2, rA, rB, mA, mB, iA, iB, sA, sB)
			dv := vB.Add(cross(wB, rB)).Sub(vA).Sub(cross(wA, rA))
			cp.relVel = dot(dv, n)
			cp.maxNormal = 0
			cp.normalImpulse, cp.tangentImpulse = 0, [2]float32{}
			cp.anchorA, cp.anchorB, cp.sliding = cp.localA, cp.localB, false
			if old != nil {
				for j := 0; j < int(old.count); j++ {
					op := &old.pts[j]
					if op.id != cp.id {
						continue
					}
					if !op.sliding {
						// Keep the old anchors unless they lie far apart along the contact plane: a
						// sticking point drifts by millimetres, so a larger gap means the feature id now
						// names another point of the manifold, whose anchors would twist the bodies.
						d := mulMV(&p.rot[o], op.anchorB).Add(xB).Sub(mulMV(&p.rot[a], op.anchorA)).Sub(xA)
						d = d.Sub(n.Mul(dot(d, n)))
						if dot(d, d) < p.anchorReach*p.anchorReach {
							cp.anchorA, cp.anchorB = op.anchorA, op.anchorB
						}
					}
					cp.normalImpulse = op.normalImpulse
					// Carry the old friction impulse as a world vector onto the new tangents.
					t := old.t1.Mul(op.tangentImpulse[0]).Add(old.t2.Mul(op.tangentImpulse[1]))
					cp.tangentImpulse = [2]float32{dot(t, m.t1), dot(t, m.t2)}
					break
				}
			}
		}
	}
}

// effMass returns 1 / (J M^-1 J^T) for a row along dir at anchors rA, rB; sA and sB scale each body's
// inverse mass (mass splitting).
func effMass(dir, rA, rB Vec3, mA, mB float32, iA, iB *Mat3, sA, sB float32) float32 {
	ra := cross(rA, dir)
	rb := cross(rB, dir)
	k := sA*(mA+dot(ra, mulMV(iA, ra))) + sB*(mB+dot(rb, mulMV(iB, rb)))
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

// solveManifold is one Gauss-Seidel pass over a manifold: each row sees the previous rows' updates.
// Bodies of one graph colour are disjoint, so a colour's manifolds run in parallel.
func (w *World) solveManifold(m *manifold, useBias bool) {
	b := &w.Bodies
	p := &w.pipe
	a, o := m.a, m.b
	mA, mB := b.InvMass[a], b.InvMass[o]
	iA, iB := &b.InvInertiaWorld[a], &b.InvInertiaWorld[o]
	vA, wA := b.Velocity[a], b.AngularVelocity[a]
	vB, wB := b.Velocity[o], b.AngularVelocity[o]
	xA, xB := b.Position[a], b.Position[o]
	rotA, rotB := &p.rot[a], &p.rot[o]
	n := m.normal
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		d := xB.Add(mulMV(rotB, cp.localB)).Sub(xA).Sub(mulMV(rotA, cp.localA))
		dv := vB.Add(cross(wB, cp.rB)).Sub(vA).Sub(cross(wA, cp.rA))
		imp := p.normalRow(cp, m.biasRate, dot(d, n), dot(dv, n), useBias)
		P := n.Mul(imp)
		vA = vA.Sub(P.Mul(mA))
		wA = wA.Sub(mulMV(iA, cross(cp.rA, P)))
		vB = vB.Add(P.Mul(mB))
		wB = wB.Add(mulMV(iB, cross(cp.rB, P)))
	}
	if !w.settings.NoFriction {
		var drift Vec3
		if useBias {
			drift = anchorDrift(m, xA, xB, rotA, rotB)
		}
		for i := 0; i < int(m.count); i++ {
			cp := &m.pts[i]
			dv := vB.Add(cross(wB, cp.rB)).Sub(vA).Sub(cross(wA, cp.rA))
			d1, d2 := w.friction(cp, m, dv, useBias, drift)
			P := m.t1.Mul(d1).Add(m.t2.Mul(d2))
			vA = vA.Sub(P.Mul(mA))
			wA = wA.Sub(mulMV(iA, cross(cp.rA, P)))
			vB = vB.Add(P.Mul(mB))
			wB = wB.Add(mulMV(iB, cross(cp.rB, P)))
		}
	}
	if mA != 0 {
		b.Velocity[a], b.AngularVelocity[a] = vA, wA
	}
	if mB != 0 {
		b.Velocity[o], b.AngularVelocity[o] = vB, wB
	}
}

// anchorDrift returns the mean offset, over a manifold's points, between each point's two friction
// anchors (the material points where it started sticking): how far the bodies have slipped since.
// Anchoring the mean, rather than each corner, corrects translational creep without adding torsional
// springs at the corners (those set tall stacks twisting, measured).
func anchorDrift(m *manifold, xA, xB Vec3, rotA, rotB *Mat3) Vec3 {
	var d Vec3
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		d = d.Add(xB.Add(mulMV(rotB, cp.anchorB)).Sub(xA).Sub(mulMV(rotA, cp.anchorA)))
	}
	return d.Mul(1 / float32(m.count))
}

// friction updates a point's two friction impulses for relative velocity dv and returns their change.
// In the biased pass a sticking contact also closes its tangential drift (see anchorDrift), softly,
// with the normal row's spring and damping, so static friction holds positions and not only
// velocities: without it a tall pyramid creeps apart by centimetres. The pair of impulses is clamped
// to the Coulomb disc |f_t| <= mu f_n using the current normal impulse, so friction is isotropic; a
// clamped point is sliding and its anchors are dropped at the next step.
func (w *World) friction(cp *contactPoint, m *manifold, dv Vec3, useBias bool, drift Vec3) (float32, float32) {
	ms, leak := float32(1), float32(0)
	if useBias {
		dv = dv.Add(drift.Mul(m.biasRate))
		ms, leak = m.massScale, m.leak
	}
	l1 := cp.tangentImpulse[0] - cp.tangentMass[0]*ms*dot(dv, m.t1) - leak*cp.tangentImpulse[0]
	l2 := cp.tangentImpulse[1] - cp.tangentMass[1]*ms*dot(dv, m.t2) - leak*cp.tangentImpulse[1]
	maxF := m.friction * cp.normalImpulse
	cp.sliding = false
	if mag2 := l1*l1 + l2*l2; mag2 > maxF*maxF {
		s := maxF / float32(math.Sqrt(float64(mag2)))
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
	b := &w.Bodies
	p := &w.pipe
	a, o := m.a, m.b
	vA, wA := b.Velocity[a], b.AngularVelocity[a]
	vB, wB := b.Velocity[o], b.AngularVelocity[o]
	xA, xB := b.Position[a], b.Position[o]
	rotA, rotB := &p.rot[a], &p.rot[o]
	n := m.normal
	var lin, angA, angB, drift Vec3
	if useBias && !w.settings.NoFriction {
		drift = anchorDrift(m, xA, xB, rotA, rotB)
	}
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		d := xB.Add(mulMV(rotB, cp.localB)).Sub(xA).Sub(mulMV(rotA, cp.localA))
		dv := vB.Add(cross(wB, cp.rB)).Sub(vA).Sub(cross(wA, cp.rA))
		imp := p.normalRow(cp, m.biasRate, dot(d, n), dot(dv, n), useBias)
		P := n.Mul(imp)
		if !w.settings.NoFriction {
			d1, d2 := w.friction(cp, m, dv, useBias, drift)
			P = P.Add(m.t1.Mul(d1)).Add(m.t2.Mul(d2))
		}
		lin = lin.Add(P)
		angA = angA.Add(cross(cp.rA, P))
		angB = angB.Add(cross(cp.rB, P))
	}
	m.linImp, m.angA, m.angB = lin, angA, angB
}

// warmStartManifold records the accumulated impulses of a manifold for gatherImpulses to apply.
func (w *World) warmStartManifold(m *manifold) {
	var lin, angA, angB Vec3
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		P := m.normal.Mul(cp.normalImpulse).Add(m.t1.Mul(cp.tangentImpulse[0])).Add(m.t2.Mul(cp.tangentImpulse[1]))
		lin = lin.Add(P)
		angA = angA.Add(cross(cp.rA, P))
		angB = angB.Add(cross(cp.rB, P))
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
	b := &w.Bodies
	p := &w.pipe
	a, o := m.a, m.b
	mA, mB := b.InvMass[a], b.InvMass[o]
	iA, iB := &b.InvInertiaWorld[a], &b.InvInertiaWorld[o]
	vA, wA := b.Velocity[a], b.AngularVelocity[a]
	vB, wB := b.Velocity[o], b.AngularVelocity[o]
	var lin, angA, angB Vec3
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		dv := vB.Add(cross(wB, cp.rB)).Sub(vA).Sub(cross(wA, cp.rA))
		imp := p.restitutionImpulse(cp, m.restitution, dot(dv, m.normal))
		if imp == 0 {
			continue
		}
		P := m.normal.Mul(imp)
		if record {
			lin = lin.Add(P)
			angA = angA.Add(cross(cp.rA, P))
			angB = angB.Add(cross(cp.rB, P))
			continue
		}
		vA = vA.Sub(P.Mul(mA))
		wA = wA.Sub(mulMV(iA, cross(cp.rA, P)))
		vB = vB.Add(P.Mul(mB))
		wB = wB.Add(mulMV(iB, cross(cp.rB, P)))
	}
	if record {
		m.linImp, m.angA, m.angB = lin, angA, angB
		return
	}
	if mA != 0 {
		b.Velocity[a], b.AngularVelocity[a] = vA, wA
	}
	if mB != 0 {
		b.Velocity[o], b.AngularVelocity[o] = vB, wB
	}
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
		var lin, ang Vec3
		for _, e := range p.adj[p.adjStart[i]:p.adjStart[i+1]] {
			m := &p.manifolds[e>>1]
			if e&1 == 0 {
				lin = lin.Sub(m.linImp)
				ang = ang.Sub(m.angA)
			} else {
				lin = lin.Add(m.linImp)
				ang = ang.Add(m.angB)
			}
		}
		b.Velocity[i] = b.Velocity[i].Add(lin.Mul(b.InvMass[i]))
		b.AngularVelocity[i] = b.AngularVelocity[i].Add(mulMV(&b.InvInertiaWorld[i], ang))
	}
}
