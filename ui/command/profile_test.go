package command

import (
	"testing"
	"time"

	"tumble/sim"
)

// The profile's averages and maxima are those of the steps' own stage times (sim.Stats.Timings) over
// the latest window steps, a stage counted only where it ran; a new scene starts the profile again.
func TestProfileAveragesAndMaximaOverTheLatestSteps(t *testing.T) {
	s := preset(t, "pyramid")
	var steps []sim.Timings
	for range 40 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		s.View(func(w *sim.World) { steps = append(steps, w.Stats.Timings) })
	}
	for _, window := range []int{1, 10, 40, 500} {
		p := s.Profile(window)
		n := min(window, len(steps))
		if p.Steps != n {
			t.Fatalf("window %d: %d steps, want %d", window, p.Steps, n)
		}
		last := steps[len(steps)-n:]
		var total, totalMax time.Duration
		for _, st := range last {
			total += st.Total()
			totalMax = max(totalMax, st.Total())
		}
		if p.Total.Avg != total/time.Duration(n) || p.Total.Max != totalMax || p.Total.Last != steps[len(steps)-1].Total() {
			t.Errorf("window %d: step avg %v max %v last %v, want %v %v %v", window, p.Total.Avg, p.Total.Max,
				p.Total.Last, total/time.Duration(n), totalMax, steps[len(steps)-1].Total())
		}
		seen := map[sim.Stage]bool{}
		for _, row := range p.Stages {
			seen[row.Stage] = true
			var sum, mx time.Duration
			for _, st := range last {
				sum += st[row.Stage]
				mx = max(mx, st[row.Stage])
			}
			if row.Avg != sum/time.Duration(n) || row.Max != mx || row.Max < row.Avg {
				t.Errorf("window %d, %s: avg %v max %v, want %v %v", window, row.Stage, row.Avg, row.Max, sum/time.Duration(n), mx)
			}
		}
		for st := range sim.NumStages {
			ran := false
			for _, x := range last {
				ran = ran || x[st] > 0
			}
			if ran != seen[sim.Stage(st)] {
				t.Errorf("window %d: stage %s ran %v, in the profile %v", window, sim.Stage(st), ran, seen[sim.Stage(st)])
			}
		}
		if len(p.Stages) < 4 {
			t.Errorf("window %d: only %d stages ran", window, len(p.Stages))
		}
	}
	s.Do(Reset())
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	if p := s.Profile(100); p.Steps != 0 || len(p.Stages) != 0 {
		t.Errorf("after a reset the profile holds %d steps", p.Steps)
	}
}
