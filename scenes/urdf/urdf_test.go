package urdf

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tumble/scenes"
)

func near3(a, b [3]float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// The test arm reads whole: its links with their inertia and collision shapes (a cylinder, a box and
// a sphere on one link, an STL mesh found through package://), its joints with their types, origins,
// normalised axes, limits (effort the motor's force limit) and dynamics, its fixed base, and one note
// for each element it leaves out.
func TestLoadReadsTheTestArm(t *testing.T) {
	r, err := Load("testdata/arm_description/urdf/arm.urdf")
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "arm" || len(r.Links) != 7 || len(r.Joints) != 6 {
		t.Fatalf("robot %q: %d links, %d joints", r.Name, len(r.Links), len(r.Joints))
	}
	link := map[string]Link{}
	for _, l := range r.Links {
		link[l.Name] = l
	}
	up := link["upper"]
	if up.Inertial == nil || up.Inertial.Mass != 2 || up.Inertial.Origin.XYZ != [3]float64{0, 0, 0.25} ||
		up.Inertial.Inertia != [6]float64{0.042, 0, 0, 0.042, 0, 0.0025} {
		t.Errorf("upper's inertial: %+v", up.Inertial)
	}
	if len(up.Collisions) != 2 || up.Collisions[0].Geometry.Kind != Box || up.Collisions[0].Geometry.Size != [3]float64{0.1, 0.1, 0.5} ||
		up.Collisions[1].Geometry.Kind != Sphere || up.Collisions[1].Geometry.Radius != 0.06 || up.Collisions[1].Origin.XYZ[2] != 0.5 {
		t.Errorf("upper's collisions: %+v", up.Collisions)
	}
	if c := link["base"].Collisions; len(c) != 1 || c[0].Name != "base_plate" || c[0].Geometry.Kind != Cylinder ||
		c[0].Geometry.Radius != 0.2 || c[0].Geometry.Length != 0.1 {
		t.Errorf("base's collisions: %+v", c)
	}
	if link["world"].Inertial != nil || len(link["world"].Collisions) != 0 {
		t.Errorf("world link: %+v", link["world"])
	}
	f := link["finger"].Collisions
	want, _ := filepath.Abs("testdata/arm_description/meshes/finger.stl")
	got, _ := filepath.Abs(f[0].Geometry.Mesh)
	if len(f) != 1 || f[0].Geometry.Kind != Mesh || got != want || f[0].Geometry.Scale != [3]float64{2, 2, 2} {
		t.Errorf("finger's mesh: %+v (want %s)", f, want)
	}
	if len(link["hand"].Collisions) != 0 {
		t.Errorf("hand's .dae mesh read: %+v", link["hand"].Collisions)
	}
	joint := map[string]Joint{}
	for _, j := range r.Joints {
		joint[j.Name] = j
	}
	sh := joint["shoulder"]
	if sh.Type != Revolute || sh.Parent != "base" || sh.Child != "upper" || sh.Axis != [3]float64{0, 0, 1} ||
		sh.Limit == nil || *sh.Limit != (Limit{-1.57, 1.57, 40, 2}) || sh.Damping != 0.5 || sh.Friction != 0.1 || sh.Line != 23 {
		t.Errorf("shoulder: %+v %+v", sh, sh.Limit)
	}
	if j := joint["wrist"]; j.Type != Continuous || j.Limit != nil {
		t.Errorf("wrist: %+v", j)
	}
	if j := joint["slider"]; j.Type != Prismatic || j.Axis != [3]float64{1, 0, 0} || j.Limit.Upper != 0.04 {
		t.Errorf("slider: %+v", j)
	}
	if j := joint["loose"]; j.Type != Floating || j.Parent != "world" {
		t.Errorf("loose: %+v", j)
	}
	if r.Root() != "world" || !r.Grounded("base") || r.Grounded("ball") || r.Grounded("upper") {
		t.Errorf("root %q, base grounded %v, ball %v", r.Root(), r.Grounded("base"), r.Grounded("ball"))
	}
	// One line for each element left out, naming it and its line: the material, the base's visual,
	// the hand's DAE mesh, the wrist's mimic, the transmission.
	for _, want := range []string{`:6: <material name="grey">`, `:18: <visual>`, `:76: <mesh>: mesh "package://arm_description/meshes/hand.dae"`,
		`:68: <mimic>`, `:106: <transmission name="shoulder_trans">`} {
		found := false
		for _, n := range r.Notes {
			found = found || strings.Contains(n, want)
		}
		if !found {
			t.Errorf("no note %q in %q", want, r.Notes)
		}
	}
	if len(r.Notes) != 5 {
		t.Errorf("%d notes, want 5: %q", len(r.Notes), r.Notes)
	}
}

// Frames at zero joint positions compose the joints' origins: the elbow sits 0.55 m above the base's
// 0.05 m, turned 90 degrees about y, so the forearm's +z points along the world's +x, and the wrist
// 0.4 m along it. Mapped to Tumble's y-up world, heights go to y and URDF's y to -z.
func TestFramesComposeTheOriginsAndMapToYUp(t *testing.T) {
	r, err := Load("testdata/arm_description/urdf/arm.urdf")
	if err != nil {
		t.Fatal(err)
	}
	fr := r.Frames()
	if p := fr["fore"].Pos; !near3(p, [3]float64{0, 0, 0.6}, 1e-12) {
		t.Errorf("fore at %v, want (0, 0, 0.6)", p)
	}
	if p := fr["hand"].Pos; !near3(p, [3]float64{0.4, 0, 0.6}, 1e-12) {
		t.Errorf("hand at %v, want (0.4, 0, 0.6)", p)
	}
	if z := fr["fore"].Rot.Rotate([3]float64{0, 0, 1}); !near3(z, [3]float64{1, 0, 0}, 1e-12) {
		t.Errorf("fore's z along %v, want +x", z)
	}
	y := YUpFrame(fr["hand"])
	if !near3(y.Pos, [3]float64{0.4, 0.6, 0}, 1e-12) {
		t.Errorf("hand in y-up at %v, want (0.4, 0.6, 0)", y.Pos)
	}
	// The hand's own z (its wrist axis, along URDF's +x) is still +x in the y-up world; the upper
	// arm's z (URDF up) is +y there.
	if a := y.Rot.Rotate([3]float64{0, 0, 1}); !near3(a, [3]float64{1, 0, 0}, 1e-12) {
		t.Errorf("hand's z in y-up along %v, want +x", a)
	}
	if a := YUpFrame(fr["upper"]).Rot.Rotate([3]float64{0, 0, 1}); !near3(a, [3]float64{0, 1, 0}, 1e-12) {
		t.Errorf("upper's z in y-up along %v, want +y", a)
	}
	if v := YUp([3]float64{0, 1, 0}); v != [3]float64{0, 0, -1} {
		t.Errorf("URDF's +y (left) maps to %v, want -z", v)
	}
}

// RPY is roll about x, then pitch about y, then yaw about z, all about the fixed axes.
func TestRPYIsFixedAxisRollPitchYaw(t *testing.T) {
	q := RPY([3]float64{math.Pi / 2, 0, math.Pi / 2})
	// Roll takes y to z; yaw then leaves z: y ends on z. x: roll keeps it, yaw takes it to y.
	if v := q.Rotate([3]float64{0, 1, 0}); !near3(v, [3]float64{0, 0, 1}, 1e-12) {
		t.Errorf("y went to %v, want z", v)
	}
	if v := q.Rotate([3]float64{1, 0, 0}); !near3(v, [3]float64{0, 1, 0}, 1e-12) {
		t.Errorf("x went to %v, want y", v)
	}
}

// Bad files are refused with the file, the element and its line.
func TestParseRefusesBadFilesNamingTheElementAndLine(t *testing.T) {
	for _, c := range []struct{ name, xml, want string }{
		{"malformed", "<robot name=\"r\">\n<link name=\"a\">\n</robot>", "bad.urdf:3: malformed XML"},
		{"not a robot", "<model/>", "bad.urdf:1: <model>: the document's element must be <robot>"},
		{"link without name", "<robot>\n  <link/>\n</robot>", "bad.urdf:2: <link>: attribute name: missing"},
		{"bad number", "<robot>\n<link name=\"a\">\n<inertial><mass value=\"heavy\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>\n</link>\n</robot>",
			"bad.urdf:3: <mass>: attribute value: \"heavy\" is not a finite number"},
		{"zero mass", "<robot>\n<link name=\"a\">\n<inertial>\n<mass value=\"0\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>\n</link>\n</robot>",
			"bad.urdf:4: <mass>: attribute value: the mass must be > 0"},
		{"unknown joint type", "<robot>\n<link name=\"a\"/><link name=\"b\"/>\n<joint name=\"j\" type=\"screw\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>",
			"bad.urdf:3: <joint name=\"j\">: attribute type: unknown joint type \"screw\""},
		{"planar", "<robot>\n<link name=\"a\"/><link name=\"b\"/>\n<joint name=\"j\" type=\"planar\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>",
			"bad.urdf:3: <joint name=\"j\">: attribute type: planar joints are not supported"},
		{"revolute without limit", "<robot>\n<link name=\"a\"/><link name=\"b\"/>\n<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>",
			"bad.urdf:3: <joint name=\"j\">: <limit>: missing (required for a revolute joint)"},
		{"limits reversed", "<robot>\n<link name=\"a\"/><link name=\"b\"/>\n<joint name=\"j\" type=\"prismatic\"><parent link=\"a\"/><child link=\"b\"/>\n<limit lower=\"1\" upper=\"0\" effort=\"1\" velocity=\"1\"/></joint>\n</robot>",
			"bad.urdf:4: <limit>: lower must be <= upper"},
		{"unknown parent", "<robot>\n<link name=\"a\"/><link name=\"b\"/>\n<joint name=\"j\" type=\"fixed\"><parent link=\"c\"/><child link=\"b\"/></joint>\n</robot>",
			"bad.urdf:3: <joint name=\"j\">: parent link \"c\": no such link"},
		{"two parents", "<robot>\n<link name=\"a\"/><link name=\"b\"/><link name=\"c\"/>\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"c\"/></joint>\n<joint name=\"k\" type=\"fixed\"><parent link=\"b\"/><child link=\"c\"/></joint>\n</robot>",
			"bad.urdf:4: <joint name=\"k\">: link \"c\" is already the child of another joint"},
		{"loop", "<robot>\n<link name=\"a\"/><link name=\"b\"/><link name=\"r\"/>\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/></joint>\n<joint name=\"k\" type=\"fixed\"><parent link=\"b\"/><child link=\"a\"/></joint>\n</robot>",
			"bad.urdf:3: <joint name=\"j\">: the joints make a loop"},
		{"two roots", "<robot>\n<link name=\"a\"/><link name=\"b\"/>\n</robot>", "bad.urdf:1: <robot>: the links must make one tree, got 2 roots (a, b)"},
		{"duplicate link", "<robot>\n<link name=\"a\"/>\n<link name=\"a\"/>\n</robot>", "bad.urdf:3: <link name=\"a\">: a second link of this name"},
		{"missing mesh", "<robot>\n<link name=\"a\"><collision><geometry>\n<mesh filename=\"package://p/m.stl\"/></geometry></collision></link>\n</robot>",
			"bad.urdf:3: <mesh>: attribute filename: \"package://p/m.stl\": no such file"},
		{"two shapes", "<robot>\n<link name=\"a\"><collision>\n<geometry><box size=\"1 1 1\"/><sphere radius=\"1\"/></geometry></collision></link>\n</robot>",
			"bad.urdf:3: <geometry>: want exactly one shape"},
		{"box of two numbers", "<robot>\n<link name=\"a\"><collision><geometry>\n<box size=\"1 1\"/></geometry></collision></link>\n</robot>",
			"bad.urdf:3: <box>: attribute size: want 3 numbers, got \"1 1\""},
		{"zero axis", "<robot>\n<link name=\"a\"/><link name=\"b\"/>\n<joint name=\"j\" type=\"continuous\"><parent link=\"a\"/><child link=\"b\"/>\n<axis xyz=\"0 0 0\"/></joint>\n</robot>",
			"bad.urdf:4: <axis>: attribute xyz: the axis must not be zero"},
	} {
		_, err := Parse(filepath.Join(t.TempDir(), "bad.urdf"), []byte(c.xml))
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want it to hold %q", c.name, msg, c.want)
		}
	}
}

// The pointer maps to a scene: a ground plane, its base fixed to the world 0.1 m up (URDF's z is
// Tumble's y), its arm held out along x by a hinge about URDF's y (Tumble's -z) whose servo has the
// shoulder's 20 N m effort; run, the servo holds the arm's pose (the load is 1 kg at 0.3 m, 2.9 N m)
// within the servo's 1e-3 rad.
func TestPointerMapsToASceneThatHoldsItsPose(t *testing.T) {
	r, err := Load("testdata/simple/pointer.urdf")
	if err != nil {
		t.Fatal(err)
	}
	s, notes, err := r.Scene()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Bodies) != 3 || s.Bodies[0].Shape.Type != "plane" || s.Bodies[2].Name != "arm" {
		t.Fatalf("bodies %+v", s.Bodies)
	}
	if p := *s.Bodies[2].Position; !near3(p, [3]float64{0.3, 0.5, 0}, 1e-12) {
		t.Errorf("arm at %v, want (0.3, 0.5, 0)", p)
	}
	if len(s.Joints) != 2 || s.Joints[0].Type != "fixed" || s.Joints[0].BodyB != "" {
		t.Fatalf("joints %+v", s.Joints)
	}
	sh := s.Joints[1]
	if sh.Type != "hinge" || sh.BodyA != "arm" || sh.BodyB != "base" || !near3(*sh.Axis, [3]float64{0, 0, -1}, 1e-12) ||
		!near3(*sh.Anchor, [3]float64{0, 0.5, 0}, 1e-12) || sh.Motor == nil || sh.Motor.MaxForce != 20 || *sh.Motor.Target != 0 {
		t.Errorf("shoulder %+v motor %+v", sh, sh.Motor)
	}
	if len(notes) != 0 {
		t.Errorf("notes %q, want none: every element maps", notes)
	}
	w, err := s.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for range 120 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
		worst = max(worst, math.Abs(float64(w.JointCoordinate(1))))
	}
	if worst > 1e-3 {
		t.Errorf("the shoulder moved %.3g rad from its pose, want <= 1e-3", worst)
	}
	// URDF's joint position is the hinge's coordinate: +0.5 rad about URDF's +y turns the arm's +x
	// end towards URDF's -z, down, so the arm's centre sinks 0.3 sin 0.5 m.
	half := 0.5
	s.Joints[1].Motor.Target = &half
	w, err = s.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 120 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if y, want := float64(w.Bodies.Position[2][1]), 0.5-0.3*math.Sin(0.5); math.Abs(y-want) > 1e-3 {
		t.Errorf("arm's centre at y %.4f with the shoulder at +0.5 rad, want %.4f", y, want)
	}
}

// What the scene cannot hold is refused naming the element: the test arm's hand has mass but only a
// .dae mesh (left out), and an STL mesh collision element cannot be a body's shape.
func TestSceneRefusesWhatItCannotBuild(t *testing.T) {
	r, err := Load("testdata/arm_description/urdf/arm.urdf")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = r.Scene()
	if err == nil || !strings.Contains(err.Error(), `arm.urdf:70: <link name="hand">: a link with mass but no collision shape`) {
		t.Errorf("got %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flat.obj"), []byte("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = Parse(filepath.Join(dir, "mesh.urdf"), []byte(`<robot name="m"><link name="f">`+inertial+`
<collision><geometry><mesh filename="flat.obj"/></geometry></collision></link></robot>`))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = r.Scene()
	if err == nil || !strings.Contains(err.Error(), `mesh.urdf:2: <collision> of <link name="f">: mesh flat.obj: the hull of its 4 vertices: degenerate`) {
		t.Errorf("got %v", err)
	}
}

// robot wraps links and joints in a <robot> and maps it.
func robotScene(t *testing.T, body string) (*scenes.Scene, []string) {
	t.Helper()
	r, err := Parse("test.urdf", []byte(`<robot name="t">`+body+`</robot>`))
	if err != nil {
		t.Fatal(err)
	}
	s, notes, err := r.Scene()
	if err != nil {
		t.Fatal(err)
	}
	return s, notes
}

const inertial = `<inertial><mass value="2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>`

// inertialAt is inertial with its origin (the link's centre of mass) at xyz.
func inertialAt(x, y, z float64) string {
	return fmt.Sprintf(`<inertial><origin xyz="%v %v %v"/><mass value="2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>`, x, y, z)
}

// A URDF cylinder's axis is its element's z: mapped, the Tumble cylinder's axis (its part's y) points
// along that z turned to y-up, for an element rolled, pitched and yawed inside a link. Upright (no
// rotation) it is Tumble's y, and it rests on the ground at its half length.
func TestCylinderKeepsItsAxis(t *testing.T) {
	rpy := [3]float64{0.3, -0.7, 1.1}
	s, _ := robotScene(t, `<link name="c">`+inertialAt(0.1, 0.2, 0.3)+`<collision><origin xyz="0.1 0.2 0.3" rpy="0.3 -0.7 1.1"/>
		<geometry><cylinder radius="0.1" length="0.6"/></geometry></collision></link>`)
	b := s.Bodies[1]
	if len(b.Shapes) != 1 || b.Shapes[0].Shape.Type != "cylinder" || *b.Shapes[0].Shape.Radius != 0.1 || *b.Shapes[0].Shape.HalfHeight != 0.3 {
		t.Fatalf("body %+v", b)
	}
	got := Quat(*b.Rotation).Mul(Quat(*b.Shapes[0].Rotation)).Rotate([3]float64{0, 1, 0})
	if want := YUp(RPY(rpy).Rotate([3]float64{0, 0, 1})); !near3(got, want, 1e-12) {
		t.Errorf("cylinder axis %v, want %v", got, want)
	}
	if p := [3]float64(*b.Position); !near3(p, [3]float64{0.1, 0.3, -0.2}, 1e-12) {
		t.Errorf("cylinder at %v", p)
	}
	s, _ = robotScene(t, `<link name="c">`+inertialAt(0, 0, 1)+`<collision><origin xyz="0 0 1"/>
		<geometry><cylinder radius="0.1" length="0.6"/></geometry></collision></link>`)
	if q := Quat(*s.Bodies[1].Rotation).Mul(Quat(*s.Bodies[1].Shapes[0].Rotation)); !near3([3]float64{q[0], q[1], q[2]}, [3]float64{}, 1e-12) {
		t.Errorf("upright cylinder turned by %v", q)
	}
	w, err := s.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 120 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if y := float64(w.Bodies.Position[1][1]); math.Abs(y-0.3) > 0.01 {
		t.Errorf("upright cylinder's centre at y %.4f after 2 s, want 0.3 (half its length) +-0.01", y)
	}
}

// A link of several collision elements is one compound body in the link's frame: a 0.2 m cube at the
// origin and a 0.1 m radius, 0.4 m cylinder across it along URDF's x at z = 0.3. The link's 2 kg is
// shared by volume (cube 8e-3 m^3, cylinder 0.004 pi m^3); its <inertial> origin is the parts'
// volume-weighted centre zc, where the body sits, with no centerOfMass of its own. Dropped upright, it
// rests on the cube's bottom face, its centre of mass zc up.
func TestSeveralCollisionsMakeACompound(t *testing.T) {
	vb, vc := 8e-3, math.Pi*0.01*0.4
	zc := (vb*0.1 + vc*0.4) / (vb + vc)
	s, notes := robotScene(t, `<link name="c">`+inertialAt(0, 0, zc)+`
		<collision><origin xyz="0 0 0.1"/><geometry><box size="0.2 0.2 0.2"/></geometry></collision>
		<collision><origin xyz="0 0 0.4" rpy="0 1.5707963267948966 0"/><geometry><cylinder radius="0.1" length="0.4"/></geometry></collision></link>`)
	b := s.Bodies[1]
	if len(b.Shapes) != 2 || b.Shapes[0].Shape.Type != "box" || b.Shapes[1].Shape.Type != "cylinder" || *b.Mass != 2 {
		t.Fatalf("body %+v", b)
	}
	if m0, m1 := *b.Shapes[0].Mass, *b.Shapes[1].Mass; math.Abs(m0-2*vb/(vb+vc)) > 1e-12 || math.Abs(m0+m1-2) > 1e-12 {
		t.Errorf("part masses %v, %v", m0, m1)
	}
	if p := [3]float64(*b.Position); !near3(p, [3]float64{0, zc, 0}, 1e-12) || b.CenterOfMass != nil {
		t.Errorf("compound at %v, centerOfMass %v; want (0, %v, 0) and none", p, b.CenterOfMass, zc)
	}
	// The cylinder part's axis in the body (link) frame: URDF's x, which the link's frame turned to
	// y-up keeps as Tumble's x.
	world := Quat(*b.Rotation).Mul(Quat(*b.Shapes[1].Rotation))
	if a := world.Rotate([3]float64{0, 1, 0}); !near3(a, [3]float64{1, 0, 0}, 1e-12) {
		t.Errorf("cylinder part's axis %v, want x", a)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "its 2 collision elements share the link's mass by their volumes") {
		t.Errorf("notes %q", notes)
	}
	w, err := s.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 120 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	// The centre of mass rests zc above the cube's bottom face.
	if y := float64(w.Bodies.Position[1][1]); math.Abs(y-zc) > 0.01 {
		t.Errorf("compound's centre at y %.4f after 2 s, want %.4f +-0.01", y, zc)
	}
}

// finger is the test arm's STL tetrahedron scaled by 2: corners at the origin and 0.04 m along x, y
// and z, so its centre of mass is (0.01, 0.01, 0.01) and its volume 0.04^3 / 6.
const finger = `<mesh filename="package://arm_description/meshes/finger.stl" scale="2 2 2"/>`

// meshScene maps a robot written in the test arm's folder, where its meshes are found.
func meshScene(t *testing.T, body string) (*scenes.Scene, []string) {
	t.Helper()
	r, err := Parse("testdata/arm_description/urdf/t.urdf", []byte(`<robot name="t">`+body+`</robot>`))
	if err != nil {
		t.Fatal(err)
	}
	s, notes, err := r.Scene()
	if err != nil {
		t.Fatal(err)
	}
	return s, notes
}

// A moving link's mesh is the convex hull of its vertices, at the hull's place (the body at its
// <inertial> origin, here the hull's centre of mass); in a compound it is a hull part, weighted by its
// volume and centre (here again the <inertial> origin is the parts' centre).
func TestMovingMeshIsAHull(t *testing.T) {
	s, _ := meshScene(t, `<link name="f">`+inertialAt(0.01, 0.01, 1.01)+`<collision><origin xyz="0 0 1"/><geometry>`+finger+`</geometry></collision></link>`)
	b := s.Bodies[1]
	if len(b.Shapes) != 1 || b.Shapes[0].Shape.Type != "hull" || len(b.Shapes[0].Shape.Points) != 4 || b.Shapes[0].Shape.Points[1] != (scenes.Vec3{0, 0.04, 0}) {
		t.Fatalf("body %+v", b)
	}
	if p := [3]float64(*b.Position); !near3(p, [3]float64{0.01, 1.01, -0.01}, 1e-6) {
		t.Errorf("hull body at %v, want (0.01, 1.01, -0.01)", p)
	}
	vb, vt := 1e-3, 0.04*0.04*0.04/6
	k := vt / (vb + vt)
	s, _ = meshScene(t, `<link name="f">`+inertialAt(0.01*k, 0.01*k, 0.06*k)+`<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
		<collision><origin xyz="0 0 0.05"/><geometry>`+finger+`</geometry></collision></link>`)
	b = s.Bodies[1]
	if len(b.Shapes) != 2 || b.Shapes[1].Shape.Type != "hull" {
		t.Fatalf("body %+v", b)
	}
	want := [3]float64{0.01 * vt / (vb + vt), 0.06 * vt / (vb + vt), -0.01 * vt / (vb + vt)}
	if p := [3]float64(*b.Position); !near3(p, want, 1e-7) {
		t.Errorf("compound at %v, want %v", p, want)
	}
	if _, err := s.World(scenes.Options{}); err != nil {
		t.Fatal(err)
	}
}

// A link fixed to the world whose one collision element is a mesh is a static triangle mesh, with no
// <inertial> needed; its fixed joint to the world is left out, and a child hinges on it.
func TestStaticMeshLink(t *testing.T) {
	s, notes := meshScene(t, `<link name="world"/><joint name="bolt" type="fixed"><parent link="world"/><child link="rock"/>
		<origin xyz="0 0 0.5"/></joint><link name="rock"><collision><geometry>`+finger+`</geometry></collision></link>
		<joint name="pin" type="revolute"><parent link="rock"/><child link="bar"/><origin xyz="0 0 0.2"/><axis xyz="0 1 0"/>
		<limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
		<link name="bar">`+inertial+`<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>`)
	b := s.Bodies[1]
	if b.Type != "static" || b.Shape.Type != "mesh" || len(b.Shape.Vertices) != 4 || len(b.Shape.Triangles) != 4 || b.Mass != nil {
		t.Fatalf("rock %+v", b)
	}
	if p := [3]float64(*b.Position); !near3(p, [3]float64{0, 0.5, 0}, 1e-12) {
		t.Errorf("rock at %v", p)
	}
	if len(s.Joints) != 1 || s.Joints[0].BodyA != "bar" || s.Joints[0].BodyB != "rock" {
		t.Errorf("joints %+v", s.Joints)
	}
	if !strings.Contains(strings.Join(notes, "\n"), `<link name="rock">: fixed to the world: a static body`) {
		t.Errorf("notes %q", notes)
	}
	if _, err := s.World(scenes.Options{}); err != nil {
		t.Fatal(err)
	}
}

// Binary STL reads as its ASCII twin does: the same welded vertices and triangles.
func TestBinarySTLReadsAsASCII(t *testing.T) {
	ascii, err := readMesh("testdata/arm_description/meshes/finger.stl", [3]float64{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	bin := make([]byte, 84, 84+50*len(ascii.tris))
	binary.LittleEndian.PutUint32(bin[80:], uint32(len(ascii.tris)))
	for _, tri := range ascii.tris {
		rec := make([]byte, 50)
		for k, i := range tri {
			for c := range 3 {
				binary.LittleEndian.PutUint32(rec[12+12*k+4*c:], math.Float32bits(float32(ascii.verts[i][c])))
			}
		}
		bin = append(bin, rec...)
	}
	path := filepath.Join(t.TempDir(), "finger.stl")
	if err := os.WriteFile(path, bin, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readMesh(path, [3]float64{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.verts) != 4 || len(got.tris) != 4 {
		t.Fatalf("binary: %d vertices, %d triangles", len(got.verts), len(got.tris))
	}
	for i, tri := range got.tris {
		for k := range 3 {
			if !near3(got.verts[tri[k]], ascii.verts[ascii.tris[i][k]], 1e-9) {
				t.Errorf("triangle %d corner %d: %v, want %v", i, k, got.verts[tri[k]], ascii.verts[ascii.tris[i][k]])
			}
		}
	}
}
