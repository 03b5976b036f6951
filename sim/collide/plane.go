package collide

import (
	"tumble/sim/geom"
	"tumble/sim/internal/vecmath"
)

// Planes against boxes, spheres and capsules. A plane is the boundary of the half-space below it: the
// solid side is where n.p < d, and its normal points out of the solid, so it is the contact normal when
// the plane is A.

// worldPlane returns the plane's world normal n and offset d (points p with n.p = d).
func worldPlane(s *geom.Shape, p *geom.Pose) (vec, float32) {
	n := rotate(p, s.Normal)
	return n, s.Offset + n.Dot(vg(p.P))
}

// planePoint adds the contact of a point q on the other shape's surface (at signed height s above the
// plane) to the manifold: midway between q and its foot on the plane.
func planePoint(m *Manifold, n, q vec, s float32, id uint32) {
	m.addPoint(q.MAdd(n, -s/2), s, id)
}

// planeSphere collides plane a with sphere b.
func planeSphere(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	n, d := worldPlane(a, pa)
	c := vg(pb.P)
	s := n.Dot(c) - d - b.Radius
	if s >= margin {
		return
	}
	m.setNormal(n)
	planePoint(m, n, c.MAdd(n, -b.Radius), s, 0)
}

// planeCapsule collides plane a with capsule b: each end of the core segment below the margin gives a
// point (id 0 for the local -y end, 1 for +y), so a capsule lying on the plane rests on two.
func planeCapsule(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	n, d := worldPlane(a, pa)
	e0, e1 := capsuleEnds(b, pb)
	r := b.Radius
	m.setNormal(n)
	if s := n.Dot(e0) - d - r; s < margin {
		planePoint(m, n, e0.MAdd(n, -r), s, 0)
	}
	if s := n.Dot(e1) - d - r; s < margin {
		planePoint(m, n, e1.MAdd(n, -r), s, 1)
	}
}

// planeBox collides plane a with box b: the (up to) four deepest corners below the margin, each with its
// corner index (bit k set for the +h side of local axis k) as id.
func planeBox(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	n, d := worldPlane(a, pa)
	var f frame
	f.set(pb)
	h := vg(b.HalfExtents)
	// Height of each corner: centre height plus the projections of the signed half extents.
	c := n.Dot(f.c) - d
	px, py, pz := n.Dot(f.ax[0])*h.X, n.Dot(f.ax[1])*h.Y, n.Dot(f.ax[2])*h.Z
	if c-vecmath.Abs(px)-vecmath.Abs(py)-vecmath.Abs(pz) >= margin {
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
		l := vec{X: -h.X, Y: -h.Y, Z: -h.Z}
		if v&1 != 0 {
			l.X = h.X
		}
		if v&2 != 0 {
			l.Y = h.Y
		}
		if v&4 != 0 {
			l.Z = h.Z
		}
		planePoint(m, n, f.toWorld(l), sep[i], uint32(v))
	}
}
