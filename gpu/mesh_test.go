package gpu

import (
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/render/instance"
	"tumble/sim"
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
		several, most := 0, 0
		for _, n := range perPair {
			if n > 1 {
				several++
			}
			most = max(most, n)
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
		t.Logf("speculative %g: %d of %d pairs touch (%d with several manifolds, at most %d), %d manifolds: %v",
			spec, len(perPair), len(pairs), several, most, len(want), kinds)
	}
}

// TestEmulatedShapesOnATiltedMeshAreExact: every shape the device runs dropped onto a static mesh
// that is itself turned and moved (its pose is not the world's): boxes, balls, capsules, rocks and a
// moving closed L-shaped mesh (its hull collides, its mass properties are the L's), spawned between
// steps, land on testMesh's flat strip, bumps and crease and slide and roll over its seams, and the
// world equals the CPU's Jacobi steps to the bit, the contact lists included (manifolds and points).
func TestEmulatedShapesOnATiltedMeshAreExact(t *testing.T) {
	checkShapesOnATiltedMesh(t, NewEmulated())
}

// checkShapesOnATiltedMesh runs TestEmulatedShapesOnATiltedMeshAreExact's world on the CPU and on be.
func checkShapesOnATiltedMesh(t *testing.T, be *Backend) {
	var worlds [2]*sim.World
	for i := range worlds {
		worlds[i] = sim.NewWorld(sim.Settings{Solver: sim.Jacobi, Workers: 1, Gravity: geom.Vec3{0, -9.81, 0}})
		defer worlds[i].Close()
	}
	cpu, dev := worlds[0], worlds[1]
	add := func(d sim.BodyDef) {
		t.Helper()
		for _, w := range worlds {
			if _, err := w.AddBody(d); err != nil {
				t.Fatal(err)
			}
		}
	}
	add(sim.BodyDef{Name: "ground", Type: sim.Static, Shape: geom.Shape{Kind: geom.TriMesh, Mesh: testMesh},
		Position: geom.Vec3{0.3, -0.2, 0.1}, Rotation: mgl32.QuatRotate(0.15, geom.Vec3{0.6, 0, 0.8}), Friction: 0.6})
	must(t, dev.SetBackend(be))
	defer dev.SetBackend(nil)
	shapes := []geom.Shape{
		{Kind: geom.Box, HalfExtents: geom.Vec3{0.3, 0.15, 0.2}},
		{Kind: geom.Sphere, Radius: 0.2},
		{Kind: geom.Capsule, Radius: 0.12, HalfHeight: 0.25},
		{Kind: geom.ConvexHull, Hull: testHulls[7]},
		{Kind: geom.ConvexHull, Hull: lMeshHull(t)},
	}
	rng := rand.New(rand.NewPCG(39, 4))
	steps := 0
	for k := range 15 {
		add(sim.BodyDef{Shape: shapes[k%len(shapes)], Mass: 1, Friction: 0.5,
			Position:        geom.Vec3{3.2*rng.Float32() - 1.6, 1 + 0.3*rng.Float32(), 3.2*rng.Float32() - 1.6},
			Rotation:        narrowRandQuat(rng),
			AngularVelocity: geom.Vec3{rng.Float32() - 0.5, rng.Float32() - 0.5, rng.Float32() - 0.5}})
		for range 8 {
			steps++
			for _, w := range worlds {
				must(t, w.Step())
			}
		}
	}
	for range 60 {
		steps++
		for _, w := range worlds {
			must(t, w.Step())
		}
	}
	must(t, dev.Sync())
	for i := range cpu.Bodies.Len() {
		if cpu.Bodies.Position[i] != dev.Bodies.Position[i] || cpu.Bodies.Rotation[i] != dev.Bodies.Rotation[i] ||
			cpu.Bodies.Velocity[i] != dev.Bodies.Velocity[i] {
			t.Errorf("body %d (%s) after %d steps: CPU %v %v, device %v %v", i, cpu.Bodies.Shape[i].Kind, steps,
				cpu.Bodies.Position[i], cpu.Bodies.Rotation[i], dev.Bodies.Position[i], dev.Bodies.Rotation[i])
		}
	}
	// The bodies must lie on the mesh by then, touching several triangles, or the comparison says
	// little.
	if cpu.Stats.Manifolds != dev.Stats.Manifolds || cpu.Stats.Contacts != dev.Stats.Contacts || cpu.Stats.Manifolds < 15 {
		t.Errorf("%d manifolds, %d points on the CPU; %d, %d on the device", cpu.Stats.Manifolds, cpu.Stats.Contacts,
			dev.Stats.Manifolds, dev.Stats.Contacts)
	}
	t.Logf("%d bodies, %d steps, %d manifolds of %d points at the end: the same bits", cpu.Bodies.Len(), steps,
		cpu.Stats.Manifolds, cpu.Stats.Contacts)
}

// TestNarrowMeshPairOverManyTrianglesIsExact: a box lying on a fine flat grid gathers three points
// from each of the 100 to 150 triangles under it (more than the CPU's first buffer of 256, which its
// slice grows past) before they are reduced to one manifold of four; more than tb_narrow_meshes'
// stack holds, so tb_narrow_meshes_wide's buffer (NC_MESH_MAX_PTS) takes them, and the manifold is
// the CPU's to the bit.
func TestNarrowMeshPairOverManyTrianglesIsExact(t *testing.T) {
	d := emulated{}
	grid, err := geom.NewGridMesh(3, 24, nil) // 0.25 m cells
	if err != nil {
		t.Fatal(err)
	}
	var w narrowTestWorld
	var pairs []int2
	for k := range 6 {
		yaw := mgl32.QuatRotate(0.3*float32(k), geom.Vec3{0, 1, 0})
		m := w.add(geom.Shape{Kind: geom.TriMesh, Mesh: grid}, geom.Pose{Q: mgl32.QuatIdent()}, geom.Vec3{}, geom.Vec3{})
		b := w.add(geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.95, 0.2, 0.95}},
			geom.Pose{P: geom.Vec3{0.1 * float32(k), 0.2 - 0.005, 0.07}, Q: yaw}, geom.Vec3{}, geom.Vec3{})
		pairs = append(pairs, int2{m, b})
	}
	bb := testBodies(t, d, &w.b)
	var s narrowStage
	defer s.release(d)
	must(t, s.reserve(d, len(pairs), meshSlots*len(pairs)))
	count, got := narrowRun(t, d, &s, bb, pairs, len(pairs), 1.0/60, 0.02)
	want := narrowCPU(&w.b, pairs, 1.0/60, 0.02, nil)
	if int(count) != len(want) || len(want) != len(pairs) {
		t.Fatalf("%d manifolds on the device, %d on the CPU, want one a pair (%d)", count, len(want), len(pairs))
	}
	for i := range want {
		if !sameContact(&got[i], &want[i]) || want[i].Count != 4 {
			t.Errorf("pair %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// A world with a static mesh is drawn from the host copy, as one with a hull: the instance kernel
// draws the kinds whose meshes the renderer shares, and refuses the world before writing anything;
// it takes the world again once the mesh is gone.
func TestAWorldWithAMeshIsDrawnFromTheHostCopy(t *testing.T) {
	w := sim.NewWorld(sim.Settings{Solver: sim.Jacobi, Workers: 1})
	defer w.Close()
	if _, err := w.AddBody(sim.BodyDef{Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.5}, Mass: 1, Position: geom.Vec3{0, 2, 0}}); err != nil {
		t.Fatal(err)
	}
	ground, err := w.AddBody(sim.BodyDef{Type: sim.Static, Shape: geom.Shape{Kind: geom.TriMesh, Mesh: testMesh}})
	if err != nil {
		t.Fatal(err)
	}
	b := NewEmulated()
	must(t, w.SetBackend(b), w.Step())
	defer w.SetBackend(nil)
	dst, err := b.dev.alloc(4 * InstanceBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer b.dev.free(dst)
	if _, err := b.WriteInstances(w, uintptr(dst), 4, styleOf(instance.ColorByBody, nil, w, nil)); err != ErrNotOnDevice {
		t.Errorf("a world with a mesh: %v, want ErrNotOnDevice", err)
	}
	must(t, w.RemoveBody(ground), w.Step())
	in, err := b.WriteInstances(w, uintptr(dst), 4, styleOf(instance.ColorByBody, nil, w, nil))
	if err != nil || in.Total() != 1 {
		t.Errorf("the ball alone: %v, %d records", err, in.Total())
	}
}
