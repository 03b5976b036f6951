package gpu

// The kernels' typed wrappers and struct mirrors (kernels_gen.go) come from the kernel sources.
//go:generate go run ./internal/kerngen

import (
	"fmt"
	"unsafe"
)

// ptr is a device address: a CUDA device pointer, or a host address on the emulated device.
type ptr uint64

// device is what the backend needs of a GPU: memory, copies and kernel launches, all in one stream.
// The CUDA driver (cuda.go, build tag cuda) and the kernel emulator (emulated.go) implement it, so the
// whole launch sequence runs, and is tested, on machines without a GPU.
type device interface {
	// Name says which device this is, for logs and benchmarks.
	Name() string
	alloc(bytes int) (ptr, error)
	free(p ptr)
	upload(dst ptr, src unsafe.Pointer, bytes int) error
	download(dst unsafe.Pointer, src ptr, bytes int) error
	copy(dst, src ptr, bytes int) error
	zero(dst ptr, bytes int) error
	// launch runs kernel over grid blocks of block threads. Each arg is a ptr or a 4- or 8-byte
	// scalar (int32, uint32, float32, int64, uint64); its size must match the kernel's parameter.
	launch(kernel string, grid, block int, args ...any) error
	// sync waits until every launch and copy has finished.
	sync() error
	close()
}

// packArgs turns launch arguments into 8-byte slots and the byte size each stands for.
func packArgs(kernel string, args []any) ([]uint64, []uintptr, error) {
	slots := make([]uint64, len(args))
	sizes := make([]uintptr, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case ptr:
			slots[i], sizes[i] = uint64(v), 8
		case buffer:
			slots[i], sizes[i] = uint64(v.p), 8
		case int32:
			slots[i], sizes[i] = uint64(uint32(v)), 4
		case uint32:
			slots[i], sizes[i] = uint64(v), 4
		case float32:
			slots[i], sizes[i] = uint64(*(*uint32)(unsafe.Pointer(&v))), 4
		case int64:
			slots[i], sizes[i] = uint64(v), 8
		case uint64:
			slots[i], sizes[i] = v, 8
		default:
			return nil, nil, fmt.Errorf("gpu: %s: argument %d has type %T (want ptr, buffer, int32, uint32, float32, int64 or uint64)", kernel, i, a)
		}
	}
	return slots, sizes, nil
}

// buffer is a device allocation with its size in bytes.
type buffer struct {
	p     ptr
	bytes int
}

// grow makes b hold at least bytes, reallocating (contents lost) when it is smaller. New space is
// allocated with headroom so that a slowly growing world does not reallocate every step.
func grow(d device, b *buffer, bytes int) error {
	if b.bytes >= bytes && b.p != 0 {
		return nil
	}
	if b.p != 0 {
		d.free(b.p)
		b.p, b.bytes = 0, 0
	}
	size := max(bytes+bytes/4, 256)
	if _, emu := base(d).(emulated); emu {
		// Exact sizes on the emulator: its guard page then catches a thread reading or writing past
		// the end of what was asked for.
		size = bytes
	}
	p, err := d.alloc(size)
	if err != nil {
		return err
	}
	b.p, b.bytes = p, size
	return nil
}

// release frees b.
func release(d device, b *buffer) {
	if b.p != 0 {
		d.free(b.p)
	}
	*b = buffer{}
}

// at returns the address of element i of a buffer of elements of the given size.
func (b buffer) at(i, size int) ptr { return b.p + ptr(i*size) }

// hostStaging makes *s a slice of n elements in an allocation of its own, if it is not one already.
// Host memory handed to the driver's copies must hold no Go pointers: cgo checks the whole allocation a
// pointer points into, so an array field of a struct that also holds slices (the writers' palettes)
// panics with "Go pointer to unpinned Go pointer" on a real GPU, and on the emulator, which crosses
// cgo the same way. A slice made here, of pointer-free elements, is safe.
func hostStaging[T any](s *[]T, n int) {
	if len(*s) != n {
		*s = make([]T, n)
	}
}

// uploadSlice copies s to the device at dst. s must not point into memory that holds Go pointers (see
// hostStaging).
func uploadSlice[T any](d device, dst ptr, s []T) error {
	if len(s) == 0 {
		return nil
	}
	var z T
	return d.upload(dst, unsafe.Pointer(&s[0]), len(s)*int(unsafe.Sizeof(z)))
}

// downloadSlice fills s from the device at src.
func downloadSlice[T any](d device, s []T, src ptr) error {
	if len(s) == 0 {
		return nil
	}
	var z T
	return d.download(unsafe.Pointer(&s[0]), src, len(s)*int(unsafe.Sizeof(z)))
}

// blocks is the number of blocks of the given size that cover n threads.
func blocks(n, size int) int { return (n + size - 1) / size }
