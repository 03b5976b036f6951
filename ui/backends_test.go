package ui

import (
	"tumble/gpu"
	"tumble/ui/command"
)

// The window tests' backends: the factory cmd/sandbox injects (gpu.Open and gpu.Kinds), given to every
// window the tests open (drive, run) so the panel offers what the program's does. This file is the
// only one in the package that imports gpu; the window itself never does.
var (
	testBackends = command.Backends{Open: gpu.Open, Kinds: gpu.Kinds()}
	cudaBuilt    = gpu.Available
)

// withBackends gives opt the tests' backends unless it has some.
func withBackends(opt Options) Options {
	if opt.Backends.Open == nil {
		opt.Backends = testBackends
	}
	return opt
}
