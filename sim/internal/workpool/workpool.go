// Package workpool runs loop bodies over index ranges on persistent worker goroutines: the CPU
// pipeline's (and its broad phases') parallel for.
package workpool

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Pool runs a loop body over index ranges on persistent worker goroutines. The caller's goroutine is
// worker 0 and takes chunks too. Running a loop allocates nothing: the loop body is a func value the
// caller made once.
//
// Each worker owns a contiguous run of a loop's chunks, the same run in every loop of the same length:
// worker w takes its own chunks first, in order, so that a pass that repeats (a solver's colour over
// its iterations) finds its rows in the cache where it left them, and rows never move between cores
// while every worker keeps up. A worker that is done with its own run takes chunks from the far end of
// the others' (stealing), so uneven work still balances.
//
// A loop never waits for a worker that has not started yet: the caller publishes the loop and drains
// what it can, its own run and then any other; a helper that arrives while chunks are left joins in,
// and one that arrives after the caller has taken the last chunk finds the loop closed. The caller
// waits only for helpers that joined, each of which is running a chunk. On a machine whose cores are
// busy with other work a helper can take milliseconds to be scheduled; waiting for it made small
// loops slower on two workers than on one (issue 14).
//
// Between loops a helper spins for a while (Spin) watching for the next one before it goes to sleep
// on its doorbell: a solver step runs hundreds of loops a few microseconds apart, and waking a
// sleeping goroutine's thread costs about as much as one of them.
//
// A helper that joined a loop can still lose its core in the middle of a chunk (on a shared machine
// its virtual CPU is descheduled for milliseconds), and the caller must wait for that chunk. When the
// caller waits longer than StallWait and more than twice as long as its own share of the loop took,
// that was such a stall: the pool then runs every loop on the caller alone for a while (MinSolo, doubling up to
// MaxSolo while the stalls come back as soon as it hands loops out again), and hands them out again
// after it. Which worker runs a chunk changes no result, so this changes only the time.
type Pool struct {
	workers int
	handed  int             // loops handed to the helpers (Handed)
	stalls  int             // stalls seen (Stalls)
	solo    int64           // until this time (clock), every loop runs on the caller; 0: none
	soloEnd int64           // when the last solo period ended (clock)
	backoff int64           // the next solo period, ns
	bell    []chan struct{} // one doorbell per helper, buffered: ringing never blocks
	job     job
}

// StallWait is the least wait for a helper's chunk that counts as a stall (and more than twice the
// caller's own share of the loop): shorter hiccups, a few hundred microseconds each, cost less than
// the loops run alone would.
const StallWait = time.Millisecond

// MinSolo and MaxSolo bound how long the pool runs every loop on the caller after a helper stalled.
const (
	MinSolo = 10 * time.Millisecond
	MaxSolo = 640 * time.Millisecond
)

// epoch is the origin of clock.
var epoch = time.Now()

// clock returns the monotonic time in nanoseconds since the package started (about 30 ns).
func clock() int64 { return int64(time.Since(epoch)) }

// Spin is how long a helper watches for the next loop before it sleeps.
const Spin = 200 * time.Microsecond

// closed marks a job's epoch once the caller has taken its last chunk: no helper may join it.
const closed = 1 << 62

// slot is a cache line of its own.
type slot struct {
	v atomic.Uint64
	_ [56]byte
}

type job struct {
	// epoch numbers the loops; closed is or-ed in when the caller stops admitting helpers. fn, n,
	// chunks and own are written before the epoch is published and read by a helper only after it
	// joined it.
	epoch  atomic.Int64
	_      [56]byte
	active atomic.Int32 // helpers that joined the current loop and have not left it
	_      [60]byte
	own    []slot // per worker: the chunks it has not handed out, lo<<32 | hi
	sleep  []slot // per helper: 1 while it sleeps (or is about to) on its doorbell
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
	p.job.own = make([]slot, workers)
	p.job.sleep = make([]slot, workers)
	for w := 1; w < workers; w++ {
		ch := make(chan struct{}, 1)
		p.bell = append(p.bell, ch)
		go work(w, ch, &p.job)
	}
	return p
}

func work(worker int, bell chan struct{}, j *job) {
	var last int64 // the last loop this helper looked at
	asleep := &j.sleep[worker].v
	for {
		// Spin for the next loop.
		deadline := time.Now().Add(Spin)
		for spin := 0; ; spin++ {
			if e := j.epoch.Load(); e != last && e&closed == 0 {
				break
			}
			pause()
			if spin&255 == 255 {
				if time.Now().After(deadline) {
					break
				}
				if spin&4095 == 4095 {
					runtime.Gosched()
				}
			}
		}
		e := j.epoch.Load()
		if e == last || e&closed != 0 {
			// Sleep: announce it, then look once more (the caller publishes a loop, then looks for
			// sleepers to ring; one of the two sees the other).
			asleep.Store(1)
			if e = j.epoch.Load(); e == last || e&closed != 0 {
				if _, ok := <-bell; !ok {
					return
				}
			}
			asleep.Store(0)
			e = j.epoch.Load()
			if e == last || e&closed != 0 {
				continue
			}
		}
		last = e
		j.active.Add(1)
		if j.epoch.Load() == e { // still open: the caller now waits for this helper
			j.drain(worker)
		}
		j.active.Add(-1)
	}
}

// take hands out worker v's next chunk: its first when v itself asks (own), its last for a thief; -1
// when v has none left.
func (j *job) take(v int, own bool) int {
	s := &j.own[v].v
	for {
		old := s.Load()
		lo, hi := int(old>>32), int(uint32(old))
		if lo >= hi {
			return -1
		}
		k, next := lo, uint64(lo+1)<<32|uint64(hi)
		if !own {
			k, next = hi-1, uint64(lo)<<32|uint64(hi-1)
		}
		if s.CompareAndSwap(old, next) {
			return k
		}
	}
}

func (j *job) drain(worker int) {
	w := len(j.own)
	for v := range w {
		owner := (worker + v) % w
		for {
			k := j.take(owner, v == 0)
			if k < 0 {
				break
			}
			j.fn(worker, k*j.n/j.chunks, (k+1)*j.n/j.chunks)
		}
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
	if p.solo != 0 {
		if now := clock(); now < p.solo {
			fn(0, 0, n)
			return
		} else {
			p.solo, p.soloEnd = 0, now
		}
	}
	// About four chunks per worker balances load without much contention; the chunks are equal to
	// within an item, so each holds at least minChunk.
	chunks := min(4*p.workers, n/minChunk)
	p.handed++
	j := &p.job
	j.fn, j.n, j.chunks = fn, n, chunks
	for w := range p.workers {
		lo, hi := ownChunks(chunks, p.workers, w)
		j.own[w].v.Store(uint64(lo)<<32 | uint64(hi))
	}
	e := (j.epoch.Load() + 1) &^ closed
	j.epoch.Store(e) // publishes fn, n, chunks, own and opens the loop
	for w := 1; w < min(p.workers, chunks); w++ {
		if j.sleep[w].v.Load() == 0 {
			continue // spinning: it sees the epoch
		}
		select {
		case p.bell[w-1] <- struct{}{}:
		default: // a ring is pending already: the helper will look at the current loop when it wakes
		}
	}
	t0 := clock()
	j.drain(0)
	t1 := clock()
	j.epoch.Store(e | closed)
	// A helper that joined is finishing its chunk: wait for it spinning. Yielding costs a goroutine
	// locked to its thread (the window's, the benchmark's) a hand-off of its P to another thread and
	// back, tens of microseconds; it yields only after Spin, in case the helper needs this P to run
	// (more workers than GOMAXPROCS).
	var deadline time.Time
	long := false
	for spin := 1; j.active.Load() != 0; spin++ {
		pause()
		if spin&255 == 0 {
			if deadline.IsZero() {
				deadline = time.Now().Add(Spin)
			} else if time.Now().After(deadline) {
				long = true
				runtime.Gosched()
			}
		}
	}
	j.fn = nil
	if long {
		if t2 := clock(); t2-t1 > int64(StallWait) && t2-t1 > 2*(t1-t0) {
			p.stalled(t2)
		}
	}
}

// stalled starts a solo period at now: MinSolo, or twice the last one when the stall came soon after
// that one ended (the helpers' cores are still taken), at most MaxSolo.
func (p *Pool) stalled(now int64) {
	p.stalls++
	if p.soloEnd != 0 && now-p.soloEnd < 2*p.backoff {
		p.backoff = min(2*p.backoff, int64(MaxSolo))
	} else {
		p.backoff = int64(MinSolo)
	}
	p.solo = now + p.backoff
}

// ownChunks returns the chunks worker w of workers owns in a loop of chunks chunks.
func ownChunks(chunks, workers, w int) (lo, hi int) {
	if chunks < workers {
		return min(w, chunks), min(w+1, chunks)
	}
	return w * chunks / workers, (w + 1) * chunks / workers
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

// Handed returns how many loops Run has handed to the helpers since the pool started (the others ran on
// the caller alone). Like Run, it is for the caller's goroutine.
func (p *Pool) Handed() int {
	if p == nil {
		return 0
	}
	return p.handed
}

// Stalls returns how many times a helper that joined a loop kept the caller waiting past StallWait and
// past the caller's own share of the loop, each of which made the pool run its loops on the caller
// alone for a while. Like Run, it is for the caller's goroutine.
func (p *Pool) Stalls() int {
	if p == nil {
		return 0
	}
	return p.stalls
}

// Workers returns the number of workers, the caller included: the bound on the worker argument of
// the loop bodies.
func (p *Pool) Workers() int {
	if p == nil {
		return 1
	}
	return p.workers
}
