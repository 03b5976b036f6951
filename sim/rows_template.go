//go:build ignore

// The one source of the wide row kernels: lanegen (sim/internal/lanegen; go generate ./sim, make
// generate) writes it out twice, as rows8_simd.go (eight lanes, AVX2) and rows16_simd.go (sixteen,
// AVX-512), with every identifier ending in _W renamed for the width (f_W is f8 or f16, solve_W is
// solve8 or solve16). This file itself is not compiled (its build constraint says ignore): edit it and
// run make generate. See lanes.go.
//
// What a width does its own way, the template calls through helpers written once per width, with
// the same signatures (wide_simd.go, wide_prepare_simd.go, joint_wide_simd.go for eight lanes;
// wide16_simd.go for sixteen). h is the half of a batch an eight-lane form runs on (0 or 1); the
// sixteen-lane forms run on a whole batch, h 0, and ignore it.
//
//   - row_W, lanes_W: a local array's row ([8] or [16]float32) and the lane count.
//   - rows_W, point_W: a batch's rows and a point's, as the form reads them (a view of half h, shifted
//     by 8h floats, or the batch itself); l_W and lv_W load a float row and a vector row of such a
//     view, p_W is the address to store a row into.
//   - lh_W, lhv_W, half_W, mulAtH_W: the same for a row that is not read through a view (a joint
//     batch's): load, store address and matrix product at half h.
//   - idx_W, used_W: half h's indices and used lanes; lc_W(i): float32(i) in every lane.
//   - setSliding_W: records the friction rows' sliding lanes in the point.
//   - gatherVel_W, storeVel_W, gatherPoses_W, gatherBodies_W, points_W, keptMask_W, gatherJoint_W,
//     scatterJoint_W: the gathers and scatters of the bodies' and the narrow phase's values.

package sim

import (
	"simd/archsimd"

	"tumble/sim/collide"
)

// f_W is one float32 per lane; mask_W one bit per lane.
type (
	f_W    = archsimd.Float32x_W
	mask_W = archsimd.Mask32x_W
)

// v_W is a vector per lane, component-major.
type v_W struct{ x, y, z f_W }

// dot is a.X*b.X + a.Y*b.Y + a.Z*b.Z, in vecmath.V.Dot's order.
func (a v_W) dot(b v_W) f_W { return a.x.Mul(b.x).Add(a.y.Mul(b.y)).Add(a.z.Mul(b.z)) }

func (a v_W) add(b v_W) v_W { return v_W{a.x.Add(b.x), a.y.Add(b.y), a.z.Add(b.z)} }

func (a v_W) sub(b v_W) v_W { return v_W{a.x.Sub(b.x), a.y.Sub(b.y), a.z.Sub(b.z)} }

// subS is a.Sub(b.Scale(s)); addS is a.Add(b.Scale(s)).
func (a v_W) subS(b v_W, s f_W) v_W {
	return v_W{a.x.Sub(b.x.Mul(s)), a.y.Sub(b.y.Mul(s)), a.z.Sub(b.z.Mul(s))}
}

func (a v_W) addS(b v_W, s f_W) v_W {
	return v_W{a.x.Add(b.x.Mul(s)), a.y.Add(b.y.Mul(s)), a.z.Add(b.z.Mul(s))}
}

// scale is a.Scale(s) per lane.
func (a v_W) scale(s f_W) v_W { return v_W{a.x.Mul(s), a.y.Mul(s), a.z.Mul(s)} }

// cross is vecmath.V.Cross per lane, in its order of operations.
func (a v_W) cross(b v_W) v_W {
	return v_W{a.y.Mul(b.z).Sub(a.z.Mul(b.y)), a.z.Mul(b.x).Sub(a.x.Mul(b.z)), a.x.Mul(b.y).Sub(a.y.Mul(b.x))}
}

// keep is a where m is set and old elsewhere.
func (a v_W) keep(old v_W, m mask_W) v_W {
	return v_W{a.x.Merge(old.x, m), a.y.Merge(old.y, m), a.z.Merge(old.z, m)}
}

// neg_W flips the sign bit (exactly the scalar unary minus, also for zeros).
func neg_W(x f_W) f_W {
	return x.AsUint32x_W().Xor(archsimd.BroadcastUint32x_W(0x80000000)).AsFloat32x_W()
}

// bc_W is x in every lane.
func bc_W(x float32) f_W { return archsimd.BroadcastFloat32x_W(x) }

// ld_W loads a row of row_W floats (a local array's, not a batch's: see l_W).
func ld_W(a *row_W) f_W { return archsimd.LoadFloat32x_W(a) }

// ldv_W loads a vector from three rows; stv_W stores one into them.
func ldv_W(a *[3]row_W) v_W { return v_W{ld_W(&a[0]), ld_W(&a[1]), ld_W(&a[2])} }

func stv_W(d *[3]row_W, v v_W) {
	v.x.Store(&d[0])
	v.y.Store(&d[1])
	v.z.Store(&d[2])
}

// solve_W is solveManifold over the manifolds in a batch's lanes (half h of them, lanes 8h to 8h+7,
// in the eight-lane form; all of them, h 0, in the sixteen-lane form), lane by lane in
// solveManifold's order of operations (see wide.go).
func solve_W(w *World, bt *wideBatch, h int, useBias bool) {
	// The linear velocities wait in memory: kept in registers through the loop they were spilled and
	// reloaded at every row. Declared before the vectors (see laneCounts).
	var lin [2][3]row_W
	hr := rows_W(bt, h)
	vA, wA, vB, wB := gatherVel_W(w, bt, h)
	// The normal rows: along n the linear velocities enter each row only through dvn = n.(vB - vA),
	// which a row's impulse moves by imp (mA + mB) (n is a unit vector); the linear velocities take
	// the rows' summed impulse at the end. So only dvn, the sum and the angular velocities are carried
	// from row to row, which leaves AVX2's sixteen registers enough for the row's own values.
	mA, mB := l_W(&hr.mA), l_W(&hr.mB)
	mAB := mA.Add(mB)
	count := l_W(&hr.count)
	nv := lv_W(&hr.n)
	dvn := nv.dot(vB.sub(vA))
	stv_W(&lin[0], vA)
	stv_W(&lin[1], vB)
	var zero f_W
	sum := zero
	minPush, invH := neg_W(bc_W(w.pipe.plan.ctx.maxPush)), bc_W(w.pipe.plan.ctx.invH)
	for i := range bt.maxCount {
		cp := point_W(&bt.pts[i], h)
		vn := dvn.Add(lv_W(&cp.nB).dot(wB)).Sub(lv_W(&cp.nA).dot(wA))
		sep, nm, ni := l_W(&cp.sep), l_W(&cp.normalMass), l_W(&cp.normalImpulse)
		var imp f_W
		if useBias {
			imp = neg_W(l_W(&cp.softMass)).Mul(vn.Add(l_W(&hr.biasRate).Mul(sep).Max(minPush))).Sub(l_W(&cp.leak).Mul(ni))
		} else {
			imp = neg_W(nm).Mul(vn)
		}
		imp = neg_W(nm).Mul(vn.Add(sep.Mul(invH))).Merge(imp, sep.Greater(zero))
		acc := ni.Add(imp)
		acc = acc.Merge(zero, acc.Greater(zero))
		imp = acc.Sub(ni)
		acc.Store(p_W(&cp.normalImpulse))
		mx := l_W(&cp.maxNormal)
		imp.Merge(mx, imp.Greater(mx)).Store(p_W(&cp.maxNormal))
		nwA, nwB := wA.subS(lv_W(&cp.inA), imp), wB.addS(lv_W(&cp.inB), imp)
		ndvn, nsum := dvn.Add(imp.Mul(mAB)), sum.Add(imp)
		if bt.ragged&(1<<i) != 0 {
			has := count.Greater(lc_W(i))
			nwA, nwB, ndvn, nsum = nwA.keep(wA, has), nwB.keep(wB, has), ndvn.Merge(dvn, has), nsum.Merge(sum, has)
		}
		wA, wB, dvn, sum = nwA, nwB, ndvn, nsum
	}
	vA, vB = ldv_W(&lin[0]), ldv_W(&lin[1])
	vA, vB = vA.subS(nv, sum.Mul(mA)), vB.addS(nv, sum.Mul(mB))
	if !w.settings.NoFriction {
		// The friction rows likewise carry d1 = t1.(vB - vA) and d2 = t2.(vB - vA) (t1, t2 and n
		// orthonormal: an impulse along t1 leaves d2 alone), with the drift's bias folded in.
		t1, t2 := lv_W(&hr.t1), lv_W(&hr.t2)
		dv := vB.sub(vA)
		d1, d2 := t1.dot(dv), t2.dot(dv)
		if useBias {
			drift, biasRate := lv_W(&hr.drift), l_W(&hr.biasRate)
			d1, d2 = d1.Add(drift.dot(t1).Mul(biasRate)), d2.Add(drift.dot(t2).Mul(biasRate))
		}
		sum1, sum2 := zero, zero
		for i := range bt.maxCount {
			cp := point_W(&bt.pts[i], h)
			vt1 := d1.Add(lv_W(&cp.t1B).dot(wB)).Sub(lv_W(&cp.t1A).dot(wA))
			vt2 := d2.Add(lv_W(&cp.t2B).dot(wB)).Sub(lv_W(&cp.t2A).dot(wA))
			old1, old2 := l_W(&cp.ti1), l_W(&cp.ti2)
			var l1, l2 f_W
			if useBias {
				ms, leak := l_W(&hr.massScale), l_W(&hr.leak)
				l1 = old1.Sub(l_W(&cp.tm1).Mul(ms).Mul(vt1)).Sub(leak.Mul(old1))
				l2 = old2.Sub(l_W(&cp.tm2).Mul(ms).Mul(vt2)).Sub(leak.Mul(old2))
			} else {
				l1 = old1.Sub(l_W(&cp.tm1).Mul(vt1))
				l2 = old2.Sub(l_W(&cp.tm2).Mul(vt2))
			}
			maxF := l_W(&hr.mu).Mul(l_W(&cp.normalImpulse))
			mag2 := l1.Mul(l1).Add(l2.Mul(l2))
			slide := mag2.Greater(maxF.Mul(maxF))
			if setSliding_W(&bt.pts[i], h, slide) { // no lane slides: the Coulomb scale changes nothing
				s := maxF.Div(mag2.Sqrt())
				l1 = l1.Mul(s).Merge(l1, slide)
				l2 = l2.Mul(s).Merge(l2, slide)
			}
			e1, e2 := l1.Sub(old1), l2.Sub(old2)
			l1.Store(p_W(&cp.ti1))
			l2.Store(p_W(&cp.ti2))
			nwA := wA.subS(lv_W(&cp.it1A), e1).subS(lv_W(&cp.it2A), e2)
			nwB := wB.addS(lv_W(&cp.it1B), e1).addS(lv_W(&cp.it2B), e2)
			nd1, nd2 := d1.Add(e1.Mul(mAB)), d2.Add(e2.Mul(mAB))
			ns1, ns2 := sum1.Add(e1), sum2.Add(e2)
			if bt.ragged&(1<<i) != 0 {
				has := count.Greater(lc_W(i))
				nwA, nwB = nwA.keep(wA, has), nwB.keep(wB, has)
				nd1, nd2, ns1, ns2 = nd1.Merge(d1, has), nd2.Merge(d2, has), ns1.Merge(sum1, has), ns2.Merge(sum2, has)
			}
			wA, wB, d1, d2, sum1, sum2 = nwA, nwB, nd1, nd2, ns1, ns2
		}
		vA = vA.subS(t1, sum1.Mul(mA)).subS(t2, sum2.Mul(mA))
		vB = vB.addS(t1, sum1.Mul(mB)).addS(t2, sum2.Mul(mB))
	}
	storeVel_W(w, bt, h, vA, wA, vB, wB)
	if bt.resists != 0 && !w.settings.NoFriction {
		// The lanes' resistance rows, scalar, after their friction rows (as solveManifold's).
		archsimd.ClearAVXUpperBits()
		w.resistLanes(bt, h*lanes_W, h*lanes_W+used_W(bt, h))
	}
}

// mulAt_W is m v of the column-major matrices in m, each element loaded where it is used (so that
// the matrix does not hold nine registers), in mulMat's order of operations.
func mulAt_W(m *[9]row_W, v v_W) v_W {
	return v_W{
		ld_W(&m[0]).Mul(v.x).Add(ld_W(&m[3]).Mul(v.y)).Add(ld_W(&m[6]).Mul(v.z)),
		ld_W(&m[1]).Mul(v.x).Add(ld_W(&m[4]).Mul(v.y)).Add(ld_W(&m[7]).Mul(v.z)),
		ld_W(&m[2]).Mul(v.x).Add(ld_W(&m[5]).Mul(v.y)).Add(ld_W(&m[8]).Mul(v.z)),
	}
}

// mulAtT_W is mulAt_W with the transpose: m^T v, in mulMatT's order.
func mulAtT_W(m *[9]row_W, v v_W) v_W {
	return v_W{
		ld_W(&m[0]).Mul(v.x).Add(ld_W(&m[1]).Mul(v.y)).Add(ld_W(&m[2]).Mul(v.z)),
		ld_W(&m[3]).Mul(v.x).Add(ld_W(&m[4]).Mul(v.y)).Add(ld_W(&m[5]).Mul(v.z)),
		ld_W(&m[6]).Mul(v.x).Add(ld_W(&m[7]).Mul(v.y)).Add(ld_W(&m[8]).Mul(v.z)),
	}
}

// warm_W is warmStartManifold over a batch's lanes (half h of them in the eight-lane form): each
// manifold's accumulated impulses summed, in warmStartManifold's order, into its impulseSum for
// gatherImpulses. A lane's missing points add zeros, which change no sum's bits (the sums start at
// +0).
func warm_W(w *World, bt *wideBatch, h int) {
	var g [3][3]row_W // lin, angA, angB; declared before the vectors (see laneCounts)
	hr := rows_W(bt, h)
	var lin, angA, angB v_W
	n, t1, t2 := lv_W(&hr.n), lv_W(&hr.t1), lv_W(&hr.t2)
	for i := range bt.maxCount {
		cp := point_W(&bt.pts[i], h)
		ln, l1, l2 := l_W(&cp.normalImpulse), l_W(&cp.ti1), l_W(&cp.ti2)
		lin = lin.addS(n, ln).addS(t1, l1).addS(t2, l2)
		angA = angA.addS(lv_W(&cp.nA), ln).addS(lv_W(&cp.t1A), l1).addS(lv_W(&cp.t2A), l2)
		angB = angB.addS(lv_W(&cp.nB), ln).addS(lv_W(&cp.t1B), l1).addS(lv_W(&cp.t2B), l2)
	}
	stv_W(&g[0], lin)
	stv_W(&g[1], angA)
	stv_W(&g[2], angB)
	archsimd.ClearAVXUpperBits()
	sums := w.pipe.narrow.sums
	k := idx_W(&bt.k, h)
	for l := range used_W(bt, h) {
		m := &sums[k[l]]
		m.lin = vec{X: g[0][0][l], Y: g[0][1][l], Z: g[0][2][l]}
		m.angA = vec{X: g[1][0][l], Y: g[1][1][l], Z: g[1][2][l]}
		m.angB = vec{X: g[2][0][l], Y: g[2][1][l], Z: g[2][2][l]}
		if bt.resists&(1<<(h*lanes_W+l)) != 0 {
			// The resistance rows' impulse, as warmStartManifold adds it after the points'.
			mm := &w.pipe.narrow.manifolds[k[l]]
			r := mm.resist.world(mm, mm.resist.impulse)
			m.angA, m.angB = m.angA.Add(r), m.angB.Add(r)
		}
	}
}

// refresh_W is refreshManifold over a batch's lanes (half h of them in the eight-lane form): each
// point's separation between its anchors and the mean drift of the friction anchors, from the
// bodies' current poses, in refreshManifold's order of operations. A lane's missing points add
// nothing to its drift.
func refresh_W(w *World, bt *wideBatch, h int) {
	var g poseRows[row_W] // declared (zeroed) before the vectors (see laneCounts)
	gatherPoses_W(w, bt, h, &g)
	hr := rows_W(bt, h)
	xA, xB := ldv_W((*[3]row_W)(g[0:3])), ldv_W((*[3]row_W)(g[3:6]))
	rA, rB := (*[9]row_W)(g[6:15]), (*[9]row_W)(g[15:24]) // loaded where used (mulAt_W)
	n := lv_W(&hr.n)
	count := l_W(&hr.count)
	var zero f_W
	var drift v_W
	for i := range bt.maxCount {
		cp := point_W(&bt.pts[i], h)
		sep := xB.add(mulAt_W(rB, lv_W(&cp.localB))).sub(xA).sub(mulAt_W(rA, lv_W(&cp.localA))).dot(n)
		sep.Store(p_W(&cp.sep))
		d := xB.add(mulAt_W(rB, lv_W(&cp.anchorB))).sub(xA).sub(mulAt_W(rA, lv_W(&cp.anchorA)))
		if bt.ragged&(1<<i) != 0 {
			has := count.Greater(lc_W(i))
			d = d.keep(v_W{zero, zero, zero}, has)
		}
		drift = drift.add(d)
	}
	inv := bc_W(1).Div(count)
	drift.x.Mul(inv).Store(p_W(&hr.drift[0]))
	drift.y.Mul(inv).Store(p_W(&hr.drift[1]))
	drift.z.Mul(inv).Store(p_W(&hr.drift[2]))
	archsimd.ClearAVXUpperBits()
}

// putRow_W stores v into a batch's row d (through the view p_W), zeros in the lanes not in has where
// masked.
func putRow_W(d *blanes, v f_W, masked bool, has mask_W) {
	if masked {
		var zero f_W
		v = v.Merge(zero, has)
	}
	v.Store(p_W(d))
}

// prepare_W is prepareRows over a batch's lanes (half h of them in the eight-lane form) as packBatch
// fills it, writing the rows straight into the batch (see prepareWide): each lane's arithmetic is
// prepareRows' in its order, a missing point gets zero rows, and the points get back their anchors in
// the bodies' frames, their friction anchors and their relative normal velocity.
func prepare_W(w *World, bt *wideBatch, h int, src *[4][batchLanes]*contactPoint, at *[4][batchLanes]*collide.Point,
	kept *[4]uint16, comp *blanes) {
	// Declared (zeroed) before the first vector instruction (see laneCounts): the bodies' inverse
	// inertias and rotations, positions (xA, xB), velocities (vA, wA, vB, wB), and what goes back to
	// the points (localA, localB, anchorA, anchorB, relVel).
	var iA, iB, rA, rB [9]row_W
	var state [6][3]row_W
	var back [13]row_W
	hr := rows_W(bt, h)
	nl := used_W(bt, h)
	gatherBodies_W(w, bt, h, &iA, &iB, &rA, &rB, &state)
	count := l_W(&hr.count)
	var zero f_W
	one, halfS := bc_W(1), bc_W(0.5)
	for j := range bt.maxCount {
		wp := point_W(&bt.pts[j], h)
		pos, sep := points_W(&at[j], h)
		n := lv_W(&hr.n)
		hn := n.scale(halfS.Mul(sep))
		ra := pos.sub(hn).sub(ldv_W(&state[0]))
		rb := pos.add(hn).sub(ldv_W(&state[1]))
		masked := nl < lanes_W || bt.ragged&(1<<j) != 0
		has := count.Greater(lc_W(j))
		// (put1 and put as closures over the store zeroed their context with legacy MOVUPS: see
		// laneCounts)
		put1 := func(d *blanes, v f_W) { putRow_W(d, v, masked, has) }
		put := func(d *blanes3, v v_W) {
			putRow_W(&d[0], v.x, masked, has)
			putRow_W(&d[1], v.y, masked, has)
			putRow_W(&d[2], v.z, masked, has)
		}
		mA, mB := l_W(&hr.mA), l_W(&hr.mB)
		// effMass with unsplit masses: 1 / ((mA + a.ia) + (mB + b.ib)), 0 where that is not positive
		eff := func(a, b, ia, ib v_W) f_W {
			k := mA.Add(a.dot(ia)).Add(mB.Add(b.dot(ib)))
			return one.Div(k).Merge(zero, k.Greater(zero))
		}
		nA, nB := ra.cross(n), rb.cross(n)
		inA, inB := mulAt_W(&iA, nA), mulAt_W(&iB, nB)
		put(&wp.nA, nA)
		put(&wp.nB, nB)
		put(&wp.inA, inA)
		put(&wp.inB, inB)
		nm := eff(nA, nB, inA, inB)
		gamma := lh_W(comp, h).Div(nm)
		soft := one.Div(one.Div(nm).Add(gamma))
		pos0 := nm.Greater(zero)
		put1(&wp.normalMass, nm)
		put1(&wp.softMass, soft.Merge(zero, pos0))
		put1(&wp.leak, gamma.Mul(soft).Merge(zero, pos0))
		// the friction rows, along t1 and t2
		friction := func(t v_W, a, b, ia, ib *blanes3, m *blanes) {
			tA, tB := ra.cross(t), rb.cross(t)
			itA, itB := mulAt_W(&iA, tA), mulAt_W(&iB, tB)
			put(a, tA)
			put(b, tB)
			put(ia, itA)
			put(ib, itB)
			put1(m, eff(tA, tB, itA, itB))
		}
		friction(lv_W(&hr.t1), &wp.t1A, &wp.t1B, &wp.it1A, &wp.it1B, &wp.tm1)
		friction(lv_W(&hr.t2), &wp.t2A, &wp.t2B, &wp.it2A, &wp.it2B, &wp.tm2)
		zero.Store(p_W(&wp.maxNormal))
		zero.Store(p_W(&wp.sep)) // refreshed before the first pass
		la, lb := mulAtT_W(&rA, ra), mulAtT_W(&rB, rb)
		put(&wp.localA, la)
		put(&wp.localB, lb)
		keep := keptMask_W(kept[j], h)
		aa, ab := lv_W(&wp.anchorA).keep(la, keep), lv_W(&wp.anchorB).keep(lb, keep)
		put(&wp.anchorA, aa)
		put(&wp.anchorB, ab)
		dv := ldv_W(&state[4]).add(ldv_W(&state[5]).cross(rb)).sub(ldv_W(&state[2])).sub(ldv_W(&state[3]).cross(ra))
		rel := dv.dot(n)
		stv_W((*[3]row_W)(back[0:3]), la)
		stv_W((*[3]row_W)(back[3:6]), lb)
		stv_W((*[3]row_W)(back[6:9]), aa)
		stv_W((*[3]row_W)(back[9:12]), ab)
		rel.Store(&back[12])
		archsimd.ClearAVXUpperBits()
		o := h * wideLanes
		for l := range nl {
			if int(bt.count[o+l]) <= j {
				continue
			}
			cp := src[j][o+l]
			cp.localA = vec{X: back[0][l], Y: back[1][l], Z: back[2][l]}
			cp.localB = vec{X: back[3][l], Y: back[4][l], Z: back[5][l]}
			cp.anchorA = vec{X: back[6][l], Y: back[7][l], Z: back[8][l]}
			cp.anchorB = vec{X: back[9][l], Y: back[10][l], Z: back[11][l]}
			cp.relVel = back[12][l]
			w.pipe.noteApproach(cp.relVel)
		}
	}
}

// jointConsts_W are the joint softness's factors, broadcast.
type jointConsts_W struct {
	invH, biasRate, massScale, impulseScale, zero, one f_W
}

// set broadcasts p's factors into k, field by field: a jointConsts_W returned by value is copied with
// legacy MOVUPS (see laneCounts).
func (k *jointConsts_W) set(p *pipeline) {
	s := &p.joints.jointSoft
	var zero f_W
	k.invH, k.biasRate, k.massScale, k.impulseScale, k.zero, k.one = bc_W(p.plan.ctx.invH), bc_W(s.biasRate), bc_W(s.massScale),
		bc_W(s.impulseScale), zero, bc_W(1)
}

// limit_W is limitRow over a joint batch's lanes (half h of them in the eight-lane form):
// axisPart.limitImpulse at the row velocity, then the angular velocities moved by the impulse change
// where it is not zero.
func limit_W(h int, r *wideAngle, wA, wB v_W, k *jointConsts_W, useBias bool) (v_W, v_W) {
	v := lhv_W(&r.rb, h).dot(wB).Sub(lhv_W(&r.ra, h).dot(wA))
	acc, imp := limitImpulse_W(v, lh_W(&r.c, h), lh_W(&r.mass, h), lh_W(&r.impulse, h), k, useBias)
	acc.Store(half_W(&r.impulse, h))
	moves := imp.NotEqual(k.zero)
	return wA.subS(lhv_W(&r.ia, h), imp).keep(wA, moves), wB.addS(lhv_W(&r.ib, h), imp).keep(wB, moves)
}

// limitImpulse_W is axisPart.limitImpulse over a batch's lanes: the accumulated impulse acc of the
// one-sided row of error c and mass at row velocity v that had accumulated old, and the change imp.
func limitImpulse_W(v, c, mass, old f_W, k *jointConsts_W, useBias bool) (acc, imp f_W) {
	bias, ms, is := k.zero, k.one, k.zero
	if useBias {
		bias, ms, is = c.Mul(k.biasRate), k.massScale, k.impulseScale
	}
	open := c.Greater(k.zero) // a speculative limit: it may close this sub-step, no more
	bias = c.Mul(k.invH).Merge(bias, open)
	ms = k.one.Merge(ms, open)
	is = k.zero.Merge(is, open)
	imp = neg_W(mass).Mul(ms).Mul(v.Add(bias)).Sub(is.Mul(old))
	acc = old.Add(imp)
	acc = acc.Merge(k.zero, acc.Greater(k.zero)) // max(acc, 0)
	return acc, acc.Sub(old)
}

// linVel_W is jointPair.rowVel for a linear row (d, ra, rb) over a joint batch's lanes, the linear
// velocities read from lin: d.(vB - vA) + rb.wB - ra.wA.
func linVel_W(d, ra, rb v_W, lin *[2][3]row_W, wA, wB v_W) f_W {
	return d.dot(ldv_W(&lin[1]).sub(ldv_W(&lin[0]))).Add(rb.dot(wB)).Sub(ra.dot(wA))
}

// applyLin_W is jointPair.applyRow of impulse imp along a linear row (d, with ia and ib the inverse
// inertias times ra and rb) over a joint batch's lanes, in the lanes where imp is not zero and
// where has is set; the linear velocities are lin's.
func applyLin_W(h int, bt *wideJointBatch, d, ia, ib v_W, imp f_W, has mask_W, lin *[2][3]row_W, wA, wB v_W, zero f_W) (v_W, v_W) {
	moves := imp.NotEqual(zero).And(has)
	vA, vB := ldv_W(&lin[0]), ldv_W(&lin[1])
	stv_W(&lin[0], vA.subS(d, imp.Mul(lh_W(&bt.mA, h))).keep(vA, moves))
	stv_W(&lin[1], vB.addS(d, imp.Mul(lh_W(&bt.mB, h))).keep(vB, moves))
	return wA.subS(ia, imp).keep(wA, moves), wB.addS(ib, imp).keep(wB, moves)
}

// pistonTravel_W is anglePart.solve over a batch of pistons (half h of it in the eight-lane form):
// the drive (axisPart.solveMotor at the lane's target rate, bounded by its maxForce h) where the
// lane has one and the pass is not the pseudo-velocity one, then the lower and upper limits where
// it has them. The rows are the travel row's, the upper one reversed (its vectors negated: a
// product or sum of negated floats is the negated one, as anglePart.set does).
func pistonTravel_W(h int, bt *wideJointBatch, pr *widePiston, lin *[2][3]row_W, wA, wB v_W, k *jointConsts_W, useBias, pseudo bool) (v_W, v_W) {
	r := &pr.travel
	if bt.drive && !pseudo {
		d, ra, rb := lhv_W(&r.d, h), lhv_W(&r.ra, h), lhv_W(&r.rb, h)
		v := linVel_W(d, ra, rb, lin, wA, wB)
		maxImpulse := lh_W(&pr.maxForce, h).Div(k.invH)
		lo := neg_W(maxImpulse)
		old := lh_W(&pr.driveImp, h)
		has := lh_W(&pr.driven, h).Greater(k.zero)
		acc := old.Add(lh_W(&r.mass, h).Mul(lh_W(&pr.speed, h).Sub(v)))
		acc = acc.Merge(lo, acc.Greater(lo))              // max(acc, -maxImpulse)
		acc = acc.Merge(maxImpulse, acc.Less(maxImpulse)) // min(acc, maxImpulse)
		acc = acc.Merge(old, has)
		acc.Store(half_W(&pr.driveImp, h))
		wA, wB = applyLin_W(h, bt, d, lhv_W(&r.ia, h), lhv_W(&r.ib, h), acc.Sub(old), has, lin, wA, wB, k.zero)
	}
	if bt.limits {
		has := lh_W(&pr.limits, h).Greater(k.zero)
		d, ra, rb := lhv_W(&r.d, h), lhv_W(&r.ra, h), lhv_W(&r.rb, h)
		mass := lh_W(&r.mass, h)
		// a lane without limits keeps its impulses (zero) and its velocities
		old := lh_W(&r.impulse, h)
		acc, imp := limitImpulse_W(linVel_W(d, ra, rb, lin, wA, wB), lh_W(&r.c, h), mass, old, k, useBias)
		acc.Merge(old, has).Store(half_W(&r.impulse, h))
		wA, wB = applyLin_W(h, bt, d, lhv_W(&r.ia, h), lhv_W(&r.ib, h), imp, has, lin, wA, wB, k.zero)
		minus := bc_W(-1)
		nd, nra, nrb := d.scale(minus), ra.scale(minus), rb.scale(minus)
		old = lh_W(&pr.upperImp, h)
		acc, imp = limitImpulse_W(linVel_W(nd, nra, nrb, lin, wA, wB), lh_W(&pr.upperC, h), mass, old, k, useBias)
		acc.Merge(old, has).Store(half_W(&pr.upperImp, h))
		wA, wB = applyLin_W(h, bt, nd, lhv_W(&r.ia, h).scale(minus), lhv_W(&r.ib, h).scale(minus), imp, has, lin, wA, wB, k.zero)
	}
	return wA, wB
}

// equality_W is axisPart.solveEquality over a batch's linear rows r (half h of them in the
// eight-lane form).
func equality_W(h int, bt *wideJointBatch, r *wideAxis, lin *[2][3]row_W, wA, wB v_W, k *jointConsts_W, useBias bool) (v_W, v_W) {
	v := linVel_W(lhv_W(&r.d, h), lhv_W(&r.ra, h), lhv_W(&r.rb, h), lin, wA, wB)
	mass, old := lh_W(&r.mass, h), lh_W(&r.impulse, h)
	var imp f_W
	if useBias {
		imp = neg_W(mass).Mul(k.massScale).Mul(v.Add(k.biasRate.Mul(lh_W(&r.c, h)))).Sub(k.impulseScale.Mul(old))
	} else {
		imp = neg_W(mass).Mul(v)
	}
	old.Add(imp).Store(half_W(&r.impulse, h))
	all := k.zero.Equal(k.zero)
	return applyLin_W(h, bt, lhv_W(&r.d, h), lhv_W(&r.ia, h), lhv_W(&r.ib, h), imp, all, lin, wA, wB, k.zero)
}

// piston_W is solveJointParts over a batch of pistons (half h of it in the eight-lane form): the
// travel's drive and limits (pistonTravel_W), the rotation block (rotationPart.solve), then the two
// off-axis rows.
func piston_W(w *World, bt *wideJointBatch, h int, mode PassMode) {
	useBias := mode.bias()
	var k jointConsts_W // both zeroed before the first vector instruction
	var lin [2][3]row_W
	k.set(&w.pipe)
	pr := &w.pipe.jwide.pist[bt.pi]
	wA, wB := gatherJoint_W(w, bt, h, &lin)
	if bt.drive || bt.limits {
		wA, wB = pistonTravel_W(h, bt, pr, &lin, wA, wB, &k, useBias, mode.pseudo())
	}
	cdot := wB.sub(wA)
	old := lhv_W(&pr.rotImp, h)
	var imp v_W
	if useBias {
		imp = mulAtH_W(h, &pr.rotMass, cdot.add(lhv_W(&pr.rotC, h).scale(k.biasRate))).scale(neg_W(k.massScale)).sub(old.scale(k.impulseScale))
	} else {
		imp = mulAtH_W(h, &pr.rotMass, cdot).scale(neg_W(k.one))
	}
	acc := old.add(imp)
	acc.x.Store(half_W(&pr.rotImp[0], h))
	acc.y.Store(half_W(&pr.rotImp[1], h))
	acc.z.Store(half_W(&pr.rotImp[2], h))
	wA, wB = wA.sub(mulAtH_W(h, &bt.iA, imp)), wB.add(mulAtH_W(h, &bt.iB, imp))
	wA, wB = equality_W(h, bt, &pr.perp[0], &lin, wA, wB, &k, useBias)
	wA, wB = equality_W(h, bt, &pr.perp[1], &lin, wA, wB, &k, useBias)
	scatterJoint_W(w, bt, h, &lin, wA, wB)
}

// anchor_W is pointRow over a joint batch's anchor blocks (half h of them in the eight-lane form):
// pointPart.impulse3, then applyPoint. The linear velocities come and go through lin (vA, then vB):
// loaded where they are used, they hold no registers while the rows before the anchor run.
func anchor_W(h int, bt *wideJointBatch, lin *[2][3]row_W, wA, wB v_W, k *jointConsts_W, useBias bool) (v_W, v_W) {
	pt := &bt.point
	vA, vB := ldv_W(&lin[0]), ldv_W(&lin[1])
	cdot := vB.add(wB.cross(lhv_W(&pt.rB, h))).sub(vA).sub(wA.cross(lhv_W(&pt.rA, h)))
	old := lhv_W(&pt.impulse, h)
	var imp v_W
	if useBias {
		imp = mulAtH_W(h, &pt.mass, cdot.add(lhv_W(&pt.c, h).scale(k.biasRate))).scale(neg_W(k.massScale)).sub(old.scale(k.impulseScale))
	} else {
		imp = mulAtH_W(h, &pt.mass, cdot).scale(neg_W(k.one))
	}
	acc := old.add(imp)
	acc.x.Store(half_W(&pt.impulse[0], h))
	acc.y.Store(half_W(&pt.impulse[1], h))
	acc.z.Store(half_W(&pt.impulse[2], h))
	mA, mB := lh_W(&bt.mA, h), lh_W(&bt.mB, h)
	stv_W(&lin[0], ldv_W(&lin[0]).subS(imp, mA))
	stv_W(&lin[1], ldv_W(&lin[1]).addS(imp, mB))
	lA, lB := lhv_W(&pt.rA, h).cross(imp), lhv_W(&pt.rB, h).cross(imp)
	return wA.sub(mulAtH_W(h, &bt.iA, lA)), wB.add(mulAtH_W(h, &bt.iB, lB))
}

// ballFriction_W is frictionPart.solve over a batch of ball joints with friction (half h of it in
// the eight-lane form): the accumulated angular impulse less K^-1 (wB - wA), scaled back onto the
// sphere of radius friction h where it is longer, then applyAngular's velocity changes.
func ballFriction_W(h int, bt *wideJointBatch, wA, wB v_W, k *jointConsts_W) (v_W, v_W) {
	maxImpulse := lh_W(&bt.friction, h).Div(k.invH)
	old := lhv_W(&bt.fimp, h)
	acc := old.sub(mulAtH_W(h, &bt.fmass, wB.sub(wA)))
	l2 := acc.dot(acc)
	acc = acc.scale(maxImpulse.Div(l2.Sqrt())).keep(acc, l2.Greater(maxImpulse.Mul(maxImpulse)))
	imp := acc.sub(old)
	acc.x.Store(half_W(&bt.fimp[0], h))
	acc.y.Store(half_W(&bt.fimp[1], h))
	acc.z.Store(half_W(&bt.fimp[2], h))
	return wA.sub(mulAtH_W(h, &bt.iA, imp)), wB.add(mulAtH_W(h, &bt.iB, imp))
}

// hingeFriction_W is solveHinge's drive row over a batch of hinges with friction and no motor (half h
// of it in the eight-lane form): axisPart.solveMotor at speed 0 with the accumulated impulse within
// +-friction h. The row is the lower limit row's (rows[0]: the same vectors and mass); its impulse is
// rows[2]'s.
func hingeFriction_W(h int, bt *wideJointBatch, wA, wB v_W, k *jointConsts_W) (v_W, v_W) {
	r := &bt.rows[0]
	maxImpulse := lh_W(&bt.friction, h).Div(k.invH)
	lo := neg_W(maxImpulse)
	v := lhv_W(&r.rb, h).dot(wB).Sub(lhv_W(&r.ra, h).dot(wA))
	old := lh_W(&bt.rows[2].impulse, h)
	acc := old.Add(lh_W(&r.mass, h).Mul(k.zero.Sub(v)))
	acc = acc.Merge(lo, acc.Greater(lo))              // max(acc, -maxImpulse)
	acc = acc.Merge(maxImpulse, acc.Less(maxImpulse)) // min(acc, maxImpulse)
	imp := acc.Sub(old)
	acc.Store(half_W(&bt.rows[2].impulse, h))
	moves := imp.NotEqual(k.zero)
	return wA.subS(lhv_W(&r.ia, h), imp).keep(wA, moves), wB.addS(lhv_W(&r.ib, h), imp).keep(wB, moves)
}

// ball_W is solveBall over a batch of ball joints (half h of it in the eight-lane form): friction
// where the batch has it, swing, twist lower and upper (none in a batch of plain ball joints), then
// the anchor.
func ball_W(w *World, bt *wideJointBatch, h int, mode PassMode) {
	useBias := mode.bias()
	var k jointConsts_W // both zeroed before the first vector instruction
	var lin [2][3]row_W
	k.set(&w.pipe)
	wA, wB := gatherJoint_W(w, bt, h, &lin)
	if bt.fric && !mode.pseudo() { // friction acts on velocities, not poses
		wA, wB = ballFriction_W(h, bt, wA, wB, &k)
	}
	if !bt.plain {
		wA, wB = limit_W(h, &bt.rows[0], wA, wB, &k, useBias)
		wA, wB = limit_W(h, &bt.rows[1], wA, wB, &k, useBias)
		wA, wB = limit_W(h, &bt.rows[2], wA, wB, &k, useBias)
	}
	wA, wB = anchor_W(h, bt, &lin, wA, wB, &k, useBias)
	scatterJoint_W(w, bt, h, &lin, wA, wB)
}

// hinge_W is solveHinge over a batch of hinges with limits and no motor (half h of it in the
// eight-lane form): friction where the batch has it, the limits, the two rotation rows
// (hingeRotationPart.impulse2), then the anchor.
func hinge_W(w *World, bt *wideJointBatch, h int, mode PassMode) {
	useBias := mode.bias()
	var k jointConsts_W // both zeroed before the first vector instruction
	var lin [2][3]row_W
	k.set(&w.pipe)
	wA, wB := gatherJoint_W(w, bt, h, &lin)
	if bt.fric && !mode.pseudo() { // friction acts on velocities, not poses
		wA, wB = hingeFriction_W(h, bt, wA, wB, &k)
	}
	wA, wB = limit_W(h, &bt.rows[0], wA, wB, &k, useBias)
	wA, wB = limit_W(h, &bt.rows[1], wA, wB, &k, useBias)
	u1, u2 := lhv_W(&bt.u1, h), lhv_W(&bt.u2, h)
	dw := wB.sub(wA)
	c1, c2 := u1.dot(dw), u2.dot(dw)
	ms, is := k.one, k.zero
	if useBias {
		c1 = c1.Add(k.biasRate.Mul(lh_W(&bt.hc[0], h)))
		c2 = c2.Add(k.biasRate.Mul(lh_W(&bt.hc[1], h)))
		ms, is = k.massScale, k.impulseScale
	}
	m0, m1, m2 := lh_W(&bt.hmass[0], h), lh_W(&bt.hmass[1], h), lh_W(&bt.hmass[2], h)
	i0, i1 := lh_W(&bt.himp[0], h), lh_W(&bt.himp[1], h)
	l1 := neg_W(ms).Mul(m0.Mul(c1).Add(m1.Mul(c2))).Sub(is.Mul(i0))
	l2 := neg_W(ms).Mul(m1.Mul(c1).Add(m2.Mul(c2))).Sub(is.Mul(i1))
	i0.Add(l1).Store(half_W(&bt.himp[0], h))
	i1.Add(l2).Store(half_W(&bt.himp[1], h))
	L := u1.scale(l1).add(u2.scale(l2))
	wA, wB = wA.sub(mulAtH_W(h, &bt.iA, L)), wB.add(mulAtH_W(h, &bt.iB, L))
	wA, wB = anchor_W(h, bt, &lin, wA, wB, &k, useBias)
	scatterJoint_W(w, bt, h, &lin, wA, wB)
}
