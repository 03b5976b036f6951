package collide

import "tumble/sim/geom"

// Planes against boxes, spheres and capsules. A plane is the boundary of the half-space below it: the
// solid side is where n.p < d, and its normal points out of the solid, so it is the contact normal when
// the plane is A.

// worldPlane returns the plane's world normal n and offset d (points p with n.p = d).
func worldPlane(s *geom.Shape, p *geom.Pose) (vec, float32) {
	n := rotate(p, s.Normal)
	return n, s.Offset + n.dot(vg(p.P))
}

// planePoint adds the contact of a point q on the other shape's surface (at signed height s above the
// plane) to the manifold: midway between q and its foot on the plane.
func planePoint(m *Manifold, n, q vec, s float32, id uint32) {
	m.add(q.madd(n, -s/2), s, id)
}

// planeSphere collides plane a with sphere b.
func planeSphere(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	n, d := worldPlane(a, pa)
	c := vg(pb.P)
	s := n.dot(c) - d - b.Radius
	if s >= margin {
		return
	}
	m.setNormal(n)
	planePoint(m, n, c.madd(n, -b.Radius), s, 0)
}

// planeCapsule collides plane a with capsule b: each end of the core segment below the margin gives a
// point (id 0 for the local -y end, 1 for +y), so a capsule lying on the plane rests on two.
func planeCapsule(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	n, d := worldPlane(a, pa)
	e0, e1 := capsuleEnds(b, pb)
	r := b.Radius
	m.setNormal(n)
	if s := n.dot(e0) - d - r; s < margin {
		planePoint(m, n, e0.madd(n, -r), s, 0)
	}
	if s := n.dot(e1) - d - r; s < margin {
		planePoint(m, n, e1.madd(n, -r), s, 1)
	}
}

// planeBox collides plane a with box b: the (up to) four deepest corners below the margin, each with its
// corner index (bit k set for the +h side of local axis k) as id.
func planeBox(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	n, d := worldPlane(a, pa)
	f := makeFrame(pb)
	h := vg(b.HalfExtents)
	// Height of each corner: centre height plus the projections of the signed half extents.
	c := n.dot(f.c) - d
	px, py, pz := n.dot(f.ax[0])*h.x, n.dot(f.ax[1])*h.y, n.dot(f.ax[2])*h.z
	if c-abs32(px)-abs32(py)-abs32(pz) >= margin {
		return
	}
	var sep [8]float32
	var idx [8]uint8
	cnt := 0
	for v := 0; v < 8; v++ {
		s := c - px - py - pz
		if v&1 != 0 {
			s += 2 * px
		}
		if v&2 != 0 {
			s += 2 * py
		}
		if v&4 != 0 {
			s += 2 * pz
		}
		if s < margin {
			// Insert in increasing separation.
			j := cnt
			for ; j > 0 && sep[j-1] > s; j-- {
				sep[j], idx[j] = sep[j-1], idx[j-1]
			}
			sep[j], idx[j] = s, uint8(v)
			cnt++
		}
	}
	m.setNormal(n)
	for i := 0; i < cnt && i < 4; i++ {
		v := idx[i]
		l := vec{-h.x, -h.y, -h.z}
		if v&1 != 0 {
			l.x = h.x
		}
		if v&2 != 0 {
			l.y = h.y
		}
		if v&4 != 0 {
			l.z = h.z
		}
		planePoint(m, n, f.toWorld(l), sep[i], uint32(v))
	}
}
