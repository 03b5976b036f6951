package sim

import (
	"math"
	"testing"
	"tumble/sim/internal/vecmath"

	"github.com/go-gl/mathgl/mgl32"
)

// frictionSolvers are the solvers whose joint rows carry joint friction as they carry motors
// (servoSolvers): the soft step's (PGS, Jacobi), XPBD's position pass and the rigid solver's
// velocity passes. The impulse and penalty solvers run PGS's rows too, but hold neither a motor's nor
// friction's torque to its bound (their one pass a sub-step), so they are not held to these figures.
var frictionSolvers = servoSolvers

// A wheel (a 10 kg sphere of radius 0.5 m: I = 2/5 m r^2 = 1 kg m^2) spinning at w0 = 4 rad/s on a
// joint with friction T = 2 N m through its centre (gravity puts no torque on it) decelerates at T / I
// = 2 rad/s^2 and stops at t = I w0 / T = 2 s: on a hinge about its axis, on a ball joint about any
// axis (its friction bounds the torque's magnitude, so the spin keeps its direction). A piston's
// slider (2 kg at 3 m/s along a friction of 4 N, no gravity) stops at m v0 / F = 1.5 s the same way.
// The sub-step integrates the constant deceleration exactly, so the bound is the step's 1/60 s in
// the stopping time and float32 rounding in the speed (1%).
func TestJointFrictionStopsASpinAtIOmegaOverT(t *testing.T) {
	const (
		w0, torque, inertia = 4.0, 2.0, 1.0
		v0, force, mass     = 3.0, 4.0, 2.0
	)
	spinAxis := Vec3{1, 2, 3}.Normalize()
	cases := []struct {
		name  string
		joint JointType
		axis  Vec3    // the hinge's or piston's axis, the ball's spin
		rate0 float32 // initial speed along it
		decel float32 // T / I or F / m
	}{
		{"hinge", Hinge, Vec3{0, 0, 1}, w0, torque / inertia},
		{"ball", Ball, spinAxis, w0, torque / inertia},
		{"piston", Piston, Vec3{1, 0, 0}, v0, force / mass},
	}
	for _, c := range cases {
		for _, solver := range frictionSolvers {
			w := NewWorld(Settings{Solver: solver, Gravity: Vec3{}})
			d := BodyDef{Name: "wheel", Shape: sphereShape(0.5), Position: Vec3{0, 1, 0}, Mass: 10, AngularVelocity: c.axis.Mul(c.rate0)}
			jd := JointDef{Type: c.joint, Anchor: Vec3{0, 1, 0}, Axis: c.axis, Friction: torque}
			if c.joint == Ball {
				jd.Axis = Vec3{}
			}
			if c.joint == Piston {
				d = BodyDef{Name: "slider", Shape: boxShape(0.1, 0.1, 0.1), Position: Vec3{0, 1, 0}, Mass: mass, Velocity: c.axis.Mul(c.rate0)}
				jd.Friction = force
			}
			h := mustAdd(t, w, d)
			jd.BodyA = h
			mustJoint(t, w, jd)
			i, _ := w.Index(h)
			rate := func() float32 {
				if c.joint == Piston {
					return w.Bodies.Velocity[i].Dot(c.axis)
				}
				return w.Bodies.AngularVelocity[i].Dot(c.axis)
			}
			dt := w.Resolved().Dt
			stop := c.rate0 / c.decel
			steps := int(math.Round(float64(stop / dt)))
			for s := 1; s <= steps+30; s++ {
				run(t, w, 1)
				tt := float32(s) * dt
				want := max(c.rate0-c.decel*tt, 0)
				if got := rate(); math.Abs(float64(got-want)) > 0.01*float64(c.rate0)+1e-4 {
					t.Errorf("%s, %v: at %.3f s the speed is %.4f, want %.4f (stops at %.3f s)", c.name, solver, tt, got, want, stop)
					break
				}
			}
			if c.joint == Ball {
				if off := w.Bodies.AngularVelocity[i].Len(); off > 1e-4 {
					t.Errorf("ball, %v: still turning at %.2g rad/s after it should have stopped", solver, off)
				}
			}
		}
	}
}

// A 2 kg bar 1 m long hangs from a joint at one end, held at rest at theta = 60 degrees from the
// downward vertical: gravity's torque about the pivot is m g (L / 2) sin(theta) = 8.50 N m. With
// joint friction above it (1.1 times) the bar stays where it is; below it (0.8 times) it swings down,
// from rest at the angular acceleration (m g l sin(theta) - T) / I, I = m L^2 / 3, within 5% over the
// first 0.1 s (the torque changes by 2% as it turns). On a hinge about the bar's swing axis and on a
// ball joint.
//
// Held, the bar may turn at most by what it falls freely in its first step, alpha dt^2 / 2 (alpha =
// m g l sin(theta) / I), before the friction catches it, and must not creep after: from 0.1 s to 2 s
// it turns less than 1e-5 rad, float32's resolution of its orientation (6e-8 a quaternion
// component) over the 2,280 sub-steps' rounding. A friction that acts only on the velocity, after a
// position pass that has already let the pose fall by alpha h^2 (h the sub-step), creeps at a rate
// of order alpha h (0.04 rad/s at 20 sub-steps): XPBD's position-level friction must not. The rigid
// solver's swing (its position passes also turn the bar) starts within 10%.
func TestJointFrictionHoldsAPendulumBelowItsTorque(t *testing.T) {
	const (
		m, l  = 2.0, 1.0
		theta = math.Pi / 3
	)
	load := float32(m * g * l / 2 * math.Sin(theta))
	inertia := float32(m * l * l / 3)
	const creep = 1e-5
	for _, typ := range []JointType{Hinge, Ball} {
		for _, solver := range frictionSolvers {
			for _, ratio := range []float32{1.1, 0.8} {
				w := gravityWorld(Settings{Solver: solver})
				pivot := Vec3{0, 2, 0}
				dir := Vec3{float32(math.Sin(theta)), -float32(math.Cos(theta)), 0}
				h := mustAdd(t, w, BodyDef{Name: "bar", Shape: boxShape(0.05, l/2, 0.05), Mass: m,
					Position: pivot.Add(dir.Mul(l / 2)), Rotation: mgl32.QuatRotate(theta, Vec3{0, 0, 1})})
				jd := JointDef{Type: typ, BodyA: h, Anchor: pivot, Axis: Vec3{0, 0, 1}, Friction: ratio * load}
				if typ == Ball {
					jd.Axis = Vec3{}
				}
				mustJoint(t, w, jd)
				i, _ := w.Index(h)
				if ratio > 1 {
					q0 := mgl32.QuatRotate(theta, Vec3{0, 0, 1})
					run(t, w, 6)
					q1 := w.Bodies.Rotation[i]
					run(t, w, 114)
					if om := w.Bodies.AngularVelocity[i].Len(); om > 1e-3 {
						t.Errorf("%v, %v: friction %.2f N m against a load of %.2f N m: turning at %.2g rad/s after 2 s, want at rest",
							typ, solver, ratio*load, load, om)
					}
					// The angle between two orientations, 2 |vec(q p^-1)|: exact near 0, where
					// acos of their dot product resolves only 7e-4 rad in float32.
					turn := func(q, p Quat) float64 { return 2 * float64(q.Mul(p.Conjugate()).V.Len()) }
					r := w.Resolved()
					fall := float64(load/inertia) * float64(r.Dt*r.Dt) / 2
					if ang := turn(w.Bodies.Rotation[i], q0); ang > fall {
						t.Errorf("%v, %v: friction above the load: the bar turned %.2g rad in 2 s, want it caught within its first step's fall (%.2g)", typ, solver, ang, fall)
					}
					if ang := turn(w.Bodies.Rotation[i], q1); ang > creep {
						t.Errorf("%v, %v: friction above the load: the bar crept %.2g rad from 0.1 s to 2 s, want it held (within %.2g)", typ, solver, ang, creep)
					}
					continue
				}
				run(t, w, 6)
				tt := 6 * w.Resolved().Dt
				want := (load - ratio*load) / inertia * tt
				tol := 0.05
				if solver == Rigid {
					tol = 0.1
				}
				// Swinging down turns the bar about -z.
				if got := -w.Bodies.AngularVelocity[i][2]; math.Abs(float64(got-want)) > tol*float64(want) {
					t.Errorf("%v, %v: friction %.2f N m below the load %.2f N m: %.4f rad/s after %.2f s, want %.4f",
						typ, solver, ratio*load, load, got, tt, want)
				}
			}
		}
	}
}

// A hinge's motor takes the place of its friction: with both, the wheel reaches the motor's speed
// as it does without friction.
func TestHingeMotorOverridesFriction(t *testing.T) {
	for _, solver := range frictionSolvers {
		w := NewWorld(Settings{Solver: solver})
		h := mustAdd(t, w, BodyDef{Name: "wheel", Shape: sphereShape(0.5), Position: Vec3{0, 1, 0}, Mass: 10})
		mustJoint(t, w, JointDef{Type: Hinge, BodyA: h, Anchor: Vec3{0, 1, 0}, Axis: Vec3{0, 0, 1},
			HasMotor: true, Motor: Motor{Speed: 4, MaxForce: 2}, Friction: 100})
		i, _ := w.Index(h)
		run(t, w, 180)
		if om := w.Bodies.AngularVelocity[i][2]; math.Abs(float64(om-4)) > 1e-3 {
			t.Errorf("%v: wheel at %.4f rad/s, want the motor's 4 (friction 100 N m ignored)", solver, om)
		}
	}
}

// Friction is checked as the other parameters are: finite, not negative, and not on a fixed joint.
func TestJointFrictionIsChecked(t *testing.T) {
	for _, c := range []struct {
		typ JointType
		f   float32
	}{{Hinge, -1}, {Ball, float32(math.NaN())}, {Piston, float32(math.Inf(1))}, {Fixed, 1}} {
		w := NewWorld(Settings{})
		h := mustAdd(t, w, BodyDef{Name: "b", Shape: sphereShape(0.5), Mass: 1})
		if _, err := w.AddJoint(JointDef{Type: c.typ, BodyA: h, Axis: Vec3{0, 0, 1}, Friction: c.f}); err == nil {
			t.Errorf("%v with friction %v: added, want an error", c.typ, c.f)
		}
	}
}

// Editing a joint's friction drops only the friction row's impulse: a ball joint's friction part, a
// hinge's motor row (which carries its friction when it has no motor); with a motor on, a friction
// edit changes nothing the solver holds.
func TestUpdateJointFrictionDropsOnlyItsImpulse(t *testing.T) {
	for _, typ := range []JointType{Ball, Hinge} {
		w := gravityWorld(Settings{Solver: PGS})
		h := mustAdd(t, w, BodyDef{Name: "bar", Shape: boxShape(0.05, 0.5, 0.05), Mass: 2,
			Position: Vec3{0.5, 2, 0}, Rotation: mgl32.QuatRotate(math.Pi/2, Vec3{0, 0, 1})})
		d := JointDef{Type: typ, BodyA: h, Anchor: Vec3{0, 2, 0}, Axis: Vec3{0, 0, 1}, Friction: 20}
		if typ == Ball {
			d.Axis = Vec3{}
		}
		mustJoint(t, w, d)
		run(t, w, 30) // held horizontal by its friction
		j := &w.joints[0]
		fric, point := j.fric.impulse.Dot(j.fric.impulse), j.point.impulse
		if typ == Hinge {
			fric = vecmath.Abs(j.angle.motor.impulse)
		}
		if fric == 0 || point == (vec{}) {
			t.Fatalf("%v: friction impulse %g, point %v: want both non-zero", typ, fric, point)
		}
		d.Friction = 15
		if err := w.UpdateJoint(0, d); err != nil {
			t.Fatal(err)
		}
		if j.fric.impulse != (vec{}) || j.angle.motor.impulse != 0 || j.point.impulse != point {
			t.Errorf("%v: after a friction edit: friction %v, motor row %g (want 0), point %v (want %v)",
				typ, j.fric.impulse, j.angle.motor.impulse, j.point.impulse, point)
		}
	}
	if r := ChangedRows(JointDef{Type: Hinge, HasMotor: true, Friction: 1}, JointDef{Type: Hinge, HasMotor: true, Friction: 2}); r != 0 {
		t.Errorf("a friction edit on a hinge with a motor: rows %b stale, want none", r)
	}
}
