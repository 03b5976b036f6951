package geom

import (
	"errors"
	"math"
	"testing"
)

// lPrism is an L-shaped prism, concave: the unit square's column [0,1]x[1,2] on top of the slab
// [0,2]x[0,1], extruded from z = 0 to 1, as 20 triangles counter-clockwise from outside.
func lPrism() ([]Vec3, [][3]uint32) {
	poly := [][2]float32{{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}}
	var verts []Vec3
	for _, z := range []float32{0, 1} {
		for _, p := range poly {
			verts = append(verts, Vec3{p[0], p[1], z})
		}
	}
	var tris [][3]uint32
	for k := uint32(1); k+1 < 6; k++ {
		tris = append(tris, [3]uint32{6, 6 + k, 6 + k + 1}, [3]uint32{0, k + 1, k}) // top, bottom
	}
	for a := uint32(0); a < 6; a++ {
		b := (a + 1) % 6
		tris = append(tris, [3]uint32{a, b, b + 6}, [3]uint32{a, b + 6, a + 6})
	}
	return verts, tris
}

// A moving L-shaped mesh has the L's own mass properties, not its convex hull's: volume 3 (the hull's
// is 3.5), centre of mass (5/6, 5/6, 1/2), and per unit mass a moment of 11/18 about the z axis (the two
// boxes' own moments moved to the centre by the parallel-axis theorem) and a trace of 25/18.
func TestMeshHullMassIsTheMeshes(t *testing.T) {
	verts, tris := lPrism()
	h, err := NewMeshHull(verts, tris)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(h.Volume-3) > 1e-9 {
		t.Errorf("volume %v, want 3", h.Volume)
	}
	if h.Centre.Sub(Vec3{5.0 / 6, 5.0 / 6, 0.5}).Len() > 1e-6 {
		t.Errorf("centre %v, want (5/6, 5/6, 1/2)", h.Centre)
	}
	iz, tr := float32(-1), h.UnitInertia[0]+h.UnitInertia[1]+h.UnitInertia[2]
	for k := 0; k < 3; k++ {
		if math.Abs(float64(h.Frame.Rotate(axis(k))[2])) > 0.999 {
			iz = h.UnitInertia[k]
		}
	}
	if math.Abs(float64(iz)-11.0/18) > 1e-5 || math.Abs(float64(tr)-25.0/18) > 1e-5 {
		t.Errorf("moment about z %v (want 11/18), trace %v (want 25/18); moments %v", iz, tr, h.UnitInertia)
	}
	// The collision shape is the hull of the L: its 12 corners less the inner edge's two, in the principal
	// frame (every face plane holds its vertices, every vertex is inside every plane).
	if len(h.Verts) != 10 {
		t.Errorf("%d hull vertices, want 10 (the L's corners but its two inner ones)", len(h.Verts))
	}
	for fi, f := range h.Faces {
		for _, v := range h.Verts {
			if d := f.Normal.Dot(v) - f.Offset; d > 1e-5 {
				t.Errorf("face %d: a vertex %v above it", fi, d)
			}
		}
	}
}

func axis(k int) Vec3 { var v Vec3; v[k] = 1; return v }

// Open, inside-out and too large meshes cannot move.
func TestMeshHullRefuses(t *testing.T) {
	verts, tris := lPrism()
	if _, err := NewMeshHull(verts, tris[:len(tris)-1]); !errors.Is(err, ErrMeshOpen) {
		t.Errorf("open: %v", err)
	}
	flipped := make([][3]uint32, len(tris))
	for i, tr := range tris {
		flipped[i] = [3]uint32{tr[0], tr[2], tr[1]}
	}
	if _, err := NewMeshHull(verts, flipped); !errors.Is(err, ErrMeshInsideOut) {
		t.Errorf("inside out: %v", err)
	}
	many := append([]Vec3{}, verts...)
	for len(many) <= MaxHullPoints {
		many = append(many, Vec3{0.5, 0.5, 0.5})
	}
	if _, err := NewMeshHull(many, tris); !errors.Is(err, ErrHullTooMany) {
		t.Errorf("too many vertices: %v", err)
	}
	if _, err := NewMesh(verts, [][3]uint32{{0, 1, 1}}); !errors.Is(err, ErrMeshDegenerate) {
		t.Errorf("degenerate: %v", err)
	}
	if _, err := NewMesh(verts, [][3]uint32{{0, 1, 12}}); !errors.Is(err, ErrMeshIndex) {
		t.Errorf("index: %v", err)
	}
}

// A grid mesh covers its square exactly, faces up, and takes its heights from the function.
func TestNewGridMesh(t *testing.T) {
	m, err := NewGridMesh(2, 8, func(x, z float32) float32 { return 0.1 * x })
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Verts) != 81 || len(m.Tris) != 128 {
		t.Fatalf("%d vertices, %d triangles; want 81 and 128", len(m.Verts), len(m.Tris))
	}
	area := float32(0)
	for k, tri := range m.Tris {
		a, b, c := m.Verts[tri[0]], m.Verts[tri[1]], m.Verts[tri[2]]
		area += b.Sub(a).Cross(c.Sub(a)).Len() / 2
		if m.Normals[k][1] < 0.99 {
			t.Fatalf("triangle %d faces %v, want up", k, m.Normals[k])
		}
	}
	// A plane of slope 0.1 over a 4 m square: 16 sqrt(1.01) m^2.
	if want := 16 * float32(math.Sqrt(1.01)); math.Abs(float64(area-want)) > 1e-4 {
		t.Errorf("area %v, want %v", area, want)
	}
	if v := m.Verts[80]; v != (Vec3{2, 0.2, 2}) {
		t.Errorf("last vertex %v, want (2, 0.2, 2)", v)
	}
}
