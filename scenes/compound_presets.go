package scenes

import (
	"fmt"
	"math"
)

// Compound bodies to spawn and to build presets with: a table, a chair, a dumbbell and a hammer. Each
// is a list of parts at a scale (1: a 1.2 m table, a 0.45 m chair seat, a 0.6 m dumbbell, a 0.35 m
// hammer), written in a frame whose origin is on the floor under it.

// TableParts is a table of wood (600 kg/m^3): a top 1.2 x 0.05 x 0.8 m at 0.75 m on four legs.
func TableParts(scale float64) []Part {
	s := scale
	parts := []Part{{Shape: box(0.6*s, 0.025*s, 0.4*s), Position: v3(0, 0.725*s, 0), Density: num(600)}}
	for _, x := range []float64{-0.55, 0.55} {
		for _, z := range []float64{-0.35, 0.35} {
			parts = append(parts, Part{Shape: box(0.025*s, 0.35*s, 0.025*s), Position: v3(x*s, 0.35*s, z*s), Density: num(600)})
		}
	}
	return parts
}

// ChairParts is a chair of wood: a seat 0.44 m square at 0.45 m, four legs and a back along -z.
func ChairParts(scale float64) []Part {
	s := scale
	parts := []Part{
		{Shape: box(0.22*s, 0.02*s, 0.22*s), Position: v3(0, 0.45*s, 0), Density: num(600)},
		{Shape: box(0.22*s, 0.25*s, 0.02*s), Position: v3(0, 0.72*s, -0.2*s), Density: num(600)},
	}
	for _, x := range []float64{-0.2, 0.2} {
		for _, z := range []float64{-0.2, 0.2} {
			parts = append(parts, Part{Shape: box(0.02*s, 0.215*s, 0.02*s), Position: v3(x*s, 0.215*s, z*s), Density: num(600)})
		}
	}
	return parts
}

// DumbbellParts is a dumbbell along x: two steel balls (r 0.1 m, 7800 kg/m^3) 0.5 m apart on a
// capsule bar, resting on the balls.
func DumbbellParts(scale float64) []Part {
	s := scale
	along := &Quat{0, 0, math.Sqrt2 / 2, math.Sqrt2 / 2} // the capsule's axis (local y) along x
	return []Part{
		{Shape: sphere(0.1 * s), Position: v3(-0.25*s, 0.1*s, 0), Density: num(7800)},
		{Shape: capsule(0.02*s, 0.2*s), Position: v3(0, 0.1*s, 0), Rotation: along, Density: num(2000)},
		{Shape: sphere(0.1 * s), Position: v3(0.25*s, 0.1*s, 0), Density: num(7800)},
	}
}

// HammerParts is a hammer: a wooden handle (a capsule 0.33 m long) and a steel head across its top,
// the head's own friction lower.
func HammerParts(scale float64) []Part {
	s := scale
	return []Part{
		{Shape: capsule(0.015*s, 0.15*s), Position: v3(0, 0.165*s, 0), Density: num(700)},
		{Shape: box(0.06*s, 0.02*s, 0.02*s), Position: v3(0, 0.335*s, 0), Density: num(7800), Friction: num(0.3)},
	}
}

// Floored returns parts as a body to stand on the floor at (x, z) (turned by yaw about y): the
// body's position is the parts' centre of mass, lifted by 1 mm.
func Floored(name string, parts []Part, x, z, yaw float64) Body {
	var m, cx, cy, cz float64
	for i := range parts {
		p := &parts[i]
		sd := Body{Shapes: []Part{*p}}
		def := (&Scene{Bodies: []Body{sd}}).BodyDef(0)
		mass := float64(def.Shape.Compound.Mass)
		c := def.Shape.Compound.Centre
		m += mass
		cx, cy, cz = cx+mass*float64(c[0]), cy+mass*float64(c[1]), cz+mass*float64(c[2])
	}
	cx, cy, cz = cx/m, cy/m, cz/m
	sin, cos := math.Sin(yaw), math.Cos(yaw)
	q := &Quat{0, math.Sin(yaw / 2), 0, math.Cos(yaw / 2)}
	return Body{Name: name, Shapes: parts, Rotation: q,
		Position: v3(x+cos*cx+sin*cz, cy+0.001, z-sin*cx+cos*cz)}
}

// furniture: compound bodies: two tables, four chairs, three dumbbells on the floor and a hammer
// thrown spinning over them.
func furniture() *Scene {
	s := newScene("furniture")
	s.add(ground(0.6))
	for t, x := range []float64{-1.2, 1.2} {
		s.add(Floored(fmt.Sprintf("table%d", t), TableParts(1), x, 0, 0))
		s.add(Floored(fmt.Sprintf("chair%d", 2*t), ChairParts(1), x, 0.75, math.Pi))
		s.add(Floored(fmt.Sprintf("chair%d", 2*t+1), ChairParts(1), x, -0.75, 0))
	}
	for d := range 3 {
		s.add(Floored(fmt.Sprintf("dumbbell%d", d), DumbbellParts(1), -1+float64(d), 1.6, 0.3*float64(d)))
	}
	h := Floored("hammer", HammerParts(1), -2.5, -1.5, 0)
	h.Position[1] += 1.5
	h.Velocity, h.AngularVelocity = v3(2.5, 3, 0.8), v3(0, 0, -9)
	s.add(h)
	return s
}
