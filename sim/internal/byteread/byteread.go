// Package byteread is the bounds-checked little-endian reader that the simulation's binary formats
// (the state codec in sim, the replay file in sim/record) decode with. A read past the end never
// panics: the first short read sets Err, and every later read returns zeros, so a decoder reads its
// fields in order and checks Err once.
package byteread

import (
	"encoding/binary"
	"fmt"
)

// Reader reads fields in order from B, starting at Off.
type Reader struct {
	B   []byte // the input
	Off int    // the next byte to read
	Err error  // the first failed read's error; once set, reads return zeros
}

// Left is the number of bytes not read yet.
func (r *Reader) Left() int { return len(r.B) - r.Off }

// Take returns the next n bytes (a slice of B), or nil and sets Err when fewer are left.
func (r *Reader) Take(n int) []byte {
	if r.Err != nil {
		return nil
	}
	if n < 0 || n > r.Left() {
		r.Err = fmt.Errorf("offset %d (%d bytes wanted, %d left)", r.Off, n, r.Left())
		return nil
	}
	p := r.B[r.Off : r.Off+n]
	r.Off += n
	return p
}

// U64 reads a little-endian uint64.
func (r *Reader) U64() uint64 {
	if p := r.Take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// U32 reads a little-endian uint32.
func (r *Reader) U32() uint32 {
	if p := r.Take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

// Blob reads a uint32 length and that many bytes; what names the field in the error when the length
// runs past the end.
func (r *Reader) Blob(what string) []byte {
	n := r.U32()
	if r.Err == nil && uint64(n) > uint64(r.Left()) {
		r.Err = fmt.Errorf("%s: %d bytes, %d left", what, n, r.Left())
		return nil
	}
	return r.Take(int(n))
}
