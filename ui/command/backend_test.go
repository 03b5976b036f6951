package command

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
)

// bodyState copies every body's state and definition (under View).
func bodyState(s *Session) sim.Bodies {
	var c sim.Bodies
	s.View(func(w *sim.World) {
		b := &w.Bodies
		c = sim.Bodies{Name: append([]string(nil), b.Name...), Type: append([]sim.BodyType(nil), b.Type...),
			Position: append([]sim.Vec3(nil), b.Position...), Rotation: append([]sim.Quat(nil), b.Rotation...),
			Velocity: append([]sim.Vec3(nil), b.Velocity...), AngularVelocity: append([]sim.Vec3(nil), b.AngularVelocity...),
			Mass: append([]float32(nil), b.Mass...), Friction: append([]float32(nil), b.Friction...),
			Restitution: append([]float32(nil), b.Restitution...), Asleep: append([]bool(nil), b.Asleep...),
			RollingResistance:  append([]float32(nil), b.RollingResistance...),
			SpinningResistance: append([]float32(nil), b.SpinningResistance...)}
	})
	return c
}

// TestSwitchingToTheEmulatedBackendAndBackKeepsTheWorld: the panel's switch, CPU to the emulated CUDA
// backend and back, between steps, keeps every body's state; edits made while attached stay.
func TestSwitchingToTheEmulatedBackendAndBackKeepsTheWorld(t *testing.T) {
	s := preset(t, "pyramid")
	if err := s.Steps(30); err != nil {
		t.Fatal(err)
	}
	before := bodyState(s)
	joints := 0
	s.View(func(w *sim.World) { joints = w.NumJoints() })
	s.Do(UseBackend(BackendEmulated))
	if err := s.Apply(); err != nil {
		t.Fatalf("switch to emu: %v", err)
	}
	if s.BackendKind() != BackendEmulated || !strings.Contains(s.BackendName(), "emulated") {
		t.Fatalf("on %q (%s) after the switch", s.BackendKind(), s.BackendName())
	}
	if got := bodyState(s); !reflect.DeepEqual(got, before) {
		t.Fatal("attaching the backend changed the bodies")
	}
	s.Do(SetFrictionCoefficient(0.3))
	s.Do(UseBackend(BackendCPU))
	if err := s.Apply(); err != nil {
		t.Fatalf("switch back: %v", err)
	}
	if s.BackendKind() != BackendCPU || s.BackendName() != "cpu" {
		t.Fatalf("on %q after switching back", s.BackendKind())
	}
	after := bodyState(s)
	for i := range before.Friction {
		before.Friction[i] = 0.3
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatal("the round trip through the emulated backend changed the bodies")
	}
	s.View(func(w *sim.World) {
		if w.NumJoints() != joints || w.Backend() != nil {
			t.Errorf("%d joints (want %d), backend %v", w.NumJoints(), joints, w.Backend())
		}
	})
	if err := s.Steps(5); err != nil {
		t.Fatalf("stepping on the CPU again: %v", err)
	}
}

// TestAFailedSwitchSaysWhyAndStays: an unknown kind, and cuda in a build without it, leave the world
// on its backend with the reason in the error.
func TestAFailedSwitchSaysWhyAndStays(t *testing.T) {
	s := preset(t, "stack")
	s.Do(UseBackend(BackendEmulated))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.Do(UseBackend("vulkan"))
	if err := s.Apply(); err == nil || !strings.Contains(err.Error(), "unknown backend") {
		t.Errorf("unknown kind: %v", err)
	}
	if s.BackendKind() != BackendEmulated {
		t.Errorf("on %q after a failed switch, want emu", s.BackendKind())
	}
	if !cudaBuilt {
		s.Do(UseBackend(BackendCUDA))
		if err := s.Apply(); err == nil || !strings.Contains(err.Error(), "without CUDA") {
			t.Errorf("cuda without the build: %v", err)
		}
		if s.BackendKind() != BackendEmulated {
			t.Errorf("on %q after a failed switch to cuda, want emu", s.BackendKind())
		}
		if got := s.BackendKinds(); !reflect.DeepEqual(got, []string{BackendCPU, BackendEmulated}) {
			t.Errorf("kinds offered %v", got)
		}
	}
}

// fakeBackend steps nothing; its Pull moves body 0 up by a metre (so a read-back shows), or fails.
type fakeBackend struct {
	stepErr, pullErr error
	pulls, closes    int
}

func (f *fakeBackend) Name() string                               { return "fake" }
func (f *fakeBackend) Capabilities() sim.Capabilities             { return sim.CPUCapabilities() }
func (f *fakeBackend) Step(w *sim.World, _ *sim.StepReport) error { return f.stepErr }
func (f *fakeBackend) Pull(w *sim.World) error {
	if f.pullErr != nil {
		return f.pullErr
	}
	f.pulls++
	w.Bodies.Position[0][1]++
	return nil
}
func (f *fakeBackend) Contacts(w *sim.World, out []sim.ContactPoint) []sim.ContactPoint { return out }
func (f *fakeBackend) Close()                                                           { f.closes++ }

func attachFake(t *testing.T, s *Session, f sim.Backend) {
	t.Helper()
	s.Do(func(s *Session) error { s.backend = "fake"; return s.world.SetBackend(f) })
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
}

// TestReadsSyncWithTheBackend: View, Pick and commands read the bodies after a step only once they
// have been read back; Peek does not read them back.
func TestReadsSyncWithTheBackend(t *testing.T) {
	s := preset(t, "stack")
	f := &fakeBackend{}
	attachFake(t, s, f)
	y0 := bodyState(s).Position[0][1]
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	s.Peek(func(w *sim.World) {
		if w.Bodies.Position[0][1] != y0 {
			t.Error("Peek read the bodies back")
		}
	})
	if y := bodyState(s).Position[0][1]; y != y0+1 || f.pulls != 1 {
		t.Errorf("View after a step: y %v (want %v), %d pulls", y, y0+1, f.pulls)
	}
	bodyState(s)
	s.Pick(sim.Vec3{0, 10, 0}, sim.Vec3{0, -1, 0})
	if f.pulls != 1 {
		t.Errorf("%d pulls: reads without a step in between pulled again", f.pulls)
	}
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	s.Do(SetRestitutionAll(0.1))
	if err := s.Apply(); err != nil || f.pulls != 2 {
		t.Errorf("a command after a step: %v, %d pulls (want 2)", err, f.pulls)
	}
}

// TestAStepErrorPausesAndTheCPUSwitchStillWorks: a backend whose step fails pauses the session with
// its message; switching to the CPU when its state cannot be read back goes on from the bodies as
// last read, and says so.
func TestAStepErrorPausesAndTheCPUSwitchStillWorks(t *testing.T) {
	s := preset(t, "stack")
	before := bodyState(s)
	f := &fakeBackend{stepErr: errors.New("gpu: the step failed"), pullErr: errors.New("gpu: cannot read")}
	attachFake(t, s, f)
	if _, n := s.Advance(0, 0.1); n != 0 {
		t.Errorf("%d steps taken past a failed one", n)
	}
	if !s.Paused() || s.Err() == nil || !strings.Contains(s.Err().Error(), "the step failed") {
		t.Fatalf("paused %v, error %v", s.Paused(), s.Err())
	}
	if got := bodyState(s); !reflect.DeepEqual(got, before) {
		t.Error("a failed read-back changed the bodies")
	}
	s.Do(UseBackend(BackendCPU))
	err := s.Apply()
	if !errors.Is(err, ErrBackendUnreadable) || !strings.Contains(err.Error(), "cannot read") {
		t.Fatalf("switch to cpu: %v", err)
	}
	if s.BackendKind() != BackendCPU || f.closes != 1 {
		t.Fatalf("on %q, backend closed %d times", s.BackendKind(), f.closes)
	}
	s.Do(Pause(false))
	if err := s.Steps(3); err != nil {
		t.Fatalf("stepping on the CPU: %v", err)
	}
}

// TestResetKeepsTheBackend: a reloaded world runs on the backend the user chose.
func TestResetKeepsTheBackend(t *testing.T) {
	s := preset(t, "stack")
	s.Do(UseBackend(BackendEmulated))
	s.Do(Reset())
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if w.Backend() == nil {
			t.Error("the reset world is on the CPU")
		}
	})
}

// recorder is a backend that steps nothing and records the edits each step takes.
type recorder struct {
	fakeBackend
	edits []sim.Edits
}

func (r *recorder) Step(w *sim.World, _ *sim.StepReport) error {
	r.edits = append(r.edits, w.TakeEdits())
	return nil
}

// TestPanelEditsReachTheBackend: every panel edit (material, mass, a drag's impulse, ...) is in the
// edits the backend takes at its next step.
func TestPanelEditsReachTheBackend(t *testing.T) {
	s := preset(t, "stack")
	r := &recorder{}
	attachFake(t, s, r)
	step := func(what string, c Command) sim.Edits {
		t.Helper()
		if c != nil {
			s.Do(c)
		}
		if err := s.Step(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return r.edits[len(r.edits)-1]
	}
	if e := step("attach", nil); !e.All {
		t.Fatalf("first step after attaching: %+v, want All", e)
	}
	n := len(bodyState(s).Name)
	if e := step("friction", SetFrictionCoefficient(0.4)); len(e.Bodies) != n {
		t.Errorf("friction for every body: %d of %d bodies edited", len(e.Bodies), n)
	}
	var h, h2 sim.Handle
	s.View(func(w *sim.World) { h, h2 = w.HandleAt(3), w.HandleAt(5) })
	m := float32(7)
	if e := step("mass", EditBody(h, BodyEdit{Mass: &m})); !reflect.DeepEqual(e.Bodies, []int32{3}) {
		t.Errorf("mass edit: %+v", e)
	}
	if e := step("spawn", Spawn(Spec{Kind: geom.Box, Pattern: Stack, Count: 2, Size: sim.Vec3{0.2, 0.2, 0.2}, At: sim.Vec3{3, 0, 0}})); !reflect.DeepEqual(e.Bodies, []int32{int32(n), int32(n + 1)}) {
		t.Errorf("spawn: %+v", e)
	}
	if e := step("join", Join(JoinSpec{Type: sim.Ball, A: h, B: h2, Anchor: AnchorMidpoint})); !e.Joints {
		t.Errorf("join: %+v", e)
	}
	if e := step("gravity", SetSettings(func(set *sim.Settings) { set.Gravity = sim.Vec3{0, -5, 0} })); !e.Settings {
		t.Errorf("settings: %+v", e)
	}
	var top sim.Handle
	s.View(func(w *sim.World) { top = w.HandleAt(n - 1) })
	s.Do(StartDrag(top, bodyState(s).Position[n-1]))
	// The drag's impulse is queued for the backend: no body is uploaded for it.
	if e := step("drag", MoveDrag(sim.Vec3{0, 30, 0})); len(e.Bodies) != 0 || len(e.Impulses) == 0 ||
		e.Impulses[0].Body != int32(n-1) || e.Impulses[0].Linear[1] <= 0 {
		t.Errorf("drag: %+v", e)
	}
}

// TestThePanelWorksOnTheEmulatedBackend: with the emulated backend attached, the panel's edits,
// picking, the contacts table, save, snapshot and restore all work, and a restored or loaded world
// stays on the backend.
func TestThePanelWorksOnTheEmulatedBackend(t *testing.T) {
	s := preset(t, "pyramid")
	if err := s.Steps(20); err != nil {
		t.Fatal(err)
	}
	s.Do(UseBackend(BackendEmulated))
	s.Do(Snapshot())
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	n := len(bodyState(s).Name)
	hit := pickAt(t, s, 0.3, 0.2)
	m := float32(3)
	s.Do(EditBody(hit.Body, BodyEdit{Mass: &m}))
	s.Do(Spawn(Spec{Kind: geom.Sphere, Pattern: Wall, Count: 4, Size: sim.Vec3{0.2, 0.2, 0.2}, At: s.AboveScene()}))
	s.Do(SetFrictionCoefficient(0.2))
	s.Do(SetRestitutionAll(0.1))
	s.Do(SaveFile(t.TempDir() + "/s.json"))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if w.Bodies.Len() != n+4 || w.Bodies.Mass[hit.Index] != 3 || w.Bodies.Friction[0] != 0.2 {
			t.Errorf("%d bodies (want %d), mass %v, friction %v", w.Bodies.Len(), n+4, w.Bodies.Mass[hit.Index], w.Bodies.Friction[0])
		}
		ContactTable(w, "", ByPair) // read back on request; no step on the backend yet, so none
	})
	s.Do(Restore())
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	if got := len(bodyState(s).Name); got != n || s.BackendKind() != BackendEmulated {
		t.Errorf("restored: %d bodies (want %d), on %q", got, n, s.BackendKind())
	}
}

// A world set to a solver the CUDA backend does not run stays on the CPU with the reason.
func TestSwitchingToCUDARefusesSettingsItCannotRun(t *testing.T) {
	for _, edit := range []func(*sim.Settings){
		func(s *sim.Settings) { s.Solver = sim.XPBD },
	} {
		s := preset(t, "stack")
		s.Do(SetSettings(edit))
		if err := s.Apply(); err != nil {
			t.Fatal(err)
		}
		s.Do(UseBackend(BackendEmulated))
		err := s.Apply()
		if err == nil || !strings.Contains(err.Error(), "the CUDA backend") || s.BackendKind() != BackendCPU {
			t.Errorf("got %v, on %s", err, s.BackendKind())
		}
	}
}

// pullCounter is a backend that counts the bodies read back through the seam (Pull: all of them;
// PullStates: those asked for) and otherwise is the backend it wraps.
type pullCounter struct {
	sim.Backend
	pulled int
}

func (p *pullCounter) Pull(w *sim.World) error {
	p.pulled += w.Bodies.Len()
	return p.Backend.Pull(w)
}

func (p *pullCounter) PullStates(w *sim.World, idx []int32, out []sim.BodyState) error {
	p.pulled += len(idx)
	return p.Backend.(sim.StateReader).PullStates(w, idx, out)
}

// TestDraggingOnTheEmulatedBackendReadsOneBody: a mouse drag with the emulated CUDA backend attached
// reads back the grabbed body alone each step (not the world), moves the target without a read-back,
// and still lifts the box to the cursor.
func TestDraggingOnTheEmulatedBackendReadsOneBody(t *testing.T) {
	s := ground(t)
	s.Do(Spawn(Spec{Kind: geom.Box, Pattern: Single, Size: sim.Vec3{0.5, 0.5, 0.5}}))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	emu, err := testBackends.Open(BackendEmulated)
	if err != nil {
		t.Fatal(err)
	}
	p := &pullCounter{Backend: emu}
	attachFake(t, s, p)
	var h sim.Handle
	s.View(func(w *sim.World) { h = w.HandleAt(1) })
	s.Do(StartDrag(h, sim.Vec3{0, 1, 0}))
	s.Do(MoveDrag(sim.Vec3{0, 3, 0}))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	before := p.pulled
	const steps = 180
	for k := range steps {
		s.SetDragTarget(sim.Vec3{0, 3, 0})
		if err := s.Step(); err != nil {
			t.Fatalf("step %d: %v", k, err)
		}
	}
	if got := p.pulled - before; got != steps-1 {
		t.Errorf("%d steps of dragging read %d bodies back, want %d (the grabbed one, after each step but the first)",
			steps, got, steps-1)
	}
	s.View(func(w *sim.World) {
		if y := w.Bodies.Position[1][1]; math.Abs(float64(y)-2.5) > 0.1 {
			t.Errorf("dragged box at y %.3f, want about 2.5 (grabbed at its top face, target 3)", y)
		}
	})
}

// TestDraggingWakesASleepingBoxOnTheEmulatedBackend: a box asleep on the emulated CUDA backend wakes
// when dragged, as on the CPU, and is lifted to the cursor.
func TestDraggingWakesASleepingBoxOnTheEmulatedBackend(t *testing.T) {
	s := ground(t)
	s.Do(Spawn(Spec{Kind: geom.Box, Pattern: Single, Size: sim.Vec3{0.5, 0.5, 0.5}}))
	s.Do(SetSettings(func(set *sim.Settings) { set.Sleep = true }))
	s.Do(UseBackend(BackendEmulated))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	// Peek: the host's copy of the bodies stays as it was before the box slept (as the window's does
	// where it draws from the device), so the drag's impulses find it awake there and the device wakes
	// it.
	asleep := func() (n int) { s.Peek(func(w *sim.World) { n = w.Stats.Asleep }); return }
	for k := 0; k < 300 && asleep() == 0; k++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if asleep() != 1 {
		t.Fatal("the box did not fall asleep on the emulated backend in 5 s")
	}
	var h sim.Handle
	s.Peek(func(w *sim.World) { h = w.HandleAt(1) })
	s.Do(StartDrag(h, sim.Vec3{0, 1, 0}))
	s.Do(MoveDrag(sim.Vec3{0, 3, 0}))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	for k := range 120 {
		s.SetDragTarget(sim.Vec3{0, 3, 0})
		if err := s.Step(); err != nil {
			t.Fatalf("step %d: %v", k, err)
		}
	}
	s.View(func(w *sim.World) {
		if y := w.Bodies.Position[1][1]; math.Abs(float64(y)-2.5) > 0.1 || w.Bodies.Asleep[1] {
			t.Errorf("dragged box at y %.3f, asleep %v; want about 2.5 (grabbed at its top face, target 3), awake",
				y, w.Bodies.Asleep[1])
		}
	})
}
