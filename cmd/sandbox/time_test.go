package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRecordsAndReplayTracesTheSameRows: a run's trace and the trace exported from its replay
// file are the same text; the determinism check passes with 1 and 2 workers.
func TestRunRecordsAndReplayTracesTheSameRows(t *testing.T) {
	dir := t.TempDir()
	scene := writeFile(t, "contract.json", contractScene)
	runTrace, replay, replayTrace := filepath.Join(dir, "run.csv"), filepath.Join(dir, "c.replay"), filepath.Join(dir, "replay.csv")
	code, out, errs := sandbox("run", "-scene", scene, "-steps", "90", "-trace", runTrace, "-record", replay,
		"-record-keyframe", "40", "-check-determinism", "-check-workers", "1,2")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	for _, want := range []string{"recording: steps 0 to 90", "replay saved to", "with 1 worker(s): identical", "with 2 worker(s): identical"} {
		if !strings.Contains(out, want) {
			t.Errorf("run's output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = sandbox("replay", replay, "-trace", replayTrace)
	if code != 0 || !strings.Contains(out, "steps 0 to 90") {
		t.Fatalf("replay: exit %d: %s%s", code, out, errs)
	}
	a, _ := os.ReadFile(runTrace)
	b, _ := os.ReadFile(replayTrace)
	if string(a) != string(b) || len(a) == 0 {
		t.Fatalf("the replay's trace differs from the run's (%d and %d bytes)", len(a), len(b))
	}
	// A range: steps 30 to 50, every 10th.
	code, out, _ = sandbox("replay", replay, "-trace", "-", "-from", "30", "-to", "50", "-every", "10")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 1+3*5 || !strings.HasPrefix(lines[1], "30,") {
		t.Fatalf("range trace: exit %d, %d lines:\n%s", code, len(lines), out)
	}
	code, _, errs = sandbox("replay", replay, "-check-determinism", "-from", "10", "-to", "60")
	if code != 0 {
		t.Fatalf("replay -check-determinism: exit %d: %s", code, errs)
	}
}

// TestReplayRefusesBadInput: a truncated file, a range outside the recording and bad flags each exit
// non-zero with one line naming what is wrong.
func TestReplayRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	replay := filepath.Join(dir, "s.replay")
	if code, _, errs := sandbox("run", "-scene", "stack", "-steps", "20", "-record", replay); code != 0 {
		t.Fatal(errs)
	}
	data, _ := os.ReadFile(replay)
	cut := filepath.Join(dir, "cut.replay")
	os.WriteFile(cut, data[:len(data)*2/3], 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"replay", cut}, 1, "replay " + cut + ": damaged or truncated"},
		{[]string{"replay", replay, "-from", "5", "-to", "40"}, 1, "outside the recorded steps 0 to 20"},
		{[]string{"replay", filepath.Join(dir, "none.replay")}, 1, "no such file"},
		{[]string{"replay"}, 2, "one replay file"},
		{[]string{"replay", replay, "-every", "0"}, 2, "-every must be >= 1"},
		{[]string{"run", "-scene", "stack", "-steps", "5", "-check-determinism", "-check-workers", "1,x"}, 2, `"x" is not a worker count`},
		{[]string{"run", "-scene", "stack", "-steps", "5", "-record", "x", "-record-budget", "0"}, 2, "-record-budget must be >= 1"},
	} {
		code, _, errs := sandbox(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestSqueezedReplayTracesExactly: a recording whose budget (1 MB) holds no exact poses and fewer
// keyframes still traces every step bit for bit as the run did, by re-simulating from its keyframes,
// and its determinism check passes. A keyframe every 10 steps (41 of about 44 KB) is twice what the
// budget holds, so about half are thinned whatever the scene's exact floats (with one every 20 steps
// the recording sat at the budget's edge: 1 keyframe thinned or none, as a rounding changed).
func TestSqueezedReplayTracesExactly(t *testing.T) {
	dir := t.TempDir()
	runTrace, replay, replayTrace := filepath.Join(dir, "run.csv"), filepath.Join(dir, "m.replay"), filepath.Join(dir, "replay.csv")
	code, out, errs := sandbox("run", "-scene", "mixed", "-steps", "400", "-trace", runTrace, "-record", replay,
		"-record-keyframe", "10", "-record-budget", "1")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "recording: steps 0 to 400") || !strings.Contains(out, "exact poses 0.00 MB (from step 401)") ||
		!strings.Contains(out, "older keyframes thinned") {
		t.Fatalf("want all 400 steps held, without exact poses, keyframes thinned:\n%s", out)
	}
	code, out, errs = sandbox("replay", replay, "-trace", replayTrace)
	if code != 0 {
		t.Fatalf("replay: exit %d: %s%s", code, out, errs)
	}
	if code, out, errs = sandbox("replay", replay, "-check-determinism", "-from", "150", "-to", "260"); code != 0 {
		t.Fatalf("replay -check-determinism: exit %d: %s%s", code, out, errs)
	}
	a, _ := os.ReadFile(runTrace)
	b, _ := os.ReadFile(replayTrace)
	if string(a) != string(b) || len(a) == 0 {
		t.Fatalf("the replay's trace differs from the run's (%d and %d bytes)", len(a), len(b))
	}
}

// TestDeterminismOnJointAndHullPresets: run -check-determinism with 1 and 2 workers on presets with
// joints (ragdoll, car), hulls (rocks) and a motor (engine), a few steps each.
func TestDeterminismOnJointAndHullPresets(t *testing.T) {
	for _, scene := range []string{"ragdoll", "car", "rocks", "engine"} {
		code, out, errs := sandbox("run", "-scene", scene, "-steps", "40", "-check-determinism", "-check-workers", "1,2")
		if code != 0 || strings.Count(out, "identical, bit for bit") != 2 {
			t.Errorf("%s: exit %d: %s%s", scene, code, out, errs)
		}
	}
}
