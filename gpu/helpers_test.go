package gpu

import (
	"testing"

	"tumble/sim"
)

// testBodies uploads b into new device arrays (the backend's own upload), released when the test ends.
func testBodies(t testing.TB, d device, b *sim.Bodies) *bodyBuffers {
	t.Helper()
	bb, err := uploadBodies(d, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bb.release(d) })
	return bb
}

// must fails the test at the first non-nil error.
func must(t testing.TB, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
