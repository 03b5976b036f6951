// Package ui is the desktop sandbox: a GLFW window, the render package's 3D view, the Dear ImGui
// panel (imgui-go, with its GLFW platform and OpenGL renderer glue written here) and the mouse and
// keyboard bindings. Every edit becomes a command (package ui/command) applied between steps; the
// simulation steps on its own goroutine with a fixed time step, while GL stays on the main OS thread.
package ui

import (
	"fmt"
	"image"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/go-gl/gl/v4.6-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/inkyblackness/imgui-go/v4"

	"tumble/render"
	"tumble/render/egl"
	"tumble/render/instance"
	"tumble/sim"
	"tumble/sim/geom"
	"tumble/ui/command"
)

// Options configure the app.
type Options struct {
	Scene         string // preset name or scene file (default "pyramid")
	Replay        string // a replay file to open instead (command.Session.OpenReplay); a file that does not open is Run's error
	Width, Height int    // window size in screen coordinates (default 1280 x 800)
	// Frames, if > 0, makes a headless run: a hidden window (no window at all with an EGL context: GL),
	// Frames frames each after exactly one simulation step (so the result is reproducible), then the
	// last frame is returned as an image.
	Frames int
	// GL is where the OpenGL context comes from: GLAuto (""), GLGLFW or GLEGL (see GLNames).
	GL string
	// For, if > 0 in a windowed run, closes the window after this long (smoke tests of the real loop).
	For time.Duration
	// Summary, if set, receives the windowed run's frame and step counts when it ends.
	Summary   *Summary
	NoPanel   bool     // leave the ImGui panel out (screenshots of the 3D view alone)
	NoShadows bool     // no shadow map (faster on a software renderer)
	Select    string   // name of a body to select at the start
	Debug     []string // debug layers to turn on: see DebugNames
	Color     string   // colour mode: one of instance.ColorNames' first words (body, type, sleep, contact)
	Open      []string // if any, the panel sections open at the start (the others closed): see SectionNames
	// Yaw and Pitch, if not zero, turn the framed camera (degrees; pitch > 0 looks down).
	Yaw, Pitch float32
	// Setup, if set, runs on the session before the first frame (tests queue commands with it).
	Setup func(a *App)
	// Timings, if set in a headless run, receives each frame's split (GL finished before the clock
	// stops, so draw is the time llvmpipe or the GPU took).
	Timings *[]FrameTiming
	// Backend is the backend to start on: cpu (the default), cuda, or emu (the emulated CUDA backend).
	// One that cannot start leaves the world on the CPU, with one line saying why.
	Backend string
	// Backends makes the backends Backend and the panel ask for (the program's one chooser, e.g.
	// gpu.Open with gpu.Kinds); the zero value offers the CPU alone.
	Backends command.Backends
	// Log receives the app's one-line notices (a backend that could not start, interop on or off);
	// nil: standard error.
	Log io.Writer
	// Prefs is the file the view and panel preferences are read from at the start and written to at
	// the end (panel width and sections, debug layers, spawn and shot forms): cmd/sandbox passes
	// PrefsPath(), in the user's config directory; empty: none are read or kept.
	Prefs string
	// OnFrame, if set in a headless run, receives every frame as drawn (video capture); an error
	// ends the run with it.
	OnFrame func(img *image.RGBA) error
	// Progress, when not nil, is called after each off-screen frame (Frames) with the frames done.
	Progress func(done int)

	// deviceCopy (tests) draws every frame through the renderer's device buffer, filled from the CPU
	// fill as interop would fill it from CUDA, so the device path's drawing is tested without a GPU.
	deviceCopy bool
	// glWriters (tests) stands in for a backend's CUDA-GL interop: the frames take the interop path
	// with the writers it returns.
	glWriters glWriterBackend
}

// App is the running sandbox: the session, the camera, the view state the panel edits.
type App struct {
	S   *command.Session
	Cam render.Camera

	win *glfw.Window // nil on an EGL context
	egl *egl.Context // the headless EGL context, or nil on GLFW's
	// glContext says where the context came from (GLContext).
	glContext string
	title     string  // the window's title as last set (updateTitle)
	capt      capture // screenshots and video (the Capture section, F12)
	rend      *render.Renderer
	bvhBoxes  []geom.AABB // the BVH debug layer's boxes, kept between frames
	gui       *imguiGL
	ctx       *imgui.Context
	frame     render.Frame
	opt       Options
	glInfo    string
	uiScale   float32 // HiDPI scale of the panel (1 on an unscaled monitor)
	lastTime  time.Time

	// View state.
	Selected sim.Handle
	// framedBulk is the camera as frame all left it with far bodies left out (F again takes them in).
	framedBulk *render.Camera
	Follow     bool
	Wireframe  bool
	NoShadows  bool
	ColorMode  instance.ColorBy
	ShowHelp   bool
	Debug      DebugDraw
	// followByScene: Follow was turned on by the scene's view (applySceneView).
	followByScene bool
	// PanelHidden hides the panel (Tab): the 3D view takes the whole window.
	PanelHidden bool
	// HoverHighlight lights up the body under the cursor and names it in a tooltip.
	HoverHighlight bool
	hoverBody      sim.Handle
	hoverShape     int  // the compound shape of hoverBody under the cursor (sim.Hit.Child)
	hoverMoved     bool // the mouse moved since the hovered body was last picked
	hoverStep      int  // the world's step count when it was last picked (or checked)
	frameStep      int  // the world's step count as this frame read it
	hoverRow       int  // contacts table row under the mouse, -1 none
	hoverPoint     *mgl32.Vec3
	hoverPair      [2]int // the hovered row's bodies (dense indices)
	// hoverRay is the cursor ray of the last full pick, and hoverRayOK whether the last frame made or
	// kept one: while it holds, a step asks only whether the hovered body is still under it.
	hoverRay   [2]mgl32.Vec3
	hoverRayOK bool

	// Spawn at the cursor.
	spawnMark *mgl32.Vec3 // where Spawn puts its bodies "at the cursor" (drawn while its section is open)
	spotCache struct {    // spawnSpot's last ray cast
		o, d, p mgl32.Vec3
		at      time.Time
		ok      bool
	}

	// Mouse.
	mouseX, mouseY float64
	// The cursor's last place over the 3D view, and whether it is over a panel now: Spawn's "at the
	// cursor" is clicked with the mouse on the panel, and means where the user last pointed in the view.
	viewX, viewY   float64
	viewSeen       bool
	overPanel      bool
	pressX, pressY float64
	dragging       bool // left drag on a body (mouse joint)
	orbiting       bool
	panning        bool
	dragDepth      float32 // distance along the view axis of the grabbed point

	panel       panelState
	stats       statsHistory
	lastSplit   split
	gpuDraw     gpuTimer   // the draw's time on the GPU (the Stats section)
	in          inputQueue // GLFW's events, until a frame takes them (feedInput)
	w           widgets    // the panel's widgets as submitted, with their IDs and rectangles
	panelW      float32    // the panel's width as the user left it (0: the default)
	cursors     map[glfw.StandardCursor]*glfw.Cursor
	cursorShape imgui.MouseCursorID
	cursorSet   bool
	dupLogged   bool
	tools       tools // the outliner, labels, perturbation, profile table (tools.go)
	selRead     selectedRead
	jobs        []*longJob // long work under way off the UI thread (panel_longwork.go)

	// CUDA-GL interop (see updateInterop): the shims while the instances and the debug lines come
	// straight from the device (one per GL buffer), the backend it was decided for, and the one line
	// saying whether it is on and why not.
	glVendor, glRenderer string
	interop, lineInterop instance.GLWriter
	interopFor           sim.Backend
	interopDecided       bool
	interopNote          string
}

type split struct {
	FrameTiming
	drawStart time.Time
}

// DebugDraw are the debug layers' switches.
type DebugDraw struct {
	Contacts, Normals, Friction, Joints, AABBs, COM, Velocities bool
	// Labels writes the nearest bodies' names and masses in the view (labels.go).
	Labels bool
	// BVH draws the broad phase's tree at depth BVHDepth (0 is the root) when it is the LBVH.
	BVH      bool
	BVHDepth int
}

// Run opens the window and runs the app until it is closed; in headless mode (Frames > 0) it returns
// the last frame. It must be called from the main goroutine with the OS thread locked.
func Run(opt Options) (*image.RGBA, error) {
	a, closeAll, err := start(opt)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	if opt.Summary != nil {
		opt.Summary.GL, opt.Summary.Renderer = a.GLContext(), a.glRenderer
	}
	if opt.Frames > 0 {
		img, err := a.headless()
		if opt.Summary != nil {
			opt.Summary.Interop = a.interopNote
		}
		return img, err
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { a.S.Run(stop); close(done) }()
	// Ctrl+C in the terminal (or a TERM signal) closes the window as its close button does, so the
	// preferences are kept.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	start := time.Now()
	var steps0 int
	a.S.View(func(w *sim.World) { steps0 = w.StepCount })
	frames := 0
	for !a.win.ShouldClose() {
		if a.opt.For > 0 && time.Since(start) > a.opt.For {
			break
		}
		select {
		case <-sig:
			a.win.SetShouldClose(true)
			continue
		default:
		}
		a.runFrame()
		frames++
	}
	close(stop)
	<-done
	if opt.Summary != nil {
		opt.Summary.Frames, opt.Summary.Elapsed, opt.Summary.Interop = frames, time.Since(start), a.interopNote
		a.S.View(func(w *sim.World) { opt.Summary.Steps = w.StepCount - steps0 })
	}
	return nil, nil
}

// start opens the display, the scene and the window, and applies the options; closeAll keeps the
// preferences and closes everything again.
func start(opt Options) (a *App, closeAll func(), err error) {
	if opt.Scene == "" {
		opt.Scene = "pyramid"
	}
	if opt.Width == 0 {
		opt.Width, opt.Height = 1280, 800
	}
	useEGL, err := chooseGL(opt)
	if err != nil {
		return nil, nil, err
	}
	a = &App{opt: opt, hoverRow: -1, ColorMode: instance.ColorByBody, HoverHighlight: true}
	var disp *display
	why := "" // in auto mode, why EGL was tried
	if useEGL && opt.GL != GLEGL {
		why = "no display ($DISPLAY is empty)"
	}
	if !useEGL {
		if disp, err = openDisplay(); fallsBackToEGL(opt, err) {
			a.notef("%v; rendering through EGL instead", err)
			useEGL, why = true, err.Error()
		} else if err != nil {
			return nil, nil, err
		}
	}
	closeDisp := func() {
		if disp != nil {
			disp.close()
		}
	}
	a.Debug.Joints = true
	s, err := openScene(opt.Scene)
	if err != nil {
		closeDisp()
		return nil, nil, err
	}
	a.S = s
	if opt.Frames == 0 {
		// The window sleeps by default: a settled pile costs next to nothing. Headless frames keep the
		// scene's own setting, so they step as `sandbox run` does.
		s.SetSleepByDefault(true)
	}
	if opt.Replay != "" {
		if err := s.OpenReplay(opt.Replay); err != nil {
			disp.close()
			return nil, nil, err
		}
		a.panel.time.openFile = opt.Replay
		a.panel.time.opened = "opened " + opt.Replay
	}
	s.SetBackends(opt.Backends)
	if opt.Backend != "" && opt.Backend != command.BackendCPU {
		s.Do(command.SwitchBackend(opt.Backend))
		if err := s.Apply(); err != nil {
			a.notef("%v; running on the CPU", err)
		}
	}
	err = a.open(useEGL)
	if !useEGL && fallsBackToEGL(opt, err) {
		a.notef("%v; rendering through EGL instead", err)
		why = err.Error()
		err = a.open(true)
	}
	if err != nil && why != "" {
		err = fmt.Errorf("%s, and %w", why, err)
	}
	if err != nil {
		closeDisp()
		return nil, nil, err
	}
	closeAll = func() {
		a.endCapture()
		a.savePrefs()
		a.close()
		closeDisp()
	}
	a.loadPrefs()
	a.resetView()
	a.applySceneView()
	if err := a.applyOptions(); err != nil {
		closeAll()
		return nil, nil, err
	}
	if opt.Setup != nil {
		opt.Setup(a)
	}
	if opt.Frames == 0 && opt.Replay == "" {
		// A heavy scene named on the command line is watched as one picked in the panel is.
		a.watchHeavy(a.S.Name(), startBack, a.bodies())
	}
	return a, closeAll, nil
}

// runFrame handles the window's events and draws one frame to it.
func (a *App) runFrame() {
	glfw.PollEvents()
	fbw, fbh := a.win.GetFramebufferSize()
	a.drawFrame(0, fbw, fbh)
	a.captureFrame(fbw, fbh)
	a.win.SwapBuffers()
}

// DebugNames are the debug layers Options.Debug (and the -debug flag) can turn on.
// "probe" turns the probe on (the Debug draw section's tool, as set there), aimed through the middle
// of the view until the cursor moves over it.
var DebugNames = []string{"contacts", "normals", "friction", "joints", "aabbs", "com", "velocities", "bvh", "labels", "probe"}

func (a *App) applyOptions() error {
	o := &a.opt
	if o.Select != "" {
		a.S.View(func(w *sim.World) { a.Selected, _ = w.Find(o.Select) })
		if a.Selected == (sim.Handle{}) {
			return fmt.Errorf("-select: no body named %q", o.Select)
		}
	}
	d := &a.Debug
	if d.BVHDepth == 0 {
		d.BVHDepth = 6 // a level of a few hundred boxes in the presets: deep enough to see the tree's shape
	}
	flags := []*bool{&d.Contacts, &d.Normals, &d.Friction, &d.Joints, &d.AABBs, &d.COM, &d.Velocities, &d.BVH, &d.Labels}
	for _, name := range o.Debug {
		k := slices.Index(DebugNames, name)
		if k < 0 {
			return fmt.Errorf("-debug: unknown layer %q (want %s)", name, strings.Join(DebugNames, ", "))
		}
		if name == "probe" {
			p := &a.tools.probe
			p.init()
			p.on = true
			a.mouseX, a.mouseY = -1, -1 // no cursor over the view yet
			continue
		}
		*flags[k] = true
	}
	if o.Color != "" {
		k := slices.IndexFunc(instance.ColorNames, func(n string) bool { return strings.HasPrefix(n, o.Color) })
		if k < 0 {
			return fmt.Errorf("-color: unknown mode %q (want body, type, sleep or contact)", o.Color)
		}
		a.ColorMode = instance.ColorBy(k)
	}
	if o.NoShadows { // the flag turns shadows off; without it the preferences' choice stands
		a.NoShadows = true
	}
	a.panel.init()
	if len(o.Open) > 0 {
		clear(a.panel.open)
	}
	for _, sec := range o.Open {
		if !slices.Contains(SectionNames, sec) {
			return fmt.Errorf("-open: unknown section %q (want %s)", sec, strings.Join(SectionNames, ", "))
		}
		a.panel.open[sec] = true
	}
	return nil
}

// Summary says what a run drew with and, for a windowed run, what it did: frames drawn and simulation
// steps taken in its wall time.
type Summary struct {
	Frames, Steps int
	Elapsed       time.Duration
	GL            string // where the OpenGL context came from (App.GLContext)
	Renderer      string // GL_RENDERER
	Interop       string // the interop line (on, or off and why; empty on the CPU backend)
}

// FrameTiming is one headless frame's time, by part: the simulation (Step), the bodies brought to
// GL (Fill and Upload: interop, or a host copy filled and uploaded), and the drawing (Panel and Draw).
type FrameTiming struct {
	Step  time.Duration // the simulation step
	Panel time.Duration // building the ImGui panel
	// Fill is the instances and debug lines: the device writing them into the GL buffers through
	// interop, or the host copy (World.Sync reading the bodies back from a backend, then the CPU fill).
	Fill time.Duration
	// Upload is the host copy's instances copied into GL's buffers (glBufferData); none with interop.
	Upload time.Duration
	Draw   time.Duration // the 3D view and the panel drawn, to gl.Finish
	// Wait is the frame waiting for the simulation goroutine to let go of the world, before the panel
	// and before the fill (in the window, while it steps); Panel and Fill leave it out.
	Wait time.Duration
	// CPU is the process's CPU time over the whole frame, every thread's (a software GL's rasterizer
	// threads included): on a loaded machine the clock mostly measures waiting for a core, this the work.
	CPU time.Duration
}

// headless renders Frames frames into an off-screen target, one step per frame (while a replay is
// scrubbed back, its next recorded step), and reads the last.
func (a *App) headless() (*image.RGBA, error) {
	w, h := a.opt.Width, a.opt.Height
	t := render.NewTarget(w, h)
	gl.BindFramebuffer(gl.FRAMEBUFFER, t.FBO)
	if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		return nil, fmt.Errorf("off-screen framebuffer incomplete: status 0x%x", st)
	}
	stopped := false
	for i := 0; i < a.opt.Frames; i++ {
		if a.win != nil {
			glfw.PollEvents()
		}
		t0, cpu0 := time.Now(), processCPU()
		if tl := a.S.Timeline(); i > 0 && tl.Cursor >= 0 {
			// A replay (scrubbed back): each frame shows the next recorded step, up to the live end.
			if err := a.S.ScrubTo(tl.Cursor + 1); err != nil {
				return nil, err
			}
		} else if i > 0 && !stopped {
			if err := a.S.Step(); err != nil {
				if a.S.BackendKind() == command.BackendCPU {
					return nil, err
				}
				// As in the window: the session pauses, the panel shows the error, frames go on.
				a.notef("step %d on the %s backend: %v; paused", i, a.S.BackendKind(), err)
				stopped = true
			}
		} else if i == 0 {
			if err := a.S.Apply(); err != nil {
				return nil, err
			}
		}
		step := time.Since(t0)
		a.drawFrame(t.FBO, w, h)
		if a.opt.Progress != nil {
			a.opt.Progress(i + 1)
		}
		if a.opt.Timings != nil {
			gl.Finish()
			ft := a.lastSplit
			ft.Step = step
			ft.Draw = time.Since(ft.drawStart)
			ft.CPU = processCPU() - cpu0
			*a.opt.Timings = append(*a.opt.Timings, ft.FrameTiming)
		}
		if a.opt.OnFrame != nil { // reading the frame back for a video is not part of the split
			if err := a.opt.OnFrame(render.ReadPixels(t.FBO, w, h)); err != nil {
				return nil, err
			}
		}
	}
	gl.Finish()
	return render.ReadPixels(t.FBO, w, h), nil
}

// processCPU is the CPU time the process has used, user and system, all its threads together.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// open makes the OpenGL context (a GLFW window, or EGL's headless context) and everything drawn with
// it: the renderer, Dear ImGui and its GL glue. On failure nothing stays open.
func (a *App) open(useEGL bool) (err error) {
	var getProc func(string) unsafe.Pointer
	if useEGL {
		if err := a.openEGL(); err != nil {
			return err
		}
		getProc = a.egl.ProcAddr
	} else if err := a.openWindow(); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			a.closeGL()
		}
	}()
	if a.glInfo, err = render.Init(getProc); err != nil {
		return err
	}
	a.glVendor, a.glRenderer = gl.GoStr(gl.GetString(gl.VENDOR)), gl.GoStr(gl.GetString(gl.RENDERER))
	if a.rend, err = render.New(); err != nil {
		return err
	}
	a.ctx = imgui.CreateContext(nil)
	io := imgui.CurrentIO()
	io.SetIniFilename("") // no imgui.ini in the working directory
	// The app sets the mouse cursor ImGui asks for (see setCursor), which also lets ImGui resize the
	// panel by its edge.
	io.SetBackendFlags(io.GetBackendFlags() | imgui.BackendFlagsHasMouseCursors)
	imgui.StyleColorsDark()
	if a.win != nil {
		// HiDPI. Where window coordinates are pixels (X11, Windows) a scaled monitor has a content
		// scale above 1: ImGui's sizes and font grow with it. Where they are not (macOS), the
		// framebuffer scale set each frame does the work and the content scale's excess is already in it.
		if cs, _ := a.win.GetContentScale(); cs > 1 {
			fbw, _ := a.win.GetFramebufferSize()
			ww, _ := a.win.GetSize()
			if fbw == ww {
				imgui.CurrentStyle().ScaleAllSizes(cs)
				io.SetFontGlobalScale(cs)
				a.uiScale = cs
			}
		}
		a.platformSetup(io)
	} else {
		for k := range keyMap {
			io.KeyMap(k, int(keyMap[k]))
		}
	}
	if a.gui, err = newImguiGL(io); err != nil {
		a.ctx.Destroy()
		return err
	}
	a.lastTime = time.Now()
	return nil
}

// openWindow opens the GLFW window (hidden for a headless run) and makes its context current.
func (a *App) openWindow() error {
	if err := glfw.Init(); err != nil {
		return fmt.Errorf("glfw: %w", err)
	}
	glfw.WindowHint(glfw.ContextVersionMajor, 4)
	glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
	glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
	glfw.WindowHint(glfw.ScaleToMonitor, glfw.True)
	if a.opt.Frames > 0 {
		glfw.WindowHint(glfw.Visible, glfw.False)
	}
	var err error
	a.title = windowTitle(a.S.Name())
	if a.win, err = createWindow(a.opt.Width, a.opt.Height, a.title); err != nil {
		return err
	}
	a.win.MakeContextCurrent()
	glfw.SwapInterval(1)
	a.glContext = GLGLFW
	return nil
}

// closeGL releases the context: EGL's, or GLFW's window and GLFW itself.
func (a *App) closeGL() {
	if a.egl != nil {
		a.egl.Close()
		a.egl = nil
		return
	}
	a.win = nil
	glfw.Terminate()
}

func (a *App) close() {
	a.closeInterop()
	a.ctx.Destroy()
	a.closeGL()
}

// applySceneView follows the body the scene names in its view (scenes.View.Follow), selected, after a
// load or a reset. A scene without one turns off a follow the last scene's view turned on, so that
// selecting a body later does not move the camera unasked.
func (a *App) applySceneView() {
	v := a.S.SceneView()
	if v.Follow == "" {
		if a.followByScene {
			a.Follow, a.followByScene = false, false
		}
		return
	}
	a.S.View(func(w *sim.World) {
		h, ok := w.Find(v.Follow)
		i, ok2 := w.Index(h)
		if !ok || !ok2 {
			return
		}
		a.Selected, a.Follow, a.followByScene = h, true, true
		a.Cam.Target = w.Bodies.Position[i]
	})
}

// drawFrame builds the panel, fills the frame from the world and draws both into fb.
func (a *App) drawFrame(fb uint32, fbw, fbh int) {
	a.pollJobs()
	now := time.Now()
	dt := now.Sub(a.lastTime)
	a.lastTime = now
	ww, wh := a.opt.Width, a.opt.Height
	if a.opt.Frames == 0 {
		ww, wh = a.win.GetSize()
	}
	io := imgui.CurrentIO()
	io.SetDisplaySize(imgui.Vec2{X: float32(ww), Y: float32(wh)})
	io.SetDisplayFrameBufferScale(imgui.Vec2{X: float32(fbw) / float32(max(ww, 1)), Y: float32(fbh) / float32(max(wh, 1))})
	io.SetDeltaTime(float32(max(dt.Seconds(), 1e-4)))
	a.feedInput(io)
	imgui.NewFrame()
	a.w.beginFrame()
	if a.w.onDup == nil {
		a.w.onDup = func(path string) {
			if !a.dupLogged {
				a.dupLogged = true
				a.notef("panel: two widgets share the ImGui ID %q; one of them cannot be used", path)
			}
		}
	}
	tPanel := time.Now()
	var t float64
	var waitPanel, waitFill time.Duration
	a.S.Peek(func(w *sim.World) { waitPanel, t, a.frameStep = time.Since(tPanel), w.Time, w.StepCount })
	a.updateTitle() // the scene's name, now that the session is not stepping
	a.stats.tick(now, t)
	if !a.opt.NoPanel && !a.PanelHidden {
		a.buildPanel(float32(ww), float32(wh))
	} else if !a.opt.NoPanel {
		a.panelHint(float32(ww))
	}
	if a.ShowHelp {
		a.helpOverlay(float32(ww), float32(wh))
	}
	a.heavyOverlay(float32(ww), float32(wh))
	a.hover(io)
	a.viewOverlay()
	imgui.Render()
	a.setCursor()

	tFill := time.Now()
	a.frame.Device, a.frame.DeviceLines = false, 0
	a.S.Peek(func(w *sim.World) {
		waitFill = time.Since(tFill)
		a.stats.sampleStep(w)
		a.updateInterop(w)
		if a.interop != nil && !a.needsHostCopy(w) {
			a.fillDevice(w)
		}
	})
	if !a.frame.Device {
		a.S.View(func(w *sim.World) { // the CPU-copy path: Bodies synced with the backend first
			if a.Follow {
				if i, ok := w.Index(a.Selected); ok {
					a.Cam.Target = w.Bodies.Position[i]
				}
			}
			a.fill(w)
		})
		if a.opt.deviceCopy {
			a.copyToDevice()
		}
	}
	a.selRead.ok = false // this frame's only
	tUpload := time.Now()
	a.rend.Upload(&a.frame)
	t0 := time.Now()
	a.lastSplit = split{FrameTiming: FrameTiming{Panel: tFill.Sub(tPanel) - waitPanel, Fill: tUpload.Sub(tFill) - waitFill,
		Upload: t0.Sub(tUpload), Wait: waitPanel + waitFill}, drawStart: t0}
	vw, _ := a.viewport()
	a.gpuDraw.begin()
	a.rend.DrawUploaded(&a.frame, &a.Cam, fb, int(float32(fbw)*vw/float32(ww)), fbh, render.Options{Wireframe: a.Wireframe, NoShadows: a.NoShadows})
	a.gui.render([2]float32{float32(ww), float32(wh)}, [2]float32{float32(fbw), float32(fbh)}, imgui.RenderedDrawData())
	a.gpuDraw.end()
	a.stats.addFrame(dt, a.lastSplit.FrameTiming, time.Since(t0))
}

// highlights are the bodies drawn in a highlight colour, by dense index.
func (a *App) highlights(w *sim.World) map[int][4]float32 {
	hl := map[int][4]float32{}
	if i, ok := w.Index(a.Selected); ok {
		hl[i] = instance.ColorSelected
	}
	for _, h := range []sim.Handle{a.panel.joint.a, a.panel.joint.b} {
		if i, ok := w.Index(h); ok && h != a.Selected {
			hl[i] = instance.ColorHovered
		}
	}
	if i, ok := w.Index(a.hoverBody); ok && a.HoverHighlight && a.hoverBody != a.Selected {
		hl[i] = instance.ColorHovered
	}
	if a.hoverPoint != nil {
		for _, i := range a.hoverPair {
			if i < w.Bodies.Len() {
				hl[i] = instance.ColorHovered
			}
		}
	}
	return hl
}

// fill builds the frame's instances and debug lines from the world (under the session's lock).
func (a *App) fill(w *sim.World) {
	hl := a.highlights(w)
	var counts []int32
	var contacts []sim.ContactPoint
	if a.ColorMode == instance.ColorByContact || a.Debug.Contacts || a.Debug.Normals || a.Debug.Friction {
		contacts = w.Contacts(nil)
		counts = make([]int32, w.Bodies.Len())
		for _, c := range contacts {
			counts[c.BodyA]++
			counts[c.BodyB]++
		}
	}
	vw, vh := a.viewport()
	eye := a.Cam.Eye()
	a.frame.View = instance.FieldCamera{Eye: eye, Look: a.Cam.Target.Sub(eye).Normalize(), Cone: a.Cam.ConeAngle(vw / vh)}
	render.Fill(&a.frame, w, a.ColorMode, counts, hl)
	a.frame.Lines, a.frame.Overlay = a.frame.Lines[:0], a.frame.Overlay[:0]
	a.debugLines(w, contacts)
	a.stats.sample(w)
}

// openScene starts a session on a preset or a scene file.
func openScene(name string) (*command.Session, error) {
	if s, err := command.NewPreset(name); err == nil {
		return s, nil
	}
	s, err := command.NewPreset("stack")
	if err != nil {
		return nil, err
	}
	s.Do(command.LoadFile(name))
	if err := s.Apply(); err != nil {
		return nil, fmt.Errorf("%s: not a preset, and as a file: %w", name, err)
	}
	return s, nil
}

// init locks the main goroutine to the main OS thread, as GL and GLFW need: cmd/sandbox calls Run
// from main, and the tests run their window work on the main goroutine (see TestMain).
func init() { runtime.LockOSThread() }

// viewport is the 3D view's size in screen coordinates (mouse positions use them): the window less
// the panel on its right.
func (a *App) viewport() (float32, float32) {
	w, h := a.opt.Width, a.opt.Height
	if a.opt.Frames == 0 {
		w, h = a.win.GetSize()
	}
	vw := float32(w)
	if !a.opt.NoPanel && !a.PanelHidden {
		vw = max(vw-min(a.panelWidth(), max(vw-16, minPanelWidth)), 16)
	}
	return vw, float32(h)
}

// panelWidth is the panel's width in screen coordinates: as the user dragged it, or the default.
func (a *App) panelWidth() float32 {
	if a.panelW > 0 {
		return a.panelW
	}
	return PanelWidth * a.scale()
}

// scale is the panel's HiDPI scale (1 on an unscaled monitor).
func (a *App) scale() float32 { return max(a.uiScale, 1) }

// hover picks the body under the cursor when the mouse moved over the 3D view or the world stepped
// (for the highlight and its tooltip); over the panel, or while dragging, nothing is hovered.
func (a *App) hover(io imgui.IO) {
	vw, vh := a.viewport()
	inView := a.mouseX >= 0 && a.mouseY >= 0 && float32(a.mouseX) < vw && float32(a.mouseY) < vh
	a.overPanel = io.WantCaptureMouse()
	if inView && !a.overPanel {
		a.viewX, a.viewY, a.viewSeen = a.mouseX, a.mouseY, true
	}
	if !a.HoverHighlight || io.WantCaptureMouse() || a.dragging || a.orbiting || a.panning || !inView {
		a.hoverBody, a.hoverRayOK = sim.Handle{}, false
		return
	}
	// Picked among every body when the cursor's ray changed (the mouse or the camera moved). After a
	// step under a still ray only the hovered body is cast against: one that moved away is let go,
	// at the cost of one body, where a pick would read every body back from a backend and rebuild the
	// query tree over them all (100,000 bodies: the panel's largest cost a frame). A body that moves
	// under a still cursor is picked when the mouse next moves.
	o, d := a.cursorRay()
	switch ray := [2]mgl32.Vec3{o, d}; {
	case a.hoverMoved || !a.hoverRayOK || ray != a.hoverRay:
		a.hoverMoved, a.hoverStep, a.hoverRay, a.hoverRayOK = false, a.frameStep, ray, true
		a.hoverBody = sim.Handle{}
		if hit, ok := a.S.Pick(o, d); ok {
			a.hoverBody, a.hoverShape = hit.Body, hit.Child
		}
	case a.frameStep != a.hoverStep:
		a.hoverStep = a.frameStep
		if a.hoverBody != (sim.Handle{}) {
			hit, ok := a.S.PickBody(a.hoverBody, o, d)
			a.hoverBody, a.hoverShape = hit.Body, hit.Child
			if !ok {
				a.hoverBody = sim.Handle{}
			}
		}
	}
	if a.hoverBody == (sim.Handle{}) {
		return
	}
	var desc string
	a.S.Peek(func(w *sim.World) {
		i, ok := w.Index(a.hoverBody)
		switch b := &w.Bodies; {
		case !ok || b.Shape[i].Kind == geom.Plane: // the ground is not a body to point at
			a.hoverBody = sim.Handle{}
		case b.Type[i] == sim.Dynamic:
			desc = fmt.Sprintf("%s: %s, %.3g kg", b.Name[i], b.Shape[i].Kind, b.Mass[i])
		default:
			desc = fmt.Sprintf("%s: %s %s", b.Name[i], b.Type[i], b.Shape[i].Kind)
		}
		if !ok {
			return
		}
		if c := w.Bodies.Shape[i].Compound; c != nil && a.hoverShape < len(c.Children) { // the shape under the cursor
			desc += "\n" + partText(c, a.hoverShape)
		}
	})
	if desc != "" {
		imgui.SetTooltip(desc)
	}
}

// cursorRay is the world ray under the mouse.
func (a *App) cursorRay() (mgl32.Vec3, mgl32.Vec3) {
	w, h := a.viewport()
	return a.Cam.Ray(float32(a.mouseX), float32(a.mouseY), w, h)
}

// viewRay is the world ray through where the user points in the 3D view: under the mouse, or, while
// the mouse is on a panel, where it last was over the view (the view's middle if it never was).
func (a *App) viewRay() (mgl32.Vec3, mgl32.Vec3) {
	w, h := a.viewport()
	x, y := float32(a.mouseX), float32(a.mouseY)
	if a.overPanel {
		x, y = w/2, h/2
		if a.viewSeen {
			x, y = float32(a.viewX), float32(a.viewY)
		}
	}
	return a.Cam.Ray(x, y, w, h)
}

// cursorGround is where the ray through the point the user points at in the view (viewRay) meets the
// scene (a body or the ground), or a point 10 m along it.
func (a *App) cursorGround() mgl32.Vec3 { return a.groundAlong(a.viewRay()) }

// spawnSpot is cursorGround for the Spawn section's mark, drawn every frame: a ray cast tests every
// body (and syncs a GPU world), so it is cast again only when the ray moved, or 0.2 s on (a body
// may have come under it).
func (a *App) spawnSpot() mgl32.Vec3 {
	o, d := a.viewRay()
	c := &a.spotCache
	if !c.ok || o != c.o || d != c.d || a.lastTime.Sub(c.at) > 200*time.Millisecond {
		c.p, c.o, c.d, c.at, c.ok = a.groundAlong(o, d), o, d, a.lastTime, true
	}
	return c.p
}

// groundAlong is where the ray from o along d meets the scene (a body or the ground), or a point 10 m
// along it.
func (a *App) groundAlong(o, d mgl32.Vec3) mgl32.Vec3 {
	if hit, ok := a.S.Pick(o, d); ok {
		return hit.Point
	}
	if d[1] < -1e-3 {
		return o.Add(d.Mul(-o[1] / d[1]))
	}
	return o.Add(d.Mul(10))
}

// setCursor shows the mouse cursor ImGui asks for: arrows to resize the panel by its edge, a beam over
// text fields.
func (a *App) setCursor() {
	if a.win == nil || a.opt.Frames > 0 {
		return
	}
	want := imgui.MouseCursor()
	if want == a.cursorShape && a.cursorSet {
		return
	}
	a.cursorShape, a.cursorSet = want, true
	shapes := map[imgui.MouseCursorID]glfw.StandardCursor{
		imgui.MouseCursorTextInput: glfw.IBeamCursor, imgui.MouseCursorResizeEW: glfw.HResizeCursor,
		imgui.MouseCursorResizeNS: glfw.VResizeCursor, imgui.MouseCursorHand: glfw.HandCursor,
		imgui.MouseCursorResizeAll: glfw.CrosshairCursor,
	}
	if a.cursors == nil {
		a.cursors = map[glfw.StandardCursor]*glfw.Cursor{}
	}
	s, ok := shapes[want]
	if !ok {
		a.win.SetCursor(nil) // the arrow
		return
	}
	c := a.cursors[s]
	if c == nil {
		c = glfw.CreateStandardCursor(s)
		a.cursors[s] = c
	}
	a.win.SetCursor(c)
}

// panelHint says, in the corner of a window whose panel is hidden, how to bring it back.
func (a *App) panelHint(ww float32) {
	imgui.SetNextWindowPosV(imgui.Vec2{X: ww - 8, Y: 8}, imgui.ConditionAlways, imgui.Vec2{X: 1})
	imgui.SetNextWindowBgAlpha(0.6)
	a.w.begin("##hint", nil, imgui.WindowFlagsNoDecoration|imgui.WindowFlagsAlwaysAutoResize|
		imgui.WindowFlagsNoInputs|imgui.WindowFlagsNoFocusOnAppearing|imgui.WindowFlagsNoNav)
	imgui.Text("Tab: show the panel")
	a.w.end()
}
