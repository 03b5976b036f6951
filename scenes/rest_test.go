package scenes

import (
	"testing"

	"tumble/sim"
)

// A pile of 4 ragdolls (the preset's first 4 layers: limbs on limbs, at their limits, pressed by
// contacts) comes to rest by the bar set for a pile: after 60 s no body's centre moves faster
// than sim.RestSpeed (1 cm/s) with sleeping off, and with sleeping on every body is asleep within 30 s.
// Measured (PGS): 2.2 mm/s at 60 s; all asleep from 2.1 s. The full 20-ragdoll pile does not meet the
// bar: arms and heads left hanging off its edges swing as pendulums on their frictionless joints
// (docs/REST.md).
func TestRagdollPileComesToRest(t *testing.T) {
	for _, sleep := range []bool{false, true} {
		s := ragdollPile("ragdolls", 4)
		if sleep {
			s.Solver = &Solver{Sleep: boolp(true)}
		}
		w, err := s.World(Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		seconds := 60.0
		if sleep {
			seconds = 30
		}
		steps := int(seconds/s.TimeStep() + 0.5)
		asleepAt := -1
		for i := 1; i <= steps; i++ {
			if err := w.Step(); err != nil {
				t.Fatalf("sleep %v: step %d: %v", sleep, i, err)
			}
			if sleep && asleepAt < 0 && w.Bodies.Motion(sim.RestSpeed).Awake == 0 {
				asleepAt = i
			}
		}
		m := w.Bodies.Motion(sim.RestSpeed)
		if sleep {
			if asleepAt < 0 || m.Awake > 0 {
				t.Errorf("sleeping on: %d of %d bodies awake after %g s (all asleep at step %d), want none", m.Awake, m.Dynamic, seconds, asleepAt)
			} else {
				t.Logf("sleeping on: all asleep from %.3g s", float64(asleepAt)*s.TimeStep())
			}
		} else if m.Moving > 0 {
			t.Errorf("sleeping off: after %g s %d of %d bodies move faster than %g m/s, the fastest %s at %.4f m/s",
				seconds, m.Moving, m.Dynamic, sim.RestSpeed, w.Bodies.Name[m.Fastest], m.Speed)
		} else {
			t.Logf("sleeping off: largest speed after %g s %.4f m/s", seconds, m.Speed)
		}
		w.Close()
	}
}
