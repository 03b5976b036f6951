package sim_test

import (
	"testing"

	"tumble/scenes"
)

// Small scenes run every loop of their step on the calling goroutine at any worker count, so more
// workers cannot make them slower (issue 14): each hand-off to a helper costs more than their loops'
// work. A large one does hand its loops out, so that this test fails if Stats.Handed stops counting.
func TestSmallScenesHandNoLoopToTheWorkers(t *testing.T) {
	run := func(name string, workers, steps int) (most int) {
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
			most = max(most, w.Stats.Handed)
		}
		return most
	}
	steps := 90
	if underRace {
		steps = 10
	}
	for _, name := range []string{"pyramid20", "pyramid", "ragdoll", "stack", "chain"} {
		if n := run(name, 16, steps); n != 0 {
			t.Errorf("%s on 16 workers: up to %d loops a step went to the helpers; want every loop on the caller", name, n)
		}
	}
	if underRace {
		return // a 10,000-box step runs for seconds under -race
	}
	if n := run("pile", 2, 2); n == 0 {
		t.Errorf("pile on 2 workers: no loop went to the helper")
	}
}
