package command

import (
	"strings"
	"testing"

	"tumble/sim"
)

// On the emulated backend, which sleeps only under Jacobi, PGS with sleeping is refused when it is
// asked for (either order: the solver with sleeping on, sleeping with PGS on), with the backend's line,
// and the settings stay as they were; the panel's switch from the CPU with PGS and sleeping on turns
// sleeping off for the switch (parked) and back on at the return to the CPU.
func TestPGSWithSleepingIsRefusedWhereTheBackendDoesNotSleepUnderIt(t *testing.T) {
	const why = "puts bodies to sleep only under jacobi; turn sleeping off, pick jacobi, or use the CPU backend for pgs with sleeping"
	s := preset(t, "stack")
	s.Do(SetSettings(func(set *sim.Settings) { set.Solver, set.Sleep = sim.Jacobi, true }))
	s.Do(UseBackend(BackendEmulated))
	apply(t, s)
	settings := func() (set sim.Settings) { s.Peek(func(w *sim.World) { set = w.Settings() }); return }
	s.Do(SetSettings(func(set *sim.Settings) { set.Solver = sim.PGS }))
	if err := s.Apply(); err == nil || !strings.Contains(err.Error(), why) {
		t.Errorf("PGS with sleeping on: %v, want %q", err, why)
	}
	if set := settings(); set.Solver != sim.Jacobi || !set.Sleep {
		t.Errorf("after the refusal: solver %s, sleeping %v", set.Solver, set.Sleep)
	}
	s.Do(SetSettings(func(set *sim.Settings) { set.Solver, set.Sleep = sim.PGS, false }))
	apply(t, s)
	s.Do(SetSettings(func(set *sim.Settings) { set.Sleep = true }))
	if err := s.Apply(); err == nil || !strings.Contains(err.Error(), why) {
		t.Errorf("sleeping under PGS: %v, want %q", err, why)
	}
	if err := s.Step(); err != nil {
		t.Errorf("a step after the refusals: %v", err)
	}

	s = preset(t, "stack")
	s.SetSleepByDefault(true)
	s.Do(SetSettings(func(set *sim.Settings) { set.Solver = sim.PGS }))
	s.Do(SwitchBackend(BackendEmulated))
	apply(t, s)
	if set := settings(); s.BackendKind() != BackendEmulated || set.Sleep || !s.SleepParked() {
		t.Errorf("switched with PGS: on %s, sleeping %v, parked %v", s.BackendKind(), set.Sleep, s.SleepParked())
	}
	if err := s.Step(); err != nil {
		t.Errorf("a step on the emulated backend: %v", err)
	}
	s.Do(SwitchBackend(BackendCPU))
	apply(t, s)
	if set := settings(); !set.Sleep || s.SleepParked() {
		t.Errorf("back on the CPU: sleeping %v, parked %v", set.Sleep, s.SleepParked())
	}
}
