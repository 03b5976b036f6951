package command

import (
	"math"

	"tumble/sim"
	"tumble/sim/geom"
)

// Hit is a ray cast's result: the body, the distance along the (unit) ray, the world point and the
// surface normal there.
type Hit struct {
	Body   sim.Handle
	Index  int // dense index when the cast was made
	T      float32
	Point  sim.Vec3
	Normal sim.Vec3
}

// Pick casts a ray from origin along dir against every body's shape and returns the nearest hit.
// Planes are hit too (picking the ground selects it; spawning at the cursor uses its point).
func (s *Session) Pick(origin, dir sim.Vec3) (Hit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	return RayCast(s.world, origin, dir)
}

// RayCast is Pick on a world the caller already holds (under View).
func RayCast(w *sim.World, origin, dir sim.Vec3) (Hit, bool) {
	dir = dir.Normalize()
	b := &w.Bodies
	best := Hit{T: float32(math.Inf(1))}
	found := false
	for i := range b.Len() {
		pose := geom.Pose{P: b.Position[i], Q: b.Rotation[i]}
		// Into the body's frame: shapes are simple there.
		o, d := pose.ApplyInv(origin), pose.Q.Conjugate().Rotate(dir)
		t, n, ok := rayShape(&b.Shape[i], o, d)
		if ok && t < best.T {
			best = Hit{Body: w.HandleAt(i), Index: i, T: t, Normal: pose.Q.Rotate(n)}
			found = true
		}
	}
	if found {
		best.Point = origin.Add(dir.Mul(best.T))
	}
	return best, found
}

// rayShape intersects the ray o + t d (t >= 0, d unit) with a shape in its local frame.
func rayShape(s *geom.Shape, o, d sim.Vec3) (float32, sim.Vec3, bool) {
	switch s.Kind {
	case geom.Box:
		return rayBox(s.HalfExtents, o, d)
	case geom.Sphere:
		return raySphere(sim.Vec3{}, s.Radius, o, d)
	case geom.Capsule:
		return rayCapsule(s.Radius, s.HalfHeight, o, d)
	case geom.ConvexHull:
		if s.Hull != nil {
			return rayHull(s.Hull, o, d)
		}
	case geom.TriMesh:
		if s.Mesh != nil {
			t, tri, ok := s.Mesh.Raycast(o, d, float32(math.Inf(1)))
			if ok {
				return t, s.Mesh.Normals[tri], true
			}
		}
	case geom.Plane:
		den := s.Normal.Dot(d)
		if den >= 0 {
			return 0, sim.Vec3{}, false // from behind, or parallel
		}
		t := (s.Offset - s.Normal.Dot(o)) / den
		return t, s.Normal, t >= 0
	}
	return 0, sim.Vec3{}, false
}

// rayHull clips the ray against every face plane of a convex hull (the slab test generalised): it
// enters where the last plane it crosses inwards is, and misses when it leaves a plane before that.
func rayHull(h *geom.Hull, o, d sim.Vec3) (float32, sim.Vec3, bool) {
	tmin, tmax := float32(math.Inf(-1)), float32(math.Inf(1))
	var n sim.Vec3
	for _, f := range h.Faces {
		den := f.Normal.Dot(d)
		dist := f.Offset - f.Normal.Dot(o) // >= 0: o is on the inner side of this face's plane
		if den == 0 {
			if dist < 0 {
				return 0, sim.Vec3{}, false // parallel to the face, outside it
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
			return 0, sim.Vec3{}, false
		}
	}
	if tmin < 0 {
		return 0, sim.Vec3{}, false // the ray starts inside, as rayBox
	}
	return tmin, n, true
}

// rayBox is the slab test.
func rayBox(h, o, d sim.Vec3) (float32, sim.Vec3, bool) {
	tmin, tmax := float32(0), float32(math.Inf(1))
	axis, sign := -1, float32(0)
	for k := range 3 {
		if d[k] == 0 {
			if o[k] < -h[k] || o[k] > h[k] {
				return 0, sim.Vec3{}, false
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
			return 0, sim.Vec3{}, false
		}
	}
	if axis < 0 {
		return 0, sim.Vec3{}, false // the ray starts inside
	}
	var n sim.Vec3
	n[axis] = sign
	return tmin, n, true
}

func raySphere(c sim.Vec3, r float32, o, d sim.Vec3) (float32, sim.Vec3, bool) {
	m := o.Sub(c)
	bq := m.Dot(d)
	cq := m.Dot(m) - r*r
	if cq > 0 && bq > 0 {
		return 0, sim.Vec3{}, false
	}
	disc := bq*bq - cq
	if disc < 0 {
		return 0, sim.Vec3{}, false
	}
	t := -bq - float32(math.Sqrt(float64(disc)))
	if t < 0 {
		return 0, sim.Vec3{}, false // inside
	}
	return t, o.Add(d.Mul(t)).Sub(c).Normalize(), true
}

// rayCapsule: the infinite cylinder about y clipped to the core, then the two end spheres.
func rayCapsule(r, hh float32, o, d sim.Vec3) (float32, sim.Vec3, bool) {
	best, bn, ok := float32(math.Inf(1)), sim.Vec3{}, false
	a := d[0]*d[0] + d[2]*d[2]
	if a > 1e-12 {
		bq := o[0]*d[0] + o[2]*d[2]
		cq := o[0]*o[0] + o[2]*o[2] - r*r
		if disc := bq*bq - a*cq; disc >= 0 {
			t := (-bq - float32(math.Sqrt(float64(disc)))) / a
			if y := o[1] + t*d[1]; t >= 0 && y >= -hh && y <= hh {
				p := o.Add(d.Mul(t))
				best, bn, ok = t, sim.Vec3{p[0], 0, p[2]}.Normalize(), true
			}
		}
	}
	for _, cy := range []float32{-hh, hh} {
		if t, n, hit := raySphere(sim.Vec3{0, cy, 0}, r, o, d); hit && t < best {
			best, bn, ok = t, n, true
		}
	}
	return best, bn, ok
}
