package command

import (
	"time"

	"tumble/sim"
)

// MaxProfileSteps is how many of the latest steps' stage times the session keeps (Profile's widest
// window).
const MaxProfileSteps = 1000

// profile is a ring of the latest steps' stage times (sim.Stats.Timings), one entry per step taken.
type profile struct {
	ring [MaxProfileSteps]sim.Timings
	n    int // steps recorded so far (the newest is ring[(n-1) % MaxProfileSteps])
}

func (p *profile) add(t *sim.Timings) {
	p.ring[p.n%MaxProfileSteps] = *t
	p.n++
}

// StageProfile is one stage's time over a window of steps.
type StageProfile struct {
	Stage      sim.Stage
	Last       time.Duration // the newest step's
	Avg, Max   time.Duration
	StepsRun   int     // how many of the window's steps ran the stage (a solver's plan runs some stages)
	Proportion float64 // of the window's total step time
}

// Profile is the stage times over the latest Steps steps: a row for each stage that ran in any of
// them, in the step's order, and the whole step (Total).
type Profile struct {
	Steps  int
	Stages []StageProfile
	Total  StageProfile // the whole step; its Stage is meaningless
}

// Profile returns the average and maximum time of each stage over the latest window steps (fewer if
// fewer were taken since the scene was loaded). The average is over all the window's steps, so that
// the stages' averages add up to the step's.
func (s *Session) Profile(window int) Profile {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := &s.prof
	n := min(window, p.n, MaxProfileSteps)
	out := Profile{Steps: n}
	if n <= 0 {
		return out
	}
	var sum, mx [sim.NumStages]time.Duration
	var ran [sim.NumStages]int
	var total, totalMax time.Duration
	for k := p.n - n; k < p.n; k++ {
		t := &p.ring[k%MaxProfileSteps]
		for st, d := range t {
			sum[st] += d
			mx[st] = max(mx[st], d)
			if d > 0 {
				ran[st]++
			}
		}
		tt := t.Total()
		total += tt
		totalMax = max(totalMax, tt)
	}
	newest := &p.ring[(p.n-1)%MaxProfileSteps]
	for st := range sim.NumStages {
		if ran[st] == 0 {
			continue
		}
		row := StageProfile{Stage: sim.Stage(st), Last: newest[st], Avg: sum[st] / time.Duration(n), Max: mx[st], StepsRun: ran[st]}
		if total > 0 {
			row.Proportion = float64(sum[st]) / float64(total)
		}
		out.Stages = append(out.Stages, row)
	}
	out.Total = StageProfile{Last: newest.Total(), Avg: total / time.Duration(n), Max: totalMax, StepsRun: n, Proportion: 1}
	return out
}
