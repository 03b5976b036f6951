package gpu

import (
	"errors"
	"fmt"

	"tumble/sim"
)

// Backend kinds, as Open, the -backend flags and the window's panel name them.
const (
	KindCPU      = "cpu"  // sim's own CPU stages
	KindCUDA     = "cuda" // the CUDA backend on the first GPU (a build with -tags cuda)
	KindEmulated = "emu"  // the CUDA backend on the kernel emulator (every build; slow)
)

// ErrNoCUDA is what asking for the CUDA backend returns in a build without the cuda tag (declared in
// every build, so that callers can test for it in both).
var ErrNoCUDA = errors.New("built without CUDA (rebuild with -tags cuda on a machine with the CUDA toolkit)")

// Kinds lists the kinds this build offers, the CPU first: cuda only in a build with CUDA, the
// emulated CUDA backend always (it runs the GPU code path on the CPU, slowly, for inspection).
func Kinds() []string {
	if Available {
		return []string{KindCPU, KindCUDA, KindEmulated}
	}
	return []string{KindCPU, KindEmulated}
}

// Open makes a backend of the kind: nil for cpu (a World without a backend steps on its CPU stages),
// the CUDA backend on the first GPU for cuda, the CUDA backend on the kernel emulator for emu. It is
// the program's one choice of backend: cmd/sandbox's -backend flags and the window (through the
// factory cmd/sandbox gives it) all come here.
//
// The fallback policy is the same everywhere: Open never puts one backend in place of another. When it
// fails nothing is made, the world stays where it is (on the CPU at the start), and the error is the
// one line that says why; asked for cuda in a build without CUDA, that error wraps ErrNoCUDA, and the
// program goes on on the CPU (DESIGN.md, "Errors and limits"). Whether the world's settings suit the
// backend is the caller's check (sim.CheckFor with the backend's Capabilities).
func Open(kind string) (sim.Backend, error) {
	switch kind {
	case KindCPU, "":
		return nil, nil
	case KindCUDA:
		b, err := New()
		if err != nil {
			return nil, fmt.Errorf("cuda: %w", err)
		}
		return b, nil
	case KindEmulated:
		return NewEmulated(), nil
	}
	return nil, fmt.Errorf("unknown backend %q (want cpu, cuda or emu)", kind)
}

// SetTimed makes the backend wait for the device after each stage (Timed), so that World.Stats.Timings
// splits the step by stage: the panel's and the bench command's stage times.
func (b *Backend) SetTimed(on bool) { b.Timed = on }

// RerunCount is the number of steps that ran again because a list overflowed (Reruns).
func (b *Backend) RerunCount() int { return b.Reruns }
