package record_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/record"
)

// squeezed records 150 steps of the mixed preset (keyframe every 6) into a budget that cannot hold
// the exact poses and a third of the keyframes, and returns the recorder and every step's exact bits.
func squeezed(t *testing.T) (*record.Recorder, map[int][]uint32) {
	t.Helper()
	if squeezedRec == nil {
		squeezedRec, squeezedLive = squeeze(t)
	}
	return squeezedRec, squeezedLive
}

// The squeezed recording, made once for the tests that read it (they do not record into it).
var (
	squeezedRec  *record.Recorder
	squeezedLive map[int][]uint32
)

func squeeze(t *testing.T) (*record.Recorder, map[int][]uint32) {
	full := record.New(0, 6)
	recordRun(t, preset(t, "mixed", 1), full, 150)
	budget := full.Bytes() - full.ExactBytes() - full.KeyBytes()/3
	r := record.New(budget, 6)
	sc, _ := scenes.Preset("mixed")
	w, err := sc.World(scenes.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	live := recordRun(t, w, r, 150)
	if r.Bytes() > r.Budget {
		t.Fatalf("%d bytes over the budget of %d", r.Bytes(), r.Budget)
	}
	if r.First() != 0 || r.Last() != 150 || r.Dropped() != 0 {
		t.Fatalf("recorded %d..%d, %d groups dropped: want 0..150, none dropped (exact poses and keyframes go first)", r.First(), r.Last(), r.Dropped())
	}
	if r.ExactBytes() != 0 || r.Thinned() == 0 || r.Keyframes() >= full.Keyframes() {
		t.Fatalf("exact bytes %d, %d keyframes thinned, %d kept of %d: want no exact poses and some keyframes thinned",
			r.ExactBytes(), r.Thinned(), r.Keyframes(), full.Keyframes())
	}
	t.Logf("mixed, 150 steps: %d bytes with exact poses, %d within the budget (%d keyframes of %d)", full.Bytes(), r.Bytes(), r.Keyframes(), full.Keyframes())
	return r, live
}

// TestDisplayPosesAreWithinTheQuantisation: without exact poses a step is shown from its display
// poses: each position within half a unit (1/4096 m) of the stepped one, each rotation within the
// rotation unit, velocities estimated from the step before.
func TestDisplayPosesAreWithinTheQuantisation(t *testing.T) {
	r, live := squeezed(t)
	for _, s := range []int{150, 0, 75, 76, 7, 149} {
		if r.Exact(s) {
			t.Fatalf("step %d still held exactly", s)
		}
		got, err := r.Frame(s)
		if err != nil {
			t.Fatal(err)
		}
		want := live[s]
		if len(got) != len(want) {
			t.Fatalf("step %d: %d words, want %d", s, len(got), len(want))
		}
		for i := range got {
			k := i % record.PoseWords
			g, w := math.Float32frombits(got[i]), math.Float32frombits(want[i])
			tol := 0.5/2048 + 1e-6*math.Abs(float64(w))
			if k >= 3 && k < 7 {
				tol = 2.0 / 8192
			}
			if k < 7 && math.Abs(float64(g-w)) > tol {
				t.Fatalf("step %d, body %d, word %d: shown %v, stepped %v (tolerance %g)", s, i/record.PoseWords, k, g, w, tol)
			}
		}
	}
	// A body falling freely: its shown velocity is the stepped one to the position quantum over dt.
	got, _ := r.Frame(3)
	want := live[3]
	for b := 0; b < len(got)/record.PoseWords; b++ {
		i := b*record.PoseWords + 8 // velocity y
		if g, w := math.Float32frombits(got[i]), math.Float32frombits(want[i]); math.Abs(float64(g-w)) > 2.0/2048/(1.0/60)+0.2 {
			t.Fatalf("step 3, body %d: shown velocity y %v, stepped %v", b, g, w)
		}
	}
}

// TestThinnedRecordingSeeksExactly: with keyframes thinned and no exact poses left, seeking to any
// step (re-simulating from the keyframe before, checked against each step's hash) and ExactFrame
// give the stepped bits exactly.
func TestThinnedRecordingSeeksExactly(t *testing.T) {
	r, live := squeezed(t)
	v := preset(t, "stack", 2)
	for _, s := range []int{67, 3, 150, 120} {
		if err := r.Seek(v, s, nil); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(record.PoseBits(&v.Bodies, nil), live[s]) {
			t.Fatalf("sought step %d differs from the run", s)
		}
	}
	x := preset(t, "mixed", 1)
	for s := 60; s <= 70; s++ {
		got, err := r.ExactFrame(x, s)
		if err != nil || !slices.Equal(got, live[s]) {
			t.Fatalf("ExactFrame(%d) differs from the run (%v)", s, err)
		}
	}
}

// TestHashedCheckCatchesAPlantedDifference: the determinism check on a recording without exact
// poses still names the step of a one-ulp difference (from the hash), and the body when the
// difference grows past the display precision.
func TestHashedCheckCatchesAPlantedDifference(t *testing.T) {
	r, _ := squeezed(t)
	if err := r.Check(record.CheckOptions{Workers: 2}); err != nil {
		t.Fatalf("unplanted: %v", err)
	}
	var name string
	plant := func(dv float32) func(w *sim.World) {
		return func(w *sim.World) {
			if w.StepCount == 30 {
				i := slices.Index(w.Bodies.Type, sim.Dynamic)
				name = w.Bodies.Name[i]
				v := w.Bodies.Velocity[i]
				if dv == 0 {
					v[0] = math32Next(v[0])
				} else {
					v[0] += dv
				}
				w.SetVelocity(w.HandleAt(i), v, w.Bodies.AngularVelocity[i])
			}
		}
	}
	var d *record.Divergence
	err := r.Check(record.CheckOptions{Workers: 1, Plant: plant(0)})
	if !errors.As(err, &d) || d.Step != 31 || !d.Hashed {
		t.Fatalf("one ulp at step 30: got %v, want a hashed difference at step 31", err)
	}
	err = r.Check(record.CheckOptions{Workers: 1, Plant: plant(1)})
	if !errors.As(err, &d) || d.Step != 31 || d.Body != name || d.Field != "position x" {
		t.Fatalf("1 m/s at step 30 in %q: got %v, want step 31, that body, position x", name, err)
	}
}

// TestSqueezedReplayFileRoundTrips: a recording with thinned keyframes and no exact poses saves and
// loads to the same display poses and hashes, and re-simulates exactly from the file.
func TestSqueezedReplayFileRoundTrips(t *testing.T) {
	r, live := squeezed(t)
	path := filepath.Join(t.TempDir(), "mixed.replay")
	if err := r.Save(path, "mixed"); err != nil {
		t.Fatal(err)
	}
	rp, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Keyframes() != r.Keyframes() || rp.First() != 0 || rp.Last() != 150 {
		t.Fatalf("loaded %d keyframes, steps %d..%d; saved %d, 0..150", rp.Keyframes(), rp.First(), rp.Last(), r.Keyframes())
	}
	for s := 0; s <= 150; s++ {
		a, _ := r.Frame(s)
		a = slices.Clone(a)
		b, err := rp.Frame(s)
		if err != nil || !slices.Equal(a, b) {
			t.Fatalf("step %d: loaded display poses differ (%v)", s, err)
		}
	}
	if err := rp.Check(record.CheckOptions{From: 50, To: 100, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	x := preset(t, "mixed", 1)
	if got, err := rp.ExactFrame(x, 101); err != nil || !slices.Equal(got, live[101]) {
		t.Fatalf("exact step 101 from the file differs (%v)", err)
	}
}

// TestVersion1FileIsRefusedClearly: a file of the first format says so and what to do.
func TestVersion1FileIsRefusedClearly(t *testing.T) {
	r := record.New(0, 10)
	recordRun(t, preset(t, "chain", 1), r, 5)
	var buf bytes.Buffer
	r.WriteTo(&buf, "chain")
	data := buf.Bytes()
	binary.LittleEndian.PutUint32(data[8:], 1)
	_, err := record.Decode(data)
	if err == nil || !strings.Contains(err.Error(), "version 1") || !strings.Contains(err.Error(), "record it again") {
		t.Fatalf("version 1: %v", err)
	}
}

// TestThinningKeepsEditKeyframes: an edit's keyframe (step 50 of the chain) survives thinning, so
// re-simulation never crosses the edit; the periodic ones around it go.
func TestThinningKeepsEditKeyframes(t *testing.T) {
	w := preset(t, "chain", 1)
	r := record.New(0, 10)
	recordRun(t, w, r, 50)
	top := w.HandleAt(w.Bodies.Len() - 1)
	if err := w.SetVelocity(top, sim.Vec3{0, 5, 0}, sim.Vec3{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Record(w, "velocity"); err != nil {
		t.Fatal(err)
	}
	for range 150 {
		w.Step()
		r.Record(w, "")
	}
	r.Budget = r.Bytes() - r.ExactBytes() - r.KeyBytes()/2
	w.Step()
	r.Record(w, "")
	if r.Thinned() == 0 || r.Dropped() != 0 {
		t.Fatalf("%d thinned, %d dropped: want keyframes thinned, none dropped", r.Thinned(), r.Dropped())
	}
	var st sim.State
	if from, err := r.KeyState(55, &st); err != nil || from != 50 {
		t.Fatalf("the keyframe for step 55 is step %d (%v), want the edit's, 50", from, err)
	}
	if from, _ := r.KeyState(49, &st); from == 40 {
		t.Fatalf("the keyframe at 40 was not thinned (%d thinned)", r.Thinned())
	}
}
