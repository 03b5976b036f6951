package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"tumble/sim"
	"tumble/sim/record"
)

// The Time section by real input on the stack scene: the slider scrubs back to a step the world
// showed while live (bit for bit), the buttons and the , and . keys step, the speed and budget
// apply, an edit while scrubbed back branches (the recorded future is gone), the determinism check
// says identical, and the saved replay loads as sandbox replay loads it.
func TestTimeSectionScrubsStepsBranchesChecksAndSaves(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"time", "simulation"}})
	poses := func() (int, []sim.Vec3) {
		var n int
		var p []sim.Vec3
		d.world(func(w *sim.World) { n, p = w.StepCount, append([]sim.Vec3(nil), w.Bodies.Position[:w.Bodies.Len()]...) })
		return n, p
	}
	d.frames(20)
	k, want := poses()
	d.frames(40)
	d.tap(glfw.KeySpace) // pause
	d.settle()
	if !d.a.S.Paused() {
		t.Fatal("Space did not pause")
	}
	live := d.a.S.Timeline()
	if live.Cursor != -1 || live.Last <= k {
		t.Fatalf("timeline before scrubbing: %+v (k %d)", live, k)
	}

	// Dragging the slider left scrubs back.
	d.drag("time/recorded step", 0, 1, -80)
	if tl := d.a.S.Timeline(); tl.Cursor < 0 || tl.Cursor >= live.Last {
		t.Fatalf("after dragging the slider left: %+v", tl)
	}
	// Typing a step into it shows that step exactly as the live world had it.
	d.setText("time/recorded step", 0, 1, fmt.Sprint(k))
	n, got := poses()
	if n != k || d.a.S.Timeline().Cursor != k {
		t.Fatalf("scrubbed to step %d, world shows step %d (timeline %+v)", k, n, d.a.S.Timeline())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("step %d body %d at %v, was %v while live", k, i, got[i], want[i])
		}
	}
	if d.a.panel.isErr {
		t.Errorf("panel error after scrubbing: %s", d.a.panel.message)
	}

	stepIs := func(what string, want int) {
		t.Helper()
		if n, _ := poses(); n != want {
			t.Errorf("%s: step %d, want %d", what, n, want)
		}
	}
	d.click("time/Step forward (.)")
	stepIs("Step forward", k+1)
	d.click("time/Step back (,)")
	stepIs("Step back", k)
	d.tap(glfw.KeyComma)
	d.settle()
	stepIs(", key", k-1)
	d.tap(glfw.KeyPeriod)
	d.settle()
	stepIs(". key", k)

	d.choose("time/speed", "1/2x")
	if s := d.a.S.Timeline().Speed; s != 0.5 {
		t.Errorf("speed %v after choosing 1/2x", s)
	}
	d.choose("time/speed", "1x")
	if s := d.a.S.Timeline().Speed; s != 1 {
		t.Errorf("speed %v after choosing 1x", s)
	}
	d.setText("time/budget, MB", 0, 1, "64")
	if b := d.a.S.Timeline().Budget; b != 64<<20 {
		t.Errorf("budget %d after typing 64 MB", b)
	}

	// An edit while scrubbed back (sub-steps) branches at the shown step: the future is discarded.
	if tl := d.a.S.Timeline(); tl.Cursor != k || tl.Last != live.Last {
		t.Fatalf("before the edit: %+v, want cursor %d last %d", tl, k, live.Last)
	}
	d.setText("simulation/sub-steps", 0, 1, "5")
	tl := d.a.S.Timeline()
	if tl.Cursor != -1 || tl.Last != k {
		t.Fatalf("after an edit at step %d: %+v (the recorded future should end at the branch)", k, tl)
	}
	d.world(func(w *sim.World) {
		if w.Settings().Substeps != 5 || w.StepCount != k {
			t.Errorf("branched world: sub-steps %d step %d", w.Settings().Substeps, w.StepCount)
		}
	})
	d.tap(glfw.KeySpace) // play
	d.frames(15)
	d.tap(glfw.KeySpace)
	d.settle()
	n, _ = poses()
	if n <= k {
		t.Fatalf("no steps after the branch at %d: step %d", k, n)
	}
	if tl := d.a.S.Timeline(); tl.Last != k+(n-k) || tl.Cursor != -1 {
		t.Errorf("timeline end %d, want branch step %d + %d steps since", tl.Last, k, n-k)
	}

	// Live returns from a scrubbed-back view to the newest step.
	d.tap(glfw.KeyComma)
	d.settle()
	if d.a.S.Timeline().Cursor < 0 {
		t.Fatalf(", did not scrub back")
	}
	d.click("time/Live")
	if tl := d.a.S.Timeline(); tl.Cursor != -1 {
		t.Errorf("Live: timeline %+v", tl)
	}
	stepIs("Live", n)

	d.checkDeterminism()
	if f := &d.a.panel.time; f.checkErr || !strings.Contains(f.check, "identical") {
		t.Errorf("determinism check: %q (error %v)", f.check, f.checkErr)
	}

	path := filepath.Join(t.TempDir(), "stack.replay")
	d.typeInto("time/replay file", path)
	d.click("time/Save replay")
	if f := &d.a.panel.time; f.saveErr || !strings.Contains(f.saved, path) {
		t.Fatalf("Save replay: %q", f.saved)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	rp, err := record.Load(path)
	if err != nil {
		t.Fatalf("loading the saved replay: %v", err)
	}
	if last := d.a.S.Timeline().Last; rp.Last() != last || rp.Scene != "stack" {
		t.Errorf("replay: scene %q steps %d to %d, timeline ends at %d", rp.Scene, rp.First(), rp.Last(), last)
	}
}

// Check determinism by real input once boxes have fallen asleep. The window turns sleeping on after
// loading the scene; that was not recorded, so the check re-simulated with sleeping off and failed at
// the first box to fall asleep (on the pile: step 266, "box0_0_3", velocity recorded 0, re-simulated
// -6e-06).
func TestCheckDeterminismPassesOnceBoxesSleep(t *testing.T) {
	d := drive(t, Options{Scene: "pyramid20", Open: []string{"time"}})
	asleep := 0
	for range 400 {
		d.frames(1)
		d.world(func(w *sim.World) { asleep = w.Stats.Asleep })
		if asleep > 0 {
			break
		}
	}
	if asleep == 0 {
		t.Fatal("no box of pyramid20 asleep after 400 frames: the window did not turn sleeping on")
	}
	d.checkDeterminism()
	if f := &d.a.panel.time; f.checkErr || !strings.Contains(f.check, "identical") {
		t.Errorf("determinism check after %d boxes fell asleep: %q", asleep, f.check)
	}
}

// checkDeterminism clicks the Time section's Check determinism and waits (up to 600 frames) for its
// report, in d.a.panel.time.
func (d *driver) checkDeterminism() {
	d.click("time/Check determinism")
	for range 600 {
		if f := &d.a.panel.time; f.checking == nil && f.check != "" {
			return
		}
		d.frames(1)
	}
}
