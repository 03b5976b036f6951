package collide

import (
	"tumble/sim/geom"
	"tumble/sim/internal/vecmath"
)

// Spheres against spheres, capsules and boxes: all reduce to the closest point of the other shape's
// core to the sphere's centre.

// fallbackNormal is used when two cores coincide and no direction is defined: any unit vector works,
// world up is as good as any and keeps the choice deterministic.
var fallbackNormal = vec{X: 0, Y: 1, Z: 0}

// roundPoint adds the contact between core point pa (radius ra) of A and core point qb (radius rb) of
// B along the unit normal n. The separation is the gap between the two surfaces along n and the position
// lies midway between them.
func roundPoint(m *Manifold, pa, qb, n vec, ra, rb, margin float32, id uint32) {
	s := qb.Sub(pa).Dot(n) - ra - rb
	if s >= margin {
		return
	}
	mid := pa.Add(qb).Scale(0.5)
	m.addPoint(mid.MAdd(n, (ra-rb)/2), s, id)
}

// directionOr returns v normalised, or fallback when v is (nearly) zero.
func directionOr(v, fallback vec) vec {
	l2 := v.Dot(v)
	if l2 <= 1e-18 {
		return fallback
	}
	return v.Scale(1 / vecmath.Sqrt(l2))
}

// sphereSphere collides two spheres.
func sphereSphere(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	ca, cb := vg(pa.P), vg(pb.P)
	d := cb.Sub(ca)
	dist2 := d.Dot(d)
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
	d := e1.Sub(e0)
	t := closestOnSegment(e0, d, c)
	q := e0.MAdd(d, t)
	v := c.Sub(q)
	if dd := d.Dot(d); t > 0 && t < 1 && dd > degenerateSq {
		v = v.MAdd(d, -v.Dot(d)/dd) // exactly across the core: it is, up to rounding
	}
	dist2 := v.Dot(v)
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
	ax, ay, az := vecmath.Abs(d.X), vecmath.Abs(d.Y), vecmath.Abs(d.Z)
	var c vec
	switch {
	case ax <= ay && ax <= az:
		c = vec{X: 0, Y: -d.Z, Z: d.Y}
	case ay <= az:
		c = vec{X: d.Z, Y: 0, Z: -d.X}
	default:
		c = vec{X: -d.Y, Y: d.X, Z: 0}
	}
	return directionOr(c, fallbackNormal)
}

// boxSphere collides box a with sphere b. Outside the box the normal runs from the box's closest point
// to the centre; with the centre inside, it is the normal of the nearest face. The id is the box
// feature (face, edge or corner) touched, as a clampBox region code.
func boxSphere(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	h := vg(a.HalfExtents)
	r := b.Radius
	if lim, c := vecmath.Sqrt(h.Dot(h))+r+margin, vg(pb.P).Sub(vg(pa.P)); c.Dot(c) > lim*lim {
		return // beyond the box's bounding sphere
	}
	var f frame
	f.set(pa)
	c := f.toLocal(vg(pb.P))
	bp, region := clampBox(c, h)
	v := c.Sub(bp)
	dist2 := v.Dot(v)
	var nl vec
	if dist2 > 1e-14 {
		lim := r + margin
		if dist2 >= lim*lim {
			return
		}
		nl = v.Scale(1 / vecmath.Sqrt(dist2))
	} else {
		// Centre inside the box: leave through the nearest face.
		k, best := 0, h.X-vecmath.Abs(c.X)
		if g := h.Y - vecmath.Abs(c.Y); g < best {
			k, best = 1, g
		}
		if g := h.Z - vecmath.Abs(c.Z); g < best {
			k = 2
		}
		sg := vecmath.Sign(c.Get(k))
		nl = vecmath.Axis(k, sg)
		bp = c.With(k, sg*h.Get(k))
		region = faceRegion(k, sg) // the id of the face the sphere sank through
	}
	s := c.Sub(bp).Dot(nl) - r
	if s >= margin {
		return
	}
	m.setNormal(f.dirToWorld(nl))
	m.addPoint(f.toWorld(bp.MAdd(nl, s/2)), s, region)
}
