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
	Type    sim.JointType
	A, B    sim.Handle // B zero: the world
	PickA   sim.Vec3   // the clicked points (world)
	PickB   sim.Vec3
	Anchor  AnchorMode
	Axis    sim.Vec3 // hinge and piston
	Frame   AxisFrame
	Limits  *[2]float32
	Motor   *sim.Motor
	Created func(index int) // called with the joint's index once added (optional)
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

// EditJoint replaces joint k's type, limits and motor (its bodies, anchor and axis stay). sim has no
// in-place joint edit, so this removes the joint and adds the edited one back at the end of the list.
func EditJoint(k int, typ sim.JointType, limits *[2]float32, motor *sim.Motor) Command {
	return func(s *Session) error {
		if k < 0 || k >= s.world.NumJoints() {
			return fmt.Errorf("joint %d: no such joint", k)
		}
		d := s.world.Joint(k)
		d.Type = typ
		d.HasLimits, d.HasMotor = limits != nil, motor != nil
		if limits != nil {
			if limits[0] > limits[1] {
				return fmt.Errorf("joint %d: limits [%v, %v]: lower above upper", k, limits[0], limits[1])
			}
			d.Limits = *limits
		}
		if motor != nil {
			d.Motor = *motor
		}
		f := s.frames[k]
		if (typ == sim.Hinge || typ == sim.Piston) && d.Axis.Len() < 1e-6 {
			// A ball or fixed joint has no axis: the edited one slides or turns about world z.
			d.Axis = sim.Vec3{0, 0, 1}
			f.axis = s.frameOf(d).axis
		}
		if err := s.world.RemoveJoint(k); err != nil {
			return err
		}
		s.frames = append(s.frames[:k], s.frames[k+1:]...)
		if _, err := s.world.AddJoint(d); err != nil {
			return err
		}
		s.frames = append(s.frames, f)
		return nil
	}
}
