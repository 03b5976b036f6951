package collide

import "tumble/sim/geom"

// Capsules against capsules and boxes. A capsule is its core segment grown by its radius, so both
// routines find closest points of the core segment and offset them by the radius; where the segment
// lies along the other shape's surface they give two points instead of one so the capsule cannot pivot
// about a single contact.

// lyingSin is the sine of the largest angle between two capsule cores for which a capsule resting on
// another gets two contact points (its ends over the other) instead of one.
const lyingSin = 0.03

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
	da, db := a1.sub(a0), b1.sub(b0)
	s, t := closestSegments(a0, da, b0, db)
	p, q := a0.madd(da, s), b0.madd(db, t)
	v := q.sub(p)
	dist2 := v.dot(v)
	ra, rb := a.Radius, b.Radius
	lim := ra + rb + margin
	if dist2 >= lim*lim && lim > 0 {
		return
	}
	cr := da.cross(db)
	crSq, aa, bb := cr.dot(cr), da.dot(da), db.dot(db)
	var n vec
	switch {
	case s > 0 && s < 1 && t > 0 && t < 1 && crSq > parallelSin*parallelSin*aa*bb:
		// Closest points inside both cores: the common perpendicular, exact even when the cores
		// nearly meet and the closest points' difference is mostly rounding.
		n = cr.scale(1 / sqrt32(crSq))
		side := v.dot(n)
		if side == 0 {
			side = n.dot(vg(pb.P).sub(vg(pa.P)))
		}
		if side < 0 {
			n = n.neg()
		}
	case dist2 > 1e-14:
		n = v.scale(1 / sqrt32(dist2))
	default:
		// The cores meet end to end or lie along one line: any direction across A's core.
		n = perpendicular(da)
		if n.dot(vg(pb.P).sub(vg(pa.P))) < 0 {
			n = n.neg()
		}
	}
	m.setNormal(n)
	if aa > degenerateSq && bb > degenerateSq && crSq < lyingSin*lyingSin*aa*bb {
		// Side by side: one point at each end of the stretch where the cores overlap along A.
		u0, u1 := b0.sub(a0).dot(da)/aa, b1.sub(a0).dot(da)/aa
		if u0 > u1 {
			u0, u1 = u1, u0
		}
		lo, hi := max(u0, 0), min(u1, 1)
		if (hi-lo)*sqrt32(aa) > 1e-3*(ra+rb) {
			pl := a0.madd(da, lo)
			roundPoint(m, pl, b0.madd(db, closestOnSegment(b0, db, pl)), n, ra, rb, margin, idCapsuleCapsule+1)
			ph := a0.madd(da, hi)
			roundPoint(m, ph, b0.madd(db, closestOnSegment(b0, db, ph)), n, ra, rb, margin, idCapsuleCapsule+2)
			if m.Count > 0 {
				return
			}
		}
	}
	roundPoint(m, p, q, n, ra, rb, margin, idCapsuleCapsule)
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
	if lim, q := sqrt32(h.dot(h))+r+margin, e0.madd(e1.sub(e0), closestOnSegment(e0, e1.sub(e0), c)).sub(c); q.dot(q) > lim*lim {
		return // the core is beyond the box's bounding sphere
	}
	f := makeFrame(pa)
	p0, p1 := f.toLocal(e0), f.toLocal(e1)
	d := p1.sub(p0)
	t, dist2 := closestSegmentBox(p0, d, h)
	lim := r + margin
	if dist2 >= lim*lim && lim > 0 {
		return
	}
	scale := max(h.x, h.y, h.z)
	if eps := 1e-5 * scale; dist2 > eps*eps {
		q := p0.madd(d, t)
		bp, region := clampBox(q, h)
		nl := q.sub(bp).scale(1 / sqrt32(dist2))
		k, sg, onFace := regionFace(region)
		nearFace := false
		if !onFace {
			// Beyond an edge or corner, but nearly straight above a face (a capsule lying across the
			// face's edge, tilted a hair down past it): still a face contact, so its points and ids do
			// not change as it jitters across the edge.
			k = 0
			if abs32(nl.y) > abs32(nl.get(k)) {
				k = 1
			}
			if abs32(nl.z) > abs32(nl.get(k)) {
				k = 2
			}
			sg, nearFace = sign32(nl.get(k)), abs32(nl.get(k)) >= faceNormalCos
		}
		if onFace || nearFace {
			capsuleOnFace(m, h, p0, d, r, k, sg, margin)
			if nearFace && m.Count > 0 {
				// Only if the core does not dip further below the face's level past the edge than on
				// the face: the face normal would then not be a least-penetration direction.
				low := min(sg*p0.get(k), sg*p1.get(k)) - h.get(k) - r
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
		s := sqrt32(dist2) - r
		if s >= margin {
			return
		}
		m.setNormal(nl)
		m.add(bp.madd(nl, s/2), s, idBoxCapsule+region)
		m.toWorld(&f)
		return
	}

	// The core touches or enters the box. Face axes: the capsule on the + or - side of each slab.
	faceSep, faceK, faceSg := float32(-1e30), 0, float32(1)
	for k := 0; k < 3; k++ {
		x0, x1, hk := p0.get(k), p1.get(k), h.get(k)
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
	if dd := d.dot(d); dd > degenerateSq {
		for k := 0; k < 3; k++ {
			L := d.cross(axisVec(k, 1))
			l2 := L.dot(L)
			if l2 < 1e-6*dd {
				continue
			}
			L = L.scale(1 / sqrt32(l2))
			c := p0.dot(L)
			s := abs32(c) - (h.x*abs32(L.x) + h.y*abs32(L.y) + h.z*abs32(L.z))
			if s > edgeSep {
				edgeSep, edgeK, edgeN = s, k, L.scale(sign32(c))
			}
		}
	}
	if edgeK < 0 || edgeSep <= faceSep+preferFaceTol(faceSep, scale) {
		capsuleOnFace(m, h, p0, d, r, faceK, faceSg, margin)
		if m.Count == 0 {
			// Rounding left the clipped piece empty: the core's deepest end against the face instead.
			q := p0
			if faceSg*p1.get(faceK) < faceSg*p0.get(faceK) {
				q = p1
			}
			bp, _ := clampBox(q, h)
			bp = bp.with(faceK, faceSg*h.get(faceK))
			nl := axisVec(faceK, faceSg)
			s := q.sub(bp).dot(nl) - r
			m.setNormal(nl)
			m.add(bp.madd(nl, s/2), s, idBoxCapsule+faceRegion(faceK, faceSg))
		}
		m.toWorld(&f)
		return
	}
	// Edge axis: the box edge along edgeK on the side the normal points to.
	var id uint32
	e0l := vec{}
	for k := 0; k < 3; k++ {
		hk := h.get(k)
		if k == edgeK {
			e0l = e0l.with(k, -hk)
			continue
		}
		sk := sign32(edgeN.get(k))
		e0l = e0l.with(k, sk*hk)
		id <<= 1
		if sk > 0 {
			id |= 1
		}
	}
	ed := axisVec(edgeK, 2*h.get(edgeK))
	s, u := closestSegments(e0l, ed, p0, d)
	m.setNormal(edgeN)
	roundPoint(m, e0l.madd(ed, s), p0.madd(d, u), edgeN, 0, r, margin, idCapsuleOnEdge+uint32(edgeK)<<2|id)
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
		ha, pa, da := h.get(a), p0.get(a), d.get(a)
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
	nl := axisVec(k, sg)
	face := uint32(faceIndex(k, sg))
	m.setNormal(nl)
	hk := h.get(k)
	q := p0.madd(d, t0)
	if s := sg*q.get(k) - hk - r; s < margin {
		m.add(q.madd(nl, -(r+s/2)), s, idCapsuleOnFace|face<<4|clip0)
	}
	if (t1-t0)*(t1-t0)*d.dot(d) <= 1e-12*h.dot(h) {
		return // the piece is a point
	}
	q = p0.madd(d, t1)
	if s := sg*q.get(k) - hk - r; s < margin {
		m.add(q.madd(nl, -(r+s/2)), s, idCapsuleOnFace|face<<4|1<<3|clip1)
	}
}
