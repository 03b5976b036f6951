package collide

import "tumble/sim/internal/vecmath"

// Closest points between the core segments (and points) that capsules and spheres are built on, and
// between a segment and a box.

// degenerateSq is the squared length below which a segment is treated as a point.
const degenerateSq = 1e-12

// parallelSin is the sine of the angle below which two segments count as parallel.
const parallelSin = 1e-4

// closestOnSegment returns the parameter t in [0, 1] of the point p0 + t*d closest to q.
func closestOnSegment(p0, d, q vec) float32 {
	dd := d.Dot(d)
	if dd <= degenerateSq {
		return 0
	}
	return vecmath.Clamp(q.Sub(p0).Dot(d)/dd, 0, 1)
}

// closestSegments returns parameters s, t in [0, 1] of the closest points p0 + s*d1 and q0 + t*d2 of two
// segments. When the segments are parallel (many pairs are closest) it picks the middle of the range
// where their projections overlap, so a capsule lying along another gets a centred contact.
func closestSegments(p0, d1, q0, d2 vec) (s, t float32) {
	a, e := d1.Dot(d1), d2.Dot(d2)
	r := p0.Sub(q0)
	f := d2.Dot(r)
	if a <= degenerateSq {
		if e <= degenerateSq {
			return 0, 0
		}
		return 0, vecmath.Clamp(f/e, 0, 1)
	}
	c := d1.Dot(r)
	if e <= degenerateSq {
		return vecmath.Clamp(-c/a, 0, 1), 0
	}
	b := d1.Dot(d2)
	denom := a*e - b*b // = |d1 x d2|^2 >= 0
	if denom > parallelSin*parallelSin*a*e {
		s = vecmath.Clamp((b*f-c*e)/denom, 0, 1)
	} else {
		// Parallel: B's ends project onto A's line at -c/a and (b-c)/a.
		s0, s1 := -c/a, (b-c)/a
		if s0 > s1 {
			s0, s1 = s1, s0
		}
		lo, hi := max(s0, 0), min(s1, 1)
		switch {
		case lo <= hi:
			s = (lo + hi) / 2
		case s1 < 0:
			s = 0
		default:
			s = 1
		}
	}
	t = (b*s + f) / e
	if t < 0 {
		t = 0
		s = vecmath.Clamp(-c/a, 0, 1)
	} else if t > 1 {
		t = 1
		s = vecmath.Clamp((b-c)/a, 0, 1)
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
// minimised in closed form. The function is convex, so walking the stretches in order, the first whose
// own minimum is not at its far end holds the global minimum.
func closestSegmentBox(p0v, dv, hv vec) (t, distSq float32) {
	p0 := [3]float32{p0v.X, p0v.Y, p0v.Z}
	d := [3]float32{dv.X, dv.Y, dv.Z}
	h := [3]float32{hv.X, hv.Y, hv.Z}
	var cuts [8]float32
	n := 1 // cuts[0] = 0
	for k := 0; k < 3; k++ {
		if vecmath.Abs(d[k]) <= 1e-12 {
			continue
		}
		inv := 1 / d[k]
		if t := (-h[k] - p0[k]) * inv; t > 0 && t < 1 {
			cuts[n] = t
			n++
		}
		if t := (h[k] - p0[k]) * inv; t > 0 && t < 1 {
			cuts[n] = t
			n++
		}
	}
	cuts[n] = 1
	n++
	// Insertion sort of the crossings between the fixed ends: at most six.
	for i := 2; i < n-1; i++ {
		v := cuts[i]
		j := i
		for ; j > 1 && cuts[j-1] > v; j-- {
			cuts[j] = cuts[j-1]
		}
		cuts[j] = v
	}
	for i := 0; i+1 < n; i++ {
		ta, tb := cuts[i], cuts[i+1]
		tm := (ta + tb) / 2
		var qa, qb float32 // f(t) = qa t^2 + 2 qb t + const on this stretch
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
		if qa == 0 {
			t = tm // f is constant here: inside the box, or level with it
			break
		}
		if tt := -qb / qa; tt < tb || i+2 == n {
			t = vecmath.Clamp(tt, ta, tb)
			break
		}
	}
	return t, pointBoxDistSq(p0v.MAdd(dv, t), hv)
}

// excess is how far x lies outside [-h, h] (zero inside).
func excess(x, h float32) float32 {
	if e := vecmath.Abs(x) - h; e > 0 {
		return e
	}
	return 0
}

// pointBoxDistSq returns the squared distance from p to the box [-h, h].
func pointBoxDistSq(p, h vec) float32 {
	ex, ey, ez := excess(p.X, h.X), excess(p.Y, h.Y), excess(p.Z, h.Z)
	return ex*ex + ey*ey + ez*ez
}

// clampAxis clamps x to [-h, h] and returns the region digit: 0 inside, 1 below, 2 above.
func clampAxis(x, h float32) (float32, uint32) {
	switch {
	case x > h:
		return h, 2
	case x < -h:
		return -h, 1
	}
	return x, 0
}

// clampBox returns the point of the box [-h, h] closest to p and a region code in 0..26 naming the box
// feature it lies on (base 3, x the lowest digit; per axis 0 inside the slab, 1 below, 2 above).
func clampBox(p, h vec) (vec, uint32) {
	x, rx := clampAxis(p.X, h.X)
	y, ry := clampAxis(p.Y, h.Y)
	z, rz := clampAxis(p.Z, h.Z)
	return vec{X: x, Y: y, Z: z}, rx + 3*ry + 9*rz
}

// regionFace reports whether clampBox's region code names a face (exactly one axis outside its slab),
// and which: local axis k and side sg.
func regionFace(region uint32) (k int, sg float32, ok bool) {
	found := false
	for i := 0; i < 3; i++ {
		if digit := region % 3; digit != 0 {
			if found {
				return 0, 0, false
			}
			found, k, sg = true, i, 1
			if digit == 1 {
				sg = -1
			}
		}
		region /= 3
	}
	return k, sg, found
}

// faceRegion is clampBox's region code for the face of axis k on side sg.
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
