package gpu

import (
	"math/rand/v2"
	"testing"

	"tumble/sim/geom"
)

// TestNarrowMeshPairsAreExactOnTheEmulator: mesh.cuh is CollideMesh ported operation for operation,
// with the BVH uploaded as geom built it, so every shape the device runs against a static mesh (box,
// hull, sphere and capsule, the mesh either body of the pair) gives the CPU's manifolds to the bit on
// the emulator: how many a pair gives and their order, points, separations, normals and feature ids.
// The pairs are placed over testMesh's flat strip (seams: inactive edges), its bumps and its crease,
// deep, touching and just apart, so single and several manifolds, face, edge and vertex contacts
// all come up.
func TestNarrowMeshPairsAreExactOnTheEmulator(t *testing.T) {
	d := emulated{}
	rng := rand.New(rand.NewPCG(39, 3))
	var w narrowTestWorld
	var pairs []int2
	others := []geom.Kind{geom.Box, geom.Sphere, geom.Capsule, geom.ConvexHull}
	for _, k := range others {
		for range 200 {
			pairs = append(pairs, narrowRandPair(rng, &w, geom.TriMesh, k), narrowRandPair(rng, &w, k, geom.TriMesh))
		}
	}
	bb := testBodies(t, d, &w.b)
	var s narrowStage
	defer s.release(d)
	must(t, s.reserve(d, len(pairs), meshSlots*len(pairs)))
	for _, spec := range []float32{0, 0.02} {
		const dt = 1.0 / 60
		count, got := narrowRun(t, d, &s, bb, pairs, len(pairs), dt, spec)
		want := narrowCPU(&w.b, pairs, dt, spec, nil)
		if int(count) != len(want) || len(got) != len(want) {
			t.Fatalf("speculative %g: %d contacts, want %d", spec, count, len(want))
		}
		kinds := map[geom.Kind]int{}
		perPair := map[int2]int{}
		for i := range want {
			g, wc := &got[i], &want[i]
			if !sameContact(g, wc) {
				t.Fatalf("speculative %g: contact %d (%s-%s):\n got %+v\nwant %+v", spec, i,
					w.b.Shape[wc.A].Kind, w.b.Shape[wc.B].Kind, *g, *wc)
			}
			other := w.b.Shape[wc.A].Kind
			if other == geom.TriMesh {
				other = w.b.Shape[wc.B].Kind
			}
			kinds[other]++
			perPair[int2{wc.A, wc.B}]++
		}
		several := 0
		for _, n := range perPair {
			if n > 1 {
				several++
			}
		}
		for _, k := range others {
			if kinds[k] == 0 {
				t.Errorf("speculative %g: no %s touched the mesh", spec, k)
			}
		}
		if len(perPair) < len(pairs)/3 || several == 0 {
			t.Errorf("speculative %g: %d of %d pairs touch, %d with several manifolds: the test places too few", spec,
				len(perPair), len(pairs), several)
		}
		t.Logf("speculative %g: %d of %d pairs touch (%d with several manifolds), %d manifolds: %v", spec,
			len(perPair), len(pairs), several, len(want), kinds)
	}
}
