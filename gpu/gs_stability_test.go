package gpu

import (
	"os"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// The CPU default's stability tests (sim's TestTwentyBoxStackStandsThirtySeconds,
// TestTwentyRowPyramidStandsThirtySeconds, TestHeavyOnLightStackHolds; the ragdoll's joint gaps of
// scenes' TestDirectJointsHoldTheRagdollsAndTheChain) on the emulated backend's PGS, at PGS's
// defaults: 6 sub-steps of 4 iterations and 2 relax passes, 36 passes a step. Each world runs on the
// CPU beside it and must end in the same bits. They take minutes on the emulator: make gpu-stability
// runs them (TUMBLE_GPU_STABILITY=1).

func skipUnlessStability(t *testing.T) {
	t.Helper()
	if os.Getenv("TUMBLE_GPU_STABILITY") == "" {
		t.Skip("minutes on the emulator: make gpu-stability runs it (TUMBLE_GPU_STABILITY=1)")
	}
}

// pgsPair is a world built twice, on the CPU and on the emulated backend, stepped together.
type pgsPair struct {
	cpu, dev *sim.World
}

func newPGSPair(t *testing.T, build func() *sim.World) *pgsPair {
	t.Helper()
	p := &pgsPair{cpu: build(), dev: build()}
	must(t, p.dev.SetBackend(NewEmulated()))
	t.Cleanup(func() {
		p.dev.SetBackend(nil)
		p.dev.Close()
		p.cpu.Close()
	})
	r := p.dev.Resolved()
	if r.Solver != sim.PGS {
		t.Fatalf("the device solves with %v, want pgs", r.Solver)
	}
	if passes := r.Substeps * (r.Iterations + r.RelaxIterations); passes > 36 {
		t.Fatalf("%d passes a step (%d x (%d+%d)), want at most 36", passes, r.Substeps, r.Iterations, r.RelaxIterations)
	}
	return p
}

// step runs n steps on both and syncs the device's bodies to the host.
func (p *pgsPair) step(t *testing.T, n int) {
	t.Helper()
	for range n {
		must(t, p.cpu.Step(), p.dev.Step())
	}
	must(t, p.dev.Sync())
}

// same fails unless both worlds hold the same bits.
func (p *pgsPair) same(t *testing.T) {
	t.Helper()
	if d := firstDifference(p.cpu, p.dev); d != "" {
		t.Errorf("the device's PGS left the CPU's: %s", d)
	}
}

// pgsGround is a PGS world with gravity and a ground plane of friction 0.6.
func pgsGround(t testing.TB) *sim.World {
	w := sim.NewWorld(sim.Settings{Solver: sim.PGS, Gravity: sim.Vec3{0, -gAnalytic, 0}, Workers: 1, NoContactCache: true})
	addBody(t, w, sim.BodyDef{Name: "ground", Type: sim.Static, Friction: 0.6,
		Shape: geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}})
	return w
}

// drift is the largest distance of a body of w from where it started.
func drift(w *sim.World, start []sim.Vec3) float32 {
	d := float32(0)
	for i, p := range start {
		d = max(d, w.Bodies.Position[i].Sub(p).Len())
	}
	return d
}

func TestEmulatedPGSTwentyBoxStackStandsThirtySeconds(t *testing.T) {
	skipUnlessStability(t)
	p := newPGSPair(t, func() *sim.World {
		w := pgsGround(t)
		for k := range 20 {
			addBody(t, w, sim.BodyDef{Shape: cubeOf(0.5), Position: sim.Vec3{0, 0.5 + float32(k), 0},
				Rotation: sim.Quat{W: 1}, Friction: 0.6})
		}
		return w
	})
	start := append([]sim.Vec3(nil), p.cpu.Bodies.Position...)
	p.step(t, 30*60)
	d := drift(p.dev, start)
	t.Logf("largest drift in 30 s %.4f m", d)
	if d > 0.02 {
		t.Errorf("a box drifted %.4f m in 30 s, want < 0.02", d)
	}
	p.same(t)
}

func TestEmulatedPGSTwentyRowPyramidStandsThirtySeconds(t *testing.T) {
	skipUnlessStability(t)
	p := newPGSPair(t, func() *sim.World {
		w := pgsGround(t)
		for row := range 20 {
			n := 20 - row
			for k := range n {
				x := (float32(k) - float32(n-1)/2) * 1.05
				addBody(t, w, sim.BodyDef{Shape: cubeOf(0.5), Position: sim.Vec3{x, 0.5 + float32(row), 0},
					Rotation: sim.Quat{W: 1}, Friction: 0.6})
			}
		}
		return w
	})
	start := append([]sim.Vec3(nil), p.cpu.Bodies.Position...)
	p.step(t, 30*60)
	d := drift(p.dev, start)
	t.Logf("largest drift in 30 s %.4f m", d)
	if d > 0.02 {
		t.Errorf("a box drifted %.4f m in 30 s, want < 0.02", d)
	}
	p.same(t)
}

// A box 100 times heavier than the one it rests on must not crush through it.
func TestEmulatedPGSHeavyOnLightStackHolds(t *testing.T) {
	skipUnlessStability(t)
	p := newPGSPair(t, func() *sim.World {
		w := pgsGround(t)
		slab := geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.5, 0.25, 0.5}}
		addBody(t, w, sim.BodyDef{Name: "light", Shape: slab, Position: sim.Vec3{0, 0.25, 0}, Rotation: sim.Quat{W: 1},
			Mass: 1, Friction: 0.6})
		addBody(t, w, sim.BodyDef{Name: "heavy", Shape: slab, Position: sim.Vec3{0, 0.75, 0}, Rotation: sim.Quat{W: 1},
			Mass: 100, Friction: 0.6})
		return w
	})
	p.step(t, 10*60)
	light, heavy := p.dev.Bodies.Position[1][1], p.dev.Bodies.Position[2][1]
	t.Logf("light at y=%.4f, heavy at y=%.4f", light, heavy)
	if abs(light-0.25) > 0.02 || abs(heavy-0.75) > 0.03 {
		t.Errorf("light at y=%.4f (want 0.25), heavy at y=%.4f (want 0.75)", light, heavy)
	}
	p.same(t)
}

// The ragdoll preset's iterative joints part by what the CPU's PGS lets them part (the same bits), and
// by less than the device's Jacobi at its defaults (16 x (2+2) passes) lets them.
func TestEmulatedPGSRagdollJointGaps(t *testing.T) {
	skipUnlessStability(t)
	preset := func(solver sim.SolverKind) func() *sim.World {
		return func() *sim.World {
			s, _ := scenes.Preset("ragdoll")
			w, err := s.World(scenes.Options{Solver: solver, Workers: 1})
			must(t, err)
			st := w.Settings()
			st.NoContactCache = true
			w.SetSettings(st)
			return w
		}
	}
	p := newPGSPair(t, preset(sim.PGS))
	jac := preset(sim.Jacobi)()
	must(t, jac.SetBackend(NewEmulated()))
	t.Cleanup(func() {
		jac.SetBackend(nil)
		jac.Close()
	})
	var gap, cpuGap, jacGap float32
	for range 90 {
		p.step(t, 1)
		must(t, jac.Step(), jac.Sync())
		gap, cpuGap, jacGap = max(gap, p.dev.MaxJointGap()), max(cpuGap, p.cpu.MaxJointGap()), max(jacGap, jac.MaxJointGap())
	}
	r := jac.Resolved()
	t.Logf("largest joint gap over 90 steps: %.2e m on the device's PGS, %.2e m on the CPU's; %.2e m on the device's Jacobi (%d x (%d+%d))",
		gap, cpuGap, jacGap, r.Substeps, r.Iterations, r.RelaxIterations)
	if gap != cpuGap {
		t.Errorf("the device's PGS let the joints part by %.3g m, the CPU's by %.3g m", gap, cpuGap)
	}
	if gap >= jacGap {
		t.Errorf("the device's PGS let the joints part by %.3g m, no less than its Jacobi's %.3g m", gap, jacGap)
	}
	p.same(t)
}
