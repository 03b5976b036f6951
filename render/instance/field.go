package instance

import (
	"cmp"
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
// not been asked for in fieldKeepCalls views, so flying over the field keeps memory to what is near.
// A level never changes once made: the renderer copies it to GL once and, while the eye moves, only
// the list of levels it draws changes (and the new levels a move brings are copied).

// fieldChunkCells is the side of a drawn chunk, in cells: 16 x 16 chunks for a 1024 x 1024 field.
const fieldChunkCells = 64

// FieldStrides is the number of strides a chunk can be drawn at: 1, 2, 4, ... fieldChunkCells.
const FieldStrides = 7

// fieldDetail is the most a drawn cell may subtend from the eye, radians.
const fieldDetail = 1.0 / 12

// fieldKeepCalls is how many FieldView calls a chunk level is kept without being drawn.
const fieldKeepCalls = 600

// FieldVertex is a vertex of a drawn height field, in the field's frame: flat shaded, so each
// triangle has three of its own, each with the triangle's unit normal.
type FieldVertex struct {
	Pos, Normal geom.Vec3
}

// FieldLevel is one chunk of a height field drawn at one stride: its triangles, three vertices each,
// counter-clockwise seen from their normal's side. Verts never change once the level is made, so
// the pointer names the contents (the renderer keys its GL copy on it).
type FieldLevel struct {
	Verts []FieldVertex
	// Stride is the sample stride the chunk is drawn at (a power of two, at most the chunk's side):
	// a full chunk holds at most FieldLevelVerts(Stride) vertices.
	Stride int
	used   uint64
}

// FieldLevelVerts is the most vertices a level of stride s holds: a full chunk's two triangles per
// drawn cell and its skirts' two per drawn edge segment, four edges.
func FieldLevelVerts(s int) int {
	n := fieldChunkCells / s
	return 3 * (2*n*n + 4*2*n)
}

type chunkKey struct{ ci, cj, step int }

// fieldState is what FieldView keeps of a field between calls: each chunk's height range, the
// steepest rise between neighbouring samples along x and along z (per metre), and the chunk levels
// made.
type fieldState struct {
	ranges [][2]float32
	slope  [2]float32
	light  geom.Vec3 // the light the levels' sides were made for
	levels map[chunkKey]*FieldLevel
	used   uint64
}

var fieldViews struct {
	sync.Mutex
	m     map[*geom.HeightGrid]*fieldState
	calls uint64
}

// FieldCamera is what FieldView needs of a camera, in the field's frame: the eye, the unit view
// direction and the half-angle of a cone about it that holds the view (radians; 0: draw every chunk),
// and the unit direction towards the light, which shades the field's sides (zero: lit as its top).
type FieldCamera struct {
	Eye, Look geom.Vec3
	Cone      float32
	Light     geom.Vec3
}

// FieldView calls draw with the levels that draw height field f seen by camera c, nearest the eye
// first (so that a depth test rejects most of the terrain hidden behind nearer terrain before it is
// shaded): each chunk that reaches into c's view cone, at the stride its distance from the eye calls
// for (strideAt), with its skirts. A chunk out of view casts no shadow into it, a loss only where a
// hill behind the eye would shade the ground in front.
func FieldView(f *geom.HeightGrid, c FieldCamera, draw func(l *FieldLevel)) {
	fieldViews.Lock()
	defer fieldViews.Unlock()
	fieldViews.calls++
	now := fieldViews.calls
	st := fieldStateOf(f)
	st.used = now
	if c.Light != st.light { // the sides' normals follow the light: levels made under another are dropped
		st.light, st.levels = c.Light, map[chunkKey]*FieldLevel{}
	}
	type shown struct {
		k  chunkKey
		d2 float64
	}
	var in []shown
	cx, cz := chunks(f.NX), chunks(f.NZ)
	for cj := range cz {
		for ci := range cx {
			lo, hi := chunkBox(f, ci, cj, st.ranges[cj*cx+ci])
			if c.Cone > 0 && !boxInView(lo, hi, &c) {
				continue
			}
			d2 := boxDist2(lo, hi, c.Eye)
			in = append(in, shown{chunkKey{ci, cj, strideAt(f, d2)}, d2})
		}
	}
	slices.SortStableFunc(in, func(a, b shown) int { return cmp.Compare(a.d2, b.d2) })
	for _, s := range in {
		l, ok := st.levels[s.k]
		if !ok {
			l = &FieldLevel{Verts: chunkVerts(f, s.k.ci, s.k.cj, s.k.step, st.ranges[s.k.cj*cx+s.k.ci], c.Light), Stride: s.k.step}
			st.levels[s.k] = l
		}
		l.used = now
		draw(l)
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

// fieldStateOf is f's state, made on first use (fieldViews locked).
func fieldStateOf(f *geom.HeightGrid) *fieldState {
	if fieldViews.m == nil {
		fieldViews.m = map[*geom.HeightGrid]*fieldState{}
	}
	st := fieldViews.m[f]
	if st == nil {
		st = &fieldState{ranges: chunkRanges(f), slope: steepest(f), levels: map[chunkKey]*FieldLevel{}, used: fieldViews.calls}
		fieldViews.m[f] = st
	}
	return st
}

// FieldShades reports whether height field f, lit from the unit direction light (towards the light,
// in f's frame), can shade anything on or above its drawn surface, so that it must be drawn into the
// shadow map. Every drawn triangle, at any stride, rises along x by the mean of neighbouring samples'
// rises along a row, and along z likewise: its rise a metre along the light's horizontal direction u
// is at most Sx |ux| + Sz |uz|, Sx and Sz the steepest rises between neighbours. When that is below
// the light's own climb, Ly / |Lxz|, a ray from any point on or above the ground towards the light
// climbs faster than the ground under it and meets none of it. The field's own sides, below its
// border, are the ground's shadow where they face away from the light; FieldView gives them a
// normal that lights them so without the map. Left out: the skirts under the edges between chunks
// of different strides, which stand at most the sliver they fill above the finer chunk's edge, and
// could shade only a line that narrow along it.
func FieldShades(f *geom.HeightGrid, light geom.Vec3) bool {
	fieldViews.Lock()
	s := fieldStateOf(f).slope
	fieldViews.Unlock()
	return s[0]*abs32(light[0])+s[1]*abs32(light[2]) >= light[1]
}

func abs32(x float32) float32 { return max(x, -x) }

// steepest is the steepest rise between neighbouring samples of f along x and along z, per metre.
func steepest(f *geom.HeightGrid) [2]float32 {
	var qx, qz int
	for j := range f.NZ {
		row := f.Q[j*f.NX : (j+1)*f.NX]
		for i := 1; i < f.NX; i++ {
			qx = max(qx, absInt(int(row[i])-int(row[i-1])))
		}
		if j > 0 {
			prev := f.Q[(j-1)*f.NX : j*f.NX]
			for i := range f.NX {
				qz = max(qz, absInt(int(row[i])-int(prev[i])))
			}
		}
	}
	return [2]float32{float32(qx) * f.Step / f.DX, float32(qz) * f.Step / f.DZ}
}

func absInt(x int) int { return max(x, -x) }

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

// boxDist2 is the squared distance from eye to the box [lo, hi] (0 inside it).
func boxDist2(lo, hi, eye geom.Vec3) float64 {
	var d2 float64
	for k := range 3 {
		g := float64(max(lo[k]-eye[k], eye[k]-hi[k], 0))
		d2 += g * g
	}
	return d2
}

// strideAt is the sample stride a chunk of f is drawn with from d2 squared metres away: the largest
// power of two s, at most the chunk's side, with s DX <= fieldDetail d.
func strideAt(f *geom.HeightGrid, d2 float64) int {
	cell := float64(max(f.DX, f.DZ))
	s := 1
	for 2*float64(s)*cell <= fieldDetail*math.Sqrt(d2) && 2*s <= fieldChunkCells {
		s *= 2
	}
	return s
}

// chunkVerts is chunk (ci, cj) of f, its samples' height range y, through every step-th sample of it
// (and always its last), with a skirt along each of its four edges: three vertices a triangle. light
// is the unit direction towards the light (zero: none), for the field's sides.
func chunkVerts(f *geom.HeightGrid, ci, cj, step int, y [2]float32, light geom.Vec3) []FieldVertex {
	i0, i1 := chunkSpan(ci, f.NX)
	j0, j1 := chunkSpan(cj, f.NZ)
	cols, rows := strided(i0, i1, step), strided(j0, j1, step)
	// A coarser neighbour's edge departs from this one's by at most the chunk's height range.
	drop := geom.Vec3{0, y[1] - y[0] + min(f.DX, f.DZ), 0}
	out := make([]FieldVertex, 0, 3*(2*(len(cols)-1)*(len(rows)-1)+4*(len(cols)+len(rows))))
	tri3 := func(a, b, c, n geom.Vec3) {
		out = append(out, FieldVertex{a, n}, FieldVertex{b, n}, FieldVertex{c, n})
	}
	tri := func(a, b, c geom.Vec3) { tri3(a, b, c, b.Sub(a).Cross(c.Sub(a)).Normalize()) }
	for j := 0; j+1 < len(rows); j++ {
		for i := 0; i+1 < len(cols); i++ {
			a, b := f.Vertex(cols[i], rows[j]), f.Vertex(cols[i+1], rows[j])
			c, d := f.Vertex(cols[i], rows[j+1]), f.Vertex(cols[i+1], rows[j+1])
			tri(a, c, b)
			tri(b, c, d)
		}
	}
	// The skirts: along the near and far rows, the left and right columns. Inside the field they are
	// seen only through the slivers between chunks, so they are lit as level ground: a sliver then
	// shows the terrain's shade instead of a dark seam. Along the field's border they are its sides,
	// seen from outside: a side facing away from the light lies under the ground the light crosses
	// to reach it, in shadow, and takes the normal -light, which the shaders light as in shadow (no
	// diffuse, no highlight) whether or not the field is in the shadow map.
	up := geom.Vec3{0, 1, 0}
	side := func(border bool, out geom.Vec3) geom.Vec3 {
		if border && out.Dot(light) < 0 {
			return light.Mul(-1)
		}
		return up
	}
	skirt := func(a, b, n geom.Vec3) {
		tri3(a, b.Sub(drop), b, n)
		tri3(a, a.Sub(drop), b.Sub(drop), n)
	}
	last, lastRow := len(cols)-1, len(rows)-1
	near, far := side(rows[0] == 0, geom.Vec3{0, 0, -1}), side(rows[lastRow] == f.NZ-1, geom.Vec3{0, 0, 1})
	left, right := side(cols[0] == 0, geom.Vec3{-1, 0, 0}), side(cols[last] == f.NX-1, geom.Vec3{1, 0, 0})
	for i := 0; i < last; i++ {
		skirt(f.Vertex(cols[i+1], rows[0]), f.Vertex(cols[i], rows[0]), near)
		skirt(f.Vertex(cols[i], rows[lastRow]), f.Vertex(cols[i+1], rows[lastRow]), far)
	}
	for j := 0; j < lastRow; j++ {
		skirt(f.Vertex(cols[0], rows[j]), f.Vertex(cols[0], rows[j+1]), left)
		skirt(f.Vertex(cols[last], rows[j+1]), f.Vertex(cols[last], rows[j]), right)
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
