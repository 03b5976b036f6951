package command

import (
	"strings"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
)

// Spawn makes convex hulls: a pile of rocks, each a different hull, and bunnies standing upright, all
// landing on the ground and coming to rest there; a hull of a silly size is refused whole.
func TestSpawningRocksAndBunniesAddsHullsThatLand(t *testing.T) {
	for _, c := range []struct {
		hull HullShape
		size float32
	}{{Rock, 0.2}, {Bunny, 0.3}} {
		s := ground(t)
		s.Do(Spawn(Spec{Kind: geom.ConvexHull, Hull: c.hull, Pattern: Wall, Count: 4, Size: sim.Vec3{c.size},
			Friction: 0.6, At: sim.Vec3{0, 0, 0}}))
		if err := s.Apply(); err != nil {
			t.Fatal(err)
		}
		var y0 []float32
		s.View(func(w *sim.World) {
			b := &w.Bodies
			if b.Len() != 5 {
				t.Fatalf("%d bodies, want the ground and 4 hulls", b.Len())
			}
			hulls := map[*geom.Hull]bool{}
			for i := 1; i < b.Len(); i++ {
				if b.Shape[i].Kind != geom.ConvexHull {
					t.Fatalf("body %d is a %s", i, b.Shape[i].Kind)
				}
				hulls[b.Shape[i].Hull] = true
				y0 = append(y0, b.Position[i][1])
			}
			if want := map[HullShape]int{Rock: 4, Bunny: 1}[c.hull]; len(hulls) != want {
				t.Errorf("hull %d: %d distinct hulls, want %d", c.hull, len(hulls), want)
			}
		})
		if err := s.Steps(240); err != nil {
			t.Fatal(err)
		}
		s.View(func(w *sim.World) {
			b := &w.Bodies
			for i := 1; i < b.Len(); i++ {
				box := b.Shape[i].Bounds(geom.Pose{P: b.Position[i], Q: b.Rotation[i]})
				if b.Position[i][1] > y0[i-1]-0.05 && y0[i-1] > 2*c.size || box.Min[1] < -0.02 || b.Velocity[i].Len() > 0.05 {
					t.Errorf("hull %d body %d: from y %.3f to %.3f, lowest point %.3f, speed %.3f", c.hull, i,
						y0[i-1], b.Position[i][1], box.Min[1], b.Velocity[i].Len())
				}
			}
		})
	}
	s := ground(t)
	s.Do(Spawn(Spec{Kind: geom.ConvexHull, Hull: Rock, Pattern: Stack, Count: 3, Size: sim.Vec3{0.001}}))
	if err := s.Apply(); err == nil || !strings.Contains(err.Error(), "hull's size must be 0.02..50 m, got 0.001") {
		t.Errorf("a 1 mm rock: %v", err)
	}
}
