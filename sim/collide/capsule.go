package collide

import "tumble/sim/geom"

// Capsules against capsules and boxes. A capsule is its core segment grown by its radius, so both
// routines find closest points of the core segment and offset them by the radius; where the segment
// lies along the other shape's surface they give two points instead of one so the capsule cannot pivot
// about a single contact.

// lyingSin is the sine of the largest angle between two capsule cores for which a capsule resting on
// another gets two contact points (its ends over the other) instead of one.
const lyingSin = 0.03

// Feature id bases of the capsule contacts.
const (
	idCapsuleCapsule = 0     // + 0 single point, + 1 and + 2 the two ends of a side-by-side contact
	idBoxCapsule     = 0x100 // + region code (see clampBox) of the box feature, single point
	idCapsuleOnFace  = 0x200 // + face<<4 | end<<3 | clipping side plane (0 = none, 1..4)
	idCapsuleOnEdge  = 0x300 // + box edge: axis<<2 | signs of the other two axes
)

// capsuleCapsule collides two capsules.
func capsuleCapsule(a *geom.Shape, pa geom.Pose, b *geom.Shape, pb geom.Pose, margin float32, m *Manifold) {
	a0, a1 := capsuleEnds(a, pa)
	b0, b1 := capsuleEnds(b, pb)
	da, db := a1.Sub(a0), b1.Sub(b0)
	s, t := closestSegments(a0, da, b0, db)
	p, q := madd(a0, da, s), madd(b0, db, t)
	v := q.Sub(p)
	dist2 := v.Dot(v)
	ra, rb := a.Radius, b.Radius
	lim := ra + rb + margin
	if dist2 >= lim*lim && lim > 0 {
		return
	}
	cr := da.Cross(db)
	crSq := cr.Dot(cr)
	aa, bb := da.Dot(da), db.Dot(db)
	if dist2 > 1e-14 {
		m.Normal = v.Mul(1 / sqrt32(dist2))
	} else {
		// The cores cross: leave along their common perpendicular, towards B's centre.
		n := directionOr(cr, perpendicular(da))
		if n.Dot(pb.P.Sub(pa.P)) < 0 {
			n = neg(n)
		}
		m.Normal = n
	}
	n := m.Normal
	if aa > degenerateSq && bb > degenerateSq && crSq < lyingSin*lyingSin*aa*bb {
		// Side by side: one point at each end of the stretch where the cores overlap along A.
		u0, u1 := b0.Sub(a0).Dot(da)/aa, b1.Sub(a0).Dot(da)/aa
		if u0 > u1 {
			u0, u1 = u1, u0
		}
		lo, hi := max(u0, 0), min(u1, 1)
		if (hi-lo)*sqrt32(aa) > 1e-3*(ra+rb) {
			for i, u := range [2]float32{lo, hi} {
				pu := madd(a0, da, u)
				qu := madd(b0, db, closestOnSegment(b0, db, pu))
				roundPoint(m, pu, qu, n, ra, rb, margin, idCapsuleCapsule+1+uint32(i))
			}
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
// the box point lies on a face, the segment is clipped to that face (two points for a capsule lying on
// it), otherwise (edge or corner) one point. When the core enters the box, a separating axis test over
// the box's three face normals and the three cross products of the core with the box edges picks the
// axis of least penetration, preferring faces.
func boxCapsule(a *geom.Shape, pa geom.Pose, b *geom.Shape, pb geom.Pose, margin float32, m *Manifold) {
	f := makeFrame(pa)
	h := a.HalfExtents
	e0, e1 := capsuleEnds(b, pb)
	p0, p1 := f.toLocal(e0), f.toLocal(e1)
	d := p1.Sub(p0)
	r := b.Radius
	t, dist2 := closestSegmentBox(p0, d, h)
	lim := r + margin
	if dist2 >= lim*lim && lim > 0 {
		return
	}
	scale := max(h[0], h[1], h[2])
	if eps := 1e-5 * scale; dist2 > eps*eps {
		q := madd(p0, d, t)
		bp, region := clampBox(q, h)
		if k, sg, ok := regionFace(region); ok {
			capsuleOnFace(m, h, p0, d, r, k, sg, margin)
			if m.Count > 0 {
				m.toWorld(&f)
				return
			}
		}
		dist := sqrt32(dist2)
		nl := q.Sub(bp).Mul(1 / dist)
		s := dist - r
		if s >= margin {
			return
		}
		m.Normal = nl
		m.add(madd(bp, nl, s/2), s, idBoxCapsule+region)
		m.toWorld(&f)
		return
	}

	// The core touches or enters the box.
	faceSep, faceK, faceSg := float32(-1e30), 0, float32(1)
	for k := 0; k < 3; k++ {
		lo, hi := min(p0[k], p1[k]), max(p0[k], p1[k])
		s, sg := lo-h[k], float32(1) // capsule on the + side
		if o := -h[k] - hi; o > s {
			s, sg = o, -1
		}
		if s > faceSep {
			faceSep, faceK, faceSg = s, k, sg
		}
	}
	edgeSep, edgeK := float32(-1e30), -1
	var edgeN geom.Vec3
	if dd := d.Dot(d); dd > degenerateSq {
		for k := 0; k < 3; k++ {
			var e geom.Vec3
			e[k] = 1
			L := d.Cross(e)
			l2 := L.Dot(L)
			if l2 < 1e-6*dd {
				continue
			}
			L = L.Mul(1 / sqrt32(l2))
			c := p0.Dot(L) // the whole core projects here
			s := abs32(c) - (h[0]*abs32(L[0]) + h[1]*abs32(L[1]) + h[2]*abs32(L[2]))
			if s > edgeSep {
				edgeSep, edgeK, edgeN = s, k, L.Mul(sign32(c))
			}
		}
	}
	if edgeK < 0 || edgeSep <= faceSep+preferFaceTol(faceSep, scale) {
		capsuleOnFace(m, h, p0, d, r, faceK, faceSg, margin)
		m.toWorld(&f)
		return
	}
	// Edge axis: the box edge along edgeK on the side the normal points to.
	var e0l, ed geom.Vec3
	var id uint32
	for k := 0; k < 3; k++ {
		if k == edgeK {
			e0l[k], ed[k] = -h[k], 2*h[k]
			continue
		}
		e0l[k] = sign32(edgeN[k]) * h[k]
		id <<= 1
		if edgeN[k] >= 0 {
			id |= 1
		}
	}
	s, u := closestSegments(e0l, ed, p0, d)
	m.Normal = edgeN
	roundPoint(m, madd(e0l, ed, s), madd(p0, d, u), edgeN, 0, r, margin, idCapsuleOnEdge+uint32(edgeK)<<2|id)
	m.toWorld(&f)
}

// regionFace reports whether clampBox's region code names a face (exactly one axis outside its slab),
// and which: local axis k and side sg.
func regionFace(region uint32) (k int, sg float32, ok bool) {
	found := false
	for i := 0; i < 3; i++ {
		switch region % 3 {
		case 1, 2:
			if found {
				return 0, 0, false
			}
			found, k, sg = true, i, 1
			if region%3 == 1 {
				sg = -1
			}
		}
		region /= 3
	}
	return k, sg, found
}

// capsuleOnFace clips the core segment p0 + t*d (box frame) to the box face of axis k on side sg (its
// four side planes) and adds a point for each end of the clipped piece whose separation is below margin.
// A segment end within clipSlack beyond a side plane is kept rather than clipped, so a capsule flush with
// the face's edge keeps its ids. Normal and positions are left in the box frame.
func capsuleOnFace(m *Manifold, h, p0, d geom.Vec3, r float32, k int, sg, margin float32) {
	t0, t1 := float32(0), float32(1)
	var clip0, clip1 uint32
	plane := uint32(1)
	for _, a := range [2]int{(k + 1) % 3, (k + 2) % 3} {
		band := h[a] * clipSlack
		for _, side := range [2]float32{1, -1} {
			// side*(p0[a] + t*d[a]) <= h[a]
			num, den := h[a]-side*p0[a], side*d[a]
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
	var nl geom.Vec3
	nl[k] = sg
	face := uint32(2 * k)
	if sg < 0 {
		face++
	}
	m.Normal = nl
	ends := 2
	if (t1-t0)*(t1-t0)*d.Dot(d) <= 1e-12*h.Dot(h) {
		ends = 1 // the piece is a point
	}
	for e := 0; e < ends; e++ {
		t, clip := t0, clip0
		if e == 1 {
			t, clip = t1, clip1
		}
		q := madd(p0, d, t)
		s := sg*q[k] - h[k] - r
		if s < margin {
			m.add(madd(q, nl, -(r+s/2)), s, idCapsuleOnFace|face<<4|uint32(e)<<3|clip)
		}
	}
}
