// Package workpool runs loop bodies over index ranges on persistent worker goroutines: the CPU
// pipeline's (and its broad phases') parallel for.
package workpool

import (
	"sync"
	"sync/atomic"
)

// Pool runs a loop body over index ranges on persistent worker goroutines. The caller's goroutine is
// worker 0 and takes chunks too. Chunks are handed out by an atomic counter so uneven work balances.
// Running a loop allocates nothing: the loop body is a func value the caller made once.
type Pool struct {
	workers int
	wake    []chan *job
	done    *sync.WaitGroup // separate so the goroutines do not keep the pool alive
	job     job
}

type job struct {
	fn    func(worker, lo, hi int)
	n     int
	chunk int
	next  atomic.Int64
}

// New starts workers-1 goroutines (the caller is the last worker).
func New(workers int) *Pool {
	if workers < 1 {
		workers = 1
	}
	p := &Pool{workers: workers, done: new(sync.WaitGroup)}
	for w := 1; w < workers; w++ {
		ch := make(chan *job)
		p.wake = append(p.wake, ch)
		go work(w, ch, p.done)
	}
	return p
}

func work(worker int, ch chan *job, done *sync.WaitGroup) {
	for j := range ch {
		j.drain(worker)
		done.Done()
	}
}

func (j *job) drain(worker int) {
	for {
		lo := int(j.next.Add(int64(j.chunk))) - j.chunk
		if lo >= j.n {
			return
		}
		j.fn(worker, lo, min(lo+j.chunk, j.n))
	}
}

// Run calls fn over [0, n) in chunks of at least minChunk items. Small loops run on the caller alone.
func (p *Pool) Run(n, minChunk int, fn func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	if p == nil || p.workers == 1 || n <= minChunk {
		fn(0, 0, n)
		return
	}
	// About four chunks per worker balances load without much contention.
	chunk := max(minChunk, (n+4*p.workers-1)/(4*p.workers))
	helpers := min(p.workers-1, (n+chunk-1)/chunk-1)
	j := &p.job
	j.fn, j.n, j.chunk = fn, n, chunk
	j.next.Store(0)
	p.done.Add(helpers)
	for w := 0; w < helpers; w++ {
		p.wake[w] <- j
	}
	j.drain(0)
	p.done.Wait()
	j.fn = nil
}

// Close stops the worker goroutines; calling it again does nothing.
func (p *Pool) Close() {
	if p == nil {
		return
	}
	for _, ch := range p.wake {
		close(ch)
	}
	p.wake = nil
}

// Workers returns the number of workers, the caller included: the bound on the worker argument of
// the loop bodies.
func (p *Pool) Workers() int {
	if p == nil {
		return 1
	}
	return p.workers
}
