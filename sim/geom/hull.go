package geom

import (
	"errors"
	"fmt"
	"math"
)

// MaxHullPoints is the most points a convex hull may be built from. It bounds the narrow phase's work
// per pair (hull against hull tests every face of one against every vertex of the other) and keeps
// vertex and face indices in 16 bits.
const MaxHullPoints = 256

// HullFace is one face of a convex hull: its outward unit normal and offset (points p on the face have
// Normal.p = Offset) and its vertex loop, FaceVerts[First : First+Count], counter-clockwise seen from
// outside.
type HullFace struct {
	Normal       Vec3
	Offset       float32
	First, Count uint16
}

// HullEdge is one edge of a convex hull: its two vertices and the faces on either side. Going from V0
// to V1, face F0 is on the left seen from outside (its loop runs V0 -> V1), F1 on the right.
type HullEdge struct {
	V0, V1 uint16
	F0, F1 uint16
}

// Hull is a convex polyhedron built by NewHull. It is immutable once built and shared: every body with
// the same hull points at the same Hull, so a shape stays a small comparable value.
//
// Its vertices are in the hull's principal frame: centred on the centre of mass, with the axes of the
// inertia tensor's eigenvectors, so the inertia is diagonal there like every other shape's. Centre and
// Frame map that frame back to the frame the points were given in: given = Centre + Frame.Rotate(local).
// A body made from given points and pose (P, Q) therefore sits at P + Q.Rotate(Centre) with rotation
// Q*Frame (see BodyPose).
type Hull struct {
	Verts     []Vec3
	Faces     []HullFace
	FaceVerts []uint16
	Edges     []HullEdge

	Volume      float64 // m^3
	UnitInertia Vec3    // principal moments per unit mass, about the centre of mass
	Centre      Vec3    // centre of mass in the given points' frame
	Frame       Quat    // principal frame in the given points' frame
	Radius      float32 // largest distance of a vertex from the centre of mass

	// MeshVerts and MeshTris are the closed mesh a moving mesh's hull was made from (NewMeshHull),
	// its vertices in the hull's (principal) frame; nil for a hull made from points. They are kept so
	// that the body can be written back as the mesh, with the mesh's own mass properties.
	MeshVerts []Vec3
	MeshTris  [][3]uint32
}

// Errors NewHull returns (wrapped with detail).
var (
	ErrHullTooFew      = errors.New("too few points")
	ErrHullTooMany     = errors.New("too many points")
	ErrHullNonFinite   = errors.New("non-finite coordinate")
	ErrHullDegenerate  = errors.New("degenerate")
	ErrHullConstructed = errors.New("could not build a closed hull")
)

// NewHull builds the convex hull of points by quickhull, merges coplanar faces into polygons, and
// computes its mass properties. It refuses fewer than 4 or more than MaxHullPoints points, non-finite
// coordinates, and points that span no volume (all coincident, collinear or coplanar within a
// tolerance relative to their extent). Points inside the hull are dropped.
func NewHull(points []Vec3) (*Hull, error) {
	if len(points) < 4 {
		return nil, fmt.Errorf("%w: a hull needs at least 4 points, got %d", ErrHullTooFew, len(points))
	}
	if len(points) > MaxHullPoints {
		return nil, fmt.Errorf("%w: a hull takes at most %d points, got %d", ErrHullTooMany, MaxHullPoints, len(points))
	}
	p := make([]v3, len(points))
	for i, q := range points {
		for k := 0; k < 3; k++ {
			if math.IsNaN(float64(q[k])) || math.IsInf(float64(q[k]), 0) {
				return nil, fmt.Errorf("%w: point %d is %v", ErrHullNonFinite, i, q)
			}
		}
		p[i] = v3{float64(q[0]), float64(q[1]), float64(q[2])}
	}
	qh, err := quickhull(p)
	if err != nil {
		return nil, err
	}
	return qh.finish(p)
}

// v3 is a float64 3-vector: the hull is built in double precision.
type v3 struct{ x, y, z float64 }

func (a v3) add(b v3) v3               { return v3{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a v3) sub(b v3) v3               { return v3{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a v3) scale(s float64) v3        { return v3{a.x * s, a.y * s, a.z * s} }
func (a v3) dot(b v3) float64          { return a.x*b.x + a.y*b.y + a.z*b.z }
func (a v3) cross(b v3) v3             { return v3{a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x} }
func (a v3) length() float64           { return math.Sqrt(a.dot(a)) }
func (a v3) f32() Vec3                 { return Vec3{float32(a.x), float32(a.y), float32(a.z)} }
func (a v3) get(k int) float64         { return [3]float64{a.x, a.y, a.z}[k] }
func (a v3) unit() v3                  { return a.scale(1 / a.length()) }
func (a v3) near(b v3, e float64) bool { return a.sub(b).length() <= e }

// qhFace is a triangle of the hull under construction, counter-clockwise seen from outside.
type qhFace struct {
	v       [3]int
	n       v3
	d       float64
	outside []int // points above this face, not yet on the hull
	alive   bool
}

type qhull struct {
	faces []qhFace
	eps   float64 // distance tolerance: points within it of a face count as on it
	scale float64 // extent of the points
}

func (h *qhull) addFace(p []v3, a, b, c int) int {
	n := p[b].sub(p[a]).cross(p[c].sub(p[a]))
	l := n.length()
	if l > 0 {
		n = n.scale(1 / l)
	}
	h.faces = append(h.faces, qhFace{v: [3]int{a, b, c}, n: n, d: n.dot(p[a]), alive: true})
	return len(h.faces) - 1
}

func (f *qhFace) dist(q v3) float64 { return f.n.dot(q) - f.d }

// quickhull builds the triangulated hull of p (Barber, Dobkin and Huhdanpaa 1996): start from a
// tetrahedron of extreme points, give every remaining point to a face it lies above, then repeatedly
// add the farthest point of some face: remove the faces it sees (a connected region, found by walking
// neighbours) and join the region's boundary, the horizon, to the point.
func quickhull(p []v3) (*qhull, error) {
	// Extent and tolerance.
	lo, hi := p[0], p[0]
	for _, q := range p {
		lo = v3{math.Min(lo.x, q.x), math.Min(lo.y, q.y), math.Min(lo.z, q.z)}
		hi = v3{math.Max(hi.x, q.x), math.Max(hi.y, q.y), math.Max(hi.z, q.z)}
	}
	ext := hi.sub(lo)
	scale := math.Max(ext.x, math.Max(ext.y, ext.z))
	if scale == 0 {
		return nil, fmt.Errorf("%w: all %d points coincide", ErrHullDegenerate, len(p))
	}
	// The tolerance is relative to the extent: the points come as float32, whose rounding is about
	// 6e-8 of their magnitude; a thousand times that keeps near-coplanar points from making slivers.
	mag := math.Max(math.Max(math.Abs(lo.x), math.Abs(hi.x)), math.Max(math.Max(math.Abs(lo.y), math.Abs(hi.y)), math.Max(math.Abs(lo.z), math.Abs(hi.z))))
	eps := 1e-5 * math.Max(scale, mag)
	h := &qhull{eps: eps, scale: scale}

	// Initial tetrahedron: the two points farthest apart along an axis, the point farthest from their
	// line, the point farthest from their plane.
	axis := 0
	if ext.y > ext.get(axis) {
		axis = 1
	}
	if ext.z > ext.get(axis) {
		axis = 2
	}
	i0, i1 := 0, 0
	for i, q := range p {
		if q.get(axis) < p[i0].get(axis) {
			i0 = i
		}
		if q.get(axis) > p[i1].get(axis) {
			i1 = i
		}
	}
	dir := p[i1].sub(p[i0]).unit()
	i2, best := -1, eps
	for i, q := range p {
		r := q.sub(p[i0])
		if d := r.sub(dir.scale(r.dot(dir))).length(); d > best {
			i2, best = i, d
		}
	}
	if i2 < 0 {
		return nil, fmt.Errorf("%w: all %d points lie on one line (within %.3g)", ErrHullDegenerate, len(p), eps)
	}
	n := p[i1].sub(p[i0]).cross(p[i2].sub(p[i0])).unit()
	i3, best := -1, eps
	for i, q := range p {
		if d := math.Abs(n.dot(q.sub(p[i0]))); d > best {
			i3, best = i, d
		}
	}
	if i3 < 0 {
		return nil, fmt.Errorf("%w: all %d points lie in one plane (within %.3g): a hull needs volume", ErrHullDegenerate, len(p), eps)
	}
	if n.dot(p[i3].sub(p[i0])) > 0 {
		i1, i2 = i2, i1 // make (i0, i1, i2) face away from i3
	}
	h.addFace(p, i0, i1, i2)
	h.addFace(p, i0, i3, i1)
	h.addFace(p, i1, i3, i2)
	h.addFace(p, i2, i3, i0)
	used := map[int]bool{i0: true, i1: true, i2: true, i3: true}
	for i := range p {
		if !used[i] {
			h.assign(p, i, []int{0, 1, 2, 3})
		}
	}

	// edgeFace maps a directed edge (a, b) to the live face whose loop runs a -> b.
	edgeFace := map[[2]int]int{}
	link := func(fi int) {
		v := h.faces[fi].v
		for k := 0; k < 3; k++ {
			edgeFace[[2]int{v[k], v[(k+1)%3]}] = fi
		}
	}
	for fi := range h.faces {
		link(fi)
	}
	for iter := 0; ; iter++ {
		if iter > 4*len(p)+16 {
			return nil, fmt.Errorf("%w: quickhull did not converge", ErrHullConstructed)
		}
		fi := -1
		for i := range h.faces {
			if h.faces[i].alive && len(h.faces[i].outside) > 0 {
				fi = i
				break
			}
		}
		if fi < 0 {
			break
		}
		// The farthest point above the face.
		f := &h.faces[fi]
		eye, far := -1, 0.0
		for _, q := range f.outside {
			if d := f.dist(p[q]); d > far {
				eye, far = q, d
			}
		}
		// Faces the eye sees, by walking neighbours from fi.
		// vis lists them in the order found (maps are walked in random order; the hull's numbering,
		// and so the simulation, must not depend on it).
		visible := map[int]bool{fi: true}
		vis := []int{fi}
		stack := []int{fi}
		for len(stack) > 0 {
			g := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			v := h.faces[g].v
			for k := 0; k < 3; k++ {
				nb, ok := edgeFace[[2]int{v[(k+1)%3], v[k]}]
				if !ok {
					return nil, fmt.Errorf("%w: open edge during construction", ErrHullConstructed)
				}
				if !visible[nb] && h.faces[nb].dist(p[eye]) > h.eps {
					visible[nb] = true
					vis = append(vis, nb)
					stack = append(stack, nb)
				}
			}
		}
		// Horizon: edges of visible faces whose neighbour is not visible.
		var horizon [][2]int
		var orphans []int
		for _, g := range vis {
			v := h.faces[g].v
			for k := 0; k < 3; k++ {
				a, b := v[k], v[(k+1)%3]
				if !visible[edgeFace[[2]int{b, a}]] {
					horizon = append(horizon, [2]int{a, b})
				}
			}
		}
		for _, g := range vis {
			h.faces[g].alive = false
			orphans = append(orphans, h.faces[g].outside...)
			h.faces[g].outside = nil
			v := h.faces[g].v
			for k := 0; k < 3; k++ {
				delete(edgeFace, [2]int{v[k], v[(k+1)%3]})
			}
		}
		var added []int
		for _, e := range horizon {
			g := h.addFace(p, e[0], e[1], eye)
			if _, dup := edgeFace[[2]int{e[0], e[1]}]; dup {
				return nil, fmt.Errorf("%w: non-manifold horizon", ErrHullConstructed)
			}
			link(g)
			added = append(added, g)
		}
		for _, q := range orphans {
			if q != eye {
				h.assign(p, q, added)
			}
		}
	}
	return h, nil
}

// assign gives point q to the candidate face it lies farthest above, if any.
func (h *qhull) assign(p []v3, q int, cands []int) {
	best, bf := h.eps, -1
	for _, fi := range cands {
		if d := h.faces[fi].dist(p[q]); d > best {
			best, bf = d, fi
		}
	}
	if bf >= 0 {
		h.faces[bf].outside = append(h.faces[bf].outside, q)
	}
}

// mergeCos is the cosine of the largest angle between a face's first triangle and another triangle
// merged into it as coplanar.
const mergeCos = 0.99995 // about 0.57 degrees

// finish merges coplanar triangles into polygons, numbers the vertices, computes mass properties and
// moves everything into the principal frame.
func (h *qhull) finish(p []v3) (*Hull, error) {
	var tris []int
	for i := range h.faces {
		if h.faces[i].alive {
			tris = append(tris, i)
		}
	}
	edgeFace := map[[2]int]int{}
	for _, fi := range tris {
		v := h.faces[fi].v
		for k := 0; k < 3; k++ {
			edgeFace[[2]int{v[k], v[(k+1)%3]}] = fi
		}
	}
	// Group triangles: grow each group from a seed over neighbours nearly parallel to the seed and
	// within tolerance of its plane (comparing with the seed, not the last added, so a gently curved
	// surface does not merge into one face).
	group := map[int]int{}
	var loops [][]int
	for _, seed := range tris {
		if _, done := group[seed]; done {
			continue
		}
		g := len(loops)
		members := []int{seed}
		group[seed] = g
		sf := &h.faces[seed]
		for s := 0; s < len(members); s++ {
			v := h.faces[members[s]].v
			for k := 0; k < 3; k++ {
				nb := edgeFace[[2]int{v[(k+1)%3], v[k]}]
				if _, done := group[nb]; done {
					continue
				}
				f := &h.faces[nb]
				if f.n.dot(sf.n) < mergeCos {
					continue
				}
				flat := true
				for _, q := range f.v {
					flat = flat && math.Abs(sf.dist(p[q])) <= h.eps
				}
				if flat {
					group[nb] = g
					members = append(members, nb)
				}
			}
		}
		// The group's boundary: directed edges whose twin lies outside the group, chained into a loop.
		next := map[int]int{}
		for _, fi := range members {
			v := h.faces[fi].v
			for k := 0; k < 3; k++ {
				a, b := v[k], v[(k+1)%3]
				if group[edgeFace[[2]int{b, a}]] != g || !contains(members, edgeFace[[2]int{b, a}]) {
					next[a] = b
				}
			}
		}
		start := -1
		for _, fi := range members { // the first boundary vertex in member order
			for _, q := range h.faces[fi].v {
				if _, ok := next[q]; ok && start < 0 {
					start = q
				}
			}
		}
		loop := []int{start}
		for c := next[start]; c != start; c = next[c] {
			loop = append(loop, c)
			if len(loop) > len(next) {
				return nil, fmt.Errorf("%w: a merged face has no single boundary", ErrHullConstructed)
			}
		}
		if len(loop) != len(next) {
			return nil, fmt.Errorf("%w: a merged face has %d boundary edges but a loop of %d", ErrHullConstructed, len(next), len(loop))
		}
		loops = append(loops, loop)
	}
	return buildHull(p, loops)
}

func contains(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// buildHull makes a Hull from points and face loops (indices into p, counter-clockwise from outside):
// checks that the loops close (every edge in two faces, Euler's V - E + F = 2), computes the mass
// properties and stores everything in the principal frame.
func buildHull(p []v3, loops [][]int) (*Hull, error) {
	// Number the vertices the loops use, in first-use order.
	index := map[int]int{}
	var verts []v3
	for _, l := range loops {
		for _, q := range l {
			if _, ok := index[q]; !ok {
				index[q] = len(verts)
				verts = append(verts, p[q])
			}
		}
	}
	// Edges with their faces.
	dir := map[[2]int]int{} // directed edge -> face
	for fi, l := range loops {
		for k := range l {
			a, b := index[l[k]], index[l[(k+1)%len(l)]]
			if _, dup := dir[[2]int{a, b}]; dup {
				return nil, fmt.Errorf("%w: an edge is used twice in the same direction", ErrHullConstructed)
			}
			dir[[2]int{a, b}] = fi
		}
	}
	var edges []HullEdge
	for e, f0 := range dir {
		f1, ok := dir[[2]int{e[1], e[0]}]
		if !ok {
			return nil, fmt.Errorf("%w: an edge has one face", ErrHullConstructed)
		}
		if e[0] < e[1] {
			edges = append(edges, HullEdge{V0: uint16(e[0]), V1: uint16(e[1]), F0: uint16(f0), F1: uint16(f1)})
		}
	}
	if len(verts)-len(edges)+len(loops) != 2 {
		return nil, fmt.Errorf("%w: V - E + F = %d, not 2", ErrHullConstructed, len(verts)-len(edges)+len(loops))
	}
	sortEdges(edges)

	// Mass properties from the fan triangulation of each face.
	var tris [][3]int
	for _, l := range loops {
		for k := 1; k+1 < len(l); k++ {
			tris = append(tris, [3]int{index[l[0]], index[l[k]], index[l[k+1]]})
		}
	}
	mp := polyhedronMass(verts, tris)
	if !(mp.Volume > 0) {
		return nil, fmt.Errorf("%w: the hull has no volume", ErrHullDegenerate)
	}
	moments, frame := principalAxes(mp.Inertia)
	h := &Hull{
		Volume:      mp.Volume,
		UnitInertia: Vec3{float32(moments[0] / mp.Volume), float32(moments[1] / mp.Volume), float32(moments[2] / mp.Volume)},
		Centre:      mp.Centre.f32(),
		Frame:       matToQuat(frame),
		Edges:       edges,
	}
	// Local vertices: R^T (v - c).
	local := make([]v3, len(verts))
	for i, v := range verts {
		d := v.sub(mp.Centre)
		local[i] = v3{frame[0].dot(d), frame[1].dot(d), frame[2].dot(d)}
		h.Verts = append(h.Verts, local[i].f32())
		h.Radius = max(h.Radius, float32(local[i].length()))
	}
	for _, l := range loops {
		f := HullFace{First: uint16(len(h.FaceVerts)), Count: uint16(len(l))}
		// Newell's normal, then the offset that puts every loop vertex on or below the plane.
		var n v3
		for k := range l {
			a, b := local[index[l[k]]], local[index[l[(k+1)%len(l)]]]
			n = n.add(v3{(a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x), (a.x - b.x) * (a.y + b.y)})
		}
		n = n.unit()
		d := math.Inf(-1)
		for _, q := range l {
			d = math.Max(d, n.dot(local[index[q]]))
			h.FaceVerts = append(h.FaceVerts, uint16(index[q]))
		}
		f.Normal, f.Offset = n.f32(), float32(d)
		h.Faces = append(h.Faces, f)
	}
	return h, nil
}

// sortEdges orders edges by their vertices, so a hull's edge numbering (and so its contacts' feature
// ids) does not depend on map iteration order.
func sortEdges(e []HullEdge) {
	for i := 1; i < len(e); i++ {
		for j := i; j > 0 && (e[j].V0 < e[j-1].V0 || e[j].V0 == e[j-1].V0 && e[j].V1 < e[j-1].V1); j-- {
			e[j], e[j-1] = e[j-1], e[j]
		}
	}
}

// Triangles returns the hull's faces fanned into triangles (vertex indices, counter-clockwise from
// outside): for drawing it.
func (h *Hull) Triangles() [][3]uint16 {
	var out [][3]uint16
	for _, f := range h.Faces {
		l := h.FaceVerts[f.First : f.First+f.Count]
		for k := 1; k+1 < len(l); k++ {
			out = append(out, [3]uint16{l[0], l[k], l[k+1]})
		}
	}
	return out
}

// BodyRotation returns the rotation of a body whose hull points, given in a frame turned by q, are
// held in the principal frame: q*Frame.
func (h *Hull) BodyRotation(q Quat) Quat { return q.Mul(h.Frame).Normalize() }
