package sim_test

import (
	"strings"
	"testing"

	"tumble/sim"
)

// TestSettingsAreCheckedAndResolvedForABackendsCapabilities: CheckFor refuses a solver or sleeping a
// backend does not run, naming the backend; ResolveFor picks the backend's default solver and its
// defaults; NoteFor says when a broad phase is not honoured. The CPU runs everything.
func TestSettingsAreCheckedAndResolvedForABackendsCapabilities(t *testing.T) {
	gpu := sim.Capabilities{Name: "the test backend", Solvers: []sim.SolverKind{sim.Jacobi},
		Broadphases: []sim.BroadphaseKind{sim.LBVH}}
	cpu := sim.CPUCapabilities()
	cases := []struct {
		set        sim.Settings
		err, note  string // substrings; "" for none
		solver     sim.SolverKind
		cpuSolver  sim.SolverKind
		cpuRefuses bool
	}{
		{set: sim.Settings{}, solver: sim.Jacobi, cpuSolver: sim.PGS},
		{set: sim.Settings{Solver: sim.XPBD}, err: "the test backend solves with jacobi; the xpbd solver runs on the CPU backend", cpuSolver: sim.XPBD},
		{set: sim.Settings{Sleep: true}, err: "the test backend does not put bodies to sleep", cpuSolver: sim.PGS},
		{set: sim.Settings{Broadphase: sim.SAP}, note: "the test backend's broad phase is its LBVH (the sap broad phase", solver: sim.Jacobi, cpuSolver: sim.PGS},
		{set: sim.Settings{Solver: 42}, err: "unknown solver", cpuRefuses: true},
	}
	for _, c := range cases {
		err := sim.CheckFor(gpu, c.set)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: CheckFor: %v, want %q", c.set, err, c.err)
		}
		if err := sim.CheckFor(cpu, c.set); (err != nil) != c.cpuRefuses {
			t.Errorf("%+v: the CPU: %v", c.set, err)
		}
		if note := sim.NoteFor(gpu, c.set); (note == "") != (c.note == "") || !strings.Contains(note, c.note) {
			t.Errorf("%+v: NoteFor: %q, want %q", c.set, note, c.note)
		}
		if sim.NoteFor(cpu, c.set) != "" {
			t.Errorf("%+v: a note on the CPU", c.set)
		}
		if c.err != "" {
			continue
		}
		if got := sim.ResolveFor(gpu, c.set); got.Solver != c.solver || got != (sim.Settings{Solver: c.solver, Broadphase: c.set.Broadphase}).Resolve() {
			t.Errorf("%+v: ResolveFor: %+v", c.set, got)
		}
		if got := sim.ResolveFor(cpu, c.set); got != c.set.Resolve() || got.Solver != c.cpuSolver {
			t.Errorf("%+v: ResolveFor on the CPU: %+v, want %+v", c.set, got, c.set.Resolve())
		}
	}
}
