package kernels

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// narrowStackBounds is the most bytes of stack frame a thread of each narrow-phase kernel may take on
// sm_80, as ptxas compiles the embedded PTX. The driver reserves a kernel's frame for every thread the
// device can hold (2048 x 132 SMs on an H100, so 1 KB a thread is 277 MB), and a frame is local memory,
// which each access reaches through the caches from device memory. The hull kernel's clipping arrays
// (NC_HULL_SMALL_CLIP points, hull.cuh) are most of its 1,952 bytes; the mesh kernel's 24,016 are its
// NcMeshScratch (mesh.cuh).
var narrowStackBounds = map[string]int{
	"tb_narrow_collide":    1024,
	"tb_narrow_hulls":      2048,
	"tb_narrow_hulls_wide": 1024,
	"tb_narrow_meshes":     24576,
	"tb_narrow_compact":    256,
}

// TestNarrowStackFramesStayBounded compiles narrow.ptx's kernels for sm_80 with one ptxas -v (about
// 10 s of CPU: ptxas optimises each kernel as the driver would) and fails when one's stack frame
// passes its bound in narrowStackBounds. It needs the CUDA toolkit's ptxas (make test installs it)
// and is skipped without it.
func TestNarrowStackFramesStayBounded(t *testing.T) {
	ptxas, err := exec.LookPath("ptxas")
	if err != nil {
		t.Skip("no ptxas on PATH (the CUDA toolkit): the narrow kernels' stack frames are not checked")
	}
	var m *Module
	for _, mod := range Modules() {
		if mod.Name == "narrow" {
			m = &mod
		}
	}
	if m == nil {
		t.Fatal("no narrow module among the embedded PTX")
	}
	src := filepath.Join(t.TempDir(), "narrow.ptx")
	if err := os.WriteFile(src, m.PTX, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-arch=sm_80", "-v", "-o", os.DevNull}
	for name := range narrowStackBounds {
		args = append(args, "-e", name)
	}
	out, err := exec.Command(ptxas, append(args, src)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ptxas: %v\n%s", err, out)
	}
	frameRE := regexp.MustCompile(`Function properties for (\w+)\s+(\d+) bytes stack frame`)
	seen := map[string]bool{}
	for _, f := range frameRE.FindAllSubmatch(out, -1) {
		name := string(f[1])
		bound, ok := narrowStackBounds[name]
		if !ok {
			continue
		}
		seen[name] = true
		bytes, _ := strconv.Atoi(string(f[2]))
		if bytes > bound {
			t.Errorf("%s: %d bytes of stack frame a thread on sm_80, bound %d", name, bytes, bound)
		}
		t.Logf("%s: %d bytes of stack frame (bound %d)", name, bytes, bound)
	}
	for name := range narrowStackBounds {
		if !seen[name] {
			t.Errorf("ptxas -v reported no stack frame for %s:\n%s", name, out)
		}
	}
}
