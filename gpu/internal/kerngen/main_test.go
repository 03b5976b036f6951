package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gpuDir is the gpu/ directory, from this package's.
const gpuDir = "../.."

// TestGeneratedIsCurrent fails when a generated file (the Go mirrors and wrappers, their test, the
// emulator's translation units) differs from what the kernel sources give now: run go generate ./gpu.
func TestGeneratedIsCurrent(t *testing.T) {
	files, err := readSources(filepath.Join(gpuDir, "kernels"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := generate(files)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range out {
		got, err := os.ReadFile(filepath.Join(gpuDir, name))
		if err != nil {
			t.Errorf("gpu/%s: %v: run go generate ./gpu (or make generate)", name, err)
		} else if !bytes.Equal(got, want) {
			t.Errorf("gpu/%s is stale (the kernel sources or kerngen changed): run go generate ./gpu (or make generate)", name)
		}
	}
	stale, err := staleEmuFiles(gpuDir, out)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range stale {
		t.Errorf("gpu/%s compiles a kernel file that is gone: run go generate ./gpu (or make generate)", name)
	}
}

// TestMirrorPadsWhereCAlignsMore: a field whose C type is aligned more than its Go mirror (float4 is
// 16-byte aligned in C, 4 in Go) gets explicit padding before it and at the end, so the Go offsets and
// size are C's.
func TestMirrorPadsWhereCAlignsMore(t *testing.T) {
	files := map[string][]byte{
		"tumble.cuh": []byte("struct float4 {\n\tfloat x, y, z, w;\n} __attribute__((aligned(16)));\n"),
		"a.cu": []byte(`#include "tumble.cuh"
// S is a test structure.
struct S {
	int a; // first
	float4 v;
	unsigned n;
};
TB_KERNEL void tb_a_b(const S *s, int n, float x) {}
TB_REGISTER(tb_a_b)
`),
	}
	out, err := generate(files)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out["kernels_gen.go"])
	for _, want := range []string{
		"_ [12]byte // C aligns v to 16 bytes\n\tV float4\n\tN uint32\n\t_ [12]byte // C pads S to a multiple of 16 bytes",
		"type aBArgs struct {\n\tS ptr // const S *\n\tN int32\n\tX float32\n}",
		`return k.dev.launch("tb_a_b", grid, block, a.S, a.N, a.X)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("generated Go lacks\n%s\n--- got:\n%s", want, got)
		}
	}
	if !strings.Contains(string(out["emu/k_a.cc"]), `{"v", offsetof(S, v)},`) {
		t.Errorf("emu/k_a.cc does not register S's layout:\n%s", out["emu/k_a.cc"])
	}
}

// TestUnsupportedParametersAreErrors: a parameter device.launch cannot pass, a kernel that is not
// registered and a structure field the parser cannot read are errors, not silent omissions.
func TestUnsupportedParametersAreErrors(t *testing.T) {
	for name, src := range map[string]string{
		"double":       "TB_KERNEL void tb_x(double d) {}\nTB_REGISTER(tb_x)\n",
		"by value":     "struct T {\n\tint a;\n};\nTB_KERNEL void tb_x(T t) {}\nTB_REGISTER(tb_x)\n",
		"unregistered": "TB_KERNEL void tb_x(int n) {}\n",
		"unknown type": "TB_KERNEL void tb_x(const Missing *m) {}\nTB_REGISTER(tb_x)\n",
		"method":       "struct T {\n\tint a;\n\tint f() { return a; }\n};\nTB_KERNEL void tb_x(T *t) {}\nTB_REGISTER(tb_x)\n",
	} {
		if _, err := generate(map[string][]byte{"x.cu": []byte(src)}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
