package workpool

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Every index of every loop is visited exactly once, whether the helpers wake in time or late, and
// a loop returns only when every chunk it handed out has finished.
func TestRunVisitsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		p := New(workers)
		hits := make([]atomic.Int32, 5000)
		var inside atomic.Int32
		for loop := 0; loop < 400; loop++ {
			n := 1 + loop*37%len(hits)
			fn := func(worker, lo, hi int) {
				if worker < 0 || worker >= p.Workers() {
					t.Errorf("worker %d of %d", worker, p.Workers())
				}
				inside.Add(1)
				if loop%50 == 0 {
					time.Sleep(100 * time.Microsecond) // a slow chunk: the caller must wait for it
				}
				for i := lo; i < hi; i++ {
					hits[i].Add(1)
				}
				inside.Add(-1)
			}
			p.Run(n, 16, fn)
			if k := inside.Load(); k != 0 {
				t.Fatalf("%d workers, loop %d: Run returned with %d chunks still running", workers, loop, k)
			}
			for i := range hits {
				want := int32(0)
				if i < n {
					want = 1
				}
				if got := hits[i].Swap(0); got != want {
					t.Fatalf("%d workers, loop %d (n %d): index %d visited %d times, want %d", workers, loop, n, i, got, want)
				}
			}
		}
		p.Close()
		p.Close()
	}
}

// With two workers a long loop is shared: the helper takes chunks (the caller does not do it all).
func TestRunSharesLongLoops(t *testing.T) {
	p := New(2)
	defer p.Close()
	var byHelper atomic.Int64
	for range 50 {
		p.Run(64, 1, func(worker, lo, hi int) {
			time.Sleep(50 * time.Microsecond)
			if worker == 1 {
				byHelper.Add(int64(hi - lo))
			}
		})
		if byHelper.Load() > 0 {
			return
		}
	}
	t.Fatalf("in 50 loops of 64 slow chunks the helper never took one")
}

// A loop that cannot give two workers minChunk items each runs on the caller in one call; a longer one
// is cut into chunks of at least minChunk items, none of them a short remainder.
func TestRunChunksHoldMinChunk(t *testing.T) {
	p := New(2)
	defer p.Close()
	const minChunk = 100
	for _, n := range []int{1, 100, 199, 200, 201, 319, 799, 800, 801, 5000} {
		var calls, short atomic.Int32
		p.Run(n, minChunk, func(worker, lo, hi int) {
			calls.Add(1)
			if hi-lo < minChunk && hi-lo != n {
				short.Add(1)
			}
		})
		if n < 2*minChunk && calls.Load() != 1 {
			t.Errorf("n %d < 2*minChunk: %d calls, want 1 (on the caller alone)", n, calls.Load())
		}
		if n >= 2*minChunk && calls.Load() < 2 {
			t.Errorf("n %d: %d calls, want the loop split", n, calls.Load())
		}
		if k := short.Load(); k != 0 {
			t.Errorf("n %d: %d chunks shorter than %d items", n, k, minChunk)
		}
	}
}

// Each worker owns a contiguous run of a loop's chunks, the same run in every loop of the same size,
// and every chunk belongs to exactly one worker; with fewer chunks than workers, worker w owns chunk w.
func TestOwnChunksPartition(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 16} {
		for chunks := 1; chunks <= 4*workers; chunks++ {
			next := 0
			for w := range workers {
				lo, hi := ownChunks(chunks, workers, w)
				if lo != next || hi < lo {
					t.Fatalf("%d workers, %d chunks: worker %d owns [%d, %d), want it to start at %d", workers, chunks, w, lo, hi, next)
				}
				if chunks < workers && hi-lo != b2i(w < chunks) {
					t.Errorf("%d workers, %d chunks: worker %d owns %d chunks", workers, chunks, w, hi-lo)
				}
				next = hi
			}
			if next != chunks {
				t.Fatalf("%d workers, %d chunks: the owned runs end at %d", workers, chunks, next)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A worker drains its own chunks first, in order, then the others' from their far ends: with no other
// worker running, worker 1 of 3 takes its run forward, then worker 2's and worker 0's backward.
func TestDrainTakesOwnChunksFirstAndStealsFromTheEnd(t *testing.T) {
	var j job
	j.own = make([]slot, 3)
	j.n, j.chunks, j.k = 12, 12, 3
	for w := range 3 {
		lo, hi := ownChunks(12, 3, w)
		j.own[w].v.Store(uint64(lo)<<32 | uint64(hi))
	}
	var got []int
	j.fn = func(worker, lo, hi int) {
		if worker != 1 || hi != lo+1 {
			t.Fatalf("chunk [%d, %d) on worker %d", lo, hi, worker)
		}
		got = append(got, lo)
	}
	j.drain(1)
	want := []int{4, 5, 6, 7, 11, 10, 9, 8, 3, 2, 1, 0}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("worker 1 took chunks %v, want %v", got, want)
	}
}

// A helper that went to sleep (no loop for longer than Spin) is woken by the next loop's doorbell and
// takes part in it.
func TestSleepingHelperWakes(t *testing.T) {
	p := New(2)
	defer p.Close()
	time.Sleep(5 * Spin) // the helper is asleep on its doorbell by now
	for range 200 {
		var byHelper atomic.Int64
		p.Run(64, 1, func(worker, lo, hi int) {
			time.Sleep(20 * time.Microsecond)
			if worker == 1 {
				byHelper.Add(1)
			}
		})
		if byHelper.Load() > 0 {
			return
		}
		time.Sleep(2 * Spin)
	}
	t.Fatalf("in 200 loops after the helper slept, it never took a chunk")
}

// Handed counts the loops split across the workers: not those too short to give two workers a grain
// each, nor any on a one-worker pool.
func TestHandedCountsOnlySplitLoops(t *testing.T) {
	fn := func(worker, lo, hi int) {}
	p := New(4)
	defer p.Close()
	p.Run(100, 64, fn) // 100 < 2 x 64: on the caller
	if h := p.Handed(); h != 0 {
		t.Errorf("after a loop too short to split: Handed %d, want 0", h)
	}
	p.Run(128, 64, fn)
	p.Run(1000, 64, fn)
	if h := p.Handed(); h != 2 {
		t.Errorf("after two loops that split: Handed %d, want 2", h)
	}
	one := New(1)
	one.Run(1000, 1, fn)
	if h := one.Handed(); h != 0 {
		t.Errorf("one worker: Handed %d, want 0", h)
	}
	var none *Pool
	if h := none.Handed(); h != 0 {
		t.Errorf("nil pool: Handed %d, want 0", h)
	}
}

// A helper that joins a loop and then holds its chunk for milliseconds (as one whose core was taken
// does) is a stall: it sits out the loops for MinSolo, so with two workers they run on the caller
// alone, and it takes chunks again after that. Its time out doubles when it stalls again as soon as it
// is back.
func TestAStalledHelperSitsOutTheLoops(t *testing.T) {
	p := New(2)
	defer p.Close()
	// The helper's chunk takes 10 ms. A wait counts as a stall past StallWait and twice the caller's
	// own share, and the caller's share lasts until the helper joins (waitFor, at most 2 ms), so a
	// helper that joins within 2 ms always stalls the caller. (With 3 ms, a helper that joined after
	// 1.5 ms, as under -race on a loaded machine, kept the caller waiting less than twice its share:
	// no stall, rightly, and the test failed.)
	var helped atomic.Bool
	var start time.Time
	var joined atomic.Int64 // when the helper joined, ns after start
	stallLoop := func(worker, lo, hi int) {
		if worker != 0 {
			if !helped.Swap(true) {
				joined.Store(int64(time.Since(start)))
			}
			time.Sleep(10 * time.Millisecond)
		} else if lo == 0 {
			waitFor(&helped) // the caller's first chunk gives the helper time to join
		}
	}
	// The helper may be slow to join (a loaded machine): try until it ran a chunk.
	for try := 0; p.Stalls() == 0; try++ {
		if try == 200 {
			t.Skip("the helper never joined a loop")
		}
		helped.Store(false)
		start = time.Now()
		p.Run(64, 1, stallLoop)
		if helped.Load() && p.Stalls() == 0 && time.Duration(joined.Load()) < 2*time.Millisecond {
			t.Fatalf("the caller waited for the helper's 10 ms chunk (joined after %v) and saw no stall", time.Duration(joined.Load()))
		}
	}
	handed := p.Handed()
	var byHelper atomic.Int32
	count := func(worker, lo, hi int) {
		if worker != 0 {
			byHelper.Add(1)
		}
	}
	// Loops until shortly before the time out ends (a caller descheduled between its look at the
	// clock and the loop, as under -race on a loaded machine, must not see it end).
	if loops := runUntil(p.out[1]-int64(2*time.Millisecond), func() { p.Run(64, 1, count) }); loops == 0 {
		t.Skip("the time out ended before a loop ran (a loaded machine)")
	}
	if p.Handed() != handed || byHelper.Load() != 0 {
		t.Errorf("while the only helper sits out, %d loops were handed out and it ran %d chunks, want none",
			p.Handed()-handed, byHelper.Load())
	}
	time.Sleep(MinSolo)
	p.Run(64, 1, count)
	if p.Handed() != handed+1 {
		t.Errorf("after its time out the loop was not handed out (%d handed)", p.Handed()-handed)
	}
	// Stall again right after coming back: the next time out is twice as long.
	for try := 0; p.Stalls() == 1; try++ {
		if try == 200 {
			t.Skip("the helper never joined a loop")
		}
		helped.Store(false)
		p.Run(64, 1, stallLoop)
	}
	if p.backoff[1] != 2*int64(MinSolo) {
		t.Errorf("time out %v after a stall right after the first, want %v", time.Duration(p.backoff[1]), 2*MinSolo)
	}
}

// waitFor waits until b is true, at most 2 ms.
func waitFor(b *atomic.Bool) {
	for start := time.Now(); !b.Load() && time.Since(start) < 2*time.Millisecond; {
		runtime.Gosched()
	}
}

// runUntil calls run until the clock passes until, and returns how many times it did.
func runUntil(until int64, run func()) (n int) {
	for ; clock() < until; n++ {
		run()
	}
	return n
}

// With three workers, the helper that stalled sits out and the other keeps taking chunks: the loops
// are still handed out.
func TestOnlyTheStalledHelperSitsOut(t *testing.T) {
	// Helper 2 sits out too where it was itself still in the stalled loop: descheduled, as three
	// workers on 2 vCPUs under -race with other test binaries beside them were once in CI. That is
	// the pool doing right, so such a try is run again on a new pool; ten in a row is a fault.
	var p *Pool
	for attempt := 0; ; attempt++ {
		p = New(3)
		t.Cleanup(p.Close) // (Close again does nothing)
		stallHelperOne(t, p)
		if p.out[1] != 0 && p.out[2] == 0 {
			break
		}
		out1, out2 := p.out[1], p.out[2]
		p.Close()
		if out1 == 0 || attempt == 9 {
			t.Fatalf("sitting out until %v and %v (try %d), want helper 1 only", out1, out2, attempt+1)
		}
	}
	handed := p.Handed()
	var by [3]atomic.Int32
	slow := func(worker, lo, hi int) {
		by[worker].Add(1)
		time.Sleep(20 * time.Microsecond) // long enough a loop for a spinning helper to join
	}
	if loops := runUntil(p.out[1]-int64(2*time.Millisecond), func() { p.Run(64, 1, slow) }); loops == 0 {
		t.Skip("the time out ended before a loop ran (a loaded machine)")
	}
	if p.Handed() == handed || by[1].Load() != 0 || by[2].Load() == 0 {
		t.Errorf("while helper 1 sits out: %d loops handed out, chunks run by worker 0, 1, 2: %d, %d, %d; want loops "+
			"handed and none run by helper 1", p.Handed()-handed, by[0].Load(), by[1].Load(), by[2].Load())
	}
}

// stallHelperOne runs loops in which helper 1's chunk takes 3 ms until the caller sees a stall.
func stallHelperOne(t *testing.T, p *Pool) {
	t.Helper()
	var joined atomic.Bool
	stallLoop := func(worker, lo, hi int) {
		if worker == 1 {
			joined.Store(true)
			time.Sleep(3 * time.Millisecond)
		} else {
			waitFor(&joined) // the others' chunks give helper 1 time to join (2 vCPUs: a P)
		}
	}
	// A loop that helper 1 joined holds the caller 3 ms unless the caller itself lost its core for
	// that long (2 vCPUs, -race: it did once in CI), so the caller must see a stall in one of them.
	joins := 0
	for try := 0; p.Stalls() == 0; try++ {
		if try == 200 {
			if joins > 0 {
				t.Fatalf("helper 1 held %d loops 3 ms each, and the caller saw no stall", joins)
			}
			t.Skip("helper 1 never joined a loop")
		}
		joined.Store(false)
		p.Run(64, 1, stallLoop)
		if joined.Load() {
			joins++
		}
	}
}

// A loop of fewer chunks than workers goes to one worker per chunk, the caller and the first helpers:
// with 8 workers, a loop of three chunks runs on workers 0 to 2 only, and the others never touch it.
func TestASmallLoopTakesOnlyTheWorkersItNeeds(t *testing.T) {
	p := New(8)
	defer p.Close()
	var by [8]atomic.Int32
	var joined atomic.Bool
	slow := func(worker, lo, hi int) {
		by[worker].Add(1)
		if worker != 0 {
			joined.Store(true)
		} else if lo == 0 && !joined.Load() {
			waitFor(&joined) // until a helper first joins (a loaded machine: it needs a thread)
		}
		time.Sleep(20 * time.Microsecond) // long enough a loop for a spinning helper to join
	}
	for range 200 {
		p.Run(300, 100, slow) // 3 chunks
	}
	for w := 3; w < 8; w++ {
		if n := by[w].Load(); n != 0 {
			t.Errorf("worker %d ran %d chunks of loops of three chunks", w, n)
		}
	}
	if by[1].Load()+by[2].Load() == 0 {
		t.Errorf("helpers 1 and 2 never joined a loop of three chunks (the caller ran %d)", by[0].Load())
	}
	for range 50 {
		p.Run(8000, 100, slow) // 32 chunks: every worker may take part
	}
	if by[7].Load() == 0 {
		t.Logf("helper 7 never joined a loop of 32 chunks (a loaded machine)")
	}
}

// RunPhases runs every chunk of every phase once, and none of a phase before every chunk of the one
// before it has finished, whichever workers take them: phases of one chunk and of as many as there
// are workers, some chunks slow, on pools of 1 to 8 workers, helpers asleep or spinning.
func TestRunPhasesKeepsThePhasesInOrder(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		p := New(workers)
		for run := range 60 {
			sizes := make([]int32, 1+run%17)
			for i := range sizes {
				sizes[i] = int32(1 + (i*7+run)%workers)
			}
			finished := make([]atomic.Int32, len(sizes))
			hits := make([][]atomic.Int32, len(sizes))
			for i, s := range sizes {
				hits[i] = make([]atomic.Int32, s)
			}
			var bad atomic.Int32
			var by [8]atomic.Int32
			p.RunPhases(sizes, func(worker, phase, chunk int) {
				by[worker].Add(1)
				if phase > 0 && finished[phase-1].Load() != sizes[phase-1] {
					bad.Add(1)
				}
				if chunk%3 == 1 {
					time.Sleep(20 * time.Microsecond)
				}
				hits[phase][chunk].Add(1)
				finished[phase].Add(1)
			})
			if bad.Load() != 0 {
				t.Fatalf("%d workers, run %d: %d chunks started before the phase before theirs had finished", workers, run, bad.Load())
			}
			for i := range hits {
				for c := range hits[i] {
					if n := hits[i][c].Load(); n != 1 {
						t.Fatalf("%d workers, run %d: phase %d chunk %d ran %d times", workers, run, i, c, n)
					}
				}
			}
			if run == 30 {
				time.Sleep(3 * Spin) // the helpers go to sleep: the next run rings them
			}
		}
		p.Close()
	}
}

// A run of phases is shared: with 4 workers and phases of 4 slow chunks, the helpers take some.
func TestRunPhasesSharesTheChunks(t *testing.T) {
	p := New(4)
	defer p.Close()
	var byHelpers atomic.Int32
	var joined atomic.Bool
	for range 50 {
		p.RunPhases([]int32{4, 4, 1, 4}, func(worker, phase, chunk int) {
			if worker != 0 {
				joined.Store(true)
				byHelpers.Add(1)
			} else if phase == 0 {
				waitFor(&joined) // until a helper joins (a loaded machine: it needs a thread)
			}
			time.Sleep(30 * time.Microsecond)
		})
		if byHelpers.Load() > 0 {
			return
		}
	}
	t.Fatalf("in 50 runs of phases of 4 slow chunks the helpers never took one")
}

// A helper that holds a chunk of a run of phases for milliseconds keeps every worker at the next
// barrier: the caller counts it as a stall (Stalls), as it does in a loop.
func TestAStallInARunOfPhasesIsCounted(t *testing.T) {
	p := New(2)
	defer p.Close()
	var joined atomic.Bool
	for try := 0; p.Stalls() == 0; try++ {
		if try == 200 {
			t.Fatal("the helper never joined a run of phases, or its 3 ms chunk was not counted as a stall")
		}
		joined.Store(false)
		p.RunPhases([]int32{2, 2}, func(worker, phase, chunk int) {
			if worker == 1 {
				joined.Store(true)
				time.Sleep(3 * time.Millisecond)
			} else if phase == 0 {
				waitFor(&joined)
			}
		})
	}
	stalls := p.Stalls()
	p.RunPhases([]int32{2, 2}, func(worker, phase, chunk int) {})
	if p.Stalls() != stalls {
		t.Errorf("a run of phases with no slow chunk counted a stall")
	}
}
