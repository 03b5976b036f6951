package command

import (
	"errors"
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
