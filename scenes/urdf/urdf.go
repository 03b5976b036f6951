// Package urdf reads robots described in URDF (the Unified Robot Description Format of ROS): links
// with their inertia and collision shapes, and the joints of a tree between them. Parse checks the
// file as it reads it and names the element and its line in every error; what URDF has that the
// model does not keep (visuals, materials, transmissions, Gazebo extensions, joint mimicry, safety
// controllers, calibration) is listed in Robot.Notes, one line each, never dropped silently.
//
// URDF is z-up (x forward, y left); Tumble's world is y-up. YUp maps a URDF vector to Tumble's axes by
// the rotation of -90 degrees about x, so a robot stands as it does in its own tools.
package urdf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Robot is a parsed URDF file: its links and the joints between them, in file order.
type Robot struct {
	Name   string
	File   string // the file it was read from, "" for bytes given to Parse without a name
	Links  []Link
	Joints []Joint
	// Notes name each element the model leaves out, as "FILE:LINE: <element>: why".
	Notes []string
}

// Pose is an origin: a translation (m) and fixed-axis roll, pitch, yaw (rad) about x, y, z, applied
// roll first (URDF's <origin xyz rpy>).
type Pose struct {
	XYZ, RPY [3]float64
}

// Link is a rigid body of the robot.
type Link struct {
	Name       string
	Line       int
	Inertial   *Inertial // nil: none given (a massless link, as the world link)
	Collisions []Collision
}

// Inertial is a link's mass and inertia about its centre of mass, in the frame Origin places in the
// link's frame.
type Inertial struct {
	Origin Pose
	Mass   float64 // kg
	// Inertia is the tensor's ixx, ixy, ixz, iyy, iyz, izz, kg m^2.
	Inertia [6]float64
}

// GeometryKind names a collision shape.
type GeometryKind uint8

// The collision shapes URDF has.
const (
	Box GeometryKind = iota
	Sphere
	Cylinder // about its z axis, centred on its origin
	Mesh
)

var geometryNames = [...]string{"box", "sphere", "cylinder", "mesh"}

// String returns the URDF element's name.
func (k GeometryKind) String() string { return geometryNames[k] }

// Geometry is a collision shape in its element's frame.
type Geometry struct {
	Kind   GeometryKind
	Size   [3]float64 // box: full side lengths, m
	Radius float64    // sphere, cylinder
	Length float64    // cylinder: along z
	// Mesh is the mesh file's path, resolved (package:// and relative names against the URDF's
	// folder); an STL or OBJ file. Scale multiplies its vertices.
	Mesh  string
	Scale [3]float64
}

// Collision is one collision element of a link: a shape placed by Origin in the link's frame.
type Collision struct {
	Name     string
	Line     int
	Origin   Pose
	Geometry Geometry
}

// JointType names a URDF joint type.
type JointType uint8

// The joint types the model keeps (planar is refused).
const (
	Revolute   JointType = iota // a hinge with limits
	Continuous                  // a hinge without limits
	Prismatic                   // a slider with limits
	Fixed                       // welded
	Floating                    // free: no constraint
)

var jointTypeNames = [...]string{"revolute", "continuous", "prismatic", "fixed", "floating"}

// String returns the URDF name.
func (t JointType) String() string { return jointTypeNames[t] }

// Joint joins a child link to its parent: the child's frame is the parent's moved by Origin (at zero
// joint position), and the joint moves it about or along Axis (a unit vector in the child's frame).
type Joint struct {
	Name          string
	Line          int
	Type          JointType
	Parent, Child string
	Origin        Pose
	Axis          [3]float64
	// Limit is required for revolute and prismatic joints (rad or m; Effort is the largest torque or
	// force, N m or N; Velocity the largest speed), optional for continuous ones (effort and
	// velocity only).
	Limit *Limit
	// Damping (N m s/rad or N s/m) and Friction (N m or N) from <dynamics>, 0 when absent.
	Damping, Friction float64
}

// Limit is a joint's <limit>.
type Limit struct {
	Lower, Upper, Effort, Velocity float64
}

// Error is a refused URDF file: the file, the element's line, the element and what is wrong.
type Error struct {
	File    string
	Line    int
	Element string // e.g. `<joint name="elbow">`, "" for malformed XML
	Problem string
}

// Error formats the refusal as "FILE:LINE: ELEMENT: PROBLEM".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	}
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Element != "" {
		b.WriteString(e.Element + ": ")
	}
	b.WriteString(e.Problem)
	return b.String()
}

// element is an XML element with the line it starts on.
type element struct {
	name  string
	attrs map[string]string
	order []string // the attributes' names in file order
	line  int
	kids  []*element
}

// tag is how errors and notes name the element: <joint name="elbow">.
func (e *element) tag() string {
	if n, ok := e.attrs["name"]; ok {
		return fmt.Sprintf("<%s name=%q>", e.name, n)
	}
	return "<" + e.name + ">"
}

// readTree reads the XML document into elements (character data is not needed by URDF).
func readTree(data []byte) (*element, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var stack []*element
	var root *element
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, &Error{Line: se.Line, Problem: "malformed XML: " + se.Msg}
			}
			return nil, &Error{Line: line, Problem: "malformed XML: " + err.Error()}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			// InputPos after the start tag: the line its '>' is on; the line before reading it is
			// where the previous token ended, so skip the whitespace between to find the tag's own.
			e := &element{name: t.Name.Local, attrs: map[string]string{}, line: tagLine(data, line, d.InputOffset())}
			for _, a := range t.Attr {
				e.attrs[a.Name.Local] = a.Value
				e.order = append(e.order, a.Name.Local)
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, e)
			} else if root == nil {
				root = e
			}
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if root == nil {
		return nil, &Error{Problem: "no XML element: not a URDF file"}
	}
	return root, nil
}

// tagLine returns the line of the '<' that starts the tag ending at offset end, given the line the
// decoder was on before it (the tag may follow newlines and comments).
func tagLine(data []byte, before int, end int64) int {
	start := bytes.LastIndexByte(data[:end], '<')
	if start < 0 {
		return before
	}
	return 1 + bytes.Count(data[:start], []byte{'\n'})
}

// parser reads the tree into a Robot, keeping the first error.
type parser struct {
	file string
	dir  string // the URDF's folder, for mesh files
	err  *Error
	r    *Robot
}

func (p *parser) fail(e *element, format string, args ...any) {
	if p.err == nil {
		p.err = &Error{File: p.file, Line: e.line, Element: e.tag(), Problem: fmt.Sprintf(format, args...)}
	}
}

func (p *parser) note(e *element, why string) {
	p.r.Notes = append(p.r.Notes, fmt.Sprintf("%s:%d: %s: %s", p.file, e.line, e.tag(), why))
}

// Load reads a URDF file; mesh files are found from its folder.
func Load(path string) (*Robot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, filepath.Dir(path), data)
}

// Parse reads a URDF document; file names it in errors and notes, and mesh files are found from its
// folder.
func Parse(file string, data []byte) (*Robot, error) {
	return parse(file, filepath.Dir(file), data)
}

func parse(file, dir string, data []byte) (*Robot, error) {
	root, err := readTree(data)
	if err != nil {
		err.(*Error).File = file
		return nil, err
	}
	p := &parser{file: file, dir: dir, r: &Robot{File: file}}
	if root.name != "robot" {
		p.fail(root, "the document's element must be <robot>")
		return nil, p.err
	}
	p.r.Name = root.attrs["name"]
	for _, e := range root.kids {
		switch e.name {
		case "link":
			p.link(e)
		case "joint":
			p.joint(e)
		case "material":
			p.note(e, "materials are not read (bodies are drawn in Tumble's colours)")
		case "transmission":
			p.note(e, "transmissions are not read (motors act on the joints directly)")
		case "gazebo":
			p.note(e, "Gazebo extensions are not read")
		default:
			p.note(e, "unknown element, not read")
		}
		if p.err != nil {
			return nil, p.err
		}
	}
	p.check(root)
	if p.err != nil {
		return nil, p.err
	}
	return p.r, nil
}

// attr returns a required attribute.
func (p *parser) attr(e *element, name string) string {
	v, ok := e.attrs[name]
	if !ok {
		p.fail(e, "attribute %s: missing (required)", name)
	}
	return v
}

// floats parses n numbers separated by spaces from attribute name of e; def is the value when the
// attribute is absent and not required.
func (p *parser) floats(e *element, name string, n int, required bool, def []float64) []float64 {
	v, ok := e.attrs[name]
	if !ok {
		if required {
			p.fail(e, "attribute %s: missing (required)", name)
		}
		return def
	}
	f := strings.Fields(v)
	if len(f) != n {
		p.fail(e, "attribute %s: want %d numbers, got %q", name, n, v)
		return def
	}
	out := make([]float64, n)
	for i, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			p.fail(e, "attribute %s: %q is not a finite number", name, s)
			return def
		}
		out[i] = x
	}
	return out
}

func (p *parser) float(e *element, name string, required bool, def float64) float64 {
	return p.floats(e, name, 1, required, []float64{def})[0]
}

// origin reads an optional <origin> child of e.
func (p *parser) origin(e *element) Pose {
	var o Pose
	seen := false
	for _, k := range e.kids {
		if k.name != "origin" {
			continue
		}
		if seen {
			p.fail(k, "a second <origin>")
		}
		seen = true
		copy(o.XYZ[:], p.floats(k, "xyz", 3, false, []float64{0, 0, 0}))
		copy(o.RPY[:], p.floats(k, "rpy", 3, false, []float64{0, 0, 0}))
	}
	return o
}

// only returns e's single child named name, or nil; a second one is an error.
func (p *parser) only(e *element, name string) *element {
	var out *element
	for _, k := range e.kids {
		if k.name == name {
			if out != nil {
				p.fail(k, "a second <%s>", name)
			}
			out = k
		}
	}
	return out
}

func (p *parser) link(e *element) {
	l := Link{Name: p.attr(e, "name"), Line: e.line}
	for _, k := range e.kids {
		switch k.name {
		case "inertial":
			if l.Inertial != nil {
				p.fail(k, "a second <inertial>")
			}
			l.Inertial = p.inertial(k)
		case "collision":
			if c, ok := p.collision(k); ok {
				l.Collisions = append(l.Collisions, c)
			}
		case "visual":
			p.note(k, "visuals are not read (a link is drawn as its collision shapes)")
		default:
			p.note(k, "unknown element in a link, not read")
		}
	}
	p.r.Links = append(p.r.Links, l)
}

func (p *parser) inertial(e *element) *Inertial {
	in := &Inertial{Origin: p.origin(e)}
	m := p.only(e, "mass")
	if m == nil {
		p.fail(e, "<mass>: missing (required)")
		return in
	}
	in.Mass = p.float(m, "value", true, 0)
	if p.err == nil && !(in.Mass > 0) {
		p.fail(m, "attribute value: the mass must be > 0, got %v", in.Mass)
	}
	i := p.only(e, "inertia")
	if i == nil {
		p.fail(e, "<inertia>: missing (required)")
		return in
	}
	for n, name := range []string{"ixx", "ixy", "ixz", "iyy", "iyz", "izz"} {
		in.Inertia[n] = p.float(i, name, true, 0)
	}
	if p.err == nil && !(in.Inertia[0] > 0 && in.Inertia[3] > 0 && in.Inertia[5] > 0) {
		p.fail(i, "ixx, iyy and izz must be > 0, got %v, %v, %v", in.Inertia[0], in.Inertia[3], in.Inertia[5])
	}
	return in
}

// collision reads a <collision>; ok is false for one the model leaves out (a note says why).
func (p *parser) collision(e *element) (Collision, bool) {
	c := Collision{Name: e.attrs["name"], Line: e.line, Origin: p.origin(e)}
	g := p.only(e, "geometry")
	if g == nil {
		p.fail(e, "<geometry>: missing (required)")
		return c, false
	}
	if len(g.kids) != 1 {
		p.fail(g, "want exactly one shape (box, sphere, cylinder or mesh), got %d elements", len(g.kids))
		return c, false
	}
	s := g.kids[0]
	positive := func(name string, x float64) {
		if p.err == nil && !(x > 0) {
			p.fail(s, "attribute %s: must be > 0, got %v", name, x)
		}
	}
	switch s.name {
	case "box":
		c.Geometry.Kind = Box
		copy(c.Geometry.Size[:], p.floats(s, "size", 3, true, []float64{0, 0, 0}))
		for _, x := range c.Geometry.Size {
			positive("size", x)
		}
	case "sphere":
		c.Geometry.Kind = Sphere
		c.Geometry.Radius = p.float(s, "radius", true, 0)
		positive("radius", c.Geometry.Radius)
	case "cylinder":
		c.Geometry.Kind = Cylinder
		c.Geometry.Radius = p.float(s, "radius", true, 0)
		c.Geometry.Length = p.float(s, "length", true, 0)
		positive("radius", c.Geometry.Radius)
		positive("length", c.Geometry.Length)
	case "mesh":
		c.Geometry.Kind = Mesh
		copy(c.Geometry.Scale[:], p.floats(s, "scale", 3, false, []float64{1, 1, 1}))
		name := p.attr(s, "filename")
		if p.err != nil {
			return c, false
		}
		ext := strings.ToLower(filepath.Ext(name))
		if ext != ".stl" && ext != ".obj" {
			p.note(s, fmt.Sprintf("mesh %q: only STL and OBJ meshes are read; this collision element is left out", name))
			return c, false
		}
		path, err := p.resolve(name)
		if err != nil {
			p.fail(s, "attribute filename: %v", err)
			return c, false
		}
		c.Geometry.Mesh = path
	default:
		p.fail(s, "unknown shape (want box, sphere, cylinder or mesh)")
		return c, false
	}
	return c, p.err == nil
}

// resolve finds a mesh file: package://PKG/REST against the URDF's folder (REST in it, PKG/REST in
// it, or REST in the nearest folder above it named PKG, as a ROS package lays out urdf/ beside
// meshes/), file:// as an absolute path, and a plain name relative to the URDF's folder.
func (p *parser) resolve(name string) (string, error) {
	var tries []string
	switch {
	case strings.HasPrefix(name, "package://"):
		pkg, rest, ok := strings.Cut(strings.TrimPrefix(name, "package://"), "/")
		if !ok || pkg == "" || rest == "" {
			return "", fmt.Errorf("%q: want package://PACKAGE/PATH", name)
		}
		rest = filepath.FromSlash(rest)
		tries = append(tries, filepath.Join(p.dir, rest), filepath.Join(p.dir, pkg, rest))
		for d := p.dir; ; d = filepath.Dir(d) {
			abs, err := filepath.Abs(d)
			if err == nil && filepath.Base(abs) == pkg {
				tries = append(tries, filepath.Join(d, rest))
			}
			if up := filepath.Dir(d); up == d || err != nil || abs == "/" {
				break
			}
		}
	case strings.HasPrefix(name, "file://"):
		tries = append(tries, strings.TrimPrefix(name, "file://"))
	default:
		tries = append(tries, filepath.Join(p.dir, filepath.FromSlash(name)))
	}
	for _, t := range tries {
		if st, err := os.Stat(t); err == nil && st.Mode().IsRegular() {
			return t, nil
		}
	}
	return "", fmt.Errorf("%q: no such file (looked for %s)", name, strings.Join(tries, ", "))
}

func (p *parser) joint(e *element) {
	j := Joint{Name: p.attr(e, "name"), Line: e.line, Axis: [3]float64{1, 0, 0}}
	typ := p.attr(e, "type")
	if p.err != nil {
		return
	}
	switch typ {
	case "revolute":
		j.Type = Revolute
	case "continuous":
		j.Type = Continuous
	case "prismatic":
		j.Type = Prismatic
	case "fixed":
		j.Type = Fixed
	case "floating":
		j.Type = Floating
	case "planar":
		p.fail(e, "attribute type: planar joints are not supported (a body held to a plane has no Tumble joint)")
		return
	default:
		p.fail(e, "attribute type: unknown joint type %q (want revolute, continuous, prismatic, fixed or floating)", typ)
		return
	}
	j.Origin = p.origin(e)
	for _, link := range []struct {
		name string
		to   *string
	}{{"parent", &j.Parent}, {"child", &j.Child}} {
		k := p.only(e, link.name)
		if k == nil {
			p.fail(e, "<%s>: missing (required)", link.name)
			return
		}
		*link.to = p.attr(k, "link")
	}
	if a := p.only(e, "axis"); a != nil {
		copy(j.Axis[:], p.floats(a, "xyz", 3, true, []float64{1, 0, 0}))
		n := math.Sqrt(j.Axis[0]*j.Axis[0] + j.Axis[1]*j.Axis[1] + j.Axis[2]*j.Axis[2])
		if p.err == nil && !(n > 1e-9) {
			p.fail(a, "attribute xyz: the axis must not be zero")
		} else if n > 0 {
			j.Axis = [3]float64{j.Axis[0] / n, j.Axis[1] / n, j.Axis[2] / n}
		}
	}
	if l := p.only(e, "limit"); l != nil {
		lim := &Limit{Effort: p.float(l, "effort", true, 0), Velocity: p.float(l, "velocity", true, 0)}
		lim.Lower, lim.Upper = p.float(l, "lower", false, 0), p.float(l, "upper", false, 0)
		switch {
		case p.err != nil:
		case lim.Effort < 0 || lim.Velocity < 0:
			p.fail(l, "effort and velocity must be >= 0, got %v and %v", lim.Effort, lim.Velocity)
		case (j.Type == Revolute || j.Type == Prismatic) && lim.Lower > lim.Upper:
			p.fail(l, "lower must be <= upper, got %v > %v", lim.Lower, lim.Upper)
		}
		j.Limit = lim
	} else if j.Type == Revolute || j.Type == Prismatic {
		p.fail(e, "<limit>: missing (required for a %s joint)", typ)
	}
	if d := p.only(e, "dynamics"); d != nil {
		j.Damping, j.Friction = p.float(d, "damping", false, 0), p.float(d, "friction", false, 0)
	}
	for _, k := range e.kids {
		switch k.name {
		case "origin", "parent", "child", "axis", "limit", "dynamics":
		case "mimic":
			p.note(k, "joint mimicry is not read: the joint moves on its own")
		case "safety_controller":
			p.note(k, "safety controllers are not read (the limits hold)")
		case "calibration":
			p.note(k, "calibration is not read")
		default:
			p.note(k, "unknown element in a joint, not read")
		}
	}
	p.r.Joints = append(p.r.Joints, j)
}

// check makes the links a tree: names unique, joints naming links that exist, each link the child of
// at most one joint, no joint its own ancestor, and one root.
func (p *parser) check(root *element) {
	r := p.r
	links := map[string]int{}
	for i, l := range r.Links {
		if _, dup := links[l.Name]; dup {
			p.err = &Error{File: p.file, Line: l.Line, Element: fmt.Sprintf("<link name=%q>", l.Name), Problem: "a second link of this name"}
			return
		}
		links[l.Name] = i
	}
	parent := map[string]string{}
	names := map[string]bool{}
	for _, j := range r.Joints {
		at := func(problem string, args ...any) {
			p.err = &Error{File: p.file, Line: j.Line, Element: fmt.Sprintf("<joint name=%q>", j.Name), Problem: fmt.Sprintf(problem, args...)}
		}
		_, pok := links[j.Parent]
		_, cok := links[j.Child]
		switch {
		case names[j.Name]:
			at("a second joint of this name")
		case !pok:
			at("parent link %q: no such link", j.Parent)
		case !cok:
			at("child link %q: no such link", j.Child)
		case j.Parent == j.Child:
			at("the link %q is its own parent", j.Child)
		case parent[j.Child] != "":
			at("link %q is already the child of another joint", j.Child)
		}
		if p.err != nil {
			return
		}
		names[j.Name] = true
		parent[j.Child] = j.Parent
	}
	for _, j := range r.Joints {
		seen := map[string]bool{}
		for l := j.Child; l != ""; l = parent[l] {
			if seen[l] {
				p.err = &Error{File: p.file, Line: j.Line, Element: fmt.Sprintf("<joint name=%q>", j.Name),
					Problem: fmt.Sprintf("the joints make a loop through link %q (URDF is a tree)", l)}
				return
			}
			seen[l] = true
		}
	}
	var roots []string
	for _, l := range r.Links {
		if parent[l.Name] == "" {
			roots = append(roots, l.Name)
		}
	}
	switch {
	case len(r.Links) == 0:
		p.fail(root, "no <link>")
	case len(roots) != 1:
		p.fail(root, "the links must make one tree, got %d roots (%s)", len(roots), strings.Join(roots, ", "))
	}
}

// Root returns the name of the link no joint has as its child.
func (r *Robot) Root() string {
	child := map[string]bool{}
	for _, j := range r.Joints {
		child[j.Child] = true
	}
	for _, l := range r.Links {
		if !child[l.Name] {
			return l.Name
		}
	}
	return ""
}

// Grounded reports whether link is fixed to the world: joined by a fixed joint to the root link
// named "world" (the ROS convention for a robot bolted down), as a fixed base is.
func (r *Robot) Grounded(link string) bool {
	if r.Root() != "world" {
		return false
	}
	for _, j := range r.Joints {
		if j.Child == link {
			return j.Parent == "world" && j.Type == Fixed
		}
	}
	return false
}
