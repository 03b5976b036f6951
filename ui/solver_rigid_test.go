package ui

import (
	"testing"

	"tumble/sim"
)

// The Simulation section picks the rigid solver (Jolt's formulation): the world switches to it, the
// soft step's knobs (relax, contact Hz) are greyed, and its passes are set from the iterations slider.
func TestSimulationSectionPicksTheRigidSolver(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"simulation"}, Width: 960, Height: 600})
	set := func() (s sim.Settings) { d.world(func(w *sim.World) { s = w.Settings() }); return }
	if !d.enabled("simulation/relax") || !d.enabled("simulation/contact Hz") {
		t.Fatal("PGS does not show relax and contact Hz")
	}
	d.choose("simulation/solver", "rigid (Jolt's formulation)")
	d.frames(2)
	if s := set(); s.Solver != sim.Rigid {
		t.Fatalf("solver %v after choosing rigid", s.Solver)
	}
	for _, l := range []string{"relax", "contact Hz"} {
		if d.enabled("simulation/" + l) {
			t.Errorf("the rigid solver enables %q, which it does not read", l)
		}
	}
	d.setText("simulation/iterations", 0, 1, "3")
	d.frames(2)
	d.world(func(w *sim.World) {
		if s := w.Resolved(); s.Solver != sim.Rigid || s.Iterations != 3 {
			t.Fatalf("solver %v with %d iterations after typing 3", s.Solver, s.Iterations)
		}
		if _, passes := w.Plan().Count(sim.StageSolve); passes != 3*w.Resolved().Substeps {
			t.Errorf("the step makes %d velocity passes, want 3 per sub-step", passes)
		}
	})
}
