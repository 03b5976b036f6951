package geom

import (
	"errors"
	"fmt"
	"math"
)

// MaxMeshTriangles is the most triangles a mesh may have. It bounds what a scene can ask of the loader
// (the BVH build sorts the triangles about 17 times) and of memory (about 100 bytes a triangle), and a
// terrain or a scanned object for a sandbox needs far fewer.
const MaxMeshTriangles = 65536

// meshLeafSize is the most triangles in a BVH leaf.
const meshLeafSize = 4

// activeEdgeCos is the cosine of the dihedral angle below which an edge between two triangles is
// treated as flat (inactive): a body sliding across it keeps the face normal and is not caught on it.
// 0.996 is 5 degrees.
const activeEdgeCos = 0.996

// MeshNode is one node of a mesh's bounding volume hierarchy. A leaf (Count > 0) holds the triangles
// Order[First : First+Count]; an inner node's children are the next node and node First.
type MeshNode struct {
	Box   AABB
	First int32
	Count int32
}

// Mesh is a static triangle mesh: its triangles in the body's frame, counter-clockwise seen from the
// side bodies are kept on, with a BVH over them (the narrow phase's mid-phase). It is immutable once
// built and shared like a Hull.
type Mesh struct {
	Verts   []Vec3
	Tris    [][3]uint32
	Normals []Vec3 // unit, one per triangle, on the counter-clockwise side
	// Active has bit k set for triangle t when edge k (from vertex k to vertex k+1) is a real edge: on
	// the mesh's boundary, or a convex fold sharper than 5 degrees. Contacts on flat and concave
	// (inactive) edges and on vertices whose edges are all inactive take the face normal instead, so
	// bodies slide across the seams between triangles.
	Active []uint8
	Nodes  []MeshNode
	Order  []int32 // triangle indices in BVH leaf order
	Box    AABB    // the mesh's bounds in its frame
	Radius float32 // largest distance of a vertex from the frame's origin
}

// Errors NewMesh returns (wrapped with detail).
var (
	ErrMeshEmpty      = errors.New("no triangles")
	ErrMeshTooMany    = errors.New("too many triangles")
	ErrMeshNonFinite  = errors.New("non-finite coordinate")
	ErrMeshIndex      = errors.New("vertex index out of range")
	ErrMeshDegenerate = errors.New("degenerate triangle")
)

// MeshError is a refused mesh: the error (one of the ErrMesh values, wrapped) and the triangle or
// vertex at fault (-1 when none).
type MeshError struct {
	Triangle, Vertex int
	Err              error
}

func (e *MeshError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *MeshError) Unwrap() error { return e.Err }

// NewMesh checks the vertices and triangles and builds the mesh: finite coordinates, at least one and at
// most MaxMeshTriangles triangles, indices in range, and no triangle of zero area (its twice-area below
// 1e-6 times its longest edge squared: collinear or repeated vertices). The error names the first
// offending vertex or triangle.
func NewMesh(verts []Vec3, tris [][3]uint32) (*Mesh, error) {
	if len(tris) == 0 {
		return nil, fmt.Errorf("%w: a mesh needs at least one triangle", ErrMeshEmpty)
	}
	if len(tris) > MaxMeshTriangles {
		return nil, fmt.Errorf("%w: a mesh takes at most %d triangles, got %d", ErrMeshTooMany, MaxMeshTriangles, len(tris))
	}
	for i, v := range verts {
		for k := 0; k < 3; k++ {
			if math.IsNaN(float64(v[k])) || math.IsInf(float64(v[k]), 0) {
				return nil, &MeshError{-1, i, fmt.Errorf("%w: vertex %d is %v", ErrMeshNonFinite, i, v)}
			}
		}
	}
	m := &Mesh{Verts: verts, Tris: tris, Normals: make([]Vec3, len(tris)), Active: make([]uint8, len(tris))}
	for ti, t := range tris {
		for k := 0; k < 3; k++ {
			if int(t[k]) >= len(verts) {
				return nil, &MeshError{ti, -1, fmt.Errorf("%w: triangle %d's vertex %d is %d, of %d vertices", ErrMeshIndex, ti, k, t[k], len(verts))}
			}
		}
		a, b, c := m.corner(ti, 0), m.corner(ti, 1), m.corner(ti, 2)
		n := b.sub(a).cross(c.sub(a))
		l2 := max(b.sub(a).dot(b.sub(a)), c.sub(b).dot(c.sub(b)), a.sub(c).dot(a.sub(c)))
		if nl := n.length(); !(nl > 1e-6*l2) {
			return nil, &MeshError{ti, -1, fmt.Errorf("%w: triangle %d (vertices %d, %d, %d) has zero area", ErrMeshDegenerate, ti, t[0], t[1], t[2])}
		}
		m.Normals[ti] = n.unit().f32()
	}
	m.markEdges()
	m.build()
	for _, v := range verts {
		m.Radius = max(m.Radius, v.Len())
	}
	return m, nil
}

// corner returns vertex k of triangle t in double precision.
func (m *Mesh) corner(t, k int) v3 {
	v := m.Verts[m.Tris[t][k]]
	return v3{float64(v[0]), float64(v[1]), float64(v[2])}
}

// markEdges sets Active: an edge used by one triangle, or by more than two, is active; one shared by
// two is active when the fold is convex (the neighbour's far vertex lies below this triangle's plane)
// and sharper than activeEdgeCos.
func (m *Mesh) markEdges() {
	type use struct{ t, k int32 }
	edges := make(map[[2]uint32][]use, 3*len(m.Tris)/2)
	for ti, t := range m.Tris {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			key := [2]uint32{min(a, b), max(a, b)}
			edges[key] = append(edges[key], use{int32(ti), int32(k)})
		}
	}
	for _, us := range edges {
		if len(us) != 2 {
			for _, u := range us {
				m.Active[u.t] |= 1 << u.k
			}
			continue
		}
		for j, u := range us {
			o := us[1-j]
			n0, n1 := m.Normals[u.t], m.Normals[o.t]
			far := m.corner(int(o.t), int((o.k+2)%3))
			n := v3{float64(n0[0]), float64(n0[1]), float64(n0[2])}
			h := n.dot(far.sub(m.corner(int(u.t), int(u.k))))
			if n0.Dot(n1) < activeEdgeCos && h < 0 {
				m.Active[u.t] |= 1 << u.k
			}
		}
	}
}

// build makes the BVH: each node splits its triangles at the median of their centroids along the
// longest axis of the centroids' box, down to leaves of meshLeafSize.
func (m *Mesh) build() {
	n := len(m.Tris)
	m.Order = make([]int32, n)
	cent := make([]Vec3, n)
	boxes := make([]AABB, n)
	for i := range m.Tris {
		m.Order[i] = int32(i)
		b := m.TriBox(i)
		boxes[i] = b
		cent[i] = b.Centre()
	}
	m.Nodes = make([]MeshNode, 0, 2*n/meshLeafSize+1)
	var rec func(lo, hi int) int
	rec = func(lo, hi int) int {
		idx := len(m.Nodes)
		m.Nodes = append(m.Nodes, MeshNode{})
		box := boxes[m.Order[lo]]
		cb := AABB{Min: cent[m.Order[lo]], Max: cent[m.Order[lo]]}
		for _, t := range m.Order[lo+1 : hi] {
			box = box.Union(boxes[t])
			cb = cb.Union(AABB{Min: cent[t], Max: cent[t]})
		}
		if hi-lo <= meshLeafSize {
			m.Nodes[idx] = MeshNode{Box: box, First: int32(lo), Count: int32(hi - lo)}
			return idx
		}
		ext := cb.Max.Sub(cb.Min)
		ax := 0
		if ext[1] > ext[ax] {
			ax = 1
		}
		if ext[2] > ext[ax] {
			ax = 2
		}
		mid := (lo + hi) / 2
		selectNth(m.Order[lo:hi], mid-lo, func(a, b int32) bool {
			if cent[a][ax] != cent[b][ax] {
				return cent[a][ax] < cent[b][ax]
			}
			return a < b
		})
		rec(lo, mid)
		right := rec(mid, hi)
		m.Nodes[idx] = MeshNode{Box: box, First: int32(right)}
		return idx
	}
	rec(0, n)
	m.Box = m.Nodes[0].Box
}

// selectNth reorders s so that s[k] is the element a sort by less would put there, with everything
// before it not greater and everything after not less (quickselect, middle pivot).
func selectNth(s []int32, k int, less func(a, b int32) bool) {
	lo, hi := 0, len(s)-1
	for lo < hi {
		p := s[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for less(s[i], p) {
				i++
			}
			for less(p, s[j]) {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		if k <= j {
			hi = j
		} else if k >= i {
			lo = i
		} else {
			return
		}
	}
}

// TriBox returns triangle t's bounding box.
func (m *Mesh) TriBox(t int) AABB {
	a, b, c := m.Verts[m.Tris[t][0]], m.Verts[m.Tris[t][1]], m.Verts[m.Tris[t][2]]
	return AABB{
		Min: Vec3{min(a[0], b[0], c[0]), min(a[1], b[1], c[1]), min(a[2], b[2], c[2])},
		Max: Vec3{max(a[0], b[0], c[0]), max(a[1], b[1], c[1]), max(a[2], b[2], c[2])},
	}
}

// Query appends to out the triangles whose boxes overlap box (in the mesh's frame), in BVH order.
func (m *Mesh) Query(box AABB, out []int32) []int32 {
	var stack [64]int32
	sp := 0
	i := int32(0)
	for {
		nd := &m.Nodes[i]
		if nd.Box.Overlaps(box) {
			if nd.Count > 0 {
				for _, t := range m.Order[nd.First : nd.First+nd.Count] {
					if m.TriBox(int(t)).Overlaps(box) {
						out = append(out, t)
					}
				}
			} else {
				stack[sp] = nd.First
				sp++
				i++
				continue
			}
		}
		if sp == 0 {
			return out
		}
		sp--
		i = stack[sp]
	}
}

// Raycast returns the first triangle the ray o + t d (t in [0, tmax], in the mesh's frame) meets from
// either side, and t. Möller and Trumbore's test on the triangles of the BVH leaves the ray crosses.
func (m *Mesh) Raycast(o, d Vec3, tmax float32) (float32, int, bool) {
	best, hit := tmax, -1
	var stack [64]int32
	sp := 0
	i := int32(0)
	for {
		nd := &m.Nodes[i]
		if rayBox(nd.Box, o, d, best) {
			if nd.Count > 0 {
				for _, t := range m.Order[nd.First : nd.First+nd.Count] {
					if s, ok := m.rayTri(int(t), o, d); ok && s < best {
						best, hit = s, int(t)
					}
				}
			} else {
				stack[sp] = nd.First
				sp++
				i++
				continue
			}
		}
		if sp == 0 {
			return best, hit, hit >= 0
		}
		sp--
		i = stack[sp]
	}
}

// rayBox reports whether the ray o + t d meets box for some t in [0, tmax] (the slab test).
func rayBox(b AABB, o, d Vec3, tmax float32) bool {
	t0, t1 := float32(0), tmax
	for k := 0; k < 3; k++ {
		if d[k] == 0 {
			if o[k] < b.Min[k] || o[k] > b.Max[k] {
				return false
			}
			continue
		}
		inv := 1 / d[k]
		a, c := (b.Min[k]-o[k])*inv, (b.Max[k]-o[k])*inv
		if a > c {
			a, c = c, a
		}
		t0, t1 = max(t0, a), min(t1, c)
		if t0 > t1 {
			return false
		}
	}
	return true
}

// rayTri is Möller and Trumbore's ray-triangle test: the ray parameter where o + t d crosses triangle
// t, if it does at t >= 0.
func (m *Mesh) rayTri(t int, o, d Vec3) (float32, bool) {
	return rayTriangle(m.Verts[m.Tris[t][0]], m.Verts[m.Tris[t][1]], m.Verts[m.Tris[t][2]], o, d)
}

// NewGridMesh builds a square grid of n x n cells, two triangles each, over [-half, half] in x and z,
// facing +y: a floor (height nil) or a heightfield (height(x, z) gives each vertex's y). Its seams are
// internal edges, which is what mesh tests and terrains need.
func NewGridMesh(half float32, n int, height func(x, z float32) float32) (*Mesh, error) {
	verts := make([]Vec3, 0, (n+1)*(n+1))
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			x, z := -half+2*half*float32(i)/float32(n), -half+2*half*float32(j)/float32(n)
			y := float32(0)
			if height != nil {
				y = height(x, z)
			}
			verts = append(verts, Vec3{x, y, z})
		}
	}
	tris := make([][3]uint32, 0, 2*n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			a := uint32(j*(n+1) + i)
			b, c, d := a+1, a+uint32(n+1), a+uint32(n+2)
			tris = append(tris, [3]uint32{a, c, b}, [3]uint32{b, c, d})
		}
	}
	return NewMesh(verts, tris)
}

// Errors NewMeshHull returns besides NewMesh's and NewHull's (wrapped with detail).
var (
	ErrMeshOpen      = errors.New("open mesh")
	ErrMeshInsideOut = errors.New("inside out")
)

// NewMeshHull makes the shape of a moving closed mesh: it collides by the convex hull of its
// vertices, and its mass properties are the closed mesh's own (exact for the polyhedron, by the
// divergence theorem, so a concave body such as seed 003's bunny gets its true centre of mass and
// inertia, not its hull's). The mesh must pass NewMesh, be closed and consistently oriented (every
// edge shared by two triangles running it in opposite directions), enclose a positive volume
// (counter-clockwise seen from outside) and have at most MaxHullPoints vertices.
//
// The hull's frame is the mesh's principal frame: Centre and Frame are the mesh's centre of mass and
// principal axes in the given vertices' frame, and Volume and UnitInertia the mesh's.
func NewMeshHull(verts []Vec3, tris [][3]uint32) (*Hull, error) {
	if _, err := NewMesh(verts, tris); err != nil {
		return nil, err
	}
	if len(verts) > MaxHullPoints {
		return nil, &MeshError{-1, -1, fmt.Errorf("%w: a moving mesh takes at most %d vertices (it collides by their convex hull), got %d", ErrHullTooMany, MaxHullPoints, len(verts))}
	}
	it := make([][3]int, len(tris))
	for i, t := range tris {
		it[i] = [3]int{int(t[0]), int(t[1]), int(t[2])}
	}
	if err := CheckClosedMesh(len(verts), it); err != nil {
		return nil, &MeshError{-1, -1, fmt.Errorf("%w: a moving mesh must be closed: %v", ErrMeshOpen, err)}
	}
	p := make([]v3, len(verts))
	for i, v := range verts {
		p[i] = v3{float64(v[0]), float64(v[1]), float64(v[2])}
	}
	mp := polyhedronMass(p, it)
	if !(mp.Volume > 0) {
		return nil, &MeshError{-1, -1, fmt.Errorf("%w: the triangles enclose a volume of %.6g m^3; they must run counter-clockwise seen from outside", ErrMeshInsideOut, mp.Volume)}
	}
	h0, err := NewHull(verts)
	if err != nil {
		return nil, err
	}
	moments, frame := principalAxes(mp.Inertia)
	h := &Hull{
		Edges:       h0.Edges,
		FaceVerts:   h0.FaceVerts,
		Volume:      mp.Volume,
		UnitInertia: Vec3{float32(moments[0] / mp.Volume), float32(moments[1] / mp.Volume), float32(moments[2] / mp.Volume)},
		Centre:      mp.Centre.f32(),
		Frame:       matToQuat(frame),
	}
	// The hull's vertices and face planes, from its frame into the mesh's principal frame: through
	// the given frame (given = Centre + Frame.Rotate(local)), then R^T (given - c).
	toV3 := func(v Vec3) v3 { return v3{float64(v[0]), float64(v[1]), float64(v[2])} }
	local := make([]v3, len(h0.Verts))
	for i, v := range h0.Verts {
		g := toV3(h0.Centre).add(toV3(h0.Frame.Rotate(v)))
		d := g.sub(mp.Centre)
		local[i] = v3{frame[0].dot(d), frame[1].dot(d), frame[2].dot(d)}
		h.Verts = append(h.Verts, local[i].f32())
		h.Radius = max(h.Radius, float32(local[i].length()))
	}
	for _, f := range h0.Faces {
		gn := toV3(h0.Frame.Rotate(f.Normal))
		n := v3{frame[0].dot(gn), frame[1].dot(gn), frame[2].dot(gn)}.unit()
		d := math.Inf(-1)
		for _, vi := range h0.FaceVerts[f.First : f.First+f.Count] {
			d = math.Max(d, n.dot(local[vi]))
		}
		h.Faces = append(h.Faces, HullFace{Normal: n.f32(), Offset: float32(d), First: f.First, Count: f.Count})
	}
	h.MeshTris = append([][3]uint32(nil), tris...)
	for _, v := range p {
		d := v.sub(mp.Centre)
		h.MeshVerts = append(h.MeshVerts, v3{frame[0].dot(d), frame[1].dot(d), frame[2].dot(d)}.f32())
	}
	return h, nil
}
