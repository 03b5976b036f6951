package sim_test

import (
	"fmt"
	"math"

	"tumble/sim"
	"tumble/sim/geom"
)

// A world with a floor and a box dropped onto it: build it, step it for two seconds, read where the
// box came to rest.
func Example() {
	w := sim.NewWorld(sim.Settings{Gravity: sim.Vec3{0, -9.81, 0}})
	defer w.Close()
	w.AddBody(sim.BodyDef{Name: "floor", Type: sim.Static,
		Shape: geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}})
	box, _ := w.AddBody(sim.BodyDef{Name: "box",
		Shape:    geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.5, 0.5, 0.5}},
		Position: sim.Vec3{0, 3, 0}})
	for range 120 { // 2 s at the default 60 steps a second
		if err := w.Step(); err != nil {
			fmt.Println(err)
			return
		}
	}
	i, _ := w.Index(box)
	p := w.Bodies.Position[i]
	fmt.Printf("box at (%.1f, %.1f, %.1f) after %.0f s\n", p[0], p[1], p[2], w.Time)
	// Output: box at (0.0, 0.5, 0.0) after 2 s
}

// Reading poses: every body's name, position and rotation are in World.Bodies, one entry per body.
func ExampleWorld_Step() {
	w := sim.NewWorld(sim.Settings{Gravity: sim.Vec3{0, -10, 0}})
	defer w.Close()
	w.AddBody(sim.BodyDef{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.5},
		Position: sim.Vec3{0, 10, 0}, Velocity: sim.Vec3{2, 0, 0}})
	w.AddBody(sim.BodyDef{Name: "spinner", Shape: geom.Shape{Kind: geom.Capsule, Radius: 0.2, HalfHeight: 0.5},
		Position: sim.Vec3{5, 10, 0}, AngularVelocity: sim.Vec3{0, math.Pi, 0}})
	for range 60 { // 1 s of free flight
		w.Step()
	}
	b := &w.Bodies
	for i := range b.Len() {
		angle := 2 * math.Acos(float64(min(1, b.Rotation[i].W)))
		fmt.Printf("%s: x %.2f, y %.1f, turned %.0f degrees\n", b.Name[i], b.Position[i][0], b.Position[i][1], angle*180/math.Pi)
	}
	// Output:
	// ball: x 2.00, y 5.0, turned 0 degrees
	// spinner: x 5.00, y 5.0, turned 180 degrees
}

// A ray straight down finds the top of the box first, then the floor.
func ExampleWorld_RayCast() {
	w := sim.NewWorld(sim.Settings{})
	defer w.Close()
	w.AddBody(sim.BodyDef{Name: "floor", Type: sim.Static,
		Shape: geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}})
	w.AddBody(sim.BodyDef{Name: "box", Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{1, 1, 1}},
		Position: sim.Vec3{0, 1, 0}})
	inf := float32(math.Inf(1))
	if hit, ok := w.RayCast(sim.Vec3{0.5, 10, 0}, sim.Vec3{0, -1, 0}, inf, sim.QueryFilter{}); ok {
		fmt.Printf("hit %s at %.1f m, point %v, normal %v\n", w.Bodies.Name[hit.Index], hit.T, hit.Point, hit.Normal)
	}
	for _, hit := range w.RayCastAll(sim.Vec3{0.5, 10, 0}, sim.Vec3{0, -1, 0}, inf, sim.QueryFilter{}) {
		fmt.Printf("all: %s at %.1f m\n", w.Bodies.Name[hit.Index], hit.T)
	}
	// Leave the dynamic bodies out: only the floor is hit.
	statics := sim.QueryFilter{Types: sim.TypesOf(sim.Static)}
	if hit, ok := w.RayCast(sim.Vec3{0.5, 10, 0}, sim.Vec3{0, -1, 0}, inf, statics); ok {
		fmt.Printf("static only: %s at %.1f m\n", w.Bodies.Name[hit.Index], hit.T)
	}
	// Output:
	// hit box at 8.0 m, point [0.5 2 0], normal [0 1 0]
	// all: box at 8.0 m
	// all: floor at 10.0 m
	// static only: floor at 10.0 m
}

// Sweeping a sphere sideways into a box: how far it gets, where it touches.
func ExampleWorld_ShapeCast() {
	w := sim.NewWorld(sim.Settings{})
	defer w.Close()
	w.AddBody(sim.BodyDef{Name: "wall", Type: sim.Static, Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.5, 2, 2}}})
	ball := geom.Shape{Kind: geom.Sphere, Radius: 0.25}
	start := geom.Pose{P: sim.Vec3{-5, 1, 0}, Q: geom.Identity.Q}
	hit, ok, err := w.ShapeCast(ball, start, sim.Vec3{1, 0, 0}, 10, sim.QueryFilter{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("hit %v: moved %.2f m, touches at %v, normal %v\n", ok, hit.T, round(hit.Point), round(hit.Normal))
	// Output: hit true: moved 4.25 m, touches at [-0.5 1 0], normal [-1 0 0]
}

// round rounds v to centimetres for printing (and turns -0 into 0).
func round(v sim.Vec3) sim.Vec3 {
	for k := range v {
		v[k] = float32(math.Round(float64(v[k])*100)/100) + 0
	}
	return v
}

// Which bodies a box placed in the world would touch.
func ExampleWorld_Overlap() {
	w := sim.NewWorld(sim.Settings{})
	defer w.Close()
	for i := range 5 {
		w.AddBody(sim.BodyDef{Name: fmt.Sprint("ball", i), Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.5},
			Position: sim.Vec3{float32(2 * i), 0, 0}})
	}
	probe := geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{1.8, 0.5, 0.5}}
	touched, _ := w.Overlap(probe, geom.Pose{P: sim.Vec3{4, 0, 0}, Q: geom.Identity.Q}, sim.QueryFilter{})
	for _, h := range touched {
		i, _ := w.Index(h)
		fmt.Println(w.Bodies.Name[i])
	}
	// Output:
	// ball1
	// ball2
	// ball3
}
