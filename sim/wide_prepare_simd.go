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
	prepareHalf(w, bt, 0, src, at, kept, comp)
	if bt.lanes > wideLanes {
		prepareHalf(w, bt, 1, src, at, kept, comp)
	}
}

// prepareHalf is prepareWide over half h of a batch (lanes 8h to 8h+7).
func prepareHalf(w *World, bt *wideBatch, h int, src *[4][batchLanes]*contactPoint, at *[4][batchLanes]*collide.Point,
	kept *[4]uint16, comp *blanes) {
	hr := rows8(bt, h)
	b := &w.Bodies
	nl := used8(bt, h)
	// An empty lane reads lane 0's bodies (its rows are zeroed below).
	ia, ib := *idx8(&bt.a, h), *idx8(&bt.b, h)
	for l := nl; l < wideLanes; l++ {
		ia[l], ib[l] = bt.a[0], bt.b[0]
	}
	var iA, iB, rA, rB [9]lanes
	// localA, localB, anchorA, anchorB, relVel: for the points (zeroed here, before the first vector
	// instruction)
	var back [13]lanes
	gatherMatTo(&iA, b.InvInertiaWorld, &ia, true)
	gatherMatTo(&iB, b.InvInertiaWorld, &ib, true)
	gatherMatTo(&rA, w.pipe.rot, &ia, true)
	gatherMatTo(&rB, w.pipe.rot, &ib, true)
	var state [4]lanes3 // xA, xB, then the relative normal velocity's vA, wA, vB, wB go through rows
	storeV8(&state[0], gather(b.Position, &ia, true))
	storeV8(&state[1], gather(b.Position, &ib, true))
	vA, wA, vB, wB := gatherPair(b, &ia, &ib, true)
	storeV8(&state[2], vA)
	storeV8(&state[3], vB)
	var spin [2]lanes3
	storeV8(&spin[0], wA)
	storeV8(&spin[1], wB)
	count := l8(&hr.count)
	var zero f8
	one, halfS := bc(1), bc(0.5)
	for j := range bt.maxCount {
		wp := point8(&bt.pts[j], h)
		q := (*[wideLanes]*collide.Point)(at[j][h*wideLanes:])
		px, py, pz, sep := transpose4(ld4p(q[0]), ld4p(q[1]), ld4p(q[2]), ld4p(q[3]),
			ld4p(q[4]), ld4p(q[5]), ld4p(q[6]), ld4p(q[7]))
		pos := v8{px, py, pz}
		n := lv8(&hr.n)
		hn := n.scale(halfS.Mul(sep))
		ra := pos.sub(hn).sub(ldv8(&state[0]))
		rb := pos.add(hn).sub(ldv8(&state[1]))
		masked := nl < wideLanes || bt.ragged&(1<<j) != 0
		has := count.Greater(ld(&laneCounts[j]))
		// (put1 and put as closures zeroed their context with legacy MOVUPS: see laneCounts)
		put1 := func(d *blanes, v f8) { putHalf(d, v, masked, has) }
		put := func(d *blanes3, v v8) {
			putHalf(&d[0], v.x, masked, has)
			putHalf(&d[1], v.y, masked, has)
			putHalf(&d[2], v.z, masked, has)
		}
		mA, mB := l8(&hr.mA), l8(&hr.mB)
		// effMass with unsplit masses: 1 / ((mA + a.ia) + (mB + b.ib)), 0 where that is not positive
		eff := func(a, b, ia, ib v8) f8 {
			k := mA.Add(a.dot(ia)).Add(mB.Add(b.dot(ib)))
			return one.Div(k).Merge(zero, k.Greater(zero))
		}
		nA, nB := ra.cross(n), rb.cross(n)
		inA, inB := mulAt(&iA, nA), mulAt(&iB, nB)
		put(&wp.nA, nA)
		put(&wp.nB, nB)
		put(&wp.inA, inA)
		put(&wp.inB, inB)
		nm := eff(nA, nB, inA, inB)
		gamma := lh(comp, h).Div(nm)
		soft := one.Div(one.Div(nm).Add(gamma))
		pos0 := nm.Greater(zero)
		put1(&wp.normalMass, nm)
		put1(&wp.softMass, soft.Merge(zero, pos0))
		put1(&wp.leak, gamma.Mul(soft).Merge(zero, pos0))
		// the friction rows, along t1 and t2
		friction := func(t v8, a, b, ia, ib *blanes3, m *blanes) {
			tA, tB := ra.cross(t), rb.cross(t)
			itA, itB := mulAt(&iA, tA), mulAt(&iB, tB)
			put(a, tA)
			put(b, tB)
			put(ia, itA)
			put(ib, itB)
			put1(m, eff(tA, tB, itA, itB))
		}
		friction(lv8(&hr.t1), &wp.t1A, &wp.t1B, &wp.it1A, &wp.it1B, &wp.tm1)
		friction(lv8(&hr.t2), &wp.t2A, &wp.t2B, &wp.it2A, &wp.it2B, &wp.tm2)
		zero.Store(p8(&wp.maxNormal))
		zero.Store(p8(&wp.sep)) // refreshed before the first pass
		la, lb := mulAtT(&rA, ra), mulAtT(&rB, rb)
		put(&wp.localA, la)
		put(&wp.localB, lb)
		keep := bitMask(uint8(kept[j] >> (8 * h)))
		aa, ab := lv8(&wp.anchorA).keep(la, keep), lv8(&wp.anchorB).keep(lb, keep)
		put(&wp.anchorA, aa)
		put(&wp.anchorB, ab)
		dv := ldv8(&state[3]).add(ldv8(&spin[1]).cross(rb)).sub(ldv8(&state[2])).sub(ldv8(&spin[0]).cross(ra))
		rel := dv.dot(n)
		for c, v := range [...]v8{la, lb, aa, ab} {
			v.x.Store(&back[3*c])
			v.y.Store(&back[3*c+1])
			v.z.Store(&back[3*c+2])
		}
		rel.Store(&back[12])
		archsimd.ClearAVXUpperBits()
		for l := range nl {
			if int(bt.count[h*wideLanes+l]) <= j {
				continue
			}
			cp := src[j][h*wideLanes+l]
			cp.localA = vec{X: back[0][l], Y: back[1][l], Z: back[2][l]}
			cp.localB = vec{X: back[3][l], Y: back[4][l], Z: back[5][l]}
			cp.anchorA = vec{X: back[6][l], Y: back[7][l], Z: back[8][l]}
			cp.anchorB = vec{X: back[9][l], Y: back[10][l], Z: back[11][l]}
			cp.relVel = back[12][l]
		}
	}
}

// putHalf stores v into a half view's row d (p8), zeros in the lanes not in has where masked.
func putHalf(d *blanes, v f8, masked bool, has archsimd.Mask32x8) {
	if masked {
		var zero f8
		v = v.Merge(zero, has)
	}
	v.Store(p8(d))
}

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
