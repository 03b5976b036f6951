package collide

import (
	"math"

	"tumble/sim/geom"
	"tumble/sim/internal/vecmath"
)

// A height field's own contact for capsules and boxes. The terrain is a graph y = S(x, z), linear on
// each triangle and indexed by division, so what the generic path finds by testing the shape against
// every triangle under its box (polyTri's separating axes and clipping, capsuleTri) is found here by
// walking the grid:
//
//   - a capsule's ends are balls, tested against the triangles of the cells within their reach as
//     sphereTri tests a ball (roundEnd, roundTri, with a normal scaled to unit length only for a
//     triangle within reach); between them the core's height over the terrain is linear between
//     the grid lines it crosses (x, z and the cells' diagonals), so its least is at an end or at a
//     crossing, and the core's point at the least crossing is tested as a ball too, its nearest
//     point only (a probe). A core point's distance to a triangle is its true distance, also where
//     the nearest feature is a flat or concave seam: that triangle's plane, extended past the seam,
//     may dip towards a core's end that lies beyond it, where capsuleTri would measure from the
//     core's point nearest the triangle. The probe's point lies off the core's nearest approach by
//     about the gap times the slope, where the distance along the core is flat: its depth is short
//     by second order in that offset (at most 1.6 mm on the bench's hills, 5 mm in);
//   - a box's incident face (the one most against n0, the terrain's normal under the box's centre)
//     meets the terrain where S - B is greatest, B the face's height over (x, z): S - B is linear on
//     each piece of the triangles cut by the face's outline, so its extremes are at the face's
//     corners, at the crossings of its edges with the grid's lines and at the samples under it. Those
//     points are tested, each against the triangle straight under it (its normal, its plane's
//     distance) or, for a sample, against the face. polyTri's clipping measures a point against the
//     triangle whose normal prism holds it rather than the one under it; the two differ only within
//     |sep| tan(theta) of an edge (theta the triangle's slope), where their planes, meeting on the
//     edge at a fold phi, differ by at most |sep| tan(theta) sin(phi): 0.4 mm at most for 5 mm of
//     depth on the bench's hills. The box's other faces rise from the incident one at 35 degrees or
//     more (a cube on its corner), steeper than any triangle the walk accepts, so the terrain
//     reaches them only through the incident face's outline.
//
// The walk runs for a box or capsule where the terrain is gentle (fieldGentle): the shape's centre
// lies over the field and above the triangle under it, no cell under its box rises wholly above the
// box, and every triangle there lies within 30 degrees (fieldWalkCos) of n0. Elsewhere (folds,
// cliffs, the field's border) the generic path runs. Points join the manifolds as the generic path's
// do (the first seeded with n0, as centreFirst orders the triangles, then within fieldMergeCos) and
// are reduced as theirs.

// fieldWalkCos is the cosine of the widest turn of the terrain under a shape, from the triangle under
// its centre, within which the walk replaces the triangles' tests: 30 degrees.
const fieldWalkCos = 0.866

// fieldCells bounds the cells a shape's box may cover for the walk: over more (16 x 16) the generic
// path runs, as the walk's crossings and samples grow with the shape's size in cells.
const fieldCells = 256

// fieldGentle returns the unit normal n0 of the field's triangle under centre t (the field's frame)
// and whether the walk may run for a shape of bounds box there: t lies over the field and above that
// triangle's plane, no cell under box lies wholly above it, and every triangle of the cells under it
// lies within fieldWalkCos of n0.
func fieldGentle(f *geom.HeightGrid, box geom.AABB, t vec) (vec, bool) {
	s0, ok := surfaceAt(f, t.X, t.Z)
	if !ok || t.Y <= s0.h {
		return vec{}, false
	}
	i0, i1, j0, j1, ok := f.Cells(box)
	if !ok || (i1-i0+1)*(j1-j0+1) > fieldCells {
		return vec{}, false
	}
	n0 := s0.n
	const cos2 = fieldWalkCos * fieldWalkCos
	// Within the cone: n.n0 > 0 and (n.n0)^2 >= cos^2 |n|^2, for the triangles' normals unscaled.
	within := func(n vec) bool {
		d := n.Dot(n0)
		return d > 0 && d*d >= cos2*n.Dot(n)
	}
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			h00, h10, h01, h11 := f.Height(i, j), f.Height(i+1, j), f.Height(i, j+1), f.Height(i+1, j+1)
			if min(h00, h10, h01, h11) > box.Max[1] {
				return vec{}, false
			}
			if !within(vec{X: -f.DZ * (h10 - h00), Y: f.DX * f.DZ, Z: -f.DX * (h01 - h00)}) ||
				!within(vec{X: -f.DZ * (h11 - h01), Y: f.DX * f.DZ, Z: -f.DX * (h11 - h10)}) {
				return vec{}, false
			}
		}
	}
	return n0, true
}

// surf is the terrain straight under a point: its height, its triangle's unit normal and index.
type surf struct {
	h   float32
	n   vec
	idx uint32
}

// surfaceAt returns the terrain under (x, z) (the field's frame), and false outside the field.
func surfaceAt(f *geom.HeightGrid, x, z float32) (surf, bool) {
	u, v := (x-f.X0)/f.DX, (z-f.Z0)/f.DZ
	if !(u >= 0 && v >= 0 && u <= float32(f.NX-1) && v <= float32(f.NZ-1)) {
		return surf{}, false
	}
	i, j := min(int(u), f.NX-2), min(int(v), f.NZ-2)
	s, t := u-float32(i), v-float32(j)
	h00, h10, h01 := f.Height(i, j), f.Height(i+1, j), f.Height(i, j+1)
	cell := uint32(j*(f.NX-1) + i)
	var r surf
	var n vec
	if s+t < 1 { // triangle 0, {(i,j), (i,j+1), (i+1,j)}
		r.h = h00 + s*(h10-h00) + t*(h01-h00)
		n = vec{X: -f.DZ * (h10 - h00), Y: f.DX * f.DZ, Z: -f.DX * (h01 - h00)}
		r.idx = 2 * cell
	} else { // triangle 1, {(i+1,j), (i,j+1), (i+1,j+1)}
		h11 := f.Height(i+1, j+1)
		r.h = h11 + (1-s)*(h01-h11) + (1-t)*(h10-h11)
		n = vec{X: -f.DZ * (h11 - h01), Y: f.DX * f.DZ, Z: -f.DX * (h11 - h10)}
		r.idx = 2*cell + 1
	}
	r.n = n.Scale(1 / vecmath.Sqrt(n.Dot(n)))
	return r, true
}

// addAbove adds the contact of a point p of a box's face with the terrain straight under it: its
// triangle's normal, the distance to that triangle's plane, the point midway between the surfaces;
// nothing beyond the margin or off the field. Its feature id is id's (the box's corner, or its edge
// and the grid line crossed), not the triangle's: a crossing lies on the line between two triangles
// and a corner may lie on one, so the triangle under them changes with the rounding of a rocking of
// a micrometre, where the point and its warm start do not.
func (c *meshCtx) addAbove(f *geom.HeightGrid, p vec, id uint32) {
	s, ok := surfaceAt(f, p.X, p.Z)
	if !ok {
		return
	}
	if s.h > c.top {
		c.above = true
		return
	}
	sep := (p.Y - s.h) * s.n.Y
	if sep >= c.margin {
		return
	}
	c.add(s.n, []clipPt{{p: p.MAdd(s.n, -sep/2), sep: sep, feat: mix32(7, id)}})
}

// crossings calls fn with the parameters s in (0, 1) at which segment a + s (b - a) crosses the
// grid's lines in x and z (x = X0 + i DX, z = Z0 + j DZ) and the cells' diagonals (the lines
// (x - X0)/DX + (z - Z0)/DZ = k), with an id for the line crossed.
func crossings(f *geom.HeightGrid, a, b vec, fn func(s float32, line uint32)) {
	ua, wa := (a.X-f.X0)/f.DX, (a.Z-f.Z0)/f.DZ
	ub, wb := (b.X-f.X0)/f.DX, (b.Z-f.Z0)/f.DZ
	for fam, ends := range [3][2]float32{{ua, ub}, {wa, wb}, {ua + wa, ub + wb}} {
		l0, l1 := ends[0], ends[1]
		if l0 == l1 {
			continue
		}
		lo, hi := min(l0, l1), max(l0, l1)
		for k := float32(math.Floor(float64(lo))) + 1; k < hi; k++ {
			fn((k-l0)/(l1-l0), uint32(fam)<<28|uint32(int32(k))&(1<<28-1))
		}
	}
}

// fieldBox is the contact of a box (vertices bverts, face normals and offsets bnorm, boff in the
// field's frame) with gentle terrain whose normal under the box's centre is n0, and false where the
// terrain under the box rises above the box's top (the generic path decides there).
func (c *meshCtx) fieldBox(f *geom.HeightGrid, B *poly, bverts, bnorm []vec, boff []float32, n0 vec) bool {
	c.above = false
	inc := incidentFace(B, bverts, bnorm, n0)
	g := &B.faces[inc]
	loop := B.fv[g.First : g.First+g.Count]
	// The face's corners and the crossings of its edges with the grid.
	for k, vi := range loop {
		a := bverts[vi]
		c.addAbove(f, a, uint32(vi))
		b := bverts[loop[(k+1)%len(loop)]]
		d := b.Sub(a)
		crossings(f, a, b, func(s float32, line uint32) {
			c.addAbove(f, a.MAdd(d, s), mix32(8, uint32(vi), line))
		})
	}
	// The samples under the face: measured from the face's plane along its normal m, which points
	// down into the terrain; the contact's normal is -m, as the box face's contact with a triangle.
	m, off := bnorm[inc], boff[inc]
	if m.Y > -0.1 {
		return false // the face is near vertical: the terrain under the box is not gentle to it
	}
	x0, x1, z0, z1 := float32(1e30), float32(-1e30), float32(1e30), float32(-1e30)
	for _, vi := range loop {
		v := bverts[vi]
		x0, x1, z0, z1 = min(x0, v.X), max(x1, v.X), min(z0, v.Z), max(z1, v.Z)
	}
	i0 := max(int(math.Ceil(float64((x0-f.X0)/f.DX))), 0)
	i1 := min(int(math.Floor(float64((x1-f.X0)/f.DX))), f.NX-1)
	j0 := max(int(math.Ceil(float64((z0-f.Z0)/f.DZ))), 0)
	j1 := min(int(math.Floor(float64((z1-f.Z0)/f.DZ))), f.NZ-1)
	// The outline's winding seen from above, the sign of its area in (x, z): a sample is inside when
	// it lies on that side of every edge.
	var area float32
	for k, vi := range loop {
		a, b := bverts[vi], bverts[loop[(k+1)%len(loop)]]
		area += a.X*b.Z - a.Z*b.X
	}
	for j := j0; j <= j1; j++ {
		z := f.Z0 + float32(j)*f.DZ
	sample:
		for i := i0; i <= i1; i++ {
			p := vec{X: f.X0 + float32(i)*f.DX, Y: f.Height(i, j), Z: z}
			if p.Y > c.top {
				return false
			}
			sep := m.Dot(p) - off
			if sep >= c.margin {
				continue
			}
			for k, vi := range loop {
				a, b := bverts[vi], bverts[loop[(k+1)%len(loop)]]
				if ((b.X-a.X)*(p.Z-a.Z)-(b.Z-a.Z)*(p.X-a.X))*area < 0 {
					continue sample
				}
			}
			n := m.Neg()
			c.add(n, []clipPt{{p: p.MAdd(m, -sep/2), sep: sep, feat: mix32(9, uint32(j*f.NX+i), uint32(inc))}})
		}
	}
	return !c.above
}

// seed starts the call's first manifold with normal n0, the terrain's under the shape's centre, so
// that the points within fieldMergeCos of it join it with that normal.
func (c *meshCtx) seed(n0 vec) {
	c.nclus, c.normals[0], c.deepest[0] = 1, n0, 1e30
}

// fieldCapsule is the contact of a capsule (core p0-p1, radius r) with gentle terrain: each end as a
// ball against the triangles within its reach, and the core's crossings of the grid's lines against
// the triangle under each; false where the terrain under the core rises above the capsule's box.
func (c *meshCtx) fieldCapsule(f *geom.HeightGrid, p0, p1 vec, r float32) bool {
	c.above = false
	for e, p := range [2]vec{p0, p1} {
		c.roundEnd(f, p, r, r+c.margin+cullSlack, 5, uint32(e))
	}
	// Between the ends, the least of the crossings: the capsule's manifold keeps two points, the
	// deepest and the one farthest from it (deepestSpread), and an end is always farther from a
	// crossing than the other crossings are.
	d := p1.Sub(p0)
	best, bestS, bestLine, bestTri := float32(1e30), float32(0), uint32(0), uint32(0)
	crossings(f, p0, p1, func(s float32, line uint32) {
		x := p0.MAdd(d, s)
		if u, ok := surfaceAt(f, x.X, x.Z); ok {
			if u.h > c.top {
				c.above = true
			}
			if sep := (x.Y-u.h)*u.n.Y - r; sep < best {
				best, bestS, bestLine, bestTri = sep, s, line, u.idx
			}
		}
	})
	if best < c.margin {
		// The core's point there, tested as a ball, its nearest point only: the ends give the
		// manifold its breadth, this its depth where the terrain bulges under the core. The least
		// vertical gap lies off the core's least distance (where the terrain's normal is
		// perpendicular to the core) by about the gap times the terrain's slope; the distance is
		// flat there, so the point's is more than the least by second order in that offset: up
		// to 1.6 mm on the height-field bench's hills (TestFieldWalkAgreesWithTriangleTests).
		probe := c.probeAt(f, p0.MAdd(d, bestS), r, bestTri, bestLine)
		if probe.sep < c.margin && c.add(probe.n, []clipPt{probe.clipPt}) {
			c.pts[len(c.pts)-1].dist = probe.dist
		}
	}
	return !c.above
}

// probeAt returns the nearest of the contacts of a ball (centre p, radius r) with the field's
// triangles within its reach, as roundEnd gives them (separation c.margin where there is none); under
// is a triangle near p (the one under it), line goes into the feature id. The nearest point lies no
// farther than under's, so the cells beyond that distance are passed over: their triangles' contacts
// would be farther, and the nearest is the same one.
func (c *meshCtx) probeAt(f *geom.HeightGrid, p vec, r float32, under, line uint32) meshPt {
	probe := meshPt{clipPt: clipPt{sep: c.margin}}
	tr := fieldTri(f, under)
	q, _ := closestOnTri(&tr, p)
	v := p.Sub(q)
	c.probe = &probe
	c.roundEnd(f, p, r, min(r+c.margin, vecmath.Sqrt(v.Dot(v)))+cullSlack, 10, line)
	c.probe = nil
	return probe
}

// roundEnd adds the contacts of a ball (centre p, radius r) with the triangles of the cells within
// its reach, as sphereTri gives them (tag and e go into the feature ids): the cells whose boxes lie
// at distance within from p or farther (cellFar; within is the reach plus cullSlack, or for a probe,
// which keeps only the nearest point, the distance to a triangle plus cullSlack), then the triangles
// whose planes lie behind p or beyond reach, and then those whose nearest point lies beyond it, are
// passed over before their normals are scaled to unit length.
func (c *meshCtx) roundEnd(f *geom.HeightGrid, p vec, r, within float32, tag, e uint32) {
	reach := r + c.margin
	i0 := max(int(math.Floor(float64((p.X-reach-f.X0)/f.DX))), 0)
	i1 := min(int(math.Floor(float64((p.X+reach-f.X0)/f.DX))), f.NX-2)
	j0 := max(int(math.Floor(float64((p.Z-reach-f.Z0)/f.DZ))), 0)
	j1 := min(int(math.Floor(float64((p.Z+reach-f.Z0)/f.DZ))), f.NZ-2)
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			h := [4]float32{f.Height(i, j), f.Height(i+1, j), f.Height(i, j+1), f.Height(i+1, j+1)}
			lo, hi := min(h[0], h[1], h[2], h[3]), max(h[0], h[1], h[2], h[3])
			// A cell wholly above or below the ball's reach, as fieldTris leaves out, or whose box
			// lies beyond it.
			if lo > p.Y+reach || hi < p.Y-reach || cellFar(f, i, j, lo, hi, p, within) {
				continue
			}
			c.roundTri(f, i, j, 0, &h, p, r, tag, e)
			c.roundTri(f, i, j, 1, &h, p, r, tag, e)
		}
	}
}

// roundTri adds the contact of a ball (centre p, radius r) with triangle k of cell (i, j) (its
// heights h: (i, j), (i+1, j), (i, j+1), (i+1, j+1)), as
// sphereTri gives it, unless the triangle's plane lies behind p or beyond reach of it, or its
// nearest point lies beyond reach; its normal is scaled to unit length only when it is in reach.
//
// Where p's nearest point is on a flat or concave edge or vertex, the contact takes the triangle's
// normal, as sphereTri's does, but keeps its true distance: sphereTri takes the plane's distance
// where that is less, and the plane, extended past the seam, may dip towards a core's end that lies
// beyond it, where capsuleTri measures from the core's point nearest the triangle instead.
func (c *meshCtx) roundTri(f *geom.HeightGrid, i, j, k int, h *[4]float32, p vec, r float32, tag, e uint32) {
	reach := r + c.margin
	cull := reach + cullSlack
	z0, z1 := f.Z0+float32(j)*f.DZ, f.Z0+float32(j+1)*f.DZ
	x0, x1 := f.X0+float32(i)*f.DX, f.X0+float32(i+1)*f.DX
	b, cc := vec{X: x1, Y: h[1], Z: z0}, vec{X: x0, Y: h[2], Z: z1}
	act := f.Active[j*(f.NX-1)+i]
	cell := uint32(j*(f.NX-1) + i)
	var tr tri
	if k == 0 {
		tr = tri{v: [3]vec{{X: x0, Y: h[0], Z: z0}, cc, b}, active: act & 7, index: 2 * cell}
	} else {
		tr = tri{v: [3]vec{b, cc, {X: x1, Y: h[3], Z: z1}}, active: act >> 3, index: 2*cell + 1}
	}
	un := tr.v[1].Sub(tr.v[0]).Cross(tr.v[2].Sub(tr.v[0]))
	nn := un.Dot(un)
	// Behind the plane, or beyond reach of it: h / |un| >= cull.
	if h := un.Dot(p.Sub(tr.v[0])); h < 0 || h*h >= cull*cull*nn {
		return
	}
	q, ft := closestOnTri(&tr, p)
	v := p.Sub(q)
	if v.Dot(v) >= reach*reach {
		return // beyond the margin (roundContact would pass it over)
	}
	tr.n = un.Scale(1 / vecmath.Sqrt(nn))
	dist := vecmath.Sqrt(v.Dot(v))
	n, sep := tr.n, dist-r
	switch {
	case ft != featFace && tr.activeFeat(ft) && dist >= 1e-6:
		n = v.Scale(1 / dist)
	case ft == featFace || dist < 1e-6:
		sep = min(sep, tr.n.Dot(p.Sub(tr.v[0]))-r)
	}
	if c.probe != nil {
		if sep < c.probe.sep {
			*c.probe = meshPt{clipPt{p: p.MAdd(n, -(r + sep/2)), sep: sep, feat: mix32(tag, tr.index, uint32(ft), e)}, 0, n, dist}
		}
		return
	}
	if c.add(n, []clipPt{{p: p.MAdd(n, -(r + sep/2)), sep: sep, feat: mix32(tag, tr.index, uint32(ft), e)}}) {
		c.pts[len(c.pts)-1].dist = dist
	}
}

// cellFar reports whether every point of cell (i, j) of the field, whose heights lie in [lo, hi], is
// at least d from p: the distance to the cell's box, a lower bound of the distance to its two
// triangles. A ball's test of a triangle of such a cell (roundTri, sphereTri: d the reach plus
// cullSlack) finds it beyond reach, so passing the cell over changes no contact: its triangles add
// nothing, and the others are tested in the same order.
func cellFar(f *geom.HeightGrid, i, j int, lo, hi float32, p vec, d float32) bool {
	// The corners as roundTri and appendCell compute them: p's differences from them are exact.
	x0, x1 := f.X0+float32(i)*f.DX, f.X0+float32(i+1)*f.DX
	z0, z1 := f.Z0+float32(j)*f.DZ, f.Z0+float32(j+1)*f.DZ
	dx := max(x0-p.X, p.X-x1, 0)
	dz := max(z0-p.Z, p.Z-z1, 0)
	dy := max(lo-p.Y, p.Y-hi, 0)
	return dx*dx+dy*dy+dz*dz >= d*d
}

// fieldTri returns the field's triangle of index idx, 2 (j (NX-1) + i) + k for triangle k of cell
// (i, j), with the corners roundTri gives it (its normal left unset).
func fieldTri(f *geom.HeightGrid, idx uint32) tri {
	cell := int(idx / 2)
	i, j := cell%(f.NX-1), cell/(f.NX-1)
	z0, z1 := f.Z0+float32(j)*f.DZ, f.Z0+float32(j+1)*f.DZ
	x0, x1 := f.X0+float32(i)*f.DX, f.X0+float32(i+1)*f.DX
	b, cc := vec{X: x1, Y: f.Height(i+1, j), Z: z0}, vec{X: x0, Y: f.Height(i, j+1), Z: z1}
	if idx%2 == 0 {
		return tri{v: [3]vec{{X: x0, Y: f.Height(i, j), Z: z0}, cc, b}, index: idx}
	}
	return tri{v: [3]vec{b, cc, {X: x1, Y: f.Height(i+1, j+1), Z: z1}}, index: idx}
}
