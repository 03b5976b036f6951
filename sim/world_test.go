package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"tumble/sim/geom"
)

// Handles keep naming the same body when other bodies are removed, and go stale when theirs is.
func TestHandlesSurviveRemovals(t *testing.T) {
	w := NewWorld(Settings{})
	defer w.Close()
	var hs []Handle
	for k := 0; k < 5; k++ {
		hs = append(hs, mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{float32(k), 0, 0}}))
	}
	if err := w.RemoveBody(hs[1]); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.Index(hs[1]); ok {
		t.Error("removed body's handle still valid")
	}
	if err := w.RemoveBody(hs[1]); !errors.Is(err, ErrStale) {
		t.Errorf("second removal: %v, want ErrStale", err)
	}
	for k, h := range hs {
		if k == 1 {
			continue
		}
		i, ok := w.Index(h)
		if !ok || w.Bodies.Position[i][0] != float32(k) {
			t.Errorf("handle %d now names the body at x=%v", k, w.Bodies.Position[i][0])
		}
	}
	// The freed slot is reused with a new generation: the old handle stays stale.
	h := mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{9, 0, 0}})
	if h.Index != hs[1].Index || h.Gen == hs[1].Gen {
		t.Errorf("slot reuse: got %+v after removing %+v", h, hs[1])
	}
	if _, ok := w.Index(hs[1]); ok {
		t.Error("stale handle revived by slot reuse")
	}
	if got, ok := w.Find("body4"); !ok || got != hs[4] {
		t.Errorf("Find(body4) = %v, %v", got, ok)
	}
	if err := w.Step(); err != nil {
		t.Fatal(err)
	}
}

func TestAddBodyRefusesBadDefinitions(t *testing.T) {
	w := NewWorld(Settings{})
	cases := map[string]BodyDef{
		"zero box":      {Shape: boxShape(0, 1, 1)},
		"dynamic plane": {Shape: geom.Shape{Kind: geom.Plane, Normal: Vec3{0, 1, 0}}},
		"negative mass": {Shape: boxShape(1, 1, 1), Mass: -1},
		"zero normal":   {Type: Static, Shape: geom.Shape{Kind: geom.Plane}},
	}
	for name, d := range cases {
		if _, err := w.AddBody(d); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	mustAdd(t, w, BodyDef{Name: "x", Shape: boxShape(1, 1, 1)})
	if _, err := w.AddBody(BodyDef{Name: "x", Shape: boxShape(1, 1, 1)}); err == nil {
		t.Error("duplicate name accepted")
	}
	if w.Bodies.Len() != 1 {
		t.Errorf("%d bodies after refusals, want 1", w.Bodies.Len())
	}
}

// A non-finite state is caught at the end of the step and reported with the body's name.
func TestBlowUpNamesTheBody(t *testing.T) {
	w := NewWorld(Settings{MaxLinearSpeed: 100})
	mustAdd(t, w, BodyDef{Name: "rocket", Shape: boxShape(1, 1, 1), Velocity: Vec3{1e3, 0, 0}})
	err := w.Step()
	var bu *BlowUpError
	if !errors.As(err, &bu) || bu.Body != "rocket" {
		t.Fatalf("Step() = %v, want a BlowUpError naming rocket", err)
	}
	// A NaN or an infinity in any of a body's vectors, among calm bodies, names that body (the check's
	// quick pass must not let one by).
	nan, inf := float32(math.NaN()), float32(math.Inf(-1))
	for k, spoil := range []func(b *Bodies, i int){
		func(b *Bodies, i int) { b.AngularVelocity[i][2] = nan },
		func(b *Bodies, i int) { b.Velocity[i][1] = inf },
		func(b *Bodies, i int) { b.Rotation[i].V[0] = nan },
	} {
		w := NewWorld(Settings{})
		for n := range 20 {
			mustAdd(t, w, BodyDef{Name: fmt.Sprint("calm", n), Shape: boxShape(1, 1, 1), Position: Vec3{3 * float32(n), 0, 0}})
		}
		mustAdd(t, w, BodyDef{Name: "bad", Shape: boxShape(1, 1, 1), Position: Vec3{0, 10, 0}})
		spoil(&w.Bodies, 20)
		err := w.checkBlowUp()
		if !errors.As(err, &bu) || bu.Body != "bad" {
			t.Errorf("case %d: %v, want a BlowUpError naming bad", k, err)
		}
		w.Close()
	}
}

func TestPoolCoversEveryIndexOnce(t *testing.T) {
	p := newPool(3)
	defer p.close()
	for _, n := range []int{0, 1, 7, 1000, 12345} {
		seen := make([]int32, n)
		p.run(n, 16, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, c)
			}
		}
	}
}

// The step is deterministic whatever the number of workers: graph colouring makes PGS's parallel
// order irrelevant and Jacobi gathers each body's impulses in a fixed order. The world is big enough
// that every stage splits across workers, so under -race this also checks the parallel code.
func TestWorkersGiveIdenticalResults(t *testing.T) {
	for _, solver := range []SolverKind{PGS, Jacobi} {
		var runs [2]*World
		for k, workers := range []int{1, 3} {
			w := binWorld(t, Settings{Solver: solver, Workers: workers, Substeps: 1, Iterations: 1}, 2500, 5, 2)
			defer w.Close()
			run(t, w, 50)
			runs[k] = w
		}
		p := &runs[0].pipe
		largest := int32(len(p.narrow.prev)) // Jacobi: one loop over all of the last step's manifolds
		if solver == PGS {
			largest = 0
			for c := 0; c < maxColors; c++ {
				largest = max(largest, p.graph.colorStart[c+1]-p.graph.colorStart[c])
			}
		}
		if n := runs[0].Bodies.Len(); n < 2*bodyGrain || largest < 2*passGrain {
			t.Fatalf("%v: %d bodies, largest loop %d manifolds: too small to split across workers", solver, n, largest)
		}
		if pairs, ms := len(p.broad.pairs), len(p.narrow.prev); pairs < 2*pairGrain || ms < 2*manifoldGrain {
			t.Fatalf("%v: %d pairs, %d manifolds: too few for the narrow phase and prepare to split", solver, pairs, ms)
		}
		if q := &runs[1].pipe; q.wide.wideOn && (q.graph.nRegions < 2 || !slices.Contains(q.graph.splitColour[:], true)) {
			t.Fatalf("%v: the wide pass split no colour between 3 workers (%d regions)", solver, q.graph.nRegions)
		}
		a, b := &runs[0].Bodies, &runs[1].Bodies
		for i := range a.Position {
			if a.Position[i] != b.Position[i] || a.Rotation[i] != b.Rotation[i] || a.Velocity[i] != b.Velocity[i] {
				t.Fatalf("%v: body %d differs between 1 and 3 workers: %v vs %v", solver, i, a.Position[i], b.Position[i])
			}
		}
	}
}

// Every broad phase returns the same sorted pairs, so the step is bit-identical whichever one runs,
// and switching between them from step to step changes nothing either.
func TestBroadphasesGiveIdenticalSteps(t *testing.T) {
	kinds := []BroadphaseKind{LBVH, SAP, Grid, Brute}
	runs := make([]*World, len(kinds)+1)
	for k := range runs {
		set := Settings{Workers: 2, Substeps: 2, Iterations: 2}
		if k < len(kinds) {
			set.Broadphase = kinds[k]
		}
		w := binWorld(t, set, 600, 3, 4)
		defer w.Close()
		for step := 0; step < 60; step++ {
			if k == len(kinds) { // the last world cycles through them
				cur := w.Settings()
				cur.Broadphase = kinds[step%len(kinds)]
				w.SetSettings(cur)
			}
			if err := w.Step(); err != nil {
				t.Fatal(err)
			}
		}
		runs[k] = w
	}
	if runs[0].Stats.Contacts == 0 {
		t.Fatal("no contacts: the scene is wrong")
	}
	a := &runs[0].Bodies
	for k, w := range runs[1:] {
		b := &w.Bodies
		for i := range a.Position {
			if a.Position[i] != b.Position[i] || a.Rotation[i] != b.Rotation[i] || a.Velocity[i] != b.Velocity[i] {
				what := "cycling"
				if k+1 < len(kinds) {
					what = kinds[k+1].String()
				}
				t.Fatalf("body %d differs between lbvh and %s: %v vs %v", i, what, a.Position[i], b.Position[i])
			}
		}
	}
}

// The world hands out the LBVH's levels for debug drawing, and nothing with another broad phase.
func TestWorldBVHLevels(t *testing.T) {
	w := binWorld(t, Settings{Workers: 1}, 200, 3, 4)
	defer w.Close()
	if w.BVHDepth() != 0 || len(w.BVHLevel(2, nil)) != 0 {
		t.Error("a tree before the first step")
	}
	run(t, w, 1)
	d := w.BVHDepth()
	if d < 8 {
		t.Fatalf("depth %d for %d bodies", d, w.Bodies.Len())
	}
	if got := len(w.BVHLevel(d, nil)); got != w.Bodies.Len() {
		t.Errorf("deepest level has %d boxes for %d bodies", got, w.Bodies.Len())
	}
	set := w.Settings()
	set.Broadphase = SAP
	w.SetSettings(set)
	run(t, w, 1)
	if w.BVHDepth() != 0 || len(w.BVHLevel(1, nil)) != 0 {
		t.Error("BVH levels with sort-and-sweep")
	}
	// A world at rest on sort-and-sweep keeps its pairs; switched to the LBVH, it queries the new
	// broad phase at once, so the tree is there to draw.
	r := pyramidWorld(t, Settings{Workers: 1, Broadphase: SAP}, 6)
	defer r.Close()
	run(t, r, 30)
	if !r.Stats.PairsKept {
		t.Fatal("the resting pyramid does not keep its pairs")
	}
	rs := r.Settings()
	rs.Broadphase = LBVH
	r.SetSettings(rs)
	run(t, r, 1)
	if r.Stats.PairsKept || r.BVHDepth() == 0 {
		t.Errorf("switched to the LBVH: pairs kept %v, tree depth %d", r.Stats.PairsKept, r.BVHDepth())
	}
}
