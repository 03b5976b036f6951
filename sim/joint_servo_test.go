package sim

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// servoSolvers are the solvers whose joint rows drive motors: the soft step's (PGS, Jacobi), XPBD's
// position pass (every motor) and the rigid solver's velocity and position passes (a servo:
// axisPart.servoImpulse). The impulse, penalty and shape-matching
// solvers run PGS's joint rows too.
var servoSolvers = []SolverKind{PGS, Jacobi, XPBD, Rigid}

// servoArm is a 2 kg bar 1 m long hinged at one end to the world at (0, 2, 0) about z, set at the
// angle th0 from the horizontal (+x), with a position motor of torque limit tau aiming at target.
// Gravity's torque about the pivot at the hinge angle th is m g Lc cos th, Lc = 0.5 m, largest
// (9.81 N m) with the bar horizontal.
func servoArm(t *testing.T, solver SolverKind, th0, target, maxSpeed, tau float32) (*World, int) {
	t.Helper()
	w := gravityWorld(Settings{Solver: solver})
	c, s := float32(math.Cos(float64(th0))), float32(math.Sin(float64(th0)))
	h := mustAdd(t, w, BodyDef{Name: "arm", Shape: boxShape(0.5, 0.05, 0.05), Position: Vec3{0.5, 2, 0}, Mass: 2})
	mustJoint(t, w, JointDef{Type: Hinge, BodyA: h, Anchor: Vec3{0, 2, 0}, Axis: Vec3{0, 0, 1},
		HasMotor: true, Motor: Motor{Mode: MotorPosition, Target: target, Speed: maxSpeed, MaxForce: tau}})
	if err := w.SetPose(h, Vec3{0.5 * c, 2 + 0.5*s, 0}, mgl32.QuatRotate(th0, Vec3{0, 0, 1})); err != nil {
		t.Fatal(err)
	}
	return w, 0
}

const (
	armMGL = 2 * g * 0.5 // the arm's largest gravity torque, m g Lc, N m
	// servoTol is how close a servo holds its target against a load within its force (rad or m).
	// The soft step's servo row holds the load as the joint's soft rows do, with a static error of
	// the load over its stiffness (measured 4.6e-5 rad on PGS, 2.5e-5 on Jacobi); XPBD's one position pass
	// a sub-step turns the bar through its inertia about its centre, I = 0.168 kg m^2, a quarter of
	// that about the pivot, so it holds where its correction, the load's tau h^2 / I, equals the
	// error (9.81 N m (1/1200 s)^2 / I = 4e-5 rad); the rigid solver's velocity passes hold the bar
	// still and its position pass closes a fifth of the error a sub-step (measured at most 5.1e-4).
	servoTol = 1e-3
)

// setServo gives joint j of w the position motor's target.
func setServo(t *testing.T, w *World, j int, target float32) {
	t.Helper()
	d := w.Joint(j)
	d.Motor.Target = target
	if err := w.UpdateJoint(j, d); err != nil {
		t.Fatal(err)
	}
}

// A 2 kg bar 1 m long on a hinge servo with twice the torque gravity puts on it holds horizontal
// within servoTol, follows a target changed while it runs no faster than its 2 rad/s, and holds
// each new target, above and below the horizontal.
func TestServoHoldsAHeavyArmAndFollowsItsTarget(t *testing.T) {
	const maxSpeed = 2
	for _, solver := range servoSolvers {
		w, j := servoArm(t, solver, 0, 0, maxSpeed, 2*armMGL)
		hold := func(what string, target float32, steps int) {
			worst := float32(0)
			for range steps {
				run(t, w, 1)
				worst = max(worst, float32(math.Abs(float64(w.JointCoordinate(j)-target))))
			}
			if worst > servoTol {
				t.Errorf("%v: %s: off the target %.4f rad by up to %.2g rad, want <= %g", solver, what, target, worst, servoTol)
			}
		}
		hold("holding horizontal", 0, 60)
		for _, target := range []float32{math.Pi / 4, -math.Pi / 3} {
			setServo(t, w, j, target)
			from := w.JointCoordinate(j)
			fastest := float32(0)
			for range 90 {
				run(t, w, 1)
				fastest = max(fastest, float32(math.Abs(float64(w.Bodies.AngularVelocity[0][2]))))
			}
			// 1.5 s: the move takes |target - from| / 2 rad/s (0.92 s at most) plus the braking. Gravity
			// adds up to m g Lc / I h within a sub-step before the motor's rows act (I = 0.668 kg m^2).
			r := w.Resolved()
			if over := armMGL / 0.668 * r.Dt / float32(r.Substeps); fastest > maxSpeed+over {
				t.Errorf("%v: to %.4f rad from %.4f: turned at %.3f rad/s, over the servo's %v", solver, target, from, fastest, maxSpeed)
			}
			hold("after the target moved", target, 60)
		}
	}
}

// A slow servo holds as well as a fast one: its speed limit bounds how fast it moves the arm, not the
// torque it holds it with. The 2 kg, 1 m bar on a servo of 0.02 rad/s and twice its load's torque
// stays within servoTol of the horizontal over 2 s. A motor that caps the rate it asks for at the
// speed limit and reaches it through the bar's inertia about its centre, I = 0.168 kg m^2 a quarter
// of that about the pivot, pushes with at most I 0.02 rad/s a sub-step h, 4 N m at h = 1/1200 s,
// under the load's 9.81: the bar would sag until its load fell to that.
func TestSlowServoHoldsAHeavyArm(t *testing.T) {
	for _, solver := range servoSolvers {
		w, j := servoArm(t, solver, 0, 0, 0.02, 2*armMGL)
		worst := float32(0)
		for range 120 {
			run(t, w, 1)
			worst = max(worst, float32(math.Abs(float64(w.JointCoordinate(j)))))
		}
		if worst > servoTol {
			t.Errorf("%v: the slow servo's arm left the horizontal by up to %.2g rad, want <= %g", solver, worst, servoTol)
		}
	}
}

// With a torque limit of half the load (tau = m g Lc / 2), the arm released horizontal at its target
// cannot hold it: it falls with the motor pushing back at its full torque, so energy gives its lowest
// angle psi below the horizontal, m g Lc sin psi = tau psi (sin psi = psi / 2: 1.8955 rad), and it
// stalls where the load's torque equals the limit, m g Lc cos th = tau: 60 degrees below.
func TestServoStallsWhenTheLoadIsOverItsTorque(t *testing.T) {
	const psi = 1.8954943
	for _, solver := range servoSolvers {
		w, j := servoArm(t, solver, 0, 0, 0, armMGL/2)
		lowest := float32(0)
		for range 120 {
			run(t, w, 1)
			lowest = min(lowest, w.JointCoordinate(j))
		}
		if math.Abs(float64(lowest)+psi) > 0.02*psi {
			t.Errorf("%v: lowest angle %.4f rad, want -%.4f (energy, within 2%%)", solver, lowest, psi)
		}
		// Left at the stall angle at rest, it stays there.
		w, j = servoArm(t, solver, -math.Pi/3, 0, 0, armMGL/2)
		worst := 0.0
		for range 120 {
			run(t, w, 1)
			worst = max(worst, math.Abs(float64(w.JointCoordinate(j))+math.Pi/3))
		}
		t.Logf("%v: lowest %.4f rad (want -%.4f); at the stall angle it moves %.2g rad", solver, lowest, psi, worst)
		if worst > 0.01 {
			t.Errorf("%v: left at the stall angle -60 degrees, moved %.3g rad, want <= 0.01", solver, worst)
		}
	}
}

// A 5 kg block on a vertical piston servo with 100 N (twice its weight) rises to 0.5 m at up to
// 1 m/s and holds it within servoTol, its joint's force its weight; sent to -0.3 m while it runs, it
// goes there. (XPBD's force is its last sub-step's correction over h^2, the sub-step's fall g h^2 =
// 6.8e-6 m at h = 1/1200 s measured on float32 positions of 2.4e-7 m steps near 3 m: 3.5%.) With 30 N, under
// its weight, it cannot rise: it sinks at g - 30 / 5 = 3.81 m/s^2, the motor pushing at its limit.
func TestServoPistonReachesAndHoldsATravel(t *testing.T) {
	for _, solver := range servoSolvers {
		for _, force := range []float32{100, 30} {
			w := gravityWorld(Settings{Solver: solver})
			h := mustAdd(t, w, BodyDef{Name: "block", Shape: boxShape(0.2, 0.2, 0.2), Position: Vec3{0, 3, 0}, Mass: 5})
			mustJoint(t, w, JointDef{Type: Piston, BodyA: h, Anchor: Vec3{0, 3, 0}, Axis: Vec3{0, 1, 0},
				HasMotor: true, Motor: Motor{Mode: MotorPosition, Target: 0.5, Speed: 1, MaxForce: force}})
			if force < 5*g {
				run(t, w, 30)
				want := -(g - float64(force)/5) * 0.5
				if v := float64(w.Bodies.Velocity[0][1]); math.Abs(v-want) > 0.01*math.Abs(want) {
					t.Errorf("%v: overloaded servo at %.4f m/s after 0.5 s, want %.4f", solver, v, want)
				}
				continue
			}
			for _, target := range []float32{0.5, -0.3} {
				setServo(t, w, 0, target)
				run(t, w, 90) // 0.8 m at 1 m/s, and braking
				worst := float32(0)
				for range 30 {
					run(t, w, 1)
					worst = max(worst, float32(math.Abs(float64(w.JointCoordinate(0)-target))))
				}
				if worst > servoTol {
					t.Errorf("%v: piston off its target %.2f m by up to %.2g m, want <= %g", solver, target, worst, servoTol)
				}
				if f := w.JointState(0).Force; math.Abs(float64(f)-5*g) > 0.05*5*g {
					t.Errorf("%v: piston holding at %.2f m reports %.2f N, want its load's %.2f within 5%%", solver, target, f, 5*g)
				}
			}
		}
	}
}

// A hinge servo without limits turns the short way round: from 3 rad to -3 rad it passes pi (0.28 rad
// of turning), not 0 (6 rad). With limits its coordinate cannot pass pi, so it goes through 0.
func TestServoHingeTakesTheShortWayRound(t *testing.T) {
	for _, limits := range []bool{false, true} {
		w := NewWorld(Settings{})
		h := mustAdd(t, w, BodyDef{Name: "wheel", Shape: sphereShape(0.5), Position: Vec3{0, 1, 0}, Mass: 10})
		d := JointDef{Type: Hinge, BodyA: h, Anchor: Vec3{0, 1, 0}, Axis: Vec3{0, 0, 1}, HasMotor: true,
			Motor: Motor{Mode: MotorPosition, Target: 3, MaxForce: 50}, HasLimits: limits, Limits: [2]float32{-3.1, 3.1}}
		mustJoint(t, w, d)
		run(t, w, 60)
		setServo(t, w, 0, -3)
		passedZero := false
		for range 120 {
			run(t, w, 1)
			if x := w.JointCoordinate(0); x > -1 && x < 1 {
				passedZero = true
			}
		}
		if x := w.JointCoordinate(0); math.Abs(float64(x+3)) > servoTol || passedZero != limits {
			t.Errorf("limits %v: at %.4f rad (want -3), passed through 0: %v (want %v)", limits, x, passedZero, limits)
		}
	}
}

// A position motor's mode and target are checked as its other parameters are.
func TestServoRefusesABadTarget(t *testing.T) {
	for _, m := range []Motor{
		{Mode: MotorPosition, Target: float32(math.NaN()), MaxForce: 1},
		{Mode: MotorPosition, Target: 3.2, MaxForce: 1},
		{Mode: MotorPosition + 1, MaxForce: 1},
	} {
		w := NewWorld(Settings{})
		h := mustAdd(t, w, BodyDef{Shape: sphereShape(0.5), Mass: 1})
		if _, err := w.AddJoint(JointDef{Type: Hinge, BodyA: h, Axis: Vec3{0, 0, 1}, HasMotor: true, Motor: m}); err == nil {
			t.Errorf("%+v: accepted", m)
		}
	}
}

// A servo reaches a new target at its stated speed: the 2 kg, 1 m bar held horizontal by a 2 rad/s
// servo of twice its load's torque, given a target pi/4 above or pi/3 below, comes within 0.01 rad of
// it by 0.1 s after |target| / 2 rad/s (the move at full speed; the rest is the start and the
// braking: measured 0.07 s up and 0.03 s down under every solver). Holding it afterwards is
// TestServoHoldsAHeavyArmAndFollowsItsTarget's.
func TestServoReachesANewTargetAtItsSpeed(t *testing.T) {
	const maxSpeed, slack = 2, 0.1
	for _, solver := range servoSolvers {
		for _, target := range []float32{math.Pi / 4, -math.Pi / 3} {
			w, j := servoArm(t, solver, 0, 0, maxSpeed, 2*armMGL)
			run(t, w, 30)
			setServo(t, w, j, target)
			dt := float64(w.Resolved().Dt)
			steps := int(math.Ceil((math.Abs(float64(target))/maxSpeed + slack) / dt))
			closest := math.Inf(1)
			for range steps {
				run(t, w, 1)
				closest = min(closest, math.Abs(float64(w.JointCoordinate(j)-target)))
			}
			if closest > 0.01 {
				t.Errorf("%v: within %.3f s of the target moving to %.4f rad the bar came %.3f rad near it, want <= 0.01", solver, float64(steps)*dt, target, closest)
			}
		}
	}
}
