package collide

import (
	"math"
	"sync"

	"tumble/sim/geom"
)

// Cylinders against every kind. A cylinder is not a polytope and has no radius to grow one by, so its
// pairs go through support functions, as Jolt's do:
//
//  1. The contact normal and depth. GJK on the two cores (a cylinder's core is the whole cylinder; a
//     sphere's and a capsule's are their point and segment, grown by their radii afterwards) gives the
//     distance and the normal while they are apart; when the cores overlap, the expanding polytope
//     algorithm (EPA, van den Bergen 2001) grows GJK's last simplex towards the boundary of the
//     Minkowski difference A - B until the nearest face holds to within epaTol: its normal is the
//     direction of least penetration, its distance the depth. Flat parts (a cap, a box face) end
//     exactly; the curved side converges to within epaTol.
//  2. The points. Each shape gives the feature that faces the other along the normal (supportFeature):
//     a face (a box's or hull's face, a triangle, a cylinder's cap as a polygon of cylSides rim points
//     plus the exact deepest rim point), a segment (a cylinder's side line or a capsule's core, where
//     the normal is within 45 degrees of square to the axis) or a point. A face whose normal lies within
//     refAngle of the contact normal is the reference: the other feature is clipped to its side planes
//     and each point's separation measured square to it (a stand on a cap: up to four rim points; a
//     cylinder on its side on a face: its side line clipped, two points). Two parallel segments (logs
//     side by side) give the ends of their overlap; anything else gives one point, the closest pair.
//
// Feature ids name the reference face and the incident vertex or the clip edge that made a point, so
// they hold while the same features touch and warm starting finds them again. A plane needs no GJK:
// its normal is the plane's (cylinderPlane); nor does a sphere: the nearest point of a cylinder to a
// point has a closed form (cylinderSphere).

// cylSides is how many rim points stand for a cap's circle in clipping. The deepest rim point is added
// exactly, so the depth is exact; the polygon only sets which other rim points a flat stand keeps.
const cylSides = 12

// rim holds the cosines and sines of the cap polygon's angles, 2 pi k / cylSides.
var rim = func() (t [cylSides][2]float32) {
	for k := range t {
		sn, cs := math.Sincos(2 * math.Pi * float64(k) / cylSides)
		t[k] = [2]float32{float32(cs), float32(sn)}
	}
	return t
}()

// maxFeat bounds a feature's vertices (a hull face with more counts as its deepest point).
const maxFeat = 40

// refCos is the cosine of refAngle (0.08 degrees), the most a face's normal may differ from the
// contact normal and still be the reference face. EPA's normal from a flat part of the Minkowski
// difference (a face against anything) is that face's to about 1e-9; a normal further off comes from a
// rim or an edge, and measuring the points square to a face there would overstate the depth by the
// tilt times the contact's extent.
const refCos = 1 - 1e-6

// Tolerances of GJK and EPA on curved cores (m): GJK stops when the distance bound closes to gjkTol, EPA
// when the next support point is within epaTol of the nearest face.
const (
	gjkTol = 1e-6
	epaTol = 1e-6
)

// feature is the part of a shape facing a direction, in the world: a face (n >= 3, a loop
// counter-clockwise about its outward unit normal nrm), a segment (n = 2) or a point (n = 1); ids name
// the vertices, face the face.
type feature struct {
	n     int
	p     [maxFeat]vec
	id    [maxFeat]uint32
	nrm   vec
	face  uint32
	round bool // a cylinder's cap: a polygon standing for a circle
}

func (f *feature) add(p vec, id uint32) {
	if f.n < maxFeat {
		f.p[f.n], f.id[f.n] = p, id
		f.n++
	}
}

// convex is one side of a generic pair: the shape (nil for a triangle), its pose as a frame, its GJK
// core, and a triangle's corners and normal.
type convex struct {
	s    *geom.Shape
	f    frame
	c    core
	tri  [3]vec
	triN vec
}

// convexOf makes the convex view of shape s (box, sphere, capsule, hull, cylinder) at pose p.
func convexOf(s *geom.Shape, p *geom.Pose) (convex, bool) {
	var x convex
	x.s = s
	x.f.set(p)
	var ok bool
	x.c, ok = coreOf(s, *p)
	return x, ok
}

// triangleConvex makes the convex view of a triangle with corners v and unit normal n.
func triangleConvex(v [3]vec, n vec) convex {
	x := convex{tri: v, triN: n}
	x.c = triangleCore(dv(v[0]), dv(v[1]), dv(v[2]))
	return x
}

func dv(v vec) d3 { return d3{float64(v.X), float64(v.Y), float64(v.Z)} }
func vd(v d3) vec { return vec{X: float32(v.x), Y: float32(v.y), Z: float32(v.z)} }
func sgn(x float32) float32 {
	if x < 0 {
		return -1
	}
	return 1
}

// size is a length the shape spans, for the tolerances of clipping and point reduction: for a solid,
// the radius of its bounding sphere about its centre.
func (x *convex) size() float32 {
	if x.s == nil {
		e0, e1 := x.tri[1].Sub(x.tri[0]), x.tri[2].Sub(x.tri[0])
		return float32(math.Sqrt(float64(max(e0.Dot(e0), e1.Dot(e1)))))
	}
	switch x.s.Kind {
	case geom.Box:
		return x.s.HalfExtents.Len()
	case geom.Sphere:
		return x.s.Radius
	case geom.Capsule:
		return x.s.Radius + x.s.HalfHeight
	case geom.Cylinder:
		return float32(math.Hypot(float64(x.s.Radius), float64(x.s.HalfHeight)))
	case geom.ConvexHull:
		return x.s.Hull.Radius
	}
	return 1
}

// bound is the radius about the core's centre of a sphere holding the shape (for a triangle, about
// its centroid: no corner is further than 4/3 of its longest edge from there).
func (x *convex) bound() float32 {
	if x.s == nil {
		return 2 * x.size()
	}
	return x.size()
}

// supportFeature writes to out the feature of x facing the world direction d (unit).
func (x *convex) supportFeature(d vec, out *feature) {
	out.n, out.face, out.round = 0, 0, false
	if x.s == nil {
		for k, v := range x.tri {
			out.add(v, uint32(k))
		}
		out.nrm = x.triN
		return
	}
	f := &x.f
	l := f.dirToLocal(d)
	switch x.s.Kind {
	case geom.Sphere:
		out.add(f.c.MAdd(d, x.s.Radius), 0)
	case geom.Capsule:
		r, h := x.s.Radius, x.s.HalfHeight
		if l.Y*l.Y < 0.5 {
			out.add(f.toWorld(vec{Y: -h}).MAdd(d, r), 0)
			out.add(f.toWorld(vec{Y: h}).MAdd(d, r), 1)
		} else {
			out.add(f.toWorld(vec{Y: sgn(l.Y) * h}).MAdd(d, r), uint32(1+sgn(l.Y))/2)
		}
	case geom.Cylinder:
		cylinderFeature(x.s.Radius, x.s.HalfHeight, f, l, out)
	case geom.Box, geom.ConvexHull:
		var vb [8]geom.Vec3
		var fb [6]geom.HullFace
		P := shapePoly(x.s, &vb, &fb)
		best, bi := float32(-2), 0
		for i := range P.faces {
			if dd := vg(P.faces[i].Normal).Dot(l); dd > best {
				best, bi = dd, i
			}
		}
		g := &P.faces[bi]
		if int(g.Count) > maxFeat {
			out.add(vd(x.c.support(dv(d))), 1<<20)
			return
		}
		for _, vi := range P.fv[g.First : g.First+g.Count] {
			out.add(f.toWorld(vg(P.verts[vi])), uint32(vi))
		}
		out.nrm, out.face = f.dirToWorld(vg(g.Normal)), uint32(bi)
	}
}

// cylinderFeature is the feature of a cylinder (radius r, half height h, frame f) facing the local
// direction l: where l is within 45 degrees of the axis, the cap it points to, as cylSides rim points
// with the exact deepest rim point put in between (unless the cap faces l all but squarely); else the
// side line, the two rim points farthest along l. Ids: cap*64 + k for rim point k of cap 0 (top) or 1
// (bottom), cap*64 + 63 for the deepest rim point, 128 + end for the side line's ends.
func cylinderFeature(r, h float32, f *frame, l vec, out *feature) {
	rho := float32(math.Hypot(float64(l.X), float64(l.Z)))
	if l.Y*l.Y >= rho*rho {
		s := sgn(l.Y)
		cap := uint32(1-s) / 2
		// Top: (cos a, -sin a) in (x, z) runs counter-clockwise about +y; bottom: (cos a, sin a) about -y.
		// The exact deepest rim point, where the cap is tilted by more than 1e-3 rad: below that it lies
		// less than r (1 - cos 15 degrees) 1e-3 = 3.4e-5 r deeper than the nearest polygon vertex
		// (within keepDeepest's tolerance), and leaving it out keeps a flat stand's polygon, and so
		// its clip points' ids, the same while the tilt's direction wanders.
		var deep float64 = -1
		if rho > 1e-3*abs32f(l.Y) {
			deep = math.Atan2(float64(-s*l.Z), float64(l.X))
			if deep < 0 {
				deep += 2 * math.Pi
			}
		}
		const step = 2 * math.Pi / cylSides
		for k := 0; k < cylSides; k++ {
			a := step * float64(k)
			cs, sn := rim[k][0], rim[k][1]
			out.add(f.toWorld(vec{X: r * cs, Y: s * h, Z: -s * r * sn}), cap*64+uint32(k))
			if off := deep - a; off > 1e-3 && off < step-1e-3 {
				sn, cs := math.Sincos(deep)
				out.add(f.toWorld(vec{X: r * float32(cs), Y: s * h, Z: -s * r * float32(sn)}), cap*64+63)
			}
		}
		out.nrm, out.face, out.round = f.ax[1].Scale(s), 1+cap, true
		return
	}
	u := vec{X: r * l.X / rho, Z: r * l.Z / rho}
	out.add(f.toWorld(vec{X: u.X, Y: h, Z: u.Z}), 128)
	out.add(f.toWorld(vec{X: u.X, Y: -h, Z: u.Z}), 129)
}

// convexWork is the scratch of one generic contact (about 50 KB: the clip buffers and EPA's polytope),
// reused from call to call through convexWorkPool: zeroing it on every call cost more than a resting
// pair's GJK and EPA together.
type convexWork struct {
	poly, tmp, pts [maxClip]clipPt
	vs             [epaMaxVerts]simplexVert
	fs             [epaMaxFaces]epaFace
	horizon        [epaMaxFaces][2]int
}

var convexWorkPool = sync.Pool{New: func() any { return new(convexWork) }}

// simplex is GJK's working set.
type simplex struct {
	s   [4]simplexVert
	lam [4]float64
	n   int
}

// gjk runs GJK on the cores A and B: it returns the closest point v of A - B to the origin and leaves
// the simplex holding it in sx; overlap is true when the origin is (to within rounding) in A - B.
func gjk(A, B *core, sx *simplex) (v d3, overlap bool) {
	dir := A.c.sub(B.c)
	if dir.dot(dir) < 1e-24 {
		dir = d3{1, 0, 0}
	}
	a, b := A.support(dir.scale(-1)), B.support(dir)
	sx.s[0], sx.lam[0], sx.n = simplexVert{a, b, a.sub(b)}, 1, 1
	v = sx.s[0].w
	for range 64 {
		vv := v.dot(v)
		if vv < 1e-20 {
			return v, true
		}
		a, b := A.support(v.scale(-1)), B.support(v)
		w := a.sub(b)
		// The distance is at least v.w/|v|: stop when that bound is within gjkTol of |v|.
		if vv-v.dot(w) <= gjkTol*math.Sqrt(vv)+1e-14*vv {
			break
		}
		dup := false
		for i := range sx.n {
			dup = dup || sx.s[i].w == w
		}
		if dup {
			break
		}
		sx.s[sx.n] = simplexVert{a, b, w}
		sx.n++
		var next d3
		next, sx.n = closestOnSimplex(&sx.s, sx.n, &sx.lam)
		if sx.n == 4 {
			return v, true
		}
		if next.dot(next) >= vv {
			break
		}
		v = next
	}
	return v, false
}

// epaFace is a face of EPA's polytope: its vertices (counter-clockwise seen from outside), outward unit
// normal and distance from the origin.
type epaFace struct {
	v    [3]int
	n    d3
	d    float64
	dead bool
}

const (
	epaMaxVerts = 64
	epaMaxFaces = 2 * epaMaxVerts
)

// epa returns the penetration of the cores A and B whose simplex sx holds the origin: the depth, the
// unit normal (the direction to move B by depth to separate them, so from A to B) and the deepest
// points of the cores. ok is false when the polytope cannot be made (degenerate cores).
func epa(A, B *core, sx *simplex, w *convexWork) (depth float64, n, pa, pb d3, ok bool) {
	vs := &w.vs
	nv := copy(vs[:], sx.s[:sx.n])
	sup := func(d d3) simplexVert {
		a, b := A.support(d), B.support(d.scale(-1))
		return simplexVert{a, b, a.sub(b)}
	}
	axes := [3]d3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	// Grow the simplex to a tetrahedron.
	if nv == 1 {
		for _, ax := range axes {
			for _, sg := range [2]float64{1, -1} {
				if p := sup(ax.scale(sg)); nv == 1 && p.w.sub(vs[0].w).length() > 1e-9 {
					vs[nv] = p
					nv++
				}
			}
		}
	}
	if nv == 2 {
		e := vs[1].w.sub(vs[0].w)
		for _, ax := range axes {
			d := e.cross(ax)
			if d.length() < 1e-9*e.length() {
				continue
			}
			for _, sg := range [2]float64{1, -1} {
				if p := sup(d.scale(sg)); nv == 2 && p.w.sub(vs[0].w).cross(e).length() > 1e-9*e.length() {
					vs[nv] = p
					nv++
				}
			}
		}
	}
	if nv == 3 {
		nr := vs[1].w.sub(vs[0].w).cross(vs[2].w.sub(vs[0].w))
		for _, sg := range [2]float64{1, -1} {
			if p := sup(nr.scale(sg)); nv == 3 && math.Abs(p.w.sub(vs[0].w).dot(nr)) > 1e-9*nr.length() {
				vs[nv] = p
				nv++
			}
		}
	}
	if nv < 4 {
		return 0, d3{}, d3{}, d3{}, false
	}
	fs := &w.fs
	nf := 0
	centre := vs[0].w.add(vs[1].w).add(vs[2].w).add(vs[3].w).scale(0.25)
	mk := func(i, j, k int) epaFace {
		a := vs[i].w
		nr := vs[j].w.sub(a).cross(vs[k].w.sub(a))
		l := nr.length()
		if l < 1e-18 {
			return epaFace{v: [3]int{i, j, k}, d: math.Inf(1)}
		}
		nr = nr.scale(1 / l)
		return epaFace{v: [3]int{i, j, k}, n: nr, d: nr.dot(a)}
	}
	for _, t := range [4][3]int{{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}} {
		f := mk(t[0], t[1], t[2])
		if f.n.dot(centre.sub(vs[t[0]].w)) > 0 {
			f = mk(t[0], t[2], t[1])
		}
		fs[nf] = f
		nf++
	}
	var bf epaFace
	for {
		best := -1
		for i := 0; i < nf; i++ {
			if !fs[i].dead && (best < 0 || fs[i].d < fs[best].d) {
				best = i
			}
		}
		if best < 0 {
			return 0, d3{}, d3{}, d3{}, false
		}
		f := fs[best]
		bf = f
		if math.IsInf(f.d, 1) || nv == epaMaxVerts {
			break
		}
		p := sup(f.n)
		if p.w.dot(f.n)-f.d <= epaTol {
			break
		}
		// Remove the faces p sees and stitch the hole's rim (the horizon) to p.
		horizon := &w.horizon
		nh := 0
		for i := 0; i < nf; i++ {
			g := &fs[i]
			if g.dead || math.IsInf(g.d, 1) || g.n.dot(p.w.sub(vs[g.v[0]].w)) <= 1e-12 {
				continue
			}
			g.dead = true
			for e := 0; e < 3; e++ {
				a, b := g.v[e], g.v[(e+1)%3]
				shared := false
				for h := 0; h < nh; h++ {
					if horizon[h] == [2]int{b, a} {
						horizon[h] = horizon[nh-1]
						nh--
						shared = true
						break
					}
				}
				if !shared && nh < len(horizon) {
					horizon[nh] = [2]int{a, b}
					nh++
				}
			}
		}
		// Compact the faces, then add the new ones.
		k := 0
		for i := 0; i < nf; i++ {
			if !fs[i].dead {
				fs[k] = fs[i]
				k++
			}
		}
		nf = k
		if nf+nh > epaMaxFaces {
			break
		}
		vs[nv] = p
		for h := 0; h < nh; h++ {
			fs[nf] = mk(horizon[h][0], horizon[h][1], nv)
			nf++
		}
		nv++
	}
	f := bf
	// The origin's projection on the face, by barycentric weights.
	a, b, c := vs[f.v[0]], vs[f.v[1]], vs[f.v[2]]
	q := f.n.scale(f.d)
	v0, v1, v2 := b.w.sub(a.w), c.w.sub(a.w), q.sub(a.w)
	d00, d01, d11 := v0.dot(v0), v0.dot(v1), v1.dot(v1)
	d20, d21 := v2.dot(v0), v2.dot(v1)
	den := d00*d11 - d01*d01
	l1, l2 := 1.0/3, 1.0/3
	if den > 1e-30 {
		l1, l2 = (d11*d20-d01*d21)/den, (d00*d21-d01*d20)/den
	}
	l0 := 1 - l1 - l2
	pa = a.a.scale(l0).madd(b.a, l1).madd(c.a, l2)
	pb = a.b.scale(l0).madd(b.b, l1).madd(c.b, l2)
	return f.d, f.n, pa, pb, true
}

// penetration returns the signed distance between the surfaces of A and B (negative when they
// overlap), the unit normal from A to B, and the witness points on each surface.
func penetration(A, B *core, w *convexWork) (sep float64, n, wa, wb d3, ok bool) {
	var sx simplex
	v, overlap := gjk(A, B, &sx)
	if !overlap {
		if dist := v.length(); dist > 1e-9 {
			var pa, pb d3
			for i := range sx.n {
				pa, pb = pa.madd(sx.s[i].a, sx.lam[i]), pb.madd(sx.s[i].b, sx.lam[i])
			}
			n = v.scale(-1 / dist)
			return dist - A.r - B.r, n, pa.madd(n, A.r), pb.madd(n, -B.r), true
		}
	}
	depth, n, pa, pb, ok := epa(A, B, &sx, w)
	if !ok {
		return 0, d3{}, d3{}, d3{}, false
	}
	return -depth - A.r - B.r, n, pa.madd(n, A.r), pb.madd(n, -B.r), true
}

// convexContact fills m with the contact of A and B found through their support functions (the
// package comment's steps 1 and 2). faceA makes A's face the reference whatever the normal (a mesh
// triangle whose neighbours are flat: its normal stands).
func convexContact(A, B *convex, margin float32, faceA bool, m *Manifold) {
	// Bounding spheres apart by the margin: no contact, and no GJK (a broad phase's pair whose boxes
	// meet is often that far apart).
	if d := B.c.c.sub(A.c.c).length(); d-float64(A.bound()+B.bound()) >= float64(margin) {
		return
	}
	w := convexWorkPool.Get().(*convexWork)
	defer convexWorkPool.Put(w)
	sep, nd, wa, wb, ok := penetration(&A.c, &B.c, w)
	if !ok || sep >= float64(margin) {
		return
	}
	n := vd(nd)
	var fa, fb feature
	A.supportFeature(n, &fa)
	if faceA {
		B.supportFeature(fa.nrm.Neg(), &fb)
	} else {
		B.supportFeature(n.Neg(), &fb)
	}
	scale := max(A.size(), B.size())

	alignA, alignB := float32(-2), float32(-2)
	if fa.n >= 3 {
		alignA = fa.nrm.Dot(n)
		if faceA {
			alignA = 2
		}
	}
	if fb.n >= 3 {
		alignB = -fb.nrm.Dot(n)
	}
	if max(alignA, alignB) >= refCos {
		// A's face is preferred while it qualifies: two faces resting flat on each other are both
		// within refAngle, and which one EPA's normal came from flips with every jitter. But a cap
		// lying flat on another kind's face is the incident one: its rim points keep their ids, where
		// the points of a face clipped by the cap's polygon are clip points whose order shifts.
		ref, inc, side := &fa, &fb, uint32(0)
		if alignA < refCos || fa.round && !fb.round && alignB >= refCos {
			ref, inc, side = &fb, &fa, 1
		}
		wit := vd(wb) // the witness on the incident shape
		if side == 1 {
			wit = vd(wa)
		}
		if clipContact(ref, inc, side, scale, margin, wit, w, m) {
			return
		}
	} else if fa.n == 2 && fb.n == 2 && lineContact(A, B, &fa, &fb, n, margin, m) {
		return
	}
	m.Count = 0
	m.setNormal(n)
	m.addPoint(vd(wa.add(wb).scale(0.5)), float32(sep), mix32(0xC9))
}

// clipContact clips the incident feature inc to the side planes of the reference face ref (on A when
// side is 0, on B when 1) and adds the points below the margin, at most four; wit is the witness point
// on the incident shape. It reports whether any point was kept.
func clipContact(ref, inc *feature, side uint32, scale, margin float32, wit vec, w *convexWork, m *Manifold) bool {
	u := ref.nrm
	poly, tmp := &w.poly, &w.tmp
	for i := 0; i < inc.n; i++ {
		poly[i] = clipPt{p: inc.p[i], feat: inc.id[i]}
	}
	band := 1e-3 * scale
	var cnt int
	out := poly
	switch inc.n {
	case 1, 2:
		cnt = clipSegment(poly, inc.n, ref.p[:ref.n], u, band)
	default:
		cnt, out = clipToFace(poly, tmp, inc.n, ref.p[:ref.n], u, band)
	}
	pts := &w.pts
	k := 0
	d := u.Dot(ref.p[0])
	for i := 0; i < cnt; i++ {
		p := out[i]
		p.sep = u.Dot(p.p) - d
		if p.sep < margin {
			pts[k] = p
			k++
		}
	}
	if k == 0 {
		return false
	}
	// A cap is clipped as a polygon inside its circle: an incident point in the sliver between a chord
	// and the rim is cut off. The exact deepest pair stands in when it is deeper than what was kept.
	deepest := pts[0].sep
	for i := 1; i < k; i++ {
		deepest = min(deepest, pts[i].sep)
	}
	if ws := u.Dot(wit) - d; ws < deepest-deepestTol*scale && k < maxClip {
		pts[k] = clipPt{p: wit, sep: ws, feat: 1 << 30}
		k++
	}
	exactLast(pts[:k])
	var keep [4]int
	nk := keepDeepest(pts[:k], reducePts(pts[:k], u, scale, touchBand*margin, &keep), scale, &keep)
	normal := u
	if side == 1 {
		normal = u.Neg()
	}
	m.Count = 0
	m.setNormal(normal)
	for i := 0; i < nk; i++ {
		p := &pts[keep[i]]
		m.addPoint(p.p.MAdd(u, -p.sep/2), p.sep, mix32(0xC7, side, ref.face, p.feat))
	}
	return true
}

// clipSegment clips the segment (or point) in p[:n] to the side planes of the face loop (normal u),
// keeping ends up to band beyond a plane, and returns how many ends remain (0 when it lies outside).
// A cut end's feature names the side plane that cut it.
func clipSegment(p *[maxClip]clipPt, n int, loop []vec, u vec, band float32) int {
	for k := range loop {
		a, b := loop[k], loop[(k+1)%len(loop)]
		s := b.Sub(a).Cross(u)
		l := float32(math.Sqrt(float64(s.Dot(s))))
		if l == 0 {
			continue
		}
		s = s.Scale(1 / l)
		lim := s.Dot(a)
		d0 := s.Dot(p[0].p) - lim
		if n == 1 {
			if d0 > band {
				return 0
			}
			continue
		}
		d1 := s.Dot(p[1].p) - lim
		switch {
		case d0 > band && d1 > band:
			return 0
		case d0 > band && d1 < 0:
			p[0] = clipPt{p: p[0].p.Add(p[1].p.Sub(p[0].p).Scale(d0 / (d0 - d1))), feat: 1<<31 | uint32(k)<<16}
		case d1 > band && d0 < 0:
			p[1] = clipPt{p: p[1].p.Add(p[0].p.Sub(p[1].p).Scale(d1 / (d1 - d0))), feat: 1<<31 | uint32(k)<<16 | 1}
		}
	}
	return n
}

// lineContact is the contact of two segments lying parallel and square to the normal n (each to within
// a degree): the ends of B's segment clipped to A's extent, each against the point of A's line beside it. It
// reports whether it added points.
func lineContact(A, B *convex, fa, fb *feature, n vec, margin float32, m *Manifold) bool {
	ea, eb := fa.p[1].Sub(fa.p[0]), fb.p[1].Sub(fb.p[0])
	la2, lb2 := ea.Dot(ea), eb.Dot(eb)
	if c := ea.Cross(eb); c.Dot(c) > 3e-4*la2*lb2 || la2 == 0 || lb2 == 0 {
		return false
	}
	if an, bn := ea.Dot(n), eb.Dot(n); an*an > 3e-4*la2 || bn*bn > 3e-4*lb2 {
		return false
	}
	la := float32(math.Sqrt(float64(la2)))
	e := ea.Scale(1 / la)
	// Segments come from cylinders and capsules, round about their axes: the exact normal is square
	// to A's axis, along the line between the axes. EPA's, from a curved part, is good to about
	// sqrt(2 epaTol / r).
	if d := vd(B.c.c.sub(A.c.c)); true {
		d = d.Sub(e.Scale(e.Dot(d)))
		if l := float32(math.Sqrt(float64(d.Dot(d)))); l > 0 && d.Dot(n) > 0.999*l {
			n = d.Scale(1 / l)
		}
	}
	t0, t1 := e.Dot(fb.p[0].Sub(fa.p[0])), e.Dot(fb.p[1].Sub(fa.p[0]))
	// An end within the band past A's end is kept where it is (as clipping keeps a flush vertex), so
	// logs of equal length lying side by side keep their ids.
	band := clipSlack * la
	var pts [2]clipPt
	k := 0
	for end, t := range [2]float32{t0, t1} {
		q := fb.p[end]
		id := fb.id[end]
		o := t1
		if end == 1 {
			o = t0
		}
		if t < -band || t > la+band {
			// Past A's end: move along B's segment to where A's extent ends, if the other end is in.
			lim := float32(0)
			if t > la {
				lim = la
			}
			if (o-lim)*(t-lim) >= 0 {
				continue
			}
			q = q.Add(fb.p[1-end].Sub(q).Scale((t - lim) / (t - o)))
			t, id = lim, 1<<31|uint32(end)
		}
		pa := fa.p[0].MAdd(e, t)
		sep := q.Sub(pa).Dot(n)
		if sep < margin {
			pts[k] = clipPt{p: q.MAdd(n, -sep/2), sep: sep, feat: id}
			k++
		}
	}
	if k == 0 {
		return false
	}
	m.Count = 0
	m.setNormal(n)
	for i := 0; i < k; i++ {
		m.addPoint(pts[i].p, pts[i].sep, mix32(0xC8, fa.id[0], pts[i].feat))
	}
	return true
}

// cylinderConvex collides a cylinder or another convex shape with a cylinder (either order).
func cylinderConvex(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	A, okA := convexOf(a, pa)
	B, okB := convexOf(b, pb)
	if okA && okB {
		convexContact(&A, &B, margin, false, m)
	}
}

// cylinderPlane collides plane a with cylinder b: the feature of the cylinder facing the plane (its
// lower cap's rim points, or its side line), each point below the margin, at most four.
func cylinderPlane(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	n, d := worldPlane(a, pa)
	if n.Dot(vg(pb.P))-d-float32(math.Hypot(float64(b.Radius), float64(b.HalfHeight))) >= margin {
		return
	}
	var fb feature
	var f frame
	f.set(pb)
	cylinderFeature(b.Radius, b.HalfHeight, &f, f.dirToLocal(n.Neg()), &fb)
	var pts [maxFeat]clipPt
	k := 0
	for i := 0; i < fb.n; i++ {
		if s := n.Dot(fb.p[i]) - d; s < margin {
			pts[k] = clipPt{p: fb.p[i], sep: s, feat: fb.id[i]}
			k++
		}
	}
	exactLast(pts[:k])
	var keep [4]int
	size := float32(math.Hypot(float64(b.Radius), float64(b.HalfHeight)))
	nk := keepDeepest(pts[:k], reducePts(pts[:k], n, size, touchBand*margin, &keep), size, &keep)
	m.setNormal(n)
	for i := 0; i < nk; i++ {
		p := &pts[keep[i]]
		m.addPoint(p.p.MAdd(n, -p.sep/2), p.sep, p.feat)
	}
}

// deepestTol is how much deeper than every kept point (as a fraction of the size) a dropped point may
// be: reducePts takes the first of the points within 1e-3 of the size of the deepest, for stable ids,
// and the exact deepest rim point of a tilted cap may lose that tie by more than the depth should. A
// cap standing flat but for a tilt of theta (a settled stack's jitter) has its deepest rim point at most
// r theta (1 - cos 45 degrees) below the four rim points kept: within this tolerance up to a tilt of
// about 5e-4 rad, so a resting stand's ids do not flicker.
const deepestTol = 1e-4

// keepDeepest makes sure the deepest of p is among the nk kept (replacing the first kept, reducePts's
// deepest choice) when it is deeper than all of them by more than deepestTol of size; it returns nk.
func keepDeepest(p []clipPt, nk int, size float32, keep *[4]int) int {
	if nk == 0 {
		return 0
	}
	d := 0
	for i := range p {
		if p[i].sep < p[d].sep {
			d = i
		}
	}
	for i := 0; i < nk; i++ {
		if p[keep[i]].sep <= p[d].sep+deepestTol*size {
			return nk
		}
	}
	keep[0] = d
	return nk
}

// cylinderSphere collides cylinder a with sphere b in closed form: the point of the solid cylinder
// nearest the sphere's centre (the centre clamped to the radius and to the caps in the cylinder's
// frame), or, with the centre inside, the nearer of the side and the cap it is closest to.
func cylinderSphere(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	var f frame
	f.set(pa)
	p := f.toLocal(vg(pb.P))
	r, h, rb := a.Radius, a.HalfHeight, b.Radius
	rho := float32(math.Hypot(float64(p.X), float64(p.Z)))
	u := vec{X: 1}
	if rho > 1e-7*r {
		u = vec{X: p.X / rho, Z: p.Z / rho}
	}
	var n, q vec
	var dist float32
	region := uint32(0)
	if rho <= r && p.Y*p.Y <= h*h {
		// Inside: out through the side or the cap, whichever is nearer.
		if r-rho < h-abs32f(p.Y) {
			n, q, dist = u, vec{X: u.X * r, Y: p.Y, Z: u.Z * r}, rho-r
		} else {
			n, q, dist, region = vec{Y: sgn(p.Y)}, vec{X: p.X, Y: sgn(p.Y) * h, Z: p.Z}, abs32f(p.Y)-h, 1
		}
	} else {
		c := min(rho, r)
		q = vec{X: u.X * c, Y: max(-h, min(h, p.Y)), Z: u.Z * c}
		d := p.Sub(q)
		dist = float32(math.Sqrt(float64(d.Dot(d))))
		switch {
		case rho <= r:
			n, region = vec{Y: sgn(p.Y)}, 1
		case p.Y*p.Y <= h*h:
			n = u
		default:
			n, region = d.Scale(1/dist), 2
		}
	}
	sep := dist - rb
	if sep >= margin {
		return
	}
	nw := f.dirToWorld(n)
	m.setNormal(nw)
	m.addPoint(f.toWorld(q).MAdd(nw, sep/2), sep, mix32(0xCA, region))
}

func abs32f(x float32) float32 { return float32(math.Abs(float64(x))) }

// exactLast moves a cap's exact deepest rim point (id cap*64 + 63) after the polygon's points, keeping
// their order: reducePts breaks near ties by order, and the rim vertex beside it should win them, or a
// cap standing all but flat would swap the two with every jitter of the tilt's direction.
func exactLast(p []clipPt) {
	for i := 0; i < len(p)-1; i++ {
		if p[i].feat == 63 || p[i].feat == 127 {
			x := p[i]
			copy(p[i:], p[i+1:])
			p[len(p)-1] = x
			return
		}
	}
}
