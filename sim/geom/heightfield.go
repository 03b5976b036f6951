package geom

import (
	"errors"
	"fmt"
	"math"
)

// Height fields: a static terrain given as a grid of heights. Sample (i, j) sits at
// x = X0 + i DX, z = Z0 + j DZ in the body's frame, the grid centred on the frame's origin in x and z,
// at height y = Base + Step Q[j NX + i]. Each cell is two triangles, split along the diagonal from
// (i+1, j) to (i, j+1): {(i,j), (i,j+1), (i+1,j)} and {(i+1,j), (i,j+1), (i+1,j+1)}, both facing +y.
// The grid is its own index: the cells under a box are found by division, with no tree.
//
// Heights are stored as 16-bit steps above Base, two bytes a sample, plus one byte a cell for the
// edge flags the narrow phase reads (three bytes a sample in all). The quantisation error of a height
// given as a number is at most Step/2, (max - min)/131070 of the field's range: 0.4 mm on a 50 m range.

// MaxFieldSide is the most samples along either side of a height field (4096 cells).
const MaxFieldSide = 4097

// HeightGrid is a height field's shared, immutable geometry (static bodies only), built by
// NewHeightField or NewHeightField16.
type HeightGrid struct {
	NX, NZ     int     // samples along x and z, at least 2 each
	DX, DZ     float32 // spacing of the samples along x and z, m
	X0, Z0     float32 // the first sample's x and z: -(NX-1) DX / 2 and -(NZ-1) DZ / 2
	Base, Step float32 // a sample's height is Base + Step Q
	Q          []uint16
	// Active has, for cell (i, j) at j (NX-1) + i, bit k set when edge k of its first triangle is a
	// real edge, and bit 3+k for its second triangle, by geom.Mesh.Active's rule: the field's border,
	// or a convex fold sharper than 5 degrees. Edge k runs from the triangle's vertex k to k+1.
	Active []uint8
	Box    AABB    // the field's bounds in its frame
	Radius float32 // largest distance of a sample from the frame's origin
}

// Errors the height field constructors return (wrapped with detail).
var (
	ErrFieldSize      = errors.New("bad grid size")
	ErrFieldSpacing   = errors.New("bad spacing")
	ErrFieldNonFinite = errors.New("non-finite height")
)

// NewHeightField builds a field of nx x nz samples spaced dx and dz apart from heights (row-major,
// heights[j nx + i] at sample (i, j)), quantised to 16 bits over their range.
func NewHeightField(nx, nz int, dx, dz float32, heights []float32) (*HeightGrid, error) {
	if err := checkFieldGrid(nx, nz, dx, dz, len(heights)); err != nil {
		return nil, err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, h := range heights {
		x := float64(h)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: sample (%d, %d) is %v", ErrFieldNonFinite, k%nx, k/nx, h)
		}
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	step := (hi - lo) / 65535
	q := make([]uint16, len(heights))
	if step > 0 {
		for k, h := range heights {
			q[k] = uint16(math.Min(65535, math.Round((float64(h)-lo)/step)))
		}
	}
	return NewHeightField16(nx, nz, dx, dz, float32(lo), float32(step), q)
}

// NewHeightField16 builds a field from 16-bit samples q (row-major, q[j nx + i] at sample (i, j)),
// each sample Base + Step q high: a 16-bit grayscale image read as is. q is kept, not copied.
func NewHeightField16(nx, nz int, dx, dz, base, step float32, q []uint16) (*HeightGrid, error) {
	if err := checkFieldGrid(nx, nz, dx, dz, len(q)); err != nil {
		return nil, err
	}
	if !finite32(base) || !finite32(step) || step < 0 || !finite32(base+65535*step) {
		return nil, fmt.Errorf("%w: base %v and step %v", ErrFieldNonFinite, base, step)
	}
	f := &HeightGrid{NX: nx, NZ: nz, DX: dx, DZ: dz, Base: base, Step: step, Q: q,
		X0: -float32(nx-1) * dx / 2, Z0: -float32(nz-1) * dz / 2}
	ylo, yhi := float32(math.Inf(1)), float32(math.Inf(-1))
	for _, s := range q {
		y := base + step*float32(s)
		ylo, yhi = min(ylo, y), max(yhi, y)
	}
	x1, z1 := f.X0+float32(nx-1)*dx, f.Z0+float32(nz-1)*dz
	f.Box = AABB{Min: Vec3{f.X0, ylo, f.Z0}, Max: Vec3{x1, yhi, z1}}
	for _, c := range [8]Vec3{{f.X0, ylo, f.Z0}, {x1, ylo, f.Z0}, {f.X0, ylo, z1}, {x1, ylo, z1},
		{f.X0, yhi, f.Z0}, {x1, yhi, f.Z0}, {f.X0, yhi, z1}, {x1, yhi, z1}} {
		f.Radius = max(f.Radius, c.Len())
	}
	f.markEdges()
	return f, nil
}

func finite32(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }

func checkFieldGrid(nx, nz int, dx, dz float32, n int) error {
	if nx < 2 || nz < 2 || nx > MaxFieldSide || nz > MaxFieldSide {
		return fmt.Errorf("%w: %d x %d samples; a height field takes 2 to %d along each side", ErrFieldSize, nx, nz, MaxFieldSide)
	}
	if n != nx*nz {
		return fmt.Errorf("%w: %d samples for a %d x %d grid", ErrFieldSize, n, nx, nz)
	}
	if !(dx > 0) || !(dz > 0) || !finite32(dx) || !finite32(dz) {
		return fmt.Errorf("%w: %v, %v (must be positive)", ErrFieldSpacing, dx, dz)
	}
	return nil
}

// Height returns sample (i, j)'s height.
func (f *HeightGrid) Height(i, j int) float32 { return f.Base + f.Step*float32(f.Q[j*f.NX+i]) }

// Vertex returns sample (i, j) as a point in the field's frame.
func (f *HeightGrid) Vertex(i, j int) Vec3 {
	return Vec3{f.X0 + float32(i)*f.DX, f.Height(i, j), f.Z0 + float32(j)*f.DZ}
}

// cellCorners are the samples of a cell's two triangles, as offsets from its corner (i, j), in the
// triangles' counter-clockwise order seen from +y.
var cellCorners = [2][3][2]int{{{0, 0}, {0, 1}, {1, 0}}, {{1, 0}, {0, 1}, {1, 1}}}

// Triangle returns triangle k (0 or 1) of cell (i, j): its corners, counter-clockwise seen from +y.
func (f *HeightGrid) Triangle(i, j, k int) [3]Vec3 {
	c := &cellCorners[k]
	return [3]Vec3{f.Vertex(i+c[0][0], j+c[0][1]), f.Vertex(i+c[1][0], j+c[1][1]), f.Vertex(i+c[2][0], j+c[2][1])}
}

// HeightAt returns the surface's height over (x, z) in the field's frame, on the triangle that covers
// it, and false outside the field.
func (f *HeightGrid) HeightAt(x, z float32) (float32, bool) {
	u, v := (x-f.X0)/f.DX, (z-f.Z0)/f.DZ
	if !(u >= 0 && v >= 0 && u <= float32(f.NX-1) && v <= float32(f.NZ-1)) {
		return 0, false
	}
	i, j := min(int(u), f.NX-2), min(int(v), f.NZ-2)
	s, t := u-float32(i), v-float32(j)
	h00, h10, h01 := f.Height(i, j), f.Height(i+1, j), f.Height(i, j+1)
	if s+t <= 1 { // the first triangle, {(i,j), (i,j+1), (i+1,j)}
		return h00 + s*(h10-h00) + t*(h01-h00), true
	}
	h11 := f.Height(i+1, j+1) // the second, {(i+1,j), (i,j+1), (i+1,j+1)}
	return h11 + (1-s)*(h01-h11) + (1-t)*(h10-h11), true
}

// Cells returns the range of cells [i0, i1] x [j0, j1] whose footprints in x and z meet box (in the
// field's frame), and false when none does.
func (f *HeightGrid) Cells(box AABB) (i0, i1, j0, j1 int, ok bool) {
	if !box.Overlaps(f.Box) {
		return 0, 0, 0, 0, false
	}
	cell := func(v, o, d float32, n int) int {
		c := int(math.Floor(float64((v - o) / d)))
		return min(max(c, 0), n-2)
	}
	return cell(box.Min[0], f.X0, f.DX, f.NX), cell(box.Max[0], f.X0, f.DX, f.NX),
		cell(box.Min[2], f.Z0, f.DZ, f.NZ), cell(box.Max[2], f.Z0, f.DZ, f.NZ), true
}

// markEdges sets Active. The neighbour across each edge is the other triangle of the cell (the
// diagonal) or a triangle of the next cell; its far corner, the one off the shared edge, decides
// whether the fold is convex, as in Mesh.markEdges.
func (f *HeightGrid) markEdges() {
	cx, cz := f.NX-1, f.NZ-1
	f.Active = make([]uint8, cx*cz)
	pt := func(i, j int) v3 {
		v := f.Vertex(i, j)
		return v3{float64(v[0]), float64(v[1]), float64(v[2])}
	}
	normal := func(a, b, c v3) v3 { return b.sub(a).cross(c.sub(a)).unit() }
	// fold reports whether the edge from p of a triangle with normal n is active, given the
	// neighbour's normal n1 and far corner far.
	fold := func(n, n1, p, far v3) bool { return n.dot(n1) < activeEdgeCos && n.dot(far.sub(p)) < 0 }
	for j := 0; j < cz; j++ {
		for i := 0; i < cx; i++ {
			a, b, c, d := pt(i, j), pt(i+1, j), pt(i, j+1), pt(i+1, j+1)
			n0, n1 := normal(a, c, b), normal(b, c, d)
			var bits uint8
			// Triangle 0 {a, c, b}: edge 0 a-c (the cell's left side), 1 c-b (the diagonal), 2 b-a
			// (its near side).
			if i == 0 || fold(n0, normal(a, pt(i-1, j+1), c), a, pt(i-1, j+1)) {
				bits |= 1
			}
			if fold(n0, n1, c, d) {
				bits |= 2
			}
			if j == 0 || fold(n0, normal(pt(i+1, j-1), a, b), b, pt(i+1, j-1)) {
				bits |= 4
			}
			// Triangle 1 {b, c, d}: edge 0 b-c (the diagonal), 1 c-d (the far side), 2 d-b (the
			// right side).
			if fold(n1, n0, b, a) {
				bits |= 8
			}
			if j+1 == cz || fold(n1, normal(c, pt(i, j+2), d), c, pt(i, j+2)) {
				bits |= 16
			}
			if i+1 == cx || fold(n1, normal(b, d, pt(i+2, j)), d, pt(i+2, j)) {
				bits |= 32
			}
			f.Active[j*cx+i] = bits
		}
	}
}

// Raycast returns the first triangle the ray o + t d (t in [0, tmax], in the field's frame) meets
// from either side, as its cell (i, j) and k, and t. It walks the cells under the ray in the order
// the ray crosses them (Amanatides and Woo's grid traversal), so the first hit is the nearest.
func (f *HeightGrid) Raycast(o, d Vec3, tmax float32) (t float32, i, j, k int, ok bool) {
	t0, t1, in := rayBoxSpan(f.Box, o, d, tmax)
	if !in {
		return 0, 0, 0, 0, false
	}
	p := o.Add(d.Mul(t0))
	i = min(max(int(math.Floor(float64((p[0]-f.X0)/f.DX))), 0), f.NX-2)
	j = min(max(int(math.Floor(float64((p[2]-f.Z0)/f.DZ))), 0), f.NZ-2)
	// The ray parameter at the next cell boundary along x and z, and between boundaries.
	next := func(c int, o, d, x0, dx float32) (float32, float32, int) {
		switch {
		case d > 0:
			return (x0 + float32(c+1)*dx - o) / d, dx / d, 1
		case d < 0:
			return (x0 + float32(c)*dx - o) / d, -dx / d, -1
		}
		return float32(math.Inf(1)), float32(math.Inf(1)), 0
	}
	tx, dtx, si := next(i, o[0], d[0], f.X0, f.DX)
	tz, dtz, sj := next(j, o[2], d[2], f.Z0, f.DZ)
	for range f.NX + f.NZ {
		best := float32(math.Inf(1))
		for kk := 0; kk < 2; kk++ {
			tr := f.Triangle(i, j, kk)
			if s, hit := rayTriangle(tr[0], tr[1], tr[2], o, d); hit && s < best && s <= t1 {
				best, k = s, kk
			}
		}
		if best <= t1 {
			return best, i, j, k, true
		}
		if tx < tz {
			if tx > t1 {
				break
			}
			i += si
			tx += dtx
		} else {
			if tz > t1 {
				break
			}
			j += sj
			tz += dtz
		}
		if i < 0 || j < 0 || i > f.NX-2 || j > f.NZ-2 {
			break
		}
	}
	return 0, 0, 0, 0, false
}

// rayBoxSpan is the part [t0, t1] of the ray o + t d, t in [0, tmax], inside box (the slab test).
func rayBoxSpan(b AABB, o, d Vec3, tmax float32) (float32, float32, bool) {
	t0, t1 := float32(0), tmax
	for k := 0; k < 3; k++ {
		if d[k] == 0 {
			if o[k] < b.Min[k] || o[k] > b.Max[k] {
				return 0, 0, false
			}
			continue
		}
		inv := 1 / d[k]
		a, c := (b.Min[k]-o[k])*inv, (b.Max[k]-o[k])*inv
		if a > c {
			a, c = c, a
		}
		t0, t1 = max(t0, a), min(t1, c)
		if t0 > t1 {
			return 0, 0, false
		}
	}
	return t0, t1, true
}

// rayTriangle is Möller and Trumbore's test: where o + t d crosses triangle abc, if it does at t >= 0.
func rayTriangle(a, b, c, o, d Vec3) (float32, bool) {
	e1, e2 := b.Sub(a), c.Sub(a)
	p := d.Cross(e2)
	det := e1.Dot(p)
	if det == 0 {
		return 0, false
	}
	inv := 1 / det
	s := o.Sub(a)
	u := s.Dot(p) * inv
	if u < 0 || u > 1 {
		return 0, false
	}
	q := s.Cross(e1)
	v := d.Dot(q) * inv
	if v < 0 || u+v > 1 {
		return 0, false
	}
	r := e2.Dot(q) * inv
	return r, r >= 0
}
