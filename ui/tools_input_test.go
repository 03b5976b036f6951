package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"tumble/sim"
	"tumble/ui/command"
)

// row returns the Outliner row shown with this label in the last frame (one of kind "row").
func (d *driver) row(label string) (Item, bool) {
	for _, it := range d.a.w.items {
		if it.Kind == "row" && it.Label == label {
			return it, true
		}
	}
	return Item{}, false
}

// clickItemAt clicks an item already on screen at the fraction fx of its width.
func (d *driver) clickItemAt(it Item, fx float32) {
	d.t.Helper()
	mark(it)
	_, y := it.Centre()
	d.move(float64(it.Min.X+fx*(it.Max.X-it.Min.X)), float64(y))
	d.frames(1)
	d.press(glfw.MouseButtonLeft)
	d.frames(1)
	d.release(glfw.MouseButtonLeft)
	d.settle()
}

// bodyRowShown says whether the Outliner built the row of the body named name, inside the list's
// visible region.
func (d *driver) bodyRowShown(name string) bool {
	it, ok := d.row(name)
	return ok && it.Visible && it.Min.Y >= it.Clip[0].Y-1 && it.Max.Y <= it.Clip[1].Y+1
}

// The outliner (in the Inspect section) on the 10,000-box pile: the tree has a row per body, but a frame builds only the rows
// in the list's window; a row clicked selects its body (the Inspect section shows it), a body clicked
// in the view is highlighted and scrolled to in the tree, and the filter keeps the bodies whose names
// hold it.
func TestOutlinerSelectsBothWaysAndBuildsOnlyVisibleRowsAt10kBodies(t *testing.T) {
	d := drive(t, Options{Scene: "pile", Open: []string{"inspect"}, NoShadows: true,
		Setup: func(a *App) { a.S.Do(command.Pause(true)) }})
	d.click("inspect/" + outlinerLabel)
	d.frames(1)
	o := &d.a.tools.outliner
	if len(o.rows) < 10000 {
		t.Fatalf("the tree has %d rows for the pile's 10001 bodies", len(o.rows))
	}
	if len(o.built) == 0 || len(o.built) > outlinerRows+2 {
		t.Fatalf("a frame built %d rows of %d: want only the list's %d visible ones", len(o.built), len(o.rows), outlinerRows)
	}
	t.Logf("panel built in %v with the outliner open on 10001 bodies", d.a.lastSplit.Panel)

	// Tree -> view: click the third row.
	var name string
	d.world(func(w *sim.World) { name = w.Bodies.Name[o.rows[2].body] })
	it, ok := d.row(name)
	if !ok {
		t.Fatalf("row %q not built", name)
	}
	d.clickItemAt(it, 0.5)
	if got := d.a.bodyName(d.a.Selected, false); got != name {
		t.Fatalf("clicked the row of %s: selected %q", name, got)
	}
	if !d.has("inspect/mass, kg") {
		t.Error("the Inspect section does not show the body selected in the outliner")
	}

	// View -> tree: a body clicked in the view, far down the list, is scrolled to and highlighted.
	vw, vh := d.a.viewport()
	d.clickView(vw/2, vh/2)
	sel := d.a.bodyName(d.a.Selected, false)
	if sel == "" || sel == name {
		t.Fatalf("clicking the middle of the view selected %q", sel)
	}
	d.frames(3)
	if o.selRow < 3*outlinerRows {
		t.Fatalf("%s is row %d: too near the top to tell a scroll", sel, o.selRow)
	}
	if !d.bodyRowShown(sel) {
		t.Fatalf("%s (row %d) picked in the view: its row is not in the list's view", sel, o.selRow)
	}

	// The filter.
	d.typeInto(outlinerLabel+"/filter names", "BOX7_3_")
	want := 0
	d.world(func(w *sim.World) {
		for _, n := range w.Bodies.Name {
			if strings.Contains(n, "box7_3_") {
				want++
			}
		}
	})
	if got := countBodies(o.rows); got != want || want == 0 {
		t.Fatalf("filter box7_3_: %d bodies listed, %d names hold it", got, want)
	}
	d.world(func(w *sim.World) { name = w.Bodies.Name[o.rows[0].body] })
	it, ok = d.row(name)
	if !ok {
		t.Fatalf("the first filtered row %s is not built", name)
	}
	d.clickItemAt(it, 0.5)
	if got := d.a.bodyName(d.a.Selected, false); got != name || !strings.Contains(name, "box7_3_") {
		t.Errorf("clicked the filtered row %s: selected %q", name, got)
	}
}

// A body's arrow opens its shape and its joints as rows under it (without selecting it); the shape's
// row selects the body, a joint row the joint, inspected in the Joints section.
func TestOutlinerJointRowOpensTheJointInTheJointsSection(t *testing.T) {
	d := drive(t, Options{Scene: "door", Open: []string{"inspect", "joints"}})
	d.click("inspect/" + outlinerLabel)
	o := &d.a.tools.outliner
	var name, other string
	var k int
	d.world(func(w *sim.World) {
		if w.NumJoints() == 0 {
			t.Fatal("the door has no joints")
		}
		k = w.NumJoints() - 1
		j := w.Joint(k)
		ia, _ := w.Index(j.BodyA)
		name = w.Bodies.Name[ia]
		other = "the world"
		if ib, ok := w.Index(j.BodyB); ok {
			other = w.Bodies.Name[ib]
		}
	})
	it, ok := d.row(name)
	if !ok {
		t.Fatalf("no row for %s", name)
	}
	d.tap(glfw.KeyEscape) // nothing selected
	d.settle()
	rows := len(o.rows)
	d.clickItemAt(it, 0) // its arrow
	d.frames(1)
	var label, shape string
	d.world(func(w *sim.World) {
		label = fmt.Sprintf("joint %d: %s to %s", k, w.Joint(k).Type, other)
		h, _ := w.Find(name)
		i, _ := w.Index(h)
		shape = shapeText(&w.Bodies.Shape[i])
	})
	jr, ok := d.row(label)
	if !ok {
		t.Fatalf("no row %q under %s (%d rows)", label, name, len(o.rows))
	}
	sr, ok := d.row(shape)
	if !ok || len(o.rows) <= rows+1 {
		t.Fatalf("the arrow of %s: %d rows, were %d; its shape row %q shown %v", name, len(o.rows), rows, shape, ok)
	}
	if d.a.Selected != (sim.Handle{}) {
		t.Errorf("the arrow selected %q", d.a.bodyName(d.a.Selected, false))
	}
	d.clickItemAt(sr, 0.5) // the shape's row selects its body
	if d.a.bodyName(d.a.Selected, false) != name {
		t.Errorf("clicked the shape row of %s: selected %q", name, d.a.bodyName(d.a.Selected, false))
	}
	d.clickItemAt(jr, 0.5)
	if d.a.panel.joint.selected != k || d.a.bodyName(d.a.Selected, false) != name {
		t.Errorf("clicked the row of joint %d: joint %d, body %q selected", k, d.a.panel.joint.selected, d.a.bodyName(d.a.Selected, false))
	}
}

// The labels layer, switched on in the Debug draw section, names the bodies with their masses, each
// label centred where its body is on screen, at most maxLabels of the pyramid's 385 boxes, the nearest
// first, none overlapping.
func TestLabelsLayerNamesTheNearestBodiesWhereTheyAre(t *testing.T) {
	d := drive(t, Options{Scene: "pyramid", Open: []string{"debug"}, Setup: func(a *App) { a.S.Do(command.Pause(true)) }})
	d.frames(2)
	if len(d.a.tools.labels.shown) != 0 {
		t.Fatal("labels drawn with the layer off")
	}
	d.click("debug/labels: names and masses")
	d.frames(1)
	shown := d.a.tools.labels.shown
	if len(shown) == 0 || len(shown) > maxLabels {
		t.Fatalf("%d labels on the pyramid, want 1..%d", len(shown), maxLabels)
	}
	vw, vh := d.a.viewport()
	var nearest float32 = 1e30
	d.world(func(w *sim.World) {
		eye := d.a.Cam.Eye()
		for i := range w.Bodies.Len() {
			if x, y, ok := d.a.Cam.Project(w.Bodies.Position[i], vw, vh); ok && x >= 0 && y >= 0 && x < vw && y < vh && i > 0 {
				nearest = min(nearest, w.Bodies.Position[i].Sub(eye).Len())
			}
		}
		first := true
		for k, s := range shown {
			i, ok := w.Index(s.Body)
			if !ok {
				t.Fatalf("label %q of a stale body", s.Text)
			}
			want := w.Bodies.Name[i] + " " + kg(w.Bodies.Mass[i])
			x, y, _ := d.a.Cam.Project(w.Bodies.Position[i], vw, vh)
			cx, cy := (s.Min.X+s.Max.X)/2, (s.Min.Y+s.Max.Y)/2
			if s.Text != want || absf(cx-x) > 1 || absf(cy-y) > 1 {
				t.Errorf("label %q centred at (%.0f, %.0f); want %q at (%.0f, %.0f)", s.Text, cx, cy, want, x, y)
			}
			if first && absf(w.Bodies.Position[i].Sub(eye).Len()-nearest) > 1e-3 {
				t.Errorf("the first label is %s, %.2f m away; the nearest body in view is %.2f m", s.Text,
					w.Bodies.Position[i].Sub(eye).Len(), nearest)
			}
			first = false
			for _, o := range shown[:k] {
				if s.Min.X < o.Max.X && o.Min.X < s.Max.X && s.Min.Y < o.Max.Y && o.Min.Y < s.Max.Y {
					t.Errorf("labels %q and %q overlap", s.Text, o.Text)
				}
			}
		}
	})
	d.click("debug/labels: names and masses")
	d.frames(1)
	if len(d.a.tools.labels.shown) != 0 {
		t.Error("labels still drawn with the layer off again")
	}
}

func absf(x float32) float32 { return max(x, -x) }

// ctrlDrag holds Ctrl and the button on the body named name, moves the mouse by (dx, dy) pixels in
// steps and keeps it there for hold frames, calling during for each; then lets go.
func (d *driver) ctrlDrag(name string, b glfw.MouseButton, dx, dy float64, hold int, during func()) {
	d.t.Helper()
	var p sim.Vec3
	d.world(func(w *sim.World) {
		h, _ := w.Find(name)
		i, _ := w.Index(h)
		p = w.Bodies.Position[i]
	})
	vw, vh := d.a.viewport()
	x, y, _ := d.a.Cam.Project(p, vw, vh)
	d.move(float64(x), float64(y))
	d.frames(1)
	d.a.onKey(glfw.KeyLeftControl, glfw.Press, glfw.ModControl)
	d.frames(1)
	d.a.onMouseButton(b, glfw.Press, glfw.ModControl)
	d.frames(1)
	for s := 1; s <= 4; s++ {
		d.move(float64(x)+dx*float64(s)/4, float64(y)+dy*float64(s)/4)
		d.frames(1)
	}
	for range hold {
		d.frames(1)
		during()
	}
	d.a.onMouseButton(b, glfw.Release, glfw.ModControl)
	d.a.onKey(glfw.KeyLeftControl, glfw.Release, 0)
	d.settle()
}

// Ctrl + left drag pushes a body with a force towards the cursor, drawn as an orange arrow (up the
// screen, as the drag) and its magnitude in N; Ctrl + right drag turns it with a torque, in N m; letting go ends either. Without
// Ctrl, the same drag on the same body is the mouse joint, not a perturbation.
func TestCtrlDragPushesWithAForceAndTurnsWithATorque(t *testing.T) {
	d := drive(t, Options{Scene: "stack", NoShadows: true})
	d.frames(5)
	var y0 float32
	top := "box9"
	pos := func() (p, w sim.Vec3) {
		d.world(func(wd *sim.World) {
			h, _ := wd.Find(top)
			i, _ := wd.Index(h)
			p, w = wd.Bodies.Position[i], wd.Bodies.AngularVelocity[i]
		})
		return
	}
	p0, _ := pos()
	y0 = p0[1]
	var force float32
	sawArrow, sawText := false, ""
	d.ctrlDrag(top, glfw.MouseButtonLeft, 0, -120, 20, func() {
		pt, held := d.a.S.Perturbing()
		if !held || pt.Mode != command.PerturbForce {
			t.Fatalf("Ctrl + left drag on %s: perturbing %v, mode %v", top, held, pt.Mode)
		}
		if d.a.dragging {
			t.Fatal("Ctrl + left drag started the mouse joint too")
		}
		force = pt.Force.Len()
		sc := d.a.tools.pert.screen
		if dx, dy := sc[1].X-sc[0].X, sc[1].Y-sc[0].Y; dy < -10 && absf(dx) < -dy { // pointing up the screen
			sawArrow = true
		}
		sawText = d.a.tools.pert.text
	})
	p1, _ := pos()
	if !(p1[1] > y0+0.3) {
		t.Errorf("pulled up for 20 frames, %s rose from %.2f to %.2f", top, y0, p1[1])
	}
	if !sawArrow || force == 0 || sawText != fmt.Sprintf("force %.4g N", force) {
		t.Errorf("the force's arrow drawn %v, its label %q, the force %.4g N", sawArrow, sawText, force)
	}
	if _, held := d.a.S.Perturbing(); held {
		t.Error("the force outlived the button")
	}
	if d.a.Selected == (sim.Handle{}) || d.a.bodyName(d.a.Selected, false) != top {
		t.Errorf("the perturbed body is not selected: %q", d.a.bodyName(d.a.Selected, false))
	}

	d.frames(10)
	var torqueText string
	d.ctrlDrag("box0", glfw.MouseButtonRight, 80, 0, 10, func() {
		pt, held := d.a.S.Perturbing()
		if !held || pt.Mode != command.PerturbTorque {
			t.Fatalf("Ctrl + right drag: perturbing %v, mode %v", held, pt.Mode)
		}
		if d.a.orbiting {
			t.Fatal("Ctrl + right drag orbited the camera too")
		}
		torqueText = d.a.tools.pert.text
	})
	if !strings.HasPrefix(torqueText, "torque ") || !strings.HasSuffix(torqueText, " N m") {
		t.Errorf("the torque's label %q", torqueText)
	}
	if v, err := strconv.ParseFloat(strings.Fields(torqueText)[1], 64); err != nil || v <= 0 {
		t.Errorf("the torque's magnitude %q", torqueText)
	}

	// The same left drag without Ctrl is the mouse joint.
	d.clickBody(top) // select it where it now is, then grab it there
	it := d.a.Selected
	var p sim.Vec3
	d.world(func(w *sim.World) { i, _ := w.Index(it); p = w.Bodies.Position[i] })
	vw, vh := d.a.viewport()
	x, y, _ := d.a.Cam.Project(p, vw, vh)
	d.move(float64(x), float64(y))
	d.frames(1)
	d.press(glfw.MouseButtonLeft)
	d.frames(1)
	d.move(float64(x), float64(y)-40)
	d.frames(2)
	_, held := d.a.S.Perturbing()
	_, dragging := d.a.S.Dragging()
	d.release(glfw.MouseButtonLeft)
	d.settle()
	if held || !dragging {
		t.Errorf("a left drag without Ctrl: perturbing %v, mouse joint %v", held, dragging)
	}
}

// A scene file dropped on the window opens; Shift + R reads it again from disk, so an edit to the
// file shows; a file the loader refuses leaves the world as it was, with the loader's error (the
// file and the field) in the status line; on a preset Shift + R says there is no file.
func TestDroppedSceneOpensAndShiftRReloadsItFromDisk(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "boxes.json")
	scene := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"bodies": [{"name": "ground", "type": "static", "shape": {"type": "plane", "normal": [0, 1, 0]}}`)
		for i := range n {
			fmt.Fprintf(&b, `, {"name": "b%d", "shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "position": [%d, 0.5, 0]}`, i, 2*i)
		}
		return b.String() + "]}"
	}
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(scene(2))
	d := drive(t, Options{Scene: "pyramid"})
	count := func() (n int) {
		d.world(func(w *sim.World) { n = w.Bodies.Len() })
		return
	}
	shiftR := func() {
		d.a.onKey(glfw.KeyLeftShift, glfw.Press, glfw.ModShift)
		d.frames(1)
		d.a.onKey(glfw.KeyR, glfw.Press, glfw.ModShift)
		d.a.onKey(glfw.KeyR, glfw.Release, glfw.ModShift)
		d.frames(1)
		d.a.onKey(glfw.KeyLeftShift, glfw.Release, 0)
		d.settle()
	}
	msg := func() string { return d.a.panel.message }

	shiftR()
	if !d.a.panel.isErr || !strings.Contains(msg(), "pyramid is a preset") {
		t.Errorf("Shift + R on a preset: %q", msg())
	}
	if d.a.S.Name() != "pyramid" {
		t.Fatalf("Shift + R on a preset loaded %q", d.a.S.Name())
	}

	d.a.onDrop([]string{path})
	d.settle()
	if d.a.S.Name() != path || count() != 3 || d.a.panel.isErr {
		t.Fatalf("dropped %s: session %q, %d bodies, status %q", path, d.a.S.Name(), count(), msg())
	}
	d.clickBody("b1")
	write(scene(4))
	shiftR()
	if count() != 5 || d.a.panel.isErr || !strings.Contains(msg(), "reloaded "+path) {
		t.Fatalf("the file edited to 4 boxes, Shift + R: %d bodies, status %q", count(), msg())
	}
	if d.a.bodyName(d.a.Selected, false) != "b1" {
		t.Errorf("after the reload the selection is %q, was b1", d.a.bodyName(d.a.Selected, false))
	}

	// A refused file: the world stays.
	d.frames(20)
	var step int
	d.world(func(w *sim.World) { step = w.StepCount })
	write(strings.Replace(scene(1), `"halfExtents": [0.5, 0.5, 0.5]`, `"halfExtents": [0.5, -1, 0.5]`, 1))
	shiftR()
	if !d.a.panel.isErr || !strings.Contains(msg(), path) || !strings.Contains(msg(), "halfExtents") {
		t.Errorf("a bad file reloaded: status %q; want the loader's error naming the file and the field", msg())
	}
	d.world(func(w *sim.World) {
		if w.Bodies.Len() != 5 || w.StepCount < step {
			t.Errorf("after a refused reload: %d bodies at step %d (were 5 at %d)", w.Bodies.Len(), w.StepCount, step)
		}
	})
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"bodies": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	d.a.onDrop([]string{bad})
	d.settle()
	if !d.a.panel.isErr || !strings.Contains(msg(), bad) || d.a.S.Name() != path || count() != 5 {
		t.Errorf("dropped a broken file: status %q, session %q, %d bodies", msg(), d.a.S.Name(), count())
	}
}

// The Stats section's profile table: each stage that ran, its last, average and maximum time over the
// window the slider sets, as the session recorded every step.
func TestProfileTableAveragesEachStageOverTheWindow(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"stats"}})
	d.frames(15)
	d.setText("stats/profile window, steps", 0, 1, "10")
	ps := &d.a.tools.profile
	if ps.window != 10 {
		t.Fatalf("profile window %d after typing 10", ps.window)
	}
	d.frames(2)
	p := ps.shown
	if p.Steps != 10 {
		t.Fatalf("the table is over %d steps, want 10", p.Steps)
	}
	var last sim.Timings
	d.world(func(w *sim.World) { last = w.Stats.Timings })
	for st, dur := range last {
		found := false
		for _, r := range p.Stages {
			found = found || int(r.Stage) == st
		}
		if dur > 0 && !found {
			t.Errorf("stage %s ran (%v) but has no row", sim.Stage(st), dur)
		}
	}
	var share float64
	for _, r := range p.Stages {
		if r.Avg > r.Max || r.Max <= 0 || r.StepsRun == 0 {
			t.Errorf("%s: avg %v max %v over %d steps", r.Stage, r.Avg, r.Max, r.StepsRun)
		}
		share += r.Proportion
	}
	if share < 0.999 || share > 1.001 || p.Total.Avg <= 0 || p.Total.Max < p.Total.Avg {
		t.Errorf("the stages' shares sum to %.4f; step avg %v max %v", share, p.Total.Avg, p.Total.Max)
	}
}
