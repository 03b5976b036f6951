package gpu

import (
	"errors"
	"fmt"
	"strings"

	"tumble/render/instance"
	"tumble/sim"
)

// InteropFacts is what decides whether the renderer can take its instances straight from the device
// (CUDA-GL interop) or must draw from a host copy of the bodies.
type InteropFacts struct {
	CUDABuilt bool // the binary was built with the cuda tag
	Emulated  bool // the backend runs on the kernel emulator, not a GPU
	// GLVendor and GLRenderer are the GL context's GL_VENDOR and GL_RENDERER strings.
	GLVendor, GLRenderer string
	// Asked: cuGLGetDevices was called (only for an NVIDIA context and a real device); then
	// GLDevices is how many CUDA devices drive the context, GLDevicesErr its error, and
	// OnBackendDevice whether the backend's device is among them.
	Asked           bool
	GLDevices       int
	GLDevicesErr    error
	OnBackendDevice bool
}

// fallback ends every refusal: what the window does instead.
const fallback = "; drawing from a host copy of the bodies (World.Sync, then the CPU fill)"

// ErrInteropOff is wrapped by every refusal of DecideInterop.
var ErrInteropOff = errors.New("interop off")

// LooksNVIDIA reports whether a GL context is NVIDIA's own driver, the only one CUDA can share buffers
// with: its vendor string says NVIDIA. (Mesa's contexts say Mesa even on NVIDIA hardware, through
// nouveau or zink, and CUDA cannot interoperate with them.)
func LooksNVIDIA(vendor, renderer string) bool {
	return strings.Contains(strings.ToUpper(vendor), "NVIDIA")
}

// DecideInterop returns nil when interop can be used, or an error that is the one line saying why
// not (it wraps ErrInteropOff). It is pure, so every branch is tested without a GPU.
func DecideInterop(f InteropFacts) error {
	why := ""
	switch {
	case !f.CUDABuilt:
		why = "this build has no CUDA (built without -tags cuda)"
	case f.Emulated:
		why = "the emulated CUDA device runs on the CPU and shares no memory with OpenGL"
	case !LooksNVIDIA(f.GLVendor, f.GLRenderer):
		why = fmt.Sprintf("the OpenGL context is on %q by %q, not NVIDIA's driver", f.GLRenderer, f.GLVendor)
	case !f.Asked:
		why = "the OpenGL context's CUDA devices were not queried"
	case f.GLDevicesErr != nil:
		why = fmt.Sprintf("cuGLGetDevices found no CUDA device for the OpenGL context (%v)", f.GLDevicesErr)
	case f.GLDevices == 0:
		why = "cuGLGetDevices found no CUDA device for the OpenGL context"
	case !f.OnBackendDevice:
		why = "the OpenGL context is on another GPU than the CUDA backend's"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s%s", ErrInteropOff, why, fallback)
}

// WriteInstances writes b's instance records of w (Backend.WriteInstances) straight into the GL
// buffer glBuffer of capacity records: registered if it is new or was reallocated, mapped, written,
// unmapped. Call it on the GL thread, between steps (under the session's lock), before drawing.
func (x *Interop) WriteInstances(b *Backend, w *sim.World, glBuffer uint32, capacity int, st *instance.Style) (instance.Written, error) {
	if !b.drawsOnDevice(w) {
		return instance.Written{}, ErrNotOnDevice // before mapping: nothing to write
	}
	if err := x.Register(glBuffer, capacity*InstanceBytes); err != nil {
		return instance.Written{}, err
	}
	p, size, err := x.Map()
	if err != nil {
		return instance.Written{}, err
	}
	in, err := b.WriteInstances(w, p, min(capacity, size/InstanceBytes), st)
	if uerr := x.Unmap(); err == nil {
		err = uerr
	}
	return in, err
}

// NewGLWriter returns an instance.GLWriter that writes b's instances or debug lines straight into one
// GL buffer through an Interop of its own (NewInterop: the error is the one line saying why not).
func (b *Backend) NewGLWriter(glVendor, glRenderer string) (instance.GLWriter, error) {
	x, err := b.NewInterop(glVendor, glRenderer)
	if err != nil {
		return nil, err
	}
	return glWriter{b, x}, nil
}

// glWriter is an Interop bound to its backend.
type glWriter struct {
	b *Backend
	x *Interop
}

func (g glWriter) WriteInstances(w *sim.World, glBuffer uint32, capacity int, st *instance.Style) (instance.Written, error) {
	return g.x.WriteInstances(g.b, w, glBuffer, capacity, st)
}

func (g glWriter) WriteDebugLines(w *sim.World, glBuffer uint32, capacity int, st *instance.DebugStyle) (instance.DebugLines, error) {
	return g.x.WriteDebugLines(g.b, w, glBuffer, capacity, st)
}

func (g glWriter) Close() { g.x.Close() }
