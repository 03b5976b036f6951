package sim_test

import (
	"strings"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
)

// TestSettingsAreCheckedAndResolvedForABackendsCapabilities: CheckFor refuses a solver or sleeping a
// backend does not run, naming the backend; ResolveFor picks the backend's default solver and its
// defaults, with the contact cache off on a backend that has none; NoteFor says when a broad phase is
// not honoured. The CPU runs everything.
func TestSettingsAreCheckedAndResolvedForABackendsCapabilities(t *testing.T) {
	gpu := sim.Capabilities{Name: "the test backend", Solvers: []sim.SolverKind{sim.Jacobi},
		Broadphases: []sim.BroadphaseKind{sim.LBVH}}
	cpu := sim.CPUCapabilities()
	cases := []struct {
		set        sim.Settings
		err, note  string // substrings; "" for none
		solver     sim.SolverKind
		cpuSolver  sim.SolverKind
		cpuRefuses bool
	}{
		{set: sim.Settings{}, solver: sim.Jacobi, cpuSolver: sim.PGS},
		{set: sim.Settings{Solver: sim.XPBD}, err: "the test backend solves with jacobi; the xpbd solver runs on the CPU backend", cpuSolver: sim.XPBD},
		{set: sim.Settings{Sleep: true}, err: "the test backend does not put bodies to sleep", cpuSolver: sim.PGS},
		{set: sim.Settings{Broadphase: sim.SAP}, note: "the test backend's broad phase is its LBVH (the sap broad phase", solver: sim.Jacobi, cpuSolver: sim.PGS},
		{set: sim.Settings{Solver: 42}, err: "unknown solver", cpuRefuses: true},
	}
	for _, c := range cases {
		err := sim.CheckFor(gpu, c.set)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: CheckFor: %v, want %q", c.set, err, c.err)
		}
		if err := sim.CheckFor(cpu, c.set); (err != nil) != c.cpuRefuses {
			t.Errorf("%+v: the CPU: %v", c.set, err)
		}
		if note := sim.NoteFor(gpu, c.set); (note == "") != (c.note == "") || !strings.Contains(note, c.note) {
			t.Errorf("%+v: NoteFor: %q, want %q", c.set, note, c.note)
		}
		if sim.NoteFor(cpu, c.set) != "" {
			t.Errorf("%+v: a note on the CPU", c.set)
		}
		if c.err != "" {
			continue
		}
		if got := sim.ResolveFor(gpu, c.set); got.Solver != c.solver || got != (sim.Settings{Solver: c.solver, Broadphase: c.set.Broadphase, NoContactCache: true}).Resolve() {
			t.Errorf("%+v: ResolveFor: %+v", c.set, got)
		}
		if got := sim.ResolveFor(cpu, c.set); got != c.set.Resolve() || got.Solver != c.cpuSolver {
			t.Errorf("%+v: ResolveFor on the CPU: %+v, want %+v", c.set, got, c.set.Resolve())
		}
	}
}

// TestTheCPURunsEveryShape: CPUCapabilities lists every geom.Kind, so CheckShapesFor never refuses a
// world on the CPU.
func TestTheCPURunsEveryShape(t *testing.T) {
	c := sim.CPUCapabilities()
	if len(c.Shapes) != int(geom.NumKinds) {
		t.Errorf("the CPU lists %v, want all %d kinds", c.Shapes, geom.NumKinds)
	}
	for k := range geom.NumKinds {
		if !c.RunsShape(k) || sim.CheckShapeFor(c, "b", k) != nil {
			t.Errorf("the CPU does not run %v", k)
		}
	}
}

// shapesBackend is a backend that runs the shapes it is given (and steps nothing): the World's
// checks are what is tested.
type shapesBackend struct{ shapes []geom.Kind }

func (b *shapesBackend) Name() string { return "shapes" }
func (b *shapesBackend) Capabilities() sim.Capabilities {
	c := sim.CPUCapabilities()
	c.Name, c.Shapes = "the test backend", b.shapes
	return c
}
func (b *shapesBackend) Step(w *sim.World, _ *sim.StepReport) error { w.TakeEdits(); return nil }
func (b *shapesBackend) Pull(w *sim.World) error                    { return nil }
func (b *shapesBackend) Close()                                     {}
func (b *shapesBackend) Contacts(w *sim.World, out []sim.ContactPoint) []sim.ContactPoint {
	return out
}

// A World refuses a backend that does not run one of its bodies' shapes, naming the first such body
// and its shape and staying as it was; on a backend, it refuses to add a body of a shape the backend
// does not run and adds nothing.
func TestAWorldRefusesShapesItsBackendDoesNotRun(t *testing.T) {
	w := sim.NewWorld(sim.Settings{Workers: 1})
	defer w.Close()
	add := func(name string, s geom.Shape, typ sim.BodyType) error {
		_, err := w.AddBody(sim.BodyDef{Name: name, Shape: s, Type: typ, Mass: 1})
		return err
	}
	plane := geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}
	box := geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.5, 0.5, 0.5}}
	ball := geom.Shape{Kind: geom.Sphere, Radius: 0.5}
	for _, err := range []error{add("ground", plane, sim.Static), add("crate", box, sim.Dynamic), add("ball", ball, sim.Dynamic)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	boxes := &shapesBackend{shapes: []geom.Kind{geom.Box, geom.Plane}}
	const want = `body "ball" is a sphere: the test backend runs box and plane shapes; the CPU backend runs every shape`
	if err := sim.CheckShapesFor(boxes.Capabilities(), &w.Bodies); err == nil || err.Error() != want {
		t.Errorf("CheckShapesFor: %v, want %q", err, want)
	}
	if err := w.SetBackend(boxes); err == nil || err.Error() != want {
		t.Errorf("SetBackend: %v, want %q", err, want)
	}
	if w.Backend() != nil {
		t.Fatal("the world took the backend it refused")
	}
	if err := w.SetBackend(&shapesBackend{shapes: []geom.Kind{geom.Box}}); err == nil ||
		!strings.Contains(err.Error(), `body "ground" is a plane: the test backend runs box shapes;`) {
		t.Errorf("SetBackend on a backend of boxes alone: %v", err)
	}
	// Without the ball, the boxes' backend takes the world; then a sphere cannot be added, a box can.
	h, _ := w.Find("ball")
	if err := w.RemoveBody(h); err != nil {
		t.Fatal(err)
	}
	if err := w.SetBackend(boxes); err != nil {
		t.Fatal(err)
	}
	if err := w.Step(); err != nil {
		t.Fatal(err)
	}
	err := add("ball2", ball, sim.Dynamic)
	if want := `body "ball2" is a sphere: the test backend runs box and plane shapes`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("adding a sphere on the backend: %v, want %q", err, want)
	}
	if _, ok := w.Find("ball2"); ok || w.Bodies.Len() != 2 {
		t.Errorf("after the refusal: %d bodies, ball2 there %v", w.Bodies.Len(), ok)
	}
	if err := add("crate2", box, sim.Dynamic); err != nil || w.Bodies.Len() != 3 {
		t.Errorf("adding a box on the backend: %v, %d bodies", err, w.Bodies.Len())
	}
	// Back on the CPU, every shape is added again.
	if err := w.SetBackend(nil); err != nil {
		t.Fatal(err)
	}
	if err := add("ball2", ball, sim.Dynamic); err != nil {
		t.Errorf("adding a sphere on the CPU: %v", err)
	}
}
