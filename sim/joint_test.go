package sim

import (
	"math"
	"testing"
	"tumble/sim/internal/vecmath"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim/geom"
)

// jointSolvers are the solvers that claim joints; every joint test runs under each.
var jointSolvers = []SolverKind{PGS, Jacobi, XPBD}

func sphereShape(r float32) geom.Shape { return geom.Shape{Kind: geom.Sphere, Radius: r} }

func mustJoint(t testing.TB, w *World, d JointDef) {
	t.Helper()
	if _, err := w.AddJoint(d); err != nil {
		t.Fatal(err)
	}
}

// A simple pendulum (a small heavy bob on a ball joint, 1 m, released at 0.1 rad) swings with the
// period 2 pi sqrt(L/g) (1 + theta0^2/16) and keeps its amplitude. The semi-implicit integrator's
// phase error over 10 s at 480 Hz sub-steps is of order (omega h)^2 omega t / 24, well under 1e-4
// here; the finite-amplitude term is 6e-4. So 1% is the bound, not the integrator's limit:
// the test also reports the error.
func TestPendulumPeriodAndAmplitude(t *testing.T) {
	const L, th0 = 1.0, 0.1
	want := 2 * math.Pi * math.Sqrt(L/g) * (1 + th0*th0/16)
	for _, solver := range jointSolvers {
		w := gravityWorld(Settings{Solver: solver})
		pos := Vec3{float32(L * math.Sin(th0)), float32(2 - L*math.Cos(th0)), 0}
		h := mustAdd(t, w, BodyDef{Name: "bob", Shape: sphereShape(0.02), Position: pos, Mass: 1})
		mustJoint(t, w, JointDef{Type: Ball, BodyA: h, Anchor: Vec3{0, 2, 0}})
		i, _ := w.Index(h)
		prev := w.Bodies.Position[i][0]
		var crossings []float64
		amp := float32(0)
		dt := float64(w.Resolved().Dt)
		for s := 0; s < 600; s++ {
			run(t, w, 1)
			x := w.Bodies.Position[i][0]
			if prev > 0 && x <= 0 {
				crossings = append(crossings, w.Time-float64(x/(x-prev))*dt)
			}
			prev = x
			if s >= 600-int(want/dt) {
				amp = max(amp, x)
			}
		}
		n := len(crossings)
		if n < 4 {
			t.Fatalf("%v: %d swings in 10 s", solver, n)
		}
		period := (crossings[n-1] - crossings[0]) / float64(n-1)
		if rel := math.Abs(period-want) / want; rel > 0.01 {
			t.Errorf("%v: period %.5f s, want %.5f (off by %.3f%%)", solver, period, want, 100*rel)
		} else {
			t.Logf("%v: period %.5f s, want %.5f (off by %.3f%%)", solver, period, want, 100*math.Abs(period-want)/want)
		}
		a0 := float32(L * math.Sin(th0))
		if amp < 0.9*a0 {
			t.Errorf("%v: amplitude after 10 s %.4f m, want >= 90%% of %.4f", solver, amp, a0)
		} else {
			t.Logf("%v: amplitude kept %.2f%%", solver, 100*amp/a0)
		}
	}
}

// A bar hinged to the world with limits [-30, 30] degrees, spun hard into its limits and then
// left under gravity, never passes a limit by more than one degree.
func TestHingeAngleStaysWithinLimits(t *testing.T) {
	const lim = 0.5236
	for _, solver := range jointSolvers {
		for _, spin := range []float32{5, -20} {
			w := gravityWorld(Settings{Solver: solver})
			h := mustAdd(t, w, BodyDef{Name: "bar", Shape: boxShape(0.5, 0.05, 0.05), Position: Vec3{0.5, 2, 0},
				AngularVelocity: Vec3{0, 0, spin}, Velocity: Vec3{0, 0.5 * spin, 0}, Mass: 1})
			mustJoint(t, w, JointDef{Type: Hinge, BodyA: h, Anchor: Vec3{0, 2, 0}, Axis: Vec3{0, 0, 1},
				HasLimits: true, Limits: [2]float32{-lim, lim}})
			worst := float32(0)
			for s := 0; s < 300; s++ {
				run(t, w, 1)
				// The bar's own angle: its x axis against the world's.
				i, _ := w.Index(h)
				x := w.Bodies.Rotation[i].Rotate(Vec3{1, 0, 0})
				a := float32(math.Atan2(float64(x[1]), float64(x[0])))
				worst = max(worst, vecmath.Abs(a)-lim)
			}
			if worst > 1*math.Pi/180 {
				t.Errorf("%v spin %v: angle passed its limit by %.3f degrees", solver, spin, worst*180/math.Pi)
			} else {
				t.Logf("%v spin %v: worst excess %.3f degrees", solver, spin, max(worst, 0)*180/math.Pi)
			}
		}
	}
}

// A block on a horizontal piston, pushed along the axis and kicked sideways and in spin, slides only
// along the axis: lateral drift under 1 mm and no rotation.
func TestPistonHoldsItsAxis(t *testing.T) {
	for _, solver := range jointSolvers {
		w := gravityWorld(Settings{Solver: solver})
		h := mustAdd(t, w, BodyDef{Name: "slider", Shape: boxShape(0.2, 0.1, 0.1), Position: Vec3{0, 1, 0},
			Velocity: Vec3{1, 0.5, -0.5}, AngularVelocity: Vec3{1, 2, 3}, Mass: 2})
		mustJoint(t, w, JointDef{Type: Piston, BodyA: h, Anchor: Vec3{0, 1, 0}, Axis: Vec3{1, 0, 0},
			HasLimits: true, Limits: [2]float32{-1, 1}})
		drift, turn := float32(0), float32(0)
		i, _ := w.Index(h)
		for s := 0; s < 300; s++ {
			run(t, w, 1)
			p := w.Bodies.Position[i]
			drift = max(drift, vecmath.Sqrt((p[1]-1)*(p[1]-1)+p[2]*p[2]))
			q := w.Bodies.Rotation[i]
			turn = max(turn, 2*float32(math.Asin(float64(min(q.V.Len(), 1)))))
		}
		// The kick is removed in the first step; what remains is the soft rows' sag under gravity.
		if drift > 1e-3 || turn > 1e-3 {
			t.Errorf("%v: lateral drift %.3g m (want < 1e-3), rotation %.3g rad (want < 1e-3)", solver, drift, turn)
		} else {
			t.Logf("%v: lateral drift %.3g m, rotation %.3g rad", solver, drift, turn)
		}
	}
}

// chainWorld hangs n capsule links of length l (the last weighing ratio times a link) from a fixed
// point, starting horizontal, and returns the world and the first and last link's handles.
func chainWorld(t testing.TB, s Settings, n int, l, ratio float32, hanging bool) (*World, []Handle) {
	w := gravityWorld(s)
	const y0 = 20
	var links []Handle
	var prev Handle
	dir, rot := Vec3{1, 0, 0}, mgl32.QuatRotate(math.Pi/2, Vec3{0, 0, 1})
	if hanging {
		dir, rot = Vec3{0, -1, 0}, mgl32.QuatIdent()
	}
	for k := 0; k < n; k++ {
		mass := float32(1)
		if k == n-1 {
			mass = ratio
		}
		h := mustAdd(t, w, BodyDef{Shape: geom.Shape{Kind: geom.Capsule, Radius: 0.05, HalfHeight: l/2 - 0.05},
			Position: Vec3{0, y0, 0}.Add(dir.Mul((float32(k) + 0.5) * l)), Rotation: rot, Mass: mass})
		d := JointDef{Type: Ball, BodyA: h, BodyB: prev, Anchor: Vec3{0, y0, 0}.Add(dir.Mul(float32(k) * l))}
		mustJoint(t, w, d)
		links = append(links, h)
		prev = h
	}
	return w, links
}

// chainStretch is the largest relative gap between neighbouring links' anchors, over the chain length.
func chainStretch(w *World, links []Handle, l float32) float32 {
	b := &w.Bodies
	end := func(h Handle, s float32) Vec3 {
		i, _ := w.Index(h)
		return b.Position[i].Add(b.Rotation[i].Rotate(Vec3{0, s * l / 2, 0}))
	}
	var gap float32
	top := Vec3{0, 20, 0}
	gap += end(links[0], 1).Sub(top).Len()
	for k := 1; k < len(links); k++ {
		gap += end(links[k], 1).Sub(end(links[k-1], -1)).Len()
	}
	return gap / (float32(len(links)) * l)
}

// A 30-link chain released horizontally swings down; its joints open by under 1% of its length.
func TestThirtyLinkChainStretchesUnderOnePercent(t *testing.T) {
	skipLong(t)
	const n, l = 30, 0.2
	for _, solver := range jointSolvers {
		w, links := chainWorld(t, Settings{Solver: solver}, n, l, 1, false)
		worst := float32(0)
		for s := 0; s < 5*60; s++ {
			run(t, w, 1)
			worst = max(worst, chainStretch(w, links, l))
		}
		if worst > 0.01 {
			t.Errorf("%v: chain stretched by %.3f%% (want < 1%%)", solver, 100*worst)
		} else {
			t.Logf("%v: worst stretch %.4f%%", solver, 100*worst)
		}
	}
}

// A hanging chain of 10 links whose last link weighs 100 times the others, kicked sideways, stays
// together: nothing blows up and its joints stay open by under 2% of its length. The gap is the soft
// joints' sag under the 100:1 load, k = m_eff omega^2 per joint with m_eff about a light link's mass:
// PGS sags about 0.7%; Jacobi, whose split masses and lower joint frequency make each joint about 4x
// softer, about 1.5% at the kick.
func TestHeavyEndChainIsStable(t *testing.T) {
	skipLong(t)
	const n, l = 10, 0.2
	for _, solver := range jointSolvers {
		s := Settings{Solver: solver}
		w, links := chainWorld(t, s, n, l, 100, true)
		i, _ := w.Index(links[n-1])
		w.Bodies.Velocity[i] = Vec3{1, 0, 0.5}
		worst := float32(0)
		for s := 0; s < 10*60; s++ {
			run(t, w, 1)
			worst = max(worst, chainStretch(w, links, l))
		}
		if worst > 0.02 {
			t.Errorf("%v: 1:100 chain stretched by %.3f%% (want < 2%%)", solver, 100*worst)
		} else {
			t.Logf("%v: 1:100 chain worst stretch %.4f%%, end at %v", solver, 100*worst, w.Bodies.Position[i])
		}
	}
}

// A motor on a free wheel (I about its axle known) accelerates it at no more than maxTorque / I and
// reaches and holds its target speed.
func TestHingeMotorReachesSpeedWithinTorqueCap(t *testing.T) {
	const speed, maxTorque = 4.0, 2.0
	for _, solver := range jointSolvers {
		w := NewWorld(Settings{Solver: solver})
		h := mustAdd(t, w, BodyDef{Name: "wheel", Shape: sphereShape(0.5), Position: Vec3{0, 1, 0}, Mass: 10})
		mustJoint(t, w, JointDef{Type: Hinge, BodyA: h, Anchor: Vec3{0, 1, 0}, Axis: Vec3{0, 0, 1},
			HasMotor: true, Motor: Motor{Speed: speed, MaxForce: maxTorque}})
		i, _ := w.Index(h)
		inertia := 0.4 * 10 * 0.25 // 2/5 m r^2 = 1 kg m^2: alpha = 2 rad/s^2, 2 s to the speed
		// The motor's angular impulse up to time t is at most maxTorque t, so the wheel, from rest,
		// turns at most maxTorque t / I (to float32 rounding, 1e-3 rad/s).
		dt := float64(w.Resolved().Dt)
		worst := 0.0
		for s := 1; s <= 4*60; s++ {
			run(t, w, 1)
			om := float64(w.Bodies.AngularVelocity[i][2])
			bound := maxTorque / inertia * float64(s) * dt
			if om > bound*1.001+1e-3 {
				t.Fatalf("%v: step %d: %.5f rad/s, more than the torque cap allows (%.5f)", solver, s, om, bound)
			}
			if s*int(dt*1e6) < 1.9e6 {
				worst = max(worst, om/bound)
			}
		}
		t.Logf("%v: while accelerating, the wheel reached %.4f of the capped torque's speed", solver, worst)
		if om := w.Bodies.AngularVelocity[i][2]; vecmath.Abs(om-speed) > 1e-3 {
			t.Errorf("%v: wheel at %.4f rad/s, want the motor's %.1f", solver, om, speed)
		}
	}
}

// Newton's cradle: five balls 1 cm apart on hinges, restitution 1; the first is raised
// and released. The momentum goes through: the last ball rises at least 70% of the first's drop.
func TestNewtonsCradleSendsMomentumThrough(t *testing.T) {
	const r, L, gap = 0.1, 1.0, 0.01
	const drop = 0.2
	for _, solver := range jointSolvers {
		w := gravityWorld(Settings{Solver: solver, Dt: 1.0 / 240, Substeps: 4, RestitutionThreshold: 0.05})
		var balls []Handle
		for k := 0; k < 5; k++ {
			x := float32(k) * (2*r + gap)
			pos := Vec3{x, 2 - L, 0}
			if k == 0 {
				th := math.Acos(1 - drop/L)
				pos = Vec3{x - float32(L*math.Sin(th)), float32(2 - L*math.Cos(th)), 0}
			}
			h := mustAdd(t, w, BodyDef{Shape: sphereShape(r), Position: pos, Mass: 1, Restitution: 1, Friction: 0})
			mustJoint(t, w, JointDef{Type: Hinge, BodyA: h, Anchor: Vec3{x, 2, 0}, Axis: Vec3{0, 0, 1}})
			balls = append(balls, h)
		}
		last, _ := w.Index(balls[4])
		rise := float32(0)
		for s := 0; s < 240; s++ {
			run(t, w, 1)
			rise = max(rise, w.Bodies.Position[last][1]-(2-L))
		}
		if rise < 0.7*drop {
			t.Errorf("%v: last ball rose %.4f m, want >= 70%% of %.2f", solver, rise, drop)
		} else {
			t.Logf("%v: last ball rose %.1f%% of the drop", solver, 100*rise/drop)
		}
	}
}

// A joint with a break force holds a light load and breaks under a heavy one, and says so.
func TestJointBreaksAboveItsBreakForce(t *testing.T) {
	for _, solver := range jointSolvers {
		for _, mass := range []float32{1, 10} {
			w := gravityWorld(Settings{Solver: solver})
			h := mustAdd(t, w, BodyDef{Shape: sphereShape(0.1), Position: Vec3{0, 1, 0}, Mass: mass})
			mustJoint(t, w, JointDef{Type: Fixed, BodyA: h, Anchor: Vec3{0, 1, 0}, BreakForce: 50})
			broken := 0
			for s := 0; s < 60; s++ {
				run(t, w, 1)
				broken += len(w.Broken)
			}
			want := 0
			if mass*g > 50 {
				want = 1
			}
			if broken != want || w.NumJoints() != 1-want {
				t.Errorf("%v mass %v: %d broken, %d joints left; want %d broken", solver, mass, broken, w.NumJoints(), want)
			}
		}
	}
}

// A limb on a ball joint with a 30 degree swing cone and twist limits of +-20 degrees, hanging
// and kicked into both, stays inside them to within a degree.
func TestBallSwingAndTwistLimitsHold(t *testing.T) {
	const swing, twist = 0.5236, 0.349
	for _, solver := range jointSolvers {
		w := gravityWorld(Settings{Solver: solver})
		h := mustAdd(t, w, BodyDef{Shape: geom.Shape{Kind: geom.Capsule, Radius: 0.05, HalfHeight: 0.2},
			Position: Vec3{0, 1.75, 0}, Velocity: Vec3{3, 0, 1}, AngularVelocity: Vec3{0, 15, 0}, Mass: 1})
		mustJoint(t, w, JointDef{Type: Ball, BodyA: h, Anchor: Vec3{0, 2, 0}, Axis: Vec3{0, 1, 0},
			Swing: swing, HasTwist: true, Twist: [2]float32{-twist, twist}})
		j := &w.joints[0]
		worstS, worstT := float32(-1), float32(-1)
		for s := 0; s < 300; s++ {
			run(t, w, 1)
			_, _, _, sw, tw := swingTwist(j, &w.Bodies.rot[0], &identity3)
			worstS = max(worstS, sw-swing)
			worstT = max(worstT, vecmath.Abs(tw)-twist)
		}
		if worstS < -0.01 || worstT < -0.01 {
			t.Fatalf("%v: the kick did not reach the limits (swing %.3f, twist %.3f rad from them)", solver, worstS, worstT)
		}
		if worstS > math.Pi/180 || worstT > math.Pi/180 {
			t.Errorf("%v: swing passed its cone by %.3f degrees, twist its limit by %.3f", solver, worstS*180/math.Pi, worstT*180/math.Pi)
		} else {
			t.Logf("%v: worst excess swing %.3f, twist %.3f degrees", solver, worstS*180/math.Pi, worstT*180/math.Pi)
		}
	}
}

// The solver can be switched between steps: a pendulum handed from PGS to Jacobi to XPBD and back
// every half second keeps its length and its period.
func TestSolverSwitchesBetweenSteps(t *testing.T) {
	const L, th0 = 1.0, 0.1
	want := 2 * math.Pi * math.Sqrt(L/g) * (1 + th0*th0/16)
	w := gravityWorld(Settings{})
	h := mustAdd(t, w, BodyDef{Shape: sphereShape(0.02), Position: Vec3{float32(L * math.Sin(th0)), float32(2 - L*math.Cos(th0)), 0}, Mass: 1})
	mustJoint(t, w, JointDef{Type: Ball, BodyA: h, Anchor: Vec3{0, 2, 0}})
	i, _ := w.Index(h)
	prev := w.Bodies.Position[i][0]
	var crossings []float64
	order := []SolverKind{PGS, Jacobi, XPBD}
	for s := 0; s < 600; s++ {
		if s%30 == 0 {
			set := w.Settings()
			set.Gravity, set.Solver = Vec3{0, -g, 0}, order[(s/30)%3]
			w.SetSettings(set)
		}
		run(t, w, 1)
		x := w.Bodies.Position[i][0]
		if prev > 0 && x <= 0 {
			crossings = append(crossings, w.Time-float64(x/(x-prev))/60)
		}
		prev = x
		if l := w.Bodies.Position[i].Sub(Vec3{0, 2, 0}).Len(); vecmath.Abs(l-L) > 1e-3 {
			t.Fatalf("step %d (%v): length %.5f m, want %.1f", s, w.Settings().Solver, l, L)
		}
	}
	n := len(crossings)
	if period := (crossings[n-1] - crossings[0]) / float64(n-1); math.Abs(period-want)/want > 0.01 {
		t.Errorf("period %.5f s, want %.5f", period, want)
	}
}

// A piston motor drives a slider to its target speed with no more than its force: a free 2 kg slider
// with a 5 N cap accelerates at no more than 2.5 m/s^2 and reaches 1 m/s; a vertical piston whose
// 50 N cap cannot hold a 10 kg load (98 N) lets it sink at (mg - F)/m.
func TestPistonMotorKeepsItsForceCap(t *testing.T) {
	for _, solver := range jointSolvers {
		w := gravityWorld(Settings{Solver: solver})
		free := mustAdd(t, w, BodyDef{Shape: boxShape(0.2, 0.1, 0.1), Position: Vec3{0, 5, 0}, Mass: 2})
		mustJoint(t, w, JointDef{Type: Piston, BodyA: free, Anchor: Vec3{0, 5, 0}, Axis: Vec3{1, 0, 0},
			HasMotor: true, Motor: Motor{Speed: 1, MaxForce: 5}})
		lift := mustAdd(t, w, BodyDef{Shape: boxShape(0.2, 0.2, 0.2), Position: Vec3{3, 50, 0}, Mass: 10})
		mustJoint(t, w, JointDef{Type: Piston, BodyA: lift, Anchor: Vec3{3, 50, 0}, Axis: Vec3{0, 1, 0},
			HasMotor: true, Motor: Motor{Speed: 1, MaxForce: 50}})
		i, _ := w.Index(free)
		k, _ := w.Index(lift)
		dt := float64(w.Resolved().Dt)
		for s := 1; s <= 60; s++ {
			run(t, w, 1)
			if v, bound := float64(w.Bodies.Velocity[i][0]), 2.5*float64(s)*dt; v > bound*1.001+1e-3 {
				t.Fatalf("%v: step %d: slider at %.5f m/s, more than the 5 N cap allows (%.5f)", solver, s, v, bound)
			}
		}
		if v := w.Bodies.Velocity[i][0]; vecmath.Abs(v-1) > 1e-3 {
			t.Errorf("%v: slider at %.4f m/s, want the motor's 1", solver, v)
		}
		want := -(g - 5) * 1.0 // (mg - F)/m over 1 s
		if v := float64(w.Bodies.Velocity[k][1]); math.Abs(v-want) > 0.01*math.Abs(want) {
			t.Errorf("%v: overloaded lift at %.4f m/s after 1 s, want %.4f (the motor pushing with its 50 N cap)", solver, v, want)
		}
	}
}

// XPBD's joint damping (Settings.JointDamping) takes energy out of a jointed pendulum: the relative
// rotation is damped through the bar's own inertia about its centre (a quarter of its inertia about
// the pivot), so with 1/s the swing height after 2-3 s is about half (measured 0.25 m against 0.47).
// Without it the swing stays.
func TestXPBDJointDampingDampsAPendulum(t *testing.T) {
	amp := func(damping float32) float32 {
		w := gravityWorld(Settings{Solver: XPBD, JointDamping: damping})
		h := mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.05, 0.05), Position: Vec3{0.5, 2, 0}, Mass: 1})
		mustJoint(t, w, JointDef{Type: Hinge, BodyA: h, Anchor: Vec3{0, 2, 0}, Axis: Vec3{0, 0, 1}})
		top := float32(-10)
		for s := 0; s < 180; s++ {
			run(t, w, 1)
			if s >= 120 {
				top = max(top, w.Bodies.Position[0][1])
			}
		}
		return top - (2 - 0.5) // height of the swing above the lowest point
	}
	free, damped := amp(0), amp(1)
	if free < 0.4 || damped > 0.75*free {
		t.Errorf("swing height after 2-3 s: %.3f m undamped, %.3f m with damping 1/s; want the damped one well below", free, damped)
	} else {
		t.Logf("swing height after 2-3 s: %.3f m undamped, %.3f m damped", free, damped)
	}
}

// A shin-like capsule (radius 0.055 m, half height 0.14 m, 4 kg: its inertia about its long axis
// is a fifth of that about the others) on a hinge about world x through its centre, its long axis
// along y, no gravity, set turning at w0 = (2, 1, 1) rad/s. The hinge's impulse is perpendicular to
// x, a principal axis of the capsule, so I_x w_x is kept: the capsule turns on at (2, 0, 0) rad/s.
// XPBD's alignment rows, rigid, remove the turn about y and z within the first sub-step; the
// predicted pose they correct is off by a rotation of order (|w0| h)^2, so w_x may move by |w0|^2 h
// (h the sub-step) and the rest by float32 rounding (1e-4 |w0|). One row along the error, with the
// capsule's anisotropic inertia, corrects the long axis's share in part each pass (0.05 rad/s left
// after the first step) and, pressed by contacts, overshoots it back and forth.
func TestXPBDHingeAlignsALongBodyInOneStep(t *testing.T) {
	w0 := Vec3{2, 1, 1}
	w := NewWorld(Settings{Solver: XPBD, Gravity: Vec3{}})
	h := mustAdd(t, w, BodyDef{Name: "shin", Shape: geom.Shape{Kind: geom.Capsule, Radius: 0.055, HalfHeight: 0.14},
		Position: Vec3{0, 1, 0}, Mass: 4, AngularVelocity: w0})
	mustJoint(t, w, JointDef{Type: Hinge, BodyA: h, Anchor: Vec3{0, 1, 0}, Axis: Vec3{1, 0, 0}})
	i, _ := w.Index(h)
	r := w.Resolved()
	sub := float64(r.Dt) / float64(r.Substeps)
	for s := 1; s <= 60; s++ {
		run(t, w, 1)
		if s != 1 && s != 60 {
			continue
		}
		om := w.Bodies.AngularVelocity[i]
		if off := math.Hypot(float64(om[1]), float64(om[2])); off > 1e-4*float64(w0.Len()) {
			t.Errorf("after %d steps the capsule turns at %v rad/s: %.2g off the hinge's axis, want 0", s, om, off)
		}
		if d := math.Abs(float64(om[0] - w0[0])); d > float64(w0.Dot(w0))*sub {
			t.Errorf("after %d steps the capsule turns at %v rad/s about the axis, want %v within %.2g", s, om[0], w0[0], float64(w0.Dot(w0))*sub)
		}
	}
}

// A long bar (1 m x 5 cm x 5 cm, 1 kg: its inertia about its long axis is 1/200 of that about the
// others) held to the world by a fixed joint at its centre, or by a piston along its long axis, no
// gravity, set turning at w0 = (2, 1, 1) rad/s. The joint's rotation lock, rigid, undoes each
// sub-step's predicted turn h w0 within that sub-step, so the bar stays at rest at its pose: after
// every step its turn from the pose is within float32 rounding of the corrections' second-order
// residue, |w0|^2 h^2 (4e-6 rad at h = 1/1200 s), and its angular velocity within |w0|^2 h (the
// residue over h, 5e-3 rad/s). One row along the error, with the bar's anisotropic inertia, turns it
// by I^-1 e lambda, about its long axis by twice the error's share there and across it by almost
// nothing: the error swings about the long axis and crosses over to the others from sub-step to
// sub-step (measured with one row: 0.015 rad off the pose, spun up to 18 rad/s; with the block the
// bar stays within 4e-13 rad).
func TestXPBDFixedAndPistonLockALongBodyInOneStep(t *testing.T) {
	w0 := Vec3{2, 1, 1}
	for _, typ := range []JointType{Fixed, Piston} {
		w := NewWorld(Settings{Solver: XPBD, Gravity: Vec3{}})
		h := mustAdd(t, w, BodyDef{Name: "bar", Shape: boxShape(0.5, 0.025, 0.025), Position: Vec3{0, 1, 0}, Mass: 1, AngularVelocity: w0})
		mustJoint(t, w, JointDef{Type: typ, BodyA: h, Anchor: Vec3{0, 1, 0}, Axis: Vec3{1, 0, 0}})
		i, _ := w.Index(h)
		r := w.Resolved()
		sub := float64(r.Dt) / float64(r.Substeps)
		w2 := float64(w0.Dot(w0))
		worstTurn, worstSpin := 0.0, 0.0
		for range 60 {
			run(t, w, 1)
			q := w.Bodies.Rotation[i]
			turn := 2 * math.Asin(math.Min(1, math.Sqrt(float64(q.V.Dot(q.V)))))
			worstTurn = max(worstTurn, turn)
			worstSpin = max(worstSpin, float64(w.Bodies.AngularVelocity[i].Len()))
		}
		t.Logf("%v: largest turn from the pose %.2g rad, largest angular speed %.2g rad/s", typ, worstTurn, worstSpin)
		if worstTurn > w2*sub*sub {
			t.Errorf("%v: the bar turned up to %.2g rad from its pose, want <= %.2g", typ, worstTurn, w2*sub*sub)
		}
		if worstSpin > w2*sub {
			t.Errorf("%v: the bar turned at up to %.2g rad/s, want <= %.2g", typ, worstSpin, w2*sub)
		}
	}
}

// Two bars (1 m long, 5 cm thick, 1 and 2 kg) crossed and held by a fixed joint where they meet, no
// gravity, thrown turning at different rates (|w| about 3.2 rad/s): the pair turns as one body. Each
// sub-step the rigid lock undoes the relative turn the prediction made, and the anchor correction
// after it turns the bars back by a fraction of that sub-step's turn, so over 5 s their relative
// rotation stays below one sub-step's turn, |w| h (2.1e-3 rad at h = 1/1200 s, |w| = 2.6 rad/s once
// joined), and after the first step (whose first sub-step meets the bars' disagreeing velocities)
// their angular velocities agree within that second-order residue over h, |w|^2 h (5.5e-3 rad/s).
// Measured: 2.7e-5 rad and 2.6e-3 rad/s; with the lock as one row along its error the bars drift
// 0.069 rad apart and turn at rates up to 82 rad/s apart.
func TestXPBDFixedJointHoldsAPairOfBarsAsOneBody(t *testing.T) {
	w := NewWorld(Settings{Solver: XPBD, Gravity: Vec3{}})
	a := mustAdd(t, w, BodyDef{Name: "a", Shape: boxShape(0.5, 0.025, 0.025), Position: Vec3{0.5, 1, 0}, Mass: 1,
		Velocity: Vec3{0, 3, 0}, AngularVelocity: Vec3{0, 1, 3}})
	b := mustAdd(t, w, BodyDef{Name: "b", Shape: boxShape(0.025, 0.5, 0.025), Position: Vec3{0, 1.5, 0}, Mass: 2,
		AngularVelocity: Vec3{2, 0, 0}})
	mustJoint(t, w, JointDef{Type: Fixed, BodyA: a, BodyB: b, Anchor: Vec3{0, 1, 0}})
	ia, _ := w.Index(a)
	ib, _ := w.Index(b)
	rel := func() mgl32.Quat { return w.Bodies.Rotation[ia].Conjugate().Mul(w.Bodies.Rotation[ib]) }
	q0 := rel()
	r := w.Resolved()
	sub := float64(r.Dt) / float64(r.Substeps)
	worstTurn, worstSpin, fastest := 0.0, 0.0, 0.0
	for step := range 300 {
		run(t, w, 1)
		q := rel().Mul(q0.Conjugate())
		worstTurn = max(worstTurn, 2*math.Asin(math.Min(1, float64(q.V.Len()))))
		wa, wb := w.Bodies.AngularVelocity[ia], w.Bodies.AngularVelocity[ib]
		if step > 0 {
			worstSpin = max(worstSpin, float64(wa.Sub(wb).Len()))
		}
		fastest = max(fastest, float64(wa.Len()), float64(wb.Len()))
	}
	t.Logf("relative turn up to %.2g rad, angular velocities up to %.2g rad/s apart (fastest %.3g rad/s)", worstTurn, worstSpin, fastest)
	if worstTurn > fastest*sub {
		t.Errorf("the bars turned up to %.2g rad apart, want <= %.2g", worstTurn, fastest*sub)
	}
	if worstSpin > fastest*fastest*sub {
		t.Errorf("the bars' angular velocities differ by up to %.2g rad/s, want <= %.2g", worstSpin, fastest*fastest*sub)
	}
}

// Bodies a joint connects do not collide, and the rule follows the joints: a pair of overlapping
// spheres on a joint has no contact while its neighbour (not jointed) has one; after the joint is
// moved to the neighbour the contacts swap; and after a body before them is removed (every dense
// index moves down one) the jointed pair still has none.
func TestJointedBodiesDoNotCollide(t *testing.T) {
	for _, solver := range jointSolvers {
		w := NewWorld(Settings{Solver: solver})
		far := mustAdd(t, w, BodyDef{Shape: sphereShape(0.3), Position: Vec3{-10, 0, 0}, Mass: 1})
		var s [3]Handle
		for k := range s {
			s[k] = mustAdd(t, w, BodyDef{Shape: sphereShape(0.3), Position: Vec3{0.5 * float32(k), 0, 0}, Mass: 1})
		}
		touching := func(a, b Handle) bool {
			ia, _ := w.dense(a)
			ib, _ := w.dense(b)
			for _, c := range w.Contacts(nil) {
				if c.BodyA == ia && c.BodyB == ib || c.BodyA == ib && c.BodyB == ia {
					return true
				}
			}
			return false
		}
		check := func(when string, jointed, free [2]Handle) {
			t.Helper()
			run(t, w, 1)
			if touching(jointed[0], jointed[1]) || !touching(free[0], free[1]) {
				t.Fatalf("%v, %s: jointed pair in contact %v, free pair in contact %v", solver, when,
					touching(jointed[0], jointed[1]), touching(free[0], free[1]))
			}
		}
		mustJoint(t, w, JointDef{Type: Ball, BodyA: s[0], BodyB: s[1], Anchor: Vec3{0.25, 0, 0}})
		check("0-1 jointed", [2]Handle{s[0], s[1]}, [2]Handle{s[1], s[2]})
		if err := w.RemoveJoint(0); err != nil {
			t.Fatal(err)
		}
		p1 := w.Bodies.Position[2]
		mustJoint(t, w, JointDef{Type: Ball, BodyA: s[1], BodyB: s[2], Anchor: Vec3{p1[0] + 0.25, p1[1], p1[2]}})
		check("1-2 jointed", [2]Handle{s[1], s[2]}, [2]Handle{s[0], s[1]})
		if err := w.RemoveBody(far); err != nil {
			t.Fatal(err)
		}
		check("a body before them removed", [2]Handle{s[1], s[2]}, [2]Handle{s[0], s[1]})
	}
}
