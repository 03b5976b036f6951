package urdf

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"tumble/scenes"
	"tumble/sim/geom"
)

// Scene maps the robot to a Tumble scene, in Tumble's y-up world, at zero joint positions: a body per
// link that has collision shapes, a joint per URDF joint between two such links (or a link and the
// world), and a ground plane at the robot's z = 0.
//
// What it maps: a link with box, sphere, cylinder or mesh collision elements becomes a compound body
// in the link's frame, each element a part at its origin, the link's mass shared among the parts by
// volume, its inertia the link's <inertia> tensor (turned by the <inertial> origin's rpy) about its
// centre of mass, the <inertial> origin. A URDF cylinder's axis is its frame's z, which the z-up to
// y-up turn makes Tumble's y, the axis of Tumble's cylinder. A revolute joint becomes a hinge
// with its limits and a servo holding the zero position with the limit's effort as its torque (its
// velocity the servo's largest speed); prismatic, a piston likewise; continuous, a hinge without
// limits or motor; fixed, a fixed joint; floating, no joint. Body A is the child link and body B the
// parent, so the hinge angle and piston travel are URDF's joint position. A link fixed to the root
// link "world" is jointed to Tumble's world. Each of these losses is one line in the returned notes
// (with Notes').
//
// A mesh (STL or OBJ) on a moving link, alone or among others, is the convex hull of its vertices (at
// most geom.MaxHullPoints), its volume and centre the hull's. A link fixed to the world whose one
// collision element is a mesh is a static body of that triangle mesh (concave shapes kept; no
// <inertial> needed), and its fixed joint to the world is left out.
//
// What it refuses, naming the link, element or joint: a mesh file that cannot be read or whose
// vertices make no hull (too many, or flat), a link with mass but no collision shape, a collision
// shape without <inertial> (but a static mesh), and a joint to a link without a body (other than the
// world link).
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
	body, static := map[string]bool{}, map[string]bool{}
	for _, l := range r.Links {
		tag := fmt.Sprintf("<link name=%q>", l.Name)
		switch {
		case len(l.Collisions) == 0 && l.Inertial == nil:
			continue // a frame only, as the world link
		case len(l.Collisions) == 0:
			return nil, nil, fail(l.Line, tag, "a link with mass but no collision shape cannot be a body")
		case l.Inertial == nil && !r.staticLink(l):
			return nil, nil, fail(l.Line, tag, "a collision shape but no <inertial>: its mass is unknown")
		}
		b, err := r.linkBody(l, frames[l.Name], note)
		if err != nil {
			return nil, nil, err
		}
		s.Bodies = append(s.Bodies, b)
		body[l.Name] = true
		static[l.Name] = b.Type == "static"
	}
	for _, j := range r.Joints {
		tag := fmt.Sprintf("<joint name=%q>", j.Name)
		if j.Type == Floating {
			note(j.Line, tag, "a floating joint joins nothing: the child moves freely")
			continue
		}
		if j.Type == Fixed && j.Parent == "world" && static[j.Child] {
			continue // the static body is the world's
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

// partOf returns a collision element's shape in Tumble's terms, in the element's frame turned by
// turn, its volume (m^3) and its centre of mass in the element's frame. A URDF cylinder's axis is its
// frame's z, a Tumble cylinder's its y, so a cylinder's frame is the element's turned +90 degrees
// about x (which takes y to z); a mesh is the convex hull of its vertices (scaled), which a hull
// takes up to geom.MaxHullPoints of; other shapes take the element's frame as it is.
func partOf(c Collision, tag string, file string) (sh scenes.Shape, turn Quat, vol float64, centre [3]float64, err error) {
	turn = Quat{0, 0, 0, 1}
	fail := func(why string) error {
		return &Error{File: file, Line: c.Line, Element: "<collision> of " + tag, Problem: why}
	}
	switch g := c.Geometry; g.Kind {
	case Box:
		sh = scenes.Shape{Type: "box", HalfExtents: &scenes.Vec3{g.Size[0] / 2, g.Size[1] / 2, g.Size[2] / 2}}
		vol = g.Size[0] * g.Size[1] * g.Size[2]
	case Sphere:
		r := g.Radius
		sh = scenes.Shape{Type: "sphere", Radius: &r}
		vol = 4 * math.Pi / 3 * r * r * r
	case Cylinder:
		r, h := g.Radius, g.Length/2
		sh = scenes.Shape{Type: "cylinder", Radius: &r, HalfHeight: &h}
		turn = axisAngle([3]float64{1, 0, 0}, math.Pi/2)
		vol = math.Pi * r * r * g.Length
	case Mesh:
		m, err := readMesh(g.Mesh, g.Scale)
		if err != nil {
			return sh, turn, 0, centre, fail("mesh: " + err.Error())
		}
		pts := make([]geom.Vec3, len(m.verts))
		sh = scenes.Shape{Type: "hull", Points: make([]scenes.Vec3, len(m.verts))}
		for i, v := range m.verts {
			sh.Points[i] = scenes.Vec3(v)
			pts[i] = geom.Vec3{float32(v[0]), float32(v[1]), float32(v[2])}
		}
		h, err := geom.NewHull(pts)
		if err != nil {
			return sh, turn, 0, centre, fail(fmt.Sprintf("mesh %s: the hull of its %d vertices: %v", filepath.Base(g.Mesh), len(m.verts), err))
		}
		vol, centre = h.Volume, [3]float64{float64(h.Centre[0]), float64(h.Centre[1]), float64(h.Centre[2])}
	}
	return sh, turn, vol, centre, nil
}

// linkBody returns the body of a link with collision elements and an inertial, its frame at zero
// joint positions (URDF's world): a compound in the link's frame, each collision element a part at its
// origin with the link's mass shared in proportion to the parts' volumes (one density); the body's
// centre of mass is the <inertial> origin (the body's centerOfMass where it is not the parts'
// volume-weighted centre). Its inertia is the link's <inertia>, turned
// from the <inertial> frame into the link's (I = R I' R^T, R the origin's rpy); a tensor no mass
// distribution has (a moment not positive, or above the sum of the other two) is left for the parts'
// own, with a note.
func (r *Robot) linkBody(l Link, frame Frame, note func(line int, what, why string)) (scenes.Body, error) {
	tag := fmt.Sprintf("<link name=%q>", l.Name)
	if r.staticLink(l) {
		return r.staticMesh(l, l.Collisions[0], frame, note)
	}
	b := scenes.Body{Name: l.Name}
	mass := l.Inertial.Mass
	b.Mass = &mass
	var com [3]float64 // in the link's frame
	vols := make([]float64, len(l.Collisions))
	total, hulls := 0.0, 0
	for i, c := range l.Collisions {
		sh, turn, vol, centre, err := partOf(c, tag, r.File)
		if err != nil {
			return b, err
		}
		if c.Geometry.Kind == Mesh {
			hulls++
		}
		at := c.Origin.Of().Apply(centre)
		f := c.Origin.Of().Then(Frame{Rot: turn})
		pos, rot := scenes.Vec3(f.Pos), scenes.Quat(f.Rot)
		b.Shapes = append(b.Shapes, scenes.Part{Shape: sh, Position: &pos, Rotation: &rot})
		vols[i], total = vol, total+vol
		for k := range com {
			com[k] += vol * at[k]
		}
	}
	for i := range b.Shapes {
		m := mass * vols[i] / total
		b.Shapes[i].Mass = &m
	}
	for k := range com {
		com[k] /= total
	}
	// A compound's position is its centre of mass; its rotation turns the frame its parts are written
	// in, the link's. The centre of mass is the <inertial> origin: the parts' own centre where the two
	// meet, else given as the body's centerOfMass (the parts are the link's collision geometry, not
	// its mass distribution).
	if d := l.Inertial.Origin.XYZ; math.Abs(d[0]-com[0])+math.Abs(d[1]-com[1])+math.Abs(d[2]-com[2]) > 1e-9 {
		com = d
		at := scenes.Vec3(d)
		b.CenterOfMass = &at
	}
	f := YUpFrame(frame)
	pos, rot := scenes.Vec3(YUp(frame.Apply(com))), scenes.Quat(f.Rot)
	b.Position, b.Rotation = &pos, &rot
	// A link is a compound of its collision elements with the link's <inertia>; what that changes of
	// the file is noted, one line.
	var what []string
	if len(l.Collisions) > 1 {
		what = append(what, fmt.Sprintf("its %d collision elements share the link's mass by their volumes", len(l.Collisions)))
	}
	if hulls > 0 {
		what = append(what, "a mesh is the convex hull of its vertices")
	}
	t := linkInertia(l.Inertial)
	if err := geom.CheckInertia([3][3]float64{{t[0], t[1], t[2]}, {t[1], t[3], t[4]}, {t[2], t[4], t[5]}}); err != nil {
		what = append(what, "its <inertia> is no mass distribution's, so its inertia is its shapes' about the <inertial> origin")
	} else {
		b.Inertia = &t
	}
	if len(what) > 0 {
		note(l.Line, tag, strings.Join(what, "; "))
	}
	return b, nil
}

// linkInertia returns the inertial's tensor in the link's frame, [ixx, ixy, ixz, iyy, iyz, izz]:
// R I R^T, with R the rotation of the <inertial> origin's rpy.
func linkInertia(in *Inertial) [6]float64 {
	c := in.Inertia
	t := [3][3]float64{{c[0], c[1], c[2]}, {c[1], c[3], c[4]}, {c[2], c[4], c[5]}}
	q := RPY(in.Origin.RPY)
	var rm [3][3]float64 // rm[i][k]: row i of R, column k = R e_k
	for k := range 3 {
		var e [3]float64
		e[k] = 1
		col := q.Rotate(e)
		for i := range 3 {
			rm[i][k] = col[i]
		}
	}
	var out [3][3]float64
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				for l := range 3 {
					out[i][j] += rm[i][k] * t[k][l] * rm[j][l]
				}
			}
		}
	}
	// The upper triangle, symmetric by construction.
	return [6]float64{out[0][0], out[0][1], out[0][2], out[1][1], out[1][2], out[2][2]}
}

// staticLink reports whether a link is a static body: fixed to the world with one collision element,
// a mesh (which then needs no <inertial>).
func (r *Robot) staticLink(l Link) bool {
	return len(l.Collisions) == 1 && l.Collisions[0].Geometry.Kind == Mesh && r.Grounded(l.Name)
}

// staticMesh returns the static body of a link fixed to the world whose one collision element is a
// mesh: a static triangle mesh where the element is, its triangles collided one by one (concave shapes
// kept), the link's mass not needed.
func (r *Robot) staticMesh(l Link, c Collision, frame Frame, note func(line int, what, why string)) (scenes.Body, error) {
	tag := fmt.Sprintf("<link name=%q>", l.Name)
	m, err := readMesh(c.Geometry.Mesh, c.Geometry.Scale)
	if err != nil {
		return scenes.Body{}, &Error{File: r.File, Line: c.Line, Element: "<collision> of " + tag, Problem: "mesh: " + err.Error()}
	}
	sh := scenes.Shape{Type: "mesh", Vertices: make([]scenes.Vec3, len(m.verts)), Triangles: m.tris}
	for i, v := range m.verts {
		sh.Vertices[i] = scenes.Vec3(v)
	}
	f := YUpFrame(frame.Then(c.Origin.Of()))
	pos, rot := scenes.Vec3(f.Pos), scenes.Quat(f.Rot)
	note(l.Line, tag, "fixed to the world: a static body, its mesh a static triangle mesh (its mass not used)")
	return scenes.Body{Name: l.Name, Type: "static", Shape: sh, Position: &pos, Rotation: &rot}, nil
}
