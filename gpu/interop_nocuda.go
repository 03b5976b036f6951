//go:build !cuda

package gpu

// Interop is CUDA-GL interop (interop.go in the cuda build). Without the cuda tag NewInterop always
// refuses, and the other methods are never reached; they exist so that callers compile in both builds.
type Interop struct{}

// NewInterop refuses: this build has no CUDA. The error is the one line the window prints.
func (b *Backend) NewInterop(glVendor, glRenderer string) (*Interop, error) {
	return nil, DecideInterop(InteropFacts{GLVendor: glVendor, GLRenderer: glRenderer})
}

// Register does nothing without CUDA.
func (x *Interop) Register(glBuffer uint32, bytes int) error { return ErrNoCUDA }

// Map fails without CUDA.
func (x *Interop) Map() (uintptr, int, error) { return 0, 0, ErrNoCUDA }

// Unmap does nothing without CUDA.
func (x *Interop) Unmap() error { return ErrNoCUDA }

// Close does nothing without CUDA.
func (x *Interop) Close() {}
