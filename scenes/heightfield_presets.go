package scenes

import (
	"fmt"
	"math"
)

// Presets of height fields: hills.

// hillsHeight is the rolling landscape of the hills preset and of assets/terrain/hills.png, in
// metres over (x, z) in metres on a 64 m square centred on the origin: long ridges, shorter
// hillocks across them, and a shallow basin in the middle where things gather.
func hillsHeight(x, z float64) float64 {
	return 2.2 + 1.6*math.Sin(0.16*x+0.4)*math.Cos(0.13*z) +
		0.9*math.Sin(0.37*x+1.1)*math.Sin(0.31*z+0.6) +
		0.25*math.Sin(1.1*x)*math.Cos(0.9*z+0.3) -
		1.4*math.Exp(-(x*x+z*z)/60)
}

// hillsSize is the side of the hills' square, m.
const hillsSize = 64

// hillsHeights samples hillsHeight on n x n samples over the hills' square, rows along z.
func hillsHeights(n int) [][]float64 {
	rows := make([][]float64, n)
	for j := range n {
		rows[j] = make([]float64, n)
		z := -hillsSize/2 + hillsSize*float64(j)/float64(n-1)
		for i := range n {
			x := -hillsSize/2 + hillsSize*float64(i)/float64(n-1)
			rows[j][i] = math.Round(hillsHeight(x, z)*1e4) / 1e4
		}
	}
	return rows
}

// hills: a 64 m height field of rolling hills (257 x 257 samples, 0.25 m apart) with 80 boxes,
// balls, capsules and rocks dropped over its middle: they roll down the slopes into the basin. The
// round bodies carry the presets' rolling resistance: without it a ball on these slopes keeps rolling
// until it leaves the field's edge and falls.
func hills() *Scene {
	s := newScene("hills")
	const n = 257
	s.add(Body{Name: "hills", Type: "static", Friction: num(0.8),
		Shape: Shape{Type: "heightfield", Spacing: &[2]float64{hillsSize / float64(n-1), hillsSize / float64(n-1)},
			Heights: hillsHeights(n)}})
	r := lcg(41)
	rock := hull(rockPoints(&r, 16, 0.4, 0.3, 0.35, 0.2))
	const side, layers, pitch = 5, 3, 2.2
	for l := range layers {
		for i := range side {
			for k := range side {
				idx := len(s.Bodies) - 1
				x, z := centred(i, side, pitch)+0.4*r.jitter(1), centred(k, side, pitch)+0.4*r.jitter(1)
				b := Body{Name: fmt.Sprintf("body%d", idx), Position: v3(x, hillsHeight(x, z)+1.5+1.5*float64(l), z),
					Rotation: tilt(&r, math.Pi), Friction: num(0.6)}
				switch idx % 4 {
				case 0:
					b.Shape = box(0.35, 0.25, 0.3)
				case 1:
					b.Shape = sphere(0.3)
					b.RollingResistance, b.SpinningResistance = num(roundResistance), num(roundResistance)
				case 2:
					b.Shape = capsule(0.2, 0.3)
					b.RollingResistance, b.SpinningResistance = num(roundResistance), num(roundResistance)
				default:
					b.Shape = rock
					b.Density = num(2600)
					b.RollingResistance, b.SpinningResistance = num(roundResistance), num(roundResistance)
				}
				s.add(b)
			}
		}
	}
	for i := range 5 {
		x, z := -9+4.5*float64(i), -12.0
		s.add(Body{Name: fmt.Sprintf("ball%d", i), Shape: sphere(0.45), Position: v3(x, hillsHeight(x, z)+0.6, z),
			Velocity: v3(0, 0, 6), Friction: num(0.6),
			RollingResistance: num(roundResistance), SpinningResistance: num(roundResistance)})
	}
	return s
}
