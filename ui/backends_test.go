package ui

import (
	"tumble/gpu"
	"tumble/render/instance"
	"tumble/sim"
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

// countingBackends are the tests' backends with the bodies each reads back from the device counted in
// *pulled (World.Sync's whole world, BodyState's one body), and a stand-in for CUDA-GL interop: the
// frame's instances are taken as written on the device, as the CUDA backend's transforms kernel
// writes them (drawing nothing here), so the frame itself reads no body back and what the count sees
// is what the panel reads, as on a GPU with interop.
func countingBackends(pulled *int) command.Backends {
	return command.Backends{Kinds: gpu.Kinds(), Open: func(kind string) (sim.Backend, error) {
		b, err := gpu.Open(kind)
		if b == nil || err != nil {
			return b, err
		}
		return countingBackend{b.(*gpu.Backend), pulled}, nil
	}}
}

// countingBackend is a gpu.Backend whose read-backs are counted (countingBackends).
type countingBackend struct {
	*gpu.Backend
	pulled *int
}

func (c countingBackend) Pull(w *sim.World) error {
	*c.pulled += w.Bodies.Len()
	return c.Backend.Pull(w)
}

func (c countingBackend) PullStates(w *sim.World, idx []int32, out []sim.BodyState) error {
	*c.pulled += len(idx)
	return c.Backend.PullStates(w, idx, out)
}

func (c countingBackend) NewGLWriter(glVendor, glRenderer string) (instance.GLWriter, error) {
	return deviceWrites{}, nil
}

// deviceWrites is the interop stand-in: every write succeeds and draws nothing.
type deviceWrites struct{}

func (deviceWrites) WriteInstances(*sim.World, uint32, int, *instance.Style) (instance.Written, error) {
	return instance.Written{}, nil
}

func (deviceWrites) WriteDebugLines(*sim.World, uint32, int, *instance.DebugStyle) (instance.DebugLines, error) {
	return instance.DebugLines{}, nil
}

func (deviceWrites) Close() {}

// deviceBytesRead is the bytes w's emulated CUDA backend has read back from the device since it
// opened (gpu.Backend.DeviceCounts): every step's read-back and every read between steps. ok is
// false for a world on another backend.
func deviceBytesRead(w *sim.World) (n int64, ok bool) {
	var b *gpu.Backend
	switch x := w.Backend().(type) {
	case *gpu.Backend:
		b = x
	case countingBackend:
		b = x.Backend
	default:
		return 0, false
	}
	return b.DeviceCounts().DownloadBytes, true
}
