package sim

import (
	"time"

	"tumble/sim/internal/workpool"
)

// pool is the world's worker pool (see workpool.Pool) and its choice of grains (grains.go); a nil pool
// runs every loop on the caller.
type pool struct {
	p    *workpool.Pool
	tune grainTuner
}

// newPool starts workers-1 goroutines (the caller is the last worker).
func newPool(workers int) *pool { return &pool{p: workpool.New(workers), tune: newGrainTuner()} }

// run calls fn over [0, n) in chunks of at least minChunk items (fineDiv times fewer under fine
// grains). Small loops run on the caller alone.
func (p *pool) run(n, minChunk int, fn func(worker, lo, hi int)) {
	if p == nil {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	if p.tune.fine {
		minChunk = max(1, minChunk/fineDiv)
	}
	p.p.Run(n, minChunk, fn)
}

// runPhases calls fn for every chunk of every phase, phase by phase (workpool.Pool.RunPhases).
func (p *pool) runPhases(sizes []int32, fn func(worker, phase, chunk int)) {
	var wp *workpool.Pool // nil: RunPhases runs every phase on the caller
	if p != nil {
		wp = p.p
	}
	wp.RunPhases(sizes, fn)
}

// isFine reports whether the step runs with fine grains.
func (p *pool) isFine() bool { return p != nil && p.tune.fine }

// stepTook tells the grain tuner how long a step of a world of bodies awake bodies took, and whether
// a helper stalled in it (more than one worker only).
func (p *pool) stepTook(d time.Duration, bodies int, stalled bool) {
	if p != nil && p.p.Workers() > 1 {
		p.tune.observe(d, bodies, stalled)
	}
}

// handed is the number of loops handed to the helpers so far (workpool.Pool.Handed).
func (p *pool) handed() int {
	if p == nil {
		return 0
	}
	return p.p.Handed()
}

// stalls is the number of stalls seen so far (workpool.Pool.Stalls).
func (p *pool) stalls() int {
	if p == nil {
		return 0
	}
	return p.p.Stalls()
}

// close stops the worker goroutines; calling it again does nothing.
func (p *pool) close() {
	if p != nil {
		p.p.Close()
	}
}
