package command

import (
	"path/filepath"
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
)

// sleeping reports whether the session's world has sleeping on.
func sleeping(s *Session) bool {
	on := false
	s.View(func(w *sim.World) { on = w.Settings().Sleep })
	return on
}

// apply runs the queued commands, failing the test on an error.
func apply(t *testing.T, s *Session) {
	t.Helper()
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
}

// The window's sleeping default: a scene that does not say solver.sleep loads with sleeping on, one
// that says false stays off, and a saved scene says which, so it loads back the same.
func TestTheWindowsScenesSleepUnlessTheySayNot(t *testing.T) {
	s := preset(t, "pyramid")
	if sleeping(s) {
		t.Fatal("a session sleeps before SetSleepByDefault (run and bench keep the scene's setting)")
	}
	s.SetSleepByDefault(true)
	if !sleeping(s) {
		t.Fatal("the pyramid, which does not say solver.sleep, does not sleep after SetSleepByDefault")
	}
	s.Steps(240) // 4 s: the pyramid settles and sleeps
	asleep := 0
	s.View(func(w *sim.World) { asleep = w.Stats.Asleep })
	if asleep < 300 {
		t.Errorf("%d of 385 boxes asleep after 4 s", asleep)
	}

	awake, _ := scenes.Preset("stack")
	off := false
	awake.Solver = &scenes.Solver{Sleep: &off}
	dir := t.TempDir()
	path := filepath.Join(dir, "awake.json")
	s.Do(LoadPreset("stack"))
	apply(t, s)
	if !sleeping(s) {
		t.Error("a preset loaded after SetSleepByDefault does not sleep")
	}
	w, err := New("awake", awake)
	if err != nil {
		t.Fatal(err)
	}
	w.SetSleepByDefault(true)
	if sleeping(w) {
		t.Error("a scene that says \"sleep\": false sleeps")
	}
	w.Do(SaveFile(path))
	apply(t, w)
	s.Do(LoadFile(path))
	apply(t, s)
	if sleeping(s) {
		t.Error("a scene saved with sleeping off loads back sleeping")
	}
	s.Do(SetSettings(func(set *sim.Settings) { set.Sleep = true }))
	s.Do(Snapshot())
	s.Do(SetSettings(func(set *sim.Settings) { set.Sleep = false }))
	s.Do(Restore())
	apply(t, s)
	if !sleeping(s) {
		t.Error("a snapshot taken sleeping restores awake")
	}
	s.Do(LoadPreset("pyramid"))
	s.Do(SetSettings(func(set *sim.Settings) { set.Sleep = false }))
	s.Do(RevertSettings())
	apply(t, s)
	if !sleeping(s) {
		t.Error("reverting the pyramid's settings leaves sleeping off")
	}
}

// allAsleep says whether every dynamic body of b sleeps.
func allAsleep(b sim.Bodies) bool {
	for i, t := range b.Type {
		if t == sim.Dynamic && !b.Asleep[i] {
			return false
		}
	}
	return len(b.Type) > 0
}

// wakeful is a backend that does not sleep: the backend it wraps, with sleeping struck from its
// capabilities.
type wakeful struct{ sim.Backend }

func (w wakeful) Capabilities() sim.Capabilities {
	c := w.Backend.Capabilities()
	c.Sleep = false
	return c
}

// wakefulBackends are testBackends with every backend but the CPU made wakeful.
var wakefulBackends = Backends{Kinds: testBackends.Kinds, Open: func(kind string) (sim.Backend, error) {
	b, err := testBackends.Open(kind)
	if b == nil || err != nil {
		return b, err
	}
	return wakeful{b}, nil
}}

// A backend that does not sleep: UseBackend (scripts) refuses a sleeping world, SwitchBackend (the
// panel) turns sleeping off for it and back on with the CPU backend, and a scene loaded meanwhile
// comes back sleeping too.
func TestSwitchingBackendTurnsSleepingOffAndBackOn(t *testing.T) {
	s := preset(t, "stack")
	s.SetBackends(wakefulBackends)
	s.SetSleepByDefault(true)
	s.Do(UseBackend(BackendEmulated))
	if err := s.Apply(); err == nil || !strings.Contains(err.Error(), "sleep") || s.BackendKind() != BackendCPU {
		t.Fatalf("UseBackend on a sleeping world: %v, on %s", err, s.BackendKind())
	}
	s.Do(SwitchBackend(BackendEmulated))
	apply(t, s)
	if s.BackendKind() != BackendEmulated || sleeping(s) || !s.SleepParked() {
		t.Fatalf("SwitchBackend: on %s, sleeping %v, parked %v", s.BackendKind(), sleeping(s), s.SleepParked())
	}
	s.Steps(3) // the wakeful backend steps (it would fail every step with sleeping on)
	s.Do(LoadPreset("pyramid20"))
	apply(t, s)
	if s.BackendKind() != BackendEmulated || sleeping(s) || !s.SleepParked() {
		t.Fatalf("a preset loaded on it: on %s, sleeping %v, parked %v", s.BackendKind(), sleeping(s), s.SleepParked())
	}
	s.Do(SwitchBackend(BackendCPU))
	apply(t, s)
	if s.BackendKind() != BackendCPU || !sleeping(s) || s.SleepParked() {
		t.Fatalf("back on the CPU: on %s, sleeping %v, parked %v", s.BackendKind(), sleeping(s), s.SleepParked())
	}
	// Sleeping the user turned off before the switch stays off after it.
	s.Do(SetSettings(func(set *sim.Settings) { set.Sleep = false }))
	s.Do(SwitchBackend(BackendEmulated))
	s.Do(SwitchBackend(BackendCPU))
	apply(t, s)
	if sleeping(s) || s.SleepParked() {
		t.Errorf("switched off, then to the emulated backend and back: sleeping %v, parked %v", sleeping(s), s.SleepParked())
	}
}

// The emulated CUDA backend sleeps: a sleeping world moves onto it by either command with sleeping
// left on, its sleeping bodies still asleep, and falls asleep there; back on the CPU they still sleep.
func TestTheEmulatedBackendSleeps(t *testing.T) {
	s := preset(t, "stack")
	s.SetSleepByDefault(true)
	for k := 0; k < 300 && !allAsleep(bodyState(s)); k++ {
		s.Steps(1)
	}
	if !allAsleep(bodyState(s)) {
		t.Fatal("the stack did not fall asleep on the CPU in 5 s")
	}
	s.Do(UseBackend(BackendEmulated))
	apply(t, s)
	if s.BackendKind() != BackendEmulated || !sleeping(s) || s.SleepParked() {
		t.Fatalf("UseBackend: on %s, sleeping %v, parked %v", s.BackendKind(), sleeping(s), s.SleepParked())
	}
	s.Steps(2)
	if st := bodyState(s); !allAsleep(st) {
		t.Errorf("on the emulated backend the stack woke: asleep %v", st.Asleep)
	}
	s.Do(SwitchBackend(BackendCPU))
	apply(t, s)
	s.Do(SetSettings(func(set *sim.Settings) { set.Gravity[1] = -5 })) // a change of settings wakes every body
	apply(t, s)
	s.Do(SwitchBackend(BackendEmulated))
	apply(t, s)
	if s.BackendKind() != BackendEmulated || !sleeping(s) || s.SleepParked() {
		t.Fatalf("SwitchBackend: on %s, sleeping %v, parked %v", s.BackendKind(), sleeping(s), s.SleepParked())
	}
	if allAsleep(bodyState(s)) {
		t.Fatal("a change of settings left the stack asleep")
	}
	for k := 0; k < 300 && !allAsleep(bodyState(s)); k++ {
		s.Steps(1)
	}
	if st := bodyState(s); !allAsleep(st) {
		t.Errorf("the woken stack did not fall asleep again on the emulated backend in 5 s: asleep %v", st.Asleep)
	}
}

// The window turns sleeping on after the session has loaded its scene and recorded its first step;
// the recording says so, so that the determinism check re-simulates with sleeping on. It did not: the
// window's Check determinism on the pile failed at the first step a box fell asleep (step 266), the
// re-simulation's box still moving.
func TestTurningSleepOnByDefaultIsRecorded(t *testing.T) {
	s := preset(t, "pyramid20")
	s.SetSleepByDefault(true)
	s.Steps(150) // 2.5 s: boxes fall asleep
	asleep := 0
	s.View(func(w *sim.World) { asleep = w.Stats.Asleep })
	if asleep == 0 {
		t.Fatal("no box asleep after 2.5 s: the test checks nothing")
	}
	if msg, err := s.CheckDeterminism(1); err != nil {
		t.Fatal(err)
	} else if !strings.Contains(msg, "identical") {
		t.Fatal(msg)
	}
}
