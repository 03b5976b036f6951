package command

import "tumble/gpu"

// The tests' backends: the program's own factory (cmd/sandbox injects the same), so that the tests
// switch to the emulated CUDA backend as the window does. This file is the only one in the package
// that imports gpu; the command layer itself never does.
var (
	testBackends = Backends{Open: gpu.Open, Kinds: gpu.Kinds()}
	cudaBuilt    = gpu.Available
)
