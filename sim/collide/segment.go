package collide

import "tumble/sim/geom"

// Closest points between the core segments (and points) that capsules and spheres are built on.

// degenerateSq is the squared length below which a segment is treated as a point.
const degenerateSq = 1e-12

// parallelSin is the sine of the angle below which two segments count as parallel.
const parallelSin = 1e-4

// closestOnSegment returns the parameter t in [0, 1] of the point p0 + t*d closest to q.
func closestOnSegment(p0, d, q geom.Vec3) float32 {
	dd := d.Dot(d)
	if dd <= degenerateSq {
		return 0
	}
	return clamp32(q.Sub(p0).Dot(d)/dd, 0, 1)
}

// closestSegments returns parameters s, t in [0, 1] of the closest points p0 + s*d1 and q0 + t*d2 of two
// segments. When the segments are parallel (many pairs are closest) it picks the middle of the range
// where their projections overlap, so a capsule lying along another gets a centred contact.
func closestSegments(p0, d1, q0, d2 geom.Vec3) (s, t float32) {
	a, e := d1.Dot(d1), d2.Dot(d2)
	r := p0.Sub(q0)
	f := d2.Dot(r)
	if a <= degenerateSq {
		if e <= degenerateSq {
			return 0, 0
		}
		return 0, clamp32(f/e, 0, 1)
	}
	c := d1.Dot(r)
	if e <= degenerateSq {
		return clamp32(-c/a, 0, 1), 0
	}
	b := d1.Dot(d2)
	denom := a*e - b*b // = |d1 x d2|^2 >= 0
	if denom > parallelSin*parallelSin*a*e {
		s = clamp32((b*f-c*e)/denom, 0, 1)
	} else {
		// Parallel: B's ends project onto A's line at -c/a and (b-c)/a.
		s0, s1 := -c/a, (b-c)/a
		if s0 > s1 {
			s0, s1 = s1, s0
		}
		lo, hi := max(s0, 0), min(s1, 1)
		if lo <= hi {
			s = (lo + hi) / 2
		} else if s1 < 0 {
			s = 0
		} else {
			s = 1
		}
	}
	t = (b*s + f) / e
	if t < 0 {
		t = 0
		s = clamp32(-c/a, 0, 1)
	} else if t > 1 {
		t = 1
		s = clamp32((b-c)/a, 0, 1)
	}
	return s, t
}

// closestSegmentBox finds the point of the segment p0 + t*d (t in [0, 1]) closest to the box
// [-h, h] (all in the box's frame). It returns t and the squared distance; zero means they touch or
// the segment enters the box.
//
// The squared distance from a point to the box is a sum, over the axes where the point lies outside the
// slab, of the squared excess. Along the segment that set of axes changes only where the segment crosses
// a slab face, so between those (at most six) crossings the squared distance is one quadratic in t,
// minimised in closed form. The function is convex, so the best interval minimum is the global one.
func closestSegmentBox(p0, d, h geom.Vec3) (tBest, distSq float32) {
	var cuts [8]float32
	n := 0
	cuts[n] = 0
	n++
	for k := 0; k < 3; k++ {
		if abs32(d[k]) <= 1e-12 {
			continue
		}
		inv := 1 / d[k]
		for _, face := range [2]float32{-h[k], h[k]} {
			t := (face - p0[k]) * inv
			if t > 0 && t < 1 {
				cuts[n] = t
				n++
			}
		}
	}
	cuts[n] = 1
	n++
	// Insertion sort: at most eight entries.
	for i := 1; i < n; i++ {
		v := cuts[i]
		j := i
		for ; j > 0 && cuts[j-1] > v; j-- {
			cuts[j] = cuts[j-1]
		}
		cuts[j] = v
	}
	distSq = -1
	for i := 0; i+1 < n; i++ {
		ta, tb := cuts[i], cuts[i+1]
		if tb-ta <= 0 && n > 2 {
			continue
		}
		tm := (ta + tb) / 2
		var qa, qb float32 // f(t) = qa t^2 + 2 qb t + const
		for k := 0; k < 3; k++ {
			x := p0[k] + tm*d[k]
			var face float32
			switch {
			case x > h[k]:
				face = h[k]
			case x < -h[k]:
				face = -h[k]
			default:
				continue
			}
			qa += d[k] * d[k]
			qb += d[k] * (p0[k] - face)
		}
		t := tm
		if qa > 0 {
			t = clamp32(-qb/qa, ta, tb)
		}
		ds := pointBoxDistSq(madd(p0, d, t), h)
		if distSq < 0 || ds < distSq {
			tBest, distSq = t, ds
			if ds == 0 {
				break
			}
		}
	}
	return tBest, distSq
}

// pointBoxDistSq returns the squared distance from p to the box [-h, h].
func pointBoxDistSq(p, h geom.Vec3) float32 {
	var s float32
	for k := 0; k < 3; k++ {
		if e := abs32(p[k]) - h[k]; e > 0 {
			s += e * e
		}
	}
	return s
}

// clampBox returns the point of the box [-h, h] closest to p and a region code in 0..26 naming the box
// feature it lies on (per axis: 0 inside the slab, 1 below, 2 above).
func clampBox(p, h geom.Vec3) (geom.Vec3, uint32) {
	var region uint32
	for k := 2; k >= 0; k-- {
		region *= 3
		switch {
		case p[k] > h[k]:
			p[k] = h[k]
			region += 2
		case p[k] < -h[k]:
			p[k] = -h[k]
			region++
		}
	}
	return p, region
}
