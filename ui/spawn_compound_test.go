package ui

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
)

// The Spawn section spawns compound bodies, driven by real X events from xdotool: choosing "table",
// "chair" and "dumbbell" in the shape combo and clicking Spawn adds a table of 5 boxes, a chair of 6
// and a dumbbell of two balls on a bar, which fall and come to rest standing on the ground (the table
// on its legs: its centre of mass at its height over the floor). Clicking the table in the view
// selects it: the Inspect section lists its five shapes, and the outliner, its arrow opened, a row
// for each.
func TestSpawnSectionSpawnsTablesChairsAndDumbbells(t *testing.T) {
	needDisplay(t)
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Skip("no xdotool")
	}
	d := drive(t, Options{Scene: "tumbling", Open: []string{"spawn", "inspect"}, Width: 960, Height: 600, NoShadows: true})
	var wx, wy int
	onMain(func() { wx, wy = d.a.win.GetPos() })
	xclick := func(suffix string) {
		t.Helper()
		it := d.reveal(suffix)
		mark(it)
		x, y := it.Centre()
		xdotool(t, "mousemove", strconv.Itoa(wx+int(x)), strconv.Itoa(wy+int(y)))
		d.frames(3)
		xdotool(t, "click", "1")
		d.frames(4)
	}
	xchoose := func(combo, option string) {
		t.Helper()
		xclick(combo)
		for _, x := range d.a.w.items {
			if x.Kind == "option" && strings.HasSuffix(x.Path, "/"+option) && strings.Contains(x.Path, "/"+lastPart(combo)+"/") {
				xclick(x.Path)
				return
			}
		}
		t.Fatalf("combo %q: no option %q open", combo, option)
	}
	d.click("Tumble/###play") // paused while setting up
	// The tumbling handle floats in zero gravity: give the world a floor and gravity first.
	d.world(func(w *sim.World) {
		s := w.Settings()
		s.Gravity = sim.Vec3{0, -9.81, 0}
		w.SetSettings(s)
		h, _ := w.Find("handle")
		w.RemoveBody(h)
		if _, err := w.AddBody(sim.BodyDef{Name: "ground", Type: sim.Static, Friction: 0.6,
			Shape: geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}}); err != nil {
			t.Fatal(err)
		}
	})
	d.choose("spawn/pattern", "single")
	want := map[string]int{"table": 5, "chair": 6, "dumbbell": 3}
	for _, kind := range []string{"table", "chair", "dumbbell"} {
		xchoose("spawn/shape", kind)
		if kind == "table" && d.a.panel.spawn.Size[0] != 1 { // from a box's half extent to the scale 1
			t.Fatalf("%s chosen: scale %v, want 1", kind, d.a.panel.spawn.Size[0])
		}
		if kind == "chair" { // the scale slider, typed into: the chair at 0.8 of its size
			d.setText("spawn/scale", 0, 1, "0.8")
		}
		if kind == "dumbbell" {
			d.setText("spawn/scale", 0, 1, "1")
		}
		xclick("spawn/Spawn")
	}
	var names []string
	d.world(func(w *sim.World) {
		b := &w.Bodies
		for i := range b.Len() {
			if b.Type[i] != sim.Dynamic {
				continue
			}
			if b.Shape[i].Kind != geom.Compound {
				t.Fatalf("%s is a %s, want a compound: %s", b.Name[i], b.Shape[i].Kind, d.a.panel.message)
			}
			names = append(names, b.Name[i])
		}
	})
	if len(names) != 3 {
		t.Fatalf("%d bodies spawned, want a table, a chair and a dumbbell: %s", len(names), d.a.panel.message)
	}
	d.click("Tumble/###play")
	d.frames(150)
	d.click("Tumble/###play")
	var tableY float32
	d.world(func(w *sim.World) {
		b := &w.Bodies
		for k, kind := range []string{"table", "chair", "dumbbell"} {
			h, _ := w.Find(names[k])
			i, _ := w.Index(h)
			if n := len(b.Shape[i].Compound.Children); n != want[kind] {
				t.Errorf("%s: %d shapes, want %d", kind, n, want[kind])
			}
			box := b.Shape[i].Bounds(geom.Pose{P: b.Position[i], Q: b.Rotation[i]})
			// The dumbbell may still roll on its balls; the table and the chair stand still.
			if box.Min[1] < -0.01 || box.Min[1] > 0.01 || kind != "dumbbell" && b.Velocity[i].Len() > 0.05 {
				t.Errorf("%s: lowest point at y = %.3f, speed %.3f: not resting on the floor", kind, box.Min[1], b.Velocity[i].Len())
			}
		}
		h, _ := w.Find(names[0])
		i, _ := w.Index(h)
		tableY = b.Position[i][1]
	})
	d.world(func(w *sim.World) {
		h, _ := w.Find(names[1])
		i, _ := w.Index(h)
		seat := w.Bodies.Shape[i].Compound.Children[0].Shape.HalfExtents[0]
		if !near(seat, 0.8*0.22, 1e-4) {
			t.Errorf("the chair's seat is %.4f m across, want 0.8 x 0.22", seat)
		}
	})
	// The table's centre of mass: its top's 0.048 m^3 at 0.725 m and four legs' 0.007 at 0.35 m.
	if !near(tableY, 0.6773, 0.005) {
		t.Errorf("the table's centre of mass rests at y = %.4f, want 0.6773", tableY)
	}
	d.clickBody(names[0])
	if got := d.a.bodyName(d.a.Selected, false); got != names[0] {
		t.Fatalf("clicked the table: selected %q", got)
	}
	d.frames(2)
	shapes := 0
	for _, it := range d.a.w.items {
		if it.Kind == "text" && strings.Contains(it.Path, "/inspect/") && strings.HasPrefix(it.Label, "shapes[") {
			shapes++
		}
	}
	if shapes != 5 {
		t.Errorf("the Inspect section lists %d of the table's shapes, want 5", shapes)
	}
	d.click("inspect/" + outlinerLabel)
	it, ok := d.row(names[0])
	if !ok {
		t.Fatalf("no outliner row for %s", names[0])
	}
	d.clickItemAt(it, 0.02) // the arrow
	// The tree holds a row per shape; the rows in the list's view are built with the shape's line.
	o := &d.a.tools.outliner
	rows := 0
	for _, r := range o.rows {
		if r.kind == rowShape && r.shape >= 0 {
			rows++
		}
	}
	if rows != 5 {
		t.Errorf("the opened table has %d shape rows in the outliner, want 5", rows)
	}
	if it, ok := d.row("shapes[0]: box, half extents 0.6 x 0.025 x 0.4 m, at 0.00 0.05 0.00 m"); !ok || !it.Visible {
		t.Errorf("the table top's row is not shown")
	}
}
