package sim_test

import (
	"math"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// restingOnIncline builds the incline preset with the given solver, lets it run a second with friction
// on (warm starting on) and returns the world and its boxes that static friction holds
// (tan theta < mu), with their ramp angles.
func restingOnIncline(t *testing.T, solver sim.SolverKind) (*sim.World, []int, []float64) {
	t.Helper()
	sc, ok := scenes.Preset("incline")
	if !ok {
		t.Fatal("no preset incline")
	}
	w, err := sc.World(scenes.Options{Solver: solver, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	stepN(t, w, 60)
	var boxes []int
	var angles []float64
	for i, name := range w.Bodies.Name {
		theta, _, sticks, ok := scenes.InclineBox(name)
		if !ok || !sticks {
			continue
		}
		// XPBD's static friction lets a box creep near the friction angle (docs/SCENES.md: 35 degrees
		// at mu 0.8 creeps at about 1 cm/s), still a thousandth of the slide the tests look for.
		if v := w.Bodies.Velocity[i].Len(); v > 0.05 {
			t.Fatalf("%v: %s moves at %.4f m/s after a second with friction on: not at rest", solver, name, v)
		}
		boxes, angles = append(boxes, i), append(angles, theta)
	}
	if len(boxes) != 6 {
		t.Fatalf("%d resting boxes, want 6", len(boxes))
	}
	return w, boxes, angles
}

func stepN(t *testing.T, w *sim.World, n int) {
	t.Helper()
	for range n {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
}

// downhill is the unit vector down a preset ramp of angle theta (the ramps descend towards +x).
func downhill(theta float64) sim.Vec3 {
	return sim.Vec3{float32(math.Cos(theta)), float32(-math.Sin(theta)), 0}
}

// slopeAcceleration steps w for seconds and returns each box's mean acceleration down its slope over
// that time, (v1 - v0) / T: exact for a constant force, and the force on a box on a frictionless
// slope is constant (gravity and a normal force that cancels gravity's normal part).
func slopeAcceleration(t *testing.T, w *sim.World, boxes []int, angles []float64, seconds float64) []float64 {
	t.Helper()
	v0 := make([]float64, len(boxes))
	for k, i := range boxes {
		v0[k] = float64(w.Bodies.Velocity[i].Dot(downhill(angles[k])))
	}
	stepN(t, w, int(math.Round(seconds/float64(w.Resolved().Dt))))
	a := make([]float64, len(boxes))
	for k, i := range boxes {
		a[k] = (float64(w.Bodies.Velocity[i].Dot(downhill(angles[k]))) - v0[k]) / seconds
	}
	return a
}

// frictionlessSlideTolerance bounds |a - g sin theta| / (g sin theta) for a box on a frictionless slope.
// Along the slope only gravity acts (the normal force has no part along it, the box does not tip), and
// the sub-stepped semi-implicit Euler step changes velocity by exactly g sin theta h per sub-step, so
// the measured a is g sin theta up to float32 rounding (measured: within 1e-5 on every solver). 0.5%
// leaves room for other rounding (FMA contraction) and still fails any friction that is left: a box
// held in place has a = 0, and a leftover friction coefficient of 0.005 tan theta shows.
const frictionlessSlideTolerance = 0.005

// TestFrictionOffFreesRestingBoxes: boxes at rest on the incline preset, held by static friction, slide
// at g sin theta once friction is turned off, with warm starting on. Last step's friction impulses (and
// the friction anchors) must not keep holding them.
func TestFrictionOffFreesRestingBoxes(t *testing.T) {
	for _, solver := range []sim.SolverKind{sim.PGS, sim.Jacobi, sim.XPBD} {
		t.Run(solver.String(), func(t *testing.T) {
			w, boxes, angles := restingOnIncline(t, solver)
			set := w.Settings()
			set.NoFriction = true // what command.SetFriction(false) does
			w.SetSettings(set)
			g := float64(w.Resolved().Gravity.Len())
			for k, a := range slopeAcceleration(t, w, boxes, angles, 0.5) {
				want := g * math.Sin(angles[k])
				if math.Abs(a-want) > frictionlessSlideTolerance*want {
					t.Errorf("%v: %s: friction off, acceleration down the slope %.3f m/s^2, want g sin theta = %.3f within %.1f%%",
						solver, w.Bodies.Name[boxes[k]], a, want, 100*frictionlessSlideTolerance)
				}
			}
		})
	}
}

// TestZeroFrictionCoefficientFreesRestingBoxes: the same boxes slide at g sin theta when their friction
// coefficients are set to 0 while they rest (command.SetFrictionCoefficient(0)), friction still on.
func TestZeroFrictionCoefficientFreesRestingBoxes(t *testing.T) {
	for _, solver := range []sim.SolverKind{sim.PGS, sim.Jacobi, sim.XPBD} {
		t.Run(solver.String(), func(t *testing.T) {
			w, boxes, angles := restingOnIncline(t, solver)
			for i := range w.Bodies.Friction {
				if err := w.SetMaterial(w.HandleAt(i), 0, w.Bodies.Restitution[i]); err != nil {
					t.Fatal(err)
				}
			}
			g := float64(w.Resolved().Gravity.Len())
			for k, a := range slopeAcceleration(t, w, boxes, angles, 0.5) {
				want := g * math.Sin(angles[k])
				if math.Abs(a-want) > frictionlessSlideTolerance*want {
					t.Errorf("%v: %s: mu = 0, acceleration down the slope %.3f m/s^2, want g sin theta = %.3f within %.1f%%",
						solver, w.Bodies.Name[boxes[k]], a, want, 100*frictionlessSlideTolerance)
				}
			}
		})
	}
}

// TestRestitutionOffDoesNotBounce: a ball of restitution 0.8 dropped from 2 m with restitution turned
// off stays down: after it first touches the ground it rises no more than 3 mm (the soft contact's
// push-out, with the relax pass, leaves well under a millimetre; a bounce at e = 0.8 would reach 1.28 m).
func TestRestitutionOffDoesNotBounce(t *testing.T) {
	for _, solver := range []sim.SolverKind{sim.PGS, sim.Jacobi, sim.XPBD} {
		t.Run(solver.String(), func(t *testing.T) {
			w := sim.NewWorld(sim.Settings{Gravity: sim.Vec3{0, -9.81, 0}, Solver: solver, NoRestitution: true, Workers: 1})
			t.Cleanup(w.Close)
			if _, err := w.AddBody(sim.BodyDef{Name: "ground", Type: sim.Static, Friction: 0.5, Restitution: 0.8,
				Shape: geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}}); err != nil {
				t.Fatal(err)
			}
			const r, h0 = 0.25, 2.0
			h, err := w.AddBody(sim.BodyDef{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: r},
				Position: sim.Vec3{0, r + h0, 0}, Restitution: 0.8})
			if err != nil {
				t.Fatal(err)
			}
			i, _ := w.Index(h)
			landed, rise := false, 0.0
			for range 180 {
				stepN(t, w, 1)
				y := float64(w.Bodies.Position[i][1]) - r
				if !landed && y < 0.01 {
					landed = true
				}
				if landed {
					rise = math.Max(rise, y)
				}
			}
			t.Logf("%v: highest after landing %.5f m", solver, rise)
			if !landed {
				t.Fatalf("%v: the ball never reached the ground", solver)
			}
			if rise > 0.003 {
				t.Errorf("%v: restitution off, the ball rose to %.4f m after landing, want <= 0.003 m", solver, rise)
			}
		})
	}
}
