// Package command is the sandbox's command layer: a Session owns the running world, and every edit the
// user makes (spawn, pick and join, remove, change a setting, load or save a scene, drag a body) is a
// Command queued on it and applied between steps. The window app's panel and input handlers only queue
// commands and read the world through View; tests drive the same layer without a window.
//
// A Session is safe for concurrent use: the simulation goroutine (Run) applies commands and steps under
// the session's lock, and the GL thread reads state through View under the same lock.
package command

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"tumble/scenes"
	"tumble/sim"
)

// Command is one edit, applied to the session's world between two steps.
type Command func(s *Session) error

// Session is a running sandbox: a world, the scene it came from, its commands and its play state.
type Session struct {
	mu sync.Mutex

	world   *sim.World
	name    string        // scene or preset name
	initial *scenes.Scene // what Reset goes back to
	snap    *scenes.Scene // Snapshot's copy, nil if none
	// snapStep and snapTime are the world's clock when Snapshot took it: Restore puts it back.
	snapStep int
	snapTime float64
	frames   []jointFrame // per joint, its anchor and axis in body A's frame (see jointFrame)
	notes    []string     // what the loaded file left out (ReadSceneFile), nil for a scene file or preset

	queue  []Command
	paused bool
	single int // steps still to take while paused (N key)

	drag    *Drag
	perturb *Perturb // the Ctrl-drag force or torque (perturb.go)
	prof    profile  // the latest steps' stage times (profile.go)

	traceConv bool // the steps trace the solver's per-pass residuals (convergence.go)

	backend  string   // the kind of backend the world runs on (UseBackend), "" for the CPU
	backends Backends // how backends are made (SetBackends)

	// sleepDefault (SetSleepByDefault, the window's): a scene that does not say solver.sleep loads
	// with sleeping on, where the backend sleeps.
	sleepDefault bool
	// sleepParked: sleeping was turned off for a backend that does not sleep (SwitchBackend); the
	// CPU backend turns it back on.
	sleepParked bool

	time timeline // the recording and the timeline (timeline.go)

	err    error // the last error a command or a step returned (a blow-up pauses the session)
	errSeq int   // counts the errors set, so a reader can tell a new error from one it has shown
}

// setErr keeps err as the session's last error (nil clears it).
func (s *Session) setErr(err error) {
	s.err = err
	if err != nil {
		s.errSeq++
	}
}

// jointFrame keeps a joint's anchor and axis in body A's frame, so a saved scene places the anchor
// where it is now, not where it was when the joint was made.
type jointFrame struct {
	anchor, axis sim.Vec3
}

// New returns a session on the scene s (a copy is kept for Reset); name labels it.
func New(name string, s *scenes.Scene) (*Session, error) {
	ss := &Session{}
	if err := ss.load(name, s); err != nil {
		return nil, err
	}
	return ss, nil
}

// NewPreset returns a session on the named preset scene.
func NewPreset(name string) (*Session, error) {
	s, ok := scenes.Preset(name)
	if !ok {
		return nil, fmt.Errorf("no preset named %q", name)
	}
	return New(name, s)
}

func (s *Session) load(name string, sc *scenes.Scene) error {
	w, err := sc.World(scenes.Options{})
	if err != nil {
		return err
	}
	s.install(name, sc, w, 0, 0)
	return nil
}

// install makes w, built from sc, the session's world, its clock set to step and time.
func (s *Session) install(name string, sc *scenes.Scene, w *sim.World, step int, time float64) {
	w.StepCount, w.Time = step, time
	if s.world != nil {
		if b := s.world.Backend(); b != nil {
			b.Close()
		}
		s.world.Close()
	}
	s.world, s.name, s.initial, s.notes = w, name, clone(sc), nil
	s.sleepByDefault()
	s.sleepParked = false
	s.frames = s.frames[:0]
	for i := 0; i < w.NumJoints(); i++ {
		s.frames = append(s.frames, s.frameOf(w.Joint(i)))
	}
	s.drag, s.perturb, s.prof.n = nil, nil, 0
	s.setErr(nil)
	// A new world runs on the backend the user chose for the old one.
	if s.backend != "" {
		attach := s.attach
		if s.sleepDefault { // the window's: sleeping is turned off for the backend, not a reason to refuse it
			attach = s.attachParked
		}
		if err := attach(s.backend); err != nil {
			s.backend = ""
			s.setErr(fmt.Errorf("%s loaded on the CPU: %w", name, err))
		}
	}
	s.startRecording()
}

// SetSleepByDefault sets whether a scene that does not say solver.sleep loads with sleeping on (the
// window's default: a settled pile then costs next to nothing) or off (the scene format's default, as
// `sandbox run` and `bench` load it). It applies to the world loaded now, if it runs on the CPU
// backend, and to every scene loaded after (on a backend that does not sleep, as SwitchBackend
// leaves it: off until the world is back on the CPU). Save and Snapshot write solver.sleep either way.
func (s *Session) SetSleepByDefault(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sleepDefault = on
	if s.world.Backend() == nil && s.sleepByDefault() && s.time.cursor < 0 {
		// The recording so far (the scene's first step, when the window starts) has sleeping off: a
		// re-simulation from it would never sleep. The change is an edit, recorded as one.
		s.recordStep("sleeping on")
	}
}

// sleepByDefault turns sleeping on in the world if the session sleeps by default and the scene it was
// loaded from does not say; it reports whether it did.
func (s *Session) sleepByDefault() bool {
	if !s.sleepDefault || !sleepUnset(s.initial) || s.world.Settings().Sleep {
		return false
	}
	set := s.world.Settings()
	set.Sleep = true
	s.world.SetSettings(set)
	return true
}

// sleepUnset says whether the scene leaves solver.sleep out.
func sleepUnset(sc *scenes.Scene) bool {
	return sc == nil || sc.Solver == nil || sc.Solver.Sleep == nil
}

// sync brings the world's Bodies up to date with its backend before they are read or edited (cheap
// when nothing stepped since the last time, free without a backend). A backend that cannot be read
// leaves Bodies as last synced; its error is kept for the panel unless an earlier one is.
func (s *Session) sync() {
	if err := s.world.Sync(); err != nil && s.err == nil {
		s.setErr(fmt.Errorf("reading the bodies back from the backend: %w", err))
	}
}

func (s *Session) frameOf(d sim.JointDef) jointFrame {
	i, _ := s.world.Index(d.BodyA)
	b := &s.world.Bodies
	inv := b.Rotation[i].Conjugate()
	return jointFrame{anchor: inv.Rotate(d.Anchor.Sub(b.Position[i])), axis: inv.Rotate(d.Axis)}
}

// clone deep-copies a scene through its file form.
func clone(sc *scenes.Scene) *scenes.Scene {
	c := *sc
	c.Bodies = append([]scenes.Body(nil), sc.Bodies...)
	c.Joints = append([]scenes.Joint(nil), sc.Joints...)
	c.Clusters = append([]scenes.Cluster(nil), sc.Clusters...)
	return &c
}

// SceneView is the scene's view (scenes.View: the body the window's camera follows), the zero View
// for a scene that gives none.
func (s *Session) SceneView() scenes.View {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initial == nil || s.initial.View == nil {
		return scenes.View{}
	}
	return *s.initial.View
}

// Name is the session's scene name.
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

// Do queues c; it runs before the next step (or at the next Apply).
func (s *Session) Do(c Command) {
	s.mu.Lock()
	s.queue = append(s.queue, c)
	s.mu.Unlock()
}

// Apply runs the queued commands now. The first error is kept (see Err) and returned.
func (s *Session) Apply() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applyLocked()
}

func (s *Session) applyLocked() error {
	if len(s.queue) > 0 {
		s.sync() // commands read and write Bodies
	}
	var first error
	for len(s.queue) > 0 {
		q := s.queue
		s.queue = nil
		s.beforeCommands(q)
		for _, c := range q {
			if err := c(s); err != nil && first == nil {
				first = err
			}
		}
	}
	s.afterCommands()
	if first != nil {
		s.setErr(first)
	}
	return first
}

// Err returns the last error of a command or step, or nil.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// ErrSeq counts the errors the session has kept so far (see Err): it changes with each new one.
func (s *Session) ErrSeq() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errSeq
}

// View runs f with the world under the session's lock, its Bodies synced with the backend first;
// f must not keep the world or its slices.
func (s *Session) View(f func(w *sim.World)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	f(s.world)
}

// Peek is View without the sync: for a reader of what the host keeps current by itself (definitions
// such as shapes, types and names, settings, the backend) that must not copy the bodies back, such as
// the renderer drawing straight from the device.
func (s *Session) Peek(f func(w *sim.World)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.world)
}

// Paused reports whether the simulation is paused.
func (s *Session) Paused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused
}

// Step applies the queued commands and takes one step, whether paused or not (tests and the N key
// use it). A blow-up pauses the session and is returned.
func (s *Session) Step() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stepLocked()
}

func (s *Session) stepLocked() error {
	s.applyLocked()
	s.applyDrag()
	s.applyPerturb()
	if s.time.cursor >= 0 {
		// Scrubbed back: a step goes on from the shown step (a branch).
		if err := s.branch(); err != nil {
			s.paused = true
			s.setErr(err)
			return err
		}
	}
	if s.world.ConvergenceTraced() != s.traceConv {
		s.world.TraceConvergence(s.traceConv) // whichever world the session holds now
	}
	err := s.world.Step()
	if err != nil {
		s.paused = true
		s.setErr(err)
		return err
	}
	s.prof.add(&s.world.Stats.Timings)
	if s.drag != nil || s.perturb != nil {
		s.recordStep("drag") // the drag's force is not in the step: re-simulation starts after it
	} else {
		s.recordStep("")
	}
	return nil
}

// Steps takes n steps (see Step), stopping at the first error.
func (s *Session) Steps(n int) error {
	for range n {
		if err := s.Step(); err != nil {
			return err
		}
	}
	return nil
}

// Dt is the world's time step, seconds.
func (s *Session) Dt() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return float64(s.world.Resolved().Dt)
}

// maxCatchUp bounds the steps one Advance takes, so a slow machine slows the simulation down instead
// of spiralling (each late frame asking for ever more steps).
const maxCatchUp = 4

// Advance is the fixed-step accumulator: it adds elapsed seconds to acc, takes as many whole steps as
// acc holds (at most maxCatchUp; the rest is dropped), applies the queued commands, and returns the
// new accumulator and the number of steps taken. Paused, it takes only single steps asked for with
// StepOnce.
//
// The lock is let go between two steps: the window's frame reads the world under it (the panel, the
// instances), and while a scene runs slower than real time Advance held it over four steps at a time
// and took it back at once. With the 10k pile running, a frame waited up to 0.8-1.2 s to read the world
// (90th percentile 0.44-0.85 s); now up to 0.27-0.28 s (90th percentile 0.09 s):
// BenchmarkPeekWhileRunning.
func (s *Session) Advance(acc, elapsed float64) (float64, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.applyLocked()
	if s.time.cursor >= 0 {
		s.advanceScrubbed(elapsed)
		return 0, 0
	}
	if s.time.speed > 0 {
		elapsed *= s.time.speed
	}
	if s.paused {
		n := 0
		if s.single > 0 {
			s.single--
			if s.stepLocked() == nil {
				n = 1
			}
		}
		return 0, n
	}
	dt := float64(s.world.Resolved().Dt)
	acc += elapsed
	n := 0
	for acc >= dt && n < maxCatchUp {
		if n > 0 {
			s.mu.Unlock()
			runtime.Gosched()
			s.mu.Lock()
			if s.paused || s.time.cursor >= 0 { // paused or scrubbed back in between
				return 0, n
			}
		}
		if s.stepLocked() != nil {
			return 0, n
		}
		acc -= dt
		n++
	}
	if n == maxCatchUp {
		acc = 0
	}
	return acc, n
}

// Run steps the session in real time until stop is closed: the simulation goroutine of the window
// app. It polls at a fraction of the time step so the accumulator stays close to wall time.
func (s *Session) Run(stop <-chan struct{}) {
	last := time.Now()
	acc := 0.0
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			acc, _ = s.Advance(acc, now.Sub(last).Seconds())
			last = now
		}
	}
}

// ErrNoSelection is returned by commands that need a body when the handle is stale or zero.
var ErrNoSelection = errors.New("no such body (stale or empty selection)")
