package command

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"tumble/sim"
)

// A preset built off the session's lock reports its bodies as it adds them, ends at the total, and
// replaces the world when installed; a progress error stops the build and leaves nothing behind.
func TestAPreparedPresetReportsItsProgressAndInstalls(t *testing.T) {
	s, err := NewPreset("stack")
	if err != nil {
		t.Fatal(err)
	}
	var last, total, calls int
	p, err := PreparePreset("pyramid", func(done, n int) error {
		if done < last {
			t.Errorf("progress went back from %d to %d", last, done)
		}
		last, total, calls = done, n, calls+1
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total != 386 || last != total || calls < 2 || p.Bodies() != 386 {
		t.Fatalf("progress ended at %d of %d in %d calls; %d bodies built", last, total, calls, p.Bodies())
	}
	s.Do(Install(p))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if s.name != "pyramid" || w.Bodies.Len() != 386 {
			t.Errorf("after Install: %s with %d bodies", s.name, w.Bodies.Len())
		}
	})
	s.Do(Install(p))
	if err := s.Apply(); err == nil {
		t.Errorf("a Prepared installed twice")
	}
	stop := errors.New("stop")
	if _, err := PreparePreset("pile", func(done, n int) error {
		if done > 0 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) {
		t.Errorf("a build told to stop returned %v", err)
	}
}

// A replay file prepared off the lock reports its decoding and its re-simulation, installs like
// OpenReplay, and is dropped when stop says so.
func TestAPreparedReplayReportsItsStagesAndStops(t *testing.T) {
	s, err := NewPreset("stack")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Steps(30); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.replay")
	if err := s.SaveReplay(path); err != nil {
		t.Fatal(err)
	}
	stages := map[string]int{}
	p, err := PrepareReplay(path, func(stage string, done, total int) { stages[stage] = max(stages[stage], done) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := stages["decoding"]; !ok || stages["re-simulating"] == 0 {
		t.Errorf("stages reported: %v, want the decoding and the steps re-simulated", stages)
	}
	if err := s.InstallReplay(p); err != nil {
		t.Fatal(err)
	}
	if err := s.InstallReplay(p); err == nil {
		t.Errorf("a PreparedReplay installed twice")
	}
	if _, err := PrepareReplay(path, nil, func() bool { return true }); !errors.Is(err, ErrStopped) {
		t.Errorf("a replay told to stop: %v", err)
	}
}

// A captured state written out off the lock is the scene SaveFile writes, and a stop from its
// progress ends the writing; a reset or restore built off the lock installs as Reset and Restore do
// (the changed settings kept, the snapshot's clock), and is refused once another scene or snapshot
// has replaced what it was built from.
func TestCapturedScenesAndPreparedResetsMatchTheCommands(t *testing.T) {
	s, err := NewPreset("pyramid")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Steps(5); err != nil {
		t.Fatal(err)
	}
	c := s.Capture()
	got, err := c.Scene(nil)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := got.Save(&a); err != nil {
		t.Fatal(err)
	}
	if err := s.CurrentScene().Save(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) || c.Bodies() != 386 {
		t.Errorf("the captured scene (%d bodies) differs from the current one", c.Bodies())
	}
	stop := errors.New("stop")
	calls := 0
	if _, err := c.Scene(func(done, total int) error {
		calls++
		if done > 0 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) || calls != 2 {
		t.Errorf("a write told to stop after its first report: %v after %d reports", err, calls)
	}

	s.Do(SetSnapshot(c, got))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	if err := s.Steps(5); err != nil {
		t.Fatal(err)
	}
	restore, err := s.PrepareRestore(nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Do(InstallRestore(restore))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if w.StepCount != 5 || w.Bodies.Len() != 386 {
			t.Errorf("after InstallRestore: step %d, %d bodies; the snapshot was at step 5 with 386", w.StepCount, w.Bodies.Len())
		}
	})
	s.Do(SetSettings(func(set *sim.Settings) { set.Iterations = 13 }))
	reset, err := s.PrepareReset(nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Do(InstallReset(reset))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if w.StepCount != 0 || w.Settings().Iterations != 13 {
			t.Errorf("after InstallReset: step %d, %d iterations (the changed 13 kept)", w.StepCount, w.Settings().Iterations)
		}
	})
	stale, err := s.PrepareReset(nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Do(LoadPreset("stack"))
	s.Do(InstallReset(stale))
	if err := s.Apply(); err == nil || s.Name() != "stack" {
		t.Errorf("a reset built for the pyramid, installed over the stack: %v (scene %s)", err, s.Name())
	}
}
