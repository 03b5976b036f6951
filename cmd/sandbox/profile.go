package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile creates path and starts a CPU profile into it (the -cpuprofile flag of window, run
// and bench). The returned stop ends the profile and closes the file; the caller defers it around the
// work it profiles. An empty path profiles nothing and stop does nothing. The error names the flag.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
