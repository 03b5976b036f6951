// Package workpool runs loop bodies over index ranges on persistent worker goroutines: the CPU
// pipeline's (and its broad phases') parallel for.
package workpool

import (
	"runtime"
	"sync/atomic"
)

// Pool runs a loop body over index ranges on persistent worker goroutines. The caller's goroutine is
// worker 0 and takes chunks too. Chunks are handed out by an atomic counter so uneven work balances.
// Running a loop allocates nothing: the loop body is a func value the caller made once.
//
// A loop never waits for a worker that has not started yet: the caller rings each helper's doorbell
// and drains the chunks itself; a helper that wakes while chunks are left joins in, and one that wakes
// after the caller has taken the last chunk finds the loop closed and goes back to sleep. The caller
// waits only for helpers that joined, each of which is running a chunk. On a machine whose cores are
// busy with other work a helper can take milliseconds to be scheduled; waiting for it made small
// loops slower on two workers than on one (issue 14).
type Pool struct {
	workers int
	bell    []chan struct{} // one doorbell per helper, buffered: ringing never blocks
	job     job
}

// closed marks a job's epoch once the caller has taken its last chunk: no helper may join it.
const closed = 1 << 62

type job struct {
	// epoch numbers the loops; closed is or-ed in when the caller stops admitting helpers. fn, n and
	// chunks are written before the epoch is published and read by a helper only after it joined it.
	epoch  atomic.Int64
	active atomic.Int32 // helpers that joined the current loop and have not left it
	next   atomic.Int64 // the next unclaimed chunk
	fn     func(worker, lo, hi int)
	n      int
	chunks int // chunk k is [k*n/chunks, (k+1)*n/chunks)
}

// New starts workers-1 goroutines (the caller is the last worker).
func New(workers int) *Pool {
	if workers < 1 {
		workers = 1
	}
	p := &Pool{workers: workers}
	p.job.epoch.Store(closed)
	for w := 1; w < workers; w++ {
		ch := make(chan struct{}, 1)
		p.bell = append(p.bell, ch)
		go work(w, ch, &p.job)
	}
	return p
}

func work(worker int, bell chan struct{}, j *job) {
	for range bell {
		e := j.epoch.Load()
		if e&closed != 0 {
			continue // the loop was over before this helper woke
		}
		j.active.Add(1)
		if j.epoch.Load() == e { // still open: the caller now waits for this helper
			j.drain(worker)
		}
		j.active.Add(-1)
	}
}

func (j *job) drain(worker int) {
	for {
		k := int(j.next.Add(1)) - 1
		if k >= j.chunks {
			return
		}
		j.fn(worker, k*j.n/j.chunks, (k+1)*j.n/j.chunks)
	}
}

// Run calls fn over [0, n) in chunks of at least minChunk items. A loop too short to give two workers
// minChunk items each runs on the caller alone: minChunk is the number of items whose work pays for
// handing them to another worker, so a loop that would leave the helper less than that (or split
// unevenly into one full chunk and a short remainder) is faster without the hand-off.
func (p *Pool) Run(n, minChunk int, fn func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	minChunk = max(minChunk, 1)
	if p == nil || p.workers == 1 || n < 2*minChunk {
		fn(0, 0, n)
		return
	}
	// About four chunks per worker balances load without much contention; the chunks are equal to
	// within an item, so each holds at least minChunk.
	chunks := min(4*p.workers, n/minChunk)
	helpers := min(p.workers-1, chunks-1)
	j := &p.job
	j.fn, j.n, j.chunks = fn, n, chunks
	j.next.Store(0)
	e := (j.epoch.Load() + 1) &^ closed
	j.epoch.Store(e) // publishes fn, n, chunk and opens the loop
	for w := 0; w < helpers; w++ {
		select {
		case p.bell[w] <- struct{}{}:
		default: // a ring is pending already: the helper will look at the current loop when it wakes
		}
	}
	j.drain(0)
	j.epoch.Store(e | closed)
	for j.active.Load() != 0 {
		runtime.Gosched() // a helper that joined is finishing its chunk
	}
	j.fn = nil
}

// Close stops the worker goroutines; calling it again does nothing.
func (p *Pool) Close() {
	if p == nil {
		return
	}
	for _, ch := range p.bell {
		close(ch)
	}
	p.bell = nil
}

// Workers returns the number of workers, the caller included: the bound on the worker argument of
// the loop bodies.
func (p *Pool) Workers() int {
	if p == nil {
		return 1
	}
	return p.workers
}
