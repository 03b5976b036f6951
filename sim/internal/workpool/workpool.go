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
// A loop of few chunks goes to as many workers as it has chunks, the caller and the first helpers:
// the others do not join it, so that on a machine of many cores a small loop costs the cache lines of
// the workers it uses, not of every one (its chunks' ranges, the helpers' arrival and departure).
//
// A loop never waits for a worker that has not started yet: the caller publishes the loop and drains
// what it can, its own run and then any other; a helper that arrives while chunks are left joins in,
// and one that arrives after the caller has taken the last chunk finds the loop closed. The caller
// waits only for helpers that joined, each of which is running a chunk. On a machine whose cores are
// busy with other work a helper can take milliseconds to be scheduled, and waiting for it would make
// small loops slower on two workers than on one.
//
// Between loops a helper spins for a while (Spin) watching for the next one before it goes to sleep
// on its doorbell: a solver step runs hundreds of loops a few microseconds apart, and waking a
// sleeping goroutine's thread costs about as much as one of them.
//
// A helper that joined a loop can still lose its core in the middle of a chunk (on a shared machine
// its virtual CPU is descheduled for milliseconds), and the caller must wait for that chunk. When the
// caller has waited longer than StallWait and more than twice as long as its own share of the loop
// took, that was such a stall: the helpers still in the loop then sit out the loops for a while
// (MinSolo, doubling up to MaxSolo while a helper stalls again as soon as it is back), and the
// others, and the caller, take their chunks. With every helper out, a loop runs on the caller alone.
// Which worker runs a chunk changes no result, so this changes only the time.
type Pool struct {
	workers int
	handed  int             // loops handed to the helpers (Handed)
	stalls  int             // stalls seen (Stalls)
	out     []int64         // per helper: until this time (clock) it sits out the loops; 0: it is in
	outEnd  []int64         // per helper: when it last came back (clock)
	backoff []int64         // per helper: its last time out, ns
	nout    int             // helpers sitting out
	bell    []chan struct{} // one doorbell per helper, buffered: ringing never blocks
	job     job
}

// StallWait is the least wait for a helper's chunk that counts as a stall (and more than twice the
// caller's own share of the loop): shorter hiccups, a few hundred microseconds each, cost less than
// the helper's share of the loops would.
const StallWait = time.Millisecond

// MinSolo and MaxSolo bound how long a helper that stalled sits out the loops.
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

// partBits: a job's epoch is its loop's number << partBits | the number of workers that take part in
// it (Run), so that a helper learns whether to join from the one word it watches.
const partBits = 16

// parts returns the number of workers that take part in epoch e's loop: workers 0 to parts-1.
func parts(e int64) int { return int(e & (1<<partBits - 1)) }

// slot is a cache line of its own.
type slot struct {
	v atomic.Uint64
	_ [56]byte
}

type job struct {
	// epoch numbers the loops and says how many workers take part (parts); closed is or-ed in when
	// the caller stops admitting helpers. fn, n, chunks, k and own are written before the epoch is
	// published and read by a helper only after it joined it.
	epoch  atomic.Int64
	_      [56]byte
	own    []slot // per worker: the chunks it has not handed out, lo<<32 | hi
	sleep  []slot // per helper: 1 while it sleeps (or is about to) on its doorbell
	in     []slot // per helper: the epoch of the loop it joined, until it has left it; 0 between loops
	skip   []slot // per helper: 1 while it sits out the loops (Pool.out)
	fn     func(worker, lo, hi int)
	n      int
	chunks int // chunk c is [c*n/chunks, (c+1)*n/chunks)
	k      int // workers taking part: 0 to k-1 own chunks

	// A run of phases (RunPhases) instead of a loop: pfn and sizes are set, and the workers go
	// through the phases together.
	pfn   func(worker, phase, chunk int)
	sizes []int32
	seq   int64  // the run's loop number: claim tags are seq<<phaseBits | phase+1
	claim []slot // per chunk of a phase: the tag of the last phase it was claimed in
	done  slot   // chunks finished in this run
	gate  slot   // the tag of the last phase all of whose chunks finished
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
	p.job.in = make([]slot, workers)
	p.job.skip = make([]slot, workers)
	p.out = make([]int64, workers)
	p.outEnd = make([]int64, workers)
	p.backoff = make([]int64, workers)
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
	skip := &j.skip[worker].v
	for {
		// Spin for the next loop (sitting out, for the end of that: the caller rings when it ends).
		// A loop this helper may join: new, open, and taking this worker; and the helper is not
		// sitting out.
		ready := func(e int64) bool {
			return e != last && e&closed == 0 && worker < parts(e) && skip.Load() == 0
		}
		deadline := time.Now().Add(Spin)
		for spin := 0; ; spin++ {
			if ready(j.epoch.Load()) {
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
		if !ready(e) {
			// Sleep: announce it, then look once more (the caller publishes a loop, or ends the
			// sitting out, then looks for sleepers to ring; one of the two sees the other).
			asleep.Store(1)
			if e = j.epoch.Load(); !ready(e) {
				if _, ok := <-bell; !ok {
					return
				}
			}
			asleep.Store(0)
			e = j.epoch.Load()
			if !ready(e) {
				continue
			}
		}
		last = e
		j.in[worker].v.Store(uint64(e))
		if j.epoch.Load() == e { // still open: the caller now waits for this helper
			if j.pfn != nil {
				j.phases(worker)
			} else {
				j.drain(worker)
			}
		}
		j.in[worker].v.Store(0) // left: the caller waits for this store
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
	w := j.k
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
	if p.nout > 0 {
		p.comeBack()
		if p.nout == p.workers-1 {
			fn(0, 0, n) // every helper sits out
			return
		}
	}
	// About four chunks per worker balances load without much contention; the chunks are equal to
	// within an item, so each holds at least minChunk. A loop of fewer chunks than workers goes to
	// one worker per chunk.
	chunks := min(4*p.workers, n/minChunk)
	k := min(p.workers, chunks)
	p.handed++
	j := &p.job
	j.fn, j.n, j.chunks, j.k = fn, n, chunks, k
	for w := range k {
		lo, hi := ownChunks(chunks, k, w)
		j.own[w].v.Store(uint64(lo)<<32 | uint64(hi))
	}
	e := ((j.epoch.Load()&^closed)>>partBits+1)<<partBits | int64(k)
	j.epoch.Store(e) // publishes fn, n, chunks, k, own and opens the loop
	for w := 1; w < k; w++ {
		if j.sleep[w].v.Load() == 0 || p.out[w] != 0 {
			continue // spinning: it sees the epoch; or sitting out
		}
		p.ring(w)
	}
	t0 := clock()
	j.drain(0)
	t1 := clock()
	j.epoch.Store(e | closed)
	// A helper that joined is finishing its chunk: wait for it spinning. Yielding costs a goroutine
	// locked to its thread (the window's, the benchmark's) a hand-off of its P to another thread and
	// back, tens of microseconds; it yields only after Spin, in case the helper needs this P to run
	// (more workers than GOMAXPROCS). A wait past StallWait and twice the caller's share is a stall:
	// the helpers still in the loop sit out the next ones.
	stalled := false
	for spin := 1; j.busy(e); spin++ {
		pause()
		if spin&255 == 0 {
			now := clock()
			if !stalled && now-t1 > int64(StallWait) && now-t1 > 2*(t1-t0) {
				stalled = true
				for w := 1; w < k; w++ {
					if j.in[w].v.Load() == uint64(e) && p.out[w] == 0 {
						p.sitOut(w, now)
					}
				}
			}
			if now-t1 > int64(Spin) {
				runtime.Gosched()
			}
		}
	}
	j.fn = nil
}

// busy reports whether a helper that joined loop e has not left it yet.
func (j *job) busy(e int64) bool {
	for w := 1; w < j.k; w++ {
		if j.in[w].v.Load() == uint64(e) {
			return true
		}
	}
	return false
}

// sitOut makes helper w sit out the loops from now: MinSolo, or twice its last time out when it
// stalled again soon after coming back (its core is still taken), at most MaxSolo.
func (p *Pool) sitOut(w int, now int64) {
	p.stalls++
	if p.outEnd[w] != 0 && now-p.outEnd[w] < 2*p.backoff[w] {
		p.backoff[w] = min(2*p.backoff[w], int64(MaxSolo))
	} else {
		p.backoff[w] = int64(MinSolo)
	}
	p.out[w] = now + p.backoff[w]
	p.nout++
	p.job.skip[w].v.Store(1)
}

// ring rings helper w's doorbell; a ring already pending is enough (the helper looks at the current
// loop, and at whether it sits out, when it wakes).
func (p *Pool) ring(w int) {
	select {
	case p.bell[w-1] <- struct{}{}:
	default:
	}
}

// comeBack ends the sitting out of the helpers whose time is up, ringing the ones asleep.
func (p *Pool) comeBack() {
	now := clock()
	for w := 1; w < p.workers; w++ {
		if p.out[w] == 0 || now < p.out[w] {
			continue
		}
		p.out[w], p.outEnd[w] = 0, now
		p.nout--
		p.job.skip[w].v.Store(0)
		if p.job.sleep[w].v.Load() != 0 {
			p.ring(w)
		}
	}
}

// ownChunks returns the chunks worker w of workers owns in a loop of chunks chunks.
func ownChunks(chunks, workers, w int) (lo, hi int) {
	if chunks < workers {
		return min(w, chunks), min(w+1, chunks)
	}
	return w * chunks / workers, (w + 1) * chunks / workers
}

// phaseBits: a claim tag is a run's loop number << phaseBits | its phase + 1.
const phaseBits = 20

// MaxPhases is the most phases RunPhases takes.
const MaxPhases = 1<<phaseBits - 1

// RunPhases calls fn(worker, phase, chunk) for every chunk of every phase, phase i having sizes[i]
// chunks (each at least 1, at most Workers()): the chunks of a phase may run at once on different
// workers, and every chunk of a phase finishes before any of the next phase starts (a barrier). Chunk
// c goes to worker c if it is there in time, else to a worker done with its own (the caller always
// takes part, so that a run never waits for a helper that has not joined). One hand-off runs all the
// phases, where a Run per phase would cost one each: a solver pass over its graph colours, each
// split by region, on many cores. Which worker runs a chunk must change no result.
func (p *Pool) RunPhases(sizes []int32, fn func(worker, phase, chunk int)) {
	k := int32(1)
	for _, s := range sizes {
		k = max(k, s)
	}
	if p != nil && p.nout > 0 {
		p.comeBack()
	}
	if p == nil || p.workers == 1 || k == 1 || int(k) > p.workers || len(sizes) > MaxPhases || p.nout == p.workers-1 {
		for i, s := range sizes { // on the caller alone (every helper sits out, or nothing to split)
			for c := range int(s) {
				fn(0, i, c)
			}
		}
		return
	}
	p.handed++
	j := &p.job
	if len(j.claim) < p.workers {
		j.claim = make([]slot, p.workers)
	}
	seq := (j.epoch.Load()&^closed)>>partBits + 1
	j.pfn, j.sizes, j.seq, j.k = fn, sizes, seq, int(k)
	j.done.v.Store(0)
	e := seq<<partBits | int64(k)
	j.epoch.Store(e) // publishes pfn, sizes, seq, k and opens the run
	for w := 1; w < int(k); w++ {
		if j.sleep[w].v.Load() == 0 || p.out[w] != 0 {
			continue
		}
		p.ring(w)
	}
	if j.phases(0) {
		p.stalls++ // no helper can be sent out in the middle of a run; the stall is counted (Stalls)
	}
	j.epoch.Store(e | closed)
	for spin := 1; j.busy(e); spin++ { // helpers that joined late, passing phases with nothing left
		pause()
		if spin&4095 == 0 {
			runtime.Gosched()
		}
	}
	j.pfn, j.sizes = nil, nil
}

// phases runs worker w's part of a RunPhases: phase by phase, its own chunk, then any not yet
// claimed, then the barrier: the phase's last chunk to finish opens the gate to the next. For the
// caller (w 0) it reports whether it waited at a gate for longer than StallWait: a worker lost its
// core while it held a chunk, and every other waited for it.
func (j *job) phases(w int) (stalled bool) {
	done := int64(0) // chunks of the phases before this one
	for i, s := range j.sizes {
		tag := uint64(j.seq<<phaseBits | int64(i+1))
		for v := range int(s) {
			c := (w + v) % int(s)
			cl := &j.claim[c].v
			if old := cl.Load(); old < tag && cl.CompareAndSwap(old, tag) {
				j.pfn(w, i, c)
				if j.done.v.Add(1) == uint64(done)+uint64(s) {
					j.gate.v.Store(tag)
				}
			}
		}
		done += int64(s)
		var since int64
		for spin := 1; j.gate.v.Load() < tag; spin++ {
			pause()
			if w == 0 && spin&255 == 0 {
				if now := clock(); since == 0 {
					since = now
				} else if now-since > int64(StallWait) {
					stalled = true
				}
			}
			if spin&4095 == 0 {
				runtime.Gosched() // more workers than threads: the one holding a chunk may need this one's
			}
		}
	}
	return stalled
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
// twice the caller's own share of the loop, each of which made that helper sit out the loops for a
// while, and how many runs of phases (RunPhases) kept the caller waiting at a barrier past StallWait.
// Like Run, it is for the caller's goroutine.
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
