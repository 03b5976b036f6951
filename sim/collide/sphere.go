package collide

import "tumble/sim/geom"

// Spheres against spheres, capsules and boxes: all reduce to the closest point of the other shape's
// core to the sphere's centre.

// fallbackNormal is used when two cores coincide and no direction is defined: any unit vector works,
// world up is as good as any and keeps the choice deterministic.
var fallbackNormal = vec{0, 1, 0}

// roundPoint adds the contact between core point pa (radius ra) of A and core point qb (radius rb) of
// B along the unit normal n. The separation is the gap between the two surfaces along n and the position
// lies midway between them.
func roundPoint(m *Manifold, pa, qb, n vec, ra, rb, margin float32, id uint32) {
	s := qb.sub(pa).dot(n) - ra - rb
	if s >= margin {
		return
	}
	mid := pa.add(qb).scale(0.5)
	m.add(mid.madd(n, (ra-rb)/2), s, id)
}

// directionOr returns v normalised, or fallback when v is (nearly) zero.
func directionOr(v, fallback vec) vec {
	l2 := v.dot(v)
	if l2 <= 1e-18 {
		return fallback
	}
	return v.scale(1 / sqrt32(l2))
}

// sphereSphere collides two spheres.
func sphereSphere(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	ca, cb := vg(pa.P), vg(pb.P)
	d := cb.sub(ca)
	dist2 := d.dot(d)
	lim := a.Radius + b.Radius + margin
	if dist2 >= lim*lim && lim > 0 {
		return
	}
	n := directionOr(d, fallbackNormal)
	m.setNormal(n)
	roundPoint(m, ca, cb, n, a.Radius, b.Radius, margin, 0)
}

// capsuleSphere collides capsule a with sphere b.
func capsuleSphere(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	e0, e1 := capsuleEnds(a, pa)
	c := vg(pb.P)
	d := e1.sub(e0)
	t := closestOnSegment(e0, d, c)
	q := e0.madd(d, t)
	v := c.sub(q)
	if dd := d.dot(d); t > 0 && t < 1 && dd > degenerateSq {
		v = v.madd(d, -v.dot(d)/dd) // exactly across the core: it is, up to rounding
	}
	dist2 := v.dot(v)
	lim := a.Radius + b.Radius + margin
	if dist2 >= lim*lim && lim > 0 {
		return
	}
	// A sphere centre on the core: push out sideways, perpendicular to the core.
	n := directionOr(v, perpendicular(d))
	m.setNormal(n)
	roundPoint(m, q, c, n, a.Radius, b.Radius, margin, 0)
}

// perpendicular returns a unit vector perpendicular to d (world up when d is zero).
func perpendicular(d vec) vec {
	// Cross with the world axis least aligned with d.
	ax, ay, az := abs32(d.x), abs32(d.y), abs32(d.z)
	var c vec
	switch {
	case ax <= ay && ax <= az:
		c = vec{0, -d.z, d.y}
	case ay <= az:
		c = vec{d.z, 0, -d.x}
	default:
		c = vec{-d.y, d.x, 0}
	}
	return directionOr(c, fallbackNormal)
}

// boxSphere collides box a with sphere b. Outside the box the normal runs from the box's closest point
// to the centre; with the centre inside, it is the normal of the nearest face. The id is the box
// feature (face, edge or corner) touched, as a clampBox region code.
func boxSphere(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	h := vg(a.HalfExtents)
	r := b.Radius
	if lim, c := sqrt32(h.dot(h))+r+margin, vg(pb.P).sub(vg(pa.P)); c.dot(c) > lim*lim {
		return // beyond the box's bounding sphere
	}
	f := makeFrame(pa)
	c := f.toLocal(vg(pb.P))
	bp, region := clampBox(c, h)
	v := c.sub(bp)
	dist2 := v.dot(v)
	var nl vec
	if dist2 > 1e-14 {
		lim := r + margin
		if dist2 >= lim*lim {
			return
		}
		nl = v.scale(1 / sqrt32(dist2))
	} else {
		// Centre inside the box: leave through the nearest face.
		k, best := 0, h.x-abs32(c.x)
		if g := h.y - abs32(c.y); g < best {
			k, best = 1, g
		}
		if g := h.z - abs32(c.z); g < best {
			k = 2
		}
		sg := sign32(c.get(k))
		nl = axisVec(k, sg)
		bp = c.with(k, sg*h.get(k))
		region = faceRegion(k, sg) // the id of the face the sphere sank through
	}
	s := c.sub(bp).dot(nl) - r
	if s >= margin {
		return
	}
	m.setNormal(f.dirToWorld(nl))
	m.add(f.toWorld(bp.madd(nl, s/2)), s, region)
}
