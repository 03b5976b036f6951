package sim

import "math"

// quatMat3 returns the rotation matrix of a unit quaternion (column-major).
func quatMat3(q Quat) Mat3 {
	x, y, z, w := q.V[0], q.V[1], q.V[2], q.W
	xx, yy, zz := x*x, y*y, z*z
	xy, xz, yz := x*y, x*z, y*z
	wx, wy, wz := w*x, w*y, w*z
	return Mat3{
		1 - 2*(yy+zz), 2 * (xy + wz), 2 * (xz - wy),
		2 * (xy - wz), 1 - 2*(xx+zz), 2 * (yz + wx),
		2 * (xz + wy), 2 * (yz - wx), 1 - 2*(xx+yy),
	}
}

// mulMV returns m v.
func mulMV(m *Mat3, v Vec3) Vec3 {
	return Vec3{
		m[0]*v[0] + m[3]*v[1] + m[6]*v[2],
		m[1]*v[0] + m[4]*v[1] + m[7]*v[2],
		m[2]*v[0] + m[5]*v[1] + m[8]*v[2],
	}
}

// mulMTV returns m^T v.
func mulMTV(m *Mat3, v Vec3) Vec3 {
	return Vec3{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

func cross(a, b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func dot(a, b Vec3) float32 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// integrateVelocities applies gravity and the gyroscopic torque to dynamic bodies over one sub-step h.
//
// The gyroscopic term w x Iw is integrated implicitly, in the body frame, by the implicit midpoint
// rule: solve I(w2 - w1) + h m x I m = 0 with m = (w1 + w2)/2, by Newton's method from w2 = w1. An
// explicit step adds energy and makes a spinning handle's angular momentum grow without bound;
// backward Euler (Catto, GDC 2015) is stable but bleeds a few percent of |L| over ten seconds of a
// tumbling handle; the midpoint rule conserves both |L| and kinetic energy of a free body exactly
// (they are quadratic invariants), so only the orientation update's error remains.
func (w *World) integrateVelocities(lo, hi int) {
	b := &w.Bodies
	p := &w.pipe
	h := p.h
	g := w.settings.Gravity.Mul(h)
	for i := lo; i < hi; i++ {
		if b.Type[i] != Dynamic || b.Asleep[i] {
			continue
		}
		b.Velocity[i] = b.Velocity[i].Add(g)
		om := b.AngularVelocity[i]
		if om == (Vec3{}) {
			continue
		}
		inv := b.InvInertiaLocal[i]
		if inv[0] == inv[1] && inv[1] == inv[2] {
			continue // a sphere-like inertia has no gyroscopic torque
		}
		I := Vec3{1 / inv[0], 1 / inv[1], 1 / inv[2]}
		r := &p.rot[i]
		w1 := mulMTV(r, om)
		w2 := w1
		for it := 0; it < 2; it++ {
			m := w1.Add(w2).Mul(0.5)
			Im := Vec3{I[0] * m[0], I[1] * m[1], I[2] * m[2]}
			f := Vec3{I[0] * (w2[0] - w1[0]), I[1] * (w2[1] - w1[1]), I[2] * (w2[2] - w1[2])}.Add(cross(m, Im).Mul(h))
			// J = df/dw2 = I + h/2 (skew(m) I - skew(I m)), column-major.
			var J Mat3
			sm, sIm := skew(m), skew(Im)
			for c := 0; c < 3; c++ {
				for rr := 0; rr < 3; rr++ {
					J[c*3+rr] = 0.5 * h * (sm[c*3+rr]*I[c] - sIm[c*3+rr])
				}
			}
			J[0] += I[0]
			J[4] += I[1]
			J[8] += I[2]
			if det := J.Det(); det == 0 || math.IsNaN(float64(det)) {
				break
			}
			Jinv := J.Inv()
			w2 = w2.Sub(mulMV(&Jinv, f))
		}
		b.AngularVelocity[i] = mulMV(r, w2)
	}
}

// skew returns the cross-product matrix [v]x, so that [v]x u = v x u.
func skew(v Vec3) Mat3 {
	return Mat3{0, v[2], -v[1], -v[2], 0, v[0], v[1], -v[0], 0}
}

// integratePositions moves dynamic and kinematic bodies over one sub-step h:
// x += h v, q += h/2 (w, 0) q, renormalised.
func (w *World) integratePositions(lo, hi int) {
	b := &w.Bodies
	p := &w.pipe
	h := p.h
	for i := lo; i < hi; i++ {
		if b.Type[i] == Static || b.Asleep[i] {
			continue
		}
		b.Position[i] = b.Position[i].Add(b.Velocity[i].Mul(h))
		om := b.AngularVelocity[i]
		if om == (Vec3{}) {
			continue
		}
		q := b.Rotation[i]
		hh := 0.5 * h
		// dq = (w, 0) q
		dw := -(om[0]*q.V[0] + om[1]*q.V[1] + om[2]*q.V[2])
		dv := cross(om, q.V).Add(om.Mul(q.W))
		q.W += hh * dw
		q.V = q.V.Add(dv.Mul(hh))
		q = q.Normalize()
		b.Rotation[i] = q
		p.rot[i] = quatMat3(q)
	}
}

// finishStep refreshes world inverse inertia from the final orientations and, with sleeping on,
// counts how long each awake dynamic body has been at rest: its speed plus its spin times its bounding
// radius (the fastest any point of it moves) under sleepSpeed.
func (w *World) finishStep(lo, hi int) {
	b := &w.Bodies
	sleep, dt := w.settings.Sleep, w.settings.Dt
	for i := lo; i < hi; i++ {
		if b.Type[i] != Dynamic || b.Asleep[i] {
			continue
		}
		b.InvInertiaWorld[i] = worldInertia(b.Rotation[i], b.InvInertiaLocal[i])
		if sleep {
			if b.Velocity[i].Len()+b.AngularVelocity[i].Len()*boundingRadius(&b.Shape[i]) < sleepSpeed {
				b.SleepTime[i] += dt
			} else {
				b.SleepTime[i] = 0
			}
		}
	}
}
