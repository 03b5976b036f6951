package ui

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/render"
)

// Capture: screenshots of the window (F12 or the Capture section's button) and video, which always
// writes each frame as a PNG file in a directory and at the end keeps that sequence or encodes it to
// an animated GIF (the standard library) or an MP4 (ffmpeg, when it is installed).

// VideoFormat is how a recording is kept when it stops.
type VideoFormat int

const (
	VideoPNG VideoFormat = iota // the PNG sequence, as is
	VideoGIF                    // an animated GIF (image/gif, Plan 9 palette, Floyd-Steinberg)
	VideoMP4                    // an H.264 MP4 made by ffmpeg
)

// VideoFormatNames are the formats as the Capture section's combo shows them.
var VideoFormatNames = []string{"PNG frames", "GIF", "MP4 (ffmpeg)"}

// FormatOf is the format a video output path asks for: .gif, .mp4, or anything else a directory of
// PNG frames.
func FormatOf(path string) VideoFormat {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".gif":
		return VideoGIF
	case ".mp4":
		return VideoMP4
	}
	return VideoPNG
}

// ffmpegName is the program MP4 encoding runs (found on PATH).
const ffmpegName = "ffmpeg"

// FindFFmpeg returns ffmpeg's path, or an error saying it is not installed.
func FindFFmpeg() (string, error) {
	p, err := exec.LookPath(ffmpegName)
	if err != nil {
		return "", fmt.Errorf("ffmpeg not found on PATH (install it for MP4)")
	}
	return p, nil
}

// gifMaxWidth is the widest GIF frame kept: wider frames are halved until they fit.
const gifMaxWidth = 640

// Video records frames to Out. Frames go to Dir as frame_000000.png, ... as they come; Finish keeps
// them (VideoPNG, where Dir is Out) or encodes them to Out and removes Dir.
type Video struct {
	Out    string      // the output: a directory (PNG), a .gif or a .mp4 file
	Format VideoFormat // from Out's extension unless set otherwise by NewVideoFormat
	Dir    string      // where the PNG frames are written
	N      int         // frames written so far
	// Progress, when not nil, is called as Finish encodes a GIF, with the frames done and the total.
	Progress func(done, total int)
	enc      png.Encoder
}

// NewVideo starts a recording to out, whose extension picks the format (see FormatOf).
func NewVideo(out string) (*Video, error) { return NewVideoFormat(out, FormatOf(out)) }

// NewVideoFormat starts a recording to out in the format f. The frame directory is out itself for
// PNG frames and out + ".frames" otherwise; it is created, and must not hold frames already.
func NewVideoFormat(out string, f VideoFormat) (*Video, error) {
	v := &Video{Out: out, Format: f, Dir: out, enc: png.Encoder{CompressionLevel: png.BestSpeed}}
	if f != VideoPNG {
		v.Dir = out + ".frames"
	}
	if err := os.MkdirAll(v.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("video frames: %w", err)
	}
	if _, err := os.Stat(v.frame(0)); err == nil {
		return nil, fmt.Errorf("video frames: %s already holds frames (%s); choose another path", v.Dir, filepath.Base(v.frame(0)))
	}
	return v, nil
}

func (v *Video) frame(i int) string { return filepath.Join(v.Dir, fmt.Sprintf("frame_%06d.png", i)) }

// Add writes img as the next frame.
func (v *Video) Add(img image.Image) error {
	name := v.frame(v.N)
	if err := writePNG(name, img, &v.enc); err != nil {
		return err
	}
	v.N++
	return nil
}

// Finish ends the recording at fps frames per second: it returns the path written (Out) or an error
// that says where the PNG frames are. A GIF or MP4 made removes the frame directory.
func (v *Video) Finish(fps float64) (string, error) {
	return v.FinishContext(context.Background(), fps)
}

// FinishContext is Finish that stops when ctx is done (the window's Cancel): no output is written
// then, and the error says where the PNG frames are, kept.
func (v *Video) FinishContext(ctx context.Context, fps float64) (string, error) {
	if v.N == 0 {
		return "", fmt.Errorf("%s: no frames recorded", v.Out)
	}
	fps = max(fps, 1)
	var err error
	switch v.Format {
	case VideoPNG:
		return v.Dir, nil
	case VideoGIF:
		err = v.encodeGIF(ctx, fps)
	case VideoMP4:
		err = v.encodeMP4(ctx, fps)
	}
	if err != nil {
		return "", fmt.Errorf("%w; the PNG frames are in %s", err, v.Dir)
	}
	os.RemoveAll(v.Dir)
	return v.Out, nil
}

// encodeGIF reads the frames back, quantises each to the Plan 9 palette with Floyd-Steinberg
// dithering (halving frames wider than gifMaxWidth) and writes them as one looping GIF.
func (v *Video) encodeGIF(ctx context.Context, fps float64) error {
	delay := max(int(math.Round(100/fps)), 2) // hundredths of a second; browsers treat < 2 as 10
	anim := &gif.GIF{}
	for i := range v.N {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("gif %s: %w", v.Out, err)
		}
		img, err := readPNG(v.frame(i))
		if err != nil {
			return err
		}
		for img.Bounds().Dx() > gifMaxWidth {
			img = halve(img)
		}
		p := image.NewPaletted(img.Bounds(), palette.Plan9)
		draw.FloydSteinberg.Draw(p, p.Rect, img, img.Bounds().Min)
		anim.Image = append(anim.Image, p)
		anim.Delay = append(anim.Delay, delay)
		if v.Progress != nil {
			v.Progress(i+1, v.N)
		}
	}
	f, err := os.Create(v.Out)
	if err != nil {
		return fmt.Errorf("gif: %w", err)
	}
	if err := gif.EncodeAll(f, anim); err != nil {
		f.Close()
		return fmt.Errorf("gif: %s: %w", v.Out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("gif: %w", err)
	}
	return nil
}

// encodeMP4 runs ffmpeg on the frames: H.264, yuv420p (what players expect), even sizes.
func (v *Video) encodeMP4(ctx context.Context, fps float64) error {
	bin, err := FindFFmpeg()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, "-y", "-loglevel", "error", "-framerate", fmt.Sprintf("%g", fps),
		"-i", filepath.Join(v.Dir, "frame_%06d.png"), "-c:v", "libx264", "-pix_fmt", "yuv420p",
		"-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", v.Out)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		os.Remove(v.Out) // ffmpeg killed half way
		return fmt.Errorf("mp4 %s: %w", v.Out, ctx.Err())
	}
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return fmt.Errorf("ffmpeg (%s) making %s: %v: %s", bin, v.Out, err, msg)
	}
	if _, err := os.Stat(v.Out); err != nil {
		return fmt.Errorf("ffmpeg (%s) ran but wrote no %s", bin, v.Out)
	}
	return nil
}

// halve scales img to half its size, averaging 2 x 2 blocks.
func halve(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx()/2, b.Dy()/2))
	src := image.NewRGBA(b)
	draw.Draw(src, b, img, b.Min, draw.Src)
	for y := range out.Rect.Dy() {
		for x := range out.Rect.Dx() {
			for c := range 4 {
				s := 0
				for _, o := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
					s += int(src.Pix[(2*y+o[1])*src.Stride+(2*x+o[0])*4+c])
				}
				out.Pix[y*out.Stride+x*4+c] = uint8(s / 4)
			}
		}
	}
	return out
}

func writePNG(name string, img image.Image, enc *png.Encoder) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := enc.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	return f.Close()
}

func readPNG(name string) (image.Image, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return img, nil
}

// capture is the window's capture state (the Capture section and F12).
type capture struct {
	dir     string    // where screenshots and videos go ("" until first shown: ".")
	format  int32     // VideoFormat of the next recording
	shotDue bool      // take a screenshot after this frame is drawn
	video   *Video    // the recording under way, if any
	started time.Time // when it started (its frame rate is frames over wall time)
	last    string    // the last file written, or the last error
	lastErr bool      // last is an error
	seq     int       // counts the reports (the status line shows each new one)
	// ffmpegErr is why MP4 cannot be made (nil: ffmpeg is installed), as of ffmpegChecked.
	ffmpegErr     error
	ffmpegChecked bool
	// encoding is the stopped recording being encoded off the UI thread, nil when none.
	encoding *longJob
	// encodeHook, when set (tests), is called by the encoder after each frame it encodes.
	encodeHook func(done int)
}

// stamp is a name for a new capture in dir: tumble-YYYYMMDD-HHMMSS with ext, -2, -3, ... if taken.
func (c *capture) stamp(ext string) string {
	base := filepath.Join(c.captureDir(), "tumble-"+time.Now().Format("20060102-150405"))
	name := base + ext
	for k := 2; ; k++ {
		if _, err := os.Stat(name); errors.Is(err, os.ErrNotExist) {
			if _, err := os.Stat(name + ".frames"); errors.Is(err, os.ErrNotExist) {
				return name
			}
		}
		name = fmt.Sprintf("%s-%d%s", base, k, ext)
	}
}

func (c *capture) captureDir() string {
	if c.dir == "" {
		return "."
	}
	return c.dir
}

func (c *capture) report(path string, err error) {
	c.seq++
	if err != nil {
		c.last, c.lastErr = err.Error(), true
		return
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	c.last, c.lastErr = "saved "+path, false
}

// Screenshot asks for the next drawn frame to be saved as a PNG (the F12 key).
func (a *App) Screenshot() { a.capt.shotDue = true }

// startVideo starts recording into the capture directory in the chosen format.
func (a *App) startVideo() {
	c := &a.capt
	ext := [...]string{"", ".gif", ".mp4"}[c.format]
	if err := os.MkdirAll(c.captureDir(), 0o755); err != nil {
		c.report("", fmt.Errorf("capture folder: %w", err))
		return
	}
	v, err := NewVideoFormat(c.stamp(ext), VideoFormat(c.format))
	if err != nil {
		c.report("", err)
		return
	}
	c.video, c.started, c.last, c.lastErr = v, time.Now(), "recording to "+v.Dir, false
	c.seq++
}

// stopVideo ends the recording and encodes it at the frame rate it was recorded at, off the UI
// thread (a GIF of a few hundred frames takes tens of seconds): the Capture section shows its
// progress and a Cancel button meanwhile, and the outcome reaches the section and the status line.
func (a *App) stopVideo() {
	c := &a.capt
	v := c.video
	c.video = nil
	fps := min(float64(v.N)/max(time.Since(c.started).Seconds(), 1e-3), 60)
	if v.Format == VideoPNG || v.N == 0 { // nothing to encode
		c.report(v.Finish(fps))
		return
	}
	hook := c.encodeHook
	c.encoding = a.startJob("encoding "+filepath.Base(v.Out), "frames", func(j *longJob) func() {
		v.Progress = func(done, _ int) {
			j.done.Store(int64(done))
			if hook != nil {
				hook(done)
			}
		}
		out, err := v.FinishContext(j.ctx, fps)
		if j.ctx.Err() != nil {
			out, err = "", fmt.Errorf("encoding %s cancelled: nothing written; the PNG frames are kept in %s", filepath.Base(v.Out), v.Dir)
		}
		return func() {
			c.encoding = nil
			c.report(out, err)
		}
	})
	if v.Format == VideoGIF { // ffmpeg says nothing of its progress: its bar shows the time
		c.encoding.total.Store(int64(v.N))
	}
}

// endCapture stops a recording still under way when the window closes and lets its encoding finish,
// and says what became of it.
func (a *App) endCapture() {
	c := &a.capt
	if c.video == nil && !a.running(c.encoding) {
		a.waitJobs() // a save finishes, a load is dropped
		return
	}
	if c.video != nil {
		a.stopVideo()
	}
	a.waitJobs()
	a.notef("recording stopped as the window closed: %s", c.last)
}

// captureFrame, after a frame is drawn into the window's back buffer (fbw x fbh pixels), saves it as
// a screenshot if one is due and appends it to the recording under way.
func (a *App) captureFrame(fbw, fbh int) {
	c := &a.capt
	if !c.shotDue && c.video == nil {
		return
	}
	img := render.ReadPixels(0, fbw, fbh)
	if c.shotDue {
		c.shotDue = false
		name := c.stamp(".png")
		err := os.MkdirAll(c.captureDir(), 0o755)
		if err == nil {
			err = writePNG(name, img, &png.Encoder{})
		}
		if err != nil {
			err = fmt.Errorf("screenshot: %w", err)
		}
		c.report(name, err)
	}
	if c.video != nil {
		if err := c.video.Add(img); err != nil {
			c.report("", fmt.Errorf("recording stopped: %w; the frames so far are in %s", err, c.video.Dir))
			c.video = nil
		}
	}
}

// captureSection is the Capture section: screenshot, video format and recording, folder, last result.
func (a *App) captureSection() {
	g := &a.w
	c := &a.capt
	if c.dir == "" {
		c.dir = "."
	}
	if g.button("Screenshot (F12)") {
		a.Screenshot()
	}
	g.inputText("Folder", &c.dir)
	// Two lines whatever the state: the format (or what is being recorded), then Record, or Stop
	// and the frames so far, or the encoding's progress and its Cancel.
	switch {
	case c.video != nil:
		keepLine("recording " + VideoFormatNames[c.video.Format])
		n := c.video.N
		if g.button("Stop") {
			a.stopVideo()
		}
		imgui.SameLine()
		imgui.Textf("%d frames", n)
	case a.running(c.encoding):
		keepLine("encoding: the window goes on meanwhile")
		a.jobBar(c.encoding, "Cancel encoding")
	default:
		if g.combo("Video format", &c.format, VideoFormatNames) || !c.ffmpegChecked {
			_, c.ffmpegErr = FindFFmpeg() // looked for again each time a format is picked
			c.ffmpegChecked = true
		}
		if g.button("Record video") {
			a.startVideo()
		}
		if VideoFormat(c.format) == VideoMP4 && c.ffmpegErr != nil { // under the button: it moves nothing
			imgui.Text(c.ffmpegErr.Error() + "; the PNG frames will be kept")
		}
	}
	if c.last != "" {
		if c.lastErr {
			imgui.PushStyleColor(imgui.StyleColorText, imgui.Vec4{X: 1, Y: 0.45, Z: 0.4, W: 1})
			imgui.Text(c.last)
			imgui.PopStyleColor()
		} else {
			imgui.Text(c.last)
		}
	}
}
