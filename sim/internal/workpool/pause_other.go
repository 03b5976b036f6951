//go:build !amd64

package workpool

// pause is a spin-wait hint; none on this architecture.
func pause() {}
