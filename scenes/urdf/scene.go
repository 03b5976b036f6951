package urdf

import (
	"fmt"
	"math"

	"tumble/scenes"
)

// Scene maps the robot to a Tumble scene, in Tumble's y-up world, at zero joint positions: a body per
// link that has collision shapes, a joint per URDF joint between two such links (or a link and the
// world), and a ground plane at the robot's z = 0.
//
// What it maps: a link with one box or sphere collision element becomes a body of that shape, placed
// where the element is, with the link's mass (the shape's own inertia: URDF's inertia tensor and a
// centre of mass off the shape's centre are noted and not used). A revolute joint becomes a hinge with
// its limits and a servo holding the zero position with the limit's effort as its torque (its velocity
// the servo's largest speed); prismatic, a piston likewise; continuous, a hinge without limits or
// motor; fixed, a fixed joint; floating, no joint. Body A is the child link and body B the parent, so
// the hinge angle and piston travel are URDF's joint position. A link fixed to the root link "world"
// is jointed to Tumble's world. Each of these losses is one line in the returned notes (with Notes').
//
// What it refuses, naming the link or joint: a link with several collision elements (a compound
// body), a cylinder or mesh collision element, a link with mass but no collision shape, and a joint
// to a link without a body (other than the world link).
func (r *Robot) Scene() (*scenes.Scene, []string, error) {
	notes := append([]string(nil), r.Notes...)
	note := func(line int, what, why string) {
		notes = append(notes, fmt.Sprintf("%s:%d: %s: %s", r.File, line, what, why))
	}
	fail := func(line int, what, why string) error {
		return &Error{File: r.File, Line: line, Element: what, Problem: why}
	}
	frames := r.Frames()
	s := &scenes.Scene{Name: r.Name}
	ground := "ground"
	for _, l := range r.Links {
		if l.Name == ground {
			ground = "ground plane"
		}
	}
	s.Bodies = append(s.Bodies, scenes.Body{Name: ground, Type: "static",
		Shape: scenes.Shape{Type: "plane", Normal: &scenes.Vec3{0, 1, 0}}})
	body := map[string]bool{}
	for _, l := range r.Links {
		tag := fmt.Sprintf("<link name=%q>", l.Name)
		switch {
		case len(l.Collisions) == 0 && l.Inertial == nil:
			continue // a frame only, as the world link
		case len(l.Collisions) == 0:
			return nil, nil, fail(l.Line, tag, "a link with mass but no collision shape cannot be a body")
		case len(l.Collisions) > 1:
			return nil, nil, fail(l.Line, tag, fmt.Sprintf("%d collision elements: a body of several shapes (a compound) cannot be built yet", len(l.Collisions)))
		case l.Inertial == nil:
			return nil, nil, fail(l.Line, tag, "a collision shape but no <inertial>: its mass is unknown")
		}
		c := l.Collisions[0]
		b := scenes.Body{Name: l.Name}
		switch g := c.Geometry; g.Kind {
		case Box:
			b.Shape = scenes.Shape{Type: "box", HalfExtents: &scenes.Vec3{g.Size[0] / 2, g.Size[1] / 2, g.Size[2] / 2}}
		case Sphere:
			b.Shape = scenes.Shape{Type: "sphere", Radius: &g.Radius}
		default:
			return nil, nil, fail(c.Line, "<collision> of "+tag, fmt.Sprintf("a %s shape cannot be a body yet (box and sphere can)", g.Kind))
		}
		f := YUpFrame(frames[l.Name].Then(c.Origin.Of()))
		pos, rot := scenes.Vec3(f.Pos), scenes.Quat(f.Rot)
		mass := l.Inertial.Mass
		b.Position, b.Rotation, b.Mass = &pos, &rot, &mass
		note(l.Line, tag, "its inertia is the shape's at the link's mass (URDF's inertia tensor is not used)")
		if d := l.Inertial.Origin.XYZ; math.Abs(d[0]-c.Origin.XYZ[0])+math.Abs(d[1]-c.Origin.XYZ[1])+math.Abs(d[2]-c.Origin.XYZ[2]) > 1e-9 {
			note(l.Line, tag, "its centre of mass is the shape's centre, not the <inertial> origin")
		}
		s.Bodies = append(s.Bodies, b)
		body[l.Name] = true
	}
	for _, j := range r.Joints {
		tag := fmt.Sprintf("<joint name=%q>", j.Name)
		if j.Type == Floating {
			note(j.Line, tag, "a floating joint joins nothing: the child moves freely")
			continue
		}
		if !body[j.Child] {
			return nil, nil, fail(j.Line, tag, fmt.Sprintf("child link %q has no body (no collision shape)", j.Child))
		}
		sj := scenes.Joint{BodyA: j.Child}
		switch {
		case body[j.Parent]:
			sj.BodyB = j.Parent
		case j.Parent == "world" && r.Root() == "world":
			// the world link: Tumble's static world
		default:
			return nil, nil, fail(j.Line, tag, fmt.Sprintf("parent link %q has no body (no collision shape)", j.Parent))
		}
		child := YUpFrame(frames[j.Child])
		anchor := scenes.Vec3(child.Pos)
		axis := scenes.Vec3(child.Rot.Rotate(j.Axis))
		sj.Anchor = &anchor
		switch j.Type {
		case Fixed:
			sj.Type = "fixed"
		case Continuous:
			sj.Type, sj.Axis = "hinge", &axis
			if j.Limit != nil {
				note(j.Line, tag, "a continuous joint's effort and velocity are not used (it has no motor)")
			}
		case Revolute, Prismatic:
			sj.Type, sj.Axis = "hinge", &axis
			if j.Type == Prismatic {
				sj.Type = "piston"
			}
			sj.Limits = &[2]float64{j.Limit.Lower, j.Limit.Upper}
			if j.Type == Revolute && (j.Limit.Lower < -math.Pi || j.Limit.Upper > math.Pi) {
				note(j.Line, tag, "limits beyond +-pi never act on a hinge (its angle is in (-pi, pi])")
			}
			if j.Limit.Effort > 0 {
				zero := 0.0
				sj.Motor = &scenes.Motor{Mode: "position", Target: &zero, Speed: j.Limit.Velocity, MaxForce: j.Limit.Effort}
			} else {
				note(j.Line, tag, "effort 0: no servo holds the joint")
			}
		}
		if j.Damping != 0 || j.Friction != 0 {
			note(j.Line, tag, "<dynamics> damping and friction are not used")
		}
		s.Joints = append(s.Joints, sj)
	}
	if err := s.Validate(); err != nil {
		return nil, nil, fmt.Errorf("%s: the mapped scene: %w", r.File, err)
	}
	return s, notes, nil
}
