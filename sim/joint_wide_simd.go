//go:build goexperiment.simd && amd64

package sim

import (
	"simd/archsimd"
)

func init() {
	if archsimd.X86.AVX2() {
		wideAnchorMassKernel = anchorMassWide
		wideJointRefreshKernel, wideBallWarmKernel, wideHingeWarmKernel = refreshJointsWide, ballWarmWide, hingeWarmWide
		widePistonRefreshKernel, widePistonWarmKernel = refreshPistonsWide, pistonWarmWide
	}
}

// halves runs kernel over a joint batch's halves in use: the first, and the second where it holds
// more than eight joints.
func halves(bt *wideJointBatch, kernel func(h int)) {
	kernel(0)
	if bt.lanes > wideLanes {
		kernel(1)
	}
}

// mulAtH is mulAt over half h of the matrices in m.
func mulAtH(h int, m *[9]blanes, v v8) v8 {
	return v8{
		lh(&m[0], h).Mul(v.x).Add(lh(&m[3], h).Mul(v.y)).Add(lh(&m[6], h).Mul(v.z)),
		lh(&m[1], h).Mul(v.x).Add(lh(&m[4], h).Mul(v.y)).Add(lh(&m[7], h).Mul(v.z)),
		lh(&m[2], h).Mul(v.x).Add(lh(&m[5], h).Mul(v.y)).Add(lh(&m[8], h).Mul(v.z)),
	}
}

// jointHalfLanes is the number of used lanes in half h of bt (0 to 8).
func jointHalfLanes(bt *wideJointBatch, h int) int {
	return min(max(bt.lanes-h*wideLanes, 0), wideLanes)
}

// storeV8h stores v into half h of d's rows.
func storeV8h(h int, d *blanes3, v v8) {
	v.x.Store(half(&d[0], h))
	v.y.Store(half(&d[1], h))
	v.z.Store(half(&d[2], h))
}

// gatherJoint8 is gatherPair for half h of a joint batch, with the linear velocities left in lin (see
// anchor8).
func gatherJoint8(w *World, bt *wideJointBatch, h int, lin *[2]lanes3) (wA, wB v8) {
	var vA, vB v8
	ia, ib := idx8(&bt.a, h), idx8(&bt.b, h)
	if st := w.pipe.wide.vel; w.pipe.wide.stateOn {
		vA, wA = gatherState(st, ia, wideLanes) // an empty lane repeats lane 0's bodies
		vB, wB = gatherState(st, ib, wideLanes)
	} else {
		vA, wA, vB, wB = gatherPair(&w.Bodies, ia, ib, !bt.safe)
	}
	stv8(&lin[0], vA)
	stv8(&lin[1], vB)
	return wA, wB
}

// scatterJoint8 is scatterPair for half h of a joint batch whose linear velocities are in lin.
func scatterJoint8(w *World, bt *wideJointBatch, h int, lin *[2]lanes3, wA, wB v8) {
	vA, vB := ldv8(&lin[0]), ldv8(&lin[1])
	storePair(w, idx8(&bt.a, h), idx8(&bt.b, h), jointHalfLanes(bt, h), half(&bt.mA, h), half(&bt.mB, h), vA, wA, vB, wB)
}

// anchorMassWide is pointPart.setMass over a batch: K's columns K e for the unit vectors e, then
// invertTo's inverse (zero where the determinant is zero, NaN or under Epsilon^2), in their order of
// operations.
func anchorMassWide(bt *wideJointBatch) { halves(bt, func(h int) { anchorMassHalf(h, bt) }) }

// anchorMassHalf is anchorMassWide over half h of a batch.
func anchorMassHalf(h int, bt *wideJointBatch) {
	pt := &bt.point
	rA, rB := lh3(&pt.rA, h), lh3(&pt.rB, h)
	m := lh(&bt.mA, h).Add(lh(&bt.mB, h))
	var zero f8
	one := bc(1)
	col := func(e v8) v8 {
		return e.scale(m).add(mulAtH(h, &bt.iA, rA.cross(e)).cross(rA)).add(mulAtH(h, &bt.iB, rB.cross(e)).cross(rB))
	}
	kx, ky, kz := col(v8{one, zero, zero}), col(v8{zero, one, zero}), col(v8{zero, zero, one})
	k := [9]f8{kx.x, kx.y, kx.z, ky.x, ky.y, ky.z, kz.x, kz.y, kz.z}
	det := k[0].Mul(k[4]).Mul(k[8]).Add(k[3].Mul(k[7]).Mul(k[2])).Add(k[6].Mul(k[1]).Mul(k[5])).
		Sub(k[6].Mul(k[4]).Mul(k[2])).Sub(k[3].Mul(k[1]).Mul(k[8])).Sub(k[0].Mul(k[7]).Mul(k[5]))
	// invertTo's zero matrix where det is 0, NaN or |det| < Epsilon^2: exactly where |det| >= Epsilon^2 fails
	abs := det.AsUint32x8().And(archsimd.BroadcastUint32x8(0x7fffffff)).AsFloat32x8()
	ok := abs.GreaterEqual(ld(&epsilon2))
	s := one.Div(det)
	inv := [9]f8{
		k[4].Mul(k[8]).Sub(k[5].Mul(k[7])).Mul(s), k[2].Mul(k[7]).Sub(k[1].Mul(k[8])).Mul(s), k[1].Mul(k[5]).Sub(k[2].Mul(k[4])).Mul(s),
		k[5].Mul(k[6]).Sub(k[3].Mul(k[8])).Mul(s), k[0].Mul(k[8]).Sub(k[2].Mul(k[6])).Mul(s), k[2].Mul(k[3]).Sub(k[0].Mul(k[5])).Mul(s),
		k[3].Mul(k[7]).Sub(k[4].Mul(k[6])).Mul(s), k[1].Mul(k[6]).Sub(k[0].Mul(k[7])).Mul(s), k[0].Mul(k[4]).Sub(k[1].Mul(k[3])).Mul(s),
	}
	for e := range 9 {
		inv[e].Merge(zero, ok).Store(half(&pt.mass[e], h))
	}
	archsimd.ClearAVXUpperBits()
}

// ballWide is solveBall over a batch of ball joints, eight lanes at a time (ball8).
func ballWide(w *World, bt *wideJointBatch, mode PassMode) {
	ball8(w, bt, 0, mode)
	if bt.lanes > wideLanes {
		ball8(w, bt, 1, mode)
	}
}

// hingeWide is solveHinge over a batch of hinges with limits and no motor, eight lanes at a time
// (hinge8).
func hingeWide(w *World, bt *wideJointBatch, mode PassMode) {
	hinge8(w, bt, 0, mode)
	if bt.lanes > wideLanes {
		hinge8(w, bt, 1, mode)
	}
}

// pistonWide is solveJoint over a batch of pistons, eight lanes at a time (piston8).
func pistonWide(w *World, bt *wideJointBatch, mode PassMode) {
	piston8(w, bt, 0, mode)
	if bt.lanes > wideLanes {
		piston8(w, bt, 1, mode)
	}
}

// angleRow is axisPart.set for an angular row (d zero) with ra = rb = a and position error c, into
// lane row r: its inertia products and mass.
func angleRow(h int, r *wideAngle, a v8, c f8, iA, iB *[9]blanes, m, zero, one f8) {
	ia, ib := mulAtH(h, iA, a), mulAtH(h, iB, a)
	k := m.Mul(zero.Mul(zero).Add(zero.Mul(zero)).Add(zero.Mul(zero))).Add(a.dot(ia)).Add(a.dot(ib))
	storeV8h(h, &r.ra, a)
	storeV8h(h, &r.rb, a)
	storeV8h(h, &r.ia, ia)
	storeV8h(h, &r.ib, ib)
	one.Div(k).Merge(zero, k.Greater(zero)).Store(half(&r.mass, h))
	c.Store(half(&r.c, h))
}

// limitRows is anglePart.set's limits over a batch: the lower row about axis a with error x - lo
// (angleRow), and the upper as its reverse, its vectors and inertia products the lower's negated, its
// mass the same and its error hi - x.
func limitRows(h int, bt *wideJointBatch, lo, up *wideAngle, a v8, x, m, zero, one, minus f8) {
	angleRow(h, lo, a, x.Sub(lh(&bt.lo, h)), &bt.iA, &bt.iB, m, zero, one)
	na := a.scale(minus)
	storeV8h(h, &up.ra, na)
	storeV8h(h, &up.rb, na)
	storeV8h(h, &up.ia, lh3(&lo.ia, h).scale(minus))
	storeV8h(h, &up.ib, lh3(&lo.ib, h).scale(minus))
	lh(&lo.mass, h).Store(half(&up.mass, h))
	lh(&bt.hi, h).Sub(x).Store(half(&up.c, h))
}

// refreshJointsWide is refreshJoint over a batch, into the lanes, in its order of operations: the
// anchors and their gap, then a ball joint's swing and twist rows (swingTwistRows) or a hinge's
// rotation and limit rows and angle (hingeRows); a plain ball joint has the anchors alone. The
// anchor blocks' K^-1 is anchorMassWide's.
func refreshJointsWide(w *World, bt *wideJointBatch) {
	halves(bt, func(h int) { refreshJointsHalf(h, w, bt) })
}

// refreshJointsHalf is refreshJointsWide over half h of a batch.
func refreshJointsHalf(h int, w *World, bt *wideJointBatch) {
	b := &w.Bodies
	var RA, RB [9]lanes
	ia, ib := idx8(&bt.a, h), idx8(&bt.b, h)
	gatherMatTo(&RA, b.rot, ia, !bt.safe)
	gatherMatTo(&RB, b.rot, ib, !bt.safe)
	xA, xB := gather(b.Position, ia, !bt.safe), gather(b.Position, ib, !bt.safe)
	rA, rB := mulAt(&RA, lh3(&bt.localA, h)), mulAt(&RB, lh3(&bt.localB, h))
	pt := &bt.point
	storeV8h(h, &pt.rA, rA)
	storeV8h(h, &pt.rB, rB)
	storeV8h(h, &pt.c, xB.add(rB).sub(xA).sub(rA))
	switch {
	case bt.hinge:
		hingeRows(h, w, bt, &RA, &RB)
	case !bt.plain:
		swingTwistRows(h, w, bt, &RA, &RB)
	}
}

// hingeRows is refreshJoint's hinge part over a batch: hingeRotationPart.set's two rows and their
// 2x2 K^-1, the angle (hingeAngle) and the limit rows (anglePart.set), into the lanes; each joint gets
// its angle.
func hingeRows(h int, w *World, bt *wideJointBatch, RA, RB *[9]lanes) {
	var zero f8
	one, minus := bc(1), bc(-1)
	a1 := mulAt(RA, lh3(&bt.axisA, h))
	b2, c2 := mulAt(RB, lh3(&bt.perpB, h)), mulAt(RB, lh3(&bt.crossB, h))
	u1, u2 := b2.cross(a1), c2.cross(a1)
	storeV8h(h, &bt.u1, u1)
	storeV8h(h, &bt.u2, u2)
	a1.dot(b2).Store(half(&bt.hc[0], h))
	a1.dot(c2).Store(half(&bt.hc[1], h))
	i1 := mulAtH(h, &bt.iA, u1).add(mulAtH(h, &bt.iB, u1))
	i2 := mulAtH(h, &bt.iA, u2).add(mulAtH(h, &bt.iB, u2))
	k11, k12, k22 := u1.dot(i1), u1.dot(i2), u2.dot(i2)
	det := k11.Mul(k22).Sub(k12.Mul(k12))
	ok := det.Greater(bc(1e-12).Mul(k11.Mul(k22))).And(det.Greater(zero))
	inv := one.Div(det)
	k22.Mul(inv).Merge(zero, ok).Store(half(&bt.hmass[0], h))
	neg(k12).Mul(inv).Merge(zero, ok).Store(half(&bt.hmass[1], h))
	k11.Mul(inv).Merge(zero, ok).Store(half(&bt.hmass[2], h))
	// hingeAngle: A's angle about a1 relative to B, from p1 to b2
	p1 := mulAt(RA, lh3(&bt.perpA, h))
	coord := neg(atan2Lanes(a1.dot(p1.cross(b2)), p1.dot(b2)))
	limitRows(h, bt, &bt.rows[0], &bt.rows[1], a1.scale(minus), coord, lh(&bt.mA, h).Add(lh(&bt.mB, h)), zero, one, minus)
	var c lanes
	coord.Store(&c)
	archsimd.ClearAVXUpperBits()
	k := idx8(&bt.k, h)
	for l := range jointHalfLanes(bt, h) {
		w.joints[k[l]].coord = c[l]
	}
}

// swingTwistRows is refreshSwingTwist over a batch of ball joints (each with a swing cone and twist
// limits), in its order of operations, from the bodies' rotations RA and RB, into the lanes' swing
// and twist rows; each joint gets its swing and twist angles. The two angles are math.Atan2 in
// float64 lane by lane, as swingTwist does.
func swingTwistRows(h int, w *World, bt *wideJointBatch, RA, RB *[9]lanes) {
	var zero f8
	one, minus := bc(1), bc(-1)
	tA, tB := mulAt(RA, lh3(&bt.axisA, h)), mulAt(RB, lh3(&bt.axisB, h))
	e := tA.cross(tB)
	s, c := e.dot(e).Sqrt(), tA.dot(tB)
	swing := atan2Lanes(s, c)
	pA0, pB := mulAt(RA, lh3(&bt.perpA, h)), mulAt(RB, lh3(&bt.perpB, h))
	carried := pA0.scale(c).add(e.cross(pA0)).add(e.scale(e.dot(pA0).Div(one.Add(c))))
	pA := carried.keep(pA0, c.Greater(bc(-0.999)))
	twist := atan2Lanes(tB.dot(pA.cross(pB)), pA.dot(pB))
	m := lh(&bt.mA, h).Add(lh(&bt.mB, h))
	// the swing row: dswing/dt = e/|e| . (wB - wA), holding def.Swing - swing >= 0
	ax := e.scale(one.Div(s)).keep(pA0, s.Greater(bc(1e-6))).scale(minus)
	angleRow(h, &bt.rows[0], ax, lh(&bt.swing, h).Sub(swing), &bt.iA, &bt.iB, m, zero, one)
	// the twist limits: the lower row, and the upper as its reverse (anglePart.set)
	t := tA.add(tB)
	n := t.dot(t).Sqrt()
	floor := bc(1e-6)
	n = n.Merge(floor, n.Greater(floor).Or(n.IsNaN())) // max(n, 1e-6)
	t = t.scale(one.Div(n))
	limitRows(h, bt, &bt.rows[1], &bt.rows[2], t, twist, m, zero, one, minus)
	var sw, tw lanes
	swing.Store(&sw)
	twist.Store(&tw)
	archsimd.ClearAVXUpperBits()
	k := idx8(&bt.k, h)
	for l := range jointHalfLanes(bt, h) {
		j := &w.joints[k[l]]
		j.swingA, j.coord = sw[l], tw[l]
	}
}

// hingeWarmWide is warmJoint over a batch of hinges: the sums of the anchor's impulse
// (jointPair.applyPoint), the rotation rows' (hingeRotationPart.warm) and the limit rows' (applyRow,
// which skips a zero impulse), from the lanes, into each joint's lin, angA and angB.
func hingeWarmWide(w *World, bt *wideJointBatch) { halves(bt, func(h int) { hingeWarmHalf(h, w, bt) }) }

// hingeWarmHalf is hingeWarmWide over half h of a batch.
func hingeWarmHalf(h int, w *World, bt *wideJointBatch) {
	lin, angA, angB := anchorSums(h, bt)
	L := lh3(&bt.u1, h).scale(lh(&bt.himp[0], h)).add(lh3(&bt.u2, h).scale(lh(&bt.himp[1], h)))
	angA, angB = angA.add(L), angB.add(L)
	if bt.fric { // the drive row (anglePart.warm): the lower limit row's vectors, rows[2]'s impulse
		lin, angA, angB = addRowSum(h, &bt.rows[0], lh(&bt.rows[2].impulse, h), false, lin, angA, angB)
	}
	lin, angA, angB = addRowSums(h, bt.rows[:2], 1, lin, angA, angB)
	storeJointSums(h, w, bt, lin, angA, angB)
}

// ballWarmWide is warmJoint over a batch of ball joints: the sums of the anchor's, the swing row's
// and the twist rows' accumulated impulses (jointPair.applyPoint, then applyRow, which skips a zero
// impulse; plain ball joints have no such rows) and the friction's (applyAngular, which does not),
// from the lanes, into each joint's lin, angA and angB.
func ballWarmWide(w *World, bt *wideJointBatch) { halves(bt, func(h int) { ballWarmHalf(h, w, bt) }) }

// ballWarmHalf is ballWarmWide over half h of a batch.
func ballWarmHalf(h int, w *World, bt *wideJointBatch) {
	lin, angA, angB := anchorSums(h, bt)
	if !bt.plain {
		lin, angA, angB = addRowSums(h, bt.rows[:], 2, lin, angA, angB)
	}
	if bt.fric {
		L := lh3(&bt.fimp, h)
		angA, angB = angA.add(L), angB.add(L)
	}
	storeJointSums(h, w, bt, lin, angA, angB)
}

// anchorSums starts a batch's warm-start sums with its anchors' impulses (jointPair.applyPoint into
// zero sums).
func anchorSums(h int, bt *wideJointBatch) (lin, angA, angB v8) {
	pt := &bt.point
	P := lh3(&pt.impulse, h)
	lin = lin.add(P)
	angA = angA.add(lh3(&pt.rA, h).cross(P))
	angB = angB.add(lh3(&pt.rB, h).cross(P))
	return
}

// addRowSums adds the angular limit rows' impulses to the sums (applyRow: a lane's zero impulse adds
// nothing). Row upper is the reversed one, whose d is the lower's negated zero, -0.
func addRowSums(h int, rows []wideAngle, upper int, lin, angA, angB v8) (v8, v8, v8) {
	for r := range rows {
		lin, angA, angB = addRowSum(h, &rows[r], lh(&rows[r].impulse, h), r == upper, lin, angA, angB)
	}
	return lin, angA, angB
}

// addRowSum adds impulse imp along angular row row to the sums (applyRow: a lane's zero impulse adds
// nothing); a reversed row's d is -0, the lower's negated zero.
func addRowSum(h int, row *wideAngle, imp f8, reversed bool, lin, angA, angB v8) (v8, v8, v8) {
	var zero f8
	moves := imp.NotEqual(zero)
	d := zero
	if reversed {
		d = neg(zero)
	}
	z := d.Mul(imp)
	lin = lin.add(v8{z, z, z}).keep(lin, moves)
	angA = angA.add(lh3(&row.ra, h).scale(imp)).keep(angA, moves)
	angB = angB.add(lh3(&row.rb, h).scale(imp)).keep(angB, moves)
	return lin, angA, angB
}

// storeJointSums writes the lanes' warm-start sums into their joints' sums (pipeline.jsums).
func storeJointSums(h int, w *World, bt *wideJointBatch, lin, angA, angB v8) {
	var g [9]lanes
	stv8((*lanes3)(g[0:3]), lin)
	stv8((*lanes3)(g[3:6]), angA)
	stv8((*lanes3)(g[6:9]), angB)
	archsimd.ClearAVXUpperBits()
	k := idx8(&bt.k, h)
	for l := range jointHalfLanes(bt, h) {
		j := &w.pipe.joints.jsums[k[l]]
		j.lin = vec{X: g[0][l], Y: g[1][l], Z: g[2][l]}
		j.angA = vec{X: g[3][l], Y: g[4][l], Z: g[5][l]}
		j.angB = vec{X: g[6][l], Y: g[7][l], Z: g[8][l]}
	}
}

// refreshPistonsWide is refreshJoint over a batch of pistons, into the lanes, in its order of
// operations: the anchors and their gap, the two off-axis rows, the rotation block's error (its
// K^-1, from the step's inverse inertias only, is packPiston's), the travel and its rows
// (anglePart.set: the lower limit row's vectors and mass serve the drive and, negated, the upper
// limit), and each driven lane's target rate (Motor.rate, lane by lane); each joint gets its travel.
func refreshPistonsWide(w *World, bt *wideJointBatch) {
	halves(bt, func(h int) { refreshPistonsHalf(h, w, bt) })
}

// refreshPistonsHalf is refreshPistonsWide over half h of a batch.
func refreshPistonsHalf(h int, w *World, bt *wideJointBatch) {
	b := &w.Bodies
	pr := &w.pipe.jwide.pist[bt.pi]
	// Declared (zeroed) and filled before the first vector instruction (see laneCounts): the bodies'
	// rotations as matrices and as quaternions (W, X, Y, Z), and the travel coming back.
	var RA, RB [9]lanes
	var qA, qB [4]lanes
	var travel lanes
	ia, ib := idx8(&bt.a, h), idx8(&bt.b, h)
	for l := range wideLanes { // an empty lane repeats lane 0's bodies
		a, o := &b.Rotation[ia[l]], &b.Rotation[ib[l]]
		qA[0][l], qA[1][l], qA[2][l], qA[3][l] = a.W, a.V[0], a.V[1], a.V[2]
		qB[0][l], qB[1][l], qB[2][l], qB[3][l] = o.W, o.V[0], o.V[1], o.V[2]
	}
	gatherMatTo(&RA, b.rot, ia, !bt.safe)
	gatherMatTo(&RB, b.rot, ib, !bt.safe)
	xA, xB := gather(b.Position, ia, !bt.safe), gather(b.Position, ib, !bt.safe)
	rA, rB := mulAt(&RA, lh3(&bt.localA, h)), mulAt(&RB, lh3(&bt.localB, h))
	d := xB.add(rB).sub(xA).sub(rA)
	var zero f8
	one, minus := bc(1), bc(-1)
	m := lh(&bt.mA, h).Add(lh(&bt.mB, h))
	// axisPart.set: the row (n, ra x n, rB x n) with error c, its inertia products and mass
	row := func(r *wideAxis, n, ra v8, c f8) {
		a, o := ra.cross(n), rB.cross(n)
		ja, jb := mulAtH(h, &bt.iA, a), mulAtH(h, &bt.iB, o)
		k := m.Mul(n.dot(n)).Add(a.dot(ja)).Add(o.dot(jb))
		storeV8h(h, &r.d, n)
		storeV8h(h, &r.ra, a)
		storeV8h(h, &r.rb, o)
		storeV8h(h, &r.ia, ja)
		storeV8h(h, &r.ib, jb)
		one.Div(k).Merge(zero, k.Greater(zero)).Store(half(&r.mass, h))
		c.Store(half(&r.c, h))
	}
	n := mulAt(&RA, lh3(&bt.axisA, h))
	n1 := mulAt(&RA, lh3(&bt.perpA, h))
	n2 := n.cross(n1)
	ra := rA.add(d)
	row(&pr.perp[0], n1, ra, n1.dot(d))
	row(&pr.perp[1], n2, ra, n2.dot(d))
	// rotationPart.set's error: qE = qB rel0^-1 qA^-1 (mgl32.Quat.Mul's order), 2 vec(qE) on the
	// shorter way round
	e := quat8{ld(&qB[0]), v8{ld(&qB[1]), ld(&qB[2]), ld(&qB[3])}}.mul(quat8{lh(&pr.rel0[0], h),
		lh3((*blanes3)(pr.rel0[1:4]), h).scale(minus)})
	e = e.mul(quat8{ld(&qA[0]), v8{ld(&qA[1]), ld(&qA[2]), ld(&qA[3])}.scale(minus)})
	c := e.v.scale(bc(2))
	storeV8h(h, &pr.rotC, c.scale(minus).keep(c, e.w.Less(zero)))
	// the travel, A's along the axis relative to B: -n.d, the rate of the reversed row
	x := neg(n.dot(d))
	row(&pr.travel, n.scale(minus), ra, x.Sub(lh(&bt.lo, h)))
	lh(&bt.hi, h).Sub(x).Store(half(&pr.upperC, h))
	x.Store(&travel)
	archsimd.ClearAVXUpperBits()
	k := idx8(&bt.k, h)
	invH := w.pipe.plan.ctx.invH
	for l := range jointHalfLanes(bt, h) {
		j := &w.joints[k[l]]
		j.coord = travel[l]
		if def := &j.def; def.driven() {
			o := h*wideLanes + l
			drive := def.drive()
			pr.speed[o] = drive.rate(j.coord, motorWraps(def.Type, def.HasLimits), invH, pr.travel.mass[o])
		}
	}
}

// quat8 is a quaternion per lane: w and the vector part v.
type quat8 struct {
	w f8
	v v8
}

// mul is mgl32.Quat.Mul per lane, in its order of operations.
func (q quat8) mul(p quat8) quat8 {
	return quat8{q.w.Mul(p.w).Sub(q.v.dot(p.v)), q.v.cross(p.v).add(p.v.scale(q.w)).add(q.v.scale(p.w))}
}

// pistonWarmWide is warmJoint over a batch of pistons: the sums of the off-axis rows' impulses and
// the drive's and limits' (applyRow, which skips a zero impulse; a lane without a drive or limits
// holds zero impulses there) and the rotation block's (applyAngular, which does not), from the
// lanes, into each joint's lin, angA and angB.
func pistonWarmWide(w *World, bt *wideJointBatch) {
	halves(bt, func(h int) { pistonWarmHalf(h, w, bt) })
}

// pistonWarmHalf is pistonWarmWide over half h of a batch.
func pistonWarmHalf(h int, w *World, bt *wideJointBatch) {
	pr := &w.pipe.jwide.pist[bt.pi]
	var zero f8
	var lin, angA, angB v8
	add := func(r *wideAxis, imp f8, neg bool) {
		d, ra, rb := lh3(&r.d, h), lh3(&r.ra, h), lh3(&r.rb, h)
		if neg {
			minus := bc(-1)
			d, ra, rb = d.scale(minus), ra.scale(minus), rb.scale(minus)
		}
		moves := imp.NotEqual(zero)
		lin = lin.add(d.scale(imp)).keep(lin, moves)
		angA = angA.add(ra.scale(imp)).keep(angA, moves)
		angB = angB.add(rb.scale(imp)).keep(angB, moves)
	}
	add(&pr.perp[0], lh(&pr.perp[0].impulse, h), false)
	add(&pr.perp[1], lh(&pr.perp[1].impulse, h), false)
	L := lh3(&pr.rotImp, h)
	angA, angB = angA.add(L), angB.add(L)
	add(&pr.travel, lh(&pr.driveImp, h), false)
	add(&pr.travel, lh(&pr.travel.impulse, h), false)
	add(&pr.travel, lh(&pr.upperImp, h), true)
	storeJointSums(h, w, bt, lin, angA, angB)
}
