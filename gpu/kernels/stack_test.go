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
// (NC_HULL_SMALL_CLIP points, hull.cuh) are most of its 1,952 bytes; the mesh kernel's gathered points
// and clipping arrays (NC_MESH_SMALL_PTS and NC_MESH_SMALL_CLIP, mesh.cuh) 2,816 of its 3,696. The
// wide kernels keep their arrays in global scratch.
var narrowStackBounds = map[string]int{
	"tb_narrow_collide":     1024,
	"tb_narrow_hulls":       2048,
	"tb_narrow_hulls_wide":  1024,
	"tb_narrow_meshes":      3840,
	"tb_narrow_meshes_wide": 1024,
	"tb_narrow_compact":     256,
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

// smallBlockThreads is the largest block gpu/small.go launches tb_small_substeps with: the kernel's
// registers a thread times it must fit one SM's 65,536, or the launch fails.
const smallBlockThreads = 512

// TestSmallKernelFitsItsBlock compiles tb_small_substeps (small.ptx) for sm_80 with ptxas -v and fails
// when a block of smallBlockThreads would not fit an SM's registers, or when its stack frame passes
// 256 bytes: the one block runs every phase of a small world's step, and a frame is local memory that
// each access reaches through the caches. Skipped without ptxas, as the narrow kernels' test is.
func TestSmallKernelFitsItsBlock(t *testing.T) {
	ptxas, err := exec.LookPath("ptxas")
	if err != nil {
		t.Skip("no ptxas on PATH (the CUDA toolkit): the small kernel's registers are not checked")
	}
	var m *Module
	for _, mod := range Modules() {
		if mod.Name == "small" {
			m = &mod
		}
	}
	if m == nil {
		t.Fatal("no small module among the embedded PTX")
	}
	src := filepath.Join(t.TempDir(), "small.ptx")
	if err := os.WriteFile(src, m.PTX, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ptxas, "-arch=sm_80", "-v", "-o", os.DevNull, "-e", "tb_small_substeps", src).CombinedOutput()
	if err != nil {
		t.Fatalf("ptxas: %v\n%s", err, out)
	}
	frame := regexp.MustCompile(`Function properties for tb_small_substeps\s+(\d+) bytes stack frame`).FindSubmatch(out)
	regs := regexp.MustCompile(`Used (\d+) registers`).FindSubmatch(out)
	if frame == nil || regs == nil {
		t.Fatalf("ptxas -v reported no stack frame or registers for tb_small_substeps:\n%s", out)
	}
	bytes, _ := strconv.Atoi(string(frame[1]))
	n, _ := strconv.Atoi(string(regs[1]))
	t.Logf("tb_small_substeps: %d registers, %d bytes of stack frame a thread", n, bytes)
	// The SM allocates a warp's registers in units of 256, that is a thread's in eights.
	if r := (n + 7) / 8 * 8; r*smallBlockThreads > 65536 {
		t.Errorf("tb_small_substeps: %d registers a thread (%d allocated), %d in a block of %d: more than an SM's 65,536",
			n, r, r*smallBlockThreads, smallBlockThreads)
	}
	if bytes > 256 {
		t.Errorf("tb_small_substeps: %d bytes of stack frame a thread, bound 256", bytes)
	}
}
