//go:build cuda

package gpu

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include <stdlib.h>

// The graph calls, through wrappers so that cuda.h's renaming macros (cuStreamBeginCapture_v2) apply
// here. Capture is thread-local: only this OS thread's calls join the graph (cuda.go binds the
// context to one locked thread per call).
static CUresult tbStreamCreate(CUstream *s) { return cuStreamCreate(s, CU_STREAM_DEFAULT); }
static CUresult tbCaptureBegin(CUstream s) { return cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL); }
static CUresult tbCaptureEnd(CUstream s, CUgraph *g) { return cuStreamEndCapture(s, g); }
static CUresult tbInstantiate(CUgraphExec *e, CUgraph g) { return cuGraphInstantiateWithFlags(e, g, 0); }
static CUresult tbGraphLaunch(CUgraphExec e, CUstream s) { return cuGraphLaunch(e, s); }
static void tbGraphFree(CUgraphExec e, CUgraph g) {
	if (e) {
		cuGraphExecDestroy(e);
	}
	cuGraphDestroy(g);
}
// tbLaunch launches f with n 8-byte argument slots (the driver reads each parameter's own size from
// the start of its slot, little endian).
static CUresult tbLaunch(void *f, unsigned grid, unsigned block, CUstream s, unsigned long long *slots, int n) {
	void *params[64];
	for (int i = 0; i < n && i < 64; i++) {
		params[i] = &slots[i];
	}
	return cuLaunchKernel((CUfunction)f, grid, 1, 1, block, 1, 1, 0, s, params, NULL);
}
static CUresult tbMemsetAsync(unsigned long long dst, size_t n, CUstream s) { return cuMemsetD8Async((CUdeviceptr)dst, 0, n, s); }
static CUresult tbCopyAsync(unsigned long long dst, unsigned long long src, size_t n, CUstream s) {
	return cuMemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, n, s);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// cudaGraph is a captured, instantiated graph.
type cudaGraph struct {
	g    C.CUgraph
	exec C.CUgraphExec
}

// graphStream returns the stream graphs are captured on and launched in, made on first use. It is a
// blocking stream: work on the legacy default stream (the plain launches, copies and read-backs of
// cuda.go) waits for it and it for them, so a graph keeps its place in the one ordered stream.
func (d *cudaDevice) graphStream() (C.CUstream, error) {
	if d.stream != nil {
		return C.CUstream(d.stream), nil
	}
	var s C.CUstream
	if err := cuErr("cuStreamCreate", C.tbStreamCreate(&s)); err != nil {
		return nil, err
	}
	d.stream = unsafe.Pointer(s)
	return s, nil
}

// makeGraph captures ops on the graph stream and instantiates the graph. Any failure ends the capture
// and returns the error (graphing then falls back to plain launches).
func (d *cudaDevice) makeGraph(ops []graphOp) (graph, error) {
	defer d.bind()()
	s, err := d.graphStream()
	if err != nil {
		return nil, err
	}
	// The kernels are looked up before the capture, which only the launches themselves should join.
	fns := make([]unsafe.Pointer, len(ops))
	for i := range ops {
		if o := &ops[i]; o.kernel != "" {
			fn, err := d.function(o.kernel)
			if err != nil {
				return nil, err
			}
			if len(o.slots) > 64 {
				return nil, fmt.Errorf("gpu: %s: %d arguments, more than a graph launch takes", o.kernel, len(o.slots))
			}
			// cu.Function holds the driver's CUfunction as its one field.
			fns[i] = *(*unsafe.Pointer)(unsafe.Pointer(&fn))
		}
	}
	if err := cuErr("cuStreamBeginCapture", C.tbCaptureBegin(s)); err != nil {
		return nil, err
	}
	slots := (*[64]C.ulonglong)(C.malloc(64 * 8))
	defer C.free(unsafe.Pointer(slots))
	var failed error
	for i := range ops {
		o := &ops[i]
		var r C.CUresult
		switch {
		case o.kernel != "":
			for k, v := range o.slots {
				slots[k] = C.ulonglong(v)
			}
			r = C.tbLaunch(fns[i], C.uint(o.grid), C.uint(o.block), s, &slots[0], C.int(len(o.slots)))
		case o.src != 0:
			r = C.tbCopyAsync(C.ulonglong(o.dst), C.ulonglong(o.src), C.size_t(o.bytes), s)
		default:
			r = C.tbMemsetAsync(C.ulonglong(o.dst), C.size_t(o.bytes), s)
		}
		if failed = cuErr("capturing "+o.kernel, r); failed != nil {
			break
		}
	}
	var g C.CUgraph
	if err := cuErr("cuStreamEndCapture", C.tbCaptureEnd(s, &g)); failed == nil {
		failed = err
	}
	if failed != nil {
		if g != nil {
			C.tbGraphFree(nil, g)
		}
		return nil, failed
	}
	var exec C.CUgraphExec
	if err := cuErr("cuGraphInstantiate", C.tbInstantiate(&exec, g)); err != nil {
		C.tbGraphFree(nil, g)
		return nil, err
	}
	return &cudaGraph{g: g, exec: exec}, nil
}

func (d *cudaDevice) runGraph(g graph) error {
	defer d.bind()()
	s, err := d.graphStream()
	if err != nil {
		return err
	}
	return cuErr("cuGraphLaunch", C.tbGraphLaunch(g.(*cudaGraph).exec, s))
}

func (d *cudaDevice) freeGraph(g graph) {
	defer d.bind()()
	cg := g.(*cudaGraph)
	C.tbGraphFree(cg.exec, cg.g)
}
