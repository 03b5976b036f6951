package ui

import (
	"bytes"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
	"tumble/ui/command"
)

// differentPixels counts the pixels where two images differ.
func differentPixels(a, b *image.RGBA) int {
	n := 0
	for i := 0; i+3 < len(a.Pix); i += 4 {
		if a.Pix[i] != b.Pix[i] || a.Pix[i+1] != b.Pix[i+1] || a.Pix[i+2] != b.Pix[i+2] {
			n++
		}
	}
	return n
}

// TestDeviceBufferDrawsWhatTheCPUFillDraws: the interop path's drawing (one device buffer grouped by
// kind, a base instance per kind), fed here the CPU fill's records as the transforms kernel writes
// them, renders the same pixels as the per-kind buffers, on presets with boxes, spheres and capsules.
func TestDeviceBufferDrawsWhatTheCPUFillDraws(t *testing.T) {
	needDisplay(t)
	for _, name := range []string{"mixed", "ragdoll"} {
		opt := Options{Scene: name, Width: 480, Height: 320, Frames: 2, NoPanel: true}
		want, _ := run(t, opt)
		opt.deviceCopy = true
		got, a := run(t, opt)
		if !a.frame.Device || a.frame.Counts[0]+a.frame.Counts[1]+a.frame.Counts[2] == 0 {
			t.Fatalf("%s: the frame was not drawn from the device buffer (%v)", name, a.frame.Counts)
		}
		if n := differentPixels(got, want); n > 0 {
			t.Errorf("%s: %d pixels differ between the device buffer's draw and the CPU fill's", name, n)
		}
	}
}

// TestDeviceLineBufferDrawsWhatTheHostLinesDraw: the interop path's debug lines (the device line
// buffer, as the debug kernels fill it), fed here the CPU path's vertices, render the same pixels as
// the host lines, with the layers the kernels write (contacts, normals, AABBs, BVH level boxes).
func TestDeviceLineBufferDrawsWhatTheHostLinesDraw(t *testing.T) {
	needDisplay(t)
	opt := Options{Scene: "mixed", Width: 480, Height: 320, Frames: 2, NoPanel: true,
		Debug: []string{"contacts", "normals", "aabbs", "bvh"}}
	want, _ := run(t, opt)
	opt.deviceCopy = true
	got, a := run(t, opt)
	if !a.frame.Device || a.frame.DeviceLines == 0 || len(a.frame.Lines) != 0 {
		t.Fatalf("the lines were not drawn from the device line buffer (%d device, %d host vertices)",
			a.frame.DeviceLines, len(a.frame.Lines))
	}
	if n := differentPixels(got, want); n > 0 {
		t.Errorf("%d pixels differ between the device line buffer's draw and the host lines'", n)
	}
}

// TestEmulatedBackendFallsBackToTheCPUCopyWithOneLine: with a CUDA backend that cannot share buffers
// with this GL context (here: Mesa's llvmpipe, a build without CUDA, or the emulated device), the app
// says why in one line, in its log and its panel, and draws from a host copy of the bodies: the same
// picture as the CPU backend's.
func TestEmulatedBackendFallsBackToTheCPUCopyWithOneLine(t *testing.T) {
	needDisplay(t)
	opt := Options{Scene: "mixed", Width: 480, Height: 320, Frames: 1, NoPanel: true}
	want, _ := run(t, opt)
	var log bytes.Buffer
	opt.Backend, opt.Log = command.BackendEmulated, &log
	got, a := run(t, opt)
	if a.S.BackendKind() != command.BackendEmulated {
		t.Fatalf("on %q, want emu (log: %s)", a.S.BackendKind(), log.String())
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "interop off") || !strings.Contains(lines[0], "host copy") {
		t.Errorf("log %q: want one line saying interop is off and why", log.String())
	}
	if a.interopNote == "" || !strings.Contains(lines[0], a.interopNote) || a.interop != nil || a.frame.Device {
		t.Errorf("panel note %q, interop %v, device frame %v", a.interopNote, a.interop, a.frame.Device)
	}
	if n := differentPixels(got, want); n > 0 {
		t.Errorf("%d pixels differ from the CPU backend's render of the same state", n)
	}
}

// TestPanelSwitchesBackendsAndShowsWhyNot: the panel's switch (the command applied at once), to the
// emulated backend, to cuda (refused without the build, staying put) and back to the CPU;
// the window goes on drawing throughout.
func TestPanelSwitchesBackendsAndShowsWhyNot(t *testing.T) {
	needDisplay(t)
	var log bytes.Buffer
	var msgs []string
	_, a := run(t, Options{Scene: "stack", Width: 640, Height: 400, Frames: 3, Log: &log, Setup: func(a *App) {
		a.switchBackend(command.BackendEmulated)
		msgs = append(msgs, a.panel.message)
		if !cudaBuilt {
			a.switchBackend(command.BackendCUDA)
			msgs = append(msgs, a.panel.message)
		}
	}})
	if msgs[0] != "backend emu: done" {
		t.Errorf("switch to emu: %q", msgs[0])
	}
	if !cudaBuilt && (!strings.Contains(msgs[1], "without CUDA") || a.S.BackendKind() != command.BackendEmulated) {
		t.Errorf("switch to cuda without the build: %q, on %q", msgs[1], a.S.BackendKind())
	}
	if !strings.Contains(log.String(), "interop off") {
		t.Errorf("no interop line in the log: %q", log.String())
	}
	// The frames stepped on the emulated backend (the failed switch to cuda left it there).
	steps := 0
	a.S.Peek(func(w *sim.World) { steps = w.StepCount })
	if steps == 0 {
		t.Error("no step ran on the emulated backend")
	}
	a.switchBackend(command.BackendCPU)
	if a.S.BackendKind() != command.BackendCPU {
		t.Errorf("still on %q after switching to the CPU: %s", a.S.BackendKind(), a.panel.message)
	}
}

// TestTheWindowRunsOnTheEmulatedBackend: the real loop with the emulated backend attached from the start
// steps the world without errors and draws from the CPU copy (interop refused once, with its line).
func TestTheWindowRunsOnTheEmulatedBackend(t *testing.T) {
	needDisplay(t)
	var a *App
	var sum Summary
	var log bytes.Buffer
	onMain(func() {
		_, err := Run(Options{Scene: "stack", Width: 640, Height: 400, For: 4 * time.Second, Summary: &sum,
			Backend: command.BackendEmulated, Backends: testBackends, Log: &log, Open: []string{"scene"}, Setup: func(app *App) { a = app }})
		if err != nil {
			t.Error(err)
		}
	})
	if sum.Frames < 2 { // a timing-free check that the loop drew more than once (llvmpipe under load is slow)
		t.Errorf("%d frames in 4 s", sum.Frames)
	}
	if err := a.S.Err(); err != nil {
		t.Errorf("step error on the emulated backend: %v", err)
	}
	steps := 0
	a.S.Peek(func(w *sim.World) { steps = w.StepCount })
	if steps == 0 {
		t.Error("the world did not step on the emulated backend")
	}
	if strings.Count(log.String(), "interop off") != 1 {
		t.Errorf("log %q: want the interop line once", log.String())
	}
}

// TestClickingAndJoiningWorkWithABackendAttached: picking reads the bodies back (on click), the
// selection highlights, the joint tool joins two clicked bodies, and every debug layer draws from the
// host copy, all on the emulated backend.
func TestClickingAndJoiningWorkWithABackendAttached(t *testing.T) {
	needDisplay(t)
	var top, below sim.Handle
	_, a := run(t, Options{Scene: "stack", Width: 960, Height: 600, Frames: 3, Backend: command.BackendEmulated,
		Log: &bytes.Buffer{}, Debug: DebugNames, Open: SectionNames, Setup: func(a *App) {
			a.S.View(func(w *sim.World) {
				top, _ = w.Find("box19")
				below, _ = w.Find("box18")
			})
			click(a, mgl32.Vec3{0, 19.5, 0.5})
			if a.Selected != top {
				t.Errorf("clicked box19, selected %v", a.Selected)
			}
			a.panel.init()
			a.panel.joint.mode = 1
			click(a, mgl32.Vec3{0, 19.5, 0.5})
			click(a, mgl32.Vec3{0, 18.5, 0.5})
			a.do("joint", command.Join(a.JoinSpec()))
		}})
	if a.S.BackendKind() != command.BackendEmulated {
		t.Fatalf("on %q", a.S.BackendKind())
	}
	a.S.View(func(w *sim.World) {
		if w.NumJoints() != 1 || w.Joint(0).BodyA != top || w.Joint(0).BodyB != below {
			t.Errorf("%d joints (want box19 to box18): %s", w.NumJoints(), a.panel.message)
		}
	})
	if len(a.frame.Lines) == 0 || a.frame.Device {
		t.Errorf("%d debug line vertices, device frame %v", len(a.frame.Lines), a.frame.Device)
	}
}
