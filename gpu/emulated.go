package gpu

import (
	"fmt"
	"unsafe"

	"tumble/gpu/emu"
)

// emulated is the device that runs kernels through the kernel emulator (package emu) on the CPU.
type emulated struct{}

func (emulated) Name() string { return "emulated kernels on the CPU" }

func (emulated) alloc(bytes int) (ptr, error) {
	p, err := emu.Alloc(bytes)
	return ptr(p), err
}

func (emulated) free(p ptr) { emu.Free(uintptr(p)) }

// upload and download cross cgo with the host pointer as the CUDA driver's copies do, so cgo's
// pointer check refuses here, in every build, what it refuses on a GPU.
func (emulated) upload(dst ptr, src unsafe.Pointer, bytes int) error {
	emu.CopyIn(uintptr(dst), src, bytes)
	return nil
}

func (emulated) download(dst unsafe.Pointer, src ptr, bytes int) error {
	emu.CopyOut(dst, uintptr(src), bytes)
	return nil
}

func (emulated) copy(dst, src ptr, bytes int) error {
	copy(emu.Bytes(uintptr(dst), bytes), emu.Bytes(uintptr(src), bytes))
	return nil
}

func (emulated) zero(dst ptr, bytes int) error {
	clear(emu.Bytes(uintptr(dst), bytes))
	return nil
}

func (emulated) launch(kernel string, grid, block int, args ...any) error {
	slots, sizes, err := packArgs(kernel, args)
	if err != nil {
		return err
	}
	if err := emu.Launch(kernel, grid, block, slots, sizes); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	return nil
}

func (emulated) sync() error { return nil }

func (emulated) close() {}
