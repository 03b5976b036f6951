package broad

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"tumble/sim/broad/broadtest"
)

// The radix sort agrees with a stable comparison sort on the chosen bits, serially and in parallel,
// for sizes around its block size and digit ranges that do not fill a whole digit.
func TestRadixSorterMatchesStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var s RadixSorter
	for _, n := range []int{0, 1, 2, 1000, RadixBlock, 3*RadixBlock + 7} {
		for _, bits := range [][2]uint{{32, 62}, {32, 55}, {0, 64}, {40, 41}} {
			for _, workers := range []int{1, 3} {
				keys := make([]uint64, n)
				for i := range keys {
					keys[i] = r.Uint64() &^ (r.Uint64() & r.Uint64()) // some repeated digits
				}
				mask := uint64(1<<(bits[1]-bits[0])-1) << bits[0]
				if bits[1]-bits[0] == 64 {
					mask = ^uint64(0)
				}
				want := slices.Clone(keys)
				slices.SortStableFunc(want, func(a, b uint64) int {
					a, b = a&mask, b&mask
					switch {
					case a < b:
						return -1
					case a > b:
						return 1
					}
					return 0
				})
				var par func(int, func(int, int, int))
				if workers > 1 {
					par = broadtest.ParallelFor(workers)
				}
				got := s.Sort(keys, make([]uint64, n), bits[0], bits[1], par)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: not the stable sort", fmt.Sprintf("n=%d bits %d..%d workers=%d", n, bits[0], bits[1], workers))
				}
			}
		}
	}
}
