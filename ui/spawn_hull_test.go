package ui

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
)

// The Spawn section spawns convex hulls, driven by real X events from xdotool: choosing "rock" in the
// shape combo and clicking Spawn adds rocks (a different hull each), choosing "bunny" adds bunnies,
// and they fall onto the ground. F12 then saves a screenshot of them.
func TestSpawnSectionSpawnsRocksAndBunniesThatFall(t *testing.T) {
	needDisplay(t)
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Skip("no xdotool")
	}
	d := drive(t, Options{Scene: "bowling", Open: []string{"spawn"}, Width: 960, Height: 600})
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
	d.choose("spawn/pattern", "wall")
	d.setText("spawn/count", 0, 1, "4")
	xchoose("spawn/shape", "rock")
	d.setText("spawn/rock size", 0, 1, "0.3")
	var before int
	d.world(func(w *sim.World) { before = w.Bodies.Len() })
	xclick("spawn/Spawn")
	xchoose("spawn/shape", "bunny")
	d.setText("spawn/bunny length", 0, 1, "0.6")
	xclick("spawn/Spawn")
	type hullBody struct {
		name string
		hull *geom.Hull
		y    float32
	}
	var spawned []hullBody
	d.world(func(w *sim.World) {
		b := &w.Bodies
		for i := before; i < b.Len(); i++ {
			if b.Shape[i].Kind != geom.ConvexHull {
				t.Fatalf("%s is a %s, want a hull: %s", b.Name[i], b.Shape[i].Kind, d.a.panel.message)
			}
			spawned = append(spawned, hullBody{b.Name[i], b.Shape[i].Hull, b.Position[i][1]})
		}
	})
	if len(spawned) != 8 {
		t.Fatalf("%d hulls after spawning 4 rocks and 4 bunnies: %s", len(spawned), d.a.panel.message)
	}
	rocks := map[*geom.Hull]bool{}
	for _, s := range spawned[:4] {
		rocks[s.hull] = true
	}
	if len(rocks) != 4 || rocks[spawned[4].hull] || spawned[4].hull != spawned[7].hull {
		t.Errorf("%d distinct rocks, bunnies share one hull: %v", len(rocks), spawned[4].hull == spawned[7].hull)
	}
	// The bunnies: 0.6 m long, as the slider said.
	bb := spawned[4].hull
	lo, hi := float32(1e9), float32(-1e9)
	for _, v := range bb.Verts {
		p := bb.Frame.Rotate(v)
		lo, hi = min(lo, p[0]), max(hi, p[0])
	}
	if !near(hi-lo, 0.6, 0.01) {
		t.Errorf("bunny length %.3f m, want 0.6", hi-lo)
	}
	d.click("Tumble/###play")
	d.frames(30)
	d.world(func(w *sim.World) {
		for _, s := range spawned {
			h, _ := w.Find(s.name)
			i, _ := w.Index(h)
			if y := w.Bodies.Position[i][1]; y > s.y-0.5 {
				t.Errorf("%s: from y %.2f to %.2f: did not fall", s.name, s.y, y)
			}
		}
	})
	dir := t.TempDir()
	d.a.capt.dir = dir
	vw, vh := d.a.viewport()
	xdotool(t, "mousemove", strconv.Itoa(wx+int(vw/2)), strconv.Itoa(wy+int(vh/2)))
	d.frames(2)
	xdotool(t, "key", "F12")
	d.frames(3)
	if m, _ := filepath.Glob(filepath.Join(dir, "tumble-*.png")); len(m) != 1 {
		t.Errorf("screenshots %v after F12: %s", m, d.a.capt.last)
	}
}

// The Simulation section picks the shapematch solver and, under it, sets every cluster's stiffness
// and damping; under another solver the cluster sliders are gone (nothing matches the clusters there).
func TestSimulationSectionPicksShapeMatchAndSetsTheClusters(t *testing.T) {
	d := drive(t, Options{Scene: "jelly", Open: []string{"simulation"}, Width: 960, Height: 600})
	d.click("Tumble/###play")
	d.choose("simulation/solver", "pgs (Gauss-Seidel)")
	if d.has("simulation/cluster stiffness") {
		t.Errorf("cluster stiffness shown under PGS")
	}
	d.choose("simulation/solver", "shapematch")
	d.setText("simulation/cluster stiffness", 0, 1, "0.05")
	d.setText("simulation/cluster damping", 0, 1, "0.5")
	d.world(func(w *sim.World) {
		if w.Settings().Solver != sim.ShapeMatch || w.NumClusters() != 3 {
			t.Fatalf("solver %v, %d clusters", w.Settings().Solver, w.NumClusters())
		}
		for i := range w.NumClusters() {
			if c := w.Cluster(i); !near(c.Stiffness, 0.05, 1e-6) || !near(c.Damping, 0.5, 1e-6) || len(c.Bodies) != 27 {
				t.Errorf("cluster %d: stiffness %v damping %v, %d bodies", i, c.Stiffness, c.Damping, len(c.Bodies))
			}
		}
	})
}
