package scenes

import (
	"fmt"
	"math"
)

// Presets of static triangle meshes: terrain.

// terrainMesh is a bumpy bowl as a grid of n x n cells over a square of side size, two triangles a
// cell, facing up: height 0.03 r^2 (a bowl, 0.5 m deep at r = 4 m) plus bumps of 0.15 m.
func terrainMesh(n int, size float64) Shape {
	var verts []Vec3
	var tris [][3]int
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			x, z := -size/2+size*float64(i)/float64(n), -size/2+size*float64(j)/float64(n)
			y := 0.03*(x*x+z*z) + 0.15*math.Sin(1.3*x)*math.Sin(1.1*z)
			verts = append(verts, Vec3{tidy(x), tidy(y), tidy(z)})
		}
	}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			a := j*(n+1) + i
			b, c, d := a+1, a+n+1, a+n+2
			tris = append(tris, [3]int{a, c, b}, [3]int{b, c, d})
		}
	}
	return Shape{Type: "mesh", Vertices: verts, Triangles: tris}
}

// terrain: a static bumpy bowl (a 24 x 24 grid of 1,152 triangles over 12 m) with 36 boxes, spheres and
// rocks dropped onto it: they roll and slide into the dips and settle.
func terrain() *Scene {
	s := newScene("terrain")
	s.add(Body{Name: "terrain", Type: "static", Shape: terrainMesh(24, 12), Friction: num(0.7)})
	r := lcg(23)
	rock := hull(rockPoints(&r, 16, 0.35, 0.25, 0.3, 0.2))
	const n, layers, pitch = 3, 4, 1.3
	for l := range layers {
		for i := range n {
			for k := range n {
				idx := len(s.Bodies) - 1
				b := Body{Name: fmt.Sprintf("body%d", idx),
					Position: v3(centred(i, n, pitch)+0.3*r.jitter(1), 1.5+1.0*float64(l), centred(k, n, pitch)+0.3*r.jitter(1)),
					Rotation: tilt(&r, math.Pi), Friction: num(0.7)}
				switch idx % 3 {
				case 0:
					b.Shape = Shape{Type: "box", HalfExtents: &Vec3{0.3, 0.2, 0.25}}
				case 1:
					b.Shape = Shape{Type: "sphere", Radius: num(0.25)}
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
	return s
}
