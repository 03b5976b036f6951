package sim

import (
	"fmt"
	"math"
	"tumble/sim/internal/vecmath"
)

// The XPBD solver (seed 002: Mueller et al. 2020, "Detailed Rigid Body Simulation with Extended
// Position Based Dynamics"). Each step collects the contact pairs once (velocity-expanded bounds, as for
// the other solvers); then each of S sub-steps of h = dt/S:
//
//  1. integrate velocities (gravity, gyroscopic term) and remember the poses;
//  2. integrate positions, x += h v, q += h/2 (w, 0) q;
//  3. solve positions (Iterations passes, Gauss-Seidel over graph colours): joints by positional and
//     angular corrections, dlambda = (-c - alpha~ lambda) / (w1 + w2 + alpha~) with the generalised
//     inverse masses w = 1/m + (r x n)^T I^-1 (r x n) (alpha~ = compliance / h^2; joints and contacts
//     are rigid here, alpha = 0, so the terms in alpha~ drop out); contacts push penetrating points apart and, with static friction,
//     cancel their tangential slip when |lambda_t| <= mu |lambda_n|;
//  4. velocities from the pose change, v = (x - x0) / h, w = 2 vec(q q0^-1) / h;
//  5. the velocity pass: dynamic friction (|dv_t| <= mu |f_n| h), restitution (e times the normal
//     approach speed of the sub-step's start, none under the restitution threshold) and joint
//     damping (Settings.JointDamping).
//
// A motor acts in the position pass (xpbdMotor): a row holds the joint's coordinate to a setpoint,
// with a positional impulse of at most MaxForce h^2 a sub-step. A speed motor's setpoint advances
// at its speed from the coordinate at the step's start; a position motor's (a servo's) moves toward
// the target at the motor's rate.
//
// Joint friction is a position constraint (xpbdJointFriction), as static contact friction is: it
// undoes the joint's motion since the sub-step's start with a positional impulse of at most
// Friction h^2, so a joint whose load stays under its friction does not move at all, and one that
// slides loses Friction h of momentum a sub-step, as the velocity rows' Coulomb bound gives.
//
// Joints reuse the velocity solvers' frames: the coordinate, swing and twist measures are the same
// functions, so limits mean the same thing under every solver.

// xpbdBody returns the inverse mass, the local inverse inertia and the rotation of body i (nothing for
// the static world or a body that is not dynamic).
func (w *World) xpbdBody(i int32) (float32, Vec3, *Mat3, bool) {
	if i < 0 {
		return 0, Vec3{}, nil, false
	}
	m := w.Bodies.InvMass[i]
	if m == 0 {
		return 0, Vec3{}, nil, false
	}
	return m, w.Bodies.InvInertiaLocal[i], &w.Bodies.rot[i], true
}

// angularInvMass returns n^T I^-1 n for body i (world n), with I from its current rotation.
func (w *World) angularInvMass(i int32, n vec) float32 {
	_, inv, r, ok := w.xpbdBody(i)
	if !ok {
		return 0
	}
	u := mulMatT(r, n)
	return inv[0]*u.X*u.X + inv[1]*u.Y*u.Y + inv[2]*u.Z*u.Z
}

// positionalInvMass returns the generalised inverse mass 1/m + (r x n)^T I^-1 (r x n).
func (w *World) positionalInvMass(i int32, r, n vec) float32 {
	m, _, _, ok := w.xpbdBody(i)
	if !ok {
		return 0
	}
	return m + w.angularInvMass(i, r.Cross(n))
}

// invInertiaTimes returns I^-1 v for body i at its current rotation (zero for the world or a body that
// is not dynamic).
func (w *World) invInertiaTimes(i int32, v vec) vec {
	_, inv, r, ok := w.xpbdBody(i)
	if !ok {
		return vec{}
	}
	u := mulMatT(r, v)
	return mulMat(r, vec{X: inv[0] * u.X, Y: inv[1] * u.Y, Z: inv[2] * u.Z})
}

// rotateBody turns body i by the small rotation vector th: q += 1/2 (th, 0) q, normalised. It runs
// once per body of every position correction (twice per contact point a pass), so it works in
// scalars, mathgl's Quat product and Normalize written out in the same operations and order (the
// same bits): the Quat and Vec3 arrays went through memory at each operation, and quatMat3's Mat3
// returned by value was copied over its narrow stores, which stalled store forwarding.
func (w *World) rotateBody(i int32, th vec) {
	b := &w.Bodies
	q := &b.Rotation[i]
	qw, qx, qy, qz := q.W, q.V[0], q.V[1], q.V[2]
	// (th, 0) q = (-th . v, w th + th x v)
	dw := -(th.X*qx + th.Y*qy + th.Z*qz)
	dx := th.X*qw + (th.Y*qz - th.Z*qy)
	dy := th.Y*qw + (th.Z*qx - th.X*qz)
	dz := th.Z*qw + (th.X*qy - th.Y*qx)
	qw, qx, qy, qz = normalizeQuat(qw+0.5*dw, qx+dx*0.5, qy+dy*0.5, qz+dz*0.5)
	q.W, q.V[0], q.V[1], q.V[2] = qw, qx, qy, qz
	setRotation(&b.rot[i], qw, qx, qy, qz)
	c := &w.pipe.xpbd.corrTh[i]
	*c = c.Add(th)
}

// pushPositional applies the positional impulse P at offset r to body i with sign s (+1 or -1).
func (w *World) pushPositional(i int32, P, r vec, s float32) {
	m, _, _, ok := w.xpbdBody(i)
	if !ok {
		return
	}
	b := &w.Bodies
	dx := P.Scale(s * m)
	stv(&b.Position[i], ldv(&b.Position[i]).Add(dx))
	w.pipe.xpbd.corrX[i] = w.pipe.xpbd.corrX[i].Add(dx)
	w.rotateBody(i, w.invInertiaTimes(i, r.Cross(P)).Scale(s))
}

// correctPosition moves bodies a and b so that (pB - pA) changes by -E, shared by their generalised
// inverse masses; lambda accumulates the multiplier. It returns dlambda (<= 0). The constraint is rigid
// (the paper's compliance alpha is 0 here: contacts and joints do not stretch, so its alpha~ lambda
// term and the alpha~ in the denominator vanish).
func (w *World) correctPosition(a, b int32, rA, rB, E vec, lambda *float32) float32 {
	c := vecmath.Sqrt(E.Dot(E))
	if c < 1e-9 {
		return 0
	}
	n := E.Scale(1 / c)
	wA, wB := w.positionalInvMass(a, rA, n), w.positionalInvMass(b, rB, n)
	if wA+wB == 0 {
		return 0
	}
	dl := -c / (wA + wB)
	*lambda += dl
	P := n.Scale(dl)
	w.pushPositional(b, P, rB, 1)
	w.pushPositional(a, P, rA, -1)
	return dl
}

// worldInvInertia returns R diag(inv) R^T of body i at its current rotation (zero for the world or a
// body that is not dynamic).
func (w *World) worldInvInertia(i int32) Mat3 {
	_, inv, r, ok := w.xpbdBody(i)
	if !ok {
		return Mat3{}
	}
	var out Mat3
	for c := 0; c < 3; c++ {
		for rr := 0; rr < 3; rr++ {
			out[c*3+rr] = r[rr]*r[c]*inv[0] + r[3+rr]*r[3+c]*inv[1] + r[6+rr]*r[6+c]*inv[2]
		}
	}
	return out
}

// correctPoint moves bodies a and b so that (pB - pA) changes by -E: the 3-row point correction, solved
// as one block, P = -K^-1 E with K = (mA + mB) 1 - [rA]x IA [rA]x - [rB]x IB [rB]x at the current
// poses (the point part's K). One scalar row along E, as in the paper, stalls when a body's inertia
// is tiny against its lever arm (a pendulum bob on a 1 m arm spun up to 45 rad/s and ran 1.7% slow):
// the block corrects the radial and tangential errors each with its own mass. It returns |P|.
func (w *World) correctPoint(a, b int32, rA, rB, E vec) float32 {
	if E.Dot(E) < 1e-18 {
		return 0
	}
	mA, _, _, _ := w.xpbdBody(a)
	mB, _, _, _ := w.xpbdBody(b)
	iA, iB := w.worldInvInertia(a), w.worldInvInertia(b)
	var k Mat3
	for col, e := range [3]vec{{X: 1, Y: 0, Z: 0}, {X: 0, Y: 1, Z: 0}, {X: 0, Y: 0, Z: 1}} {
		kc := e.Scale(mA + mB).
			Add(mulMat(&iA, rA.Cross(e)).Cross(rA)).
			Add(mulMat(&iB, rB.Cross(e)).Cross(rB))
		k[3*col], k[3*col+1], k[3*col+2] = kc.X, kc.Y, kc.Z
	}
	inv := invert(k)
	P := mulMat(&inv, E).Scale(-1)
	w.pushPositional(b, P, rB, 1)
	w.pushPositional(a, P, rA, -1)
	return vecmath.Sqrt(P.Dot(P))
}

// correctRotation turns body a by the rotation vector dq relative to body b (a by +, b by -, shared
// by their inverse inertias about dq's axis), rigidly as correctPosition.
func (w *World) correctRotation(a, b int32, dq vec, lambda *float32) {
	th := vecmath.Sqrt(dq.Dot(dq))
	if th < 1e-9 {
		return
	}
	n := dq.Scale(1 / th)
	wA, wB := w.angularInvMass(a, n), w.angularInvMass(b, n)
	if wA+wB == 0 {
		return
	}
	dl := th / (wA + wB)
	*lambda += dl
	L := n.Scale(dl)
	if _, _, _, ok := w.xpbdBody(a); ok {
		w.rotateBody(a, w.invInertiaTimes(a, L))
	}
	if _, _, _, ok := w.xpbdBody(b); ok {
		w.rotateBody(b, w.invInertiaTimes(b, L).Scale(-1))
	}
}

// lockRotation turns body a relative to body b by the rotation vector dq: a piston's or fixed joint's
// rotation lock, its three rows solved as one 3x3 block, K L = dq with K = IA^-1 + IB^-1 (world
// inverse inertias), A turned by IA^-1 L and B by -IB^-1 L, so the relative turn is dq itself. One
// row along dq, as correctRotation solves it, turns a body by I^-1 dq lambda, which is not along dq
// when the inertia is anisotropic: on a bar whose inertia about its long axis is 1/200 of the
// others' it overshoots the error's share about that axis almost twice over and leaves the rest,
// and the error grows from sub-step to sub-step (a bar held by a fixed joint and set turning at 2.4
// rad/s would spin up to 18 rad/s). lambda accumulates |L|.
func (w *World) lockRotation(a, b int32, dq vec, lambda *float32) {
	if dq.Dot(dq) < 1e-18 {
		return
	}
	iA, iB := w.worldInvInertia(a), w.worldInvInertia(b)
	// K is scaled by its trace before it is inverted: invert takes a determinant under 1e-14 for
	// singular, and heavy bodies' inverse inertias (1e-4 at 1e4 kg m^2) would be.
	var k Mat3
	tr := iA[0] + iB[0] + iA[4] + iB[4] + iA[8] + iB[8]
	if !(tr > 0) {
		return
	}
	for i := range k {
		k[i] = (iA[i] + iB[i]) / tr
	}
	inv := invert(k)
	L := mulMat(&inv, dq).Scale(1 / tr)
	*lambda += vecmath.Sqrt(L.Dot(L))
	if _, _, _, ok := w.xpbdBody(a); ok {
		w.rotateBody(a, mulMat(&iA, L))
	}
	if _, _, _, ok := w.xpbdBody(b); ok {
		w.rotateBody(b, mulMat(&iB, L).Scale(-1))
	}
}

// alignHinge turns body a relative to body b by the rotation vector e, perpendicular to the hinge's
// axis n (t a unit vector perpendicular to it), leaving the turn about n free: the hinge's two
// alignment rows, solved as one 2x2 block, K lambda = e in the basis (t, n x t) with
// K_ij = t_i^T (IA^-1 + IB^-1) t_j. One row along e, as correctRotation solves it, turns a body
// by I^-1 e lambda, which is not along e when the inertia is anisotropic: a shin or forearm, whose
// inertia about its long axis is a fifth of the others, overshot about that axis by more than e
// itself, and the next sub-step's correction overshot back, a buzz at the sub-step rate (1 to 4
// rad/s on a leg at rest in a pile).
func (w *World) alignHinge(a, b int32, n, t, e vec, lambda *float32) {
	if e.Dot(e) < 1e-18 {
		return
	}
	u := n.Cross(t)
	iA, iB := w.worldInvInertia(a), w.worldInvInertia(b)
	k := func(x, y vec) float32 { return x.Dot(mulMat(&iA, y)) + x.Dot(mulMat(&iB, y)) }
	k11, k12, k22 := k(t, t), k(t, u), k(u, u)
	det := k11*k22 - k12*k12
	if det <= 0 {
		return
	}
	e1, e2 := e.Dot(t), e.Dot(u)
	l1, l2 := (k22*e1-k12*e2)/det, (k11*e2-k12*e1)/det
	L := t.Scale(l1).Add(u.Scale(l2))
	*lambda += vecmath.Sqrt(l1*l1 + l2*l2)
	if _, _, _, ok := w.xpbdBody(a); ok {
		w.rotateBody(a, mulMat(&iA, L))
	}
	if _, _, _, ok := w.xpbdBody(b); ok {
		w.rotateBody(b, mulMat(&iB, L).Scale(-1))
	}
}

// xpbdFrames returns a joint's current anchor offsets, their separation d = pB - pA and the rotation
// matrices.
func (w *World) xpbdFrames(j *joint) (rA, rB, d vec, RA, RB *Mat3) {
	xA, xB, RA, RB := w.jointPoses(j)
	rA, rB = mulMat(RA, j.localA), mulMat(RB, j.localB)
	return rA, rB, xB.Add(rB).Sub(xA).Sub(rA), RA, RB
}

// relRotation returns the rotation vector that turns A onto its pose relative to B: 2 vec(qE).
func (w *World) relRotation(j *joint) vec {
	qA, qB := w.jointRotations(j)
	qE := qB.Mul(j.rel0.Conjugate()).Mul(qA.Conjugate())
	c := vv(qE.V).Scale(2)
	if qE.W < 0 {
		c = c.Scale(-1)
	}
	return c
}

// xpbdJoint is one position-pass correction of a joint: rotations first, then the anchors.
func (w *World) xpbdJoint(j *joint) {
	def := &j.def
	a, b := j.a, j.b
	l := &j.xl
	switch def.Type {
	case Ball:
		if def.Swing > 0 || def.HasTwist {
			_, _, RA, RB := w.jointPoses(j)
			tA, tB, e, swing, twist := swingTwist(j, RA, RB)
			if def.Swing > 0 && swing > def.Swing {
				if s := vecmath.Sqrt(e.Dot(e)); s > 1e-6 {
					w.correctRotation(a, b, e.Scale((swing-def.Swing)/s), &l[1])
				}
			}
			if def.HasTwist {
				if over := twist - vecmath.Clamp(twist, def.Twist[0], def.Twist[1]); over != 0 {
					t := tA.Add(tB)
					t = t.Scale(1 / max(vecmath.Sqrt(t.Dot(t)), 1e-6))
					w.correctRotation(a, b, t.Scale(over), &l[2])
				}
			}
		}
		rA, rB, d, _, _ := w.xpbdFrames(j)
		l[0] += w.correctPoint(a, b, rA, rB, d)
		w.xpbdJointFriction(j)
	case Hinge:
		_, _, _, RA, RB := w.xpbdFrames(j)
		a1, a2 := mulMat(RA, j.axisA), mulMat(RB, j.axisB)
		w.alignHinge(a, b, a1, mulMat(RA, j.perpA), a1.Cross(a2), &l[1])
		w.xpbdMotor(j)
		if def.HasLimits {
			_, _, _, RA, RB = w.xpbdFrames(j)
			a1 = mulMat(RA, j.axisA)
			phi := hingeAngle(j, RA, RB)
			if over := vecmath.Clamp(phi, def.Limits[0], def.Limits[1]) - phi; over != 0 {
				w.correctRotation(a, b, a1.Scale(over), &l[2])
			}
		}
		rA, rB, d, _, _ := w.xpbdFrames(j)
		l[0] += w.correctPoint(a, b, rA, rB, d)
		w.xpbdJointFriction(j)
	case Piston:
		w.lockRotation(a, b, w.relRotation(j), &l[1])
		w.xpbdMotor(j)
		rA, rB, d, RA, _ := w.xpbdFrames(j)
		n := mulMat(RA, j.axisA)
		along := n.Dot(d)
		E := d.Sub(n.Scale(along))
		if def.HasLimits {
			// A's travel is -along; it must stay in [lo, hi].
			E = E.Add(n.Scale(along - vecmath.Clamp(along, -def.Limits[1], -def.Limits[0])))
		}
		// rA + d is B's anchor seen from A: the lateral rows act there on A, as in the velocity rows.
		l[0] += w.correctPoint(a, b, rA.Add(d), rB, E)
		w.xpbdJointFriction(j)
	case Fixed:
		w.lockRotation(a, b, w.relRotation(j), &l[1])
		rA, rB, d, _, _ := w.xpbdFrames(j)
		l[0] += w.correctPoint(a, b, rA, rB, d)
	}
}

// xpbdMotor is a motor's row in the position pass: it moves the joint's
// coordinate x to the sub-step's setpoint j.xs by a positional impulse along the coordinate's row, a
// turn about a hinge's axis or a push along a piston's, dlambda = (xs - x) / w with w the row's
// generalised inverse mass (the paper's angular and positional corrections, rigid). The impulse
// summed over the sub-step's passes is bounded by MaxForce h^2: a torque or force F held over h
// moves the pose by F h^2 through the inverse mass, and the derived velocity then carries F h of
// momentum, the velocity rows' bound. A load within MaxForce is held, as the joint's other rows
// hold theirs; a larger one pushes the joint back against MaxForce.
//
// The motor's speed (a speed motor's) or rate (Motor.rate, a servo's) sets how fast the setpoint
// moves (xpbdMotorSetpoints), not the row's correction: the correction also undoes what the load
// moved since the last sub-step and what the joint's neighbours' rows undid of the last correction,
// which a motor must undo in full to move its load at its speed. A motor in the velocity pass that
// asks for at most its speed, through the inertia of the bodies about their centres, gives a
// sub-step at most that inertia times the speed of impulse, which the next position pass mostly
// undoes on an arm whose inertia about the joint is several times larger: the arm preset's shoulder
// (40 N m, 2 rad/s, the upper arm against the turret 0.004 kg m^2) could push
// 0.004 x 2 rad/s / h = 9.7 N m and would sag to 0.37 rad under its 11.1 N m load, and a speed
// motor of 0.05 rad/s lifting a 1 m bar with twice its load's torque turned it 0.0014 rad in 1 s.
func (w *World) xpbdMotor(j *joint) {
	def := &j.def
	if !def.HasMotor {
		return
	}
	h := w.pipe.plan.ctx.h
	bound := def.Motor.MaxForce * h * h
	a, b := j.a, j.b
	switch def.Type {
	case Hinge:
		_, _, _, RA, RB := w.xpbdFrames(j)
		n := mulMat(RA, j.axisA)
		c := j.xs - hingeAngle(j, RA, RB)
		if motorWraps(def.Type, def.HasLimits) {
			c = wrapPi(c)
		}
		k := w.angularInvMass(a, n) + w.angularInvMass(b, n)
		if k == 0 {
			return
		}
		// A turns by +dl about n relative to B (IA^-1 n dl against -IB^-1 n dl): x grows by k dl.
		dl := capMotor(j, c/k, bound)
		if _, _, _, ok := w.xpbdBody(a); ok {
			w.rotateBody(a, w.invInertiaTimes(a, n.Scale(dl)))
		}
		if _, _, _, ok := w.xpbdBody(b); ok {
			w.rotateBody(b, w.invInertiaTimes(b, n.Scale(-dl)))
		}
	case Piston:
		rA, rB, d, RA, _ := w.xpbdFrames(j)
		n := mulMat(RA, j.axisA)
		rA = rA.Add(d) // B's anchor seen from A, as the lateral rows
		k := w.positionalInvMass(a, rA, n) + w.positionalInvMass(b, rB, n)
		if k == 0 {
			return
		}
		// x = -n.d; the impulse n dl on B and -n dl on A changes n.d by k dl, x by -k dl.
		dl := capMotor(j, -(j.xs+n.Dot(d))/k, bound)
		P := n.Scale(dl)
		w.pushPositional(b, P, rB, 1)
		w.pushPositional(a, P, rA, -1)
	}
}

// capMotor adds dl to joint j's motor impulse of the sub-step, kept within [-bound, bound], and
// returns what it added.
func capMotor(j *joint, dl, bound float32) float32 {
	next := vecmath.Clamp(j.xm+dl, -bound, bound)
	dl, j.xm = next-j.xm, next
	return dl
}

// wrapPi returns the angle x taken into [-pi, pi] (x within 3 pi).
func wrapPi(x float32) float32 {
	if x > math.Pi {
		return x - 2*math.Pi
	}
	if x < -math.Pi {
		return x + 2*math.Pi
	}
	return x
}

// xpbdMotorSetpoints moves each motor's setpoint one sub-step: a speed motor's by its speed times h,
// a position motor's toward its target by the rate Motor.rate asks at the setpoint (the error closed
// in the sub-step, no faster than the speed limit nor than the braking speed sqrt(MaxForce |e| / m)),
// so the joint is led to the target along the path the velocity solvers' motor rows drive it. The
// first sub-step of a step starts the setpoint at the joint's coordinate (start): a joint held back
// by a load over MaxForce keeps its setpoint within a step's travel of where it is, so the motor
// gives way to the load rather than storing the travel it missed. It also clears the motors'
// impulses of the sub-step.
//
// A speed motor's setpoint keeps the lead it had over the coordinate at the step's end, up to what
// one sub-step's capped impulse closes, MaxForce h^2 / m (m the row's effective mass): a load within
// MaxForce holds the joint behind its setpoint by its own sub-step's sag, tau h^2 / m, and a
// setpoint restarted at the coordinate would lose that sag every step (4e-5 rad a step for a 1 m
// bar's 9.81 N m, 5% of a 0.05 rad/s motor's travel); a load over MaxForce, or a pose set from
// outside, leaves the setpoint no further ahead than the motor can pull in one sub-step.
func (w *World) xpbdMotorSetpoints(start bool) {
	invH, h := w.pipe.plan.ctx.invH, w.pipe.plan.ctx.h
	for k := range w.joints {
		j := &w.joints[k]
		j.xm = 0
		def := &j.def
		if !def.HasMotor || def.Type != Hinge && def.Type != Piston {
			continue
		}
		wrap := motorWraps(def.Type, def.HasLimits)
		if start {
			w.refreshJoint(j) // the coordinate and its row's mass at the step's start
			lead := float32(0)
			if m := j.angle.motor.mass; def.Motor.Mode == MotorSpeed && m > 0 {
				lead = j.xs - j.coord
				if wrap {
					lead = wrapPi(lead)
				}
				reach := def.Motor.MaxForce * h * h / m
				lead = vecmath.Clamp(lead, -reach, reach)
			}
			j.xs = j.coord + lead
		}
		j.xs += def.Motor.rate(j.xs, wrap, invH, j.angle.motor.mass) * h
		if wrap {
			j.xs = wrapPi(j.xs)
		}
	}
}

// xpbdMoved returns how far body i has moved since the sub-step's start: its displacement and its
// rotation vector, h v + the corrections and h w + theirs (the predicted motion plus the position
// pass's, summed as xpbdVelocities sums them, without the cancellation of a difference of poses).
// Nothing for the static world.
func (w *World) xpbdMoved(i int32) (dx, dth vec) {
	if i < 0 {
		return vec{}, vec{}
	}
	b := &w.Bodies
	p := &w.pipe
	h := p.plan.ctx.h
	dx = ldv(&b.Velocity[i]).Scale(h).Add(p.xpbd.corrX[i])
	dth = ldv(&b.AngularVelocity[i]).Scale(h).Add(p.xpbd.corrTh[i])
	return dx, dth
}

// xpbdJointFriction is joint friction as a position constraint, the joint's counterpart of static
// contact friction (Mueller et al. 2020, 3.5): the joint's relative motion since the sub-step's start
// (the rotation of A relative to B on a ball joint, its component along the axis on a hinge, the slide
// along the axis on a piston) is undone by a positional impulse lambda, whose sum over the sub-step's
// passes is bounded by |lambda| <= Friction h^2 (a torque T held over h moves the pose by T h^2
// through the inverse inertia, and the derived velocity then carries T h of angular impulse). Under
// the bound the joint stays where the sub-step started: a load below the friction never moves it.
// Over it, the capped correction takes Friction h of momentum a sub-step off the sliding joint, the
// Coulomb friction the velocity rows apply, so the velocity pass adds none.
//
// On a ball joint lambda is a vector, solved as one 3x3 block, K lambda = e with K = IA^-1 + IB^-1
// (world inverse inertias), which turns A relative to B by -e: a single row along e leaves the part
// of e that an anisotropic inertia turns sideways, and with one position pass a sub-step that part
// would creep.
func (w *World) xpbdJointFriction(j *joint) {
	def := &j.def
	if def.Friction <= 0 || def.HasMotor {
		return
	}
	bound := def.Friction * w.pipe.plan.ctx.h * w.pipe.plan.ctx.h
	a, b := j.a, j.b
	xA, thA := w.xpbdMoved(a)
	xB, thB := w.xpbdMoved(b)
	var dl vec // this pass's positional impulse on B, -dl on A
	switch def.Type {
	case Ball:
		e := thA.Sub(thB)
		iA, iB := w.worldInvInertia(a), w.worldInvInertia(b)
		var k Mat3
		for i := range k {
			k[i] = iA[i] + iB[i]
		}
		inv := invert(k)
		dl = mulMat(&inv, e) // B turns by IB^-1 dl, A by -IA^-1 dl: the relative rotation by -e
	case Hinge:
		_, _, _, RA, _ := w.xpbdFrames(j)
		n := mulMat(RA, j.axisA)
		k := w.angularInvMass(a, n) + w.angularInvMass(b, n)
		if k == 0 {
			return
		}
		dl = n.Scale(thA.Sub(thB).Dot(n) / k)
	case Piston:
		rA, rB, d, RA, _ := w.xpbdFrames(j)
		n := mulMat(RA, j.axisA)
		rA = rA.Add(d) // B's anchor seen from A, as the lateral rows
		slide := xB.Add(thB.Cross(rB)).Sub(xA).Sub(thA.Cross(rA)).Dot(n)
		k := w.positionalInvMass(a, rA, n) + w.positionalInvMass(b, rB, n)
		if k == 0 {
			return
		}
		dl = capFriction(j, n.Scale(-slide/k), bound)
		w.pushPositional(b, dl, rB, 1)
		w.pushPositional(a, dl, rA, -1)
		return
	default:
		return
	}
	dl = capFriction(j, dl, bound)
	if _, _, _, ok := w.xpbdBody(b); ok {
		w.rotateBody(b, w.invInertiaTimes(b, dl))
	}
	if _, _, _, ok := w.xpbdBody(a); ok {
		w.rotateBody(a, w.invInertiaTimes(a, dl).Scale(-1))
	}
}

// capFriction adds dl to joint j's friction impulse of the sub-step, its length capped at bound, and
// returns what it added.
func capFriction(j *joint, dl vec, bound float32) vec {
	next := j.xf.Add(dl)
	if l := length(next); l > bound {
		next = next.Scale(bound / l)
	}
	dl, j.xf = next.Sub(j.xf), next
	return dl
}

// xpbdJointVelocity is a joint's velocity pass: damping of the relative motion at the anchor and of
// the relative rotation. A joint's motor (xpbdMotor) and friction (xpbdJointFriction) act in the
// position pass.
func (w *World) xpbdJointVelocity(j *joint) {
	if k := w.settings.JointDamping; k > 0 {
		w.dampJoint(j, min(k*w.pipe.plan.ctx.h, 1))
	}
}

// dampJoint removes the fraction f of the relative angular velocity and of the relative velocity of
// the anchors, as impulses through the generalised inverse masses.
func (w *World) dampJoint(j *joint, f float32) {
	b := &w.Bodies
	rA, rB, _, _, _ := w.xpbdFrames(j)
	vel := func(i int32, r vec) (vec, vec) {
		if i < 0 {
			return vec{}, vec{}
		}
		v, om := ldv(&b.Velocity[i]), ldv(&b.AngularVelocity[i])
		return v.Add(om.Cross(r)), om
	}
	vA, wA := vel(j.a, rA)
	vB, wB := vel(j.b, rB)
	if dw := wB.Sub(wA); dw.Dot(dw) > 0 {
		th := vecmath.Sqrt(dw.Dot(dw))
		n := dw.Scale(1 / th)
		if k := w.angularInvMass(j.a, n) + w.angularInvMass(j.b, n); k > 0 {
			L := n.Scale(f * th / k)
			w.addVelocity(j.a, vec{}, w.invInertiaTimes(j.a, L))
			w.addVelocity(j.b, vec{}, w.invInertiaTimes(j.b, L).Scale(-1))
		}
	}
	if dv := vB.Sub(vA); dv.Dot(dv) > 0 {
		w.velocityImpulse(j.a, j.b, rA, rB, dv.Scale(-f))
	}
}

// addVelocity adds dv and dw to a dynamic body.
func (w *World) addVelocity(i int32, dv, dw vec) {
	if _, _, _, ok := w.xpbdBody(i); !ok {
		return
	}
	b := &w.Bodies
	stv(&b.Velocity[i], ldv(&b.Velocity[i]).Add(dv))
	stv(&b.AngularVelocity[i], ldv(&b.AngularVelocity[i]).Add(dw))
}

// velocityImpulse changes the relative velocity (vB - vA) at the anchors by dv with one impulse along
// dv through the generalised inverse masses.
func (w *World) velocityImpulse(a, b int32, rA, rB, dv vec) {
	m := vecmath.Sqrt(dv.Dot(dv))
	if m < 1e-12 {
		return
	}
	n := dv.Scale(1 / m)
	k := w.positionalInvMass(a, rA, n) + w.positionalInvMass(b, rB, n)
	if k == 0 {
		return
	}
	P := n.Scale(m / k)
	if ma, _, _, ok := w.xpbdBody(a); ok {
		w.addVelocity(a, P.Scale(-ma), w.invInertiaTimes(a, rA.Cross(P)).Scale(-1))
	}
	if mb, _, _, ok := w.xpbdBody(b); ok {
		w.addVelocity(b, P.Scale(mb), w.invInertiaTimes(b, rB.Cross(P)))
	}
}

// contactOffsets returns a contact point's current offsets from the centres of its bodies.
func (w *World) contactOffsets(m *manifold, cp *contactPoint) (vec, vec) {
	return mulMat(&w.Bodies.rot[m.a], cp.localA), mulMat(&w.Bodies.rot[m.b], cp.localB)
}

// xpbdStartContacts records each point's normal velocity at the start of the sub-step (restitution)
// and clears its multipliers.
func (w *World) xpbdStartContacts(m *manifold) {
	b := &w.Bodies
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		rA, rB := w.contactOffsets(m, cp)
		v := ldv(&b.Velocity[m.b]).Add(ldv(&b.AngularVelocity[m.b]).Cross(rB)).
			Sub(ldv(&b.Velocity[m.a])).Sub(ldv(&b.AngularVelocity[m.a]).Cross(rA))
		cp.relVel = v.Dot(m.normal)
		cp.normalImpulse, cp.tangentImpulse = 0, [2]float32{}
	}
}

// xpbdContact is one position-pass correction of a manifold: each penetrating point is pushed apart
// along the normal; then, if static friction can hold the manifold (|lambda_t| <= mu sum |lambda_n|),
// the tangential slip of its mean point since the sub-step's start is undone. Like dynamic friction
// (xpbdContactVelocity) this acts once per manifold: per point, the Gauss-Seidel order gives the points
// unequal normal shares, and a box on a slope crept.
func (w *World) xpbdContact(m *manifold) {
	b := &w.Bodies
	n := m.normal
	var lambdaN float32
	var local [2]vec
	active := 0
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		rA, rB := w.contactOffsets(m, cp)
		pA := ldv(&b.Position[m.a]).Add(rA)
		pB := ldv(&b.Position[m.b]).Add(rB)
		if sep := pB.Sub(pA).Dot(n); sep < 0 {
			w.correctPosition(m.a, m.b, rA, rB, n.Scale(sep), &cp.normalImpulse)
		}
		if cp.normalImpulse != 0 {
			lambdaN += vecmath.Abs(cp.normalImpulse)
			local[0], local[1] = local[0].Add(cp.anchorA), local[1].Add(cp.anchorB)
			active++
		}
	}
	if active == 0 || w.settings.NoFriction || m.friction == 0 {
		return
	}
	// The slip is measured between the friction anchors (the material points where the contact
	// started sticking, kept across steps as for the velocity solvers), not since the sub-step's
	// start: otherwise float32 rounding of each sub-step's tiny slip random-walks a stack apart
	// (measured: 20 boxes toppled within 30 s; 5 boxes crept 4 cm in 10 s).
	la, lb := local[0].Scale(1/float32(active)), local[1].Scale(1/float32(active))
	rA, rB := mulMat(&b.rot[m.a], la), mulMat(&b.rot[m.b], lb)
	slip := ldv(&b.Position[m.b]).Add(rB).Sub(ldv(&b.Position[m.a])).Sub(rA)
	slip = slip.Sub(n.Scale(slip.Dot(n)))
	c := vecmath.Sqrt(slip.Dot(slip))
	if c < 1e-9 {
		return
	}
	t := slip.Scale(1 / c)
	k := w.positionalInvMass(m.a, rA, t) + w.positionalInvMass(m.b, rB, t)
	if k == 0 {
		return
	}
	lt := &m.pts[0].tangentImpulse[0]
	if dl := -c / k; vecmath.Abs(*lt+dl) <= m.friction*lambdaN {
		w.correctPosition(m.a, m.b, rA, rB, slip, lt)
		return
	}
	// Sliding: the next step takes new anchors where the points are then.
	for i := 0; i < int(m.count); i++ {
		m.pts[i].sliding = true
	}
}

// xpbdContactVelocity is a manifold's velocity pass: restitution at each point that was pushed this
// sub-step, then dynamic friction once for the manifold, at the mean of those points.
func (w *World) xpbdContactVelocity(m *manifold) {
	b := &w.Bodies
	p := &w.pipe
	n := m.normal
	relVel := func(rA, rB vec) vec {
		return ldv(&b.Velocity[m.b]).Add(ldv(&b.AngularVelocity[m.b]).Cross(rB)).
			Sub(ldv(&b.Velocity[m.a])).Sub(ldv(&b.AngularVelocity[m.a]).Cross(rA))
	}
	var cA, cB vec
	var lambdaN float32
	active := 0
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		if cp.normalImpulse == 0 {
			continue
		}
		rA, rB := w.contactOffsets(m, cp)
		cA, cB = cA.Add(rA), cB.Add(rB)
		lambdaN += vecmath.Abs(cp.normalImpulse)
		active++
		// Restitution: leave at e times the sub-step's approach speed, or not at all when it was slow
		// (under the threshold) so resting contacts do not jitter.
		e := m.restitution
		if w.settings.NoRestitution || -cp.relVel < p.plan.ctx.restThreshold {
			e = 0
		}
		vn := relVel(rA, rB).Dot(n)
		w.velocityImpulse(m.a, m.b, rA, rB, n.Scale(max(-e*cp.relVel, 0)-vn))
	}
	if active == 0 || w.settings.NoFriction {
		return
	}
	// Dynamic friction: the friction impulse is at most mu times the normal one of the sub-step,
	// |lambda_n| / h (the paper's h mu |f_n| with f_n = lambda_n / h^2), so the slip velocity changes by
	// at most that times the generalised inverse mass along it. Applied once per manifold at the mean
	// point: per point, in Gauss-Seidel order, the points' unequal shares spun a box sliding down a
	// slope about the slope's normal.
	rA, rB := cA.Scale(1/float32(active)), cB.Scale(1/float32(active))
	v := relVel(rA, rB)
	vt := v.Sub(n.Scale(v.Dot(n)))
	if st := vecmath.Sqrt(vt.Dot(vt)); st != 0 {
		t := vt.Scale(1 / st)
		k := w.positionalInvMass(m.a, rA, t) + w.positionalInvMass(m.b, rB, t)
		w.velocityImpulse(m.a, m.b, rA, rB, t.Scale(-min(m.friction*lambdaN*p.plan.ctx.invH*k, st)))
	}
	// Rolling and spinning resistance, against the normal impulse of the sub-step.
	w.resistVelocity(m, rA, rB, lambdaN*p.plan.ctx.invH)
}

// xpbdSaveBodies remembers the bodies' poses at the start of the sub-step.
func (w *World) xpbdSaveBodies(lo, hi int) {
	b := &w.Bodies
	p := &w.pipe
	for i := lo; i < hi; i++ {
		p.xpbd.prevPos[i], p.xpbd.prevRot[i] = b.Position[i], b.rot[i]
		p.xpbd.corrX[i], p.xpbd.corrTh[i] = vec{}, vec{}
	}
}

// xpbdVelocities derives the dynamic bodies' velocities from their pose change over the sub-step:
// v = (x - x0) / h, w = 2 vec(q q0^-1) / h. The pose change is the predicted one (h v, h w) plus the
// corrections, so this adds the corrections over h to the velocities: the same in exact arithmetic,
// but in float32 the difference of two nearly equal poses loses most digits (it made a motor-driven
// wheel's speed wander by 4e-3 rad/s), the sum of the corrections does not.
func (w *World) xpbdVelocities(lo, hi int) {
	b := &w.Bodies
	p := &w.pipe
	for i := lo; i < hi; i++ {
		if b.Type[i] != Dynamic || b.Asleep[i] {
			continue
		}
		stv(&b.Velocity[i], ldv(&b.Velocity[i]).Add(p.xpbd.corrX[i].Scale(p.plan.ctx.invH)))
		stv(&b.AngularVelocity[i], ldv(&b.AngularVelocity[i]).Add(p.xpbd.corrTh[i].Scale(p.plan.ctx.invH)))
	}
}

// xpbdSolver is the XPBD solver described at the top of this file.
type xpbdSolver struct{}

// Kind is XPBD.
func (xpbdSolver) Kind() SolverKind { return XPBD }

// Params: XPBD has no soft contacts, no warm start, no relax pass and no push-out cap; its joint
// damping is its own.
func (xpbdSolver) Params() Param {
	return ParamSubsteps | ParamIterations | ParamFriction | ParamRestitution | ParamRestitutionThreshold |
		ParamJointDamping | ParamContactCache
}

// Plan is Substeps times (integrate velocities, predict the poses, Iterations position passes, derive
// the velocities, the velocity pass); restitution is part of the velocity pass.
func (xpbdSolver) Plan(s *Settings, p Plan) Plan {
	p = collisionPlan(p)
	for range s.Substeps {
		p = append(p, Op{StageIntegrateVelocities, 1, Unbiased}, Op{StageIntegratePositions, 1, Unbiased}, Op{StageSolve, s.Iterations, Biased},
			Op{StageDeriveVelocities, 1, Unbiased}, Op{StageSolveVelocities, 1, Unbiased})
	}
	return endPlan(s, p)
}

// defaults: Mueller et al.'s many sub-steps of one position pass each (20 x 1).
func (xpbdSolver) defaults(s *Settings) {
	// ContactHertz is not read by XPBD; it resolves as PGS's so that a switch of solver keeps it.
	softDefaults{substeps: 20, iterations: 1, hertz: 120}.fill(s)
}

func (xpbdSolver) traits() solverTraits { return solverTraits{colours: true, renamesContacts: true} }

// jointForce: the anchor rows' lambda is a positional impulse, force = lambda / h^2 (xpbdF).
func (xpbdSolver) jointForce(_ *World, j *joint) float32 { return j.xpbdF }

func (xpbdSolver) run(w *World, op Op) bool {
	p := &w.pipe
	n := w.Bodies.Len()
	switch op.Stage {
	case StagePrepare:
		p.xpbd.firstSub = true
		return false // and the common prepare
	case StageIntegratePositions:
		p.xpbd.prevPos = resize(p.xpbd.prevPos, n)
		p.xpbd.prevRot = resize(p.xpbd.prevRot, n)
		p.xpbd.corrX = resize(p.xpbd.corrX, n)
		p.xpbd.corrTh = resize(p.xpbd.corrTh, n)
		w.each(loopXStart, len(p.narrow.manifolds), manifoldGrain)
		w.each(loopXSave, n, bodyGrain)
		w.xpbdMotorSetpoints(p.xpbd.firstSub) // at the sub-step's starting poses
		p.xpbd.firstSub = false
		w.each(loopIntPos, n, bodyGrain)
		for k := range w.joints {
			w.joints[k].xl, w.joints[k].xf = [3]float32{}, vec{}
		}
	case StageSolve:
		w.posePasses(op, func() {
			w.eachJointColour(loopXJoint)
			w.eachColour(loopXContact)
		})
	case StageDeriveVelocities:
		for k := range w.joints {
			j := &w.joints[k]
			l := vecmath.Abs(j.xl[0])
			if j.def.Type == Piston && j.xm != 0 {
				// A piston's force is its lateral rows' and its travel's, the servo's push included,
				// as the velocity rows count it.
				l = vecmath.Sqrt(l*l + j.xm*j.xm)
			}
			j.xpbdF = l * p.plan.ctx.invH * p.plan.ctx.invH
		}
		w.each(loopXVel, n, bodyGrain)
	case StageSolveVelocities:
		w.eachColour(loopXContactVel)
		w.eachJointColour(loopXJointVel)
	case StageStoreImpulses:
		// Leave what the velocity solvers and Contacts read: a point's normal impulse (lambda / h of
		// the last sub-step), no friction impulse, no joint impulses (a switch to PGS or Jacobi starts
		// cold); then the step's common end.
		for k := range p.narrow.manifolds {
			m := &p.narrow.manifolds[k]
			for i := 0; i < int(m.count); i++ {
				cp := &m.pts[i]
				cp.normalImpulse, cp.tangentImpulse = max(-cp.normalImpulse*p.plan.ctx.invH, 0), [2]float32{}
			}
		}
		if len(w.joints) > 0 {
			w.resetJointImpulses()
			w.each(loopJointRefresh, len(w.joints), jointGrain) // the joints' coordinates at the final poses
		}
		return false
	default:
		return false
	}
	return true
}

// xpbdStage is the XPBD solver's: the bodies' poses at the start of the sub-step and the corrections since.
type xpbdStage struct {
	prevPos       []Vec3
	prevRot       []Mat3
	corrX, corrTh []vec
	firstSub      bool // the next sub-step is the step's first: the motors' setpoints start there
}

// Title names the solver for a menu.
func (xpbdSolver) Title() string { return "xpbd" }

// Schedule says the passes of one step.
func (xpbdSolver) Schedule(s *Settings) string {
	return fmt.Sprintf("%d substeps x (%d position passes + 1 velocity pass)", s.Substeps, s.Iterations)
}
