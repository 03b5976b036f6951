package collide

import "tumble/sim/geom"

// Spheres against spheres, capsules and boxes: all reduce to the closest point of the other shape's
// core to the sphere's centre.

// fallbackNormal is used when two cores coincide and no direction is defined: any unit vector works,
// world up is as good as any and keeps the choice deterministic.
var fallbackNormal = geom.Vec3{0, 1, 0}

// roundPoint adds the contact between core point pa (radius ra) of A and core point qb (radius rb) of
// B along the unit normal n. The separation is the gap between the two surfaces along n and the position
// lies midway between them.
func roundPoint(m *Manifold, pa, qb, n geom.Vec3, ra, rb, margin float32, id uint32) {
	s := qb.Sub(pa).Dot(n) - ra - rb
	if s >= margin {
		return
	}
	mid := pa.Add(qb).Mul(0.5)
	m.add(madd(mid, n, (ra-rb)/2), s, id)
}

// directionOr returns v normalised, or fallback when v is (nearly) zero.
func directionOr(v, fallback geom.Vec3) geom.Vec3 {
	l2 := v.Dot(v)
	if l2 <= 1e-18 {
		return fallback
	}
	return v.Mul(1 / sqrt32(l2))
}

// sphereSphere collides two spheres.
func sphereSphere(a *geom.Shape, pa geom.Pose, b *geom.Shape, pb geom.Pose, margin float32, m *Manifold) {
	d := pb.P.Sub(pa.P)
	dist2 := d.Dot(d)
	lim := a.Radius + b.Radius + margin
	if dist2 >= lim*lim && lim > 0 {
		return
	}
	m.Normal = directionOr(d, fallbackNormal)
	roundPoint(m, pa.P, pb.P, m.Normal, a.Radius, b.Radius, margin, 0)
}

// capsuleSphere collides capsule a with sphere b.
func capsuleSphere(a *geom.Shape, pa geom.Pose, b *geom.Shape, pb geom.Pose, margin float32, m *Manifold) {
	e0, e1 := capsuleEnds(a, pa)
	d := e1.Sub(e0)
	t := closestOnSegment(e0, d, pb.P)
	q := madd(e0, d, t)
	v := pb.P.Sub(q)
	dist2 := v.Dot(v)
	lim := a.Radius + b.Radius + margin
	if dist2 >= lim*lim && lim > 0 {
		return
	}
	// A sphere centre on the core: push out sideways, perpendicular to the core.
	m.Normal = directionOr(v, perpendicular(d))
	roundPoint(m, q, pb.P, m.Normal, a.Radius, b.Radius, margin, 0)
}

// perpendicular returns a unit vector perpendicular to d (world up when d is zero).
func perpendicular(d geom.Vec3) geom.Vec3 {
	// Cross with the world axis least aligned with d.
	ax, ay, az := abs32(d[0]), abs32(d[1]), abs32(d[2])
	var c geom.Vec3
	switch {
	case ax <= ay && ax <= az:
		c = geom.Vec3{0, -d[2], d[1]}
	case ay <= az:
		c = geom.Vec3{d[2], 0, -d[0]}
	default:
		c = geom.Vec3{-d[1], d[0], 0}
	}
	return directionOr(c, fallbackNormal)
}

// boxSphere collides box a with sphere b. Outside the box the normal runs from the box's closest point
// to the centre; with the centre inside, it is the normal of the nearest face. The id is the box
// feature (face, edge or corner) touched.
func boxSphere(a *geom.Shape, pa geom.Pose, b *geom.Shape, pb geom.Pose, margin float32, m *Manifold) {
	f := makeFrame(pa)
	h := a.HalfExtents
	c := f.toLocal(pb.P)
	r := b.Radius
	bp, region := clampBox(c, h)
	v := c.Sub(bp)
	dist2 := v.Dot(v)
	var nl geom.Vec3
	if dist2 > 1e-14 {
		lim := r + margin
		if dist2 >= lim*lim {
			return
		}
		nl = v.Mul(1 / sqrt32(dist2))
	} else {
		// Centre inside the box: leave through the nearest face.
		k, best := 0, h[0]-abs32(c[0])
		for i := 1; i < 3; i++ {
			if g := h[i] - abs32(c[i]); g < best {
				k, best = i, g
			}
		}
		sg := sign32(c[k])
		nl[k] = sg
		bp[k] = sg * h[k]
		region = faceRegion(k, sg)
	}
	s := c.Sub(bp).Dot(nl) - r
	if s >= margin {
		return
	}
	m.Normal = f.dirToWorld(nl)
	m.add(f.toWorld(madd(bp, nl, s/2)), s, region)
}

// faceRegion is clampBox's region code for the face of axis k on side sg (so a sphere whose centre
// sinks through a face keeps that face's id).
func faceRegion(k int, sg float32) uint32 {
	code := uint32(2)
	if sg < 0 {
		code = 1
	}
	for ; k > 0; k-- {
		code *= 3
	}
	return code
}
