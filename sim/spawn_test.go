package sim_test

import (
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// Bodies added far from a standing pyramid (the window's Spawn and Shoot) leave it as it would have
// stood without them: the others' contacts keep their warm start and friction anchors. When every
// AddBody threw those away, a spawn every 10 steps pushed the 210-box pyramid's boxes up to 6 mm
// from where they stood alone after 10 s.
func TestSpawningElsewhereLeavesAStandingPyramidAsItWas(t *testing.T) {
	if underRace {
		t.Skip("physics, not concurrency: 1,440 steps of 210 boxes run ten times slower under -race")
	}
	var ends [2][]sim.Vec3
	for run, spawn := range []bool{false, true} {
		sc, ok := scenes.Preset("pyramid20")
		if !ok {
			t.Fatal("no pyramid20 preset")
		}
		w, err := sc.World(scenes.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		n := w.Bodies.Len()
		for k := range 720 {
			if spawn && k >= 120 && k%10 == 0 {
				def := sim.BodyDef{Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.3}, Position: sim.Vec3{100 + float32(k), 5, 100}, Mass: 1}
				if _, err := w.AddBody(def); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Step(); err != nil {
				t.Fatal(err)
			}
		}
		ends[run] = append([]sim.Vec3(nil), w.Bodies.Position[:n]...)
	}
	moved := float32(0)
	for i := range ends[0] {
		moved = max(moved, ends[1][i].Sub(ends[0][i]).Len())
	}
	if moved > 1e-5 {
		t.Errorf("after 10 s of spawns elsewhere, the pyramid's boxes are up to %.3f mm from where they stand without them", moved*1000)
	}
}
