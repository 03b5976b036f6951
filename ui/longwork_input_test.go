package ui

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// untilJobsDone draws frames until no long work is under way (at most 20000 frames: a test that
// never ends would be worse than one that fails).
func (d *driver) untilJobsDone() int {
	d.t.Helper()
	n := 0
	for ; n < 20000 && len(d.a.jobs) > 0; n++ {
		d.frames(1)
	}
	if len(d.a.jobs) > 0 {
		d.t.Fatalf("long work still under way after %d frames: %s", n, d.a.jobs[0].what)
	}
	return n
}

// recordGIF records frames frames of a GIF into dir by real clicks, and returns the frames recorded.
func (d *driver) recordGIF(dir string, frames int) int {
	d.t.Helper()
	d.typeInto("capture/Folder", dir)
	d.choose("capture/Video format", "GIF")
	d.click("capture/Record video")
	if d.a.capt.video == nil {
		d.t.Fatalf("not recording: %q", d.a.capt.last)
	}
	d.frames(frames)
	return d.a.capt.video.N
}

// Stopping a GIF recording leaves the window drawing while the GIF is encoded: the frames after Stop
// show the encoding's progress bar, its count going up, until the GIF is written with every frame.
func TestTheWindowGoesOnDrawingWhileAGIFIsEncoded(t *testing.T) {
	dir := t.TempDir()
	d := drive(t, Options{Scene: "stack", Width: 480, Height: 360, NoShadows: true, Open: []string{"capture"}})
	d.recordGIF(dir, 12)
	d.click("capture/Stop")
	n := int(d.a.capt.encoding.total.Load())
	drawn, bars := 0, 0
	var progress []int64
	for k := 0; k < 20000 && len(d.a.jobs) > 0; k++ {
		d.frames(1)
		drawn++
		if d.has("capture/progress##Cancel encoding") {
			bars++
			mark(d.find("capture/progress##Cancel encoding"))
			if j := d.a.capt.encoding; j != nil {
				progress = append(progress, j.done.Load())
			}
		}
	}
	if bars < 2 {
		t.Errorf("%d of the frames drawn after Stop showed the progress bar, want 2 or more (the encoding held the window)", bars)
	}
	if len(progress) > 1 && progress[len(progress)-1] <= progress[0] {
		t.Errorf("the progress stayed at %d over %d frames", progress[0], len(progress))
	}
	if d.a.capt.lastErr || !strings.HasPrefix(d.a.capt.last, "saved ") {
		t.Fatalf("after encoding: %q", d.a.capt.last)
	}
	g := decodeGIF(t, strings.TrimPrefix(d.a.capt.last, "saved "))
	if len(g.Image) != n {
		t.Errorf("GIF of %d frames, %d recorded", len(g.Image), n)
	}
	t.Logf("%d frames recorded; %d frames drawn while they were encoded", n, drawn)
}

// Cancel stops the encoding: no GIF is written, the PNG frames are kept and the line says where.
func TestCancellingAGIFsEncodingWritesNoGIFAndKeepsTheFrames(t *testing.T) {
	dir := t.TempDir()
	d := drive(t, Options{Scene: "stack", Width: 480, Height: 360, NoShadows: true, Open: []string{"capture"}})
	// The encoder waits after its first frame until the Cancel button has been clicked, so that the
	// click lands while it runs however fast it is.
	gate := make(chan struct{})
	var first atomic.Bool
	d.a.capt.encodeHook = func(done int) {
		if done == 1 {
			first.Store(true)
			<-gate
		}
	}
	d.recordGIF(dir, 12)
	d.click("capture/Stop")
	for k := 0; k < 20000 && !first.Load(); k++ {
		d.frames(1)
	}
	out := d.a.capt.encoding.ctx // the job, to see it cancelled
	d.click("capture/Cancel encoding")
	if out.Err() == nil {
		t.Errorf("Cancel did not cancel the encoding")
	}
	close(gate)
	d.untilJobsDone()
	if !d.a.capt.lastErr || !strings.Contains(d.a.capt.last, "cancelled") || !strings.Contains(d.a.capt.last, "PNG frames are kept in") {
		t.Errorf("after Cancel: %q", d.a.capt.last)
	}
	gifs, _ := filepath.Glob(filepath.Join(dir, "*.gif"))
	frames, _ := filepath.Glob(filepath.Join(dir, "*.gif.frames", "frame_*.png"))
	if len(gifs) != 0 || len(frames) < 12 {
		t.Errorf("after Cancel: GIFs %v, %d PNG frames kept", gifs, len(frames))
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}
