package kernels

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestPTXIsCurrent fails when a kernel source changed after make kernels last compiled it, or when a
// .cu file has no PTX: the embedded PTX would then run different code from the sources that the
// emulated tests check.
func TestPTXIsCurrent(t *testing.T) {
	rec := Recorded()
	src := Sources()
	for name, b := range src {
		sum := sha256.Sum256(b)
		got := hex.EncodeToString(sum[:])
		want, ok := rec[name]
		switch {
		case !ok:
			t.Errorf("gpu/kernels/%s is not in ptx/SOURCES: run make kernels", name)
		case want != got:
			t.Errorf("gpu/kernels/%s changed after its PTX was made: run make kernels", name)
		}
	}
	for name := range rec {
		if _, ok := src[name]; !ok {
			t.Errorf("ptx/SOURCES names %s, which is gone: run make kernels", name)
		}
	}
	mods := map[string]bool{}
	for _, m := range Modules() {
		mods[m.Name] = true
		if !strings.Contains(string(m.PTX), ".entry") {
			t.Errorf("ptx/%s.ptx has no kernel entry", m.Name)
		}
	}
	for name := range src {
		if base, ok := strings.CutSuffix(name, ".cu"); ok && !mods[base] {
			t.Errorf("gpu/kernels/%s has no ptx/%s.ptx: run make kernels", name, base)
		}
	}
}
