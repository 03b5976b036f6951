package collide

import (
	"math"
	"math/rand"

	"tumble/sim/geom"
)

// An independent reference for the narrow phase, in float64: exact signed distance and support functions
// per shape, and dense samples of each shape's surface. It shares no code with the package under test.

type rv [3]float64

func (a rv) add(b rv) rv      { return rv{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a rv) sub(b rv) rv      { return rv{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a rv) mul(s float64) rv { return rv{a[0] * s, a[1] * s, a[2] * s} }
func (a rv) dot(b rv) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a rv) norm() float64    { return math.Sqrt(a.dot(a)) }
func (a rv) unit() rv         { return a.mul(1 / a.norm()) }
func toRV(v geom.Vec3) rv     { return rv{float64(v[0]), float64(v[1]), float64(v[2])} }
func (a rv) vec() geom.Vec3   { return geom.Vec3{float32(a[0]), float32(a[1]), float32(a[2])} }
func (a rv) cross(b rv) rv {
	return rv{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func absf(x float64) float64         { return math.Abs(x) }
func (a rv) madd(b rv, s float64) rv { return a.add(b.mul(s)) }

// refShape is a shape placed in the world.
type refShape struct {
	kind geom.Kind
	c    rv
	ax   [3]rv // local axes in the world
	h    rv    // box half extents
	r    float64
	hh   float64 // capsule half height
	n    rv      // plane normal (world)
	d    float64 // plane offset (world)
}

// newRef places s at p, rotating by the quaternion's matrix computed here in float64.
func newRef(s *geom.Shape, p geom.Pose) refShape {
	w, x, y, z := float64(p.Q.W), float64(p.Q.V[0]), float64(p.Q.V[1]), float64(p.Q.V[2])
	l := math.Sqrt(w*w + x*x + y*y + z*z)
	w, x, y, z = w/l, x/l, y/l, z/l
	rot := func(v rv) rv { // v + 2w (q x v) + 2 q x (q x v)
		q := rv{x, y, z}
		t := q.cross(v).mul(2)
		return v.add(t.mul(w)).add(q.cross(t))
	}
	r := refShape{kind: s.Kind, c: toRV(p.P), h: toRV(s.HalfExtents), r: float64(s.Radius), hh: float64(s.HalfHeight)}
	for k := 0; k < 3; k++ {
		var e rv
		e[k] = 1
		r.ax[k] = rot(e)
	}
	if s.Kind == geom.Plane {
		r.n = rot(toRV(s.Normal))
		r.d = float64(s.Offset) + r.n.dot(r.c)
	}
	return r
}

func (s *refShape) local(p rv) rv {
	q := p.sub(s.c)
	return rv{q.dot(s.ax[0]), q.dot(s.ax[1]), q.dot(s.ax[2])}
}

func (s *refShape) world(l rv) rv {
	return s.c.madd(s.ax[0], l[0]).madd(s.ax[1], l[1]).madd(s.ax[2], l[2])
}

// sdf is the exact signed distance from p to the shape's surface, negative inside.
func (s *refShape) sdf(p rv) float64 {
	switch s.kind {
	case geom.Sphere:
		return p.sub(s.c).norm() - s.r
	case geom.Capsule:
		l := s.local(p)
		l[1] -= math.Max(-s.hh, math.Min(s.hh, l[1]))
		return l.norm() - s.r
	case geom.Box:
		l := s.local(p)
		var out rv
		inside := -math.MaxFloat64
		for k := 0; k < 3; k++ {
			q := absf(l[k]) - s.h[k]
			out[k] = math.Max(q, 0)
			inside = math.Max(inside, q)
		}
		return out.norm() + math.Min(inside, 0)
	case geom.Cylinder:
		l := s.local(p)
		dr := math.Hypot(l[0], l[2]) - s.r
		dy := absf(l[1]) - s.hh
		return math.Hypot(math.Max(dr, 0), math.Max(dy, 0)) + math.Min(math.Max(dr, dy), 0)
	case geom.Plane:
		return p.dot(s.n) - s.d
	}
	panic("kind")
}

// support is max over the shape of x.u.
func (s *refShape) support(u rv) float64 {
	switch s.kind {
	case geom.Sphere:
		return s.c.dot(u) + s.r*u.norm()
	case geom.Capsule:
		return s.c.dot(u) + s.hh*absf(s.ax[1].dot(u)) + s.r*u.norm()
	case geom.Box:
		return s.c.dot(u) + s.h[0]*absf(s.ax[0].dot(u)) + s.h[1]*absf(s.ax[1].dot(u)) + s.h[2]*absf(s.ax[2].dot(u))
	case geom.Cylinder:
		a := s.ax[1].dot(u)
		return s.c.dot(u) + s.hh*absf(a) + s.r*math.Sqrt(math.Max(0, u.dot(u)-a*a))
	}
	panic("kind")
}

// size is a length typical of the shape.
func (s *refShape) size() float64 {
	switch s.kind {
	case geom.Box:
		return math.Max(s.h[0], math.Max(s.h[1], s.h[2]))
	case geom.Capsule:
		return s.r + s.hh
	case geom.Cylinder:
		return math.Max(s.r, s.hh)
	}
	return s.r
}

// thickness is the shape's smallest width.
func (s *refShape) thickness() float64 {
	if s.kind == geom.Box {
		return 2 * math.Min(s.h[0], math.Min(s.h[1], s.h[2]))
	}
	if s.kind == geom.Cylinder {
		return 2 * math.Min(s.r, s.hh)
	}
	return 2 * s.r
}

// samples appends to out points on the shape's surface no further than about spacing apart; corners
// and edges of boxes are included exactly.
func (s *refShape) samples(spacing float64, out []rv) []rv {
	steps := func(length float64) int { return int(math.Ceil(length/spacing)) + 1 }
	switch s.kind {
	case geom.Box:
		for k := 0; k < 3; k++ {
			a, b := (k+1)%3, (k+2)%3
			na, nb := steps(2*s.h[a]), steps(2*s.h[b])
			for _, side := range []float64{-1, 1} {
				for i := 0; i < na; i++ {
					for j := 0; j < nb; j++ {
						var l rv
						l[k] = side * s.h[k]
						l[a] = -s.h[a] + 2*s.h[a]*float64(i)/float64(na-1)
						l[b] = -s.h[b] + 2*s.h[b]*float64(j)/float64(nb-1)
						out = append(out, s.world(l))
					}
				}
			}
		}
	case geom.Sphere:
		n := sphereCount(s.r, spacing)
		for i := 0; i < n; i++ {
			out = append(out, s.c.madd(fibonacciPoint(i, n), s.r))
		}
	case geom.Capsule:
		ny, nt := steps(2*s.hh), steps(2*math.Pi*s.r)
		for i := 0; i < ny; i++ {
			y := -s.hh
			if ny > 1 {
				y += 2 * s.hh * float64(i) / float64(ny-1)
			}
			for j := 0; j < nt; j++ {
				a := 2 * math.Pi * float64(j) / float64(nt)
				out = append(out, s.world(rv{s.r * math.Cos(a), y, s.r * math.Sin(a)}))
			}
		}
		n := sphereCount(s.r, spacing)
		for i := 0; i < n; i++ {
			u := fibonacciPoint(i, n)
			y := s.hh
			if u[1] < 0 {
				y = -s.hh
			}
			out = append(out, s.world(rv{s.r * u[0], y + s.r*u[1], s.r * u[2]}))
		}
	case geom.Cylinder:
		ny := steps(2 * s.hh)
		ring := func(rho, y float64) {
			nt := steps(2 * math.Pi * rho)
			for j := 0; j < nt; j++ {
				a := 2 * math.Pi * float64(j) / float64(nt)
				out = append(out, s.world(rv{rho * math.Cos(a), y, rho * math.Sin(a)}))
			}
		}
		for i := 0; i < ny; i++ {
			ring(s.r, -s.hh+2*s.hh*float64(i)/float64(ny-1))
		}
		for _, y := range []float64{-s.hh, s.hh} {
			out = append(out, s.world(rv{0, y, 0}))
			nr := steps(s.r)
			for i := 1; i < nr-1; i++ {
				ring(s.r*float64(i)/float64(nr-1), y)
			}
		}
	}
	return out
}

// sphereCount is how many Fibonacci points cover a sphere of radius r at the given spacing.
func sphereCount(r, spacing float64) int {
	return max(32, int(math.Ceil(4*math.Pi*r*r/(spacing*spacing)*1.3)))
}

// fibonacci returns n nearly evenly spread unit vectors.
func fibonacci(n int) []rv {
	out := make([]rv, n)
	for i := range out {
		out[i] = fibonacciPoint(i, n)
	}
	return out
}

// fibonacciPoint is the i-th of n points of the Fibonacci spiral on the unit sphere.
func fibonacciPoint(i, n int) rv {
	golden := math.Pi * (3 - math.Sqrt(5))
	y := 1 - 2*(float64(i)+0.5)/float64(n)
	rad := math.Sqrt(1 - y*y)
	a := golden * float64(i)
	return rv{rad * math.Cos(a), y, rad * math.Sin(a)}
}

// Random shapes and poses for the reference tests.

func randQuat(rng *rand.Rand) geom.Quat {
	for {
		q := geom.Quat{W: float32(rng.NormFloat64()), V: geom.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}}
		if l := q.Len(); l > 0.1 {
			return q.Normalize()
		}
	}
}

func randUnit(rng *rand.Rand) rv {
	for {
		v := rv{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		if l := v.norm(); l > 0.1 {
			return v.mul(1 / l)
		}
	}
}

func uniform(rng *rand.Rand, lo, hi float64) float32 { return float32(lo + (hi-lo)*rng.Float64()) }

func randShape(rng *rand.Rand, k geom.Kind) geom.Shape {
	switch k {
	case geom.Box:
		return geom.Shape{Kind: k, HalfExtents: geom.Vec3{uniform(rng, 0.1, 1), uniform(rng, 0.1, 1), uniform(rng, 0.1, 1)}}
	case geom.Sphere:
		return geom.Shape{Kind: k, Radius: uniform(rng, 0.1, 0.8)}
	case geom.Capsule:
		hh := uniform(rng, 0.05, 1)
		if rng.Intn(10) == 0 {
			hh = 0 // a capsule that is a sphere
		}
		return geom.Shape{Kind: k, Radius: uniform(rng, 0.08, 0.5), HalfHeight: hh}
	case geom.Cylinder:
		return geom.Shape{Kind: k, Radius: uniform(rng, 0.1, 0.8), HalfHeight: uniform(rng, 0.05, 1)}
	}
	panic("kind")
}

// randPair places two shapes near contact: B's centre is put along a random direction u from A's at the
// distance where their projections on u just touch, shifted by gap (negative: overlapping). One in five
// placements is deep.
func randPair(rng *rand.Rand, sa, sb *geom.Shape) (pa, pb geom.Pose) {
	pa = geom.Pose{P: geom.Vec3{uniform(rng, -2, 2), uniform(rng, -2, 2), uniform(rng, -2, 2)}, Q: randQuat(rng)}
	pb = geom.Pose{Q: randQuat(rng)}
	ra, rb := newRef(sa, pa), newRef(sb, pb)
	u := randUnit(rng)
	wa := ra.support(u) - ra.c.dot(u)
	wb := rb.support(u.mul(-1)) + rb.c.dot(u) // rb.c is the origin here
	size := math.Min(ra.size(), rb.size())
	gap := (rng.Float64()*0.55 - 0.4) * size
	if rng.Intn(5) == 0 {
		gap = -(0.4 + 1.2*rng.Float64()) * size // deep: a sphere's centre may be inside a box
	}
	pb.P = ra.c.madd(u, wa+wb+gap).vec()
	return pa, pb
}
