package command

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"tumble/sim"
)

// The panel's switch to the emulated backend with a static mesh loaded is refused with the World's
// reason, and the world stays as it was: on the CPU, sleeping on and not parked, every body as it was,
// those asleep still asleep (turning sleeping off and back on for the switch would wake them all). A
// preset with a mesh loaded while on the emulated backend comes up on the CPU, saying why.
func TestSwitchingToABackendThatDoesNotRunTheShapesLeavesTheWorldAsItWas(t *testing.T) {
	s := preset(t, "terrain")
	s.SetSleepByDefault(true)
	for k := 0; k < 1200 && !slices.Contains(bodyState(s).Asleep, true); k++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	before := bodyState(s)
	if !slices.Contains(before.Asleep, true) {
		t.Fatal("no body fell asleep in the bowl in 20 s")
	}
	s.Do(SwitchBackend(BackendEmulated))
	err := s.Apply()
	if err == nil || !strings.Contains(err.Error(), `body "terrain" is a mesh: the CUDA backend runs box, sphere, capsule, plane and hull shapes`) {
		t.Errorf("SwitchBackend with the terrain loaded: %v", err)
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
	s.Do(LoadPreset("terrain"))
	apply(t, s)
	if err = s.Err(); err == nil || !strings.Contains(err.Error(), `terrain loaded on the CPU: body "terrain" is a mesh`) {
		t.Errorf("loading the terrain on the emulated backend: %v", err)
	}
	var onCPU bool
	s.View(func(w *sim.World) { onCPU = w.Backend() == nil })
	if s.BackendKind() != BackendCPU || !onCPU || !sleeping(s) {
		t.Errorf("terrain loaded: on %s (world on the CPU %v), sleeping %v", s.BackendKind(), onCPU, sleeping(s))
	}
}
