package main

import (
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"tumble/scenes"
	"tumble/ui"
)

// headlessHelp is what the app says, after its one line, when it cannot open a window.
const headlessHelp = `The headless commands work without one:
  sandbox run -scene stack -steps 600 -trace out.csv   # step a scene, write a trace
  sandbox bench -scene pile                            # time a step, by stage
  sandbox scenes                                       # list the preset scenes
Screenshots and videos render headless through EGL, with no display (-gl egl, the default then):
  sandbox -scene stack -frames 60 -screenshot out.png
  sandbox -scene stack -frames 300 -video out.gif   # or .mp4, or a folder
or under a virtual display:
  xvfb-run -a -s '-screen 0 1280x800x24' sandbox -scene stack -frames 60 -screenshot out.png
`

// glEnv sets -gl's default (like MuJoCo's MUJOCO_GL).
const glEnv = "TUMBLE_GL"

// cmdWindow is "sandbox [flags]": the window app, or with -frames a headless render to a PNG
// (-screenshot) and/or a video of every frame (-video).
func cmdWindow(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	scene := fs.String("scene", "pyramid", "scene file, or preset name ("+strings.Join(scenes.Names(), ", ")+")")
	frames := fs.Int("frames", 0, "with -screenshot or -video: render this many frames off screen, one step each")
	shot := fs.String("screenshot", "", "write the last frame to this PNG file and exit")
	video := fs.String("video", "", "with -frames: record every frame to out.gif, out.mp4 (needs ffmpeg) or a directory of PNG frames, and exit")
	width := fs.Int("width", 1280, "window or screenshot width")
	height := fs.Int("height", 800, "window or screenshot height")
	noPanel := fs.Bool("no-panel", false, "leave the ImGui panel out")
	noShadows := fs.Bool("no-shadows", false, "draw without the shadow map (faster on a software renderer)")
	sel := fs.String("select", "", "select the body of this name at the start")
	debug := fs.String("debug", "", "debug layers to draw, comma separated: "+strings.Join(ui.DebugNames, ","))
	color := fs.String("color", "", "colour bodies by: body, type, sleep or contact")
	yaw := fs.Float64("yaw", 0, "camera yaw, degrees (0: the default view)")
	pitch := fs.Float64("pitch", 0, "camera pitch, degrees, > 0 looks down (0: the default view)")
	runFor := fs.Duration("for", 0, "close the window after this long and print frames and steps per second (e.g. 10s)")
	orbit := fs.Float64("orbit", 0, "with -frames: turn the camera this many degrees about its target after each frame (with -perf: the frame times of a camera move)")
	perf := fs.Bool("perf", false, "with -frames: print the frame time split (step, panel, fill, upload, draw) and the OpenGL context")
	cpuProfile := fs.String("cpuprofile", "", "with -frames: write a CPU profile of the frames (step, panel, fill, draw) to this file (go tool pprof)")
	open := fs.String("open", "", "the panel sections open at the start, comma separated: "+strings.Join(ui.SectionNames, ","))
	glDefault := os.Getenv(glEnv)
	if glDefault == "" {
		glDefault = ui.GLAuto
	}
	glFrom := fs.String("gl", glDefault, "where the OpenGL context comes from: auto (EGL for -frames runs without $DISPLAY, else GLFW), glfw (a window on the X display) or egl (headless, no X; -frames runs only); default $"+glEnv+", else auto")
	replay := fs.String("replay", "", "open this replay file (see \"sandbox replay\") instead of the scene: scrubbed back to its first step, paused")
	backend := fs.String("backend", "cpu", "the backend to start on: cpu, cuda (a build with -tags cuda), or emu (the CUDA backend's kernels emulated on the CPU: slow, for inspection); the panel switches it")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if (*shot == "" && *video == "") != (*frames == 0) {
		fmt.Fprintln(stderr, "sandbox: -frames and -screenshot or -video go together (-frames N >= 1 -screenshot out.png or -video out.gif)")
		return exitUsage
	}
	if !slices.Contains(ui.GLNames, *glFrom) {
		where := "-gl"
		if !flagSet(fs, "gl") {
			where = "$" + glEnv
		}
		fmt.Fprintf(stderr, "sandbox: %s %q: want %s\n", where, *glFrom, strings.Join(ui.GLNames, ", "))
		return exitUsage
	}
	if *glFrom == ui.GLEGL && *frames == 0 {
		fmt.Fprintf(stderr, "sandbox: %v\n", ui.ErrEGLNeedsHeadless)
		return exitUsage
	}
	if !slices.Contains([]string{"cpu", "cuda", "emu"}, *backend) {
		fmt.Fprintf(stderr, "sandbox: -backend %q: want cpu, cuda or emu\n", *backend)
		return exitUsage
	}
	if *frames < 0 || *width < 16 || *height < 16 {
		fmt.Fprintln(stderr, "sandbox: want -frames >= 1 and a size of at least 16 x 16")
		return exitUsage
	}
	if *cpuProfile != "" && *frames == 0 {
		fmt.Fprintln(stderr, "sandbox: -cpuprofile goes with -frames (a headless render)")
		return exitUsage
	}
	var timings []ui.FrameTiming
	var tp *[]ui.FrameTiming
	if *perf {
		tp = &timings
	}
	var sum ui.Summary
	prefs := ""
	if *frames == 0 && *runFor == 0 {
		prefs = ui.PrefsPath() // an interactive run remembers the panel; screenshots and timed runs do not
	}
	var rec *ui.Video
	var onFrame func(*image.RGBA) error
	if *video != "" {
		var err error
		if rec, err = ui.NewVideo(*video); err != nil {
			return fail(stderr, "%v", err)
		}
		onFrame = func(img *image.RGBA) error { return rec.Add(img) }
	}
	var onProgress func(int)
	if *frames > 1 {
		what := "frames for " + *shot
		if *video != "" {
			what = "recording " + *video
		}
		prog := newProgress(stderr, what, *frames)
		defer prog.done()
		onProgress = prog.update
	}
	var setup func(*ui.App)
	if *orbit != 0 {
		// Progress runs on the drawing thread after each frame is drawn: the next frame sees the turn.
		var app *ui.App
		setup = func(a *ui.App) { app = a }
		turn, show := float32(*orbit*math.Pi/180), onProgress
		onProgress = func(done int) {
			app.Cam.Orbit(turn, 0)
			if show != nil {
				show(done)
			}
		}
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	img, err := func() (*image.RGBA, error) {
		defer stopProfile() // the frames alone: encoding a video after them is not profiled
		return ui.Run(ui.Options{OnFrame: onFrame, Progress: onProgress, Setup: setup, Prefs: prefs, Timings: tp, For: *runFor, Summary: &sum, Scene: *scene, Replay: *replay, Width: *width, Height: *height, Frames: *frames, NoPanel: *noPanel, NoShadows: *noShadows,
			Select: *sel, Debug: list(*debug), Color: *color, Open: list(*open),
			Yaw: float32(*yaw), Pitch: float32(*pitch), GL: *glFrom, Backend: *backend, Backends: backends, Log: stderr})
	}()
	if errors.Is(err, ui.ErrNoEGL) {
		return fail(stderr, "%v", err) // one line: what EGL lacked (and what the display lacked, in auto mode)
	}
	if errors.Is(err, ui.ErrNoDisplay) || errors.Is(err, ui.ErrNoGLConfig) {
		fmt.Fprintf(stderr, "sandbox: %v, so no window.\n%s", err, headlessHelp)
		return exitUsage
	}
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if rec != nil {
		enc := newProgress(stderr, "encoding "+*video, rec.N)
		rec.Progress = func(done, _ int) { enc.update(done) }
		out, err := rec.Finish(fps(*scene))
		enc.done()
		if err != nil {
			return fail(stderr, "%v", err)
		}
		fmt.Fprintf(stdout, "wrote %s (%d frames of %d x %d, %s)\n", out, rec.N, *width, *height, *scene)
	}
	if *runFor > 0 && *frames == 0 {
		sec := sum.Elapsed.Seconds()
		fmt.Fprintf(stdout, "%s: %d frames in %.1f s (%.1f FPS), %d steps (%.1f per second)\n",
			*scene, sum.Frames, sec, float64(sum.Frames)/sec, sum.Steps, float64(sum.Steps)/sec)
	}
	if *shot != "" {
		if err := writePNG(*shot, img); err != nil {
			return fail(stderr, "%v", err)
		}
		fmt.Fprintf(stdout, "wrote %s (%d x %d, %s after %d frames)\n", *shot, *width, *height, *scene, *frames)
	}
	if *perf && *frames > 0 {
		fmt.Fprintf(stdout, "OpenGL: %s (%s)\n", sum.Renderer, sum.GL)
		if sum.Interop != "" {
			fmt.Fprintf(stdout, "%s\n", sum.Interop)
		}
		printTimings(stdout, timings)
	}
	return exitOK
}

// writePNG writes img to the file path.
func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("%s: %v", path, err)
	}
	return f.Close()
}

// list splits a comma-separated flag value; empty gives nil.
func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// printTimings prints the median, mean and worst of each part of the frames after the first (which
// compiles shaders and uploads the font), and of the process's CPU time a frame (every thread's: a
// software GL's own included), which a loaded machine does not inflate as it does the clock.
func printTimings(w io.Writer, t []ui.FrameTiming) {
	if len(t) > 1 {
		t = t[1:]
	}
	parts := []struct {
		name string
		get  func(ui.FrameTiming) time.Duration
	}{
		{"step", func(f ui.FrameTiming) time.Duration { return f.Step }},
		{"panel", func(f ui.FrameTiming) time.Duration { return f.Panel }},
		{"fill", func(f ui.FrameTiming) time.Duration { return f.Fill }},
		{"upload", func(f ui.FrameTiming) time.Duration { return f.Upload }},
		{"draw", func(f ui.FrameTiming) time.Duration { return f.Draw }},
		{"frame", func(f ui.FrameTiming) time.Duration { return f.Step + f.Panel + f.Fill + f.Upload + f.Draw + f.Wait }},
		{"cpu", func(f ui.FrameTiming) time.Duration { return f.CPU }},
	}
	fmt.Fprintf(w, "%d frames timed\n%-6s %14s %14s %14s\n", len(t), "part", "median ms", "mean ms", "worst ms")
	for _, p := range parts {
		v := make([]float64, len(t))
		for i, f := range t {
			v[i] = ms(p.get(f))
		}
		fmt.Fprintf(w, "%-6s %14.2f %14.2f %14.2f\n", p.name, median(v), mean(v), slices.Max(v))
	}
}

// fps is the frame rate a headless video plays at: one step a frame, so 1/dt of the scene (60 when
// the scene cannot be read here; ui.Run has already said why if so).
func fps(scene string) float64 {
	s, err := loadScene(scene, io.Discard)
	if err != nil || s.Dt == nil || *s.Dt <= 0 {
		return 1 / scenes.DefaultDt
	}
	return 1 / *s.Dt
}

// flagSet says whether the command line gave the flag (not its default).
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
