//go:build goexperiment.simd && amd64

package sim

import (
	"simd/archsimd"
	"unsafe"

	"tumble/sim/collide"
)

// prepareWide is prepareRows over the lanes of batch bt as packBatch fills it, writing the rows
// straight into the batch instead of into the manifolds' points for a transpose: src[j][l] is lane
// l's point j (zeroPoint where it has none), at[j][l] the narrow phase's point it came from, kept[j]
// the lanes whose point j keeps last step's friction anchors (packBatch put them in the batch), comp
// each lane's soft compliance. Each lane's arithmetic is prepareRows' in its order (mass splitting
// never runs wide), so the rows are its rows bit for bit (TestWidePrepareMatchesScalar). A missing
// point gets zero rows, as packBatch's zeroPoint gives them. The points get back what the rest of the
// step reads of them: the anchors in the bodies' frames, the friction anchors and the relative normal
// velocity (restitution reads the rest from the batch: rowsFromBatch).
func prepareWide(w *World, bt *wideBatch, src *[4][batchLanes]*contactPoint, at *[4][batchLanes]*collide.Point,
	kept *[4]uint16, comp *blanes) {
	prepare8(w, bt, 0, src, at, kept, comp)
	if bt.lanes > wideLanes {
		prepare8(w, bt, 1, src, at, kept, comp)
	}
}

// lanes8 is the eight-lane kernels' width (rows_template.go's lanes_W).
const lanes8 = wideLanes

// gatherBodies8 loads the bodies of half h of a batch for prepare8: their inverse inertias and
// rotations into iA, iB, rA and rB, their positions and velocities into st (xA, xB, vA, wA, vB, wB).
// An empty lane reads lane 0's bodies (its rows are zeroed).
func gatherBodies8(w *World, bt *wideBatch, h int, iA, iB, rA, rB *[9]lanes, st *[6]lanes3) {
	b := &w.Bodies
	ia, ib := *idx8(&bt.a, h), *idx8(&bt.b, h)
	for l := used8(bt, h); l < wideLanes; l++ {
		ia[l], ib[l] = bt.a[0], bt.b[0]
	}
	gatherMatTo(iA, b.InvInertiaWorld, &ia, true)
	gatherMatTo(iB, b.InvInertiaWorld, &ib, true)
	gatherMatTo(rA, b.rot, &ia, true)
	gatherMatTo(rB, b.rot, &ib, true)
	stv8(&st[0], gather(b.Position, &ia, true))
	stv8(&st[1], gather(b.Position, &ib, true))
	vA, wA, vB, wB := gatherPair(b, &ia, &ib, true)
	stv8(&st[2], vA)
	stv8(&st[3], wA)
	stv8(&st[4], vB)
	stv8(&st[5], wB)
}

// points8 loads the positions and separations of the narrow phase's points q[8h] to q[8h+7].
func points8(q *[batchLanes]*collide.Point, h int) (v8, f8) {
	r := (*[wideLanes]*collide.Point)(q[h*wideLanes:])
	px, py, pz, sep := transpose4(ld4p(r[0]), ld4p(r[1]), ld4p(r[2]), ld4p(r[3]),
		ld4p(r[4]), ld4p(r[5]), ld4p(r[6]), ld4p(r[7]))
	return v8{px, py, pz}, sep
}

// keptMask8 is the mask of half h's lanes whose bit is set in bits.
func keptMask8(bits uint16, h int) archsimd.Mask32x8 { return bitMask(uint8(bits >> (8 * h))) }

// ld4p loads a narrow-phase point's position and separation, the first four floats of collide.Point.
func ld4p(pt *collide.Point) archsimd.Float32x4 {
	return archsimd.LoadFloat32x4((*[4]float32)(unsafe.Pointer(pt)))
}

// transpose4 turns lane l's rl = (x, y, z, w) into component vectors. (transpose, for three, picks its
// z with other selects; written with this one it made the contact passes 3% slower.)
func transpose4(r0, r1, r2, r3, r4, r5, r6, r7 archsimd.Float32x4) (x, y, z, w f8) {
	var e f8
	q0, q1 := e.SetLo(r0).SetHi(r4), e.SetLo(r1).SetHi(r5)
	q2, q3 := e.SetLo(r2).SetHi(r6), e.SetLo(r3).SetHi(r7)
	s0 := q0.SelectFromPairGrouped(0, 1, 4, 5, q1) // x0 y0 x1 y1 | x4 y4 x5 y5
	s1 := q2.SelectFromPairGrouped(0, 1, 4, 5, q3) // x2 y2 x3 y3 | ...
	s2 := q0.SelectFromPairGrouped(2, 3, 6, 7, q1) // z0 w0 z1 w1 | ...
	s3 := q2.SelectFromPairGrouped(2, 3, 6, 7, q3) // z2 w2 z3 w3 | ...
	return s0.SelectFromPairGrouped(0, 2, 4, 6, s1), s0.SelectFromPairGrouped(1, 3, 5, 7, s1),
		s2.SelectFromPairGrouped(0, 2, 4, 6, s3), s2.SelectFromPairGrouped(1, 3, 5, 7, s3)
}

// laneBits is 1, 2, 4, ..., 128: lane l's bit.
var laneBits = [wideLanes]int32{1, 2, 4, 8, 16, 32, 64, 128}

// bitMask is the mask of the lanes whose bit is set in bits (archsimd's Mask32x8FromBits needs
// AVX-512).
func bitMask(bits uint8) archsimd.Mask32x8 {
	lb := archsimd.LoadInt32x8(&laneBits)
	return archsimd.BroadcastInt32x8(int32(bits)).And(lb).Equal(lb)
}
