package gpu

import (
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// The backend refuses convex hulls and triangle meshes at the first step, naming the first such body:
// the rocks preset's first boulder, the terrain preset's static mesh.
func TestHullAndMeshScenesAreRefusedWithAClearError(t *testing.T) {
	for _, c := range []struct{ preset, want, body string }{
		{"rocks", "the CUDA backend has no convex hull shapes", `"boulder0"`},
		{"terrain", "the CUDA backend has no triangle mesh shapes", `"terrain"`},
	} {
		s, _ := scenes.Preset(c.preset)
		w, err := s.World(scenes.Options{Solver: sim.Jacobi})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.SetBackend(NewEmulated()); err != nil {
			t.Fatal(err)
		}
		err = w.Step()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.body) {
			t.Errorf("%s: got %v, want a refusal naming %s", c.preset, err, c.body)
		}
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
