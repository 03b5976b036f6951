package ui

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"

	"tumble/scenes"
	"tumble/sim"
	"tumble/ui/command"
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
		if d.has("capture/###progressCancel encoding") {
			bars++
			mark(d.find("capture/###progressCancel encoding"))
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

// heldLoad starts a test whose loads off the UI thread wait, after their first progress report,
// until release is closed: the frames drawn meanwhile are the window's while it loads, however fast
// the machine builds the scene.
func heldLoad(t *testing.T, opt Options) (d *driver, reached *atomic.Bool, release chan struct{}) {
	reached, release = &atomic.Bool{}, make(chan struct{})
	setup := opt.Setup
	opt.Setup = func(a *App) {
		a.panel.load.asyncBodies = 100 // the pyramid's 386 bodies load off the UI thread
		a.panel.load.hook = func(done int) {
			if reached.CompareAndSwap(false, true) {
				<-release
			}
		}
		if setup != nil {
			setup(a)
		}
	}
	return drive(t, opt), reached, release
}

// A large scene clicked in the browser loads off the UI thread: the window goes on drawing the scene
// it had, with the load's progress bar and Cancel on the status line, and shows the new one when it
// is built.
func TestTheWindowGoesOnDrawingWhileALargeSceneLoads(t *testing.T) {
	d, reached, release := heldLoad(t, Options{Scene: "stack", Width: 640, Height: 600, NoShadows: true, Open: []string{"scene"}})
	d.click("presets/###pyramid")
	for k := 0; k < 20000 && !reached.Load(); k++ {
		d.frames(1)
	}
	drawn := 0
	for range 5 {
		d.frames(1)
		if d.has("Tumble/###progressjob") && d.has("Tumble/###job") && d.a.S.Name() == "stack" {
			drawn++
		}
	}
	mark(d.find("Tumble/###progressjob"))
	if drawn != 5 {
		t.Errorf("%d of 5 frames drawn while the pyramid loads showed the old scene and the load's bar", drawn)
	}
	close(release)
	d.untilJobsDone()
	d.frames(1)
	var n int
	d.world(func(w *sim.World) { n = w.Bodies.Len() })
	if d.a.S.Name() != "pyramid" || n != 386 {
		t.Errorf("after the load: scene %s with %d bodies, want the pyramid's 386 (%s)", d.a.S.Name(), n, d.a.panel.message)
	}
	if d.has("Tumble/###job") {
		t.Errorf("the load's Cancel is still shown after it finished")
	}
}

// Cancel on the status line stops a load: the scene stays as it was and the line says so.
func TestCancellingALoadKeepsTheScene(t *testing.T) {
	d, reached, release := heldLoad(t, Options{Scene: "stack", Width: 640, Height: 600, NoShadows: true, Open: []string{"scene"}})
	d.click("presets/###pyramid")
	for k := 0; k < 20000 && !reached.Load(); k++ {
		d.frames(1)
	}
	d.click("Tumble/###job")
	close(release)
	d.untilJobsDone()
	d.frames(1)
	if d.a.S.Name() != "stack" || !strings.Contains(d.a.panel.message, "cancelled") {
		t.Errorf("after Cancel: scene %s, status %q", d.a.S.Name(), d.a.panel.message)
	}
}

// A heavy scene loaded on software GL is watched: with the limits lowered so that the 386-body
// pyramid counts as heavy, its first slow frames bring up the offer, the simulation pauses, and Go
// back loads the scene before it; with the memory mark set below what the process holds, the offer
// names the memory, and Keep goes on.
func TestAHeavySceneOnSoftwareGLOffersToGoBack(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Width: 640, Height: 600, NoShadows: true, Open: []string{"scene"}, Setup: func(a *App) {
		a.panel.load.watchBodies = 100
		a.panel.load.frameLimit = time.Nanosecond // every frame is slow
		a.panel.load.memLimit = 1 << 50           // and no memory too much
	}})
	if !d.a.softwareGL() {
		t.Skipf("OpenGL here is %s, not drawn by the CPU: nothing is watched", d.a.glRenderer)
	}
	d.click("presets/###pyramid")
	d.frames(4)
	if !d.has("###heavy/###goback") {
		t.Fatalf("no offer after the pyramid's first frames (watched: %v)", d.a.panel.load.watch != nil)
	}
	if !d.a.S.Paused() || !strings.Contains(d.a.panel.load.watch.offer, "s a frame") {
		t.Errorf("offer %q, paused %v", d.a.panel.load.watch.offer, d.a.S.Paused())
	}
	d.click("###heavy/###goback")
	d.untilJobsDone()
	d.frames(2)
	if d.a.S.Name() != "stack" || d.has("###heavy/###goback") || d.a.S.Paused() {
		t.Fatalf("after Go back: scene %s, offer shown %v, paused %v", d.a.S.Name(), d.has("###heavy/###goback"), d.a.S.Paused())
	}

	d.a.panel.load.frameLimit = time.Hour // no frame is slow now
	d.a.panel.load.memLimit = 1           // but the process holds too much
	d.click("presets/###pyramid")
	d.frames(2)
	if w := d.a.panel.load.watch; w == nil || !strings.Contains(w.offer, "GB of memory") {
		t.Fatalf("no memory offer: %+v", w)
	}
	d.click("###heavy/###keep")
	d.frames(2)
	if d.a.S.Name() != "pyramid" || d.a.S.Paused() || d.has("###heavy/###goback") {
		t.Errorf("after Keep: scene %s, paused %v, offer shown %v", d.a.S.Name(), d.a.S.Paused(), d.has("###heavy/###goback"))
	}
}

// A large scene and a long recording are saved off the UI thread (the limits lowered to the stack's
// size): the files written load back whole.
func TestLargeScenesAndReplaysAreSavedOffTheUIThread(t *testing.T) {
	t.Chdir(t.TempDir())
	d := drive(t, Options{Scene: "stack", Width: 640, Height: 600, NoShadows: true, Open: []string{"scene", "time"}, Setup: func(a *App) {
		a.panel.load.asyncBodies, a.panel.load.asyncBytes = 1, 1
	}})
	d.frames(20)
	d.typeInto("scene/file", "big.json")
	d.click("scene/Save current state")
	d.untilJobsDone()
	if _, err := scenes.Load("big.json"); err != nil || !strings.HasPrefix(d.a.panel.message, "saved ") {
		t.Fatalf("scene saved off the UI thread: %v (%s)", err, d.a.panel.message)
	}
	d.click("time/Save replay")
	d.untilJobsDone()
	if st, err := os.Stat(defaultReplayFile); err != nil || st.Size() == 0 || !strings.HasPrefix(d.a.panel.time.saved, "saved ") {
		t.Fatalf("replay saved off the UI thread: %v (%s)", err, d.a.panel.time.saved)
	}
	d.click("time/Open replay")
	d.untilJobsDone()
	for k := 0; k < 2000 && d.a.panel.time.opening != nil; k++ {
		d.frames(1)
	}
	if d.a.panel.time.openErr {
		t.Errorf("the replay written does not open: %s", d.a.panel.time.opened)
	}
}

// A heavy scene the window starts on (sandbox -scene pile1m) is watched too, and goes back to the
// pyramid.
func TestAHeavySceneTheWindowStartsOnIsWatched(t *testing.T) {
	d := drive(t, Options{Scene: "pyramid20", Width: 640, Height: 600, NoShadows: true, Setup: func(a *App) {
		a.panel.load.watchBodies = 100
		a.panel.load.frameLimit = time.Nanosecond
	}})
	if !d.a.softwareGL() {
		t.Skipf("OpenGL here is %s, not drawn by the CPU: nothing is watched", d.a.glRenderer)
	}
	d.frames(4)
	d.click("###heavy/###goback")
	d.untilJobsDone()
	if d.a.S.Name() != startBack {
		t.Errorf("after Go back from the scene the window started on: %s", d.a.S.Name())
	}
}

// heldJobs holds each long scene job (a load, reset, snapshot or restore) at its first progress
// report until the test releases it: the frames drawn meanwhile are the window's while it works,
// however fast the machine is.
type heldJobs struct {
	reached atomic.Bool
	release atomic.Value // chan struct{}
}

func holdJobs(a *App) *heldJobs {
	h := &heldJobs{}
	h.release.Store(make(chan struct{}))
	a.panel.load.asyncBodies = 1 // any world counts as large
	a.panel.load.hook = func(done int) {
		if h.reached.CompareAndSwap(false, true) {
			<-h.release.Load().(chan struct{})
		}
	}
	return h
}

// held draws frames until the job started is held, then n frames more, and returns how many of those
// showed the job's progress bar and Cancel on the status line.
func (h *heldJobs) held(d *driver, n int) int {
	d.t.Helper()
	for k := 0; k < 20000 && !h.reached.Load(); k++ {
		d.frames(1)
	}
	if !h.reached.Load() {
		d.t.Fatalf("no long work started (status %q)", d.a.panel.message)
	}
	shown := 0
	for range n {
		d.frames(1)
		if d.has("Tumble/###progressjob") && d.has("Tumble/###job") {
			shown++
		}
	}
	return shown
}

// let releases the held job, waits for it to end, and arms the hold for the next one.
func (h *heldJobs) let(d *driver) {
	close(h.release.Load().(chan struct{}))
	d.untilJobsDone()
	d.frames(1)
	h.release.Store(make(chan struct{}))
	h.reached.Store(false)
}

// Snapshot, Restore and Reset (its button and the R key) of a large world run off the UI thread: the
// window goes on drawing with the job's bar and Cancel on the status line, and each does what it does
// at once for a small world. A cancelled reset or snapshot leaves the world and the snapshot as they
// were.
func TestResetSnapshotAndRestoreOfALargeWorldRunOffTheUIThread(t *testing.T) {
	var h *heldJobs
	d := drive(t, Options{Scene: "stack", Width: 640, Height: 600, NoShadows: true, Open: []string{"scene"},
		Setup: func(a *App) { h = holdJobs(a) }})
	var bodies int
	d.world(func(w *sim.World) { bodies = w.Bodies.Len() })
	state := func() (step int, at sim.Vec3) {
		d.world(func(w *sim.World) { step, at = w.StepCount, w.Bodies.Position[w.Bodies.Len()-1] })
		return
	}
	run := func(n int) { // n steps, then paused: what a job installs is not moved on by the frames after
		d.click("Tumble/###play")
		d.frames(n)
		d.click("Tumble/###play")
	}
	d.click("Tumble/###play")
	run(10)
	snapStep, snapAt := state()

	d.click("scene/Snapshot")
	if n := h.held(d, 5); n != 5 {
		t.Errorf("%d of 5 frames drawn while the snapshot was written showed its bar", n)
	}
	h.let(d)
	if !d.a.S.HasSnapshot() || d.a.panel.message != "snapshot: done" {
		t.Fatalf("after the snapshot: has one %v, status %q", d.a.S.HasSnapshot(), d.a.panel.message)
	}

	run(10)
	d.click("scene/Snapshot")
	h.held(d, 2)
	d.click("Tumble/###job")
	h.let(d)
	if !strings.Contains(d.a.panel.message, "cancelled") {
		t.Errorf("after a cancelled snapshot: status %q", d.a.panel.message)
	}

	run(10)
	d.click("scene/Restore")
	if n := h.held(d, 5); n != 5 {
		t.Errorf("%d of 5 frames drawn while the snapshot was restored showed its bar", n)
	}
	h.let(d)
	if step, at := state(); step != snapStep || at.Sub(snapAt).Len() > 1e-4 {
		t.Errorf("Restore (after a cancelled snapshot): step %d, body at %v; the first snapshot had step %d, %v (%s)",
			step, at, snapStep, snapAt, d.a.panel.message)
	}

	run(10)
	before, beforeAt := state()
	vw, vh := d.a.viewport()
	d.move(float64(vw)/2, float64(vh)/2) // over the view: the key goes to its bindings
	d.tap(glfw.KeyR)
	if n := h.held(d, 3); n != 3 {
		t.Errorf("%d of 3 frames drawn while R reset showed its bar", n)
	}
	d.click("Tumble/###job")
	h.let(d)
	if step, at := state(); step != before || at != beforeAt || !strings.Contains(d.a.panel.message, "reset: cancelled") {
		t.Errorf("after a cancelled reset: step %d (was %d), body at %v (was %v), status %q", step, before, at, beforeAt, d.a.panel.message)
	}

	d.click("Tumble/Reset (R)")
	if n := h.held(d, 5); n != 5 {
		t.Errorf("%d of 5 frames drawn while Reset rebuilt the world showed its bar", n)
	}
	h.let(d)
	var n int
	d.world(func(w *sim.World) { n = w.Bodies.Len() })
	if step, _ := state(); step != 0 || n != bodies || d.a.panel.message != "reset: done" {
		t.Errorf("after Reset: step %d, %d bodies, status %q", step, n, d.a.panel.message)
	}
}

// Cancel reaches inside an open's long stages: clicked while the file's steps are decoded, or while
// its last step is re-simulated (each held half way), it ends the stage at the step under way; nothing
// of the replay is installed, and the scene, its clock and its recording are as they were.
func TestCancellingAReplayOpenMidStageLeavesTheWorldAsItWas(t *testing.T) {
	s, err := command.NewPreset("stack")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Steps(90); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.replay")
	if err := s.SaveReplay(path); err != nil {
		t.Fatal(err)
	}
	d := drive(t, Options{Scene: "cradle", Width: 640, Height: 600, NoShadows: true, Open: []string{"time"}})
	d.frames(10)
	d.click("Tumble/###play")
	type world struct {
		name       string
		step, n    int
		at         sim.Vec3
		first, end int
	}
	now := func() world {
		v := world{name: d.a.S.Name()}
		d.world(func(w *sim.World) {
			v.step, v.n, v.at = w.StepCount, w.Bodies.Len(), w.Bodies.Position[w.Bodies.Len()-1]
		})
		tl := d.a.S.Timeline()
		v.first, v.end = tl.First, tl.Last
		return v
	}
	before := now()
	for _, stage := range []string{"decoding", "re-simulating"} {
		var mu sync.Mutex
		reached, release := make(chan struct{}), make(chan struct{})
		seen := map[string][2]int{} // per stage: the furthest step reported, of the total
		d.a.panel.time.openHook = func(st string, done, total int) {
			mu.Lock()
			seen[st] = [2]int{max(seen[st][0], done), total}
			mu.Unlock()
			if st == stage && done == total/2 {
				close(reached)
				<-release
			}
		}
		d.typeInto("time/open file", path)
		d.click("time/Open replay")
		for k := 0; k < 20000; k++ {
			select {
			case <-reached:
				k = 20000
			default:
				d.frames(1)
			}
		}
		d.frames(2)
		d.click("Tumble/###job")
		close(release)
		waitOpen(d)
		mu.Lock()
		got := seen[stage]
		_, resim := seen["re-simulating"]
		mu.Unlock()
		if got[1] < 4 || got[0] != got[1]/2 {
			t.Errorf("%s: reported up to step %d of %d after Cancel at step %d: the stage went on", stage, got[0], got[1], got[1]/2)
		}
		if stage == "decoding" && resim {
			t.Errorf("cancelled while decoding, the re-simulation started")
		}
		if after := now(); after != before || !strings.Contains(d.a.panel.time.opened, "cancelled") {
			t.Errorf("cancelled while %s: %+v, was %+v (%q)", stage, after, before, d.a.panel.time.opened)
		}
	}
}
