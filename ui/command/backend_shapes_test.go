package command

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"tumble/sim"
)

// The panel's switch to the emulated backend with a compound body loaded is refused with the World's
// reason, and the world stays as it was: on the CPU, sleeping on and not parked, every body as it was,
// those asleep still asleep (turning sleeping off and back on for the switch would wake them all). A
// preset with a compound loaded while on the emulated backend comes up on the CPU, saying why.
func TestSwitchingToABackendThatDoesNotRunTheShapesLeavesTheWorldAsItWas(t *testing.T) {
	s := preset(t, "furniture")
	s.SetSleepByDefault(true)
	for k := 0; k < 1200 && !slices.Contains(bodyState(s).Asleep, true); k++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	before := bodyState(s)
	if !slices.Contains(before.Asleep, true) {
		t.Fatal("no body fell asleep in 20 s")
	}
	s.Do(SwitchBackend(BackendEmulated))
	err := s.Apply()
	if err == nil || !strings.Contains(err.Error(), `body "table0" is a compound: the CUDA backend runs box, sphere, capsule, plane, hull and mesh shapes`) {
		t.Errorf("SwitchBackend with the furniture loaded: %v", err)
	}
	if s.BackendKind() != BackendCPU || !sleeping(s) || s.SleepParked() {
		t.Errorf("after the refusal: on %s, sleeping %v, parked %v", s.BackendKind(), sleeping(s), s.SleepParked())
	}
	if after := bodyState(s); !reflect.DeepEqual(after, before) {
		t.Errorf("the refusal changed the bodies: asleep %v, was %v", after.Asleep, before.Asleep)
	}

	s = preset(t, "stack")
	s.SetSleepByDefault(true)
	s.Do(SwitchBackend(BackendEmulated))
	apply(t, s)
	s.Do(LoadPreset("furniture"))
	apply(t, s)
	if err = s.Err(); err == nil || !strings.Contains(err.Error(), `furniture loaded on the CPU: body "table0" is a compound`) {
		t.Errorf("loading the furniture on the emulated backend: %v", err)
	}
	var onCPU bool
	s.View(func(w *sim.World) { onCPU = w.Backend() == nil })
	if s.BackendKind() != BackendCPU || !onCPU || !sleeping(s) {
		t.Errorf("furniture loaded: on %s (world on the CPU %v), sleeping %v", s.BackendKind(), onCPU, sleeping(s))
	}
}
