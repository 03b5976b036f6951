package gpu

import (
	"fmt"
	"unsafe"

	"tumble/render/instance"
	"tumble/sim"
)

// LineVertexBytes is the size of one debug line vertex that WriteDebugLines writes
// (instance.LineVertex).
const LineVertexBytes = instance.LineVertexBytes

// debugPointBytes is sizeof(TbDebugPoint) in debug.cu: solver.cu's TbContactOut, which
// tb_solver_export writes and the debug kernels read.
const debugPointBytes = int(unsafe.Sizeof(tbDebugPoint{}))

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
	k := kernelSet{d}
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
		if err := k.solverExport(blocks(slots, solverManifoldThreads), solverManifoldThreads, solverExportArgs{
			Man: s.man[last].p, Kept: s.kept[last].p, Pos: b.bodies.pos.p, Rot: b.bodies.rot.p, Out: dw.points.p,
		}); err != nil {
			return out, err
		}
		if err := k.debugContactFlag(blocks(slots, 256), 256, debugContactFlagArgs{Pts: dw.points.p,
			Kept: s.kept[last].p, Slots: int32(slots), Flag: dw.cFlag.p, MaxN: dw.maxN.p}); err != nil {
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
		if err := k.broadBounds(blocks(n, broadThreads), broadThreads, broadBoundsArgs{Pos: bb.pos.p, Rot: bb.rot.p,
			Vel: bb.vel.p, Omega: bb.omega.p, Shape: bb.shape.p, Hulls: bb.hulls.dHulls.p,
			HullVerts: bb.hulls.dVerts.p, Flags: bb.flags.p, Boxes: dw.boxes.p,
			Moving: dw.moving.p, N: int32(n), Dt: 0, Margin: 0}); err != nil {
			return out, err
		}
		if err := k.debugBodyFlag(blocks(n, 256), 256, debugBodyFlagArgs{Shape: bb.shape.p, Flag: dw.bFlag.p,
			N: int32(n)}); err != nil {
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
			err = k.debugBvhRoot(1, 1, debugBvhRootArgs{Nodes: b.broad.nodes.p, N: int32(tn), Flag: dw.vFlag.p,
				Slot: dw.vSlot.p})
		} else {
			err = k.debugBvhFlag(blocks(tn-1, 256), 256, debugBvhFlagArgs{Nodes: b.broad.nodes.p,
				Parent: b.broad.parent.p, N: int32(tn), Depth: int32(st.BVHDepth), Flag: dw.vFlag.p, Slot: dw.vSlot.p})
		}
		if err != nil {
			return out, err
		}
		if err := dw.scan.run(d, dw.vFlag.p, dw.vRank.p, tn); err != nil {
			return out, err
		}
	}

	// The one read-back: how many items each layer has.
	if err := k.debugTotals(1, 1, debugTotalsArgs{FlagC: dw.cFlag.p, RankC: dw.cRank.p, NC: int32(slots),
		FlagA: dw.bFlag.p, RankA: dw.bRank.p, NA: int32(nA), FlagB: dw.vFlag.p, RankB: dw.vRank.p, NB: int32(nB),
		Out: dw.totals.p}); err != nil {
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
		if err := k.debugContacts(blocks(slots, 256), 256, debugContactsArgs{Pts: dw.points.p, Flag: dw.cFlag.p,
			Rank: dw.cRank.p, Slots: int32(slots), MaxN: dw.maxN.p, Cross: flag(st.Contacts),
			Normals: flag(st.Normals), Palette: dw.palette.p, Dst: ptr(dst), Base: 0,
			Capacity: int32(capacity)}); err != nil {
			return out, err
		}
	}
	if out.AABBs > 0 {
		if err := k.debugBoxes(blocks(nA, 256), 256, debugBoxesArgs{Boxes: dw.boxes.p, Flag: dw.bFlag.p,
			Rank: dw.bRank.p, N: int32(nA), Palette: dw.palette.p, Dst: ptr(dst), Base: int32(out.Contacts),
			Capacity: int32(capacity)}); err != nil {
			return out, err
		}
	}
	if out.BVH > 0 {
		if err := k.debugBvh(blocks(nB, 256), 256, debugBvhArgs{Nodes: b.broad.nodes.p, Flag: dw.vFlag.p,
			Slot: dw.vSlot.p, Rank: dw.vRank.p, N: int32(nB), Palette: dw.palette.p, Dst: ptr(dst),
			Base: int32(out.Contacts + out.AABBs), Capacity: int32(capacity)}); err != nil {
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
