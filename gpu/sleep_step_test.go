package gpu

import (
	"math"
	"slices"
	"testing"

	"tumble/render/instance"
	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// sleepCase is a world stepped with sleeping on until it sleeps, then woken by an edit (wake) and
// stepped again.
type sleepCase struct {
	name         string
	world        func(t testing.TB) *sim.World
	settle, more int                      // steps before the edit, and after it
	wake         func(w *sim.World) error // the edit, made alike on both sides
}

// sleepCases: a stack (contacts only) woken by a velocity set on its top box; a pyramid woken by an
// impulse, the way the window's drag pushes a body; a stack woken by a box dropped onto it (contact);
// sleepScene's islands, which balls and moving kinematic bodies wake, and whose jointed pair then
// sleeps; and a hanging box on a ball joint, which sleeps holding its weight and wakes when pushed.
var sleepCases = []sleepCase{
	{"stack", preset("stack"), 150, 60, func(w *sim.World) error {
		h, _ := w.Find("box19")
		return w.SetVelocity(h, sim.Vec3{1, 0, 0}, sim.Vec3{})
	}},
	{"pyramid", preset("pyramid"), 50, 6, func(w *sim.World) error {
		h, _ := w.Find("box0_0_0")
		i, _ := w.Index(h)
		return w.ApplyImpulse(h, sim.Vec3{0, 0, 20}, w.Bodies.Position[i])
	}},
	{"stack+drop", preset("stack"), 150, 60, func(w *sim.World) error {
		h, _ := w.Find("box19")
		i, _ := w.Index(h)
		p := w.Bodies.Position[i]
		_, err := w.AddBody(sim.BodyDef{Name: "dropped", Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.4, 0.4, 0.4}},
			Position: sim.Vec3{p[0], p[1] + 1.5, p[2]}, Rotation: sim.Quat{W: 1}, Friction: 0.5, Mass: 1})
		return err
	}},
	{"islands", func(t testing.TB) *sim.World { return sleepWorld(t, true) }, 150, 30, func(w *sim.World) error {
		h, _ := w.Find("b1")
		return w.RemoveBody(h) // what rested on it wakes, and dense indices move
	}},
	{"hanging", hangingWorld, 60, 40, func(w *sim.World) error {
		h, _ := w.Find("bob")
		i, _ := w.Index(h)
		return w.ApplyImpulse(h, sim.Vec3{2, 0, 0}, w.Bodies.Position[i])
	}},
}

// preset returns a builder of the preset with the Jacobi solver and sleeping on.
func preset(scene string) func(t testing.TB) *sim.World {
	return func(t testing.TB) *sim.World { return sleepyWorld(t, scene) }
}

// hangingWorld is a 2 kg box hanging at rest from a ball joint to the world, and a second box hanging
// from the first by a hinge: an island of joints only, which sleeps holding their weights.
func hangingWorld(t testing.TB) *sim.World {
	t.Helper()
	w := sim.NewWorld(sim.Settings{Solver: sim.Jacobi, Gravity: sim.Vec3{0, -9.81, 0}, Workers: 1, Sleep: true})
	box := geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.2, 0.2, 0.2}}
	bob, err := w.AddBody(sim.BodyDef{Name: "bob", Shape: box, Position: sim.Vec3{0, 3, 0}, Rotation: sim.Quat{W: 1}, Mass: 2})
	must(t, err)
	low, err := w.AddBody(sim.BodyDef{Name: "low", Shape: box, Position: sim.Vec3{0, 2.4, 0}, Rotation: sim.Quat{W: 1}, Mass: 1})
	must(t, err)
	_, err = w.AddJoint(sim.JointDef{Type: sim.Ball, BodyA: bob, Anchor: sim.Vec3{0, 3.3, 0}})
	must(t, err)
	_, err = w.AddJoint(sim.JointDef{Type: sim.Hinge, BodyA: low, BodyB: bob, Anchor: sim.Vec3{0, 2.7, 0}, Axis: sim.Vec3{0, 0, 1}})
	must(t, err)
	return w
}

// runSleepParity steps c on the CPU and on b with sleeping on and fails at the first step where a
// body's pose, velocity or sleep differs in any bit, or the step's statistics do, or the contacts
// listed (the sleeping islands' kept points among them) do; it returns how many
// bodies slept before the edit, the fewest that slept after it, and whether a joint slept.
func runSleepParity(t *testing.T, b *Backend, c sleepCase) (before, least int, jointsSlept bool) {
	return runSleepParityWith(t, b, c, nil)
}

// runSleepParityWith is runSleepParity calling each, when not nil, before every step.
func runSleepParityWith(t *testing.T, b *Backend, c sleepCase, each func(step int)) (before, least int, jointsSlept bool) {
	cpu := c.world(t)
	defer cpu.Close()
	dev := c.world(t)
	defer dev.Close()
	must(t, dev.SetBackend(b))
	defer dev.SetBackend(nil)
	lastAsleep := 0
	compare := func(step int) {
		t.Helper()
		must(t, dev.Sync())
		cb, db := &cpu.Bodies, &dev.Bodies
		for i := range cb.Len() {
			if cb.Position[i] != db.Position[i] || cb.Rotation[i] != db.Rotation[i] || cb.Velocity[i] != db.Velocity[i] ||
				cb.AngularVelocity[i] != db.AngularVelocity[i] || cb.Asleep[i] != db.Asleep[i] || cb.SleepTime[i] != db.SleepTime[i] {
				t.Fatalf("%s step %d: %s: CPU p %v v %v w %v asleep %v rest %v; device p %v v %v w %v asleep %v rest %v",
					c.name, step, cb.Name[i], cb.Position[i], cb.Velocity[i], cb.AngularVelocity[i], cb.Asleep[i],
					cb.SleepTime[i], db.Position[i], db.Velocity[i], db.AngularVelocity[i], db.Asleep[i], db.SleepTime[i])
			}
		}
		for k := range cpu.NumJoints() {
			cj, dj := cpu.JointState(k), dev.JointState(k)
			jointsSlept = jointsSlept || cj.Asleep
			if cj.Force != dj.Force || cj.Asleep != dj.Asleep {
				t.Fatalf("%s step %d: joint %d: CPU force %v asleep %v, device %v %v", c.name, step, k, cj.Force, cj.Asleep,
					dj.Force, dj.Asleep)
			}
		}
		cs, ds := cpu.Stats, dev.Stats
		if cs.Pairs != ds.Pairs || cs.Manifolds != ds.Manifolds || cs.Contacts != ds.Contacts || cs.Asleep != ds.Asleep {
			t.Fatalf("%s step %d: pairs, touching, points, asleep: CPU %d %d %d %d, device %d %d %d %d", c.name, step,
				cs.Pairs, cs.Manifolds, cs.Contacts, cs.Asleep, ds.Pairs, ds.Manifolds, ds.Contacts, ds.Asleep)
		}
		// The contacts, every tenth step and each step an island fell asleep or woke (the points kept
		// for a sleeping island change then).
		if step%10 != 0 && cpu.Stats.Asleep == lastAsleep {
			return
		}
		lastAsleep = cpu.Stats.Asleep
		if want, got := cpu.Contacts(nil), dev.Contacts(nil); !slices.Equal(got, want) {
			t.Fatalf("%s step %d: %d contacts on the device, %d on the CPU:\n%+v\nCPU\n%+v", c.name, step, len(got),
				len(want), got, want)
		}
	}
	step := 0
	run := func(n int) {
		t.Helper()
		for range n {
			step++
			if each != nil {
				each(step)
			}
			if err := cpu.Step(); err != nil {
				t.Fatalf("CPU step %d: %v", step, err)
			}
			if err := dev.Step(); err != nil {
				t.Fatalf("device step %d: %v", step, err)
			}
			compare(step)
			least = min(least, cpu.Stats.Asleep)
		}
	}
	run(c.settle)
	before = cpu.Stats.Asleep
	for _, w := range []*sim.World{cpu, dev} {
		if err := c.wake(w); err != nil {
			t.Fatal(err)
		}
	}
	least = before
	run(c.more)
	return before, least, jointsSlept
}

// TestEmulatedSleepingStepIsTheCPUs: with sleeping on, the emulated step is the CPU's Jacobi step bit
// for bit, every body's pose, velocity, sleep and rest time after every step, while the scene falls
// asleep, and after an edit wakes it.
func TestEmulatedSleepingStepIsTheCPUs(t *testing.T) {
	checkSleepParity(t, func(testing.TB) *Backend { return NewEmulated() })
}

// TestEmulatedSleepingPGSStepIsTheCPUs is TestEmulatedSleepingStepIsTheCPUs under PGS with its contact
// cache off (the device's PGS is the CPU's without it, gs.go): the colours, the passes and the warm
// starts a removal renames (the islands case) stay the CPU's while islands sleep and wake.
func TestEmulatedSleepingPGSStepIsTheCPUs(t *testing.T) {
	checkSleepParityOf(t, func(testing.TB) *Backend { return NewEmulated() }, pgsSleepCases())
}

// pgsSleepCases are sleepCases under PGS with its contact cache off.
func pgsSleepCases() []sleepCase {
	cases := make([]sleepCase, len(sleepCases))
	for k, c := range sleepCases {
		world := c.world
		c.world = func(t testing.TB) *sim.World {
			w := world(t)
			s := w.Settings()
			s.Solver, s.NoContactCache = sim.PGS, true
			w.SetSettings(s)
			return w
		}
		cases[k] = c
	}
	return cases
}

func checkSleepParity(t *testing.T, newBackend func(testing.TB) *Backend) {
	checkSleepParityOf(t, newBackend, sleepCases)
}

func checkSleepParityOf(t *testing.T, newBackend func(testing.TB) *Backend, cases []sleepCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newBackend(t)
			before, least, jointsSlept := runSleepParity(t, b, c)
			t.Logf("%s: %d bodies asleep at step %d, as few as %d in the %d steps after the edit; %d idle steps",
				c.name, before, c.settle, least, c.more, b.Idle)
			if before == 0 || least >= before {
				t.Errorf("%s: %d bodies slept in %d steps, and the edit woke none", c.name, before, c.settle)
			}
			w := c.world(t)
			jointed := w.NumJoints() > 0
			w.Close()
			if jointed && !jointsSlept {
				t.Errorf("%s: no joint slept", c.name)
			}
		})
	}
}

// sleepyWorld builds a preset with the Jacobi solver and sleeping on.
func sleepyWorld(t testing.TB, scene string) *sim.World {
	t.Helper()
	sc, ok := scenes.Preset(scene)
	if !ok {
		t.Fatalf("no preset %s", scene)
	}
	w, err := sc.World(scenes.Options{Solver: sim.Jacobi, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := w.Settings()
	s.Sleep = true
	w.SetSettings(s)
	return w
}

// TestEmulatedSleepingJointReportsTheForceItHeld: hangingWorld's two boxes (2 kg and 1 kg) sleep on
// their joints; asleep, the upper joint still reports the weight of both, (2+1) g, and the lower one
// the weight of the lower box, g, as the CPU's joints do, though a sleeping joint's rows do no work.
func TestEmulatedSleepingJointReportsTheForceItHeld(t *testing.T) {
	w := hangingWorld(t)
	defer w.Close()
	must(t, w.SetBackend(NewEmulated()))
	defer w.SetBackend(nil)
	const g = 9.81
	for step := 1; step <= 45; step++ {
		must(t, w.Step())
	}
	must(t, w.Sync())
	if w.Stats.Asleep != 2 {
		t.Fatalf("%d bodies asleep after 45 steps (0.75 s) at rest, want 2", w.Stats.Asleep)
	}
	for k, want := range []float64{3 * g, g} {
		s := w.JointState(k)
		if !s.Asleep || !(math.Abs(float64(s.Force)-want) < 1e-4*want) {
			t.Errorf("joint %d: force %v N, asleep %v; want %.4g N, asleep", k, s.Force, s.Asleep, want)
		}
	}
}

// TestEmulatedImpulseWakesAnIslandTheHostSawAwake: a stack falls asleep on the device while the host's
// copy of the bodies (never synced) still shows it awake; an impulse on its top box then wakes the
// whole stack on the device, and the box moves by it.
func TestEmulatedImpulseWakesAnIslandTheHostSawAwake(t *testing.T) {
	w := sleepyWorld(t, "stack")
	defer w.Close()
	must(t, w.SetBackend(NewEmulated()))
	defer w.SetBackend(nil)
	n := w.Bodies.Len() - 1 // the ground does not sleep
	for k := 0; k < 150 && w.Stats.Asleep < n; k++ {
		must(t, w.Step())
	}
	if w.Stats.Asleep != n {
		t.Fatalf("%d of the stack's %d boxes asleep after 150 steps", w.Stats.Asleep, n)
	}
	h, _ := w.Find("box19")
	i, _ := w.Index(h)
	if w.Bodies.Asleep[i] {
		t.Fatal("the host's copy was synced: the test needs it stale")
	}
	must(t, w.ApplyImpulse(h, sim.Vec3{0, 0, 2 * w.Bodies.Mass[i]}, w.Bodies.Position[i]), w.Step())
	if w.Stats.Asleep != 0 {
		t.Errorf("%d boxes still asleep after the impulse", w.Stats.Asleep)
	}
	must(t, w.Sync())
	if v := w.Bodies.Velocity[i]; !(v[2] > 1) {
		t.Errorf("the pushed box's velocity %v after the step; want about 2 m/s along z", v)
	}
}

// TestEmulatedSettledWorldCostsNothing: once the stack sleeps whole, a step asks nothing of the device
// (no launch, no copy), where an awake step of it launches a few dozen kernels (the small path's
// one launch for the sub-steps among them) and reads back its counters; the first step after a push is
// a whole step again.
func TestEmulatedSettledWorldCostsNothing(t *testing.T) {
	w := sleepyWorld(t, "stack")
	defer w.Close()
	b := NewEmulated()
	b.NoGraphs = true // every kernel a launch of its own, as the counts below compare them
	must(t, w.SetBackend(b))
	defer w.SetBackend(nil)
	must(t, w.Step())
	awake := b.LastStep
	n := w.Bodies.Len() - 1
	for k := 0; k < 150 && w.Stats.Asleep < n; k++ {
		must(t, w.Step())
	}
	must(t, w.Step())
	asleep := b.LastStep
	t.Logf("an awake step: %+v; asleep: %+v", awake, asleep)
	if w.Stats.Asleep != n || asleep != (Counts{}) || b.Idle == 0 {
		t.Errorf("%d of %d boxes asleep, %d idle steps; a step asleep asked %+v of the device", w.Stats.Asleep, n, b.Idle, asleep)
	}
	if awake.Launches < 20 || awake.Downloads == 0 {
		t.Errorf("an awake step: %+v", awake)
	}
	h, _ := w.Find("box10")
	must(t, w.SetVelocity(h, sim.Vec3{0, 0, 1}, sim.Vec3{}), w.Step())
	// A whole step again; its lists fitted to the stack's need after the first step, and their scans
	// take fewer levels, so a few launches fewer than the first step's.
	if c := b.LastStep; c.Launches < awake.Launches*9/10 || w.Stats.Asleep != 0 {
		t.Errorf("the step after a push: %d asleep, %+v", w.Stats.Asleep, c)
	}
}

// TestEmulatedSleepingRerunIsExact: steps whose lists overflow (forced every seventh step, while
// islands fall asleep and wake) are put back with their sleeping state (flags, labels, rest times)
// and run again, and the world still moves, sleeps and wakes as on the CPU, bit for bit.
func TestEmulatedSleepingRerunIsExact(t *testing.T) {
	c := sleepCases[3]
	if c.name != "islands" {
		t.Fatalf("sleepCases[3] is %s, want islands", c.name)
	}
	b := NewEmulated()
	before, least, _ := runSleepParityWith(t, b, c, func(step int) {
		if step%7 == 0 {
			b.pairCap, b.contactCap = 1, 1 // the next step's lists: it overflows and runs again
		}
	})
	t.Logf("%d re-runs; %d bodies asleep before the edit, as few as %d after", b.Reruns, before, least)
	if b.Reruns < (c.settle+c.more)/7 || before == 0 {
		t.Errorf("%d re-runs, %d bodies asleep", b.Reruns, before)
	}
}

// TestEmulatedSleepColoursComeFromTheDevice: with sleeping on, the instance kernel colours a body by
// the device's sleep, which the host's copy may not show yet (the frame draws from the device): here
// the style's host flags say every body is awake, and the records still equal instance.Fill's of the
// synced world, whose sleeping islands are drawn asleep.
func TestEmulatedSleepColoursComeFromTheDevice(t *testing.T) {
	w := sleepWorld(t, true)
	defer w.Close()
	b := NewEmulated()
	must(t, w.SetBackend(b))
	defer w.SetBackend(nil)
	for range 120 {
		must(t, w.Step())
	}
	must(t, w.Sync())
	if w.Stats.Asleep == 0 {
		t.Fatal("nothing asleep after 120 steps")
	}
	f, want := fillRecords(t, w, instance.ColorBySleep, nil, nil)
	st := styleOf(instance.ColorBySleep, nil, w, nil)
	st.Sleeping = make([]bool, w.Bodies.Len()) // a stale host copy: all awake
	dst, err := b.dev.alloc(len(want) * InstanceBytes)
	must(t, err)
	defer b.dev.free(dst)
	res, err := b.WriteInstances(w, uintptr(dst), len(want), st)
	must(t, err)
	got := make([]instance.Instance, len(want))
	must(t, downloadSlice(b.dev, got, dst))
	checkRecords(t, instance.ColorBySleep, got, want, res, &f)
}

// TestEmulatedSleepingStacksContactsAreTheCPUs: the emulated backend lists a sleeping stack's contacts
// as the CPU does (Contacts and ContactsOf: the points of the step it fell asleep in, with the impulses
// that held it), while it falls asleep, asleep, woken by a push and asleep again; the step it falls
// asleep in finds the list short (forced) and runs again with room for them.
func TestEmulatedSleepingStacksContactsAreTheCPUs(t *testing.T) { checkSleptContacts(t, NewEmulated()) }

// checkSleptContacts is TestEmulatedSleepingStacksContactsAreTheCPUs on backend b.
func checkSleptContacts(t *testing.T, b *Backend) {
	cpu := sleepyWorld(t, "stack")
	defer cpu.Close()
	dev := sleepyWorld(t, "stack")
	defer dev.Close()
	must(t, dev.SetBackend(b))
	defer dev.SetBackend(nil)
	top, _ := cpu.Find("box19")
	mid, _ := cpu.Find("box10")
	compare := func(step int, what string) int {
		t.Helper()
		want, got := cpu.Contacts(nil), dev.Contacts(nil)
		if len(got) != len(want) {
			t.Fatalf("step %d (%s): %d contacts on the device, %d on the CPU", step, what, len(got), len(want))
		}
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("step %d (%s): contact %d: device %+v\nCPU %+v", step, what, k, got[k], want[k])
			}
		}
		for _, h := range []sim.Handle{top, mid} {
			want, got := cpu.ContactsOf(h, nil), dev.ContactsOf(h, nil)
			if len(got) != len(want) || len(want) == 0 {
				t.Fatalf("step %d (%s): %d contacts of a box on the device, %d on the CPU", step, what, len(got), len(want))
			}
			for k := range want {
				if got[k] != want[k] {
					t.Fatalf("step %d (%s): a box's contact %d: device %+v\nCPU %+v", step, what, k, got[k], want[k])
				}
			}
		}
		return len(want)
	}
	n := cpu.Bodies.Len() - 1 // the ground does not sleep
	step := 0
	stepBoth := func() {
		t.Helper()
		step++
		must(t, cpu.Step(), dev.Step())
	}
	for step < 200 && cpu.Stats.Asleep < n {
		if cpu.Stats.Asleep == 0 && step > 0 && step%10 == 0 {
			compare(step, "awake")
		}
		b.slept.cap = 2 // too short for the stack's 20 manifolds: the step it sleeps in runs again
		stepBoth()
	}
	if cpu.Stats.Asleep != n || dev.Stats.Asleep != n {
		t.Fatalf("after %d steps: %d boxes asleep on the CPU, %d on the device, want %d", step, cpu.Stats.Asleep,
			dev.Stats.Asleep, n)
	}
	if b.Reruns == 0 || b.slept.cap < 20 {
		t.Errorf("%d re-runs, room for %d manifolds: the short list did not grow", b.Reruns, b.slept.cap)
	}
	compare(step, "falling asleep")
	for range 3 {
		stepBoth()
	}
	if dev.Stats.Manifolds != 0 {
		t.Fatalf("asleep: %d manifolds solved", dev.Stats.Manifolds)
	}
	if got := compare(step, "asleep"); got != 4*n {
		t.Errorf("asleep: %d contacts, want 4 per face on face, %d", got, 4*n)
	}
	for _, w := range []*sim.World{cpu, dev} {
		must(t, w.SetVelocity(top, sim.Vec3{0.5, 0, 0}, sim.Vec3{}))
	}
	stepBoth()
	compare(step, "woken")
	for step < 400 && cpu.Stats.Asleep < n {
		stepBoth()
	}
	stepBoth()
	compare(step, "asleep again")
}
