package collide

import (
	"math"
	"slices"
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
		if want := triNormalAt(dome.Field, c[0], c[1]); out[0].Normal.Sub(want).Len() > 1e-5 {
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

// triNormalAt is the unit normal of the field's triangle over (x, z).
func triNormalAt(f *geom.HeightGrid, x, z float32) geom.Vec3 {
	s, t := (x-f.X0)/f.DX, (z-f.Z0)/f.DZ
	i, j := int(s), int(t)
	k := 0
	if s-float32(i)+t-float32(j) >= 1 {
		k = 1
	}
	tv := f.Triangle(i, j, k)
	return tv[1].Sub(tv[0]).Cross(tv[2].Sub(tv[0])).Normalize()
}

// A ball on the side of a dome, 5 mm into it, touches it below and downhill of its centre: its one
// point takes the normal of the terrain there, within the tessellation's turn over a cell (0.1 m at
// 0.3/m: under 2 degrees), and the depth, 5 mm less the triangles' sag under the dome (at most
// k R^2 / 2 over a triangle's circumradius R = 0.071 m: 0.75 mm, shallower only). The triangles
// around that point turn by a degree or two each; their planes, extended, cut deeper into the ball
// than the terrain does, and it is not their normal that holds the ball.
func TestFieldBallTakesItsNearestPoint(t *testing.T) {
	const k = 0.3
	h := func(x, z float32) float32 { return -k / 2 * (x*x + z*z) }
	dome := testField(t, 65, 0.1, h)
	ball := &geom.Shape{Kind: geom.Sphere, Radius: 0.3}
	for _, q := range [][2]float32{{1.02, 0.33}, {-0.77, 1.14}, {0.45, -1.31}, {0.05, 0.02}} {
		n := geom.Vec3{k * q[0], 1, k * q[1]}.Normalize() // the dome's normal at q
		c := geom.Vec3{q[0], h(q[0], q[1]), q[1]}.Add(n.Mul(0.3 - 0.005))
		out := CollideMesh(dome, geom.Identity, ball, geom.Pose{P: c, Q: mgl32.QuatIdent()}, 0.03, nil)
		if len(out) != 1 || out[0].Count != 1 {
			t.Fatalf("ball over %v: %d manifolds, want 1 of one point: %+v", q, len(out), out)
		}
		m := out[0]
		if d := float64(m.Normal.Dot(n)); math.Acos(math.Min(d, 1)) > 2*math.Pi/180 {
			t.Errorf("ball over %v: normal %v is %.2f degrees from the dome's %v", q, m.Normal, math.Acos(d)*180/math.Pi, n)
		}
		if s := m.Points[0].Separation; s < -0.00501 || s > -0.005+0.00076 {
			t.Errorf("ball over %v: separation %v, want -0.005 to -0.00424", q, s)
		}
	}
}

// benchField collides shape against the height-field bench's terrain (sim's
// TestHeightFieldSpeedAgainstPlane: rolling hills with bumps, 0.25 m cells), at 256 spots where the
// shape rests on it, turned about y by each spot's own angle and lying on its side (a capsule) as on
// the bench, 5 mm into the terrain under its centre: one CollideMesh call an iteration, spot after
// spot. The figure is what a body the contact cache cannot serve (it rolls) costs a step.
func benchField(b *testing.B, shape *geom.Shape, lift float32, lie bool) {
	h := func(x, z float32) float32 {
		return 1.5*float32(math.Sin(0.3*float64(x))*math.Cos(0.25*float64(z))) +
			0.1*float32(math.Sin(2.1*float64(x))*math.Sin(1.7*float64(z)))
	}
	hs := make([]float32, 257*257)
	x0 := -float32(256) * 0.25 / 2
	for j := range 257 {
		for i := range 257 {
			hs[j*257+i] = h(x0+float32(i)*0.25, x0+float32(j)*0.25)
		}
	}
	f, err := geom.NewHeightField(257, 257, 0.25, 0.25, hs)
	if err != nil {
		b.Fatal(err)
	}
	field := &geom.Shape{Kind: geom.HeightField, Field: f}
	poses := make([]geom.Pose, 256)
	for k := range poses {
		// Spots from a low-discrepancy sequence (R2), angles by the golden angle: spread, and the same
		// from run to run.
		u, v := float32(math.Mod(float64(k)*0.618034, 1)), float32(math.Mod(float64(k)*0.754878, 1))
		x, z := (u-0.5)*50, (v-0.5)*50
		q := mgl32.QuatRotate(float32(k)*2.39996, mgl32.Vec3{0, 1, 0})
		if lie {
			q = q.Mul(mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1}))
		}
		poses[k] = geom.Pose{P: geom.Vec3{x, h(x, z) + lift - 0.005, z}, Q: q}
	}
	var out []Manifold
	b.ResetTimer()
	for i := range b.N {
		out = CollideMesh(field, geom.Identity, shape, poses[i%len(poses)], 0.03, out[:0])
	}
}

func BenchmarkCollideFieldBox(b *testing.B) {
	benchField(b, &geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.3, 0.25, 0.3}}, 0.25, false)
}

func BenchmarkCollideFieldSphere(b *testing.B) {
	benchField(b, &geom.Shape{Kind: geom.Sphere, Radius: 0.3}, 0.3, false)
}

func BenchmarkCollideFieldCapsule(b *testing.B) {
	benchField(b, &geom.Shape{Kind: geom.Capsule, Radius: 0.2, HalfHeight: 0.3}, 0.2, true)
}

// deepest is the least separation of the manifolds' points, and 1 when there is none.
func deepest(out []Manifold) float32 {
	d := float32(1)
	for _, m := range out {
		for i := range m.Count {
			d = min(d, m.Points[i].Separation)
		}
	}
	return d
}

// The walk over gentle terrain (field.go) finds the deepest point where the terrain says it is. A level
// box on a dome's top, 1 cm in: the apex sample under its face, -0.01. A level box across a ridge
// that rises along z, 1 cm in at the highest point under it: that point is where the ridge leaves the
// box, a crossing of the face's edge with the grid line of the ridge, 1 cm below the surface
// vertically, so 1 cm times the triangles' n.y along their normals. A capsule lying across a ridge
// of 20 degrees, its core 5 mm within its radius of the ridge: the nearest feature is the ridge's edge,
// 5 mm in (the triangles' planes would say 8 mm). Heights are quantised to 16 bits over the fields'
// ranges (under 0.02 mm here).
func TestFieldWalkFindsTheDeepestPoint(t *testing.T) {
	const tol = 3e-5
	box := &geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.5, 0.25, 0.5}}
	walks := func(f *geom.Shape, s *geom.Shape, p geom.Pose) {
		t.Helper()
		box := s.Bounds(p)
		box.Min, box.Max = box.Min.Sub(geom.Vec3{0.03, 0.03, 0.03}), box.Max.Add(geom.Vec3{0.03, 0.03, 0.03})
		if _, ok := fieldGentle(f.Field, box, vg(p.P)); !ok {
			t.Fatalf("%v at %v: the walk does not run", s.Kind, p.P)
		}
	}
	dome := testField(t, 65, 0.1, func(x, z float32) float32 { return -0.15 * (x*x + z*z) })
	for _, c := range [][2]float32{{0, 0}, {0.03, 0.07}, {0.12, -0.05}, {-0.31, 0.22}} {
		pb := geom.Pose{P: geom.Vec3{c[0], 0.24, c[1]}, Q: mgl32.QuatIdent()}
		walks(dome, box, pb)
		if d := deepest(CollideMesh(dome, geom.Identity, box, pb, 0.03, nil)); math.Abs(float64(d+0.01)) > tol {
			t.Errorf("box on the dome at %v: deepest %.6f, want -0.01", c, d)
		}
	}
	s, r := float32(math.Tan(8*math.Pi/180)), float32(math.Tan(5*math.Pi/180))
	ridge := testField(t, 65, 0.1, func(x, z float32) float32 { return -s*abs32(x) + r*z })
	// The face spans z in [-0.467, 0.533]: its far edge lies between the grid's lines z = 0.5 and 0.6.
	pb := geom.Pose{P: geom.Vec3{0.05, r*0.533 - 0.01 + 0.25, 0.033}, Q: mgl32.QuatIdent()}
	walks(ridge, box, pb)
	want := -0.01 / float32(math.Sqrt(float64(1+s*s+r*r)))
	if d := deepest(CollideMesh(ridge, geom.Identity, box, pb, 0.03, nil)); math.Abs(float64(d-want)) > tol {
		t.Errorf("box across the rising ridge: deepest %.6f, want %.6f", d, want)
	}
	k := float32(math.Tan(10 * math.Pi / 180))
	roof := testField(t, 65, 0.1, func(x, z float32) float32 { return -k * abs32(x) })
	capsule := &geom.Shape{Kind: geom.Capsule, Radius: 0.2, HalfHeight: 0.3}
	for _, z := range []float32{0.03, -0.17} {
		// Lying along x (the capsule's axis is its local y), across the ridge at x = 0.
		pc := geom.Pose{P: geom.Vec3{0.01, 0.2 - 0.005, z}, Q: mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1})}
		walks(roof, capsule, pc)
		out := CollideMesh(roof, geom.Identity, capsule, pc, 0.03, nil)
		if d := deepest(out); math.Abs(float64(d+0.005)) > tol {
			t.Errorf("capsule across the ridge at z = %v: deepest %.6f, want -0.005", z, d)
		}
	}
}

// coreDepth is the least distance, less r, between a capsule's core p0-p1 and the field's surface:
// the least over 121 points along the core of their distance to the triangles of the cells within
// 0.3 m of each (off by the square of the spacing times the terrain's curvature: micrometres).
func coreDepth(f *geom.HeightGrid, p0, p1 vec, r float32) float32 {
	best := float32(1e30)
	for k := range 121 {
		x := p0.Add(p1.Sub(p0).Scale(float32(k) / 120))
		i0, j0 := int((x.X-0.3-f.X0)/f.DX), int((x.Z-0.3-f.Z0)/f.DZ)
		i1, j1 := int((x.X+0.3-f.X0)/f.DX), int((x.Z+0.3-f.Z0)/f.DZ)
		for j := max(j0, 0); j <= min(j1, f.NZ-2); j++ {
			for i := max(i0, 0); i <= min(i1, f.NX-2); i++ {
				for c := range 2 {
					tr := cellTri(f, i, j, c)
					q, _ := closestOnTri(&tr, x)
					d := x.Sub(q)
					best = min(best, float32(math.Sqrt(float64(d.Dot(d)))))
				}
			}
		}
	}
	return best - r
}

// cellTri returns triangle k of cell (i, j), as fieldTris builds it.
func cellTri(f *geom.HeightGrid, i, j, k int) tri {
	return appendCell(f, i, j, nil)[k]
}

// Over the height-field bench's terrain (rolling hills with bumps, 0.25 m cells), at 256 spots where a
// box rests 5 mm in, turned about y, the walk's deepest point agrees with the generic triangle tests'
// on a mesh of the same triangles: within 0.5 mm, the bound |sep| tan(theta) sin(phi) of field.go
// with the hills' slopes (tan theta up to 0.65) and their turn from one triangle to the next (phi
// under 8 degrees), plus the rounding. A capsule lying on its side, turned about y, 5 mm into the
// terrain at its core's nearest approach (found by brute force, coreDepth), gets that depth within
// 2 mm: its ends are measured exactly, and between them the core's point at its least vertical gap,
// off the nearest approach by about the gap times the slope (0.2 m x 0.65), where the distance along
// the core is flat: 1.6 mm at most here, at its nearest approach's curvature over a bump.
func TestFieldWalkAgreesWithTriangleTests(t *testing.T) {
	h := func(x, z float32) float32 {
		return 1.5*float32(math.Sin(0.3*float64(x))*math.Cos(0.25*float64(z))) +
			0.1*float32(math.Sin(2.1*float64(x))*math.Sin(1.7*float64(z)))
	}
	const n = 97
	field := testField(t, n, 0.25, h)
	f := field.Field
	verts := make([]geom.Vec3, 0, n*n)
	for j := range n {
		for i := range n {
			verts = append(verts, f.Vertex(i, j))
		}
	}
	var tris [][3]uint32
	for j := range n - 1 {
		for i := range n - 1 {
			a, b, c, d := uint32(j*n+i), uint32(j*n+i+1), uint32((j+1)*n+i), uint32((j+1)*n+i+1)
			tris = append(tris, [3]uint32{a, c, b}, [3]uint32{b, c, d})
		}
	}
	m, err := geom.NewMesh(verts, tris)
	if err != nil {
		t.Fatal(err)
	}
	mesh := &geom.Shape{Kind: geom.TriMesh, Mesh: m}
	box := &geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.3, 0.25, 0.3}}
	capsule := &geom.Shape{Kind: geom.Capsule, Radius: 0.2, HalfHeight: 0.3}
	for _, s := range []*geom.Shape{box, capsule} {
		walked, worst := 0, 0.0
		for k := range 256 {
			u, v := float32(math.Mod(float64(k)*0.618034, 1)), float32(math.Mod(float64(k)*0.754878, 1))
			x, z := (u-0.5)*20, (v-0.5)*20
			q := mgl32.QuatRotate(float32(k)*2.39996, mgl32.Vec3{0, 1, 0})
			if s == capsule {
				q = q.Mul(mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1}))
			}
			p := geom.Pose{P: geom.Vec3{x, h(x, z) + 0.25, z}, Q: q}
			axis := vg(geom.Vec3(q.Rotate(mgl32.Vec3{0, 0.3, 0})))
			// The reference: the mesh's deepest point for a box, the core's nearest approach for a
			// capsule; lifted or lowered until it is 5 mm in.
			ref := func() float32 {
				if s == box {
					return deepest(CollideMesh(mesh, geom.Identity, s, p, 0.03, nil))
				}
				return coreDepth(f, vg(p.P).Sub(axis), vg(p.P).Add(axis), 0.2)
			}
			for range 4 {
				if s == box {
					p.P[1] -= deepest(CollideMesh(mesh, geom.Identity, s, p, 0.3, nil)) + 0.005
				} else {
					p.P[1] -= ref() + 0.005
				}
			}
			bb := s.Bounds(p)
			bb.Min, bb.Max = bb.Min.Sub(geom.Vec3{0.03, 0.03, 0.03}), bb.Max.Add(geom.Vec3{0.03, 0.03, 0.03})
			if _, ok := fieldGentle(f, bb, vg(p.P)); ok {
				walked++
			}
			dw, dr := deepest(CollideMesh(field, geom.Identity, s, p, 0.03, nil)), ref()
			worst = max(worst, math.Abs(float64(dw-dr)))
			tol := 5e-4
			if s == capsule {
				tol = 2e-3
			}
			if math.Abs(float64(dw-dr)) > tol {
				t.Errorf("%v at %v: deepest %.5f on the field, %.5f for the reference", s.Kind, p.P, dw, dr)
			}
		}
		if walked < 200 {
			t.Errorf("%v: the walk ran at %d of 256 spots, want most", s.Kind, walked)
		}
		t.Logf("%v: walked at %d of 256 spots; deepest points at most %.2e m apart", s.Kind, walked, worst)
	}
}

// A box resting on a height field's nearly level points keeps last step's four points while it rocks
// (CollideMeshKeeping): tilted by 3 mrad one way and then the other about an axis across its face,
// the fresh reduction's points change (the deepest moves to the other side), but the keeping test
// returns the first tilt's points, ids in the same order, none of the others FieldKeepDepth or more
// below them. The box's corners lie on the grid's diagonals, where the triangle under them changes
// as the box rocks: their ids name the corner, not the triangle.
func TestFieldBoxKeepsItsPointsWhileItRocks(t *testing.T) {
	const k = 0.05 // the dome's curvature, 1/m: 2.3 mm down under the face's corners
	dome := testField(t, 65, 0.1, func(x, z float32) float32 { return -k / 2 * (x*x + z*z) })
	box := &geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.3, 0.2, 0.3}}
	axis := mgl32.Vec3{0.6, 0, 0.8}
	at := func(theta float32) geom.Pose {
		return geom.Pose{P: geom.Vec3{0.07, 0.2 - 0.001, 0.03}, Q: mgl32.QuatRotate(theta, axis)}
	}
	one := func(out []Manifold) *Manifold {
		t.Helper()
		if len(out) != 1 || out[0].Count != 4 {
			t.Fatalf("%d manifolds, want one of 4 points: %+v", len(out), out)
		}
		return &out[0]
	}
	kept := func(m *Manifold) []KeptPoints {
		kp := KeptPoints{Count: m.Count}
		for i := range m.Count {
			kp.IDs[i] = m.Points[i].ID
		}
		return []KeptPoints{kp}
	}
	// Tilted 3 mrad one way and then the other, the face's points rise and sink by up to a millimetre.
	const theta = 0.003
	a := one(CollideMesh(dome, geom.Identity, box, at(theta), 0.02, nil))
	fresh := one(CollideMesh(dome, geom.Identity, box, at(-theta), 0.02, nil))
	if slices.Equal(ids(a), ids(fresh)) {
		t.Fatalf("the fresh reduction keeps the same points tilted either way (%v): the test needs it to change", ids(a))
	}
	got := one(CollideMeshKeeping(dome, geom.Identity, box, at(-theta), 0.02, kept(a), nil))
	for i := range 4 {
		if got.Points[i].ID != a.Points[i].ID {
			t.Errorf("tilted back, point %d has id %x, want last step's %x (ids %x, last %x)", i, got.Points[i].ID,
				a.Points[i].ID, ids(got), ids(a))
		}
	}
	if d := deepest([]Manifold{*fresh}) - deepest([]Manifold{*got}); d <= -FieldKeepDepth {
		t.Errorf("the kept points lie %.5f m above the deepest, more than FieldKeepDepth", -d)
	}
}

// The kept points give way where a point lies FieldKeepDepth or more below the deepest of them, or
// where one of them is gone; a height field's manifold without kept points takes the deepest first.
func TestFieldKeptPointsGiveWay(t *testing.T) {
	// Six points of a face, ids 1 to 6; the kept ones are 1 to 4, the deepest of them at -1 mm.
	sel := func(sep5 float32) []clipPt {
		return []clipPt{
			{p: vec{X: -0.3, Z: -0.3}, sep: -0.001, feat: 1}, {p: vec{X: 0.3, Z: -0.3}, sep: 0.002, feat: 2},
			{p: vec{X: 0.3, Z: 0.3}, sep: 0.003, feat: 3}, {p: vec{X: -0.3, Z: 0.3}, sep: 0.001, feat: 4},
			{p: vec{X: 0, Z: 0.1}, sep: sep5, feat: 5}, {p: vec{X: 0.1, Z: 0}, sep: 0.004, feat: 6},
		}
	}
	c := &meshCtx{nkept: 1}
	c.kept[0] = KeptPoints{IDs: [4]uint32{3, 1, 4, 2}, Count: 4}
	for _, tc := range []struct {
		sep5 float32
		kept bool
	}{{-0.0025, true}, {-0.001 - FieldKeepDepth*0.99, true}, {-0.001 - FieldKeepDepth*1.01, false}, {-0.01, false}} {
		var keep [4]int
		s := sel(tc.sep5)
		got := c.keptOf(s, &keep)
		if got != tc.kept {
			t.Errorf("point 5 at %.4f m: kept %v, want %v", tc.sep5, got, tc.kept)
		}
		if got && (s[keep[0]].feat != 3 || s[keep[1]].feat != 1 || s[keep[2]].feat != 4 || s[keep[3]].feat != 2) {
			t.Errorf("point 5 at %.4f m: kept %v, want the ids 3, 1, 4, 2 in order", tc.sep5, keep)
		}
	}
	c.kept[0].IDs[2] = 7 // one of them gone
	var keep [4]int
	if c.keptOf(sel(0.004), &keep) {
		t.Errorf("kept points of which one is gone are kept")
	}
}
