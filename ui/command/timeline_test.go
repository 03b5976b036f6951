package command

import (
	"path/filepath"
	"slices"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
	"tumble/sim/record"
)

// TestScrubThenEditBranchesFromTheShownStep: a session records a shot into the stack, scrubs back,
// steps back and forward, and shoots again from step 20: the world goes on from step 20's exact
// state (the same as re-simulating to it), the recorded future is gone, and recording goes on.
func TestScrubThenEditBranchesFromTheShownStep(t *testing.T) {
	s, err := NewPreset("stack")
	if err != nil {
		t.Fatal(err)
	}
	shot := ShotSpec{Kind: geom.Sphere, Size: [3]float32{0.3}, Mass: 10, Speed: 20}
	s.Do(Shoot(sim.Vec3{-6, 1, 0}, sim.Vec3{1, 0, 0}, shot))
	if err := s.Steps(60); err != nil {
		t.Fatal(err)
	}
	tl := s.Timeline()
	if tl.First != 0 || tl.Last != 60 || tl.Cursor != -1 || tl.Bytes <= 0 {
		t.Fatalf("after 60 steps: %+v", tl)
	}
	var at20 []uint32
	if err := s.ScrubTo(20); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) { at20 = record.PoseBits(&w.Bodies, nil) })
	if s.Timeline().Cursor != 20 || !s.Paused() {
		t.Fatalf("scrubbed to 20: %+v, paused %v", s.Timeline(), s.Paused())
	}
	// The view shows what the run stepped at 20.
	if want, _ := s.time.rec.Frame(20); !slices.Equal(at20, want) {
		t.Fatal("the view at step 20 is not the recorded step 20")
	}
	s.StepBack()
	s.StepBack()
	s.StepForward()
	if c := s.Timeline().Cursor; c != 19 {
		t.Fatalf("back, back, forward from 20: at %d, want 19", c)
	}
	s.ScrubTo(20)
	// An edit while scrubbed back branches: the future after step 20 is dropped.
	s.Do(Shoot(sim.Vec3{6, 1, 0}, sim.Vec3{-1, 0, 0}, shot))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	tl = s.Timeline()
	if tl.Cursor != -1 || tl.Last != 20 {
		t.Fatalf("after the edit at 20: %+v; want live at 20", tl)
	}
	var n int
	s.View(func(w *sim.World) { n = w.Bodies.Len() })
	if err := s.Steps(10); err != nil {
		t.Fatal(err)
	}
	if tl = s.Timeline(); tl.Last != 30 {
		t.Fatalf("10 steps after the branch: recorded up to %d, want 30", tl.Last)
	}
	// The branch is exact: re-simulating the whole recording (the edit taken from it) agrees.
	if _, err := s.CheckDeterminism(1, 2); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if w.Bodies.Len() != n || w.StepCount != 30 {
			t.Fatalf("after the branch: %d bodies at step %d", w.Bodies.Len(), w.StepCount)
		}
	})
	path := filepath.Join(t.TempDir(), "s.replay")
	if err := s.SaveReplay(path); err != nil {
		t.Fatal(err)
	}
	rp, err := record.Load(path)
	if err != nil || rp.Last() != 30 || rp.Edit(20) != "edit" {
		t.Fatalf("saved replay: %v", err)
	}
}

// TestScrubbedPlaybackReachesTheLiveWorld: playing while scrubbed back moves through the recording at
// the timeline's speed and returns to the live world, unchanged, at its end.
func TestScrubbedPlaybackReachesTheLiveWorld(t *testing.T) {
	s, _ := NewPreset("stack")
	s.Steps(30)
	var live []uint32
	s.View(func(w *sim.World) { live = record.PoseBits(&w.Bodies, nil) })
	s.ScrubTo(10)
	s.SetSpeed(2)
	s.Do(Pause(false))
	dt := s.Dt()
	s.Advance(0, 5*dt) // at 2x: 10 steps
	if c := s.Timeline().Cursor; c != 20 {
		t.Fatalf("5 steps of wall time at 2x from 10: at %d, want 20", c)
	}
	s.Advance(0, 6*dt)
	if c := s.Timeline().Cursor; c != -1 {
		t.Fatalf("past the end: cursor %d, want live", c)
	}
	s.View(func(w *sim.World) {
		if !slices.Equal(record.PoseBits(&w.Bodies, nil), live) || w.StepCount != 30 {
			t.Fatal("the live world changed while scrubbing")
		}
	})
	if err := s.SetSpeed(8); err == nil {
		t.Fatal("speed 8 accepted")
	}
}
