package broad

import "slices"

// PairSorter turns the pairs a broad phase found, in whatever order its workers found them, into the
// sorted list Phase promises: a counting sort by A (one bucket per body), then each bucket sorted by B.
// With several input runs and a Parallel function, each run is counted and scattered by its own worker
// and the buckets are sorted in parallel; the result does not depend on the split.
//
// This is the CPU form of the GPU's "sort the compacted pair list by key" pass. Its buffers are kept
// between calls, so once they have grown a call allocates nothing. The zero value is ready to use.
type PairSorter struct {
	counts [][]int32 // per run: pairs per A, then the run's next slot in each bucket
	runs   [][]Pair
	out    []Pair

	fnCount, fnScatter, fnBuckets func(worker, lo, hi int)
}

// Sort returns out[:0] appended with every pair of the runs, sorted by (A, B). n is the number of
// bodies (every A is below it). parallel, when not nil, runs fn over [0, m) across workers, as the
// world's pool does; nil sorts on the caller. No pair may appear twice across the runs.
func (s *PairSorter) Sort(runs [][]Pair, n int, out []Pair, parallel func(m int, fn func(worker, lo, hi int))) []Pair {
	total := 0
	for _, r := range runs {
		total += len(r)
	}
	out = slices.Grow(out[:0], total)[:total]
	if total == 0 {
		return out
	}
	if parallel == nil || total < 1<<14 { // small: handing out the work costs more than it saves
		parallel = serial
	}
	if len(s.counts) < len(runs) {
		s.counts = append(s.counts, make([][]int32, len(runs)-len(s.counts))...)
	}
	for r := range runs {
		s.counts[r] = slices.Grow(s.counts[r][:0], n+1)[:n+1]
	}
	s.runs, s.out = runs, out
	s.bind()

	parallel(len(runs), s.fnCount)
	// Bucket a holds run 0's pairs with A = a, then run 1's, and so on: counts[r][a] becomes the
	// first slot of run r's share of bucket a. counts[0][n] ends up as the total.
	sum := int32(0)
	for a := 0; a <= n; a++ {
		for r := range runs {
			c := s.counts[r][a]
			s.counts[r][a] = sum
			sum += c
		}
	}
	parallel(len(runs), s.fnScatter)
	// Now counts[last][a] is the end of bucket a, which is where bucket a+1 starts.
	parallel(n, s.fnBuckets)
	s.runs, s.out = nil, nil
	return out
}

func (s *PairSorter) bind() {
	if s.fnCount != nil {
		return
	}
	s.fnCount = func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			c := s.counts[r]
			clear(c)
			for _, p := range s.runs[r] {
				c[p.A]++
			}
		}
	}
	s.fnScatter = func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			c := s.counts[r]
			for _, p := range s.runs[r] {
				s.out[c[p.A]] = p
				c[p.A]++
			}
		}
	}
	s.fnBuckets = func(_, lo, hi int) {
		end := s.counts[len(s.runs)-1]
		start := int32(0)
		if lo > 0 {
			start = end[lo-1]
		}
		for a := lo; a < hi; a++ {
			sortByB(s.out[start:end[a]])
			start = end[a]
		}
	}
}

// serial runs fn over [0, m) on the caller.
func serial(m int, fn func(worker, lo, hi int)) {
	if m > 0 {
		fn(0, 0, m)
	}
}

// sortByB sorts pairs that share A by B.
func sortByB(ps []Pair) {
	if len(ps) > 24 {
		slices.SortFunc(ps, func(p, q Pair) int { return int(p.B - q.B) })
		return
	}
	for i := 1; i < len(ps); i++ {
		p := ps[i]
		j := i
		for j > 0 && ps[j-1].B > p.B {
			ps[j] = ps[j-1]
			j--
		}
		ps[j] = p
	}
}
