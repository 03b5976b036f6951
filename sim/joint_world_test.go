package sim

import (
	"testing"

	"tumble/sim/geom"
)

// chainsWorld hangs k chains of n links side by side (ball joints), swinging, over a ground plane.
func chainsWorld(t testing.TB, s Settings, k, n int) *World {
	w := gravityWorld(s)
	groundPlane(t, w, 0.6, 0)
	for c := 0; c < k; c++ {
		z := float32(c) * 0.3
		var prev Handle
		for i := 0; i < n; i++ {
			h := mustAdd(t, w, BodyDef{Shape: geom.Shape{Kind: geom.Capsule, Radius: 0.05, HalfHeight: 0.05},
				Position: Vec3{0.1 + 0.2*float32(i), 8, z}, Rotation: quatZ90, Mass: 1})
			mustJoint(t, w, JointDef{Type: Ball, BodyA: h, BodyB: prev, Anchor: Vec3{0.2 * float32(i), 8, z}})
			prev = h
		}
	}
	return w
}

var quatZ90 = Quat{W: 0.70710677, V: Vec3{0, 0, 0.70710677}}

// Joints keep the step deterministic for any worker count, under every solver: 2400 joints in two
// colours of 1200, so each colour's loop (and Jacobi's loop over all joints) splits across workers.
func TestJointsGiveIdenticalResultsForAnyWorkerCount(t *testing.T) {
	for _, solver := range jointSolvers {
		var runs [2]*World
		for k, workers := range []int{1, 3} {
			w := chainsWorld(t, Settings{Solver: solver, Workers: workers, Substeps: 2}, 40, 60)
			defer w.Close()
			run(t, w, 20)
			runs[k] = w
		}
		if solver != Jacobi {
			p := &runs[0].pipe
			largest := int32(0)
			for c := 0; c < maxColors; c++ {
				largest = max(largest, p.graph.jointColorStart[c+1]-p.graph.jointColorStart[c])
			}
			if largest < 2*jointGrain {
				t.Fatalf("%v: largest joint colour %d: too small to split across workers", solver, largest)
			}
		}
		a, b := &runs[0].Bodies, &runs[1].Bodies
		for i := range a.Position {
			if a.Position[i] != b.Position[i] || a.Rotation[i] != b.Rotation[i] || a.Velocity[i] != b.Velocity[i] {
				t.Fatalf("%v: body %d differs between 1 and 3 workers: %v vs %v", solver, i, a.Position[i], b.Position[i])
			}
		}
	}
}

// A steady step with joints (limits and motors included) allocates nothing, under every solver, and
// under fine grains island by island.
func TestJointStepAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, solver := range jointSolvers {
		w := chainsWorld(t, Settings{Solver: solver, Workers: 2}, 2, 10)
		h := mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.1, 0.1), Position: Vec3{0.5, 3, 0}, Mass: 1})
		mustJoint(t, w, JointDef{Type: Hinge, BodyA: h, Anchor: Vec3{0, 3, 0}, Axis: Vec3{0, 0, 1}, HasLimits: true,
			Limits: [2]float32{-0.5, 0.5}, HasMotor: true, Motor: Motor{Speed: 1, MaxForce: 1}})
		// The first contacts (about step 37, when the chains swing into each other) allocate the
		// contact arrays, and the wide pass's batches with them; the steps after that are steady.
		run(t, w, 120)
		if n := testing.AllocsPerRun(10, func() { w.Step() }); n != 0 {
			t.Errorf("%v: %.1f allocations per step", solver, n)
		}
		w.Close()
	}
	// PGS under fine grains, its sub-steps island by island where the build has the wide passes.
	w := gravityWorld(Settings{Workers: 4})
	defer w.Close()
	groundPlane(t, w, 0.6, 0)
	for k := range 8 {
		addTangle(t, w, 3*float32(k))
	}
	forceGrains(w, true)
	run(t, w, 120)
	if n := testing.AllocsPerRun(10, func() { w.Step() }); n != 0 || w.pipe.islands.on != WideAvailable() {
		t.Errorf("fine grains: %.1f allocations per step; by island %v", n, w.pipe.islands.on)
	}
}
