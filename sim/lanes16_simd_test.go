//go:build goexperiment.simd && amd64

package sim

import (
	"simd/archsimd"
	"testing"
)

// A probe for the next lever of the wide contact pass (docs/PERF.md, thirteenth round): would
// sixteen lanes (AVX-512) be faster than eight? BenchmarkNormalRows runs the bias pass's normal rows
// of solveWide (four points a manifold, the same operations in the same order) over 512 manifolds
// in three layouts, and reports ns per eight manifolds:
//   - lanes8: the pass as it is, batches of eight;
//   - lanes16: batches of sixteen, every field sixteen floats;
//   - pairs: two batches of eight solved as one of sixteen, each field built from the two halves
//     (what a sixteen-lane solve over today's batches would do).
//
// The data is synthetic (every lane alike): the probe times the instruction stream, not the physics.

type probePoint8 struct {
	nA, nB, inA, inB                lanes3
	normalImpulse, maxNormal        lanes
	normalMass, softMass, leak, sep lanes
}

type probeBatch8 struct {
	mA, mB, biasRate lanes
	pts              [4]probePoint8
	w                [3]lanes3 // wA, wB, and the summed impulse
}

type lanes16 = [16]float32
type lanes16x3 = [3]lanes16

type probePoint16 struct {
	nA, nB, inA, inB                lanes16x3
	normalImpulse, maxNormal        lanes16
	normalMass, softMass, leak, sep lanes16
}

type probeBatch16 struct {
	mA, mB, biasRate lanes16
	pts              [4]probePoint16
	w                [3]lanes16x3
}

type f16 = archsimd.Float32x16

type v16 struct{ x, y, z f16 }

func (a v16) dot(b v16) f16 { return a.x.Mul(b.x).Add(a.y.Mul(b.y)).Add(a.z.Mul(b.z)) }

func (a v16) subS(b v16, s f16) v16 {
	return v16{a.x.Sub(b.x.Mul(s)), a.y.Sub(b.y.Mul(s)), a.z.Sub(b.z.Mul(s))}
}

func (a v16) addS(b v16, s f16) v16 {
	return v16{a.x.Add(b.x.Mul(s)), a.y.Add(b.y.Mul(s)), a.z.Add(b.z.Mul(s))}
}

func ld16(a *lanes16) f16        { return archsimd.LoadFloat32x16(a) }
func ld16x3(a *lanes16x3) v16    { return v16{ld16(&a[0]), ld16(&a[1]), ld16(&a[2])} }
func st16x3(d *lanes16x3, v v16) { v.x.Store(&d[0]); v.y.Store(&d[1]); v.z.Store(&d[2]) }

// ldPair loads lanes 0-7 from a and 8-15 from b.
func ldPair(a, b *lanes) f16 {
	var z f16
	return z.SetLo(archsimd.LoadFloat32x8(a)).SetHi(archsimd.LoadFloat32x8(b))
}

func ldPair3(a, b *lanes3) v16 {
	return v16{ldPair(&a[0], &b[0]), ldPair(&a[1], &b[1]), ldPair(&a[2], &b[2])}
}

func stPair(x f16, a, b *lanes) {
	x.GetLo().Store(a)
	x.GetHi().Store(b)
}

func stPair3(v v16, a, b *lanes3) {
	stPair(v.x, &a[0], &b[0])
	stPair(v.y, &a[1], &b[1])
	stPair(v.z, &a[2], &b[2])
}

func probeRows8(bt *probeBatch8, maxPush, invH f8) {
	wA, wB := ld3(&bt.w[0]), ld3(&bt.w[1])
	mAB := ld(&bt.mA).Add(ld(&bt.mB))
	var zero f8
	dvn, sum := zero, zero
	for i := range bt.pts {
		cp := &bt.pts[i]
		vn := dvn.Add(ld3(&cp.nB).dot(wB)).Sub(ld3(&cp.nA).dot(wA))
		sep, nm, ni := ld(&cp.sep), ld(&cp.normalMass), ld(&cp.normalImpulse)
		imp := neg(ld(&cp.softMass)).Mul(vn.Add(ld(&bt.biasRate).Mul(sep).Max(maxPush))).Sub(ld(&cp.leak).Mul(ni))
		imp = neg(nm).Mul(vn.Add(sep.Mul(invH))).Merge(imp, sep.Greater(zero))
		acc := ni.Add(imp)
		acc = acc.Merge(zero, acc.Greater(zero))
		imp = acc.Sub(ni)
		acc.Store(&cp.normalImpulse)
		mx := ld(&cp.maxNormal)
		imp.Merge(mx, imp.Greater(mx)).Store(&cp.maxNormal)
		wA, wB = wA.subS(ld3(&cp.inA), imp), wB.addS(ld3(&cp.inB), imp)
		dvn, sum = dvn.Add(imp.Mul(mAB)), sum.Add(imp)
	}
	storeLanes(bt.w[0][:], wA)
	storeLanes(bt.w[1][:], wB)
	sum.Store(&bt.w[2][0])
}

func neg16(x f16) f16 {
	return x.AsUint32x16().Xor(archsimd.BroadcastUint32x16(0x80000000)).AsFloat32x16()
}

func probeRows16(bt *probeBatch16, maxPush, invH f16) {
	wA, wB := ld16x3(&bt.w[0]), ld16x3(&bt.w[1])
	mAB := ld16(&bt.mA).Add(ld16(&bt.mB))
	var zero f16
	dvn, sum := zero, zero
	for i := range bt.pts {
		cp := &bt.pts[i]
		vn := dvn.Add(ld16x3(&cp.nB).dot(wB)).Sub(ld16x3(&cp.nA).dot(wA))
		sep, nm, ni := ld16(&cp.sep), ld16(&cp.normalMass), ld16(&cp.normalImpulse)
		imp := neg16(ld16(&cp.softMass)).Mul(vn.Add(ld16(&bt.biasRate).Mul(sep).Max(maxPush))).Sub(ld16(&cp.leak).Mul(ni))
		imp = neg16(nm).Mul(vn.Add(sep.Mul(invH))).Merge(imp, sep.Greater(zero))
		acc := ni.Add(imp)
		acc = acc.Merge(zero, acc.Greater(zero))
		imp = acc.Sub(ni)
		acc.Store(&cp.normalImpulse)
		mx := ld16(&cp.maxNormal)
		imp.Merge(mx, imp.Greater(mx)).Store(&cp.maxNormal)
		wA, wB = wA.subS(ld16x3(&cp.inA), imp), wB.addS(ld16x3(&cp.inB), imp)
		dvn, sum = dvn.Add(imp.Mul(mAB)), sum.Add(imp)
	}
	st16x3(&bt.w[0], wA)
	st16x3(&bt.w[1], wB)
	sum.Store(&bt.w[2][0])
}

func probeRowsPair(b0, b1 *probeBatch8, maxPush, invH f16) {
	wA, wB := ldPair3(&b0.w[0], &b1.w[0]), ldPair3(&b0.w[1], &b1.w[1])
	mAB := ldPair(&b0.mA, &b1.mA).Add(ldPair(&b0.mB, &b1.mB))
	var zero f16
	dvn, sum := zero, zero
	for i := range b0.pts {
		c0, c1 := &b0.pts[i], &b1.pts[i]
		vn := dvn.Add(ldPair3(&c0.nB, &c1.nB).dot(wB)).Sub(ldPair3(&c0.nA, &c1.nA).dot(wA))
		sep, nm, ni := ldPair(&c0.sep, &c1.sep), ldPair(&c0.normalMass, &c1.normalMass), ldPair(&c0.normalImpulse, &c1.normalImpulse)
		imp := neg16(ldPair(&c0.softMass, &c1.softMass)).Mul(vn.Add(ldPair(&b0.biasRate, &b1.biasRate).Mul(sep).Max(maxPush))).
			Sub(ldPair(&c0.leak, &c1.leak).Mul(ni))
		imp = neg16(nm).Mul(vn.Add(sep.Mul(invH))).Merge(imp, sep.Greater(zero))
		acc := ni.Add(imp)
		acc = acc.Merge(zero, acc.Greater(zero))
		imp = acc.Sub(ni)
		stPair(acc, &c0.normalImpulse, &c1.normalImpulse)
		mx := ldPair(&c0.maxNormal, &c1.maxNormal)
		stPair(imp.Merge(mx, imp.Greater(mx)), &c0.maxNormal, &c1.maxNormal)
		wA, wB = wA.subS(ldPair3(&c0.inA, &c1.inA), imp), wB.addS(ldPair3(&c0.inB, &c1.inB), imp)
		dvn, sum = dvn.Add(imp.Mul(mAB)), sum.Add(imp)
	}
	stPair3(wA, &b0.w[0], &b1.w[0])
	stPair3(wB, &b0.w[1], &b1.w[1])
	stPair(sum, &b0.w[2][0], &b1.w[2][0])
}

func BenchmarkNormalRows(b *testing.B) {
	if !archsimd.X86.AVX512() {
		b.Skip("no AVX-512 on this CPU")
	}
	const manifolds = 512
	b8 := make([]probeBatch8, manifolds/8)
	b16 := make([]probeBatch16, manifolds/16)
	for i := range b8 {
		bt := &b8[i]
		for l := range wideLanes {
			bt.mA[l], bt.mB[l], bt.biasRate[l] = 1, 1, 0.1
			for p := range bt.pts {
				c := &bt.pts[p]
				c.nA[1][l], c.nB[1][l], c.inA[1][l], c.inB[1][l] = 0.5, 0.5, 0.01, 0.01
				c.normalMass[l], c.softMass[l], c.leak[l], c.sep[l] = 0.5, 0.4, 0.01, -0.001
			}
		}
	}
	for i := range b16 {
		bt := &b16[i]
		for l := range 16 {
			bt.mA[l], bt.mB[l], bt.biasRate[l] = 1, 1, 0.1
			for p := range bt.pts {
				c := &bt.pts[p]
				c.nA[1][l], c.nB[1][l], c.inA[1][l], c.inB[1][l] = 0.5, 0.5, 0.01, 0.01
				c.normalMass[l], c.softMass[l], c.leak[l], c.sep[l] = 0.5, 0.4, 0.01, -0.001
			}
		}
	}
	per8 := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(manifolds/8), "ns/8-manifolds")
	}
	b.Run("lanes8", func(b *testing.B) {
		push, invH := bc(-3), bc(60)
		for range b.N {
			for i := range b8 {
				probeRows8(&b8[i], push, invH)
			}
		}
		per8(b)
	})
	b.Run("lanes16", func(b *testing.B) {
		push, invH := archsimd.BroadcastFloat32x16(-3), archsimd.BroadcastFloat32x16(60)
		for range b.N {
			for i := range b16 {
				probeRows16(&b16[i], push, invH)
			}
		}
		per8(b)
	})
	b.Run("pairs", func(b *testing.B) {
		push, invH := archsimd.BroadcastFloat32x16(-3), archsimd.BroadcastFloat32x16(60)
		for range b.N {
			for i := 0; i < len(b8); i += 2 {
				probeRowsPair(&b8[i], &b8[i+1], push, invH)
			}
		}
		per8(b)
	})
}
