//go:build goexperiment.simd && amd64

package sim

import (
	"math"
	"simd/archsimd"
	"unsafe"
)

func init() {
	if archsimd.X86.AVX2() {
		wideGyroKernel = gyroWide
		wideRotateKernel = rotateWide
	}
}

// rotateWide is rotate over eight bodies, one per lane: the quaternion step, normalizeQuat (its square
// root in float32, which is float32(math.Sqrt(float64(s))) bit for bit, and its cases: length 0 the
// identity, past MaxFloat32 clamped) and setRotation, each in its order of operations, so the
// results are rotate's bits (TestRotateWideMatchesScalar). The divisions and the square root, a
// scalar chain of some 40 cycles a body, take a register of eight.
func rotateWide(w *World, idx [wideLanes]int32, hh float32) {
	b := &w.Bodies
	hv := bc(hh) // first: hh arrives in a register that bc copies with MOVSS
	qs := b.Rotation
	ldq := func(l int) archsimd.Float32x4 {
		return archsimd.LoadFloat32x4((*[4]float32)(unsafe.Pointer(&qs[idx[l]]))) // W, then V
	}
	qw, qx, qy, qz := transpose4(ldq(0), ldq(1), ldq(2), ldq(3), ldq(4), ldq(5), ldq(6), ldq(7))
	om := gather(b.AngularVelocity, &idx, true)
	// dq = (w, 0) q, and q + hh dq
	dw := neg(om.x.Mul(qx).Add(om.y.Mul(qy)).Add(om.z.Mul(qz)))
	dx := om.y.Mul(qz).Sub(om.z.Mul(qy)).Add(om.x.Mul(qw))
	dy := om.z.Mul(qx).Sub(om.x.Mul(qz)).Add(om.y.Mul(qw))
	dz := om.x.Mul(qy).Sub(om.y.Mul(qx)).Add(om.z.Mul(qw))
	nw, nx, ny, nz := qw.Add(hv.Mul(dw)), qx.Add(dx.Mul(hv)), qy.Add(dy.Mul(hv)), qz.Add(dz.Mul(hv))
	// normalizeQuat
	var zero f8
	one := bc(1)
	l := nw.Mul(nw).Add(nx.Mul(nx)).Add(ny.Mul(ny)).Add(nz.Mul(nz)).Sqrt()
	null := l.Equal(zero) // (length 1, which normalizeQuat returns as it is, divides to the same bits)
	big := bc(math.MaxFloat32)
	l = big.Merge(l, l.Greater(big)) // +Inf; a NaN stays
	r := one.Div(l)
	w2, x2, y2, z2 := nw.Div(l), nx.Mul(r), ny.Mul(r), nz.Mul(r)
	w2, x2, y2, z2 = one.Merge(w2, null), zero.Merge(x2, null), zero.Merge(y2, null), zero.Merge(z2, null)
	// setRotation
	two := bc(2)
	xx, yy, zz := x2.Mul(x2), y2.Mul(y2), z2.Mul(z2)
	xy, xz, yz := x2.Mul(y2), x2.Mul(z2), y2.Mul(z2)
	wx, wy, wz := w2.Mul(x2), w2.Mul(y2), w2.Mul(z2)
	var g [13]lanes
	w2.Store(&g[0])
	x2.Store(&g[1])
	y2.Store(&g[2])
	z2.Store(&g[3])
	one.Sub(two.Mul(yy.Add(zz))).Store(&g[4])
	two.Mul(xy.Add(wz)).Store(&g[5])
	two.Mul(xz.Sub(wy)).Store(&g[6])
	two.Mul(xy.Sub(wz)).Store(&g[7])
	one.Sub(two.Mul(xx.Add(zz))).Store(&g[8])
	two.Mul(yz.Add(wx)).Store(&g[9])
	two.Mul(xz.Add(wy)).Store(&g[10])
	two.Mul(yz.Sub(wx)).Store(&g[11])
	one.Sub(two.Mul(xx.Add(yy))).Store(&g[12])
	archsimd.ClearAVXUpperBits()
	rot := b.rot
	for l, i := range idx {
		q := &qs[i]
		q.W, q.V[0], q.V[1], q.V[2] = g[0][l], g[1][l], g[2][l], g[3][l]
		m := &rot[i]
		m[0], m[1], m[2] = g[4][l], g[5][l], g[6][l]
		m[3], m[4], m[5] = g[7][l], g[8][l], g[9][l]
		m[6], m[7], m[8] = g[10][l], g[11][l], g[12][l]
	}
}

// gyroWide is gyro over eight bodies, one per lane: gyroStep's two Newton steps in its order of
// operations, a lane keeping its value where gyroStep breaks or skips a step, so the results are its
// bits (TestGyroWideMatchesScalar).
func gyroWide(w *World, idx [wideLanes]int32, h float32) {
	b := &w.Bodies
	var rot [9]lanes
	hv := bc(h) // first: h arrives in a register that bc copies with MOVSS
	gatherMatTo(&rot, b.rot, &idx, true)
	inv := gather(b.InvInertiaLocal, &idx, true)
	w1 := mulAtT(&rot, gather(b.AngularVelocity, &idx, true))
	var zero f8
	one, half := bc(1), bc(0.5)
	hh := half.Mul(hv) // 0.5*h, the same bits
	eps2 := ld(&epsilon2)
	i0, i1, i2 := one.Div(inv.x), one.Div(inv.y), one.Div(inv.z)
	w2 := w1
	for range 2 {
		m0, m1, m2 := w1.x.Add(w2.x).Mul(half), w1.y.Add(w2.y).Mul(half), w1.z.Add(w2.z).Mul(half)
		a0, a1, a2 := i0.Mul(m0), i1.Mul(m1), i2.Mul(m2)
		f0 := i0.Mul(w2.x.Sub(w1.x)).Add(m1.Mul(a2).Sub(m2.Mul(a1)).Mul(hv))
		f1 := i1.Mul(w2.y.Sub(w1.y)).Add(m2.Mul(a0).Sub(m0.Mul(a2)).Mul(hv))
		f2 := i2.Mul(w2.z.Sub(w1.z)).Add(m0.Mul(a1).Sub(m1.Mul(a0)).Mul(hv))
		j0 := hh.Mul(zero.Mul(i0).Sub(zero)).Add(i0)
		j1 := hh.Mul(m2.Mul(i0).Sub(a2))
		j2 := hh.Mul(neg(m1).Mul(i0).Sub(neg(a1)))
		j3 := hh.Mul(neg(m2).Mul(i1).Sub(neg(a2)))
		j4 := hh.Mul(zero.Mul(i1).Sub(zero)).Add(i1)
		j5 := hh.Mul(m0.Mul(i1).Sub(a0))
		j6 := hh.Mul(m1.Mul(i2).Sub(a1))
		j7 := hh.Mul(neg(m0).Mul(i2).Sub(neg(a0)))
		j8 := hh.Mul(zero.Mul(i2).Sub(zero)).Add(i2)
		det := j0.Mul(j4).Mul(j8).Add(j3.Mul(j7).Mul(j2)).Add(j6.Mul(j1).Mul(j5)).
			Sub(j6.Mul(j4).Mul(j2)).Sub(j3.Mul(j1).Mul(j8)).Sub(j0.Mul(j7).Mul(j5))
		// gyroStep stops at a zero or NaN determinant and skips the update where mathgl's FloatEqual
		// calls it zero (under Epsilon^2 in magnitude); a lane that keeps its w2 meets the same
		// determinant again, so skipping covers both
		abs := det.AsUint32x8().And(archsimd.BroadcastUint32x8(0x7fffffff)).AsFloat32x8()
		update := abs.GreaterEqual(eps2)
		s := one.Div(det)
		k0, k1, k2 := j4.Mul(j8).Sub(j5.Mul(j7)).Mul(s), j2.Mul(j7).Sub(j1.Mul(j8)).Mul(s), j1.Mul(j5).Sub(j2.Mul(j4)).Mul(s)
		k3, k4, k5 := j5.Mul(j6).Sub(j3.Mul(j8)).Mul(s), j0.Mul(j8).Sub(j2.Mul(j6)).Mul(s), j2.Mul(j3).Sub(j0.Mul(j5)).Mul(s)
		k6, k7, k8 := j3.Mul(j7).Sub(j4.Mul(j6)).Mul(s), j1.Mul(j6).Sub(j0.Mul(j7)).Mul(s), j0.Mul(j4).Sub(j1.Mul(j3)).Mul(s)
		next := v8{
			w2.x.Sub(k0.Mul(f0).Add(k3.Mul(f1)).Add(k6.Mul(f2))),
			w2.y.Sub(k1.Mul(f0).Add(k4.Mul(f1)).Add(k7.Mul(f2))),
			w2.z.Sub(k2.Mul(f0).Add(k5.Mul(f1)).Add(k8.Mul(f2))),
		}
		w2 = next.keep(w2, update)
	}
	om := mulAt(&rot, w2)
	var g [3]lanes
	om.x.Store(&g[0])
	om.y.Store(&g[1])
	om.z.Store(&g[2])
	archsimd.ClearAVXUpperBits()
	for l, i := range idx {
		b.AngularVelocity[i] = Vec3{g[0][l], g[1][l], g[2][l]}
	}
}
