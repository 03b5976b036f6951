package collide

import (
	"math"

	"tumble/sim/geom"
)

// The distance between two convex shapes by GJK (Gilbert, Johnson and Keerthi 1988), which the scene
// queries (Cast, Overlaps) build on. A shape is its core, a polytope (a point, a segment, a box, a
// hull, a triangle), grown by a radius: spheres and capsules are a point and a segment grown by
// theirs, so GJK only ever walks polytopes, where it ends exactly, and the round part is added as a
// number. The sums run in float64: the queries step a shape many times by small gaps, and float32
// would leave the last gap at the size of its rounding.

// d3 is a float64 3-vector.
type d3 struct{ x, y, z float64 }

func d3of(v geom.Vec3) d3            { return d3{float64(v[0]), float64(v[1]), float64(v[2])} }
func (a d3) f32() geom.Vec3          { return geom.Vec3{float32(a.x), float32(a.y), float32(a.z)} }
func (a d3) add(b d3) d3             { return d3{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a d3) sub(b d3) d3             { return d3{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a d3) scale(s float64) d3      { return d3{a.x * s, a.y * s, a.z * s} }
func (a d3) madd(b d3, s float64) d3 { return d3{a.x + b.x*s, a.y + b.y*s, a.z + b.z*s} }
func (a d3) dot(b d3) float64        { return a.x*b.x + a.y*b.y + a.z*b.z }
func (a d3) cross(b d3) d3           { return d3{a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x} }
func (a d3) length() float64         { return math.Sqrt(a.dot(a)) }
func sign(x float64) float64         { return math.Copysign(1, x) }
func boxCorner(h, l d3) d3           { return d3{sign(l.x) * h.x, sign(l.y) * h.y, sign(l.z) * h.z} }
func (c *core) local(v d3) d3        { return d3{c.ax[0].dot(v), c.ax[1].dot(v), c.ax[2].dot(v)} }
func (c *core) world(l d3) d3        { return c.ax[0].scale(l.x).madd(c.ax[1], l.y).madd(c.ax[2], l.z) }
func (c *core) point(l geom.Vec3) d3 { return c.c.add(c.world(d3of(l))) }

// coreKind is the polytope at the heart of a shape.
type coreKind uint8

const (
	corePoint    coreKind = iota // a sphere's centre
	coreSegment                  // a capsule's core, local y in [-half.y, half.y]
	coreBox                      // a box, half extents half
	coreHull                     // a convex hull's vertices
	coreTriangle                 // tri, already placed
	coreCylinder                 // a cylinder, radius cr, half height half.y along local y
)

// core is a posed convex shape as GJK sees it: the polytope's support in any direction, and the radius
// that grows it.
type core struct {
	kind  coreKind
	c     d3    // centre
	ax    [3]d3 // the local axes' directions
	half  d3    // box half extents; a segment's half length in y
	verts []geom.Vec3
	tri   [3]d3
	r     float64
	cr    float64 // a cylinder's radius (part of the core, not grown by r)
}

// coreOf makes the core of a convex shape (box, sphere, capsule, hull, cylinder) at pose p. ok is false for the
// other kinds.
func coreOf(s *geom.Shape, p geom.Pose) (c core, ok bool) {
	q := p.Q
	w, x, y, z := float64(q.W), float64(q.V[0]), float64(q.V[1]), float64(q.V[2])
	k := 2 / max(w*w+x*x+y*y+z*z, 1e-30) // 2/|q|^2: the axes of a quaternion a little off unit
	c.c = d3of(p.P)
	c.ax[0] = d3{1 - k*(y*y+z*z), k * (x*y + w*z), k * (x*z - w*y)}
	c.ax[1] = d3{k * (x*y - w*z), 1 - k*(x*x+z*z), k * (y*z + w*x)}
	c.ax[2] = d3{k * (x*z + w*y), k * (y*z - w*x), 1 - k*(x*x+y*y)}
	switch s.Kind {
	case geom.Sphere:
		c.kind, c.r = corePoint, float64(s.Radius)
	case geom.Capsule:
		c.kind, c.r, c.half = coreSegment, float64(s.Radius), d3{0, float64(s.HalfHeight), 0}
	case geom.Box:
		c.kind, c.half = coreBox, d3of(s.HalfExtents)
	case geom.Cylinder:
		c.kind, c.cr, c.half = coreCylinder, float64(s.Radius), d3{0, float64(s.HalfHeight), 0}
	case geom.ConvexHull:
		if s.Hull == nil {
			return c, false
		}
		c.kind, c.verts = coreHull, s.Hull.Verts
	default:
		return c, false
	}
	return c, true
}

// triangleCore makes the core of a triangle with corners a, b, c.
func triangleCore(a, b, c d3) core {
	return core{kind: coreTriangle, tri: [3]d3{a, b, c}, c: a.add(b).add(c).scale(1.0 / 3)}
}

// support returns the core's farthest point along d.
func (c *core) support(d d3) d3 {
	switch c.kind {
	case corePoint:
		return c.c
	case coreSegment:
		if c.ax[1].dot(d) >= 0 {
			return c.c.madd(c.ax[1], c.half.y)
		}
		return c.c.madd(c.ax[1], -c.half.y)
	case coreBox:
		return c.c.add(c.world(boxCorner(c.half, c.local(d))))
	case coreHull:
		l := c.local(d)
		best, at := math.Inf(-1), 0
		for i, v := range c.verts {
			if s := float64(v[0])*l.x + float64(v[1])*l.y + float64(v[2])*l.z; s > best {
				best, at = s, i
			}
		}
		return c.point(c.verts[at])
	case coreCylinder:
		// The rim point of the cap d points to, farthest along d's part square to the axis.
		l := c.local(d)
		p := d3{0, c.half.y, 0}
		if l.y < 0 {
			p.y = -p.y
		}
		if rho := math.Hypot(l.x, l.z); rho > 1e-12*math.Abs(l.y) && rho > 0 {
			p.x, p.z = c.cr*l.x/rho, c.cr*l.z/rho
		}
		return c.c.add(c.world(p))
	case coreTriangle:
		best, at := math.Inf(-1), 0
		for i, v := range c.tri {
			if s := v.dot(d); s > best {
				best, at = s, i
			}
		}
		return c.tri[at]
	}
	return c.c
}

// simplexVert is a vertex of GJK's simplex in the Minkowski difference A - B: w = a - b.
type simplexVert struct{ a, b, w d3 }

// distance returns the distance between the cores of A and B (their radii left out) and the closest
// points on each core; 0 when the cores overlap (the points are then not meaningful).
func distance(A, B *core) (float64, d3, d3) {
	var s [4]simplexVert
	var lam [4]float64
	dir := A.c.sub(B.c)
	if dir.dot(dir) < 1e-24 {
		dir = d3{1, 0, 0}
	}
	a, b := A.support(dir.scale(-1)), B.support(dir)
	s[0], lam[0] = simplexVert{a, b, a.sub(b)}, 1
	n := 1
	v := s[0].w
	for range 64 {
		vv := v.dot(v)
		if vv < 1e-24 {
			return 0, d3{}, d3{}
		}
		a, b := A.support(v.scale(-1)), B.support(v)
		w := a.sub(b)
		// Stop when the new support point brings the bound on the distance no closer than a relative
		// 1e-12 of its square: v is then the closest point of A - B to the origin.
		if vv-v.dot(w) <= 1e-12*vv {
			break
		}
		dup := false
		for i := range n {
			dup = dup || s[i].w == w
		}
		if dup {
			break
		}
		s[n] = simplexVert{a, b, w}
		n++
		var next d3
		next, n = closestOnSimplex(&s, n, &lam)
		if n == 4 {
			return 0, d3{}, d3{} // the origin is inside the tetrahedron: the cores overlap
		}
		if next.dot(next) >= vv {
			break // rounding: no progress (the last simplex is kept)
		}
		v = next
	}
	var pa, pb d3
	for i := range n {
		pa, pb = pa.madd(s[i].a, lam[i]), pb.madd(s[i].b, lam[i])
	}
	return v.length(), pa, pb
}

// closestOnSimplex finds the point of the simplex s[:n] nearest the origin, reduces s to the vertices
// whose hull holds it (their weights in lam), and returns the point and the new vertex count. It tries
// every face (vertex, edge, triangle) and keeps the nearest projection that falls strictly inside its
// face; a simplex of at most four points has 15 faces, which costs less than it reads. n = 4 comes
// back only when the origin is inside the tetrahedron.
func closestOnSimplex(s *[4]simplexVert, n int, lam *[4]float64) (d3, int) {
	if n == 4 {
		p0 := s[0].w
		e1, e2, e3 := s[1].w.sub(p0), s[2].w.sub(p0), s[3].w.sub(p0)
		if det := e1.dot(e2.cross(e3)); math.Abs(det) > 1e-18 {
			// p0 + m1 e1 + m2 e2 + m3 e3 = 0 by Cramer's rule.
			m1 := -p0.dot(e2.cross(e3)) / det
			m2 := -e1.dot(p0.cross(e3)) / det
			m3 := -e1.dot(e2.cross(p0)) / det
			if m1 > 0 && m2 > 0 && m3 > 0 && m1+m2+m3 < 1 {
				*lam = [4]float64{1 - m1 - m2 - m3, m1, m2, m3}
				return d3{}, 4
			}
		}
	}
	best, bestMask := math.Inf(1), 0
	var bestLam [4]float64
	var bestP d3
	for mask := 1; mask < 1<<n; mask++ {
		var idx [3]int
		m := 0
		for i := range n {
			if mask&(1<<i) != 0 && m < 3 {
				idx[m] = i
				m++
			}
		}
		if m == 3 && mask>>idx[2]>>1 != 0 {
			continue // four vertices: handled above
		}
		var l [4]float64
		var p d3
		switch m {
		case 1:
			p, l[idx[0]] = s[idx[0]].w, 1
		case 2:
			p0, e := s[idx[0]].w, s[idx[1]].w.sub(s[idx[0]].w)
			ee := e.dot(e)
			if ee < 1e-24 {
				continue
			}
			t := -p0.dot(e) / ee
			if !(t > 0 && t < 1) {
				continue
			}
			p, l[idx[0]], l[idx[1]] = p0.madd(e, t), 1-t, t
		case 3:
			p0 := s[idx[0]].w
			e1, e2 := s[idx[1]].w.sub(p0), s[idx[2]].w.sub(p0)
			// Minimise |p0 + m1 e1 + m2 e2|: the 2x2 normal equations.
			g11, g12, g22 := e1.dot(e1), e1.dot(e2), e2.dot(e2)
			r1, r2 := -p0.dot(e1), -p0.dot(e2)
			det := g11*g22 - g12*g12
			if det <= 1e-12*g11*g22 {
				continue // a sliver: its edges answer
			}
			m1, m2 := (r1*g22-r2*g12)/det, (g11*r2-g12*r1)/det
			if !(m1 > 0 && m2 > 0 && m1+m2 < 1) {
				continue
			}
			p = p0.madd(e1, m1).madd(e2, m2)
			l[idx[0]], l[idx[1]], l[idx[2]] = 1-m1-m2, m1, m2
		}
		if d := p.dot(p); d < best {
			best, bestMask, bestLam, bestP = d, mask, l, p
		}
	}
	// Keep the vertices of the chosen face, in order.
	k := 0
	for i := range n {
		if bestMask&(1<<i) != 0 {
			s[k], lam[k] = s[i], bestLam[i]
			k++
		}
	}
	return bestP, k
}
