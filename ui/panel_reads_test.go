package ui

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"tumble/sim"
	"tumble/ui/command"
)

// jointedGridScene writes a scene of n unit boxes resting 1.5 m apart on a ground box, box0 and box1
// joined by a ball joint at their midpoint, and returns its path.
func jointedGridScene(t *testing.T, n int) string {
	t.Helper()
	side := 1
	for side*side < n {
		side++
	}
	const gap = 1.5
	var b strings.Builder
	b.WriteString(`{"name": "jointed grid", "bodies": [{"name": "ground", "type": "static", "shape": {"type": "box", "halfExtents": [100, 0.5, 100]}, "position": [0, -0.5, 0]}`)
	for i := range n {
		x, z := (float64(i%side)-float64(side)/2)*gap, (float64(i/side)-float64(side)/2)*gap
		fmt.Fprintf(&b, `, {"name": "box%d", "shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "position": [%g, 0.5, %g]}`, i, x, z)
	}
	x0, z0 := -float64(side)/2*gap, -float64(side)/2*gap
	fmt.Fprintf(&b, `], "joints": [{"type": "ball", "bodyA": "box0", "bodyB": "box1", "anchor": [%g, 0.5, %g]}]}`, x0+gap/2, z0)
	path := filepath.Join(t.TempDir(), fmt.Sprintf("jointed%d.json", n))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// On the device path (the emulated CUDA backend, interop stood in), a running frame over 10,000
// boxes with a body selected, the Inspect section's contacts table showing that body's contacts, the
// joint inspector showing a joint and the joints layer on reads back a few hundred bytes, not the
// world's contacts and bodies (megabytes): the selected body's points (World.ContactsOf through the
// backend's ContactReader) and the joint's two bodies (JointState through BodyState; the joints
// layer's). The table's rows and the joint's state are those the whole read gives, bit for bit.
func TestPanelReadsBackTheSelectedBodysContactsAndTheJointsBodiesAlone(t *testing.T) {
	const n = 10000
	pulled := 0
	d := drive(t, Options{Scene: jointedGridScene(t, n), Backend: command.BackendEmulated, Backends: countingBackends(&pulled),
		Select: "box1", NoShadows: true, Open: []string{"inspect", "joints"}})
	if d.a.S.BackendKind() != command.BackendEmulated {
		t.Fatalf("on %q, want emu: %s", d.a.S.BackendKind(), d.a.panel.message)
	}
	d.click(d.jointRow(0))
	if d.a.panel.joint.selected != 0 {
		t.Fatalf("joint %d selected after clicking row 0", d.a.panel.joint.selected)
	}
	d.frames(1)
	bytesRead := func() int64 {
		var b int64
		d.a.S.Peek(func(w *sim.World) {
			var ok bool
			if b, ok = deviceBytesRead(w); !ok {
				t.Fatalf("the world is on %s, not the emulated backend", w.Backend().Name())
			}
		})
		return b
	}
	const frames = 2
	before, pulled := bytesRead(), 0
	d.frames(frames)
	perFrame := (bytesRead() - before) / frames
	t.Logf("%d boxes: %d bytes read back a frame, %d bodies' states", n, perFrame, pulled/frames)
	if !d.a.frame.Device {
		t.Fatalf("the frame is drawn from a host copy: %s", d.a.interopNote)
	}
	// A step's own read-back is 16 bytes; a body's state a few dozen; a contact point 52.
	if perFrame > 2048 {
		t.Errorf("%d bytes read back a frame with one body inspected; want at most 2 KiB", perFrame)
	}
	// The selection (box1) for the Inspect section, the joint's two bodies for its inspector, and box0
	// for the joints layer, which takes box1's pose from the Inspect section's read.
	if pulled != 4*frames {
		t.Errorf("%d bodies' states read back in %d frames; want 4 a frame", pulled, frames)
	}

	// The cursor on the table's first row marks its point and highlights its pair: the frame is still
	// drawn from the device, and reads no more back.
	pause := func(on bool) {
		d.a.S.Do(command.Pause(on))
		if err := d.a.S.Apply(); err != nil {
			t.Fatal(err)
		}
	}
	pause(true) // scrolling to the row takes frames: no steps of 10,000 boxes meanwhile
	row := d.reveal("inspect/contacts/#0/###pair")
	mark(row)
	x, y := row.Centre()
	d.move(float64(x), float64(y))
	pause(false)
	d.frames(1)
	before, pulled = bytesRead(), 0
	d.frames(frames)
	hovered := (bytesRead() - before) / frames
	t.Logf("a contact row hovered: %d bytes read back a frame, %d bodies' states", hovered, pulled/frames)
	marked := 0
	for _, v := range d.a.frame.Lines {
		if v.Color == colHover {
			marked++
		}
	}
	if d.a.hoverRow != 0 || !d.a.frame.Device || marked == 0 {
		t.Errorf("hovering the first contact row: row %d, drawn from the device %v, %d marker vertices", d.a.hoverRow, d.a.frame.Device, marked)
	}
	if hovered > 2048 || pulled != 4*frames {
		t.Errorf("hovering a contact row: %d bytes and %d bodies read back a frame", hovered, pulled/frames)
	}

	// Following the selection (the C key) moves the camera with it from its one body's read.
	d.move(float64(d.a.opt.Width)/4, float64(d.a.opt.Height)/2) // over the view: the key is the window's
	d.tap(glfw.KeyC)
	d.frames(1)
	// Back over the panel: under a moving camera a cursor over the view picks among every body.
	d.move(float64(x), float64(y))
	d.frames(1)
	if !d.a.Follow {
		t.Fatal("C did not turn following the selection on")
	}
	before, pulled = bytesRead(), 0
	d.frames(frames)
	followed, followPulled := (bytesRead()-before)/frames, pulled
	var sel sim.Vec3
	d.world(func(w *sim.World) {
		i, _ := w.Index(d.a.Selected)
		sel = w.Bodies.Position[i]
	})
	if !d.a.frame.Device || d.a.Cam.Target != sel {
		t.Errorf("following box1: drawn from the device %v, camera target %v, box1 at %v", d.a.frame.Device, d.a.Cam.Target, sel)
	}
	if followed > 2048 || followPulled != 4*frames {
		t.Errorf("following the selection: %d bytes and %d bodies read back a frame", followed, followPulled/frames)
	}
	d.tap(glfw.KeyC)
	d.frames(1)

	// What the table showed against the whole read of the same step's contacts.
	shown := d.a.panel.rows
	var want []command.ContactRow
	var joint, jointWhole sim.JointState
	d.a.S.Peek(func(w *sim.World) {
		joint = w.JointState(0) // the two bodies read alone, as the inspector does
		i, _ := w.Index(d.a.Selected)
		b := &w.Bodies
		for _, c := range w.Contacts(nil) {
			if c.BodyA == i || c.BodyB == i {
				want = append(want, command.ContactRow{A: b.Name[c.BodyA], B: b.Name[c.BodyB], IA: c.BodyA, IB: c.BodyB,
					ShapeA: -1, ShapeB: -1, Point: c.Position, Normal: c.Normal, Depth: -c.Separation,
					NormalImp: c.NormalImpulse, Friction: c.FrictionImpulse.Len(), FricVec: c.FrictionImpulse})
			}
		}
	})
	d.world(func(w *sim.World) { jointWhole = w.JointState(0) }) // after a Sync of every body
	slices.SortStableFunc(want, func(x, y command.ContactRow) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
	if len(want) == 0 {
		t.Fatal("the selected box has no contacts in the whole read")
	}
	if !slices.Equal(shown, want) {
		t.Errorf("the table's rows differ from the whole read's:\n%+v\nwant\n%+v", shown, want)
	}
	if joint != jointWhole {
		t.Errorf("joint 0 from its two bodies: %+v; after a Sync: %+v", joint, jointWhole)
	}
}
