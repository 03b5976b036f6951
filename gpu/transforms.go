package gpu

import (
	"fmt"
	"math"
	"slices"

	"tumble/render/instance"
	"tumble/sim"
	"tumble/sim/geom"
)

// InstanceBytes is the size of one instance record that WriteInstances writes (instance.Instance).
const InstanceBytes = instance.InstanceBytes

// instanceWriter holds WriteInstances' scratch buffers between frames.
type instanceWriter struct {
	flags, rank      buffer // 3 rows of n uint32: kind marks, their scans
	palette          buffer // 5 float4
	contacts, asleep buffer
	hlIdx, hlCol     buffer
	bounds           buffer // 6 float32
	scan             scanner
	hostAsleep       []uint32
	hostIdx          []int32
	hostCol          []float4
	hostBounds       []float32 // 6, on its own (see hostStaging)
	hostPalette      []float4  // 5, on its own
}

func (iw *instanceWriter) release(d device) {
	for _, b := range []*buffer{&iw.flags, &iw.rank, &iw.palette, &iw.contacts, &iw.asleep, &iw.hlIdx, &iw.hlCol, &iw.bounds} {
		release(d, b)
	}
	iw.scan.release(d)
}

// ErrNotOnDevice is returned by the device writers when the device does not hold the world's bodies
// yet, and by WriteInstances for a world with a hull (instance.ErrNotOnDevice).
var ErrNotOnDevice = instance.ErrNotOnDevice

// WriteInstances writes one instance record per body of w that is not a plane into dst, a device
// buffer of capacity records (the mapped GL instance buffer on the interop path), from the device's
// body arrays: the same records in the same order as instance.Fill makes from a synced w. Only w's
// definitions are read (shapes, for the count per kind), so w need not be synced. On the device it
// reads b.bodies' pos, rot, shape and flags for b.bodies.n bodies, as the backend's upload of the
// world's edits leaves them. Everything runs on
// the device except the few bytes of style, and the bounds read back at the end (24 bytes; the
// renderer needs them for the shadow map, and the draw waits for the kernel anyway).
//
// A world with a convex hull or a triangle mesh is drawn from the host copy (ErrNotOnDevice, before
// anything is written): the instance kernel writes the boxes, spheres and capsules, whose meshes the
// renderer shares, and a hull or a mesh is drawn with a mesh of its own by the CPU fill.
func (b *Backend) WriteInstances(w *sim.World, dst uintptr, capacity int, st *instance.Style) (instance.Written, error) {
	if !b.drawsOnDevice(w) {
		return instance.Written{}, ErrNotOnDevice
	}
	return b.writeInstances(dst, capacity, instance.CountKinds(w), st)
}

// drawsOnDevice reports whether the device can write w's instances: it holds w's bodies and none is
// a hull or a mesh.
func (b *Backend) drawsOnDevice(w *sim.World) bool {
	return b.bodies.n == w.Bodies.Len() && !slices.ContainsFunc(w.Bodies.Shape, ownMesh)
}

// ownMesh reports whether a shape is drawn with a mesh of its own (a hull's or a triangle mesh's).
func ownMesh(s geom.Shape) bool { return s.Kind == geom.ConvexHull || s.Kind == geom.TriMesh }

// writeInstances is WriteInstances with the records per kind given (tests give wrong ones to check
// the kernel's capacity guard).
func (b *Backend) writeInstances(dst uintptr, capacity int, counts [instance.NumKinds]int, st *instance.Style) (instance.Written, error) {
	out := instance.Written{Counts: counts}
	d, n, iw := b.dev, b.bodies.n, &b.inst
	if out.Total() > capacity {
		return out, fmt.Errorf("gpu: %d instance records for a buffer of %d", out.Total(), capacity)
	}
	if n == 0 {
		return out, nil
	}
	for _, g := range []struct {
		b     *buffer
		bytes int
	}{{&iw.flags, 12 * n}, {&iw.rank, 12 * n}, {&iw.palette, 5 * 16}, {&iw.bounds, 6 * 4}} {
		if err := grow(d, g.b, g.bytes); err != nil {
			return out, err
		}
	}
	k := kernelSet{d}
	if err := k.transformsFlag(blocks(n, 256), 256, transformsFlagArgs{Shape: b.bodies.shape.p, Flags: iw.flags.p,
		N: int32(n)}); err != nil {
		return out, err
	}
	for k := range 3 {
		if err := iw.scan.run(d, iw.flags.at(k*n, 4), iw.rank.at(k*n, 4), n); err != nil {
			return out, err
		}
	}

	hostStaging(&iw.hostPalette, 5)
	hostStaging(&iw.hostBounds, 6)
	for k, c := range [5][4]float32{st.Static, st.Dynamic, st.Kinematic, st.Awake, st.Asleep} {
		iw.hostPalette[k] = float4{c[0], c[1], c[2], c[3]}
	}
	if err := uploadSlice(d, iw.palette.p, iw.hostPalette); err != nil {
		return out, err
	}
	inf := float32(math.Inf(1))
	copy(iw.hostBounds, []float32{inf, inf, inf, -inf, -inf, -inf})
	if err := uploadSlice(d, iw.bounds.p, iw.hostBounds); err != nil {
		return out, err
	}
	var contacts, asleep, hlIdx, hlCol ptr
	nContacts := 0
	if st.Mode == instance.ColorByContact && len(st.Contacts) > 0 {
		nContacts = min(len(st.Contacts), n)
		if err := grow(d, &iw.contacts, 4*nContacts); err != nil {
			return out, err
		}
		if err := uploadSlice(d, iw.contacts.p, st.Contacts[:nContacts]); err != nil {
			return out, err
		}
		contacts = iw.contacts.p
	}
	switch {
	case st.Mode == instance.ColorBySleep && b.planFor.Sleep && b.sleep.n == n:
		// The device's island labels (0: awake), where the host's Asleep may be a step behind.
		asleep = b.sleep.asleep.p
	case st.Mode == instance.ColorBySleep && st.Sleeping != nil:
		iw.hostAsleep = iw.hostAsleep[:0]
		for i := range n {
			v := uint32(0)
			if i < len(st.Sleeping) && st.Sleeping[i] {
				v = 1
			}
			iw.hostAsleep = append(iw.hostAsleep, v)
		}
		if err := grow(d, &iw.asleep, 4*n); err != nil {
			return out, err
		}
		if err := uploadSlice(d, iw.asleep.p, iw.hostAsleep); err != nil {
			return out, err
		}
		asleep = iw.asleep.p
	}
	iw.hostIdx, iw.hostCol = iw.hostIdx[:0], iw.hostCol[:0]
	for i, c := range st.Highlight {
		if i >= 0 && i < n && c != [4]float32{} {
			iw.hostIdx = append(iw.hostIdx, int32(i))
			iw.hostCol = append(iw.hostCol, float4{c[0], c[1], c[2], c[3]})
		}
	}
	if nh := len(iw.hostIdx); nh > 0 {
		if err := grow(d, &iw.hlIdx, 4*nh); err != nil {
			return out, err
		}
		if err := grow(d, &iw.hlCol, 16*nh); err != nil {
			return out, err
		}
		if err := uploadSlice(d, iw.hlIdx.p, iw.hostIdx); err != nil {
			return out, err
		}
		if err := uploadSlice(d, iw.hlCol.p, iw.hostCol); err != nil {
			return out, err
		}
		hlIdx, hlCol = iw.hlIdx.p, iw.hlCol.p
	}

	err := k.transformsWrite(blocks(n, 256), 256, transformsWriteArgs{
		Pos: b.bodies.pos.p, Rot: b.bodies.rot.p, Shape: b.bodies.shape.p, Flags: b.bodies.flags.p,
		Rank: iw.rank.p, N: int32(n), Out: ptr(dst), Capacity: int32(capacity),
		Base1: int32(counts[0]), Base2: int32(counts[0] + counts[1]), Mode: int32(st.Mode),
		Palette: iw.palette.p, Contacts: contacts, NContacts: int32(nContacts), Asleep: asleep,
		HlIdx: hlIdx, HlCol: hlCol, NHl: int32(len(iw.hostIdx)), Bounds: iw.bounds.p,
	})
	if err != nil {
		return out, err
	}
	if err := downloadSlice(d, iw.hostBounds, iw.bounds.p); err != nil {
		return out, err
	}
	hb := iw.hostBounds
	if out.Any = hb[0] <= hb[3]; out.Any {
		out.Lo, out.Hi = [3]float32{hb[0], hb[1], hb[2]}, [3]float32{hb[3], hb[4], hb[5]}
	}
	return out, nil
}
