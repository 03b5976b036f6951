package gpu

import (
	"fmt"

	"tumble/sim/geom"
)

// meshTable is the device copy of the static triangle meshes the bodies use (layout.cuh's mesh
// table): each distinct geom.Mesh once, entered when the first body of it is uploaded, with its
// triangles, normals, active edges and its BVH as geom built it (the nodes and the leaf order), so the
// narrow phase meets the triangles in the CPU's order. Meshes are immutable and shared by pointer, so
// an entry never changes; the table only grows, and is uploaded whole when it has.
type meshTable struct {
	index   map[*geom.Mesh]int32
	meshes  []tbMesh
	nodes   []tbMeshNode
	order   []int32
	tris    []tbMeshTri
	normals []float4
	verts   []float4
	sent    int // entries the device holds

	dMeshes, dNodes, dOrder, dTris, dNormals, dVerts buffer
}

// entry returns m's index in the table, adding it when it is new.
func (t *meshTable) entry(m *geom.Mesh) int32 {
	if t.index == nil {
		t.index = map[*geom.Mesh]int32{}
	}
	if i, ok := t.index[m]; ok {
		return i
	}
	e := tbMesh{FirstNode: int32(len(t.nodes)), FirstOrder: int32(len(t.order)), FirstTri: int32(len(t.tris)),
		FirstVert: int32(len(t.verts))}
	for _, n := range m.Nodes {
		t.nodes = append(t.nodes, tbMeshNode{Lo: n.Box.Min, Hi: n.Box.Max, First: n.First, Count: n.Count})
	}
	t.order = append(t.order, m.Order...)
	for i, tr := range m.Tris {
		t.tris = append(t.tris, tbMeshTri{V0: int32(tr[0]), V1: int32(tr[1]), V2: int32(tr[2]), Active: uint32(m.Active[i])})
		n := m.Normals[i]
		t.normals = append(t.normals, float4{n[0], n[1], n[2], 0})
	}
	for _, v := range m.Verts {
		t.verts = append(t.verts, float4{v[0], v[1], v[2], 0})
	}
	i := int32(len(t.meshes))
	t.meshes = append(t.meshes, e)
	t.index[m] = i
	return i
}

// hasMeshes reports whether some body uploaded since the table was made is, or was, a mesh.
func (t *meshTable) hasMeshes() bool { return len(t.meshes) > 0 }

// pack fills a mesh shape's device record r (layout.cuh's TbShape): the mesh's local box as half
// extents and centre, computed here as geom's Shape.Bounds computes them, its bounding radius, and its
// entry in the table.
func (t *meshTable) pack(r *tbShape, m *geom.Mesh) {
	h := m.Box.Max.Sub(m.Box.Min).Mul(0.5)
	c := m.Box.Centre()
	r.A, r.B, r.C = h[0], h[1], h[2]
	r.NX, r.NY, r.NZ = c[0], c[1], c[2]
	r.D = m.Radius
	r.Hull = t.entry(m)
}

// upload copies the table to the device when it has grown since the last upload.
func (t *meshTable) upload(d device) error {
	if t.sent == len(t.meshes) {
		return nil
	}
	for _, c := range []struct {
		b    *buffer
		put  func(ptr) error
		size int
	}{
		{&t.dMeshes, func(p ptr) error { return uploadSlice(d, p, t.meshes) }, len(t.meshes) * meshBytes},
		{&t.dNodes, func(p ptr) error { return uploadSlice(d, p, t.nodes) }, len(t.nodes) * meshNodeBytes},
		{&t.dOrder, func(p ptr) error { return uploadSlice(d, p, t.order) }, len(t.order) * 4},
		{&t.dTris, func(p ptr) error { return uploadSlice(d, p, t.tris) }, len(t.tris) * meshTriBytes},
		{&t.dNormals, func(p ptr) error { return uploadSlice(d, p, t.normals) }, len(t.normals) * sizeFloat4},
		{&t.dVerts, func(p ptr) error { return uploadSlice(d, p, t.verts) }, len(t.verts) * sizeFloat4},
	} {
		if err := grow(d, c.b, c.size); err != nil {
			return fmt.Errorf("gpu: mesh table of %d meshes: %w", len(t.meshes), err)
		}
		if err := c.put(c.b.p); err != nil {
			return err
		}
	}
	t.sent = len(t.meshes)
	return nil
}

// release frees the device copy and empties the table.
func (t *meshTable) release(d device) {
	for _, b := range []*buffer{&t.dMeshes, &t.dNodes, &t.dOrder, &t.dTris, &t.dNormals, &t.dVerts} {
		release(d, b)
	}
	*t = meshTable{}
}
