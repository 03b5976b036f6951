package kernels

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
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

// TestEveryKernelHasOneOwningModule: each TB_KERNEL in the sources is the entry of exactly one PTX
// module, the one compiled from its own .cu file, so a device looks it up there alone.
func TestEveryKernelHasOneOwningModule(t *testing.T) {
	mods := Modules()
	seen := map[string]string{}
	for _, m := range mods {
		for _, e := range m.Entries() {
			if other, ok := seen[e]; ok {
				t.Errorf("kernel %s is in modules %s and %s", e, other, m.Name)
			}
			seen[e] = m.Name
		}
	}
	owners := Owners(mods)
	kernelRE := regexp.MustCompile(`TB_KERNEL\s+void\s+(\w+)\s*\(`)
	n := 0
	for name, src := range Sources() {
		if !strings.HasSuffix(name, ".cu") {
			continue
		}
		for _, k := range kernelRE.FindAllSubmatch(src, -1) {
			n++
			i, ok := owners[string(k[1])]
			if !ok {
				t.Errorf("%s: kernel %s is in no PTX module", name, k[1])
			} else if want := strings.TrimSuffix(name, ".cu"); mods[i].Name != want {
				t.Errorf("kernel %s is owned by module %s, want %s", k[1], mods[i].Name, want)
			}
		}
	}
	if n < 40 || len(owners) != n {
		t.Errorf("%d kernels in the sources, %d entries in the PTX", n, len(owners))
	}
}
