package gpu

import (
	"fmt"

	"tumble/render/instance"
	"tumble/sim"
)

// LineVertexBytes is the size of one debug line vertex that WriteDebugLines writes
// (instance.LineVertex).
const LineVertexBytes = instance.LineVertexBytes

// debugPointBytes is sizeof(TbDebugPoint) in debug.cu, solver.cu's TbContactOut.
const debugPointBytes = contactOutBytes

// Vertices per item (debug.cu's TB_*_VERTS): render.Frame's Cross, Line and Box.
const (
	crossVerts = 6
	lineVerts  = 2
	boxVerts   = 24
)

// ErrLineCapacity is wrapped by WriteDebugLines' error when the buffer is too small
// (instance.ErrLineCapacity).
var ErrLineCapacity = instance.ErrLineCapacity

// debugWriter holds WriteDebugLines' scratch buffers between frames.
type debugWriter struct {
	points          buffer // TbDebugPoint per contact slot (tb_solver_export)
	cFlag, cRank    buffer // per contact slot
	maxN            buffer // float32
	boxes, moving   buffer // per body: TbBox without sweep, and tb_broad_bounds' flags (unused)
	bFlag, bRank    buffer // per body
	vFlag, vRank    buffer // per BVH slot (sorted leaf)
	vSlot           buffer // int32 per BVH slot: 2 node + child, -1 the root's union
	palette, totals buffer // 4 float4; 3 uint32
	scan            scanner
	// Host staging, each allocated on its own (see hostStaging): 4 float4, 3 uint32.
	hostPalette []float4
	hostTotals  []uint32
}

func (dw *debugWriter) release(d device) {
	for _, b := range []*buffer{&dw.points, &dw.cFlag, &dw.cRank, &dw.maxN, &dw.boxes, &dw.moving, &dw.bFlag,
		&dw.bRank, &dw.vFlag, &dw.vRank, &dw.vSlot, &dw.palette, &dw.totals} {
		release(d, b)
	}
	dw.scan.release(d)
}

// WriteDebugLines writes the enabled debug layers of w's last step into dst, a device buffer of
// capacity vertices (the mapped GL line buffer on the interop path), from the device's buffers: the
// vertices the window's CPU path builds from a synced w, in the same order. Contacts come from the
// solver's manifolds (the points World.Contacts reports), boxes from the bodies' poses, BVH boxes from
// the tree the last step's broad phase built. Only the three layers' sizes come back (12 bytes).
// It returns ErrNotOnDevice when the device does not hold w's bodies, and an error wrapping
// ErrLineCapacity, with the counts, when capacity is too small.
func (b *Backend) WriteDebugLines(w *sim.World, dst uintptr, capacity int, st *instance.DebugStyle) (instance.DebugLines, error) {
	var out instance.DebugLines
	if b.bodies.n != w.Bodies.Len() {
		return out, ErrNotOnDevice
	}
	d, n, dw := b.dev, b.bodies.n, &b.dbg
	hostStaging(&dw.hostPalette, 4)
	hostStaging(&dw.hostTotals, 3)
	for k, c := range [4][4]float32{st.Contact, st.Normal, st.AABB, st.BVHColor} {
		dw.hostPalette[k] = float4{c[0], c[1], c[2], c[3]}
	}
	for _, g := range []struct {
		b     *buffer
		bytes int
	}{{&dw.palette, 4 * 16}, {&dw.totals, 3 * 4}, {&dw.maxN, 4}} {
		if err := grow(d, g.b, g.bytes); err != nil {
			return out, err
		}
	}
	if err := uploadSlice(d, dw.palette.p, dw.hostPalette); err != nil {
		return out, err
	}

	// Contacts: tb_solver_export's slots (4 per manifold of capacity; the kept count is on the device).
	s := &b.solver
	last := 1 - s.cur
	slots := 0
	if (st.Contacts || st.Normals) && !s.forgetPrev && s.kept[last].p != 0 && s.capacity > 0 {
		slots = 4 * s.capacity
		for _, g := range []struct {
			b     *buffer
			bytes int
		}{{&dw.points, debugPointBytes * slots}, {&dw.cFlag, 4 * slots}, {&dw.cRank, 4 * slots}} {
			if err := grow(d, g.b, g.bytes); err != nil {
				return out, err
			}
		}
		if err := d.zero(dw.maxN.p, 4); err != nil {
			return out, err
		}
		if err := d.launch("tb_solver_export", blocks(slots, solverManifoldThreads), solverManifoldThreads,
			s.man[last], s.kept[last], b.bodies.pos, b.bodies.rot, dw.points); err != nil {
			return out, err
		}
		if err := d.launch("tb_debug_contact_flag", blocks(slots, 256), 256, dw.points, s.kept[last], int32(slots),
			dw.cFlag, dw.maxN); err != nil {
			return out, err
		}
		if err := dw.scan.run(d, dw.cFlag.p, dw.cRank.p, slots); err != nil {
			return out, err
		}
	}

	// AABBs: the shapes' bounds at the current poses (tb_broad_bounds with no sweep and no margin).
	nA := 0
	if st.AABBs && n > 0 {
		nA = n
		for _, g := range []struct {
			b     *buffer
			bytes int
		}{{&dw.boxes, tbBoxSize * n}, {&dw.moving, 4 * n}, {&dw.bFlag, 4 * n}, {&dw.bRank, 4 * n}} {
			if err := grow(d, g.b, g.bytes); err != nil {
				return out, err
			}
		}
		bb := &b.bodies
		if err := d.launch("tb_broad_bounds", blocks(n, broadThreads), broadThreads, bb.pos, bb.rot, bb.vel, bb.omega,
			bb.shape, bb.flags, dw.boxes, dw.moving, int32(n), float32(0), float32(0)); err != nil {
			return out, err
		}
		if err := d.launch("tb_debug_body_flag", blocks(n, 256), 256, bb.shape, dw.bFlag, int32(n)); err != nil {
			return out, err
		}
		if err := dw.scan.run(d, dw.bFlag.p, dw.bRank.p, n); err != nil {
			return out, err
		}
	}

	// BVH: the level boxes of the tree the last step built (one slot per sorted leaf).
	nB := 0
	if tn := b.broad.treeN; st.BVH && tn >= 2 && tn == n {
		nB = tn
		for _, g := range []struct {
			b     *buffer
			bytes int
		}{{&dw.vFlag, 4 * tn}, {&dw.vRank, 4 * tn}, {&dw.vSlot, 4 * tn}} {
			if err := grow(d, g.b, g.bytes); err != nil {
				return out, err
			}
		}
		if err := d.zero(dw.vFlag.p, 4*tn); err != nil {
			return out, err
		}
		var err error
		if st.BVHDepth <= 0 {
			err = d.launch("tb_debug_bvh_root", 1, 1, b.broad.nodes, int32(tn), dw.vFlag, dw.vSlot)
		} else {
			err = d.launch("tb_debug_bvh_flag", blocks(tn-1, 256), 256, b.broad.nodes, b.broad.parent, int32(tn),
				int32(st.BVHDepth), dw.vFlag, dw.vSlot)
		}
		if err != nil {
			return out, err
		}
		if err := dw.scan.run(d, dw.vFlag.p, dw.vRank.p, tn); err != nil {
			return out, err
		}
	}

	// The one read-back: how many items each layer has.
	if err := d.launch("tb_debug_totals", 1, 1, dw.cFlag, dw.cRank, int32(slots), dw.bFlag, dw.bRank, int32(nA),
		dw.vFlag, dw.vRank, int32(nB), dw.totals); err != nil {
		return out, err
	}
	if err := downloadSlice(d, dw.hostTotals, dw.totals.p); err != nil {
		return out, err
	}
	perContact := 0
	if st.Contacts {
		perContact += crossVerts
	}
	if st.Normals {
		perContact += lineVerts
	}
	out = instance.DebugLines{Contacts: int(dw.hostTotals[0]) * perContact, AABBs: int(dw.hostTotals[1]) * boxVerts,
		BVH: int(dw.hostTotals[2]) * boxVerts}
	if out.Total() > capacity {
		return out, fmt.Errorf("%w: %d vertices for a buffer of %d", ErrLineCapacity, out.Total(), capacity)
	}
	if out.Contacts > 0 {
		if err := d.launch("tb_debug_contacts", blocks(slots, 256), 256, dw.points, dw.cFlag, dw.cRank, int32(slots),
			dw.maxN, flag(st.Contacts), flag(st.Normals), dw.palette, ptr(dst), int32(0), int32(capacity)); err != nil {
			return out, err
		}
	}
	if out.AABBs > 0 {
		if err := d.launch("tb_debug_boxes", blocks(nA, 256), 256, dw.boxes, dw.bFlag, dw.bRank, int32(nA),
			dw.palette, ptr(dst), int32(out.Contacts), int32(capacity)); err != nil {
			return out, err
		}
	}
	if out.BVH > 0 {
		if err := d.launch("tb_debug_bvh", blocks(nB, 256), 256, b.broad.nodes, dw.vFlag, dw.vSlot, dw.vRank,
			int32(nB), dw.palette, ptr(dst), int32(out.Contacts+out.AABBs), int32(capacity)); err != nil {
			return out, err
		}
	}
	return out, nil
}

// WriteDebugLines writes b's debug lines of w (Backend.WriteDebugLines) straight into the GL buffer
// glBuffer of capacity vertices: registered if it is new or was reallocated, mapped, written, unmapped.
// Use an Interop of its own for the line buffer (one Interop maps one buffer). Call it on the GL
// thread, between steps, before drawing. On an error wrapping ErrLineCapacity the counts say how
// large the buffer must be.
func (x *Interop) WriteDebugLines(b *Backend, w *sim.World, glBuffer uint32, capacity int, st *instance.DebugStyle) (instance.DebugLines, error) {
	if b.bodies.n != w.Bodies.Len() {
		return instance.DebugLines{}, ErrNotOnDevice
	}
	if err := x.Register(glBuffer, capacity*LineVertexBytes); err != nil {
		return instance.DebugLines{}, err
	}
	p, size, err := x.Map()
	if err != nil {
		return instance.DebugLines{}, err
	}
	lines, err := b.WriteDebugLines(w, p, min(capacity, size/LineVertexBytes), st)
	if uerr := x.Unmap(); err == nil {
		err = uerr
	}
	return lines, err
}
