package record

import (
	"bytes"
	"runtime"
	"testing"
)

// Inputs larger than compressChunk are compressed in pieces on several goroutines; each comes back
// whole from one flate reader, and its bytes do not depend on how many goroutines there were.
func TestCompressAllPiecesReadBackAndDoNotDependOnTheMachine(t *testing.T) {
	mk := func(n int, seed uint32) []byte {
		p := make([]byte, n)
		x := seed
		for i := range p {
			x = x*1664525 + 1013904223
			if i%3 == 0 { // runs of zeros and noise, as residual planes are
				p[i] = byte(x >> 24)
			}
		}
		return p
	}
	var in [][]byte
	for i, n := range []int{0, 100, compressChunk - 1, compressChunk, compressChunk + 1, 5*compressChunk + 17, 300_000} {
		in = append(in, mk(n, uint32(i)))
	}
	z := compressAll(in...)
	for i, p := range in {
		got, err := inflate(z[i])
		if err != nil {
			t.Fatalf("input %d (%d bytes): %v", i, len(p), err)
		}
		if !bytes.Equal(got, p) {
			t.Fatalf("input %d (%d bytes): read back %d bytes, not the input", i, len(p), len(got))
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := compressAll(in...)
	runtime.GOMAXPROCS(8)
	eight := compressAll(in...)
	for i := range in {
		if !bytes.Equal(one[i], z[i]) || !bytes.Equal(eight[i], z[i]) {
			t.Errorf("input %d (%d bytes): different bytes with 1, 8 and the machine's goroutines", i, len(in[i]))
		}
	}
	// A small input is one flate stream, as a recording's were before the pieces.
	if single := deflate(in[1], true); !bytes.Equal(single, z[1]) {
		t.Errorf("a 100-byte input: not compressed as one piece")
	}
}
