package gpu

import (
	"errors"
	"math"
	"testing"
	"unsafe"

	"tumble/render"
	"tumble/render/instance"
	"tumble/sim"
	"tumble/sim/broad/bvh"
	"tumble/sim/geom"
)

// The debug-draw kernels against the window's CPU path. ui/debug.go builds the lines from a synced
// world with render.Frame's Cross, Line and Box; cpuDebugLines below is that code for the layers the
// kernels write (the ui package cannot be imported here: it imports gpu). Every vertex is compared in
// order, so a kernel that reads or writes the wrong index fails.
//
// Tolerance 1e-5 m: the positions are the same float operations on the same floats (the shapes'
// bounds, the exported contact points), but nvcc may fuse a multiply-add where Go rounds twice.

var testDebugStyle = instance.DebugStyle{
	Contact: [4]float32{1, 0.2, 0.2, 1}, Normal: [4]float32{1, 1, 0.2, 1}, AABB: [4]float32{0.3, 0.9, 1, 1},
	BVHColor: [4]float32{1, 0.6, 0.1, 1},
}

// cpuDebugLines is ui/debug.go's debugLines for contacts, normals, AABBs and the BVH level boxes (given:
// the window takes them from World.BVHLevel; here from sim/broad/bvh over the GPU tree's boxes).
func cpuDebugLines(w *sim.World, st *instance.DebugStyle, bvhBoxes []geom.AABB) (contacts, aabbs, level []instance.LineVertex) {
	var f render.Frame
	cs := w.Contacts(nil)
	var maxN float32
	for _, c := range cs {
		maxN = max(maxN, c.NormalImpulse)
	}
	for _, c := range cs {
		if st.Contacts {
			f.Cross(c.Position, 0.05, st.Contact)
		}
		if st.Normals {
			l := float32(0.05)
			if maxN > 0 {
				l += 0.55 * c.NormalImpulse / maxN
			}
			f.Line(c.Position, c.Position.Add(c.Normal.Mul(l)), st.Normal)
		}
	}
	contacts = append(contacts, f.Lines...)
	f.Lines = f.Lines[:0]
	b := &w.Bodies
	for i := range b.Len() {
		if b.Shape[i].Kind == geom.Plane {
			continue
		}
		if st.AABBs {
			box := b.Shape[i].Bounds(geom.Pose{P: b.Position[i], Q: b.Rotation[i]})
			f.Box(box.Min, box.Max, st.AABB)
		}
	}
	aabbs = append(aabbs, f.Lines...)
	f.Lines = f.Lines[:0]
	if st.BVH {
		for _, box := range bvhBoxes {
			if box.Max[0]-box.Min[0] < geom.PlaneExtent {
				f.Box(box.Min, box.Max, st.BVHColor)
			}
		}
	}
	return contacts, aabbs, f.Lines
}

// gpuLevelBoxes builds sim/broad/bvh's LBVH over the boxes and moving flags the GPU's tree was built from
// (the last step's broad-phase boxes) and returns its level boxes at depth d, and its depth.
func gpuLevelBoxes(t *testing.T, b *Backend, d int) ([]geom.AABB, int) {
	t.Helper()
	n := b.broad.treeN
	boxes := make([]geom.AABB, n)
	mv := make([]uint32, n)
	must(t, downloadSlice(b.dev, boxes, b.broad.boxes.p), downloadSlice(b.dev, mv, b.broad.moving.p))
	moving := make([]bool, n)
	for i, m := range mv {
		moving[i] = m != 0
	}
	tr := bvh.New()
	tr.Pairs(boxes, moving, nil)
	return tr.LevelBoxes(d, nil), tr.Depth()
}

// writeDebug runs WriteDebugLines into an exact-size emulated buffer (its guard catches an overrun)
// and returns the vertices per layer.
func writeDebug(t *testing.T, b *Backend, w *sim.World, st *instance.DebugStyle, capacity int) (instance.DebugLines, [3][]instance.LineVertex) {
	t.Helper()
	dst, err := b.dev.alloc(max(capacity, 1) * LineVertexBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer b.dev.free(dst)
	res, err := b.WriteDebugLines(w, uintptr(dst), capacity, st)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]instance.LineVertex, max(capacity, 1))
	must(t, downloadSlice(b.dev, all, dst))
	c, a := res.Contacts, res.Contacts+res.AABBs
	return res, [3][]instance.LineVertex{all[:c], all[c:a], all[a:res.Total()]}
}

// sameLines compares vertices in order: positions within 1e-5, colours exactly.
func sameLines(t *testing.T, what string, got, want []instance.LineVertex) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d vertices, want %d", what, len(got), len(want))
		return
	}
	bad := 0
	for i := range want {
		g, x := got[i], want[i]
		far := g.Color != x.Color
		for k := range 3 {
			far = far || !(math.Abs(float64(g.Pos[k]-x.Pos[k])) <= 1e-5)
		}
		if far {
			if bad++; bad <= 3 {
				t.Errorf("%s: vertex %d is %v, want %v", what, i, g, x)
			}
		}
	}
	if bad > 3 {
		t.Errorf("%s: %d vertices differ in all", what, bad)
	}
}

// stepEmulated attaches a backend to w and steps it.
func stepEmulated(t *testing.T, w *sim.World, steps int) *Backend {
	t.Helper()
	b := NewEmulated()
	if err := w.SetBackend(b); err != nil {
		t.Fatal(err)
	}
	for range steps {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	return b
}

// checkDebugWorld compares every layer, alone and together, and the BVH at every depth, with the CPU
// path on the stepped world w.
func checkDebugWorld(t *testing.T, b *Backend, w *sim.World, wantContacts bool) {
	t.Helper()
	_, depth := gpuLevelBoxes(t, b, 0)
	if b.broad.treeN != w.Bodies.Len() || depth == 0 {
		t.Fatalf("the GPU tree has %d leaves, depth %d, for %d bodies", b.broad.treeN, depth, w.Bodies.Len())
	}
	for _, layers := range []instance.DebugStyle{{Contacts: true}, {Normals: true}, {Contacts: true, Normals: true},
		{AABBs: true}, {Contacts: true, Normals: true, AABBs: true, BVH: true, BVHDepth: 2}} {
		st := testDebugStyle
		st.Contacts, st.Normals, st.AABBs, st.BVH, st.BVHDepth = layers.Contacts, layers.Normals, layers.AABBs,
			layers.BVH, layers.BVHDepth
		level, _ := gpuLevelBoxes(t, b, st.BVHDepth)
		wc, wa, wl := cpuDebugLines(w, &st, level)
		total := len(wc) + len(wa) + len(wl)
		res, got := writeDebug(t, b, w, &st, total)
		if wantContacts && (st.Contacts || st.Normals) && len(wc) == 0 {
			t.Errorf("%+v: no contacts to compare", layers)
		}
		sameLines(t, "contacts", got[0], wc)
		sameLines(t, "aabbs", got[1], wa)
		sameLines(t, "bvh", got[2], wl)
		if res.Total() != total {
			t.Errorf("%+v: counts %+v, want %d vertices", layers, res, total)
		}
	}
	for d := 0; d <= depth+1; d++ {
		st := testDebugStyle
		st.BVH, st.BVHDepth = true, d
		level, _ := gpuLevelBoxes(t, b, d)
		_, _, wl := cpuDebugLines(w, &st, level)
		if d > 0 && d <= depth && len(wl) == 0 {
			t.Errorf("depth %d: no BVH boxes to compare", d)
		}
		_, got := writeDebug(t, b, w, &st, len(wl))
		sameLines(t, "bvh", got[2], wl)
	}
}

// TestDebugLinesMatchTheCPUPathOnAStack: a preset with a ground plane (no box for it, and the BVH's
// plane-wide boxes left out), contacts at rest after some steps.
func TestDebugLinesMatchTheCPUPathOnAStack(t *testing.T) {
	w := newWorld(t, "stack")
	defer w.Close()
	b := stepEmulated(t, w, 20)
	checkDebugWorld(t, b, w, true)
}

// TestDebugLinesMatchTheCPUPathOnRandomShapes: boxes, spheres, capsules and planes of every body type,
// some touching, more bodies than a 256-thread block and a single manifold slot.
func TestDebugLinesMatchTheCPUPathOnRandomShapes(t *testing.T) {
	w := sim.NewWorld(sim.Settings{Workers: 1, Solver: sim.Jacobi})
	defer w.Close()
	if _, err := w.AddBody(sim.BodyDef{Type: sim.Static, Shape: geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		var s geom.Shape
		switch i % 3 {
		case 0:
			s = geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.3, 0.2, 0.25}}
		case 1:
			s = geom.Shape{Kind: geom.Sphere, Radius: 0.3}
		default:
			s = geom.Shape{Kind: geom.Capsule, Radius: 0.2, HalfHeight: 0.3}
		}
		typ := sim.Dynamic
		if i%17 == 0 {
			typ = sim.Static
		}
		p := geom.Vec3{float32(i%10)*0.55 - 2.5, 0.35 + float32(i/100)*0.6, float32(i/10%10)*0.55 - 2.5}
		if _, err := w.AddBody(sim.BodyDef{Type: typ, Shape: s, Position: p, Rotation: geom.Identity.Q}); err != nil {
			t.Fatal(err)
		}
	}
	b := stepEmulated(t, w, 3)
	checkDebugWorld(t, b, w, true)
}

// TestDebugLinesRefuse: a buffer one vertex short is an error wrapping ErrLineCapacity with the
// counts (and no write: the emulator's guard would catch one), a device that does not hold the world
// is ErrNotOnDevice, and no layer writes nothing.
func TestDebugLinesRefuse(t *testing.T) {
	w := newWorld(t, "stack")
	defer w.Close()
	b := stepEmulated(t, w, 5)
	st := testDebugStyle
	st.Contacts, st.Normals, st.AABBs, st.BVH, st.BVHDepth = true, true, true, true, 3
	level, _ := gpuLevelBoxes(t, b, st.BVHDepth)
	wc, wa, wl := cpuDebugLines(w, &st, level)
	total := len(wc) + len(wa) + len(wl)
	dst, err := b.dev.alloc((total - 1) * LineVertexBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer b.dev.free(dst)
	res, err := b.WriteDebugLines(w, uintptr(dst), total-1, &st)
	if !errors.Is(err, ErrLineCapacity) || res.Total() != total {
		t.Errorf("one vertex short: %v, counts %+v, want %d", err, res, total)
	}
	if res, err := b.WriteDebugLines(w, uintptr(dst), total-1, &testDebugStyle); err != nil || res.Total() != 0 {
		t.Errorf("no layer: %+v, %v", res, err)
	}
	if _, err := w.AddBody(sim.BodyDef{Shape: geom.Shape{Kind: geom.Sphere, Radius: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteDebugLines(w, uintptr(dst), total-1, &st); err != ErrNotOnDevice {
		t.Errorf("a body the device does not hold: %v", err)
	}
}

// TestKernelsWriteTheLineVertexLayout: the kernels' vertex (debug.cu's TbLineVertex) and contact
// records have the sizes the Go side assumes: instance.LineVertex's. (Its field offsets are checked by
// the tests above, which read the kernels' vertices as instance.LineVertex and compare every one.)
func TestKernelsWriteTheLineVertexLayout(t *testing.T) {
	var v instance.LineVertex
	if unsafe.Offsetof(v.Pos) != 0 || unsafe.Offsetof(v.Color) != 12 {
		t.Errorf("instance.LineVertex offsets %d, %d; debug.cu writes 0, 12", unsafe.Offsetof(v.Pos), unsafe.Offsetof(v.Color))
	}
	d := emulated{}
	out, err := d.alloc(8)
	if err != nil {
		t.Fatal(err)
	}
	defer d.free(out)
	must(t, kernelSet{d}.debugSizes(1, 1, debugSizesArgs{Out: out}))
	var sizes [2]int32
	must(t, downloadSlice(d, sizes[:], out))
	if sizes != [2]int32{int32(LineVertexBytes), int32(debugPointBytes)} || unsafe.Sizeof(tbLineVertex{}) != uintptr(LineVertexBytes) {
		t.Errorf("kernel sizes %v, want %d, %d (tbLineVertex %d)", sizes, LineVertexBytes, debugPointBytes,
			unsafe.Sizeof(tbLineVertex{}))
	}
}
