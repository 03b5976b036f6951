package scenes

import (
	"math"
	"strings"
	"testing"

	"tumble/sim/geom"
)

var invalidCompounds = []struct{ name, json, path, value string }{
	{"shape and shapes", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "shapes": [{"shape": {"type": "sphere", "radius": 1}}]}]}`,
		"bodies[0].shape", `"sphere"`},
	{"no shapes", `{"bodies": [{"shapes": []}]}`, "bodies[0].shapes", "0 shapes"},
	{"shapes not a list", `{"bodies": [{"shapes": {"type": "box"}}]}`, "bodies[0].shapes", ""},
	{"plane in a compound", `{"bodies": [{"type": "static", "shapes": [{"shape": {"type": "plane", "normal": [0, 1, 0]}}]}]}`,
		"bodies[0].shapes[0].shape.type", `"plane"`},
	{"missing part shape", `{"bodies": [{"shapes": [{"position": [0, 1, 0]}]}]}`, "bodies[0].shapes[0].shape", ""},
	{"bad part size", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}}, {"shape": {"type": "sphere", "radius": -2}}]}]}`,
		"bodies[0].shapes[1].shape.radius", "-2"},
	{"part mass and density", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}, "mass": 2, "density": 3}]}]}`,
		"bodies[0].shapes[0].density", "3"},
	{"part rotation not unit", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}, "rotation": [0, 0, 0, 2]}]}]}`,
		"bodies[0].shapes[0].rotation", "[0, 0, 0, 2]"},
	{"part friction negative", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}, "friction": -1}]}]}`,
		"bodies[0].shapes[0].friction", "-1"},
	{"part rolling resistance negative", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}, "rollingResistance": -0.1}]}]}`,
		"bodies[0].shapes[0].rollingResistance", "-0.1"},
	{"part spinning resistance too large", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}, "spinningResistance": 11}]}]}`,
		"bodies[0].shapes[0].spinningResistance", "11"},
	{"height field in a compound", `{"bodies": [{"type": "static", "shapes": [{"shape": {"type": "heightfield", "spacing": [1, 1], "heights": [[0, 0], [0, 0]]}}]}]}`,
		"bodies[0].shapes[0].shape.type", `"heightfield"`},
	{"unknown part field", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}, "colour": 1}]}]}`,
		"bodies[0].shapes[0].colour", "1"},
	{"part position out of range", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}, "position": [1e9, 0, 0]}]}]}`,
		"bodies[0].shapes[0].position[0]", "1000000000"},
	{"inertia on a single shape", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "inertia": [1, 0, 0, 1, 0, 1]}]}`,
		"bodies[0].inertia", "[1, 0, 0, 1, 0, 1]"},
	{"inertia on a static body", `{"bodies": [{"type": "static", "shapes": [{"shape": {"type": "sphere", "radius": 1}}], "inertia": [1, 0, 0, 1, 0, 1]}]}`,
		"bodies[0].inertia", "[1, 0, 0, 1, 0, 1]"},
	{"inertia against the triangle inequality", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}}], "inertia": [1, 0, 0, 1, 0, 3]}]}`,
		"bodies[0].inertia", "[1, 0, 0, 1, 0, 3]"},
	{"inertia not positive", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}}], "inertia": [1, 2, 0, 1, 0, 1]}]}`,
		"bodies[0].inertia", "[1, 2, 0, 1, 0, 1]"},
	{"centre of mass on a single shape", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "centerOfMass": [0, 1, 0]}]}`,
		"bodies[0].centerOfMass", "[0, 1, 0]"},
	{"centre of mass on a kinematic body", `{"bodies": [{"type": "kinematic", "shapes": [{"shape": {"type": "sphere", "radius": 1}}], "centerOfMass": [0, 1, 0]}]}`,
		"bodies[0].centerOfMass", "[0, 1, 0]"},
	{"centre of mass out of range", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}}], "centerOfMass": [0, 2e5, 0]}]}`,
		"bodies[0].centerOfMass[1]", "200000"},
	{"centre of mass of two numbers", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}}], "centerOfMass": [0, 1]}]}`,
		"bodies[0].centerOfMass", ""},
	{"inertia of five numbers", `{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 1}}], "inertia": [1, 0, 0, 1, 0]}]}`,
		"bodies[0].inertia", ""},
}

// A compound given an inertia takes it: a ball of 2 kg declared as a rod along its parts' x (moments
// 0.01, 1, 1 kg m^2) turned 90 degrees about y in the body, turns that frame into its principal one,
// and its moments per kg are the declared ones over its mass.
func TestCompoundTakesAGivenInertia(t *testing.T) {
	s, err := Parse("scene.json", []byte(`{"bodies": [{"shapes": [{"shape": {"type": "sphere", "radius": 0.5}, "mass": 2}],
		"inertia": [1, 0, 0, 1, 0, 0.01], "rotation": [0, 0.7071067811865476, 0, 0.7071067811865476]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	d := s.BodyDef(0)
	c := d.Shape.Compound
	u := []float64{float64(c.UnitInertia[0]), float64(c.UnitInertia[1]), float64(c.UnitInertia[2])}
	small := 0
	for k := range 3 {
		if math.Abs(u[k]-0.005) < 1e-7 {
			small = k
		} else if math.Abs(u[k]-0.5) > 1e-6 {
			t.Fatalf("moments per kg %v, want 0.005 once and 0.5 twice", u)
		}
	}
	// The small axis in the world: the parts' z, turned 90 degrees about y, is world x.
	var e geom.Vec3
	e[small] = 1
	if a := d.Rotation.Rotate(e); math.Abs(math.Abs(float64(a[0]))-1) > 1e-5 {
		t.Errorf("the rod's axis in the world is %v, want x", a)
	}
}

// A compound given a centre of mass holds it there: a 2 kg ball of radius 0.5 at the parts' origin
// with its centre declared at (0, -1, 0), placed at (0, 3, 0), has its centre of mass at (0, 3, 0) and
// its ball 1 m above it, at (0, 4, 0); its inertia is the ball's about that point, 0.4 r^2 + 1 per kg
// across y and 0.4 r^2 along it. Given an inertia too, it takes that one.
func TestCompoundTakesAGivenCentreOfMass(t *testing.T) {
	s, err := Parse("scene.json", []byte(`{"bodies": [
	  {"position": [0, 3, 0], "centerOfMass": [0, -1, 0], "shapes": [{"shape": {"type": "sphere", "radius": 0.5}, "mass": 2}]},
	  {"centerOfMass": [0, -1, 0], "inertia": [1, 0, 0, 1, 0, 0.5], "shapes": [{"shape": {"type": "sphere", "radius": 0.5}, "mass": 2}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	d := s.BodyDef(0)
	c := d.Shape.Compound
	ball := c.ChildPose(geom.Pose{P: d.Position, Q: d.Rotation}, 0).P
	if c.Centre != (geom.Vec3{0, -1, 0}) || d.Position != (geom.Vec3{0, 3, 0}) || ball.Sub(geom.Vec3{0, 4, 0}).Len() > 1e-6 {
		t.Errorf("centre %v in the parts' frame, body at %v, ball at %v; want (0, -1, 0), (0, 3, 0), (0, 4, 0)", c.Centre, d.Position, ball)
	}
	own := 0.4 * 0.25
	if u := c.UnitInertia; math.Abs(float64(u[0])-own-1) > 1e-6 || math.Abs(float64(u[1])-own) > 1e-6 || math.Abs(float64(u[2])-own-1) > 1e-6 {
		t.Errorf("moments per kg %v, want (%v, %v, %v)", u, own+1, own, own+1)
	}
	c = s.BodyDef(1).Shape.Compound
	if u := c.UnitInertia; c.Centre != (geom.Vec3{0, -1, 0}) || math.Abs(float64(u[0])-0.5) > 1e-6 || math.Abs(float64(u[1])-0.5) > 1e-6 || math.Abs(float64(u[2])-0.25) > 1e-6 {
		t.Errorf("centre %v, moments per kg %v; want (0, -1, 0) and the declared (0.5, 0.5, 0.25)", c.Centre, u)
	}
}

func TestCompoundInputIsRefusedWithItsPath(t *testing.T) {
	for _, c := range invalidCompounds {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("scene.json", []byte(c.json))
			if err == nil {
				t.Fatalf("accepted: %+v", s)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "scene.json: "+c.path+": ") || c.value != "" && !strings.HasSuffix(msg, ", got "+c.value) {
				t.Errorf("message %q, want the path %q and the value %q", msg, c.path, c.value)
			}
		})
	}
}

// A compound's children take their mass from their own mass, their own density, or the body's
// density; a hull child sits by its own centre of mass, so a hull cube and a box child give the same
// body; the body's position is the whole's centre of mass and its material the children's default.
func TestCompoundBodyDef(t *testing.T) {
	const src = `{"bodies": [
	  {"name": "a", "density": 500, "friction": 0.7, "position": [1, 2, 3], "shapes": [
	    {"shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "position": [2, 0, 0], "friction": 0.2},
	    {"shape": {"type": "sphere", "radius": 0.5}, "mass": 10, "restitution": 0.5, "rollingResistance": 0.05},
	    {"shape": {"type": "capsule", "radius": 0.1, "halfHeight": 0.5}, "position": [0, 1, 0], "density": 100}]},
	  {"name": "b", "density": 500, "position": [1, 2, 3], "shapes": [
	    {"shape": {"type": "hull", "points": [[1.5, -0.5, -0.5], [2.5, -0.5, -0.5], [1.5, 0.5, -0.5], [2.5, 0.5, -0.5],
	      [1.5, -0.5, 0.5], [2.5, -0.5, 0.5], [1.5, 0.5, 0.5], [2.5, 0.5, 0.5]]}},
	    {"shape": {"type": "sphere", "radius": 0.5}, "mass": 10},
	    {"shape": {"type": "capsule", "radius": 0.1, "halfHeight": 0.5}, "position": [0, 1, 0], "density": 100}]}]}`
	s, err := Parse("c.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.BodyDef(0), s.BodyDef(1)
	ca, cb := a.Shape.Compound, b.Shape.Compound
	if a.Shape.Kind != geom.Compound || ca == nil || len(ca.Children) != 3 {
		t.Fatalf("body a: %+v", a.Shape)
	}
	capsule := math.Pi*0.01*1 + 4.0/3*math.Pi*0.001
	want := []float64{500, 10, 100 * capsule}
	for i, m := range want {
		if got := float64(ca.Children[i].Mass); math.Abs(got-m) > 1e-5*m {
			t.Errorf("child %d mass %v, want %v", i, got, m)
		}
	}
	if ca.Centre.Sub(cb.Centre).Len() > 1e-5 || ca.UnitInertia.Sub(cb.UnitInertia).Len() > 1e-5*ca.UnitInertia.Len() {
		t.Errorf("a box child and a hull cube child differ: centre %v / %v, inertia %v / %v", ca.Centre, cb.Centre, ca.UnitInertia, cb.UnitInertia)
	}
	total := want[0] + want[1] + want[2]
	if cx := (2 * want[0]) / total; math.Abs(float64(ca.Centre[0])-cx) > 1e-5 {
		t.Errorf("centre x %v, want %v", ca.Centre[0], cx)
	}
	if a.Position != (geom.Vec3{1, 2, 3}) || a.Density != 0 || a.Friction != 0.7 {
		t.Errorf("body a: position %v, density %v, friction %v", a.Position, a.Density, a.Friction)
	}
	body := geom.Material{Friction: 0.7, Restitution: 0}
	if m := ca.Children[0].Material.Of(body); m != (geom.Material{Friction: 0.2, Restitution: 0}) {
		t.Errorf("child 0 material %+v", m)
	}
	if m := ca.Children[1].Material.Of(body); m != (geom.Material{Friction: 0.7, Restitution: 0.5, RollingResistance: 0.05}) {
		t.Errorf("child 1 material %+v", m)
	}
	if _, err := s.World(Options{}); err != nil {
		t.Fatal(err)
	}
}

// Save writes a compound's centre of mass and inertia back as given.
func TestSaveKeepsACompoundsCentreOfMass(t *testing.T) {
	s, err := Parse("scene.json", []byte(`{"bodies": [{"name": "link", "position": [0, 3, 0], "centerOfMass": [0.125, -1, 0.5],
	  "inertia": [1, 0.1, 0, 1, 0, 0.5], "shapes": [{"shape": {"type": "sphere", "radius": 0.5}, "mass": 2}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	text := roundTrip(t, s)
	if !strings.Contains(string(text), `"centerOfMass": [0.125, -1, 0.5]`) {
		t.Errorf("saved %s", text)
	}
}
