package command

import (
	"fmt"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/record"
)

// Loading and saving a large scene or replay takes seconds (the million-body pile: a million bodies
// added, a scene file of hundreds of MB). The window does it off its UI thread: the slow part runs
// on a goroutine without the session's lock (a world built, a file written), with progress and a
// way to stop, and only the swap of the new world in (Install) or the copy of the state to write
// (SceneNow, ReplayNow) takes the lock.

// Prepared is a scene's world, built without the session's lock, waiting to be installed.
type Prepared struct {
	name  string
	sc    *scenes.Scene
	w     *sim.World
	notes []string // what the file left out (ReadSceneFile)
}

// Bodies is the prepared world's body count (0 once installed or closed).
func (p *Prepared) Bodies() int {
	if p.w == nil {
		return 0
	}
	return p.w.Bodies.Len()
}

// Close discards a prepared world that will not be installed.
func (p *Prepared) Close() {
	if p.w != nil {
		p.w.Close()
		p.w = nil
	}
}

// PreparePreset builds the named preset's world; progress (may be nil) is scenes.Options.Progress.
func PreparePreset(name string, progress func(done, total int) error) (*Prepared, error) {
	sc, ok := scenes.Preset(name)
	if !ok {
		return nil, fmt.Errorf("no preset named %q", name)
	}
	return prepare(name, sc, progress)
}

// PrepareFile reads a scene file (or a URDF robot: ReadSceneFile) and builds its world; progress as
// for PreparePreset.
func PrepareFile(path string, progress func(done, total int) error) (*Prepared, error) {
	sc, notes, err := ReadSceneFile(path)
	if err != nil {
		return nil, err
	}
	p, err := prepare(path, sc, progress)
	if p != nil {
		p.notes = notes
	}
	return p, err
}

func prepare(name string, sc *scenes.Scene, progress func(done, total int) error) (*Prepared, error) {
	w, err := sc.World(scenes.Options{Progress: progress})
	if err != nil {
		return nil, err
	}
	return &Prepared{name: name, sc: sc, w: w}, nil
}

// Install replaces the world with a prepared one, as LoadPreset and LoadFile do with the worlds they
// build; a Prepared installs once.
func Install(p *Prepared) Command {
	return func(s *Session) error {
		if p.w == nil {
			return fmt.Errorf("%s: already installed or discarded", p.name)
		}
		s.install(p.name, p.sc, p.w, 0, 0)
		s.notes = p.notes
		p.w = nil
		return nil
	}
}

// SceneNow is the current state as a scene (what SaveFile writes), copied under the session's lock
// so that it can be written without it.
func (s *Session) SceneNow() *scenes.Scene {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	return s.currentScene()
}

// ReplayNow is a copy of the recording and the scene's name (what SaveReplay writes), taken under
// the session's lock so that it can be written without it.
func (s *Session) ReplayNow() (*record.Recorder, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.time.rec == nil || s.time.rec.Empty() {
		return nil, "", fmt.Errorf("nothing recorded: %v", s.time.recErr)
	}
	return s.time.rec.Clone(), s.name, nil
}
