package command

import (
	"errors"
	"fmt"
	"slices"

	"tumble/sim"
)

// Backend kinds, as UseBackend, the window's -backend flag and the program's backend factory
// (Backends.Open) name them.
const (
	BackendCPU      = "cpu"
	BackendCUDA     = "cuda"
	BackendEmulated = "emu"
)

// Backends is how a session makes backends. The program chooses them in one place and injects them
// (cmd/sandbox passes gpu.Open and gpu.Kinds); the command layer never knows which backends exist.
// The zero value offers the CPU alone.
type Backends struct {
	// Open makes a backend of a kind; nil (and no error) for the CPU. On failure nothing is made.
	Open func(kind string) (sim.Backend, error)
	// Kinds are the kinds offered (the panel's list), the CPU first.
	Kinds []string
}

// SetBackends sets how the session makes backends (see Backends).
func (s *Session) SetBackends(b Backends) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.backends = b
}

// BackendKinds lists the kinds of backend the session offers, the CPU first.
func (s *Session) BackendKinds() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.backends.Kinds) == 0 {
		return []string{BackendCPU}
	}
	return slices.Clone(s.backends.Kinds)
}

// BackendLabel is the panel's honest name for a kind.
func BackendLabel(kind string) string {
	switch kind {
	case BackendCUDA:
		return "cuda"
	case BackendEmulated:
		return "cuda (emulated, slow)"
	}
	return "cpu"
}

// newBackend makes a backend of the kind through the injected factory; nil for the CPU.
func (s *Session) newBackend(kind string) (sim.Backend, error) {
	if kind == BackendCPU || kind == "" {
		return nil, nil
	}
	if s.backends.Open == nil {
		return nil, fmt.Errorf("no backend but the CPU is offered here (asked for %q)", kind)
	}
	return s.backends.Open(kind)
}

// attach puts the world on a new backend of the kind. On failure the world stays where it was.
func (s *Session) attach(kind string) error {
	b, err := s.newBackend(kind)
	if err != nil {
		return err
	}
	return s.attachTo(b)
}

// attachTo puts the world on b (nil: the CPU), or closes b and leaves the world where it was when b
// cannot run it: a body of a shape b does not run (the World refuses it), or settings it does not run.
func (s *Session) attachTo(b sim.Backend) error {
	if b != nil {
		// Settings the backend cannot run (another solver, sleeping) would fail every step.
		if err := sim.CheckFor(b.Capabilities(), s.world.Settings()); err != nil {
			b.Close()
			return err
		}
	}
	if t, ok := b.(interface{ SetTimed(bool) }); ok {
		t.SetTimed(true) // the panel's step-by-stage times: worth a wait for the device after each stage
	}
	if err := s.world.SetBackend(b); err != nil {
		if b != nil {
			b.Close()
		}
		return err
	}
	return nil
}

// ErrBackendUnreadable is wrapped by UseBackend's error when the backend left could not give its
// state back and the world went on from the state of its last successful read.
var ErrBackendUnreadable = errors.New("the backend's last state could not be read back")

// UseBackend moves the running world onto a backend of the kind (cpu, cuda, emu) between two steps,
// keeping every body, joint and setting: the old backend's state is read back into the world, which
// the new one starts from. If the new backend cannot be made or the state cannot be read, the world
// stays on the old one and the error says why. The one exception is going to the CPU from a backend
// that cannot be read back at all: the world then goes on from its last synced state, and the error
// (wrapping ErrBackendUnreadable) says so, since staying would leave no way off that backend.
func UseBackend(kind string) Command {
	return func(s *Session) error {
		err := s.attach(kind)
		if err != nil && (kind == BackendCPU || kind == "") && s.world.Backend() != nil {
			s.world.DropBackend()
			s.backend = ""
			return fmt.Errorf("back on the CPU from the bodies as last read back: %w (%v)", ErrBackendUnreadable, err)
		}
		if err != nil {
			return fmt.Errorf("%s backend: %w", kind, err)
		}
		s.backend = kind
		if kind == BackendCPU {
			s.backend = ""
		}
		return nil
	}
}

// SwitchBackend is UseBackend as the window's panel switches: sleeping, which the CUDA backends do not
// do, is turned off for the switch rather than a reason to refuse it, and turned back on when the world
// comes back to the CPU backend (SleepParked says whether it is off for that reason).
func SwitchBackend(kind string) Command {
	return func(s *Session) error {
		if kind == BackendCPU || kind == "" {
			err := UseBackend(kind)(s)
			if s.world.Backend() == nil {
				s.unpark()
			}
			return err
		}
		if err := s.attachParked(kind); err != nil {
			return fmt.Errorf("%s backend: %w", kind, err)
		}
		s.backend = kind
		return nil
	}
}

// attachParked is attach with sleeping turned off first where the backend does not sleep; if the
// backend cannot be attached, sleeping is left as it was.
func (s *Session) attachParked(kind string) error {
	set := s.world.Settings()
	if !set.Sleep {
		return s.attach(kind)
	}
	b, err := s.newBackend(kind)
	if err != nil {
		return err
	}
	if b != nil {
		// Refused for a shape before sleeping is touched: turning it off and on would wake every body.
		if err := sim.CheckShapesFor(b.Capabilities(), &s.world.Bodies); err != nil {
			b.Close()
			return err
		}
	}
	off := set
	off.Sleep = false
	s.world.SetSettings(off)
	if err := s.attachTo(b); err != nil {
		s.world.SetSettings(set)
		return err
	}
	if s.world.Capabilities().Sleep {
		s.world.SetSettings(set)
		return nil
	}
	s.sleepParked = true
	return nil
}

// unpark turns sleeping back on if SwitchBackend turned it off.
func (s *Session) unpark() {
	if !s.sleepParked {
		return
	}
	s.sleepParked = false
	set := s.world.Settings()
	set.Sleep = true
	s.world.SetSettings(set)
}

// SleepParked says whether sleeping is off because the world runs on a backend that does not sleep
// (SwitchBackend), to come back on with the CPU backend.
func (s *Session) SleepParked() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sleepParked
}

// BackendKind is the kind of backend the world runs on (cpu, cuda or emu).
func (s *Session) BackendKind() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.backend == "" {
		return BackendCPU
	}
	return s.backend
}

// BackendName is the backend's own description (sim.Backend.Name), "cpu" without one.
func (s *Session) BackendName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.world.Backend(); b != nil {
		return b.Name()
	}
	return BackendCPU
}

// Exec runs c at once on the calling goroutine, under the session's lock between two steps, rather than
// queueing it for whichever goroutine applies the queue next: for a command that must run on the
// caller's thread, such as a backend switch made on the GL thread (interop's registrations with the old
// backend are released there). Its error is kept like a queued command's.
func (s *Session) Exec(c Command) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	err := c(s)
	if err != nil {
		s.setErr(err)
	}
	return err
}
