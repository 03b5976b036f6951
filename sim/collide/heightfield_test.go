package collide

import (
	"math"
	"testing"

	"tumble/sim/geom"

	"github.com/go-gl/mathgl/mgl32"
)

// testField is a height field of n x n samples d apart, centred on the origin, with heights h(x, z).
func testField(t *testing.T, n int, d float32, h func(x, z float32) float32) *geom.Shape {
	t.Helper()
	hs := make([]float32, n*n)
	x0 := -float32(n-1) * d / 2
	for j := range n {
		for i := range n {
			hs[j*n+i] = h(x0+float32(i)*d, x0+float32(j)*d)
		}
	}
	f, err := geom.NewHeightField(n, n, d, d, hs)
	if err != nil {
		t.Fatal(err)
	}
	return &geom.Shape{Kind: geom.HeightField, Field: f}
}

// A box on a dome whose normal turns by up to 12 degrees across the box's footprint gets one manifold
// of at most four points with the normal of the triangle under its centre (the triangles within
// fieldMergeCos of it join), however the box is placed on the dome; a box in a V of two slopes of 20
// degrees, a fold of 40, gets a manifold on each slope with that slope's normal.
func TestFieldBoxOneManifoldUnlessFolded(t *testing.T) {
	const k = 0.3 // the dome's curvature, 1/m: slope tan(12 deg) under the corners, 0.71 m from the top
	dome := testField(t, 65, 0.1, func(x, z float32) float32 { return -k / 2 * (x*x + z*z) })
	box := &geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.5, 0.25, 0.5}}
	for _, c := range [][2]float32{{0, 0}, {0.03, 0.07}, {0.12, -0.05}} {
		// The box sits level on the top, its bottom face 1 cm into the dome; the margin reaches the
		// whole footprint (the dome falls 7.5 cm under its corners), so every triangle under it
		// gives points, their normals up to 12 degrees from the top's.
		pb := geom.Pose{P: geom.Vec3{c[0], 0.24, c[1]}, Q: mgl32.QuatIdent()}
		out := CollideMesh(dome, geom.Identity, box, pb, 0.15, nil)
		if len(out) != 1 || out[0].Count < 1 || out[0].Count > 4 {
			t.Fatalf("box at %v: %d manifolds, want 1 of at most 4 points: %+v", c, len(out), out)
		}
		f := dome.Field
		i, j := int((c[0]-f.X0)/f.DX), int((c[1]-f.Z0)/f.DZ)
		kk := 0
		if (c[0]-f.X0)/f.DX-float32(i)+(c[1]-f.Z0)/f.DZ-float32(j) >= 1 {
			kk = 1
		}
		tv := f.Triangle(i, j, kk)
		want := tv[1].Sub(tv[0]).Cross(tv[2].Sub(tv[0])).Normalize()
		if out[0].Normal.Sub(want).Len() > 1e-5 {
			t.Errorf("box at %v: normal %v, want the centre's triangle's %v", c, out[0].Normal, want)
		}
	}
	slope := float32(math.Tan(20 * math.Pi / 180))
	vee := testField(t, 65, 0.1, func(x, z float32) float32 { return slope * abs32(x) })
	// Level, its bottom corners 1 cm into both slopes.
	pb := geom.Pose{P: geom.Vec3{0, slope*0.5 - 0.01 + 0.25, 0}, Q: mgl32.QuatIdent()}
	out := CollideMesh(vee, geom.Identity, box, pb, 0.02, nil)
	if len(out) != 2 {
		t.Fatalf("box in a V: %d manifolds, want 2: %+v", len(out), out)
	}
	s, c := float32(math.Sin(20*math.Pi/180)), float32(math.Cos(20*math.Pi/180))
	for _, m := range out {
		if m.Normal.Sub(geom.Vec3{-s, c, 0}).Len() > 1e-4 && m.Normal.Sub(geom.Vec3{s, c, 0}).Len() > 1e-4 {
			t.Errorf("box in a V: normal %v, want a slope's (±%.3f, %.3f, 0)", m.Normal, s, c)
		}
	}
	if out[0].Normal[0]*out[1].Normal[0] >= 0 {
		t.Errorf("box in a V: both manifolds on one slope: %v, %v", out[0].Normal, out[1].Normal)
	}
}
