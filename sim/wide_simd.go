//go:build goexperiment.simd && amd64

package sim

import (
	"simd/archsimd"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
)

func init() {
	if archsimd.X86.AVX2() {
		wideStateKernel = true
		widePackKernel = packPointsWide
		laneKernelSets = append(laneKernelSets, laneKernels{lanes: wideLanes, about: "8 manifolds at once (AVX2)",
			solve: solveWide, warm: warmWide, refresh: refreshWide, prep: prepareWide, ball: ballWide, hinge: hingeWide})
		if archsimd.X86.AVX512() {
			laneKernelSets = append(laneKernelSets, laneKernels{lanes: batchLanes, about: "16 manifolds at once (AVX-512)",
				solve: solveWide16, warm: warmWide16, refresh: refreshWide16, prep: prepareWide16, ball: ballWide16, hinge: hingeWide16})
		}
	}
}

// row8 is a row of the eight-lane kernels' local arrays (rows_template.go's row_W).
type row8 = lanes

// half is the lanes 8h to 8h+7 of a batch's row (h is 0 or 1).
func half(a *blanes, h int) *lanes { return (*lanes)(unsafe.Add(unsafe.Pointer(a), h*32)) }

// lh loads half h of a batch's row; lh3 of a vector row.
func lh(a *blanes, h int) f8 { return archsimd.LoadFloat32x8(half(a, h)) }

func lh3(a *blanes3, h int) v8 { return v8{lh(&a[0], h), lh(&a[1], h), lh(&a[2], h)} }

// rows8 is half h of a batch's rows as a view: the rows shifted by 8h floats, so that the first
// eight floats of each of its rows are lanes 8h to 8h+7 (read with l8 and lv8, written through p8).
// Nothing else is read or written through it: for h = 1 its last row ends 32 bytes into the batch's
// first point, inside the batch. A half kernel reads its rows at fixed offsets from it instead of
// adding 32h to each row's address (lh): 10% fewer instructions in solve8.
func rows8(bt *wideBatch, h int) *batchRows {
	return (*batchRows)(unsafe.Add(unsafe.Pointer(&bt.batchRows), h*32))
}

// point8 is rows8 for a point's rows (for h = 1 the view ends 32 bytes into the next point or
// into the batch's indices). Its sliding field is not the point's.
func point8(wp *widePoint, h int) *widePoint {
	return (*widePoint)(unsafe.Add(unsafe.Pointer(wp), h*32))
}

// p8 is a view's row: its first eight floats. l8 loads them; lv8 a vector row's.
func p8(a *blanes) *lanes { return (*lanes)(unsafe.Pointer(a)) }

func l8(a *blanes) f8 { return archsimd.LoadFloat32x8(p8(a)) }

func lv8(a *blanes3) v8 { return v8{l8(&a[0]), l8(&a[1]), l8(&a[2])} }

// lc8 is float32(i) in every lane: count.Greater(lc8(i)) is the lanes with a point i.
func lc8(i int) f8 { return ld(&laneCounts[i]) }

// setSliding8 records in pt which of half h's lanes slide (slide) and says whether any does.
func setSliding8(pt *widePoint, h int, slide archsimd.Mask32x8) bool {
	bits := slide.ToBits()
	pt.sliding = pt.sliding&^(0xff<<(8*h)) | uint16(bits)<<(8*h)
	return bits != 0
}

// gatherVel8 loads the velocities of the bodies of half h of a batch's manifolds: from
// pipeline.vel's rows where the stage's passes run on them, else from the bodies (gatherPair, or
// gatherRagged for a half that is not full).
func gatherVel8(w *World, bt *wideBatch, h int) (vA, wA, vB, wB v8) {
	n := used8(bt, h)
	ia, ib := idx8(&bt.a, h), idx8(&bt.b, h)
	if st := w.pipe.wide.vel; w.pipe.wide.stateOn {
		vA, wA = gatherState(st, ia, n)
		vB, wB = gatherState(st, ib, n)
	} else if n == wideLanes {
		vA, wA, vB, wB = gatherPair(&w.Bodies, ia, ib, !bt.safe)
	} else {
		vA, wA, vB, wB = gatherRagged(&w.Bodies, ia, ib, n)
	}
	return
}

// storeVel8 writes half h of a batch's velocities back (storePair).
func storeVel8(w *World, bt *wideBatch, h int, vA, wA, vB, wB v8) {
	storePair(w, idx8(&bt.a, h), idx8(&bt.b, h), used8(bt, h), half(&bt.mA, h), half(&bt.mB, h), vA, wA, vB, wB)
}

// idx8 is half h of a batch's body or manifold indices.
func idx8(a *[batchLanes]int32, h int) *[wideLanes]int32 {
	return (*[wideLanes]int32)(unsafe.Add(unsafe.Pointer(a), h*32))
}

// used8 is the number of used lanes in half h of bt (0 to 8).
func used8(bt *wideBatch, h int) int { return min(max(bt.lanes-h*wideLanes, 0), wideLanes) }

// The wide passes keep legacy (non-VEX) SSE instructions out of their 256-bit code. On the GPU
// machine's Intel Xeon each one run while the YMM registers' upper halves are dirty cost about 140
// cycles (a CPU profile there; with ld4f's masked loads, pyramid20's solve took 2.1 ms a step there
// and 0.2 on this AMD machine, which pays neither), and Go's scalar float code is all legacy SSE:
// bc(0) (XORPS), bc(float32(i)) (CVTSI2SS), bc(-x) (PXOR), bc(a*b) (MULSS), zeroing or copying an
// array (MOVUPS). So a zero vector is the zero value (var z f8, VPXOR), counts come from laneCounts,
// constants made of scalars are computed once (epsilon2) or as vectors (neg(bc(x))), and arrays are
// declared before the first vector instruction or built in place. scripts/check-sse.sh lists what is
// left; ClearAVXUpperBits (VZEROUPPER) ends each pass.

// laneCounts[i] holds float32(i) in every lane: count.Greater(ld(&laneCounts[i])) is the lanes with a
// point i.
var laneCounts = func() (c [wideLanes]lanes) {
	for i := range c {
		for l := range c[i] {
			c[i][l] = float32(i)
		}
	}
	return
}()

// epsilon2 holds mathgl's FloatEqual threshold squared, Epsilon^2, in every lane: a scalar broadcast
// where it is used was loaded early and spilled with legacy MOVUPS.
var epsilon2 = func() (e lanes) {
	for l := range e {
		e[l] = mgl32.Epsilon * mgl32.Epsilon
	}
	return
}()

// ld4 loads v into the low three lanes of a Float32x4, and the float after it into the fourth (ld4f).
func ld4(v *Vec3) archsimd.Float32x4 { return ld4f(&v[0]) }

// ld4f loads the float at p and the three after it: one plain 16-byte load. The gathers use only the
// first three (a vector or a matrix column) and the transposes drop the fourth, which is the next
// element's first float: the caller makes sure it exists (below). It is not a masked load
// (LoadFloat32x4SlicePart, VMASKMOVPS), which reads the same three floats: on the Intel Xeon of the
// GPU machine (Emerald Rapids) a masked load that overlaps a store still in flight took 110-210 ns
// against 3-5 ns for a plain one (BenchmarkStoreThenMaskedLoad), and the gathers read
// velocities the previous batch has just written.
func ld4f(p *float32) archsimd.Float32x4 {
	return archsimd.LoadFloat32x4((*[4]float32)(unsafe.Pointer(p)))
}

// laneIndex is 0, 1, ..., 7.
var laneIndex = [wideLanes]int32{0, 1, 2, 3, 4, 5, 6, 7}

// gather loads the vectors vs[idx[l]] into lane l: each as a Float32x4, then transposed to
// component-major. It moves the same floats as eight scalar copies into an array loaded back as
// vectors, which stalls: the loads wait for eight narrow stores each (store forwarding fails).
//
// check says to test for an index of vs's last element (below, in wide.go); a batch known not to
// hold one (its safe flag) skips the test.
func gather(vs []Vec3, idx *[wideLanes]int32, check bool) v8 {
	if check && !below(idx[:], cap(vs)) {
		return gatherLast(vs, idx)
	}
	return transpose(ld4(&vs[idx[0]]), ld4(&vs[idx[1]]), ld4(&vs[idx[2]]), ld4(&vs[idx[3]]),
		ld4(&vs[idx[4]]), ld4(&vs[idx[5]]), ld4(&vs[idx[6]]), ld4(&vs[idx[7]]))
}

// gatherLast is gather for eight vectors among which is vs's last: through a copy with an element to
// spare. It is cold (one batch a pass), and it clears the registers' upper halves first, so that its
// scalar copies (legacy SSE) cost no transition (see laneCounts).
//
//go:noinline
func gatherLast(vs []Vec3, idx *[wideLanes]int32) v8 {
	archsimd.ClearAVXUpperBits()
	var c [wideLanes + 1]Vec3 // the vectors, with an element to spare
	for l, i := range idx {
		c[l] = vs[i]
	}
	return gather(c[:], &laneIndex, false)
}

// gatherColumnLast is gatherLast for the last column of matrices among which is ms's last.
//
//go:noinline
func gatherColumnLast(ms []Mat3, idx *[wideLanes]int32) v8 {
	archsimd.ClearAVXUpperBits()
	var col [wideLanes + 1]Vec3
	for l, i := range idx {
		col[l] = Vec3{ms[i][6], ms[i][7], ms[i][8]}
	}
	return gather(col[:], &laneIndex, false)
}

// gatherColumn is gather over column c of the matrices ms[idx[l]].
func gatherColumn(ms []Mat3, idx *[wideLanes]int32, c int, check bool) v8 {
	if check && c == 2 && !below(idx[:], cap(ms)) { // the last column's view reaches into the next matrix
		return gatherColumnLast(ms, idx)
	}
	col := func(l int) archsimd.Float32x4 { return ld4f(&ms[idx[l]][3*c]) }
	return transpose(col(0), col(1), col(2), col(3), col(4), col(5), col(6), col(7))
}

// transpose turns lane l's vector rl = (x, y, z, -) into component vectors.
func transpose(r0, r1, r2, r3, r4, r5, r6, r7 archsimd.Float32x4) v8 {
	var z f8
	// q0 holds lanes 0 and 4, q1 lanes 1 and 5, ...: (x, y, z, -) in each 128-bit half
	q0, q1 := z.SetLo(r0).SetHi(r4), z.SetLo(r1).SetHi(r5)
	q2, q3 := z.SetLo(r2).SetHi(r6), z.SetLo(r3).SetHi(r7)
	s0 := q0.SelectFromPairGrouped(0, 1, 4, 5, q1) // x0 y0 x1 y1 | x4 y4 x5 y5
	s1 := q2.SelectFromPairGrouped(0, 1, 4, 5, q3) // x2 y2 x3 y3 | ...
	s2 := q0.SelectFromPairGrouped(2, 2, 6, 6, q1) // z0 z0 z1 z1 | ...
	s3 := q2.SelectFromPairGrouped(2, 2, 6, 6, q3) // z2 z2 z3 z3 | ...
	return v8{
		s0.SelectFromPairGrouped(0, 2, 4, 6, s1),
		s0.SelectFromPairGrouped(1, 3, 5, 7, s1),
		s2.SelectFromPairGrouped(0, 2, 4, 6, s3),
	}
}

// gatherRagged is gatherPair for the n lanes of a batch's half that is not full (a colour's last
// batch), the empty lanes zeros: scalar copies
// into arrays loaded back as vectors. It is kept out of line and clears the registers' upper halves
// first, so that its copies (legacy SSE) cost no transition (see laneCounts).
//
//go:noinline
func gatherRagged(b *Bodies, ia, ib *[wideLanes]int32, n int) (vA, wA, vB, wB v8) {
	archsimd.ClearAVXUpperBits()
	var g [12]lanes
	for l := range n {
		va, wa := &b.Velocity[ia[l]], &b.AngularVelocity[ia[l]]
		vb, wb := &b.Velocity[ib[l]], &b.AngularVelocity[ib[l]]
		g[0][l], g[1][l], g[2][l] = va[0], va[1], va[2]
		g[3][l], g[4][l], g[5][l] = wa[0], wa[1], wa[2]
		g[6][l], g[7][l], g[8][l] = vb[0], vb[1], vb[2]
		g[9][l], g[10][l], g[11][l] = wb[0], wb[1], wb[2]
	}
	return v8{ld(&g[0]), ld(&g[1]), ld(&g[2])}, v8{ld(&g[3]), ld(&g[4]), ld(&g[5])},
		v8{ld(&g[6]), ld(&g[7]), ld(&g[8])}, v8{ld(&g[9]), ld(&g[10]), ld(&g[11])}
}

// solveWide is solveManifold over the manifolds of a batch, eight lanes at a time (solve8).
func solveWide(w *World, bt *wideBatch, useBias bool) {
	solve8(w, bt, 0, useBias)
	if bt.lanes > wideLanes {
		solve8(w, bt, 1, useBias)
	}
}

// packPointsWide is widePackKernel: the points' first pointFloats floats, eight points and eight
// floats at a time, through an 8x8 transpose.
func packPointsWide(dst *widePoint, src *[batchLanes]*contactPoint, used int) {
	d := (*[pointFloats]blanes)(unsafe.Pointer(dst))
	var rows [batchLanes]*[pointFloats + 2]float32 // contactPoint is longer: the last block reads past the rows
	for l, cp := range src[:used] {
		rows[l] = (*[pointFloats + 2]float32)(unsafe.Pointer(cp))
	}
	for h := range used / wideLanes {
		r := (*[wideLanes]*[pointFloats + 2]float32)(rows[h*wideLanes:])
		for c := 0; c < pointFloats; c += wideLanes {
			t0, t1, t2, t3, t4, t5, t6, t7 := transpose8(
				archsimd.LoadFloat32x8((*[8]float32)(r[0][c:c+8])), archsimd.LoadFloat32x8((*[8]float32)(r[1][c:c+8])),
				archsimd.LoadFloat32x8((*[8]float32)(r[2][c:c+8])), archsimd.LoadFloat32x8((*[8]float32)(r[3][c:c+8])),
				archsimd.LoadFloat32x8((*[8]float32)(r[4][c:c+8])), archsimd.LoadFloat32x8((*[8]float32)(r[5][c:c+8])),
				archsimd.LoadFloat32x8((*[8]float32)(r[6][c:c+8])), archsimd.LoadFloat32x8((*[8]float32)(r[7][c:c+8])))
			t := [...]f8{t0, t1, t2, t3, t4, t5, t6, t7}
			for k := range min(wideLanes, pointFloats-c) {
				t[k].Store(half(&d[c+k], h))
			}
		}
	}
	archsimd.ClearAVXUpperBits()
}

// transpose8 turns eight rows of eight floats into eight columns: column k holds each row's k-th.
func transpose8(r0, r1, r2, r3, r4, r5, r6, r7 f8) (t0, t1, t2, t3, t4, t5, t6, t7 f8) {
	p01, q01 := r0.SelectFromPairGrouped(0, 1, 4, 5, r1), r0.SelectFromPairGrouped(2, 3, 6, 7, r1)
	p23, q23 := r2.SelectFromPairGrouped(0, 1, 4, 5, r3), r2.SelectFromPairGrouped(2, 3, 6, 7, r3)
	p45, q45 := r4.SelectFromPairGrouped(0, 1, 4, 5, r5), r4.SelectFromPairGrouped(2, 3, 6, 7, r5)
	p67, q67 := r6.SelectFromPairGrouped(0, 1, 4, 5, r7), r6.SelectFromPairGrouped(2, 3, 6, 7, r7)
	c0, c1 := p01.SelectFromPairGrouped(0, 2, 4, 6, p23), p01.SelectFromPairGrouped(1, 3, 5, 7, p23)
	c2, c3 := q01.SelectFromPairGrouped(0, 2, 4, 6, q23), q01.SelectFromPairGrouped(1, 3, 5, 7, q23)
	d0, d1 := p45.SelectFromPairGrouped(0, 2, 4, 6, p67), p45.SelectFromPairGrouped(1, 3, 5, 7, p67)
	d2, d3 := q45.SelectFromPairGrouped(0, 2, 4, 6, q67), q45.SelectFromPairGrouped(1, 3, 5, 7, q67)
	return c0.Select128FromPair(0, 2, d0), c1.Select128FromPair(0, 2, d1), c2.Select128FromPair(0, 2, d2),
		c3.Select128FromPair(0, 2, d3), c0.Select128FromPair(1, 3, d0), c1.Select128FromPair(1, 3, d1),
		c2.Select128FromPair(1, 3, d2), c3.Select128FromPair(1, 3, d3)
}

// storePair writes a batch's velocities back: to pipeline.vel's rows where the stage's passes run on
// them (scatterState), else to the bodies (scatterPair). mA and mB are the lanes' inverse masses: a
// static or kinematic body (zero) is never written.
func storePair(w *World, ia, ib *[wideLanes]int32, n int, mA, mB *lanes, vA, wA, vB, wB v8) {
	p := &w.pipe
	if !p.wide.stateOn {
		scatterPair(&w.Bodies, ia, ib, n, vA, wA, vB, wB)
		return
	}
	var zero f8
	used := uint8(1<<n - 1)
	scatterState(p.wide.vel, ia, used&ld(mA).NotEqual(zero).ToBits(), vA, wA)
	scatterState(p.wide.vel, ib, used&ld(mB).NotEqual(zero).ToBits(), vB, wB)
	archsimd.ClearAVXUpperBits()
}

// padIndex sets c to the first n indices of idx, and z (the zero row) in the lanes after them.
func padIndex(c, idx []int32, n int, z int32) {
	for l := range c {
		c[l] = z
	}
	copy(c[:n], idx[:n])
}

// gatherState loads the rows st[idx[l]] into lane l as a velocity and an angular velocity: eight
// 32-byte loads and a transpose. A lane at or past n (an empty one) reads the zero row at st's end.
func gatherState(st []stateRow, idx *[wideLanes]int32, n int) (v, w v8) {
	ix := idx
	if n < wideLanes {
		var c [wideLanes]int32
		padIndex(c[:], idx[:], n, int32(len(st)-1))
		ix = &c
	}
	t0, t1, t2, t3, t4, t5, _, _ := transpose8(archsimd.LoadFloat32x8(&st[ix[0]]), archsimd.LoadFloat32x8(&st[ix[1]]),
		archsimd.LoadFloat32x8(&st[ix[2]]), archsimd.LoadFloat32x8(&st[ix[3]]),
		archsimd.LoadFloat32x8(&st[ix[4]]), archsimd.LoadFloat32x8(&st[ix[5]]),
		archsimd.LoadFloat32x8(&st[ix[6]]), archsimd.LoadFloat32x8(&st[ix[7]]))
	return v8{t0, t1, t2}, v8{t3, t4, t5}
}

// scatterState is gatherState's inverse: lane l's velocities to the row st[idx[l]], for the lanes
// whose bit is set in dyn, each row one 32-byte store.
func scatterState(st []stateRow, idx *[wideLanes]int32, dyn uint8, v, w v8) {
	var zero f8
	c0, d0 := v.x.Select128FromPair(0, 2, w.y), v.x.Select128FromPair(1, 3, w.y)
	c1, d1 := v.y.Select128FromPair(0, 2, w.z), v.y.Select128FromPair(1, 3, w.z)
	c2, d2 := v.z.Select128FromPair(0, 2, zero), v.z.Select128FromPair(1, 3, zero)
	c3, d3 := w.x.Select128FromPair(0, 2, zero), w.x.Select128FromPair(1, 3, zero)
	e01, f01 := c0.SelectFromPairGrouped(0, 1, 4, 5, c1), c2.SelectFromPairGrouped(0, 1, 4, 5, c3)
	e23, f23 := c0.SelectFromPairGrouped(2, 3, 6, 7, c1), c2.SelectFromPairGrouped(2, 3, 6, 7, c3)
	e45, f45 := d0.SelectFromPairGrouped(0, 1, 4, 5, d1), d2.SelectFromPairGrouped(0, 1, 4, 5, d3)
	e67, f67 := d0.SelectFromPairGrouped(2, 3, 6, 7, d1), d2.SelectFromPairGrouped(2, 3, 6, 7, d3)
	put := func(l int, r f8) {
		if dyn&(1<<l) != 0 {
			r.Store(&st[idx[l]])
		}
	}
	put(0, e01.SelectFromPairGrouped(0, 2, 4, 6, f01))
	put(1, e01.SelectFromPairGrouped(1, 3, 5, 7, f01))
	put(2, e23.SelectFromPairGrouped(0, 2, 4, 6, f23))
	put(3, e23.SelectFromPairGrouped(1, 3, 5, 7, f23))
	put(4, e45.SelectFromPairGrouped(0, 2, 4, 6, f45))
	put(5, e45.SelectFromPairGrouped(1, 3, 5, 7, f45))
	put(6, e67.SelectFromPairGrouped(0, 2, 4, 6, f67))
	put(7, e67.SelectFromPairGrouped(1, 3, 5, 7, f67))
}

// gatherPair loads the velocities of the bodies ia[l] and ib[l] into lane l (gather).
func gatherPair(b *Bodies, ia, ib *[wideLanes]int32, check bool) (vA, wA, vB, wB v8) {
	return gather(b.Velocity, ia, check), gather(b.AngularVelocity, ia, check), gather(b.Velocity, ib, check),
		gather(b.AngularVelocity, ib, check)
}

// scatterPair writes the first n lanes' velocities back to the bodies ia[l] and ib[l], except to a
// static or kinematic body (zero inverse mass), which is never written.
func scatterPair(b *Bodies, ia, ib *[wideLanes]int32, n int, vA, wA, vB, wB v8) {
	var g [12]lanes
	vA.x.Store(&g[0])
	vA.y.Store(&g[1])
	vA.z.Store(&g[2])
	wA.x.Store(&g[3])
	wA.y.Store(&g[4])
	wA.z.Store(&g[5])
	vB.x.Store(&g[6])
	vB.y.Store(&g[7])
	vB.z.Store(&g[8])
	wB.x.Store(&g[9])
	wB.y.Store(&g[10])
	wB.z.Store(&g[11])
	archsimd.ClearAVXUpperBits() // VZEROUPPER: the scalar (SSE) code after this pays no AVX-SSE transition
	for l := range n {
		if i := ia[l]; b.InvMass[i] != 0 {
			b.Velocity[i] = Vec3{g[0][l], g[1][l], g[2][l]}
			b.AngularVelocity[i] = Vec3{g[3][l], g[4][l], g[5][l]}
		}
		if i := ib[l]; b.InvMass[i] != 0 {
			b.Velocity[i] = Vec3{g[6][l], g[7][l], g[8][l]}
			b.AngularVelocity[i] = Vec3{g[9][l], g[10][l], g[11][l]}
		}
	}
}

// warmWide is warmStartManifold over a batch's lanes, eight at a time (warm8).
func warmWide(w *World, bt *wideBatch) {
	warm8(w, bt, 0)
	if bt.lanes > wideLanes {
		warm8(w, bt, 1)
	}
}

// gatherMatTo loads the matrices ms[idx[l]] into lane l of d, column by column, each column stored as
// it is loaded: an m8 returned by value is copied with legacy MOVUPS (see laneCounts).
func gatherMatTo(d *[9]lanes, ms []Mat3, idx *[wideLanes]int32, check bool) {
	for c := range 3 {
		col := gatherColumn(ms, idx, c, check)
		col.x.Store(&d[3*c])
		col.y.Store(&d[3*c+1])
		col.z.Store(&d[3*c+2])
	}
}

// refreshWide is refreshManifold over a batch's lanes, eight at a time (refresh8).
func refreshWide(w *World, bt *wideBatch) {
	refresh8(w, bt, 0)
	if bt.lanes > wideLanes {
		refresh8(w, bt, 1)
	}
}

// gatherPoses8 is gatherPoses: half h of a batch's bodies' positions and rotations, into g's rows.
func gatherPoses8(w *World, bt *wideBatch, h int, g *poseRows[lanes]) { gatherPoses(w, bt, h, g, 0) }
