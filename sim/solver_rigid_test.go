package sim

import (
	"testing"
	"tumble/sim/internal/vecmath"
)

// The rigid solver holds the 20-row pyramid within the stability tests' bar with Jolt's pass count:
// 1.21 cm of drift in 30 s (PGS 0.34; Jolt on the same scene, through the jolt-runner, 3.7).
func TestRigidPyramidStandsThirtySeconds(t *testing.T) {
	skipLong(t)
	w := pyramidWorld(t, Settings{Solver: Rigid}, 20)
	start := append([]Vec3(nil), w.Bodies.Position...)
	run(t, w, 30*60)
	if d := maxDrift(w, start); d > 0.02 {
		t.Errorf("a box drifted %.4f m in 30 s, want < 0.02", d)
	}
}

// Two boxes that start 10 cm into each other, in zero gravity, are pushed apart by the position
// passes alone: after a second the overlap is within the slop, and the push-out has left no velocity
// behind (the soft step's push-out is a velocity, which the relax pass takes back; here it never is
// one).
func TestRigidPositionPassesPushOverlapOutWithoutVelocity(t *testing.T) {
	w := NewWorld(Settings{Solver: Rigid})
	a := mustAdd(t, w, BodyDef{Name: "a", Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{0, 0, 0}})
	b := mustAdd(t, w, BodyDef{Name: "b", Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{0.9, 0, 0}})
	run(t, w, 60)
	ia, _ := w.Index(a)
	ib, _ := w.Index(b)
	gap := w.Bodies.Position[ib][0] - w.Bodies.Position[ia][0] - 1
	if gap < -2*w.Resolved().LinearSlop || gap > 0.01 {
		t.Errorf("gap after 1 s %.4f m, want about -slop (%.3f): overlap pushed out, nothing flung apart", gap, w.Resolved().LinearSlop)
	}
	for _, i := range []int{ia, ib} {
		if v := w.Bodies.Velocity[i].Len(); v > 1e-3 {
			t.Errorf("%s moves at %.4f m/s after the push-out, want 0 (position passes move poses only)", w.Bodies.Name[i], v)
		}
	}
	if m := w.Bodies.Position[ia][0] + w.Bodies.Position[ib][0]; vecmath.Abs(m-0.9) > 1e-4 {
		t.Errorf("the pair's centre moved to %.5f, want 0.45 (equal masses pushed equally)", m/2)
	}
}

// The rigid step's plan: per sub-step the velocity passes, then one position pass; its bench header and
// the panel read these counts.
func TestRigidPlan(t *testing.T) {
	s := Settings{Solver: Rigid}.Resolve()
	if s.Substeps != 4 || s.Iterations != 2 {
		t.Fatalf("defaults %d sub-steps x %d passes, want 4 x 2", s.Substeps, s.Iterations)
	}
	p := PlanOf(s)
	if ops, passes := p.Count(StageSolve); ops != 4 || passes != 8 {
		t.Errorf("solve: %d ops, %d passes, want 4 and 8", ops, passes)
	}
	if ops, passes := p.Count(StageProject); ops != 4 || passes != 4 {
		t.Errorf("project: %d ops, %d passes, want 4 and 4", ops, passes)
	}
	if p.Uses(StageRelax) {
		t.Error("the rigid step has no relax pass")
	}
}
