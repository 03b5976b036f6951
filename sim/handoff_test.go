package sim_test

import (
	"testing"

	"tumble/scenes"
)

// Under coarse grains small scenes run every loop of their step on the calling goroutine at any worker
// count: on the 2-core machine each hand-off to a helper costs more than their loops' work. Fine
// grains hand them out, in the trials and where the trials found them faster (sim/grains.go). A large
// scene hands its loops out under coarse grains too, so that this test fails if Stats.Handed stops
// counting.
func TestSmallScenesHandNoLoopToTheWorkers(t *testing.T) {
	run := func(name string, workers, steps int) (most, fine int) {
		t.Helper()
		sc, ok := scenes.Preset(name)
		if !ok {
			t.Fatalf("no %s preset", name)
		}
		w, err := sc.World(scenes.Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for range steps {
			if err := w.Step(); err != nil {
				t.Fatal(err)
			}
			if w.Stats.FineGrains {
				fine = max(fine, w.Stats.Handed)
			} else {
				most = max(most, w.Stats.Handed)
			}
		}
		return most, fine
	}
	steps := 90
	if underRace {
		steps = 10
	}
	for _, name := range []string{"pyramid20", "pyramid", "ragdoll", "stack", "chain"} {
		n, fine := run(name, 16, steps)
		if n != 0 {
			t.Errorf("%s on 16 workers, coarse grains: up to %d loops a step went to the helpers; want every loop on the caller", name, n)
		}
		if fine == 0 && !underRace && (name == "pyramid" || name == "pyramid20") {
			t.Errorf("%s on 16 workers: no step of the grains' trial handed a loop to the helpers", name)
		}
	}
	if underRace {
		return // a 10,000-box step runs for seconds under -race
	}
	if n, _ := run("pile", 2, 2); n == 0 {
		t.Errorf("pile on 2 workers: no loop went to the helper")
	}
}
