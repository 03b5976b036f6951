package sim

import (
	"math"
	"testing"
)

// The convergence trace measures and changes nothing: a traced pyramid steps to the same bits as an
// untraced one under every solver, on two workers with fine grains (where the untraced passes run
// island by island), and reports one residual per pass of the plan's solve and relax stages (XPBD's
// position passes, in metres), or, for the penalty solver, why it has none.
func TestTracingConvergenceChangesNoBitAndCountsEveryPass(t *testing.T) {
	for _, k := range []SolverKind{Jacobi, PGS, XPBD, Impulse, Penalty, Rigid, ShapeMatch} {
		s := Settings{Solver: k, Workers: 2}
		plain, traced := pyramidWorld(t, s, 6), pyramidWorld(t, s, 6)
		forceGrains(plain, true)
		forceGrains(traced, true)
		traced.TraceConvergence(true)
		var c Convergence
		for step := range 40 {
			if err := plain.Step(); err != nil {
				t.Fatal(err)
			}
			if err := traced.Step(); err != nil {
				t.Fatal(err)
			}
			a, b := &plain.Bodies, &traced.Bodies
			for i := range a.Position {
				if a.Position[i] != b.Position[i] || a.Rotation[i] != b.Rotation[i] || a.Velocity[i] != b.Velocity[i] ||
					a.AngularVelocity[i] != b.AngularVelocity[i] {
					t.Fatalf("%v, step %d: body %d differs when traced", k, step+1, i)
				}
			}
		}
		if !traced.LastConvergence(&c) || c.Step != 40 {
			t.Fatalf("%v: no trace of step 40 (got step %d)", k, c.Step)
		}
		plan := traced.Plan()
		_, solve := plan.Count(StageSolve)
		_, relax := plan.Count(StageRelax)
		want, unit := solve+relax, "m/s"
		switch k {
		case Penalty:
			want = 0
		case XPBD:
			unit = "m"
		}
		if len(c.Passes) != want || (want == 0) != (c.None != "") || (want > 0 && c.Unit != unit) {
			t.Errorf("%v: %d passes traced in %s (none: %q), want the plan's %d in %s", k, len(c.Passes), c.Unit, c.None, want, unit)
		}
		for _, p := range c.Passes {
			if !(p.Residual >= 0) || math.IsInf(float64(p.Residual), 0) {
				t.Fatalf("%v: pass %+v: residual not a finite non-negative number", k, p)
			}
		}
		plain.Close()
		traced.Close()
	}
}

// Gauss-Seidel converges: on a box dropped onto the ground, the step where it lands needs its rows'
// impulses, and PGS's passes of the first sub-step's solve take the residual down by orders of
// magnitude (each pass solves the few rows exactly against the others' latest impulses), where the
// first pass carries the landing (about the box's falling speed).
func TestGaussSeidelPassesDriveTheResidualDown(t *testing.T) {
	w := gravityWorld(Settings{Solver: PGS, Iterations: 12, Substeps: 1, Workers: 1})
	defer w.Close()
	groundPlane(t, w, 0.6, 0)
	mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{0, 0.49, 0}, Velocity: Vec3{0, -2, 0}, Mass: 1})
	w.TraceConvergence(true)
	if err := w.Step(); err != nil {
		t.Fatal(err)
	}
	var c Convergence
	if !w.LastConvergence(&c) {
		t.Fatal("no trace")
	}
	var solve []float32
	for _, p := range c.Passes {
		if p.Stage == StageSolve && p.Substep == 0 {
			solve = append(solve, p.Residual)
		}
	}
	if len(solve) != 12 {
		t.Fatalf("%d solve passes traced, want 12", len(solve))
	}
	t.Logf("residuals, m/s: %v", solve)
	if solve[0] < 1 || solve[0] > 3 {
		t.Errorf("first pass %.3g m/s: want about the landing speed, 2 m/s", solve[0])
	}
	if last := solve[len(solve)-1]; !(last < solve[0]*1e-3) {
		t.Errorf("last pass %.3g m/s after a first of %.3g: PGS did not converge", last, solve[0])
	}
	w.TraceConvergence(false)
	if w.LastConvergence(&c) {
		t.Error("a trace is reported after tracing was turned off")
	}
}
