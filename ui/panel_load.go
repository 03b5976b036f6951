package ui

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/scenes"
	"tumble/sim"
	"tumble/ui/command"
)

// Large scenes and replays are loaded and saved off the UI thread (panel_longwork.go), with their
// progress and a Cancel on the panel's status line; a small one (under scenes.HeavyBodies bodies, a
// file under asyncFileBytes) still loads at once, in the click's frame. A heavy scene loaded where
// OpenGL is drawn by the CPU is watched: its first frames are measured and the process's memory
// followed, and if a frame is slow or the memory runs high the simulation pauses and the view
// offers to go back to the scene before it.

// asyncFileBytes is the scene or replay file size from which it is loaded or saved off the UI thread.
const asyncFileBytes = 1 << 20

// loadState is the loads, saves and the heavy-scene watch.
type loadState struct {
	job  *longJob       // the scene or replay being loaded or saved, nil when none
	hook func(done int) // tests: called by a load with each progress report (bodies built so far)
	// asyncBodies: a preset or world with at least this many bodies is loaded or saved off the UI
	// thread (0: scenes.HeavyBodies); asyncBytes: a file or recording this large (0: asyncFileBytes).
	asyncBodies int
	asyncBytes  int64
	watch       *heavyWatch
	// watchBodies, frameLimit and memLimit set when a scene is watched and when the offer is made
	// (zero: scenes.HeavyBodies bodies, a frame slower than 1 s, half the memory available when the
	// scene was loaded); tests lower them to exercise the watch on a small scene.
	watchBodies int
	frameLimit  time.Duration
	memLimit    uint64
}

// heavyWatch is a heavy scene under watch: its frames as measured, the memory, and the offer.
type heavyWatch struct {
	name, back string // the scene watched, and the scene to go back to
	bodies     int
	frames     []time.Duration
	last       time.Time
	memLimit   uint64 // the offer is made when the process's resident memory passes this
	offer      string // the offer's text while it is shown
	wasPaused  bool   // whether the simulation was paused before the offer paused it
	kept       bool   // the user chose to keep the scene: only the memory is watched, from a higher mark
}

func (l *loadState) asyncFrom() (bodies int, bytes int64) {
	bodies, bytes = l.asyncBodies, l.asyncBytes
	if bodies == 0 {
		bodies = scenes.HeavyBodies
	}
	if bytes == 0 {
		bytes = asyncFileBytes
	}
	return
}

func (l *loadState) limits() (bodies int, frame time.Duration) {
	bodies, frame = l.watchBodies, l.frameLimit
	if bodies == 0 {
		bodies = scenes.HeavyBodies
	}
	if frame == 0 {
		frame = time.Second
	}
	return
}

// loadScene loads a preset (file false) or a scene file, off the UI thread when it is large.
func (a *App) loadScene(name string, file bool) {
	l := &a.panel.load
	p := &a.panel
	if a.running(l.job) {
		p.message, p.isErr = "load "+name+": "+l.job.what+" is under way", true
		return
	}
	what := "load " + name
	if file {
		what = "open " + name
	}
	back := a.S.Name()
	async := false
	minBodies, minBytes := l.asyncFrom()
	if file {
		if st, err := os.Stat(name); err == nil && st.Size() >= minBytes {
			async = true
		}
	} else if info, ok := scenes.PresetInfo(name); ok {
		async = info.Bodies >= minBodies
	}
	installed := func(bodies int) {
		a.Selected, p.joint.selected = sim.Handle{}, -1
		a.resetView()
		a.applySceneView()
		a.watchHeavy(a.S.Name(), back, bodies)
		a.showNotes(what)
	}
	if !async {
		if file {
			a.do(what, command.LoadFile(name))
		} else {
			a.do(what, command.LoadPreset(name))
		}
		var n int
		a.S.Peek(func(w *sim.World) { n = w.Bodies.Len() })
		installed(n)
		return
	}
	hook := l.hook
	l.job = a.startJob("loading "+filepath.Base(name), "bodies", func(j *longJob) func() {
		progress := j.progress(hook)
		var pr *command.Prepared
		var err error
		if file {
			pr, err = command.PrepareFile(name, progress)
		} else {
			pr, err = command.PreparePreset(name, progress)
		}
		if j.ctx.Err() != nil {
			if pr != nil {
				pr.Close()
			}
			return func() { p.message, p.isErr = what+": cancelled; the scene is as it was", false }
		}
		if err != nil {
			return func() { p.message, p.isErr = what+": "+err.Error(), true }
		}
		return func() {
			n := pr.Bodies()
			a.do(what, command.Install(pr))
			installed(n)
		}
	})
	l.job.dropOnClose = true
}

// progress is a scene's build (or writing) progress function reporting on j: it stores the bodies
// done and the total, calls hook (tests) and says to stop once j is cancelled.
func (j *longJob) progress(hook func(done int)) func(done, total int) error {
	return func(done, total int) error {
		j.done.Store(int64(done))
		j.total.Store(int64(total))
		if hook != nil {
			hook(done)
		}
		return j.ctx.Err()
	}
}

// large reports whether the world has enough bodies for its reset, snapshot, restore or save to run
// off the UI thread.
func (a *App) large() bool {
	minBodies, _ := a.panel.load.asyncFrom()
	return a.bodies() >= minBodies
}

// busy reports, on the status line, that what cannot start while other long work on the scene is
// under way; it says whether it is.
func (a *App) busy(what string) bool {
	l := &a.panel.load
	if !a.running(l.job) {
		return false
	}
	a.panel.message, a.panel.isErr = what+": "+l.job.what+" is under way", true
	return true
}

// reset rebuilds the world from its scene, keeping the changed settings (the R key and the Reset
// button): at once for a small world, off the UI thread for a large one.
func (a *App) reset() {
	installed := func() {
		a.Selected, a.panel.joint.selected = sim.Handle{}, -1
		a.applySceneView()
	}
	if !a.large() {
		a.do("reset", command.Reset())
		installed()
		return
	}
	a.rebuild("reset", "resetting "+a.S.Name(), a.S.PrepareReset, command.InstallReset, installed)
}

// restore goes back to the last snapshot (the Restore button), off the UI thread for a large world.
func (a *App) restore() {
	if !a.large() {
		a.do("restore", command.Restore())
		return
	}
	a.rebuild("restore", "restoring the snapshot", a.S.PrepareRestore, command.InstallRestore, nil)
}

// rebuild builds a world off the UI thread (prepare: PrepareReset, PrepareRestore) and installs it
// once built; the scene stays as it was if it is cancelled.
func (a *App) rebuild(what, doing string, prepare func(func(done, total int) error) (*command.Prepared, error),
	install func(*command.Prepared) command.Command, installed func()) {
	l := &a.panel.load
	p := &a.panel
	if a.busy(what) {
		return
	}
	hook := l.hook
	l.job = a.startJob(doing, "bodies", func(j *longJob) func() {
		pr, err := prepare(j.progress(hook))
		if j.ctx.Err() != nil {
			if pr != nil {
				pr.Close()
			}
			return func() { p.message, p.isErr = what+": cancelled; the scene is as it was", false }
		}
		if err != nil {
			return func() { p.message, p.isErr = what+": "+err.Error(), true }
		}
		return func() {
			a.do(what, install(pr))
			if !p.isErr && installed != nil {
				installed()
			}
		}
	})
	l.job.dropOnClose = true
}

// snapshot keeps the current state for Restore (the Snapshot button). The state is copied at once;
// for a large world it is written out as a scene off the UI thread, and a cancelled snapshot keeps
// the one before.
func (a *App) snapshot() {
	if !a.large() {
		a.do("snapshot", command.Snapshot())
		return
	}
	if a.busy("snapshot") {
		return
	}
	l := &a.panel.load
	p := &a.panel
	c := a.S.Capture()
	hook := l.hook
	l.job = a.startJob("taking a snapshot", "bodies", func(j *longJob) func() {
		sc, err := c.Scene(j.progress(hook))
		if j.ctx.Err() != nil {
			return func() { p.message, p.isErr = "snapshot: cancelled; the snapshot before is kept", false }
		}
		if err != nil {
			return func() { p.message, p.isErr = "snapshot: "+err.Error(), true }
		}
		return func() { a.do("snapshot", command.SetSnapshot(c, sc)) }
	})
	l.job.dropOnClose = true
}

// saveScene writes the current state as a scene file: the state is copied at once (under the
// session's lock, between two steps) and, when it is large, written out off the UI thread.
func (a *App) saveScene(path string) {
	p := &a.panel
	l := &p.load
	var n int
	a.S.Peek(func(w *sim.World) { n = w.Bodies.Len() })
	if minBodies, _ := l.asyncFrom(); n < minBodies {
		a.do("save "+path, command.SaveFile(path))
		if abs, err := filepath.Abs(path); err == nil && !p.isErr {
			p.message = "saved " + abs
		}
		return
	}
	if a.busy("save " + path) {
		return
	}
	c := a.S.Capture()
	hook := l.hook
	l.job = a.startJob("saving "+filepath.Base(path), "MB", func(j *longJob) func() {
		j.stage.Store("bodies written")
		sc, err := c.Scene(j.progress(hook))
		if err == nil {
			j.stage.Store("MB")
			j.done.Store(0)
			j.total.Store(0)
			err = writeAtomically(j, path, sc.Save)
		}
		return func() { a.reportSave("save "+path, path, j, err) }
	})
}

// saveReplay writes the recording as a replay file, off the UI thread when it is large; the Time
// section's line and the status line say what became of it.
func (a *App) saveReplay(path string) {
	f := &a.panel.time
	l := &a.panel.load
	rec, name, err := a.S.ReplayNow()
	if err == nil && a.running(l.job) {
		err = fmt.Errorf("%s is under way", l.job.what)
	}
	if err != nil {
		f.saved, f.saveErr = err.Error(), true
		return
	}
	write := func(w io.Writer) error { _, err := rec.WriteTo(w, name); return err }
	if _, minBytes := l.asyncFrom(); rec.Bytes() < minBytes {
		err := writeAtomically(nil, path, write)
		a.reportSave("save replay", path, nil, err)
		return
	}
	l.job = a.startJob("saving "+filepath.Base(path), "MB", func(j *longJob) func() {
		err := writeAtomically(j, path, write)
		return func() { a.reportSave("save replay", path, j, err) }
	})
}

// reportSave puts a save's outcome on the status line (and the Time section's line for a replay).
func (a *App) reportSave(what, path string, j *longJob, err error) {
	p := &a.panel
	line, isErr := "", false
	switch {
	case j != nil && j.ctx.Err() != nil:
		line = what + ": cancelled; " + path + " is as it was"
	case err != nil:
		line, isErr = what+": "+err.Error(), true
	default:
		abs, aerr := filepath.Abs(path)
		if aerr != nil {
			abs = path
		}
		line = "saved " + abs
	}
	a.status(line, isErr)
	if what == "save replay" {
		p.time.saved, p.time.saveErr = line, isErr
	}
}

// writeAtomically writes path through write into a file beside it, renamed over path once whole: a
// cancelled or failed save leaves the old file as it was. With j set, the MB written are its
// progress and its Cancel stops the writing.
func writeAtomically(j *longJob, path string, write func(io.Writer) error) error {
	tmp := path + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(&progressWriter{f: f, j: j}, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// progressWriter counts the MB written into its job's progress and stops once the job is cancelled.
type progressWriter struct {
	f *os.File
	j *longJob
	n int64
}

func (w *progressWriter) Write(b []byte) (int, error) {
	if w.j != nil {
		if err := w.j.ctx.Err(); err != nil {
			return 0, err
		}
	}
	n, err := w.f.Write(b)
	w.n += int64(n)
	if w.j != nil {
		w.j.done.Store(w.n >> 20)
	}
	return n, err
}

// headerJob draws the long work under way, if any, on the panel's status line: its progress bar and
// Cancel, in the line's place (the line is a field high in both cases, so nothing moves).
func (a *App) headerJob() bool {
	var j *longJob
	for _, x := range a.jobs {
		j = x // the newest
	}
	if j == nil {
		return false
	}
	a.jobBar(j, "Cancel###job")
	return true
}

// watchHeavy starts watching a scene just loaded when it is heavy and OpenGL is drawn by the CPU.
func (a *App) watchHeavy(name, back string, bodies int) {
	l := &a.panel.load
	l.watch = nil
	min, _ := l.limits()
	if bodies < min || !a.softwareGL() || name == back {
		return
	}
	limit := l.memLimit
	if limit == 0 {
		limit = residentBytes() + memAvailable()/2
	}
	l.watch = &heavyWatch{name: name, back: back, bodies: bodies, memLimit: limit}
}

// heavyOverlay measures the watched scene's frame and memory, and shows the offer to go back once a
// frame is slower than the limit (the mean of the second and third frames, or any one three times
// over) or the memory passes its mark; the simulation pauses while it is shown.
func (a *App) heavyOverlay(ww, wh float32) {
	l := &a.panel.load
	w := l.watch
	if w == nil || a.S.Name() != w.name {
		l.watch = nil
		return
	}
	now := time.Now()
	if !w.last.IsZero() {
		w.frames = append(w.frames, now.Sub(w.last))
	}
	w.last = now
	if w.offer == "" {
		_, limit := l.limits()
		rss := residentBytes()
		slow := time.Duration(0)
		if n := len(w.frames); !w.kept && n > 0 {
			// The first interval includes the scene's first upload: it alone does not count unless far over.
			if last := w.frames[n-1]; last > 3*limit {
				slow = last
			} else if n >= 3 && (w.frames[1]+w.frames[2])/2 > limit {
				slow = (w.frames[1] + w.frames[2]) / 2
			}
		}
		switch {
		case rss > w.memLimit:
			w.offer = fmt.Sprintf("%s (%d bodies) holds %.1f GB of memory and rising, past the %.1f GB kept for it: go back before the machine runs out?",
				w.name, w.bodies, gb(rss), gb(w.memLimit))
		case slow > 0:
			w.offer = fmt.Sprintf("%s (%d bodies) takes %.1f s a frame here: OpenGL is drawn by the CPU (%s), and the process holds %.1f GB. Go back?",
				w.name, w.bodies, slow.Seconds(), a.glRenderer, gb(rss))
		}
		if w.offer != "" {
			w.wasPaused = a.S.Paused()
			a.S.Do(command.Pause(true))
		}
	}
	if w.offer == "" {
		return
	}
	vw, _ := a.viewport()
	imgui.SetNextWindowPosV(imgui.Vec2{X: vw / 2, Y: wh / 3}, imgui.ConditionAlways, imgui.Vec2{X: 0.5, Y: 0.5})
	imgui.SetNextWindowSizeV(imgui.Vec2{X: min(vw-20, 460*a.scale())}, imgui.ConditionAlways)
	a.w.begin("Heavy scene###heavy", nil, imgui.WindowFlagsNoMove|imgui.WindowFlagsNoCollapse|imgui.WindowFlagsNoResize|imgui.WindowFlagsAlwaysAutoResize)
	imgui.PushTextWrapPos()
	imgui.Text(w.offer + " (paused)")
	imgui.PopTextWrapPos()
	back := w.back
	if a.w.button("Go back to " + back + "###goback") {
		l.watch = nil
		a.loadScene(back, !isPreset(back))
		if !a.running(l.job) { // back at once: running again as before the offer
			a.S.Do(command.Pause(w.wasPaused))
		}
	}
	a.w.sameLine("button", "Keep "+w.name)
	if a.w.button("Keep " + w.name + "###keep") {
		// Watched for memory alone from here, from half again as high.
		w.offer, w.kept, w.memLimit = "", true, max(w.memLimit, residentBytes())*3/2
		a.S.Do(command.Pause(w.wasPaused))
	}
	a.w.end()
}

func isPreset(name string) bool { _, ok := scenes.PresetInfo(name); return ok }

// startBack is where the heavy-scene offer goes back to for a scene the window started on.
const startBack = "pyramid"

// bodies is the world's body count.
func (a *App) bodies() (n int) {
	a.S.Peek(func(w *sim.World) { n = w.Bodies.Len() })
	return
}

func gb(b uint64) float64 { return float64(b) / (1 << 30) }

// residentBytes is the process's resident memory: /proc/self/statm where there is one (Linux), else
// what the Go runtime holds from the system.
func residentBytes() uint64 {
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			if pages, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				return pages * uint64(os.Getpagesize())
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Sys
}

// memAvailable is the memory the system can still give (/proc/meminfo's MemAvailable), or 8 GB
// where it cannot say.
func memAvailable() uint64 {
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range bytes.Split(b, []byte("\n")) {
			if f := strings.Fields(string(line)); len(f) >= 2 && f[0] == "MemAvailable:" {
				if kb, err := strconv.ParseUint(f[1], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 8 << 30
}

// heavyWarning is the Scene section's text before a heavy preset is loaded on software GL: what it
// will cost, by how many bodies it has (figures measured with llvmpipe on a 2-core machine).
func heavyWarning(name string, bodies int, renderer string) string {
	cost := "it will run at a few frames per second"
	switch {
	case bodies >= 500_000:
		cost = "it will take many seconds a frame (the million-body pile: 15 s a frame, and past 12 GB of memory as it ran)"
	case bodies >= 50_000:
		cost = "it will take about a second a frame or more, and GBs of memory"
	}
	return fmt.Sprintf("%s has %d bodies and OpenGL here is drawn by the CPU (%s): %s. Once loaded, its first frames are measured and the window offers to go back if they are slow or the memory runs high.",
		name, bodies, renderer, cost)
}

// showNotes says, in the message line after a successful load, what the file left out (a URDF
// robot's elements the scene cannot hold: command.ReadSceneFile): how many, and the first.
func (a *App) showNotes(what string) {
	p := &a.panel
	notes := a.S.Notes()
	if len(notes) == 0 || p.isErr {
		return
	}
	p.message = fmt.Sprintf("%s: done; %d element(s) left out, first %s", what, len(notes), notes[0])
}
