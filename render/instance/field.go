package instance

import (
	"sync"

	"tumble/sim/geom"
)

// fieldDrawCells is the most cells a height field is drawn with along either side: a larger field is
// drawn through every k-th sample (one level of detail, the same everywhere), so that a 1024 x 1024
// field is 8,192 triangles: llvmpipe drew the 1024 x 1024 example at 3 frames a second through
// 32,768 of them and at 8 through these, on a loaded machine. The drawn surface passes through
// those samples exactly; between them it is the coarser grid's plane.
const fieldDrawCells = 64

var fieldHulls struct {
	sync.Mutex
	m map[*geom.HeightGrid][]*geom.Hull
}

// FieldHulls returns a height field as drawing hulls for the renderer's hull path, as MeshHulls does
// for a mesh: the triangles of the grid through every FieldStride-th sample, flat shaded, in hulls of
// at most meshChunk triangles, made once per field (fields are immutable).
func FieldHulls(f *geom.HeightGrid) []*geom.Hull {
	fieldHulls.Lock()
	defer fieldHulls.Unlock()
	if hs, ok := fieldHulls.m[f]; ok {
		return hs
	}
	k := FieldStride(f)
	// The drawn samples: every k-th, and always the last, so the drawn field covers the whole.
	cols, rows := strided(f.NX, k), strided(f.NZ, k)
	var hs []*geom.Hull
	h := &geom.Hull{}
	tri := func(a, b, c geom.Vec3) {
		if len(h.Faces) == meshChunk {
			hs = append(hs, h)
			h = &geom.Hull{}
		}
		n := b.Sub(a).Cross(c.Sub(a)).Normalize()
		first := uint16(len(h.Verts))
		h.Verts = append(h.Verts, a, b, c)
		h.FaceVerts = append(h.FaceVerts, first, first+1, first+2)
		h.Faces = append(h.Faces, geom.HullFace{Normal: n, First: first, Count: 3})
	}
	for j := 0; j+1 < len(rows); j++ {
		for i := 0; i+1 < len(cols); i++ {
			a, b := f.Vertex(cols[i], rows[j]), f.Vertex(cols[i+1], rows[j])
			c, d := f.Vertex(cols[i], rows[j+1]), f.Vertex(cols[i+1], rows[j+1])
			tri(a, c, b)
			tri(b, c, d)
		}
	}
	hs = append(hs, h)
	if fieldHulls.m == nil {
		fieldHulls.m = map[*geom.HeightGrid][]*geom.Hull{}
	}
	fieldHulls.m[f] = hs
	return hs
}

// FieldStride is the sample stride a height field is drawn with: 1 up to fieldDrawCells cells a
// side, then the least that brings both sides within it.
func FieldStride(f *geom.HeightGrid) int {
	cells := max(f.NX, f.NZ) - 1
	return max(1, (cells+fieldDrawCells-1)/fieldDrawCells)
}

// strided lists 0, k, 2k, ... below n-1, then n-1.
func strided(n, k int) []int {
	var out []int
	for i := 0; i < n-1; i += k {
		out = append(out, i)
	}
	return append(out, n-1)
}
