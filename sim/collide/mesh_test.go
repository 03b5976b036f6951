package collide

import (
	"math"
	"testing"

	"tumble/sim/geom"

	"github.com/go-gl/mathgl/mgl32"
)

// gridMesh is a flat square of side 2*half at y = 0 made of n x n cells, two triangles each, facing +y.
func gridMesh(t *testing.T, half float32, n int) *geom.Shape {
	t.Helper()
	m, err := geom.NewGridMesh(half, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &geom.Shape{Kind: geom.TriMesh, Mesh: m}
}

// A box sunk 1 cm into a flat mesh of many small triangles gets one manifold with the mesh's normal and
// four points at its corners, each 1 cm deep: the seams between triangles add no normal of their own.
func TestMeshBoxFlat(t *testing.T) {
	mesh := gridMesh(t, 5, 10)
	box := &geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.5, 0.5, 0.5}}
	for _, x := range []float32{0, 0.3, 0.5, 1.0} { // centred on a cell, on seams, on a vertex
		out := CollideMesh(mesh, geom.Identity, box, geom.Pose{P: geom.Vec3{x, 0.49, x}, Q: mgl32.QuatIdent()}, 0.02, nil)
		if len(out) != 1 {
			t.Fatalf("x=%v: %d manifolds, want 1: %+v", x, len(out), out)
		}
		m := out[0]
		if m.Normal.Sub(geom.Vec3{0, 1, 0}).Len() > 1e-5 || m.Count != 4 {
			t.Fatalf("x=%v: normal %v, %d points", x, m.Normal, m.Count)
		}
		for _, p := range m.Points[:m.Count] {
			if math.Abs(float64(p.Separation+0.01)) > 1e-5 {
				t.Errorf("x=%v: separation %v, want -0.01", x, p.Separation)
			}
			if d := max(abs32(p.Position[0]-x), abs32(p.Position[2]-x)); math.Abs(float64(d-0.5)) > 1e-4 {
				t.Errorf("x=%v: point %v is not at a corner", x, p.Position)
			}
		}
	}
	// Above the margin: nothing. Below the mesh (centre behind it): nothing, the mesh is one-sided.
	if out := CollideMesh(mesh, geom.Identity, box, geom.Pose{P: geom.Vec3{0, 0.53, 0}, Q: mgl32.QuatIdent()}, 0.02, nil); len(out) != 0 {
		t.Errorf("a box 3 cm above: %d manifolds", len(out))
	}
	if out := CollideMesh(mesh, geom.Identity, box, geom.Pose{P: geom.Vec3{0, -0.2, 0}, Q: mgl32.QuatIdent()}, 0.02, nil); len(out) != 0 {
		t.Errorf("a box under the mesh: %d manifolds", len(out))
	}
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

// A sphere touching a slope of 30 degrees gets the slope's normal and the separation along it; a
// capsule lying on the slope gets two points; a hull (a tetrahedron standing on its face) three.
func TestMeshSlope(t *testing.T) {
	mesh := gridMesh(t, 5, 4)
	q := mgl32.QuatRotate(math.Pi/6, mgl32.Vec3{0, 0, 1}) // the mesh turned 30 degrees about z
	pm := geom.Pose{P: geom.Vec3{0, 1, 0}, Q: q}
	n := q.Rotate(geom.Vec3{0, 1, 0})
	ball := &geom.Shape{Kind: geom.Sphere, Radius: 0.3}
	centre := pm.P.Add(n.Mul(0.29)).Add(q.Rotate(geom.Vec3{1.25, 0, 1.25})) // over a vertex of the grid
	out := CollideMesh(mesh, pm, ball, geom.Pose{P: centre, Q: mgl32.QuatIdent()}, 0.02, nil)
	if len(out) != 1 || out[0].Normal.Sub(n).Len() > 1e-5 {
		t.Fatalf("sphere: %+v, want one manifold along %v", out, n)
	}
	for _, p := range out[0].Points[:out[0].Count] {
		if math.Abs(float64(p.Separation+0.01)) > 1e-5 {
			t.Errorf("sphere: separation %v, want -0.01", p.Separation)
		}
	}
	capsule := &geom.Shape{Kind: geom.Capsule, Radius: 0.2, HalfHeight: 0.5}
	// Lying along the slope's x: local y of the capsule turned onto the mesh's x axis.
	qc := q.Mul(mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1}))
	out = CollideMesh(mesh, pm, capsule, geom.Pose{P: pm.P.Add(n.Mul(0.19)), Q: qc}, 0.02, nil)
	if len(out) != 1 || out[0].Count != 2 || out[0].Normal.Sub(n).Len() > 1e-5 {
		t.Fatalf("capsule: %+v", out)
	}
	for _, p := range out[0].Points[:2] {
		if math.Abs(float64(p.Separation+0.01)) > 1e-5 {
			t.Errorf("capsule: separation %v, want -0.01", p.Separation)
		}
	}
	tet, err := geom.NewHull([]geom.Vec3{{-0.5, 0, -0.5}, {0.5, 0, -0.5}, {0, 0, 0.5}, {0, 0.8, 0}})
	if err != nil {
		t.Fatal(err)
	}
	hull := &geom.Shape{Kind: geom.ConvexHull, Hull: tet}
	// Put the hull's base face (its lowest, y = -Centre.y in the given frame) 1 cm into the slope.
	rot := q.Mul(tet.Frame)
	base := q.Rotate(tet.Centre.Mul(-1)) // from the centre of mass to the given frame's origin
	pos := pm.P.Add(base.Mul(-1)).Add(n.Mul(-0.01))
	_ = base
	out = CollideMesh(mesh, pm, hull, geom.Pose{P: pos, Q: rot}, 0.02, nil)
	if len(out) != 1 || out[0].Count != 3 || out[0].Normal.Sub(n).Len() > 1e-4 {
		t.Fatalf("hull: %+v", out)
	}
	for _, p := range out[0].Points[:3] {
		if math.Abs(float64(p.Separation+0.01)) > 1e-4 {
			t.Errorf("hull: separation %v, want -0.01", p.Separation)
		}
	}
}

// A box standing on the crest of a roof (two faces folded 40 degrees) gets a manifold for each face,
// and the same ids from one call to the next.
func TestMeshRoofStableIDs(t *testing.T) {
	s := float32(math.Sin(20 * math.Pi / 180))
	c := float32(math.Cos(20 * math.Pi / 180))
	verts := []geom.Vec3{{-2 * c, -2 * s, -2}, {0, 0, -2}, {0, 0, 2}, {-2 * c, -2 * s, 2}, {2 * c, -2 * s, -2}, {2 * c, -2 * s, 2}}
	m, err := geom.NewMesh(verts, [][3]uint32{{0, 2, 1}, {0, 3, 2}, {1, 2, 5}, {1, 5, 4}})
	if err != nil {
		t.Fatal(err)
	}
	mesh := &geom.Shape{Kind: geom.TriMesh, Mesh: m}
	box := &geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.5, 0.5, 0.5}}
	pose := geom.Pose{P: geom.Vec3{0, 0.49, 0}, Q: mgl32.QuatIdent()}
	a := CollideMesh(mesh, geom.Identity, box, pose, 0.05, nil)
	b := CollideMesh(mesh, geom.Identity, box, pose, 0.05, nil)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d then %d manifolds", len(a), len(b))
	}
	for i := range a {
		if a[i].Normal[1] < 0.9 {
			t.Errorf("manifold %d: normal %v points sideways", i, a[i].Normal)
		}
		for k := 0; k < a[i].Count; k++ {
			if a[i].Points[k].ID != b[i].Points[k].ID {
				t.Errorf("manifold %d point %d: id %x then %x", i, k, a[i].Points[k].ID, b[i].Points[k].ID)
			}
		}
	}
}

// BenchmarkCollideMesh is one shape resting across the seams of a flat mesh of 0.25 m triangles (the
// BVH query, the triangles' tests and the merge): go test -run '^$' -bench CollideMesh ./sim/collide
func BenchmarkCollideMesh(b *testing.B) {
	t := &testing.T{}
	mesh := gridMesh(t, 5, 40)
	tet, _ := geom.NewHull([]geom.Vec3{{-0.3, 0, -0.3}, {0.3, 0, -0.3}, {0, 0, 0.3}, {0, 0.4, 0}, {0.1, 0.2, 0.2}, {-0.2, 0.1, 0.1}})
	shapes := map[string]*geom.Shape{
		"box":     {Kind: geom.Box, HalfExtents: geom.Vec3{0.3, 0.2, 0.25}},
		"sphere":  {Kind: geom.Sphere, Radius: 0.25},
		"capsule": {Kind: geom.Capsule, Radius: 0.2, HalfHeight: 0.3},
		"hull":    {Kind: geom.ConvexHull, Hull: tet},
	}
	for _, name := range []string{"box", "sphere", "capsule", "hull"} {
		s := shapes[name]
		pose := geom.Pose{P: geom.Vec3{0.1, 0.19, 0.05}, Q: mgl32.QuatRotate(0.3, mgl32.Vec3{0, 1, 0})}
		b.Run(name, func(b *testing.B) {
			var out []Manifold
			for b.Loop() {
				out = CollideMesh(mesh, geom.Identity, s, pose, 0.02, out[:0])
			}
		})
	}
}
