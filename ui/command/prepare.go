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
// (Capture, ReplayNow) takes the lock.

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

// Reset, Snapshot and Restore of a large world take seconds too: the world rebuilt from its scene,
// or the state written out as one. Their slow parts run without the lock as well (PrepareReset,
// PrepareRestore, Captured.Scene), and the installs check that what they were prepared from is still
// the session's: a scene loaded meanwhile, or a newer snapshot, refuses them.

// PrepareReset builds, without the session's lock, the world Reset installs: the scene the world was
// loaded from. progress as for PreparePreset.
func (s *Session) PrepareReset(progress func(done, total int) error) (*Prepared, error) {
	s.mu.Lock()
	name, sc := s.name, s.initial
	s.mu.Unlock()
	return prepare(name, sc, progress)
}

// InstallReset is Reset with the world PrepareReset built: the settings changed since are kept.
func InstallReset(p *Prepared) Command {
	return func(s *Session) error {
		if p.w == nil {
			return fmt.Errorf("%s: already installed or discarded", p.name)
		}
		if p.sc != s.initial {
			p.Close()
			return fmt.Errorf("%s: another scene was loaded while it was rebuilt", p.name)
		}
		s.resetTo(p.w)
		p.w = nil
		return nil
	}
}

// PrepareRestore builds, without the session's lock, the world Restore installs: the last Snapshot's.
// progress as for PreparePreset.
func (s *Session) PrepareRestore(progress func(done, total int) error) (*Prepared, error) {
	s.mu.Lock()
	name, sc := s.name, s.snap
	s.mu.Unlock()
	if sc == nil {
		return nil, fmt.Errorf("no snapshot to restore")
	}
	return prepare(name, sc, progress)
}

// InstallRestore is Restore with the world PrepareRestore built: the snapshot's clock, Reset's scene
// kept.
func InstallRestore(p *Prepared) Command {
	return func(s *Session) error {
		if p.w == nil {
			return fmt.Errorf("%s: already installed or discarded", p.name)
		}
		if p.sc != s.snap {
			p.Close()
			return fmt.Errorf("%s: another snapshot was taken while it was rebuilt", p.name)
		}
		s.restoreTo(p.w)
		p.w = nil
		return nil
	}
}

// SetSnapshot keeps sc, written from c (Capture, Captured.Scene), as the snapshot Restore goes back
// to, with c's clock.
func SetSnapshot(c *Captured, sc *scenes.Scene) Command {
	return func(s *Session) error {
		s.snap, s.snapStep, s.snapTime = sc, c.step, c.time
		return nil
	}
}
