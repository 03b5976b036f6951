//go:build cuda

package gpu

import (
	"math"
	"runtime"
	"testing"

	"tumble/scenes"
	"tumble/sim"
)

// The cuda build's tests run on a machine with an NVIDIA GPU (scripts/gpu-build.sh builds them here and
// scripts/gpu-run.sh runs them there): the same parity cases as the emulated ones, longer, and the rain.

// Each asks for the CPU's bits (tolerance 0). Every case gave a largest difference of 0 m on an H200
// (driver 580.159.04, 2026-11-28, scripts/gpu-run.sh, docs/PERF.md); the first four also on an H100.
var cudaParity = []parityCase{
	{"stack", 600, 0, 0},
	{"pyramid20", 600, 0, 0},
	{"pendulum", 600, 0, 0},
	{"chain", 600, 0, 0},
	{"rain", 120, 0, 5 + 250},
	// Rolling and spinning resistance (bowling, wall), motors (engine, door, car), a bridge of
	// hinges and the ragdoll pile's ball joints with limits.
	{"bowling", 600, 0, 0},
	{"wall", 600, 0, 0},
	{"engine", 600, 0, 0},
	{"door", 600, 0, 0},
	{"car", 600, 0, 0},
	{"bridge", 600, 0, 0},
	{"ragdoll", 300, 0, 0},
	// Convex hulls (tb_narrow_hulls): exact on the emulator; not yet run on a GPU.
	{"rocks", 600, 0, 0},
	{"bunny", 600, 0, 0},
	// A static triangle mesh (tb_narrow_meshes, several manifolds a pair): exact on the emulator;
	// not yet run on a GPU.
	{"terrain", 600, 0, 0},
}

func newCUDA(t testing.TB) *Backend {
	t.Helper()
	b, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCUDAParity(t *testing.T) { checkParity(t, cudaParity, newCUDA) }

// TestCUDAParityOfSpawnedHulls is TestEmulatedSpawnedHullsAreExact on the GPU (its name matches
// scripts/gpu-run.sh's parity check).
func TestCUDAParityOfSpawnedHulls(t *testing.T) { checkSpawnedHulls(t, newCUDA(t)) }

// TestCUDAParityOfShapesOnATiltedMesh is TestEmulatedShapesOnATiltedMeshAreExact on the GPU (its name
// matches scripts/gpu-run.sh's parity check).
func TestCUDAParityOfShapesOnATiltedMesh(t *testing.T) { checkShapesOnATiltedMesh(t, newCUDA(t)) }

// TestCUDARainParity: 10,000 boxes packed into a falling grid (neighbours touch from the first step)
// are chaotic, so the whole rain is compared by what the physics fixes: no blow-up, every box inside the
// bin after 600 steps, and the mean height of the boxes within 0.2 m of the CPU's (the settled heap is
// about 6.5 m high). The bit-for-bit check is TestCUDAParity's cut of it.
func TestCUDARainParity(t *testing.T) {
	// The CPU side on every core: with one it did not finish in 184 s on the H100's 16-core host.
	s, ok := scenes.Preset("rain")
	if !ok {
		t.Fatal("no preset rain")
	}
	cpu, err := s.World(scenes.Options{Solver: sim.Jacobi, Workers: runtime.NumCPU()})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	dev := newWorld(t, "rain")
	defer dev.Close()
	if err := dev.SetBackend(newCUDA(t)); err != nil {
		t.Fatal(err)
	}
	defer dev.SetBackend(nil)
	for step := 1; step <= 600; step++ {
		if err := cpu.Step(); err != nil {
			t.Fatal(err)
		}
		if err := dev.Step(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
	}
	if err := dev.Sync(); err != nil {
		t.Fatal(err)
	}
	for i := range dev.Bodies.Len() {
		p := dev.Bodies.Position[i]
		if dev.Bodies.Type[i] == sim.Dynamic && !(p[1] > -0.1 && abs(p[0]) < 7.25 && abs(p[2]) < 7.25) {
			t.Errorf("%s is outside the bin at %v", dev.Bodies.Name[i], p)
		}
	}
	meanY := func(w *sim.World) float64 {
		s, n := 0.0, 0
		for i := range w.Bodies.Len() {
			if w.Bodies.Type[i] == sim.Dynamic {
				s += float64(w.Bodies.Position[i][1])
				n++
			}
		}
		return s / float64(n)
	}
	yc, yd := meanY(cpu), meanY(dev)
	t.Logf("rain after 600 steps: mean height %.4f m on the CPU, %.4f m on the GPU", yc, yd)
	if math.Abs(yc-yd) > 0.2 {
		t.Errorf("mean heights differ: CPU %.4f m, GPU %.4f m", yc, yd)
	}
}

// BenchmarkCUDAStep times whole steps of the benchmark piles on the GPU.
func BenchmarkCUDAStep(b *testing.B) {
	for _, scene := range []string{"pile", "pile100k", "pile1m"} {
		b.Run(scene, func(b *testing.B) {
			w := newWorld(b, scene)
			defer w.Close()
			if err := w.SetBackend(newCUDA(b)); err != nil {
				b.Fatal(err)
			}
			defer w.SetBackend(nil)
			for range 120 { // settle
				if err := w.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for range b.N {
				if err := w.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCUDAStepIsOneGraphAndTheSameBits: on the GPU a steady pyramid20 step is captured as one graph
// (not fallen back to plain launches) and 120 steps with graphs give the same bits as 120 launched
// kernel by kernel (NoGraphs).
func TestCUDAStepIsOneGraphAndTheSameBits(t *testing.T) {
	plain, graphed := newWorld(t, "pyramid20"), newWorld(t, "pyramid20")
	defer plain.Close()
	defer graphed.Close()
	pb, gb := newCUDA(t), newCUDA(t)
	pb.NoGraphs = true
	must(t, plain.SetBackend(pb), graphed.SetBackend(gb))
	defer plain.SetBackend(nil)
	defer graphed.SetBackend(nil)
	graphSteps(t, plain, 120)
	graphSteps(t, graphed, 120)
	if c := gb.StepCounts(); c.Launches != 1 || c.Graphs != 1 || gb.graphs.off {
		t.Errorf("steady step on the GPU: %+v (graphs off: %v); want one graph launch", c, gb.graphs.off)
	}
	must(t, plain.Sync(), graphed.Sync())
	sameBodies(t, "120 steps", plain, graphed)
}

// TestCUDASleepStage, TestCUDASleepIslandRoots and TestCUDASleepWakeByLabel run the emulated
// sleep-stage checks (sleep_test.go) on the GPU, where the union-find's and the marks' threads do race.
// TestCUDASleepingStepIsTheCPUs is TestEmulatedSleepingStepIsTheCPUs on the GPU: with sleeping on,
// the step equals the CPU's Jacobi step bit for bit while scenes fall asleep and are woken.
func TestCUDASleepingStepIsTheCPUs(t *testing.T) { checkSleepParity(t, newCUDA) }

// TestCUDASleepingPGSStepIsTheCPUs is TestEmulatedSleepingPGSStepIsTheCPUs on the GPU: under PGS with
// its contact cache off and sleeping on, the step equals the CPU's bit for bit.
func TestCUDASleepingPGSStepIsTheCPUs(t *testing.T) {
	checkSleepParityOf(t, newCUDA, pgsSleepCases())
}

// TestCUDASleepSplitBroadPhase is TestSplitBroadPhaseFindsTheWholeTreesPairs on the GPU, whose
// tb_broad_cross and tree builds over part of the world run their threads at once: the awake bodies'
// tree with the kept tree of the resting ones gives the pairs of one tree over every body.
func TestCUDASleepSplitBroadPhase(t *testing.T) { checkSplitBroadPhase(t, newCUDA(t)) }

func TestCUDASleepStage(t *testing.T)       { checkSleepStage(t, newCUDA(t)) }
func TestCUDASleepIslandRoots(t *testing.T) { checkIslandRoots(t, newCUDA(t)) }
func TestCUDASleepWakeByLabel(t *testing.T) { checkWakeByLabel(t, newCUDA(t)) }

// TestCUDASleepingStacksContactsAreTheCPUs is TestEmulatedSleepingStacksContactsAreTheCPUs on the GPU: the
// sleeping stack's kept contact points are the CPU's, bit for bit.
func TestCUDASleepingStacksContactsAreTheCPUs(t *testing.T) { checkSleptContacts(t, newCUDA(t)) }

// TestCUDAParityPGS runs the PGS solver on the GPU against the CPU's PGS, bit for bit (the emulated
// cases of TestEmulatedPGSMatchesCPU, longer, and the overflowing scene): the colours computed on the
// device (tb_gs_colour's rounds, whose threads race there) must be the CPU's greedy ones, and each
// colour's launch the CPU's pass over it. Not yet run on a GPU.
func TestCUDAParityPGS(t *testing.T) {
	for _, c := range []struct {
		scene      string
		cut, steps int
	}{
		{"stack", 0, 600}, {"pyramid20", 0, 600}, {"ragdoll", 0, 300}, {"engine", 0, 600}, {"door", 0, 600},
		{"cradle", 0, 600}, {"bowling", 0, 600}, {"rain", 5 + 250, 120}, {"rocks", 0, 600},
	} {
		t.Run(c.scene, func(t *testing.T) {
			pgsParityOf(t, c.scene, func() *sim.World { return newPGSWorld(t, c.scene, c.cut) }, c.steps, newCUDA, nil)
		})
	}
	t.Run("overflow", func(t *testing.T) { checkPGSOverflow(t, 60, newCUDA) })
}

// TestCUDAStepPGSIsOneGraphAndTheSameBits: a steady PGS step of the ragdolls (contacts and joints, a
// launch per colour) is one graph on the GPU, with the bits of the same steps launched one by one.
func TestCUDAStepPGSIsOneGraphAndTheSameBits(t *testing.T) {
	plain, graphed := newPGSWorld(t, "ragdoll", 0), newPGSWorld(t, "ragdoll", 0)
	defer plain.Close()
	defer graphed.Close()
	pb, gb := newCUDA(t), newCUDA(t)
	pb.NoGraphs = true
	must(t, plain.SetBackend(pb), graphed.SetBackend(gb))
	defer plain.SetBackend(nil)
	defer graphed.SetBackend(nil)
	graphSteps(t, plain, 120)
	graphSteps(t, graphed, 120)
	if c := gb.StepCounts(); c.Launches != 1 || c.Graphs != 1 || gb.graphs.off {
		t.Errorf("steady PGS step on the GPU: %+v (graphs off: %v); want one graph launch", c, gb.graphs.off)
	}
	t.Logf("ragdoll under PGS: %d launches a step without the graph, %d re-runs in 120 steps", pb.StepCounts().Launches,
		pb.Reruns)
	must(t, plain.Sync(), graphed.Sync())
	sameBodies(t, "120 PGS steps", plain, graphed)
}
