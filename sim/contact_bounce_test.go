package sim

import "testing"

// The restitution pass of the colour solvers runs in a step exactly when some contact point approached
// faster than the restitution threshold at prepare time (narrowStage.mayBounce): the flag agrees with
// the points' relative normal velocities, whether the wide or the scalar prepare wrote them; it is set
// on the impacts of a dropped column of boxes and clear once they rest; and the boxes still bounce.
func TestRestitutionPassRunsOnlyWhenAPointApproachesFast(t *testing.T) {
	for _, solver := range []SolverKind{PGS, Rigid} {
		w := gravityWorld(Settings{Solver: solver})
		groundPlane(t, w, 0.5, 0)
		for i := range 4 {
			mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{float32(i) * 0.02, 1.5 + 1.5*float32(i), 0},
				Friction: 0.5, Restitution: 0.3})
		}
		threshold := w.settings.RestitutionThreshold
		impacts, rising := 0, false
		for s := range 300 {
			run(t, w, 1)
			fast := false
			for _, m := range w.pipe.narrow.prev { // the step's manifolds, kept for the next step's warm start
				for _, cp := range m.pts[:m.count] {
					fast = fast || cp.relVel <= -threshold
				}
			}
			if got := w.pipe.narrow.mayBounce == 1; got != fast {
				t.Fatalf("%v step %d: restitution pass flagged %v, but a point approached faster than %g m/s: %v",
					solver, s, got, threshold, fast)
			}
			if fast {
				impacts++
			}
			for i := 1; i < w.Bodies.Len(); i++ {
				rising = rising || w.Bodies.Velocity[i][1] > 0.5
			}
			if s >= 270 && fast {
				t.Errorf("%v step %d: a point still approaches fast after 4.5 s", solver, s)
			}
		}
		if impacts == 0 || !rising {
			t.Errorf("%v: %d steps with a fast approach, a box bounced up: %v; want both", solver, impacts, rising)
		}
	}
}
