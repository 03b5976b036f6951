// Package emu runs Tumble's CUDA kernels (gpu/kernels/*.cu) on the CPU, compiled as host C++ through
// cgo with the emulation in tumble.cuh: a launch runs every block of the grid in turn, each thread of a
// block as a plain call, or as a fiber when the kernel meets at __syncthreads. Device memory is host
// memory from Alloc, which ends each buffer at an inaccessible page (a write past its end faults) with a
// canary in the alignment slack that is checked after every launch.
//
// It exists so that make test checks the kernels' logic on machines without a GPU. Each kernel source
// is compiled here by a one-line k_*.cc file that includes it.
package emu

/*
#cgo CXXFLAGS: -std=gnu++17 -O2 -g -Wall -Wno-unused-function
#include <stdlib.h>
#include <string.h>
#include "emu.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// Alloc returns a zeroed buffer of the given size, addressed like a device pointer.
func Alloc(bytes int) (uintptr, error) {
	if bytes < 0 {
		return 0, fmt.Errorf("emu: allocate %d bytes", bytes)
	}
	p := uintptr(C.tb_alloc(C.size_t(bytes)))
	if p == 0 {
		return 0, fmt.Errorf("emu: out of memory allocating %d bytes", bytes)
	}
	return p, nil
}

// Free releases a buffer from Alloc.
func Free(p uintptr) { C.tb_free(C.uintptr_t(p)) }

// Bytes views n bytes at p (a buffer from Alloc) as a Go slice, for copies in and out.
func Bytes(p uintptr, n int) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(C.tb_addr(C.uintptr_t(p))), n)
}

// CopyIn copies n bytes from host memory at src to the buffer address p, through cgo as the CUDA
// driver's cuMemcpyHtoD is called: cgo's pointer check (GODEBUG cgocheck) looks at src as it does
// there, so host memory that the driver would refuse (Go memory holding Go pointers) fails here too.
func CopyIn(p uintptr, src unsafe.Pointer, n int) {
	if n > 0 {
		C.memcpy(C.tb_addr(C.uintptr_t(p)), src, C.size_t(n))
	}
}

// CopyOut copies n bytes from the buffer address p to host memory at dst, through cgo (see CopyIn).
func CopyOut(dst unsafe.Pointer, p uintptr, n int) {
	if n > 0 {
		C.memcpy(dst, C.tb_addr(C.uintptr_t(p)), C.size_t(n))
	}
}

// SetReverse makes launches run their blocks, and the threads of blocks without barriers, in reverse
// order (on) or in order (off, the default): what a GPU's threads do is run in any order, so a kernel
// whose result changes with it is not deterministic. Not safe while another goroutine launches.
func SetReverse(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.tb_set_reverse(v)
}

// Has reports whether a kernel of that name was compiled in.
func Has(name string) bool {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.tb_has_kernel(cs) != 0
}

// Launch runs the kernel name over grid blocks of block threads. params holds one 8-byte slot per
// kernel parameter (the value in its low bytes) and sizes the byte size the caller means each to have;
// a count or size that does not match the kernel's signature is an error, as is a thread that writes
// past a buffer's end or a block whose threads do not all reach the same barriers.
func Launch(name string, grid, block int, params []uint64, sizes []uintptr) error {
	if len(params) != len(sizes) {
		return errors.New("emu: params and sizes differ in length")
	}
	if grid <= 0 {
		return nil
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	n := len(params)
	// The slots and the pointer array live in C memory: cgo may not be handed Go pointers to Go pointers.
	mem := C.malloc(C.size_t(max(n, 1) * 24))
	defer C.free(mem)
	slots := unsafe.Slice((*uint64)(mem), max(n, 1))
	ptrs := unsafe.Slice((*unsafe.Pointer)(unsafe.Add(mem, 8*max(n, 1))), max(n, 1))
	szs := unsafe.Slice((*C.size_t)(unsafe.Add(mem, 16*max(n, 1))), max(n, 1))
	for i := range params {
		slots[i] = params[i]
		ptrs[i] = unsafe.Pointer(&slots[i])
		szs[i] = C.size_t(sizes[i])
	}
	var msg [512]C.char
	if C.tb_launch(cs, C.uint(grid), C.uint(block), (*unsafe.Pointer)(unsafe.Add(mem, 8*max(n, 1))), &szs[0], C.int(n), &msg[0], C.int(len(msg))) != 0 {
		return fmt.Errorf("emu: %s", C.GoString(&msg[0]))
	}
	return nil
}

// Sizeof returns sizeof of the named kernel structure (TbShape, float4, ...) as the host compiler lays
// it out (the same as nvcc for these plain structures), or 0 for a name it does not know. Every
// structure the kernels share with the host is registered (layout.h, by the files kerngen generates).
func Sizeof(name string) uintptr {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return uintptr(C.tb_sizeof(cs))
}

// Fields returns the number of fields of the named structure, or -1 for a name it does not know.
func Fields(name string) int {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return int(C.tb_fields(cs))
}

// Offsetof returns the offset of the named field of the named structure as the host compiler lays it
// out, and false when it knows no such structure or field.
func Offsetof(name, field string) (uintptr, bool) {
	cs, cf := C.CString(name), C.CString(field)
	defer C.free(unsafe.Pointer(cs))
	defer C.free(unsafe.Pointer(cf))
	off := C.tb_offsetof(cs, cf)
	return uintptr(off), off >= 0
}

// ParamSizes returns the byte size of each parameter of the named kernel, and false when there is no
// such kernel.
func ParamSizes(name string) ([]uintptr, bool) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var sizes [128]C.size_t
	n := int(C.tb_kernel_params(cs, &sizes[0], C.int(len(sizes))))
	if n < 0 {
		return nil, false
	}
	out := make([]uintptr, min(n, len(sizes)))
	for i := range out {
		out[i] = uintptr(sizes[i])
	}
	return out, true
}

// Sources returns the SHA-256 of gpu/kernels/ptx/SOURCES when this emulator was compiled: which
// kernel sources it runs (scripts/kernels.sh writes it into sources.h).
func Sources() string { return C.GoString(C.tb_sources()) }
