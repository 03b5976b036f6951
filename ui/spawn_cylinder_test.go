package ui

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
)

// The Spawn section spawns cylinders, driven by real X events from xdotool: choosing "cylinder" in the
// shape combo, setting its radius and half height and clicking Spawn with the stack pattern adds a
// stack of cylinders standing on their caps, which lands on the ground and stands there, upright. A
// click on one in the view selects it, and the Inspect section gives its shape and sizes.
func TestSpawnSectionSpawnsACylinderStackThatStands(t *testing.T) {
	needDisplay(t)
	if _, err := exec.LookPath("xdotool"); err != nil {
		if os.Getenv("TUMBLE_REQUIRE_DISPLAY") != "" {
			t.Fatal("xdotool is not installed (make deps installs it)")
		}
		t.Skip("no xdotool")
	}
	ground := filepath.Join(t.TempDir(), "ground.json")
	if err := os.WriteFile(ground, []byte(`{"bodies": [{"name": "ground", "type": "static", "shape": {"type": "plane", "normal": [0, 1, 0]}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d := drive(t, Options{Scene: ground, Open: []string{"spawn", "inspect"}, Width: 960, Height: 600})
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
	d.click("Tumble/###play") // paused while setting up
	d.choose("spawn/pattern", "stack")
	d.setText("spawn/count", 0, 1, "3")
	xclick("spawn/shape")
	opened := false
	for _, x := range d.a.w.items {
		if x.Kind == "option" && strings.HasSuffix(x.Path, "/cylinder") && strings.Contains(x.Path, "/shape/") {
			xclick(x.Path)
			opened = true
			break
		}
	}
	if !opened || spawnKinds[d.a.panel.spawn.Kind].kind != geom.Cylinder {
		t.Fatalf("the shape combo did not give the cylinder (open %v)", opened)
	}
	d.setText("spawn/radius", 0, 1, "0.3")
	d.setText("spawn/half height", 0, 1, "0.2")
	var before int
	d.world(func(w *sim.World) { before = w.Bodies.Len() })
	xclick("spawn/Spawn")
	var names []string
	d.world(func(w *sim.World) {
		b := &w.Bodies
		for i := before; i < b.Len(); i++ {
			if s := b.Shape[i]; s.Kind != geom.Cylinder || !near(s.Radius, 0.3, 1e-6) || !near(s.HalfHeight, 0.2, 1e-6) {
				t.Fatalf("%s is %+v, want a cylinder of radius 0.3 and half height 0.2: %s", b.Name[i], s, d.a.panel.message)
			}
			names = append(names, b.Name[i])
		}
	})
	if len(names) != 3 {
		t.Fatalf("%d cylinders after spawning a stack of 3: %s", len(names), d.a.panel.message)
	}
	d.click("Tumble/###play")
	d.frames(150)
	d.world(func(w *sim.World) {
		ys := map[float32]bool{}
		for _, n := range names {
			h, _ := w.Find(n)
			i, _ := w.Index(h)
			p, q, v := w.Bodies.Position[i], w.Bodies.Rotation[i], w.Bodies.Velocity[i]
			if up := q.Rotate(sim.Vec3{0, 1, 0})[1]; up < 0.999 || v.Len() > 0.05 {
				t.Errorf("%s: axis up %.4f, speed %.3f: not standing", n, up, v.Len())
			}
			// On the ground or on one another: centres at 0.2, 0.6, 1.0 m, within the allowed overlap.
			k := float32(math.Round(float64(p[1]-0.2) / 0.4))
			if !near(p[1], 0.2+0.4*k, 0.012) {
				t.Errorf("%s at y = %.4f, not at a cap's height in the stack", n, p[1])
			}
			ys[k] = true
		}
		if len(ys) != 3 {
			t.Errorf("the cylinders stand at %d heights, want 3 (a stack)", len(ys))
		}
	})
	d.click("Tumble/###play")
	d.clickBody(names[0])
	if got := d.a.bodyName(d.a.Selected, false); got != names[0] {
		t.Fatalf("clicked %s in the view: selected %q", names[0], got)
	}
	d.frames(2)
	want := "cylinder, radius 0.3 m, height 0.4 m"
	var texts []string
	for _, x := range d.a.w.items {
		if x.Kind == "text" && strings.Contains(x.Path, "/inspect/") {
			texts = append(texts, x.Label)
		}
	}
	if len(texts) != 1 || texts[0] != want {
		t.Errorf("the Inspect section's text lines %q, want %q", texts, want)
	}
}
