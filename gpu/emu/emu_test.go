package emu

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
)

// TestEmulatorIsCurrent fails when the emulator was compiled from other kernel sources than the ones
// ptx/SOURCES lists: Go's build cache does not see the .cu files this package includes from
// gpu/kernels, so sources.h (rewritten by make kernels) is what makes it rebuild.
func TestEmulatorIsCurrent(t *testing.T) {
	b, err := os.ReadFile("../kernels/ptx/SOURCES")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got, want := Sources(), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("the emulator was built from other kernel sources (%s, want %s): run make kernels", got, want)
	}
}
