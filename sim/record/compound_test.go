package record_test

import (
	"path/filepath"
	"slices"
	"testing"

	"tumble/sim/record"
)

// TestReplayKeepsCompoundBodies records the furniture preset (tables, chairs, dumbbells, a thrown
// hammer: compound bodies) through the hammer's landing, saves and loads it: every step equal, and
// the loaded recording re-simulates from its keyframes (compounds and all) without a difference.
func TestReplayKeepsCompoundBodies(t *testing.T) {
	w := preset(t, "furniture", 1)
	r := record.New(0, 10)
	live := recordRun(t, w, r, 90)
	path := filepath.Join(t.TempDir(), "furniture.replay")
	if err := r.Save(path, "furniture"); err != nil {
		t.Fatal(err)
	}
	rp, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s <= 90; s++ {
		got, err := rp.Frame(s)
		if err != nil || !slices.Equal(got, live[s]) {
			t.Fatalf("step %d loaded differs (%v)", s, err)
		}
	}
	if err := rp.Check(record.CheckOptions{Workers: 2}); err != nil {
		t.Fatalf("the loaded recording re-simulates differently: %v", err)
	}
}
