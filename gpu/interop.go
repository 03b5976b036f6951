//go:build cuda

package gpu

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include <cudaGL.h>

// The driver's entry points, through wrappers so that cudaGL.h's and cuda.h's renaming macros
// (cuGLGetDevices_v2, cuGraphicsResourceGetMappedPointer_v2) apply here and not in Go.
static CUresult tbGLDevices(unsigned *count, CUdevice *devs, unsigned max) {
	return cuGLGetDevices(count, devs, max, CU_GL_DEVICE_LIST_ALL);
}
static CUresult tbRegister(CUgraphicsResource *res, GLuint buf) {
	return cuGraphicsGLRegisterBuffer(res, buf, CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD);
}
static CUresult tbMap(CUgraphicsResource res) { return cuGraphicsMapResources(1, &res, 0); }
static CUresult tbUnmap(CUgraphicsResource res) { return cuGraphicsUnmapResources(1, &res, 0); }
static CUresult tbMappedPointer(CUgraphicsResource res, unsigned long long *p, size_t *size) {
	CUdeviceptr d = 0;
	CUresult r = cuGraphicsResourceGetMappedPointer(&d, size, res);
	*p = (unsigned long long)d;
	return r;
}
static CUresult tbUnregister(CUgraphicsResource res) { return cuGraphicsUnregisterResource(res); }
static const char *tbErrorName(CUresult r) {
	const char *s = 0;
	if (cuGetErrorName(r, &s) != CUDA_SUCCESS || s == 0) {
		return "CUDA_ERROR_UNKNOWN";
	}
	return s;
}
*/
import "C"

import (
	"fmt"
	"slices"
)

// cuErr turns a driver result into an error naming the call.
func cuErr(call string, r C.CUresult) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	return fmt.Errorf("gpu: %s: %s", call, C.GoString(C.tbErrorName(r)))
}

// glDevices lists the CUDA devices that drive the current GL context (cuGLGetDevices). The GL
// context must be current on this OS thread.
func glDevices() ([]int, error) {
	var devs [8]C.CUdevice
	var n C.uint
	if err := cuErr("cuGLGetDevices", C.tbGLDevices(&n, &devs[0], C.uint(len(devs)))); err != nil {
		return nil, err
	}
	out := make([]int, 0, n)
	for _, d := range devs[:min(int(n), len(devs))] {
		out = append(out, int(d))
	}
	return out, nil
}

// Interop shares OpenGL buffers with the backend's CUDA context: a buffer registered once (again when
// the renderer reallocates it) is mapped for each frame, written by kernels, and unmapped before GL
// draws from it. Every method must be called on the thread where the GL context is current (the
// window's main thread); each binds the CUDA context there for its duration.
type Interop struct {
	d     *cudaDevice
	res   C.CUgraphicsResource
	buf   uint32 // the registered GL buffer, 0 when none
	bytes int    // its size when registered
	ptr   uintptr
	size  int
}

// NewInterop checks that interop can work (see DecideInterop: the GL context, named by its vendor and
// renderer strings, must be on the CUDA device that runs b) and returns the shim. The error is the
// one line the window prints when it draws from a host copy instead.
func (b *Backend) NewInterop(glVendor, glRenderer string) (*Interop, error) {
	f := InteropFacts{CUDABuilt: true, GLVendor: glVendor, GLRenderer: glRenderer}
	d, onCUDA := base(b.dev).(*cudaDevice)
	f.Emulated = !onCUDA
	if onCUDA && LooksNVIDIA(glVendor, glRenderer) {
		f.Asked = true
		unbind := d.bind()
		devs, err := glDevices()
		unbind()
		f.GLDevicesErr = err
		f.OnBackendDevice = slices.Contains(devs, int(d.dev))
		f.GLDevices = len(devs)
	}
	if err := DecideInterop(f); err != nil {
		return nil, err
	}
	x := &Interop{d: d}
	b.closers = append(b.closers, x.Close)
	return x, nil
}

// errClosed is what an Interop whose backend was closed (switched away from) answers.
var errClosed = fmt.Errorf("gpu: interop: the backend was closed")

// Register makes the GL buffer glBuffer of the given size the one Map maps. Registering is costly, so
// it is done only when the buffer or its size changed (the renderer reallocates a buffer that grows).
func (x *Interop) Register(glBuffer uint32, bytes int) error {
	if x.d == nil {
		return errClosed
	}
	if glBuffer == x.buf && bytes == x.bytes && x.buf != 0 {
		return nil
	}
	defer x.d.bind()()
	if x.buf != 0 {
		if err := cuErr("cuGraphicsUnregisterResource", C.tbUnregister(x.res)); err != nil {
			return err
		}
		x.buf, x.bytes = 0, 0
	}
	if err := cuErr("cuGraphicsGLRegisterBuffer", C.tbRegister(&x.res, C.GLuint(glBuffer))); err != nil {
		return err
	}
	x.buf, x.bytes = glBuffer, bytes
	return nil
}

// Map maps the registered buffer for CUDA and returns its device address and size in bytes. GL must
// not touch the buffer until Unmap.
func (x *Interop) Map() (uintptr, int, error) {
	if x.d == nil {
		return 0, 0, errClosed
	}
	if x.buf == 0 {
		return 0, 0, fmt.Errorf("gpu: interop: no buffer registered")
	}
	defer x.d.bind()()
	if err := cuErr("cuGraphicsMapResources", C.tbMap(x.res)); err != nil {
		return 0, 0, err
	}
	var p C.ulonglong
	var size C.size_t
	if err := cuErr("cuGraphicsResourceGetMappedPointer", C.tbMappedPointer(x.res, &p, &size)); err != nil {
		C.tbUnmap(x.res)
		return 0, 0, err
	}
	x.ptr, x.size = uintptr(p), int(size)
	return x.ptr, x.size, nil
}

// Unmap hands the buffer back to GL; the driver orders it after the kernels that wrote it.
func (x *Interop) Unmap() error {
	if x.d == nil {
		return errClosed
	}
	defer x.d.bind()()
	x.ptr, x.size = 0, 0
	return cuErr("cuGraphicsUnmapResources", C.tbUnmap(x.res))
}

// Close unregisters the buffer; the Interop is unusable after it. The backend's Close calls it too,
// before it destroys the context, so an app that switches backends need not order the two.
func (x *Interop) Close() {
	if x.d == nil {
		return
	}
	if x.buf != 0 {
		unbind := x.d.bind()
		C.tbUnregister(x.res)
		unbind()
		x.buf, x.bytes = 0, 0
	}
	x.d = nil
}
