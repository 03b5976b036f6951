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

// TestFieldPairsReuseTheirManifolds: bodies at rest on a height field reuse every manifold of their
// pairs with the field, and those match a fresh test of the pair that keeps the points the pair has
// (lastPoints, as the narrow phase's would): the same manifolds in the same
// order, each with the same feature ids, separations within a tenth of a millimetre and normals
// within rounding. The fresh test gives up the kept points where another lies
// collide.FieldKeepDepth below them, and the cache's points were kept at a pose within its
// tolerances of this one, so a manifold may have other ids where the fresh test gave them up: it
// reduced afresh (the ids of a test that keeps nothing), its deepest point within half a millimetre
// (the reduction's tolerance for the deepest, and the cache's shift) of that depth below the cached
// points. A box across a V-shaped crease (faces 20 degrees up on either side) stands on two
// manifolds, one a face; a box and a ball on a gently bumped part stand on one each.
func TestFieldPairsReuseTheirManifolds(t *testing.T) {
	const n, d = 41, 0.25
	tan := float32(math.Tan(20 * math.Pi / 180))
	hs := make([]float32, n*n)
	for j := range n {
		for i := range n {
			x, z := (float32(i)-(n-1)/2)*d, (float32(j)-(n-1)/2)*d
			if x < 2 {
				hs[j*n+i] = tan * float32(math.Abs(float64(x)))
			} else {
				hs[j*n+i] = tan*2 + 0.05*float32(math.Sin(2*float64(x))*math.Cos(1.5*float64(z)))
			}
		}
	}
	f, err := geom.NewHeightField(n, n, d, d, hs)
	if err != nil {
		t.Fatal(err)
	}
	w := gravityWorld(Settings{})
	defer w.Close()
	mustAdd(t, w, BodyDef{Name: "field", Type: Static, Shape: geom.Shape{Kind: geom.HeightField, Field: f}, Friction: 0.8})
	mustAdd(t, w, BodyDef{Name: "crease", Shape: boxShape(0.4, 0.1, 0.3), Position: Vec3{0, 0.4, -1}, Friction: 0.8})
	mustAdd(t, w, BodyDef{Name: "bumps", Shape: boxShape(0.3, 0.2, 0.3), Position: Vec3{3.5, 1.3, 1}, Friction: 0.8})
	mustAdd(t, w, BodyDef{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.3}, Position: Vec3{3, 1.5, -2},
		Friction: 0.8, RollingResistance: 0.2})
	run(t, w, 240)
	if w.Stats.Manifolds < 4 || w.Stats.Reused != w.Stats.Manifolds {
		t.Fatalf("%d of %d manifolds reused their points at rest, want all of at least 4 (two for the crease)",
			w.Stats.Reused, w.Stats.Manifolds)
	}
	p, b := &w.pipe, &w.Bodies
	worstSep := 0.0
	hint := 0
	for k, pr := range p.broad.pairs {
		if p.narrow.candN[k] == 0 {
			continue
		}
		if p.narrow.candFrom[k] < 0 {
			t.Fatalf("pair %s-%s was tested afresh", b.Name[pr.A], b.Name[pr.B])
		}
		got := p.narrow.multiCand[k]
		fresh := meshPair(b, pr.A, pr.B, p.narrow.candMargin[k], p.lastPoints(pr.A, pr.B, &hint, nil), nil)
		if len(fresh) != len(got) {
			t.Fatalf("pair %s-%s: %d cached manifolds, a fresh test gives %d", b.Name[pr.A], b.Name[pr.B], len(got), len(fresh))
		}
		for s := range got {
			g, f := &got[s], &fresh[s]
			if g.Count != f.Count {
				t.Fatalf("pair %s-%s manifold %d: %d cached points, %d fresh", b.Name[pr.A], b.Name[pr.B], s, g.Count, f.Count)
			}
			gaveWay := false
			if plain := meshPair(b, pr.A, pr.B, p.narrow.candMargin[k], nil, nil); len(plain) == len(got) {
				gaveWay = sameIDs(f, &plain[s]) && lowest(&plain[s]) <= lowest(g)-(collide.FieldKeepDepth-5e-4)
			}
			if c := g.Normal.Dot(f.Normal); c < 1-1e-5 {
				t.Errorf("pair %s-%s manifold %d: cached normal %v, fresh %v", b.Name[pr.A], b.Name[pr.B], s, g.Normal, f.Normal)
			}
			for i := range g.Count {
				gp, fp := &g.Points[i], &f.Points[i]
				ds := math.Abs(float64(gp.Separation - fp.Separation))
				if gp.ID == fp.ID {
					worstSep = math.Max(worstSep, ds)
				}
				if (gp.ID != fp.ID && !gaveWay) || (gp.ID == fp.ID && ds > 1e-4) {
					t.Errorf("pair %s-%s manifold %d point %d: cached id %d separation %v, fresh id %d separation %v",
						b.Name[pr.A], b.Name[pr.B], s, i, gp.ID, gp.Separation, fp.ID, fp.Separation)
				}
			}
		}
		if b.Name[pr.B] == "crease" && len(got) != 2 {
			t.Errorf("the box across the crease has %d manifolds, want 2", len(got))
		}
	}
	t.Logf("%d manifolds, all reused; largest separation off a fresh test %.2g m", w.Stats.Manifolds, worstSep)
}

// sameIDs reports whether manifolds a and b have the same points' ids in the same order.
func sameIDs(a, b *collide.Manifold) bool {
	if a.Count != b.Count {
		return false
	}
	for i := range a.Count {
		if a.Points[i].ID != b.Points[i].ID {
			return false
		}
	}
	return true
}

// lowest is the least separation of m's points.
func lowest(m *collide.Manifold) float32 {
	d := float32(math.MaxFloat32)
	for i := range m.Count {
		d = min(d, m.Points[i].Separation)
	}
	return d
}
