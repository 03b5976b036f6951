package ui

import (
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
)

// sendBallAway puts the wall preset's ball 300 m from the wall, at rest on the ground: where it ends
// up after rolling for 40 s.
func sendBallAway(a *App) {
	a.S.View(func(w *sim.World) {
		h, _ := w.Find("ball")
		if err := w.SetPose(h, sim.Vec3{300, 0.5, 0}, mgl32.QuatIdent()); err != nil {
			panic(err)
		}
		if err := w.SetVelocity(h, sim.Vec3{}, sim.Vec3{}); err != nil {
			panic(err)
		}
	})
}

// brickSpan is the fraction of the view's width the wall's bricks' centres cover on screen.
func (d *driver) brickSpan() float32 {
	vw, vh := d.a.viewport()
	lo, hi := float32(1e9), float32(-1e9)
	d.world(func(w *sim.World) {
		for i := range w.Bodies.Len() {
			if strings.HasPrefix(w.Bodies.Name[i], "brick") {
				if x, _, ok := d.a.Cam.Project(w.Bodies.Position[i], vw, vh); ok {
					lo, hi = min(lo, x), max(hi, x)
				}
			}
		}
	})
	return (hi - lo) / vw
}

// inView reports whether the named body's centre is on screen.
func (d *driver) inView(name string) bool {
	vw, vh := d.a.viewport()
	var p sim.Vec3
	d.world(func(w *sim.World) {
		h, _ := w.Find(name)
		i, _ := w.Index(h)
		p = w.Bodies.Position[i]
	})
	x, y, ok := d.a.Cam.Project(p, vw, vh)
	return ok && x >= 0 && y >= 0 && x < vw && y < vh
}

// With the wall's ball 300 m away, F frames the wall (not a speck beside a ball), says in the status
// line that the ball was left out, and F again frames the ball too.
func TestFrameAllLeavesOutABodyFarAwayAndSaysSo(t *testing.T) {
	d := drive(t, Options{Scene: "wall", Setup: sendBallAway})
	vw, vh := d.a.viewport()
	d.move(float64(vw/2), float64(vh/2))
	d.tap(glfw.KeyF)
	d.settle()
	if s := d.brickSpan(); s < 0.3 {
		t.Errorf("after F the wall spans %.0f%% of the view's width, want at least 30%%", 100*s)
	}
	if m := d.a.panel.message; !strings.Contains(m, "1 far body left out") || !strings.Contains(m, "ball") {
		t.Errorf("status line after F: %q, want it to say the ball was left out", m)
	}
	if d.inView("ball") {
		t.Errorf("the ball 300 m away is in view after F")
	}
	d.tap(glfw.KeyF)
	d.settle()
	if !d.inView("ball") || !strings.Contains(d.a.panel.message, "far ones too") {
		t.Errorf("F again: ball in view %v, status %q", d.inView("ball"), d.a.panel.message)
	}
}

// A scene saved with a body 300 m away opens framed on the rest, not shrunk to a speck.
func TestReopeningASavedSceneWithAFarBodyFramesTheBulk(t *testing.T) {
	t.Chdir(t.TempDir())
	d := drive(t, Options{Scene: "wall", Setup: sendBallAway})
	d.typeInto("scene/file", "far.json")
	d.click("scene/Save current state")
	d.click("presets/###stack")
	d.typeInto("scene/file", "far.json")
	d.click("scene/Open")
	if d.a.S.Name() != "far.json" {
		t.Fatalf("scene %q after opening far.json: %s", d.a.S.Name(), d.a.panel.message)
	}
	d.frames(2)
	if s := d.brickSpan(); s < 0.3 {
		t.Errorf("the reopened wall spans %.0f%% of the view's width, want at least 30%%", 100*s)
	}
	if !strings.Contains(d.a.panel.message, "far body left out") {
		t.Errorf("status line after opening: %q", d.a.panel.message)
	}
}

// The wheel zooms towards the point under the cursor, which stays under it, not towards the target.
func TestWheelZoomsTowardsThePointUnderTheCursor(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	vw, vh := d.a.viewport()
	cx, cy := vw*0.2, vh*0.75 // off the view's middle, on the ground
	d.move(float64(cx), float64(cy))
	d.frames(1)
	var p mgl32.Vec3
	onMain(func() { p = d.a.groundAlong(d.a.cursorRay()) })
	d0, t0 := d.a.Cam.Distance, d.a.Cam.Target
	d.wheel(3)
	d.settle()
	if d.a.Cam.Distance > 0.8*d0 {
		t.Fatalf("distance %.2f after three notches in, was %.2f", d.a.Cam.Distance, d0)
	}
	x, y, ok := d.a.Cam.Project(p, vw, vh)
	if !ok || !near(x, cx, 2) || !near(y, cy, 2) {
		t.Errorf("the point under the cursor moved from (%.0f, %.0f) to (%.0f, %.0f) while zooming in", cx, cy, x, y)
	}
	if d.a.Cam.Target == t0 {
		t.Errorf("the target stayed at %v: the zoom went to the target", t0)
	}
	d.wheel(-3) // and back out, about the same point
	d.settle()
	if x, y, _ = d.a.Cam.Project(p, vw, vh); !near(x, cx, 2) || !near(y, cy, 2) || !near(d.a.Cam.Distance, d0, 1e-3*d0) {
		t.Errorf("zoomed back out: the point at (%.0f, %.0f), distance %.3f (was %.3f)", x, y, d.a.Cam.Distance, d0)
	}
}

// Home puts the camera back as the scene opened: turned and zoomed away, one key returns.
func TestHomeResetsTheView(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	cam0 := d.a.Cam
	vw, vh := d.a.viewport()
	d.move(float64(vw/2), float64(vh/2))
	d.frames(1)
	d.a.onMouseButton(glfw.MouseButtonRight, glfw.Press, 0)
	d.frames(1)
	for s := 1; s <= 5; s++ {
		d.move(float64(vw/2)+40*float64(s), float64(vh/2)+10*float64(s))
		d.frames(1)
	}
	d.a.onMouseButton(glfw.MouseButtonRight, glfw.Release, 0)
	d.wheel(4)
	d.settle()
	if d.a.Cam == cam0 {
		t.Fatalf("the camera did not move")
	}
	d.tap(glfw.KeyHome)
	d.settle()
	c := d.a.Cam
	if !near(c.Yaw, cam0.Yaw, 1e-5) || !near(c.Pitch, cam0.Pitch, 1e-5) || !near(c.Distance, cam0.Distance, 0.01*cam0.Distance) ||
		c.Target.Sub(cam0.Target).Len() > 0.05 { // the stack settles a little meanwhile
		t.Errorf("after Home: %+v, as opened: %+v", c, cam0)
	}
}
