package collide

import (
	"math"
	"math/rand"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim/geom"
)

func cylinder(r, hh float32) geom.Shape {
	return geom.Shape{Kind: geom.Cylinder, Radius: r, HalfHeight: hh}
}

// Cylinders against every kind in configurations worked by hand: the normal, the deepest separation
// and how many points (a stand on a flat cap: four; lying on the side: the side line, two; a rim, an
// edge crossing, a round shape: one).
func TestCylinderContactsInAnalyticConfigurations(t *testing.T) {
	hullBox, hullPose := boxHull(t, v3{1, 0.5, 1})
	rock, err := geom.NewHull([]v3{{-1, -0.5, -1}, {1, -0.5, -1}, {1, -0.5, 1}, {-1, -0.5, 1}, {0, 0.5, 0}})
	if err != nil {
		t.Fatal(err)
	}
	pyramid := geom.Shape{Kind: geom.ConvexHull, Hull: rock}
	// The pyramid's hull is centred on its centre of mass, a quarter of the height up from the base.
	pyrPose := geom.Pose{P: rock.Centre, Q: rock.BodyRotation(mgl32.QuatIdent())}
	s30, c30 := float32(0.5), float32(math.Sqrt(3)/2)
	cases := []struct {
		name   string
		a      geom.Shape
		pa     geom.Pose
		b      geom.Shape
		pb     geom.Pose
		n      v3
		sep    float32
		points int
	}{
		{"standing on a plane", floor, at(0, 0, 0), cylinder(0.3, 0.5), at(1, 0.49, 2), v3{0, 1, 0}, -0.01, 4},
		{"lying on a plane", floor, at(0, 0, 0), cylinder(0.3, 0.5), turned(1, 0.29, 2, 90, zAxis), v3{0, 1, 0}, -0.01, 2},
		// The rim point and its neighbours 15 degrees round, 1 cm up: within the 2 cm margin.
		{"tilted 30 degrees on its rim on a plane", floor, at(0, 0, 0), cylinder(0.3, 0.5), turned(0, 0.5*c30+0.3*s30-0.01, 0, 30, zAxis), v3{0, 1, 0}, -0.01, 3},
		{"plane second", cylinder(0.3, 0.5), at(0, 0.49, 0), floor, at(0, 0, 0), v3{0, -1, 0}, -0.01, 4},
		{"standing on a box", box(1, 0.5, 1), at(0, 0, 0), cylinder(0.3, 0.5), at(0.1, 0.99, 0), v3{0, 1, 0}, -0.01, 4},
		// Half the cap clipped: reducePts keeps the two clip points and one between; three on a line
		// of the half disc's span.
		{"standing over a box's edge", box(1, 0.5, 1), at(0, 0, 0), cylinder(0.3, 0.5), at(1, 0.99, 0), v3{0, 1, 0}, -0.01, 3},
		{"lying on a box", box(1, 0.5, 1), at(0, 0, 0), cylinder(0.3, 0.5), turned(0, 0.79, 0.2, 90, xAxis), v3{0, 1, 0}, -0.01, 2},
		{"lying across a narrow box", box(0.1, 0.5, 1), at(0, 0, 0), cylinder(0.3, 0.5), turned(0, 0.79, 0.2, 90, zAxis), v3{0, 1, 0}, -0.01, 2},
		{"box on a standing cylinder", cylinder(0.3, 0.5), at(0, 0, 0), box(0.5, 0.2, 0.5), at(0, 0.69, 0), v3{0, 1, 0}, -0.01, 4},
		{"box against the side", cylinder(0.3, 0.5), at(0, 0, 0), box(0.5, 0.2, 0.5), at(0.79, 0, 0), v3{1, 0, 0}, -0.01, 2},
		{"sphere on the cap", cylinder(0.3, 0.5), at(0, 0, 0), sphere(0.2), at(0.1, 0.69, 0), v3{0, 1, 0}, -0.01, 1},
		{"sphere against the side", cylinder(0.3, 0.5), at(0, 0, 0), sphere(0.2), at(0, 0.1, 0.49), v3{0, 0, 1}, -0.01, 1},
		{"sphere on the rim", cylinder(0.3, 0.5), at(0, 0, 0), sphere(0.2), at(0.3+0.19*float32(math.Sqrt2)/2, 0.5+0.19*float32(math.Sqrt2)/2, 0), v3{float32(math.Sqrt2) / 2, float32(math.Sqrt2) / 2, 0}, -0.01, 1},
		{"sphere apart from the side", cylinder(0.3, 0.5), at(0, 0, 0), sphere(0.2), at(0.51, 0, 0), v3{1, 0, 0}, 0.01, 1},
		{"sphere's centre inside, near the side", cylinder(0.3, 0.5), at(0, 0, 0), sphere(0.1), at(0.25, 0, 0), v3{1, 0, 0}, -0.15, 1},
		{"capsule lying across the cap", cylinder(0.3, 0.5), at(0, 0, 0), capsule(0.1, 0.2), turned(0, 0.59, 0, 90, zAxis), v3{0, 1, 0}, -0.01, 2},
		{"capsule lying along a log", cylinder(0.3, 0.5), turned(0, 0, 0, 90, xAxis), capsule(0.1, 0.3), turned(0, 0.39, 0, 90, xAxis), v3{0, 1, 0}, -0.01, 2},
		{"capsule crossing a log", cylinder(0.3, 0.5), turned(0, 0, 0, 90, xAxis), capsule(0.1, 0.3), turned(0, 0.39, 0, 90, zAxis), v3{0, 1, 0}, -0.01, 1},
		{"cylinders stacked", cylinder(0.3, 0.5), at(0, 0, 0), cylinder(0.2, 0.3), at(0.05, 0.79, 0), v3{0, 1, 0}, -0.01, 4},
		{"logs side by side", cylinder(0.3, 0.5), turned(0, 0, 0, 90, xAxis), cylinder(0.2, 0.3), turned(0, 0.49, 0.1, 90, xAxis), v3{0, 1, 0}, -0.01, 2},
		{"logs crossed", cylinder(0.3, 0.5), turned(0, 0, 0, 90, xAxis), cylinder(0.2, 0.3), turned(0, 0.49, 0, 90, zAxis), v3{0, 1, 0}, -0.01, 1},
		{"standing on a hull box", hullBox, hullPose, cylinder(0.3, 0.5), at(0.1, 0.99, 0), v3{0, 1, 0}, -0.01, 4},
		{"lying on a hull box", hullBox, hullPose, cylinder(0.3, 0.5), turned(0, 0.79, 0.2, 90, xAxis), v3{0, 1, 0}, -0.01, 2},
		{"on a pyramid's apex", pyramid, pyrPose, cylinder(0.3, 0.5), at(0.1, 0.99, 0), v3{0, 1, 0}, -0.01, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, swap := range []bool{false, true} {
				var m Manifold
				n := c.n
				if swap {
					Collide(&c.b, c.pb, &c.a, c.pa, 0.02, &m)
					n = n.Mul(-1)
				} else {
					Collide(&c.a, c.pa, &c.b, c.pb, 0.02, &m)
				}
				if m.Count != c.points {
					t.Fatalf("swap %v: %d points, want %d: %+v", swap, m.Count, c.points, m)
				}
				if !nearV(m.Normal, n, 1e-5) {
					t.Fatalf("swap %v: normal %v, want %v", swap, m.Normal, n)
				}
				if s := float32(minSep(&m)); !nearF(s, c.sep, 2e-6) {
					t.Fatalf("swap %v: deepest separation %v, want %v", swap, s, c.sep)
				}
				seen := map[uint32]bool{}
				for i := 0; i < m.Count; i++ {
					if seen[m.Points[i].ID] {
						t.Fatalf("swap %v: repeated id in %+v", swap, m.Points[:m.Count])
					}
					seen[m.Points[i].ID] = true
				}
			}
		})
	}
}

// On a flat mesh of small triangles a cylinder stands on four rim points and lies on its side line, each
// in one manifold with the mesh's normal: the seams add no normal of their own.
func TestCylinderOnAFlatMesh(t *testing.T) {
	mesh := gridMesh(t, 5, 10)
	for _, c := range []struct {
		name   string
		pose   geom.Pose
		points int
	}{
		{"standing", at(0.5, 0.49, 0.5), 4},
		{"standing on a vertex", at(1, 0.49, 1), 4},
		{"lying across seams", turned(0.3, 0.29, 0.5, 90, zAxis), 2},
	} {
		s := cylinder(0.3, 0.5)
		out := CollideMesh(mesh, geom.Identity, &s, c.pose, 0.005, nil)
		if len(out) != 1 {
			t.Fatalf("%s: %d manifolds, want 1: %+v", c.name, len(out), out)
		}
		m := out[0]
		if m.Count != c.points || !nearV(m.Normal, v3{0, 1, 0}, 1e-5) {
			t.Fatalf("%s: %d points, normal %v; want %d, +y: %+v", c.name, m.Count, m.Normal, c.points, m)
		}
		if s := float32(minSep(&m)); !nearF(s, -0.01, 2e-6) {
			t.Fatalf("%s: deepest separation %v, want -0.01", c.name, s)
		}
	}
}

// A ray meets a cylinder's side and caps where the geometry says, from any side, and a shape cast
// stops where a cylinder touches.
func TestRayAndCastMeetACylinder(t *testing.T) {
	s := cylinder(0.5, 1)
	for _, c := range []struct {
		name string
		pose geom.Pose
		o, d v3
		t    float32
		n    v3
		hit  bool
	}{
		{"side", at(0, 0, 0), v3{3, 0.5, 0}, v3{-1, 0, 0}, 2.5, v3{1, 0, 0}, true},
		{"top cap", at(0, 0, 0), v3{0.2, 4, 0.1}, v3{0, -1, 0}, 3, v3{0, 1, 0}, true},
		{"bottom cap", at(0, 0, 0), v3{0.2, -4, 0.1}, v3{0, 1, 0}, 3, v3{0, -1, 0}, true},
		{"oblique into the side", at(0, 0, 0), v3{0, 2, 3}, v3{0, -0.6, -0.8}, 3.125, v3{0, 0, 1}, true},
		{"lying, through its cap", turned(0, 0, 0, 90, zAxis), v3{5, 0, 0}, v3{-1, 0, 0}, 4, v3{1, 0, 0}, true},
		{"passing above", at(0, 0, 0), v3{3, 1.1, 0}, v3{-1, 0, 0}, 0, v3{}, false},
		{"passing beside", at(0, 0, 0), v3{3, 0, 0.6}, v3{-1, 0, 0}, 0, v3{}, false},
		{"from inside", at(0, 0, 0), v3{0, 0, 0}, v3{1, 0, 0}, 0, v3{}, false},
	} {
		got, n, ok := Ray(&s, c.pose, c.o, c.d.Normalize(), 100)
		if ok != c.hit || ok && (!nearF(got, c.t, 1e-5) || !nearV(n, c.n, 1e-5)) {
			t.Errorf("%s: hit %v at %v normal %v, want %v at %v normal %v", c.name, ok, got, n, c.hit, c.t, c.n)
		}
	}
	// A cylinder dropped on a plane lands its cap on it; one lying down lands its side.
	for _, c := range []struct {
		pose geom.Pose
		want float32
	}{{at(0, 3, 0), 2}, {turned(0, 3, 0, 90, xAxis), 2.5}} {
		h, ok := Cast(&s, c.pose, v3{0, -1, 0}, 10, &floor, geom.Identity)
		if !ok || !nearF(h.T, c.want, 2*CastTolerance) {
			t.Errorf("cast onto the floor from %v: %v %v, want T %v", c.pose, h, ok, c.want)
		}
		b := box(2, 0.5, 2)
		h, ok = Cast(&s, c.pose, v3{0, -1, 0}, 10, &b, at(0, -0.5, 0))
		if !ok || !nearF(h.T, c.want, 2*CastTolerance) {
			t.Errorf("cast onto a box from %v: %v %v, want T %v", c.pose, h, ok, c.want)
		}
	}
}

// A cylinder's features come in order: a cap's loop runs counter-clockwise about its outward normal
// (clipping needs it), the exact deepest rim point in its place among the others.
func TestCylinderCapLoopsRunCounterClockwise(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	s := cylinder(0.4, 0.3)
	for trial := 0; trial < 200; trial++ {
		p := geom.Pose{P: v3{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)}, Q: randQuat(rng)}
		x, _ := convexOf(&s, &p)
		d := randUnit(rng).vec()
		var f feature
		x.supportFeature(vg(d), &f)
		if f.n < 3 {
			continue
		}
		for i := 0; i < f.n; i++ {
			a, b, c := f.p[i], f.p[(i+1)%f.n], f.p[(i+2)%f.n]
			if turn := b.Sub(a).Cross(c.Sub(b)).Dot(f.nrm); turn <= 0 {
				t.Fatalf("trial %d: the loop turns %v at vertex %d", trial, turn, (i+1)%f.n)
			}
		}
		deep := x.c.support(dv(vg(d)))
		found := false
		for i := 0; i < f.n; i++ {
			found = found || vd(deep).Sub(f.p[i]).Vec3().Len() < 1e-3*s.Radius
		}
		if !found {
			t.Fatalf("trial %d: the deepest rim point %v is not in the loop", trial, deep)
		}
	}
}

func BenchmarkCollidePlaneCylinder(b *testing.B) {
	benchPairs(b, randomPairs(1, geom.Plane, geom.Cylinder, 256))
}
func BenchmarkCollideSphereCylinder(b *testing.B) {
	benchPairs(b, randomPairs(1, geom.Sphere, geom.Cylinder, 256))
}
func BenchmarkCollideCapsuleCylinder(b *testing.B) {
	benchPairs(b, randomPairs(1, geom.Capsule, geom.Cylinder, 256))
}
func BenchmarkCollideBoxCylinder(b *testing.B) {
	benchPairs(b, randomPairs(1, geom.Box, geom.Cylinder, 256))
}
func BenchmarkCollideCylinderCylinder(b *testing.B) {
	benchPairs(b, randomPairs(1, geom.Cylinder, geom.Cylinder, 256))
}

// A cylinder standing on a box, resting: the commonest pair of a stack.
func BenchmarkCollideBoxCylinderResting(b *testing.B) {
	bx, c := box(1, 0.5, 1), cylinder(0.3, 0.5)
	benchPairs(b, []pairCase{{a: bx, b: c, pa: at(0, 0, 0), pb: at(0.1, 0.995, 0)}})
}
