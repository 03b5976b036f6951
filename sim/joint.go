package sim

import (
	"fmt"
	"math"
	"tumble/sim/internal/vecmath"

	"github.com/go-gl/mathgl/mgl32"
)

// JointType names a joint kind.
type JointType uint8

// The joint types.
const (
	Ball   JointType = iota // 3 translation rows: a shared point; optional swing cone and twist limits
	Hinge                   // ball + 2 rotation rows: rotation about one axis
	Piston                  // 2 translation + 3 rotation rows: slides along one axis
	Fixed                   // 6 rows: welded
)

var jointTypeNames = [...]string{"ball", "hinge", "piston", "fixed"}

// String returns the type's name as used in scene files.
func (t JointType) String() string {
	if int(t) < len(jointTypeNames) {
		return jointTypeNames[t]
	}
	return "unknown"
}

// MotorMode says what a joint's motor drives its free coordinate to.
type MotorMode uint8

// The motor modes.
const (
	// MotorSpeed drives the coordinate's rate to Motor.Speed.
	MotorSpeed MotorMode = iota
	// MotorPosition (a servo) drives the coordinate to Motor.Target: its error e is a position error
	// like a joint's other rows', so each sub-step asks for the rate that closes it at the solver's
	// rate for position errors (e / h for XPBD's setpoint, rigidBaumgarte e / h in the rigid solver's
	// position pass, the joints' soft rate under the soft step: Motor.rate, axisPart.solveServo), but
	// no faster than |Motor.Speed| (no limit when it is 0) nor than sqrt(MaxForce |e| / m), m the
	// coordinate's effective mass (inertia): the speed from which half the force stops it within e,
	// so it arrives without overshooting a load up to half its force. The force is bounded as in
	// MotorSpeed. Against a load within its force it holds the target (each
	// sub-step cancels what the load added since the last); against more it stalls where the load's
	// force equals MaxForce.
	MotorPosition
)

var motorModeNames = [...]string{"speed", "position"}

// String returns the mode's name as used in scene files.
func (m MotorMode) String() string {
	if int(m) < len(motorModeNames) {
		return motorModeNames[m]
	}
	return "unknown"
}

// ParseMotorMode returns the mode named s (String's names).
func ParseMotorMode(s string) (MotorMode, bool) {
	for i, n := range motorModeNames {
		if n == s {
			return MotorMode(i), true
		}
	}
	return 0, false
}

// Motor drives a joint's free coordinate (JointCoordinate) with a bounded force: to a speed, or to a
// target coordinate (Mode).
type Motor struct {
	Mode MotorMode
	// Speed is the target rate in MotorSpeed mode and the largest rate (its magnitude; 0 for none) in
	// MotorPosition mode: rad/s (hinge) or m/s (piston).
	Speed float32
	// Target is MotorPosition's target coordinate: radians (hinge, in [-pi, pi]) or metres (piston),
	// from the creation pose as JointCoordinate measures it.
	Target   float32
	MaxForce float32 // N m or N
}

// rate returns the rate the motor drives the coordinate x to, closing a servo's error at gain (1/s:
// the fraction of the error closed per second, 1/h to close it in a sub-step h), its row's effective
// mass being mass (K^-1; 0 where no body can move it). A hinge's coordinate is an angle in (-pi, pi]:
// with wrap (a hinge without limits, free to turn past pi) the error is taken the short way round.
func (m *Motor) rate(x float32, wrap bool, gain, mass float32) float32 {
	if m.Mode != MotorPosition {
		return m.Speed
	}
	e := m.servoError(x, wrap)
	v := e * gain
	if s := vecmath.Abs(m.Speed); s > 0 {
		v = min(max(v, -s), s)
	}
	if mass > 0 {
		// Braking from v at a = MaxForce / (2 mass) covers v^2 / (2 a) = |e| at this speed.
		s := vecmath.Sqrt(m.MaxForce * vecmath.Abs(e) / mass)
		v = min(max(v, -s), s)
	}
	return v
}

// servoError returns a servo's error at the coordinate x, Target - x (the short way round with wrap,
// as in rate).
func (m *Motor) servoError(x float32, wrap bool) float32 {
	e := m.Target - x
	if wrap {
		if e > math.Pi {
			e -= 2 * math.Pi
		} else if e < -math.Pi {
			e += 2 * math.Pi
		}
	}
	return e
}

// motorWraps says whether joint type t with or without limits measures its motor's error the short
// way round (Motor.rate's wrap).
func motorWraps(t JointType, limits bool) bool { return t == Hinge && !limits }

// JointDef describes a joint between two bodies, or between a body and the static world.
type JointDef struct {
	Type      JointType
	BodyA     Handle
	BodyB     Handle // the zero Handle means the static world
	Anchor    Vec3   // world point at creation where the bodies are joined
	Axis      Vec3   // world direction at creation: hinge axis, piston slide axis, ball twist axis
	HasLimits bool
	Limits    [2]float32 // [lo, hi] relative to the creation pose: radians (hinge) or metres (piston)
	HasMotor  bool
	Motor     Motor
	// Ball joints: a swing cone (the largest angle, radians, between the bodies' twist axes; 0 means
	// none) and twist limits about the twist axis ([lo, hi] radians, when HasTwist). Both need Axis, and a ball
	// joint added with an Axis can be given them later.
	Swing    float32
	HasTwist bool
	Twist    [2]float32
	// AxisB, for a ball joint with an Axis, is body B's twist axis as a world direction at creation
	// where it differs from Axis: a joint made while swung, as a scene saved mid-motion gives it. The
	// swing then starts at the angle between the two, and the twist at zero (B's zero direction is A's
	// carried by that swing). The zero vector means Axis.
	AxisB Vec3
	// BreakForce, when positive, is the force (N) above which the joint breaks: it is removed at the
	// end of the step that exceeded it and reported in World.Broken.
	BreakForce float32
	// Friction, when positive, is the joint's Coulomb friction on its free axes: the largest torque
	// (N m; a ball joint's three rotation axes, a hinge's axis) or force (N; a piston's travel) with
	// which the joint resists relative motion there. Below it the joint holds (a limb hangs where it
	// stopped), above it the joint turns or slides against it. A motor on the coordinate takes its
	// place (the motor's force bound is the coordinate's only drive). 0 is a frictionless joint.
	Friction float32
}

// driven reports whether the joint's coordinate has a drive row (joint.angle.motor): its motor, or
// its friction as a motor of speed 0 (hinge and piston; a ball joint's friction is frictionPart).
func (d *JointDef) driven() bool {
	return d.HasMotor || d.Friction > 0 && (d.Type == Hinge || d.Type == Piston)
}

// servo reports whether the joint's motor is a position motor (MotorPosition): the one drive that
// acts in the rigid solver's position passes too (axisPart.servoImpulse).
func (d *JointDef) servo() bool { return d.HasMotor && d.Motor.Mode == MotorPosition }

// drive returns the motor that drives the coordinate of a driven joint: its own, or its friction as a
// motor of speed 0 bounded by Friction (the row holds the coordinate's rate at 0 with a force of at
// most Friction: Coulomb friction).
func (d *JointDef) drive() Motor {
	if d.HasMotor {
		return d.Motor
	}
	return Motor{MaxForce: d.Friction}
}

// BrokenJoint reports a joint that broke during the last step.
type BrokenJoint struct {
	Index int      // the joint's index before removal
	Def   JointDef // what it was
	Force float32  // the constraint force that broke it, N
	Step  int      // the step (StepCount after it)
}

// joint is a joint as the solver keeps it: its definition, the frames fixed at creation, the parts
// whose rows it is made of, and per-step solver state.
type joint struct {
	def JointDef
	id  uint64 // unique in the world and kept by UpdateJoint (JointFrame.ID)
	// hasAxis: the frames' axis is def.Axis (hinge, piston, a ball given an axis, a swing cone or twist
	// limits when added); otherwise it is +y in the world at creation, a placeholder.
	hasAxis bool
	broken  bool // over its break force this step: breakJoints drops it
	// held is the force it held at the end of the last step its bodies were awake (Settings.Sleep):
	// what JointState reports while its island sleeps, when its rows are not solved.
	held float32

	// Frames at creation, in each body's local frame (the world's frame for the static world).
	localA, localB vec  // the anchor
	axisA, axisB   vec  // the axis (hinge, piston slide, ball twist)
	perpA, perpB   vec  // a direction perpendicular to the axis: the zero of the angle
	rel0           Quat // qA^-1 qB at creation: the pose the rotation parts hold

	// Per step.
	a, b   int32 // dense indices; -1 is the static world
	mA, mB float32
	iA, iB Mat3 // world inverse inertia (scaled by the mass-splitting count under Jacobi)
	color  uint8
	wide   int32 // the wide joint pass's batch << 3 | lane, or -1 (joint_wide.go)

	point  pointPart         // ball, hinge, fixed
	hinge  hingeRotationPart // hinge
	rot    rotationPart      // piston, fixed
	perp   [2]axisPart       // piston: the two off-axis translation rows
	angle  anglePart         // hinge angle or piston travel: limits and motor (or friction)
	fric   frictionPart      // ball: friction on the relative rotation
	swing  axisPart          // ball: swing cone (one-sided)
	twist  anglePart         // ball: twist limits
	coord  float32           // current hinge angle, piston travel or ball twist
	swingA float32           // current swing angle

	// XPBD: the sub-step's multipliers (anchors or lateral rows, alignment, limit) and the force the
	// anchor rows last held, |lambda| / h^2.
	xl    [3]float32
	xpbdF float32
	// XPBD: joint friction's positional impulse this sub-step (an angular one on a ball joint or a
	// hinge, a linear one along a piston's axis), its length bounded by Friction h^2.
	xf vec
	// XPBD: a motor's setpoint, the coordinate its position row holds the joint to this sub-step,
	// and that row's positional impulse this sub-step, bounded by MaxForce h^2.
	xs, xm float32
}

// AddJoint adds a joint between two bodies (or a body and the world, BodyB zero) at their current
// poses and returns its index. The joint holds the relative pose the bodies have now.
func (w *World) AddJoint(d JointDef) (int, error) {
	w.beforeEdit()
	ia, ok := w.dense(d.BodyA)
	if !ok {
		return 0, fmt.Errorf("joint %d: bodyA: no such body", len(w.joints))
	}
	ib := -1
	if d.BodyB != (Handle{}) {
		if ib, ok = w.dense(d.BodyB); !ok {
			return 0, fmt.Errorf("joint %d: bodyB: no such body", len(w.joints))
		}
		if ib == ia {
			return 0, fmt.Errorf("joint %d: bodyB: same body as bodyA", len(w.joints))
		}
	}
	// A ball joint keeps a given axis as its twist axis, so a swing cone and twist limits can be added
	// later (UpdateJoint); with limits it needs one.
	axial := d.Type == Hinge || d.Type == Piston || (d.Type == Ball && (d.Swing > 0 || d.HasTwist || d.Axis.Len() > 1e-6))
	if axial {
		l := d.Axis.Len()
		if !(l > 1e-6) || math.IsInf(float64(l), 0) {
			return 0, fmt.Errorf("joint %d: axis: must be a non-zero direction, got %v", len(w.joints), d.Axis)
		}
		d.Axis = d.Axis.Mul(1 / l)
	}
	if d.AxisB != (Vec3{}) {
		l := d.AxisB.Len()
		switch {
		case d.Type != Ball || !axial:
			return 0, fmt.Errorf("joint %d: axisB: only a ball joint with an axis has one", len(w.joints))
		case !(l > 1e-6) || math.IsInf(float64(l), 0):
			return 0, fmt.Errorf("joint %d: axisB: must be a non-zero direction, got %v", len(w.joints), d.AxisB)
		}
		d.AxisB = d.AxisB.Mul(1 / l)
	}
	if err := checkJointParams(len(w.joints), &d); err != nil {
		return 0, err
	}
	w.jointSerial++
	j := joint{def: d, id: w.jointSerial, hasAxis: axial}
	qA, qB := w.Bodies.Rotation[ia], mgl32.QuatIdent()
	xA, xB := w.Bodies.Position[ia], Vec3{}
	if ib >= 0 {
		qB, xB = w.Bodies.Rotation[ib], w.Bodies.Position[ib]
	}
	axis := d.Axis
	if !axial {
		axis = Vec3{0, 1, 0}
	}
	perp := perpendicular(vv(axis)).Vec3()
	axisB, perpB := axis, perp
	if d.AxisB != (Vec3{}) {
		axisB, perpB = d.AxisB, carry(vv(axis), vv(d.AxisB), vv(perp)).Vec3()
	}
	cA, cB := qA.Conjugate(), qB.Conjugate()
	j.localA, j.localB = vv(cA.Rotate(d.Anchor.Sub(xA))), vv(cB.Rotate(d.Anchor.Sub(xB)))
	j.axisA, j.axisB = vv(cA.Rotate(axis)), vv(cB.Rotate(axisB))
	j.perpA, j.perpB = vv(cA.Rotate(perp)), vv(cB.Rotate(perpB))
	j.rel0 = cA.Mul(qB).Normalize()
	w.jointsChanged()
	w.joints = append(w.joints, j)
	w.wakeIndex(ia)
	if ib >= 0 {
		w.wakeIndex(ib)
	}
	return len(w.joints) - 1, nil
}

// checkJointParams checks the parameters of a joint's definition that UpdateJoint may change: limits
// with lo <= hi, and finite values, with the motor's maximum force, the swing cone, the break force
// and the friction not negative (and no friction on a fixed joint). i names the joint in the error.
func checkJointParams(i int, d *JointDef) error {
	finite := func(xs ...float32) bool {
		for _, x := range xs {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return false
			}
		}
		return true
	}
	switch {
	case d.HasLimits && !finite(d.Limits[0], d.Limits[1]):
		return fmt.Errorf("joint %d: limits: %v must be finite", i, d.Limits)
	case d.HasLimits && d.Limits[0] > d.Limits[1]:
		return fmt.Errorf("joint %d: limits: lo must be <= hi, got %v", i, d.Limits)
	case d.HasTwist && !finite(d.Twist[0], d.Twist[1]):
		return fmt.Errorf("joint %d: twist: %v must be finite", i, d.Twist)
	case d.HasTwist && d.Twist[0] > d.Twist[1]:
		return fmt.Errorf("joint %d: twist: lo must be <= hi, got %v", i, d.Twist)
	case d.HasMotor && !finite(d.Motor.Speed):
		return fmt.Errorf("joint %d: motor speed: must be finite, got %v", i, d.Motor.Speed)
	case d.HasMotor && d.Motor.Mode > MotorPosition:
		return fmt.Errorf("joint %d: motor mode: unknown mode %d", i, d.Motor.Mode)
	case d.HasMotor && d.Motor.Mode == MotorPosition && !finite(d.Motor.Target):
		return fmt.Errorf("joint %d: motor target: must be finite, got %v", i, d.Motor.Target)
	case d.HasMotor && d.Motor.Mode == MotorPosition && d.Type == Hinge && !(vecmath.Abs(d.Motor.Target) <= math.Pi):
		return fmt.Errorf("joint %d: motor target: a hinge's angle is in [-pi, pi], got %v", i, d.Motor.Target)
	case d.HasMotor && !(finite(d.Motor.MaxForce) && d.Motor.MaxForce >= 0):
		return fmt.Errorf("joint %d: motor max force: must be finite and >= 0, got %v", i, d.Motor.MaxForce)
	case !(finite(d.Swing) && d.Swing >= 0):
		return fmt.Errorf("joint %d: swing: must be finite and >= 0, got %v", i, d.Swing)
	case !(finite(d.BreakForce) && d.BreakForce >= 0):
		return fmt.Errorf("joint %d: break force: must be finite and >= 0, got %v", i, d.BreakForce)
	case !(finite(d.Friction) && d.Friction >= 0):
		return fmt.Errorf("joint %d: friction: must be finite and >= 0, got %v", i, d.Friction)
	case d.Friction > 0 && d.Type == Fixed:
		return fmt.Errorf("joint %d: friction: a fixed joint has no free axis to resist, got %v", i, d.Friction)
	}
	return nil
}

// NumJoints returns the number of joints.
func (w *World) NumJoints() int { return len(w.joints) }

// Joint returns the definition of joint i.
func (w *World) Joint(i int) JointDef { return w.joints[i].def }

// JointCoordinate returns joint i's free coordinate at the last step: body A's hinge angle (radians,
// right-handed about the axis) or piston travel (metres along the axis) relative to body B (or the
// world) and to the creation pose, or a ball joint's twist angle (B relative to A about the twist
// axis). Limits and motors act on this coordinate.
func (w *World) JointCoordinate(i int) float32 { return w.joints[i].coord }

// perpendicular returns a unit vector perpendicular to a unit vector v.
func perpendicular(a vec) vec {
	var t vec
	if vecmath.Abs(a.X) < 0.57 {
		t = vec{X: 1, Y: 0, Z: 0}.Cross(a)
	} else {
		t = vec{X: 0, Y: 1, Z: 0}.Cross(a)
	}
	return t.Scale(1 / vecmath.Sqrt(t.Dot(t)))
}

// carry returns p turned by the shortest rotation that takes the unit vector a to the unit vector b
// (swingTwist's carrying of A's zero direction); p itself where a and b are nearly opposite, where that
// rotation is not defined.
func carry(a, b, p vec) vec {
	e, c := a.Cross(b), a.Dot(b)
	if c <= -0.999 {
		return p
	}
	return p.Scale(c).Add(e.Cross(p)).Add(e.Scale(e.Dot(p) / (1 + c)))
}
