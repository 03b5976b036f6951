package command

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/record"
)

// The session records every step it takes (package record) into a ring, so that the timeline can
// show any recorded step (scrub), step back and forward, play the recording at another speed, and
// branch: an edit made while scrubbed back re-simulates exactly to that step, discards the recorded
// future and goes on from there.
//
// While scrubbed back the session shows a view world: the recording's keyframe with the poses of the
// shown step (its contacts and sleeping state are the keyframe's). The live world waits aside; going
// back to the newest step returns to it as it was.

// timeline is the session's recording state.
type timeline struct {
	rec     *record.Recorder
	recErr  error               // why recording is off (a backend other than the CPU), nil when recording
	live    *sim.World          // the live world while scrubbed back (nil when it was dropped for a branch)
	cursor  int                 // the step shown while scrubbed back; -1 when live
	viewKey int                 // the keyframe step the view world was restored from (while scrubbed back)
	speed   float64             // playback and simulation speed, 1/8 to 4
	acc     float64             // playback accumulator while scrubbed back, seconds
	dirty   bool                // commands since the last record: the next record is an edit keyframe
	gen     int                 // counts the recording's rewrites (a restart, a branch, a replay opened)
	drift   *record.DriftReport // the last re-simulation's comparison with this recording (drift.go)
}

// Speeds are the timeline's playback speeds.
var Speeds = []float64{0.125, 0.25, 0.5, 1, 2, 4}

// controlCommands are the commands that change how the session plays, not the world: they never
// branch a scrubbed-back session, nor count as an edit. They are top-level functions, so a
// command's code pointer tells them apart.
var controlCommands = map[uintptr]bool{}

func init() {
	for _, c := range []Command{pauseOn, pauseOff, togglePause, stepOnce} {
		controlCommands[reflect.ValueOf(c).Pointer()] = true
	}
}

func isControl(c Command) bool { return controlCommands[reflect.ValueOf(c).Pointer()] }

// startRecording (re)starts the recording at the world's current step (a scene just loaded).
func (s *Session) startRecording() {
	t := &s.time
	if t.rec == nil {
		t.rec = record.New(0, 0)
		t.speed = 1
	}
	t.rec.Reset()
	t.cursor, t.dirty, t.recErr = -1, false, nil
	t.rewritten()
	if t.live != nil {
		t.live.Close()
		t.live = nil
	}
	s.recordStep("")
}

// recordStep records the world's current step; a failure turns recording off with the reason.
func (s *Session) recordStep(edit string) {
	t := &s.time
	if t.rec == nil || t.recErr != nil && !errors.Is(t.recErr, sim.ErrStateBackend) {
		return
	}
	if err := t.rec.Record(s.world, edit); err != nil {
		t.recErr = err
		t.rec.Reset()
		return
	}
	t.recErr = nil
}

// beforeCommands runs before queued commands apply: an edit while scrubbed back branches there.
func (s *Session) beforeCommands(q []Command) {
	edits := false
	for _, c := range q {
		if !isControl(c) {
			edits = true
		}
	}
	if !edits {
		return
	}
	s.time.dirty = true
	if s.time.cursor >= 0 {
		if err := s.branch(); err != nil {
			s.setErr(err)
		}
	}
}

// afterCommands records the edit the commands made.
func (s *Session) afterCommands() {
	if s.time.dirty {
		s.time.dirty = false
		s.recordStep("edit")
	}
}

// branch makes the shown step the live world, exactly (restoring its keyframe and re-simulating up
// to it), and discards the recorded steps after it.
func (s *Session) branch() error {
	t := &s.time
	step := t.cursor
	t.cursor = -1
	if t.live != nil {
		t.live.Close()
		t.live = nil
	}
	if err := t.rec.Seek(s.world, step, nil); err != nil {
		return fmt.Errorf("branching at step %d: %w", step, err)
	}
	if t.rec.Truncate(step) {
		t.rewritten()
	}
	return nil
}

// goLive leaves the scrubbed-back view for the live world (or, when a branch dropped it, for the
// newest recorded step, re-simulated exactly).
func (s *Session) goLive() error {
	t := &s.time
	if t.cursor < 0 {
		return nil
	}
	if t.live != nil {
		s.world.Close()
		s.world, t.live, t.cursor = t.live, nil, -1
		return nil
	}
	t.cursor = t.rec.Last()
	return s.branch()
}

// show makes the view world show recorded step.
func (s *Session) show(step int) error {
	t := &s.time
	if t.rec == nil || t.rec.Empty() {
		return errors.New("nothing recorded")
	}
	step = max(t.rec.First(), min(step, t.rec.Last()))
	if t.cursor < 0 && step == t.rec.Last() && t.rec.Last() == s.world.StepCount {
		return nil // already live there
	}
	bits, err := t.rec.Frame(step)
	if err != nil {
		return err
	}
	bits = append([]uint32(nil), bits...)
	key, err := t.rec.KeyStep(step)
	if err != nil {
		return err
	}
	// While scrubbed back within one keyframe's steps the view world is kept and only its poses
	// change: decoding and restoring a keyframe (megabytes for thousands of bodies) once, not at
	// every scrubbed step.
	view := s.world
	reuse := t.cursor >= 0 && t.viewKey == key && view.Bodies.Len()*record.PoseWords == len(bits)
	if !reuse {
		var st sim.State
		if _, err := t.rec.KeyState(step, &st); err != nil {
			return err
		}
		view = sim.NewWorld(st.Settings())
		view.SetWorkers(s.world.Settings().Workers)
		if err := view.RestoreState(&st); err != nil {
			view.Close()
			return err
		}
	}
	f := func(i, k int) float32 { return math.Float32frombits(bits[i*record.PoseWords+k]) }
	for i := 0; i < view.Bodies.Len(); i++ {
		q := sim.Quat{V: sim.Vec3{f(i, 3), f(i, 4), f(i, 5)}, W: f(i, 6)}
		view.ShowBody(i, sim.Vec3{f(i, 0), f(i, 1), f(i, 2)}, q, sim.Vec3{f(i, 7), f(i, 8), f(i, 9)}, sim.Vec3{f(i, 10), f(i, 11), f(i, 12)})
	}
	view.StepCount = step
	view.Time = float64(step) * float64(view.Resolved().Dt)
	if t.cursor < 0 {
		t.live = s.world
	} else if !reuse {
		s.world.Close()
	}
	s.world, t.cursor, t.viewKey = view, step, key
	s.drag = nil
	if step == t.rec.Last() && t.live != nil {
		return s.goLive()
	}
	return nil
}

// advanceScrubbed plays the recording while scrubbed back: elapsed wall seconds at the timeline's
// speed move the shown step on; at the newest step the session goes live.
func (s *Session) advanceScrubbed(elapsed float64) {
	t := &s.time
	if s.paused {
		if s.single > 0 {
			s.single--
			s.showOrErr(t.cursor + 1)
		}
		return
	}
	dt := float64(s.world.Resolved().Dt)
	t.acc += elapsed * t.speed
	n := int(t.acc / dt)
	if n == 0 {
		return
	}
	t.acc -= float64(n) * dt
	s.showOrErr(t.cursor + n)
}

func (s *Session) showOrErr(step int) {
	var err error
	if s.time.rec != nil && step >= s.time.rec.Last() {
		err = s.goLive()
	} else {
		err = s.show(step)
	}
	if err != nil {
		s.setErr(err)
		s.paused = true
	}
}

// Timeline describes the recording for the panel.
type Timeline struct {
	First, Last int     // recorded steps
	Cursor      int     // the step shown while scrubbed back, -1 when live
	Bytes       int64   // memory the recording holds
	Budget      int64   // its budget
	Keyframes   int     // keyframes held
	ExactFrom   int     // the first step from which on the exact poses are held (Last+1: none)
	ExactBytes  int64   // the part of Bytes the exact poses hold
	Speed       float64 // playback and simulation speed
	Off         error   // why nothing is recorded, or nil
	// Drift is the last re-simulation's comparison with the recording (ReSimulate), nil when none
	// was made since the recording was last rewritten.
	Drift *record.DriftReport
}

// Timeline returns the recording's state.
func (s *Session) Timeline() Timeline {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &s.time
	out := Timeline{Cursor: t.cursor, Speed: t.speed, Off: t.recErr, Last: -1, Drift: t.drift}
	if t.rec != nil {
		out.First, out.Last, out.Bytes, out.Budget, out.Keyframes = t.rec.First(), t.rec.Last(), t.rec.Bytes(), t.rec.Budget, t.rec.Keyframes()
		out.ExactFrom, out.ExactBytes = t.rec.ExactFrom(), t.rec.ExactBytes()
	}
	return out
}

// ScrubTo shows recorded step (clamped to the recording) and pauses; the newest step is the live
// world.
func (s *Session) ScrubTo(step int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.applyLocked()
	s.paused = true
	if s.time.rec != nil && step >= s.time.rec.Last() {
		return s.goLive()
	}
	return s.show(step)
}

// StepBack shows the step before the one shown (pausing).
func (s *Session) StepBack() error {
	s.mu.Lock()
	cur := s.world.StepCount
	s.mu.Unlock()
	return s.ScrubTo(cur - 1)
}

// StepForward shows the next recorded step while scrubbed back, or takes one step when live.
func (s *Session) StepForward() error {
	s.mu.Lock()
	scrubbed, cur := s.time.cursor >= 0, s.world.StepCount
	s.mu.Unlock()
	if scrubbed {
		return s.ScrubTo(cur + 1)
	}
	s.Do(StepOnce())
	return nil
}

// GoLive returns from the scrubbed-back view to the live world.
func (s *Session) GoLive() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.goLive()
}

// SetSpeed sets the playback and simulation speed (one of Speeds).
func (s *Session) SetSpeed(x float64) error {
	if !(x >= Speeds[0] && x <= Speeds[len(Speeds)-1]) {
		return fmt.Errorf("speed %v: want %v to %v", x, Speeds[0], Speeds[len(Speeds)-1])
	}
	s.mu.Lock()
	s.time.speed = x
	s.mu.Unlock()
	return nil
}

// SetRecordBudget sets the recording's memory budget, bytes.
func (s *Session) SetRecordBudget(b int64) {
	s.mu.Lock()
	if s.time.rec != nil && b > 0 {
		s.time.rec.Budget = b
	}
	s.mu.Unlock()
}

// SaveReplay writes the recording to a replay file.
func (s *Session) SaveReplay(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.time.rec == nil || s.time.rec.Empty() {
		return fmt.Errorf("nothing recorded: %v", s.time.recErr)
	}
	return s.time.rec.Save(path, s.name)
}

// CheckDeterminism re-simulates the recorded range from its start with each worker count and
// returns a one-line report; a difference is an error naming the step and body.
func (s *Session) CheckDeterminism(workers ...int) (string, error) {
	s.mu.Lock()
	if s.time.rec == nil || s.time.rec.Empty() {
		s.mu.Unlock()
		return "", fmt.Errorf("nothing recorded: %v", s.time.recErr)
	}
	rec := s.time.rec.Clone()
	s.mu.Unlock()
	for _, n := range workers {
		if err := rec.Check(record.CheckOptions{Workers: n}); err != nil {
			return "", fmt.Errorf("determinism check with %d workers: %w", n, err)
		}
	}
	return fmt.Sprintf("steps %d to %d re-simulated with %v workers: identical, bit for bit", rec.First(), rec.Last(), workers), nil
}

// OpenReplay replaces the session's world with a replay file's recording: the live world is its
// newest step, re-simulated exactly from its keyframe, and the view is scrubbed back to its first
// step, paused, so that play, scrub, step and branch work on it as on a recording made here. A file
// that does not load (damaged, truncated, another format) or cannot be re-simulated by this build is
// an error naming the file, and the session is left as it was.
func (s *Session) OpenReplay(path string) error {
	p, err := PrepareReplay(path, nil, nil)
	if err != nil {
		return err
	}
	return s.InstallReplay(p)
}

// PreparedReplay is a replay file loaded and re-simulated to its last step without the session's
// lock (PrepareReplay), waiting to be installed (InstallReplay).
type PreparedReplay struct {
	rp *record.Replay
	w  *sim.World
}

// Close discards a prepared replay that will not be installed.
func (p *PreparedReplay) Close() {
	if p != nil && p.w != nil {
		p.w.Close()
		p.w = nil
	}
}

// ErrStopped is PrepareReplay's error when stop said to stop.
var ErrStopped = errors.New("stopped")

// PrepareReplay is OpenReplay's slow part, without the session's lock: the file loaded (progress, if
// not nil, with "decoding" and the steps decoded of the total) and its last step re-simulated
// ("re-simulating", the steps done). stop, if not nil, is asked at every step of both stages: when
// it says so, the stage ends there, nothing is kept and the error is ErrStopped.
func PrepareReplay(path string, progress func(stage string, done, total int), stop func() bool) (*PreparedReplay, error) {
	stage := func(name string) func(done, total int) error {
		if progress == nil && stop == nil {
			return nil
		}
		return func(done, total int) error {
			if progress != nil {
				progress(name, done, total)
			}
			if stop != nil && stop() {
				return ErrStopped
			}
			return nil
		}
	}
	rp, err := record.LoadProgress(path, stage("decoding"))
	if errors.Is(err, ErrStopped) {
		return nil, ErrStopped
	}
	if err != nil {
		return nil, err
	}
	if !rp.Resumable {
		return nil, fmt.Errorf("replay %s: written by a build with other solver structures: it cannot be re-simulated here (sandbox replay %s -trace can still read it)", path, path)
	}
	if stop != nil && stop() {
		return nil, ErrStopped
	}
	var st sim.State
	if _, err := rp.KeyState(rp.Last(), &st); err != nil {
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	w := sim.NewWorld(st.Settings())
	if err := rp.Seek(w, rp.Last(), stage("re-simulating")); err != nil {
		w.Close()
		if errors.Is(err, ErrStopped) {
			return nil, ErrStopped
		}
		return nil, fmt.Errorf("replay %s: re-simulating to its last step %d: %w", path, rp.Last(), err)
	}
	if stop != nil && stop() {
		w.Close()
		return nil, ErrStopped
	}
	return &PreparedReplay{rp: rp, w: w}, nil
}

// InstallReplay replaces the session's world and recording with a prepared replay's (OpenReplay's
// quick part, under the lock); a PreparedReplay installs once.
func (s *Session) InstallReplay(p *PreparedReplay) error {
	if p == nil || p.w == nil {
		return fmt.Errorf("replay: already installed or discarded")
	}
	rp, w := p.rp, p.w
	p.w = nil
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &s.time
	if t.live != nil {
		t.live.Close()
		t.live = nil
	}
	if b := s.world.Backend(); b != nil {
		b.Close()
	}
	s.world.Close()
	s.world, s.name = w, rp.Scene
	if sc, ok := scenes.Preset(rp.Scene); ok {
		s.initial = clone(sc)
	}
	s.frames = s.frames[:0]
	for i := 0; i < w.NumJoints(); i++ {
		s.frames = append(s.frames, s.frameOf(w.Joint(i)))
	}
	s.queue, s.drag, s.backend = nil, nil, ""
	s.setErr(nil)
	rec := rp.Recorder
	rec.Budget = max(record.DefaultBudget, rec.Bytes())
	if t.rec != nil {
		rec.Budget = max(t.rec.Budget, rec.Bytes())
	}
	if t.speed == 0 {
		t.speed = 1
	}
	t.rec, t.recErr, t.cursor, t.dirty, t.acc = rec, nil, -1, false, 0
	t.rewritten()
	s.paused = true
	if rec.First() < rec.Last() {
		return s.show(rec.First())
	}
	return nil
}
