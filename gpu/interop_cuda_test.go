//go:build cuda

package gpu

import (
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"unsafe"

	"tumble/gpu/internal/egl"
	"tumble/render/instance"
)

// These run only on a machine with an NVIDIA GPU (make test builds them with -tags cuda and does not
// run them); without a CUDA device they skip.

func openOrSkip(t *testing.T) *Backend {
	t.Helper()
	d, err := openCUDA(0)
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	return newBackend(d)
}

// TestTransformsOnTheGPUMatchFill: the transforms kernel compiled by nvcc, on the GPU, writes what
// instance.Fill writes (the emulated tests check the same source on the CPU).
func TestTransformsOnTheGPUMatchFill(t *testing.T) {
	b := openOrSkip(t)
	defer b.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 257, 5000, 100000} {
		w := randomShapesWorld(t, rng, n)
		putBodies(t, b, w)
		contacts := make([]int32, n)
		for i := range contacts {
			contacts[i] = int32(rng.IntN(12))
		}
		hl := map[int][4]float32{rng.IntN(n): instance.ColorSelected}
		for _, mode := range []instance.ColorBy{instance.ColorByBody, instance.ColorByType, instance.ColorBySleep, instance.ColorByContact} {
			compareWithFill(t, b, w, mode, contacts, hl)
		}
		w.Close()
	}
}

// TestInteropWritesTheGLBuffer: through a headless GL context (EGL) on the GPU, the shim registers a
// GL buffer, maps it, the kernel writes the records into it, and GL reads back exactly Fill's records;
// a larger buffer (the renderer's growth) is registered anew.
func TestInteropWritesTheGLBuffer(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b := openOrSkip(t)
	defer b.Close()
	ctx, err := egl.Open()
	if err != nil {
		if os.Getenv("TUMBLE_REQUIRE_EGL") != "" { // scripts/gpu-run.sh: EGL must work there
			t.Fatalf("TUMBLE_REQUIRE_EGL is set but: %v", err)
		}
		t.Skipf("no headless GL context: %v", err)
	}
	defer ctx.Close()
	t.Logf("GL %q by %q on %s", ctx.Renderer(), ctx.Vendor(), ctx.Display())
	x, err := b.NewInterop(ctx.Vendor(), ctx.Renderer())
	if err != nil {
		if LooksNVIDIA(ctx.Vendor(), ctx.Renderer()) {
			t.Fatalf("refused on NVIDIA's GL: %v", err)
		}
		t.Skipf("%v", err)
	}
	defer x.Close()
	rng := rand.New(rand.NewPCG(8, 9))
	for _, n := range []int{100, 20000} {
		w := randomShapesWorld(t, rng, n)
		putBodies(t, b, w)
		f, want := fillRecords(t, w, instance.ColorByBody, nil, nil)
		buf := ctx.NewBuffer(len(want) * InstanceBytes)
		res, err := x.WriteInstances(b, w, buf, len(want), styleOf(instance.ColorByBody, nil, w, nil))
		if err != nil {
			t.Fatal(err)
		}
		got := make([]instance.Instance, len(want))
		ctx.Read(buf, unsafe.Slice((*byte)(unsafe.Pointer(&got[0])), len(got)*InstanceBytes))
		checkRecords(t, instance.ColorByBody, got, want, res, &f)
		x.Close() // unregistered before GL deletes the buffer
		ctx.Delete(buf)
		if x, err = b.NewInterop(ctx.Vendor(), ctx.Renderer()); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
}
