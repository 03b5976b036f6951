package gpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/render/instance"
	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// putBodies uploads w's bodies into b's body arrays (exact sizes on the emulator, so its guard
// catches a read past the bodies).
func putBodies(t *testing.T, b *Backend, w *sim.World) {
	t.Helper()
	b.bodies.release(b.dev)
	bb, err := uploadBodies(b.dev, &w.Bodies)
	if err != nil {
		t.Fatal(err)
	}
	b.bodies = *bb
}

func styleOf(mode instance.ColorBy, contacts []int32, w *sim.World, hl map[int][4]float32) *instance.Style {
	return &instance.Style{Mode: mode, Static: instance.ColorStatic, Dynamic: instance.ColorDynamic,
		Kinematic: instance.ColorKinematic, Awake: instance.ColorAwake, Asleep: instance.ColorAsleep,
		Contacts: contacts, Sleeping: w.Bodies.Asleep, Highlight: hl}
}

// fillRecords is instance.Fill's records for w in the device buffer's order, and their bounds.
func fillRecords(t *testing.T, w *sim.World, mode instance.ColorBy, contacts []int32, hl map[int][4]float32) (fillBounds, []instance.Instance) {
	t.Helper()
	var shapes [instance.NumKinds][]instance.Instance
	var f fillBounds
	f.Lo, f.Hi, _ = instance.Fill(&shapes, w, mode, contacts, hl, nil, nil)
	var want []instance.Instance
	for k := range shapes {
		want = append(want, shapes[k]...)
	}
	var got [instance.NumKinds]int
	for k := range shapes {
		got[k] = len(shapes[k])
	}
	if got != instance.CountKinds(w) {
		t.Fatalf("CountKinds %v, Fill %v", instance.CountKinds(w), got)
	}
	return f, want
}

// fillBounds are the bounds instance.Fill returned.
type fillBounds struct{ Lo, Hi mgl32.Vec3 }

// checkRecords compares WriteInstances' output (records and bounds) with render.Fill's: records equal
// within 1e-6 (the kernel repeats Fill's float arithmetic and its colours' double arithmetic; nvcc
// may fuse a multiply-add where the host build does not), in the same order, and the same bounds
// within a relative 1e-6.
func checkRecords(t *testing.T, mode instance.ColorBy, got, want []instance.Instance, res instance.Written, f *fillBounds) {
	t.Helper()
	for i := range want {
		g, e := (*[15]float32)(unsafe.Pointer(&got[i])), (*[15]float32)(unsafe.Pointer(&want[i]))
		for k := range 15 {
			if math.Abs(float64(g[k]-e[k])) > 1e-6 {
				t.Fatalf("mode %d: record %d float %d = %v, Fill has %v\n got  %+v\n want %+v", mode, i, k, g[k], e[k], got[i], want[i])
			}
		}
	}
	if len(want) == 0 {
		if res.Any {
			t.Errorf("bounds set for a world without drawn bodies")
		}
		return
	}
	for k := range 3 {
		for _, c := range [][2]float32{{res.Lo[k], f.Lo[k]}, {res.Hi[k], f.Hi[k]}} {
			if math.Abs(float64(c[0]-c[1])) > 1e-6*max(1, math.Abs(float64(c[1]))) {
				t.Errorf("mode %d: bounds %v..%v, Fill's %v..%v", mode, res.Lo, res.Hi, f.Lo, f.Hi)
			}
		}
	}
}

// compareWithFill runs WriteInstances into a device buffer of exactly the records' size (the
// emulator's guard catches a write past it) and checks it against render.Fill of the same world.
func compareWithFill(t *testing.T, b *Backend, w *sim.World, mode instance.ColorBy, contacts []int32, hl map[int][4]float32) {
	t.Helper()
	f, want := fillRecords(t, w, mode, contacts, hl)
	d := b.dev
	dst, err := d.alloc(max(len(want), 1) * InstanceBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer d.free(dst)
	res, err := b.WriteInstances(w, uintptr(dst), len(want), styleOf(mode, contacts, w, hl))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]instance.Instance, len(want))
	if err := downloadSlice(d, got, dst); err != nil {
		t.Fatal(err)
	}
	checkRecords(t, mode, got, want, res, &f)
}

// TestKernelsWriteTheInstanceLayout: the transforms kernel (transforms.cu's TbInstance) writes
// instance.Instance's layout: one record fills exactly InstanceBytes (the emulator's guard page behind
// the buffer catches a longer one), and every field, read at its Go offset, holds what it should.
func TestKernelsWriteTheInstanceLayout(t *testing.T) {
	w := sim.NewWorld(sim.Settings{})
	defer w.Close()
	q := mgl32.QuatRotate(0.5, sim.Vec3{1, 2, 3}.Normalize())
	if _, err := w.AddBody(sim.BodyDef{Shape: geom.Shape{Kind: geom.Capsule, Radius: 0.3, HalfHeight: 0.7},
		Position: sim.Vec3{1, 2, 3}, Rotation: q}); err != nil {
		t.Fatal(err)
	}
	b := NewEmulated()
	defer b.Close()
	putBodies(t, b, w)
	dst, err := b.dev.alloc(InstanceBytes)
	must(t, err)
	defer b.dev.free(dst)
	hl := [4]float32{0.1, 0.2, 0.3, 0.4}
	st := instance.DefaultStyle(instance.ColorByBody)
	st.Highlight = map[int][4]float32{0: hl}
	if _, err := b.WriteInstances(w, uintptr(dst), 1, &st); err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, InstanceBytes)
	must(t, downloadSlice(b.dev, raw, dst))
	var in instance.Instance
	field := func(off uintptr, n int) []float32 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&raw[off])), n)
	}
	for _, c := range []struct {
		name string
		off  uintptr
		want []float32
	}{
		{"Pos", unsafe.Offsetof(in.Pos), []float32{1, 2, 3}},
		{"Quat", unsafe.Offsetof(in.Quat), []float32{q.V[0], q.V[1], q.V[2], q.W}},
		{"Scale", unsafe.Offsetof(in.Scale), []float32{0.3, 0.3, 0.3}},
		{"Extra", unsafe.Offsetof(in.Extra), []float32{0.7}},
		{"Color", unsafe.Offsetof(in.Color), hl[:]},
	} {
		got := field(c.off, len(c.want))
		for k := range c.want {
			if math.Abs(float64(got[k]-c.want[k])) > 1e-6 {
				t.Errorf("%s at offset %d: the kernel wrote %v, want %v", c.name, c.off, got, c.want)
				break
			}
		}
	}
	for mode, v := range []instance.ColorBy{instance.ColorByBody, instance.ColorByType, instance.ColorBySleep, instance.ColorByContact} {
		if int(v) != mode { // transforms.cu's TB_COLOR_BODY ... TB_COLOR_CONTACT
			t.Errorf("colour mode %d is %d", mode, v)
		}
	}
}

// randomWorld has every shape kind, planes among them, in random poses and types, some asleep.
func randomShapesWorld(t *testing.T, rng *rand.Rand, n int) *sim.World {
	t.Helper()
	w := sim.NewWorld(sim.Settings{Workers: 1})
	for i := range n {
		var s geom.Shape
		switch rng.IntN(7) {
		case 0, 1, 2:
			s = geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.1 + rng.Float32(), 0.1 + rng.Float32(), 0.1 + rng.Float32()}}
		case 3, 4:
			s = geom.Shape{Kind: geom.Sphere, Radius: 0.1 + rng.Float32()}
		case 5:
			s = geom.Shape{Kind: geom.Capsule, Radius: 0.1 + rng.Float32(), HalfHeight: 0.1 + rng.Float32()}
		default:
			s = geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}, Offset: rng.Float32()}
		}
		q := mgl32.Quat{W: rng.Float32()*2 - 1, V: mgl32.Vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}}.Normalize()
		typ := []sim.BodyType{sim.Dynamic, sim.Dynamic, sim.Kinematic, sim.Static}[rng.IntN(4)]
		if s.Kind == geom.Plane {
			typ, q = sim.Static, mgl32.QuatIdent()
		}
		p := geom.Vec3{rng.Float32()*40 - 20, rng.Float32() * 30, rng.Float32()*40 - 20}
		if _, err := w.AddBody(sim.BodyDef{Type: typ, Shape: s, Position: p, Rotation: q}); err != nil {
			t.Fatalf("body %d: %v", i, err)
		}
	}
	for i := range w.Bodies.Asleep {
		w.Bodies.Asleep[i] = w.Bodies.Type[i] == sim.Dynamic && rng.IntN(3) == 0
	}
	return w
}

// TestTransformsMatchFillOnRandomWorlds: every colour mode, with highlights and contact counts, on
// worlds of every kind mixed with planes; sizes cross the scan's block of 1,024 and the 256-thread
// launch blocks.
func TestTransformsMatchFillOnRandomWorlds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	b := NewEmulated()
	defer b.Close()
	for _, n := range []int{1, 3, 257, 1500} {
		w := randomShapesWorld(t, rng, n)
		putBodies(t, b, w)
		contacts := make([]int32, rng.IntN(n+1)) // may be shorter than the bodies, as Fill allows
		for i := range contacts {
			contacts[i] = int32(rng.IntN(12))
		}
		hl := map[int][4]float32{rng.IntN(n): instance.ColorSelected, rng.IntN(n): instance.ColorHovered, rng.IntN(n): {}}
		for _, mode := range []instance.ColorBy{instance.ColorByBody, instance.ColorByType, instance.ColorBySleep, instance.ColorByContact} {
			compareWithFill(t, b, w, mode, contacts, hl)
			compareWithFill(t, b, w, mode, nil, nil)
		}
		w.Close()
	}
}

// TestTransformsMatchFillOnPresets: the preset scenes as the window loads them (planes, statics,
// joints' bodies), and a world of planes alone (no records, bounds unset).
func TestTransformsMatchFillOnPresets(t *testing.T) {
	b := NewEmulated()
	defer b.Close()
	for _, name := range scenes.Names() {
		sc, _ := scenes.Preset(name)
		w, err := sc.World(scenes.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if w.Bodies.Len() > 3000 || sim.CheckShapesFor(capabilities, &w.Bodies) != nil || slices.ContainsFunc(w.Bodies.Shape, ownMesh) {
			w.Close()
			continue // the emulator's time goes to the random worlds; hulls and meshes are drawn from the host
		}
		putBodies(t, b, w)
		compareWithFill(t, b, w, instance.ColorByBody, nil, map[int][4]float32{0: instance.ColorSelected})
		compareWithFill(t, b, w, instance.ColorByType, nil, nil)
		w.Close()
	}
	w := sim.NewWorld(sim.Settings{Workers: 1})
	defer w.Close()
	if _, err := w.AddBody(sim.BodyDef{Type: sim.Static, Shape: geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	putBodies(t, b, w)
	compareWithFill(t, b, w, instance.ColorByBody, nil, nil)
}

// TestTransformsRefuseASmallBufferAndAStaleDevice: a buffer too small for the records is an error, not
// a write past its end; so is a device that does not hold the world's bodies.
func TestTransformsRefuseASmallBufferAndAStaleDevice(t *testing.T) {
	b := NewEmulated()
	defer b.Close()
	w := randomShapesWorld(t, rand.New(rand.NewPCG(3, 4)), 50)
	defer w.Close()
	putBodies(t, b, w)
	counts := instance.CountKinds(w)
	total := counts[0] + counts[1] + counts[2]
	dst, err := b.dev.alloc((total - 1) * InstanceBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer b.dev.free(dst)
	if _, err := b.WriteInstances(w, uintptr(dst), total-1, styleOf(instance.ColorByBody, nil, w, nil)); err == nil {
		t.Error("no error for a buffer one record short")
	}
	// Counts that understate a kind: the kernel's own guard drops the records past the capacity.
	under := counts
	under[0]--
	if _, err := b.writeInstances(uintptr(dst), total-1, under, styleOf(instance.ColorByBody, nil, w, nil)); err != nil {
		t.Errorf("understated counts: %v (the capacity guard should drop records, the emulator's guard would fail an overrun)", err)
	}
	if _, err := w.AddBody(sim.BodyDef{Shape: geom.Shape{Kind: geom.Sphere, Radius: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteInstances(w, uintptr(dst), total-1, styleOf(instance.ColorByBody, nil, w, nil)); err != ErrNotOnDevice {
		t.Errorf("a body the device does not hold: %v", err)
	}
}
