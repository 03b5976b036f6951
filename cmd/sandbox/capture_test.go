package main

import (
	"bytes"
	"image/gif"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tumble/ui"
)

// The window commands need the process's main thread, so these tests run the program in a child
// process: this test binary again, with childEnv set, which TestMain hands straight to run.
const childEnv = "TUMBLE_SANDBOX_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		args := strings.Split(os.Getenv(childEnv), "\x1f")
		os.Exit(run(args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// child runs "sandbox args..." in a child process with env added.
func child(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), childEnv+"="+strings.Join(args, "\x1f"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

func needDisplay(t *testing.T) {
	t.Helper()
	if err := ui.CheckDisplay(); err != nil {
		if os.Getenv("TUMBLE_REQUIRE_DISPLAY") != "" {
			t.Fatalf("TUMBLE_REQUIRE_DISPLAY is set but: %v", err)
		}
		t.Skipf("%v (run under xvfb-run)", err)
	}
}

// -frames 10 -video out.gif writes a GIF of the 10 frames at the size asked for.
func TestVideoFlagWritesAGIFOfEveryFrame(t *testing.T) {
	needDisplay(t)
	out := filepath.Join(t.TempDir(), "out.gif")
	code, stdout, stderr := child(t, nil, "-scene", "pyramid20", "-frames", "10", "-video", out, "-width", "320", "-height", "200", "-no-shadows")
	if code != 0 || !strings.Contains(stdout, "wrote "+out) {
		t.Fatalf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if len(g.Image) != 10 || g.Image[0].Bounds().Dx() != 320 || g.Image[0].Bounds().Dy() != 200 {
		t.Errorf("%d frames of %v, want 10 of 320 x 200", len(g.Image), g.Image[0].Bounds())
	}
}

// -video out.mp4 without ffmpeg on PATH fails with one line naming where the PNG frames are.
func TestVideoFlagMP4WithoutFFmpegFails(t *testing.T) {
	needDisplay(t)
	out := filepath.Join(t.TempDir(), "out.mp4")
	code, stdout, stderr := child(t, []string{"PATH=" + t.TempDir()}, "-scene", "stack", "-frames", "3", "-video", out, "-width", "160", "-height", "100", "-no-shadows")
	if code != exitError || stdout != "" || !strings.HasPrefix(stderr, "sandbox: ffmpeg not found") ||
		!strings.Contains(stderr, "the PNG frames are in "+out+".frames") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(out+".frames", "frame_*.png")); len(m) != 3 {
		t.Errorf("%d PNG frames kept, want 3", len(m))
	}
}

// -replay FILE -frames N -video plays the recording, one recorded step a frame; a truncated file
// fails with exit 1 and one line on stderr naming it.
func TestReplayFlagPlaysTheRecordingOrRefusesADamagedOne(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()
	replay := filepath.Join(dir, "s.replay")
	if code, _, errs := sandbox("run", "-scene", "stack", "-steps", "30", "-record", replay); code != 0 {
		t.Fatalf("run -record: %s", errs)
	}
	data, _ := os.ReadFile(replay)
	bad := filepath.Join(dir, "bad.replay")
	os.WriteFile(bad, data[:len(data)-9], 0o644)
	code, stdout, stderr := child(t, nil, "-replay", bad, "-frames", "2", "-screenshot", filepath.Join(dir, "x.png"))
	if code != exitError || stdout != "" || !strings.HasPrefix(stderr, "sandbox: replay "+bad+": ") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("a truncated replay: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	out := filepath.Join(dir, "frames")
	code, stdout, stderr = child(t, nil, "-replay", replay, "-frames", "5", "-video", out, "-width", "160", "-height", "100", "-no-shadows")
	if code != 0 || !strings.Contains(stdout, "wrote "+out) {
		t.Fatalf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "frame_*.png")); len(m) != 5 {
		t.Errorf("%d frames, want 5", len(m))
	}
}
