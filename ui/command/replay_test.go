package command

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
	"tumble/sim/record"
)

// TestOpenReplayShowsItsStepsAndBranches: a shot into the stack is recorded and saved; another
// session (on the pyramid) opens the file: it is scrubbed back to step 0, its live world is the
// recording's last step exactly, scrubbing shows the recorded steps, and an edit while scrubbed
// back branches there. A damaged file is refused and leaves the session as it was.
func TestOpenReplayShowsItsStepsAndBranches(t *testing.T) {
	a, err := NewPreset("stack")
	if err != nil {
		t.Fatal(err)
	}
	shot := ShotSpec{Kind: geom.Sphere, Size: [3]float32{0.3}, Mass: 10, Speed: 20}
	a.Do(Shoot(sim.Vec3{-6, 1, 0}, sim.Vec3{1, 0, 0}, shot))
	if err := a.Steps(40); err != nil {
		t.Fatal(err)
	}
	var last []uint32
	a.View(func(w *sim.World) { last = record.PoseBits(&w.Bodies, nil) })
	path := filepath.Join(t.TempDir(), "stack.replay")
	if err := a.SaveReplay(path); err != nil {
		t.Fatal(err)
	}

	b, err := NewPreset("pyramid")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Steps(3); err != nil {
		t.Fatal(err)
	}
	// A damaged file: refused, the pyramid untouched.
	data, _ := os.ReadFile(path)
	bad := filepath.Join(t.TempDir(), "bad.replay")
	os.WriteFile(bad, data[:len(data)/2], 0o644)
	err = b.OpenReplay(bad)
	if err == nil || !strings.Contains(err.Error(), bad) || strings.Count(err.Error(), "\n") != 0 {
		t.Fatalf("half a replay file: %v; want one line naming the file", err)
	}
	if b.Name() != "pyramid" || b.Timeline().Last != 3 {
		t.Fatalf("after a refused file: %s, %+v", b.Name(), b.Timeline())
	}

	if err := b.OpenReplay(path); err != nil {
		t.Fatal(err)
	}
	tl := b.Timeline()
	if b.Name() != "stack" || tl.First != 0 || tl.Last != 40 || tl.Cursor != 0 || !b.Paused() {
		t.Fatalf("opened: %s, %+v, paused %v; want stack, 0..40 shown at 0, paused", b.Name(), tl, b.Paused())
	}
	if err := b.ScrubTo(25); err != nil {
		t.Fatal(err)
	}
	var at25 []uint32
	b.View(func(w *sim.World) { at25 = record.PoseBits(&w.Bodies, nil) })
	if want, _ := a.time.rec.Frame(25); !slices.Equal(at25, want) {
		t.Fatal("the opened replay's step 25 is not the recorded one")
	}
	if err := b.GoLive(); err != nil {
		t.Fatal(err)
	}
	var got []uint32
	b.View(func(w *sim.World) { got = record.PoseBits(&w.Bodies, nil) })
	if !slices.Equal(got, last) {
		t.Fatal("the opened replay's live world is not the recording's last step")
	}
	// Branch at step 10 with a second shot; recording goes on from there.
	b.ScrubTo(10)
	b.Do(Shoot(sim.Vec3{6, 1, 0}, sim.Vec3{-1, 0, 0}, shot))
	if err := b.Apply(); err != nil {
		t.Fatal(err)
	}
	if err := b.Steps(5); err != nil {
		t.Fatal(err)
	}
	if tl := b.Timeline(); tl.Cursor != -1 || tl.Last != 15 || tl.First != 0 {
		t.Fatalf("after branching at 10 and 5 steps: %+v; want live at 15", tl)
	}
}
