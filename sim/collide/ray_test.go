package collide

import (
	"math"
	"testing"

	"tumble/sim/geom"

	"github.com/go-gl/mathgl/mgl32"
)

type v3 = geom.Vec3

var identity = geom.Identity

func nearF(a, b float32, tol float64) bool { return math.Abs(float64(a-b)) <= tol }

func nearV(a, b v3, tol float32) bool { return a.Sub(b).Len() <= tol }

// boxHull is the hull of the box of half extents h, and the pose at which it stands where the box at
// identity would (its vertices are in its principal frame).
func boxHull(t *testing.T, h v3) (geom.Shape, geom.Pose) {
	t.Helper()
	var corners []v3
	for i := range 8 {
		corners = append(corners, v3{float32(i&1*2-1) * h[0], float32(i>>1&1*2-1) * h[1], float32(i>>2&1*2-1) * h[2]})
	}
	hl, err := geom.NewHull(corners)
	if err != nil {
		t.Fatal(err)
	}
	return geom.Shape{Kind: geom.ConvexHull, Hull: hl}, geom.Pose{P: hl.Centre, Q: hl.BodyRotation(mgl32.QuatIdent())}
}

func TestRayHitsEachShapeKindAtItsAnalyticDistanceAndNormal(t *testing.T) {
	s2 := float32(math.Sqrt2)
	spin45z := geom.Pose{Q: mgl32.QuatRotate(math.Pi/4, v3{0, 0, 1})}
	hull, hullPose := boxHull(t, v3{1, 2, 3})
	tetra, err := geom.NewHull([]v3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	tetraPose := geom.Pose{P: tetra.Centre, Q: tetra.BodyRotation(mgl32.QuatIdent())}
	floor, err := geom.NewGridMesh(2, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	mesh := geom.Shape{Kind: geom.TriMesh, Mesh: floor}
	cases := []struct {
		name  string
		shape geom.Shape
		pose  geom.Pose
		o, d  v3
		t     float32
		n     v3
	}{
		{"unit sphere from 5 m", geom.Shape{Kind: geom.Sphere, Radius: 1}, identity, v3{0, 0, 5}, v3{0, 0, -1}, 4, v3{0, 0, 1}},
		{"sphere off centre", geom.Shape{Kind: geom.Sphere, Radius: 2}, geom.Pose{P: v3{1, 0, 0}, Q: mgl32.QuatIdent()}, v3{1, 1, 10}, v3{0, 0, -1}, 10 - float32(math.Sqrt(3)), v3{0, 0.5, float32(math.Sqrt(3)) / 2}},
		{"box face x", geom.Shape{Kind: geom.Box, HalfExtents: v3{1, 2, 3}}, identity, v3{5, 0, 0}, v3{-1, 0, 0}, 4, v3{1, 0, 0}},
		{"box face -y", geom.Shape{Kind: geom.Box, HalfExtents: v3{1, 2, 3}}, identity, v3{0, -5, 0}, v3{0, 1, 0}, 3, v3{0, -1, 0}},
		{"box turned 45 degrees, face on", geom.Shape{Kind: geom.Box, HalfExtents: v3{1, 1, 1}}, spin45z, v3{3, 3, 0}, v3{-1, -1, 0}.Normalize(), 3*s2 - 1, v3{1, 1, 0}.Normalize()},
		{"box turned 45 degrees, at its edge", geom.Shape{Kind: geom.Box, HalfExtents: v3{1, 1, 1}}, spin45z, v3{5, 0.1, 0}, v3{-1, 0, 0}, 5 - (s2 - 0.1), v3{1, 1, 0}.Normalize()},
		{"capsule side", geom.Shape{Kind: geom.Capsule, Radius: 0.5, HalfHeight: 1}, identity, v3{3, 0.5, 0}, v3{-1, 0, 0}, 2.5, v3{1, 0, 0}},
		{"capsule end, on its axis", geom.Shape{Kind: geom.Capsule, Radius: 0.5, HalfHeight: 1}, identity, v3{0, 5, 0}, v3{0, -1, 0}, 3.5, v3{0, 1, 0}},
		{"capsule end, off its axis", geom.Shape{Kind: geom.Capsule, Radius: 0.5, HalfHeight: 1}, identity, v3{0.3, 5, 0}, v3{0, -1, 0}, 3.6, v3{0.6, 0.8, 0}},
		{"capsule bottom end", geom.Shape{Kind: geom.Capsule, Radius: 0.5, HalfHeight: 1}, identity, v3{0, -5, 0}, v3{0, 1, 0}, 3.5, v3{0, -1, 0}},
		{"hull face", hull, hullPose, v3{0.2, 0.3, 9}, v3{0, 0, -1}, 6, v3{0, 0, 1}},
		{"tetrahedron's slanted face", geom.Shape{Kind: geom.ConvexHull, Hull: tetra}, tetraPose, v3{1, 1, 1}, v3{-1, -1, -1}.Normalize(), float32(math.Sqrt(3)) - 1/float32(math.Sqrt(3)), v3{1, 1, 1}.Normalize()},
		{"mesh from above", mesh, geom.Pose{P: v3{0, 1, 0}, Q: mgl32.QuatIdent()}, v3{0.3, 6, 0.7}, v3{0, -1, 0}, 5, v3{0, 1, 0}},
		{"mesh from below: the back face", mesh, geom.Pose{P: v3{0, 1, 0}, Q: mgl32.QuatIdent()}, v3{-0.3, -4, 1.2}, v3{0, 1, 0}, 5, v3{0, -1, 0}},
		{"plane", geom.Shape{Kind: geom.Plane, Normal: v3{0, 1, 0}, Offset: 1}, identity, v3{0, 5, 0}, v3{0, -1, 0}, 4, v3{0, 1, 0}},
		{"plane, slanted ray", geom.Shape{Kind: geom.Plane, Normal: v3{0, 1, 0}}, identity, v3{0, 3, 0}, v3{3, -4, 0}.Mul(0.2), 3.75, v3{0, 1, 0}},
	}
	for _, c := range cases {
		tt, n, ok := Ray(&c.shape, c.pose, c.o, c.d, float32(math.Inf(1)))
		if !ok || !nearF(tt, c.t, 1e-5) || !nearV(n, c.n, 1e-5) {
			t.Errorf("%s: t %v n %v ok %v, want t %v n %v", c.name, tt, n, ok, c.t, c.n)
		}
		// The same ray stopped just short of the surface misses; just past it, hits.
		if _, _, ok := Ray(&c.shape, c.pose, c.o, c.d, c.t-1e-3); ok {
			t.Errorf("%s: hit with tmax short of the surface", c.name)
		}
		if _, _, ok := Ray(&c.shape, c.pose, c.o, c.d, c.t+1e-3); !ok {
			t.Errorf("%s: missed with tmax past the surface", c.name)
		}
	}
}

func TestRayMissesWhatItPassesByOrStartsIn(t *testing.T) {
	hull, hullPose := boxHull(t, v3{1, 1, 1})
	cases := []struct {
		name  string
		shape geom.Shape
		pose  geom.Pose
		o, d  v3
	}{
		{"above a box", geom.Shape{Kind: geom.Box, HalfExtents: v3{1, 1, 1}}, identity, v3{5, 5, 0}, v3{-1, 0, 0}},
		{"inside a box", geom.Shape{Kind: geom.Box, HalfExtents: v3{1, 1, 1}}, identity, v3{0, 0, 0}, v3{-1, 0, 0}},
		{"away from a sphere", geom.Shape{Kind: geom.Sphere, Radius: 1}, identity, v3{0, 0, 5}, v3{0, 0, 1}},
		{"beside a capsule's end", geom.Shape{Kind: geom.Capsule, Radius: 0.5, HalfHeight: 1}, identity, v3{0.6, 5, 0}, v3{0, -1, 0}},
		{"above a hull", hull, hullPose, v3{5, 5, 0}, v3{-1, 0, 0}},
		{"inside a hull", hull, hullPose, v3{0, 0, 0}, v3{1, 0, 0}},
		{"a plane from behind", geom.Shape{Kind: geom.Plane, Normal: v3{0, 1, 0}}, identity, v3{0, -1, 0}, v3{0, 1, 0}},
		{"along a plane", geom.Shape{Kind: geom.Plane, Normal: v3{0, 1, 0}}, identity, v3{0, 1, 0}, v3{1, 0, 0}},
	}
	for _, c := range cases {
		if tt, n, ok := Ray(&c.shape, c.pose, c.o, c.d, float32(math.Inf(1))); ok {
			t.Errorf("%s: hit at t %v n %v", c.name, tt, n)
		}
	}
}

// TestRayHitsAHullWhereItHitsTheBoxOfTheSameCorners: the face clipping of a hull agrees with the slab
// test of a box, slanted rays included.
func TestRayHitsAHullWhereItHitsTheBoxOfTheSameCorners(t *testing.T) {
	hull, hullPose := boxHull(t, v3{1, 2, 3})
	box := geom.Shape{Kind: geom.Box, HalfExtents: v3{1, 2, 3}}
	inf := float32(math.Inf(1))
	for _, r := range []struct{ o, d v3 }{
		{v3{5, 0, 0}, v3{-1, 0, 0}}, {v3{0, -5, 0}, v3{0, 1, 0}},
		{v3{4, 5, 6}, v3{-4, -5, -6}.Normalize()}, {v3{0.3, 0.2, 9}, v3{0, 0, -1}},
	} {
		th, nh, okh := Ray(&hull, hullPose, r.o, r.d, inf)
		tb, nb, okb := Ray(&box, identity, r.o, r.d, inf)
		if !okh || !okb || !nearF(th, tb, 1e-4) || !nearV(nh, nb, 1e-4) {
			t.Errorf("from %v along %v: hull t %v n %v ok %v, box t %v n %v ok %v", r.o, r.d, th, nh, okh, tb, nb, okb)
		}
	}
}
