package record

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"tumble/sim"
)

// Divergence marks: the recording re-simulated from its first step, perhaps under other settings (a
// solver, a parameter) or on another backend, and compared with what was recorded step by step, so
// that a timeline can mark where the run leaves the recording. Each step is compared twice: bit for
// bit (the step's pose hash, which every recorded step keeps), and by the largest distance between a
// body's re-simulated and recorded position (the exact recorded positions where held, else the
// display poses, whose quantisation, up to sqrt(3)/4096 m, is taken off the distance).

// DriftOptions says how Drift re-simulates.
type DriftOptions struct {
	// Settings, when not nil, changes the settings the re-simulation runs with, after the first
	// keyframe is restored and after every edit's keyframe (which brings the recorded settings back).
	Settings func(*sim.Settings)
	// Backend, when not nil, makes the backend the re-simulation runs on (nil from it: the CPU). Drift
	// closes it.
	Backend func() (sim.Backend, error)
	// Tolerance is the position difference, m, past which a step diverges; 0 marks the first step
	// whose bits differ.
	Tolerance float32
	// Workers is the CPU worker count (0: one per CPU).
	Workers int
	// Progress, when not nil, is called after each step with the steps done and the total; Stop, when
	// not nil, is asked after each step, and a true ends the run with ErrDriftStopped.
	Progress func(done, total int)
	Stop     func() bool
}

// ErrDriftStopped is Drift's error when its Stop said so.
var ErrDriftStopped = errors.New("re-simulation stopped")

// DriftReport is how a re-simulation drifted from the recording.
type DriftReport struct {
	From, To int // the run started from step From's recorded state and was compared up to step To
	// Err[k] is step From+1+k's largest position difference, m, and Body[k] the body (dense index)
	// that has it.
	Err  []float32
	Body []int32
	// BitsFrom is the first step whose pose bits differ from the recording's (-1: none).
	BitsFrom int
	// Marks are the steps where the run diverges: the first step past the tolerance (the first whose
	// bits differ, with a zero tolerance), then the first past each tenfold of it; empty when none.
	Marks []int
	// Edits are the recorded edits in the range, where the run took the recording's state again.
	Edits []int
	// FirstBody names the body furthest off at the first mark ("" when none is marked).
	FirstBody string
}

// Diverged is the first marked step, or -1.
func (d *DriftReport) Diverged() int {
	if len(d.Marks) == 0 {
		return -1
	}
	return d.Marks[0]
}

// dispSlack is the most a display position is off the exact one: half a quantum on each axis.
var dispSlack = float32(math.Sqrt(3) / (2 * posScale))

// Drift re-simulates the whole recording from its first step as o says and compares every step with
// the recording. A step whose body count differs from the recording's ends the run with an error.
func (r *Recorder) Drift(o DriftOptions) (*DriftReport, error) {
	if r.Empty() {
		return nil, fmt.Errorf("re-simulation: nothing recorded")
	}
	rep := &DriftReport{From: r.First(), To: r.Last(), BitsFrom: -1}
	w := sim.NewWorld(sim.Settings{})
	defer w.Close()
	w.SetWorkers(o.Workers)
	if err := r.Seek(w, rep.From, nil); err != nil {
		return nil, err
	}
	settle := func() error {
		if o.Settings == nil {
			return nil
		}
		s := w.Settings()
		o.Settings(&s)
		if err := s.Check(); err != nil {
			return fmt.Errorf("re-simulation settings: %w", err)
		}
		w.SetSettings(s)
		return nil
	}
	if err := settle(); err != nil {
		return nil, err
	}
	if o.Backend != nil {
		b, err := o.Backend()
		if err != nil {
			return nil, err
		}
		if b != nil {
			if err := w.SetBackend(b); err != nil {
				b.Close()
				return nil, err
			}
			defer b.Close()
			defer w.SetBackend(nil)
		}
	}
	var st sim.State
	var bits []uint32
	next := o.Tolerance
	total := rep.To - rep.From
	for w.StepCount < rep.To {
		step := w.StepCount + 1
		if g := r.find(step); g != nil && g.step == step && g.edit != "" {
			// An edit cannot be re-simulated: take its recorded state, under the run's settings.
			if _, err := r.KeyState(step, &st); err != nil {
				return nil, err
			}
			if err := w.RestoreState(&st); err != nil {
				return nil, err
			}
			if err := settle(); err != nil {
				return nil, err
			}
			rep.Edits = append(rep.Edits, step)
		} else if err := w.Step(); err != nil {
			return nil, fmt.Errorf("re-simulating step %d: %w", step, err)
		}
		if w.Backend() != nil {
			if err := w.Sync(); err != nil {
				return nil, err
			}
		}
		g := r.find(step)
		rec, err := r.Frame(step)
		if err != nil {
			return nil, err
		}
		b := &w.Bodies
		if len(rec) != b.Len()*PoseWords {
			return nil, fmt.Errorf("step %d: %d bodies re-simulated, %d recorded", step, b.Len(), len(rec)/PoseWords)
		}
		bits = PoseBits(b, bits[:0])
		if rep.BitsFrom < 0 && PoseHash(bits) != g.hash[step-g.step] {
			rep.BitsFrom = step
			if o.Tolerance == 0 {
				rep.Marks = append(rep.Marks, step)
				for i := range b.Len() { // the first body whose bits differ, where the exact bits are held
					if g.hasExact() && !slices.Equal(bits[i*PoseWords:(i+1)*PoseWords], rec[i*PoseWords:(i+1)*PoseWords]) {
						rep.FirstBody = b.Name[i]
						break
					}
				}
			}
		}
		slack := float32(0)
		if !g.hasExact() {
			slack = dispSlack
		}
		worst, body := float32(0), int32(-1)
		for i := range b.Len() {
			p := rec[i*PoseWords:]
			d := b.Position[i].Sub(sim.Vec3{math.Float32frombits(p[0]), math.Float32frombits(p[1]), math.Float32frombits(p[2])}).Len()
			if math.IsNaN(float64(d)) {
				d = float32(math.Inf(1))
			}
			if d = max(d-slack, 0); d > worst {
				worst, body = d, int32(i)
			}
		}
		rep.Err, rep.Body = append(rep.Err, worst), append(rep.Body, body)
		if o.Tolerance > 0 && worst > next {
			if len(rep.Marks) == 0 {
				rep.FirstBody = b.Name[body]
			}
			rep.Marks = append(rep.Marks, step)
			for worst > next && !math.IsInf(float64(next), 1) {
				next *= 10
			}
		}
		if o.Progress != nil {
			o.Progress(step-rep.From, total)
		}
		if o.Stop != nil && o.Stop() {
			return nil, ErrDriftStopped
		}
	}
	return rep, nil
}
