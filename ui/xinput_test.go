package ui

import (
	"os"
	"os/exec"
	"strconv"
	"testing"

	"tumble/sim"
)

// xdotool sends real X events (XTest) to the display the tests run on.
func xdotool(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v: %v: %s", args, err, out)
	}
}

// The harness calls the functions GLFW's callbacks call; this test goes one step further out: real X
// events from xdotool, through the X server and GLFW, into the window. A click on Spawn spawns, a key
// reaches the view's bindings, and the wheel scrolls the panel.
func TestRealXEventsReachTheApp(t *testing.T) {
	needDisplay(t)
	if _, err := exec.LookPath("xdotool"); err != nil {
		if os.Getenv("TUMBLE_REQUIRE_DISPLAY") != "" {
			t.Fatal("xdotool is not installed (make deps installs it)")
		}
		t.Skip("no xdotool")
	}
	d := drive(t, Options{Scene: "stack", Open: []string{"spawn"}})
	var wx, wy int
	onMain(func() { wx, wy = d.a.win.GetPos() })
	at := func(it Item) (string, string) {
		x, y := it.Centre()
		return strconv.Itoa(wx + int(x)), strconv.Itoa(wy + int(y))
	}
	var before, after int
	d.world(func(w *sim.World) { before = w.Bodies.Len() })
	x, y := at(d.reveal("spawn/Spawn"))
	xdotool(t, "mousemove", x, y)
	d.frames(3)
	xdotool(t, "click", "1")
	d.frames(4)
	d.world(func(w *sim.World) { after = w.Bodies.Len() })
	if after != before+int(d.a.panel.spawn.Count) {
		t.Errorf("%d bodies after an X click on Spawn, were %d", after, before)
	}
	paused := d.a.S.Paused()
	vw, vh := d.a.viewport()
	xdotool(t, "mousemove", strconv.Itoa(wx+int(vw/2)), strconv.Itoa(wy+int(vh/2)))
	d.frames(2)
	xdotool(t, "key", "space")
	d.frames(3)
	if d.a.S.Paused() == paused {
		t.Errorf("the Space key did not toggle pause")
	}
	xdotool(t, "key", "Tab")
	d.frames(3)
	if !d.a.PanelHidden {
		t.Errorf("the Tab key did not hide the panel")
	}
}
