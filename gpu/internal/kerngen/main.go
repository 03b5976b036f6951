// Command kerngen writes the Go side of the CUDA kernels' interface from their sources, so that it is
// never kept by hand: from every `TB_KERNEL void name(params)` in gpu/kernels/*.cu and every structure a
// parameter points to (in the .cu files, layout.cuh, broad.cuh, and CUDA's vector types from
// tumble.cuh) it writes
//
//   - gpu/kernels_gen.go: the Go mirror of each structure, laid out as C lays it out, and one typed
//     wrapper per kernel (kernelSet.solverPrepare(grid, block, solverPrepareArgs{...})), so a launch
//     names every argument;
//   - gpu/layout_gen_test.go: the test that checks each mirror's size and every field's offset, and
//     each wrapper's argument sizes, against the C++ compiler on the kernel emulator;
//   - gpu/emu/k_NAME.cc and gpu/emu/layout.cc: the emulator's translation units, which compile the
//     kernels and register the structures' layouts for that test.
//
// It needs no CUDA toolkit. Run it with go generate ./gpu or make generate (make kernels runs it too,
// after nvcc); TestGeneratedIsCurrent fails when its output is stale.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	dir := flag.String("gpu", "", "the gpu/ directory (default: . if it holds kernels/, else gpu)")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "kerngen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	if dir == "" {
		dir = "gpu"
		if st, err := os.Stat("kernels"); err == nil && st.IsDir() {
			dir = "."
		}
	}
	files, err := readSources(filepath.Join(dir, "kernels"))
	if err != nil {
		return err
	}
	out, err := generate(files)
	if err != nil {
		return err
	}
	stale, err := staleEmuFiles(dir, out)
	if err != nil {
		return err
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return err
		}
		fmt.Println("kerngen: removed", filepath.Join(dir, name))
	}
	names := make([]string, 0, len(out))
	for name := range out {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(dir, name)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, out[name]) {
			continue
		}
		if err := os.WriteFile(p, out[name], 0o644); err != nil {
			return err
		}
		fmt.Println("kerngen: wrote", p)
	}
	return nil
}

// readSources reads the kernel sources (*.cu, *.cuh) of dir by file name.
func readSources(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".cu") || strings.HasSuffix(n, ".cuh") {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				return nil, err
			}
			files[n] = b
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no kernel sources in %s", dir)
	}
	return files, nil
}

// staleEmuFiles lists the emulator's k_*.cc files under dir that out does not write (their .cu is gone).
func staleEmuFiles(dir string, out map[string][]byte) ([]string, error) {
	have, err := filepath.Glob(filepath.Join(dir, "emu", "k_*.cc"))
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, p := range have {
		name := "emu/" + filepath.Base(p)
		if _, ok := out[name]; !ok {
			stale = append(stale, name)
		}
	}
	return stale, nil
}
