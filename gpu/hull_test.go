package gpu

import (
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

func TestHullScenesAreRefusedWithAClearError(t *testing.T) {
	s, _ := scenes.Preset("rocks")
	w, err := s.World(scenes.Options{Solver: sim.Jacobi})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetBackend(NewEmulated()); err != nil {
		t.Fatal(err)
	}
	err = w.Step()
	if err == nil || !strings.Contains(err.Error(), "the CUDA backend has no convex hull shapes") || !strings.Contains(err.Error(), `"boulder0"`) {
		t.Fatalf("got %v, want a refusal naming the first hull body", err)
	}
	t.Log(err)
}

// The terrain preset's first body is its static mesh: the refusal names it.
func TestMeshScenesAreRefusedWithAClearError(t *testing.T) {
	s, _ := scenes.Preset("terrain")
	w, err := s.World(scenes.Options{Solver: sim.Jacobi})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetBackend(NewEmulated()); err != nil {
		t.Fatal(err)
	}
	err = w.Step()
	if err == nil || !strings.Contains(err.Error(), "the CUDA backend has no triangle mesh shapes") || !strings.Contains(err.Error(), `"terrain"`) {
		t.Fatalf("got %v, want a refusal naming the mesh body", err)
	}
}

// hasHull reports whether any of w's bodies is a convex hull or a triangle mesh, which this backend
// refuses.
func hasHull(w *sim.World) bool {
	for i := range w.Bodies.Shape {
		if k := w.Bodies.Shape[i].Kind; k == geom.ConvexHull || k == geom.TriMesh {
			return true
		}
	}
	return false
}
