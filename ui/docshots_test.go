package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
	"tumble/ui/command"
)

// shot saves the next frame with F12 (the cursor where it is) and moves the PNG to dir/name.
func (d *driver) shot(dir, name string) {
	d.t.Helper()
	d.tap(glfw.KeyF12)
	d.settle()
	d.frames(1)
	saved := strings.TrimPrefix(d.a.capt.last, "saved ")
	if d.a.capt.lastErr || !strings.HasSuffix(saved, ".png") {
		d.t.Fatalf("%s: F12 saved nothing: %q", name, d.a.capt.last)
	}
	if err := os.Rename(saved, filepath.Join(dir, name)); err != nil {
		d.t.Fatal(err)
	}
}

// TestDocScreenshots takes docs/WINDOW.md's pictures of the tools a person drives with the mouse,
// which the command line cannot set up (the probe aimed from a placed origin, the convergence plot
// opened, the re-simulation's drift marks), by input into the window as a person would give it, and
// writes them into $TUMBLE_SHOTS (scripts/window-shots.sh runs it under Xvfb). Each picture is
// checked for what it must show before it is kept.
func TestDocScreenshots(t *testing.T) {
	dir := os.Getenv("TUMBLE_SHOTS")
	if dir == "" {
		t.Skip("TUMBLE_SHOTS is unset (scripts/window-shots.sh sets it)")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	setup := func(a *App) { a.capt.dir = tmp }

	t.Run("probe", func(t *testing.T) {
		// The pyramid, paused: every hit of a ray from an origin placed on the ground beside it,
		// aimed across it.
		d := drive(t, Options{Scene: "pyramid", Open: []string{"debug"}, Setup: func(a *App) {
			setup(a)
			a.S.Do(command.Pause(true))
		}})
		d.click("debug/" + probeLabel)
		d.click(probeLabel + "/probe the view")
		d.choose(probeLabel+"/query", "ray: every hit")
		d.choose(probeLabel+"/aim", "placed origin (P) to the cursor")
		// The origin on the ground left of the pyramid, the cursor on the ground beyond its right
		// side: the ray runs through the pyramid's lowest row.
		var lo, hi mgl32.Vec3
		d.world(func(w *sim.World) {
			b := &w.Bodies
			lo, hi = mgl32.Vec3{1e9, 1e9, 1e9}, mgl32.Vec3{-1e9, -1e9, -1e9}
			for i := range b.Len() {
				if b.Type[i] == sim.Dynamic {
					for k := range 3 {
						lo[k], hi[k] = min(lo[k], b.Position[i][k]), max(hi[k], b.Position[i][k])
					}
				}
			}
		})
		c, ext := lo.Add(hi).Mul(0.5), hi.Sub(lo)
		d.pointTo(mgl32.Vec3{c[0] - 0.5*ext[0] - 3, 0, c[2] + 0.3*ext[2]})
		d.tap(glfw.KeyP)
		d.settle()
		d.pointTo(mgl32.Vec3{c[0] + 0.5*ext[0] + 3, 0, c[2] - 0.2*ext[2]})
		vh := d.a.opt.Height
		// Over the panel the aim stays: the sections wheeled down to the probe's table of hits.
		d.move(float64(d.a.opt.Width)-200, float64(vh)*0.6)
		for range 12 {
			d.wheel(-1)
			d.settle()
		}
		if p := &d.a.tools.probe; !p.placed || p.originN[1] < 0.9 || len(p.hits) < 4 {
			t.Fatalf("the probe: origin placed %v (normal %v), %d hits (%s)", p.placed, p.originN, len(p.hits), p.err)
		}
		d.shot(dir, "probe.png")
	})

	t.Run("convergence", func(t *testing.T) {
		// The wall under PGS, a second into its fall: the residual of each pass of the last step, on
		// the log scale.
		d := drive(t, Options{Scene: "wall", Open: []string{"simulation", "stats"}, Setup: setup})
		var solver sim.SolverKind
		d.world(func(w *sim.World) { solver = w.Resolved().Solver })
		if solver != sim.PGS {
			d.choose("simulation/solver", sim.SolverOf(sim.PGS).Title())
		}
		d.open("Simulation", false)
		d.click("stats/" + convergenceLabel)
		d.click("stats/" + convergenceLabel + "/log10 scale")
		d.frames(120)
		d.reveal("stats/" + convergenceLabel + "/log10 scale")
		d.move(float64(d.a.opt.Width)-200, float64(d.a.opt.Height)*0.6)
		for range 10 { // the sections to their end: the plot and its summary
			d.wheel(-1)
			d.settle()
		}
		d.move(200, 500)
		d.frames(2)
		if c := &d.a.tools.conv; !c.has || !c.log || len(c.values) < 4 {
			t.Fatalf("the plot: a step traced %v, log scale %v, %d values", c.has, c.log, len(c.values))
		}
		d.shot(dir, "convergence.png")
	})

	t.Run("drift", func(t *testing.T) {
		// The wall recorded for 500 steps under PGS, re-simulated under Jacobi: the slider's marks
		// where the run leaves the recording, and their tooltip.
		d := drive(t, Options{Scene: "wall", Open: []string{"time"}, Setup: setup})
		d.click("Tumble/###play")
		if err := d.a.S.Steps(500); err != nil {
			t.Fatal(err)
		}
		d.choose("time/re-simulate with", "jacobi")
		d.choose("time/re-simulate on", "cpu")
		d.runDrift()
		tl := d.a.S.Timeline()
		if tl.Drift == nil || len(tl.Drift.Marks) == 0 {
			t.Fatalf("no drift marks: %q", d.a.panel.time.drift.line)
		}
		slider := d.reveal("time/recorded step")
		f := &d.a.panel.time.drift
		d.move(float64(f.marks[0]), float64(slider.Min.Y+slider.Max.Y)/2)
		d.frames(3)
		d.shot(dir, "drift.png")
	})
}
