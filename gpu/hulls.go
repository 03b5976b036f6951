package gpu

import (
	"fmt"

	"tumble/sim/collide"
	"tumble/sim/geom"
)

// hullTable is the device copy of the convex hulls the bodies use (layout.cuh's hull table): each
// distinct geom.Hull once, entered when the first body of it is uploaded, with entry 0
// (TB_UNIT_BOX_HULL) the unit cube whose topology the narrow phase's boxes borrow, as sim/collide's
// do. Hulls are immutable and shared by pointer (geom.Hull), so a hull's entry never changes; the
// table only grows, and is uploaded whole when it has.
type hullTable struct {
	index map[*geom.Hull]int32
	hulls []tbHull
	verts []float4
	faces []tbHullFace
	loops []int32
	edges []tbHullEdge
	sent  int // entries the device holds

	dHulls, dVerts, dFaces, dLoops, dEdges buffer
}

// entry returns h's index in the table, adding it when it is new.
func (t *hullTable) entry(h *geom.Hull) int32 {
	if t.index == nil {
		t.index = map[*geom.Hull]int32{}
		t.entry(collide.UnitBox())
	}
	if i, ok := t.index[h]; ok {
		return i
	}
	e := tbHull{
		FirstVert: int32(len(t.verts)), NumVerts: int32(len(h.Verts)),
		FirstFace: int32(len(t.faces)), NumFaces: int32(len(h.Faces)),
		FirstLoop: int32(len(t.loops)),
		FirstEdge: int32(len(t.edges)), NumEdges: int32(len(h.Edges)),
		Radius: h.Radius,
	}
	for _, v := range h.Verts {
		t.verts = append(t.verts, float4{v[0], v[1], v[2], 0})
	}
	for _, f := range h.Faces {
		t.faces = append(t.faces, tbHullFace{NX: f.Normal[0], NY: f.Normal[1], NZ: f.Normal[2], Offset: f.Offset,
			First: int32(f.First), Count: int32(f.Count)})
	}
	for _, v := range h.FaceVerts {
		t.loops = append(t.loops, int32(v))
	}
	for _, e := range h.Edges {
		t.edges = append(t.edges, tbHullEdge{V0: int32(e.V0), V1: int32(e.V1), F0: int32(e.F0), F1: int32(e.F1)})
	}
	i := int32(len(t.hulls))
	t.hulls = append(t.hulls, e)
	t.index[h] = i
	return i
}

// hasHulls reports whether the table holds a hull besides the unit cube: whether some body uploaded
// since the table was made is, or was, a hull.
func (t *hullTable) hasHulls() bool { return len(t.hulls) > 1 }

// pack converts a shape to its device record, entering a hull in the table.
func (t *hullTable) pack(s *geom.Shape) tbShape {
	r := packShape(s)
	if s.Kind == geom.ConvexHull {
		r.A, r.Hull = s.Hull.Radius, t.entry(s.Hull)
	}
	return r
}

// upload copies the table to the device when it has grown since the last upload (the unit cube's
// entry is always there, so the kernels' pointers are never null).
func (t *hullTable) upload(d device) error {
	t.entry(collide.UnitBox())
	if t.sent == len(t.hulls) {
		return nil
	}
	for _, c := range []struct {
		b    *buffer
		put  func(ptr) error
		size int
	}{
		{&t.dHulls, func(p ptr) error { return uploadSlice(d, p, t.hulls) }, len(t.hulls) * hullBytes},
		{&t.dVerts, func(p ptr) error { return uploadSlice(d, p, t.verts) }, len(t.verts) * sizeFloat4},
		{&t.dFaces, func(p ptr) error { return uploadSlice(d, p, t.faces) }, len(t.faces) * hullFaceBytes},
		{&t.dLoops, func(p ptr) error { return uploadSlice(d, p, t.loops) }, len(t.loops) * 4},
		{&t.dEdges, func(p ptr) error { return uploadSlice(d, p, t.edges) }, len(t.edges) * hullEdgeBytes},
	} {
		if err := grow(d, c.b, c.size); err != nil {
			return fmt.Errorf("gpu: hull table of %d hulls: %w", len(t.hulls), err)
		}
		if err := c.put(c.b.p); err != nil {
			return err
		}
	}
	t.sent = len(t.hulls)
	return nil
}

// release frees the device copy and empties the table.
func (t *hullTable) release(d device) {
	for _, b := range []*buffer{&t.dHulls, &t.dVerts, &t.dFaces, &t.dLoops, &t.dEdges} {
		release(d, b)
	}
	*t = hullTable{}
}
