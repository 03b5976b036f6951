package instance

import (
	"math"
	"slices"
	"sync"

	"tumble/sim/geom"
)

// A height field is drawn in square chunks of fieldChunkCells cells, each at a level of detail chosen
// from its distance to the eye: a chunk d metres away is drawn through every s-th sample, s the
// largest power of two with s DX <= fieldDetail d, so a drawn cell subtends at most about fieldDetail
// radians wherever it is (a few pixels), and the chunks near the eye are drawn at the field's full
// resolution. The triangles per chunk then shrink as the square of the distance, so the whole field
// costs about as much as the few chunks around the eye: a 1024 x 1024 field seen from inside is some
// tens of thousands of triangles instead of two million. Where two chunks of different strides meet,
// the coarser edge leaves slivers; each chunk hangs a skirt from its edges (vertical quads down by its
// height range), which fills them. A chunk's level is made when first drawn and dropped once it has
// not been asked for in fieldKeepCalls views, so flying over the field keeps memory to what is near;
// the chunks in view are drawn merged, in as few hulls as hold them.

// fieldChunkCells is the side of a drawn chunk, in cells: 16 x 16 chunks for a 1024 x 1024 field,
// one instanced draw call each.
const fieldChunkCells = 64

// fieldDetail is the most a drawn cell may subtend from the eye, radians.
const fieldDetail = 1.0 / 12

// fieldKeepCalls is how many FieldView calls a chunk level is kept without being drawn.
const fieldKeepCalls = 600

// fieldTri is a drawn triangle, counter-clockwise seen from its normal's side, and its normal.
type fieldTri struct {
	v [3]geom.Vec3
	n geom.Vec3
}

type chunkKey struct{ ci, cj, step int }

type chunkLevel struct {
	tris []fieldTri
	used uint64
}

// fieldState is what FieldView keeps of a field between calls: each chunk's height range, the chunk
// levels made, and the last view's chunks with their triangles merged into a few hulls. The merged
// hulls are the same pointers while the view's chunks and levels stay the same, so the renderer keeps
// their buffers; llvmpipe spent more on a draw call per chunk (some 70 in view) than on the
// triangles themselves.
type fieldState struct {
	ranges [][2]float32
	levels map[chunkKey]*chunkLevel
	shown  []chunkKey
	merged []*geom.Hull
	used   uint64
}

var fieldViews struct {
	sync.Mutex
	m     map[*geom.HeightGrid]*fieldState
	calls uint64
}

// FieldCamera is what FieldView needs of a camera, in the field's frame: the eye, the unit view
// direction and the half-angle of a cone about it that holds the view (radians; 0: draw every chunk).
type FieldCamera struct {
	Eye, Look geom.Vec3
	Cone      float32
}

// FieldView calls hull with the drawing hulls (flat-shaded triangles, for the renderer's hull path) of
// height field f seen by camera c: each chunk that reaches into c's view cone, at the stride its
// distance from the eye calls for (strideAt), with its skirts, merged into as few hulls as hold them.
// A chunk out of view casts no shadow into it, a loss only where a hill behind the eye would shade
// the ground in front.
func FieldView(f *geom.HeightGrid, c FieldCamera, hull func(h *geom.Hull)) {
	fieldViews.Lock()
	defer fieldViews.Unlock()
	fieldViews.calls++
	now := fieldViews.calls
	if fieldViews.m == nil {
		fieldViews.m = map[*geom.HeightGrid]*fieldState{}
	}
	st := fieldViews.m[f]
	if st == nil {
		st = &fieldState{ranges: chunkRanges(f), levels: map[chunkKey]*chunkLevel{}}
		fieldViews.m[f] = st
	}
	st.used = now
	cx, cz := chunks(f.NX), chunks(f.NZ)
	var shown []chunkKey
	for cj := range cz {
		for ci := range cx {
			lo, hi := chunkBox(f, ci, cj, st.ranges[cj*cx+ci])
			if c.Cone > 0 && !boxInView(lo, hi, &c) {
				continue
			}
			shown = append(shown, chunkKey{ci, cj, strideAt(f, lo, hi, c.Eye)})
		}
	}
	if !slices.Equal(shown, st.shown) {
		var b hullBuilder
		for _, k := range shown {
			l, ok := st.levels[k]
			if !ok {
				l = &chunkLevel{tris: chunkTris(f, k.ci, k.cj, k.step, st.ranges[k.cj*cx+k.ci])}
				st.levels[k] = l
			}
			for i := range l.tris {
				b.add(&l.tris[i])
			}
		}
		st.shown, st.merged = shown, b.done()
	}
	for _, k := range shown {
		st.levels[k].used = now
	}
	for _, h := range st.merged {
		hull(h)
	}
	if now%60 == 0 {
		for g, s := range fieldViews.m {
			if now-s.used > fieldKeepCalls {
				delete(fieldViews.m, g) // a field no longer drawn (another scene)
				continue
			}
			for k, l := range s.levels {
				if now-l.used > fieldKeepCalls {
					delete(s.levels, k)
				}
			}
		}
	}
}

// hullBuilder collects triangles into hulls of at most meshChunk faces.
type hullBuilder struct {
	hs []*geom.Hull
	h  *geom.Hull
}

func (b *hullBuilder) add(t *fieldTri) {
	if b.h == nil || len(b.h.Faces) == meshChunk {
		b.h = &geom.Hull{}
		b.hs = append(b.hs, b.h)
	}
	h := b.h
	first := uint16(len(h.Verts))
	h.Verts = append(h.Verts, t.v[0], t.v[1], t.v[2])
	h.FaceVerts = append(h.FaceVerts, first, first+1, first+2)
	h.Faces = append(h.Faces, geom.HullFace{Normal: t.n, First: first, Count: 3})
}

func (b *hullBuilder) done() []*geom.Hull { return b.hs }

// chunkRanges is each chunk's lowest and highest sample, chunk (ci, cj) at cj chunks(NX) + ci.
func chunkRanges(f *geom.HeightGrid) [][2]float32 {
	cx, cz := chunks(f.NX), chunks(f.NZ)
	out := make([][2]float32, cx*cz)
	for cj := range cz {
		j0, j1 := chunkSpan(cj, f.NZ)
		for ci := range cx {
			i0, i1 := chunkSpan(ci, f.NX)
			lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
			for j := j0; j <= j1; j++ {
				for i := i0; i <= i1; i++ {
					h := f.Height(i, j)
					lo, hi = min(lo, h), max(hi, h)
				}
			}
			out[cj*cx+ci] = [2]float32{lo, hi}
		}
	}
	return out
}

// boxInView reports whether the bounding sphere of the box [lo, hi] meets c's view cone: the angle
// between the view direction and the sphere's centre, less the angle the sphere subtends, is within
// the cone.
func boxInView(lo, hi geom.Vec3, c *FieldCamera) bool {
	centre, r := lo.Add(hi).Mul(0.5), float64(hi.Sub(lo).Len()/2)
	v := centre.Sub(c.Eye)
	d := float64(v.Len())
	if d <= r {
		return true
	}
	cos := math.Max(-1, math.Min(1, float64(v.Dot(c.Look))/d))
	return math.Acos(cos)-math.Asin(r/d) <= float64(c.Cone)
}

// chunkBox is chunk (ci, cj)'s footprint over its height range y.
func chunkBox(f *geom.HeightGrid, ci, cj int, y [2]float32) (lo, hi geom.Vec3) {
	i0, i1 := chunkSpan(ci, f.NX)
	j0, j1 := chunkSpan(cj, f.NZ)
	return geom.Vec3{f.X0 + float32(i0)*f.DX, y[0], f.Z0 + float32(j0)*f.DZ},
		geom.Vec3{f.X0 + float32(i1)*f.DX, y[1], f.Z0 + float32(j1)*f.DZ}
}

// chunks is the number of chunks along a side of n samples.
func chunks(n int) int { return (n - 1 + fieldChunkCells - 1) / fieldChunkCells }

// chunkSpan is chunk c's samples along a side of n: [c fieldChunkCells, min(that + fieldChunkCells, n-1)].
func chunkSpan(c, n int) (int, int) {
	return c * fieldChunkCells, min((c+1)*fieldChunkCells, n-1)
}

// strideAt is the sample stride a chunk of f with box [lo, hi] is drawn with from eye: the largest
// power of two s, at most the chunk's side, with s DX <= fieldDetail d, d the distance from eye to
// the box.
func strideAt(f *geom.HeightGrid, lo, hi, eye geom.Vec3) int {
	var d2 float64
	for k := range 3 {
		g := float64(max(lo[k]-eye[k], eye[k]-hi[k], 0))
		d2 += g * g
	}
	cell := float64(max(f.DX, f.DZ))
	s := 1
	for 2*float64(s)*cell <= fieldDetail*math.Sqrt(d2) && 2*s <= fieldChunkCells {
		s *= 2
	}
	return s
}

// chunkTris is chunk (ci, cj) of f, its samples' height range y, through every step-th sample of it
// (and always its last), with a skirt along each of its four edges.
func chunkTris(f *geom.HeightGrid, ci, cj, step int, y [2]float32) []fieldTri {
	i0, i1 := chunkSpan(ci, f.NX)
	j0, j1 := chunkSpan(cj, f.NZ)
	cols, rows := strided(i0, i1, step), strided(j0, j1, step)
	// A coarser neighbour's edge departs from this one's by at most the chunk's height range.
	drop := geom.Vec3{0, y[1] - y[0] + min(f.DX, f.DZ), 0}
	out := make([]fieldTri, 0, 2*(len(cols)-1)*(len(rows)-1)+4*(len(cols)+len(rows)))
	tri := func(a, b, c geom.Vec3) {
		out = append(out, fieldTri{[3]geom.Vec3{a, b, c}, b.Sub(a).Cross(c.Sub(a)).Normalize()})
	}
	for j := 0; j+1 < len(rows); j++ {
		for i := 0; i+1 < len(cols); i++ {
			a, b := f.Vertex(cols[i], rows[j]), f.Vertex(cols[i+1], rows[j])
			c, d := f.Vertex(cols[i], rows[j+1]), f.Vertex(cols[i+1], rows[j+1])
			tri(a, c, b)
			tri(b, c, d)
		}
	}
	// The skirts: along the near and far rows, the left and right columns. They are seen only through
	// the slivers between chunks, so they are lit as level ground: a sliver then shows the terrain's
	// shade instead of a dark seam.
	up := geom.Vec3{0, 1, 0}
	skirt := func(a, b geom.Vec3) {
		out = append(out, fieldTri{[3]geom.Vec3{a, b.Sub(drop), b}, up}, fieldTri{[3]geom.Vec3{a, a.Sub(drop), b.Sub(drop)}, up})
	}
	last, lastRow := len(cols)-1, len(rows)-1
	for i := 0; i < last; i++ {
		skirt(f.Vertex(cols[i+1], rows[0]), f.Vertex(cols[i], rows[0]))
		skirt(f.Vertex(cols[i], rows[lastRow]), f.Vertex(cols[i+1], rows[lastRow]))
	}
	for j := 0; j < lastRow; j++ {
		skirt(f.Vertex(cols[0], rows[j]), f.Vertex(cols[0], rows[j+1]))
		skirt(f.Vertex(cols[last], rows[j+1]), f.Vertex(cols[last], rows[j]))
	}
	return out
}

// strided lists a, a+k, a+2k, ... below b, then b.
func strided(a, b, k int) []int {
	var out []int
	for i := a; i < b; i += k {
		out = append(out, i)
	}
	return append(out, b)
}
