package sim_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
)

// poseBits is every body's position, rotation, velocity and angular velocity as float bits.
func poseBits(w *sim.World) []uint32 {
	b := &w.Bodies
	out := make([]uint32, 0, 13*b.Len())
	for i := range b.Position {
		for _, v := range [][]float32{b.Position[i][:], b.Velocity[i][:], b.AngularVelocity[i][:], b.Rotation[i].V[:], {b.Rotation[i].W}} {
			for _, x := range v {
				out = append(out, math.Float32bits(x))
			}
		}
	}
	return out
}

func presetWorld(t *testing.T, name string, workers int, edit func(*sim.Settings)) *sim.World {
	t.Helper()
	sc, ok := scenes.Preset(name)
	if !ok {
		t.Fatalf("no preset %s", name)
	}
	w, err := sc.World(scenes.Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		s := w.Settings()
		edit(&s)
		w.SetSettings(s)
	}
	t.Cleanup(w.Close)
	return w
}

func steps(t *testing.T, w *sim.World, n int) [][]uint32 {
	t.Helper()
	var out [][]uint32
	for range n {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
		out = append(out, poseBits(w))
	}
	return out
}

// TestStepAfterRestoreEqualsStepWithout saves a world mid-run (contacts warm, joints loaded, bodies
// asleep), steps on, then restores the state into a fresh world with another worker count (and
// through the binary form) and steps again: every body's state matches bit for bit at every step.
func TestStepAfterRestoreEqualsStepWithout(t *testing.T) {
	cases := []struct {
		preset string
		warm   int
		edit   func(*sim.Settings)
		// poke, when set, runs on the world right after the save and after each restore: it wakes a
		// sleeping stack by knocking its top box.
		poke func(*sim.World)
	}{
		{"pyramid", 40, nil, nil},
		{"ragdoll", 60, nil, nil},
		{"rocks", 40, nil, nil},     // convex hulls: their geometry is stored whole
		{"terrain", 60, nil, nil},   // a triangle mesh: its vertices and triangles are stored, the rest rebuilt
		{"furniture", 50, nil, nil}, // compounds: their children (and their materials) are stored whole
		{"chain", 45, nil, nil},
		{"pyramid", 20, func(s *sim.Settings) { s.Solver = sim.Jacobi }, nil},
		{"chain", 30, func(s *sim.Settings) { s.Solver = sim.XPBD }, nil},
		{"chain", 30, func(s *sim.Settings) { s.DirectJoints = true }, nil},
		{"pyramid20", 20, func(s *sim.Settings) { s.Solver = sim.Impulse }, nil},
		{"cradle", 20, func(s *sim.Settings) { s.Solver = sim.Penalty }, nil},
		{"stack", 150, func(s *sim.Settings) { s.Sleep = true }, func(w *sim.World) {
			top := w.HandleAt(w.Bodies.Len() - 1)
			if err := w.SetVelocity(top, sim.Vec3{2, 0, 0}, sim.Vec3{}); err != nil {
				panic(err)
			}
		}},
	}
	const n = 30 // steps compared after the save
	for _, c := range cases {
		t.Run(c.preset, func(t *testing.T) {
			if underRace && (c.preset == "pyramid" || c.preset == "ragdoll" || c.preset == "rocks") {
				t.Skip("ten times slower under -race; make test runs it without")
			}
			a := presetWorld(t, c.preset, 1, c.edit)
			steps(t, a, c.warm)
			var st sim.State
			if err := a.SaveState(&st); err != nil {
				t.Fatal(err)
			}
			if c.edit != nil && strings.Contains(t.Name(), "stack") {
				asleep := 0
				for _, s := range a.Bodies.Asleep {
					if s {
						asleep++
					}
				}
				if asleep == 0 {
					t.Fatalf("no body asleep after %d steps: the sleeping case tests nothing", c.warm)
				}
			}
			if c.edit == nil && c.preset == "pyramid" && a.Stats.Reused != a.Stats.Manifolds {
				t.Fatalf("%d of %d manifolds from the contact cache: the saved state should hold the cache of every one",
					a.Stats.Reused, a.Stats.Manifolds)
			}
			if c.poke != nil {
				c.poke(a)
			}
			want := steps(t, a, n)

			data, err := st.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var decoded sim.State
			if err := decoded.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			for name, s := range map[string]*sim.State{"in memory": &st, "decoded": &decoded} {
				b := presetWorld(t, "stack", 2, nil) // another scene and worker count: all of it is replaced
				if err := b.RestoreState(s); err != nil {
					t.Fatal(err)
				}
				if b.StepCount != c.warm {
					t.Fatalf("%s: restored StepCount %d, want %d", name, b.StepCount, c.warm)
				}
				if c.poke != nil {
					c.poke(b)
				}
				got := steps(t, b, n)
				for k := range want {
					if !slicesEqual(got[k], want[k]) {
						t.Fatalf("%s: step %d after the restore differs from the original run", name, c.warm+k+1)
					}
				}
			}
			// Rewinding the same world works too.
			if err := a.RestoreState(&st); err != nil {
				t.Fatal(err)
			}
			if c.poke != nil {
				c.poke(a)
			}
			got := steps(t, a, n)
			if !slicesEqual(got[n-1], want[n-1]) {
				t.Fatalf("rewound world differs after %d steps", n)
			}
		})
	}
}

func slicesEqual(a, b []uint32) bool {
	return len(a) == len(b) && bytes.Equal(u32bytes(a), u32bytes(b))
}

func u32bytes(a []uint32) []byte {
	out := make([]byte, 0, 4*len(a))
	for _, x := range a {
		out = binary.LittleEndian.AppendUint32(out, x)
	}
	return out
}

// TestDamagedStateIsRefused cuts and flips bytes of an encoded state: every damaged form is an error,
// none panics, and the target State is left unchanged.
func TestDamagedStateIsRefused(t *testing.T) {
	w := presetWorld(t, "pyramid", 1, nil)
	steps(t, w, 30)
	var st sim.State
	if err := w.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	data, _ := st.MarshalBinary()
	for _, cut := range []int{0, 7, 20, 40, len(data) / 2, len(data) - 1} {
		var s sim.State
		if err := s.UnmarshalBinary(data[:cut]); err == nil {
			t.Errorf("a state cut to %d of %d bytes was accepted", cut, len(data))
		} else if s.Len() != 0 {
			t.Errorf("a refused state was half loaded (%d bodies)", s.Len())
		}
	}
	long := append(append([]byte(nil), data...), 0)
	var s sim.State
	if err := s.UnmarshalBinary(long); err == nil || !strings.Contains(err.Error(), "after the end") {
		t.Errorf("a state with a trailing byte: %v", err)
	}
	bad := append([]byte(nil), data...)
	bad[9] ^= 0xff // the layout hash
	if err := s.UnmarshalBinary(bad); err == nil || !strings.Contains(err.Error(), "layout") {
		t.Errorf("a state with another layout: %v", err)
	}
}

// TestSaveStateRefusesABackend: a world stepped by a backend other than the CPU cannot be captured.
func TestSaveStateRefusesABackend(t *testing.T) {
	w := presetWorld(t, "stack", 1, nil)
	if err := w.SetBackend(fakeBackend{}); err != nil {
		t.Fatal(err)
	}
	var st sim.State
	err := w.SaveState(&st)
	if err == nil || !strings.Contains(err.Error(), "fake") || !strings.Contains(err.Error(), "CPU backend") {
		t.Fatalf("SaveState on a backend: %v", err)
	}
}

type fakeBackend struct{}

func (fakeBackend) Name() string                                                     { return "fake" }
func (fakeBackend) Capabilities() sim.Capabilities                                   { return sim.CPUCapabilities() }
func (fakeBackend) Step(w *sim.World, _ *sim.StepReport) error                       { return nil }
func (fakeBackend) Pull(w *sim.World) error                                          { return nil }
func (fakeBackend) Close()                                                           {}
func (fakeBackend) Contacts(w *sim.World, out []sim.ContactPoint) []sim.ContactPoint { return out }

// A state keeps a compound built about a declared centre of mass (scenes' centerOfMass: a rod whose
// 1 kg sits 0.8 m below its hinge, off its box's centre): restored into another world, its shapes sit
// as they did about that centre and it swings on bit for bit.
func TestStateKeepsADeclaredCentreOfMass(t *testing.T) {
	sc, err := scenes.Load("../examples/compound-center-of-mass.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := sc.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	steps(t, a, 20)
	var st sim.State
	if err := a.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	want := steps(t, a, 30)
	b := presetWorld(t, "stack", 2, nil)
	if err := b.RestoreState(&st); err != nil {
		t.Fatal(err)
	}
	h, _ := b.Find("weighted")
	i, _ := b.Index(h)
	if c := b.Bodies.Shape[i].Compound; c == nil || c.Centre != (sim.Vec3{0, -0.8, 0}) {
		t.Fatalf("restored compound %+v, want its centre at (0, -0.8, 0) in its shapes' frame", c)
	}
	got := steps(t, b, 30)
	for k := range want {
		if !slicesEqual(got[k], want[k]) {
			t.Fatalf("step %d after the restore differs from the original run", 21+k)
		}
	}
}
