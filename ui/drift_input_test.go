package ui

import (
	"strings"
	"testing"
)

// runDrift clicks Re-simulate and mark and draws frames until the re-simulation's outcome is in.
func (d *driver) runDrift() {
	d.t.Helper()
	f := &d.a.panel.time.drift
	d.click("time/Re-simulate and mark")
	for k := 0; f.running != nil; k++ {
		if k > 2000 {
			d.t.Fatalf("the re-simulation has not finished after %d frames", k)
		}
		d.frames(1)
	}
	d.frames(1)
}

// The Time section re-simulates the stack's recording and marks the slider: under Jacobi the run
// leaves the recorded PGS run, so the slider carries red and orange marks inside its frame, in step
// order, and the status line says at which step it diverges; under the recorded settings it repeats
// bit for bit, and no mark is drawn.
func TestReSimulatingMarksWhereTheRunDivergesOnTheTimeline(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"time"}, NoShadows: true, Width: 800, Height: 600})
	d.click("Tumble/###play")               // pause
	if err := d.a.S.Steps(90); err != nil { // 90 steps recorded
		t.Fatal(err)
	}
	f := &d.a.panel.time.drift
	d.choose("time/re-simulate with", "jacobi")
	d.choose("time/re-simulate on", "cpu")
	d.setText("time/tolerance, mm", 0, 1, "0.1")
	d.runDrift()
	tl := d.a.S.Timeline()
	if tl.Drift == nil || len(tl.Drift.Marks) == 0 {
		t.Fatalf("under jacobi: no marks (%q)", f.line)
	}
	if msg := d.a.panel.message; !strings.Contains(msg, "diverges at step") || !strings.Contains(f.line, "jacobi") {
		t.Errorf("status %q, section line %q", msg, f.line)
	}
	slider := d.reveal("time/recorded step")
	d.frames(1)
	if len(f.marks) != len(tl.Drift.Marks) {
		t.Fatalf("%d marks drawn for %v", len(f.marks), tl.Drift.Marks)
	}
	for k, x := range f.marks {
		if x < slider.Min.X || x > slider.Max.X || (k > 0 && x < f.marks[k-1]) {
			t.Fatalf("marks at x %v: outside the slider's %v..%v or out of order", f.marks, slider.Min.X, slider.Max.X)
		}
	}
	// The first mark stands where the slider's grab stands at that step: drag it there.
	first := tl.Drift.Marks[0]
	if span := float32(tl.Last - tl.First); span > 0 {
		share := (f.marks[0] - slider.Min.X) / (slider.Max.X - slider.Min.X)
		if want := float32(first-tl.First) / span; share < want-0.05 || share > want+0.05 {
			t.Errorf("the first mark (step %d of %d..%d) is %.2f of the way along the slider", first, tl.First, tl.Last, share)
		}
	}

	d.choose("time/re-simulate with", "the recorded settings")
	d.runDrift()
	tl = d.a.S.Timeline()
	if tl.Drift == nil || len(tl.Drift.Marks) != 0 || len(f.marks) != 0 || !strings.Contains(f.line, "identical") {
		t.Errorf("the recorded settings: %q, %d marks drawn", f.line, len(f.marks))
	}
}
