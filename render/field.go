package render

import (
	"unsafe"

	"github.com/go-gl/gl/v4.6-core/gl"

	"tumble/render/instance"
)

// Height fields are drawn from GL copies of their chunk levels (instance.FieldLevel): a level is
// copied once, into a slot of the buffer of its stride (each slot holds a full chunk's vertices at
// that stride), and stays there while it is drawn. As the eye moves only the list of levels drawn
// changes, so a frame copies nothing but the few levels a move brings into view or changes in
// detail, and a camera move never rebuilds the whole field. Each pass draws a field with one
// glMultiDrawArrays per stride over its levels' slots: the strides from fine to coarse, which is
// near to far, and within a stride the levels nearest first as FieldView lists them, so that the
// depth test rejects most of the terrain hidden behind nearer terrain before it is shaded, without
// a depth pre-pass of its own. The field's pose and colour are constant vertex attributes, not an
// instance buffer.

// FieldBatch is a height field to draw: its body's instance (pose and colour) and the levels in
// view, nearest the eye first.
type FieldBatch struct {
	Instance instance.Instance
	Levels   []*instance.FieldLevel
	// Shades says the field can shade something under the light (instance.FieldShades), so it is
	// drawn into the shadow map; a field less steep than the light is high is only lit.
	Shades bool
}

// fieldKeepFrames is how many frames a level's slot is kept without the level being drawn.
const fieldKeepFrames = 120

// fieldSlotsFirst is the number of slots a stride's buffer is made with; it doubles when full.
const fieldSlotsFirst = 4

// fieldSlots is the GL-free bookkeeping of the field buffers: which slot of which stride's buffer
// holds each level copied to GL, and the slots free for reuse.
type fieldSlots struct {
	at    map[*instance.FieldLevel]*fieldSlot
	pools [instance.FieldStrides]slotPool
	frame uint64
}

// slotPool is one stride's slots: n made (the buffer's size), free the ones no level holds.
type slotPool struct {
	n    int
	free []int
}

// fieldSlot is where a level is: slot of pool (log2 of its stride), and the last frame it was drawn.
type fieldSlot struct {
	pool, slot int
	used       uint64
}

// strideLog is the pool of stride s, a power of two: log2 s.
func strideLog(s int) int {
	p := 0
	for s > 1 {
		s >>= 1
		p++
	}
	return p
}

// place returns l's slot, marked drawn this frame. fresh says l has just been given it, so its
// vertices must be copied there; grown, when not 0, is the slot count its pool has just grown to,
// so its buffer must be reallocated (keeping what the slots below the old count hold) first.
func (s *fieldSlots) place(l *instance.FieldLevel) (sl *fieldSlot, fresh bool, grown int) {
	if sl = s.at[l]; sl != nil {
		sl.used = s.frame
		return sl, false, 0
	}
	if s.at == nil {
		s.at = map[*instance.FieldLevel]*fieldSlot{}
	}
	pi := strideLog(l.Stride)
	p := &s.pools[pi]
	if len(p.free) == 0 {
		old := p.n
		p.n = max(fieldSlotsFirst, 2*p.n)
		for i := p.n - 1; i >= old; i-- {
			p.free = append(p.free, i)
		}
		grown = p.n
	}
	sl = &fieldSlot{pool: pi, slot: p.free[len(p.free)-1], used: s.frame}
	p.free = p.free[:len(p.free)-1]
	s.at[l] = sl
	return sl, true, grown
}

// nextFrame starts a frame: every fieldKeepFrames / 2 frames, the slots of levels not drawn for
// fieldKeepFrames frames are freed (a level left behind by the eye, or a field no longer drawn).
func (s *fieldSlots) nextFrame() {
	s.frame++
	if s.frame%(fieldKeepFrames/2) != 0 {
		return
	}
	for l, sl := range s.at {
		if s.frame-sl.used > fieldKeepFrames {
			p := &s.pools[sl.pool]
			p.free = append(p.free, sl.slot)
			delete(s.at, l)
		}
	}
}

// fieldBuffers are the GL side of the field slots: a buffer and a vertex array per stride, and
// the lists handed to glMultiDrawArrays.
type fieldBuffers struct {
	slots        fieldSlots
	buf, vao     [instance.FieldStrides]uint32
	first, count []int32
}

// fieldSlotBytes is the size of a slot of pool p.
func fieldSlotBytes(p int) int {
	return instance.FieldLevelVerts(1<<p) * int(unsafe.Sizeof(instance.FieldVertex{}))
}

// uploadFields copies the levels of f's fields not yet in GL into their slots.
func (r *Renderer) uploadFields(f *Frame) {
	b := &r.fields
	b.slots.nextFrame()
	for i := range f.Fields {
		for _, l := range f.Fields[i].Levels {
			sl, fresh, grown := b.slots.place(l)
			if grown > 0 {
				r.growFieldPool(sl.pool, grown)
			}
			if fresh && len(l.Verts) > 0 {
				gl.BindBuffer(gl.ARRAY_BUFFER, b.buf[sl.pool])
				gl.BufferSubData(gl.ARRAY_BUFFER, sl.slot*fieldSlotBytes(sl.pool),
					len(l.Verts)*int(unsafe.Sizeof(instance.FieldVertex{})), gl.Ptr(l.Verts))
			}
		}
	}
}

// growFieldPool reallocates pool p's buffer for n slots, keeping the slots it held, and points its
// vertex array at the new buffer.
func (r *Renderer) growFieldPool(p, n int) {
	b := &r.fields
	var buf uint32
	gl.GenBuffers(1, &buf)
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, buf)
	gl.BufferData(gl.COPY_WRITE_BUFFER, n*fieldSlotBytes(p), nil, gl.STATIC_DRAW)
	if old := b.buf[p]; old != 0 {
		var size int32
		gl.BindBuffer(gl.COPY_READ_BUFFER, old)
		gl.GetBufferParameteriv(gl.COPY_READ_BUFFER, gl.BUFFER_SIZE, &size)
		gl.CopyBufferSubData(gl.COPY_READ_BUFFER, gl.COPY_WRITE_BUFFER, 0, 0, int(size))
		gl.DeleteBuffers(1, &old)
	}
	b.buf[p] = buf
	if b.vao[p] == 0 {
		gl.GenVertexArrays(1, &b.vao[p])
	}
	gl.BindVertexArray(b.vao[p])
	gl.BindBuffer(gl.ARRAY_BUFFER, buf)
	stride := int32(unsafe.Sizeof(instance.FieldVertex{}))
	attrib(0, 3, stride, 0, 0)
	attrib(1, 3, stride, 12, 0)
	gl.BindVertexArray(0)
}

// drawFields draws f's height fields with the bound program (the field's instance attributes set as
// constants: the arrays of its vertex arrays hold positions and normals alone); shadow: the shadow
// pass, which draws only the fields that can shade.
func (r *Renderer) drawFields(f *Frame, shadow bool) {
	if f.Device {
		return
	}
	b := &r.fields
	for i := range f.Fields {
		fb := &f.Fields[i]
		if shadow && !fb.Shades {
			continue
		}
		in := &fb.Instance
		gl.VertexAttrib1f(2, 0)
		gl.VertexAttrib3f(3, in.Pos[0], in.Pos[1], in.Pos[2])
		gl.VertexAttrib4f(4, in.Quat[0], in.Quat[1], in.Quat[2], in.Quat[3])
		gl.VertexAttrib3f(5, in.Scale[0], in.Scale[1], in.Scale[2])
		gl.VertexAttrib1f(6, in.Extra)
		gl.VertexAttrib4f(7, in.Color[0], in.Color[1], in.Color[2], in.Color[3])
		for p := range instance.FieldStrides {
			b.first, b.count = b.first[:0], b.count[:0]
			verts := int32(instance.FieldLevelVerts(1 << p))
			for _, l := range fb.Levels {
				if sl := b.slots.at[l]; sl != nil && sl.pool == p && len(l.Verts) > 0 {
					b.first = append(b.first, int32(sl.slot)*verts)
					b.count = append(b.count, int32(len(l.Verts)))
				}
			}
			if len(b.first) > 0 {
				gl.BindVertexArray(b.vao[p])
				gl.MultiDrawArrays(gl.TRIANGLES, &b.first[0], &b.count[0], int32(len(b.first)))
			}
		}
	}
}
