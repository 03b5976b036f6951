package main

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noDisplay is the environment of a server without X: no $DISPLAY, no -gl preference.
var noDisplay = []string{"DISPLAY=", "TUMBLE_GL="}

// TestScreenshotWithoutADisplayGoesThroughEGL: with no $DISPLAY a -frames run renders through EGL,
// writes the PNG (the bodies in colour on the sky and ground), and -perf prints the context and the
// frame split, upload included, with the process's CPU time a frame and each part's worst frame.
func TestScreenshotWithoutADisplayGoesThroughEGL(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.png")
	code, stdout, stderr := child(t, noDisplay, "-scene", "pyramid", "-frames", "3", "-screenshot", out,
		"-width", "320", "-height", "200", "-no-panel", "-perf")
	if code != 0 || !strings.Contains(stdout, "wrote "+out) || !strings.Contains(stdout, "(egl: ") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, part := range []string{"step", "panel", "fill", "upload", "draw", "frame", "cpu"} {
		if !strings.Contains(stdout, "\n"+part+" ") {
			t.Errorf("-perf printed no %q row: %q", part, stdout)
		}
	}
	if !strings.Contains(stdout, "worst ms") {
		t.Errorf("-perf printed no worst column: %q", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, 320, 200) {
		t.Fatalf("%v, want 320 x 200", img.Bounds())
	}
	coloured := 0
	for y := 0; y < 200; y++ {
		for x := 0; x < 320; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if max(r, g, b)-min(r, g, b) > 0x4000 {
				coloured++
			}
		}
	}
	if coloured < 320*200/20 { // the pyramid's coloured boxes fill about a third of the view
		t.Errorf("%d coloured pixels: no bodies drawn?", coloured)
	}
}

// TestOrbitTurnsTheCameraEachFrame: -orbit turns the view between frames, so the last of three
// frames differs from the same run's without it (the steps are the same: one a frame, deterministic)
// by most of the picture.
func TestOrbitTurnsTheCameraEachFrame(t *testing.T) {
	dir := t.TempDir()
	shot := func(extra ...string) image.Image {
		out := filepath.Join(dir, fmt.Sprintf("%d.png", len(extra)))
		args := append([]string{"-scene", "pyramid", "-frames", "3", "-screenshot", out, "-width", "160", "-height", "100", "-no-panel", "-no-shadows"}, extra...)
		if code, stdout, stderr := child(t, noDisplay, args...); code != 0 {
			t.Fatalf("%v: code %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	still, turned := shot(), shot("-orbit", "40")
	differ := 0
	for y := 0; y < 100; y++ {
		for x := 0; x < 160; x++ {
			if still.At(x, y) != turned.At(x, y) {
				differ++
			}
		}
	}
	if differ < 160*100/10 {
		t.Errorf("%d of %d pixels differ after two turns of 40 degrees: the camera did not turn", differ, 160*100)
	}
}

// TestAHeightFieldIsDrawnWhileTheCameraTurns: the hills' field fills the lower part of the view, in
// grey terrain (no sky showing through), after frames that turned the camera and brought other
// chunk levels into view.
func TestAHeightFieldIsDrawnWhileTheCameraTurns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "hills.png")
	code, stdout, stderr := child(t, noDisplay, "-scene", "hills", "-frames", "8", "-orbit", "20", "-screenshot", out,
		"-width", "160", "-height", "100", "-no-panel")
	if code != 0 {
		t.Fatalf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	sky, grey, all := 0, 0, 0
	for y := 70; y < 100; y++ {
		for x := 0; x < 160; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			all++
			if max(r, g, b)-min(r, g, b) < 24 {
				grey++
			}
			if r > 148 && r < 168 && g > 174 && g < 194 && b > 199 && b < 219 { // render.Sky
				sky++
			}
		}
	}
	if sky > all/20 || grey < all/2 {
		t.Errorf("the view's lower part: %d of %d pixels sky, %d grey: the field is not drawn", sky, all, grey)
	}
}

// TestVideoWithoutADisplay: -video records every frame through EGL too.
func TestVideoWithoutADisplay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "frames")
	code, stdout, stderr := child(t, noDisplay, "-scene", "stack", "-frames", "3", "-video", dir, "-width", "160", "-height", "100", "-no-panel")
	if code != 0 || !strings.Contains(stdout, "wrote "+dir) {
		t.Fatalf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "frame_*.png")); len(m) != 3 {
		t.Errorf("%d frames, want 3", len(m))
	}
}

// TestNoEGLIsOneLine: when EGL cannot give a context (here: a device that is not there) the run
// fails with exit 1 and one line saying why, with no stack trace.
func TestNoEGLIsOneLine(t *testing.T) {
	code, stdout, stderr := child(t, append(noDisplay, "TUMBLE_EGL_DEVICE=99"), "-scene", "stack", "-frames", "1",
		"-screenshot", filepath.Join(t.TempDir(), "x.png"))
	want := "sandbox: no display ($DISPLAY is empty), and EGL: $TUMBLE_EGL_DEVICE=99, but EGL lists"
	if code != exitError || stdout != "" || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("code %d, stdout %q, stderr %q; want exit 1 and one line %q...", code, stdout, stderr, want)
	}
}

// TestGLFlagIsChecked: -gl and $TUMBLE_GL take auto, glfw or egl, and egl only for -frames runs.
func TestGLFlagIsChecked(t *testing.T) {
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"-gl", "vulkan"}, `sandbox: -gl "vulkan": want auto, glfw, egl`},
		{[]string{"TUMBLE_GL=osmesa"}, nil, `sandbox: $TUMBLE_GL "osmesa": want auto, glfw, egl`},
		{nil, []string{"-gl", "egl"}, "sandbox: -gl egl renders headless only: give -frames N with -screenshot or -video"},
		{[]string{"TUMBLE_GL=egl"}, []string{"-scene", "stack"}, "sandbox: -gl egl renders headless only"},
	} {
		for _, e := range c.env {
			k, v, _ := strings.Cut(e, "=")
			t.Setenv(k, v)
		}
		code, _, stderr := sandbox(c.args...)
		if code != exitUsage || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%v %v: code %d, stderr %q; want %q", c.env, c.args, code, stderr, c.want)
		}
		t.Setenv("TUMBLE_GL", "")
	}
}

// TestWindowCPUProfile: a -frames run with -cpuprofile writes a CPU profile of its frames (a gzipped
// protobuf, as go tool pprof reads); without -frames the flag is a usage error, and a file it cannot
// create an error naming the flag.
func TestWindowCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.prof")
	code, stdout, stderr := child(t, noDisplay, "-scene", "stack", "-frames", "3", "-screenshot", filepath.Join(dir, "x.png"),
		"-width", "160", "-height", "100", "-cpuprofile", prof)
	if code != 0 {
		t.Fatalf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	data, err := os.ReadFile(prof)
	if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("profile %s: %d bytes, err %v: want a gzipped profile", prof, len(data), err)
	}
	if code, _, stderr := child(t, noDisplay, "-scene", "stack", "-cpuprofile", prof); code != exitUsage || !strings.Contains(stderr, "-cpuprofile goes with -frames") {
		t.Errorf("-cpuprofile without -frames: code %d, stderr %q", code, stderr)
	}
	code, _, stderr = child(t, noDisplay, "-scene", "stack", "-frames", "1", "-screenshot", filepath.Join(dir, "y.png"),
		"-width", "160", "-height", "100", "-cpuprofile", filepath.Join(dir, "no", "x.prof"))
	if code != 1 || !strings.Contains(stderr, "-cpuprofile") {
		t.Errorf("an uncreatable profile: code %d, stderr %q: want 1 and an error naming -cpuprofile", code, stderr)
	}
}
