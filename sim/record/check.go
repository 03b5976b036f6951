package record

import (
	"fmt"

	"tumble/sim"
)

// CheckOptions says what Check re-simulates and how.
type CheckOptions struct {
	// From and To bound the steps compared (From is restored or reached by re-simulation, the steps
	// after it up to To are compared); zero values mean the recording's first and last steps.
	From, To int
	// Workers is the CPU worker count of the re-simulation (0: one per CPU).
	Workers int
	// Plant, when not nil, runs on the re-simulated world before each step: tests plant a difference
	// with it to see that Check catches it.
	Plant func(w *sim.World)
	// Progress, when not nil, is called after each step with the steps done and the total.
	Progress func(done, total int)
}

// Check re-simulates the recorded range from its start on a fresh world and compares every step's
// bodies, bit for bit, with the recording (its exact poses where held, else its per-step hashes). It returns a *Divergence naming the first step, body and
// quantity that differ, or nil. An edit recorded inside the range (a keyframe an edit started) is
// taken from the recording: the re-simulation restores that keyframe and goes on from there.
func (r *Recorder) Check(o CheckOptions) error {
	if r.Empty() {
		return fmt.Errorf("determinism check: nothing recorded")
	}
	if o.From == 0 && o.To == 0 {
		o.From, o.To = r.First(), r.Last()
	}
	if o.From < r.First() || o.To > r.Last() || o.From > o.To {
		return fmt.Errorf("determinism check: steps %d to %d: %w (recorded: %d to %d)", o.From, o.To, ErrNotRecorded, r.First(), r.Last())
	}
	w := sim.NewWorld(sim.Settings{})
	defer w.Close()
	w.SetWorkers(o.Workers)
	if err := r.Seek(w, o.From, nil); err != nil {
		return err
	}
	var st sim.State
	total := o.To - o.From
	for w.StepCount < o.To {
		next := w.StepCount + 1
		if g := r.find(next); g != nil && g.step == next && g.edit != "" {
			// The recording's step next is the state after an edit: take it as recorded.
			if _, err := r.KeyState(next, &st); err != nil {
				return err
			}
			if err := w.RestoreState(&st); err != nil {
				return err
			}
		} else {
			if o.Plant != nil {
				o.Plant(w)
			}
			if err := w.Step(); err != nil {
				return fmt.Errorf("determinism check: re-simulating step %d: %w", next, err)
			}
		}
		if err := r.verify(w); err != nil {
			return err
		}
		if o.Progress != nil {
			o.Progress(w.StepCount-o.From, total)
		}
	}
	return nil
}
