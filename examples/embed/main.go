// Command embed is the program docs/LIBRARY.md shows: Tumble's simulation embedded in a Go program.
package main

import (
	"fmt"
	"math"

	"tumble/sim"
	"tumble/sim/geom"
)

func main() {
	w := sim.NewWorld(sim.Settings{Gravity: sim.Vec3{0, -9.81, 0}})
	defer w.Close()
	w.AddBody(sim.BodyDef{Name: "ground", Type: sim.Static,
		Shape: geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}})
	for i, s := range []geom.Shape{
		{Kind: geom.Box, HalfExtents: sim.Vec3{0.5, 0.5, 0.5}},
		{Kind: geom.Sphere, Radius: 0.5},
		{Kind: geom.Box, HalfExtents: sim.Vec3{0.4, 0.8, 0.4}},
	} {
		w.AddBody(sim.BodyDef{Name: fmt.Sprintf("%s%d", s.Kind, i), Shape: s, Position: sim.Vec3{float32(2*i + 1), 3, 1}})
	}
	for range 180 { // 3 s at 60 steps a second
		if err := w.Step(); err != nil {
			panic(err)
		}
	}
	down := sim.Vec3{0, -1, 0}
	if hit, ok := w.RayCast(sim.Vec3{1, 10, 1}, down, float32(math.Inf(1)), sim.QueryFilter{}); ok {
		fmt.Printf("a ray down at x 1 hits %s at y %.1f\n", w.Bodies.Name[hit.Index], hit.Point[1])
	}
	for i, name := range w.Bodies.Name {
		p := w.Bodies.Position[i]
		fmt.Printf("%-7s at (%.1f, %.1f, %.1f)\n", name, p[0], p[1], p[2])
	}
}
