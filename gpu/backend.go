package gpu

import "tumble/sim"

// Backend is the CUDA backend: a sim.Backend that keeps the world's body state in device memory and
// runs every stage of the step as kernels, one launch sequence per step. On the emulated device
// (NewEmulated) the same sequence runs the same kernels compiled for the CPU.
type Backend struct {
	dev    device
	bodies bodyBuffers
	inst   instanceWriter // WriteInstances' scratch (transforms.go)
	// closers run first in Close: interop registrations must go before the context does.
	closers []func()
}

var _ sim.Backend = (*Backend)(nil)

// New returns the backend on the first CUDA device. A build without the cuda tag returns ErrNoCUDA.
func New() (*Backend, error) {
	d, err := openCUDA(0)
	if err != nil {
		return nil, err
	}
	return &Backend{dev: d}, nil
}

// NewEmulated returns the backend on the kernel emulator: the CUDA step's kernels compiled for the
// CPU, one thread at a time. It is slow (tens of times slower than the CPU backend) and exists to test
// and inspect the GPU code path on machines without a GPU.
func NewEmulated() *Backend { return &Backend{dev: emulated{}} }

// Name says which device runs the steps.
func (b *Backend) Name() string { return "cuda (" + b.dev.Name() + ")" }

// errAssembling is returned until the stages are wired into Step (this commit only fixes the API the
// renderer and panel build against).
var errAssembling = errorString("gpu: the CUDA step is not assembled yet")

type errorString string

func (e errorString) Error() string { return string(e) }

// Step advances w by one step on the device.
func (b *Backend) Step(w *sim.World) error { return errAssembling }

// Pull copies the device's body state into w.Bodies.
func (b *Backend) Pull(w *sim.World) error { return errAssembling }

// Contacts appends the last step's contact points, read back from the device.
func (b *Backend) Contacts(w *sim.World, out []sim.ContactPoint) []sim.ContactPoint { return out }

// Close releases the device buffers (and the CUDA context).
func (b *Backend) Close() {
	for _, c := range b.closers {
		c()
	}
	b.closers = nil
	b.inst.release(b.dev)
	b.dev.close()
}
