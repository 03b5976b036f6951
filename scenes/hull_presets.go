package scenes

import (
	"fmt"
	"math"
)

// Presets of convex hulls: rocks and the bunny.

// rockPoints returns n points on a lumpy ellipsoid of half sizes (a, b, c): directions from a
// Fibonacci spiral, each pushed in or out by up to lump of its radius. Their hull is a rock.
func rockPoints(r *lcg, n int, a, b, c, lump float64) []Vec3 {
	pts := make([]Vec3, n)
	golden := math.Pi * (3 - math.Sqrt(5))
	for i := range pts {
		y := 1 - 2*(float64(i)+0.5)/float64(n)
		rad := math.Sqrt(1 - y*y)
		t := golden*float64(i) + 0.3*r.next()
		k := 1 + lump*(2*r.next()-1)
		pts[i] = Vec3{tidy(a * k * rad * math.Cos(t)), tidy(b * k * y), tidy(c * k * rad * math.Sin(t))}
	}
	return pts
}

func hull(pts []Vec3) Shape { return Shape{Type: "hull", Points: pts} }

// rocks: 48 rocks of six shapes (hulls of 14 to 24 points) dropped in a heap onto the ground among
// five half-buried static boulders.
func rocks() *Scene {
	s := newScene("rocks")
	s.add(ground(0.7))
	r := lcg(16)
	for i := range 5 {
		a := 2 * math.Pi * float64(i) / 5
		s.add(Body{Name: fmt.Sprintf("boulder%d", i), Type: "static",
			Shape:    hull(rockPoints(&r, 24, 1.1, 0.7, 0.9, 0.15)),
			Position: v3(2.2*math.Cos(a), 0.1, 2.2*math.Sin(a)), Rotation: tilt(&r, 0.3), Friction: num(0.7)})
	}
	var kinds []Shape
	for k := range 6 {
		sc := 0.25 + 0.05*float64(k)
		kinds = append(kinds, hull(rockPoints(&r, 14+2*k, sc*1.3, sc*0.8, sc, 0.25)))
	}
	const n, layers, pitch = 4, 3, 0.9
	for l := range layers {
		for i := range n {
			for k := range n {
				idx := len(s.Bodies)
				s.add(Body{Name: fmt.Sprintf("rock%d", idx), Shape: kinds[idx%len(kinds)],
					Position: v3(centred(i, n, pitch)+0.2*r.jitter(1), 2+1.2*float64(l), centred(k, n, pitch)+0.2*r.jitter(1)),
					Rotation: tilt(&r, math.Pi), Density: num(2600), Friction: num(0.7),
					RollingResistance: num(roundResistance), SpinningResistance: num(roundResistance)})
			}
		}
	}
	return s
}

// bunnyPoints is a low-poly bunny as points (y up, facing +x, about 0.3 m long): a body, a head, the
// two ears and a tail, each a ring of points, and four feet. The convex hull of these is the bunny's collision shape
// and gives its mass properties (seed 003 computes the bunny's inertia from its mesh).
func bunnyPoints() []Vec3 {
	var pts []Vec3
	blob := func(cx, cy, cz, rx, ry, rz float64, rings, per int) {
		for i := 0; i < rings; i++ {
			phi := math.Pi * (float64(i) + 0.5) / float64(rings)
			for j := 0; j < per; j++ {
				th := 2*math.Pi*float64(j)/float64(per) + float64(i)*0.4
				pts = append(pts, Vec3{tidy(cx + rx*math.Sin(phi)*math.Cos(th)), tidy(cy + ry*math.Cos(phi)),
					tidy(cz + rz*math.Sin(phi)*math.Sin(th))})
			}
		}
	}
	blob(0, 0.09, 0, 0.13, 0.09, 0.1, 3, 6)          // body
	blob(0.12, 0.17, 0, 0.06, 0.055, 0.055, 3, 5)    // head
	blob(0.1, 0.3, 0.025, 0.015, 0.07, 0.012, 3, 4)  // ear
	blob(0.1, 0.3, -0.025, 0.015, 0.07, 0.012, 3, 4) // ear
	blob(-0.14, 0.1, 0, 0.025, 0.025, 0.025, 2, 4)   // tail
	// Feet: a flat base, so a bunny sits on the ground instead of rocking on a rounded belly.
	pts = append(pts, Vec3{0.13, 0, 0.06}, Vec3{0.13, 0, -0.06}, Vec3{-0.1, 0, 0.08}, Vec3{-0.1, 0, -0.08})
	return pts
}

// bunny: five bunnies (the hull of a low-poly bunny's points) dropped turning onto rocks and the ground,
// where they come to sit on their feet.
func bunny() *Scene {
	s := newScene("bunny")
	s.add(ground(0.6))
	r := lcg(3)
	for i := range 3 {
		s.add(Body{Name: fmt.Sprintf("rock%d", i), Type: "static", Shape: hull(rockPoints(&r, 20, 0.6, 0.3, 0.5, 0.2)),
			Position: v3(float64(i-1)*1.2, 0.05, 0), Rotation: tilt(&r, 0.2), Friction: num(0.6)})
	}
	b := hull(bunnyPoints())
	for i := range 5 {
		s.add(Body{Name: fmt.Sprintf("bunny%d", i), Shape: b,
			Position: v3(float64(i-2)*0.6, 1+0.4*float64(i), 0.2*r.jitter(1)),
			Rotation: tilt(&r, 0.3), AngularVelocity: v3(r.jitter(1), r.jitter(3), r.jitter(1)),
			Density: num(1000), Friction: num(0.6)})
	}
	return s
}

// RockPoints returns the points of a rock like the rocks preset's, its half sizes about 1.3, 0.8 and 1
// times size (m), lumpy by a quarter; seed picks which rock (one seed, one rock).
func RockPoints(seed uint32, size float64) []Vec3 {
	r := lcg(seed)
	r.next()
	return rockPoints(&r, 18, size*1.3, size*0.8, size, 0.25)
}

// BunnyPoints returns the bunny preset's points scaled to the given length (m) from tail to nose.
func BunnyPoints(length float64) []Vec3 {
	pts := bunnyPoints()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		lo, hi = min(lo, p[0]), max(hi, p[0])
	}
	k := length / (hi - lo)
	for i, p := range pts {
		pts[i] = Vec3{p[0] * k, p[1] * k, p[2] * k}
	}
	return pts
}
