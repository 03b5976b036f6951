package sim

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim/collide"
	"tumble/sim/geom"
)

// TestCachedPointsMatchAFreshTest: in a resting 20-row pyramid every touching pair reuses its cached
// points, and they are what a fresh test gives now: the same number of points with the same feature
// ids, the same separations within a tenth of a millimetre (a fiftieth of the 5 mm the contacts let
// bodies overlap), and the same places within the
// cache's CacheMaxShift (a cached point is a material point of each body, where a fresh one is a
// corner of the faces' overlap, which moves as the boxes creep against each other).
func TestCachedPointsMatchAFreshTest(t *testing.T) {
	w := pyramidWorld(t, Settings{}, 20)
	defer w.Close()
	run(t, w, 120)
	if w.Stats.Manifolds == 0 || w.Stats.Reused != w.Stats.Manifolds {
		t.Fatalf("%d of %d manifolds reused their points in the resting pyramid, want all", w.Stats.Reused, w.Stats.Manifolds)
	}
	p, b := &w.pipe, &w.Bodies
	const sepTol = 1e-4 // m
	worstPos, worstSep := 0.0, 0.0
	for k, pr := range p.broad.pairs {
		if p.narrow.candN[k] == 0 {
			continue
		}
		if p.narrow.candFrom[k] < 0 {
			t.Fatalf("pair %s-%s was tested afresh", b.Name[pr.A], b.Name[pr.B])
		}
		got := &p.narrow.cand[k]
		var fresh collide.Manifold
		collide.Collide(&b.Shape[pr.A], geom.Pose{P: b.Position[pr.A], Q: b.Rotation[pr.A]},
			&b.Shape[pr.B], geom.Pose{P: b.Position[pr.B], Q: b.Rotation[pr.B]}, p.narrow.candMargin[k], &fresh)
		if fresh.Count != got.Count {
			t.Fatalf("pair %s-%s: %d cached points, a fresh test gives %d", b.Name[pr.A], b.Name[pr.B], got.Count, fresh.Count)
		}
		for i := range got.Count {
			g := &got.Points[i]
			j := 0
			for j < fresh.Count && fresh.Points[j].ID != g.ID {
				j++
			}
			if j == fresh.Count {
				t.Fatalf("pair %s-%s: cached point id %d is not among the fresh test's", b.Name[pr.A], b.Name[pr.B], g.ID)
			}
			f := &fresh.Points[j]
			dp, ds := float64(g.Position.Sub(f.Position).Len()), math.Abs(float64(g.Separation-f.Separation))
			worstPos, worstSep = math.Max(worstPos, dp), math.Max(worstSep, ds)
			if dp > CacheMaxShift || ds > sepTol {
				t.Errorf("pair %s-%s point %d: cached at %v, separation %v; fresh at %v, separation %v", b.Name[pr.A],
					b.Name[pr.B], g.ID, g.Position, g.Separation, f.Position, f.Separation)
			}
		}
		if n := got.Normal.Dot(fresh.Normal); n < 1-1e-6 {
			t.Errorf("pair %s-%s: cached normal %v, fresh %v", b.Name[pr.A], b.Name[pr.B], got.Normal, fresh.Normal)
		}
	}
	t.Logf("%d pairs; largest difference from a fresh test: %.2g m in place, %.2g m in separation", w.Stats.Manifolds,
		worstPos, worstSep)
}

// TestTheCacheRetestsAPairThatMovedOrTurned: a box resting on the ground reuses its points while it
// moves less than CacheMaxShift and turns less than CacheMaxTurn from where they were computed, and is
// tested afresh once it moves or turns farther, or closes on the ground fast enough to want farther
// speculative points; with NoContactCache, and under Jacobi (whose step matches the GPU's), never.
func TestTheCacheRetestsAPairThatMovedOrTurned(t *testing.T) {
	w := gravityWorld(Settings{})
	defer w.Close()
	groundPlane(t, w, 0.6, 0)
	box := mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{0, 0.5, 0}, Friction: 0.6})
	i, _ := w.Index(box)
	b := &w.Bodies
	reused := func(what string, want bool) {
		t.Helper()
		run(t, w, 1)
		if w.Stats.Manifolds != 1 {
			t.Fatalf("%s: %d manifolds, want the box's on the ground", what, w.Stats.Manifolds)
		}
		if got := w.Stats.Reused == 1; got != want {
			t.Errorf("%s: reused %v, want %v", what, got, want)
		}
	}
	move := func(d Vec3, turn float32) {
		t.Helper()
		q := mgl32.QuatRotate(turn, Vec3{0, 0, 1}).Mul(b.Rotation[i])
		if err := w.SetPose(box, b.Position[i].Add(d), q); err != nil {
			t.Fatal(err)
		}
	}
	run(t, w, 30)
	reused("at rest", true)
	move(Vec3{0.0006, 0, 0}, 0)
	reused("moved 0.6 mm", true)
	move(Vec3{0.002, 0, 0}, 0)
	reused("moved 2 mm more", false)
	reused("at rest again", true)
	move(Vec3{}, 1.5*math.Pi/180)
	reused("tipped 1.5 degrees", true)
	run(t, w, 60)
	reused("settled back", true)
	move(Vec3{}, 3*math.Pi/180)
	reused("tipped 3 degrees", false)
	run(t, w, 60)
	reused("settled", true)
	if err := w.SetVelocity(box, Vec3{0, -3, 0}, Vec3{}); err != nil {
		t.Fatal(err)
	}
	reused("closing on the ground at 3 m/s", false)

	s := w.Settings()
	s.NoContactCache = true
	w.SetSettings(s)
	run(t, w, 60)
	reused("cache off", false)
	s.NoContactCache, s.Solver = false, Jacobi
	w.SetSettings(s)
	run(t, w, 60)
	reused("jacobi", false)
}
