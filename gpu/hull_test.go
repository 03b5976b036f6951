package gpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"tumble/render/instance"
	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// testHulls are the hulls the narrow phase's random pairs draw from: a tetrahedron, a cube turned off
// its axes, a wedge (faces of 3 and 4 vertices), flat and long slabs of random points, a rounded
// pebble of many points, and rocks of 8 to 40 random points, sized 0.1 to about 1.2 like the other
// random shapes.
var testHulls = func() []*geom.Hull {
	rng := rand.New(rand.NewPCG(39, 1))
	var out []*geom.Hull
	add := func(pts []geom.Vec3) {
		h, err := geom.NewHull(pts)
		if err != nil {
			panic("gpu: test hull: " + err.Error())
		}
		out = append(out, h)
	}
	add([]geom.Vec3{{0, 0, 0}, {0.8, 0, 0}, {0, 0.8, 0}, {0, 0, 0.8}})
	cube := make([]geom.Vec3, 8)
	q := narrowRandQuat(rng)
	for i := range cube {
		cube[i] = q.Rotate(geom.Vec3{float32(i&1)*0.6 - 0.3, float32(i>>1&1)*0.6 - 0.3, float32(i>>2&1)*0.6 - 0.3})
	}
	add(cube)
	add([]geom.Vec3{{-0.5, 0, -0.3}, {0.5, 0, -0.3}, {-0.5, 0, 0.3}, {0.5, 0, 0.3}, {-0.5, 0.4, 0}, {0.5, 0.4, 0}})
	cloud := func(n int, ext geom.Vec3) []geom.Vec3 {
		pts := make([]geom.Vec3, n)
		for i := range pts {
			pts[i] = geom.Vec3{ext[0] * (2*rng.Float32() - 1), ext[1] * (2*rng.Float32() - 1), ext[2] * (2*rng.Float32() - 1)}
		}
		return pts
	}
	add(cloud(16, geom.Vec3{1, 0.08, 0.7}))
	add(cloud(12, geom.Vec3{1.1, 0.15, 0.15}))
	pebble := make([]geom.Vec3, 60)
	for i := range pebble {
		u := narrowRandUnit(rng)
		pebble[i] = geom.Vec3{0.5 * u[0], 0.3 * u[1], 0.4 * u[2]}
	}
	add(pebble)
	for range 6 {
		s := 0.1 + rng.Float32()
		add(cloud(8+rng.IntN(33), geom.Vec3{s, s * (0.5 + rng.Float32()), s * (0.5 + rng.Float32())}))
	}
	return out
}()

// TestNarrowHullPairsAreExactOnTheEmulator: the emulator compiles hull.cuh as host C++, which rounds
// every float32 operation as Go does and fuses none, and the port keeps hull.go's order of
// operations, so a hull's manifolds against every kind (and, where the kinds' routines are the
// same, hull against box both ways) equal the CPU's to the bit: points, separations, normals and
// feature ids, in order.
func TestNarrowHullPairsAreExactOnTheEmulator(t *testing.T) {
	d := emulated{}
	rng := rand.New(rand.NewPCG(39, 2))
	var w narrowTestWorld
	var pairs []int2
	for _, k := range capabilities.Shapes {
		for range 300 {
			pairs = append(pairs, narrowRandPair(rng, &w, geom.ConvexHull, k))
			if k != geom.ConvexHull {
				pairs = append(pairs, narrowRandPair(rng, &w, k, geom.ConvexHull))
			}
		}
	}
	bb := testBodies(t, d, &w.b)
	var s narrowStage
	defer s.release(d)
	must(t, s.reserve(d, len(pairs), meshSlots*len(pairs))) // a pair with a mesh may give several
	for _, spec := range []float32{0, 0.02} {
		const dt = 1.0 / 60
		count, got := narrowRun(t, d, &s, bb, pairs, len(pairs), dt, spec)
		want := narrowCPU(&w.b, pairs, dt, spec, nil)
		if int(count) != len(want) || len(got) != len(want) {
			t.Fatalf("speculative %g: %d contacts, want %d", spec, count, len(want))
		}
		if len(want) < len(pairs)/3 {
			t.Fatalf("speculative %g: only %d of %d pairs touch", spec, len(want), len(pairs))
		}
		kinds := map[[2]geom.Kind]int{}
		for i := range want {
			g, wc := &got[i], &want[i]
			if !sameContact(g, wc) {
				t.Fatalf("speculative %g: contact %d (%s-%s):\n got %+v\nwant %+v", spec, i,
					w.b.Shape[wc.A].Kind, w.b.Shape[wc.B].Kind, *g, *wc)
			}
			kinds[[2]geom.Kind{w.b.Shape[wc.A].Kind, w.b.Shape[wc.B].Kind}]++
		}
		for _, k := range capabilities.Shapes {
			if kinds[[2]geom.Kind{geom.ConvexHull, k}] == 0 && kinds[[2]geom.Kind{k, geom.ConvexHull}] == 0 {
				t.Errorf("speculative %g: no hull-%s pair touched", spec, k)
			}
		}
		t.Logf("speculative %g: %d of %d pairs touch: %v", spec, len(want), len(pairs), kinds)
	}
}

// sameContact reports whether two contacts are the same to the bit (NaNs with the same bits count as
// equal).
func sameContact(a, b *tbContact) bool {
	eq := func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }
	if a.A != b.A || a.B != b.B || a.Count != b.Count || !eq(a.NX, b.NX) || !eq(a.NY, b.NY) || !eq(a.NZ, b.NZ) {
		return false
	}
	for i := 0; i < int(a.Count); i++ {
		p, q := &a.Pts[i], &b.Pts[i]
		if !eq(p.PX, q.PX) || !eq(p.PY, q.PY) || !eq(p.PZ, q.PZ) || !eq(p.Sep, q.Sep) || p.ID != q.ID {
			return false
		}
	}
	return true
}

// TestEmulatedSpawnedHullsAreExact: hulls made as the panel's Spawn makes them (scenes.RockPoints with
// Spawn's seeds and scenes.BunnyPoints, through scenes.Hull, turned upright by BodyRotation), added
// between steps to a world already running on the emulator, a new hull entering the device's hull
// table each time, and an L-shaped moving mesh (its hull collides, its mass properties are the L's),
// fall onto the ground, a box and each other, and the world equals the CPU's Jacobi steps to the bit.
func TestEmulatedSpawnedHullsAreExact(t *testing.T) { checkSpawnedHulls(t, NewEmulated()) }

// checkSpawnedHulls runs TestEmulatedSpawnedHullsAreExact's hulls on the CPU and on be.
func checkSpawnedHulls(t *testing.T, be *Backend) {
	sc, err := scenes.Parse("ground.json", []byte(`{"bodies": [{"name": "ground", "type": "static",
		"shape": {"type": "plane", "normal": [0, 1, 0]}}, {"name": "block", "type": "static",
		"shape": {"type": "box", "halfExtents": [0.6, 0.3, 0.6]}, "position": [1.5, 0.3, 0]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var worlds [2]*sim.World
	for i := range worlds {
		w, err := sc.World(scenes.Options{Solver: sim.Jacobi, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		worlds[i] = w
	}
	cpu, dev := worlds[0], worlds[1]
	if err := dev.SetBackend(be); err != nil {
		t.Fatal(err)
	}
	defer dev.SetBackend(nil)
	spawn := func(pts []scenes.Vec3, at sim.Vec3) {
		t.Helper()
		gp := make([]geom.Vec3, len(pts))
		for i, p := range pts {
			gp[i] = geom.Vec3{float32(p[0]), float32(p[1]), float32(p[2])}
		}
		h, err := scenes.Hull(gp)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range worlds {
			if _, err := w.AddBody(sim.BodyDef{Shape: geom.Shape{Kind: geom.ConvexHull, Hull: h}, Position: at,
				Rotation: h.BodyRotation(sim.Quat{W: 1}), Friction: 0.6}); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps := 0
	step := func(n int) {
		t.Helper()
		for range n {
			steps++
			for _, w := range worlds {
				if err := w.Step(); err != nil {
					t.Fatalf("step %d: %v", steps, err)
				}
			}
		}
	}
	for k := range 6 {
		spawn(scenes.RockPoints(uint32(7919*k+1), 0.2), sim.Vec3{0.9 + 0.25*float32(k%3), 1 + 0.5*float32(k), 0.1 * float32(k%2)})
		step(15)
	}
	spawn(scenes.BunnyPoints(0.3), sim.Vec3{1.4, 1.2, 0.2})
	spawn(scenes.BunnyPoints(0.3), sim.Vec3{-0.5, 0.5, 0})
	// A moving closed mesh, L-shaped: it collides by its hull, with the L's own mass properties.
	lmesh := lMeshHull(t)
	for _, w := range worlds {
		if _, err := w.AddBody(sim.BodyDef{Shape: geom.Shape{Kind: geom.ConvexHull, Hull: lmesh}, Position: sim.Vec3{0.3, 1.5, -0.6},
			Rotation: sim.Quat{W: 0.9, V: sim.Vec3{0.3, 0.2, 0.1}}.Normalize(), Friction: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	step(90)
	if err := dev.Sync(); err != nil {
		t.Fatal(err)
	}
	touching := cpu.Stats.Manifolds
	for i := range cpu.Bodies.Len() {
		c, g := cpu.Bodies.Position[i], dev.Bodies.Position[i]
		if c != g || cpu.Bodies.Rotation[i] != dev.Bodies.Rotation[i] {
			t.Errorf("body %d after %d steps: CPU %v %v, device %v %v", i, steps, c, cpu.Bodies.Rotation[i], g,
				dev.Bodies.Rotation[i])
		}
	}
	// The hulls must be touching the ground and each other by then, or the comparison says little.
	if touching < 8 {
		t.Errorf("only %d touching pairs at the end", touching)
	}
	t.Logf("%d bodies, %d steps, %d touching pairs at the end: the same bits", cpu.Bodies.Len(), steps, touching)
}

// A world with a hull is drawn from the host copy: the instance writer refuses it before writing
// anything (the instance kernel draws the kinds whose meshes the renderer shares), and takes the
// world again once the hull is gone.
func TestAWorldWithAHullIsDrawnFromTheHostCopy(t *testing.T) {
	w := sim.NewWorld(sim.Settings{Solver: sim.Jacobi, Workers: 1})
	defer w.Close()
	if _, err := w.AddBody(sim.BodyDef{Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.5}, Mass: 1}); err != nil {
		t.Fatal(err)
	}
	rock, err := w.AddBody(sim.BodyDef{Shape: geom.Shape{Kind: geom.ConvexHull, Hull: testHulls[0]}, Mass: 1, Position: geom.Vec3{3, 0, 0}})
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
	st := styleOf(instance.ColorByBody, nil, w, nil)
	if _, err := b.WriteInstances(w, uintptr(dst), 4, st); err != ErrNotOnDevice {
		t.Errorf("a world with a hull: %v, want ErrNotOnDevice", err)
	}
	must(t, w.RemoveBody(rock), w.Step())
	in, err := b.WriteInstances(w, uintptr(dst), 4, styleOf(instance.ColorByBody, nil, w, nil))
	if err != nil || in.Total() != 1 {
		t.Errorf("the ball alone: %v, %d records", err, in.Total())
	}
}

// lMeshHull is a closed L-shaped prism (0.6 m across, 0.3 m thick) as a moving mesh: its hull collides,
// its mass properties are the L's (geom.NewMeshHull), not the hull's.
func lMeshHull(t testing.TB) *geom.Hull {
	t.Helper()
	l := [][2]float32{{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}} // counter-clockwise seen from +z
	var verts []geom.Vec3
	for _, z := range []float32{-0.5, 0.5} {
		for _, p := range l {
			verts = append(verts, geom.Vec3{0.3 * p[0], 0.3 * p[1], 0.3 * z})
		}
	}
	n := uint32(len(l))
	var tris [][3]uint32
	// The caps, fanned from the reflex corner 3; the bottom's turned over.
	for _, f := range [][2]uint32{{4, 5}, {5, 0}, {0, 1}, {1, 2}} {
		tris = append(tris, [3]uint32{n + 3, n + f[0], n + f[1]}, [3]uint32{3, f[1], f[0]})
	}
	for i := range n {
		j := (i + 1) % n
		tris = append(tris, [3]uint32{i, j, n + j}, [3]uint32{i, n + j, n + i})
	}
	h, err := geom.NewMeshHull(verts, tris)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
