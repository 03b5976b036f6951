package ui

import (
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"tumble/sim"
)

// X delivers a quick Ctrl+A (xdotool key --delay 1 ctrl+a) as Ctrl down, A down, Ctrl up, A up. With
// a frame boundary after Ctrl's press, the next frame took A's press and Ctrl's release together and
// ImGui saw a plain A: the field's text was not selected, and what was typed next was appended.
func TestAQuickCtrlAReleasedBeforeTheAStillSelectsAll(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	for round := range 3 {
		d.click("scene/file")
		d.a.onKey(glfw.KeyLeftControl, glfw.Press, glfw.ModControl)
		d.frames(1)
		d.a.onKey(glfw.KeyA, glfw.Press, glfw.ModControl)
		d.a.onKey(glfw.KeyLeftControl, glfw.Release, glfw.ModControl)
		d.a.onKey(glfw.KeyA, glfw.Release, 0)
		d.typeText("q.json")
		d.frames(1)
		d.tap(glfw.KeyEnter)
		d.settle()
		if got := d.a.panel.path; got != "q.json" {
			t.Fatalf("round %d: the file field holds %q after Ctrl+A and typing q.json", round, got)
		}
		d.typeInto("scene/file", "stack.json")
	}
}

// The "no shadows" switch is written to the preferences and read back by the next run, in a config
// directory of its own ($XDG_CONFIG_HOME, as cmd/sandbox finds it).
func TestNoShadowsIsRestoredByTheNextRun(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	prefs := PrefsPath()
	d := drive(t, Options{Scene: "stack", Prefs: prefs, Open: []string{"debug"}})
	if d.a.NoShadows {
		t.Fatalf("shadows off in a fresh config directory")
	}
	d.click("debug/no shadows")
	if !d.a.NoShadows {
		t.Fatalf("clicking no shadows left shadows on")
	}
	onMain(d.closeAll)
	d.closeAll = func() {}
	if data, err := os.ReadFile(prefs); err != nil || !strings.Contains(string(data), `"no_shadows": true`) {
		t.Fatalf("prefs %s: %v\n%s", prefs, err, data)
	}
	e := drive(t, Options{Scene: "stack", Prefs: prefs})
	if !e.a.NoShadows {
		t.Errorf("next run: shadows back on; the saved no_shadows was not restored")
	}
}

// The window's title names the scene loaded from the browser, as the X server reports it.
func TestWindowTitleFollowsTheLoadedScene(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Skip("no xdotool")
	}
	titled := func(name string) bool {
		return exec.Command("xdotool", "search", "--name", "^Tumble: "+name+"$").Run() == nil
	}
	if !titled("stack") {
		t.Fatalf("no window titled \"Tumble: stack\"")
	}
	d.click("presets/###dominoes")
	d.frames(2)
	if d.a.S.Name() != "dominoes" {
		t.Fatalf("scene %s after clicking dominoes", d.a.S.Name())
	}
	if !titled("dominoes") || titled("stack") {
		t.Errorf("after loading dominoes: titled dominoes %v, still titled stack %v", titled("dominoes"), titled("stack"))
	}
}

// At 720 px wide (the panel at its default 400 px) a contact's numbers are all inside the table's
// visible width: the impulses, the last of them, too.
func TestContactsTableNumbersFitA720PxWindow(t *testing.T) {
	d := drive(t, Options{Scene: "pyramid", Width: 720, Height: 800, Select: "box0_0_0", Open: []string{"inspect"}})
	d.frames(5)
	if len(d.a.panel.rows) == 0 {
		t.Fatalf("no contact rows for box0_0_0")
	}
	for _, col := range []string{"contacts/#0/###pair", "contacts/#0/point", "contacts/#0/impulses"} {
		it := d.reveal(col)
		if right := it.Clip[1].X - imguiScrollbar; !it.Visible || it.Max.X > right {
			t.Errorf("%s: x %.0f to %.0f, the table shows up to %.0f", col, it.Min.X, it.Max.X, right)
		}
	}
}

// imguiScrollbar is Dear ImGui's default scroll bar width (px), which a table's visible width leaves out.
const imguiScrollbar = 14

// Save replay and Open replay say how they went in the status line, seen with the Time section closed.
func TestReplaySaveAndOpenReachTheStatusLine(t *testing.T) {
	t.Chdir(t.TempDir())
	d := drive(t, Options{Scene: "stack", Open: []string{"time"}})
	d.frames(20)
	d.typeInto("time/replay file", "r.replay")
	d.click("time/Save replay")
	if m := d.a.panel.message; d.a.panel.isErr || !strings.Contains(m, "saved") || !strings.Contains(m, "r.replay") {
		t.Fatalf("status line after Save replay: %q (error %v)", m, d.a.panel.isErr)
	}
	d.typeInto("time/open file", "r.replay")
	d.click("time/Open replay")
	d.open("Time", false)
	for k := 0; k < 200 && d.a.panel.time.opening != nil; k++ {
		d.frames(1)
	}
	if m := d.a.panel.message; d.a.panel.isErr || !strings.Contains(m, "opened r.replay") {
		t.Errorf("status line after Open replay: %q (error %v)", m, d.a.panel.isErr)
	}
	d.open("Time", true)
	d.typeInto("time/open file", "missing.replay")
	d.click("time/Open replay")
	for k := 0; k < 200 && d.a.panel.time.opening != nil; k++ {
		d.frames(1)
	}
	if m := d.a.panel.message; !d.a.panel.isErr || !strings.Contains(m, "missing.replay") {
		t.Errorf("status line after opening a missing file: %q (error %v)", m, d.a.panel.isErr)
	}
}

// A hinge's limits and motor speed are typed in degrees when it is made, as the inspector shows them;
// a piston's in metres.
func TestJointLimitsAreTypedInTheUnitsTheyAreShownIn(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"joints"}})
	d.frames(20)
	d.click("joints/Pick A then B")
	d.clickBody("box3")
	d.clickBody("box2")
	d.choose("joints/type", "hinge")
	d.click("joints/limits")
	d.setText("joints/lo, hi, deg", 0, 2, "-20")
	d.setText("joints/lo, hi, deg", 1, 2, "45")
	d.click("joints/motor")
	d.setText("joints/speed deg/s, max N m", 0, 2, "90")
	d.setText("joints/speed deg/s, max N m", 1, 2, "50")
	var n int
	d.world(func(w *sim.World) { n = w.NumJoints() })
	d.click("joints/Create joint")
	j, _ := d.joint(n)
	deg := float32(math.Pi / 180)
	if j.Type != sim.Hinge || !near(j.Limits[0], -20*deg, 1e-4) || !near(j.Limits[1], 45*deg, 1e-4) ||
		!near(j.Motor.Speed, 90*deg, 1e-4) || j.Motor.MaxForce != 50 {
		t.Fatalf("hinge made with limits %v rad, motor %+v (typed -20..45 deg, 90 deg/s, 50 N m): %s", j.Limits, j.Motor, d.a.panel.message)
	}
	if !d.has("selected/lo, hi, deg##own") || !d.has("selected/speed deg/s, max N m##own") {
		t.Errorf("the inspector does not show the new hinge's limits in deg and its motor in deg/s")
	}
	// A piston's travel in metres.
	d.click("joints/Pick A then B")
	d.clickBody("box1")
	d.clickBody("box0")
	d.choose("joints/type", "piston")
	d.setText("joints/lo, hi, m", 1, 2, "0.25")
	d.click("joints/Create joint")
	if j, _ = d.joint(n + 1); j.Type != sim.Piston || !near(j.Limits[1], 0.25, 1e-5) {
		t.Errorf("piston made with limits %v m (typed 0.25)", j.Limits)
	}
	// Its inspector takes metres and metres per second.
	d.setText("selected/lo, hi, m##own", 0, 2, "-0.1")
	d.setText("selected/speed m/s, max N##own", 0, 2, "0.5")
	if j, _ = d.joint(n + 1); !near(j.Limits[0], -0.1, 1e-5) || !near(j.Motor.Speed, 0.5, 1e-5) {
		t.Errorf("piston's limits %v m, motor %+v after typing -0.1 m and 0.5 m/s", j.Limits, j.Motor)
	}
}
