package command

import (
	"fmt"

	"tumble/sim"
	"tumble/sim/record"
)

// Divergence marks: the session's recording re-simulated from its first step under another solver
// or on another backend (record.Recorder.Drift), its comparison kept with the recording until the
// recording is rewritten, for the timeline to mark.

// ReSimulation says how ReSimulate runs.
type ReSimulation struct {
	// Solver is the solver the run uses; SolverDefault keeps the recorded settings.
	Solver sim.SolverKind
	// Backend is the backend kind the run steps on ("" or cpu: the CPU). A backend without sleeping
	// runs with sleeping off.
	Backend string
	// Tolerance is the position difference, m, past which a step is marked (0: the first step whose
	// bits differ).
	Tolerance float32
	// Progress and Stop are record.DriftOptions'.
	Progress func(done, total int)
	Stop     func() bool
}

// rewritten notes that the recording changed under any comparison made with it.
func (t *timeline) rewritten() { t.gen, t.drift = t.gen+1, nil }

// ReSimulate re-simulates a copy of the recording as rs says, without the session's lock, and keeps
// the comparison for the timeline (Timeline.Drift) unless the recording was rewritten meanwhile.
func (s *Session) ReSimulate(rs ReSimulation) (*record.DriftReport, error) {
	s.mu.Lock()
	t := &s.time
	if t.rec == nil || t.rec.Empty() {
		s.mu.Unlock()
		return nil, fmt.Errorf("nothing recorded: %v", t.recErr)
	}
	rec, gen, open := t.rec.Clone(), t.gen, s.backends.Open
	s.mu.Unlock()
	o := record.DriftOptions{Tolerance: rs.Tolerance, Progress: rs.Progress, Stop: rs.Stop}
	other := rs.Backend != "" && rs.Backend != BackendCPU
	if rs.Solver != sim.SolverDefault || other {
		o.Settings = func(set *sim.Settings) {
			if rs.Solver != sim.SolverDefault {
				set.Solver = rs.Solver
			}
			if other {
				set.Sleep = false
			}
		}
	}
	if other {
		if open == nil {
			return nil, fmt.Errorf("no backend but the CPU is offered here (asked for %q)", rs.Backend)
		}
		o.Backend = func() (sim.Backend, error) { return open(rs.Backend) }
	}
	rep, err := rec.Drift(o)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.time.gen == gen {
		s.time.drift = rep
	}
	s.mu.Unlock()
	return rep, nil
}
