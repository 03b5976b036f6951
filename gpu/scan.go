package gpu

// Launch geometry of scan.cu.
const (
	scanThreads = 256
	scanItems   = scanThreads * 4
)

// scanner computes exclusive prefix sums of uint32 arrays on a device (scan.cu). It keeps one buffer
// of block sums per level of the recursion.
type scanner struct {
	levels []buffer
}

// run writes the exclusive prefix sum of the n values at in to out (in and out may be the same).
func (s *scanner) run(d device, in, out ptr, n int) error {
	return s.level(d, 0, in, out, n)
}

func (s *scanner) level(d device, l int, in, out ptr, n int) error {
	if n <= 0 {
		return nil
	}
	for len(s.levels) <= l {
		s.levels = append(s.levels, buffer{})
	}
	nb := blocks(n, scanItems)
	if err := grow(d, &s.levels[l], 4*nb); err != nil {
		return err
	}
	sums := s.levels[l].p
	k := kernelSet{d}
	if err := k.scanBlocks(nb, scanThreads, scanBlocksArgs{In: in, Out: out, Sums: sums, N: int32(n)}); err != nil {
		return err
	}
	if nb == 1 {
		return nil
	}
	if err := s.level(d, l+1, sums, sums, nb); err != nil {
		return err
	}
	return k.scanAdd(blocks(n, 256), 256, scanAddArgs{Out: out, Offsets: sums, N: int32(n)})
}

func (s *scanner) release(d device) {
	for i := range s.levels {
		release(d, &s.levels[i])
	}
	s.levels = nil
}
