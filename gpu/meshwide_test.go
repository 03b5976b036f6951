package gpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim/geom"
)

// TestNarrowMeshesWidePairsAreExact: the mesh pairs that outgrow tb_narrow_meshes' stack arrays are
// collided again by tb_narrow_meshes_wide with the largest caps, and the whole narrow phase gives the
// CPU's contacts to the bit. A 48-sided prism lying on its cap on a coarse grid clips a face of 48
// points (more than NC_MESH_SMALL_CLIP); a wide box on a fine grid, and the prism on it, gather
// hundreds of points from the triangles under them (more than NC_MESH_SMALL_PTS). tb_narrow_meshes
// alone marks exactly those pairs TB_NARROW_WIDE (more of them than tb_narrow_meshes_wide has
// threads, so its threads go round more than once) and none of the small box, ball and capsule
// pairs mixed in, the mesh either body of a pair.
func TestNarrowMeshesWidePairsAreExact(t *testing.T) { checkWideMeshPairs(t, emulated{}) }

// checkWideMeshPairs is TestNarrowMeshesWidePairsAreExact on device d.
func checkWideMeshPairs(t *testing.T, d device) {
	rng := rand.New(rand.NewPCG(39, 9))
	fine, err := geom.NewGridMesh(3, 24, nil) // 0.25 m cells
	if err != nil {
		t.Fatal(err)
	}
	coarse, err := geom.NewGridMesh(2, 2, nil) // 2 m cells
	if err != nil {
		t.Fatal(err)
	}
	fineGrid := geom.Shape{Kind: geom.TriMesh, Mesh: fine}
	coarseGrid := geom.Shape{Kind: geom.TriMesh, Mesh: coarse}
	prism := geom.Shape{Kind: geom.ConvexHull, Hull: wideTestPrism(t, 48, 0.5, 0.2)}
	var w narrowTestWorld
	var pairs []int2
	wide := map[int]bool{}
	tilt := func() geom.Quat {
		yaw := mgl32.QuatRotate(2*math.Pi*rng.Float32(), geom.Vec3{0, 1, 0})
		return mgl32.QuatRotate(0.005*rng.Float32(), narrowRandUnit(rng)).Mul(yaw).Normalize()
	}
	at := func(y float32) geom.Pose {
		return geom.Pose{P: geom.Vec3{0.4 * (rng.Float32() - 0.5), y, 0.4 * (rng.Float32() - 0.5)}, Q: tilt()}
	}
	// add collides mesh m with shape s at pose p, the mesh body a of the pair or b.
	add := func(m, s geom.Shape, p geom.Pose, meshFirst, isWide bool) {
		if isWide {
			wide[len(pairs)] = true
		}
		var a, b int32
		if meshFirst {
			a = w.add(m, nAt(0, 0, 0), geom.Vec3{}, geom.Vec3{})
			b = w.add(s, p, geom.Vec3{}, geom.Vec3{})
		} else {
			a = w.add(s, p, geom.Vec3{}, geom.Vec3{})
			b = w.add(m, nAt(0, 0, 0), geom.Vec3{}, geom.Vec3{})
		}
		pairs = append(pairs, int2{a, b})
	}
	for k := range 90 {
		first := k%2 == 0
		sink := func(h float32) float32 { return h - 0.005*rng.Float32() }
		add(coarseGrid, prism, at(sink(0.2)), first, true)
		add(fineGrid, nBox(0.95, 0.2, 0.95), at(sink(0.2)), !first, true)
		add(fineGrid, prism, at(sink(0.2)), first, true)
		add(coarseGrid, nBox(0.3, 0.2, 0.3), at(sink(0.2)), !first, false)
		add(fineGrid, geom.Shape{Kind: geom.Sphere, Radius: 0.2}, at(sink(0.2)), first, false)
		add(fineGrid, geom.Shape{Kind: geom.Capsule, Radius: 0.1, HalfHeight: 0.2}, at(sink(0.1)), !first, false)
	}
	bb := testBodies(t, d, &w.b)
	var s narrowStage
	defer s.release(d)
	must(t, s.reserve(d, len(pairs), meshSlots*len(pairs)))
	const dt, spec = 1.0 / 60, 0.02

	// tb_narrow_meshes alone: which pairs does it leave to the wide kernel?
	var pb, cb buffer
	defer release(d, &pb)
	defer release(d, &cb)
	must(t, grow(d, &pb, 8*len(pairs)), grow(d, &cb, 4), grow(d, &s.meshCand, len(pairs)*meshSlots*contactBytes))
	must(t, uploadSlice(d, pb.p, pairs), uploadSlice(d, cb.p, []uint32{uint32(len(pairs))}))
	k := kernelSet{d}
	must(t, k.narrowMeshes(blocks(len(pairs), narrowThreads), narrowThreads, narrowMeshesArgs{
		Pairs: pb.p, PairCount: cb.p, PairCapacity: int32(len(pairs)),
		Pos: bb.pos.p, Rot: bb.rot.p, Vel: bb.vel.p, Omega: bb.omega.p, Shape: bb.shape.p,
		Hulls: bb.hulls.dHulls.p, HullVerts: bb.hulls.dVerts.p, HullFaces: bb.hulls.dFaces.p,
		HullLoops: bb.hulls.dLoops.p, HullEdges: bb.hulls.dEdges.p,
		Meshes: bb.meshes.dMeshes.p, MeshNodes: bb.meshes.dNodes.p, MeshOrder: bb.meshes.dOrder.p,
		MeshTris: bb.meshes.dTris.p, MeshNormals: bb.meshes.dNormals.p, MeshVerts: bb.meshes.dVerts.p,
		Jointed: cb.p, Dt: dt, Speculative: spec, Cand: s.cand.p, MeshCand: s.meshCand.p, Touching: s.offsets.p,
	}))
	flags := make([]uint32, len(pairs))
	must(t, downloadSlice(d, flags, s.offsets.p))
	marked := 0
	for i, f := range flags {
		if (f == math.MaxUint32) != wide[i] {
			t.Fatalf("pair %d (wide %v): tb_narrow_meshes left touching %#x", i, wide[i], f)
		}
		if wide[i] {
			marked++
		}
	}
	if marked <= narrowWideThreads {
		t.Fatalf("%d wide pairs: the wide kernel's threads do not go round twice", marked)
	}

	count, got := narrowRun(t, d, &s, bb, pairs, len(pairs), dt, spec)
	want := narrowCPU(&w.b, pairs, dt, spec, nil)
	if int(count) != len(want) || len(got) != len(want) {
		t.Fatalf("%d contacts, want %d", count, len(want))
	}
	// Every pair touches, with one manifold (the flat grids give one normal).
	if len(want) != len(pairs) {
		t.Fatalf("%d manifolds on the CPU for %d pairs, want one a pair", len(want), len(pairs))
	}
	for i := range want {
		if !sameContact(&got[i], &want[i]) {
			t.Fatalf("contact %d (wide %v):\n got %+v\nwant %+v", i, wide[i], got[i], want[i])
		}
	}
}
