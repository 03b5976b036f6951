package gpu

import (
	"errors"
	"testing"

	"tumble/sim"
)

// graphStep steps w on b n times, failing on an error.
func graphSteps(t *testing.T, w *sim.World, n int) {
	t.Helper()
	for range n {
		must(t, w.Step())
	}
}

// sameBodies fails unless a and b hold the same bits for every body's pose and velocities.
func sameBodies(t *testing.T, what string, a, b *sim.World) {
	t.Helper()
	x, y := &a.Bodies, &b.Bodies
	for i := range x.Len() {
		if x.Position[i] != y.Position[i] || x.Rotation[i] != y.Rotation[i] || x.Velocity[i] != y.Velocity[i] ||
			x.AngularVelocity[i] != y.AngularVelocity[i] {
			t.Fatalf("%s: body %d differs: p %v v %v against p %v v %v", what, i, x.Position[i], x.Velocity[i],
				y.Position[i], y.Velocity[i])
		}
	}
}

// TestAStepIsOneGraphLaunch: on pyramid20 and the ragdolls, a steady untimed step reaches the device as
// one launch, a graph of the whole recorded sequence, where the same step launched kernel by kernel
// (NoGraphs) makes dozens (the small path's: small.go); the two give the same bits step after step, through an impulse (an
// upload at the step's start) and a changed setting (a new sequence: a new graph).
func TestAStepIsOneGraphLaunch(t *testing.T) {
	for _, scene := range []string{"pyramid20", "ragdoll"} {
		t.Run(scene, func(t *testing.T) {
			plain, graphed := newWorld(t, scene), newWorld(t, scene)
			defer plain.Close()
			defer graphed.Close()
			pb, gb := NewEmulated(), NewEmulated()
			pb.NoGraphs = true
			must(t, plain.SetBackend(pb), graphed.SetBackend(gb))
			defer plain.SetBackend(nil)
			defer graphed.SetBackend(nil)
			graphSteps(t, plain, 4)
			graphSteps(t, graphed, 4)
			pc, gc := pb.StepCounts(), gb.StepCounts()
			t.Logf("%s, a steady step: %d launches kernel by kernel, %d with graphs (%d graphs made, %d reused)",
				scene, pc.Launches, gc.Launches, gb.graphs.Made, gb.graphs.Reused)
			if gc.Launches != 1 || gc.Graphs != 1 || pc.Launches < 20 || pc.Graphs != 0 {
				t.Errorf("steady step: %+v with graphs, %+v without; want one graph launch against the plain launches", gc, pc)
			}
			if gc.Syncs != pc.Syncs || gc.Downloads != pc.Downloads || gc.DownloadBytes != pc.DownloadBytes {
				t.Errorf("graphs changed the waits or read-backs: %+v against %+v", gc, pc)
			}
			must(t, plain.Sync(), graphed.Sync())
			sameBodies(t, "after 4 steps", plain, graphed)
			made := gb.graphs.Made
			graphSteps(t, graphed, 2)
			if gb.graphs.Made != made {
				t.Errorf("steady steps made %d new graphs; want them reused", gb.graphs.Made-made)
			}
			graphSteps(t, plain, 2)
			h := plain.HandleAt(plain.Bodies.Len() - 1)
			for _, w := range []*sim.World{plain, graphed} {
				must(t, w.ApplyImpulse(h, sim.Vec3{3, 1, 0}, w.Bodies.Position[w.Bodies.Len()-1]))
				s := w.Settings()
				s.Gravity[0] = 0.5
				w.SetSettings(s)
			}
			graphSteps(t, plain, 3)
			graphSteps(t, graphed, 3)
			if gb.graphs.Made == made {
				t.Errorf("a changed setting launched an old graph")
			}
			must(t, plain.Sync(), graphed.Sync())
			sameBodies(t, "after an impulse and a new gravity", plain, graphed)
		})
	}
}

// refusing is an emulated device whose graph capture fails, as on a driver without graphs.
type refusing struct{ emulated }

func (refusing) makeGraph([]graphOp) (graph, error) { return nil, errors.New("capture refused") }

// TestGraphCaptureFailureFallsBack: when the device refuses to make a graph, the step launches its
// kernels one by one (the same count as NoGraphs) and gives the same bits.
func TestGraphCaptureFailureFallsBack(t *testing.T) {
	plain, refused := newWorld(t, "pyramid20"), newWorld(t, "pyramid20")
	defer plain.Close()
	defer refused.Close()
	pb, rb := NewEmulated(), newBackend(refusing{})
	pb.NoGraphs = true
	must(t, plain.SetBackend(pb), refused.SetBackend(rb))
	defer plain.SetBackend(nil)
	defer refused.SetBackend(nil)
	graphSteps(t, plain, 3)
	graphSteps(t, refused, 3)
	if pc, rc := pb.StepCounts(), rb.StepCounts(); rc != pc || !rb.graphs.off {
		t.Errorf("refused capture: %+v (graphs off: %v); want the plain step's %+v", rc, rb.graphs.off, pc)
	}
	must(t, plain.Sync(), refused.Sync())
	sameBodies(t, "refused capture", plain, refused)
}
