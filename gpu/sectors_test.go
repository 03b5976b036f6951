package gpu

import "testing"

// TestJacobiPassMovesFewSectors: the fields a Jacobi pass reads and writes of a manifold record sit
// together, so that in whole 32-byte sectors the pass moves at most 1.4 times the bytes of those
// fields, for manifolds of 4, 2 and 1 points (the layout that interleaved them with the fields other
// kernels use moved 1.7 to 2.0x).
func TestJacobiPassMovesFewSectors(t *testing.T) {
	for _, c := range []int32{4, 2, 1} {
		counts := make([]int32, 1000)
		for i := range counts {
			counts[i] = c
		}
		moved, fields := jacobiSectorBytes(counts)
		ratio := float64(moved) / float64(fields)
		t.Logf("%d-point manifolds: %d bytes of fields move as %d bytes of sectors: %.2fx", c, fields/1000, moved/1000, ratio)
		if ratio > 1.4 {
			t.Errorf("%d-point manifolds: the pass moves %.2fx the bytes of its fields", c, ratio)
		}
	}
}
