package geom

import (
	"errors"
	"math"
	"math/rand"
	"reflect"
	"testing"
)

// boxMesh returns the 8 corners and 12 triangles (counter-clockwise from outside) of the box
// [-a, a] x [-b, b] x [-c, c] moved by off.
func boxMesh(a, b, c float32, off Vec3) ([]Vec3, [][3]int) {
	var v []Vec3
	for i := 0; i < 8; i++ {
		p := Vec3{-a, -b, -c}
		if i&1 != 0 {
			p[0] = a
		}
		if i&2 != 0 {
			p[1] = b
		}
		if i&4 != 0 {
			p[2] = c
		}
		v = append(v, p.Add(off))
	}
	quads := [][4]int{{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}}
	var t [][3]int
	for _, q := range quads {
		t = append(t, [3]int{q[0], q[1], q[2]}, [3]int{q[0], q[2], q[3]})
	}
	return v, t
}

// icosphere returns a sphere of radius r tessellated by subdividing an icosahedron n times, with every
// vertex on the sphere.
func icosphere(r float64, n int) ([]Vec3, [][3]int) {
	t := (1 + math.Sqrt(5)) / 2
	p := []v3{{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
		{t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}}
	f := [][3]int{{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4}, {11, 10, 2},
		{10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9}, {4, 9, 5}, {2, 4, 11},
		{6, 2, 10}, {8, 6, 7}, {9, 8, 1}}
	for i := range p {
		p[i] = p[i].unit()
	}
	for ; n > 0; n-- {
		mid := map[[2]int]int{}
		half := func(a, b int) int {
			if a > b {
				a, b = b, a
			}
			if m, ok := mid[[2]int{a, b}]; ok {
				return m
			}
			p = append(p, p[a].add(p[b]).unit())
			mid[[2]int{a, b}] = len(p) - 1
			return len(p) - 1
		}
		var g [][3]int
		for _, tr := range f {
			a, b, c := half(tr[0], tr[1]), half(tr[1], tr[2]), half(tr[2], tr[0])
			g = append(g, [3]int{tr[0], a, c}, [3]int{tr[1], b, a}, [3]int{tr[2], c, b}, [3]int{a, b, c})
		}
		f = g
	}
	out := make([]Vec3, len(p))
	for i := range p {
		out[i] = p[i].scale(r).f32()
	}
	return out, f
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestBoxOfTwelveTrianglesHasTheBoxInertia(t *testing.T) {
	a, b, c := float32(0.5), float32(1.5), float32(0.25)
	v, tr := boxMesh(a, b, c, Vec3{})
	if err := CheckClosedMesh(len(v), tr); err != nil {
		t.Fatal(err)
	}
	vol, cm, I := MeshMass(v, tr)
	x, y, z := 2*float64(a), 2*float64(b), 2*float64(c)
	if !near(vol, x*y*z, 1e-12) {
		t.Fatalf("volume %v, want %v", vol, x*y*z)
	}
	m := vol // unit density
	want := [3]float64{m * (y*y + z*z) / 12, m * (x*x + z*z) / 12, m * (x*x + y*y) / 12}
	for k := 0; k < 3; k++ {
		if !near(I[k][k], want[k], 1e-12) {
			t.Errorf("I[%d][%d] = %.15g, want m(b^2+c^2)/12 = %.15g", k, k, I[k][k], want[k])
		}
		for j := 0; j < 3; j++ {
			if j != k && math.Abs(I[k][j]) > 1e-12 {
				t.Errorf("I[%d][%d] = %g, want 0", k, j, I[k][j])
			}
		}
		if cm[k] != 0 {
			t.Errorf("centre %v, want origin", cm)
		}
	}
}

func TestOffsetBoxHasItsCentreOfMassAtItsCentre(t *testing.T) {
	off := Vec3{3, -2, 7.5}
	v, tr := boxMesh(1, 0.5, 0.25, off)
	vol, cm, I := MeshMass(v, tr)
	if !near(vol, 1, 1e-9) {
		t.Fatalf("volume %v, want 1", vol)
	}
	for k := 0; k < 3; k++ {
		if !near(float64(cm[k]), float64(off[k]), 1e-6) {
			t.Fatalf("centre %v, want %v", cm, off)
		}
	}
	// About the centre of mass, as if at the origin: (b^2+c^2)/12 with sides 2, 1, 0.5.
	if !near(I[0][0], (1+0.25)/12, 1e-9) || !near(I[1][1], (4+0.25)/12, 1e-9) || !near(I[2][2], (4+1)/12.0, 1e-9) {
		t.Fatalf("inertia diag %v %v %v", I[0][0], I[1][1], I[2][2])
	}
}

// A tessellated sphere with its vertices on the sphere contains the ball of radius rin (the smallest
// distance from the centre to a face's plane) and lies inside the ball of radius r. The integrals of 1
// and of y^2+z^2 are monotone in the region, so I/m lies in [2/5 rin^5/r^3, 2/5 r^5/rin^3]: that is the
// tessellation error bound the computed inertia must meet, and it must approach 2/5 r^2 as it refines.
func TestTessellatedSphereApproachesTwoFifthsMRSquared(t *testing.T) {
	r := 0.7
	prevErr := math.Inf(1)
	for n := 1; n <= 4; n++ {
		v, tr := icosphere(r, n)
		vol, _, I := MeshMass(v, tr)
		rin := math.Inf(1)
		for _, f := range tr {
			a, b, c := v3{float64(v[f[0]][0]), float64(v[f[0]][1]), float64(v[f[0]][2])},
				v3{float64(v[f[1]][0]), float64(v[f[1]][1]), float64(v[f[1]][2])},
				v3{float64(v[f[2]][0]), float64(v[f[2]][1]), float64(v[f[2]][2])}
			nn := b.sub(a).cross(c.sub(a)).unit()
			rin = math.Min(rin, nn.dot(a))
		}
		// float32 vertices sit within 1e-7 r of the sphere.
		rout := r * (1 + 1e-6)
		lo, hi := 0.4*math.Pow(rin, 5)/math.Pow(rout, 3), 0.4*math.Pow(rout, 5)/math.Pow(rin, 3)
		exact := 0.4 * r * r
		for k := 0; k < 3; k++ {
			u := I[k][k] / vol
			if u < lo || u > hi {
				t.Errorf("level %d: I/m = %.6g outside the tessellation bound [%.6g, %.6g]", n, u, lo, hi)
			}
		}
		e := math.Abs(I[0][0]/vol-exact) / exact
		if e >= prevErr {
			t.Errorf("level %d: relative error %.3g did not shrink from %.3g", n, e, prevErr)
		}
		prevErr = e
		t.Logf("level %d: %d triangles, I/m = %.6g (2/5 r^2 = %.6g, rel. err %.2g, bound [%.6g, %.6g])", n, len(tr), I[0][0]/vol, exact, e, lo, hi)
	}
	if prevErr > 0.01 {
		t.Errorf("finest sphere's inertia off by %.3g, want below 1%%", prevErr)
	}
}

func TestHullOfBoxCornersIsTheBox(t *testing.T) {
	v, _ := boxMesh(0.5, 1, 1.5, Vec3{1, 2, 3})
	// Interior points and points on faces are dropped.
	v = append(v, Vec3{1, 2, 3}, Vec3{1.2, 2.5, 3.1}, Vec3{1.5, 2, 3})
	h, err := NewHull(v)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Verts) != 8 || len(h.Faces) != 6 || len(h.Edges) != 12 {
		t.Fatalf("got %d verts, %d faces, %d edges; want 8, 6, 12", len(h.Verts), len(h.Faces), len(h.Edges))
	}
	if !near(h.Volume, 6, 1e-5) {
		t.Fatalf("volume %v, want 6", h.Volume)
	}
	want := Vec3{(4 + 9) / 12.0, (1 + 9) / 12.0, (1 + 4) / 12.0}
	for k := 0; k < 3; k++ {
		if !near(float64(h.UnitInertia[k]), float64(want[k]), 1e-5) || !near(float64(h.Centre[k]), float64([]float32{1, 2, 3}[k]), 1e-5) {
			t.Fatalf("unit inertia %v centre %v; want %v at (1,2,3)", h.UnitInertia, h.Centre, want)
		}
	}
	if q := h.Frame; q.W < 0.99999 {
		t.Fatalf("a box along its axes needs no turn, frame %v", q)
	}
	for _, f := range h.Faces {
		if f.Count != 4 || !near(float64(f.Normal.Len()), 1, 1e-6) {
			t.Fatalf("face %+v: want a quad with unit normal", f)
		}
	}
}

// A box turned by a known rotation: the hull's principal frame must turn it back, so the local vertices
// are again (+-a, +-b, +-c) and the moments are the box's.
func TestTurnedBoxHullFindsPrincipalAxes(t *testing.T) {
	v, _ := boxMesh(0.3, 0.6, 1.2, Vec3{})
	q := QuatRotate(0.7, Vec3{1, 2, 3}.Normalize())
	for i := range v {
		v[i] = q.Rotate(v[i]).Add(Vec3{5, 0, 0})
	}
	h, err := NewHull(v)
	if err != nil {
		t.Fatal(err)
	}
	x, y, z := 0.6, 1.2, 2.4
	moments := []float64{(y*y + z*z) / 12, (x*x + z*z) / 12, (x*x + y*y) / 12}
	got := []float64{float64(h.UnitInertia[0]), float64(h.UnitInertia[1]), float64(h.UnitInertia[2])}
	// Moments may come in any order; compare as sets.
	for _, w := range moments {
		found := false
		for _, g := range got {
			found = found || near(g, w, 1e-4)
		}
		if !found {
			t.Fatalf("moments %v, want %v in some order", got, moments)
		}
	}
	// Every local vertex on the box's surface: |coordinates| match the half extents in some order.
	for _, lv := range h.Verts {
		r := float64(lv.Len())
		if !near(r, math.Sqrt(0.09+0.36+1.44), 1e-4) {
			t.Fatalf("local vertex %v not a corner of the centred box", lv)
		}
	}
	// Given points are recovered: Centre + Frame * local.
	found := 0
	for _, lv := range h.Verts {
		g := h.Centre.Add(h.Frame.Rotate(lv))
		for _, p := range v {
			if g.Sub(p).Len() < 1e-4 {
				found++
				break
			}
		}
	}
	if found != 8 {
		t.Fatalf("%d of 8 corners recovered from the principal frame", found)
	}
}

func QuatRotate(angle float32, axis Vec3) Quat {
	s, c := math.Sincos(float64(angle) / 2)
	return Quat{W: float32(c), V: axis.Mul(float32(s))}
}

func TestHullOfSpherePointsIsClosedAndConvex(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 50; trial++ {
		n := 4 + rng.Intn(MaxHullPoints-4)
		pts := make([]Vec3, n)
		for i := range pts {
			pts[i] = Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}
			if trial%2 == 0 {
				pts[i] = pts[i].Normalize()
			}
		}
		h, err := NewHull(pts)
		if err != nil {
			t.Fatalf("trial %d (%d points): %v", trial, n, err)
		}
		// Every input point inside or on every face (in the principal frame).
		for _, p := range pts {
			l := h.Frame.Conjugate().Rotate(p.Sub(h.Centre))
			for fi, f := range h.Faces {
				if d := f.Normal.Dot(l) - f.Offset; d > 1e-4 {
					t.Fatalf("trial %d: point %v is %g outside face %d", trial, p, d, fi)
				}
			}
		}
		if len(h.Verts)-len(h.Edges)+len(h.Faces) != 2 {
			t.Fatalf("trial %d: Euler characteristic broken", trial)
		}
	}
}

func TestHullCubeOfManyCoplanarPointsMergesFaces(t *testing.T) {
	// A 5x5x5 grid of points: its hull is a cube, with the grid points on faces dropped or merged.
	var pts []Vec3
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			for k := 0; k < 5; k++ {
				pts = append(pts, Vec3{float32(i), float32(j), float32(k)}.Mul(0.25))
			}
		}
	}
	h, err := NewHull(pts)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Faces) != 6 {
		t.Fatalf("%d faces, want 6 merged quads", len(h.Faces))
	}
	if !near(h.Volume, 1, 1e-5) || !near(float64(h.UnitInertia[0]), 2.0/12, 1e-5) {
		t.Fatalf("volume %v, unit inertia %v", h.Volume, h.UnitInertia)
	}
}

func TestBadHullPointsAreRefused(t *testing.T) {
	many := make([]Vec3, MaxHullPoints+1)
	for i := range many {
		many[i] = Vec3{float32(i), float32(i * i % 7), float32(i % 5)}
	}
	for _, tc := range []struct {
		name string
		pts  []Vec3
		want error
	}{
		{"three points", []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, ErrHullTooFew},
		{"too many", many, ErrHullTooMany},
		{"NaN", []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, float32(math.NaN())}}, ErrHullNonFinite},
		{"infinite", []Vec3{{0, 0, 0}, {1, 0, 0}, {0, float32(math.Inf(1)), 0}, {0, 0, 1}}, ErrHullNonFinite},
		{"coincident", []Vec3{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, ErrHullDegenerate},
		{"collinear", []Vec3{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {-1, -1, -1}}, ErrHullDegenerate},
		{"coplanar", []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}, {0.5, 1e-7, 0.5}}, ErrHullDegenerate},
	} {
		_, err := NewHull(tc.pts)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
}

func TestOpenMeshIsRefusedByTheClosedCheck(t *testing.T) {
	v, tr := boxMesh(1, 1, 1, Vec3{})
	if err := CheckClosedMesh(len(v), tr[:11]); err == nil {
		t.Fatal("a box missing a triangle passed as closed")
	}
	flipped := append([][3]int{}, tr...)
	flipped[0] = [3]int{tr[0][0], tr[0][2], tr[0][1]}
	if err := CheckClosedMesh(len(v), flipped); err == nil {
		t.Fatal("a box with a flipped triangle passed as consistently oriented")
	}
}

// The hull's numbering must not depend on map order: the simulation is deterministic only if every
// build of the same points gives the same vertices, faces and edges.
func TestHullBuildIsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	pts := make([]Vec3, 60)
	for i := range pts {
		pts[i] = Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}
	}
	first, err := NewHull(pts)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 20; k++ {
		h, _ := NewHull(pts)
		if !reflect.DeepEqual(h, first) {
			t.Fatalf("build %d differs from the first", k)
		}
	}
}
