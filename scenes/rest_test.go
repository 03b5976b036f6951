package scenes

import (
	"testing"

	"tumble/sim"
)

// A ragdoll pile, its joints with friction (ragdollFriction), comes to rest by the bar set for a
// pile: with sleeping off, the preset's first 10 layers (limbs on limbs and arms hanging over the
// pile's edge) end 60 s with no body's centre faster than sim.RestSpeed (1 cm/s); with sleeping on,
// the whole preset (20 ragdolls) is asleep within 30 s. Without the joints' friction the 10 layers
// end 60 s with 7 bodies above 1 cm/s (0.18 m/s), arms swinging as pendulums (docs/REST.md); the
// whole preset, sleeping off, also rests (measured 0.0000 m/s, make settle) but takes four times
// the test's time.
func TestRagdollPileComesToRest(t *testing.T) {
	for _, sleep := range []bool{false, true} {
		s := ragdollPile("ragdolls", 10)
		if sleep {
			s = ragdoll()
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
