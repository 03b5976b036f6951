//go:build cuda

package gpu

import "testing"

// TestCUDAParityOfWideMeshPairs is TestNarrowMeshesWidePairsAreExact on the GPU: the mesh pairs that
// tb_narrow_meshes leaves to tb_narrow_meshes_wide give the CPU's contacts to the bit (its name
// matches scripts/gpu-run.sh's parity check).
func TestCUDAParityOfWideMeshPairs(t *testing.T) {
	b := newCUDA(t)
	defer b.Close()
	checkWideMeshPairs(t, base(b.dev)) // the device itself: no step, so no graph to record into
}
