package geom

import (
	"math"
	"math/rand"
	"testing"
)

func testField(t *testing.T, n int, d float32, h func(x, z float32) float32) *HeightGrid {
	t.Helper()
	hs := make([]float32, n*n)
	x0 := -float32(n-1) * d / 2
	for j := range n {
		for i := range n {
			hs[j*n+i] = h(x0+float32(i)*d, x0+float32(j)*d)
		}
	}
	f, err := NewHeightField(n, n, d, d, hs)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Heights come back within half a quantisation step, (max - min)/131070, of what was given.
func TestHeightFieldQuantisesWithinHalfAStep(t *testing.T) {
	h := func(x, z float32) float32 { return 7 * float32(math.Sin(float64(x))*math.Cos(float64(0.7*z))) }
	f := testField(t, 33, 0.5, h)
	tol := float64(f.Step)/2 + 1e-6
	for j := range f.NZ {
		for i := range f.NX {
			v := f.Vertex(i, j)
			if e := math.Abs(float64(f.Height(i, j) - h(v[0], v[2]))); e > tol {
				t.Fatalf("sample (%d, %d): error %.3g m, more than half a step %.3g m", i, j, e, tol)
			}
		}
	}
	if f.Step > 14.0/65535*1.0001 {
		t.Errorf("step %.3g for a 14 m range", f.Step)
	}
}

// On a flat field only the border edges are active; a ridge's fold is active on both of its sides, a
// valley's (concave) fold on neither.
func TestHeightFieldActiveEdges(t *testing.T) {
	flat := testField(t, 5, 1, func(x, z float32) float32 { return 0 })
	for j := range 4 {
		for i := range 4 {
			want := uint8(0)
			if i == 0 {
				want |= 1
			}
			if j == 0 {
				want |= 4
			}
			if j == 3 {
				want |= 16
			}
			if i == 3 {
				want |= 32
			}
			if got := flat.Active[j*4+i]; got != want {
				t.Errorf("flat cell (%d, %d): active %06b, want %06b", i, j, got, want)
			}
		}
	}
	ridge := testField(t, 5, 1, func(x, z float32) float32 { return -float32(math.Abs(float64(x))) })
	valley := testField(t, 5, 1, func(x, z float32) float32 { return float32(math.Abs(float64(x))) })
	// The fold at x = 0 is the right side of cell column 1 (bit 5) and the left side of column 2 (bit 0).
	if ridge.Active[1*4+1]&32 == 0 || ridge.Active[1*4+2]&1 == 0 {
		t.Errorf("ridge fold inactive: %06b %06b", ridge.Active[5], ridge.Active[6])
	}
	if valley.Active[1*4+1]&32 != 0 || valley.Active[1*4+2]&1 != 0 {
		t.Errorf("valley fold active: %06b %06b", valley.Active[5], valley.Active[6])
	}
}

// HeightAt lies on the triangles: exact on a plane, and at the samples themselves.
func TestHeightFieldHeightAt(t *testing.T) {
	f := testField(t, 9, 0.5, func(x, z float32) float32 { return 0.3*x - 0.2*z + 1 })
	rng := rand.New(rand.NewSource(1))
	for range 200 {
		x, z := float32(rng.Float64()*4-2), float32(rng.Float64()*4-2)
		h, ok := f.HeightAt(x, z)
		if !ok || math.Abs(float64(h-(0.3*x-0.2*z+1))) > 1e-4 {
			t.Fatalf("HeightAt(%v, %v) = %v, %v; want %v", x, z, h, ok, 0.3*x-0.2*z+1)
		}
	}
	if _, ok := f.HeightAt(2.1, 0); ok {
		t.Error("HeightAt outside the field reported a height")
	}
}

// Raycast finds the same first hit as testing every triangle, for rays from all sides.
func TestHeightFieldRaycastMatchesBruteForce(t *testing.T) {
	f := testField(t, 17, 0.25, func(x, z float32) float32 {
		return 0.4 * float32(math.Sin(3*float64(x))*math.Sin(2*float64(z)))
	})
	rng := rand.New(rand.NewSource(2))
	hits := 0
	for range 500 {
		o := Vec3{float32(rng.Float64()*6 - 3), float32(rng.Float64()*3 - 1), float32(rng.Float64()*6 - 3)}
		d := Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}.Normalize()
		best := float32(math.Inf(1))
		for j := range f.NZ - 1 {
			for i := range f.NX - 1 {
				for k := range 2 {
					tr := f.Triangle(i, j, k)
					if s, ok := rayTriangle(tr[0], tr[1], tr[2], o, d); ok && s <= 10 {
						best = min(best, s)
					}
				}
			}
		}
		s, _, _, _, ok := f.Raycast(o, d, 10)
		if ok != !math.IsInf(float64(best), 1) || (ok && math.Abs(float64(s-best)) > 1e-4) {
			t.Fatalf("ray %v + t %v: Raycast %v %v, brute force %v", o, d, s, ok, best)
		}
		if ok {
			hits++
		}
	}
	if hits < 50 {
		t.Errorf("only %d of 500 rays hit: the test does not test much", hits)
	}
}

// Bad grids are refused: too few samples, a count that does not match, a non-finite height.
func TestHeightFieldRefusesBadGrids(t *testing.T) {
	if _, err := NewHeightField(1, 4, 1, 1, make([]float32, 4)); err == nil {
		t.Error("a 1 x 4 field was accepted")
	}
	if _, err := NewHeightField(3, 3, 1, 1, make([]float32, 8)); err == nil {
		t.Error("8 samples for a 3 x 3 grid were accepted")
	}
	if _, err := NewHeightField(2, 2, 1, 0, make([]float32, 4)); err == nil {
		t.Error("zero spacing was accepted")
	}
	if _, err := NewHeightField(2, 2, 1, 1, []float32{0, 1, float32(math.NaN()), 0}); err == nil {
		t.Error("a NaN height was accepted")
	}
}
