package ui

import (
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"tumble/sim"
)

// typeSlowly types s one character a frame, with steps between, as a person types while the
// simulation runs.
func (d *driver) typeSlowly(s string) {
	for _, r := range s {
		d.a.onChar(r)
		d.frames(3)
	}
}

// openAsText ctrl+clicks the k-th of n fields of a drag or slider, which turns it into a text field,
// and selects its text, leaving it open.
func (d *driver) openAsText(suffix string, k, n int) {
	d.t.Helper()
	it := d.reveal(suffix)
	mark(it)
	_, cy := it.Centre()
	d.move(d.fieldX(it, k, n), float64(cy))
	d.frames(1)
	d.a.onKey(glfw.KeyLeftControl, glfw.Press, glfw.ModControl)
	d.frames(1)
	d.press(glfw.MouseButtonLeft)
	d.frames(1)
	d.release(glfw.MouseButtonLeft)
	d.frames(1)
	d.tap(glfw.KeyA)
	d.frames(1)
	d.a.onKey(glfw.KeyLeftControl, glfw.Release, 0)
	d.settle()
}

// Typing 20000 into a hanging joint's break force, one key a frame while the pendulum swings, breaks
// nothing: the 2 on the way, less than the joint carries, is never applied, nor are 20, 200 and 2000,
// and Enter applies 20000 to the joint that was picked.
func TestTypingABreakForceBreaksNoJointOnTheWay(t *testing.T) {
	d := drive(t, Options{Scene: "pendulum", Open: []string{"joints"}})
	d.frames(10)
	count := func() (n int) { d.world(func(w *sim.World) { n = w.NumJoints() }); return }
	if n := count(); n != 2 {
		t.Fatalf("the pendulum has %d joints, want 2", n)
	}
	_, st := d.joint(0)
	if !(st.Force > 2) {
		t.Fatalf("set-up: joint 0 carries %.1f N, too little for a break force of 2 N to break it", st.Force)
	}
	d.click(d.jointRow(0))
	d.openAsText("selected/break force, N", 0, 1)
	if !imguiWantsText() {
		t.Fatalf("the break force field did not open for typing")
	}
	for i, r := range "20000" {
		d.typeSlowly(string(r))
		if n := count(); n != 2 {
			t.Fatalf("%d joints after typing %q of 20000", n, "20000"[:i+1])
		}
		if j, _ := d.joint(0); j.BreakForce != 0 {
			t.Fatalf("break force %v applied while %q of 20000 is typed", j.BreakForce, "20000"[:i+1])
		}
	}
	d.tap(glfw.KeyEnter)
	d.settle()
	d.frames(30)
	if n := count(); n != 2 {
		t.Fatalf("%d joints after Enter, want 2", n)
	}
	j0, _ := d.joint(0)
	j1, _ := d.joint(1)
	if j0.BreakForce != 20000 || j1.BreakForce != 0 {
		t.Errorf("break forces %v and %v, want 20000 on joint 0 alone", j0.BreakForce, j1.BreakForce)
	}
	if d.a.panel.joint.selected != 0 {
		t.Errorf("the inspector shows joint %d, want 0", d.a.panel.joint.selected)
	}
}

// A mass typed into the Inspect section is applied once, when the field loses focus (a click in the
// view that selects no body and so takes the field away), not on the way (7, then 7., then 7.5).
func TestTypedMassIsAppliedWhenTheFieldLosesFocus(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Select: "box3", Open: []string{"inspect"}})
	mass := func() (m float32) {
		d.world(func(w *sim.World) {
			h, _ := w.Find("box3")
			i, _ := w.Index(h)
			m = w.Bodies.Mass[i]
		})
		return
	}
	m0 := mass()
	d.openAsText("inspect/mass, kg", 0, 1)
	d.typeSlowly("7.5")
	if m := mass(); m != m0 {
		t.Fatalf("mass %v while 7.5 is typed, was %v", m, m0)
	}
	vw, vh := d.a.viewport()
	d.clickView(vw/2, vh-20) // focus leaves the field
	if m := mass(); !near(m, 7.5, 1e-4) {
		t.Errorf("mass %v after the field lost focus, want 7.5", m)
	}
}

// A joint broken by its load while its row is inspected closes the inspector: it does not move on
// to the joint that takes its row (whose fields the user would then edit unawares).
func TestTheInspectorClosesWhenItsJointBreaks(t *testing.T) {
	d := drive(t, Options{Scene: "pendulum", Open: []string{"joints"}})
	d.frames(5)
	d.click(d.jointRow(0))
	_, st := d.joint(0)
	d.setText("selected/break force, N", 0, 1, "1") // joint 0 breaks at the next step
	d.frames(5)
	var n int
	d.world(func(w *sim.World) { n = w.NumJoints() })
	if n != 1 {
		t.Fatalf("%d joints after a 1 N break force on one carrying %.0f N, want 1", n, st.Force)
	}
	if got := d.a.panel.joint.selected; got != -1 {
		t.Errorf("the inspector moved on to joint %d after its joint broke", got)
	}
}

// The same through the X server: xdotool's events (XTest) reach GLFW and the app, a key a few
// frames apart, while the pendulum swings. Both joints hold, and the break force is 20000 N.
func TestTypingABreakForceByRealXEvents(t *testing.T) {
	needDisplay(t)
	if _, err := exec.LookPath("xdotool"); err != nil {
		if os.Getenv("TUMBLE_REQUIRE_DISPLAY") != "" {
			t.Fatal("xdotool is not installed (make deps installs it)")
		}
		t.Skip("no xdotool")
	}
	d := drive(t, Options{Scene: "pendulum", Open: []string{"joints"}})
	d.frames(10)
	d.click(d.jointRow(0))
	it := d.reveal("selected/break force, N")
	var wx, wy int
	onMain(func() { wx, wy = d.a.win.GetPos() })
	_, cy := it.Centre()
	x, y := strconv.Itoa(wx+int(d.fieldX(it, 0, 1))), strconv.Itoa(wy+int(cy))
	xdotool(t, "mousemove", x, y)
	d.frames(3)
	xdotool(t, "keydown", "ctrl")
	d.frames(2)
	xdotool(t, "click", "1")
	d.frames(3)
	xdotool(t, "key", "a")
	d.frames(2)
	xdotool(t, "keyup", "ctrl")
	d.frames(2)
	count := func() (n int) { d.world(func(w *sim.World) { n = w.NumJoints() }); return }
	for i, r := range "20000" {
		xdotool(t, "key", string(r))
		d.frames(4)
		if n := count(); n != 2 {
			t.Fatalf("%d joints after typing %q of 20000 through X", n, "20000"[:i+1])
		}
	}
	xdotool(t, "key", "Return")
	d.frames(10)
	j0, _ := d.joint(0)
	if n := count(); n != 2 || j0.BreakForce != 20000 {
		t.Errorf("%d joints, joint 0's break force %v after Enter; want 2 and 20000", n, j0.BreakForce)
	}
}
