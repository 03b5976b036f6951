package sim

import "tumble/sim/internal/workpool"

// pool is the world's worker pool (see workpool.Pool); a nil pool runs every loop on the caller.
type pool struct{ p *workpool.Pool }

// newPool starts workers-1 goroutines (the caller is the last worker).
func newPool(workers int) *pool { return &pool{workpool.New(workers)} }

// run calls fn over [0, n) in chunks of at least minChunk items. Small loops run on the caller alone.
func (p *pool) run(n, minChunk int, fn func(worker, lo, hi int)) {
	if p == nil {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	p.p.Run(n, minChunk, fn)
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
