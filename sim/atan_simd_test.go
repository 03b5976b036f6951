//go:build goexperiment.simd && amd64

package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// atan2Lanes is float32(math.Atan2(float64(y), float64(x))) bit for bit, in every octant, at the
// branch points of math's atan (|y/x| near 0.66 and tan(3 pi/8)), on the axes with both zeros' signs,
// for tiny and huge arguments, and through the fallback for NaN and infinities.
func TestAtan2LanesIsGosAtan2(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.66, -0.66, 2.4142137, -2.4142137,
		1e-30, -1e-30, 3e30, -3e30, 1e-45, 0.6600001, 0.65999997}
	var ys, xs []float32
	for _, y := range special {
		for _, x := range special {
			ys, xs = append(ys, y), append(xs, x)
		}
	}
	for range 200000 {
		a := r.Float64() * 2 * math.Pi
		m := math.Exp(r.Float64()*8 - 4)
		ys, xs = append(ys, float32(m*math.Sin(a))), append(xs, float32(m*math.Cos(a)))
	}
	for range 20000 { // ratios at satan's branch points
		x := float32(r.Float64() + 0.1)
		k := []float64{0.66, 2.41421356237309504880}[r.IntN(2)]
		y := float32(float64(x) * k * (1 + (r.Float64()-0.5)*1e-6))
		ys, xs = append(ys, y), append(xs, x)
	}
	check := func(y, x lanes) {
		var got lanes
		atan2Lanes(ld(&y), ld(&x)).Store(&got)
		for l := range got {
			want := float32(math.Atan2(float64(y[l]), float64(x[l])))
			if math.Float32bits(got[l]) != math.Float32bits(want) && !(math.IsNaN(float64(want)) && math.IsNaN(float64(got[l]))) {
				t.Fatalf("atan2(%g, %g): lanes %g (%#x), math.Atan2 %g (%#x)", y[l], x[l], got[l],
					math.Float32bits(got[l]), want, math.Float32bits(want))
			}
		}
	}
	for i := 0; i+wideLanes <= len(ys); i += wideLanes {
		check(lanes(ys[i:i+wideLanes]), lanes(xs[i:i+wideLanes]))
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	check(lanes{nan, 1, inf, -inf, 0, 1, 2, 3}, lanes{1, nan, inf, 1, -inf, inf, -inf, 0})
}
