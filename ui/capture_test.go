package ui

import (
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// frameImage is a w x h test frame, a different grey for each k.
func frameImage(w, h, k int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(40 * k)
	}
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	return img
}

func recordVideo(t *testing.T, out string, n, w, h int) *Video {
	t.Helper()
	v, err := NewVideo(out)
	if err != nil {
		t.Fatal(err)
	}
	for k := range n {
		if err := v.Add(frameImage(w, h, k)); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func decodeGIF(t *testing.T, name string) *gif.GIF {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return g
}

// A GIF has every frame, the delay of the frame rate, and frames wider than gifMaxWidth halved; the
// PNG frames it was made from are removed.
func TestVideoGIFHasEveryFrameAtTheFrameRate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v.gif")
	v := recordVideo(t, out, 5, 2*gifMaxWidth+10, 100)
	var calls []int
	v.Progress = func(done, total int) { calls = append(calls, done*10+total) }
	got, err := v.Finish(25)
	if err != nil || got != out {
		t.Fatalf("Finish: %q, %v", got, err)
	}
	if !slices.Equal(calls, []int{15, 25, 35, 45, 55}) {
		t.Errorf("encoding progress (done*10+total): %v, want each of the 5 frames of 5", calls)
	}
	g := decodeGIF(t, out)
	if len(g.Image) != 5 || g.Delay[0] != 4 {
		t.Fatalf("%d frames, delay %d; want 5 and 4", len(g.Image), g.Delay[0])
	}
	if b := g.Image[0].Bounds(); b.Dx() != (2*gifMaxWidth+10)/4 || b.Dy() != 25 {
		t.Errorf("frame size %v, want halved twice", b)
	}
	if _, err := os.Stat(v.Dir); !os.IsNotExist(err) {
		t.Errorf("the frames directory %s is still there: %v", v.Dir, err)
	}
}

// A path with no known extension keeps the PNG sequence; a second recording into it is refused.
func TestVideoPNGSequenceIsKept(t *testing.T) {
	out := filepath.Join(t.TempDir(), "frames")
	v := recordVideo(t, out, 3, 32, 24)
	if got, err := v.Finish(60); err != nil || got != out {
		t.Fatalf("Finish: %q, %v", got, err)
	}
	for k := range 3 {
		f, err := os.Open(filepath.Join(out, "frame_00000"+string(rune('0'+k))+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != 32 {
			t.Fatalf("frame %d: %v", k, err)
		}
	}
	if _, err := NewVideo(out); err == nil || !strings.Contains(err.Error(), "already holds frames") {
		t.Errorf("a second recording into %s: %v", out, err)
	}
}

// Without ffmpeg, an MP4 fails with one line that says so and where the PNG frames are.
func TestVideoMP4WithoutFFmpegSaysWhereTheFramesAre(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := FindFFmpeg(); err == nil {
		t.Fatal("ffmpeg found on an empty PATH")
	}
	out := filepath.Join(t.TempDir(), "v.mp4")
	v := recordVideo(t, out, 2, 32, 24)
	_, err := v.Finish(60)
	if err == nil || !strings.HasPrefix(err.Error(), "ffmpeg not found") || !strings.Contains(err.Error(), "the PNG frames are in "+v.Dir) ||
		strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(v.Dir, "frame_000001.png")); err != nil {
		t.Errorf("the frames are not kept: %v", err)
	}
}

// With an ffmpeg on PATH (a fake one that records its arguments), the MP4 is made from the frames
// at the frame rate; an ffmpeg that fails leaves the frames and says what it printed.
func TestVideoMP4RunsFFmpeg(t *testing.T) {
	bin := t.TempDir()
	args := filepath.Join(t.TempDir(), "args")
	script := "#!/bin/sh\nif [ -n \"$FAKE_FFMPEG_FAIL\" ]; then echo 'codec trouble' >&2; exit 1; fi\n" +
		"echo \"$@\" > " + args + "\nfor a; do last=$a; done\necho mp4 > \"$last\"\n"
	if err := os.WriteFile(filepath.Join(bin, "ffmpeg"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	out := filepath.Join(t.TempDir(), "v.mp4")
	v := recordVideo(t, out, 3, 33, 25)
	if got, err := v.Finish(30); err != nil || got != out {
		t.Fatalf("Finish: %q, %v", got, err)
	}
	b, _ := os.ReadFile(args)
	for _, want := range []string{"-framerate 30 ", "frame_%06d.png", "libx264", "yuv420p", out} {
		if !strings.Contains(string(b), want) {
			t.Errorf("ffmpeg's arguments %q lack %q", b, want)
		}
	}
	t.Setenv("FAKE_FFMPEG_FAIL", "1")
	out2 := filepath.Join(t.TempDir(), "w.mp4")
	v = recordVideo(t, out2, 1, 8, 8)
	if _, err := v.Finish(30); err == nil || !strings.Contains(err.Error(), "codec trouble") || !strings.Contains(err.Error(), v.Dir) {
		t.Errorf("a failing ffmpeg: %v", err)
	}
}

// The Capture section and F12 by real input: a screenshot by the button and by the key (PNGs at
// the window's framebuffer size), a GIF recording started and stopped, an MP4 without ffmpeg (the
// error shown, the frames kept), and a PNG sequence.
func TestCaptureSectionByRealInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "caps")
	d := drive(t, Options{Scene: "pyramid20", Open: []string{"capture"}})
	d.typeInto("capture/Folder", dir)
	if d.a.capt.dir != dir {
		t.Fatalf("folder %q after typing %q", d.a.capt.dir, dir)
	}
	var fbw, fbh int
	onMain(func() { fbw, fbh = d.a.win.GetFramebufferSize() })
	pngs := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "tumble-*.png"))
		return m
	}
	d.click("capture/Screenshot (F12)")
	d.frames(1)
	d.move(100, 100) // over the 3D view: the key is the view's
	d.tap(glfw.KeyF12)
	d.settle()
	shots := pngs()
	if len(shots) != 2 {
		t.Fatalf("screenshots %v, want 2 (button, F12); last: %q", shots, d.a.capt.last)
	}
	// The status line says where F12's file went, with or without the Capture section open.
	d.frames(1)
	if m := d.a.panel.message; !strings.HasPrefix(m, "capture: saved "+dir) || !strings.HasSuffix(m, ".png") {
		t.Errorf("status line after F12: %q, want the saved file", m)
	}
	for _, s := range shots {
		img, err := readPNG(s)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != fbw || b.Dy() != fbh {
			t.Errorf("%s: %v, want %d x %d", s, b, fbw, fbh)
		}
	}
	if !strings.HasPrefix(d.a.capt.last, "saved "+dir) {
		t.Errorf("last %q", d.a.capt.last)
	}

	d.choose("capture/Video format", "GIF")
	d.click("capture/Record video")
	if d.a.capt.video == nil {
		t.Fatalf("not recording: %q", d.a.capt.last)
	}
	d.frames(5)
	n := d.a.capt.video.N
	d.click("capture/Stop")
	d.untilJobsDone()
	if d.a.capt.video != nil || d.a.capt.lastErr {
		t.Fatalf("still recording or failed: %q", d.a.capt.last)
	}
	out := strings.TrimPrefix(d.a.capt.last, "saved ")
	g := decodeGIF(t, out)
	if len(g.Image) < n || n < 5 {
		t.Errorf("GIF %d frames, %d recorded before Stop", len(g.Image), n)
	}
	if b := g.Image[0].Bounds(); b.Dx() != fbw/2 || b.Dy() != fbh/2 {
		t.Errorf("GIF frames %v, want the window halved", b)
	}

	t.Setenv("PATH", t.TempDir())
	d.choose("capture/Video format", "MP4 (ffmpeg)")
	d.click("capture/Record video")
	d.frames(2)
	d.click("capture/Stop")
	d.untilJobsDone()
	if !d.a.capt.lastErr || !strings.HasPrefix(d.a.capt.last, "ffmpeg not found") || !strings.Contains(d.a.capt.last, "the PNG frames are in "+dir) {
		t.Errorf("MP4 without ffmpeg: %q", d.a.capt.last)
	}

	d.choose("capture/Video format", "PNG frames")
	d.click("capture/Record video")
	d.frames(2)
	d.click("capture/Stop")
	seq := strings.TrimPrefix(d.a.capt.last, "saved ")
	if m, _ := filepath.Glob(filepath.Join(seq, "frame_*.png")); len(m) < 3 {
		t.Errorf("PNG sequence %q: %d frames", d.a.capt.last, len(m))
	}
}
