package sim

import "tumble/sim/internal/vecmath"

// resistRows are a manifold's rolling and spinning resistance: three angular rows on the bodies'
// relative angular velocity w = wB - wA, about the friction directions t1 and t2 (rolling) and about
// the normal n (spinning). Each drives its component of w to zero with an accumulated angular impulse
// that is clamped, as the friction rows are, to what the contact can carry: the rolling pair to the
// disc of radius c_r r N, the spinning row to [-c_s r N, c_s r N], where N is the manifold's summed
// normal impulse of the sub-step, c_r and c_s are the pair's coefficients (the larger of the two
// bodies') and r is the contact's lever, the largest distance from a moving body's centre of mass to
// the contact plane over the points (a sphere's radius). So a rolling body feels a torque of at most
// c_r r |f_n| against its roll and c_s r |f_n| against its spin, and no more than stops it: a ball
// given v0 on a flat floor rolls to rest after v0^2 / (2 * 5/7 c_r g) (Box2D v3's rolling resistance
// in three dimensions).
//
// The rows are part of friction: with Settings.NoFriction they are off. They are scalar: the wide
// pass runs them for its lanes that have them after the lanes' friction rows (resistLanes), on the
// same float32 values as solveManifold, so its results stay the scalar pass's bit for bit. A manifold
// with both coefficients at 0 runs no resistance arithmetic at all, so its results are those of a
// world without resistance, bit for bit.
type resistRows struct {
	rolling, spinning float32    // the pair's coefficients c_r and c_s
	maxRoll, maxSpin  float32    // c_r r and c_s r: the clamps per unit of normal impulse
	mass              [3]float32 // effective masses about t1, t2 and n
	iA, iB            [3]vec     // IA^-1 t1, IA^-1 t2, IA^-1 n, and B's
	impulse           [3]float32 // accumulated angular impulse about t1, t2 and n, N m s
}

// on reports whether the manifold has resistance rows.
func (r *resistRows) on() bool { return r.rolling > 0 || r.spinning > 0 }

// carry seeds the accumulated impulse from last step's manifold of the pair: the old impulse as a
// world vector, projected on the new axes.
func (r *resistRows) carry(m, old *manifold) {
	o := &old.resist.impulse
	l := old.t1.Scale(o[0]).Add(old.t2.Scale(o[1])).Add(old.normal.Scale(o[2]))
	r.impulse = [3]float32{l.Dot(m.t1), l.Dot(m.t2), l.Dot(m.normal)}
}

// prepare fixes the rows' inertia products, effective masses (with the split scales sA and sB of
// the Jacobi solver, 1 otherwise) and clamps for the step, given the contact's lever.
func (r *resistRows) prepare(m *manifold, iA, iB *Mat3, sA, sB, lever float32) {
	axes := [3]vec{m.t1, m.t2, m.normal}
	for k, d := range axes {
		r.iA[k], r.iB[k] = mulMat(iA, d), mulMat(iB, d)
		r.mass[k] = 0
		if kk := sA*d.Dot(r.iA[k]) + sB*d.Dot(r.iB[k]); kk > 0 {
			r.mass[k] = 1 / kk
		}
	}
	r.maxRoll, r.maxSpin = r.rolling*lever, r.spinning*lever
}

// normalTotal returns the manifold's summed normal impulse N, in point order.
func (m *manifold) normalTotal() float32 {
	var total float32
	for i := range m.pts[:m.count] {
		total += m.pts[i].normalImpulse
	}
	return total
}

// solve updates the accumulated impulses for the relative angular velocity wB - wA and the summed
// normal impulse total, and returns their changes about t1, t2 and n.
func (r *resistRows) solve(m *manifold, total float32, wA, wB vec) [3]float32 {
	w := wB.Sub(wA)
	old := r.impulse
	l1 := old[0] - r.mass[0]*m.t1.Dot(w)
	l2 := old[1] - r.mass[1]*m.t2.Dot(w)
	if maxR := r.maxRoll * total; l1*l1+l2*l2 > maxR*maxR {
		s := maxR / vecmath.Sqrt(l1*l1+l2*l2)
		l1, l2 = l1*s, l2*s
	}
	// The clamps as comparisons, which the CUDA kernel writes the same way (min and max differ between
	// Go and C on signed zeros).
	maxS := r.maxSpin * total
	l3 := old[2] - r.mass[2]*m.normal.Dot(w)
	if l3 > maxS {
		l3 = maxS
	} else if l3 < -maxS {
		l3 = -maxS
	}
	r.impulse = [3]float32{l1, l2, l3}
	return [3]float32{l1 - old[0], l2 - old[1], l3 - old[2]}
}

// apply adds the angular impulse changes e (about t1, t2, n) to the angular velocities: B gets
// them, A their opposite.
func (r *resistRows) apply(e [3]float32, wA, wB vec) (vec, vec) {
	wA = wA.Sub(r.iA[0].Scale(e[0])).Sub(r.iA[1].Scale(e[1])).Sub(r.iA[2].Scale(e[2]))
	wB = wB.Add(r.iB[0].Scale(e[0])).Add(r.iB[1].Scale(e[1])).Add(r.iB[2].Scale(e[2]))
	return wA, wB
}

// world returns the angular impulse e (about t1, t2, n) as a world vector, for the Jacobi pass's and
// the warm start's records (impulseSum's angA and angB both take it: B gets it, A its opposite).
func (r *resistRows) world(m *manifold, e [3]float32) vec {
	return m.t1.Scale(e[0]).Add(m.t2.Scale(e[1])).Add(m.normal.Scale(e[2]))
}

// prepareResist fixes manifold k's resistance rows for the step (prepareRows, and the wide path's
// packBatch for its batches' manifolds): the lever from the narrow phase's points, as prepareRows
// places the arms, then resistRows.prepare.
func (w *World) prepareResist(k int) {
	b := &w.Bodies
	p := &w.pipe
	m := &p.narrow.manifolds[k]
	c := p.candOf(k)
	a, o := m.a, m.b
	sA, sB := float32(1), float32(1)
	if c := p.narrow.splitCount; c != nil {
		sA, sB = float32(max(c[a], 1)), float32(max(c[o], 1))
	}
	n := m.normal
	xA, xB := ldv(&b.Position[a]), ldv(&b.Position[o])
	var lever float32
	for i := 0; i < int(m.count); i++ {
		pt := &c.Points[i]
		half := n.Scale(0.5 * pt.Separation)
		pos := ldv(&pt.Position)
		lever = contactLever(lever, pos.Sub(half).Sub(xA), pos.Add(half).Sub(xB), n, b.InvMass[a], b.InvMass[o])
	}
	m.resist.prepare(m, &b.InvInertiaWorld[a], &b.InvInertiaWorld[o], sA, sB, lever)
}

// resistLanes runs the resistance rows of the manifolds in lanes lo to hi of batch bt that have them
// (bt.resists), after the wide pass stored the lanes' velocities: solveManifold's last rows, on the
// velocities where the pass keeps them (the state rows or Bodies) and the batch's normal impulses.
func (w *World) resistLanes(bt *wideBatch, lo, hi int) {
	p := &w.pipe
	for l := lo; l < hi; l++ {
		if bt.resists&(1<<l) == 0 {
			continue
		}
		m := &p.narrow.manifolds[bt.k[l]]
		var total float32
		for j := range int(bt.count[l]) {
			total += bt.pts[j].normalImpulse[l]
		}
		wA, wB := w.laneSpin(bt.a[l]), w.laneSpin(bt.b[l])
		wA, wB = m.resist.apply(m.resist.solve(m, total, wA, wB), wA, wB)
		if bt.mA[l] != 0 {
			w.setLaneSpin(bt.a[l], wA)
		}
		if bt.mB[l] != 0 {
			w.setLaneSpin(bt.b[l], wB)
		}
	}
}

// laneSpin is body i's angular velocity where the wide passes keep it; setLaneSpin sets it.
func (w *World) laneSpin(i int32) vec {
	if p := &w.pipe; p.wide.stateOn {
		r := &p.wide.vel[i]
		return vec{X: r[3], Y: r[4], Z: r[5]}
	}
	return ldv(&w.Bodies.AngularVelocity[i])
}

func (w *World) setLaneSpin(i int32, v vec) {
	if p := &w.pipe; p.wide.stateOn {
		r := &p.wide.vel[i]
		r[3], r[4], r[5] = v.X, v.Y, v.Z
		return
	}
	stv(&w.Bodies.AngularVelocity[i], v)
}

// contactLever returns the lever r of the resistance clamps for contact point arms rA and rB: the
// larger distance from a moving body's centre of mass to the contact plane (normal n).
func contactLever(lever float32, rA, rB, n vec, mA, mB float32) float32 {
	if d := vecmath.Abs(rA.Dot(n)); mA != 0 && d > lever {
		lever = d
	}
	if d := vecmath.Abs(rB.Dot(n)); mB != 0 && d > lever {
		lever = d
	}
	return lever
}

// resistVelocity is the resistance of the solvers without accumulated contact rows (xpbd, impulse,
// penalty): given the normal impulse N that manifold m's points applied over a sub-step and the mean
// contact arms rA and rB, it takes out of the bodies' relative angular velocity the rolling part (about
// axes in the contact plane) with an angular impulse of at most c_r r N, then the spin about n with one
// of at most c_s r N; each no more than stops it. With friction off it does nothing.
func (w *World) resistVelocity(m *manifold, rA, rB vec, normal float32) {
	if !m.resist.on() || w.settings.NoFriction || !(normal > 0) {
		return
	}
	b := &w.Bodies
	n := m.normal
	lever := contactLever(0, rA, rB, n, b.InvMass[m.a], b.InvMass[m.b])
	rel := func() vec { return ldv(&b.AngularVelocity[m.b]).Sub(ldv(&b.AngularVelocity[m.a])) }
	if c := m.resist.rolling; c > 0 {
		wr := rel()
		wt := wr.Sub(n.Scale(wr.Dot(n)))
		if s := vecmath.Sqrt(wt.Dot(wt)); s > 0 {
			w.angularImpulse(m, wt.Scale(1/s), s, c*lever*normal)
		}
	}
	if c := m.resist.spinning; c > 0 {
		if s := rel().Dot(n); s > 0 {
			w.angularImpulse(m, n, s, c*lever*normal)
		} else if s < 0 {
			w.angularImpulse(m, n.Scale(-1), -s, c*lever*normal)
		}
	}
}

// angularImpulse reduces the bodies' relative angular velocity about the unit axis u, now s > 0, by
// an angular impulse of at most maxL: all of it if that is enough.
func (w *World) angularImpulse(m *manifold, u vec, s, maxL float32) {
	iA, iB := w.invInertiaTimes(m.a, u), w.invInertiaTimes(m.b, u)
	k := u.Dot(iA) + u.Dot(iB)
	if !(k > 0) {
		return
	}
	l := min(s/k, maxL)
	w.addVelocity(m.a, vec{}, iA.Scale(l))
	w.addVelocity(m.b, vec{}, iB.Scale(-l))
}

// resistRecord is resistVelocity for a pass that records its impulses from the velocities at its
// start (penalty): the angular impulse on B (A takes its opposite) that the resistance of manifold m
// applies for relative angular velocity wB - wA, normal impulse N and mean arms rA, rB, with the world
// inverse inertias iA and iB.
func (w *World) resistRecord(m *manifold, wA, wB, rA, rB vec, iA, iB *Mat3, normal float32) vec {
	var out vec
	if !m.resist.on() || w.settings.NoFriction || !(normal > 0) {
		return out
	}
	n := m.normal
	lever := contactLever(0, rA, rB, n, w.Bodies.InvMass[m.a], w.Bodies.InvMass[m.b])
	stop := func(u vec, s, maxL float32) {
		if k := u.Dot(mulMat(iA, u)) + u.Dot(mulMat(iB, u)); k > 0 {
			out = out.Sub(u.Scale(min(s/k, maxL)))
		}
	}
	rel := wB.Sub(wA)
	wt := rel.Sub(n.Scale(rel.Dot(n)))
	if s := vecmath.Sqrt(wt.Dot(wt)); m.resist.rolling > 0 && s > 0 {
		stop(wt.Scale(1/s), s, m.resist.rolling*lever*normal)
	}
	if s := rel.Dot(n); m.resist.spinning > 0 && s != 0 {
		u := n
		if s < 0 {
			u, s = n.Scale(-1), -s
		}
		stop(u, s, m.resist.spinning*lever*normal)
	}
	return out
}
