// Package kernels holds Tumble's CUDA kernel sources (*.cu, with tumble.cuh) and the PTX that
// make kernels compiles from them with nvcc, embedded so that a cuda-tagged binary needs no toolkit at
// run time. ptx/SOURCES records the SHA-256 of every source the PTX was made from; a test fails when a
// source no longer matches it.
package kernels

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed ptx/*.ptx ptx/SOURCES
var ptx embed.FS

//go:embed *.cu *.cuh
var sources embed.FS

// Module is one compiled kernel file.
type Module struct {
	Name string // the source's base name, e.g. "scan"
	PTX  []byte
}

// Modules returns every embedded PTX module, sorted by name.
func Modules() []Module {
	names, _ := fs.Glob(ptx, "ptx/*.ptx")
	sort.Strings(names)
	out := make([]Module, 0, len(names))
	for _, n := range names {
		b, _ := ptx.ReadFile(n)
		out = append(out, Module{Name: strings.TrimSuffix(path.Base(n), ".ptx"), PTX: b})
	}
	return out
}

// Sources returns the kernel sources by file name (the .cu files and the headers).
func Sources() map[string][]byte {
	out := map[string][]byte{}
	entries, _ := sources.ReadDir(".")
	for _, e := range entries {
		b, _ := sources.ReadFile(e.Name())
		out[e.Name()] = b
	}
	return out
}

// Recorded returns ptx/SOURCES: the hash each source had when the PTX was made, by file name.
func Recorded() map[string]string {
	b, _ := ptx.ReadFile("ptx/SOURCES")
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 {
			out[f[1]] = f[0]
		}
	}
	return out
}
