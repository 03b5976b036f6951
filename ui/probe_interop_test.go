package ui

import (
	"fmt"
	"image"
	"slices"
	"testing"
	"unsafe"

	"github.com/go-gl/gl/v4.6-core/gl"

	"tumble/render"
	"tumble/render/instance"
	"tumble/sim"
)

// fakeInterop stands in for the CUDA backend's interop (Options.glWriters): its writers put what the
// kernels would into the renderer's GL buffers, computed on the host: the bodies' instances grouped
// by kind, and the contacts layer's crosses.
type fakeInterop struct{ app **App }

func (f fakeInterop) NewGLWriter(string, string) (instance.GLWriter, error) {
	return fakeWriter(f), nil
}

type fakeWriter struct{ app **App }

func (x fakeWriter) WriteInstances(w *sim.World, buf uint32, capacity int, st *instance.Style) (instance.Written, error) {
	var fr render.Frame
	render.Fill(&fr, w, (*x.app).ColorMode, nil, st.Highlight)
	var in instance.Written
	var all []instance.Instance
	for k := range fr.Shapes {
		in.Counts[k] = len(fr.Shapes[k])
		all = append(all, fr.Shapes[k]...)
	}
	if len(all) > capacity {
		return in, fmt.Errorf("%d instances, the buffer holds %d", len(all), capacity)
	}
	if len(all) > 0 {
		gl.BindBuffer(gl.ARRAY_BUFFER, buf)
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(all)*int(unsafe.Sizeof(instance.Instance{})), gl.Ptr(all))
	}
	in.Lo, in.Hi, in.Any = fr.Lo, fr.Hi, len(all) > 0
	return in, nil
}

func (x fakeWriter) WriteDebugLines(w *sim.World, buf uint32, capacity int, st *instance.DebugStyle) (instance.DebugLines, error) {
	var fr render.Frame
	if st.Contacts {
		for _, c := range w.Contacts(nil) {
			fr.Cross(c.Position, 0.05, st.Contact)
		}
	}
	lines := instance.DebugLines{Contacts: len(fr.Lines)}
	if len(fr.Lines) > capacity {
		return lines, instance.ErrLineCapacity
	}
	if len(fr.Lines) > 0 {
		gl.BindBuffer(gl.ARRAY_BUFFER, buf)
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(fr.Lines)*int(unsafe.Sizeof(instance.LineVertex{})), gl.Ptr(fr.Lines))
	}
	return lines, nil
}

func (fakeWriter) Close() {}

// probePixels counts the pixels of the probe's query colour (cyan) and its hits' (magenta).
func probePixels(img *image.RGBA) int {
	n := 0
	near := func(v uint8, want float32) bool { d := int(v) - int(want*255); return d > -40 && d < 40 }
	for i := 0; i+3 < len(img.Pix); i += 4 {
		r, g, b := img.Pix[i], img.Pix[i+1], img.Pix[i+2]
		for _, c := range [][4]float32{colProbe, colProbeHit} {
			if near(r, c[0]) && near(g, c[1]) && near(b, c[2]) {
				n++
			}
		}
	}
	return n
}

// On the interop path, where the device writes the debug layers into the GL line buffer, the probe's
// lines (the overlap's shape, the bodies it finds) are drawn after the device's: the renderer gets
// them in the frame's overlay with the device's lines counted, and the picture is the host path's,
// probe and contact crosses alike.
func TestProbeLinesAreDrawnOverTheInteropDeviceLines(t *testing.T) {
	needDisplay(t)
	var app *App
	opt := Options{Scene: "stack", Width: 480, Height: 320, Frames: 3, NoPanel: true, NoShadows: true,
		Debug: []string{"contacts", "probe"}, Setup: func(a *App) {
			app = a
			a.tools.probe.mode, a.tools.probe.size = probeOverlap, [3]float32{0.6, 0.6, 0.6}
		}}
	want, host := run(t, opt)
	opt.glWriters = fakeInterop{&app}
	got, a := run(t, opt)
	f := &a.frame
	if !f.Device || f.DeviceLines == 0 || len(f.Lines) != 0 {
		t.Fatalf("not the interop path: device %v, %d device line vertices, %d host", f.Device, f.DeviceLines, len(f.Lines))
	}
	probeVerts := func(ls []instance.LineVertex) (n int) {
		for _, v := range ls {
			if c := v.Color; c == colProbe || c == colProbeHit {
				n++
			}
		}
		return n
	}
	if n, m := probeVerts(f.Overlay), probeVerts(host.frame.Overlay); n == 0 || n != m || len(a.tools.probe.hits) == 0 {
		t.Errorf("%d probe vertices in the interop frame's overlay, %d in the host's (%d hits)", n, m, len(a.tools.probe.hits))
	}
	if n := probePixels(got); n < 50 {
		t.Errorf("%d probe-coloured pixels in the interop frame", n)
	}
	if n := differentPixels(got, want); n > 0 {
		t.Errorf("%d pixels differ between the interop path's frame and the host path's", n)
	}
}

// The selected body's outline is drawn on the interop path as on the host path: from its one body
// read back, after the device's lines, the same vertices and the same picture.
func TestSelectionOutlineIsDrawnOnTheInteropPath(t *testing.T) {
	needDisplay(t)
	var app *App
	opt := Options{Scene: "stack", Width: 480, Height: 320, Frames: 3, NoPanel: true, NoShadows: true,
		Debug: []string{"contacts"}, Setup: func(a *App) {
			app = a
			a.S.View(func(w *sim.World) { a.Selected, _ = w.Find("box5") })
		}}
	want, host := run(t, opt)
	opt.glWriters = fakeInterop{&app}
	got, a := run(t, opt)
	f := &a.frame
	if !f.Device || f.DeviceLines == 0 || len(f.Lines) != 0 {
		t.Fatalf("not the interop path: device %v, %d device line vertices, %d host", f.Device, f.DeviceLines, len(f.Lines))
	}
	outline := func(ls []instance.LineVertex) (n int) {
		for _, v := range ls {
			if v.Color == instance.ColorSelected {
				n++
			}
		}
		return n
	}
	// A box's outline is its 12 edges, 24 vertices.
	if n, m := outline(f.Overlay), outline(host.frame.Overlay); n != 24 || m != 24 {
		t.Errorf("selection outline vertices: %d on the interop path, %d on the host path; want 24", n, m)
	}
	if n := differentPixels(got, want); n > 0 {
		t.Errorf("%d pixels differ between the interop path's frame and the host path's", n)
	}
}

// The joints layer is drawn on the interop path as on the host path, from the joints' bodies read
// back alone: the door's hinge with its limits (the joint inspected) gives the same lines among the
// bodies, the same overlay and the same picture.
func TestJointsAreDrawnOnTheInteropPath(t *testing.T) {
	needDisplay(t)
	var app *App
	opt := Options{Scene: "door", Width: 480, Height: 320, Frames: 3, NoPanel: true, NoShadows: true,
		Setup: func(a *App) {
			app = a
			a.panel.joint.selected = 0
		}}
	want, host := run(t, opt)
	opt.glWriters = fakeInterop{&app}
	got, a := run(t, opt)
	f, hf := &a.frame, &host.frame
	if !f.Device || hf.Device {
		t.Fatalf("the interop run is on the device path: %v; the host run: %v", f.Device, hf.Device)
	}
	if len(hf.Overlay) == 0 || len(hf.Lines) == 0 {
		t.Fatalf("the host path drew %d overlay and %d line vertices for the door's hinge", len(hf.Overlay), len(hf.Lines))
	}
	if !slices.Equal(f.Lines, hf.Lines) || !slices.Equal(f.Overlay, hf.Overlay) {
		t.Errorf("interop path: %d line and %d overlay vertices; host path: %d and %d, or others", len(f.Lines), len(f.Overlay), len(hf.Lines), len(hf.Overlay))
	}
	if n := differentPixels(got, want); n > 0 {
		t.Errorf("%d pixels differ between the interop path's frame and the host path's", n)
	}
}
