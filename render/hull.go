package render

import (
	"unsafe"

	"github.com/go-gl/gl/v4.6-core/gl"

	"tumble/render/instance"
	"tumble/sim/geom"
)

// Convex hulls have no shared mesh: each distinct hull (geom.Hull, shared by every body made from the
// same points) gets its own vertex buffer, built the first time it is drawn, and its bodies are drawn in
// one instanced call with scale 1.

// HullBatch is the instances of one hull to draw.
type HullBatch struct {
	Hull      *geom.Hull
	Instances []instance.Instance
}

// addHull appends an instance of hull h to f's batches.
func (f *Frame) addHull(h *geom.Hull, in instance.Instance) {
	for i := range f.Hulls {
		if f.Hulls[i].Hull == h {
			f.Hulls[i].Instances = append(f.Hulls[i].Instances, in)
			return
		}
	}
	f.Hulls = append(f.Hulls, HullBatch{Hull: h, Instances: []instance.Instance{in}})
}

// hullMesh is a hull's flat-shaded triangles: each face's vertices carry the face normal.
func hullMesh(h *geom.Hull) mesh {
	var m mesh
	for _, f := range h.Faces {
		base := uint32(len(m.verts))
		for _, vi := range h.FaceVerts[f.First : f.First+f.Count] {
			m.verts = append(m.verts, vertex{pos: h.Verts[vi], normal: f.Normal})
		}
		for k := uint32(1); k+1 < uint32(f.Count); k++ {
			m.index = append(m.index, base, base+k, base+k+1)
		}
	}
	return m
}

// gpuHull is a hull's buffers on the GL side, and the last frame that drew it.
type gpuHull struct {
	vao, vbo, ebo, inst uint32
	count               int32
	used                uint64
}

// hullKeepFrames is how many frames a hull's buffers are kept without being drawn: a body whose hull
// is gone (removed, or another scene loaded) leaves its buffers freed rather than kept for the session.
const hullKeepFrames = 120

// hullBuffers returns h's buffers, making them on first use.
func (r *Renderer) hullBuffers(h *geom.Hull) *gpuHull {
	if g, ok := r.hulls[h]; ok {
		return g
	}
	if r.hulls == nil {
		r.hulls = map[*geom.Hull]*gpuHull{}
	}
	m := hullMesh(h)
	g := &gpuHull{count: int32(len(m.index))}
	gl.GenVertexArrays(1, &g.vao)
	gl.BindVertexArray(g.vao)
	gl.GenBuffers(1, &g.vbo)
	gl.BindBuffer(gl.ARRAY_BUFFER, g.vbo)
	gl.BufferData(gl.ARRAY_BUFFER, len(m.verts)*int(unsafe.Sizeof(vertex{})), gl.Ptr(m.verts), gl.STATIC_DRAW)
	stride := int32(unsafe.Sizeof(vertex{}))
	attrib(0, 3, stride, 0, 0)
	attrib(1, 3, stride, 12, 0)
	attrib(2, 1, stride, 24, 0)
	gl.GenBuffers(1, &g.ebo)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, g.ebo)
	gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, len(m.index)*4, gl.Ptr(m.index), gl.STATIC_DRAW)
	gl.GenBuffers(1, &g.inst)
	gl.BindBuffer(gl.ARRAY_BUFFER, g.inst)
	instanceAttribs()
	gl.BindVertexArray(0)
	r.hulls[h] = g
	return g
}

// uploadHulls sends each batch's instances to its hull's instance buffer, once a frame, and frees the
// buffers of hulls not drawn for hullKeepFrames frames.
func (r *Renderer) uploadHulls(f *Frame) {
	r.hullFrame++
	if r.hullFrame%60 == 0 {
		for h, g := range r.hulls {
			if r.hullFrame-g.used > hullKeepFrames {
				gl.DeleteVertexArrays(1, &g.vao)
				gl.DeleteBuffers(1, &g.vbo)
				gl.DeleteBuffers(1, &g.ebo)
				gl.DeleteBuffers(1, &g.inst)
				delete(r.hulls, h)
			}
		}
	}
	for i := range f.Hulls {
		b := &f.Hulls[i]
		if len(b.Instances) == 0 {
			continue
		}
		g := r.hullBuffers(b.Hull)
		g.used = r.hullFrame
		gl.BindBuffer(gl.ARRAY_BUFFER, g.inst)
		gl.BufferData(gl.ARRAY_BUFFER, len(b.Instances)*int(unsafe.Sizeof(instance.Instance{})), gl.Ptr(b.Instances), gl.STREAM_DRAW)
	}
}

// drawHulls draws every batch, one instanced call per hull.
func (r *Renderer) drawHulls(f *Frame) {
	for i := range f.Hulls {
		b := &f.Hulls[i]
		if len(b.Instances) == 0 {
			continue
		}
		g := r.hullBuffers(b.Hull)
		gl.BindVertexArray(g.vao)
		gl.DrawElementsInstanced(gl.TRIANGLES, g.count, gl.UNSIGNED_INT, nil, int32(len(b.Instances)))
	}
}
