package gpu

import (
	"testing"

	"tumble/sim"
)

// TestEmulatedBodyEditsAsOnTheCPU: the World's body edits (SetMass, SetType, SetMaterial, impulses at
// a point and about the centre) reach the emulated backend and move the world exactly as on the CPU;
// the impulses are applied on the device without reading the bodies back.
func TestEmulatedBodyEditsAsOnTheCPU(t *testing.T) {
	cpu := newWorld(t, "stack")
	defer cpu.Close()
	dev := newWorld(t, "stack")
	defer dev.Close()
	b := NewEmulated()
	must(t, dev.SetBackend(b))
	defer dev.SetBackend(nil)
	both := func(f func(w *sim.World, box func(string) sim.Handle) error) {
		t.Helper()
		for _, w := range []*sim.World{cpu, dev} {
			find := func(name string) sim.Handle {
				h, ok := w.Find(name)
				if !ok {
					t.Fatalf("no body %s", name)
				}
				return h
			}
			must(t, f(w, find))
		}
	}
	step := func(n int) {
		t.Helper()
		for range n {
			must(t, cpu.Step(), dev.Step())
		}
	}
	step(20)
	pulled := b.Pulled
	both(func(w *sim.World, box func(string) sim.Handle) error {
		return w.ApplyImpulse(box("box19"), sim.Vec3{300, 100, -200}, sim.Vec3{0.3, 19.7, 0.2})
	})
	both(func(w *sim.World, box func(string) sim.Handle) error {
		return w.ApplyAngularImpulse(box("box18"), sim.Vec3{0, 50, 0})
	})
	step(1)
	if b.Pulled != pulled {
		t.Errorf("applying two impulses read %d bodies back", b.Pulled-pulled)
	}
	must(t, dev.Sync())
	for _, name := range []string{"box19", "box18"} {
		hc, _ := cpu.Find(name)
		hd, _ := dev.Find(name)
		i, _ := cpu.Index(hc)
		k, _ := dev.Index(hd)
		c, d := cpu.Bodies.Velocity[i].Add(cpu.Bodies.AngularVelocity[i]), dev.Bodies.Velocity[k].Add(dev.Bodies.AngularVelocity[k])
		if c.Len() < 0.05 || dist(c, d) > 1e-4*float64(c.Len()) {
			t.Errorf("%s after the impulse: CPU v + omega %v, device %v", name, c, d)
		}
	}
	step(20)
	both(func(w *sim.World, box func(string) sim.Handle) error { return w.SetMass(box("box15"), 40) })
	both(func(w *sim.World, box func(string) sim.Handle) error { return w.SetMaterial(box("box14"), 0.05, 0.3) })
	step(20)
	both(func(w *sim.World, box func(string) sim.Handle) error { return w.SetType(box("box10"), sim.Static) })
	step(20)
	both(func(w *sim.World, box func(string) sim.Handle) error { return w.SetType(box("box10"), sim.Dynamic) })
	both(func(w *sim.World, box func(string) sim.Handle) error { return w.SetType(box("box5"), sim.Kinematic) })
	step(30)
	must(t, dev.Sync())
	// Within the stack's parity tolerance (parity_test.go: the Jacobi sums' order differs).
	for i := range cpu.Bodies.Len() {
		c, d := &cpu.Bodies, &dev.Bodies
		if dist(c.Position[i], d.Position[i]) > 5e-3 || c.Mass[i] != d.Mass[i] || c.Friction[i] != d.Friction[i] ||
			c.Type[i] != d.Type[i] {
			t.Errorf("%s: CPU %v %v %v, device %v %v %v", c.Name[i], c.Position[i], c.Mass[i], c.Type[i],
				d.Position[i], d.Mass[i], d.Type[i])
		}
	}
}

// TestEmulatedBodyStateReadsOneBody: World.BodyState with the emulated backend reads back that body
// alone, and sees the impulses queued since the last step (as the CPU's does, within the parity
// tolerance).
func TestEmulatedBodyStateReadsOneBody(t *testing.T) {
	cpu := newWorld(t, "stack")
	defer cpu.Close()
	dev := newWorld(t, "stack")
	defer dev.Close()
	b := NewEmulated()
	must(t, dev.SetBackend(b))
	defer dev.SetBackend(nil)
	for range 10 {
		must(t, cpu.Step(), dev.Step())
	}
	for _, w := range []*sim.World{cpu, dev} {
		h, _ := w.Find("box19")
		must(t, w.ApplyImpulse(h, sim.Vec3{1, 2, 3}, w.Bodies.Position[0]))
	}
	pulled := b.Pulled
	hc, _ := cpu.Find("box19")
	hd, _ := dev.Find("box19")
	want, err := cpu.BodyState(hc)
	must(t, err)
	got, err := dev.BodyState(hd)
	must(t, err)
	if n := b.Pulled - pulled; n != 1 {
		t.Errorf("BodyState read %d bodies back, want 1", n)
	}
	if dist(got.Position, want.Position) > 1e-4 || dist(got.Velocity, want.Velocity) > 1e-3 || got.Mass != want.Mass {
		t.Errorf("device %+v\nCPU %+v", got, want)
	}
}
