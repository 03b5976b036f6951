package gpu

import (
	"fmt"
	"testing"

	"tumble/scenes"
	"tumble/sim"
)

// newPGSWorld builds a preset with the PGS solver (its first cut bodies when cut > 0), on one worker
// and without the contact cache: a world on a backend runs without it (the CPU step reuses last
// step's manifolds where the device computes them afresh), so the CPU reference does too.
func newPGSWorld(t testing.TB, scene string, cut int) *sim.World {
	t.Helper()
	s, ok := scenes.Preset(scene)
	if !ok {
		t.Fatalf("no preset %s", scene)
	}
	if cut > 0 && cut < len(s.Bodies) {
		s.Bodies = s.Bodies[:cut]
	}
	w, err := s.World(scenes.Options{Solver: sim.PGS, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := w.Settings()
	st.NoContactCache = true
	w.SetSettings(st)
	return w
}

// pgsParity steps scene on the CPU's PGS and on the emulated backend's, and fails at the first step
// where a body's position, orientation or velocity differs in any bit.
func pgsParity(t *testing.T, scene string, cut, steps int) *Backend {
	cpu := newPGSWorld(t, scene, cut)
	defer cpu.Close()
	dev := newPGSWorld(t, scene, cut)
	defer dev.Close()
	b := NewEmulated()
	if err := dev.SetBackend(b); err != nil {
		t.Fatal(err)
	}
	defer dev.SetBackend(nil)
	for step := 1; step <= steps; step++ {
		if err := cpu.Step(); err != nil {
			t.Fatalf("%s: CPU step %d: %v", scene, step, err)
		}
		if err := dev.Step(); err != nil {
			t.Fatalf("%s: emulated step %d: %v", scene, step, err)
		}
		if step%10 != 0 && step != steps {
			continue
		}
		if err := dev.Sync(); err != nil {
			t.Fatal(err)
		}
		if d := firstDifference(cpu, dev); d != "" {
			t.Fatalf("%s step %d: %s", scene, step, d)
		}
	}
	return b
}

// firstDifference names the first body whose state differs between a and b, or returns "".
func firstDifference(a, b *sim.World) string {
	if a.Bodies.Len() != b.Bodies.Len() {
		return fmt.Sprintf("%d bodies against %d", a.Bodies.Len(), b.Bodies.Len())
	}
	for i := range a.Bodies.Len() {
		if a.Bodies.Position[i] != b.Bodies.Position[i] || a.Bodies.Rotation[i] != b.Bodies.Rotation[i] ||
			a.Bodies.Velocity[i] != b.Bodies.Velocity[i] || a.Bodies.AngularVelocity[i] != b.Bodies.AngularVelocity[i] {
			return fmt.Sprintf("body %s: CPU at %v moving %v, %v; device at %v moving %v, %v", a.Bodies.Name[i],
				a.Bodies.Position[i], a.Bodies.Velocity[i], a.Bodies.AngularVelocity[i], b.Bodies.Position[i],
				b.Bodies.Velocity[i], b.Bodies.AngularVelocity[i])
		}
	}
	return ""
}

func TestEmulatedPGSMatchesCPU(t *testing.T) {
	for _, c := range []struct {
		scene      string
		cut, steps int
	}{
		{"stack", 0, 60},
		{"pyramid20", 0, 30},
		{"pendulum", 0, 60},
		{"chain", 0, 60},
		{"ragdoll", 0, 60},
		{"cradle", 0, 60},
		{"rain", 5 + 250, 60},
		{"rocks", 0, 60},
		{"bridge", 0, 60},
		{"door", 0, 60},
		{"arm", 0, 60},
		{"engine", 0, 60},
		{"car", 0, 60},
		{"bowling", 0, 60},
		{"incline", 0, 60},
	} {
		t.Run(c.scene, func(t *testing.T) { pgsParity(t, c.scene, c.cut, c.steps) })
	}
}
