//go:build !cuda

package gpu

import "errors"

// Available reports whether this build can run the CUDA backend. It is false: the binary was built
// without the cuda tag.
const Available = false

// ErrNoCUDA is what asking for the CUDA backend returns in a build without the cuda tag.
var ErrNoCUDA = errors.New("built without CUDA (rebuild with -tags cuda on a machine with the CUDA toolkit)")

type cudaDevice struct{ device }

func openCUDA(int) (*cudaDevice, error) { return nil, ErrNoCUDA }
