package sim

// pipeline holds the step's scratch state. (Temporary: being written.)
type pipeline struct{ workers int }

func (p *pipeline) setWorkers(n int) { p.workers = n }
func (p *pipeline) invalidate()      {}

// Step advances the world by one time step. It returns a *BlowUpError if a body's state became
// non-finite or ran away.
func (w *World) Step() error {
	w.StepCount++
	w.Time = float64(w.StepCount) * float64(w.settings.Dt)
	return nil
}
