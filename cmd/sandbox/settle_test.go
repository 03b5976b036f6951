package main

import (
	"strings"
	"testing"
)

// run -settle steps the scene for the seconds given and prints the check of rest: a standing stack has
// no body above 1 cm/s, a swinging pendulum both, and a box dropped with sleeping on falls asleep
// after resting for the sleep time (0.5 s), on the CPU and on the emulated device.
func TestRunSettlePrintsTheCheckOfRest(t *testing.T) {
	code, out, errs := sandbox("run", "-scene", "stack", "-settle", "2", "-workers", "1")
	if code != 0 || !strings.Contains(out, "stack: 21 bodies, 120 steps") ||
		!strings.Contains(out, "settle: stack after 2 s (120 steps): largest speed ") ||
		!strings.Contains(out, ", 0 of 20 bodies above 0.01 m/s, largest angular speed ") || strings.Contains(out, "sleeping") {
		t.Errorf("stack: code %d, %q %q", code, out, errs)
	}
	code, out, errs = sandbox("run", "-scene", "pendulum", "-settle", "1")
	if code != 0 || !strings.Contains(out, "settle: pendulum after 1 s (60 steps)") || !strings.Contains(out, "2 of 2 bodies above 0.01 m/s") {
		t.Errorf("pendulum: code %d, %q %q", code, out, errs)
	}
	box := writeFile(t, "rest.json", `{"name": "rest", "solver": {"sleep": true},
 "bodies": [{"name": "floor", "type": "static", "shape": {"type": "plane", "normal": [0, 1, 0], "offset": 0}},
  {"name": "cube", "shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "position": [0, 0.6, 0]}]}`)
	code, out, errs = sandbox("run", "-scene", box, "-settle", "2")
	if code != 0 || !strings.Contains(out, "0 of 1 bodies above 0.01 m/s") || !strings.Contains(out, "; sleeping: 0 of 1 bodies awake, all asleep from 0.6") {
		t.Errorf("sleeping: code %d, %q %q", code, out, errs)
	}
	// The emulated device sleeps the box as the CPU's Jacobi step does, at the same step: the check
	// reads the step's count of sleeping bodies, not the host's copy of the bodies.
	for _, backend := range []string{"cpu", "emu"} {
		code, out, errs = sandbox("run", "-scene", box, "-settle", "2", "-solver", "jacobi", "-backend", backend)
		if code != 0 || !strings.Contains(out, "; sleeping: 0 of 1 bodies awake, all asleep from 0.") {
			t.Errorf("sleeping, jacobi on %s: code %d, %q %q", backend, code, out, errs)
		}
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"run", "-scene", "stack", "-settle", "1", "-steps", "3"}, "give it or -steps N, not both"},
		{[]string{"run", "-scene", "stack", "-settle", "-1"}, "-settle must be in (0, 1e6] seconds, got -1"},
	} {
		if code, _, errs := sandbox(c.args...); code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: code %d, stderr %q", c.args, code, errs)
		}
	}
}
