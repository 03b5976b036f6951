package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"tumble/scenes"
	"tumble/sim"
)

// sleepScene has islands that come to rest at different times: two short stacks, a box dropped from
// 2 m, two boxes apart tied by a ball joint (one island through the joint alone), and a box on a
// kinematic turntable spinning so slowly that the box's own speed is under sim's rest speed: touching a
// moving kinematic body, it must never count as resting. Later, once they sleep, two frictionless
// balls slide into the top of the first stack and into one jointed box (its partner wakes with it),
// and a kinematic box sweeps down onto the dropped box.
const sleepScene = `{
  "name": "sleep islands",
  "solver": {"type": "jacobi"},
  "bodies": [
    {"name": "ground", "type": "static", "shape": {"type": "box", "halfExtents": [20, 0.5, 20]}, "position": [0, -0.5, 0]},
    {"name": "a0", "shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "position": [-6, 0.5, 0], "mass": 1},
    {"name": "a1", "shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "position": [-6, 1.5, 0], "mass": 1},
    {"name": "a2", "shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "position": [-6, 2.5, 0], "mass": 1},
    {"name": "b0", "shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "position": [-3, 0.5, 0], "mass": 1},
    {"name": "b1", "shape": {"type": "sphere", "radius": 0.4}, "position": [-3, 1.4, 0], "mass": 1},
    {"name": "drop", "shape": {"type": "box", "halfExtents": [0.4, 0.4, 0.4]}, "position": [0, 2, 0], "mass": 1},
    {"name": "j0", "shape": {"type": "box", "halfExtents": [0.4, 0.4, 0.4]}, "position": [3, 0.4, 0], "mass": 1},
    {"name": "j1", "shape": {"type": "box", "halfExtents": [0.4, 0.4, 0.4]}, "position": [4, 0.4, 0], "mass": 1},
    {"name": "turntable", "type": "kinematic", "shape": {"type": "box", "halfExtents": [1, 0.1, 1]}, "position": [7, 0.1, 0],
     "angularVelocity": [0, 0.01, 0]},
    {"name": "rider", "shape": {"type": "box", "halfExtents": [0.3, 0.3, 0.3]}, "position": [7, 0.5, 0], "mass": 1},
    {"name": "ballA", "shape": {"type": "sphere", "radius": 0.3}, "position": [-6, 0.3, 12], "velocity": [0, 0, -12],
     "mass": 1, "friction": 0},
    {"name": "ballJ", "shape": {"type": "sphere", "radius": 0.3}, "position": [4, 0.3, -12], "velocity": [0, 0, 10],
     "mass": 1, "friction": 0},
    {"name": "sweeper", "type": "kinematic", "shape": {"type": "box", "halfExtents": [0.3, 0.3, 0.3]}, "position": [0, 1.05, 9],
     "velocity": [0, 0, -5]}
  ],
  "joints": [{"type": "ball", "bodyA": "j0", "bodyB": "j1", "anchor": [3.5, 0.4, 0]}]
}`

// sleepIslands are sleepScene's islands by body name; every other body is alone in its own.
var sleepIslands = [][]string{{"a0", "a1", "a2"}, {"b0", "b1"}, {"j0", "j1"}}

func sleepWorld(t testing.TB, sleep bool) *sim.World {
	t.Helper()
	s, err := scenes.Parse("sleep islands", []byte(sleepScene))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.World(scenes.Options{Solver: sim.Jacobi, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := w.Settings()
	st.Sleep = sleep
	w.SetSettings(st)
	return w
}

// TestEmulatedSleepStageMatchesCPU steps sleepScene on the CPU with sleeping on and on the emulated
// backend with it off, running the device's waking (after the step: it reads the step's contacts) and
// sleep stage (sleep.cu) after each device step. Until an island falls asleep the two steps are the
// same bits, and so must be every dynamic body's rest time; at the step the CPU puts an island to
// sleep the device must put exactly that island's bodies to sleep and zero exactly their velocities; the
// islands' labels must split the sleeping bodies as the scene's islands do; and an island must wake
// whole at the step the CPU wakes it (touched by a ball, or in a moving kinematic body's box). The
// device's step runs with sleeping off, driving none of this itself (TestEmulatedSleepingStepIsTheCPUs
// checks the step with sleeping on), so from the step a body falls asleep it is compared for its sleep
// only; the islands are apart, so the others still are, bit for bit, and the balls, which hit sleeping
// bodies, by their sleep only.
func TestEmulatedSleepStageMatchesCPU(t *testing.T) {
	checkSleepStage(t, NewEmulated())
}

func checkSleepStage(t *testing.T, b *Backend) {
	cpu := sleepWorld(t, true)
	defer cpu.Close()
	dev := sleepWorld(t, false)
	defer dev.Close()
	if err := dev.SetBackend(b); err != nil {
		t.Fatal(err)
	}
	defer dev.SetBackend(nil)
	n := cpu.Bodies.Len()
	var ss sleepStage
	defer ss.release(b.dev)
	must(t, ss.reserve(b.dev, n, 0))
	var kin buffer
	defer release(b.dev, &kin)
	var moving []int32
	for i := range n {
		if cpu.Bodies.Type[i] == sim.Kinematic {
			moving = append(moving, int32(i))
		}
	}
	must(t, grow(b.dev, &kin, 4*len(moving)), uploadSlice(b.dev, kin.p, moving))
	rest := make([]float32, n)
	label := make([]uint32, n)
	const (
		exact  = iota // never asleep: the CPU's bits
		asleep        // asleep on the CPU
		woken         // woke after sleeping: its state is the device's own
	)
	state := make([]int, n)
	for i := range n {
		if name := cpu.Bodies.Name[i]; name == "ballA" || name == "ballJ" {
			state[i] = woken // they hit bodies whose device state is not the CPU's
		}
	}
	st := sim.ResolveFor(capabilities, cpu.Settings())
	fell, woke := map[string]int{}, map[string]int{}
	for step := 1; step <= 150; step++ {
		must(t, cpu.Step(), dev.Step())
		contacts, count, capacity := b.narrow.contactList()
		in := sleepInput{bodies: &b.bodies, contacts: contacts, contactCount: count, contactCap: capacity,
			jointed: b.narrow.jointed.p, nJointed: b.narrow.nJointed, dt: st.Dt, sleepTime: st.SleepTime}
		must(t, ss.wake(b.dev, wakeInput{sleepInput: in, boxes: b.broad.boxes.p, kinematic: kin.p, nKinematic: len(moving)}))
		must(t, ss.run(b.dev, in))
		must(t, b.dev.sync(), downloadSlice(b.dev, rest, ss.rest.p), downloadSlice(b.dev, label, ss.asleep.p))
		must(t, b.Pull(dev))
		cb, db := &cpu.Bodies, &dev.Bodies
		for i := range n {
			name := cb.Name[i]
			switch state[i] {
			case asleep:
				if cb.Asleep[i] != (label[i] != 0) {
					t.Fatalf("step %d: %s asleep on the CPU %v, on the device label %d", step, name, cb.Asleep[i], label[i])
				}
				if !cb.Asleep[i] {
					state[i] = woken
					woke[name] = step
				}
				continue
			case woken:
				continue
			}
			if cb.Asleep[i] != (label[i] != 0) {
				t.Fatalf("step %d: %s asleep on the CPU %v, on the device label %d", step, name, cb.Asleep[i], label[i])
			}
			if cb.SleepTime[i] != rest[i] {
				t.Fatalf("step %d: %s rested %v s on the CPU, %v s on the device", step, name, cb.SleepTime[i], rest[i])
			}
			if cb.Position[i] != db.Position[i] || cb.Velocity[i] != db.Velocity[i] || cb.AngularVelocity[i] != db.AngularVelocity[i] {
				t.Fatalf("step %d: %s: CPU %v %v %v, device %v %v %v", step, name, cb.Position[i], cb.Velocity[i],
					cb.AngularVelocity[i], db.Position[i], db.Velocity[i], db.AngularVelocity[i])
			}
			if cb.Asleep[i] {
				state[i] = asleep
				fell[name] = step
			}
		}
		// The bodies asleep, as the device labelled them: one label per island.
		byLabel := map[uint32][]string{}
		for i := range n {
			if label[i] != 0 && state[i] == asleep {
				byLabel[label[i]] = append(byLabel[label[i]], cb.Name[i])
			}
		}
		for l, names := range byLabel {
			if !sameIsland(names) {
				t.Fatalf("step %d: label %d holds %v, not one of the scene's islands", step, l, names)
			}
		}
	}
	t.Logf("fell asleep at step: %v; woke at step: %v", fell, woke)
	for _, name := range []string{"a0", "a1", "a2", "b0", "b1", "drop", "j0", "j1"} {
		if _, ok := fell[name]; !ok {
			t.Errorf("%s never fell asleep in 150 steps", name)
		}
	}
	for _, name := range []string{"a0", "a1", "a2", "j0", "j1", "drop"} {
		if _, ok := woke[name]; !ok {
			t.Errorf("%s never woke in 150 steps", name)
		}
	}
	if _, ok := woke["b0"]; ok {
		t.Error("b0, which nothing touched, woke")
	}
	if _, ok := fell["rider"]; ok {
		t.Error("the rider of the spinning turntable fell asleep")
	}
	if fell["drop"] == fell["a0"] {
		t.Errorf("the dropped box fell asleep with the stack at step %d: the scene does not tell islands apart in time", fell["a0"])
	}
}

// sameIsland reports whether names is exactly one of sleepIslands, or one body alone in none.
func sameIsland(names []string) bool {
	for _, is := range sleepIslands {
		for _, m := range is {
			if m == names[0] {
				return fmt.Sprint(sorted(names)) == fmt.Sprint(sorted(is))
			}
		}
	}
	return len(names) == 1
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestEmulatedSleepIslandRoots: the device's union-find over many random contacts and joints gives every
// body the root the CPU's union-find gives it (the lowest index of its island), whatever order the links
// arrive in; links to static and kinematic bodies join nothing.
func TestEmulatedSleepIslandRoots(t *testing.T) { checkIslandRoots(t, NewEmulated()) }

func checkIslandRoots(t *testing.T, b *Backend) {
	d := b.dev
	defer b.Close()
	const n, nc, nj = 3000, 2400, 300
	rng := rand.New(rand.NewSource(7))
	flags := make([]uint32, n)
	for i := range n {
		flags[i] = uint32(sim.Dynamic)
		if rng.Intn(10) == 0 {
			flags[i] = uint32(sim.Static)
		} else if rng.Intn(20) == 0 {
			flags[i] = uint32(sim.Kinematic)
		}
	}
	pair := func() (int32, int32) {
		a, c := rng.Int31n(n), rng.Int31n(n-1)
		if c >= a {
			c++
		}
		return min(a, c), max(a, c)
	}
	contacts := make([]tbContact, nc)
	for k := range contacts {
		contacts[k].A, contacts[k].B = pair()
		contacts[k].Count = 1 + rng.Int31n(4)
	}
	keys := map[uint64]bool{}
	for range nj {
		a, c := pair()
		keys[uint64(a)<<32|uint64(c)] = true
	}
	jointed := make([]uint64, 0, len(keys))
	for k := range keys {
		jointed = append(jointed, k)
	}
	// The CPU's union-find (sim/sleep.go's find and union), over the same links.
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(int32) int32
	find = func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	dyn := func(i int32) bool { return flags[i] == uint32(sim.Dynamic) }
	link := func(a, c int32) {
		if !dyn(a) || !dyn(c) {
			return
		}
		ra, rc := find(a), find(c)
		if ra < rc {
			parent[rc] = ra
		} else if rc < ra {
			parent[ra] = rc
		}
	}
	for _, c := range contacts {
		link(c.A, c.B)
	}
	for _, k := range jointed {
		link(int32(k>>32), int32(k&0xffffffff))
	}

	var bb bodyBuffers
	defer bb.release(d)
	must(t, bb.reserve(d, n, 0))
	must(t, d.zero(bb.vel.p, 16*n), d.zero(bb.omega.p, 16*n), d.zero(bb.shape.p, sizeShape*n))
	must(t, uploadSlice(d, bb.flags.p, flags))
	var cbuf, count, jbuf buffer
	defer release(d, &cbuf)
	defer release(d, &count)
	defer release(d, &jbuf)
	must(t, grow(d, &cbuf, nc*contactBytes), grow(d, &count, 4), grow(d, &jbuf, 8*len(jointed)))
	must(t, uploadSlice(d, cbuf.p, contacts), uploadSlice(d, count.p, []uint32{nc}), uploadSlice(d, jbuf.p, jointed))
	var ss sleepStage
	defer ss.release(d)
	must(t, ss.reserve(d, n, 0))
	must(t, ss.run(d, sleepInput{bodies: &bb, contacts: cbuf.p, contactCount: count.p, contactCap: nc,
		jointed: jbuf.p, nJointed: len(jointed), dt: 1.0 / 60, sleepTime: 0.5}))
	got := make([]int32, n)
	must(t, d.sync(), downloadSlice(d, got, ss.parent.p))
	islands := 0
	for i := range n {
		if want := find(int32(i)); got[i] != want {
			t.Fatalf("body %d: root %d on the device, %d on the CPU", i, got[i], want)
		}
		if got[i] == int32(i) {
			islands++
		}
	}
	t.Logf("%d bodies, %d contacts, %d joints: %d islands", n, nc, len(jointed), islands)
}

// TestEmulatedSleepWakeByLabel: waking over many sleeping islands (random labels, so that labels share
// the list's dedupe slots) and many contacts wakes exactly the islands of which a body touches an
// awake dynamic body, each whole, and lists each such island at least once and at most once per marked
// body.
func TestEmulatedSleepWakeByLabel(t *testing.T) { checkWakeByLabel(t, NewEmulated()) }

func checkWakeByLabel(t *testing.T, b *Backend) {
	d := b.dev
	defer b.Close()
	const n, nc, islands = 3000, 1500, 400
	rng := rand.New(rand.NewSource(11))
	flags := make([]uint32, n)
	labels := make([]uint32, islands)
	for k := range labels {
		labels[k] = rng.Uint32() | 1
	}
	asleep := make([]uint32, n)
	for i := range n {
		switch r := rng.Intn(10); {
		case r == 0:
			flags[i] = uint32(sim.Static)
		case r < 4: // awake
		default:
			asleep[i] = labels[rng.Intn(islands)]
		}
	}
	contacts := make([]tbContact, nc)
	marked := map[int32]bool{}
	for k := range contacts {
		a, c := rng.Int31n(n), rng.Int31n(n-1)
		if c >= a {
			c++
		}
		a, c = min(a, c), max(a, c)
		contacts[k] = tbContact{A: a, B: c, Count: 1}
		awake := func(i int32) bool { return flags[i] == uint32(sim.Dynamic) && asleep[i] == 0 }
		if asleep[a] != 0 && awake(c) {
			marked[a] = true
		} else if asleep[c] != 0 && awake(a) {
			marked[c] = true
		}
	}
	wake := map[uint32]bool{}
	for i := range marked {
		wake[asleep[i]] = true
	}
	var bb bodyBuffers
	defer bb.release(d)
	must(t, bb.reserve(d, n, 0), uploadSlice(d, bb.flags.p, flags))
	var cbuf, count buffer
	defer release(d, &cbuf)
	defer release(d, &count)
	must(t, grow(d, &cbuf, nc*contactBytes), grow(d, &count, 4))
	must(t, uploadSlice(d, cbuf.p, contacts), uploadSlice(d, count.p, []uint32{nc}))
	var ss sleepStage
	defer ss.release(d)
	must(t, ss.reserve(d, n, 0), uploadSlice(d, ss.asleep.p, asleep))
	must(t, ss.wake(d, wakeInput{sleepInput: sleepInput{bodies: &bb, contacts: cbuf.p, contactCount: count.p,
		contactCap: nc}}))
	got := make([]uint32, n)
	counts := make([]uint32, 2)
	must(t, d.sync(), downloadSlice(d, got, ss.asleep.p), downloadSlice(d, counts, ss.counts.p))
	woke := 0
	for i := range n {
		want := asleep[i]
		if wake[want] {
			want, woke = 0, woke+1
		}
		if got[i] != want {
			t.Fatalf("body %d: label %d before, %d after waking; want %d", i, asleep[i], got[i], want)
		}
	}
	if int(counts[1]) != woke {
		t.Errorf("the flush counted %d bodies woken, %d woke", counts[1], woke)
	}
	if int(counts[0]) < len(wake) || int(counts[0]) > len(marked) {
		t.Errorf("%d labels listed for %d islands marked at %d bodies", counts[0], len(wake), len(marked))
	}
	t.Logf("%d sleeping islands: %d marked at %d bodies, %d labels listed, %d bodies woke", islands, len(wake),
		len(marked), counts[0], woke)
}
