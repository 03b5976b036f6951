package collide

import (
	"tumble/sim/geom"
	"tumble/sim/internal/vecmath"
)

// Convex hulls against every kind. Hull against hull (and box, a box being a hull of 8 vertices) is the
// separating axis test over the face normals of both and the cross products of edge pairs, with the
// edge pairs pruned to those whose arcs cross on the Gauss map (only they can be a face of the
// Minkowski difference: Gregorius, "The Separating Axis Test between Convex Polyhedra", GDC 2013). A
// face axis gives a face contact: the other hull's most anti-parallel face clipped against the
// reference face's side planes, reduced to four points. An edge axis gives one point between the two
// edges. All the work is done in A's frame.
//
// Feature ids hash the features that made a point (which hull holds the reference face, the reference
// and incident faces, and the incident vertex or the incident edge and side plane that cut it), so they
// stay the same while the same features touch.

// maxClip bounds the clipped polygon: an incident face of at most MaxHullPoints vertices gains at most
// one vertex per side plane.
const maxClip = 2 * geom.MaxHullPoints

// poly is a convex polyhedron as these routines read it: a hull's geometry, or a box's built on the
// stack by boxPoly.
type poly struct {
	verts  []geom.Vec3
	faces  []geom.HullFace
	fv     []uint16
	edges  []geom.HullEdge
	radius float32
}

func hullPoly(h *geom.Hull) poly {
	return poly{verts: h.Verts, faces: h.Faces, fv: h.FaceVerts, edges: h.Edges, radius: h.Radius}
}

// unitBox is the hull of the cube [-1, 1]^3: the topology every box borrows.
var unitBox = func() *geom.Hull {
	var pts []geom.Vec3
	for i := 0; i < 8; i++ {
		pts = append(pts, geom.Vec3{float32(i&1*2 - 1), float32(i>>1&1*2 - 1), float32(i>>2&1*2 - 1)})
	}
	h, err := geom.NewHull(pts)
	if err != nil || len(h.Faces) != 6 {
		panic("collide: the unit cube's hull: " + err.Error())
	}
	return h
}()

// UnitBox returns the hull of the cube [-1, 1]^3 whose faces, face loops and edges every box's
// polyhedron borrows (its vertices and face offsets scaled by the half extents): a port of this
// package's hull routines reads a box through it. It is shared: do not change it.
func UnitBox() *geom.Hull { return unitBox }

// boxPoly makes the polyhedron of a box with half extents h in the given arrays.
func boxPoly(h geom.Vec3, verts *[8]geom.Vec3, faces *[6]geom.HullFace) poly {
	for i, v := range unitBox.Verts {
		verts[i] = geom.Vec3{v[0] * h[0], v[1] * h[1], v[2] * h[2]}
	}
	for i, f := range unitBox.Faces {
		f.Offset = vecmath.Abs(f.Normal[0])*h[0] + vecmath.Abs(f.Normal[1])*h[1] + vecmath.Abs(f.Normal[2])*h[2]
		faces[i] = f
	}
	return poly{verts: verts[:], faces: faces[:], fv: unitBox.FaceVerts, edges: unitBox.Edges, radius: h.Len()}
}

// shapePoly returns the polyhedron of a box or hull shape.
func shapePoly(s *geom.Shape, verts *[8]geom.Vec3, faces *[6]geom.HullFace) poly {
	if s.Kind == geom.Box {
		return boxPoly(s.HalfExtents, verts, faces)
	}
	return hullPoly(s.Hull)
}

// mix32 hashes feature numbers into an id (FNV-1a over the words).
func mix32(w ...uint32) uint32 {
	h := uint32(2166136261)
	for _, x := range w {
		for k := 0; k < 4; k++ {
			h ^= x >> (8 * k) & 0xff
			h *= 16777619
		}
	}
	return h
}

// hullHull collides two polyhedra (hulls or boxes): a and b with poses pa and pb.
func hullHull(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	var va, vb [8]geom.Vec3
	var fa6, fb6 [6]geom.HullFace
	A, B := shapePoly(a, &va, &fa6), shapePoly(b, &vb, &fb6)
	if lim, c := A.radius+B.radius+margin, vg(pb.P).Sub(vg(pa.P)); c.Dot(c) > lim*lim {
		return
	}
	var fa, fb frame
	fa.set(pa)
	fb.set(pb)
	// B's pose in A's frame: rotation columns rb and origin t.
	t := fa.toLocal(fb.c)
	rb := [3]vec{fa.dirToLocal(fb.ax[0]), fa.dirToLocal(fb.ax[1]), fa.dirToLocal(fb.ax[2])}
	bToA := func(v geom.Vec3) vec { return t.MAdd(rb[0], v[0]).MAdd(rb[1], v[1]).MAdd(rb[2], v[2]) }
	dirBToA := func(v geom.Vec3) vec { return rb[0].Scale(v[0]).MAdd(rb[1], v[1]).MAdd(rb[2], v[2]) }
	var bv [geom.MaxHullPoints]vec // B's vertices in A's frame
	for i, v := range B.verts {
		bv[i] = bToA(v)
	}
	bverts := bv[:len(B.verts)]

	// Face axes of A: the deepest vertex of B below each face.
	sepA, iA := float32(-1e30), 0
	for i := range A.faces {
		f := &A.faces[i]
		n := vg(f.Normal)
		s := float32(1e30)
		for _, v := range bverts {
			s = min(s, n.Dot(v))
		}
		s -= f.Offset
		if s >= margin {
			return
		}
		if s > sepA {
			sepA, iA = s, i
		}
	}
	// Face axes of B: the deepest vertex of A below each (B's face in A's frame).
	var bnorm [2 * geom.MaxHullPoints]vec // B's face normals in A's frame
	sepB, iB := float32(-1e30), 0
	for i := range B.faces {
		f := &B.faces[i]
		n := dirBToA(f.Normal)
		bnorm[i] = n
		d := f.Offset + n.Dot(t)
		s := float32(1e30)
		for _, v := range A.verts {
			s = min(s, n.Dot(vg(v)))
		}
		s -= d
		if s >= margin {
			return
		}
		if s > sepB {
			sepB, iB = s, i
		}
	}
	// Edge pairs that form a face of the Minkowski difference. B's edge data (its negated face normals
	// c, d and their cross product, in A's frame) is made once per B edge; A's per pair, inline.
	sepE, eA, eB := float32(-1e30), -1, -1
	var axisE vec
	for j := range B.edges {
		eb := &B.edges[j]
		nc, nd := bnorm[eb.F0].Neg(), bnorm[eb.F1].Neg()
		dxc := nd.Cross(nc)
		pb0 := bverts[eb.V0]
		db := bverts[eb.V1].Sub(pb0)
		for i := range A.edges {
			ea := &A.edges[i]
			na, nb := &A.faces[ea.F0].Normal, &A.faces[ea.F1].Normal
			// The arcs a-b and c-d cross on the Gauss map (minkowskiFace, unrolled).
			bxa := vec{X: nb[1]*na[2] - nb[2]*na[1], Y: nb[2]*na[0] - nb[0]*na[2], Z: nb[0]*na[1] - nb[1]*na[0]}
			cba, dba := nc.Dot(bxa), nd.Dot(bxa)
			if cba*dba >= 0 {
				continue
			}
			adc := na[0]*dxc.X + na[1]*dxc.Y + na[2]*dxc.Z
			bdc := nb[0]*dxc.X + nb[1]*dxc.Y + nb[2]*dxc.Z
			if adc*bdc >= 0 || cba*bdc <= 0 {
				continue
			}
			pa0 := vg(A.verts[ea.V0])
			da := vg(A.verts[ea.V1]).Sub(pa0)
			l := da.Cross(db)
			l2 := l.Dot(l)
			if l2 <= edgeParallelSq*da.Dot(da)*db.Dot(db) {
				continue
			}
			l = l.Scale(1 / vecmath.Sqrt(l2))
			if l.Dot(pa0) < 0 { // point away from A's centre (its origin)
				l = l.Neg()
			}
			s := l.Dot(pb0.Sub(pa0))
			if s >= margin {
				return
			}
			if s > sepE {
				sepE, eA, eB, axisE = s, i, j, l
			}
		}
	}

	scale := min(A.radius, B.radius)
	refIsB := sepB > sepA+preferFaceTol(sepA, scale)
	faceSep := sepA
	if refIsB {
		faceSep = sepB
	}
	if eA >= 0 && sepE > faceSep+preferFaceTol(faceSep, scale) {
		ea, eb := &A.edges[eA], &B.edges[eB]
		p0 := vg(A.verts[ea.V0])
		d1 := vg(A.verts[ea.V1]).Sub(p0)
		q0 := bverts[eb.V0]
		d2 := bverts[eb.V1].Sub(q0)
		s, u := closestSegments(p0, d1, q0, d2)
		pa, pb := p0.MAdd(d1, s), q0.MAdd(d2, u)
		m.setNormal(axisE)
		m.addPoint(pa.Add(pb).Scale(0.5), sepE, mix32(0xedce, uint32(eA), uint32(eB)))
		m.toWorld(&fa)
		return
	}

	faceContact(&A, &B, bverts, bnorm[:len(B.faces)], t, refIsB, iA, iB, scale, margin, m)
	m.toWorld(&fa)
}

// faceContact clips the incident face against the reference face (A's face iA, or B's face iB when
// refIsB) and adds the points below the margin, at most four, in A's frame. bverts and bnorm are B's
// vertices and face normals in A's frame, t B's origin there.
func faceContact(A, B *poly, bverts, bnorm []vec, t vec, refIsB bool, iA, iB int, scale, margin float32, m *Manifold) {
	// Reference face R (normal n, offset d, loop in A's frame) and incident polygon.
	var refLoop [geom.MaxHullPoints]vec
	var poly [maxClip]clipPt
	var n vec
	var d float32
	var nref, ninc int
	var refFace, incFace int
	if !refIsB {
		refFace = iA
		f := &A.faces[iA]
		n, d = vg(f.Normal), f.Offset
		for k, vi := range A.fv[f.First : f.First+f.Count] {
			refLoop[k] = vg(A.verts[vi])
		}
		nref = int(f.Count)
		incFace = incidentFace(B, bverts, bnorm, n)
		g := &B.faces[incFace]
		for k, vi := range B.fv[g.First : g.First+g.Count] {
			poly[k] = clipPt{p: bverts[vi], feat: uint32(vi)}
		}
		ninc = int(g.Count)
	} else {
		refFace = iB
		f := &B.faces[iB]
		n = bnorm[iB]
		d = f.Offset + n.Dot(t)
		for k, vi := range B.fv[f.First : f.First+f.Count] {
			refLoop[k] = bverts[vi]
		}
		nref = int(f.Count)
		var av [geom.MaxHullPoints]vec
		for i, v := range A.verts {
			av[i] = vg(v)
		}
		var an [2 * geom.MaxHullPoints]vec
		for i := range A.faces {
			an[i] = vg(A.faces[i].Normal)
		}
		incFace = incidentFace(A, av[:len(A.verts)], an[:len(A.faces)], n)
		g := &A.faces[incFace]
		for k, vi := range A.fv[g.First : g.First+g.Count] {
			poly[k] = clipPt{p: vg(A.verts[vi]), feat: uint32(vi)}
		}
		ninc = int(g.Count)
	}
	var tmp [maxClip]clipPt
	cnt, out := clipToFace(&poly, &tmp, ninc, refLoop[:nref], n, 1e-3*scale)
	// Keep the points below the margin.
	var pts [maxClip]clipPt
	k := 0
	for i := 0; i < cnt; i++ {
		p := out[i]
		p.sep = n.Dot(p.p) - d
		if p.sep < margin {
			pts[k] = p
			k++
		}
	}
	if k == 0 {
		// Every clipped point is above the margin though the faces overlap by less: the incident
		// polygon reaches past the reference face's sides. Its deepest vertex stands in.
		deep := clipPt{sep: 1e30}
		for i := 0; i < ninc; i++ {
			if s := n.Dot(poly[i].p) - d; s < deep.sep {
				deep = poly[i]
				deep.sep = s
			}
		}
		if deep.sep >= margin {
			return
		}
		pts[0], k = deep, 1
	}
	var keep [4]int
	nk := reducePts(pts[:k], n, scale, touchBand*margin, &keep)
	side := uint32(0)
	normal := n
	if refIsB {
		side, normal = 1, n.Neg()
	}
	m.setNormal(normal)
	for i := 0; i < nk; i++ {
		p := &pts[keep[i]]
		m.addPoint(p.p.MAdd(n, -p.sep/2), p.sep, mix32(side, uint32(refFace), uint32(incFace), p.feat))
	}
}

// minkowskiFace reports whether the arc from a to b (A's edge's face normals) and the arc from c to d
// (B's, negated) cross on the unit sphere: only then is the pair's cross product a candidate axis.
func minkowskiFace(a, b, c, d vec) bool {
	bxa := b.Cross(a)
	dxc := d.Cross(c)
	cba, dba := c.Dot(bxa), d.Dot(bxa)
	adc, bdc := a.Dot(dxc), b.Dot(dxc)
	return cba*dba < 0 && adc*bdc < 0 && cba*bdc > 0
}

// incidentFace returns the face of p (vertices verts and face normals norms in the reference frame)
// that meets the reference normal n most head-on among the faces around p's deepest vertex along -n,
// so the clipped polygon holds the deepest point.
func incidentFace(p *poly, verts, norms []vec, n vec) int {
	deep, dv := float32(1e30), 0
	for i, v := range verts {
		if d := n.Dot(v); d < deep {
			deep, dv = d, i
		}
	}
	best, bi := float32(2), 0
	for i := range p.faces {
		f := &p.faces[i]
		has := false
		for _, vi := range p.fv[f.First : f.First+f.Count] {
			has = has || int(vi) == dv
		}
		if !has {
			continue
		}
		if dd := norms[i].Dot(n); dd < best {
			best, bi = dd, i
		}
	}
	return bi
}

// clipPt is a vertex of the clipped incident polygon: its position (A's frame), its separation from the
// reference face, and the feature that made it.
type clipPt struct {
	p    vec
	sep  float32
	feat uint32
}

// clipToFace clips the convex polygon in[:n] by the side planes of the reference face loop (normal nrm):
// Sutherland-Hodgman, one side plane at a time. A vertex up to band beyond a side plane is kept as it
// is, so a face flush with the reference face's edge keeps its vertex ids. It returns the count and the
// array holding the result.
func clipToFace(in, tmp *[maxClip]clipPt, n int, loop []vec, nrm vec, band float32) (int, *[maxClip]clipPt) {
	src, dst := in, tmp
	for k := range loop {
		if n == 0 {
			break
		}
		a := loop[k]
		b := loop[(k+1)%len(loop)]
		s := b.Sub(a).Cross(nrm) // outward side normal
		l := vecmath.Sqrt(s.Dot(s))
		if l == 0 {
			continue
		}
		s = s.Scale(1 / l)
		lim := s.Dot(a)
		out := 0
		for i := 0; i < n; i++ {
			p, q := &src[i], &src[(i+1)%n]
			dp, dq := s.Dot(p.p)-lim, s.Dot(q.p)-lim
			if dp <= band {
				if out < maxClip {
					dst[out] = *p
					out++
				}
			}
			if (dp <= band) != (dq <= band) && (dp < 0) != (dq < 0) {
				u := dp / (dp - dq)
				if out < maxClip {
					dst[out] = clipPt{p: p.p.Add(q.p.Sub(p.p).Scale(u)), feat: 1<<31 | uint32(k)<<16 | (p.feat*31+q.feat)&0xffff}
					out++
				}
			}
		}
		n = out
		src, dst = dst, src
	}
	return n, src
}

// Tolerances of reducePts, as fractions of the hull size: among points within these of the best, the
// first is taken, so near ties resolve the same way every frame.
const (
	hullDepthTol = 1e-3
	hullAreaTol  = 1e-3
)

// touchBand is the share of the contact margin within which a point counts as touching as much as the
// deepest one, for reducePts (a quarter of the default 2 cm margin: 5 mm, the default allowed overlap).
const touchBand = 0.25

// reducePts chooses at most four of the points to keep (indices into keep) and returns how many: the
// deepest, the farthest from it, then the two making the largest triangles with those on either side.
// Touching points come first: the three choices after the deepest are made among the points within
// band of its depth, and only a slot that none of them fills goes to a speculative point further out.
// Otherwise a far speculative point spans a larger area than a touching one and takes its place: a
// rounded hull (the bunny on its side) lying on three nearly level vertices kept two of them and a
// vertex a centimetre up, so it pivoted about the two, landed on the dropped one, and the next step's
// manifold dropped another: it rocked at 0.06 m/s for ever (TestHullOnPlaneKeepsTheVerticesItStandsOn, and the bunny preset in
// scenes' TestHullPresetsSettle).
func reducePts(p []clipPt, n vec, size, band float32, keep *[4]int) int {
	if len(p) <= 4 {
		for i := range p {
			keep[i] = i
		}
		return len(p)
	}
	return reduceFrom(p, n, size, band, deepestPt(p, size), keep)
}

// deepestPt returns the index of the deepest of points p, the first among those within hullDepthTol
// times size of it.
func deepestPt(p []clipPt, size float32) int {
	i0 := 0
	for i := range p {
		if p[i].sep < p[i0].sep-hullDepthTol*size {
			i0 = i
		}
	}
	return i0
}

// reduceFrom is reducePts for more than four points with the first choice, i0, made: the farthest from
// it, then the two widest triangles, touching points first.
func reduceFrom(p []clipPt, n vec, size, band float32, i0 int, keep *[4]int) int {
	touching := p[i0].sep + band
	i1, i2, i3 := -1, -1, -1
	for _, all := range [2]bool{false, true} {
		use := func(i int) bool { return all || p[i].sep <= touching }
		if i1 < 0 {
			best := float32(-1)
			for i := range p {
				d := p[i].p.Sub(p[i0].p)
				if l := d.Dot(d); i != i0 && use(i) && l > best+hullAreaTol*size*size {
					i1, best = i, l
				}
			}
			if i1 < 0 {
				continue
			}
		}
		a, b := p[i0].p, p[i1].p
		hi, lo := float32(0), float32(0)
		if i2 >= 0 {
			hi = b.Sub(a).Cross(p[i2].p.Sub(a)).Dot(n)
		}
		if i3 >= 0 {
			lo = b.Sub(a).Cross(p[i3].p.Sub(a)).Dot(n)
		}
		for i := range p {
			if i == i0 || i == i1 || !use(i) {
				continue
			}
			ar := b.Sub(a).Cross(p[i].p.Sub(a)).Dot(n)
			// A slot a touching point filled keeps it: the second round only fills empty ones.
			if ar > hi+hullAreaTol*size*size && (!all || i2 < 0 || p[i2].sep > touching) {
				i2, hi = i, ar
			}
			if ar < lo-hullAreaTol*size*size && (!all || i3 < 0 || p[i3].sep > touching) {
				i3, lo = i, ar
			}
		}
	}
	keep[0], keep[1] = i0, i1
	c := 2
	if i2 >= 0 {
		keep[c] = i2
		c++
	}
	if i3 >= 0 {
		keep[c] = i3
		c++
	}
	return c
}

// planeHull collides plane a with hull b: the vertices below the margin, at most four (the deepest and
// the widest spread), each with its vertex index as id.
func planeHull(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	n, d := worldPlane(a, pa)
	h := b.Hull
	if n.Dot(vg(pb.P))-d-h.Radius >= margin {
		return
	}
	var f frame
	f.set(pb)
	var pts [geom.MaxHullPoints]clipPt
	k := 0
	for i, v := range h.Verts {
		w := f.toWorld(vg(v))
		if s := n.Dot(w) - d; s < margin {
			pts[k] = clipPt{p: w, sep: s, feat: uint32(i)}
			k++
		}
	}
	if k == 0 {
		return
	}
	var keep [4]int
	nk := reducePts(pts[:k], n, h.Radius, touchBand*margin, &keep)
	m.setNormal(n)
	for i := 0; i < nk; i++ {
		p := &pts[keep[i]]
		planePoint(m, n, p.p, p.sep, p.feat)
	}
}

// closestOnFace returns the point of face f (loop in the hull's frame) closest to q, and whether it
// lies inside the face (not on its boundary).
func closestOnFace(h *geom.Hull, f *geom.HullFace, q vec) (vec, bool) {
	n := vg(f.Normal)
	proj := q.MAdd(n, -(n.Dot(q) - f.Offset))
	loop := h.FaceVerts[f.First : f.First+f.Count]
	inside := true
	for k := range loop {
		a, b := vg(h.Verts[loop[k]]), vg(h.Verts[loop[(k+1)%len(loop)]])
		if b.Sub(a).Cross(n).Dot(proj.Sub(a)) > 0 {
			inside = false
			break
		}
	}
	if inside {
		return proj, true
	}
	best, bd := proj, float32(1e30)
	for k := range loop {
		a, b := vg(h.Verts[loop[k]]), vg(h.Verts[loop[(k+1)%len(loop)]])
		e := b.Sub(a)
		c := a.MAdd(e, closestOnSegment(a, e, q))
		if dd := c.Sub(q).Dot(c.Sub(q)); dd < bd {
			best, bd = c, dd
		}
	}
	return best, false
}

// hullSphere collides hull a with sphere b, in the hull's frame: the closest point of the hull's surface
// to the centre (over the faces the centre is in front of), or, with the centre inside, the face it is
// least deep below.
func hullSphere(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	h := a.Hull
	if lim, c := h.Radius+b.Radius+margin, vg(pb.P).Sub(vg(pa.P)); c.Dot(c) > lim*lim {
		return
	}
	var f frame
	f.set(pa)
	c := f.toLocal(vg(pb.P))
	r := b.Radius
	smax, imax := float32(-1e30), 0
	for i := range h.Faces {
		if s := vg(h.Faces[i].Normal).Dot(c) - h.Faces[i].Offset; s > smax {
			smax, imax = s, i
		}
	}
	if smax-r >= margin {
		return // the face's plane separates: the distance is at least smax
	}
	var q, n vec
	var dist float32
	if smax <= 0 {
		n = vg(h.Faces[imax].Normal)
		q, dist = c.MAdd(n, -smax), smax
	} else {
		bd := float32(1e30)
		for i := range h.Faces {
			fc := &h.Faces[i]
			if vg(fc.Normal).Dot(c)-fc.Offset <= 0 {
				continue
			}
			p, _ := closestOnFace(h, fc, c)
			if dd := p.Sub(c).Dot(p.Sub(c)); dd < bd {
				bd, q = dd, p
			}
		}
		dist = vecmath.Sqrt(bd)
		n = directionOr(c.Sub(q), vg(h.Faces[imax].Normal))
	}
	s := dist - r
	if s >= margin {
		return
	}
	m.setNormal(n)
	m.addPoint(q.MAdd(n, s/2), s, 0)
	m.toWorld(&f)
}

// hullCapsule collides hull a with capsule b, in the hull's frame. With the core segment outside the
// hull, the exact closest points of segment and hull decide; where the closest point lies on a face
// (nearly straight below the core) and the core lies along it, the segment is clipped to the face for
// two points, so the capsule cannot pivot. With the core inside, the face of least penetration of the
// deepest end is the normal, and the segment clipped to it gives the points.
func hullCapsule(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	h := a.Hull
	r := b.Radius
	if lim, c := h.Radius+b.HalfHeight+r+margin, vg(pb.P).Sub(vg(pa.P)); c.Dot(c) > lim*lim {
		return
	}
	var f frame
	f.set(pa)
	w0, w1 := capsuleEnds(b, pb)
	e0, e1 := f.toLocal(w0), f.toLocal(w1)
	dir := e1.Sub(e0)
	// Does the core cross the hull? Clip it by every face plane (Cyrus-Beck).
	t0, t1 := float32(0), float32(1)
	best, bf := float32(-1e30), 0 // the face axis of least penetration
	for i := range h.Faces {
		fc := &h.Faces[i]
		nn := vg(fc.Normal)
		d0, d1 := nn.Dot(e0)-fc.Offset, nn.Dot(e1)-fc.Offset
		if s := min(d0, d1); s > best {
			best, bf = s, i
		}
		switch {
		case d0 > 0 && d1 > 0:
			t0, t1 = 1, 0
		case d0 > 0:
			t0 = max(t0, d0/(d0-d1))
		case d1 > 0:
			t1 = min(t1, d0/(d0-d1))
		}
	}
	if best-r >= margin {
		return
	}
	if t0 > t1 {
		// Outside: closest points over the faces the segment reaches in front of.
		bd := float32(1e30)
		var q, s vec
		for i := range h.Faces {
			fc := &h.Faces[i]
			nn := vg(fc.Normal)
			if nn.Dot(e0)-fc.Offset <= 0 && nn.Dot(e1)-fc.Offset <= 0 {
				continue
			}
			for _, e := range [2]vec{e0, e1} {
				p, _ := closestOnFace(h, fc, e)
				if dd := p.Sub(e).Dot(p.Sub(e)); dd < bd {
					bd, q, s = dd, p, e
				}
			}
			loop := h.FaceVerts[fc.First : fc.First+fc.Count]
			for k := range loop {
				av, bv := vg(h.Verts[loop[k]]), vg(h.Verts[loop[(k+1)%len(loop)]])
				u, v := closestSegments(e0, dir, av, bv.Sub(av))
				sp, hp := e0.MAdd(dir, u), av.MAdd(bv.Sub(av), v)
				if dd := hp.Sub(sp).Dot(hp.Sub(sp)); dd < bd {
					bd, q, s = dd, hp, sp
				}
			}
		}
		dist := vecmath.Sqrt(bd)
		if dist-r >= margin {
			return
		}
		n := directionOr(s.Sub(q), vg(h.Faces[bf].Normal))
		// On (or nearly straight above) a face, with the core lying along it: two points.
		for i := range h.Faces {
			fc := &h.Faces[i]
			nn := vg(fc.Normal)
			if nn.Dot(n) > faceNormalCos && vecmath.Abs(nn.Dot(dir)) <= lyingSin*vecmath.Sqrt(dir.Dot(dir)) {
				if segmentOnFace(m, h, i, e0, dir, r, margin) > 0 {
					m.toWorld(&f)
					return
				}
				break
			}
		}
		sep := dist - r
		m.setNormal(n)
		m.addPoint(q.MAdd(n, sep/2), sep, mix32(0xca95, uint32(bf)))
		m.toWorld(&f)
		return
	}
	// The core is inside: edge axes (the core's direction across each hull edge) compete with the
	// faces, which are preferred within preferFaceTol.
	bestE, be := float32(-1e30), -1
	var axE vec
	for i := range h.Edges {
		ed := &h.Edges[i]
		av := vg(h.Verts[ed.V0])
		l := dir.Cross(vg(h.Verts[ed.V1]).Sub(av))
		l2 := l.Dot(l)
		if l2 <= edgeParallelSq*dir.Dot(dir)*h.Radius*h.Radius {
			continue
		}
		l = l.Scale(1 / vecmath.Sqrt(l2))
		if l.Dot(av) < 0 { // away from the hull's centre, across this edge
			l = l.Neg()
		}
		sup := float32(-1e30)
		for _, v := range h.Verts {
			sup = max(sup, l.Dot(vg(v)))
		}
		if s := min(l.Dot(e0), l.Dot(e1)) - sup; s > bestE {
			bestE, be, axE = s, i, l
		}
	}
	if be >= 0 && bestE > best+preferFaceTol(best, h.Radius) {
		if bestE-r >= margin {
			return
		}
		ed := &h.Edges[be]
		av := vg(h.Verts[ed.V0])
		u, v := closestSegments(e0, dir, av, vg(h.Verts[ed.V1]).Sub(av))
		sp, hp := e0.MAdd(dir, u), av.MAdd(vg(h.Verts[ed.V1]).Sub(av), v)
		sep := bestE - r
		m.setNormal(axE)
		m.addPoint(hp.Add(sp.MAdd(axE, -r)).Scale(0.5), sep, mix32(0xca9e, uint32(be)))
		m.toWorld(&f)
		return
	}
	if segmentOnFace(m, h, bf, e0, dir, r, margin) == 0 {
		// Both clipped ends fell outside the face: the deepest end alone.
		fc := &h.Faces[bf]
		nn := vg(fc.Normal)
		e, id := e0, uint32(0)
		if nn.Dot(e1) < nn.Dot(e0) {
			e, id = e1, 1
		}
		sep := nn.Dot(e) - fc.Offset - r
		m.setNormal(nn)
		m.addPoint(e.MAdd(nn, -r-sep/2), sep, mix32(0xca95, uint32(bf), id))
	}
	m.toWorld(&f)
}

// segmentOnFace clips the core segment e0 + t*dir to face fi's side planes and adds a point for each
// end of the clipped piece below the margin (ids: the face and which end), with the face's normal.
// It returns the number of points added.
func segmentOnFace(m *Manifold, h *geom.Hull, fi int, e0, dir vec, r, margin float32) int {
	fc := &h.Faces[fi]
	nn := vg(fc.Normal)
	loop := h.FaceVerts[fc.First : fc.First+fc.Count]
	t0, t1 := float32(0), float32(1)
	for k := range loop {
		av, bv := vg(h.Verts[loop[k]]), vg(h.Verts[loop[(k+1)%len(loop)]])
		s := bv.Sub(av).Cross(nn)
		d0 := s.Dot(e0.Sub(av))
		dd := s.Dot(dir)
		// Points with d0 + t*dd <= 0 are inside this side plane.
		switch {
		case dd > 0:
			t1 = min(t1, -d0/dd)
		case dd < 0:
			t0 = max(t0, -d0/dd)
		case d0 > 0:
			return 0
		}
	}
	if t0 > t1 {
		return 0
	}
	m.setNormal(nn)
	added := 0
	for end, t := range [2]float32{t0, t1} {
		e := e0.MAdd(dir, t)
		sep := nn.Dot(e) - fc.Offset - r
		if sep < margin {
			m.addPoint(e.MAdd(nn, -r-sep/2), sep, mix32(0xca95, uint32(fi), uint32(end)))
			added++
		}
	}
	return added
}
