package instance

import (
	"sync"

	"tumble/sim/geom"
)

// meshChunk is the most triangles one drawing hull of a mesh holds: three vertices each, indexed in
// 16 bits (geom.Hull's face loops).
const meshChunk = 65535 / 3

var meshHulls struct {
	sync.Mutex
	m map[*geom.Mesh][]*geom.Hull
}

// MeshHulls returns a triangle mesh as drawing hulls for the renderer's hull path: each triangle a
// face with its normal (flat shaded), split into hulls of at most meshChunk triangles. They carry no
// mass properties and are made once per mesh (meshes are immutable).
func MeshHulls(m *geom.Mesh) []*geom.Hull {
	meshHulls.Lock()
	defer meshHulls.Unlock()
	if hs, ok := meshHulls.m[m]; ok {
		return hs
	}
	var hs []*geom.Hull
	for lo := 0; lo < len(m.Tris); lo += meshChunk {
		hi := min(lo+meshChunk, len(m.Tris))
		h := &geom.Hull{}
		for t := lo; t < hi; t++ {
			first := uint16(len(h.Verts))
			for _, vi := range m.Tris[t] {
				h.Verts = append(h.Verts, m.Verts[vi])
				h.FaceVerts = append(h.FaceVerts, uint16(len(h.FaceVerts)))
			}
			h.Faces = append(h.Faces, geom.HullFace{Normal: m.Normals[t], First: first, Count: 3})
		}
		hs = append(hs, h)
	}
	if meshHulls.m == nil {
		meshHulls.m = map[*geom.Mesh][]*geom.Hull{}
	}
	meshHulls.m[m] = hs
	return hs
}
