package workpool

import (
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
