package gpu

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/render"
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

func styleOf(mode render.ColorBy, contacts []int32, w *sim.World, hl map[int][4]float32) *InstanceStyle {
	return &InstanceStyle{Mode: int(mode), Static: render.ColorStatic, Dynamic: render.ColorDynamic,
		Kinematic: render.ColorKinematic, Awake: render.ColorAwake, Asleep: render.ColorAsleep,
		Contacts: contacts, Sleeping: w.Bodies.Asleep, Highlight: hl}
}

// fillRecords is render.Fill's frame for w and its records in the device buffer's order.
func fillRecords(t *testing.T, w *sim.World, mode render.ColorBy, contacts []int32, hl map[int][4]float32) (render.Frame, []render.Instance) {
	t.Helper()
	var f render.Frame
	render.Fill(&f, w, mode, contacts, hl)
	var want []render.Instance
	for k := range f.Shapes {
		want = append(want, f.Shapes[k]...)
	}
	if got := [3]int{len(f.Shapes[0]), len(f.Shapes[1]), len(f.Shapes[2])}; got != CountKinds(w) {
		t.Fatalf("CountKinds %v, Fill %v", CountKinds(w), got)
	}
	return f, want
}

// checkRecords compares WriteInstances' output (records and bounds) with render.Fill's: records equal
// within 1e-6 (the kernel repeats Fill's float arithmetic and its colours' double arithmetic; nvcc
// may fuse a multiply-add where the host build does not), in the same order, and the same bounds
// within a relative 1e-6.
func checkRecords(t *testing.T, mode render.ColorBy, got, want []render.Instance, res Instances, f *render.Frame) {
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
func compareWithFill(t *testing.T, b *Backend, w *sim.World, mode render.ColorBy, contacts []int32, hl map[int][4]float32) {
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
	got := make([]render.Instance, len(want))
	if err := downloadSlice(d, got, dst); err != nil {
		t.Fatal(err)
	}
	checkRecords(t, mode, got, want, res, &f)
}

func TestInstanceRecordIsRendersInstance(t *testing.T) {
	var in render.Instance
	if s := unsafe.Sizeof(in); s != InstanceBytes {
		t.Fatalf("render.Instance is %d bytes, InstanceBytes %d", s, InstanceBytes)
	}
	offs := []uintptr{unsafe.Offsetof(in.Pos), unsafe.Offsetof(in.Quat), unsafe.Offsetof(in.Scale), unsafe.Offsetof(in.Extra), unsafe.Offsetof(in.Color)}
	if want := []uintptr{0, 12, 28, 40, 44}; [5]uintptr(offs) != [5]uintptr(want) {
		t.Errorf("render.Instance field offsets %v, transforms.cu writes %v", offs, want)
	}
	for mode, v := range []render.ColorBy{render.ColorByBody, render.ColorByType, render.ColorBySleep, render.ColorByContact} {
		if int(v) != []int{ColorByBody, ColorByType, ColorBySleep, ColorByContact}[mode] {
			t.Errorf("colour mode %d: render %d", mode, v)
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
		hl := map[int][4]float32{rng.IntN(n): render.ColorSelected, rng.IntN(n): render.ColorHovered, rng.IntN(n): {}}
		for _, mode := range []render.ColorBy{render.ColorByBody, render.ColorByType, render.ColorBySleep, render.ColorByContact} {
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
		if w.Bodies.Len() > 3000 || hasHull(w) {
			w.Close()
			continue // the emulator's time goes to the random worlds; hulls are refused
		}
		putBodies(t, b, w)
		compareWithFill(t, b, w, render.ColorByBody, nil, map[int][4]float32{0: render.ColorSelected})
		compareWithFill(t, b, w, render.ColorByType, nil, nil)
		w.Close()
	}
	w := sim.NewWorld(sim.Settings{Workers: 1})
	defer w.Close()
	if _, err := w.AddBody(sim.BodyDef{Type: sim.Static, Shape: geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	putBodies(t, b, w)
	compareWithFill(t, b, w, render.ColorByBody, nil, nil)
}

// TestTransformsRefuseASmallBufferAndAStaleDevice: a buffer too small for the records is an error, not
// a write past its end; so is a device that does not hold the world's bodies.
func TestTransformsRefuseASmallBufferAndAStaleDevice(t *testing.T) {
	b := NewEmulated()
	defer b.Close()
	w := randomShapesWorld(t, rand.New(rand.NewPCG(3, 4)), 50)
	defer w.Close()
	putBodies(t, b, w)
	counts := CountKinds(w)
	total := counts[0] + counts[1] + counts[2]
	dst, err := b.dev.alloc((total - 1) * InstanceBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer b.dev.free(dst)
	if _, err := b.WriteInstances(w, uintptr(dst), total-1, styleOf(render.ColorByBody, nil, w, nil)); err == nil {
		t.Error("no error for a buffer one record short")
	}
	// Counts that understate a kind: the kernel's own guard drops the records past the capacity.
	under := counts
	under[0]--
	if _, err := b.writeInstances(uintptr(dst), total-1, under, styleOf(render.ColorByBody, nil, w, nil)); err != nil {
		t.Errorf("understated counts: %v (the capacity guard should drop records, the emulator's guard would fail an overrun)", err)
	}
	if _, err := w.AddBody(sim.BodyDef{Shape: geom.Shape{Kind: geom.Sphere, Radius: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteInstances(w, uintptr(dst), total-1, styleOf(render.ColorByBody, nil, w, nil)); err != ErrNotOnDevice {
		t.Errorf("a body the device does not hold: %v", err)
	}
}
