package collide

import (
	"math"
	"slices"
	"sync"

	"tumble/sim/geom"
	"tumble/sim/internal/vecmath"
)

// Static triangle meshes against the convex shapes. The mesh's BVH (geom.Mesh.Query) gives the
// triangles whose boxes meet the other shape's box in the mesh's frame (the mid-phase); each triangle is
// then a one-sided convex polygon:
//
//   - a box or hull meets it by the separating axis test over the triangle's normal, the polyhedron's
//     face normals and the cross products of their edges, then a face contact clipped like hull
//     against hull (reduced to four points) or one point between two edges;
//   - a sphere or capsule meets it by the closest points between its core and the triangle;
//   - a cylinder meets it through their support functions, as it meets any convex shape (cylinder.go).
//
// A shape whose centre is behind a triangle's plane ignores that triangle (one-sided: a body is pushed
// out of the side it came from). Internal edges: a contact whose normal would come from an edge between
// two triangles that is flat or concave (geom.Mesh.Active), or from a vertex whose edges are all such,
// takes the triangle's normal instead, so a body sliding across the seams of a flat or smooth surface
// is not caught on them. The triangles' manifolds whose normals agree (within 2 degrees) are merged and
// reduced to four points; at most MaxMeshManifolds remain, the deepest ones. Feature ids hash the
// triangle's index with the features that made the point, so they are stable while the same triangle
// features touch (the height field walk's box points name the box's corner, or its edge and the grid
// line it crosses, instead: field.go). Over a height field, a pair's manifold keeps last step's four
// points while they hold (CollideMeshKeeping, FieldKeepDepth), so that a body rocking on points of
// nearly equal depth keeps them and their warm starts.

// MaxMeshManifolds is the most manifolds one shape gets against one mesh.
const MaxMeshManifolds = 8

// mergeCos is the cosine below which two triangles' contact normals start separate manifolds.
const mergeCos = 0.9994

// fieldMergeCos is mergeCos for a height field: 15 degrees. A terrain's neighbouring triangles turn
// by a few degrees each, and across a body's footprint by its curvature times the footprint (on the
// height-field bench's hills, 0.44/m over 0.6 m: 15 degrees, plus a few of tessellation). At mergeCos
// a box on such a hill touched four to eight triangles in as many manifolds (eight times a plane's
// contact points, and the solver's time with them). The first manifold takes the normal under the
// shape's centre (centreFirst), so triangles up to 15 degrees either side of it still make one
// manifold of up to four points; they keep their own triangles' depths (out by at most
// 1 - cos 15 deg, 3.4%). Folds sharper than that (a valley, a ridge) keep a manifold for each side.
const fieldMergeCos = 0.9659

// cullSlack, m, widens the reach within which a ball's or capsule's triangles are tested beyond the
// radius and the margin, so that a triangle passed over by its plane's distance is one the exact test
// would also have found out of reach, float32 rounding included (a millimetre's rounding is about
// 1e-7 m; this is a hundred times that).
const cullSlack = 1e-5

// Feature codes of a point on a triangle: the face, vertex k (1+k), edge k from vertex k to k+1 (4+k).
const (
	featFace = 0
	featVert = 1
	featEdge = 4
)

// tri is one triangle in the mesh's frame.
type tri struct {
	v      [3]vec
	n      vec
	active uint8
	index  uint32
}

// activeFeat reports whether the triangle feature may give its own normal.
func (t *tri) activeFeat(f int) bool {
	switch {
	case f >= featEdge:
		return t.active&(1<<(f-featEdge)) != 0
	case f >= featVert:
		k := f - featVert
		return t.active&(1<<k|1<<((k+2)%3)) != 0
	}
	return true
}

// meshPt is a contact point in the mesh's frame, with the manifold (cluster) it belongs to, the
// normal of its own triangle's contact and, for a ball or capsule, the distance between the core and
// the triangle (else its separation).
type meshPt struct {
	clipPt
	cluster int
	n       vec
	dist    float32
}

// meshCtx is the work of one CollideMesh call.
type meshCtx struct {
	normals [MaxMeshManifolds]vec
	deepest [MaxMeshManifolds]float32
	nclus   int
	pts     []meshPt
	tris    []tri // the triangles near the shape, in the mesh's frame
	margin  float32
	size    float32
	// mergeCos is the cosine above which a triangle's contact joins a manifold's normal.
	mergeCos float32
	// roundMax, when not zero, is the most points a manifold of a round shape keeps: on a height
	// field a ball's manifold is its nearest point (1, nearestPoint), a capsule's the deepest and
	// the one farthest from it (2). The nearby triangles each give a ball a point of their own, a
	// few centimetres apart on a curved terrain, which a ball resting on one spot does not need.
	roundMax int
	// top is the top of the shape's box, margin included, in the field's frame: the walk of field.go
	// gives up (above) where the terrain under the shape rises over it, on triangles fieldTris left
	// out.
	top   float32
	above bool
	// n0 is the normal of the field's triangle under the shape's centre, when the walk runs.
	n0 vec
	// probe, when set, takes the nearest of roundTri's points instead of adding them.
	probe *meshPt
	// kept is the ids of the pair's manifolds' points last step, for a height field
	// (CollideMeshKeeping).
	kept  [MaxMeshManifolds]KeptPoints
	nkept int
	// Scratch, reused from call to call through meshCtxPool (every routine writes what it reads).
	ptsBuf          [256]meshPt
	sel             [256]clipPt
	clip, tmp, keep [maxClip]clipPt
	loop            [geom.MaxHullPoints]vec
	// polyTri: B's face normals along a triangle's edge and along its outward side.
	faceDots, faceDotsU [2 * geom.MaxHullPoints]float32
}

// meshCtxPool keeps the scratch of CollideMesh (about 40 KB) from being allocated and cleared on
// every call: the narrow phase calls it from several workers at once.
var meshCtxPool = sync.Pool{New: func() any { return new(meshCtx) }}

// add puts a triangle's manifold (normal n, points) into the cluster of its normal, and reports
// whether it did (not when there are no points, or eight clusters deeper than it).
func (c *meshCtx) add(n vec, pts []clipPt) bool {
	if len(pts) == 0 {
		return false
	}
	k := -1
	for i := 0; i < c.nclus; i++ {
		if c.normals[i].Dot(n) > c.mergeCos {
			k = i
			break
		}
	}
	deep := pts[0].sep
	for _, p := range pts {
		deep = min(deep, p.sep)
	}
	if k < 0 {
		if c.nclus < MaxMeshManifolds {
			k = c.nclus
			c.nclus++
			c.normals[k], c.deepest[k] = n, deep
		} else {
			// Full: replace the shallowest cluster if this one is deeper, else drop it.
			s := 0
			for i := 1; i < c.nclus; i++ {
				if c.deepest[i] > c.deepest[s] {
					s = i
				}
			}
			if deep >= c.deepest[s] {
				return false
			}
			j := 0
			for _, p := range c.pts {
				if p.cluster != s {
					c.pts[j] = p
					j++
				}
			}
			c.pts = c.pts[:j]
			k = s
			c.normals[k], c.deepest[k] = n, deep
		}
	}
	c.deepest[k] = min(c.deepest[k], deep)
	for _, p := range pts {
		c.pts = append(c.pts, meshPt{p, k, n, p.sep})
	}
	return true
}

// CollideMesh appends to out the manifolds between static mesh or height field a at pose pa and
// convex shape b (box, sphere, capsule or hull) at pose pb, with normals from a to b, and returns out.
// Points whose separation is below margin are kept (speculative contacts, as Collide). Both kinds of
// a are triangles to b: the mesh's from its BVH, the height field's from the cells under b's box
// (fieldTris; for a ball, those within its reach, fieldTrisNear); everything after that is the same
// code, but for a box or capsule over a height field's gentle terrain, which walks the grid instead
// (field.go).
func CollideMesh(a *geom.Shape, pa geom.Pose, b *geom.Shape, pb geom.Pose, margin float32, out []Manifold) []Manifold {
	return CollideMeshKeeping(a, pa, b, pb, margin, nil, out)
}

// FieldKeepDepth, m, is how much deeper than last step's points of a manifold over a height field
// another point may lie and those points still be kept (CollideMeshKeeping). A body resting on a
// terrain stands on several points within a millimetre or two of level (a box's corners and its
// edges' crossings of the grid, a rock's vertices over the grid's edges). The reduction to four
// starts from the deepest and chooses the rest around it (reducePts), so when a rocking of a fraction
// of a millimetre turns another point into the deepest, or a speculative point a few millimetres up
// into a wider triangle, the four points and their ids change, their warm starts are lost, and the
// solver's fresh impulses push the body back the other way: a box alone on the hills rocks at
// 0.1 m/s for ever, a rock at 0.02 (scenes' TestBodiesOnHillsComeToRest). Kept, the points stay while
// the rocking dies. A point deeper than the kept ones by up to this much may be left out and overlap
// by that much more: 2 mm, under half the default allowed overlap (LinearSlop, 5 mm). From 1 mm up
// both rest; half a millimetre is not enough.
const FieldKeepDepth = 0.002

// KeptPoints is the feature ids of one manifold's points (Manifold.Points' IDs, in order) as a pair
// had them last step, for CollideMeshKeeping.
type KeptPoints struct {
	IDs   [4]uint32
	Count int
}

// CollideMeshKeeping is CollideMesh for a pair that touched last step, kept the ids of its manifolds'
// points then (in order, the reduction's first, the deepest, first). Over a height field, a manifold
// of more than four points whose points include all four of one of kept's, none of its other points
// FieldKeepDepth or more below the deepest of those, keeps those four instead of reducing afresh
// (keptOf); otherwise its reduction starts from a kept manifold's first point where that is among
// them and no point lies FieldKeepDepth or more below it (anchor), else from the deepest. So a body
// rocking on points of nearly equal depth keeps its points and their warm starts. Meshes ignore kept.
func CollideMeshKeeping(a *geom.Shape, pa geom.Pose, b *geom.Shape, pb geom.Pose, margin float32, kept []KeptPoints, out []Manifold) []Manifold {
	if b.Kind == geom.Plane || b.Kind == geom.TriMesh || b.Kind == geom.HeightField {
		return out
	}
	if (a.Kind != geom.TriMesh || a.Mesh == nil) && (a.Kind != geom.HeightField || a.Field == nil) {
		return out
	}
	var fa frame
	fa.set(&pa)
	rel := geom.Pose{P: fa.toLocal(vg(pb.P)).Vec3(), Q: pa.Q.Conjugate().Mul(pb.Q)}
	box := b.Bounds(rel)
	e := geom.Vec3{margin, margin, margin}
	box.Min, box.Max = box.Min.Sub(e), box.Max.Add(e)
	c := meshCtxPool.Get().(*meshCtx)
	defer meshCtxPool.Put(c)
	c.tris = c.tris[:0]
	c.mergeCos, c.roundMax = mergeCos, 0
	gentle := false // a box or capsule over gentle terrain: the grid's walk (field.go) decides
	if a.Kind == geom.TriMesh {
		var buf [64]int32
		for _, ti := range a.Mesh.Query(box, buf[:0]) {
			c.tris = append(c.tris, meshTri(a.Mesh, ti))
		}
	} else {
		c.mergeCos, c.top = fieldMergeCos, box.Max[1]
		switch b.Kind {
		case geom.Box, geom.Capsule:
			c.n0, gentle = fieldGentle(a.Field, box, vg(rel.P))
		}
		if !gentle {
			if b.Kind == geom.Sphere {
				c.tris = fieldTrisNear(a.Field, box, rel.P, b.Radius+margin+cullSlack, c.tris)
			} else {
				c.tris = fieldTris(a.Field, box, c.tris)
			}
			centreFirst(a.Field, rel.P, c.tris)
		}
		switch b.Kind {
		case geom.Sphere:
			c.roundMax = 1
		case geom.Capsule:
			c.roundMax = 2
		}
	}
	if len(c.tris) == 0 && !gentle {
		return out
	}
	var fb frame
	fb.set(&pb)
	t := fa.toLocal(fb.c)
	rb := [3]vec{fa.dirToLocal(fb.ax[0]), fa.dirToLocal(fb.ax[1]), fa.dirToLocal(fb.ax[2])}
	bToA := func(v geom.Vec3) vec { return t.MAdd(rb[0], v[0]).MAdd(rb[1], v[1]).MAdd(rb[2], v[2]) }
	dirBToA := func(v geom.Vec3) vec { return rb[0].Scale(v[0]).MAdd(rb[1], v[1]).MAdd(rb[2], v[2]) }

	c.nclus, c.margin, c.size = 0, margin, 0
	c.nkept = 0
	if a.Kind == geom.HeightField {
		c.nkept = copy(c.kept[:], kept)
	}
	c.pts = c.ptsBuf[:0]
	switch b.Kind {
	case geom.Box, geom.ConvexHull:
		var vb [8]geom.Vec3
		var fb6 [6]geom.HullFace
		B := shapePoly(b, &vb, &fb6)
		c.size = B.radius
		var bv [geom.MaxHullPoints]vec
		var bn [2 * geom.MaxHullPoints]vec
		var bo [2 * geom.MaxHullPoints]float32
		bverts, bnorm, boff := bv[:len(B.verts)], bn[:len(B.faces)], bo[:len(B.faces)]
		for i, v := range B.verts {
			bverts[i] = bToA(v)
		}
		for i := range B.faces {
			bnorm[i] = dirBToA(B.faces[i].Normal)
			boff[i] = B.faces[i].Offset + bnorm[i].Dot(t)
		}
		if gentle && b.Kind == geom.Box {
			c.seed(c.n0)
			if c.fieldBox(a.Field, &B, bverts, bnorm, boff, c.n0) {
				break
			}
			c.nclus, c.pts = 0, c.pts[:0]
			c.tris = fieldTris(a.Field, box, c.tris)
			centreFirst(a.Field, rel.P, c.tris)
		}
		for i := range c.tris {
			tr := &c.tris[i]
			if tr.n.Dot(t.Sub(tr.v[0])) < 0 {
				continue
			}
			c.polyTri(tr, &B, bverts, bnorm, boff)
		}
	case geom.Sphere:
		c.size = b.Radius
		reach := b.Radius + margin + cullSlack
		for i := range c.tris {
			tr := &c.tris[i]
			// Behind the plane, or beyond reach of it (and so of the triangle).
			if h := tr.n.Dot(t.Sub(tr.v[0])); h < 0 || h >= reach {
				continue
			}
			c.sphereTri(tr, t, b.Radius)
		}
	case geom.Capsule:
		c.size = b.Radius + b.HalfHeight
		axis := rb[1].Scale(b.HalfHeight)
		p0, p1 := t.Sub(axis), t.Add(axis)
		if gentle {
			c.seed(c.n0)
			if c.fieldCapsule(a.Field, p0, p1, b.Radius) {
				break
			}
			c.nclus, c.pts = 0, c.pts[:0]
			c.tris = fieldTris(a.Field, box, c.tris)
			centreFirst(a.Field, rel.P, c.tris)
		}
		reach := b.Radius + margin + cullSlack
		for i := range c.tris {
			tr := &c.tris[i]
			if tr.n.Dot(t.Sub(tr.v[0])) < 0 {
				continue
			}
			// The core's distance to the triangle's plane is least at one of its ends, and the
			// triangle is no nearer than its plane.
			if d0 := tr.n.Dot(tr.v[0]); min(tr.n.Dot(p0), tr.n.Dot(p1))-d0 >= reach {
				continue
			}
			c.capsuleTri(tr, p0, p1, b.Radius)
		}
	case geom.Cylinder:
		c.size = float32(math.Hypot(float64(b.Radius), float64(b.HalfHeight)))
		rel := geom.Pose{P: t.Vec3(), Q: pa.Q.Conjugate().Mul(pb.Q)}
		B, _ := convexOf(b, &rel)
		for i := range c.tris {
			tr := &c.tris[i]
			if tr.n.Dot(t.Sub(tr.v[0])) < 0 {
				continue
			}
			c.convexTri(tr, &B)
		}
	}
	// One manifold per cluster, its points reduced to four.
	sel := c.sel[:0]
	for k := 0; k < c.nclus; k++ {
		if c.roundMax == 1 {
			out = c.nearestPoint(k, &fa, out)
			continue
		}
		sel = sel[:0]
		for _, p := range c.pts {
			if p.cluster == k {
				sel = append(sel, p.clipPt)
			}
		}
		if len(sel) == 0 {
			continue
		}
		var keep [4]int
		var nk int
		if c.nkept > 0 && len(sel) > 4 {
			if c.keptOf(sel, &keep) {
				nk = 4
			} else {
				nk = reduceFrom(sel, c.normals[k], c.size, touchBand*c.margin, c.anchor(sel), &keep)
			}
		} else {
			nk = reducePts(sel, c.normals[k], c.size, touchBand*c.margin, &keep)
		}
		if c.roundMax > 0 && nk > c.roundMax {
			nk = deepestSpread(sel, &keep, nk, c.roundMax)
		}
		var m Manifold
		m.setNormal(c.normals[k])
		for i := 0; i < nk; i++ {
			p := &sel[keep[i]]
			m.addPoint(p.p, p.sep, p.feat)
		}
		m.toWorld(&fa)
		out = append(out, m)
	}
	return out
}

// keptOf puts into keep the indices in sel (a manifold's points, more than four) of the points of one
// of c.kept's manifolds, and reports whether it did: where all four of that manifold's points are
// among sel and no point of sel lies FieldKeepDepth or more below the deepest of them.
func (c *meshCtx) keptOf(sel []clipPt, keep *[4]int) bool {
	least := sel[0].sep
	for i := range sel {
		least = min(least, sel[i].sep)
	}
	var old [4]int
next:
	for _, kp := range c.kept[:c.nkept] {
		if kp.Count != 4 {
			continue
		}
		deep := float32(math.MaxFloat32)
		for j, id := range kp.IDs {
			i := slices.IndexFunc(sel, func(p clipPt) bool { return p.feat == id })
			if i < 0 {
				continue next
			}
			old[j] = i
			deep = min(deep, sel[i].sep)
		}
		if least > deep-FieldKeepDepth {
			*keep = old
			return true
		}
	}
	return false
}

// anchor returns the first point for the reduction of a manifold's points sel: the deepest of them
// (deepestPt), or the deepest of those that were the first points of c.kept's manifolds where no
// point of sel lies FieldKeepDepth or more below it.
func (c *meshCtx) anchor(sel []clipPt) int {
	best := -1
	least := sel[0].sep
	for i := range sel {
		least = min(least, sel[i].sep)
		for _, kp := range c.kept[:c.nkept] {
			if kp.Count > 0 && kp.IDs[0] == sel[i].feat && (best < 0 || sel[i].sep < sel[best].sep) {
				best = i
			}
		}
	}
	if best >= 0 && least > sel[best].sep-FieldKeepDepth {
		return best
	}
	return deepestPt(sel, c.size)
}

// nearestPoint appends cluster k's manifold for a ball on a height field: its one point nearest the
// ball's centre, with that point's own normal, along which its separation was measured. The deepest
// point would not do: where the nearest feature is a flat or concave edge, a triangle's separation is
// measured along its face normal (roundContact), and on a convex terrain a neighbour's plane, turned
// by a few degrees, cuts deeper into the ball than the terrain does.
func (c *meshCtx) nearestPoint(k int, fa *frame, out []Manifold) []Manifold {
	best := -1
	for i := range c.pts {
		if c.pts[i].cluster == k && (best < 0 || c.pts[i].dist < c.pts[best].dist) {
			best = i
		}
	}
	if best < 0 {
		return out
	}
	p := &c.pts[best]
	var m Manifold
	m.setNormal(p.n)
	m.addPoint(p.p, p.sep, p.feat)
	m.toWorld(fa)
	return append(out, m)
}

// deepestSpread cuts the kept points keep[:nk] of sel to max (1 or 2): the deepest, then the one
// farthest from it.
func deepestSpread(sel []clipPt, keep *[4]int, nk, max int) int {
	d := 0
	for i := 1; i < nk; i++ {
		if sel[keep[i]].sep < sel[keep[d]].sep {
			d = i
		}
	}
	keep[0], keep[d] = keep[d], keep[0]
	if max == 1 {
		return 1
	}
	f, best := 1, float32(-1)
	for i := 1; i < nk; i++ {
		if v := sel[keep[i]].p.Sub(sel[keep[0]].p); v.Dot(v) > best {
			f, best = i, v.Dot(v)
		}
	}
	keep[1], keep[f] = keep[f], keep[1]
	return 2
}

// fieldTris appends to out the triangles of the height field's cells under box (in the field's
// frame), leaving out cells wholly above or below it. A triangle's index is 2 (j (NX-1) + i) + k for
// triangle k of cell (i, j): stable while the same cell touches, as feature ids need.
func fieldTris(f *geom.HeightGrid, box geom.AABB, out []tri) []tri {
	i0, i1, j0, j1, ok := f.Cells(box)
	if !ok {
		return out
	}
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			h00, h10, h01, h11 := f.Height(i, j), f.Height(i+1, j), f.Height(i, j+1), f.Height(i+1, j+1)
			if min(h00, h10, h01, h11) > box.Max[1] || max(h00, h10, h01, h11) < box.Min[1] {
				continue
			}
			out = appendCell(f, i, j, out)
		}
	}
	return out
}

// fieldTrisNear is fieldTris for a ball centred at p (the field's frame) whose tests reach d (its
// radius, the margin and cullSlack): the cells whose boxes lie d or more from p (cellFar) are left
// out too, their triangles beyond the ball's reach, but for the first cell fieldTris would give and
// the one under p. With those two kept, centreFirst orders the triangles that remain as it orders
// them in fieldTris' list (the one under p first, the first cell's in its place), so the ball's
// tests meet the triangles that touch it in the same order and give the same contacts.
func fieldTrisNear(f *geom.HeightGrid, box geom.AABB, p geom.Vec3, d float32, out []tri) []tri {
	i0, i1, j0, j1, ok := f.Cells(box)
	if !ok {
		return out
	}
	ci, cj := -1, -1 // the cell under p, as centreFirst finds it
	if s, t := (p[0]-f.X0)/f.DX, (p[2]-f.Z0)/f.DZ; s >= 0 && t >= 0 && s < float32(f.NX-1) && t < float32(f.NZ-1) {
		ci, cj = int(s), int(t)
	}
	start := len(out)
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			h00, h10, h01, h11 := f.Height(i, j), f.Height(i+1, j), f.Height(i, j+1), f.Height(i+1, j+1)
			lo, hi := min(h00, h10, h01, h11), max(h00, h10, h01, h11)
			if lo > box.Max[1] || hi < box.Min[1] {
				continue
			}
			if len(out) > start && (i != ci || j != cj) && cellFar(f, i, j, lo, hi, vg(p), d) {
				continue
			}
			out = appendCell(f, i, j, out)
		}
	}
	return out
}

// appendCell appends cell (i, j)'s two triangles to out.
func appendCell(f *geom.HeightGrid, i, j int, out []tri) []tri {
	cx := f.NX - 1
	z0, z1 := f.Z0+float32(j)*f.DZ, f.Z0+float32(j+1)*f.DZ
	x0, x1 := f.X0+float32(i)*f.DX, f.X0+float32(i+1)*f.DX
	a, b := vec{X: x0, Y: f.Height(i, j), Z: z0}, vec{X: x1, Y: f.Height(i+1, j), Z: z0}
	c, d := vec{X: x0, Y: f.Height(i, j+1), Z: z1}, vec{X: x1, Y: f.Height(i+1, j+1), Z: z1}
	act := f.Active[j*cx+i]
	cell := uint32(j*cx + i)
	return append(out,
		tri{v: [3]vec{a, c, b}, n: unitNormal(a, c, b), active: act & 7, index: 2 * cell},
		tri{v: [3]vec{b, c, d}, n: unitNormal(b, c, d), active: act >> 3, index: 2*cell + 1})
}

// centreFirst moves the triangle under p (in the field's frame) to the front of tris, the field's
// triangles under a shape centred at p, so that the first manifold's normal, which the triangles
// within fieldMergeCos of it join, is the terrain's under the shape's centre: the normal of a hill's
// middle, which its triangles on either side share within half the spread, instead of the normal at
// one corner of the shape's box, from which the far corner's triangles may turn beyond it. It also
// keeps the normal steady while the shape rests, as warm starting wants.
func centreFirst(f *geom.HeightGrid, p geom.Vec3, tris []tri) bool {
	s, t := (p[0]-f.X0)/f.DX, (p[2]-f.Z0)/f.DZ
	if s < 0 || t < 0 || s >= float32(f.NX-1) || t >= float32(f.NZ-1) {
		return false
	}
	i, j := int(s), int(t)
	k := uint32(0) // triangle 0 of a cell is its half with s + t < 1 (fieldTris)
	if s-float32(i)+t-float32(j) >= 1 {
		k = 1
	}
	want := 2*uint32(j*(f.NX-1)+i) + k
	for n := range tris {
		if tris[n].index == want {
			tris[0], tris[n] = tris[n], tris[0]
			return true
		}
	}
	return false
}

// unitNormal is the unit normal of triangle abc on its counter-clockwise side.
func unitNormal(a, b, c vec) vec {
	n := b.Sub(a).Cross(c.Sub(a))
	return n.Scale(1 / vecmath.Sqrt(n.Dot(n)))
}

// meshTri reads triangle i of the mesh.
func meshTri(m *geom.Mesh, i int32) tri {
	t := m.Tris[i]
	return tri{
		v:      [3]vec{vg(m.Verts[t[0]]), vg(m.Verts[t[1]]), vg(m.Verts[t[2]])},
		n:      vg(m.Normals[i]),
		active: m.Active[i],
		index:  uint32(i),
	}
}

// polyTri is the separating axis test between triangle tr and polyhedron B (vertices, face normals and
// offsets in the mesh's frame), and the contact it gives.
func (c *meshCtx) polyTri(tr *tri, B *poly, bverts, bnorm []vec, boff []float32) {
	margin := c.margin
	// The triangle's face: the deepest vertex of B below it.
	d0 := tr.n.Dot(tr.v[0])
	sepT := float32(1e30)
	for _, v := range bverts {
		sepT = min(sepT, tr.n.Dot(v))
	}
	sepT -= d0
	if sepT >= margin {
		return
	}
	// B's faces: the deepest triangle vertex below each.
	sepB, iB := float32(-1e30), -1
	for i, n := range bnorm {
		s := min(n.Dot(tr.v[0]), n.Dot(tr.v[1]), n.Dot(tr.v[2])) - boff[i]
		if s >= margin {
			return
		}
		if s > sepB {
			sepB, iB = s, i
		}
	}
	// Edge pairs that make a face of the Minkowski difference. On the Gauss map the triangle's edge j
	// is the half circle from n to -n through its outward side u (a flat polygon's two faces), B's edge
	// the arc between its negated face normals. Where they cross, L, the triangle's support along L is
	// edge j and B's along -L its edge, so the gap along L is measured between the two edges alone.
	//
	// The crossing L is normal to both edges, so B's edge can only pair with edge j where the arc
	// between its faces' normals crosses the great circle normal to edge j: where the two normals lie
	// on opposite sides of it (their dots a, b with the edge of opposite signs). The crossing is then
	// -(|b| n0 + |a| n1) up to scale, which must lie on the side of u. A pair that fails either by
	// more than rounding is passed over before its crossing is computed; the exact test below
	// decides the rest, so the result is the same.
	sepE, eT, eB := float32(-1e30), -1, -1
	var axisE vec
	fd, fu := c.faceDots[:len(bnorm)], c.faceDotsU[:len(bnorm)]
	for j := 0; j < 3; j++ {
		q0 := tr.v[j]
		dq := tr.v[(j+1)%3].Sub(q0)
		u := dq.Cross(tr.n) // outward, in the triangle's plane
		tol := 1e-5 * (abs32f(dq.X) + abs32f(dq.Y) + abs32f(dq.Z))
		tolU := 1e-4 * (abs32f(u.X) + abs32f(u.Y) + abs32f(u.Z))
		for f, n := range bnorm {
			fd[f], fu[f] = n.Dot(dq), n.Dot(u)
		}
		for i := range B.edges {
			eb := &B.edges[i]
			a, b := fd[eb.F0], fd[eb.F1]
			if (a > tol && b > tol) || (a < -tol && b < -tol) {
				continue
			}
			if aa, ab := abs32f(a), abs32f(b); fu[eb.F0]*ab+fu[eb.F1]*aa > tolU*(aa+ab) {
				continue
			}
			p0 := bverts[eb.V0]
			dp := bverts[eb.V1].Sub(p0)
			l := dq.Cross(dp)
			l2 := l.Dot(l)
			if l2 <= edgeParallelSq*dq.Dot(dq)*dp.Dot(dp) {
				continue
			}
			if l.Dot(u) < 0 {
				l = l.Neg()
			}
			c, d := bnorm[eb.F0].Neg(), bnorm[eb.F1].Neg()
			cd := c.Cross(d)
			if c.Cross(l).Dot(cd) < 0 || l.Cross(d).Dot(cd) < 0 {
				continue
			}
			l = l.Scale(1 / vecmath.Sqrt(l2))
			s := l.Dot(p0) - l.Dot(q0)
			if s >= margin {
				return
			}
			if s > sepE {
				sepE, eT, eB, axisE = s, j, i, l
			}
		}
	}

	scale := B.radius
	mode, best := 0, sepT // 0: the triangle's face, 1: B's face, 2: edges
	if iB >= 0 && sepB > sepT+preferFaceTol(sepT, scale) {
		mode, best = 1, sepB
	}
	if eT >= 0 && sepE > best+preferFaceTol(best, scale) {
		mode = 2
	}
	// Internal edges: the triangle feature that gives the normal must be active.
	switch mode {
	case 1:
		n := bnorm[iB]
		ds := [3]float32{n.Dot(tr.v[0]), n.Dot(tr.v[1]), n.Dot(tr.v[2])}
		lo := min(ds[0], ds[1], ds[2])
		tol := 1e-3 * scale
		var on [3]bool
		cnt := 0
		for k := range ds {
			on[k] = ds[k] <= lo+tol
			if on[k] {
				cnt++
			}
		}
		feat := featFace
		if cnt == 1 {
			for k := range on {
				if on[k] {
					feat = featVert + k
				}
			}
		} else if cnt == 2 {
			for k := range on {
				if on[k] && on[(k+1)%3] {
					feat = featEdge + k
				}
			}
		}
		if !tr.activeFeat(feat) {
			mode = 0
		}
	case 2:
		if !tr.activeFeat(featEdge + eT) {
			mode = 0
		}
	}

	pts, tmp, keep := &c.clip, &c.tmp, &c.keep
	switch mode {
	case 2:
		q0 := tr.v[eT]
		dq := tr.v[(eT+1)%3].Sub(q0)
		eb := &B.edges[eB]
		p0 := bverts[eb.V0]
		dp := bverts[eb.V1].Sub(p0)
		s, u := closestSegments(q0, dq, p0, dp)
		pq, pp := q0.MAdd(dq, s), p0.MAdd(dp, u)
		keep[0] = clipPt{p: pq.Add(pp).Scale(0.5), sep: sepE, feat: mix32(2, tr.index, uint32(eT), uint32(eB))}
		c.add(axisE, keep[:1])
	case 0:
		// Reference: the triangle; incident: B's face most against its normal.
		inc := incidentFace(B, bverts, bnorm, tr.n)
		g := &B.faces[inc]
		for k, vi := range B.fv[g.First : g.First+g.Count] {
			pts[k] = clipPt{p: bverts[vi], feat: uint32(vi)}
		}
		cnt, res := clipToFace(pts, tmp, int(g.Count), tr.v[:], tr.n, 1e-3*scale)
		k := 0
		for i := 0; i < cnt; i++ {
			p := res[i]
			p.sep = tr.n.Dot(p.p) - d0
			if p.sep < margin {
				p.feat = mix32(0, tr.index, uint32(inc), p.feat)
				p.p = p.p.MAdd(tr.n, -p.sep/2)
				keep[k] = p
				k++
			}
		}
		c.add(tr.n, keep[:k])
	case 1:
		// Reference: B's face iB; incident: the triangle.
		f := &B.faces[iB]
		n := bnorm[iB]
		loop := &c.loop
		for k, vi := range B.fv[f.First : f.First+f.Count] {
			loop[k] = bverts[vi]
		}
		for k := 0; k < 3; k++ {
			pts[k] = clipPt{p: tr.v[k], feat: uint32(k)}
		}
		cnt, res := clipToFace(pts, tmp, 3, loop[:f.Count], n, 1e-3*scale)
		k := 0
		for i := 0; i < cnt; i++ {
			p := res[i]
			p.sep = n.Dot(p.p) - boff[iB]
			if p.sep < margin {
				p.feat = mix32(1, tr.index, uint32(iB), p.feat)
				p.p = p.p.MAdd(n, -p.sep/2)
				keep[k] = p
				k++
			}
		}
		c.add(n.Neg(), keep[:k])
	}
}

// closestOnTri returns the point of triangle tr nearest q and the feature it lies on (Ericson,
// Real-Time Collision Detection, 5.1.5).
func closestOnTri(tr *tri, q vec) (vec, int) {
	a, b, cc := tr.v[0], tr.v[1], tr.v[2]
	ab, ac, ap := b.Sub(a), cc.Sub(a), q.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a, featVert
	}
	bp := q.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b, featVert + 1
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return a.MAdd(ab, d1/(d1-d3)), featEdge
	}
	cp := q.Sub(cc)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return cc, featVert + 2
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return a.MAdd(ac, d2/(d2-d6)), featEdge + 2
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return b.MAdd(cc.Sub(b), (d4-d3)/((d4-d3)+(d5-d6))), featEdge + 1
	}
	den := 1 / (va + vb + vc)
	return a.MAdd(ab, vb*den).MAdd(ac, vc*den), featFace
}

// roundContact adds the contact of a core point p (radius r) nearest the triangle at q on feature f:
// along p - q, or along the triangle's normal when f is the face, an inactive edge or vertex, or p lies
// on the triangle.
func (c *meshCtx) roundContact(tr *tri, p, q vec, f int, r float32, id uint32) {
	d := p.Sub(q)
	dist := vecmath.Sqrt(d.Dot(d))
	if dist-r >= c.margin {
		return
	}
	n := tr.n
	sep := dist - r
	if f == featFace || !tr.activeFeat(f) || dist < 1e-6 {
		sep = min(sep, n.Dot(p.Sub(tr.v[0]))-r)
	} else {
		n = d.Scale(1 / dist)
	}
	pos := p.MAdd(n, -(r + sep/2))
	if c.add(n, []clipPt{{p: pos, sep: sep, feat: id}}) {
		c.pts[len(c.pts)-1].dist = dist
	}
}

// sphereTri is the contact of a sphere (centre p, radius r) with triangle tr.
func (c *meshCtx) sphereTri(tr *tri, p vec, r float32) {
	q, f := closestOnTri(tr, p)
	c.roundContact(tr, p, q, f, r, mix32(3, tr.index, uint32(f)))
}

// capsuleTri is the contact of a capsule (core p0-p1, radius r) with triangle tr: two points along the
// triangle's normal where the core lies almost parallel to it over its face, else the one pair of
// closest points.
func (c *meshCtx) capsuleTri(tr *tri, p0, p1 vec, r float32) {
	d := p1.Sub(p0)
	l2 := d.Dot(d)
	n := tr.n
	if dn := n.Dot(d); dn*dn < 0.01*l2 {
		// Clip the core to the triangle's prism.
		s0, s1 := float32(0), float32(1)
		for k := 0; k < 3; k++ {
			a, b := tr.v[k], tr.v[(k+1)%3]
			side := b.Sub(a).Cross(n) // outward
			h0 := side.Dot(p0.Sub(a))
			hd := side.Dot(d)
			if hd == 0 {
				if h0 > 0 {
					s0, s1 = 1, 0
				}
				continue
			}
			s := -h0 / hd
			if hd > 0 {
				s1 = min(s1, s)
			} else {
				s0 = max(s0, s)
			}
		}
		if s0 < s1 && (s1-s0)*(s1-s0)*l2 > 1e-6*r*r {
			d0 := n.Dot(tr.v[0])
			var pts [2]clipPt
			k := 0
			for j, s := range [2]float32{s0, s1} {
				p := p0.MAdd(d, s)
				sep := n.Dot(p) - d0 - r
				if sep < c.margin {
					pts[k] = clipPt{p: p.MAdd(n, -(r + sep/2)), sep: sep, feat: mix32(4, tr.index, uint32(j))}
					k++
				}
			}
			c.add(n, pts[:k])
			return
		}
	}
	// The closest pair: the core's ends against the triangle, the core against the triangle's edges,
	// or the core crossing the triangle.
	bestD := float32(1e30)
	var bp, bq vec
	bf := featFace
	for _, p := range [2]vec{p0, p1} {
		q, f := closestOnTri(tr, p)
		if dd := p.Sub(q); dd.Dot(dd) < bestD {
			bestD, bp, bq, bf = dd.Dot(dd), p, q, f
		}
	}
	for k := 0; k < 3; k++ {
		a := tr.v[k]
		e := tr.v[(k+1)%3].Sub(a)
		s, u := closestSegments(p0, d, a, e)
		p, q := p0.MAdd(d, s), a.MAdd(e, u)
		if dd := p.Sub(q); dd.Dot(dd) < bestD {
			bestD, bp, bq, bf = dd.Dot(dd), p, q, featEdge+k
		}
	}
	h0, h1 := n.Dot(p0.Sub(tr.v[0])), n.Dot(p1.Sub(tr.v[0]))
	if (h0 < 0) != (h1 < 0) {
		s := h0 / (h0 - h1)
		x := p0.MAdd(d, s)
		if q, f := closestOnTri(tr, x); f == featFace && x.Sub(q).Dot(x.Sub(q)) < 1e-12 {
			// The core pierces the face: push out the end below it.
			bp, bq, bf = p1, x, featFace
			if h0 < h1 {
				bp = p0
			}
		}
	}
	c.roundContact(tr, bp, bq, bf, r, mix32(5, tr.index, uint32(bf)))
}

// convexTri is the contact of a shape seen through its support function (a cylinder) with triangle
// tr. The triangle's face is the reference where the contact's normal comes from its face, or from an
// edge or vertex that is not active (a seam of a flat or smooth surface), so nothing catches on seams.
func (c *meshCtx) convexTri(tr *tri, B *convex) {
	A := triangleConvex(tr.v, tr.n)
	var m Manifold
	convexContact(&A, B, c.margin, false, &m)
	if m.Count > 0 && vg(m.Normal).Dot(tr.n) < refCos {
		// Which triangle feature the contact is on: the point of the triangle nearest it.
		_, f := closestOnTri(tr, vg(m.Points[0].Position))
		if !tr.activeFeat(f) {
			m.Count = 0
			convexContact(&A, B, c.margin, true, &m)
		}
	}
	var pts [4]clipPt
	for i := 0; i < m.Count; i++ {
		p := &m.Points[i]
		pts[i] = clipPt{p: vg(p.Position), sep: p.Separation, feat: mix32(6, tr.index, p.ID)}
	}
	c.add(vg(m.Normal), pts[:m.Count])
}
