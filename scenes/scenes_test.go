package scenes

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// invalidCases holds one refused file per rule: the JSON path and the value the message must name.
var invalidCases = []struct {
	name, json, path, value string
}{
	{"top level not an object", `[1, 2]`, "(top level)", "[1, 2]"},
	{"unknown field", `{"gravty": [0, -9.8, 0], "bodies": []}`, "gravty", "[0, -9.8, 0]"},
	{"unknown field suggests spelling", `{"bodies": [{"shape": {"type": "box", "halfextents": [1, 1, 1]}}]}`,
		"bodies[0].shape.halfextents", "[1, 1, 1]"},
	{"duplicate key", `{"dt": 0.01, "dt": 0.02, "bodies": []}`, "dt", "0.02"},
	{"bodies not an array", `{"bodies": {}}`, "bodies", "{}"},
	{"number as string", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "mass": "2"}]}`,
		"bodies[0].mass", `"2"`},
	{"null number", `{"dt": null, "bodies": []}`, "dt", "null"},
	{"short vector", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "position": [1, 2]}]}`,
		"bodies[0].position", "[1, 2]"},
	{"string in vector", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "velocity": [1, "x", 2]}]}`,
		"bodies[0].velocity[1]", `"x"`},
	{"bool as string", `{"solver": {"friction": "yes"}, "bodies": []}`, "solver.friction", `"yes"`},
	{"unknown body type", `{"bodies": [{"type": "wobbly", "shape": {"type": "sphere", "radius": 1}}]}`,
		"bodies[0].type", `"wobbly"`},
	{"unknown shape type", `{"bodies": [{"shape": {"type": "cone", "radius": 1}}]}`, "bodies[0].shape.type", `"cone"`},
	{"unknown solver", `{"solver": {"type": "newton"}, "bodies": []}`, "solver.type", `"newton"`},
	{"direct joints under xpbd", `{"solver": {"type": "xpbd", "directJoints": true}, "bodies": []}`, "solver.directJoints", "true"},
	{"direct joints not a bool", `{"solver": {"directJoints": 1}, "bodies": []}`, "solver.directJoints", "1"},
	{"contact cache under jacobi", `{"solver": {"type": "jacobi", "contactCache": true}, "bodies": []}`, "solver.contactCache", "true"},
	{"contact cache not a bool", `{"solver": {"contactCache": "on"}, "bodies": []}`, "solver.contactCache", "\"on\""},
	{"second axis on a hinge", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1], "axisB": [0, 1, 0]}]}`,
		"joints[0].axisB", "[0, 1, 0]"},
	{"zero second axis", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "ball", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 1, 0], "swing": 0.5, "axisB": [0, 0, 0]}]}`,
		"joints[0].axisB", "[0, 0, 0]"},
	{"no relax passes", `{"solver": {"relaxIterations": 0}, "bodies": []}`, "solver.relaxIterations", "0"},
	{"fractional relax passes", `{"solver": {"relaxIterations": 1.5}, "bodies": []}`, "solver.relaxIterations", "1.5"},
	{"relax passes under xpbd", `{"solver": {"type": "xpbd", "relaxIterations": 2}, "bodies": []}`, "solver.relaxIterations", "2"},
	{"negative joint damping", `{"solver": {"type": "xpbd", "jointDamping": -1}, "bodies": []}`, "solver.jointDamping", "-1"},
	{"joint damping under pgs", `{"solver": {"jointDamping": 3}, "bodies": []}`, "solver.jointDamping", "3"},
	{"unknown broad phase", `{"broadphase": "octree", "bodies": []}`, "broadphase", `"octree"`},
	{"broad phase not a string", `{"broadphase": 2, "bodies": []}`, "broadphase", "2"},
	{"view follows no body", `{"view": {"follow": "kart"}, "bodies": [{"name": "car", "shape": {"type": "sphere", "radius": 1}}]}`,
		"view.follow", `"kart"`},
	{"view follow not a string", `{"view": {"follow": 1}, "bodies": []}`, "view.follow", "1"},
	{"view follow empty", `{"view": {"follow": ""}, "bodies": []}`, "view.follow", `""`},
	{"unknown view field", `{"view": {"eye": [0, 1, 2]}, "bodies": []}`, "view.eye", "[0, 1, 2]"},
	{"view not an object", `{"view": "chassis", "bodies": []}`, "view", `"chassis"`},
	{"unknown joint type", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "rope", "bodyA": "a", "anchor": [0, 0, 0]}]}`, "joints[0].type", `"rope"`},
	{"empty name", `{"bodies": [{"name": "", "shape": {"type": "sphere", "radius": 1}}]}`, "bodies[0].name", `""`},
	{"missing shape", `{"bodies": [{"name": "a"}]}`, "bodies[0].shape", ""},
	{"missing shape type", `{"bodies": [{"shape": {"radius": 1}}]}`, "bodies[0].shape.type", ""},
	{"missing half extents", `{"bodies": [{"shape": {"type": "box"}}]}`, "bodies[0].shape.halfExtents", ""},
	{"missing radius", `{"bodies": [{"shape": {"type": "capsule", "halfHeight": 1}}]}`, "bodies[0].shape.radius", ""},
	{"missing cylinder half height", `{"bodies": [{"shape": {"type": "cylinder", "radius": 0.5}}]}`, "bodies[0].shape.halfHeight", ""},
	{"cylinder radius zero", `{"bodies": [{"shape": {"type": "cylinder", "radius": 0, "halfHeight": 1}}]}`, "bodies[0].shape.radius", "0"},
	{"cylinder with half extents", `{"bodies": [{"shape": {"type": "cylinder", "radius": 1, "halfHeight": 1, "halfExtents": [1, 1, 1]}}]}`,
		"bodies[0].shape.halfExtents", "[1, 1, 1]"},
	{"missing plane normal", `{"bodies": [{"type": "static", "shape": {"type": "plane"}}]}`, "bodies[0].shape.normal", ""},
	{"field of another shape", `{"bodies": [{"shape": {"type": "box", "halfExtents": [1, 1, 1], "radius": 2}}]}`,
		"bodies[0].shape.radius", "2"},
	{"missing joint type", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"bodyA": "a", "anchor": [0, 0, 0]}]}`, "joints[0].type", ""},
	{"missing bodyA", `{"bodies": [], "joints": [{"type": "ball", "anchor": [0, 0, 0]}]}`, "joints[0].bodyA", ""},
	{"missing anchor", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "ball", "bodyA": "a"}]}`, "joints[0].anchor", ""},
	{"missing hinge axis", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0]}]}`, "joints[0].axis", ""},
	{"missing motor speed", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1], "motor": {"maxForce": 1}}]}`,
		"joints[0].motor.speed", ""},
	{"missing servo target", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1], "motor": {"mode": "position", "maxForce": 1}}]}`,
		"joints[0].motor.target", ""},
	{"servo target not a number", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1], "motor": {"mode": "position", "target": "up", "maxForce": 1}}]}`,
		"joints[0].motor.target", `"up"`},
	{"overflowing number", `{"bodies": [{"shape": {"type": "sphere", "radius": 1e999}}]}`, "bodies[0].shape.radius", "1e999"},
	{"gravity absurd", `{"gravity": [0, -98100, 0], "bodies": []}`, "gravity[1]", "-98100"},
	{"dt zero", `{"dt": 0, "bodies": []}`, "dt", "0"},
	{"dt negative", `{"dt": -0.01, "bodies": []}`, "dt", "-0.01"},
	{"dt absurd", `{"dt": 5, "bodies": []}`, "dt", "5"},
	{"iterations zero", `{"solver": {"iterations": 0}, "bodies": []}`, "solver.iterations", "0"},
	{"iterations fractional", `{"solver": {"iterations": 2.5}, "bodies": []}`, "solver.iterations", "2.5"},
	{"iterations huge", `{"solver": {"iterations": 1e12}, "bodies": []}`, "solver.iterations", "1e12"},
	{"substeps huge", `{"solver": {"substeps": 1000}, "bodies": []}`, "solver.substeps", "1000"},
	{"contact hertz zero", `{"solver": {"contactHertz": 0}, "bodies": []}`, "solver.contactHertz", "0"},
	{"half extent zero", `{"bodies": [
		{"shape": {"type": "sphere", "radius": 1}}, {"shape": {"type": "sphere", "radius": 1}},
		{"shape": {"type": "sphere", "radius": 1}}, {"shape": {"type": "box", "halfExtents": [1, 0, 1]}}]}`,
		"bodies[3].shape.halfExtents[1]", "0"},
	{"radius negative", `{"bodies": [{"shape": {"type": "sphere", "radius": -1}}]}`, "bodies[0].shape.radius", "-1"},
	{"size tiny", `{"bodies": [{"shape": {"type": "capsule", "radius": 1, "halfHeight": 1e-9}}]}`,
		"bodies[0].shape.halfHeight", "1e-9"},
	{"size absurd", `{"bodies": [{"shape": {"type": "sphere", "radius": 1e7}}]}`, "bodies[0].shape.radius", "10000000"},
	{"mass zero", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "mass": 0}]}`, "bodies[0].mass", "0"},
	{"density negative", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "density": -5}]}`, "bodies[0].density", "-5"},
	{"mass and density", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "mass": 1, "density": 1000}]}`,
		"bodies[0].density", "1000"},
	{"friction negative", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "friction": -0.1}]}`,
		"bodies[0].friction", "-0.1"},
	{"restitution above one", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "restitution": 1.5}]}`,
		"bodies[0].restitution", "1.5"},
	{"rolling resistance negative", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "rollingResistance": -0.1}]}`,
		"bodies[0].rollingResistance", "-0.1"},
	{"spinning resistance too large", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "spinningResistance": 20}]}`,
		"bodies[0].spinningResistance", "20"},
	{"rolling resistance a string", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "rollingResistance": "0.1"}]}`,
		"bodies[0].rollingResistance", `"0.1"`},
	{"position absurd", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 1e9]}]}`,
		"bodies[0].position[2]", "1000000000"},
	{"velocity absurd", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "velocity": [0, 5000, 0]}]}`,
		"bodies[0].velocity[1]", "5000"},
	{"rotation not unit", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "rotation": [0, 0, 0, 2]}]}`,
		"bodies[0].rotation", "[0, 0, 0, 2]"},
	{"rotation zero", `{"bodies": [{"shape": {"type": "sphere", "radius": 1}, "rotation": [0, 0, 0, 0]}]}`,
		"bodies[0].rotation", "[0, 0, 0, 0]"},
	{"duplicate name", `{"bodies": [{"name": "cube", "shape": {"type": "sphere", "radius": 1}},
		{"name": "cube", "shape": {"type": "box", "halfExtents": [1, 1, 1]}}]}`, "bodies[1].name", `"cube"`},
	{"name clashes with a default name", `{"bodies": [{"name": "body1", "shape": {"type": "sphere", "radius": 1}},
		{"shape": {"type": "sphere", "radius": 1}}]}`, "bodies[1].name", `"body1"`},
	{"plane on dynamic body", `{"bodies": [{"shape": {"type": "plane", "normal": [0, 1, 0]}}]}`, "bodies[0].type", `"dynamic"`},
	{"plane on kinematic body", `{"bodies": [{"type": "kinematic", "shape": {"type": "plane", "normal": [0, 1, 0]}}]}`,
		"bodies[0].type", `"kinematic"`},
	{"plane normal zero", `{"bodies": [{"type": "static", "shape": {"type": "plane", "normal": [0, 0, 0]}}]}`,
		"bodies[0].shape.normal", "[0, 0, 0]"},
	{"joint names missing body", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "ball", "bodyA": "a", "bodyB": "ghost", "anchor": [0, 0, 0]}]}`, "joints[0].bodyB", `"ghost"`},
	{"joint bodyA missing body", `{"bodies": [], "joints": [{"type": "ball", "bodyA": "ghost", "anchor": [0, 0, 0]}]}`,
		"joints[0].bodyA", `"ghost"`},
	{"joint to itself", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "fixed", "bodyA": "a", "bodyB": "a", "anchor": [0, 0, 0]}]}`, "joints[0].bodyB", `"a"`},
	{"joint without dynamic body", `{"bodies": [{"name": "g", "type": "static", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "ball", "bodyA": "g", "anchor": [0, 0, 0]}]}`, "joints[0].bodyA", `"g"`},
	{"limits reversed", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1], "limits": [1, -1]}]}`,
		"joints[0].limits", "[1, -1]"},
	{"swing on hinge", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1], "swing": 0.5}]}`, "joints[0].swing", ""},
	{"ball swing without axis", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "ball", "bodyA": "a", "anchor": [0, 0, 0], "swing": 0.5}]}`, "joints[0].axis", ""},
	{"ball axis without swing or twist", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "ball", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 1, 0]}]}`, "joints[0].axis", "[0, 1, 0]"},
	{"twist lo > hi", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "ball", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 1, 0], "twist": [0.5, -0.5]}]}`, "joints[0].twist", "[0.5, -0.5]"},
	{"zero break force", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "fixed", "bodyA": "a", "anchor": [0, 0, 0], "breakForce": 0}]}`, "joints[0].breakForce", "0"},
	{"negative joint friction", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1], "friction": -0.5}]}`, "joints[0].friction", "-0.5"},
	{"infinite joint friction", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "ball", "bodyA": "a", "anchor": [0, 0, 0], "friction": 1e999}]}`, "joints[0].friction", ""},
	{"friction on a fixed joint", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "fixed", "bodyA": "a", "anchor": [0, 0, 0], "friction": 1}]}`, "joints[0].friction", "1"},
	{"limits on ball joint", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "ball", "bodyA": "a", "anchor": [0, 0, 0], "limits": [-1, 1]}]}`, "joints[0].limits", "[-1, 1]"},
	{"axis zero", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "piston", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 0]}]}`, "joints[0].axis", "[0, 0, 0]"},
	{"unknown motor mode", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1], "motor": {"mode": "angle", "speed": 1, "maxForce": 1}}]}`,
		"joints[0].motor.mode", `"angle"`},
	{"target on a speed motor", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1], "motor": {"speed": 1, "target": 1, "maxForce": 1}}]}`,
		"joints[0].motor.target", "1"},
	{"hinge servo target past pi", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1], "motor": {"mode": "position", "target": 3.5, "maxForce": 1}}]}`,
		"joints[0].motor.target", "3.5"},
	{"motor without force", `{"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
		"joints": [{"type": "hinge", "bodyA": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1], "motor": {"speed": 1, "maxForce": 0}}]}`,
		"joints[0].motor.maxForce", "0"},
}

func TestParseRefusesEachInvalidCaseNamingPathAndValue(t *testing.T) {
	for _, c := range invalidCases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("scene.json", []byte(c.json))
			if err == nil {
				t.Fatalf("accepted: %+v", s)
			}
			if s != nil {
				t.Errorf("returned a scene along with the error")
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.HasPrefix(msg, "scene.json: "+c.path+": ") {
				t.Errorf("message %q does not start with the file and path %q", msg, c.path)
			}
			if c.value != "" && !strings.HasSuffix(msg, ", got "+c.value) {
				t.Errorf("message %q does not end with the value %q", msg, c.value)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message has more than one line: %q", msg)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != "scene.json" {
				t.Errorf("error is not an *Error for the file: %#v", err)
			}
		})
	}
}

func TestParseGivesTheExampleMessageExactly(t *testing.T) {
	_, err := Parse("scene.json", []byte(invalidCases[findCase("half extent zero")].json))
	want := "scene.json: bodies[3].shape.halfExtents[1]: must be > 0, got 0"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

func findCase(name string) int {
	for i, c := range invalidCases {
		if c.name == name {
			return i
		}
	}
	panic("no case " + name)
}

func TestParseReportsLineAndColumnOfMalformedJSON(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{"{\n  \"bodies\": [\n    {\"shape\": }\n  ]\n}", "scene.json:3:15: malformed JSON: "},
		{"{\"bodies\": []} x", "scene.json:1:16: malformed JSON: "},
		{"{\"bodies\": [", "scene.json:1:13: malformed JSON: unexpected end"},
		{"", "scene.json:1:1: malformed JSON: unexpected end"},
		{"{\"dt\": NaN}", "scene.json:1:8: malformed JSON: "},
	} {
		_, err := Parse("scene.json", []byte(c.json))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want prefix %q", c.json, err, c.want)
		}
	}
}

func TestParseAppliesNoDefaultsToTheScene(t *testing.T) {
	s, err := Parse("s.json", []byte(`{"bodies": [{"shape": {"type": "sphere", "radius": 1}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b := s.Bodies[0]
	if s.Gravity != nil || s.Dt != nil || s.Solver != nil || b.Name != "" || b.Type != "" || b.Friction != nil ||
		b.Position != nil || b.Rotation != nil || b.Mass != nil || b.Density != nil {
		t.Errorf("absent fields were filled in: %+v", s)
	}
}

// everything is a scene that sets every field of the format, extensions included.
const everything = `{
  "name": "everything",
  "gravity": [0.5, -9.81, 0.25],
  "dt": 0.005,
  "solver": {"type": "pgs", "iterations": 12, "substeps": 3, "friction": false, "warmStart": false,
    "relax": false, "restitution": false, "contactHertz": 45.5, "dampingRatio": 2, "sleep": true,
    "contactCache": false, "directJoints": true, "relaxIterations": 3, "maxPushOut": 2.5,
    "restitutionThreshold": 0.5},
  "broadphase": "grid",
  "view": {"follow": "cube"},
  "bodies": [
    {"name": "floor", "type": "static", "shape": {"type": "plane", "normal": [0, 2, 0], "offset": -1}, "friction": 0.9},
    {"name": "lift", "type": "kinematic", "shape": {"type": "box", "halfExtents": [1, 0.1, 1]},
     "position": [0, 0.5, 5], "velocity": [0, 0.5, 0], "angularVelocity": [0, 0.1, 0]},
    {"name": "cube", "shape": {"type": "box", "halfExtents": [0.5, 0.25, 0.125]}, "position": [0, 2, 0],
     "rotation": [0, 0, 0.7071068, 0.7071068], "velocity": [1, 2, 3], "angularVelocity": [-1, -2, -3],
     "mass": 2, "friction": 0.3, "restitution": 0.7},
    {"shape": {"type": "sphere", "radius": 0.25}, "density": 500, "position": [3, 1, 0],
     "rollingResistance": 0.05, "spinningResistance": 0.125},
    {"name": "pill", "type": "dynamic", "shape": {"type": "capsule", "radius": 0.2, "halfHeight": 0.5},
     "position": [-3, 1, 0], "restitution": 0}
  ],
  "joints": [
    {"type": "ball", "bodyA": "cube", "bodyB": "body3", "anchor": [1, 1, 0]},
    {"type": "ball", "bodyA": "pill", "bodyB": "cube", "anchor": [-1, 1, 0], "axis": [1, 0, 0], "swing": 0.7,
     "twist": [-0.25, 0.5], "breakForce": 1000, "friction": 0.5},
    {"type": "hinge", "bodyA": "cube", "anchor": [0, 3, 0], "axis": [0, 0, 1], "limits": [-0.5236, 0.5236],
     "motor": {"speed": 1, "maxForce": 10}},
    {"type": "piston", "bodyA": "pill", "bodyB": "lift", "anchor": [-3, 1, 0], "axis": [1, 0, 0], "limits": [0, 2],
     "motor": {"speed": -0.5, "maxForce": 100}},
    {"type": "fixed", "bodyA": "body3", "bodyB": "floor", "anchor": [3, 1, 0]}
  ]
}`

// roundTrip saves s, parses the result and checks that nothing changed; it returns the saved text.
func roundTrip(t testing.TB, s *Scene) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Save(&buf); err != nil {
		t.Fatalf("save: %v", err)
	}
	back, err := Parse("saved.json", buf.Bytes())
	if err != nil {
		t.Fatalf("saved scene does not parse: %v\n%s", err, buf.Bytes())
	}
	// A mesh file's folder (where the scene was read from) is not part of the scene.
	for _, x := range []*Scene{s, back} {
		for i := range x.Bodies {
			x.Bodies[i].Shape.base = ""
		}
	}
	if !reflect.DeepEqual(s, back) {
		t.Fatalf("round trip changed the scene:\n%+v\n%+v", s, back)
	}
	return buf.Bytes()
}

func TestSaveRoundTripsEveryField(t *testing.T) {
	s, err := Parse("everything.json", []byte(everything))
	if err != nil {
		t.Fatal(err)
	}
	if s.Solver.DampingRatio == nil || *s.Solver.WarmStart || s.Joints[3].Motor.Speed != -0.5 || *s.Joints[1].Swing != 0.7 ||
		s.Broadphase != "grid" ||
		*s.Bodies[4].Restitution != 0 || *s.Bodies[3].RollingResistance != 0.05 || *s.Bodies[3].SpinningResistance != 0.125 {
		t.Fatalf("fields lost in parsing: %+v", s)
	}
	text := roundTrip(t, s)
	// Saving again gives the same text.
	var again bytes.Buffer
	s.Save(&again)
	if !bytes.Equal(text, again.Bytes()) {
		t.Errorf("save is not deterministic")
	}
}

func TestSaveRoundTripsEveryPreset(t *testing.T) {
	for _, name := range Names() {
		if name == "pile100k" || name == "pile1m" {
			continue // the pile's generator (gridPile) at sizes that take a minute to write and parse
		}
		s, _ := Preset(name)
		roundTrip(t, s)
	}
}

func TestSaveWritesEmptyBodiesForANilSlice(t *testing.T) {
	var buf bytes.Buffer
	(&Scene{}).Save(&buf)
	if _, err := Parse("x", buf.Bytes()); err != nil || !strings.Contains(buf.String(), `"bodies": []`) {
		t.Errorf("got %v for\n%s", err, buf.String())
	}
}
