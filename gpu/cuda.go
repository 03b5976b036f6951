//go:build cuda

package gpu

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"gorgonia.org/cu"

	"tumble/gpu/kernels"
)

// Available reports whether this build can run the CUDA backend: it was built with the cuda tag (and
// gorgonia.org/cu's init already found a driver, or the process would have exited).
const Available = true

// cudaDevice runs kernels on an NVIDIA GPU through the driver API, from the embedded PTX.
type cudaDevice struct {
	dev  cu.Device
	ctx  cu.CUContext
	name string
	mods []cu.Module
	// owner is the index in mods of the module that defines each kernel (kernels.Owners).
	owner map[string]int
	mu    sync.Mutex
	fns   map[string]cu.Function
	// stream is the CUstream graphs are captured on and launched in (graph_cuda.go), nil until the
	// first graph.
	stream unsafe.Pointer
}

// openCUDA creates a context on the first GPU (or the given ordinal) and loads every PTX module.
func openCUDA(ordinal int) (*cudaDevice, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	n, err := cu.NumDevices()
	if err != nil {
		return nil, fmt.Errorf("gpu: counting CUDA devices: %w", err)
	}
	if n == 0 {
		return nil, fmt.Errorf("gpu: no CUDA device")
	}
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return nil, fmt.Errorf("gpu: CUDA device %d: %w", ordinal, err)
	}
	ctx, err := dev.MakeContext(cu.SchedAuto)
	if err != nil {
		return nil, fmt.Errorf("gpu: creating a CUDA context: %w", err)
	}
	name, _ := dev.Name()
	d := &cudaDevice{dev: dev, ctx: ctx, name: name, fns: map[string]cu.Function{}}
	mods := kernels.Modules()
	d.owner = kernels.Owners(mods)
	for _, m := range mods {
		mod, err := cu.LoadData(string(m.PTX))
		if err != nil {
			d.close()
			return nil, fmt.Errorf("gpu: loading PTX module %s: %w", m.Name, err)
		}
		d.mods = append(d.mods, mod)
	}
	return d, nil
}

// bind makes the context current on this goroutine's OS thread for the duration of one call.
func (d *cudaDevice) bind() func() {
	runtime.LockOSThread()
	if err := cu.SetCurrentContext(d.ctx); err != nil {
		panic(fmt.Sprintf("gpu: making the CUDA context current: %v", err))
	}
	return runtime.UnlockOSThread
}

func (d *cudaDevice) Name() string { return d.name }

func (d *cudaDevice) alloc(bytes int) (ptr, error) {
	defer d.bind()()
	p, err := cu.MemAlloc(int64(max(bytes, 1)))
	if err != nil {
		return 0, fmt.Errorf("gpu: allocating %d bytes: %w", bytes, err)
	}
	if err := cu.MemsetD8(p, 0, int64(max(bytes, 1))); err != nil {
		return 0, err
	}
	return ptr(p), nil
}

func (d *cudaDevice) free(p ptr) {
	defer d.bind()()
	cu.MemFree(cu.DevicePtr(p))
}

func (d *cudaDevice) upload(dst ptr, src unsafe.Pointer, bytes int) error {
	defer d.bind()()
	return cu.MemcpyHtoD(cu.DevicePtr(dst), src, int64(bytes))
}

func (d *cudaDevice) download(dst unsafe.Pointer, src ptr, bytes int) error {
	defer d.bind()()
	return cu.MemcpyDtoH(dst, cu.DevicePtr(src), int64(bytes))
}

func (d *cudaDevice) copy(dst, src ptr, bytes int) error {
	defer d.bind()()
	return cu.MemcpyDtoD(cu.DevicePtr(dst), cu.DevicePtr(src), int64(bytes))
}

func (d *cudaDevice) zero(dst ptr, bytes int) error {
	defer d.bind()()
	return cu.MemsetD8(cu.DevicePtr(dst), 0, int64(bytes))
}

func (d *cudaDevice) function(name string) (cu.Function, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if fn, ok := d.fns[name]; ok {
		return fn, nil
	}
	// Only the module that defines the kernel is asked: asking the others fails in the driver (named
	// symbol not found), errors compute-sanitizer reports by the hundred.
	i, ok := d.owner[name]
	if !ok || i >= len(d.mods) {
		return cu.Function{}, fmt.Errorf("gpu: no kernel named %s in the PTX", name)
	}
	fn, err := d.mods[i].Function(name)
	if err != nil {
		return cu.Function{}, fmt.Errorf("gpu: kernel %s in module %d: %w", name, i, err)
	}
	d.fns[name] = fn
	return fn, nil
}

func (d *cudaDevice) launch(kernel string, grid, block int, args ...any) error {
	if grid <= 0 {
		return nil
	}
	defer d.bind()()
	fn, err := d.function(kernel)
	if err != nil {
		return err
	}
	slots, _, err := packArgs(kernel, args)
	if err != nil {
		return err
	}
	params := make([]unsafe.Pointer, len(slots))
	for i := range slots {
		params[i] = unsafe.Pointer(&slots[i])
	}
	if err := fn.Launch(grid, 1, 1, block, 1, 1, 0, cu.Stream{}, params); err != nil {
		return fmt.Errorf("gpu: launching %s (%d blocks of %d): %w", kernel, grid, block, err)
	}
	return nil
}

func (d *cudaDevice) sync() error {
	defer d.bind()()
	return cu.Synchronize()
}

func (d *cudaDevice) close() {
	defer d.bind()()
	for _, m := range d.mods {
		m.Unload()
	}
	d.mods = nil
	d.ctx.Destroy()
}
