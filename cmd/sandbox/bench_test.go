package main

import (
	"testing"

	"tumble/sim"
)

// bench reports the settings a backend runs: a scene that names no solver runs the backend's default
// solver with that solver's defaults, a scene that names one runs it, and the CPU stages run PGS.
func TestBenchSettingsAreWhatTheBackendResolves(t *testing.T) {
	caps := sim.Capabilities{Name: "a test backend", Solvers: []sim.SolverKind{sim.XPBD, sim.Jacobi}}
	for _, tc := range []struct {
		name    string
		backend sim.Backend
		solver  sim.SolverKind
		want    sim.SolverKind
	}{
		{"the backend's default", capsBackend{caps}, sim.SolverDefault, sim.XPBD},
		{"the scene's solver", capsBackend{caps}, sim.Jacobi, sim.Jacobi},
		{"the CPU's default", nil, sim.SolverDefault, sim.PGS},
	} {
		w := sim.NewWorld(sim.Settings{Solver: tc.solver})
		if tc.backend != nil {
			if err := w.SetBackend(tc.backend); err != nil {
				t.Fatal(err)
			}
		}
		got := stepSettings(w)
		want := sim.Settings{Solver: tc.want}.Resolve()
		if got.Solver != tc.want || got.Substeps != want.Substeps || got.Iterations != want.Iterations {
			t.Errorf("%s: solver %s, %d sub-steps x %d iterations; want %s, %d x %d", tc.name,
				got.Solver, got.Substeps, got.Iterations, tc.want, want.Substeps, want.Iterations)
		}
	}
}

// capsBackend is a backend that only states its capabilities; nothing steps it.
type capsBackend struct{ caps sim.Capabilities }

func (b capsBackend) Name() string                         { return "test" }
func (b capsBackend) Capabilities() sim.Capabilities       { return b.caps }
func (capsBackend) Step(*sim.World, *sim.StepReport) error { return nil }
func (capsBackend) Pull(*sim.World) error                  { return nil }
func (capsBackend) Close()                                 {}
func (capsBackend) Contacts(_ *sim.World, out []sim.ContactPoint) []sim.ContactPoint {
	return out
}
