package sim

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim/geom"
)

func cylinderShape(r, hh float32) geom.Shape {
	return geom.Shape{Kind: geom.Cylinder, Radius: r, HalfHeight: hh}
}

// lyingAlongZ turns a cylinder's axis (local y) onto the world's z.
var lyingAlongZ = mgl32.QuatRotate(math.Pi/2, Vec3{1, 0, 0})

// A solid cylinder rolling without slipping down a slope of angle theta accelerates at
// a = g sin(theta) / (1 + I/(m r^2)) = 2/3 g sin(theta) (I = m r^2/2), so from rest it covers a t^2/2.
// The tolerance: semi-implicit Euler over sub-steps h puts the distance off by about a t h/2 (0.3% at
// t = 1.5 s, h = 1/240 s), the settling onto the ramp in the first steps by a little more; 2% keeps
// the test sharp against a sliding cylinder (g sin(theta), 50% more), a rolling sphere's 5/7 (7% more)
// and a cylinder that slips (friction 0.5 is well above the tan(theta)/3 = 0.12 rolling needs). The
// spin must match the speed (v = omega r) as well.
func TestCylinderRollsDownAnInclineAtTwoThirdsGSinTheta(t *testing.T) {
	const deg, r = 20.0, 0.3
	theta := deg * math.Pi / 180
	for _, solver := range []SolverKind{PGS, Jacobi} {
		w := gravityWorld(Settings{Solver: solver})
		q := mgl32.QuatRotate(float32(theta), Vec3{0, 0, 1}) // downhill is -x along the ramp
		down, up := q.Rotate(Vec3{0, -1, 0}), q.Rotate(Vec3{0, 1, 0})
		mustAdd(t, w, BodyDef{Name: "ramp", Type: Static, Shape: boxShape(20, 0.5, 2), Rotation: q,
			Position: down.Mul(0.5), Friction: 0.5})
		start := up.Mul(r)
		c := mustAdd(t, w, BodyDef{Name: "log", Shape: cylinderShape(r, 0.4), Rotation: q.Mul(lyingAlongZ),
			Position: start, Friction: 0.5})
		i, _ := w.Index(c)
		const steps = 90
		run(t, w, steps)
		tt := float64(steps) / 60
		a := 2.0 / 3.0 * g * math.Sin(theta)
		slope := q.Rotate(Vec3{-1, 0, 0})
		d := float64(w.Bodies.Position[i].Sub(start).Dot(slope))
		want := 0.5 * a * tt * tt
		v := float64(w.Bodies.Velocity[i].Dot(slope))
		spin := float64(w.Bodies.AngularVelocity[i][2])
		t.Logf("%v: rolled %.4f m in %.1f s (want %.4f), v %.4f (want %.4f), spin x r %.4f", solver, d, tt, want, v, a*tt, spin*r)
		if math.Abs(d-want) > 0.02*want {
			t.Errorf("%v: rolled %.4f m, want %.4f (2/3 g sin theta) within 2%%", solver, d, want)
		}
		if math.Abs(spin*r-v) > 0.02*math.Abs(v) {
			t.Errorf("%v: spin x r = %.4f m/s, speed %.4f: it slips", solver, spin*r, v)
		}
	}
}

// Five cylinders stand on their caps, one on another (each offset and turned against the one below),
// on the floor for ten seconds: each stays where it was put to within a centimetre and upright (the flat caps give four points a contact, not a rim
// point that would let them rock).
func TestCylindersStandOnTheirCapsInAStack(t *testing.T) {
	for _, solver := range stackingSolvers {
		w := gravityWorld(Settings{Solver: solver})
		groundPlane(t, w, 0.6, 0)
		const r, hh, n = 0.4, 0.25, 5
		for k := 0; k < n; k++ {
			// Offset 3 cm from one to the next and turned about the axis, so no rim point lines up.
			mustAdd(t, w, BodyDef{Shape: cylinderShape(r, hh), Position: Vec3{0.03 * float32(k%2), hh + 2*hh*float32(k), 0},
				Rotation: mgl32.QuatRotate(0.37*float32(k), Vec3{0, 1, 0}), Friction: 0.6})
		}
		start := append([]Vec3(nil), w.Bodies.Position...)
		run(t, w, 10*60)
		d := maxDrift(w, start)
		tilt := float32(0)
		for k := 1; k <= n; k++ {
			tilt = max(tilt, 1-w.Bodies.Rotation[k].Rotate(Vec3{0, 1, 0})[1])
		}
		t.Logf("%v: largest drift in 10 s %.4f m, largest 1 - cos(tilt) %.2g", solver, d, tilt)
		if d > 0.01 || tilt > 1e-4 {
			t.Errorf("%v: a cylinder drifted %.4f m or tilted (1 - cos %.2g) in 10 s, want < 0.01 m and upright", solver, d, tilt)
		}
	}
}

// A cylinder laid on its side on the floor rests there: its axis stays at its radius above the floor
// (less the allowed overlap, LinearSlop), it neither rolls away nor spins.
func TestCylinderRestsOnItsSideWithoutSinking(t *testing.T) {
	for _, solver := range solvers {
		w := gravityWorld(Settings{Solver: solver})
		groundPlane(t, w, 0.6, 0)
		const r = 0.3
		c := mustAdd(t, w, BodyDef{Shape: cylinderShape(r, 0.6), Position: Vec3{1, r, 2}, Rotation: lyingAlongZ, Friction: 0.6})
		i, _ := w.Index(c)
		run(t, w, 5*60)
		p, v, wv := w.Bodies.Position[i], w.Bodies.Velocity[i], w.Bodies.AngularVelocity[i]
		slop := w.Resolved().LinearSlop
		t.Logf("%v: axis at y = %.5f, moved %.5f m sideways, speed %.2g, spin %.2g", solver, p[1], math.Hypot(float64(p[0]-1), float64(p[2]-2)), v.Len(), wv.Len())
		if p[1] < r-slop-1e-3 || p[1] > r+1e-3 {
			t.Errorf("%v: axis at y = %.5f, want %.3f less at most the slop %.3f", solver, p[1], r, slop)
		}
		if math.Hypot(float64(p[0]-1), float64(p[2]-2)) > 1e-3 || v.Len() > 0.01 || wv.Len() > 0.03 {
			t.Errorf("%v: moved to %v, velocity %v, spin %v: not at rest", solver, p, v, wv)
		}
	}
}

// Every kind meets a cylinder sanely in a world: each dynamic kind dropped on a wide static
// cylinder's cap comes to rest on it, and a dynamic cylinder dropped on each static kind comes to rest
// on its cap, at the heights the shapes say (within the allowed overlap and a millimetre).
func TestCylinderRestsOnEveryKindAndEveryKindOnIt(t *testing.T) {
	hull, err := geom.NewHull([]Vec3{{-0.3, -0.2, -0.3}, {0.3, -0.2, -0.3}, {0.3, -0.2, 0.3}, {-0.3, -0.2, 0.3},
		{-0.2, 0.2, -0.2}, {0.2, 0.2, -0.2}, {0.2, 0.2, 0.2}, {-0.2, 0.2, 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	grid, err := geom.NewGridMesh(3, 12, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Dynamic shapes on a static cylinder whose cap is at y = 0.5; bottom is how far each reaches below
	// its centre of mass standing as placed.
	hullBottom := hull.Centre[1] + 0.2 // the hull's centre of mass is above its base's plane at y = -0.2
	cases := []struct {
		name   string
		shape  geom.Shape
		rot    geom.Quat
		bottom float32
	}{
		{"box", boxShape(0.3, 0.2, 0.3), mgl32.QuatIdent(), 0.2},
		{"sphere", geom.Shape{Kind: geom.Sphere, Radius: 0.25}, mgl32.QuatIdent(), 0.25},
		{"capsule lying", geom.Shape{Kind: geom.Capsule, Radius: 0.15, HalfHeight: 0.3}, lyingAlongZ, 0.15},
		{"cylinder standing", cylinderShape(0.3, 0.2), mgl32.QuatIdent(), 0.2},
		{"cylinder lying", cylinderShape(0.2, 0.4), lyingAlongZ, 0.2},
		{"hull", geom.Shape{Kind: geom.ConvexHull, Hull: hull}, hull.BodyRotation(mgl32.QuatIdent()), hullBottom},
	}
	for _, c := range cases {
		w := gravityWorld(Settings{})
		mustAdd(t, w, BodyDef{Name: "table", Type: Static, Shape: cylinderShape(2, 0.5), Friction: 0.6})
		h := mustAdd(t, w, BodyDef{Name: c.name, Shape: c.shape, Rotation: c.rot, Position: Vec3{0.1, 0.5 + c.bottom + 0.3, -0.2}, Friction: 0.6})
		run(t, w, 3*60)
		i, _ := w.Index(h)
		checkRest(t, w, i, "a "+c.name+" on a cylinder", 0.5+c.bottom)
	}
	statics := []struct {
		name  string
		shape geom.Shape
		pos   Vec3
		rot   geom.Quat
		top   float32
	}{
		{"plane", geom.Shape{Kind: geom.Plane, Normal: Vec3{0, 1, 0}}, Vec3{}, mgl32.QuatIdent(), 0},
		{"box", boxShape(2, 0.5, 2), Vec3{}, mgl32.QuatIdent(), 0.5},
		{"hull", geom.Shape{Kind: geom.ConvexHull, Hull: hull}, hull.Centre.Mul(10), hull.BodyRotation(mgl32.QuatIdent()), 0}, // placed below
		{"mesh", geom.Shape{Kind: geom.TriMesh, Mesh: grid}, Vec3{}, mgl32.QuatIdent(), 0},
	}
	for _, s := range statics {
		if s.name == "hull" {
			// The hull's top face (y = 0.2 in its points' frame) at y = 0: its centre of mass below.
			s.pos = Vec3{0, hull.Centre[1] - 0.2, 0}
		}
		w := gravityWorld(Settings{})
		mustAdd(t, w, BodyDef{Name: s.name, Type: Static, Shape: s.shape, Position: s.pos, Rotation: s.rot, Friction: 0.6})
		h := mustAdd(t, w, BodyDef{Name: "cylinder", Shape: cylinderShape(0.15, 0.3), Position: Vec3{0.05, s.top + 0.5, 0.02}, Friction: 0.6})
		run(t, w, 3*60)
		i, _ := w.Index(h)
		checkRest(t, w, i, "a cylinder on a "+s.name, s.top+0.3)
	}
}

// checkRest fails unless body i is at rest with its centre of mass at height y (less at most the
// allowed overlap, and a millimetre).
func checkRest(t *testing.T, w *World, i int, what string, y float32) {
	t.Helper()
	p, v := w.Bodies.Position[i], w.Bodies.Velocity[i]
	slop := w.Resolved().LinearSlop
	if p[1] < y-slop-1e-3 || p[1] > y+1e-3 || v.Len() > 0.02 {
		t.Errorf("%s: centre at y = %.4f, speed %.3f; want y = %.4f (less the slop %.3f) at rest", what, p[1], v.Len(), y, slop)
	}
}

// The world takes a cylinder's mass properties from its shape: m = rho pi r^2 h, I = m r^2/2 about
// its axis and m (3 r^2 + h^2)/12 across (h its whole height).
func TestCylinderBodyHasExactMassProperties(t *testing.T) {
	w := NewWorld(Settings{})
	const r, hh, rho = 0.3, 0.5, 700.0
	b := mustAdd(t, w, BodyDef{Shape: cylinderShape(r, hh), Density: rho})
	i, _ := w.Index(b)
	m := rho * math.Pi * r * r * 2 * hh
	if got := float64(1 / w.Bodies.InvMass[i]); math.Abs(got-m) > 1e-5*m {
		t.Errorf("mass %.5f, want %.5f", got, m)
	}
	ia, ip := m*r*r/2, m*(3*r*r+4*hh*hh)/12
	inv := w.Bodies.InvInertiaLocal[i]
	for k, want := range [3]float64{ip, ia, ip} {
		if got := 1 / float64(inv[k]); math.Abs(got-want) > 1e-5*want {
			t.Errorf("inertia[%d] = %.6f, want %.6f", k, got, want)
		}
	}
}

// The scene queries see cylinders: a ray from the side meets a lying cylinder's curved side at its
// radius, one from above a standing cylinder's cap; a cylinder swept down onto the floor stops on its
// cap, and a cylinder overlapping a body reports it.
func TestSceneQueriesMeetCylinders(t *testing.T) {
	w := gravityWorld(Settings{})
	groundPlane(t, w, 0.5, 0)
	log := mustAdd(t, w, BodyDef{Name: "log", Shape: cylinderShape(0.3, 1), Position: Vec3{0, 0.3, 0}, Rotation: lyingAlongZ})
	drum := mustAdd(t, w, BodyDef{Name: "drum", Shape: cylinderShape(0.5, 0.25), Position: Vec3{3, 0.25, 0}})
	if h, ok := w.RayCast(Vec3{-5, 0.3, 0.5}, Vec3{1, 0, 0}, 100, QueryFilter{}); !ok || h.Body != log ||
		math.Abs(float64(h.T)-4.7) > 1e-4 || h.Normal.Sub(Vec3{-1, 0, 0}).Len() > 1e-4 {
		t.Errorf("ray at the log's side: %+v %v, want the log at 4.7 m, normal -x", h, ok)
	}
	if h, ok := w.RayCast(Vec3{3.2, 5, 0.1}, Vec3{0, -1, 0}, 100, QueryFilter{}); !ok || h.Body != drum ||
		math.Abs(float64(h.T)-4.5) > 1e-4 || h.Normal.Sub(Vec3{0, 1, 0}).Len() > 1e-4 {
		t.Errorf("ray down on the drum: %+v %v, want the drum at 4.5 m, normal +y", h, ok)
	}
	probe := cylinderShape(0.2, 0.1)
	if h, ok, err := w.ShapeCast(probe, geom.Pose{P: Vec3{-3, 2, 0}, Q: mgl32.QuatIdent()}, Vec3{0, -1, 0}, 10, QueryFilter{}); err != nil || !ok ||
		math.Abs(float64(h.T)-1.9) > 1e-4 {
		t.Errorf("cylinder swept down onto the floor: %+v %v %v, want T = 1.9", h, ok, err)
	}
	got, err := w.Overlap(probe, geom.Pose{P: Vec3{3.6, 0.55, 0}, Q: mgl32.QuatIdent()}, QueryFilter{})
	if err != nil || len(got) != 1 || got[0] != drum {
		t.Errorf("a cylinder on the drum's rim overlaps %v (%v), want the drum", got, err)
	}
}
