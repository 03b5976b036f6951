package gpu

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestScanMatchesPrefixSums(t *testing.T) {
	d := emulated{}
	var s scanner
	defer s.release(d)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 255, 1024, 1025, 5000, 1 << 20} {
		in := make([]uint32, n)
		for i := range in {
			in[i] = uint32(rng.IntN(100))
		}
		var b buffer
		if err := grow(d, &b, 4*n); err != nil {
			t.Fatal(err)
		}
		if err := uploadSlice(d, b.p, in); err != nil {
			t.Fatal(err)
		}
		if err := s.run(d, b.p, b.p, n); err != nil {
			t.Fatal(err)
		}
		out := make([]uint32, n)
		if err := downloadSlice(d, out, b.p); err != nil {
			t.Fatal(err)
		}
		var sum uint32
		for i := range in {
			if out[i] != sum {
				t.Fatalf("n=%d: out[%d] = %d, want %d", n, i, out[i], sum)
			}
			sum += in[i]
		}
		release(d, &b)
	}
}

// TestEmulatorCatchesMistakes: the emulator must turn the mistakes a kernel test is there to catch
// into errors: a write past a buffer's end, wrong argument sizes and counts, unknown kernels.
func TestEmulatorCatchesMistakes(t *testing.T) {
	d := emulated{}
	p, err := d.alloc(4 * 10)
	if err != nil {
		t.Fatal(err)
	}
	defer d.free(p)
	// tb_fill_u32 over 11 values into a buffer of 10 writes 4 bytes past the end... but the guard page
	// is 16-byte aligned: 40 bytes leaves 8 bytes of canary slack, which the launch check must see.
	err = d.launch("tb_fill_u32", 1, 32, p, uint32(7), int32(11))
	if err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("overrun by one value: got %v, want a write-past-the-end error", err)
	}
	if err := d.launch("tb_fill_u32", 1, 32, p, int64(7), int32(10)); err == nil || !strings.Contains(err.Error(), "parameter 1") {
		t.Errorf("8-byte value for a 4-byte parameter: got %v", err)
	}
	if err := d.launch("tb_fill_u32", 1, 32, p, uint32(7)); err == nil {
		t.Error("missing parameter accepted")
	}
	if err := d.launch("no_such_kernel", 1, 32); err == nil {
		t.Error("unknown kernel accepted")
	}
	if err := d.launch("tb_scan_add", 1, 32, p, p, 10); err == nil {
		t.Error("an int argument (not int32) accepted")
	}
}
