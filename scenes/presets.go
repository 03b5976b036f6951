package scenes

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// presets maps a preset's name to the function that builds it. Each call builds a fresh Scene.
var presets = map[string]func() *Scene{
	"bowling":       bowling,
	"bridge":        bridge,
	"car":           car,
	"chain":         chain,
	"chain100":      chain100,
	"impulse-stack": impulseStack,
	"penalty-drop":  penaltyDrop,
	"jelly":         jelly,
	"cradle":        cradle,
	"door":          door,
	"engine":        engine,
	"pendulum":      pendulum,
	"ragdoll":       ragdoll,
	"dominoes":      dominoes,
	"incline":       incline,
	"mixed":         mixed,
	"pile":          pile,
	"pile100k":      pile100k,
	"pile1m":        pile1m,
	"pyramid":       pyramid,
	"pyramid20":     pyramid20,
	"rain":          rain,
	"stack":         stack,
	"tumbling":      tumbling,
	"wall":          wall,
	"bunny":         bunny,
	"rocks":         rocks,
	"terrain":       terrain,
	"hills":         hills,
	"furniture":     furniture,
	"large_pyramid": largePyramid,
	"many_pyramids": manyPyramids,
	"joint_grid":    jointGrid,
}

// Names returns the presets' names, sorted.
func Names() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Preset returns a new copy of the named preset scene, or false if there is none.
func Preset(name string) (*Scene, bool) {
	f, ok := presets[name]
	if !ok {
		return nil, false
	}
	return f(), true
}

// stackFriction is the friction of the stacking presets' bodies and ground.
const stackFriction = 0.6

// roundResistance is the rolling and spinning resistance of the presets' round bodies (spheres,
// capsules, rocks): a ball at 8 m/s rolls 91 m in 23 s before it stops (5/7 c g deceleration),
// where without it it rolls for ever.
const roundResistance = 0.05

// stack: 20 unit boxes in a column on a ground plane.
func stack() *Scene {
	s := newScene("stack")
	s.add(ground(stackFriction))
	for i := range 20 {
		s.add(Body{Name: fmt.Sprintf("box%d", i), Shape: box(0.5, 0.5, 0.5),
			Position: v3(0, 0.5+float64(i), 0), Friction: num(stackFriction)})
	}
	return s
}

// pyramid: a square pyramid of unit boxes, 10 x 10 at the base, each box centred over four below.
func pyramid() *Scene {
	const base, pitch = 10, 1.05
	s := newScene("pyramid")
	s.add(ground(stackFriction))
	for k := range base {
		n := base - k
		for i := range n {
			for j := range n {
				s.add(Body{Name: fmt.Sprintf("box%d_%d_%d", k, i, j), Shape: box(0.5, 0.5, 0.5),
					Position: v3(centred(i, n, pitch), 0.5+float64(k), centred(j, n, pitch)),
					Friction: num(stackFriction)})
			}
		}
	}
	return s
}

// pyramid20: the benchmark pyramid. One box deep, 20 unit boxes at the base (210 in all): row i
// (0-based) has 20-i boxes centred at y = 0.5+i, 1.05 m apart, each row centred on x = 0.
func pyramid20() *Scene {
	const base, pitch = 20, 1.05
	s := newScene("pyramid20")
	s.add(ground(stackFriction))
	for i := range base {
		n := base - i
		for j := range n {
			s.add(Body{Name: fmt.Sprintf("box%d_%d", i, j), Shape: box(0.5, 0.5, 0.5),
				Position: v3(centred(j, n, pitch), 0.5+float64(i), 0), Friction: num(stackFriction)})
		}
	}
	return s
}

// pile: the benchmark pile. 10 x 10 x 100 unit boxes (x, z, layers) at pitch 1.15 m in x and z and
// 1.1 m between layers, the first layer centred at y = 0.55, the grid centred on x = z = 0. Each box is
// jittered by +-3 cm in x and z and +-0.05 rad of yaw, drawn from pileRand in the order layer, x, z
// (three draws per box: x, z, yaw).
func pile() *Scene { return gridPile("pile", 10, 10, 100) }

// pile100k and pile1m are the GPU benchmark piles: the pile's boxes, jitter and pitch in grids of
// 100 x 100 x 10 (100,000 boxes) and 250 x 250 x 16 (1,000,000 boxes), low enough to settle in a few
// seconds.
func pile100k() *Scene { return gridPile("pile100k", 100, 100, 10) }

func pile1m() *Scene { return gridPile("pile1m", 250, 250, 16) }

// gridPile builds nx x nz x layers boxes as the pile describes.
func gridPile(name string, nx, nz, layers int) *Scene {
	s := newScene(name)
	s.Bodies = make([]Body, 0, nx*nz*layers+1)
	s.add(ground(stackFriction))
	r := pileSeed
	for l := range layers {
		for i := range nx {
			for k := range nz {
				dx, dz, yaw := r.jitter(0.06), r.jitter(0.06), r.jitter(0.1)
				s.add(Body{Name: fmt.Sprintf("box%d_%d_%d", l, i, k), Shape: box(0.5, 0.5, 0.5),
					Position: v3(centred(i, nx, 1.15)+dx, 0.55+1.1*float64(l), centred(k, nz, 1.15)+dz),
					Rotation: axisAngle(0, 1, 0, yaw), Friction: num(stackFriction)})
			}
		}
	}
	return s
}

// pileSeed is the pile's generator state before its first draw.
const pileSeed lcg = 12345

// lcg is the presets' random number generator: s = s*1664525 + 1013904223 in uint32 (Numerical
// Recipes' constants). It is written out here, not taken from math/rand, so that the benchmark scenes
// are the same in every language and version that rebuilds them.
type lcg uint32

// next advances the state and returns its top 24 bits as a number in [0, 1).
func (s *lcg) next() float64 {
	*s = *s*1664525 + 1013904223
	return float64(*s>>8) / (1 << 24)
}

// jitter returns a value in [-width/2, width/2).
func (s *lcg) jitter(width float64) float64 { return (s.next() - 0.5) * width }

// wall: a brick wall in the x-y plane, rows offset by half a brick, and a steel ball fired at it.
func wall() *Scene {
	const rows, bricks = 10, 10
	const hx, hy, hz = 0.5, 0.25, 0.25
	s := newScene("wall")
	s.add(ground(stackFriction))
	for r := range rows {
		n := bricks - r%2 // odd rows: one brick fewer, shifted by half a brick
		for i := range n {
			s.add(Body{Name: fmt.Sprintf("brick%d_%d", r, i), Shape: box(hx, hy, hz),
				Position: v3(centred(i, n, 2*hx+0.01), hy+2*hy*float64(r), 0), Friction: num(stackFriction)})
		}
	}
	s.add(Body{Name: "ball", Shape: sphere(0.5), Position: v3(0, 3, 10), Velocity: v3(0, 2, -20),
		Density: num(7800), Friction: num(stackFriction),
		RollingResistance: num(roundResistance), SpinningResistance: num(roundResistance)})
	return s
}

// dominoes: a row of 40 dominoes along x, the first tipped towards the second.
func dominoes() *Scene {
	const n, pitch = 40, 0.6
	const hx, hy, hz = 0.05, 0.5, 0.25
	const tip = 0.25 // rad, about -z: the top leans towards +x
	s := newScene("dominoes")
	s.add(ground(stackFriction))
	for i := range n {
		x := centred(i, n, pitch)
		b := Body{Name: fmt.Sprintf("domino%d", i), Shape: box(hx, hy, hz), Position: v3(x, hy, 0),
			Friction: num(stackFriction)}
		if i == 0 {
			// Pivot on the bottom edge at +x: the centre, at (-hx, hy) from it, turns by -tip about z.
			c, sn := math.Cos(tip), math.Sin(tip)
			b.Position = v3(x+hx-hx*c+hy*sn, hx*sn+hy*c, 0)
			b.Rotation = axisAngle(0, 0, 1, -tip)
		}
		s.add(b)
	}
	return s
}

// incline: three static ramps (15, 25 and 35 degrees) with four boxes each whose effective friction is
// 0.2, 0.4, 0.6 and 0.8. A box slides when tan(theta) > mu; each box's name says which it should do.
// The ramps have friction 1, so a box's own friction is mu^2 (pairs combine by geometric mean).
func incline() *Scene {
	const half, thick, hb = 4.0, 0.25, 0.25 // ramp half length and half thickness, box half size
	s := newScene("incline")
	s.add(ground(stackFriction))
	for r, deg := range []float64{15, 25, 35} {
		th := deg * math.Pi / 180
		rot := axisAngle(0, 0, 1, -th) // descends towards +x
		z0 := 7 * float64(r-1)
		cy := half*math.Sin(th) + 0.5 // lower end 0.5 m above the ground
		s.add(Body{Name: fmt.Sprintf("ramp%.0f", deg), Type: "static", Shape: box(half, thick, 2.5),
			Position: v3(0, cy, z0), Rotation: rot, Friction: num(1)})
		// Up the slope is (-cos, sin); the surface normal is (sin, cos).
		nx, ny := math.Sin(th), math.Cos(th)
		ux, uy := -math.Cos(th), math.Sin(th)
		for k, mu := range []float64{0.2, 0.4, 0.6, 0.8} {
			verdict := "sticks"
			if math.Tan(th) > mu {
				verdict = "slides"
			}
			up, lift := 2.0, thick+hb+0.005
			s.add(Body{
				Name:     fmt.Sprintf("ramp%.0f_tan%.2f_mu%.1f_%s", deg, math.Tan(th), mu, verdict),
				Shape:    box(hb, hb, hb),
				Position: v3(up*ux+lift*nx, cy+up*uy+lift*ny, z0+centred(k, 4, 1.2)),
				Rotation: rot, Friction: num(mu * mu)})
		}
	}
	return s
}

// InclineBox reads the name incline gives a box: its ramp's angle (radians), its effective friction
// coefficient mu, and whether static friction should hold it (tan theta < mu); ok is false for any
// other name.
func InclineBox(name string) (theta, mu float64, sticks, ok bool) {
	var deg, tan float64
	var verdict string
	r := strings.NewReplacer("ramp", "", "_tan", " ", "_mu", " ", "_", " ")
	if !strings.HasPrefix(name, "ramp") || strings.Count(name, "_") != 3 {
		return 0, 0, false, false
	}
	if _, err := fmt.Sscan(r.Replace(name), &deg, &tan, &mu, &verdict); err != nil ||
		(verdict != "sticks" && verdict != "slides") {
		return 0, 0, false, false
	}
	return deg * math.Pi / 180, mu, verdict == "sticks", true
}

// bowling: ten pins (capsules) in the standard triangle and a 7 kg ball rolling at them at 8 m/s.
func bowling() *Scene {
	const pinR, pinH, spacing = 0.06, 0.13, 0.3048 // m; pins 12 inches apart
	const ballR, speed = 0.108, 8.0
	s := newScene("bowling")
	s.add(ground(0.3))
	row := spacing * math.Sqrt(3) / 2
	for r := range 4 {
		for j := 0; j <= r; j++ {
			s.add(Body{Name: fmt.Sprintf("pin%d", len(s.Bodies)), Shape: capsule(pinR, pinH),
				Position: v3((float64(j)-float64(r)/2)*spacing, pinR+pinH, -float64(r)*row),
				Mass:     num(1.5), Friction: num(0.4),
				RollingResistance: num(roundResistance), SpinningResistance: num(roundResistance)})
		}
	}
	// Rolling without slipping towards -z: v + w x (-r y) = 0 gives w_x = -v/r.
	s.add(Body{Name: "ball", Shape: sphere(ballR), Position: v3(0.02, ballR, 6), Velocity: v3(0, 0, -speed),
		AngularVelocity: v3(-speed/ballR, 0, 0), Mass: num(7), Friction: num(0.3),
		RollingResistance: num(roundResistance), SpinningResistance: num(roundResistance)})
	return s
}

// rain: 10,000 small boxes (0.4 m) in a 25 x 25 x 16 grid, slightly tilted at random, above an open-top
// bin of five static boxes with a 14 x 14 m floor and 6 m walls.
func rain() *Scene {
	const n, layers, pitch, hb = 25, 16, 0.5, 0.2
	s := newScene("rain")
	wallBox := func(name string, hx, hy, hz, x, y, z float64) {
		s.add(Body{Name: name, Type: "static", Shape: box(hx, hy, hz), Position: v3(x, y, z),
			Friction: num(stackFriction)})
	}
	// The walls (16 m) rise above the highest drop (14.5 m): the settled heap stands about 6.5 m
	// high, and a 6 m bin overflowed (measured: 50 boxes spilled over the rim and fell forever).
	wallBox("bin_floor", 7.5, 0.25, 7.5, 0, -0.25, 0)
	wallBox("bin_left", 0.25, 8, 7.5, -7.25, 8, 0)
	wallBox("bin_right", 0.25, 8, 7.5, 7.25, 8, 0)
	wallBox("bin_back", 7, 8, 0.25, 0, 8, -7.25)
	wallBox("bin_front", 7, 8, 0.25, 0, 8, 7.25)
	r := lcg(777)
	for l := range layers {
		for i := range n {
			for k := range n {
				s.add(Body{Name: fmt.Sprintf("drop%d", len(s.Bodies)-5), Shape: box(hb, hb, hb),
					Position: v3(centred(i, n, pitch), 7+pitch*float64(l), centred(k, n, pitch)),
					Rotation: tilt(&r, 0.4), Friction: num(stackFriction)})
			}
		}
	}
	return s
}

// tumbling: a free "T-handle" in zero gravity (the Dzhanibekov effect). It is one box with three
// distinct half extents, so its principal moments differ; spun about the intermediate axis (local y)
// with a small perturbation, the spin is unstable and the handle flips over and back again.
func tumbling() *Scene {
	s := newScene("tumbling")
	s.Gravity = &Vec3{0, 0, 0}
	s.add(Body{Name: "handle", Shape: box(0.5, 0.2, 0.05), Position: v3(0, 2, 0),
		AngularVelocity: v3(0.05, 5, 0.05), Mass: num(1)})
	return s
}

// mixed: boxes, spheres and capsules at random orientations falling on a plane.
func mixed() *Scene {
	const n, layers, pitch = 5, 3, 1.5
	s := newScene("mixed")
	s.add(ground(stackFriction))
	shapes := []Shape{box(0.4, 0.3, 0.5), sphere(0.45), capsule(0.3, 0.4)}
	r := lcg(2024)
	for l := range layers {
		for i := range n {
			for k := range n {
				idx := len(s.Bodies) - 1
				sh := shapes[idx%len(shapes)]
				b := Body{Name: fmt.Sprintf("%s%d", sh.Type, idx), Shape: sh,
					Position: v3(centred(i, n, pitch), 1+2*float64(l), centred(k, n, pitch)),
					Rotation: tilt(&r, math.Pi), Friction: num(stackFriction)}
				if sh.Type != "box" {
					b.RollingResistance, b.SpinningResistance = num(roundResistance), num(roundResistance)
				}
				s.add(b)
			}
		}
	}
	return s
}

// Helpers for building scenes in code.

func newScene(name string) *Scene {
	g, dt := DefaultGravity, DefaultDt // dt exactly 1/60, not tidied
	return &Scene{Name: name, Gravity: &g, Dt: &dt, Bodies: []Body{}}
}

func (s *Scene) add(b Body) { s.Bodies = append(s.Bodies, b) }

// ground is a static plane y = 0 named "ground".
func ground(friction float64) Body {
	return Body{Name: "ground", Type: "static", Shape: Shape{Type: "plane", Normal: v3(0, 1, 0), Offset: num(0)},
		Friction: num(friction)}
}

// num, v3 and axisAngle round to 12 significant digits (and -0 to 0) so that exported presets read
// well: that is far below float32's resolution, which is what the simulation keeps.
func num(x float64) *float64 { x = tidy(x); return &x }

func v3(x, y, z float64) *Vec3 { return &Vec3{tidy(x), tidy(y), tidy(z)} }

func tidy(x float64) float64 {
	if x == 0 {
		return 0
	}
	y, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	return y
}

func box(hx, hy, hz float64) Shape { return Shape{Type: "box", HalfExtents: v3(hx, hy, hz)} }

func sphere(r float64) Shape { return Shape{Type: "sphere", Radius: num(r)} }

func capsule(r, h float64) Shape { return Shape{Type: "capsule", Radius: num(r), HalfHeight: num(h)} }

// centred returns the coordinate of item i of n spaced pitch apart, the row centred on 0.
func centred(i, n int, pitch float64) float64 { return (float64(i) - float64(n-1)/2) * pitch }

// axisAngle returns the rotation by angle (rad) about the unit axis (x, y, z), in file order.
func axisAngle(x, y, z, angle float64) *Quat {
	s, c := math.Sin(angle/2), math.Cos(angle/2)
	return &Quat{tidy(x * s), tidy(y * s), tidy(z * s), tidy(c)}
}

// tilt returns a rotation by up to maxAngle about a random horizontal axis, then a random yaw.
func tilt(r *lcg, maxAngle float64) *Quat {
	a := 2 * math.Pi * r.next()
	tx := axisAngle(math.Cos(a), 0, math.Sin(a), r.jitter(2*maxAngle))
	yw := axisAngle(0, 1, 0, 2*math.Pi*r.next())
	// Hamilton product tx * yw in [x, y, z, w] order.
	q := Quat{
		tx[3]*yw[0] + tx[0]*yw[3] + tx[1]*yw[2] - tx[2]*yw[1],
		tx[3]*yw[1] - tx[0]*yw[2] + tx[1]*yw[3] + tx[2]*yw[0],
		tx[3]*yw[2] + tx[0]*yw[1] - tx[1]*yw[0] + tx[2]*yw[3],
		tx[3]*yw[3] - tx[0]*yw[0] - tx[1]*yw[1] - tx[2]*yw[2],
	}
	for i := range q {
		q[i] = tidy(q[i])
	}
	return &q
}
