package ui

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
	"tumble/ui/command"
)

// The window tests need a display (make test runs them under xvfb-run). Without one they skip, unless
// TUMBLE_REQUIRE_DISPLAY is set, when they fail: CI must not pass by skipping them.

var mainCalls = make(chan func())

// TestMain runs the tests on other goroutines and serves GL work on the main one, which package ui's
// init locked to the main OS thread.
func TestMain(m *testing.M) {
	done := make(chan int)
	go func() { done <- m.Run() }()
	for {
		select {
		case f := <-mainCalls:
			f()
		case code := <-done:
			os.Exit(checkEveryControlDriven(code))
		}
	}
}

// checkEveryControlDriven runs after every test: every control some frame showed must have been driven
// by a real-input test (whatever file it is in). It is skipped when -run picks tests, when a test
// failed already, and without a display. A new control without a real-input test fails the package.
func checkEveryControlDriven(code int) int {
	if f := flag.Lookup("test.run"); code != 0 || (f != nil && f.Value.String() != "") || CheckDisplay() != nil {
		return code
	}
	if u := uncovered(); len(u) > 0 {
		fmt.Fprintf(os.Stderr, "--- FAIL: every control driven by real input: %d controls no real-input test drives:\n%v\n", len(u), u)
		return 1
	}
	return code
}

func onMain(f func()) {
	ch := make(chan struct{})
	mainCalls <- func() { defer close(ch); f() }
	<-ch
}

func needDisplay(t *testing.T) {
	t.Helper()
	if err := CheckDisplay(); err != nil {
		if os.Getenv("TUMBLE_REQUIRE_DISPLAY") != "" {
			t.Fatalf("TUMBLE_REQUIRE_DISPLAY is set but: %v", err)
		}
		t.Skipf("%v (run under xvfb-run)", err)
	}
}

// run runs the app headless for frames frames and returns the image and the app.
func run(t *testing.T, opt Options) (*image.RGBA, *App) {
	t.Helper()
	var app *App
	opt = withBackends(opt)
	setup := opt.Setup
	opt.Setup = func(a *App) {
		app = a
		if setup != nil {
			setup(a)
		}
	}
	var img *image.RGBA
	var err error
	onMain(func() { img, err = Run(opt) })
	if err != nil {
		t.Fatal(err)
	}
	return img, app
}

// saturation of a pixel: bodies are coloured, the ground is grey and the sky pale.
func saturation(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	hi := math.Max(float64(r), math.Max(float64(g), float64(b)))
	lo := math.Min(float64(r), math.Min(float64(g), float64(b)))
	if hi == 0 {
		return 0
	}
	return (hi - lo) / hi
}

func luma(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.3*float64(r) + 0.59*float64(g) + 0.11*float64(b)) / 65535
}

// projected returns the pixels of the dynamic bodies' centres that fall inside the 3D view and that
// the eye sees over no static body (a body inside the rain preset's bin is hidden by its walls).
func projected(a *App) [][2]int {
	vw, vh := a.viewport()
	eye := a.Cam.Eye()
	var px [][2]int
	a.S.View(func(w *sim.World) {
		b := &w.Bodies
		// The occluders: the static bodies, the ground planes left out.
		statics := sim.QueryFilter{Types: sim.TypesOf(sim.Static), Accept: func(h sim.Handle) bool {
			i, _ := w.Index(h)
			return b.Shape[i].Kind != geom.Plane
		}}
		for i := range b.Len() {
			if b.Type[i] != sim.Dynamic {
				continue
			}
			x, y, ok := a.Cam.Project(b.Position[i], vw, vh)
			if !ok || x < 2 || y < 2 || x >= vw-2 || y >= vh-2 {
				continue
			}
			to := b.Position[i].Sub(eye)
			if _, ok := w.RayCast(eye, to, to.Len(), statics); ok {
				continue
			}
			px = append(px, [2]int{int(x), int(y)})
		}
	})
	return px
}

func TestAppRendersEveryPresetWithItsBodiesWhereTheyAreAndThePanel(t *testing.T) {
	needDisplay(t)
	for _, name := range scenes.Names() {
		if name == "pile100k" || name == "pile1m" {
			continue // GPU benchmark piles: 100,000 and 1,000,000 boxes are the pile's grid, wider
		}
		t.Run(name, func(t *testing.T) {
			// The bodies are what is checked: without the joints layer, drawn over them (a car's wheel
			// hinges at the wheels' centres), and without a selection, drawn white (the car's scene
			// selects the chassis it follows).
			plain := func(a *App) { a.Debug.Joints, a.Selected = false, sim.Handle{} }
			img, a := run(t, Options{Scene: name, Width: 960, Height: 600, Frames: 3, Setup: plain})
			px := projected(a)
			if len(px) == 0 {
				t.Fatal("no dynamic body in view")
			}
			coloured := 0
			for _, p := range px {
				if saturation(img.At(p[0], p[1])) > 0.3 {
					coloured++
				}
			}
			// Every body centre in view shows a body colour (the body, or one in front of it).
			if frac := float64(coloured) / float64(len(px)); frac < 0.9 {
				t.Errorf("%d of %d body centres show a body colour", coloured, len(px))
			}
			// Above the scene there is no body: the pixel is grey ground or pale sky.
			above := a.S.AboveScene().Add(mgl32.Vec3{0, 2, 0})
			vw, vh := a.viewport()
			if x, y, ok := a.Cam.Project(above, vw, vh); ok && x >= 0 && y >= 0 && x < vw && y < vh {
				if c := img.At(int(x), int(y)); saturation(c) > 0.3 {
					t.Errorf("pixel %v above the scene is %v, a body colour", [2]float32{x, y}, c)
				}
			}
			// The panel: ImGui's dark window on the right, with lighter text in it.
			dark, light := 0, 0
			for y := 40; y < 590; y += 3 {
				for x := 960 - PanelWidth + 10; x < 950; x += 3 {
					switch l := luma(img.At(x, y)); {
					case l < 0.12:
						dark++
					case l > 0.6:
						light++
					}
				}
			}
			if dark < 2000 || light < 100 {
				t.Errorf("panel region: %d dark and %d light samples; no panel?", dark, light)
			}
		})
	}
}

func TestSpawningAHundredBoxesThroughTheUIAddsBodiesThatFallAndLand(t *testing.T) {
	needDisplay(t)
	var before int
	_, a := run(t, Options{Scene: "stack", Width: 320, Height: 200, Frames: 360, NoPanel: true, Setup: func(a *App) {
		a.S.View(func(w *sim.World) { before = w.Bodies.Len() })
		// The cursor over the ground 6 m from the stack, and the Spawn section's settings.
		vw, vh := a.viewport()
		x, y, _ := a.Cam.Project(mgl32.Vec3{6, 0, 6}, vw, vh)
		a.mouseX, a.mouseY = float64(x), float64(y)
		p := &a.panel
		p.init()
		p.spawn.Kind, p.spawn.Pattern, p.spawn.Count, p.spawn.AtCursor = 0, int32(command.Rain), 100, true
		p.spawn.Size = [3]float32{0.25, 0.25, 0.25}
		sp := a.SpawnSpec()
		if sp.At.Sub(mgl32.Vec3{6, 0, 6}).Len() > 0.2 {
			t.Errorf("spawn point under the cursor %v, want about (6, 0, 6)", sp.At)
		}
		a.do("spawn", command.Spawn(sp))
	}})
	a.S.View(func(w *sim.World) {
		b := &w.Bodies
		if b.Len() != before+100 {
			t.Fatalf("%d bodies after spawning 100 onto %d", b.Len(), before)
		}
		for i := before; i < b.Len(); i++ {
			if y := b.Position[i][1]; y < 0.2 || y > 3 {
				t.Errorf("%s at height %.2f after 6 s: not landed", b.Name[i], y)
			}
			if v := b.Velocity[i].Len(); v > 0.5 {
				t.Errorf("%s still moving at %.2f m/s", b.Name[i], v)
			}
		}
	})
}

// click presses and releases the left button over the world point p.
func click(a *App, p mgl32.Vec3) {
	vw, vh := a.viewport()
	x, y, _ := a.Cam.Project(p, vw, vh)
	a.mouseX, a.mouseY = float64(x), float64(y)
	a.mouseButton(glfw.MouseButtonLeft, glfw.Press, 0)
	a.mouseButton(glfw.MouseButtonLeft, glfw.Release, 0)
}

func TestHingeBetweenTwoClickedBodies(t *testing.T) {
	needDisplay(t)
	var top, below sim.Handle
	_, a := run(t, Options{Scene: "stack", Width: 960, Height: 600, Frames: 30, Setup: func(a *App) {
		a.S.View(func(w *sim.World) {
			top, _ = w.Find("box19")
			below, _ = w.Find("box18")
		})
		// Joints section: pick A then B by clicking the two boxes' front faces.
		a.panel.init()
		a.panel.joint.mode = 1
		click(a, mgl32.Vec3{0, 19.5, 0.5})
		click(a, mgl32.Vec3{0, 18.5, 0.5})
		if a.panel.joint.a != top || a.panel.joint.b != below {
			t.Fatalf("picked %v and %v, want box19 %v and box18 %v", a.panel.joint.a, a.panel.joint.b, top, below)
		}
		a.panel.joint.typ, a.panel.joint.anchor, a.panel.joint.axis = 0, 1, 2 // hinge, midpoint, z
		a.do("joint", command.Join(a.JoinSpec()))
		a.Debug.Joints = true
	}})
	a.S.View(func(w *sim.World) {
		if w.NumJoints() != 1 {
			t.Fatalf("%d joints", w.NumJoints())
		}
		j := w.Joint(0)
		if j.Type != sim.Hinge || j.BodyA != top || j.BodyB != below || j.Axis != (sim.Vec3{0, 0, 1}) ||
			j.Anchor.Sub(sim.Vec3{0, 19, 0}).Len() > 0.01 {
			t.Errorf("joint %+v", j)
		}
		ia, _ := w.Index(top)
		ib, _ := w.Index(below)
		if d := w.Bodies.Position[ia].Sub(w.Bodies.Position[ib]).Len(); math.Abs(float64(d)-1) > 0.02 {
			t.Errorf("hinged boxes %.3f m apart, want 1", d)
		}
	})
}

func TestFrictionToggleChangesTheInclineInTheApp(t *testing.T) {
	needDisplay(t)
	moved := func(friction bool) float32 {
		var h sim.Handle
		var p0 sim.Vec3
		_, a := run(t, Options{Scene: "incline", Width: 320, Height: 200, Frames: 90, NoPanel: true, Setup: func(a *App) {
			a.S.View(func(w *sim.World) {
				for i, n := range w.Bodies.Name {
					if strings.HasPrefix(n, "ramp25_") && strings.HasSuffix(n, "sticks") {
						h, p0 = w.HandleAt(i), w.Bodies.Position[i]
					}
				}
			})
			a.do("friction", command.SetFriction(friction))
		}})
		var d float32
		a.S.View(func(w *sim.World) {
			i, _ := w.Index(h)
			d = w.Bodies.Position[i].Sub(p0).Len()
		})
		return d
	}
	if with, without := moved(true), moved(false); with > 0.05 || without < 0.5 {
		t.Errorf("the 25-degree box that sticks moved %.3f m with friction and %.3f m without", with, without)
	}
}

func TestContactsTableOfAClickedBodyMatchesTheSimulation(t *testing.T) {
	needDisplay(t)
	_, a := run(t, Options{Scene: "pyramid", Width: 1280, Height: 800, Frames: 20, Setup: func(a *App) {
		click(a, mgl32.Vec3{0, 2.55, 0.5}) // a box of the pyramid's third row, from the front
	}})
	a.S.View(func(w *sim.World) {
		i, ok := w.Index(a.Selected)
		if !ok {
			t.Fatal("nothing selected by the click")
		}
		if w.Bodies.Shape[i].Kind != geom.Box {
			t.Fatalf("selected %s", w.Bodies.Name[i])
		}
		// The table as drawn in the last frame is the simulation's contact list for that body, in full.
		var want []sim.ContactPoint
		for _, c := range w.Contacts(nil) {
			if c.BodyA == i || c.BodyB == i {
				want = append(want, c)
			}
		}
		rows := a.panel.rows
		if len(want) == 0 || len(rows) != len(want) {
			t.Fatalf("%s: table has %d rows, simulation %d contacts", w.Bodies.Name[i], len(rows), len(want))
		}
		for _, c := range want {
			found := false
			for _, r := range rows {
				found = found || (r.IA == c.BodyA && r.IB == c.BodyB && r.Point == c.Position &&
					r.NormalImp == c.NormalImpulse && r.Friction == c.FrictionImpulse.Len())
			}
			if !found {
				t.Errorf("contact %+v not in the table", c)
			}
		}
	})
}

func TestTheWindowLoopStepsOnItsOwnGoroutineInRealTime(t *testing.T) {
	needDisplay(t)
	var a *App
	onMain(func() {
		_, err := Run(Options{Scene: "stack", Width: 640, Height: 400, For: 2 * time.Second, Setup: func(app *App) {
			a = app
			a.Key(glfw.KeyF1) // the help overlay
			a.Key(glfw.KeyB)  // a ball
		}})
		if err != nil {
			t.Error(err)
		}
	})
	a.S.View(func(w *sim.World) {
		// 2 s at 60 Hz is 120 steps; a loaded machine may fall behind (at most 4 steps a frame).
		if w.StepCount < 20 || w.StepCount > 125 {
			t.Errorf("%d steps in 2 s of wall time", w.StepCount)
		}
		if w.Bodies.Len() != 22 {
			t.Errorf("%d bodies: the B key's ball is missing", w.Bodies.Len())
		}
	})
	if _, err := os.Stat("imgui.ini"); err == nil {
		t.Error("imgui.ini written to the working directory")
	}
}

// The Stats split counts the frame's wait for the session's lock (the simulation goroutine stepping)
// apart from the panel and the fill, which had it inside them: on the pile, "panel" 148 ms and "fill"
// 235 ms while it ran, 0.6 and 14 paused.
func TestFrameSplitCountsTheWaitForTheStepApart(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"stats"}})
	held := make(chan struct{})
	go d.a.S.Peek(func(*sim.World) { close(held); time.Sleep(150 * time.Millisecond) }) // a step in progress
	<-held
	onMain(func() { d.a.runFrame() })
	ft := d.a.lastSplit.FrameTiming
	if ft.Wait < 100*time.Millisecond {
		t.Errorf("the frame waited %v for a 150 ms step; want at least 100 ms counted", ft.Wait)
	}
	if ft.Panel > 100*time.Millisecond || ft.Fill > 100*time.Millisecond {
		t.Errorf("panel %v, fill %v: the wait is counted in them", ft.Panel, ft.Fill)
	}
}
