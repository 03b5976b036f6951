package record_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"tumble/sim/record"
)

// TestReplayFileRoundTripsBitForBit saves a recording with an edit in it and loads it back: every
// step equal, the edit kept, and the loaded recording re-simulates (Check) without a difference.
func TestReplayFileRoundTripsBitForBit(t *testing.T) {
	w := preset(t, "chain", 1)
	r := record.New(0, 25)
	live := recordRun(t, w, r, 60)
	w.SetVelocity(w.HandleAt(w.Bodies.Len()-1), [3]float32{1, 2, 3}, [3]float32{})
	if err := r.Record(w, "velocity"); err != nil {
		t.Fatal(err)
	}
	live[60] = record.PoseBits(&w.Bodies, nil)
	for range 20 {
		w.Step()
		r.Record(w, "")
		live[w.StepCount] = record.PoseBits(&w.Bodies, nil)
	}
	path := filepath.Join(t.TempDir(), "chain.replay")
	if err := r.Save(path, "chain"); err != nil {
		t.Fatal(err)
	}
	rp, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Scene != "chain" || !rp.Resumable || rp.First() != 0 || rp.Last() != 80 || rp.Edit(60) != "velocity" {
		t.Fatalf("loaded %q %d..%d, edit at 60 %q", rp.Scene, rp.First(), rp.Last(), rp.Edit(60))
	}
	for s := 0; s <= 80; s++ {
		got, err := rp.Frame(s)
		if err != nil || !slices.Equal(got, live[s]) {
			t.Fatalf("step %d loaded differs (%v)", s, err)
		}
	}
	if err := rp.Check(record.CheckOptions{Workers: 2}); err != nil {
		t.Fatalf("the loaded recording re-simulates differently: %v", err)
	}
}

// TestDamagedReplayFileIsRefused truncates a replay file at many lengths and flips bytes across it:
// each is refused with an error naming the file, none panics or loads.
func TestDamagedReplayFileIsRefused(t *testing.T) {
	w := preset(t, "chain", 1)
	r := record.New(0, 25)
	recordRun(t, w, r, 40)
	var buf bytes.Buffer
	r.WriteTo(&buf, "chain")
	data := buf.Bytes()
	dir := t.TempDir()
	try := func(what string, b []byte, want string) {
		t.Helper()
		path := filepath.Join(dir, "bad.replay")
		if err := writeFile(path, b); err != nil {
			t.Fatal(err)
		}
		rp, err := record.Load(path)
		if err == nil || rp != nil {
			t.Fatalf("%s: loaded", what)
		}
		if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: error %q does not name the file and %q", what, err, want)
		}
	}
	for _, cut := range []int{0, 5, 12, 100, len(data) / 2, len(data) - 1} {
		try("truncated", data[:cut], "")
	}
	try("truncated", data[:len(data)/2], "truncated")
	for _, at := range []int{9, 20, len(data) / 3, len(data) - 10} {
		bad := bytes.Clone(data)
		bad[at] ^= 0x40
		try("flipped", bad, "")
	}
	bad := bytes.Clone(data)
	bad[8] = 9
	try("version", bad, "version 9")
	try("not a replay", []byte("{\"name\": \"a scene\"}"), "bad magic")
}

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }

// TestWritingAReplayStreams: WriteTo allocates a small buffer, not the file. Built whole in memory, a
// 240 MB recording of the 10k pile took 2-3 times its size again while saving (1.27 GB at the peak
// for 229 MB recorded, 0.82 GB streamed: docs/PERF.md, "Memory").
func TestWritingAReplayStreams(t *testing.T) {
	w := preset(t, "pyramid20", 1)
	r := record.New(0, 1000)
	recordRun(t, w, r, 200)
	var count countingDiscard
	if _, err := r.WriteTo(&count, "pyramid20"); err != nil { // once first, so that anything lazily made is
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n, err := r.WriteTo(&count, "pyramid20")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte replay written with %d bytes allocated", n, alloc)
	if n < 1<<20 {
		t.Fatalf("the recording is only %d bytes: too small to tell streaming from building", n)
	}
	if alloc > 256<<10 {
		t.Errorf("writing a %d-byte replay allocated %d bytes: it should stream through a small buffer", n, alloc)
	}
}

// countingDiscard is io.Discard with a byte count.
type countingDiscard struct{ n int64 }

func (c *countingDiscard) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }
