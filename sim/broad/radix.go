package broad

import "slices"

// RadixSorter is a parallel LSD radix sort of 64-bit keys on a range of their bits, stable: the GPU's
// sort, on the CPU. Each pass counts a 10-bit digit per block of keys (one histogram per block), scans
// the counts digit by digit and block by block, and scatters each block's keys in order, so the passes
// are independent per block. A pass whose digit is the same in every key is skipped. The LBVH sorts its
// Morton keys with it and the grid its cell keys. The zero value is ready to use; buffers are kept.
type RadixSorter struct {
	hist              []uint32 // blocks x radixSize counts, then scatter offsets
	src, dst          []uint64
	blocks, n         int
	shift             uint
	digit             uint64 // mask of this pass's digit, after the shift
	fnHist, fnScatter func(worker, lo, hi int)
}

// Radix sort digits and blocks.
const (
	radixBits = 10
	radixSize = 1 << radixBits
	// RadixBlock is the number of keys per block.
	RadixBlock = 1 << 14
)

// Sort sorts keys by bits lo..hi-1 (stably: keys equal there keep their order), using tmp (of the same
// length) as scratch, and returns the slice that holds the result: keys or tmp. parallel, when not nil,
// runs fn over [0, m) across workers, as the world's pool does.
func (s *RadixSorter) Sort(keys, tmp []uint64, lo, hi uint, parallel func(m int, fn func(worker, lo, hi int))) []uint64 {
	n := len(keys)
	if len(tmp) != n {
		panic("broad: radix sort scratch of the wrong length")
	}
	if parallel == nil || n < 2*RadixBlock {
		parallel = serial
	}
	s.bind()
	s.n = n
	s.blocks = (n + RadixBlock - 1) / RadixBlock
	s.hist = slices.Grow(s.hist[:0], s.blocks*radixSize)[:s.blocks*radixSize]
	s.src, s.dst = keys, tmp
	for shift := lo; shift < hi; shift += radixBits {
		s.shift = shift
		s.digit = 1<<min(radixBits, hi-shift) - 1
		parallel(s.blocks, s.fnHist)
		// Exclusive scan, digit-major then block: block b's keys of digit d go after every key of a
		// smaller digit and after the keys of digit d in the blocks before b.
		sum := uint32(0)
		skip := false
		for d := 0; d < radixSize; d++ {
			for b := 0; b < s.blocks; b++ {
				c := s.hist[b*radixSize+d]
				if c == uint32(n) {
					skip = true // every key has this digit: the pass would move nothing
				}
				s.hist[b*radixSize+d] = sum
				sum += c
			}
		}
		if skip {
			continue
		}
		parallel(s.blocks, s.fnScatter)
		s.src, s.dst = s.dst, s.src
	}
	out := s.src
	s.src, s.dst = nil, nil
	return out
}

func (s *RadixSorter) bind() {
	if s.fnHist != nil {
		return
	}
	s.fnHist = func(_, lo, hi int) {
		for b := lo; b < hi; b++ {
			h := s.hist[b*radixSize : (b+1)*radixSize]
			clear(h)
			for _, k := range s.src[b*RadixBlock : min((b+1)*RadixBlock, s.n)] {
				h[(k>>s.shift)&s.digit]++
			}
		}
	}
	s.fnScatter = func(_, lo, hi int) {
		for b := lo; b < hi; b++ {
			off := s.hist[b*radixSize : (b+1)*radixSize]
			for _, k := range s.src[b*RadixBlock : min((b+1)*RadixBlock, s.n)] {
				d := (k >> s.shift) & s.digit
				s.dst[off[d]] = k
				off[d]++
			}
		}
	}
}
