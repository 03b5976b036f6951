//go:build cuda

package gpu

import "testing"

// TestCUDAParityOfWideHullPairs is TestNarrowHullsWidePairsAreExact on the GPU: the pairs of 48-sided
// prisms that tb_narrow_hulls leaves to tb_narrow_hulls_wide give the CPU's contacts to the bit (its
// name matches scripts/gpu-run.sh's parity check).
func TestCUDAParityOfWideHullPairs(t *testing.T) {
	b := newCUDA(t)
	defer b.Close()
	checkWideHullPairs(t, base(b.dev)) // the device itself: no step, so no graph to record into
}
