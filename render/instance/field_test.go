package instance

import (
	"math"
	"sync"
	"testing"

	"tumble/sim/geom"
)

// testField is a 1025 x 1025 field of gentle hills, 0.0625 m apart (64 m across): the example's size.
var testField = sync.OnceValue(func() *geom.HeightGrid {
	const n = 1025
	hs := make([]float32, n*n)
	for j := range n {
		for i := range n {
			x, z := float64(i)*0.0625-32, float64(j)*0.0625-32
			hs[j*n+i] = float32(2 + 1.5*math.Sin(0.16*x)*math.Cos(0.13*z) + 0.2*math.Sin(1.1*x))
		}
	}
	f, err := geom.NewHeightField(n, n, 0.0625, 0.0625, hs)
	if err != nil {
		panic(err)
	}
	return f
})

// view returns the hulls FieldView draws f with for camera c, and their triangles.
func view(f *geom.HeightGrid, c FieldCamera) ([]*geom.Hull, int) {
	var hs []*geom.Hull
	n := 0
	FieldView(f, c, func(h *geom.Hull) { hs, n = append(hs, h), n+len(h.Faces) })
	return hs, n
}

// A 1024 x 1024 field (two million triangles at full resolution) is drawn in at most a few tens of
// thousands from eyes near it, above it and outside it, and in under half of them when only the
// chunks in view are drawn; the
// ground under an eye a metre up is drawn at full resolution: every sample of the chunk under it is a
// vertex of the drawn triangles, at its height.
func TestFieldViewDrawsDetailNearTheEye(t *testing.T) {
	f := testField()
	for _, c := range []struct {
		eye  geom.Vec3
		most int
	}{{geom.Vec3{0, 8, 10}, 25000}, {geom.Vec3{0, 4, 0}, 50000}, {geom.Vec3{0, 40, 0}, 8000}, {geom.Vec3{100, 10, 100}, 4000}} {
		_, n := view(f, FieldCamera{Eye: c.eye})
		t.Logf("eye %v: %d triangles", c.eye, n)
		if n > c.most {
			t.Errorf("eye %v: %d triangles, want at most %d", c.eye, n, c.most)
		}
	}
	eye := geom.Vec3{0, 8, 10}
	_, all := view(f, FieldCamera{Eye: eye})
	_, seen := view(f, FieldCamera{Eye: eye, Look: eye.Mul(-1).Normalize(), Cone: 0.6})
	t.Logf("eye %v looking at the centre, a 0.6 rad cone: %d triangles of %d", eye, seen, all)
	if seen > all/2 {
		t.Errorf("%d triangles drawn in view, %d in all: the view cone culled too little", seen, all)
	}

	// Under an eye 1 m above sample (520, 530): all samples of its chunk are vertices.
	const si, sj = 520, 530
	p := f.Vertex(si, sj)
	hs, _ := view(f, FieldCamera{Eye: p.Add(geom.Vec3{0, 1, 0})})
	verts := map[[2]int32]float32{} // the highest vertex over each sample: a skirt's foot is below its top
	for _, h := range hs {
		for _, v := range h.Verts {
			k := [2]int32{int32(math.Round(float64((v[0] - f.X0) / f.DX))), int32(math.Round(float64((v[2] - f.Z0) / f.DZ)))}
			if y, ok := verts[k]; !ok || v[1] > y {
				verts[k] = v[1]
			}
		}
	}
	i0, j0 := si/fieldChunkCells*fieldChunkCells, sj/fieldChunkCells*fieldChunkCells
	for j := j0; j <= j0+fieldChunkCells; j++ {
		for i := i0; i <= i0+fieldChunkCells; i++ {
			y, ok := verts[[2]int32{int32(i), int32(j)}]
			if !ok || math.Abs(float64(y-f.Height(i, j))) > 1e-6 {
				t.Fatalf("sample (%d, %d) at %v is not drawn (drawn at %v, %v)", i, j, f.Height(i, j), y, ok)
			}
		}
	}
}

// The merged hulls are the same while the view's chunks and their levels stay the same, so the
// renderer keeps their buffers; a move that changes a level makes new ones.
func TestFieldViewKeepsItsHullsWhileTheViewHolds(t *testing.T) {
	f := testField()
	c := FieldCamera{Eye: geom.Vec3{0, 8, 10}}
	a, _ := view(f, c)
	c.Eye[0] += 0.001
	b, _ := view(f, c)
	if len(a) == 0 || len(a) != len(b) || a[0] != b[0] {
		t.Errorf("a 1 mm move gave new hulls")
	}
	c.Eye = geom.Vec3{20, 3, 20}
	if d, _ := view(f, c); d[0] == a[0] {
		t.Errorf("a move across the field kept the hulls")
	}
}
