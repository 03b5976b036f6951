//go:build goexperiment.simd && amd64

package sim

import (
	"math"
	"simd/archsimd"
)

// The joints' angles are float32(math.Atan2(float64(y), float64(x))) (swingTwist, hingeAngle, and the
// GPU kernels' tbAtan2f, which reproduce it to the bit). atan2Lanes computes them eight at a time
// with the same float64 operations in the same order as the math package's portable atan2, atan,
// satan and xatan (math has no assembly Atan2 on amd64, and Go fuses no multiply-add at GOAMD64=v1),
// so each lane is bit for bit what math.Atan2 gives (TestAtan2LanesIsGosAtan2). A lane with a NaN or
// an infinity sends the batch through math.Atan2 lane by lane.

type f4 = archsimd.Float64x4

func bc4(x float64) f4 { return archsimd.BroadcastFloat64x4(x) }

const signBit64 = 1 << 63

// abs4 clears the sign bits; sign4 keeps only them.
func abs4(x f4) f4 {
	return x.AsUint64x4().And(archsimd.BroadcastUint64x4(signBit64 - 1)).AsFloat64x4()
}
func sign4(x f4) archsimd.Uint64x4 { return x.AsUint64x4().And(archsimd.BroadcastUint64x4(signBit64)) }

// xatan4 is math's xatan: atan(x) for 0 <= x <= 0.66, as a rational function.
func xatan4(x f4) f4 {
	const (
		P0 = -8.750608600031904122785e-01
		P1 = -1.615753718733365076637e+01
		P2 = -7.500855792314704667340e+01
		P3 = -1.228866684490136173410e+02
		P4 = -6.485021904942025371773e+01
		Q0 = +2.485846490142306297962e+01
		Q1 = +1.650270098316988542046e+02
		Q2 = +4.328810604912902668951e+02
		Q3 = +4.853903996359136964868e+02
		Q4 = +1.945506571482613964425e+02
	)
	z := x.Mul(x)
	num := bc4(P0).Mul(z).Add(bc4(P1)).Mul(z).Add(bc4(P2)).Mul(z).Add(bc4(P3)).Mul(z).Add(bc4(P4))
	den := z.Add(bc4(Q0)).Mul(z).Add(bc4(Q1)).Mul(z).Add(bc4(Q2)).Mul(z).Add(bc4(Q3)).Mul(z).Add(bc4(Q4))
	z = z.Mul(num).Div(den)
	return x.Mul(z).Add(x)
}

// atan2Quad is math's atan2 over four lanes of finite y and x.
func atan2Quad(y, x f4) f4 {
	const (
		morebits = 6.123233995736765886130e-17 // pi/2 = PIO2 + morebits
		tan3pio8 = 2.41421356237309504880      // tan(3*pi/8)
		pio2     = math.Pi / 2
		pio4     = math.Pi / 4
	)
	var zero f4 // VPXOR, where bc4(0) is legacy XORPS (see laneCounts)
	one, pi := bc4(1), bc4(math.Pi)
	// atan(y / x): satan of its magnitude, with its sign (atan(+-0) = +-0 comes out of satan(0) = 0)
	t := y.Div(x)
	a := abs4(t)
	big, mid := a.Greater(bc4(tan3pio8)), a.Greater(bc4(0.66))
	arg := a.Sub(one).Div(a.Add(one)).Merge(a, mid)
	arg = one.Div(a).Merge(arg, big)
	x1 := xatan4(arg)
	r := bc4(pio4).Add(x1).Add(bc4(0.5*morebits)).Merge(x1, mid)
	r = bc4(pio2).Sub(x1).Add(bc4(morebits)).Merge(r, big)
	q := r.AsUint64x4().Or(sign4(t)).AsFloat64x4()
	// the quadrant
	neg := x.Less(zero)
	q = q.Add(pi).Merge(q.Sub(pi), q.LessEqual(zero)).Merge(q, neg)
	// y == 0: +-0 for x >= +0, else +-pi; x == 0: +-pi/2
	ys := sign4(y)
	onAxis := pi.AsUint64x4().Or(ys).AsFloat64x4()
	posX := x.AsInt64x4().Greater(archsimd.BroadcastInt64x4(-1)) // x >= +0: its sign bit clear (no NaN here)
	onAxis = ys.AsFloat64x4().Merge(onAxis, posX)
	q = onAxis.Merge(q, y.Equal(zero))
	halfPi := bc4(pio2).AsUint64x4().Or(ys).AsFloat64x4()
	return halfPi.Merge(q, x.Equal(zero).And(y.NotEqual(zero)))
}

// atan2Lanes is float32(math.Atan2(float64(y), float64(x))) lane by lane (the joints' angles).
func atan2Lanes(y, x f8) f8 {
	inf := bc(float32(math.Inf(1)))
	ay := y.AsUint32x8().And(archsimd.BroadcastUint32x8(0x7fffffff)).AsFloat32x8()
	ax := x.AsUint32x8().And(archsimd.BroadcastUint32x8(0x7fffffff)).AsFloat32x8()
	if ay.Less(inf).And(ax.Less(inf)).ToBits() != 0xff { // NaN or infinity somewhere
		return atan2LanesScalar(y, x)
	}
	// Both halves stay float64 (256 bits) until both are done: a Float32x4 kept across the call is
	// spilled with legacy MOVUPS (see laneCounts).
	lo := atan2Quad(y.GetLo().ConvertToFloat64(), x.GetLo().ConvertToFloat64())
	hi := atan2Quad(y.GetHi().ConvertToFloat64(), x.GetHi().ConvertToFloat64())
	return y.SetLo(lo.ConvertToFloat32()).SetHi(hi.ConvertToFloat32())
}

// atan2LanesScalar is atan2Lanes through math.Atan2, lane by lane. It is cold (a NaN or an infinity)
// and kept out of line, its scalar code (legacy SSE) out of atan2Lanes (see laneCounts).
//
//go:noinline
func atan2LanesScalar(y, x f8) f8 {
	var ys, xs, r lanes
	y.Store(&ys)
	x.Store(&xs)
	archsimd.ClearAVXUpperBits()
	for l := range r {
		r[l] = float32(math.Atan2(float64(ys[l]), float64(xs[l])))
	}
	return ld(&r)
}
