//go:build goexperiment.simd && amd64

package sim

import (
	"simd/archsimd"
)

func init() {
	if archsimd.X86.AVX2() {
		wideGyroKernel = gyroWide
	}
}

// gyroWide is gyro over eight bodies, one per lane: gyroStep's two Newton steps in its order of
// operations, a lane keeping its value where gyroStep breaks or skips a step, so the results are its
// bits (TestGyroWideMatchesScalar).
func gyroWide(w *World, idx [wideLanes]int32, h float32) {
	b := &w.Bodies
	var rot [9]lanes
	hv := bc(h) // first: h arrives in a register that bc copies with MOVSS
	gatherMatTo(&rot, w.pipe.rot, &idx, true)
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
