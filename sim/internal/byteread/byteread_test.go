package byteread

import (
	"strings"
	"testing"
)

func TestReaderStopsAtTheFirstShortRead(t *testing.T) {
	r := Reader{B: []byte{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c', 9}}
	if v := r.U32(); v != 1 {
		t.Fatalf("U32 = %d, want 1", v)
	}
	if v := r.U64(); v != 2 {
		t.Fatalf("U64 = %d, want 2", v)
	}
	if b := r.Blob("name"); string(b) != "abc" || r.Err != nil {
		t.Fatalf("Blob = %q, %v", b, r.Err)
	}
	if v := r.U32(); v != 0 || r.Err == nil || !strings.Contains(r.Err.Error(), "offset 19 (4 bytes wanted, 1 left)") {
		t.Fatalf("short U32 = %d, err %v", v, r.Err)
	}
	off := r.Off
	if p := r.Take(1); p != nil || r.Off != off {
		t.Fatalf("a read after an error returned %v and moved to %d", p, r.Off)
	}
}

func TestBlobLongerThanTheInputIsAnError(t *testing.T) {
	r := Reader{B: []byte{200, 0, 0, 0, 'x'}}
	if b := r.Blob("delta"); b != nil || r.Err == nil || r.Err.Error() != "delta: 200 bytes, 1 left" {
		t.Fatalf("Blob = %v, err %v", b, r.Err)
	}
	r = Reader{B: []byte{1, 2}}
	if p := r.Take(-1); p != nil || r.Err == nil {
		t.Fatalf("Take(-1) = %v, err %v", p, r.Err)
	}
}
