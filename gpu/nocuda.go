//go:build !cuda

package gpu

// Available reports whether this build can run the CUDA backend. It is false: the binary was built
// without the cuda tag.
const Available = false

type cudaDevice struct{ device }

func openCUDA(int) (*cudaDevice, error) { return nil, ErrNoCUDA }
