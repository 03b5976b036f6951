package ui

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"

	"tumble/scenes"
	"tumble/sim"
	"tumble/ui/command"
)

// Each panel control driven through real input (see harness_test.go), with its effect on the
// simulation checked. TestPanelThroughRealInput's last step checks that every control a frame showed
// was driven by one of them.

func near(a, b, tol float32) bool { return float32(math.Abs(float64(a-b))) <= tol }

// The first two defects: with Simulation open, opening Spawn and clicking its friction slider
// crashed the app (one ImGui ID for two widgets), and the Spawn button did nothing (it had the Spawn
// header's ID).
func TestSpawnFrictionSliderAndSpawnButtonWorkWithSimulationOpen(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	d.open("Simulation", true)
	d.open("Spawn", true)
	d.clickAt("spawn/friction", 0.1)
	if f := d.a.panel.spawn.Friction; f > 0.5 {
		t.Errorf("spawn friction %.2f after clicking near the slider's left end, want low", f)
	}
	var before, after int
	d.world(func(w *sim.World) { before = w.Bodies.Len() })
	d.click("spawn/Spawn")
	d.world(func(w *sim.World) { after = w.Bodies.Len() })
	if want := before + int(d.a.panel.spawn.Count); after != want {
		t.Errorf("%d bodies after pressing Spawn on %d with count %d: %s", after, before, d.a.panel.spawn.Count, d.a.panel.message)
	}
}

// A press and its release inside one frame (a quick click at 12 FPS) still click, and a tapped Enter
// still ends a text field's edit: the input queue spreads them over frames.
func TestAClickAndAKeyShorterThanAFrameAreNotLost(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	d.open("Spawn", true)
	it := d.reveal("spawn/Spawn")
	x, y := it.Centre()
	d.move(float64(x), float64(y))
	d.frames(1)
	var before, after int
	d.world(func(w *sim.World) { before = w.Bodies.Len() })
	d.press(0)
	d.release(0) // no frame between
	d.settle()
	d.world(func(w *sim.World) { after = w.Bodies.Len() })
	if after == before {
		t.Errorf("a click within one frame on Spawn spawned nothing")
	}
	// The Enter that ends typing into the step rate is tapped within one frame too.
	d.setText("simulation/step rate, Hz", 0, 1, "90")
	var dt float32
	d.world(func(w *sim.World) { dt = w.Resolved().Dt })
	if !near(1/dt, 90, 0.5) {
		t.Errorf("step rate %.1f Hz after typing 90 and Enter", 1/dt)
	}
	d.frames(2)
	if d.a.in.pending() != 0 || imguiWantsText() {
		t.Errorf("the field is still in text mode after Enter")
	}
}

func TestHeaderPlayStepResetAndHide(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	steps := func() (n int) { d.world(func(w *sim.World) { n = w.StepCount }); return }
	d.click("Tumble/###play")
	if !d.a.S.Paused() {
		t.Fatal("not paused after Pause")
	}
	s0 := steps()
	d.frames(3)
	if steps() != s0 {
		t.Errorf("stepped while paused")
	}
	d.click("Tumble/Step (N)")
	if steps() != s0+1 {
		t.Errorf("Step took %d steps", steps()-s0)
	}
	d.click("Tumble/###play")
	d.frames(3)
	if d.a.S.Paused() || steps() <= s0+1 {
		t.Errorf("Play did not resume")
	}
	d.a.S.Do(command.SetSettings(func(s *sim.Settings) { s.Iterations = 13 }))
	d.click("Tumble/Reset (R)")
	var it int
	d.world(func(w *sim.World) { it = w.Settings().Iterations })
	if steps() > 1 || it != 13 {
		t.Errorf("after Reset: step %d, iterations %d (want 0 or 1, and the changed 13 kept)", steps(), it)
	}
	vw, _ := d.a.viewport()
	d.click("Tumble/Hide (Tab)")
	full, _ := d.a.viewport()
	if !d.a.PanelHidden || full <= vw || d.has("sections/Scene") {
		t.Errorf("Hide: hidden %v, view %v wide (was %v)", d.a.PanelHidden, full, vw)
	}
	d.move(100, 100)
	d.tap(32 + 226) // glfw.KeyTab is 258
	d.settle()
	if d.a.PanelHidden || !d.has("sections/Scene") {
		t.Errorf("Tab did not bring the panel back")
	}
}

func TestSceneSectionBrowsesOpensSavesAndRestores(t *testing.T) {
	t.Chdir(t.TempDir())
	d := drive(t, Options{Scene: "stack"})
	d.click("presets/###pyramid20")
	if d.a.S.Name() != "pyramid20" {
		t.Fatalf("scene %q after clicking pyramid20: %s", d.a.S.Name(), d.a.panel.message)
	}
	if d.a.panel.path != "pyramid20.json" {
		t.Errorf("file field %q after loading pyramid20", d.a.panel.path)
	}
	saved := filepath.Join(t.TempDir(), "mine.json")
	d.typeInto("scene/file", saved)
	d.click("scene/Save current state")
	if _, err := os.Stat(saved); err != nil {
		t.Fatalf("Save: %v (%s)", err, d.a.panel.message)
	}
	d.click("presets/###stack")
	d.typeInto("scene/file", saved)
	d.click("scene/Open")
	if d.a.S.Name() != saved || d.a.panel.path != saved || d.a.panel.isErr {
		t.Errorf("Open: scene %q, field %q, status %q", d.a.S.Name(), d.a.panel.path, d.a.panel.message)
	}
	// A failed open says so; the next success clears it.
	d.typeInto("scene/file", "no-such-file.json")
	d.click("scene/Open")
	if !d.a.panel.isErr {
		t.Errorf("opening a missing file: status %q", d.a.panel.message)
	}
	d.click("Tumble/###play") // paused: what Restore puts back is not moved on by the next frames
	// A snapshot keeps the panel's solver settings too; sleeping, on by default in the window, is
	// clicked off (so the snapshot must say so, or it would load back on).
	d.world(func(w *sim.World) {
		if !w.Settings().Sleep {
			t.Error("the window's world does not sleep by default")
		}
	})
	d.click("simulation/sleeping")
	d.setText("simulation/relax passes", 0, 1, "3")
	d.choose("simulation/broad phase", "sort and sweep")
	d.click("scene/Snapshot")
	if d.a.panel.isErr {
		t.Errorf("the old error stayed after Snapshot: %q", d.a.panel.message)
	}
	var at sim.Vec3
	var step int
	d.world(func(w *sim.World) { at, step = w.Bodies.Position[w.Bodies.Len()-1], w.StepCount })
	d.a.S.Do(command.SetSettings(func(s *sim.Settings) {
		s.Gravity, s.Sleep, s.RelaxIterations, s.Broadphase = sim.Vec3{3, 0, 0}, true, 0, sim.BroadDefault
	}))
	d.click("Tumble/###play")
	d.frames(30)
	d.click("Tumble/###play")
	d.click("scene/Restore")
	d.world(func(w *sim.World) {
		if p := w.Bodies.Position[w.Bodies.Len()-1]; p.Sub(at).Len() > 1e-4 {
			t.Errorf("Restore: body at %v, snapshot had %v", p, at)
		}
		if w.StepCount != step || step == 0 {
			t.Errorf("Restore: at step %d, the snapshot was taken at step %d", w.StepCount, step)
		}
		if s := w.Settings(); s.Sleep || s.RelaxIterations != 3 || s.Broadphase != sim.SAP {
			t.Errorf("Restore: sleeping %v, %d relax passes, broad phase %v; the snapshot had false, 3, sap",
				s.Sleep, s.RelaxIterations, s.Broadphase)
		}
	})
	d.click("scene/Scene's settings")
	d.world(func(w *sim.World) {
		if g := w.Settings().Gravity; g[0] != 0 {
			t.Errorf("Scene's settings: gravity %v", g)
		}
	})
	// A heavy preset on software GL asks first.
	if d.a.softwareGL() {
		d.click("presets/###pile")
		if d.a.S.Name() == "pile" || !d.has("scene/Cancel") {
			t.Fatalf("pile loaded on software GL without a warning")
		}
		d.click("scene/Cancel")
		d.click("presets/###pile")
		d.click("scene/Load anyway")
		d.untilJobsDone() // a heavy preset loads off the UI thread
		if d.a.S.Name() != "pile" {
			t.Errorf("Load anyway: scene %q", d.a.S.Name())
		}
		// The panel scrolled to its top first: with the list at its own top but cut off by the panel,
		// a wheel over the list moves nothing.
		d.reveal("sections/Scene")
		d.click("presets/###stack")
	}
}

func TestSimulationSectionSetsEverySetting(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	set := func() (s sim.Settings) { d.world(func(w *sim.World) { s = w.Settings() }); return }
	d.setText("simulation/step rate, Hz", 0, 1, "120")
	d.setText("simulation/sub-steps", 0, 1, "5")
	d.setText("simulation/iterations", 0, 1, "7")
	d.setText("simulation/contact Hz", 0, 1, "60")
	d.setText("simulation/damping ratio", 0, 1, "3")
	d.setText("simulation/gravity", 1, 3, "-5")
	d.setText("simulation/CPU workers", 0, 1, "1")
	s := set()
	if !near(s.Dt, 1.0/120, 1e-6) || s.Substeps != 5 || s.Iterations != 7 || s.ContactHertz != 60 || s.DampingRatio != 3 ||
		s.Gravity[1] != -5 || s.Workers != 1 {
		t.Errorf("settings after typing: dt %v sub %d it %d hz %v ratio %v g %v workers %d", s.Dt, s.Substeps, s.Iterations,
			s.ContactHertz, s.DampingRatio, s.Gravity, s.Workers)
	}
	if !set().Sleep {
		t.Error("the window's world does not sleep by default")
	}
	// The emulated backend sleeps too: choosing it, and cpu again, leaves sleeping on.
	d.choose("simulation/backend", command.BackendLabel(command.BackendEmulated))
	if d.a.S.BackendKind() != command.BackendEmulated || !set().Sleep || strings.Contains(d.a.panel.message, "sleeping") {
		t.Errorf("backend %q after choosing the emulated one, sleeping %v: %s", d.a.S.BackendKind(), set().Sleep, d.a.panel.message)
	}
	// It has no contact cache: under PGS, which reads it on the CPU, the box is greyed, shows what
	// runs (off) and a click changes nothing.
	d.choose("simulation/solver", sim.SolverOf(sim.PGS).Title())
	if set().Solver != sim.PGS || d.enabled("simulation/contact cache") {
		t.Errorf("emulated backend under %v: the contact cache box takes input", set().Solver)
	}
	before := set().NoContactCache
	d.click("simulation/contact cache")
	if set().NoContactCache != before {
		t.Error("a click on the greyed contact cache box changed the setting")
	}
	d.choose("simulation/backend", "cpu")
	if !d.enabled("simulation/contact cache") {
		t.Error("the CPU backend under PGS greys the contact cache box")
	}
	if d.a.S.BackendKind() != command.BackendCPU || !set().Sleep || strings.Contains(d.a.panel.message, "sleeping") {
		t.Errorf("backend %q after choosing cpu, sleeping %v: %s", d.a.S.BackendKind(), set().Sleep, d.a.panel.message)
	}
	for _, c := range []struct {
		label string
		get   func(sim.Settings) bool
	}{
		{"warm starting", func(s sim.Settings) bool { return s.NoWarmStart }},
		{"relax", func(s sim.Settings) bool { return s.NoRelax }},
		{"friction", func(s sim.Settings) bool { return s.NoFriction }},
		{"restitution", func(s sim.Settings) bool { return s.NoRestitution }},
		{"sleeping", func(s sim.Settings) bool { return s.Sleep }},
	} {
		before := c.get(set())
		d.click("simulation/" + c.label)
		if c.get(set()) == before {
			t.Errorf("clicking %q changed nothing", c.label)
		}
	}
	d.choose("simulation/solver", "jacobi")
	if set().Solver != sim.Jacobi {
		t.Errorf("solver %v after choosing jacobi", set().Solver)
	}
	d.choose("simulation/broad phase", "sort and sweep")
	if set().Broadphase != sim.SAP {
		t.Errorf("broad phase %v after choosing sort and sweep", set().Broadphase)
	}
	d.setText("simulation/mu for every body", 0, 1, "0.2")
	d.click("simulation/Set every body's friction")
	d.setText("simulation/e for every body", 0, 1, "0.7")
	d.click("simulation/... restitution")
	d.world(func(w *sim.World) {
		for i := range w.Bodies.Len() {
			if !near(w.Bodies.Friction[i], 0.2, 1e-6) || !near(w.Bodies.Restitution[i], 0.7, 1e-6) {
				t.Fatalf("%s: friction %v restitution %v", w.Bodies.Name[i], w.Bodies.Friction[i], w.Bodies.Restitution[i])
			}
		}
	})
}

func TestSpawnSectionSpawnsWhatItSays(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	d.open("Spawn", true)
	d.choose("spawn/shape", "sphere")
	d.setText("spawn/radius", 0, 1, "0.3")
	d.choose("spawn/shape", "capsule")
	d.setText("spawn/half height", 0, 1, "0.4")
	d.choose("spawn/shape", "box")
	d.drag("spawn/half extents", 0, 3, 30)
	d.setText("spawn/half extents", 1, 3, "0.2")
	d.choose("spawn/pattern", "wall")
	d.setText("spawn/count", 0, 1, "6")
	d.setText("spawn/mass, kg", 0, 1, "2")
	d.setText("spawn/friction", 0, 1, "0.9")
	d.setText("spawn/restitution", 0, 1, "0.1")
	d.click("spawn/at the cursor")
	if !d.a.panel.spawn.AtCursor {
		t.Errorf("at the cursor: not set")
	}
	d.click("spawn/at the cursor")
	var before int
	d.world(func(w *sim.World) { before = w.Bodies.Len() })
	d.click("spawn/Spawn")
	d.world(func(w *sim.World) {
		b := &w.Bodies
		if b.Len() != before+6 {
			t.Fatalf("%d new bodies, want 6: %s", b.Len()-before, d.a.panel.message)
		}
		for i := before; i < b.Len(); i++ {
			h := b.Shape[i].HalfExtents
			if b.Mass[i] != 2 || !near(b.Friction[i], 0.9, 1e-6) || !near(h[1], 0.2, 1e-6) || h[0] <= 0.25 {
				t.Errorf("%s: mass %v friction %v half extents %v", b.Name[i], b.Mass[i], b.Friction[i], h)
			}
		}
		before = b.Len()
	})
	if !strings.Contains(d.a.panel.message, "spawn 6") {
		t.Errorf("after spawning a wall of 6: %q", d.a.panel.message)
	}
	// The single pattern spawns one body whatever the count, and says so.
	d.choose("spawn/pattern", "single")
	d.click("spawn/Spawn")
	d.world(func(w *sim.World) {
		if n := w.Bodies.Len() - before; n != 1 {
			t.Errorf("single: %d new bodies, want 1", n)
		}
	})
	if !strings.Contains(d.a.panel.message, "spawn 1") {
		t.Errorf("after spawning a single body with count 6: %q, want it to say 1", d.a.panel.message)
	}
	// With the single pattern the count is greyed out: dragging it changes nothing.
	d.drag("spawn/count", 0, 1, 80)
	if c := d.a.panel.spawn.Count; c != 6 {
		t.Errorf("single: dragging the greyed-out count made it %d, want it kept at 6", c)
	}
	// Another pattern takes the count again.
	d.choose("spawn/pattern", "stack")
	d.setText("spawn/count", 0, 1, "3")
	d.world(func(w *sim.World) { before = w.Bodies.Len() })
	d.click("spawn/Spawn")
	d.world(func(w *sim.World) {
		if n := w.Bodies.Len() - before; n != 3 {
			t.Errorf("stack of 3: %d new bodies: %s", n, d.a.panel.message)
		}
	})
}

// TestSpawnAtTheCursorIsWhereTheViewWasPointed: Spawn's "at the cursor" is clicked with the mouse on
// the panel, so it spawns where the mouse last pointed in the 3D view, not behind the panel.
func TestSpawnAtTheCursorIsWhereTheViewWasPointed(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	d.open("Spawn", true)
	d.choose("spawn/pattern", "single")
	if !d.a.panel.spawn.AtCursor {
		d.click("spawn/at the cursor")
	}
	spawnAt := func(x, z float32) {
		t.Helper()
		vw, vh := d.a.viewport()
		px, py, _ := d.a.Cam.Project(mgl32.Vec3{x, 0, z}, vw, vh)
		if panel := d.reveal("spawn/Spawn"); px < 0 || py < 0 || px >= panel.Clip[0].X || py >= vh {
			t.Fatalf("(%v, 0, %v) is at (%.0f, %.0f) in the window, not in the view left of the panel", x, z, px, py)
		}
		d.move(float64(px), float64(py))
		d.frames(2)
		// The spot is marked: a green cross there.
		marked := false
		for _, v := range d.a.frame.Lines {
			if v.Color == colSpawn && math.Hypot(float64(v.Pos[0]-x), float64(v.Pos[2]-z)) < 0.5 {
				marked = true
			}
		}
		if !marked {
			t.Errorf("pointed at (%v, 0, %v): no spawn mark drawn there", x, z)
		}
		var before int
		d.world(func(w *sim.World) { before = w.Bodies.Len() })
		d.click("spawn/Spawn")
		d.world(func(w *sim.World) {
			b := &w.Bodies
			if b.Len() != before+1 {
				t.Fatalf("%d new bodies, want 1: %s", b.Len()-before, d.a.panel.message)
			}
			p := b.Position[before]
			if math.Hypot(float64(p[0]-x), float64(p[2]-z)) > 0.3 {
				t.Errorf("pointed at (%v, 0, %v) in the view, clicked Spawn: the body is at %v", x, z, p)
			}
		})
	}
	spawnAt(2, 1)
	spawnAt(-1.5, 2.5)
}

// TestFrameAllShowsWhereJointsHoldBodiesToTheWorld: the cradle's balls hang from points of the world
// above them; frame all (at load, and the F key after zooming in) shows those points too, the
// strings whole.
func TestFrameAllShowsWhereJointsHoldBodiesToTheWorld(t *testing.T) {
	d := drive(t, Options{Scene: "cradle"})
	var anchors []mgl32.Vec3
	d.world(func(w *sim.World) {
		for k := range w.NumJoints() {
			if jf := w.JointFrame(k); jf.B < 0 {
				anchors = append(anchors, jf.LocalB)
			}
		}
	})
	if len(anchors) != 5 {
		t.Fatalf("%d joints to the world in the cradle, want 5", len(anchors))
	}
	inView := func(when string) {
		t.Helper()
		vw, vh := d.a.viewport()
		for _, p := range anchors {
			if x, y, ok := d.a.Cam.Project(p, vw, vh); !ok || x < 0 || y < 0 || x >= vw || y >= vh {
				t.Errorf("%s: the pivot %v is at (%.0f, %.0f), outside the %.0f x %.0f view", when, p, x, y, vw, vh)
			}
		}
	}
	inView("loaded")
	vw, vh := d.a.viewport()
	d.move(float64(vw/2), float64(vh/2))
	for range 12 {
		d.wheel(1) // zoom in
	}
	d.settle()
	d.tap(glfw.KeyF)
	d.settle()
	inView("zoomed in, then F")
}

// TestCarPresetsCameraFollowsTheChassis: the car drives away from where it starts, and its scene's
// view (view.follow) has the camera follow it, after loading the preset, saving it and opening the
// file; another scene turns that follow off again.
func TestCarPresetsCameraFollowsTheChassis(t *testing.T) {
	t.Chdir(t.TempDir())
	d := drive(t, Options{Scene: "stack"})
	chassis := func() (mgl32.Vec3, sim.Handle) {
		var p mgl32.Vec3
		var h sim.Handle
		d.world(func(w *sim.World) {
			var ok bool
			if h, ok = w.Find("chassis"); !ok {
				t.Fatalf("no chassis in %q", d.a.S.Name())
			}
			i, _ := w.Index(h)
			p = w.Bodies.Position[i]
		})
		return p, h
	}
	// inView checks that the chassis is drawn at the middle of the view.
	inView := func(when string) {
		t.Helper()
		p, h := chassis()
		if !d.a.Follow || d.a.Selected != h {
			t.Fatalf("%s: follow %v, selected %v, want the chassis %v followed", when, d.a.Follow, d.a.Selected, h)
		}
		vw, vh := d.a.viewport()
		x, y, _ := d.a.Cam.Project(p, vw, vh)
		if math.Abs(float64(x-vw/2)) > 0.05*float64(vw) || math.Abs(float64(y-vh/2)) > 0.05*float64(vh) {
			t.Errorf("%s: the chassis at %v is drawn at (%.0f, %.0f), not about the view's middle (%.0f, %.0f)", when, p, x, y, vw/2, vh/2)
		}
	}
	d.click("presets/###car")
	start, _ := chassis()
	d.frames(150) // 2.5 s at 2.4 m/s
	p, _ := chassis()
	if p.Sub(start).Len() < 3 {
		t.Fatalf("the car went from %v to %v in 2.5 s: it did not drive", start, p)
	}
	inView("car preset, 2.5 s on")
	saved := filepath.Join(t.TempDir(), "car.json")
	d.typeInto("scene/file", saved)
	d.click("scene/Save current state")
	d.click("presets/###stack")
	if d.a.Follow {
		t.Errorf("the stack (no view) kept the follow the car's view turned on")
	}
	d.typeInto("scene/file", saved)
	d.click("scene/Open")
	d.frames(30)
	inView("the saved car opened")
	// R: the reset car is followed too.
	d.tap(glfw.KeyR)
	d.frames(30)
	inView("the car reset")
}

func TestShootSectionAndTheBKeyFireTheChosenBody(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	d.open("Shoot", true)
	d.choose("shoot/shape", "box")
	d.setText("shoot/half extents", 0, 3, "0.2")
	d.choose("shoot/shape", "capsule")
	d.setText("shoot/radius", 0, 1, "0.15")
	d.setText("shoot/half height", 0, 1, "0.3")
	d.choose("shoot/shape", "sphere")
	d.setText("shoot/radius", 0, 1, "0.25")
	d.setText("shoot/mass, kg", 0, 1, "3")
	d.setText("shoot/speed, m/s", 0, 1, "40")
	d.click("Tumble/###play") // paused, so the shot's speed is read before anything slows it
	var n int
	d.world(func(w *sim.World) { n = w.Bodies.Len() })
	d.click("shoot/Shoot (B)")
	check := func(what string) {
		d.world(func(w *sim.World) {
			b := &w.Bodies
			if b.Len() != n+1 {
				t.Fatalf("%s: %d new bodies: %s", what, b.Len()-n, d.a.panel.message)
			}
			i := b.Len() - 1
			if b.Mass[i] != 3 || !near(b.Velocity[i].Len(), 40, 0.01) || !near(b.Shape[i].Radius, 0.25, 1e-6) {
				t.Errorf("%s: mass %v speed %v radius %v", what, b.Mass[i], b.Velocity[i].Len(), b.Shape[i].Radius)
			}
		})
		n++
	}
	check("Shoot button")
	vw, vh := d.a.viewport()
	d.move(float64(vw/2), float64(vh/3))
	d.frames(1)
	d.tap(66) // glfw.KeyB
	d.settle()
	check("B key")
}

func TestInspectSectionEditsTheClickedBody(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	d.frames(30)
	d.clickBody("box2")
	if d.a.bodyName(d.a.Selected, false) != "box2" {
		t.Fatalf("selected %q after clicking box2", d.a.bodyName(d.a.Selected, false))
	}
	idx := func(w *sim.World) int { i, _ := w.Index(d.a.Selected); return i }
	d.choose("inspect/body type", "static")
	d.world(func(w *sim.World) {
		if w.Bodies.Type[idx(w)] != sim.Static {
			t.Errorf("type %v after choosing static", w.Bodies.Type[idx(w)])
		}
	})
	d.choose("inspect/body type", "dynamic")
	d.setText("inspect/mass, kg", 0, 1, "4")
	d.setText("inspect/body friction", 0, 1, "0.3")
	d.setText("inspect/body restitution", 0, 1, "0.2")
	d.setText("inspect/rolling resistance", 0, 1, "0.08")
	d.setText("inspect/spinning resistance", 0, 1, "0.04")
	d.world(func(w *sim.World) {
		b, i := &w.Bodies, idx(w)
		if b.Type[i] != sim.Dynamic || b.Mass[i] != 4 || !near(b.Friction[i], 0.3, 1e-6) || !near(b.Restitution[i], 0.2, 1e-6) {
			t.Errorf("type %v mass %v friction %v restitution %v", b.Type[i], b.Mass[i], b.Friction[i], b.Restitution[i])
		}
		if !near(b.RollingResistance[i], 0.08, 1e-6) || !near(b.SpinningResistance[i], 0.04, 1e-6) {
			t.Errorf("rolling resistance %v, spinning resistance %v", b.RollingResistance[i], b.SpinningResistance[i])
		}
	})
	// A typed velocity applies once: the box (on the ground, with friction) slows down after it,
	// rather than being set to 8 m/s again every frame while the field stays in edit mode.
	d.setText("inspect/angular velocity", 1, 3, "2")
	d.setText("inspect/velocity", 0, 3, "8")
	d.frames(40)
	d.world(func(w *sim.World) {
		if v := w.Bodies.Velocity[idx(w)][0]; v > 6 {
			t.Errorf("vx %.2f 40 frames after typing 8: the edit is being re-applied", v)
		}
	})
	d.drag("inspect/velocity", 2, 3, 20)
	d.click("inspect/all")
	d.typeInto("inspect/filter (body name)", "box1")
	d.choose("inspect/sort by", "depth")
	if len(d.a.panel.rows) == 0 {
		t.Fatalf("no contact rows for box1")
	}
	row := d.reveal("inspect/contacts/#0/###pair")
	mark(row)
	x, y := row.Centre()
	d.move(float64(x), float64(y))
	d.frames(2)
	if d.a.hoverRow != 0 || d.a.hoverPoint == nil {
		t.Errorf("hovering the first contact row: row %d", d.a.hoverRow)
	}
	var n int
	d.world(func(w *sim.World) { n = w.Bodies.Len() })
	d.click("inspect/Delete body (Del)")
	d.world(func(w *sim.World) {
		if w.Bodies.Len() != n-1 {
			t.Errorf("Delete body: %d bodies, was %d", w.Bodies.Len(), n)
		}
	})
}

func TestDebugSectionTogglesEveryLayer(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	d.open("Debug draw", true)
	d.frames(5)
	dd := &d.a.Debug
	for _, c := range []struct {
		label string
		v     *bool
		lines bool // whether turning it on adds lines on this scene
	}{
		{"contact points", &dd.Contacts, true}, {"normals x impulse", &dd.Normals, true}, {"friction impulses", &dd.Friction, false},
		{"joints and their limits", &dd.Joints, false}, {"AABBs", &dd.AABBs, true}, {"centres of mass", &dd.COM, true},
		{"velocities", &dd.Velocities, false}, {"BVH level", &dd.BVH, true}, {"wireframe (W)", &d.a.Wireframe, false},
		{"no shadows", &d.a.NoShadows, false}, {"hover highlight", &d.a.HoverHighlight, false},
		{"follow selection (C)", &d.a.Follow, false},
	} {
		before, n0 := *c.v, len(d.a.frame.Lines)
		d.click("debug/" + c.label)
		if *c.v == before {
			t.Errorf("%s: unchanged", c.label)
		}
		if c.lines && !before && len(d.a.frame.Lines) <= n0 {
			t.Errorf("%s on: %d lines, were %d", c.label, len(d.a.frame.Lines), n0)
		}
	}
	d.setText("debug/BVH depth", 0, 1, "2")
	if dd.BVHDepth != 2 {
		t.Errorf("BVH depth %d", dd.BVHDepth)
	}
	d.choose("debug/colour by", "type")
	if d.a.ColorMode != 1 {
		t.Errorf("colour mode %v", d.a.ColorMode)
	}
	d.a.Cam.Zoom(3)
	r := d.a.Cam.Distance
	d.click("debug/Frame all (F)")
	if d.a.Cam.Distance == r {
		t.Errorf("Frame all left the camera at %v", r)
	}
	d.click("debug/Help (F1)")
	if !d.a.ShowHelp {
		t.Errorf("Help did not open")
	}
	d.open("Stats", true)
	d.click("stats/step ms by stage")
}

// imguiWantsText reports whether a text field holds the keyboard (on the main thread).
func imguiWantsText() (b bool) {
	onMain(func() { b = imguiIO().WantTextInput() })
	return
}

// Every widget lies inside the panel's width (nothing cut off at the right), at the default width and
// at the narrowest the panel can be dragged to, with every section open and a body and a joint shown.
func TestEveryWidgetFitsThePanelsWidth(t *testing.T) {
	// Each solver shows its own settings: the soft step's, XPBD's joint damping, the penalty springs.
	for _, solver := range []sim.SolverKind{sim.PGS, sim.XPBD, sim.Penalty} {
		for _, width := range []float32{0, minPanelWidth} {
			d := drive(t, Options{Scene: "door", Open: SectionNames, Setup: func(a *App) {
				a.panelW = width
				a.panel.joint.selected = 0
				a.S.View(func(w *sim.World) {
					a.Selected, _ = w.Find("door")
					s := w.Settings()
					s.Solver = solver
					w.SetSettings(s)
				})
			}})
			d.frames(2)
			for _, it := range d.a.w.items {
				if it.Kind != "option" && it.Max.X > it.Clip[1].X+1 {
					t.Errorf("%s, panel %.0f px wide: %s reaches x %.0f, past the panel's edge at %.0f", solver,
						d.a.panelWidth(), it.Path, it.Max.X, it.Clip[1].X)
				}
			}
		}
	}
}

// The panel's left edge drags to resize it, and the width, the open sections, the debug layers and the
// Spawn form are remembered in the preferences file for the next run.
func TestPanelResizesByItsEdgeAndPrefsRememberIt(t *testing.T) {
	prefs := filepath.Join(t.TempDir(), "tumble", "prefs.json")
	d := drive(t, Options{Scene: "stack", Prefs: prefs})
	w0 := d.a.panelWidth()
	edge := float64(1280 - w0)
	d.move(edge+1, 400)
	d.frames(2)
	d.press(0)
	d.frames(1)
	for s := 1; s <= 5; s++ {
		d.move(edge+1-20*float64(s), 400)
		d.frames(1)
	}
	d.release(0)
	d.settle()
	w1 := d.a.panelWidth()
	if w1 < w0+80 {
		t.Fatalf("panel %v wide after dragging its edge 100 px left, was %v", w1, w0)
	}
	if vw, _ := d.a.viewport(); !near(vw, 1280-w1, 1) {
		t.Errorf("view %v wide beside a %v panel", vw, w1)
	}
	d.open("Spawn", true)
	d.open("Stats", false)
	d.setText("spawn/count", 0, 1, "37")
	d.open("Debug draw", true)
	d.click("debug/AABBs")
	onMain(d.closeAll)
	d.closeAll = func() {}

	e := drive(t, Options{Scene: "stack", Prefs: prefs})
	p := &e.a.panel
	if !near(e.a.panelWidth(), w1, 1) || !p.openNow["spawn"] || p.openNow["stats"] || p.spawn.Count != 37 || !e.a.Debug.AABBs {
		t.Errorf("next run: panel %v (want %v), spawn open %v, stats open %v, count %d, AABBs %v", e.a.panelWidth(), w1,
			p.openNow["spawn"], p.openNow["stats"], p.spawn.Count, e.a.Debug.AABBs)
	}
	// A damaged file is one line and the defaults.
	if err := os.WriteFile(prefs, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	f := drive(t, Options{Scene: "stack", Prefs: prefs, Log: &log})
	if f.a.panelWidth() != PanelWidth || !strings.Contains(log.String(), "preferences") {
		t.Errorf("damaged prefs: panel %v, log %q", f.a.panelW, log.String())
	}
}

// The clock line shows simulated time and steps; a status message appearing or going never moves
// the widgets below; the body under the cursor is highlighted and named.
func TestClockStatusLineAndHover(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	d.frames(60)
	var steps int
	var tm float64
	d.world(func(w *sim.World) { steps, tm = w.StepCount, w.Time })
	if steps < 60 || !near(float32(tm), float32(steps)/60, 1e-3) {
		t.Errorf("%d steps, t %.3f", steps, tm)
	}
	if d.a.stats.realTime <= 0 {
		t.Errorf("real-time factor %v", d.a.stats.realTime)
	}
	y0 := d.find("sections/Scene").Min.Y
	d.typeInto("scene/file", "missing.json")
	d.click("scene/Open")
	if !d.a.panel.isErr {
		t.Fatalf("no error for a missing file: %q", d.a.panel.message)
	}
	if y1 := d.find("sections/Scene").Min.Y; y1 != y0 {
		t.Errorf("the Scene header moved from y %v to %v when an error appeared", y0, y1)
	}
	d.click("scene/Snapshot")
	if d.a.panel.isErr {
		t.Errorf("old error still shown")
	}
	// Hover: the mouse over the top box lights it up.
	var p sim.Vec3
	top := ""
	d.world(func(w *sim.World) {
		for i := range w.Bodies.Len() {
			if w.Bodies.Position[i][1] > p[1] {
				p, top = w.Bodies.Position[i], w.Bodies.Name[i]
			}
		}
	})
	vw, vh := d.a.viewport()
	x, y, _ := d.a.Cam.Project(p, vw, vh)
	d.move(float64(x), float64(y))
	d.frames(2)
	if d.a.bodyName(d.a.hoverBody, false) != top {
		t.Errorf("hovering %s: hovered %q", top, d.a.bodyName(d.a.hoverBody, false))
	}
	d.move(float64(vw)+50, 300) // over the panel
	d.frames(2)
	if d.a.hoverBody != (sim.Handle{}) {
		t.Errorf("a body stays hovered with the mouse over the panel")
	}
}

// Issue 12's third defect, through the panel: on the incline, once the boxes rest, unticking
// "friction" (warm starting left on) frees them: each slides down its frictionless ramp at g sin theta.
// Before the fix the warm start kept applying last step's friction impulse and they stayed glued.
func TestUntickingFrictionFreesTheRestingBoxesOnTheIncline(t *testing.T) {
	d := drive(t, Options{Scene: "incline"})
	d.frames(60) // a second: the boxes static friction holds are at rest
	type box struct {
		i     int
		theta float64
	}
	var boxes []box
	d.world(func(w *sim.World) {
		for i, n := range w.Bodies.Name {
			if theta, _, sticks, ok := scenes.InclineBox(n); ok && sticks {
				boxes = append(boxes, box{i, theta})
			}
		}
	})
	if len(boxes) == 0 {
		t.Fatal("no resting boxes on the incline")
	}
	d.click("Tumble/###play") // paused while the box is clicked, so the timing below is exact
	d.click("simulation/friction")
	var warm, fr bool
	d.world(func(w *sim.World) { warm, fr = !w.Settings().NoWarmStart, !w.Settings().NoFriction })
	if !warm || fr {
		t.Fatalf("warm starting %v, friction %v after unticking friction", warm, fr)
	}
	speeds := func() []float32 {
		var v []float32
		d.world(func(w *sim.World) {
			for _, b := range boxes {
				v = append(v, w.Bodies.Velocity[b.i].Len())
			}
		})
		return v
	}
	d.click("Tumble/###play")
	d.frames(6) // the first steps after the switch
	v0 := speeds()
	d.frames(30) // half a second of free sliding
	v1 := speeds()
	for k, b := range boxes {
		a := float64(v1[k]-v0[k]) / 0.5
		if want := 9.81 * math.Sin(b.theta); math.Abs(a-want) > 0.02*want {
			t.Errorf("box on the %.0f degree ramp: %.3f m/s^2 down the slope without friction, want g sin theta %.3f",
				b.theta*180/math.Pi, a, want)
		}
	}
}

// TestSimulationSectionShowsOnlyTheSolversSettings: the section offers each solver's settings and no
// others (sim.Solver.Params): XPBD enables its joint damping and hides the soft step's contact stiffness,
// damping ratio, warm start and relax; PGS the reverse; and the relax passes slider sets the relax
// iterations.
func TestSimulationSectionShowsOnlyTheSolversSettings(t *testing.T) {
	d := drive(t, Options{Scene: "pendulum"})
	set := func() (s sim.Settings) { d.world(func(w *sim.World) { s = w.Settings() }); return }
	soft := []string{"warm starting", "relax", "relax passes", "contact Hz", "damping ratio"}
	d.setText("simulation/relax passes", 0, 1, "3")
	if got := set().RelaxIterations; got != 3 {
		t.Errorf("relax iterations %d after typing 3", got)
	}
	if d.enabled("simulation/joint damping, 1/s") {
		t.Error("PGS enables XPBD's joint damping")
	}
	d.choose("simulation/solver", "xpbd")
	d.frames(2)
	for _, l := range soft {
		if d.enabled("simulation/" + l) {
			t.Errorf("XPBD enables %q, which it does not read", l)
		}
	}
	d.setText("simulation/joint damping, 1/s", 0, 1, "4")
	if s := set(); s.Solver != sim.XPBD || s.JointDamping != 4 {
		t.Errorf("solver %v, joint damping %v after choosing xpbd and typing 4", s.Solver, s.JointDamping)
	}
	d.choose("simulation/solver", "pgs (Gauss-Seidel)")
	d.frames(2)
	if d.enabled("simulation/joint damping, 1/s") {
		t.Error("PGS enables XPBD's joint damping")
	}
	for _, l := range soft {
		if !d.enabled("simulation/" + l) {
			t.Errorf("PGS does not show %q", l)
		}
	}
}

// The simulation section lists every solver, and each solver's own knobs are enabled only under it:
// the direct joint solve under PGS (and Jacobi), the springs under the penalty solver (which has no
// iterations), and none of those under the impulse solver.
func TestTeachingSolversAndTheDirectJointSolveFromThePanel(t *testing.T) {
	d := drive(t, Options{Scene: "pendulum"})
	set := func() (s sim.Settings) { d.world(func(w *sim.World) { s = w.Settings() }); return }
	d.click("simulation/direct joints")
	d.frames(2)
	if !set().DirectJoints {
		t.Error("direct joints still off after clicking it on")
	}
	d.choose("simulation/solver", "penalty")
	d.frames(2)
	if d.enabled("simulation/iterations") || d.enabled("simulation/direct joints") {
		t.Error("the penalty solver enables iterations or direct joints, which it does not read")
	}
	d.setText("simulation/spring k, N/m", 0, 1, "5000")
	d.setText("simulation/spring c, N s/m", 0, 1, "50")
	if s := set(); s.Solver != sim.Penalty || s.PenaltyStiffness != 5000 || s.PenaltyDamping != 50 {
		t.Errorf("solver %v, stiffness %v, damping %v after choosing penalty and typing 5000 and 50",
			s.Solver, s.PenaltyStiffness, s.PenaltyDamping)
	}
	d.choose("simulation/solver", "impulse")
	d.frames(2)
	if s := set(); s.Solver != sim.Impulse {
		t.Errorf("solver %v after choosing impulse", s.Solver)
	}
	if d.enabled("simulation/spring k, N/m") || d.enabled("simulation/direct joints") || !d.enabled("simulation/iterations") {
		t.Error("the impulse solver enables the wrong settings")
	}
}

// The window sleeps by default: the stack falls asleep, the Stats section says how many bodies are
// asleep, and a click on the sleeping checkbox wakes them all and drops the count from the line.
func TestTheWindowPutsARestingStackToSleepAndSaysSo(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"simulation", "stats"}})
	d.frames(90)
	var asleep, n int
	d.world(func(w *sim.World) { asleep, n = w.Stats.Asleep, w.Bodies.Len() })
	if asleep != n-1 || d.a.stats.asleep != asleep {
		t.Fatalf("after 1.5 s: %d of %d bodies asleep, the Stats line says %d", asleep, n, d.a.stats.asleep)
	}
	d.click("simulation/sleeping")
	d.frames(2)
	d.world(func(w *sim.World) { asleep = w.Stats.Asleep })
	if asleep != 0 || d.a.stats.asleep != -1 {
		t.Errorf("sleeping clicked off: %d asleep, the Stats line's count %d (want none)", asleep, d.a.stats.asleep)
	}
}

// The contact cache's checkbox turns the cache off and on, and its effect is the step's: with it on
// a resting stack's touching pairs reuse their points (sim.Stats.Reused), with it off none does. It
// is greyed under Jacobi, whose CPU step matches the GPU's narrow phase.
func TestContactCacheCheckboxByRealInput(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	set := func() (s sim.Settings) { d.world(func(w *sim.World) { s = w.Settings() }); return }
	stats := func() (touching, reused int) {
		d.world(func(w *sim.World) { touching, reused = w.Stats.Manifolds, w.Stats.Reused })
		return
	}
	d.click("simulation/sleeping") // the stack would fall asleep and touch nothing
	d.frames(5)
	if set().Sleep {
		t.Fatal("sleeping still on after clicking it off")
	}
	if n, r := stats(); n == 0 || r != n {
		t.Errorf("cache on, the resting stack: %d of %d touching pairs reused their points, want all", r, n)
	}
	d.click("simulation/contact cache")
	d.frames(3)
	if !set().NoContactCache {
		t.Fatal("the contact cache still on after clicking it off")
	}
	if n, r := stats(); n == 0 || r != 0 {
		t.Errorf("cache off: %d of %d touching pairs reused their points, want none", r, n)
	}
	d.click("simulation/contact cache")
	d.frames(3)
	if n, r := stats(); set().NoContactCache || n == 0 || r != n {
		t.Errorf("cache back on (off %v): %d of %d touching pairs reused their points, want all", set().NoContactCache, r, n)
	}
	d.choose("simulation/solver", "jacobi")
	d.frames(2)
	if d.enabled("simulation/contact cache") {
		t.Error("Jacobi offers the contact cache, which it does not use")
	}
}

// The CPU workers typed into the panel take effect, and the Stats line says how the step uses them: a
// trial of coarse against fine grains runs in the first steps after the change (sim.World.Grains),
// and with one worker the line goes.
func TestWorkersStatsLineByRealInput(t *testing.T) {
	d := drive(t, Options{Scene: "pyramid20"})
	d.click("simulation/sleeping") // a sleeping pyramid steps nothing worth a trial
	d.setText("simulation/CPU workers", 0, 1, "4")
	trials := func() (n int) { d.world(func(w *sim.World) { n = w.Grains().Trials }); return }
	for range 120 {
		if trials() > 0 {
			break
		}
		d.frames(1)
	}
	d.frames(1)
	if n := trials(); n == 0 || d.a.stats.workers != 4 || d.a.stats.grains.Trials != n {
		t.Errorf("4 workers typed: %d trials of the grains in 120 steps; the Stats line's workers %d and trials %d",
			n, d.a.stats.workers, d.a.stats.grains.Trials)
	}
	if d.a.stats.grains.Coarse <= 0 || d.a.stats.grains.FineStep <= 0 {
		t.Errorf("the Stats line's trial: fine %v, coarse %v; want both measured", d.a.stats.grains.FineStep, d.a.stats.grains.Coarse)
	}
	d.setText("simulation/CPU workers", 0, 1, "1")
	d.frames(2)
	if d.a.stats.workers != 1 {
		t.Errorf("1 worker typed: the Stats line's workers %d", d.a.stats.workers)
	}
}

// A world of islands (twelve stacks apart) on 4 workers typed into the panel: the steps of the
// grains' trial that run with fine grains run the sub-steps island by island (where the build has the
// wide passes), and the Stats line says so ("island by island in N regions") on those steps.
func TestIslandsStatsLineByRealInput(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"name": "stacks apart", "bodies": [{"name": "ground", "type": "static", "shape": {"type": "plane", "normal": [0, 1, 0]}}`)
	for k := range 12 {
		for i := range 3 {
			b.WriteString(`, {"shape": {"type": "box", "halfExtents": [0.3, 0.3, 0.3]}, "mass": 1, "position": [` +
				strconv.Itoa(2*(k%4)-3) + `, ` + strconv.FormatFloat(0.3+0.6*float64(i), 'f', 1, 64) + `, ` + strconv.Itoa(2*(k/4)-2) + `]}`)
		}
	}
	b.WriteString(`]}`)
	file := filepath.Join(t.TempDir(), "stacks.json")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	d := drive(t, Options{Scene: file})
	d.click("simulation/sleeping") // awake, so that the trials run
	d.setText("simulation/CPU workers", 0, 1, "4")
	most, fine := 0, 0
	for range 80 {
		d.frames(1)
		most = max(most, d.a.stats.islands)
		if d.a.stats.grains.Trials > 0 {
			break
		}
		d.world(func(w *sim.World) {
			if w.Stats.FineGrains {
				fine++
			}
		})
	}
	if fine == 0 {
		t.Fatal("no step of the trial ran with fine grains")
	}
	if want := 4 * b2i(sim.WideAvailable()); most != want {
		t.Errorf("the Stats line's regions of islands: at most %d over the trial's steps, want %d", most, want)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
