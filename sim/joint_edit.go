package sim

import (
	"fmt"
	"math"
)

// RemoveJoint removes joint i between steps; the joints after it move down one index.
func (w *World) RemoveJoint(i int) error {
	if i < 0 || i >= len(w.joints) {
		return fmt.Errorf("joint %d: no such joint (%d joints)", i, len(w.joints))
	}
	w.Wake(w.joints[i].def.BodyA)
	w.Wake(w.joints[i].def.BodyB)
	w.jointsChanged()
	w.joints = append(w.joints[:i], w.joints[i+1:]...)
	clear(w.joints[len(w.joints):cap(w.joints)][:1])
	return nil
}

// UpdateJoint changes joint i's parameters between steps, in place: its limits (HasLimits, Limits),
// motor (HasMotor, Motor), a ball joint's swing cone and twist limits (Swing, HasTwist, Twist), its
// friction and its break force, checked as AddJoint checks them. The joint keeps its index and the frames it fixed in
// its bodies when it was added, so nothing moves and the limits stay measured from the creation pose.
//
// Type, BodyA, BodyB, Anchor and Axis must equal Joint(i)'s: another type, other bodies or another
// anchor or axis make another joint (RemoveJoint, then AddJoint at the bodies' current poses). A ball
// joint added without an axis, a swing cone or twist limits has no twist axis, so it cannot be given them.
//
// The accumulated impulses of the limits and motor that changed are dropped (they pushed against the
// old ones); the other rows keep warm starting. The joint's bodies are woken, and a backend takes the
// joint again before its next step.
func (w *World) UpdateJoint(i int, d JointDef) error {
	if i < 0 || i >= len(w.joints) {
		return fmt.Errorf("joint %d: no such joint (%d joints)", i, len(w.joints))
	}
	j := &w.joints[i]
	old := j.def
	fixed := func(field string, was, now any) error {
		return fmt.Errorf("joint %d: %s: cannot change (%v to %v); remove the joint and add a new one", i, field, was, now)
	}
	switch {
	case d.Type != old.Type:
		return fixed("type", old.Type, d.Type)
	case d.BodyA != old.BodyA:
		return fixed("bodyA", old.BodyA, d.BodyA)
	case d.BodyB != old.BodyB:
		return fixed("bodyB", old.BodyB, d.BodyB)
	case d.Anchor != old.Anchor:
		return fixed("anchor", old.Anchor, d.Anchor)
	case d.Axis != old.Axis:
		return fixed("axis", old.Axis, d.Axis)
	case d.AxisB != old.AxisB:
		return fixed("axisB", old.AxisB, d.AxisB)
	}
	if d.Type == Ball && (d.Swing > 0 || d.HasTwist) && !j.hasAxis {
		return fmt.Errorf("joint %d: swing, twist: the ball joint was added without an axis, a swing cone or "+
			"twist limits, so it has no twist axis; remove it and add it again with an axis", i)
	}
	if err := checkJointParams(i, &d); err != nil {
		return err
	}
	if d == old {
		return nil
	}
	stale := ChangedRows(old, d)
	if stale&LimitRows != 0 {
		j.angle.lower.impulse, j.angle.upper.impulse = 0, 0
	}
	if stale&MotorRow != 0 {
		j.angle.motor.impulse = 0
	}
	if stale&SwingRow != 0 {
		j.swing.impulse = 0
	}
	if stale&TwistRows != 0 {
		j.twist.lower.impulse, j.twist.upper.impulse = 0, 0
	}
	if stale&FrictionRows != 0 {
		j.fric.impulse = vec{}
	}
	j.def = d
	w.jointsChanged()
	w.Wake(d.BodyA)
	w.Wake(d.BodyB)
	return nil
}

// JointRows names groups of a joint's solver rows: the ones whose accumulated impulses an edit of the
// joint's parameters makes stale.
type JointRows uint8

// The row groups that depend on a joint's parameters.
const (
	LimitRows    JointRows = 1 << iota // a hinge's or piston's lower and upper limits
	MotorRow                           // a hinge's or piston's motor
	SwingRow                           // a ball joint's swing cone
	TwistRows                          // a ball joint's lower and upper twist limits
	FrictionRows                       // a ball joint's friction
)

// ChangedRows returns the rows whose accumulated impulses UpdateJoint drops when a joint's definition
// goes from old to new: those of the limits, motor, friction, swing cone and twist limits that changed (they
// pushed against the old ones, or are left from before the limit or motor was turned off). A backend
// that keeps impulses across edits drops the same ones.
func ChangedRows(old, new JointDef) JointRows {
	var r JointRows
	if old.HasLimits != new.HasLimits || old.Limits != new.Limits {
		r |= LimitRows
	}
	// A hinge's or piston's friction is solved on the motor's row when it has no motor (JointDef.drive).
	if old.HasMotor != new.HasMotor || old.Motor != new.Motor || old.Friction != new.Friction && new.Type != Ball && !new.HasMotor && !old.HasMotor {
		r |= MotorRow
	}
	if old.Friction != new.Friction && new.Type == Ball {
		r |= FrictionRows
	}
	if old.Swing != new.Swing {
		r |= SwingRow
	}
	if old.HasTwist != new.HasTwist || old.Twist != new.Twist {
		r |= TwistRows
	}
	return r
}

// jointsChanged records that joints were added, removed or edited: a backend takes them again, and the
// forces read from it (JointState) are read again.
func (w *World) jointsChanged() {
	w.edits.Joints = true
	w.forcesRead = false
}

// JointState is a joint as it is now, for display: where its anchor and axis are, the coordinate its
// limits apply to, and the force it holds.
type JointState struct {
	// AnchorA and AnchorB are the joint's anchor as fixed in body A and in body B (in the world for the
	// static world) when the joint was added, in world coordinates now. They coincide while a ball,
	// hinge or fixed joint holds; a piston's lie apart along its axis by its travel.
	AnchorA, AnchorB Vec3
	// Axis is the joint axis as fixed in body A, in world coordinates now (a unit vector): a hinge's
	// axis, a piston's slide axis, a ball joint's twist axis. It is zero for a fixed joint and for a
	// ball joint added without a swing cone or twist limits (it has no axis).
	Axis Vec3
	// Coordinate is what Limits apply to, measured from the bodies' current poses as the solver
	// measures it (JointCoordinate is the solver's value at the last step): a hinge's angle (radians,
	// body A's rotation relative to B, right-handed about Axis), a piston's travel (metres, A relative
	// to B along Axis), both zero at the creation pose; a ball joint's twist (radians, B relative to A
	// about the twist axis, what Twist limits). Zero for a fixed joint and a ball joint without an axis.
	Coordinate float32
	// Swing is a ball joint's swing angle, between the bodies' twist axes (radians, what Swing limits);
	// zero for the other types.
	Swing float32
	// Force is the constraint force (N) the joint held in the last step: the value compared with
	// BreakForce (the translation impulse of the last sub-step over its length; under XPBD the anchor
	// rows' multiplier over h^2). With a backend it is read from the backend (JointForceReader), and
	// NaN where it cannot be: a backend without the reader, a failed read, or a joint added since the
	// backend's last step. While the joint's island sleeps it is the force the joint held when the
	// island fell asleep (Asleep).
	Force float32
	// Asleep: the joint's bodies sleep (Settings.Sleep), so its rows are not solved and Force is the
	// force it held at the end of the last step they were awake.
	Asleep bool
}

// MaxJointGap returns the largest distance between the two anchors of a ball, hinge or fixed joint
// (a piston's anchors part by its travel, so pistons are left out): how far the joints have come
// apart. It reads the bodies' poses from Bodies: with a backend, Sync first.
func (w *World) MaxJointGap() float32 {
	g := float32(0)
	for i := range w.joints {
		if w.joints[i].def.Type == Piston {
			continue
		}
		s := w.JointState(i)
		g = max(g, s.AnchorA.Sub(s.AnchorB).Len())
	}
	return g
}

// JointState returns joint i's state now. It reads the two bodies' poses from Bodies, or, with a
// backend that stepped since the last Sync, reads those two bodies back alone (BodyState), not every
// body: an inspector of one joint in a world of 100,000 bodies moves two across the bus a frame.
func (w *World) JointState(i int) JointState {
	j := &w.joints[i]
	a := w.bodyNow(j.def.BodyA)
	xA, RA := ldv(&a.Position), quatMat3(a.Rotation)
	xB, RB := vec{}, identity3
	var b BodyState
	if _, ok := w.dense(j.def.BodyB); ok {
		b = w.bodyNow(j.def.BodyB)
		xB, RB = ldv(&b.Position), quatMat3(b.Rotation)
	}
	rA, rB := mulMat(&RA, j.localA), mulMat(&RB, j.localB)
	s := JointState{AnchorA: xA.Add(rA).Vec3(), AnchorB: xB.Add(rB).Vec3()}
	axis := mulMat(&RA, j.axisA)
	switch j.def.Type {
	case Hinge:
		s.Axis = axis.Vec3()
		s.Coordinate = hingeAngle(j, &RA, &RB)
	case Piston:
		s.Axis = axis.Vec3()
		s.Coordinate = -axis.Dot(xB.Add(rB).Sub(xA).Sub(rA))
	case Ball:
		if j.hasAxis {
			s.Axis = axis.Vec3()
			_, _, _, s.Swing, s.Coordinate = swingTwist(j, &RA, &RB)
		}
	}
	switch {
	case w.backend != nil:
		s.Force, s.Asleep = w.backendForce(i), w.jointSleeps(j, [2]bool{a.Asleep, b.Asleep})
	case w.jointAsleep(j):
		s.Force, s.Asleep = j.held, true
	default:
		s.Force = SolverOf(w.settings.Solver).jointForce(w, j)
	}
	return s
}

// bodyNow returns live body h's pose and whether it sleeps, now: Bodies' copy, or with a backend that
// stepped since the last Sync, the backend's, read for that body alone (BodyState). A failed read
// gives Bodies' copy and, as a query's, is returned by the next Step.
func (w *World) bodyNow(h Handle) BodyState {
	i, _ := w.dense(h)
	b := &w.Bodies
	host := BodyState{Position: b.Position[i], Rotation: b.Rotation[i], Asleep: b.Asleep[i]}
	if w.backend == nil || !w.stale {
		return host
	}
	s, err := w.BodyState(h)
	if err != nil {
		if w.backendErr == nil {
			w.backendErr = err
		}
		return host
	}
	return s
}

// jointAsleep reports whether joint j's island sleeps: a body of it sleeps, and the other sleeps too
// or is not dynamic (the world, a static or kinematic body).
func (w *World) jointAsleep(j *joint) bool {
	var asleep [2]bool
	for k, h := range [2]Handle{j.def.BodyA, j.def.BodyB} {
		if i, ok := w.dense(h); ok {
			asleep[k] = w.Bodies.Asleep[i]
		}
	}
	return w.jointSleeps(j, asleep)
}

// jointSleeps is jointAsleep with whether body A and body B sleep given (read from a backend).
func (w *World) jointSleeps(j *joint, asleep [2]bool) bool {
	b := &w.Bodies
	n, still := 0, 0
	for k, h := range [2]Handle{j.def.BodyA, j.def.BodyB} {
		i, ok := w.dense(h)
		switch {
		case !ok || b.Type[i] != Dynamic:
			still++
		case asleep[k]:
			n++
		}
	}
	return n > 0 && n+still == 2
}

// holdJointForces keeps the force of every joint whose bodies are awake (joint.held), so that a joint
// of an island that falls asleep goes on reporting the force it held (JointState).
func (w *World) holdJointForces() {
	s := w.pipe.plan.solver
	for k := range w.joints {
		if j := &w.joints[k]; !w.jointAsleep(j) {
			j.held = s.jointForce(w, j)
		}
	}
}

// backendForce returns joint i's force as the backend reports it, read once per step (NaN where it
// cannot be read). A failed read is returned by the next Step, as a failed Sync in an edit is.
func (w *World) backendForce(i int) float32 {
	r, ok := w.backend.(JointForceReader)
	if !ok {
		return float32(math.NaN())
	}
	if !w.forcesRead {
		f, err := r.JointForces(w, w.forces[:0])
		if err != nil {
			if w.backendErr == nil {
				w.backendErr = err
			}
			return float32(math.NaN())
		}
		w.forces, w.forcesRead = f, true
	}
	if i >= len(w.forces) {
		return float32(math.NaN())
	}
	return w.forces[i]
}
