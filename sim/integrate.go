package sim

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// quatMat3 returns the rotation matrix of a unit quaternion (column-major).
func quatMat3(q Quat) Mat3 {
	var m Mat3
	setRotation(&m, q.W, q.V[0], q.V[1], q.V[2])
	return m
}

// setRotation sets m to the rotation matrix of the unit quaternion (w, x, y, z), quatMat3 in
// scalars: a Quat or Mat3 returned by value goes through memory and is copied in wide moves over
// its narrow stores, which stalls (store forwarding fails).
func setRotation(m *Mat3, w, x, y, z float32) {
	xx, yy, zz := x*x, y*y, z*z
	xy, xz, yz := x*y, x*z, y*z
	wx, wy, wz := w*x, w*y, w*z
	m[0], m[1], m[2] = 1-2*(yy+zz), 2*(xy+wz), 2*(xz-wy)
	m[3], m[4], m[5] = 2*(xy-wz), 1-2*(xx+zz), 2*(yz+wx)
	m[6], m[7], m[8] = 2*(xz+wy), 2*(yz-wx), 1-2*(xx+yy)
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
	h := p.plan.ctx.h
	g := w.settings.Gravity.Mul(h)
	var batch [wideLanes]int32
	nb := 0
	for i := lo; i < hi; i++ {
		if b.Type[i] != Dynamic || b.Asleep[i] {
			continue
		}
		v := &b.Velocity[i]
		v[0], v[1], v[2] = v[0]+g[0], v[1]+g[1], v[2]+g[2]
		om := ldv(&b.AngularVelocity[i])
		if om == (vec{}) {
			continue
		}
		inv := &b.InvInertiaLocal[i]
		if inv[0] == inv[1] && inv[1] == inv[2] {
			continue // a sphere-like inertia has no gyroscopic torque
		}
		if wideGyroKernel != nil { // eight bodies at a time
			batch[nb] = int32(i)
			if nb++; nb == wideLanes {
				wideGyroKernel(w, batch, h)
				nb = 0
			}
			continue
		}
		w.gyro(i, h)
	}
	for _, i := range batch[:nb] {
		w.gyro(int(i), h)
	}
}

// gyro integrates body i's gyroscopic term over h (gyroStep in the body frame).
func (w *World) gyro(i int, h float32) {
	b := &w.Bodies
	rot := &b.rot[i]
	stv(&b.AngularVelocity[i], mulMat(rot, gyroStep(mulMatT(rot, ldv(&b.AngularVelocity[i])), &b.InvInertiaLocal[i], h)))
}

// wideGyroKernel is gyro over the eight bodies of idx, one per lane, in builds with the wide contact
// pass (integrate_simd.go), or nil.
var wideGyroKernel func(w *World, idx [wideLanes]int32, h float32)

// gyroStep solves the implicit midpoint rule I (w2 - w1) + h m x I m = 0, m = (w1 + w2) / 2, for the
// body-frame angular velocity w2 after a sub-step h from w1, with inverse inertia inv: two Newton
// steps from w2 = w1 with J = I + h/2 ([m]x I - [I m]x). It is the arithmetic of the matrix form
// (skew, Mat3.Det, Mat3.Inv, mulMV), written out in scalars in the same order, so it gives the same
// bits without building matrices in memory (building them took a third of the ragdoll pile's integration).
func gyroStep(w1 vec, inv *Vec3, h float32) vec {
	i0, i1, i2 := 1/inv[0], 1/inv[1], 1/inv[2]
	w2 := w1
	hh := 0.5 * h
	for it := 0; it < 2; it++ {
		m0, m1, m2 := (w1.X+w2.X)*0.5, (w1.Y+w2.Y)*0.5, (w1.Z+w2.Z)*0.5
		a0, a1, a2 := i0*m0, i1*m1, i2*m2 // I m
		// f = I (w2 - w1) + h (m x I m)
		f0 := i0*(w2.X-w1.X) + (m1*a2-m2*a1)*h
		f1 := i1*(w2.Y-w1.Y) + (m2*a0-m0*a2)*h
		f2 := i2*(w2.Z-w1.Z) + (m0*a1-m1*a0)*h
		// J, column-major: J[c*3+r] = h/2 (skew(m)[c*3+r] I[c] - skew(I m)[c*3+r]), plus I on the
		// diagonal; skew(v) = {0, v2, -v1, -v2, 0, v0, v1, -v0, 0}.
		j0 := hh*(0*i0-0) + i0
		j1 := hh * (m2*i0 - a2)
		j2 := hh * (-m1*i0 - -a1)
		j3 := hh * (-m2*i1 - -a2)
		j4 := hh*(0*i1-0) + i1
		j5 := hh * (m0*i1 - a0)
		j6 := hh * (m1*i2 - a1)
		j7 := hh * (-m0*i2 - -a0)
		j8 := hh*(0*i2-0) + i2
		det := j0*j4*j8 + j3*j7*j2 + j6*j1*j5 - j6*j4*j2 - j3*j1*j8 - j0*j7*j5
		if det == 0 || math.IsNaN(float64(det)) {
			break
		}
		if mgl32.FloatEqual(det, 0) { // Mat3.Inv's zero matrix: no change
			continue
		}
		s := 1 / det
		k0, k1, k2 := (j4*j8-j5*j7)*s, (j2*j7-j1*j8)*s, (j1*j5-j2*j4)*s
		k3, k4, k5 := (j5*j6-j3*j8)*s, (j0*j8-j2*j6)*s, (j2*j3-j0*j5)*s
		k6, k7, k8 := (j3*j7-j4*j6)*s, (j1*j6-j0*j7)*s, (j0*j4-j1*j3)*s
		w2 = vec{X: w2.X - (k0*f0 + k3*f1 + k6*f2), Y: w2.Y - (k1*f0 + k4*f1 + k7*f2), Z: w2.Z - (k2*f0 + k5*f1 + k8*f2)}
	}
	return w2
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
	h := p.plan.ctx.h
	hh := 0.5 * h
	var batch [wideLanes]int32
	nb := 0
	for i := lo; i < hi; i++ {
		if b.Type[i] == Static || b.Asleep[i] {
			continue
		}
		// In scalars, with mathgl's operations in its order (the same bits; mathgl's arrays go through
		// memory at every operation, which made this loop 2x slower).
		x, v := &b.Position[i], &b.Velocity[i]
		x[0], x[1], x[2] = x[0]+v[0]*h, x[1]+v[1]*h, x[2]+v[2]*h
		if ldv(&b.AngularVelocity[i]) == (vec{}) {
			continue
		}
		if wideRotateKernel != nil { // eight bodies at a time
			batch[nb] = int32(i)
			if nb++; nb == wideLanes {
				wideRotateKernel(w, batch, hh)
				nb = 0
			}
			continue
		}
		w.rotate(i, hh)
	}
	for _, i := range batch[:nb] {
		w.rotate(int(i), hh)
	}
}

// rotate turns body i by its angular velocity over a sub-step of 2 hh: q += hh (w, 0) q, renormalised,
// and its rotation matrix.
func (w *World) rotate(i int, hh float32) {
	b := &w.Bodies
	om := ldv(&b.AngularVelocity[i])
	q := &b.Rotation[i]
	qw, qx, qy, qz := q.W, q.V[0], q.V[1], q.V[2]
	// dq = (w, 0) q
	dw := -(om.X*qx + om.Y*qy + om.Z*qz)
	dx := (om.Y*qz - om.Z*qy) + om.X*qw
	dy := (om.Z*qx - om.X*qz) + om.Y*qw
	dz := (om.X*qy - om.Y*qx) + om.Z*qw
	qw, qx, qy, qz = normalizeQuat(qw+hh*dw, qx+dx*hh, qy+dy*hh, qz+dz*hh)
	q.W, q.V[0], q.V[1], q.V[2] = qw, qx, qy, qz
	setRotation(&b.rot[i], qw, qx, qy, qz)
}

// wideRotateKernel is rotate over the eight bodies of idx, one per lane, in builds with the wide
// contact pass (integrate_simd.go), or nil.
var wideRotateKernel func(w *World, idx [wideLanes]int32, hh float32)

// normalizeQuat is mathgl's Quat.Normalize on the quaternion (w, x, y, z), in scalars, with the same
// results: a quaternion of length 1 is returned as it is (mathgl's FloatEqual(1, length) holds for no
// other float32 at its default Epsilon), length 0 gives the identity, and otherwise w is divided by
// the length and x, y, z multiplied by its reciprocal.
func normalizeQuat(w, x, y, z float32) (float32, float32, float32, float32) {
	l := float32(math.Sqrt(float64(w*w + x*x + y*y + z*z)))
	switch {
	case l == 1:
		return w, x, y, z
	case l == 0:
		return 1, 0, 0, 0
	case l > math.MaxFloat32:
		l = math.MaxFloat32
	}
	r := 1 / l
	return w / l, x * r, y * r, z * r
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
		worldInertiaTo(&b.InvInertiaWorld[i], &b.Rotation[i], &b.InvInertiaLocal[i])
		if sleep {
			if b.Velocity[i].Len()+b.AngularVelocity[i].Len()*boundingRadius(&b.Shape[i]) < sleepSpeed {
				b.SleepTime[i] += dt
			} else {
				b.SleepTime[i] = 0
			}
		}
	}
}
