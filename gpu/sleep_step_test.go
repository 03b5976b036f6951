package gpu

import (
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// sleepCase is a preset stepped with sleeping on until it sleeps, then woken by an edit (wake) and
// stepped again.
type sleepCase struct {
	scene        string
	settle, more int                      // steps before the edit, and after it
	wake         func(w *sim.World) error // the edit, made alike on both sides
}

// sleepCases: a stack (contacts only) woken by a velocity set on its top box, and a hanging chain
// (joints only) woken by an impulse, the way the window's drag pushes a body.
var sleepCases = []sleepCase{
	{"stack", 150, 60, func(w *sim.World) error {
		h, _ := w.Find("box19")
		return w.SetVelocity(h, sim.Vec3{1, 0, 0}, sim.Vec3{})
	}},
	{"pyramid", 50, 40, func(w *sim.World) error {
		h, _ := w.Find("box0_0_0")
		i, _ := w.Index(h)
		return w.ApplyImpulse(h, sim.Vec3{0, 0, 20}, w.Bodies.Position[i])
	}},
	// A box dropped onto the sleeping stack wakes it by contact, in the step it lands.
	{"stack", 150, 60, func(w *sim.World) error {
		h, _ := w.Find("box19")
		i, _ := w.Index(h)
		p := w.Bodies.Position[i]
		_, err := w.AddBody(sim.BodyDef{Name: "dropped", Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.4, 0.4, 0.4}},
			Position: sim.Vec3{p[0], p[1] + 1.5, p[2]}, Rotation: sim.Quat{W: 1}, Friction: 0.5, Mass: 1})
		return err
	}},
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

// runSleepParity steps c on the CPU and on b with sleeping on and fails at the first step where a
// body's pose, velocity or sleep differs in any bit, or the step's statistics do; it returns how many
// bodies slept before the edit and how many after the last step.
func runSleepParity(t *testing.T, b *Backend, c sleepCase) (before, after int) {
	cpu := sleepyWorld(t, c.scene)
	defer cpu.Close()
	dev := sleepyWorld(t, c.scene)
	defer dev.Close()
	must(t, dev.SetBackend(b))
	defer dev.SetBackend(nil)
	compare := func(step int) {
		t.Helper()
		must(t, dev.Sync())
		cb, db := &cpu.Bodies, &dev.Bodies
		for i := range cb.Len() {
			if cb.Position[i] != db.Position[i] || cb.Rotation[i] != db.Rotation[i] || cb.Velocity[i] != db.Velocity[i] ||
				cb.AngularVelocity[i] != db.AngularVelocity[i] || cb.Asleep[i] != db.Asleep[i] || cb.SleepTime[i] != db.SleepTime[i] {
				t.Fatalf("%s step %d: %s: CPU p %v v %v w %v asleep %v rest %v; device p %v v %v w %v asleep %v rest %v",
					c.scene, step, cb.Name[i], cb.Position[i], cb.Velocity[i], cb.AngularVelocity[i], cb.Asleep[i],
					cb.SleepTime[i], db.Position[i], db.Velocity[i], db.AngularVelocity[i], db.Asleep[i], db.SleepTime[i])
			}
		}
		cs, ds := cpu.Stats, dev.Stats
		if cs.Pairs != ds.Pairs || cs.Manifolds != ds.Manifolds || cs.Contacts != ds.Contacts || cs.Asleep != ds.Asleep {
			t.Fatalf("%s step %d: pairs, touching, points, asleep: CPU %d %d %d %d, device %d %d %d %d", c.scene, step,
				cs.Pairs, cs.Manifolds, cs.Contacts, cs.Asleep, ds.Pairs, ds.Manifolds, ds.Contacts, ds.Asleep)
		}
	}
	step := 0
	run := func(n int) {
		t.Helper()
		for range n {
			step++
			if err := cpu.Step(); err != nil {
				t.Fatalf("CPU step %d: %v", step, err)
			}
			if err := dev.Step(); err != nil {
				t.Fatalf("device step %d: %v", step, err)
			}
			compare(step)
		}
	}
	run(c.settle)
	before = cpu.Stats.Asleep
	for _, w := range []*sim.World{cpu, dev} {
		if err := c.wake(w); err != nil {
			t.Fatal(err)
		}
	}
	run(c.more)
	return before, cpu.Stats.Asleep
}

// TestEmulatedSleepingStepIsTheCPUs: with sleeping on, the emulated step is the CPU's Jacobi step bit
// for bit, every body's pose, velocity, sleep and rest time after every step, while the scene falls
// asleep, and after an edit wakes it.
func TestEmulatedSleepingStepIsTheCPUs(t *testing.T) {
	checkSleepParity(t, func(testing.TB) *Backend { return NewEmulated() })
}

func checkSleepParity(t *testing.T, newBackend func(testing.TB) *Backend) {
	for _, c := range sleepCases {
		t.Run(c.scene, func(t *testing.T) {
			b := newBackend(t)
			before, after := runSleepParity(t, b, c)
			t.Logf("%s: %d bodies asleep at step %d, %d after the edit and %d steps; %d idle steps",
				c.scene, before, c.settle, after, c.more, b.Idle)
			if before == 0 {
				t.Errorf("%s: nothing slept in %d steps", c.scene, c.settle)
			}
		})
	}
}
