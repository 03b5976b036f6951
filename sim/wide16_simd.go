//go:build goexperiment.simd && amd64

package sim

import (
	"simd/archsimd"
	"unsafe"

	"tumble/sim/collide"
)

// The contact kernels over sixteen lanes (AVX-512): a batch of more than eight manifolds in one run
// of its rows instead of two (a batch of eight or fewer runs its first half with the eight-lane
// kernels). The bodies' velocities, positions and rotations are gathered and scattered eight lanes at
// a time, as the eight-lane kernels do, and joined into or split from sixteen-lane registers; the
// rows are loaded sixteen at a time. The kernels themselves (solve16, warm16, ...) are generated from
// rows_template.go, as the eight-lane ones are, so each lane's arithmetic is theirs and the results
// are the same bits (TestWidePassMatchesScalar runs both); this file holds the dispatch and what
// differs from eight lanes: how the rows are read and the bodies gathered and scattered.

// row16 is a row of the sixteen-lane kernels' local arrays (rows_template.go's row_W): a batch's row.
type row16 = blanes

// The sixteen-lane kernels read a batch's rows whole: rows16, point16 and p16 are the batch's own
// rows, l16 and lv16 load them (the eight-lane kernels' views of half a batch, rows8 and the rest,
// with h always 0).
func rows16(bt *wideBatch, _ int) *batchRows { return &bt.batchRows }

func point16(wp *widePoint, _ int) *widePoint { return wp }

func p16(a *blanes) *blanes { return a }

func l16(a *blanes) f16 { return ld16(a) }

func lv16(a *blanes3) v16 { return ldv16(a) }

// lc16 is lc8 over sixteen lanes.
func lc16(i int) f16 { return ld16(&laneCounts16[i]) }

// setSliding16 records in pt which lanes slide and says whether any does.
func setSliding16(pt *widePoint, _ int, slide archsimd.Mask32x16) bool {
	pt.sliding = slide.ToBits()
	return pt.sliding != 0
}

func join(lo, hi f8) f16 {
	var z f16
	return z.SetLo(lo).SetHi(hi)
}

// join3 puts lo in lanes 0-7 and hi in lanes 8-15.
func join3(lo, hi v8) v16 { return v16{join(lo.x, hi.x), join(lo.y, hi.y), join(lo.z, hi.z)} }

func (a v16) lo() v8 { return v8{a.x.GetLo(), a.y.GetLo(), a.z.GetLo()} }

func (a v16) hi() v8 { return v8{a.x.GetHi(), a.y.GetHi(), a.z.GetHi()} }

// laneCounts16 is laneCounts over sixteen lanes.
var laneCounts16 = func() (c [4]blanes) {
	for i := range c {
		for l := range c[i] {
			c[i][l] = float32(i)
		}
	}
	return
}()

// gatherVel16 loads the velocities of a batch of more than eight manifolds' bodies: from
// pipeline.vel's rows sixteen at a time (gatherState16), else half by half as gatherVel8 does.
func gatherVel16(w *World, bt *wideBatch, _ int) (vA, wA, vB, wB v16) {
	if st := w.pipe.wide.vel; w.pipe.wide.stateOn {
		vA, wA = gatherState16(st, &bt.a, bt.lanes)
		vB, wB = gatherState16(st, &bt.b, bt.lanes)
		return
	}
	b := &w.Bodies
	n1 := bt.lanes - wideLanes
	ia0, ib0, ia1, ib1 := idx8(&bt.a, 0), idx8(&bt.b, 0), idx8(&bt.a, 1), idx8(&bt.b, 1)
	a0, b0, c0, d0 := gatherPair(b, ia0, ib0, !bt.safe)
	var a1, b1, c1, d1 v8
	if n1 == wideLanes {
		a1, b1, c1, d1 = gatherPair(b, ia1, ib1, !bt.safe)
	} else {
		a1, b1, c1, d1 = gatherRagged(b, ia1, ib1, n1)
	}
	return join3(a0, a1), join3(b0, b1), join3(c0, c1), join3(d0, d1)
}

// storeVel16 writes a batch's velocities back (storePair16).
func storeVel16(w *World, bt *wideBatch, _ int, vA, wA, vB, wB v16) {
	storePair16(w, &bt.a, &bt.b, bt.lanes, &bt.mA, &bt.mB, vA, wA, vB, wB)
}

// storePair16 is storePair over sixteen lanes, n of them used (more than eight): to pipeline.vel's
// rows sixteen at a time (scatterState16), else to the bodies half by half (storePair).
func storePair16(w *World, ia, ib *[batchLanes]int32, n int, mA, mB *blanes, vA, wA, vB, wB v16) {
	if p := &w.pipe; p.wide.stateOn {
		var zero f16
		used := uint16(1<<n - 1)
		scatterState16(p.wide.vel, ia, used&ld16(mA).NotEqual(zero).ToBits(), vA, wA)
		scatterState16(p.wide.vel, ib, used&ld16(mB).NotEqual(zero).ToBits(), vB, wB)
		archsimd.ClearAVXUpperBits()
		return
	}
	a1, b1, c1, d1 := vA.hi(), wA.hi(), vB.hi(), wB.hi()
	storePair(w, idx8(ia, 0), idx8(ib, 0), wideLanes, half(mA, 0), half(mB, 0), vA.lo(), wA.lo(), vB.lo(), wB.lo())
	storePair(w, idx8(ia, 1), idx8(ib, 1), n-wideLanes, half(mA, 1), half(mB, 1), a1, b1, c1, d1)
}

// The permutations of gatherState16 and scatterState16 (ConcatPermute's indices: 0-15 the first
// vector's lanes, 16-31 the second's).
var (
	colsLo  = [16]uint32{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27}
	colsHi  = [16]uint32{4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31}
	groupsC = [16]uint32{0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23}
	groupsD = [16]uint32{8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31}
)

// transpose4g is transpose8's first two stages over sixteen lanes: within each 128-bit group, the
// 4x4 transpose across r0..r3 (group g of output k holds element k of each input's group g). It is
// its own inverse.
func transpose4g(r0, r1, r2, r3 f16) (c0, c1, c2, c3 f16) {
	p01, q01 := r0.SelectFromPairGrouped(0, 1, 4, 5, r1), r0.SelectFromPairGrouped(2, 3, 6, 7, r1)
	p23, q23 := r2.SelectFromPairGrouped(0, 1, 4, 5, r3), r2.SelectFromPairGrouped(2, 3, 6, 7, r3)
	return p01.SelectFromPairGrouped(0, 2, 4, 6, p23), p01.SelectFromPairGrouped(1, 3, 5, 7, p23),
		q01.SelectFromPairGrouped(0, 2, 4, 6, q23), q01.SelectFromPairGrouped(1, 3, 5, 7, q23)
}

// gatherState16 is gatherState over sixteen lanes: sixteen 32-byte rows paired into eight registers
// (lanes 0-3 and 8-11 in their low halves, 4-7 and 12-15 in their high ones), transposed within
// their 128-bit groups, and the groups put in lane order by one two-register permutation a column:
// 16 loads and 38 shuffles where two eight-lane gathers and their joins took 16 and 54.
func gatherState16(st []stateRow, idx *[batchLanes]int32, n int) (v, w v16) {
	ix := idx
	if n < batchLanes {
		var c [batchLanes]int32
		padIndex(c[:], idx[:], n, int32(len(st)-1))
		ix = &c
	}
	row := func(l int) f8 { return archsimd.LoadFloat32x8(&st[ix[l]]) }
	c0, c1, c2, c3 := transpose4g(join(row(0), row(4)), join(row(1), row(5)), join(row(2), row(6)), join(row(3), row(7)))
	d0, d1, d2, d3 := transpose4g(join(row(8), row(12)), join(row(9), row(13)), join(row(10), row(14)), join(row(11), row(15)))
	lo, hi := archsimd.LoadUint32x16(&colsLo), archsimd.LoadUint32x16(&colsHi)
	return v16{c0.ConcatPermute(d0, lo), c1.ConcatPermute(d1, lo), c2.ConcatPermute(d2, lo)},
		v16{c3.ConcatPermute(d3, lo), c0.ConcatPermute(d0, hi), c1.ConcatPermute(d1, hi)}
}

// scatterState16 is gatherState16's inverse: lane l's velocities to the row st[idx[l]], for the lanes
// whose bit is set in dyn.
func scatterState16(st []stateRow, idx *[batchLanes]int32, dyn uint16, v, w v16) {
	var zero f16
	gc, gd := archsimd.LoadUint32x16(&groupsC), archsimd.LoadUint32x16(&groupsD)
	// columns 0-5 are v and w, 6 and 7 zero (stateRow's padding)
	q0, q1, q2, q3 := transpose4g(v.x.ConcatPermute(w.y, gc), v.y.ConcatPermute(w.z, gc), v.z.ConcatPermute(zero, gc), w.x.ConcatPermute(zero, gc))
	q4, q5, q6, q7 := transpose4g(v.x.ConcatPermute(w.y, gd), v.y.ConcatPermute(w.z, gd), v.z.ConcatPermute(zero, gd), w.x.ConcatPermute(zero, gd))
	put := func(l int, r f8) {
		if dyn&(1<<l) != 0 {
			r.Store(&st[idx[l]])
		}
	}
	put(0, q0.GetLo())
	put(4, q0.GetHi())
	put(1, q1.GetLo())
	put(5, q1.GetHi())
	put(2, q2.GetLo())
	put(6, q2.GetHi())
	put(3, q3.GetLo())
	put(7, q3.GetHi())
	put(8, q4.GetLo())
	put(12, q4.GetHi())
	put(9, q5.GetLo())
	put(13, q5.GetHi())
	put(10, q6.GetLo())
	put(14, q6.GetHi())
	put(11, q7.GetLo())
	put(15, q7.GetHi())
}

// solveWide16 is solveWide with the rows of a batch of more than eight manifolds sixteen lanes at a
// time (solve16).
func solveWide16(w *World, bt *wideBatch, useBias bool) {
	if bt.lanes <= wideLanes {
		solve8(w, bt, 0, useBias)
		return
	}
	solve16(w, bt, 0, useBias)
}

// warmWide16 is warmWide over a batch of more than eight manifolds sixteen lanes at a time (warm16).
func warmWide16(w *World, bt *wideBatch) {
	if bt.lanes <= wideLanes {
		warm8(w, bt, 0)
		return
	}
	warm16(w, bt, 0)
}

// poseRows holds what gatherPoses gathers, in rows of either width: xA, xB, then rA's and rB's nine
// columns' components.
type poseRows[R lanes | blanes] = [24]R

// gatherPoses loads half h of a batch's bodies' positions and rotations into lanes o to o+7 of g's
// rows (o is 0, or 8 for the second half of a sixteen-lane row).
func gatherPoses[R lanes | blanes](w *World, bt *wideBatch, h int, g *poseRows[R], o int) {
	b := &w.Bodies
	rot := b.rot
	ia, ib := idx8(&bt.a, h), idx8(&bt.b, h)
	if nl := used8(bt, h); nl < wideLanes {
		gatherPosesRagged(w, ia, ib, nl, g, o)
		return
	}
	put := func(k int, v v8) {
		v.x.Store((*lanes)(unsafe.Pointer(&g[k][o])))
		v.y.Store((*lanes)(unsafe.Pointer(&g[k+1][o])))
		v.z.Store((*lanes)(unsafe.Pointer(&g[k+2][o])))
	}
	put(0, gather(b.Position, ia, !bt.safe))
	put(3, gather(b.Position, ib, !bt.safe))
	for c := range 3 {
		put(6+3*c, gatherColumn(rot, ia, c, !bt.safe))
		put(15+3*c, gatherColumn(rot, ib, c, !bt.safe))
	}
}

// gatherPosesRagged is gatherPoses for a half of nl < 8 lanes, with scalar copies (g's empty lanes
// stay zero): out of line, the registers' upper halves cleared first (see gatherRagged).
//
//go:noinline
func gatherPosesRagged[R lanes | blanes](w *World, ia, ib *[wideLanes]int32, nl int, g *poseRows[R], o int) {
	archsimd.ClearAVXUpperBits()
	b := &w.Bodies
	rot := b.rot
	for l := range nl {
		xa, xb := &b.Position[ia[l]], &b.Position[ib[l]]
		g[0][o+l], g[1][o+l], g[2][o+l] = xa[0], xa[1], xa[2]
		g[3][o+l], g[4][o+l], g[5][o+l] = xb[0], xb[1], xb[2]
		ra, rb := &rot[ia[l]], &rot[ib[l]]
		for c := range 9 {
			g[6+c][o+l], g[15+c][o+l] = ra[c], rb[c]
		}
	}
}

// refreshWide16 is refreshWide over a batch of more than eight manifolds sixteen lanes at a time
// (refresh16).
func refreshWide16(w *World, bt *wideBatch) {
	if bt.lanes <= wideLanes {
		refresh8(w, bt, 0)
		return
	}
	refresh16(w, bt, 0)
}

// gatherPoses16 is gatherPoses over both halves of a batch.
func gatherPoses16(w *World, bt *wideBatch, _ int, g *poseRows[blanes]) {
	gatherPoses(w, bt, 0, g, 0)
	gatherPoses(w, bt, 1, g, wideLanes)
}

// The loads and stores of half h of a batch's row (lh, lh3, half, mulAtH) over the whole row: h is
// always 0 in the sixteen-lane forms.
func lh16(a *blanes, _ int) f16 { return ld16(a) }

func lhv16(a *blanes3, _ int) v16 { return ldv16(a) }

func half16(a *blanes, _ int) *blanes { return a }

func mulAtH16(_ int, m *[9]blanes, v v16) v16 { return mulAt16(m, v) }

// idx16 is a batch's body or manifold indices; used16 the number of its lanes in use.
func idx16(a *[batchLanes]int32, _ int) *[batchLanes]int32 { return a }

func used16(bt *wideBatch, _ int) int { return bt.lanes }

// gatherMatHalf is gatherMatTo into half h of d's rows.
func gatherMatHalf(d *[9]blanes, ms []Mat3, idx *[wideLanes]int32, h int) {
	for c := range 3 {
		col := gatherColumn(ms, idx, c, true)
		col.x.Store(half(&d[3*c], h))
		col.y.Store(half(&d[3*c+1], h))
		col.z.Store(half(&d[3*c+2], h))
	}
}

// prepareWide16 is prepareWide over a batch of more than eight manifolds sixteen lanes at a time
// (prepare16): the bodies gathered half by half into rows, the points' rows computed sixteen at a
// time.
func prepareWide16(w *World, bt *wideBatch, src *[4][batchLanes]*contactPoint, at *[4][batchLanes]*collide.Point,
	kept *[4]uint16, comp *blanes) {
	if bt.lanes <= wideLanes {
		prepare8(w, bt, 0, src, at, kept, comp)
		return
	}
	prepare16(w, bt, 0, src, at, kept, comp)
}

// lanes16 is the sixteen-lane kernels' width.
const lanes16 = batchLanes

// gatherBodies16 is gatherBodies8 over a whole batch, half by half.
func gatherBodies16(w *World, bt *wideBatch, _ int, iA, iB, rA, rB *[9]blanes, st *[6]blanes3) {
	b := &w.Bodies
	ia, ib := bt.a, bt.b
	for l := bt.lanes; l < batchLanes; l++ {
		ia[l], ib[l] = ia[0], ib[0]
	}
	for h := range 2 {
		ja, jb := idx8(&ia, h), idx8(&ib, h)
		gatherMatHalf(iA, b.InvInertiaWorld, ja, h)
		gatherMatHalf(iB, b.InvInertiaWorld, jb, h)
		gatherMatHalf(rA, b.rot, ja, h)
		gatherMatHalf(rB, b.rot, jb, h)
		storeV8h(h, &st[0], gather(b.Position, ja, true))
		storeV8h(h, &st[1], gather(b.Position, jb, true))
		vA, wA, vB, wB := gatherPair(b, ja, jb, true)
		storeV8h(h, &st[2], vA)
		storeV8h(h, &st[3], wA)
		storeV8h(h, &st[4], vB)
		storeV8h(h, &st[5], wB)
	}
}

// points16 is points8 over sixteen points.
func points16(q *[batchLanes]*collide.Point, _ int) (v16, f16) {
	x0, y0, z0, s0 := transpose4(ld4p(q[0]), ld4p(q[1]), ld4p(q[2]), ld4p(q[3]),
		ld4p(q[4]), ld4p(q[5]), ld4p(q[6]), ld4p(q[7]))
	x1, y1, z1, s1 := transpose4(ld4p(q[8]), ld4p(q[9]), ld4p(q[10]), ld4p(q[11]),
		ld4p(q[12]), ld4p(q[13]), ld4p(q[14]), ld4p(q[15]))
	return v16{join(x0, x1), join(y0, y1), join(z0, z1)}, join(s0, s1)
}

// keptMask16 is the mask of the lanes whose bit is set in bits.
func keptMask16(bits uint16, _ int) archsimd.Mask32x16 { return archsimd.Mask32x16FromBits(bits) }

// The joint kernels over sixteen lanes: ballWide and hingeWide for a batch of more than eight joints,
// in their order of operations lane by lane (TestWideJointsMatchScalar runs both sets).

// gatherJoint16 is gatherJoint8 over a whole batch (an empty lane repeats lane 0's bodies).
func gatherJoint16(w *World, bt *wideJointBatch, _ int, lin *[2]blanes3) (wA, wB v16) {
	var vA, vB v16
	if st := w.pipe.wide.vel; w.pipe.wide.stateOn {
		vA, wA = gatherState16(st, &bt.a, batchLanes) // an empty lane repeats lane 0's bodies
		vB, wB = gatherState16(st, &bt.b, batchLanes)
	} else {
		a0, b0, c0, d0 := gatherPair(&w.Bodies, idx8(&bt.a, 0), idx8(&bt.b, 0), !bt.safe)
		a1, b1, c1, d1 := gatherPair(&w.Bodies, idx8(&bt.a, 1), idx8(&bt.b, 1), !bt.safe)
		vA, wA, vB, wB = join3(a0, a1), join3(b0, b1), join3(c0, c1), join3(d0, d1)
	}
	stv16(&lin[0], vA)
	stv16(&lin[1], vB)
	return wA, wB
}

// scatterJoint16 is scatterJoint8 over a whole batch.
func scatterJoint16(w *World, bt *wideJointBatch, _ int, lin *[2]blanes3, wA, wB v16) {
	vA, vB := ldv16(&lin[0]), ldv16(&lin[1])
	storePair16(w, &bt.a, &bt.b, bt.lanes, &bt.mA, &bt.mB, vA, wA, vB, wB)
}

// pistonWide16 is pistonWide over a batch of more than eight pistons sixteen lanes at a time
// (piston16).
func pistonWide16(w *World, bt *wideJointBatch, mode PassMode) {
	if bt.lanes <= wideLanes {
		piston8(w, bt, 0, mode)
		return
	}
	piston16(w, bt, 0, mode)
}

// ballWide16 is ballWide over a batch of more than eight ball joints sixteen lanes at a time (ball16).
func ballWide16(w *World, bt *wideJointBatch, mode PassMode) {
	if bt.lanes <= wideLanes {
		ball8(w, bt, 0, mode)
		return
	}
	ball16(w, bt, 0, mode)
}

// hingeWide16 is hingeWide over a batch of more than eight hinges sixteen lanes at a time (hinge16).
func hingeWide16(w *World, bt *wideJointBatch, mode PassMode) {
	if bt.lanes <= wideLanes {
		hinge8(w, bt, 0, mode)
		return
	}
	hinge16(w, bt, 0, mode)
}
