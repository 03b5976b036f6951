package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
