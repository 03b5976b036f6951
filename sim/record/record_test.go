package record_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
	"tumble/sim/record"
)

func preset(t testing.TB, name string, workers int) *sim.World {
	t.Helper()
	sc, ok := scenes.Preset(name)
	if !ok {
		t.Fatalf("no preset %s", name)
	}
	w, err := sc.World(scenes.Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// recordRun steps w n times, recording each step, and returns every step's pose bits as stepped.
func recordRun(t testing.TB, w *sim.World, r *record.Recorder, n int) map[int][]uint32 {
	t.Helper()
	live := map[int][]uint32{}
	if err := r.Record(w, ""); err != nil {
		t.Fatal(err)
	}
	live[w.StepCount] = record.PoseBits(&w.Bodies, nil)
	for range n {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
		if err := r.Record(w, ""); err != nil {
			t.Fatal(err)
		}
		live[w.StepCount] = record.PoseBits(&w.Bodies, nil)
	}
	return live
}

// TestRecordingRebuildsEveryStepBitForBit records a chain swinging for 150 steps with a keyframe
// every 40 and rebuilds every step, in order and out of order, equal to what was stepped.
func TestRecordingRebuildsEveryStepBitForBit(t *testing.T) {
	w := preset(t, "chain", 1)
	r := record.New(0, 40)
	live := recordRun(t, w, r, 150)
	if r.First() != 0 || r.Last() != 150 || r.Keyframes() != 4 {
		t.Fatalf("recorded %d..%d in %d keyframes, want 0..150 in 4", r.First(), r.Last(), r.Keyframes())
	}
	for _, step := range append([]int{150, 3, 149, 0, 80, 79, 81}, 40, 41, 120) {
		got, err := r.Frame(step)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, live[step]) {
			t.Fatalf("step %d rebuilt differs from the run", step)
		}
	}
	if _, err := r.Frame(151); !errors.Is(err, record.ErrNotRecorded) {
		t.Fatalf("step 151: %v", err)
	}
}

// TestSeekThenStepContinuesTheRecordedRun seeks a fresh world (another worker count) to a step
// between keyframes and steps on: the steps equal the recording's.
func TestSeekThenStepContinuesTheRecordedRun(t *testing.T) {
	w := preset(t, "chain", 1)
	r := record.New(0, 40)
	live := recordRun(t, w, r, 120)
	v := preset(t, "stack", 2)
	if err := r.Seek(v, 55, nil); err != nil {
		t.Fatal(err)
	}
	for v.StepCount < 120 {
		if err := v.Step(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(record.PoseBits(&v.Bodies, nil), live[v.StepCount]) {
			t.Fatalf("step %d after seeking to 55 differs", v.StepCount)
		}
	}
}

// TestBranchDiscardsTheFuture: seeking back, editing and recording drops the old future; the new
// steps are recorded after the edit's keyframe.
func TestBranchDiscardsTheFuture(t *testing.T) {
	w := preset(t, "chain", 1)
	r := record.New(0, 40)
	recordRun(t, w, r, 100)
	if err := r.Seek(w, 30, nil); err != nil {
		t.Fatal(err)
	}
	top := w.HandleAt(w.Bodies.Len() - 1)
	if err := w.SetVelocity(top, sim.Vec3{0, 5, 0}, sim.Vec3{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Record(w, "velocity"); err != nil {
		t.Fatal(err)
	}
	if r.Last() != 30 || r.Edit(30) != "velocity" {
		t.Fatalf("after the edit: last %d, edit at 30 %q; want 30 and velocity", r.Last(), r.Edit(30))
	}
	for range 10 {
		w.Step()
		if err := r.Record(w, ""); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := r.Frame(40)
	if !slices.Equal(got, record.PoseBits(&w.Bodies, nil)) || r.Last() != 40 {
		t.Fatalf("the branch's step 40 is not what was stepped (last %d)", r.Last())
	}
}

// TestBudgetDropsTheOldestGroups: a ring with a small budget stays within it and keeps the newest
// steps.
func TestBudgetDropsTheOldestGroups(t *testing.T) {
	w := preset(t, "chain", 1)
	r := record.New(60_000, 20)
	recordRun(t, w, r, 200)
	if r.Bytes() > r.Budget {
		t.Fatalf("ring holds %d bytes over its budget of %d", r.Bytes(), r.Budget)
	}
	if r.Last() != 200 || r.First() == 0 || r.Dropped() == 0 {
		t.Fatalf("recorded %d..%d, %d dropped: want the oldest dropped, 200 kept", r.First(), r.Last(), r.Dropped())
	}
	t.Logf("chain: %d bytes for steps %d..%d", r.Bytes(), r.First(), r.Last())
}

// TestDeterminismCheckCatchesAPlantedDifference re-simulates a recording with a body nudged by one
// unit in the last place at step 30: Check names step 31 and that body (the first dynamic one, so
// that no body before it in the comparison order can differ first).
func TestDeterminismCheckCatchesAPlantedDifference(t *testing.T) {
	w := preset(t, "chain", 1)
	r := record.New(0, 0)
	recordRun(t, w, r, 60)
	for _, workers := range []int{1, 2} {
		if err := r.Check(record.CheckOptions{Workers: workers}); err != nil {
			t.Fatalf("%d workers: unplanted run differs: %v", workers, err)
		}
	}
	var name string
	err := r.Check(record.CheckOptions{Workers: 2, Plant: func(w *sim.World) {
		if w.StepCount == 30 {
			i := slices.Index(w.Bodies.Type, sim.Dynamic)
			name = w.Bodies.Name[i]
			v := w.Bodies.Velocity[i]
			v[1] = math32Next(v[1])
			w.SetVelocity(w.HandleAt(i), v, w.Bodies.AngularVelocity[i])
		}
	}})
	var d *record.Divergence
	if !errors.As(err, &d) || d.Step != 31 || d.Body != name {
		t.Fatalf("planted difference at step 30 in %q: got %v, want step 31 and that body", name, err)
	}
}

func math32Next(x float32) float32 { return math.Nextafter32(x, float32(math.Inf(1))) }

// A world large enough that a step's arrays are compressed in pieces on several goroutines (2,500
// boxes: 130 KB of exact pose bits and 70 KB of display poses a step, keyframes of 150 KB and more)
// rebuilds every step bit for bit, from
// the exact poses and by re-simulating from a keyframe, and shows its display poses within their
// quantisation once the exact ones are dropped.
func TestALargeWorldRecordedInPiecesRebuildsEveryStep(t *testing.T) {
	w := sim.NewWorld(sim.Settings{Workers: 2})
	t.Cleanup(w.Close)
	if _, err := w.AddBody(sim.BodyDef{Name: "floor", Type: sim.Static, Shape: geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	for i := range 2500 {
		x, z := float32(i%50), float32(i/50)
		def := sim.BodyDef{Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.3, 0.3, 0.3}},
			Position: sim.Vec3{x * 0.8, 0.5 + 0.01*x, z * 0.8}, AngularVelocity: sim.Vec3{0, 0.1 * x, 0}}
		if _, err := w.AddBody(def); err != nil {
			t.Fatal(err)
		}
	}
	r := record.New(0, 8)
	live := recordRun(t, w, r, 20)
	for step := range 21 {
		got, err := r.Frame(step)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, live[step]) {
			t.Fatalf("step %d: the recorded exact poses differ from the stepped ones", step)
		}
	}
	v := sim.NewWorld(sim.Settings{})
	t.Cleanup(v.Close)
	if err := r.Seek(v, 13, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(record.PoseBits(&v.Bodies, nil), live[13]) {
		t.Fatal("step 13, re-simulated from its keyframe: not the stepped poses")
	}
	r.Budget = r.Bytes() - r.ExactBytes()/2 // the oldest exact poses go at the next step
	if err := w.Step(); err != nil {
		t.Fatal(err)
	}
	if err := r.Record(w, ""); err != nil {
		t.Fatal(err)
	}
	if r.Exact(5) {
		t.Fatal("step 5's exact poses are still held over the budget")
	}
	got, err := r.Frame(5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range len(got) / record.PoseWords {
		for k := range 3 {
			want := math.Float32frombits(live[5][i*record.PoseWords+k])
			if d := math.Abs(float64(math.Float32frombits(got[i*record.PoseWords+k]) - want)); d > 0.5/2048+1e-6 {
				t.Fatalf("step 5, body %d, position %d: display %v, stepped %v", i, k, math.Float32frombits(got[i*record.PoseWords+k]), want)
			}
		}
	}
}
