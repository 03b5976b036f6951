//go:build cuda

package gpu

import (
	"testing"
	"time"

	"tumble/sim"
)

// TestCUDASmallPathTimes times the untimed step (graphs on, no wait but the step's read-back: the wall
// clock of World.Step) of the small scenes with the small path (small.go) on, with its block at 512
// threads, and off (NoSmall: the per-pass kernels), under Jacobi at 4 sub-steps (docs/PERF.md's speed
// table), Jacobi at its defaults, Jacobi at its defaults with sleeping on (the window's default: after
// the warm-up, stack and pyramid20 sleep whole and their steps are idle, the ragdolls partly) and PGS
// at its defaults; and it fails where the three runs of a
// scene do not end in the same bits, or the small path's differs from the CPU's. scripts/gpu-run.sh
// runs it as its "small" check; the log's lines are the figures.
func TestCUDASmallPathTimes(t *testing.T) {
	const warmup, steps = 100, 300
	for _, c := range []struct {
		name     string
		solver   sim.SolverKind
		substeps int // 0: the solver's default
		sleep    bool
	}{{"jacobi-4", sim.Jacobi, 4, false}, {"jacobi", sim.Jacobi, 0, false}, {"jacobi-sleep", sim.Jacobi, 0, true},
		{"pgs", sim.PGS, 0, false}} {
		for _, scene := range []string{"stack", "pyramid20", "ragdoll"} {
			t.Run(c.name+"/"+scene, func(t *testing.T) {
				build := func() *sim.World {
					w := newSolverWorld(t, scene, c.solver)
					s := w.Settings()
					if c.substeps > 0 {
						s.Substeps = c.substeps
					}
					s.Sleep = c.sleep
					w.SetSettings(s)
					return w
				}
				cpu := build()
				defer cpu.Close()
				var worlds [3]*sim.World
				var ms [3]float64
				var launches [3]int
				for i := range worlds {
					w := build()
					defer w.Close()
					b := newCUDA(t)
					switch i {
					case 1:
						b.solver.smallBlock = 512
					case 2:
						b.NoSmall = true
					}
					must(t, w.SetBackend(b))
					defer w.SetBackend(nil)
					for range warmup {
						must(t, w.Step())
					}
					start := time.Now()
					for range steps {
						must(t, w.Step())
					}
					ms[i] = float64(time.Since(start).Microseconds()) / 1000 / steps
					if i < 2 && !b.solver.small || i == 2 && b.solver.small {
						t.Fatalf("run %d: small path %v", i, b.solver.small)
					}
					// The launches a step kernel by kernel, from one more step without graphs.
					b.NoGraphs = true
					must(t, w.Step())
					launches[i] = b.LastStep.Launches
					must(t, w.Sync())
					worlds[i] = w
				}
				for range warmup + steps + 1 {
					must(t, cpu.Step())
				}
				if d := firstDifference(worlds[2], worlds[0]); d != "" {
					t.Errorf("per-pass path against the small path: %s", d)
				}
				if d := firstDifference(worlds[0], worlds[1]); d != "" {
					t.Errorf("the small path in blocks of 256 against 512: %s", d)
				}
				if d := firstDifference(cpu, worlds[0]); d != "" {
					t.Errorf("the CPU against the small path: %s", d)
				}
				t.Logf("%s %s: untimed step %.3f ms per pass (%d launches), %.3f ms small (%d launches), %.3f ms small in blocks of 512",
					c.name, scene, ms[2], launches[2], ms[0], launches[0], ms[1])
			})
		}
	}
}

// TestCUDASmallPathSleepsAsTheCPU is TestEmulatedSmallPathSleepsAsTheCPU on the GPU, where the block's
// threads do race: the islands' union-find, the rest minima, the labels and the scan of the sleeping
// islands' contacts inside tb_small_substeps leave every body's state, sleep and rest time, and the
// contacts listed, the CPU's bit for bit, and no step falls back to the per-pass kernels.
func TestCUDASmallPathSleepsAsTheCPU(t *testing.T) { checkSmallPathSleeps(t, newCUDA) }
