package gpu

import (
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// The presets with a compound body (or another shape the backend does not run) are refused when the
// backend is attached, before anything is uploaded: the error names the first such body and its shape,
// and the world stays on the CPU, where it steps on.
func TestCompoundScenesAreRefusedBeforeAnythingUploads(t *testing.T) {
	for _, c := range []struct{ preset, want string }{
		{"furniture", `body "table0" is a compound: the CUDA backend runs box, sphere, capsule, plane, hull and mesh shapes`},
	} {
		s, _ := scenes.Preset(c.preset)
		w, err := s.World(scenes.Options{Solver: sim.Jacobi})
		if err != nil {
			t.Fatal(err)
		}
		b := NewEmulated()
		err = w.SetBackend(b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: SetBackend: %v, want %q", c.preset, err, c.want)
		}
		if w.Backend() != nil {
			t.Errorf("%s: the world is on %s after the refusal", c.preset, w.Backend().Name())
		}
		if cnt := counterOf(b.dev).c; cnt != (Counts{}) || b.bodies.n != 0 {
			t.Errorf("%s: the refused backend was asked for %+v and holds %d bodies", c.preset, cnt, b.bodies.n)
		}
		b.Close()
		if err := w.Step(); err != nil || w.StepCount != 1 {
			t.Errorf("%s: the CPU's step after the refusal: %v (step %d)", c.preset, err, w.StepCount)
		}
		w.Close()
	}
}

// On the emulated backend, adding a body of a shape it does not run (a cylinder, a compound) is
// refused with the body's name and its shape, and nothing is added; a body of a shape it runs (a
// hull, a sphere) is added and steps.
func TestAddingABodyOfAShapeTheBackendDoesNotRunIsRefused(t *testing.T) {
	w := sim.NewWorld(sim.Settings{Solver: sim.Jacobi, Workers: 1, Gravity: geom.Vec3{0, -9.81, 0}})
	defer w.Close()
	if _, err := w.AddBody(sim.BodyDef{Name: "ground", Type: sim.Static, Shape: geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	must(t, w.SetBackend(NewEmulated()), w.Step())
	hull, err := geom.NewHull([]geom.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBody(sim.BodyDef{Name: "tetra", Shape: geom.Shape{Kind: geom.ConvexHull, Hull: hull}, Mass: 1, Position: geom.Vec3{3, 2, 0}}); err != nil {
		t.Errorf("adding a hull: %v", err)
	}
	if _, ok := w.Find("tetra"); !ok || w.Bodies.Len() != 2 {
		t.Errorf("after adding the hull: %d bodies, tetra found %v", w.Bodies.Len(), ok)
	}
	_, err = w.AddBody(sim.BodyDef{Name: "log", Shape: geom.Shape{Kind: geom.Cylinder, Radius: 0.3, HalfHeight: 0.5}, Mass: 1, Position: geom.Vec3{0, 2, 0}})
	const wantCyl = `body "log" is a cylinder: the CUDA backend runs box, sphere, capsule, plane, hull and mesh shapes; the CPU backend runs every shape`
	if err == nil || err.Error() != wantCyl {
		t.Errorf("adding a cylinder: %v, want %q", err, wantCyl)
	}
	if _, ok := w.Find("log"); ok || w.Bodies.Len() != 2 {
		t.Errorf("after the cylinder's refusal: %d bodies, log found %v", w.Bodies.Len(), ok)
	}
	ball := geom.Shape{Kind: geom.Sphere, Radius: 0.1}
	pair, err := geom.NewCompound([]geom.Child{
		{Shape: ball, Pose: geom.Pose{P: geom.Vec3{-0.3, 0, 0}, Q: geom.Identity.Q}, Mass: 1},
		{Shape: ball, Pose: geom.Pose{P: geom.Vec3{0.3, 0, 0}, Q: geom.Identity.Q}, Mass: 1}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.AddBody(sim.BodyDef{Name: "dumbbell", Shape: geom.Shape{Kind: geom.Compound, Compound: pair}, Position: geom.Vec3{0, 2, 0}})
	const wantCompound = `body "dumbbell" is a compound: the CUDA backend runs box, sphere, capsule, plane, hull and mesh shapes; the CPU backend runs every shape`
	if err == nil || err.Error() != wantCompound || w.Bodies.Len() != 2 {
		t.Errorf("adding a compound: %v (%d bodies), want %q", err, w.Bodies.Len(), wantCompound)
	}
	if _, err := w.AddBody(sim.BodyDef{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.5}, Mass: 1, Position: geom.Vec3{0, 2, 0}}); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		must(t, w.Step())
	}
	must(t, w.Sync())
	// Free fall from rest: 2 - g t^2/2 at t = 5/60 s, within the integrator's first-order error.
	tt := 5 * float64(w.Resolved().Dt)
	if y, want := float64(w.Bodies.Position[2][1]), 2-9.81*tt*tt/2; y < want-0.003 || y > want+0.003 {
		t.Errorf("the ball at y = %.4f after 5 steps from 2, want %.4f +- 0.003 (free fall)", y, want)
	}
}

// The upload's refusal is the capabilities' own (sim.CheckShapeFor), not a second list of shapes.
func TestTheUploadRefusesWhatTheCapabilitiesLeaveOut(t *testing.T) {
	s, _ := scenes.Preset("furniture")
	w, err := s.World(scenes.Options{Solver: sim.Jacobi})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	want := sim.CheckShapesFor(capabilities, &w.Bodies)
	if want == nil {
		t.Fatal("the furniture preset has no body the CUDA backend refuses")
	}
	bb, err := uploadBodies(emulated{}, &w.Bodies)
	if err == nil {
		bb.release(emulated{})
	}
	if err == nil || err.Error() != want.Error() {
		t.Errorf("upload: %v, want %v", err, want)
	}
}

// Every pair of the shapes the backend lists (planes and meshes, which are static, only with a body
// that moves) touches on the emulator as on the CPU: the same number of contact points after one
// step, and some. A kind listed without its bounds, record and pair functions in the kernels would
// make none; the table below has every geom.Kind, so listing one is enough to test it.
func TestEveryShapeTheBackendListsTouchesEveryOtherAsOnTheCPU(t *testing.T) {
	cube := make([]geom.Vec3, 0, 8)
	for k := range 8 {
		cube = append(cube, geom.Vec3{0.4 * float32(k&1*2-1), 0.4 * float32(k>>1&1*2-1), 0.4 * float32(k>>2&1*2-1)})
	}
	hull, err := geom.NewHull(cube)
	if err != nil {
		t.Fatal(err)
	}
	floor, err := geom.NewGridMesh(2, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Each kind's shape and its half height along y (how far it reaches above its centre).
	shapes := [geom.NumKinds]struct {
		s      geom.Shape
		h      float32
		static bool
	}{
		geom.Box:        {geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.5, 0.4, 0.3}}, 0.4, false},
		geom.Sphere:     {geom.Shape{Kind: geom.Sphere, Radius: 0.5}, 0.5, false},
		geom.Capsule:    {geom.Shape{Kind: geom.Capsule, Radius: 0.3, HalfHeight: 0.4}, 0.7, false},
		geom.Plane:      {geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}, 0, true},
		geom.ConvexHull: {geom.Shape{Kind: geom.ConvexHull, Hull: hull}, 0.4, false},
		geom.TriMesh:    {geom.Shape{Kind: geom.TriMesh, Mesh: floor}, 0, true},
		geom.Cylinder:   {geom.Shape{Kind: geom.Cylinder, Radius: 0.4, HalfHeight: 0.3}, 0.3, false},
	}
	for i, k0 := range capabilities.Shapes {
		for _, k1 := range capabilities.Shapes[i:] {
			a, b := shapes[k0], shapes[k1]
			if b.static {
				a, b = b, a
			}
			if b.static {
				continue // two static bodies never touch
			}
			// b rests a little into a from above: a at the origin, b's centre 0.05 less than the sum
			// of their half heights above it.
			da := sim.BodyDef{Name: "a", Shape: a.s, Mass: 1, Friction: 0.5}
			if a.static {
				da.Type = sim.Static
			}
			db := sim.BodyDef{Name: "b", Shape: b.s, Mass: 1, Friction: 0.5, Position: geom.Vec3{0.05, a.h + b.h - 0.05, 0.02}}
			count := func(be sim.Backend) int {
				w := sim.NewWorld(sim.Settings{Solver: sim.Jacobi, Workers: 1})
				defer w.Close()
				for _, d := range []sim.BodyDef{da, db} {
					if _, err := w.AddBody(d); err != nil {
						t.Fatal(err)
					}
				}
				if be != nil {
					must(t, w.SetBackend(be))
				}
				must(t, w.Step())
				return len(w.Contacts(nil))
			}
			cpu, emu := count(nil), count(NewEmulated())
			if emu == 0 || emu != cpu {
				t.Errorf("%v on %v: %d contact points on the emulator, %d on the CPU", b.s.Kind, a.s.Kind, emu, cpu)
			}
		}
	}
}
