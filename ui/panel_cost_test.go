package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"tumble/sim"
	"tumble/ui/command"
)

// gridScene writes a scene of n boxes resting 2 m apart on a ground box and returns its path.
func gridScene(t *testing.T, n int) string {
	t.Helper()
	side := 1
	for side*side < n {
		side++
	}
	var b strings.Builder
	b.WriteString(`{"name": "grid", "bodies": [{"name": "ground", "type": "static", "shape": {"type": "box", "halfExtents": [80, 0.5, 80]}, "position": [0, -0.5, 0]}`)
	for i := range n {
		x, z := float64(i%side)*2-float64(side), float64(i/side)*2-float64(side)
		fmt.Fprintf(&b, `, {"name": "box%d", "shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "position": [%g, 0.5, %g]}`, i, x, z)
	}
	b.WriteString("]}")
	path := filepath.Join(t.TempDir(), fmt.Sprintf("grid%d.json", n))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPanelReadsBackNoMoreBodiesAsTheWorldGrows: on the device path (the emulated CUDA backend with
// interop stood in, so the frame's instances are written on the device), a running frame with the
// panel's default sections and the outliner open, a body selected (the Inspect section shows its
// live pose and velocities) and the cursor resting on a body in the view (hover highlight on) reads
// back one body for the selection and one for the hover, not the world: the same count with 16 boxes
// and with 1,024.
func TestPanelReadsBackNoMoreBodiesAsTheWorldGrows(t *testing.T) {
	perFrame := map[int]int{}
	for _, n := range []int{16, 1024} {
		pulled := 0
		d := drive(t, Options{Scene: gridScene(t, n), Backend: command.BackendEmulated, Backends: countingBackends(&pulled),
			Select: "box3", NoShadows: true})
		if d.a.S.BackendKind() != command.BackendEmulated {
			t.Fatalf("on %q, want emu: %s", d.a.S.BackendKind(), d.a.panel.message)
		}
		d.click("inspect/" + outlinerLabel)
		var p sim.Vec3
		d.world(func(w *sim.World) {
			i, _ := w.Index(d.a.Selected)
			p = w.Bodies.Position[i]
		})
		vw, vh := d.a.viewport()
		x, y, _ := d.a.Cam.Project(p, vw, vh)
		d.move(float64(x), float64(y))
		d.frames(3)
		if !d.a.frame.Device {
			t.Fatalf("%d boxes: the frame is drawn from a host copy: %s", n, d.a.interopNote)
		}
		if rows := len(d.a.tools.outliner.rows); rows != n+1 {
			t.Fatalf("%d boxes: the outliner has %d rows", n, rows)
		}
		var steps0, steps1 int
		d.a.S.Peek(func(w *sim.World) { steps0 = w.StepCount })
		pulled = 0
		const frames = 4
		d.frames(frames)
		d.a.S.Peek(func(w *sim.World) { steps1 = w.StepCount })
		if steps1-steps0 != frames {
			t.Fatalf("%d boxes: %d steps in %d frames", n, steps1-steps0, frames)
		}
		if d.bodyNameOf(d.a.hoverBody) != "box3" {
			t.Fatalf("%d boxes: the cursor rests on box3, hovered %q", n, d.bodyNameOf(d.a.hoverBody))
		}
		perFrame[n] = pulled / frames
		if pulled%frames != 0 || perFrame[n] > 2 {
			t.Errorf("%d boxes: the panel read %d bodies back in %d frames; want at most 2 a frame (the selection, the hover)", n, pulled, frames)
		}
	}
	if perFrame[16] != perFrame[1024] {
		t.Errorf("bodies read back a frame: %d with 16 boxes, %d with 1,024", perFrame[16], perFrame[1024])
	}
}

// bodyNameOf is the name of the body h, "" if it is gone.
func (d *driver) bodyNameOf(h sim.Handle) string {
	n := ""
	d.a.S.Peek(func(w *sim.World) {
		if i, ok := w.Index(h); ok {
			n = w.Bodies.Name[i]
		}
	})
	return n
}

// The outliner builds its rows again only when what they show changes: running frames over 1,024
// boxes build none; typing a filter, spawning bodies and deleting one build them again, and the rows
// then show the world as it is.
func TestOutlinerBuildsItsRowsOnlyWhenWhatTheyShowChanges(t *testing.T) {
	d := drive(t, Options{Scene: gridScene(t, 1024), Open: []string{"inspect", "spawn"}, NoShadows: true})
	d.click("inspect/" + outlinerLabel)
	d.frames(1)
	o := &d.a.tools.outliner
	bodies := func() (n int) {
		d.a.S.Peek(func(w *sim.World) { n = w.Bodies.Len() })
		return n
	}
	still := func(when string) {
		t.Helper()
		n := o.rebuilt
		d.frames(5)
		if o.rebuilt != n {
			t.Errorf("%s: %d of 5 running frames built the rows", when, o.rebuilt-n)
		}
	}
	changed := func(what string, do func()) {
		t.Helper()
		n := o.rebuilt
		do()
		d.frames(2)
		if o.rebuilt == n {
			t.Errorf("%s: the rows were not built again", what)
		}
		if want := bodies(); len(o.rows) != want {
			t.Errorf("%s: %d rows, want %d", what, len(o.rows), want)
		}
	}
	if len(o.rows) != 1025 {
		t.Fatalf("%d rows for 1,025 bodies", len(o.rows))
	}
	still("the world running")

	n := o.rebuilt
	d.typeInto(outlinerLabel+"/filter names", "BOX10")
	if o.rebuilt == n {
		t.Error("typing a filter did not build the rows")
	}
	matching := 0
	d.a.S.Peek(func(w *sim.World) {
		for _, name := range w.Bodies.Name {
			if strings.Contains(name, "box10") {
				matching++
			}
		}
	})
	if len(o.rows) != matching || matching == 0 {
		t.Fatalf("filter box10: %d rows, %d names hold it", len(o.rows), matching)
	}
	still("the world running under a filter")
	changed("the filter cleared", func() {
		d.click(outlinerLabel + "/filter names")
		d.a.onKey(glfw.KeyLeftControl, glfw.Press, glfw.ModControl)
		d.frames(1)
		d.tap(glfw.KeyA)
		d.frames(1)
		d.a.onKey(glfw.KeyLeftControl, glfw.Release, 0)
		d.frames(1)
		d.tap(glfw.KeyBackspace)
		d.frames(1)
		d.tap(glfw.KeyEnter)
		d.settle()
	})
	if o.filter != "" {
		t.Fatalf("the filter is %q after clearing it", o.filter)
	}
	before := bodies()
	changed("bodies spawned", func() { d.click("spawn/Spawn") })
	if bodies() <= before {
		t.Fatalf("%d bodies after Spawn, %d before: %s", bodies(), before, d.a.panel.message)
	}
	still("after the spawn")
	changed("a body deleted", func() {
		var h sim.Handle
		d.a.S.Peek(func(w *sim.World) { h = w.HandleAt(7) })
		d.a.S.Do(command.RemoveBody(h))
	})
	still("after the deletion")
}
