package gpu

import (
	"strings"
	"testing"
)

// The emulated device's copies cross cgo with the host pointer, as the CUDA driver's do, so cgo's
// pointer check catches here, in CI, host staging that would panic on a GPU (such as an array field
// of a struct that also holds slices, uploaded whole).
func TestEmulatedCopiesAreCheckedByCgoAsTheDriversAre(t *testing.T) {
	var d device = emulated{}
	var buf buffer
	if err := grow(d, &buf, 64); err != nil {
		t.Fatal(err)
	}
	defer release(d, &buf)
	bad := struct {
		refs    []int
		palette [4]float4
	}{refs: make([]int, 1)}
	func() {
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(fmtAny(r), "Go pointer") {
				t.Errorf("uploading an array inside a struct that holds a slice: recovered %v, want cgo's pointer check", r)
			}
		}()
		uploadSlice(d, buf.p, bad.palette[:])
	}()
	var good []float4
	hostStaging(&good, 4)
	if err := uploadSlice(d, buf.p, good); err != nil {
		t.Errorf("a staging slice of its own: %v", err)
	}
	if err := downloadSlice(d, good, buf.p); err != nil {
		t.Errorf("downloading into it: %v", err)
	}
}

func fmtAny(v any) string {
	if e, ok := v.(error); ok {
		return e.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}
