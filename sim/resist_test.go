package sim

import (
	"math"
	"testing"

	"tumble/sim/geom"
)

// rowSolvers are the solvers whose contacts have the accumulated resistance rows (contact_resist.go);
// the others (velocitySolvers) take the resistance out of the velocities once per sub-step
// (resistVelocity, resistRecord).
var (
	rowSolvers      = []SolverKind{PGS, Jacobi, Rigid, ShapeMatch}
	velocitySolvers = []SolverKind{XPBD, Impulse, Penalty}
)

// ballOnFloor is a solid sphere of radius r resting on a plane (friction 0.5 both), with the given
// resistance coefficients and velocities.
func ballOnFloor(t *testing.T, k SolverKind, r, rolling, spinning float32, v, omega Vec3) (*World, Handle) {
	t.Helper()
	w := gravityWorld(Settings{Solver: k, Workers: 1})
	t.Cleanup(w.Close)
	groundPlane(t, w, 0.5, 0)
	h := mustAdd(t, w, BodyDef{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: r},
		Position: Vec3{0, r, 0}, Velocity: v, AngularVelocity: omega, Mass: 1, Friction: 0.5,
		RollingResistance: rolling, SpinningResistance: spinning})
	return w, h
}

// A solid sphere rolling without slipping on a flat floor, with a resisting torque c r N about the
// contact: about the contact point (where the normal and friction forces act) the angular momentum
// is (I + m r^2) omega with I = 2/5 m r^2, and the torque is -c r m g, so the ball decelerates at
// a = r domega/dt = c g m r^2 / (I + m r^2) = 5/7 c g and stops after d = v0^2 / (2 a). The discrete
// step changes the speed by a h per sub-step, which moves the stop by v0 h / 2 (0.1% here); the
// contact's normal impulse is m g h only on average (its soft row rings a little), so the issue's
// 3% is the bound.
func TestBallRollsToRestAfterAnalyticDistance(t *testing.T) {
	const r, c, v0 = 0.5, 0.05, 2.0
	a := 5.0 / 7 * c * g
	want := v0 * v0 / (2 * a)
	stop := v0 / a
	for _, k := range rowSolvers {
		w, h := ballOnFloor(t, k, r, c, 0, Vec3{0, 0, v0}, Vec3{v0 / r, 0, 0})
		i, _ := w.dense(h)
		steps := int(math.Ceil(1.3 * stop / float64(w.Resolved().Dt)))
		run(t, w, steps/2)
		// Half way in time the speed is v0 - a t.
		tHalf := float64(steps/2) * float64(w.Resolved().Dt)
		if got, exp := float64(w.Bodies.Velocity[i][2]), v0-a*tHalf; math.Abs(got-exp) > 0.03*v0 {
			t.Errorf("%v: speed %.4f m/s after %.2f s, want %.4f (5/7 c g deceleration)", k, got, tHalf, exp)
		}
		run(t, w, steps-steps/2)
		d := float64(w.Bodies.Position[i][2])
		t.Logf("%v: rolled %.4f m, analytic %.4f m (%.2f%%)", k, d, want, 100*(d-want)/want)
		if math.Abs(d-want) > 0.03*want {
			t.Errorf("%v: rolled %.3f m, want %.3f m within 3%%", k, d, want)
		}
		if v, om := w.Bodies.Velocity[i].Len(), w.Bodies.AngularVelocity[i].Len(); v > 1e-3 || om > 1e-3/r {
			t.Errorf("%v: still moving %.2g m/s, %.2g rad/s after %.1f s (stop at %.1f s)", k, v, om,
				float64(steps)*float64(w.Resolved().Dt), stop)
		}
	}
}

// A solid sphere spinning about the vertical on its pole, with a spinning-resistance torque of
// c_s r N about the normal (N = m g; friction does nothing against spin at a single point): I
// domega/dt = -c_s r m g with I = 2/5 m r^2, so omega falls linearly at 5 c_s g / (2 r) and stops
// at T = 2 r omega0 / (5 c_s g).
func TestSpinningBallStopsAtAnalyticTime(t *testing.T) {
	const r, cs, w0 = 0.5, 0.1, 10.0
	alpha := 5 * cs * g / (2 * r)
	stop := w0 / alpha
	for _, k := range append(rowSolvers, velocitySolvers...) {
		w, h := ballOnFloor(t, k, r, 0, cs, Vec3{}, Vec3{0, w0, 0})
		i, _ := w.dense(h)
		dt := float64(w.Resolved().Dt)
		half := int(math.Round(stop / 2 / dt))
		run(t, w, half)
		got, exp := float64(w.Bodies.AngularVelocity[i][1]), w0-alpha*float64(half)*dt
		t.Logf("%v: spin %.4f rad/s at %.3f s, analytic %.4f", k, got, float64(half)*dt, exp)
		if math.Abs(got-exp) > 0.03*w0 {
			t.Errorf("%v: spin %.3f rad/s after %.3f s, want %.3f", k, got, float64(half)*dt, exp)
		}
		// It stops within 3% of T: still turning at 0.97 T, at rest by 1.03 T.
		run(t, w, int(0.97*stop/dt)-half)
		if om := w.Bodies.AngularVelocity[i][1]; om < 1e-3 {
			t.Errorf("%v: stopped before 0.97 T (%.3f s)", k, 0.97*stop)
		}
		run(t, w, int(math.Ceil(1.03*stop/dt))-int(0.97*stop/dt))
		if om := w.Bodies.AngularVelocity[i].Len(); om > 1e-3 {
			t.Errorf("%v: spin %.3g rad/s at 1.03 T (%.3f s)", k, om, 1.03*stop)
		}
	}
}

// The solvers without rows stop a rolling ball too, though not at the analytic distance: their contacts
// do not keep a ball rolling without slipping at constant speed even without resistance (measured over
// 2 s at 2 m/s: xpbd speeds up 5%, impulse 2%, penalty 7%), and xpbd's static friction, which undoes
// the slip in the position pass, hands the whole angular decrement to the linear speed (it stops after
// 1.6 m of the 5.7). They are held to coming to rest within twice the analytic time.
func TestBallRollsToRestWithoutRows(t *testing.T) {
	const r, c, v0 = 0.5, 0.05, 2.0
	stop := v0 / (5.0 / 7 * c * g)
	for _, k := range velocitySolvers {
		w, h := ballOnFloor(t, k, r, c, 0, Vec3{0, 0, v0}, Vec3{v0 / r, 0, 0})
		i, _ := w.dense(h)
		run(t, w, int(2*stop/float64(w.Resolved().Dt)))
		if v := w.Bodies.Velocity[i].Len(); v > 0.02 {
			t.Errorf("%v: still rolling at %.3f m/s after %.1f s", k, v, 2*stop)
		}
	}
}

// Without resistance a rolling ball keeps rolling (a check that the tests above measure the rows).
func TestBallWithoutResistanceKeepsRolling(t *testing.T) {
	const r, v0 = 0.5, 2.0
	for _, k := range rowSolvers {
		w, h := ballOnFloor(t, k, r, 0, 0, Vec3{0, 0, v0}, Vec3{v0 / r, 0, 0})
		i, _ := w.dense(h)
		run(t, w, 120)
		if v := float64(w.Bodies.Velocity[i][2]); math.Abs(v-v0) > 0.01*v0 {
			t.Errorf("%v: speed %.4f m/s after 2 s without resistance, want %.1f", k, v, v0)
		}
	}
}
