package collide

import (
	"math"

	"tumble/sim/geom"
)

// Ray intersects the ray o + t d (d unit, t in [0, tmax]) with shape s at pose p, all in the world:
// the distance t to the surface where the ray enters, the unit surface normal there, and whether it
// does. A ray that starts inside a solid shape (box, sphere, capsule, hull, or behind a plane) does not
// hit it: the shape it is in is not in its way. A triangle mesh is hit from either side, with the
// normal turned against the ray; so is a height field.
func Ray(s *geom.Shape, p geom.Pose, o, d geom.Vec3, tmax float32) (float32, geom.Vec3, bool) {
	// Into the shape's frame, where every shape is centred and aligned.
	inv := p.Q.Conjugate()
	t, n, ok := RayLocal(s, inv.Rotate(o.Sub(p.P)), inv.Rotate(d), tmax)
	if !ok {
		return 0, geom.Vec3{}, false
	}
	return t, p.Q.Rotate(n), true
}

// RayLocal is Ray with the ray given in the shape's own frame, and the normal returned in it.
func RayLocal(s *geom.Shape, o, d geom.Vec3, tmax float32) (float32, geom.Vec3, bool) {
	var t float32
	var n geom.Vec3
	var ok bool
	switch s.Kind {
	case geom.Box:
		t, n, ok = rayBox(s.HalfExtents, o, d)
	case geom.Sphere:
		t, n, ok = raySphere(geom.Vec3{}, s.Radius, o, d)
	case geom.Capsule:
		t, n, ok = rayCapsule(s.Radius, s.HalfHeight, o, d)
	case geom.Cylinder:
		t, n, ok = rayCylinder(s.Radius, s.HalfHeight, o, d)
	case geom.ConvexHull:
		if s.Hull != nil {
			t, n, ok = rayHull(s.Hull, o, d)
		}
	case geom.TriMesh:
		if s.Mesh != nil {
			var tri int
			if t, tri, ok = s.Mesh.Raycast(o, d, tmax); ok {
				n = s.Mesh.Normals[tri]
				if n.Dot(d) > 0 {
					n = n.Mul(-1) // seen from behind: the face the ray meets is the back one
				}
			}
		}
	case geom.HeightField:
		if f := s.Field; f != nil {
			var i, j, k int
			if t, i, j, k, ok = f.Raycast(o, d, tmax); ok {
				tr := f.Triangle(i, j, k)
				n = tr[1].Sub(tr[0]).Cross(tr[2].Sub(tr[0])).Normalize()
				if n.Dot(d) > 0 {
					n = n.Mul(-1)
				}
			}
		}
	case geom.Plane:
		t, n, ok = rayPlane(s.Normal, s.Offset, o, d)
	case geom.Compound:
		t, n, _, ok = rayCompound(s.Compound, o, d, tmax)
	}
	if !ok || !(t <= tmax) {
		return 0, geom.Vec3{}, false
	}
	return t, n, true
}

// RayChild is Ray that also says which child of a compound the ray meets first (0 for another
// shape).
func RayChild(s *geom.Shape, p geom.Pose, o, d geom.Vec3, tmax float32) (float32, geom.Vec3, int, bool) {
	if s.Kind != geom.Compound {
		t, n, ok := Ray(s, p, o, d, tmax)
		return t, n, 0, ok
	}
	inv := p.Q.Conjugate()
	t, n, c, ok := rayCompound(s.Compound, inv.Rotate(o.Sub(p.P)), inv.Rotate(d), tmax)
	if !ok {
		return 0, geom.Vec3{}, 0, false
	}
	return t, p.Q.Rotate(n), c, true
}

// rayCompound meets each child of c in the compound's frame and keeps the nearest: a ray that starts
// inside one child may still hit another.
func rayCompound(c *geom.CompoundShape, o, d geom.Vec3, tmax float32) (float32, geom.Vec3, int, bool) {
	var bt float32
	var bn geom.Vec3
	bc, found := 0, false
	for i := range c.Children {
		ch := &c.Children[i]
		if t, n, ok := Ray(&ch.Shape, ch.Pose, o, d, tmax); ok && (!found || t < bt) {
			bt, bn, bc, found, tmax = t, n, i, true, t
		}
	}
	return bt, bn, bc, found
}

// rayPlane meets the plane n.x = off from its front (the side n points to); the solid is behind it.
func rayPlane(n geom.Vec3, off float32, o, d geom.Vec3) (float32, geom.Vec3, bool) {
	den := n.Dot(d)
	if !(den < 0) {
		return 0, geom.Vec3{}, false // from behind, or parallel
	}
	t := (off - n.Dot(o)) / den
	return t, n, t >= 0
}

// rayHull clips the ray against every face plane of a convex hull (the slab test generalised): it
// enters where the last plane it crosses inwards is, and misses when it leaves a plane before that.
func rayHull(h *geom.Hull, o, d geom.Vec3) (float32, geom.Vec3, bool) {
	tmin, tmax := float32(math.Inf(-1)), float32(math.Inf(1))
	var n geom.Vec3
	for _, f := range h.Faces {
		den := f.Normal.Dot(d)
		dist := f.Offset - f.Normal.Dot(o) // >= 0: o is on the inner side of this face's plane
		if den == 0 {
			if dist < 0 {
				return 0, geom.Vec3{}, false // parallel to the face, outside it
			}
			continue
		}
		t := dist / den
		if den < 0 { // crossing the plane inwards
			if t > tmin {
				tmin, n = t, f.Normal
			}
		} else {
			tmax = min(tmax, t)
		}
		if tmin > tmax {
			return 0, geom.Vec3{}, false
		}
	}
	if tmin < 0 {
		return 0, geom.Vec3{}, false // the ray starts inside, as rayBox
	}
	return tmin, n, true
}

// rayBox is the slab test on the box of half extents h.
func rayBox(h, o, d geom.Vec3) (float32, geom.Vec3, bool) {
	tmin, tmax := float32(0), float32(math.Inf(1))
	axis, sign := -1, float32(0)
	for k := range 3 {
		if d[k] == 0 {
			if o[k] < -h[k] || o[k] > h[k] {
				return 0, geom.Vec3{}, false
			}
			continue
		}
		t1, t2 := (-h[k]-o[k])/d[k], (h[k]-o[k])/d[k]
		sg := float32(-1)
		if t1 > t2 {
			t1, t2, sg = t2, t1, 1
		}
		if t1 > tmin {
			tmin, axis, sign = t1, k, sg
		}
		tmax = min(tmax, t2)
		if tmin > tmax {
			return 0, geom.Vec3{}, false
		}
	}
	if axis < 0 {
		return 0, geom.Vec3{}, false // the ray starts inside
	}
	var n geom.Vec3
	n[axis] = sign
	return tmin, n, true
}

// raySphere solves |o + t d - c|^2 = r^2 for its smaller root: with m = o - c, t^2 + 2(m.d)t +
// |m|^2 - r^2 = 0. Its discriminant (m.d)^2 - |m|^2 + r^2 is r^2 - |e|^2 with e = m - (m.d)d, the
// offset of the ray's closest approach from the centre: taken that way, it does not lose its digits to
// the difference of two large squares when the ray starts far away.
func raySphere(c geom.Vec3, r float32, o, d geom.Vec3) (float32, geom.Vec3, bool) {
	m := o.Sub(c)
	bq := m.Dot(d)
	if m.Dot(m) > r*r && bq > 0 {
		return 0, geom.Vec3{}, false // outside and moving away
	}
	e := m.Sub(d.Mul(bq))
	disc := r*r - e.Dot(e)
	if disc < 0 {
		return 0, geom.Vec3{}, false
	}
	t := -bq - float32(math.Sqrt(float64(disc)))
	if t < 0 {
		return 0, geom.Vec3{}, false // inside
	}
	return t, o.Add(d.Mul(t)).Sub(c).Normalize(), true
}

// rayCapsule: the infinite cylinder about y clipped to the core, then the two end spheres.
func rayCapsule(r, hh float32, o, d geom.Vec3) (float32, geom.Vec3, bool) {
	best, bn, ok := float32(math.Inf(1)), geom.Vec3{}, false
	a := d[0]*d[0] + d[2]*d[2]
	if a > 1e-12 {
		bq := o[0]*d[0] + o[2]*d[2]
		cq := o[0]*o[0] + o[2]*o[2] - r*r
		if disc := bq*bq - a*cq; disc >= 0 {
			t := (-bq - float32(math.Sqrt(float64(disc)))) / a
			if y := o[1] + t*d[1]; t >= 0 && y >= -hh && y <= hh {
				p := o.Add(d.Mul(t))
				best, bn, ok = t, geom.Vec3{p[0], 0, p[2]}.Normalize(), true
			}
		}
	}
	for _, cy := range [2]float32{-hh, hh} {
		if t, n, hit := raySphere(geom.Vec3{0, cy, 0}, r, o, d); hit && t < best {
			best, bn, ok = t, n, true
		}
	}
	return best, bn, ok
}

// rayCylinder meets the cylinder x^2 + z^2 <= r^2, |y| <= hh from outside: the later of the entries
// into the infinite cylinder (a quadratic in t) and into the slab between the caps, if it comes before
// both exits.
func rayCylinder(r, hh float32, o, d geom.Vec3) (float32, geom.Vec3, bool) {
	ox, oz, dx, dz := float64(o[0]), float64(o[2]), float64(d[0]), float64(d[2])
	rr := float64(r)
	// The side: |o + t d|^2 = r^2 in x and z.
	a := dx*dx + dz*dz
	c := ox*ox + oz*oz - rr*rr
	tIn, tOut := math.Inf(-1), math.Inf(1)
	var nIn geom.Vec3
	if a < 1e-12 {
		if c > 0 {
			return 0, geom.Vec3{}, false // parallel to the axis, outside the side
		}
	} else {
		b := ox*dx + oz*dz
		disc := b*b - a*c
		if disc < 0 {
			return 0, geom.Vec3{}, false
		}
		sq := math.Sqrt(disc)
		tIn, tOut = (-b-sq)/a, (-b+sq)/a
		nIn = geom.Vec3{float32((ox + tIn*dx) / rr), 0, float32((oz + tIn*dz) / rr)}
	}
	// The slab between the caps.
	oy, dy, h := float64(o[1]), float64(d[1]), float64(hh)
	if math.Abs(dy) < 1e-12 {
		if math.Abs(oy) > h {
			return 0, geom.Vec3{}, false
		}
	} else {
		t0, t1 := (-h-oy)/dy, (h-oy)/dy
		ny := float32(-1)
		if t0 > t1 {
			t0, t1, ny = t1, t0, 1
		}
		if t0 > tIn {
			tIn, nIn = t0, geom.Vec3{0, ny, 0}
		}
		tOut = min(tOut, t1)
	}
	if tIn > tOut || tIn < 0 {
		return 0, geom.Vec3{}, false // a miss, or the ray starts inside
	}
	return float32(tIn), nIn, true
}
