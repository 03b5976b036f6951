package sim

import (
	"math"
	"testing"
	"tumble/sim/internal/vecmath"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim/geom"
)

const g = 9.81

func boxShape(hx, hy, hz float32) geom.Shape {
	return geom.Shape{Kind: geom.Box, HalfExtents: Vec3{hx, hy, hz}}
}

func groundPlane(t testing.TB, w *World, friction, restitution float32) {
	t.Helper()
	mustAdd(t, w, BodyDef{Name: "ground", Type: Static, Friction: friction, Restitution: restitution,
		Shape: geom.Shape{Kind: geom.Plane, Normal: Vec3{0, 1, 0}}})
}

func mustAdd(t testing.TB, w *World, d BodyDef) Handle {
	t.Helper()
	h, err := w.AddBody(d)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func run(t testing.TB, w *World, steps int) {
	t.Helper()
	for i := 0; i < steps; i++ {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
}

func gravityWorld(s Settings) *World {
	s.Gravity = Vec3{0, -g, 0}
	return NewWorld(s)
}

var solvers = []SolverKind{PGS, Jacobi, XPBD, Rigid}

// heavyOnLightSolvers are the solvers that hold a 100:1 mass ratio. Rigid does not: its 2 velocity
// passes per sub-step leave the light box's contacts far from converged, and the heavy box crushes
// through it within a second (as in Jolt, whose formulation it is: solver_rigid.go).
var heavyOnLightSolvers = []SolverKind{PGS, Jacobi, XPBD}

// stackingSolvers are the solvers that claim tall stacks and pyramids. XPBD does not: its static
// friction acts within a sub-step on the normal multiplier of that sub-step (g h^2 of penetration,
// near float32's resolution), and a 20-box stack creeps apart (measured: 9 cm in 10 s, toppled within
// 30 s; a 5-box stack holds, 0.2 mm). docs/SCENES.md says so.
var stackingSolvers = []SolverKind{PGS, Jacobi}

// Semi-implicit Euler over sub-steps of h gives y_n = y0 - g h^2 n(n+1)/2 exactly; the analytic
// y0 - g t^2/2 differs from it by g t h / 2.
func TestFreeFallMatchesSemiImplicitEuler(t *testing.T) {
	w := gravityWorld(Settings{})
	h := mustAdd(t, w, BodyDef{Name: "b", Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{0, 100, 0}})
	run(t, w, 120)
	i, _ := w.Index(h)
	sub := float64(w.Resolved().Dt) / float64(w.Resolved().Substeps)
	n := 120 * float64(w.Resolved().Substeps)
	tt := n * sub
	want := 100 - g*sub*sub*n*(n+1)/2
	got := float64(w.Bodies.Position[i][1])
	if math.Abs(got-want) > 1e-3 {
		t.Errorf("y = %.5f, want %.5f", got, want)
	}
	if analytic := 100 - g*tt*tt/2; math.Abs(got-analytic) > g*tt*sub/2+1e-3 {
		t.Errorf("y = %.5f, analytic %.5f: off by more than g t h / 2", got, analytic)
	}
	if v := float64(w.Bodies.Velocity[i][1]); math.Abs(v+g*tt) > 1e-3 {
		t.Errorf("vy = %.5f, want %.5f", v, -g*tt)
	}
}

// A box on a ramp of angle theta with friction mu stays put when tan(theta) < mu and otherwise slides
// d = 1/2 g (sin - mu cos) t^2 down the slope.
func TestInclineSlidesWhenTanThetaExceedsMu(t *testing.T) {
	const mu = 0.5 // tan(theta) = mu at 26.57 degrees
	for _, solver := range solvers {
		for _, deg := range []float64{15, 24, 29, 35, 45} {
			theta := deg * math.Pi / 180
			w := gravityWorld(Settings{Solver: solver})
			q := mgl32.QuatRotate(float32(theta), Vec3{0, 0, 1})
			// A long static ramp whose top face passes through the origin.
			down := q.Rotate(Vec3{0, -1, 0})
			mustAdd(t, w, BodyDef{Name: "ramp", Type: Static, Shape: boxShape(20, 0.5, 2), Rotation: q,
				Position: down.Mul(0.5), Friction: mu})
			up := q.Rotate(Vec3{0, 1, 0})
			start := up.Mul(0.25 + 0.001)
			box := mustAdd(t, w, BodyDef{Name: "box", Shape: boxShape(0.25, 0.25, 0.25), Rotation: q,
				Position: start, Friction: mu})
			run(t, w, 30) // settle onto the ramp
			i, _ := w.Index(box)
			p0 := w.Bodies.Position[i]
			const seconds = 1.5
			run(t, w, int(seconds*60))
			slope := q.Rotate(Vec3{-1, 0, 0}) // downhill direction along the ramp
			d := float64(w.Bodies.Position[i].Sub(p0).Dot(slope))
			// Sliding distance over [0.5 s, 2 s] for a box sliding from rest at t = 0.
			a := g * (math.Sin(theta) - mu*math.Cos(theta))
			if math.Tan(theta) < mu {
				if solver == XPBD && math.Tan(theta) > 0.8*mu {
					// Known limitation (docs/SCENES.md): XPBD's per-sub-step static friction lets a
					// box creep near the friction angle (24 degrees: 1.2 cm in 1.5 s).
					t.Logf("%v theta=%.0f: not claimed (static friction near the friction angle); moved %.4f m", solver, deg, d)
					continue
				}
				if math.Abs(d) > 0.01 {
					t.Errorf("%v theta=%.0f: tan %.3f < mu: box moved %.4f m, want < 0.01", solver, deg, math.Tan(theta), d)
				}
				continue
			}
			t0, t1 := 0.5, 0.5+seconds
			want := 0.5 * a * (t1*t1 - t0*t0)
			if math.Abs(d-want) > 0.1*want {
				t.Errorf("%v theta=%.0f: slid %.4f m, want %.4f (1/2 g (sin - mu cos) t^2) within 10%%", solver, deg, d, want)
			}
		}
	}
}

// A ball of restitution e dropped from height h rebounds to e^2 h.
func TestRestitutionReboundApex(t *testing.T) {
	for _, solver := range solvers {
		for _, e := range []float32{0.5, 0.8} {
			w := gravityWorld(Settings{Solver: solver})
			groundPlane(t, w, 0.5, 0)
			const r, h0 = 0.25, 2.0
			ball := mustAdd(t, w, BodyDef{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: r},
				Position: Vec3{0, r + h0, 0}, Restitution: e})
			i, _ := w.Index(ball)
			bounced, apex := false, 0.0
			for s := 0; s < 240; s++ {
				run(t, w, 1)
				y := float64(w.Bodies.Position[i][1]) - r
				vy := w.Bodies.Velocity[i][1]
				if vy > 0 {
					bounced = true
				}
				if bounced {
					apex = math.Max(apex, y)
					if vy < 0 {
						break
					}
				}
			}
			want := float64(e*e) * h0
			if math.Abs(apex-want) > 0.1*want {
				t.Errorf("%v e=%.1f: apex %.3f m, want e^2 h = %.3f within 10%%", solver, e, apex, want)
			}
		}
	}
}

func momenta(w *World) (p, l [3]float64) {
	b := &w.Bodies
	for i := range b.Position {
		if b.Type[i] != Dynamic {
			continue
		}
		m := float64(b.Mass[i])
		v, x, om := b.Velocity[i], b.Position[i], b.AngularVelocity[i]
		inv := b.InvInertiaLocal[i]
		r := quatMat3(b.Rotation[i])
		wb := mulMTV(&r, om)
		Lb := Vec3{wb[0] / inv[0], wb[1] / inv[1], wb[2] / inv[2]}
		L := mulMV(&r, Lb).Add(cross(x, v.Mul(float32(m))))
		for k := 0; k < 3; k++ {
			p[k] += m * float64(v[k])
			l[k] += float64(L[k])
		}
	}
	return
}

func norm3(v [3]float64) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }

func diff3(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// In zero gravity an off-centre collision conserves linear and angular momentum (contact impulses are
// equal and opposite and act at one point).
func TestOffCentreCollisionConservesMomentum(t *testing.T) {
	for _, solver := range solvers {
		w := NewWorld(Settings{Solver: solver})
		mustAdd(t, w, BodyDef{Name: "a", Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{-2, 0.4, 0.1},
			Velocity: Vec3{3, 0, 0}, AngularVelocity: Vec3{0, 1, 0}, Friction: 0.5})
		mustAdd(t, w, BodyDef{Name: "b", Shape: boxShape(0.3, 0.6, 0.4), Position: Vec3{1, -0.3, 0},
			Rotation: mgl32.QuatRotate(0.3, Vec3{1, 1, 0}.Normalize()), Density: 3000, Friction: 0.5})
		p0, l0 := momenta(w)
		touched := false
		for s := 0; s < 120; s++ {
			run(t, w, 1)
			touched = touched || w.Stats.Contacts > 0
		}
		if !touched {
			t.Fatalf("%v: the bodies never touched", solver)
		}
		p1, l1 := momenta(w)
		if d := norm3(diff3(p1, p0)); d > 0.01*norm3(p0) {
			t.Errorf("%v: linear momentum changed by %.4g of %.4g", solver, d, norm3(p0))
		}
		if d := norm3(diff3(l1, l0)); d > 0.01*norm3(l0) {
			t.Errorf("%v: angular momentum changed by %.4g of %.4g", solver, d, norm3(l0))
		}
		vb := w.Bodies.Velocity[1]
		if vb.Len() < 0.5 {
			t.Errorf("%v: the struck body barely moved: v = %v", solver, vb)
		}
	}
}

// A free box spun about its intermediate principal axis flips over and over (the Dzhanibekov effect)
// while its angular momentum, which nothing acts on, stays constant.
func TestIntermediateAxisFlipKeepsAngularMomentum(t *testing.T) {
	w := NewWorld(Settings{})
	// Full sizes chosen so the principal moments are in the ratio Iz : Ix : Iy = 1 : 2 : 2.5 (x is the
	// intermediate axis). A spin of 6 rad/s about x with a 0.01 rad/s wobble grows at
	// w sqrt((Ix-Iz)(Iy-Ix)/(Iz Iy)) = 2.7 /s, so the first flip comes after about 2.4 s.
	h := mustAdd(t, w, BodyDef{Name: "handle", Shape: boxShape(0.433, 0.25, 0.661),
		AngularVelocity: Vec3{6, 0.01, 0.01}})
	i, _ := w.Index(h)
	inv := w.Bodies.InvInertiaLocal[i]
	if !(inv[0] < inv[2] && inv[0] > inv[1]) {
		t.Fatalf("x is not the intermediate axis: inverse moments %v", inv)
	}
	_, l0 := momenta(w)
	flips := 0
	sign := float32(1)
	for s := 0; s < 600; s++ {
		run(t, w, 1)
		// The body's x axis along the fixed angular momentum direction (world x): +1 or -1 between flips.
		ax := w.Bodies.Rotation[i].Rotate(Vec3{1, 0, 0})[0]
		if vecmath.Abs(ax) > 0.9 && ax*sign < 0 {
			flips++
			sign = -sign
		}
		_, l := momenta(w)
		if d := norm3(diff3(l, l0)); d > 0.02*norm3(l0) {
			t.Fatalf("step %d: angular momentum drifted %.3g%%", s, 100*d/norm3(l0))
		}
	}
	if flips < 2 {
		t.Errorf("the handle flipped %d times in 10 s, want at least 2", flips)
	}
}

// stackWorld builds n unit boxes stacked on a ground plane.
func stackWorld(t testing.TB, s Settings, n int) *World {
	w := gravityWorld(s)
	groundPlane(t, w, 0.6, 0)
	for k := 0; k < n; k++ {
		mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{0, 0.5 + float32(k), 0}, Friction: 0.6})
	}
	return w
}

func maxDrift(w *World, start []Vec3) float32 {
	d := float32(0)
	for i, p := range start {
		d = max(d, w.Bodies.Position[i].Sub(p).Len())
	}
	return d
}

// skipLong skips minute-long physics tests under the race detector or -short.
func skipLong(t *testing.T) {
	t.Helper()
	if raceEnabled || testing.Short() {
		t.Skip("long physics test: run without -race and -short")
	}
}

// standsThirtySeconds steps the world build makes under each stacking solver for 30 s and fails if a
// box drifts 2 cm or more from where it started.
func standsThirtySeconds(t *testing.T, build func(Settings) *World) {
	skipLong(t)
	for _, solver := range stackingSolvers {
		w := build(Settings{Solver: solver})
		start := append([]Vec3(nil), w.Bodies.Position...)
		run(t, w, 30*60)
		d := maxDrift(w, start)
		if d > 0.02 {
			t.Errorf("%v: a box drifted %.4f m in 30 s, want < 0.02", solver, d)
		}
		t.Logf("%v: largest drift in 30 s %.4f m", solver, d)
	}
}

func TestTwentyBoxStackStandsThirtySeconds(t *testing.T) {
	standsThirtySeconds(t, func(s Settings) *World { return stackWorld(t, s, 20) })
}

// pyramidWorld builds the pyramid20 layout: rows of unit boxes, row i centred at y = 0.5 + i, spacing 1.05.
func pyramidWorld(t testing.TB, s Settings, base int) *World {
	w := gravityWorld(s)
	groundPlane(t, w, 0.6, 0)
	for row := 0; row < base; row++ {
		n := base - row
		for k := 0; k < n; k++ {
			x := (float32(k) - float32(n-1)/2) * 1.05
			mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{x, 0.5 + float32(row), 0}, Friction: 0.6})
		}
	}
	return w
}

func TestTwentyRowPyramidStandsThirtySeconds(t *testing.T) {
	standsThirtySeconds(t, func(s Settings) *World { return pyramidWorld(t, s, 20) })
}

// A box 100 times heavier than the one it rests on must not crush through it.
func TestHeavyOnLightStackHolds(t *testing.T) {
	for _, solver := range heavyOnLightSolvers {
		w := gravityWorld(Settings{Solver: solver})
		groundPlane(t, w, 0.6, 0)
		mustAdd(t, w, BodyDef{Name: "light", Shape: boxShape(0.5, 0.25, 0.5), Position: Vec3{0, 0.25, 0}, Mass: 1, Friction: 0.6})
		mustAdd(t, w, BodyDef{Name: "heavy", Shape: boxShape(0.5, 0.25, 0.5), Position: Vec3{0, 0.75, 0}, Mass: 100, Friction: 0.6})
		run(t, w, 10*60)
		light, heavy := w.Bodies.Position[1][1], w.Bodies.Position[2][1]
		if vecmath.Abs(light-0.25) > 0.02 || vecmath.Abs(heavy-0.75) > 0.03 {
			t.Errorf("%v: light at y=%.4f (want 0.25), heavy at y=%.4f (want 0.75)", solver, light, heavy)
		}
		t.Logf("%v: light at y=%.4f, heavy at y=%.4f", solver, light, heavy)
	}
}

// A kinematic platform moving sideways carries a box resting on it by friction alone.
func TestKinematicPlatformCarriesBoxByFriction(t *testing.T) {
	for _, solver := range solvers {
		w := gravityWorld(Settings{Solver: solver})
		plat := mustAdd(t, w, BodyDef{Name: "platform", Type: Kinematic, Shape: boxShape(3, 0.1, 3),
			Position: Vec3{0, 1, 0}, Velocity: Vec3{1, 0, 0}, Friction: 0.8})
		box := mustAdd(t, w, BodyDef{Name: "box", Shape: boxShape(0.25, 0.25, 0.25), Position: Vec3{0, 1.35, 0}, Friction: 0.8})
		run(t, w, 3*60)
		ip, _ := w.Index(plat)
		ib, _ := w.Index(box)
		if x := w.Bodies.Position[ip][0]; vecmath.Abs(x-3) > 1e-3 {
			t.Errorf("%v: platform at x=%.4f, want 3 (kinematic: moves at its velocity)", solver, x)
		}
		if v := w.Bodies.Velocity[ib][0]; vecmath.Abs(v-1) > 0.02 {
			t.Errorf("%v: box moves at %.4f m/s, want the platform's 1 m/s", solver, v)
		}
		if y := w.Bodies.Position[ib][1]; vecmath.Abs(y-1.35) > 0.02 {
			t.Errorf("%v: box at height %.4f, want 1.35 (resting on the platform)", solver, y)
		}
	}
}

// binWorld builds an open-top static bin (floor and four walls, inner size 2*half x height x 2*half)
// and n unit-ish boxes in a loose grid above it, falling in.
func binWorld(t testing.TB, s Settings, n int, half, height float32) *World {
	w := gravityWorld(s)
	const wall = 0.5
	mustAdd(t, w, BodyDef{Name: "floor", Type: Static, Shape: boxShape(half+2*wall, wall, half+2*wall), Position: Vec3{0, -wall, 0}, Friction: 0.6})
	for k, p := range []Vec3{{half + wall, height / 2, 0}, {-half - wall, height / 2, 0}, {0, height / 2, half + wall}, {0, height / 2, -half - wall}} {
		ext := Vec3{wall, height / 2, half + 2*wall}
		if k >= 2 {
			ext = Vec3{half + 2*wall, height / 2, wall}
		}
		mustAdd(t, w, BodyDef{Type: Static, Shape: boxShape(ext[0], ext[1], ext[2]), Position: p, Friction: 0.6})
	}
	per := int(2*half/0.6) - 1 // boxes per row, 0.6 m apart
	for k := 0; k < n; k++ {
		layer, cell := k/(per*per), k%(per*per)
		x := -half + 0.6*float32(cell%per+1)
		z := -half + 0.6*float32(cell/per+1)
		y := height + 0.5 + 0.6*float32(layer)
		mustAdd(t, w, BodyDef{Shape: boxShape(0.2, 0.2, 0.2), Position: Vec3{x, y, z}, Friction: 0.6,
			Rotation:        mgl32.QuatRotate(0.3*float32(k%7), Vec3{1, 0.5, 0.2}.Normalize()),
			AngularVelocity: Vec3{float32(k%3) - 1, 0, float32(k%5) - 2}})
	}
	return w
}

// 1,000 boxes rained into a bin all end up inside it and come to rest.
func TestRainedBoxesStayInTheBinAndSettle(t *testing.T) {
	skipLong(t)
	const half, height = 4, 4
	w := binWorld(t, Settings{}, 1000, half, height)
	run(t, w, 10*60)
	b := &w.Bodies
	fastest := float32(0)
	for i := range b.Position {
		if b.Type[i] != Dynamic {
			continue
		}
		p := b.Position[i]
		if vecmath.Abs(p[0]) > half || vecmath.Abs(p[2]) > half || p[1] < 0 || p[1] > height {
			t.Errorf("box %s escaped the bin: at %v", b.Name[i], p)
		}
		fastest = max(fastest, b.Velocity[i].Len())
	}
	// Without sleeping a settled pile keeps a residual jiggle of a few cm/s at most; boxes still
	// tumbling or sliding move at metres per second.
	if fastest > 0.1 {
		t.Errorf("after 10 s the fastest box still moves at %.3f m/s, want < 0.1 (at rest)", fastest)
	}
	t.Logf("after 10 s the fastest box moves at %.4f m/s", fastest)
}

// Two capsules lying side by side on the ground, touching, their cores 1.2e-4 rad apart: at rest they
// stay at rest under XPBD. The lines through the cores meet 5 km away and their common perpendicular
// is vertical; taken as the contact normal it measured the capsules' whole diameter as overlap, and
// the position pass threw one of them up at over 100 m/s (the mixed preset's capsule35).
func TestXPBDNearlyParallelCapsulesLyingSideBySideStayAtRest(t *testing.T) {
	const r, hh, skew = 0.3, 0.4, 1.24e-4
	w := gravityWorld(Settings{Solver: XPBD})
	groundPlane(t, w, 0.5, 0)
	lying := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1}) // the core (local y) along x
	capsule := geom.Shape{Kind: geom.Capsule, Radius: r, HalfHeight: hh}
	mustAdd(t, w, BodyDef{Name: "a", Shape: capsule, Rotation: lying, Position: Vec3{0, r, 0}, Friction: 0.5})
	mustAdd(t, w, BodyDef{Name: "b", Shape: capsule, Rotation: mgl32.QuatRotate(skew, mgl32.Vec3{0, 1, 0}).Mul(lying),
		Position: Vec3{0, r, 2 * r}, Friction: 0.5})
	// Resting, each settles by less than its sub-steps' fall (g h^2 per sub-step); 0.05 m/s is far
	// above that and far below the throw.
	for step := 0; step < 60; step++ {
		run(t, w, 1)
		for i := 1; i < w.Bodies.Len(); i++ {
			if v := w.Bodies.Velocity[i].Len(); v > 0.05 {
				t.Fatalf("step %d: %s moves at %g m/s, want rest", step, w.Bodies.Name[i], v)
			}
		}
	}
}
