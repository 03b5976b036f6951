package collide

import (
	"math"
	"math/rand"
	"testing"

	"tumble/sim/geom"

	"github.com/go-gl/mathgl/mgl32"
)

func TestCastTimeOfImpactIsAnalytic(t *testing.T) {
	unitBox := geom.Shape{Kind: geom.Box, HalfExtents: v3{1, 1, 1}}
	ball := geom.Shape{Kind: geom.Sphere, Radius: 0.5}
	spin45z := mgl32.QuatRotate(math.Pi/4, v3{0, 0, 1})
	lying := geom.Shape{Kind: geom.Capsule, Radius: 0.5, HalfHeight: 1}
	hull, hullPose := boxHull(t, v3{1, 1, 1})
	floor, err := geom.NewGridMesh(3, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := func(x, y, z float32) geom.Pose { return geom.Pose{P: v3{x, y, z}, Q: mgl32.QuatIdent()} }
	cases := []struct {
		name   string
		a      geom.Shape
		pa     geom.Pose
		d      v3
		b      geom.Shape
		pb     geom.Pose
		t      float32
		point  v3
		normal v3
	}{
		{"sphere onto a box face", ball, at(5, 0.3, 0), v3{-1, 0, 0}, unitBox, identity, 3.5, v3{1, 0.3, 0}, v3{1, 0, 0}},
		{"sphere onto a box edge", ball, at(5, 1.3, 0), v3{-1, 0, 0}, unitBox, identity, 3.6, v3{1, 1, 0}, v3{0.8, 0.6, 0}},
		{"sphere onto a turned box's face", ball, at(3, 3, 0.2), v3{-1, -1, 0}.Normalize(), unitBox, geom.Pose{Q: spin45z},
			3*float32(math.Sqrt2) - 1.5, v3{1 / float32(math.Sqrt2), 1 / float32(math.Sqrt2), 0.2}, v3{1, 1, 0}.Normalize()},
		{"sphere onto a sphere", ball, at(0, 10, 0), v3{0, -1, 0}, geom.Shape{Kind: geom.Sphere, Radius: 2}, identity, 7.5, v3{0, 2, 0}, v3{0, 1, 0}},
		{"box face onto a box face", unitBox, at(0, 6, 0.5), v3{0, -1, 0}, unitBox, identity, 4, v3{}, v3{0, 1, 0}},
		{"box corner onto a plane", unitBox, geom.Pose{P: v3{0, 5, 0}, Q: spin45z}, v3{0, -1, 0},
			geom.Shape{Kind: geom.Plane, Normal: v3{0, 1, 0}}, identity, 5 - float32(math.Sqrt2), v3{0, 0, 0}, v3{0, 1, 0}},
		{"sphere onto a raised plane, slanted", ball, at(0, 5, 0), v3{3, -4, 0}.Mul(0.2),
			geom.Shape{Kind: geom.Plane, Normal: v3{0, 1, 0}, Offset: 1}, identity, 4.375, v3{2.625, 1, 0}, v3{0, 1, 0}},
		{"lying capsule onto a sphere", lying, geom.Pose{P: v3{0.5, 5, 0}, Q: mgl32.QuatRotate(math.Pi/2, v3{0, 0, 1})}, v3{0, -1, 0},
			geom.Shape{Kind: geom.Sphere, Radius: 1}, identity, 3.5, v3{0, 1, 0}, v3{0, 1, 0}},
		{"capsule end onto a box", lying, at(0, 6, 0), v3{0, -1, 0}, unitBox, identity, 3.5, v3{0, 1, 0}, v3{0, 1, 0}},
		{"hull onto a box", hull, geom.Pose{P: hullPose.P.Add(v3{5, 0, 0}), Q: hullPose.Q}, v3{-1, 0, 0}, unitBox, identity, 3, v3{}, v3{1, 0, 0}},
		{"sphere onto a mesh", ball, at(0.4, 5, -0.7), v3{0, -1, 0}, geom.Shape{Kind: geom.TriMesh, Mesh: floor}, at(0, 1, 0), 3.5, v3{0.4, 1, -0.7}, v3{0, 1, 0}},
		{"box onto a mesh from below", unitBox, at(0.2, -5, 0.1), v3{0, 1, 0}, geom.Shape{Kind: geom.TriMesh, Mesh: floor}, at(0, 1, 0), 5, v3{}, v3{0, -1, 0}},
	}
	for _, c := range cases {
		h, ok := Cast(&c.a, c.pa, c.d, 100, &c.b, c.pb)
		if !ok || !nearF(h.T, c.t, 1e-4) || !nearV(h.Normal, c.normal, 1e-4) {
			t.Errorf("%s: T %v normal %v ok %v, want T %v normal %v", c.name, h.T, h.Normal, ok, c.t, c.normal)
			continue
		}
		// A face on a face touches along an area: any of its points will do, so only the touching
		// plane is checked.
		if c.point == (v3{}) {
			want := c.pa.P.Add(c.d.Mul(c.t))
			if d := h.Point.Sub(want).Dot(c.normal); !(d < 0) {
				t.Errorf("%s: point %v is not on the far side of the moved shape's centre %v", c.name, h.Point, want)
			}
		} else if !nearV(h.Point, c.point, 1e-4) {
			t.Errorf("%s: point %v, want %v", c.name, h.Point, c.point)
		}
		// Just short of the contact, a cast misses.
		if _, ok := Cast(&c.a, c.pa, c.d, c.t-1e-3, &c.b, c.pb); ok {
			t.Errorf("%s: hit with tmax short of the contact", c.name)
		}
	}
	// The time of impact onto a face is exact, not just within the cast's tolerance.
	h, _ := Cast(&ball, at(5, 0.3, 0), v3{-1, 0, 0}, 100, &unitBox, identity)
	if h.T != 3.5 {
		t.Errorf("sphere onto a box face: T %v, want exactly 3.5", h.T)
	}
}

func TestCastMissesWhatItMovesAwayFromOrPasses(t *testing.T) {
	unitBox := geom.Shape{Kind: geom.Box, HalfExtents: v3{1, 1, 1}}
	ball := geom.Shape{Kind: geom.Sphere, Radius: 0.5}
	at := func(x, y, z float32) geom.Pose { return geom.Pose{P: v3{x, y, z}, Q: mgl32.QuatIdent()} }
	plane := geom.Shape{Kind: geom.Plane, Normal: v3{0, 1, 0}}
	for _, c := range []struct {
		name string
		pa   geom.Pose
		d    v3
		b    geom.Shape
	}{
		{"away from a box", at(5, 0, 0), v3{1, 0, 0}, unitBox},
		{"past a box", at(5, 1.6, 0), v3{-1, 0, 0}, unitBox},
		{"along a plane", at(0, 2, 0), v3{1, 0, 0}, plane},
		{"up from a plane", at(0, 2, 0), v3{0, 1, 0}, plane},
	} {
		if h, ok := Cast(&ball, c.pa, c.d, 100, &c.b, identity); ok {
			t.Errorf("%s: hit %+v", c.name, h)
		}
	}
	if Castable(geom.Plane) || Castable(geom.TriMesh) || !Castable(geom.ConvexHull) {
		t.Error("Castable: planes and meshes are not swept; hulls are")
	}
	if _, ok := Cast(&plane, identity, v3{1, 0, 0}, 100, &unitBox, identity); ok {
		t.Error("a plane was swept")
	}
}

func TestCastThatStartsTouchingHitsAtZero(t *testing.T) {
	unitBox := geom.Shape{Kind: geom.Box, HalfExtents: v3{1, 1, 1}}
	ball := geom.Shape{Kind: geom.Sphere, Radius: 0.5}
	for _, p := range []v3{{0, 0, 0}, {1.2, 0, 0}, {1.5, 0, 0}} {
		h, ok := Cast(&ball, geom.Pose{P: p, Q: mgl32.QuatIdent()}, v3{1, 0, 0}, 10, &unitBox, identity)
		if !ok || h.T != 0 {
			t.Errorf("ball at %v: T %v ok %v, want a hit at 0", p, h.T, ok)
		}
	}
}

// TestCastStopsWhereTheShapesTouch sweeps random convex pairs towards each other: where the cast
// stops, the narrow phase finds them touching (separation within the cast's tolerance), and a little
// before it, apart.
func TestCastStopsWhereTheShapesTouch(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	kinds := []geom.Kind{geom.Box, geom.Sphere, geom.Capsule, geom.ConvexHull}
	hits := 0
	for trial := range 400 {
		sa, sb := randConvex(rng, kinds[rng.Intn(4)]), randConvex(rng, kinds[rng.Intn(4)])
		pb := geom.Pose{P: v3{}, Q: randQuat(rng)}
		from := v3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}.Normalize().Mul(6)
		aim := v3{rng.Float32() - 0.5, rng.Float32() - 0.5, rng.Float32() - 0.5}
		d := aim.Sub(from).Normalize()
		pa := geom.Pose{P: from, Q: randQuat(rng)}
		h, ok := Cast(&sa, pa, d, 20, &sb, pb)
		if !ok {
			continue
		}
		hits++
		var m Manifold
		moved := geom.Pose{P: pa.P.Add(d.Mul(h.T)), Q: pa.Q}
		Collide(&sa, moved, &sb, pb, 0.01, &m)
		if m.Count == 0 || math.Abs(minSep(&m)) > 2e-3 {
			t.Errorf("trial %d (%s onto %s): at T %v the narrow phase gives %d points, least separation %v", trial, sa.Kind, sb.Kind, h.T, m.Count, minSep(&m))
		}
		before := geom.Pose{P: pa.P.Add(d.Mul(h.T - 0.01)), Q: pa.Q}
		if Overlaps(&sa, before, &sb, pb) {
			t.Errorf("trial %d (%s onto %s): overlapping 1 cm before T %v", trial, sa.Kind, sb.Kind, h.T)
		}
	}
	if hits < 200 {
		t.Errorf("only %d of 400 casts aimed at the other shape hit it", hits)
	}
}

func TestOverlapsAgreesWithTheNarrowPhase(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	kinds := []geom.Kind{geom.Box, geom.Sphere, geom.Capsule, geom.ConvexHull}
	both := [2]int{}
	for trial := range 600 {
		sa, sb := randConvex(rng, kinds[rng.Intn(4)]), randConvex(rng, kinds[rng.Intn(4)])
		pa := geom.Pose{P: v3{rng.Float32()*4 - 2, rng.Float32()*4 - 2, rng.Float32()*4 - 2}, Q: randQuat(rng)}
		pb := geom.Pose{P: v3{}, Q: randQuat(rng)}
		var m Manifold
		Collide(&sa, pa, &sb, pb, 0.05, &m)
		if m.Count == 0 {
			if Overlaps(&sa, pa, &sb, pb) {
				t.Errorf("trial %d (%s, %s): overlap where the narrow phase finds no point within 5 cm", trial, sa.Kind, sb.Kind)
			}
			both[0]++
			continue
		}
		sep := minSep(&m)
		if got := Overlaps(&sa, pa, &sb, pb); sep < -0.01 && !got || sep > 0.01 && got {
			t.Errorf("trial %d (%s, %s): separation %v, Overlaps %v", trial, sa.Kind, sb.Kind, sep, got)
		}
		both[1]++
	}
	if both[0] < 50 || both[1] < 50 {
		t.Errorf("the trials hardly mixed apart (%d) and close (%d) pairs", both[0], both[1])
	}
}

// randConvex is randShape with hulls: a random rock.
func randConvex(rng *rand.Rand, k geom.Kind) geom.Shape {
	if k == geom.ConvexHull {
		return rock(rng, 12, uniform(rng, 0.3, 0.8))
	}
	return randShape(rng, k)
}
