package ui

import (
	"slices"
	"strings"
	"testing"

	"tumble/sim"
	"tumble/ui/command"
)

// On the emulated CUDA backend the Simulation section's solver combo offers the solvers the backend
// runs, jacobi (its default) and pgs: choosing pgs with real clicks switches the running world to it
// live, on the same backend, and it steps on; choosing jacobi switches it back.
func TestSolverComboPicksPGSOnTheEmulatedBackend(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Backend: command.BackendEmulated, Open: []string{"simulation"}})
	if d.a.S.BackendKind() != command.BackendEmulated {
		t.Fatalf("on %q, want emu: %s", d.a.S.BackendKind(), d.a.panel.message)
	}
	d.click("simulation/solver")
	var offered []string
	for _, it := range d.a.w.items {
		if it.Kind == "option" && strings.Contains(it.Path, "/solver/") {
			offered = append(offered, lastPart(it.Path))
		}
	}
	d.click("simulation/solver") // closes the popup
	want := []string{sim.SolverOf(sim.Jacobi).Title(), sim.SolverOf(sim.PGS).Title()}
	if !slices.Equal(offered, want) {
		t.Errorf("the solver combo on emu offers %q, want %q", offered, want)
	}
	state := func() (solver sim.SolverKind, steps int) {
		d.world(func(w *sim.World) { solver, steps = w.Resolved().Solver, w.StepCount })
		return
	}
	for _, k := range []sim.SolverKind{sim.PGS, sim.Jacobi} {
		d.choose("simulation/solver", sim.SolverOf(k).Title())
		_, before := state()
		d.frames(4)
		solver, after := state()
		if solver != k || d.a.S.BackendKind() != command.BackendEmulated {
			t.Errorf("after choosing %s: the world solves with %s on %q (%s)", k, solver, d.a.S.BackendKind(),
				d.a.panel.message)
		}
		if after <= before {
			t.Errorf("under %s on emu the world did not step (step %d, then %d)", k, before, after)
		}
		if err := d.a.S.Err(); err != nil {
			t.Errorf("under %s on emu: %v", k, err)
		}
	}
}
