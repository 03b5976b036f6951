package ui

import (
	"bytes"
	"errors"
	"image"
	"strings"
	"testing"
	"time"

	"tumble/ui/command"
)

// runEGL is run with the context from EGL, and $DISPLAY empty so that nothing can reach an X server.
func runEGL(t *testing.T, opt Options) (*App, *image.RGBA) {
	t.Helper()
	t.Setenv("DISPLAY", "")
	opt.GL = GLEGL
	img, a := run(t, opt)
	if !strings.HasPrefix(a.GLContext(), "egl: ") {
		t.Fatalf("not on an EGL context: %q", a.GLContext())
	}
	return a, img
}

// TestEGLDrawsWithoutADisplayWhereTheBodiesAre: with no $DISPLAY, a headless run in auto mode takes
// EGL, and the frame shows the bodies where they are (a coloured pixel at each visible dynamic body's
// centre) and the panel.
func TestEGLDrawsWithoutADisplayWhereTheBodiesAre(t *testing.T) {
	t.Setenv("DISPLAY", "")
	img, a := run(t, Options{Scene: "pyramid", Width: 640, Height: 400, Frames: 2})
	if !strings.HasPrefix(a.GLContext(), "egl: ") {
		t.Fatalf("auto mode without a display did not take EGL: %q", a.GLContext())
	}
	px := projected(a)
	if len(px) < 50 {
		t.Fatalf("only %d body centres in view", len(px))
	}
	grey := 0
	for _, p := range px {
		if saturation(img.At(p[0], p[1])) < 0.25 {
			grey++
		}
	}
	if grey > len(px)/20 {
		t.Errorf("%d of %d body centres are not coloured", grey, len(px))
	}
	// The panel (dark, on the right) is there: the middle of its column is dark.
	if l := luma(img.At(600, 200)); l > 0.3 {
		t.Errorf("no dark panel at (600, 200): luma %.2f", l)
	}
}

// TestEGLDrawsWhatGLFWDraws: the same scene, the same frames, through EGL and through GLFW's hidden
// window (both Mesa's llvmpipe here): the same pixels, debug lines included. (The panel is left out:
// its clock and frame rate differ from run to run.)
func TestEGLDrawsWhatGLFWDraws(t *testing.T) {
	needDisplay(t)
	opt := Options{Scene: "mixed", Width: 480, Height: 320, Frames: 3, NoPanel: true, Debug: []string{"contacts", "aabbs"}, GL: GLGLFW}
	want, a := run(t, opt)
	if a.GLContext() != GLGLFW {
		t.Fatal("-gl glfw did not open a window")
	}
	_, got := runEGL(t, opt)
	if n := differentPixels(got, want); n > 0 {
		t.Errorf("%d pixels differ between EGL's frame and GLFW's", n)
	}
}

// TestTheInteropPathUnderEGL: under EGL as under GLFW, the interop path's drawing (the device buffer,
// filled here from the CPU fill as the transforms kernel fills it) gives the CPU fill's pixels, and
// the emulated backend says in one line that interop is off and draws the same picture from the host
// copy (of the same state: one frame, no step, for the emulated backend runs another solver).
func TestTheInteropPathUnderEGL(t *testing.T) {
	opt := Options{Scene: "ragdoll", Width: 480, Height: 320, Frames: 1, NoPanel: true, Debug: []string{"contacts", "normals", "aabbs"}}
	_, want := runEGL(t, opt)
	opt.deviceCopy = true
	a, got := runEGL(t, opt)
	if !a.frame.Device || a.frame.DeviceLines == 0 {
		t.Fatalf("not drawn from the device buffers (%v, %d line vertices)", a.frame.Counts, a.frame.DeviceLines)
	}
	if n := differentPixels(got, want); n > 0 {
		t.Errorf("%d pixels differ between the device buffers' draw and the CPU fill's", n)
	}
	opt.deviceCopy = false
	var log bytes.Buffer
	opt.Backend, opt.Log = command.BackendEmulated, &log
	a, got = runEGL(t, opt)
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if a.S.BackendKind() != command.BackendEmulated || len(lines) != 1 || !strings.Contains(lines[0], "interop off") {
		t.Errorf("on %q, log %q: want the emulated backend and one interop line", a.S.BackendKind(), log.String())
	}
	if n := differentPixels(got, want); n > 0 {
		t.Errorf("%d pixels differ between the emulated backend's frame and the CPU's", n)
	}
}

// TestADisplayThatRefusesFallsBackToEGL: in auto mode a headless run whose $DISPLAY names no server
// goes on through EGL, saying so in one line; -gl glfw does not.
func TestADisplayThatRefusesFallsBackToEGL(t *testing.T) {
	t.Setenv("DISPLAY", ":9876")
	var log bytes.Buffer
	_, a := run(t, Options{Scene: "stack", Width: 160, Height: 100, Frames: 1, NoPanel: true, Log: &log})
	if !strings.HasPrefix(a.GLContext(), "egl: ") || !strings.Contains(log.String(), `cannot open the X display ":9876"; rendering through EGL instead`) ||
		strings.Count(log.String(), "\n") != 1 {
		t.Errorf("context %q, log %q", a.GLContext(), log.String())
	}
	var err error
	onMain(func() { _, err = Run(Options{Scene: "stack", Frames: 1, GL: GLGLFW, Log: &log}) })
	if !errors.Is(err, ErrNoDisplay) {
		t.Errorf("-gl glfw on a display that refuses: %v", err)
	}
}

// TestGLChoiceIsChecked: EGL gives no window, and an unknown source is refused, before anything opens.
func TestGLChoiceIsChecked(t *testing.T) {
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{GL: GLEGL}, ErrEGLNeedsHeadless.Error()},
		{Options{GL: "vulkan", Frames: 1}, `unknown OpenGL context source "vulkan" (want auto, glfw, egl)`},
	} {
		var err error
		onMain(func() { _, err = Run(c.opt) })
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.opt.GL, err, c.want)
		}
	}
}

// TestTheFrameSplitIsMeasured: a timed headless run records each frame's split (the step, the host
// copy filled and uploaded, the drawing), and the Stats section's series hold the same figures.
func TestTheFrameSplitIsMeasured(t *testing.T) {
	var timings []FrameTiming
	a, _ := runEGL(t, Options{Scene: "pyramid", Width: 320, Height: 200, Frames: 6, Timings: &timings, Open: []string{"stats"}})
	if len(timings) != 6 {
		t.Fatalf("%d frames timed, want 6", len(timings))
	}
	for i, ft := range timings {
		if (i > 0 && ft.Step <= 0) || ft.Panel <= 0 || ft.Fill <= 0 || ft.Upload <= 0 || ft.Draw <= 0 {
			t.Errorf("frame %d: %+v: every part should have taken time", i, ft)
		}
	}
	k := (a.stats.n - 1) % historyLen
	ms := func(d time.Duration) float32 { return float32(d.Seconds() * 1000) }
	last := timings[5]
	if a.stats.fill[k] != ms(last.Fill) || a.stats.upload[k] != ms(last.Upload) || a.stats.panel[k] != ms(last.Panel) {
		t.Errorf("the Stats series (fill %g, upload %g, panel %g ms) are not the frame's split %+v",
			a.stats.fill[k], a.stats.upload[k], a.stats.panel[k], last)
	}
	if a.stats.step[k] <= 0 {
		t.Error("the Stats section sampled no step time")
	}
	// The GL timer: by the sixth frame the first frames' queries have their results (each frame was
	// finished), so the GPU's draw time is known.
	if a.gpuDraw.n != 6 || a.gpuDraw.last <= 0 {
		t.Errorf("GPU timer: %d queries, last %g ms", a.gpuDraw.n, a.gpuDraw.last)
	}
}
