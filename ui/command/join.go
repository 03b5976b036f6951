package command

import (
	"fmt"

	"tumble/sim"
)

// AnchorMode says where a new joint's anchor goes.
type AnchorMode int

// The anchor modes.
const (
	AnchorClicked  AnchorMode = iota // the point clicked on body B (or on A when B is the world)
	AnchorMidpoint                   // halfway between the bodies' centres
)

// AxisFrame says in which frame JoinSpec.Axis is given.
type AxisFrame int

// The axis frames.
const (
	AxisWorld  AxisFrame = iota
	AxisLocalA           // body A's frame
)

// JoinSpec describes a joint the user builds from two picks.
type JoinSpec struct {
	Type   sim.JointType
	A, B   sim.Handle // B zero: the world
	PickA  sim.Vec3   // the clicked points (world)
	PickB  sim.Vec3
	Anchor AnchorMode
	Axis   sim.Vec3 // hinge and piston; a ball joint's twist axis
	Frame  AxisFrame
	Limits *[2]float32
	Motor  *sim.Motor
	// Friction is the joint's friction (sim.JointDef.Friction: N m, or N for a piston); a fixed
	// joint, which has no free axis, takes none.
	Friction float32
	Created  func(index int) // called with the joint's index once added (optional)
}

// Def resolves the spec against the world: the anchor point and the world axis.
func (j *JoinSpec) Def(w *sim.World) (sim.JointDef, error) {
	ia, ok := w.Index(j.A)
	if !ok {
		return sim.JointDef{}, fmt.Errorf("join: body A: %w", ErrNoSelection)
	}
	ib, hasB := w.Index(j.B)
	if j.B != (sim.Handle{}) && !hasB {
		return sim.JointDef{}, fmt.Errorf("join: body B: %w", ErrNoSelection)
	}
	if j.A == j.B {
		return sim.JointDef{}, fmt.Errorf("join: body A and body B are the same body")
	}
	b := &w.Bodies
	d := sim.JointDef{Type: j.Type, BodyA: j.A, BodyB: j.B}
	switch {
	case j.Anchor == AnchorMidpoint && hasB:
		d.Anchor = b.Position[ia].Add(b.Position[ib]).Mul(0.5)
	case j.Anchor == AnchorMidpoint:
		d.Anchor = b.Position[ia]
	case hasB:
		d.Anchor = j.PickB
	default:
		d.Anchor = j.PickA
	}
	if j.Type == sim.Ball && j.Axis.Len() > 1e-6 {
		// A ball joint's twist axis, for a swing cone and twist limits given later.
		ax := j.Axis
		if j.Frame == AxisLocalA {
			ax = b.Rotation[ia].Rotate(ax)
		}
		d.Axis = ax.Normalize()
	}
	if j.Type == sim.Hinge || j.Type == sim.Piston {
		ax := j.Axis
		if ax.Len() < 1e-6 {
			return sim.JointDef{}, fmt.Errorf("join: a %s needs an axis", j.Type)
		}
		if j.Frame == AxisLocalA {
			ax = b.Rotation[ia].Rotate(ax)
		}
		d.Axis = ax.Normalize()
		if j.Limits != nil {
			if j.Limits[0] > j.Limits[1] {
				return sim.JointDef{}, fmt.Errorf("join: limits [%v, %v]: lower above upper", j.Limits[0], j.Limits[1])
			}
			d.HasLimits, d.Limits = true, *j.Limits
		}
		if j.Motor != nil {
			if !(j.Motor.MaxForce > 0) {
				return sim.JointDef{}, fmt.Errorf("join: motor max force must be > 0")
			}
			d.HasMotor, d.Motor = true, *j.Motor
		}
	}
	if j.Type != sim.Fixed {
		d.Friction = j.Friction
	}
	return d, nil
}

// Join adds the joint described by j.
func Join(j JoinSpec) Command {
	return func(s *Session) error {
		d, err := j.Def(s.world)
		if err != nil {
			return err
		}
		k, err := s.world.AddJoint(d)
		if err != nil {
			return err
		}
		s.frames = append(s.frames, s.frameOf(d))
		if j.Created != nil {
			j.Created(k)
		}
		return nil
	}
}

// RemoveJoint deletes joint k.
func RemoveJoint(k int) Command {
	return func(s *Session) error {
		if err := s.world.RemoveJoint(k); err != nil {
			return err
		}
		s.frames = append(s.frames[:k], s.frames[k+1:]...)
		return nil
	}
}

// JointEdit is a change to a joint's parameters (sim.World.UpdateJoint). A nil field leaves that
// parameter as it is; Limits, Motor or Twist given without their Has flag also turn them on.
type JointEdit struct {
	HasLimits *bool
	Limits    *[2]float32 // [lo, hi] from the creation pose: radians (hinge) or metres (piston)
	HasMotor  *bool
	Motor     *sim.Motor
	Swing     *float32 // ball: the swing cone, radians (0: none)
	HasTwist  *bool
	Twist     *[2]float32 // ball: twist limits [lo, hi], radians
	// BreakForce is the force (N) above which the joint breaks (0: never).
	BreakForce *float32
	// Friction is the joint's friction torque (N m) or, on a piston, force (N); 0: none.
	Friction *float32
}

// Apply returns d with the edit's changes.
func (e JointEdit) Apply(d sim.JointDef) sim.JointDef {
	if e.Limits != nil {
		d.HasLimits, d.Limits = true, *e.Limits
	}
	if e.HasLimits != nil {
		d.HasLimits = *e.HasLimits
	}
	if e.Motor != nil {
		d.HasMotor, d.Motor = true, *e.Motor
	}
	if e.HasMotor != nil {
		d.HasMotor = *e.HasMotor
	}
	if e.Swing != nil {
		d.Swing = *e.Swing
	}
	if e.Twist != nil {
		d.HasTwist, d.Twist = true, *e.Twist
	}
	if e.HasTwist != nil {
		d.HasTwist = *e.HasTwist
	}
	if e.BreakForce != nil {
		d.BreakForce = *e.BreakForce
	}
	if e.Friction != nil {
		d.Friction = *e.Friction
	}
	return d
}

// EditJoint changes joint k's parameters in place (sim.World.UpdateJoint): it keeps its index, its
// bodies, type, anchor and axis, and the frames it holds them in, so the bodies do not move. A new
// type, anchor or axis is a new joint: RemoveJoint, then Join.
func EditJoint(k int, e JointEdit) Command {
	return func(s *Session) error {
		if k < 0 || k >= s.world.NumJoints() {
			return fmt.Errorf("joint %d: no such joint", k)
		}
		return s.world.UpdateJoint(k, e.Apply(s.world.Joint(k)))
	}
}
