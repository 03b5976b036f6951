package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"tumble/scenes"
	"tumble/sim"
)

// warmPreset loads the preset name with opts and steps it warm times.
func warmPreset(b *testing.B, name string, opts scenes.Options, warm int) *sim.World {
	b.Helper()
	sc, ok := scenes.Preset(name)
	if !ok {
		b.Fatalf("no preset %s", name)
	}
	w, err := sc.World(opts)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < warm; i++ {
		if err := w.Step(); err != nil {
			w.Close()
			b.Fatal(err)
		}
	}
	return w
}

// benchPreset steps a preset after warm steps and reports ms per step for each stage and in total,
// with 1 and 2 workers. Allocations are per step (b.N steps).
func benchPreset(b *testing.B, name string, warm int) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(b *testing.B) {
			w := warmPreset(b, name, scenes.Options{Workers: workers}, warm)
			defer w.Close()
			var stages sim.Timings
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := w.Step(); err != nil {
					b.Fatal(err)
				}
				for s, d := range w.Stats.Timings {
					stages[s] += d
				}
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 / float64(b.N) }
			for s := sim.Stage(0); s < sim.NumStages; s++ {
				if stages[s] > 0 { // a stage the solver's plan runs
					b.ReportMetric(per(stages[s]), strings.ReplaceAll(s.String(), " ", "-")+"-ms/step")
				}
			}
			b.ReportMetric(float64(w.Stats.Contacts), "contacts")
			b.ReportMetric(float64(w.Bodies.Len())*float64(b.N)/b.Elapsed().Seconds(), "body-steps/s")
		})
	}
}

func BenchmarkStepPyramid20(b *testing.B) { benchPreset(b, "pyramid20", 60) }

func BenchmarkStepPile(b *testing.B) {
	if testing.Short() {
		b.Skip("10,000 boxes")
	}
	benchPreset(b, "pile", 60)
}

// benchSolvers steps a joint preset under each solver (1 worker) and reports ms per step and joints.
func benchSolvers(b *testing.B, name string, warm int) {
	for _, solver := range []sim.SolverKind{sim.PGS, sim.Jacobi, sim.XPBD} {
		b.Run(fmt.Sprintf("%s/%v", name, solver), func(b *testing.B) {
			w := warmPreset(b, name, scenes.Options{Solver: solver, Workers: 1}, warm)
			defer w.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := w.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/step")
			b.ReportMetric(float64(w.NumJoints()), "joints")
		})
	}
}

// BenchmarkStepRagdoll is the ragdoll pile (20 ragdolls, 220 bodies, 200 joints) under each solver.
func BenchmarkStepRagdoll(b *testing.B) { benchSolvers(b, "ragdoll", 60) }

// BenchmarkStepChain is the 30-link chain under each solver.
func BenchmarkStepChain(b *testing.B) { benchSolvers(b, "chain", 60) }
