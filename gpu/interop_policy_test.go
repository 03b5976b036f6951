package gpu

import (
	"errors"
	"strings"
	"testing"
)

func TestDecideInteropRefusesWithOneLineSayingWhy(t *testing.T) {
	nv := InteropFacts{CUDABuilt: true, GLVendor: "NVIDIA Corporation", GLRenderer: "NVIDIA H100 80GB HBM3/PCIe/SSE2",
		Asked: true, GLDevices: 1, OnBackendDevice: true}
	if err := DecideInterop(nv); err != nil {
		t.Fatalf("NVIDIA context on the backend's device refused: %v", err)
	}
	mesa := nv
	mesa.GLVendor, mesa.GLRenderer, mesa.Asked, mesa.GLDevices = "Mesa", "llvmpipe (LLVM 15.0.6, 256 bits)", false, 0
	nouveau := mesa
	nouveau.GLVendor, nouveau.GLRenderer = "nouveau", "NV174"
	for _, c := range []struct {
		name string
		f    InteropFacts
		says string
	}{
		{"no cuda tag", InteropFacts{GLVendor: "NVIDIA Corporation"}, "without -tags cuda"},
		{"emulated", InteropFacts{CUDABuilt: true, Emulated: true, GLVendor: "NVIDIA Corporation"}, "emulated"},
		{"llvmpipe", mesa, `"llvmpipe (LLVM 15.0.6, 256 bits)" by "Mesa"`},
		{"nouveau on NVIDIA hardware", nouveau, "not NVIDIA's driver"},
		{"not queried", func() InteropFacts { f := nv; f.Asked = false; return f }(), "not queried"},
		{"query failed", func() InteropFacts { f := nv; f.GLDevicesErr = errors.New("CUDA_ERROR_NO_DEVICE"); return f }(), "CUDA_ERROR_NO_DEVICE"},
		{"no device", func() InteropFacts { f := nv; f.GLDevices = 0; return f }(), "no CUDA device"},
		{"another GPU", func() InteropFacts { f := nv; f.OnBackendDevice = false; return f }(), "another GPU"},
	} {
		err := DecideInterop(c.f)
		if err == nil {
			t.Errorf("%s: interop allowed", c.name)
			continue
		}
		msg := err.Error()
		if !errors.Is(err, ErrInteropOff) || !strings.Contains(msg, c.says) || strings.Contains(msg, "\n") ||
			!strings.Contains(msg, "host copy") {
			t.Errorf("%s: %q (want one line wrapping ErrInteropOff, saying %q and what is done instead)", c.name, msg, c.says)
		}
	}
}

// TestEmulatedBackendRefusesInterop: whatever the build, the emulated device shares nothing with GL.
func TestEmulatedBackendRefusesInterop(t *testing.T) {
	b := NewEmulated()
	defer b.Close()
	x, err := b.NewInterop("NVIDIA Corporation", "NVIDIA H100")
	if err == nil || x != nil || !errors.Is(err, ErrInteropOff) {
		t.Fatalf("got %v, %v", x, err)
	}
	want := "emulated"
	if !Available {
		want = "without -tags cuda"
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%q does not say %q", err, want)
	}
}
