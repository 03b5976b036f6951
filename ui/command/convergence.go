package command

import "tumble/sim"

// TraceConvergence turns the solver's per-pass residual trace on or off for the steps to come, on
// whichever world the session holds (sim.World.TraceConvergence): the panel's convergence plot turns
// it on while it is open, so a closed plot costs the steps nothing. It is not an edit: the timeline
// records nothing for it.
func (s *Session) TraceConvergence(on bool) {
	s.mu.Lock()
	s.traceConv = on
	s.world.TraceConvergence(on)
	s.mu.Unlock()
}

// Convergence copies the last traced step's residuals into c and reports whether there is one.
func (s *Session) Convergence(c *sim.Convergence) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.world.LastConvergence(c)
}
