package scenes

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
)

// The terrain preset comes to rest: after 12 s no body moves faster than 5 mm/s (measured 1.0e-3 m/s;
// at 8 s balls still roll across the dips at 0.2 to 1 m/s) and none has fallen through the mesh (every
// body's lowest point is above the bowl's lowest point, -0.15 m, less 2 cm). Before hull manifolds kept
// the vertices they touch, one rock rocked on a bump's peak at up to 7 cm/s for ever.
func TestTerrainSettles(t *testing.T) {
	s, _ := Preset("terrain")
	w, err := s.World(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 720; i++ {
		if err := w.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	w.Sync()
	b := &w.Bodies
	vmax, ymin := float32(0), float32(1e9)
	for i := range b.Len() {
		vmax = max(vmax, b.Velocity[i].Len())
		if b.Type[i].String() == "dynamic" {
			box := b.Shape[i].Bounds(geomPose(b.Position[i], b.Rotation[i]))
			ymin = min(ymin, box.Min[1])
		}
	}
	t.Logf("terrain after 12 s: max speed %.3g m/s, lowest point %.3g m, %d manifolds", vmax, ymin, w.Stats.Manifolds)
	if vmax > 0.005 {
		t.Errorf("max speed %.3g m/s after 12 s, want below 0.005", vmax)
	}
	if ymin < -0.17 {
		t.Errorf("a body reaches %.3g m, below the mesh", ymin)
	}
}

// Under the penalty solver the terrain keeps every body above the bowl for 1,000 steps: the auto
// springs grow with each point's effective mass, so a 197 kg hull rock landing at v overlaps the mesh
// by about v / omega (omega = sim.PenaltyOmega: 2.5 cm at 5 m/s) where springs of a fixed 1e4 N/m a
// point let it sink past its centre and the mesh's one-sided triangles let it fall through. Every
// body's centre stays above the bowl's surface under it (measured: the rock body5 rests 0.203 m above
// it, 0.208 m under PGS), and none is faster than a body rolling in the bowl (5 m/s).
func TestTerrainHoldsItsRocksUnderThePenaltySolver(t *testing.T) {
	s, _ := Preset("terrain")
	w, err := s.World(Options{Solver: sim.Penalty})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if err := w.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	w.Sync()
	b := &w.Bodies
	vmax, gap := float32(0), float32(1e9)
	for i := range b.Len() {
		if b.Type[i] != sim.Dynamic {
			continue
		}
		p := b.Position[i]
		x, z := float64(p[0]), float64(p[2])
		surface := 0.03*(x*x+z*z) + 0.15*math.Sin(1.3*x)*math.Sin(1.1*z)
		gap = min(gap, p[1]-float32(surface))
		vmax = max(vmax, b.Velocity[i].Len())
	}
	t.Logf("terrain under penalty after 1,000 steps: lowest centre %.3g m above the bowl, max speed %.3g m/s", gap, vmax)
	if gap < 0 {
		t.Errorf("a body's centre is %.3g m below the bowl", -gap)
	}
	if vmax > 5 {
		t.Errorf("a body moves at %.3g m/s", vmax)
	}
}

// Bad meshes are refused with the file, the JSON path and the value; good ones load, from an OBJ file
// relative to the scene file and inline, and round-trip through Save.
func TestMeshValidation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("quad.obj", "# a quad\nv 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nvn 0 1 0\nf 1//1 4//1 3//1 2//1\n")
	write("far.obj", "v 0 0 0\nv 1 0 0\nv 1 0 1\nf 1 2 5\n")
	write("flat.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n")
	write("junk.obj", "v 0 0 0\nv 1 0 0\nv 1 0 1\ncurv 1 2\nf 1 2 3\n")
	inline := `{"type": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]], "triangles": %s}`
	cases := []struct{ name, body, path, problem, value string }{
		{"dynamic open", `{"shape": ` + fmt.Sprintf(inline, `[[0, 2, 1]]`) + `}`, "bodies[0].shape.triangles", "a moving mesh must be closed", "1 triangles"},
		{"dynamic inside out", `{"shape": {"type": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], "triangles": [[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]]}}`, "bodies[0].shape.triangles", "inside out", "4 triangles"},
		{"index", `{"type": "static", "shape": ` + fmt.Sprintf(inline, `[[0, 2, 1], [0, 4, 2]]`) + `}`, "bodies[0].shape.triangles[1][1]", "out of range", "4"},
		{"fraction", `{"type": "static", "shape": ` + fmt.Sprintf(inline, `[[0, 2.5, 1]]`) + `}`, "bodies[0].shape.triangles[0][1]", "whole number", "2.5"},
		{"degenerate", `{"type": "static", "shape": ` + fmt.Sprintf(inline, `[[0, 2, 1], [0, 0, 1]]`) + `}`, "bodies[0].shape.triangles[1]", "zero area", "[0, 0, 1]"},
		{"empty", `{"type": "static", "shape": ` + fmt.Sprintf(inline, `[]`) + `}`, "bodies[0].shape.triangles", "no triangles", "0 triangles"},
		{"nonfinite", `{"type": "static", "shape": {"type": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [1, 0, 1e300]], "triangles": [[0, 2, 1]]}}`, "bodies[0].shape.vertices[2][2]", "", "1e+300"},
		{"both", `{"type": "static", "shape": {"type": "mesh", "file": "quad.obj", "triangles": [[0, 2, 1]]}}`, "bodies[0].shape.file", "not both", `"quad.obj"`},
		{"missing", `{"type": "static", "shape": {"type": "mesh", "file": "none.obj"}}`, "bodies[0].shape.file", "cannot read", `"none.obj"`},
		{"obj index", `{"type": "static", "shape": {"type": "mesh", "file": "far.obj"}}`, "bodies[0].shape.file", "far.obj line 4: face vertex \"5\" is out of range", `"far.obj"`},
		{"obj degenerate", `{"type": "static", "shape": {"type": "mesh", "file": "flat.obj"}}`, "bodies[0].shape.file", "zero area", `"flat.obj"`},
		{"obj junk", `{"type": "static", "shape": {"type": "mesh", "file": "junk.obj"}}`, "bodies[0].shape.file", "junk.obj line 4: unknown statement", `"junk.obj"`},
		{"too many", `{"type": "static", "shape": ` + fmt.Sprintf(inline, "["+strings.Repeat("[0, 2, 1], ", geom.MaxMeshTriangles)+"[0, 2, 1]]") + `}`, "bodies[0].shape.triangles", "too many triangles", "65537 triangles"},
		{"box with file", `{"shape": {"type": "box", "halfExtents": [1, 1, 1], "file": "quad.obj"}}`, "bodies[0].shape.file", "not a field of a box", `"quad.obj"`},
	}
	for _, c := range cases {
		file := filepath.Join(dir, "scene.json")
		_, err := Parse(file, []byte(`{"bodies": [`+c.body+`]}`))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: error %v, want an *Error", c.name, err)
			continue
		}
		if e.File != file || e.Path != c.path || !strings.Contains(e.Problem, c.problem) || e.Value != c.value {
			t.Errorf("%s: got %s | %q | %q | %q, want path %s, problem with %q, value %s", c.name, e.File, e.Path, e.Problem, e.Value, c.path, c.problem, c.value)
		}
	}
	// Good: the quad from the file (fanned into two triangles) and the same inline; both round-trip.
	src := `{"bodies": [{"name": "f", "type": "static", "shape": {"type": "mesh", "file": "quad.obj"}},` +
		`{"name": "i", "type": "static", "shape": ` + fmt.Sprintf(inline, `[[0, 2, 1], [0, 3, 2]]`) + `, "position": [0, -1, 0]},` +
		`{"name": "box", "shape": {"type": "box", "halfExtents": [0.1, 0.1, 0.1]}, "position": [0.5, 0.2, 0.5]}]}`
	s, err := Parse(filepath.Join(dir, "scene.json"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.World(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := w.Bodies.Shape[0].Mesh; m == nil || len(m.Tris) != 2 || len(w.Bodies.Shape[1].Mesh.Tris) != 2 {
		t.Fatalf("the meshes: %+v", w.Bodies.Shape[:2])
	}
	var out bytes.Buffer
	if err := s.Save(&out); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(filepath.Join(dir, "again.json"), out.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var again bytes.Buffer
	back.Save(&again)
	if again.String() != out.String() || !strings.Contains(out.String(), `"file": "quad.obj"`) {
		t.Errorf("round trip:\n%s\nthen\n%s", out.String(), again.String())
	}
	// A moving closed mesh (a tetrahedron, counter-clockwise from outside) weighs its volume times its
	// density, and falls onto the quad.
	tet := `{"type": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], "triangles": [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]}`
	ms, err := Parse(filepath.Join(dir, "tet.json"), []byte(`{"bodies": [{"shape": `+tet+`, "density": 600}]}`))
	if err != nil {
		t.Fatal(err)
	}
	mw, err := ms.World(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := mw.Bodies.Mass[0]; math.Abs(float64(m)-100) > 1e-3 || mw.Bodies.Shape[0].Kind != geom.ConvexHull {
		t.Errorf("the tetrahedron: mass %v (want 600 x 1/6 = 100), shape %v", m, mw.Bodies.Shape[0].Kind)
	}
	// The box resting on the quad (friction 0.5, 1 s) sits at its half size above it: y = 0.1 within
	// the contact's rest penetration (a few millimetres).
	for range 60 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	w.Sync()
	if y := w.Bodies.Position[2][1]; math.Abs(float64(y)-0.1) > 0.005 {
		t.Errorf("the box rests at y = %v, want 0.1", y)
	}
}
