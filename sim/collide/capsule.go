package collide

import (
	"tumble/sim/geom"
	"tumble/sim/internal/vecmath"
)

// Capsules against capsules and boxes. A capsule is its core segment grown by its radius, so both
// routines find closest points of the core segment and offset them by the radius; where the segment
// lies along the other shape's surface they give two points instead of one so the capsule cannot pivot
// about a single contact.

// lyingSin is the sine of the largest angle between two capsule cores for which a capsule resting on
// another gets two contact points (its ends over the other) instead of one.
const lyingSin = 0.03

// perpendicularTol bounds, as a fraction of sqrt((ra + rb)^2 + 1 m^2) (the radii's sum, kept off
// zero for bare segments), the part of the closest points' difference off the cores' common
// perpendicular d1 x d2 for which that perpendicular is taken as the normal. With both closest
// points inside their cores the difference lies along d1 x d2 in exact arithmetic; a larger part
// off it means the points are not the lines' closest points: the cores are nearly parallel
// (closestSegments took the middle of their overlap, or its a e - b^2 lost every digit) and the
// lines meet far beyond the cores. Two capsules lying level side by side, 1.2e-4 rad apart, have a
// vertical d1 x d2 while they touch sideways: that normal measures their whole diameter as depth.
// The closest points' difference is the normal then.
const perpendicularTol = 1e-3

// faceNormalCos is the cosine of the largest angle between a box's face normal and the closest-point
// direction from the box to a capsule core beyond that face's edge for which the contact is still taken
// as one on the face. The depth measured along the face normal then errs by at most 0.2% of the
// distance.
const faceNormalCos = 0.998

// Feature id bases of the capsule contacts.
const (
	idCapsuleCapsule = 0     // + 0 single point, + 1 and + 2 the two ends of a side-by-side contact
	idBoxCapsule     = 0x100 // + region code (see clampBox) of the box feature, single point
	idCapsuleOnFace  = 0x200 // + face<<4 | end<<3 | clipping side plane (0 = none, 1..4)
	idCapsuleOnEdge  = 0x300 // + box edge: axis<<2 | sides of the other two axes
)

// capsuleCapsule collides two capsules.
func capsuleCapsule(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	a0, a1 := capsuleEnds(a, pa)
	b0, b1 := capsuleEnds(b, pb)
	da, db := a1.Sub(a0), b1.Sub(b0)
	s, t := closestSegments(a0, da, b0, db)
	p, q := a0.MAdd(da, s), b0.MAdd(db, t)
	v := q.Sub(p)
	dist2 := v.Dot(v)
	ra, rb := a.Radius, b.Radius
	lim := ra + rb + margin
	if dist2 >= lim*lim && lim > 0 {
		return
	}
	cr := da.Cross(db)
	crSq, aa, bb := cr.Dot(cr), da.Dot(da), db.Dot(db)
	var n vec
	switch {
	case s > 0 && s < 1 && t > 0 && t < 1 && crSq > parallelSin*parallelSin*aa*bb &&
		offPerpendicularSq(v, cr, crSq, dist2) <= perpendicularTol*perpendicularTol*((ra+rb)*(ra+rb)+1):
		// Closest points inside both cores: the common perpendicular, exact even when the cores
		// nearly meet and the closest points' difference is mostly rounding.
		n = cr.Scale(1 / vecmath.Sqrt(crSq))
		side := v.Dot(n)
		if side == 0 {
			side = n.Dot(vg(pb.P).Sub(vg(pa.P)))
		}
		if side < 0 {
			n = n.Neg()
		}
	case dist2 > 1e-14:
		n = v.Scale(1 / vecmath.Sqrt(dist2))
	default:
		// The cores meet end to end or lie along one line: any direction across A's core.
		n = perpendicular(da)
		if n.Dot(vg(pb.P).Sub(vg(pa.P))) < 0 {
			n = n.Neg()
		}
	}
	m.setNormal(n)
	if aa > degenerateSq && bb > degenerateSq && crSq < lyingSin*lyingSin*aa*bb {
		// Side by side: one point at each end of the stretch where the cores overlap along A.
		u0, u1 := b0.Sub(a0).Dot(da)/aa, b1.Sub(a0).Dot(da)/aa
		if u0 > u1 {
			u0, u1 = u1, u0
		}
		lo, hi := max(u0, 0), min(u1, 1)
		if (hi-lo)*vecmath.Sqrt(aa) > 1e-3*(ra+rb) {
			pl := a0.MAdd(da, lo)
			roundPoint(m, pl, b0.MAdd(db, closestOnSegment(b0, db, pl)), n, ra, rb, margin, idCapsuleCapsule+1)
			ph := a0.MAdd(da, hi)
			roundPoint(m, ph, b0.MAdd(db, closestOnSegment(b0, db, ph)), n, ra, rb, margin, idCapsuleCapsule+2)
			if m.Count > 0 {
				return
			}
		}
	}
	roundPoint(m, p, q, n, ra, rb, margin, idCapsuleCapsule)
}

// offPerpendicularSq returns the squared length of the part of v off the direction cr (crSq = |cr|^2):
// |v|^2 - (v . cr)^2 / |cr|^2, not below zero.
func offPerpendicularSq(v, cr vec, crSq, vSq float32) float32 {
	along := v.Dot(cr)
	return max(vSq-along*along/crSq, 0)
}

// boxCapsule collides box a with capsule b, working in the box's frame.
//
// When the core segment stays outside the box, the exact closest points of segment and box decide: if
// the box point lies on a face (or nearly straight above one), the segment is clipped to that face (two
// points for a capsule lying on it), otherwise (edge or corner) one point. When the core enters the box,
// a separating axis test over the box's three face normals and the three cross products of the core
// with the box edges picks the axis of least penetration, preferring faces.
func boxCapsule(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	h := vg(a.HalfExtents)
	r := b.Radius
	e0, e1 := capsuleEnds(b, pb)
	c := vg(pa.P)
	if lim, q := vecmath.Sqrt(h.Dot(h))+r+margin, e0.MAdd(e1.Sub(e0), closestOnSegment(e0, e1.Sub(e0), c)).Sub(c); q.Dot(q) > lim*lim {
		return // the core is beyond the box's bounding sphere
	}
	var f frame
	f.set(pa)
	p0, p1 := f.toLocal(e0), f.toLocal(e1)
	d := p1.Sub(p0)
	t, dist2 := closestSegmentBox(p0, d, h)
	lim := r + margin
	if dist2 >= lim*lim && lim > 0 {
		return
	}
	scale := max(h.X, h.Y, h.Z)
	if eps := 1e-5 * scale; dist2 > eps*eps {
		q := p0.MAdd(d, t)
		bp, region := clampBox(q, h)
		nl := q.Sub(bp).Scale(1 / vecmath.Sqrt(dist2))
		k, sg, onFace := regionFace(region)
		nearFace := false
		if !onFace {
			// Beyond an edge or corner, but nearly straight above a face (a capsule lying across the
			// face's edge, tilted a hair down past it): still a face contact, so its points and ids do
			// not change as it jitters across the edge.
			k = 0
			if vecmath.Abs(nl.Y) > vecmath.Abs(nl.Get(k)) {
				k = 1
			}
			if vecmath.Abs(nl.Z) > vecmath.Abs(nl.Get(k)) {
				k = 2
			}
			sg, nearFace = vecmath.Sign(nl.Get(k)), vecmath.Abs(nl.Get(k)) >= faceNormalCos
		}
		if onFace || nearFace {
			capsuleOnFace(m, h, p0, d, r, k, sg, margin)
			if nearFace && m.Count > 0 {
				// Only if the core does not dip further below the face's level past the edge than on
				// the face: the face normal would then not be a least-penetration direction.
				low := min(sg*p0.Get(k), sg*p1.Get(k)) - h.Get(k) - r
				clipped := m.Points[0].Separation
				if m.Count > 1 {
					clipped = min(clipped, m.Points[1].Separation)
				}
				if low < clipped-preferFaceTol(clipped, scale) {
					m.Count = 0
				}
			}
			if m.Count > 0 {
				m.toWorld(&f)
				return
			}
		}
		s := vecmath.Sqrt(dist2) - r
		if s >= margin {
			return
		}
		m.setNormal(nl)
		m.addPoint(bp.MAdd(nl, s/2), s, idBoxCapsule+region)
		m.toWorld(&f)
		return
	}

	// The core touches or enters the box. Face axes: the capsule on the + or - side of each slab.
	faceSep, faceK, faceSg := float32(-1e30), 0, float32(1)
	for k := 0; k < 3; k++ {
		x0, x1, hk := p0.Get(k), p1.Get(k), h.Get(k)
		s, sg := min(x0, x1)-hk, float32(1)
		if o := -hk - max(x0, x1); o > s {
			s, sg = o, -1
		}
		if s > faceSep {
			faceSep, faceK, faceSg = s, k, sg
		}
	}
	// Edge axes: the core crossed with each box edge direction; the whole core projects to one value.
	edgeSep, edgeK := float32(-1e30), -1
	var edgeN vec
	if dd := d.Dot(d); dd > degenerateSq {
		for k := 0; k < 3; k++ {
			L := d.Cross(vecmath.Axis(k, 1))
			l2 := L.Dot(L)
			if l2 < 1e-6*dd {
				continue
			}
			L = L.Scale(1 / vecmath.Sqrt(l2))
			c := p0.Dot(L)
			s := vecmath.Abs(c) - (h.X*vecmath.Abs(L.X) + h.Y*vecmath.Abs(L.Y) + h.Z*vecmath.Abs(L.Z))
			if s > edgeSep {
				edgeSep, edgeK, edgeN = s, k, L.Scale(vecmath.Sign(c))
			}
		}
	}
	if edgeK < 0 || edgeSep <= faceSep+preferFaceTol(faceSep, scale) {
		capsuleOnFace(m, h, p0, d, r, faceK, faceSg, margin)
		if m.Count == 0 {
			// Rounding left the clipped piece empty: the core's deepest end against the face instead.
			q := p0
			if faceSg*p1.Get(faceK) < faceSg*p0.Get(faceK) {
				q = p1
			}
			bp, _ := clampBox(q, h)
			bp = bp.With(faceK, faceSg*h.Get(faceK))
			nl := vecmath.Axis(faceK, faceSg)
			s := q.Sub(bp).Dot(nl) - r
			m.setNormal(nl)
			m.addPoint(bp.MAdd(nl, s/2), s, idBoxCapsule+faceRegion(faceK, faceSg))
		}
		m.toWorld(&f)
		return
	}
	// Edge axis: the box edge along edgeK on the side the normal points to.
	var id uint32
	e0l := vec{}
	for k := 0; k < 3; k++ {
		hk := h.Get(k)
		if k == edgeK {
			e0l = e0l.With(k, -hk)
			continue
		}
		sk := vecmath.Sign(edgeN.Get(k))
		e0l = e0l.With(k, sk*hk)
		id <<= 1
		if sk > 0 {
			id |= 1
		}
	}
	ed := vecmath.Axis(edgeK, 2*h.Get(edgeK))
	s, u := closestSegments(e0l, ed, p0, d)
	m.setNormal(edgeN)
	roundPoint(m, e0l.MAdd(ed, s), p0.MAdd(d, u), edgeN, 0, r, margin, idCapsuleOnEdge+uint32(edgeK)<<2|id)
	m.toWorld(&f)
}

// capsuleOnFace clips the core segment p0 + t*d (box frame) to the box face of axis k on side sg (its
// four side planes) and adds a point for each end of the clipped piece whose separation is below margin.
// A segment end within clipSlack beyond a side plane is kept rather than clipped, so a capsule flush with
// the face's edge keeps its ids. Normal and positions are left in the box frame.
func capsuleOnFace(m *Manifold, h, p0, d vec, r float32, k int, sg, margin float32) {
	t0, t1 := float32(0), float32(1)
	var clip0, clip1 uint32
	plane := uint32(1)
	for _, a := range [2]int{next3[k], next3[k+1]} {
		ha, pa, da := h.Get(a), p0.Get(a), d.Get(a)
		band := ha * clipSlack
		for _, side := range [2]float32{1, -1} {
			// side*(p0[a] + t*d[a]) <= h[a]
			num, den := ha-side*pa, side*da
			switch {
			case den > 1e-12:
				if tt := num / den; tt < t1 && den-num > band {
					t1, clip1 = tt, plane
				}
			case den < -1e-12:
				if tt := num / den; tt > t0 && -num > band {
					t0, clip0 = tt, plane
				}
			default:
				if num < -band {
					return
				}
			}
			plane++
		}
	}
	if t0 > t1 {
		return
	}
	nl := vecmath.Axis(k, sg)
	face := uint32(faceIndex(k, sg))
	m.setNormal(nl)
	hk := h.Get(k)
	q := p0.MAdd(d, t0)
	if s := sg*q.Get(k) - hk - r; s < margin {
		m.addPoint(q.MAdd(nl, -(r+s/2)), s, idCapsuleOnFace|face<<4|clip0)
	}
	if (t1-t0)*(t1-t0)*d.Dot(d) <= 1e-12*h.Dot(h) {
		return // the piece is a point
	}
	q = p0.MAdd(d, t1)
	if s := sg*q.Get(k) - hk - r; s < margin {
		m.addPoint(q.MAdd(nl, -(r+s/2)), s, idCapsuleOnFace|face<<4|1<<3|clip1)
	}
}
