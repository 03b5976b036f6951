package sim

import (
	"tumble/sim/internal/vecmath"

	"github.com/go-gl/mathgl/mgl32"
)

// Joint constraint parts (after Jolt's ConstraintPart/): each joint type is a short composition of
// these. A part holds its rows' Jacobian for the current sub-step (set from the bodies' current poses),
// its position error C, its effective mass and its accumulated impulse (kept across steps for warm
// starting). Every row has the form J = [-d, -ra, d, rb] on (vA, wA, vB, wB): a linear direction d
// applied at the anchors and angular terms ra, rb, so C' = d.(vB - vA) + rb.wB - ra.wA.
//
// The velocity solvers (PGS, Jacobi) solve a part as a soft constraint (Box2D v3's soft step): in the
// biased pass the impulse is -massScale K^-1 (C' + biasRate C) - impulseScale lambda, in the relax pass
// -K^-1 C'. Under Jacobi the masses in K are the split ones (see prepareJoints).

// jointPair is the state of a joint's two bodies while a part is solved. It also sums the impulses it
// applied, which is what the Jacobi solver records for the per-body gather.
type jointPair struct {
	vA, wA, vB, wB  vec
	mA, mB          float32
	iA, iB          *Mat3
	lin, angA, angB vec // impulses applied: linear on b (a gets the opposite), angular on a (negated) and b

	// noSums skips the sums: a Gauss-Seidel pass (solveJoint) writes the velocities back and reads
	// none of them. sumsOnly skips the velocities: the warm start (warmJoint) keeps only the sums.
	noSums, sumsOnly bool
}

// applyRow applies impulse imp along a scalar row. A zero impulse, which is what a limit far from its
// stop gives every pass, changes nothing and is skipped (a ragdoll's swing and twist limits are most
// of its joint rows).
func (s *jointPair) applyRow(imp float32, r *axisPart) {
	if imp == 0 {
		return
	}
	if !s.sumsOnly {
		if !r.angular {
			s.vA = s.vA.Sub(r.d.Scale(imp * s.mA))
			s.vB = s.vB.Add(r.d.Scale(imp * s.mB))
		}
		s.wA = s.wA.Sub(r.ia.Scale(imp))
		s.wB = s.wB.Add(r.ib.Scale(imp))
		if s.noSums {
			return
		}
	}
	s.lin = s.lin.Add(r.d.Scale(imp))
	s.angA = s.angA.Add(r.ra.Scale(imp))
	s.angB = s.angB.Add(r.rb.Scale(imp))
}

// applyPoint applies the linear impulse P at the anchors (a gets -P).
func (s *jointPair) applyPoint(P, rA, rB vec) {
	lA, lB := rA.Cross(P), rB.Cross(P)
	if !s.sumsOnly {
		s.vA = s.vA.Sub(P.Scale(s.mA))
		s.wA = s.wA.Sub(mulMat(s.iA, lA))
		s.vB = s.vB.Add(P.Scale(s.mB))
		s.wB = s.wB.Add(mulMat(s.iB, lB))
		if s.noSums {
			return
		}
	}
	s.lin = s.lin.Add(P)
	s.angA = s.angA.Add(lA)
	s.angB = s.angB.Add(lB)
}

// applyAngular applies the angular impulse L (a gets -L).
func (s *jointPair) applyAngular(L vec) {
	if !s.sumsOnly {
		s.wA = s.wA.Sub(mulMat(s.iA, L))
		s.wB = s.wB.Add(mulMat(s.iB, L))
		if s.noSums {
			return
		}
	}
	s.angA = s.angA.Add(L)
	s.angB = s.angB.Add(L)
}

// axisPart is one scalar row: a translation along d (the piston's off-axis rows and its travel), or,
// with d zero, a rotation about an axis (the hinge angle, the swing cone, the twist). Its solve
// functions make it an equality, a one-sided limit or a motor.
type axisPart struct {
	d, ra, rb vec
	ia, ib    vec // the inverse inertias times ra and rb
	mass      float32
	c         float32 // position error
	impulse   float32
	angular   bool // d is zero: the row moves no body's centre
}

func (r *axisPart) set(d, ra, rb vec, c float32, j *joint) {
	r.d, r.ra, r.rb, r.c = d, ra, rb, c
	r.angular = d == vec{}
	r.ia, r.ib = mulMat(&j.iA, ra), mulMat(&j.iB, rb)
	k := (j.mA+j.mB)*d.Dot(d) + ra.Dot(r.ia) + rb.Dot(r.ib)
	r.mass = 0
	if k > 0 {
		r.mass = 1 / k
	}
}

func (s *jointPair) rowVel(r *axisPart) float32 {
	if r.angular {
		return r.rb.Dot(s.wB) - r.ra.Dot(s.wA)
	}
	return r.d.Dot(s.vB.Sub(s.vA)) + r.rb.Dot(s.wB) - r.ra.Dot(s.wA)
}

// solveEquality holds C = 0.
func (r *axisPart) solveEquality(s *jointPair, soft *softness, useBias bool) {
	v := s.rowVel(r)
	var imp float32
	if useBias {
		imp = -r.mass*soft.massScale*(v+soft.biasRate*r.c) - soft.impulseScale*r.impulse
	} else {
		imp = -r.mass * v
	}
	r.impulse += imp
	s.applyRow(imp, r)
}

// solveLimit holds C >= 0 with an impulse that only pushes (its accumulated value stays >= 0). While
// the limit is open (C > 0) the row lets the coordinate close the gap this sub-step and no more
// (speculative, as Box2D v3 does), so a fast joint does not overshoot its limit.
func (r *axisPart) solveLimit(s *jointPair, soft *softness, useBias bool, invH float32) {
	s.applyRow(r.limitImpulse(s.rowVel(r), soft, useBias, invH), r)
}

// limitImpulse is the limit row's impulse change at row velocity v; it accumulates it.
func (r *axisPart) limitImpulse(v float32, soft *softness, useBias bool, invH float32) float32 {
	bias, ms, is := float32(0), float32(1), float32(0)
	if r.c > 0 {
		bias = r.c * invH
	} else if useBias {
		bias, ms, is = r.c*soft.biasRate, soft.massScale, soft.impulseScale
	}
	imp := -r.mass*ms*(v+bias) - is*r.impulse
	acc := max(r.impulse+imp, 0)
	imp = acc - r.impulse
	r.impulse = acc
	return imp
}

// solveMotor drives C' towards speed with an accumulated impulse bounded by maxImpulse (the motor's
// maximum force times the sub-step).
func (r *axisPart) solveMotor(s *jointPair, speed, maxImpulse float32) {
	v := s.rowVel(r)
	acc := min(max(r.impulse+r.mass*(speed-v), -maxImpulse), maxImpulse)
	imp := acc - r.impulse
	r.impulse = acc
	s.applyRow(imp, r)
}

// solveServo drives C' as a position motor (MotorPosition) does. Where Motor.rate's limits bound the
// rate it asks for (the servo far from its target), it is a motor at that rate in every velocity
// pass: the servo moves at its stated speed. Nearer, the error e is a position error like the
// joint's other rows'. Under a soft step (soft given) the biased pass asks for the joints' soft rate,
// soft.biasRate e, softened by their mass and impulse scales, and the relax pass for rate 0, taking
// the correction's velocity out again (Box2D v3's soft step). A rigid row at e / h in every pass,
// relax included, would keep each correction's velocity into the next sub-step, where the warm
// start applies its impulse again: under Gauss-Seidel a light body carrying heavy ones (a turret
// under an arm) feeds that back into a limit cycle at the force bound.
//
// Without a soft step (soft nil: the rigid solver) the same split runs over its two kinds of pass,
// at the rate its position pass closes a position error, rigidBaumgarte e / h. Where Motor.rate's
// limits bound that rate, the velocity passes (useBias false) drive the servo at the bound and the
// position pass leaves it to them. Nearer, the velocity passes ask for rate 0 and the position pass
// (useBias true, over pseudo-velocities) for rigidBaumgarte e / h, which moves the pose and leaves no
// velocity behind. Judged at e / h instead, the near zone is a fifth (rigidBaumgarte) as wide: Motor.rate's
// braking bound takes the row's two bodies' inertia, not the chain's they carry, so a shoulder
// between a light turret and an arm brakes late, overshoots that zone and returns at the rate bound
// (the arm preset's limit cycle at 1.8 m/s).
//
// The accumulated impulse stays within maxImpulse (the motor's force over the sub-step) in every
// pass.
func (r *axisPart) solveServo(s *jointPair, m *Motor, x float32, wrap bool, soft *softness, useBias bool, invH, maxImpulse float32) {
	s.applyRow(r.servoImpulse(s.rowVel(r), m, x, wrap, soft, useBias, invH, maxImpulse), r)
}

// servoImpulse is solveServo's impulse at the row velocity v, accumulated into r.impulse. soft is the
// joints' softness under a soft step, nil without one.
func (r *axisPart) servoImpulse(v float32, m *Motor, x float32, wrap bool, soft *softness, useBias bool, invH, maxImpulse float32) float32 {
	var imp float32
	if soft == nil {
		gain := rigidBaumgarte * invH // the position pass's rate for a position error
		rate := m.rate(x, wrap, gain, r.mass)
		near := rate == gain*m.servoError(x, wrap)
		switch {
		case !near && useBias:
			return 0 // moving: the velocity passes' motor
		case !near:
			imp = r.mass * (rate - v) // held to a rate limit: moving
		case useBias:
			imp = r.mass * (rate - v) // the position pass closes rigidBaumgarte of e
		default:
			imp = -r.mass * v
		}
	} else if rate := m.rate(x, wrap, soft.biasRate, r.mass); rate != soft.biasRate*m.servoError(x, wrap) {
		imp = r.mass * (rate - v) // held to a rate limit: moving
	} else if useBias {
		imp = soft.massScale*r.mass*(rate-v) - soft.impulseScale*r.impulse
	} else {
		imp = -r.mass * v
	}
	acc := min(max(r.impulse+imp, -maxImpulse), maxImpulse)
	imp = acc - r.impulse
	r.impulse = acc
	return imp
}

// anglePart is a joint's free coordinate (hinge angle, piston travel, ball twist): a motor and lower
// and upper one-sided limits, all rows along the same direction (the upper one reversed).
type anglePart struct {
	motor, lower, upper axisPart
}

// set sets the rows for the coordinate x with row (d, ra, rb) = dx/dt and limits [lo, hi].
func (a *anglePart) set(d, ra, rb vec, x float32, limits bool, lo, hi float32, motor bool, j *joint) {
	if motor {
		a.motor.set(d, ra, rb, 0, j)
	}
	if limits {
		a.lower.set(d, ra, rb, x-lo, j)
		// The upper row is the lower one reversed: its inertia products are the lower's negated and its
		// mass the same, exactly what set would compute from the negated vectors (a product or sum of
		// negated floats is the negated one), without the matrix products again.
		l, u := &a.lower, &a.upper
		u.d, u.ra, u.rb, u.c = d.Scale(-1), ra.Scale(-1), rb.Scale(-1), hi-x
		u.ia, u.ib, u.mass, u.angular = l.ia.Scale(-1), l.ib.Scale(-1), l.mass, l.angular
	}
}

func (a *anglePart) warm(s *jointPair, limits, motor bool) {
	if motor {
		s.applyRow(a.motor.impulse, &a.motor)
	}
	if limits {
		s.applyRow(a.lower.impulse, &a.lower)
		s.applyRow(a.upper.impulse, &a.upper)
	}
}

// solve runs the coordinate's rows: the motor (when given; x is the coordinate and wrap Motor.rate's;
// a servo takes servoSoft, solveServo's soft) then the limits.
func (a *anglePart) solve(s *jointPair, soft, servoSoft *softness, useBias bool, invH float32, limits bool, motor *Motor, x float32, wrap bool) {
	switch {
	case motor == nil:
	case motor.Mode == MotorPosition:
		a.motor.solveServo(s, motor, x, wrap, servoSoft, useBias, invH, motor.MaxForce/invH)
	default:
		a.motor.solveMotor(s, motor.Speed, motor.MaxForce/invH)
	}
	if limits {
		a.lower.solveLimit(s, soft, useBias, invH)
		a.upper.solveLimit(s, soft, useBias, invH)
	}
}

// pointPart is the ball joint's 3 translation rows: the anchors rA, rB (world offsets from the
// centres) meet. K = (mA + mB) 1 - [rA]x IA [rA]x - [rB]x IB [rB]x, solved as a 3x3 block.
type pointPart struct {
	rA, rB  vec
	c       vec
	mass    Mat3 // K^-1
	impulse vec
}

func (p *pointPart) set(rA, rB, c vec, j *joint) {
	p.rA, p.rB, p.c = rA, rB, c
	p.setMass(j)
}

// setMass sets K^-1 for the current anchors.
func (p *pointPart) setMass(j *joint) {
	rA, rB := p.rA, p.rB
	// K's columns K e for the unit vectors e, written out (a loop over an array of them kept every
	// vector in memory); the same operations, zero components included.
	m := j.mA + j.mB
	ex, ey, ez := vec{X: 1}, vec{Y: 1}, vec{Z: 1}
	kx := ex.Scale(m).Add(mulMat(&j.iA, rA.Cross(ex)).Cross(rA)).Add(mulMat(&j.iB, rB.Cross(ex)).Cross(rB))
	ky := ey.Scale(m).Add(mulMat(&j.iA, rA.Cross(ey)).Cross(rA)).Add(mulMat(&j.iB, rB.Cross(ey)).Cross(rB))
	kz := ez.Scale(m).Add(mulMat(&j.iA, rA.Cross(ez)).Cross(rA)).Add(mulMat(&j.iB, rB.Cross(ez)).Cross(rB))
	k := Mat3{kx.X, kx.Y, kx.Z, ky.X, ky.Y, ky.Z, kz.X, kz.Y, kz.Z}
	invertTo(&p.mass, &k)
}

func (p *pointPart) solve(s *jointPair, soft *softness, useBias bool) {
	s.applyPoint(p.impulse3(s.vA, s.wA, s.vB, s.wB, soft, useBias), p.rA, p.rB)
}

// impulse3 solves the three rows as a block against the bodies' velocities, accumulates the impulse
// and returns it (B gets it at rB, A its opposite at rA).
func (p *pointPart) impulse3(vA, wA, vB, wB vec, soft *softness, useBias bool) vec {
	cdot := vB.Add(wB.Cross(p.rB)).Sub(vA).Sub(wA.Cross(p.rA))
	var imp vec
	if useBias {
		imp = mulMat(&p.mass, cdot.Add(p.c.Scale(soft.biasRate))).Scale(-soft.massScale).Sub(p.impulse.Scale(soft.impulseScale))
	} else {
		imp = mulMat(&p.mass, cdot).Scale(-1)
	}
	p.impulse = p.impulse.Add(imp)
	return imp
}

// hingeRotationPart is the hinge's 2 rotation rows: B's two directions b2, c2 perpendicular to its
// hinge axis stay perpendicular to A's hinge axis a1. C = (a1.b2, a1.c2); since d/dt (a1.b2) =
// (b2 x a1).(wB - wA), the rows are u1 = b2 x a1 and u2 = c2 x a1, solved as a 2x2 block.
type hingeRotationPart struct {
	u1, u2  vec
	c       [2]float32
	mass    [3]float32 // K^-1 (symmetric): 11, 12, 22
	impulse [2]float32
}

func (h *hingeRotationPart) set(a1, b2, c2 vec, j *joint) {
	h.u1, h.u2 = b2.Cross(a1), c2.Cross(a1)
	h.c = [2]float32{a1.Dot(b2), a1.Dot(c2)}
	i1 := mulMat(&j.iA, h.u1).Add(mulMat(&j.iB, h.u1))
	i2 := mulMat(&j.iA, h.u2).Add(mulMat(&j.iB, h.u2))
	k11, k12, k22 := h.u1.Dot(i1), h.u1.Dot(i2), h.u2.Dot(i2)
	det := k11*k22 - k12*k12
	h.mass = [3]float32{}
	if det > 1e-12*(k11*k22) && det > 0 {
		inv := 1 / det
		h.mass = [3]float32{k22 * inv, -k12 * inv, k11 * inv}
	}
}

func (h *hingeRotationPart) solve(s *jointPair, soft *softness, useBias bool) {
	s.applyAngular(h.impulse2(s.wA, s.wB, soft, useBias))
}

// impulse2 solves the two rows against the angular velocities wA, wB, accumulates their impulses and
// returns the angular impulse to apply (B gets it, A its opposite).
func (h *hingeRotationPart) impulse2(wA, wB vec, soft *softness, useBias bool) vec {
	dw := wB.Sub(wA)
	c1, c2 := h.u1.Dot(dw), h.u2.Dot(dw)
	ms, is := float32(1), float32(0)
	if useBias {
		c1 += soft.biasRate * h.c[0]
		c2 += soft.biasRate * h.c[1]
		ms, is = soft.massScale, soft.impulseScale
	}
	l1 := -ms*(h.mass[0]*c1+h.mass[1]*c2) - is*h.impulse[0]
	l2 := -ms*(h.mass[1]*c1+h.mass[2]*c2) - is*h.impulse[1]
	h.impulse[0] += l1
	h.impulse[1] += l2
	return h.u1.Scale(l1).Add(h.u2.Scale(l2))
}

func (h *hingeRotationPart) warm(s *jointPair) {
	s.applyAngular(h.u1.Scale(h.impulse[0]).Add(h.u2.Scale(h.impulse[1])))
}

// rotationPart is the 3 rotation rows that lock the relative orientation (piston, fixed). The error is
// the rotation vector of qE = qB q0^-1 qA^-1 (world frame), approximated as 2 vec(qE); its rate is
// wB - wA at qE = 1, so K = IA + IB. The Jacobian is exact at zero error and first-order near it, as
// in Jolt's RotationEulerConstraintPart.
type rotationPart struct {
	c       vec
	mass    Mat3
	impulse vec
}

func (r *rotationPart) set(qA, qB, rel0 Quat, j *joint) {
	qE := qB.Mul(rel0.Conjugate()).Mul(qA.Conjugate())
	c := vv(qE.V).Scale(2)
	if qE.W < 0 {
		c = c.Scale(-1)
	}
	r.c = c
	var k Mat3
	for i := range k {
		k[i] = j.iA[i] + j.iB[i]
	}
	invertTo(&r.mass, &k)
}

func (r *rotationPart) solve(s *jointPair, soft *softness, useBias bool) {
	cdot := s.wB.Sub(s.wA)
	var imp vec
	if useBias {
		imp = mulMat(&r.mass, cdot.Add(r.c.Scale(soft.biasRate))).Scale(-soft.massScale).Sub(r.impulse.Scale(soft.impulseScale))
	} else {
		imp = mulMat(&r.mass, cdot).Scale(-1)
	}
	r.impulse = r.impulse.Add(imp)
	s.applyAngular(imp)
}

// frictionPart is a ball joint's friction: three rotation rows that hold the bodies' relative angular
// velocity wB - wA at zero, K = IA + IB (as rotationPart's), with an accumulated angular impulse
// bounded in magnitude by the friction torque times the sub-step. The bound is on the impulse's
// length, not per axis: a ball joint resists a turn about any axis with the same torque, as a
// contact's friction is bounded by a circle.
type frictionPart struct {
	mass    Mat3
	impulse vec
}

func (f *frictionPart) set(j *joint) {
	var k Mat3
	for i := range k {
		k[i] = j.iA[i] + j.iB[i]
	}
	invertTo(&f.mass, &k)
}

// impulse3 solves the rows against the angular velocities wA, wB with the accumulated impulse kept
// within maxImpulse, and returns the angular impulse to apply (B gets it, A its opposite).
func (f *frictionPart) impulse3(wA, wB vec, maxImpulse float32) vec {
	acc := f.impulse.Sub(mulMat(&f.mass, wB.Sub(wA)))
	if l2 := acc.Dot(acc); l2 > maxImpulse*maxImpulse {
		acc = acc.Scale(maxImpulse / vecmath.Sqrt(l2))
	}
	imp := acc.Sub(f.impulse)
	f.impulse = acc
	return imp
}

func (f *frictionPart) solve(s *jointPair, maxImpulse float32) {
	s.applyAngular(f.impulse3(s.wA, s.wB, maxImpulse))
}

// invert returns m^-1, or the zero matrix when m is singular (a row no body can move).
func invert(m Mat3) Mat3 {
	var out Mat3
	invertTo(&out, &m)
	return out
}

// invertTo sets *dst to m^-1, or to the zero matrix when m is singular: mathgl's Mat3.Inv, with the
// same operations in the same order, written out on pointers (mathgl's arrays passed by value were
// copied in 16-byte moves over 4-byte stores, which stalls store forwarding: a joint's refresh spent
// most of its time here). Its zero matrix for a determinant within FloatEqual of 0 is kept.
func invertTo(dst, m *Mat3) {
	det := m[0]*m[4]*m[8] + m[3]*m[7]*m[2] + m[6]*m[1]*m[5] - m[6]*m[4]*m[2] - m[3]*m[1]*m[8] - m[0]*m[7]*m[5]
	if det == 0 || det != det || vecmath.Abs(det) < mgl32.Epsilon*mgl32.Epsilon {
		*dst = Mat3{}
		return
	}
	s := 1 / det
	dst[0], dst[1], dst[2] = (m[4]*m[8]-m[5]*m[7])*s, (m[2]*m[7]-m[1]*m[8])*s, (m[1]*m[5]-m[2]*m[4])*s
	dst[3], dst[4], dst[5] = (m[5]*m[6]-m[3]*m[8])*s, (m[0]*m[8]-m[2]*m[6])*s, (m[2]*m[3]-m[0]*m[5])*s
	dst[6], dst[7], dst[8] = (m[3]*m[7]-m[4]*m[6])*s, (m[1]*m[6]-m[0]*m[7])*s, (m[0]*m[4]-m[1]*m[3])*s
}
