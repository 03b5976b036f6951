package instance

import (
	"maps"
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

// view returns the levels FieldView draws f with for camera c, and their triangles.
func view(f *geom.HeightGrid, c FieldCamera) ([]*FieldLevel, int) {
	var ls []*FieldLevel
	n := 0
	FieldView(f, c, func(l *FieldLevel) { ls, n = append(ls, l), n+len(l.Verts)/3 })
	return ls, n
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
	ls, _ := view(f, FieldCamera{Eye: p.Add(geom.Vec3{0, 1, 0})})
	verts := map[[2]int32]float32{} // the highest vertex over each sample: a skirt's foot is below its top
	for _, l := range ls {
		if len(l.Verts) > FieldLevelVerts(l.Stride) {
			t.Errorf("a level of stride %d has %d vertices, more than the %d a slot holds", l.Stride, len(l.Verts), FieldLevelVerts(l.Stride))
		}
		for _, fv := range l.Verts {
			v := fv.Pos
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

// The levels are the same while the view's chunks and their strides stay the same, so the renderer
// copies nothing to GL; a move across the field brings other levels.
func TestFieldViewKeepsItsLevelsWhileTheViewHolds(t *testing.T) {
	f := testField()
	c := FieldCamera{Eye: geom.Vec3{0, 8, 10}}
	a, _ := view(f, c)
	c.Eye[0] += 0.001
	b, _ := view(f, c)
	// The order of chunks as near as each other may change; the levels may not.
	if len(a) == 0 || !maps.Equal(set(a), set(b)) {
		t.Errorf("a 1 mm move gave other levels")
	}
	c.Eye = geom.Vec3{20, 3, 20}
	if d, _ := view(f, c); maps.Equal(set(a), set(d)) {
		t.Errorf("a move across the field kept the levels")
	}
}

func set(ls []*FieldLevel) map[*FieldLevel]bool {
	m := map[*FieldLevel]bool{}
	for _, l := range ls {
		m[l] = true
	}
	return m
}

// The levels come nearest the eye first: sorted by the distance from the eye to their chunk's box
// (its footprint over its samples' height range), found here from the level's own vertices.
func TestFieldViewDrawsNearestFirst(t *testing.T) {
	f := testField()
	ranges := chunkRanges(f)
	eye := geom.Vec3{3, 6, 12}
	ls, _ := view(f, FieldCamera{Eye: eye})
	if len(ls) < 100 {
		t.Fatalf("%d levels: want the whole field's 256 chunks", len(ls))
	}
	prev := -1.0
	for i, l := range ls {
		x, z := l.Verts[0].Pos[0], l.Verts[0].Pos[2]
		for _, v := range l.Verts {
			x, z = min(x, v.Pos[0]), min(z, v.Pos[2])
		}
		ci := int(math.Round(float64((x-f.X0)/f.DX))) / fieldChunkCells
		cj := int(math.Round(float64((z-f.Z0)/f.DZ))) / fieldChunkCells
		lo, hi := chunkBox(f, ci, cj, ranges[cj*chunks(f.NX)+ci])
		d := boxDist2(lo, hi, eye)
		if d < prev {
			t.Fatalf("level %d (chunk %d, %d) is %.2f m from the eye, after one at %.2f m", i, ci, cj, math.Sqrt(d), math.Sqrt(prev))
		}
		prev = d
	}
}

// A field whose neighbouring samples rise less steeply than the light climbs shades nothing on or
// above it, so it need not be drawn into the shadow map: rays from points just above its surface
// towards such a light meet no triangle of it, while under a light low enough for FieldShades to say
// it shades, some do.
func TestFieldShadesOnlyUnderALightLowerThanItsSlopes(t *testing.T) {
	f := testField()
	s := steepest(f)
	// The light's direction at a given climb over the horizontal direction (0.8, 0, 0.6).
	at := func(climb float32) geom.Vec3 { return geom.Vec3{0.8, climb, 0.6}.Normalize() }
	bound := 0.8*s[0] + 0.6*s[1] // the climb FieldShades needs the light to beat
	if FieldShades(f, at(bound*1.05)) || !FieldShades(f, at(bound*0.95)) || !FieldShades(f, geom.Vec3{0, -1, 0}) {
		t.Fatalf("steepest rises %v: FieldShades does not switch at a climb of %v", s, bound)
	}
	if FieldShades(f, geom.Vec3{-0.55, 0.75, 0.35}.Normalize()) {
		t.Errorf("gentle hills (steepest rises %v) shade under the renderer's light", s)
	}
	shaded := func(light geom.Vec3) int {
		n := 0
		for j := 8; j < f.NZ; j += 32 {
			for i := 8; i < f.NX; i += 32 {
				p := f.Vertex(i, j).Add(geom.Vec3{0, 1e-3, 0})
				if _, _, _, _, hit := f.Raycast(p, light, 200); hit {
					n++
				}
			}
		}
		return n
	}
	if n := shaded(at(bound * 1.05)); n != 0 {
		t.Errorf("a light climbing %v, above the bound %v: %d points shaded", bound*1.05, bound, n)
	}
	if n := shaded(at(bound * 0.2)); n == 0 {
		t.Errorf("a light climbing %v, well under the bound %v: no point shaded (the check sees no shadow)", bound*0.2, bound)
	}
}

// The field's sides (the skirts along its border) facing away from the light take the normal
// -light, which the shaders light as in shadow; the sides facing it, and the skirts inside the
// field, the normal up.
func TestFieldSidesAwayFromTheLightAreShadowed(t *testing.T) {
	f := testField()
	light := geom.Vec3{-0.55, 0.75, 0.35}.Normalize() // from -x and +z: the +x and -z sides face away
	ls, _ := view(f, FieldCamera{Eye: geom.Vec3{0, 30, 0}, Light: light})
	xmax, zmin := f.X0+float32(f.NX-1)*f.DX, f.Z0
	dark, lit := 0, 0
	for _, l := range ls {
		for k := 0; k < len(l.Verts); k += 3 {
			v := l.Verts[k : k+3]
			n := v[0].Normal
			onX, onZ := true, true // all three vertices on the +x side, or on the -z side
			for _, p := range v {
				onX = onX && p.Pos[0] == xmax
				onZ = onZ && p.Pos[2] == zmin
			}
			switch {
			case onX || onZ:
				if n != light.Mul(-1) {
					t.Fatalf("a skirt triangle on the side facing away from the light has normal %v", n)
				}
				dark++
			case n == light.Mul(-1):
				t.Fatalf("a triangle at %v, off the sides facing away, has the shadow's normal", v[0].Pos)
			case n == (geom.Vec3{0, 1, 0}):
				lit++
			}
		}
	}
	if dark == 0 || lit == 0 {
		t.Errorf("%d side triangles in shadow, %d skirt or level triangles lit: want some of each", dark, lit)
	}
}
