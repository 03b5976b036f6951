package gpu

import (
	"testing"

	"tumble/scenes"
	"tumble/sim"
)

// newSolverWorld builds a preset with the given solver on one worker and without the contact cache, as
// a world on a backend runs (newPGSWorld's reasons), so that the CPU's step is the device's to the bit.
func newSolverWorld(t testing.TB, scene string, solver sim.SolverKind) *sim.World {
	t.Helper()
	s, ok := scenes.Preset(scene)
	if !ok {
		t.Fatalf("no preset %s", scene)
	}
	w, err := s.World(scenes.Options{Solver: solver, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := w.Settings()
	st.NoContactCache = true
	w.SetSettings(st)
	return w
}

// TestEmulatedSmallPathIsThePerPassPath: a small world's sub-step loop as one launch (small.go) gives
// the bits of the per-pass kernels (NoSmall) and of the CPU, under Jacobi and PGS, on boxes at rest
// (stack, the 20-row pyramid), joints with limits, motors and friction (ragdoll, chain, engine) and
// restitution (cradle), and with the plan's optional stages off (no warm start, no relax: the rows
// are then refreshed before the first solve pass and after every move); and it launches fewer kernels
// a step. The log gives the launches a step of each path (kernel by kernel, no graph) at the last step.
func TestEmulatedSmallPathIsThePerPassPath(t *testing.T) {
	bare := func(s *sim.Settings) { s.NoWarmStart, s.NoRelax = true, true }
	for _, solver := range []sim.SolverKind{sim.Jacobi, sim.PGS} {
		for _, c := range []struct {
			name, scene string
			steps       int
			tweak       func(*sim.Settings)
		}{{"stack", "stack", 10, nil}, {"pyramid20", "pyramid20", 5, nil}, {"ragdoll", "ragdoll", 10, nil},
			{"chain", "chain", 10, nil}, {"engine", "engine", 10, nil}, {"cradle", "cradle", 20, nil},
			{"bare-chain", "chain", 5, bare}} {
			t.Run(solver.String()+"/"+c.name, func(t *testing.T) {
				build := func() *sim.World {
					w := newSolverWorld(t, c.scene, solver)
					if c.tweak != nil {
						s := w.Settings()
						c.tweak(&s)
						w.SetSettings(s)
					}
					return w
				}
				cpu := build()
				defer cpu.Close()
				small, perPass := build(), build()
				defer small.Close()
				defer perPass.Close()
				sb, pb := NewEmulated(), NewEmulated()
				sb.NoGraphs, pb.NoGraphs, pb.NoSmall = true, true, true
				must(t, small.SetBackend(sb), perPass.SetBackend(pb))
				defer small.SetBackend(nil)
				defer perPass.SetBackend(nil)
				for step := 1; step <= c.steps; step++ {
					must(t, cpu.Step(), small.Step(), perPass.Step())
					if !sb.solver.small || pb.solver.small {
						t.Fatalf("step %d: small path taken %v with it on, %v with it off", step, sb.solver.small,
							pb.solver.small)
					}
					if step%10 != 0 && step != c.steps {
						continue
					}
					must(t, small.Sync(), perPass.Sync())
					if d := firstDifference(perPass, small); d != "" {
						t.Fatalf("step %d, per-pass path against the small path: %s", step, d)
					}
					if d := firstDifference(cpu, small); d != "" {
						t.Fatalf("step %d, the CPU against the small path: %s", step, d)
					}
				}
				sl, pl := sb.LastStep.Launches, pb.LastStep.Launches
				t.Logf("%s %s: %d launches a step per pass, %d with the small path", solver, c.name, pl, sl)
				if sl >= pl {
					t.Errorf("the small path launched %d kernels a step, the per-pass path %d", sl, pl)
				}
			})
		}
	}
}

// A world past the small path's reach keeps the per-pass kernels; sleeping does not decide it.
func TestSmallWorldReach(t *testing.T) {
	for _, c := range []struct {
		bodies, joints int
		want           bool
	}{
		{smallBodies, smallJoints, true},
		{smallBodies + 1, 0, false},
		{10, smallJoints + 1, false},
	} {
		if got := smallWorld(c.bodies, c.joints); got != c.want {
			t.Errorf("%d bodies, %d joints: small %v, want %v", c.bodies, c.joints, got, c.want)
		}
	}
}
