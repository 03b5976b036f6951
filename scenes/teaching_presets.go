package scenes

import "fmt"

// The teaching presets: each shows what one of seed 003's solvers does well and where it fails
// (docs/SCENES.md says so for each).

// impulseStack, under the impulse solver: on the left a ball with restitution 0.5 dropped from 2 m
// bounces to a quarter of the height, then lower, and comes to rest (the restitution decays to 0 for
// slow approaches, so it does not jitter on the ground); in the middle a box slides on the ground and
// friction stops it; on the right a stack of three boxes, which stands, and one of ten, which the scheme
// cannot hold (no warm start, and friction only in proportion to the impulse), so it walks apart and
// topples within seconds.
func impulseStack() *Scene {
	s := newScene("impulse-stack")
	s.Solver = &Solver{Type: "impulse"}
	s.add(ground(stackFriction))
	s.add(Body{Name: "ball", Shape: sphere(0.25), Position: v3(-3, 2.25, 0), Mass: num(1), Restitution: num(0.5),
		Friction: num(stackFriction)})
	s.add(Body{Name: "slider", Shape: box(0.3, 0.3, 0.3), Position: v3(-1.5, 0.3, 2), Velocity: v3(4, 0, 0),
		Friction: num(0.3)})
	for i := range 3 {
		s.add(Body{Name: fmt.Sprintf("short%d", i), Shape: box(0.5, 0.5, 0.5), Position: v3(0.5, 0.5+float64(i), 0),
			Friction: num(stackFriction)})
	}
	for i := range 10 {
		s.add(Body{Name: fmt.Sprintf("tall%d", i), Shape: box(0.5, 0.5, 0.5), Position: v3(3, 0.5+float64(i), 0),
			Friction: num(stackFriction)})
	}
	return s
}

// penaltyDrop, under the penalty solver: three boxes of 1, 10 and 100 kg set down just touching the
// ground, on soft springs (1000 N/m and 6 N s/m per contact point). Each sinks in until its four
// springs carry its weight (m g / 4k: 2.5 mm, 2.5 cm, 25 cm) and overshoots on the way (damping ratio
// 0.19, 0.06 and 0.02: to 1.55, 1.83 and 1.94 times that), ringing about it; the 100 kg box shows where
// the method fails: it sinks half its height before it springs back. Beside them a 1 kg box dropped
// from 1 m bounces off the springs.
func penaltyDrop() *Scene {
	s := newScene("penalty-drop")
	s.Solver = &Solver{Type: "penalty", PenaltyStiffness: num(1000), PenaltyDamping: num(6)}
	s.add(ground(stackFriction))
	for i, m := range []float64{1, 10, 100} {
		s.add(Body{Name: fmt.Sprintf("box%gkg", m), Shape: box(0.5, 0.5, 0.5), Position: v3(float64(i)*2-2, 0.5, 0),
			Mass: num(m), Friction: num(stackFriction)})
	}
	s.add(Body{Name: "dropped", Shape: box(0.5, 0.5, 0.5), Position: v3(4, 1.5, 0), Mass: num(1), Friction: num(stackFriction)})
	return s
}

// jellyCubes are the jelly preset's three clusters: name, stiffness, damping, and the height their
// lowest layer is dropped from.
var jellyCubes = []struct {
	name               string
	stiffness, damping float64
	drop               float64
}{
	{"firm", 0.3, 0.3, 1.5},
	{"soft", 0.02, 0.1, 1.5},
	{"stiff", 1, 0, 1.5},
}

// Jelly cubes are 3 x 3 x 3 boxes of half size JellyHalf (1 kg each), JellySpacing apart.
const (
	JellyHalf    = 0.12
	JellySpacing = 0.3
)

// jelly, under the shapematch solver: three cubes of 27 small boxes, each a shape-matching cluster,
// dropped from 1.5 m. The firm one (stiffness 0.3, damping 0.1) squashes on landing, bounces and
// recovers its shape within a second: what shape matching does well. The soft one (0.02) sags under its
// own weight and stays squashed, and the stiff one (1, undamped) keeps ringing: the pull is a spring of
// frequency sqrt(stiffness)/dt that nothing damps but the Damping setting (docs/SCENES.md gives the
// figures).
func jelly() *Scene {
	s := newScene("jelly")
	s.Solver = &Solver{Type: "shapematch"}
	s.add(ground(stackFriction))
	for c, cube := range jellyCubes {
		k := Cluster{Stiffness: num(cube.stiffness)}
		if cube.damping > 0 {
			k.Damping = num(cube.damping)
		}
		x0 := float64(c)*1.5 - 1.5 - JellySpacing
		for i := range 3 {
			for j := range 3 {
				for l := range 3 {
					name := fmt.Sprintf("%s%d%d%d", cube.name, i, j, l)
					s.add(Body{Name: name, Shape: box(JellyHalf, JellyHalf, JellyHalf), Mass: num(1),
						Position: v3(x0+float64(i)*JellySpacing, cube.drop+JellyHalf+float64(j)*JellySpacing,
							float64(l-1)*JellySpacing), Friction: num(stackFriction)})
					k.Bodies = append(k.Bodies, name)
				}
			}
		}
		s.Clusters = append(s.Clusters, k)
	}
	return s
}
