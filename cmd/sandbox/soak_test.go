package main

import (
	"strings"
	"testing"

	"tumble/sim"
)

func TestSoakReportsMemoryTheSlowestStepAndNoBlowUp(t *testing.T) {
	code, out, errs := sandbox("soak", "-scene", "pendulum", "-steps", "700", "-sample", "100", "-workers", "1")
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
	for _, want := range []string{"pendulum (pgs): 3 bodies, 700 steps", "slowest", "(step ", "live heap", "resident", ": flat", "blow-up: none"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in %q", want, out)
		}
	}
	code, out, errs = sandbox("soak", "-scene", "pendulum", "-steps", "50", "-solver", "xpbd", "-row", "-workers", "1")
	if code != 0 || !strings.HasPrefix(out, "| pendulum | xpbd | 3 | 50 |") || !strings.HasSuffix(out, "| flat | none |\n") {
		t.Errorf("code %d, row %q, stderr %q", code, out, errs)
	}
}

func TestSoakStopsOnABlowUpNamingTheBody(t *testing.T) {
	old := stepWorld
	defer func() { stepWorld = old }()
	stepWorld = func(w *sim.World) error {
		if err := old(w); err != nil {
			return err
		}
		if w.StepCount == 7 {
			return &sim.BlowUpError{Body: "box2", Step: 7, What: "velocity"}
		}
		return nil
	}
	code, out, _ := sandbox("soak", "-scene", "stack", "-steps", "100", "-workers", "1")
	if code != 1 || !strings.Contains(out, "7 steps") || !strings.Contains(out, `blow-up: step 7: body "box2" blew up`) {
		t.Errorf("code %d, stdout %q", code, out)
	}
}

// A body that is finite but absurdly fast is a blow-up too: the pendulum swings faster than 0.5 m/s
// within its first 5 s, so that limit names a body.
func TestSoakNamesABodyOverTheSpeedLimit(t *testing.T) {
	code, out, _ := sandbox("soak", "-scene", "pendulum", "-steps", "300", "-max-speed", "0.5", "-workers", "1")
	if code != 1 || !strings.Contains(out, "over -max-speed") {
		t.Errorf("code %d, stdout %q", code, out)
	}
	if code, _, errs := sandbox("soak", "-scene", "pendulum", "-steps", "0"); code != exitUsage {
		t.Errorf("-steps 0: code %d, stderr %q", code, errs)
	}
}

func TestSoakGrowthIsTheEndOverTheWarmUpBeyondTheSlack(t *testing.T) {
	var m memSampler
	m.samples = []memFigures{{heap: 10 << 20, rss: 40 << 20}}
	m.early = m.samples[0]
	for _, c := range []struct {
		end  memFigures
		grew bool
	}{
		{memFigures{heap: 10 << 20, rss: 40 << 20}, false},
		{memFigures{heap: 12 << 20, rss: 40 << 20}, false}, // 10% + 1 MiB = 12 MiB: within
		{memFigures{heap: 13 << 20, rss: 40 << 20}, true},  // past it
		{memFigures{heap: 10 << 20, rss: 52 << 20}, false}, // 10% + 8 MiB = 52 MiB: within
		{memFigures{heap: 10 << 20, rss: 53 << 20}, true},  // past it
		{memFigures{heap: 5 << 20, rss: 30 << 20}, false},  // shrinking is no growth
	} {
		m.end = c.end
		if got := m.grew(); got != c.grew {
			t.Errorf("early %+v, end %+v: grew %v, want %v", m.early, c.end, got, c.grew)
		}
	}
}
