package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tumble/sim"
	"tumble/ui/command"
)

// The Time section's Open replay by real X events (xdotool: a click in the open field, Ctrl+A, the
// path typed, a click on the button): a damaged file is refused with one line in the section (and
// the panel's status line), the cradle left as it was; the whole file opens scrubbed back to its
// first step, paused, and steps on to its live end. A file dropped on the window (the drop callback,
// which xdotool cannot send) is refused or opened the same way.
func TestOpenReplayButtonRefusesADamagedFileAndOpensAWholeOne(t *testing.T) {
	needDisplay(t)
	if _, err := exec.LookPath("xdotool"); err != nil {
		if os.Getenv("TUMBLE_REQUIRE_DISPLAY") != "" {
			t.Fatal("xdotool is not installed (make deps installs it)")
		}
		t.Skip("no xdotool")
	}
	s, err := command.NewPreset("stack")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Steps(30); err != nil {
		t.Fatal(err)
	}
	// Short paths: each typed character costs a frame.
	dir, err := os.MkdirTemp("", "tr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s.replay")
	if err := s.SaveReplay(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	bad := filepath.Join(dir, "c.replay")
	if err := os.WriteFile(bad, data[:len(data)-7], 0o644); err != nil {
		t.Fatal(err)
	}

	d := drive(t, Options{Scene: "cradle", Open: []string{"time"}})
	var wx, wy int
	onMain(func() { wx, wy = d.a.win.GetPos() })
	xclick := func(label string) {
		t.Helper()
		it := d.reveal(label)
		mark(it)
		x, y := it.Centre()
		xdotool(t, "mousemove", strconv.Itoa(wx+int(x)), strconv.Itoa(wy+int(y)))
		d.frames(2)
		xdotool(t, "click", "1")
		d.frames(3)
	}
	f := &d.a.panel.time
	xopen := func(file string) {
		t.Helper()
		xclick("time/open file")
		xdotool(t, "key", "ctrl+a")
		d.frames(2)
		xdotool(t, "type", "--delay", "2", file)
		for k := 0; k < 100 && f.openFile != file; k++ {
			d.frames(1)
		}
		if f.openFile != file {
			t.Fatalf("typed %q into the open field, it holds %q", file, f.openFile)
		}
		xclick("time/Open replay")
		waitOpen(d)
	}
	t0 := time.Now()
	defer func() { t.Logf("window part: %v", time.Since(t0)) }()
	d.frames(3)
	var before int
	d.world(func(w *sim.World) { before = w.StepCount })
	xopen(bad)
	if !f.openErr || !strings.Contains(f.opened, bad) || strings.Contains(f.opened, "\n") {
		t.Fatalf("a truncated file: %q (error %v); want one error line naming it", f.opened, f.openErr)
	}
	if !d.a.panel.isErr || !strings.Contains(d.a.panel.message, "open replay") {
		t.Errorf("status line %q", d.a.panel.message)
	}
	if d.a.S.Name() != "cradle" {
		t.Fatalf("after a refused file the session is %q", d.a.S.Name())
	}
	d.world(func(w *sim.World) {
		if w.StepCount < before || w.Bodies.Len() != 6 {
			t.Fatalf("after a refused file: step %d (was %d), %d bodies", w.StepCount, before, w.Bodies.Len())
		}
	})

	xopen(path)
	if f.openErr || f.opened != "opened "+path {
		t.Fatalf("Open replay: %q", f.opened)
	}
	tl := d.a.S.Timeline()
	if d.a.S.Name() != "stack" || tl.First != 0 || tl.Last != 30 || tl.Cursor != 0 || !d.a.S.Paused() {
		t.Fatalf("opened: %s, %+v, paused %v", d.a.S.Name(), tl, d.a.S.Paused())
	}
	xclick("time/Step forward (.)")
	if c := d.a.S.Timeline().Cursor; c != 1 {
		t.Fatalf("Step forward on the opened replay: at %d, want 1", c)
	}
	xclick("time/Live")
	d.world(func(w *sim.World) {
		if w.StepCount != 30 {
			t.Errorf("Live on the opened replay: step %d, want 30", w.StepCount)
		}
	})
	// Dropping a file on the window.
	d.a.onDrop([]string{bad})
	waitOpen(d)
	if !f.openErr || d.a.S.Name() != "stack" {
		t.Fatalf("dropped a truncated file: %q, session %s", f.opened, d.a.S.Name())
	}
	d.a.onDrop([]string{path})
	waitOpen(d)
	if f.openErr || d.a.S.Timeline().Cursor != 0 {
		t.Fatalf("dropped the replay: %q, %+v", f.opened, d.a.S.Timeline())
	}
}

// waitOpen runs frames until the replay being opened in the background is open or refused.
func waitOpen(d *driver) {
	d.t.Helper()
	for k := 0; k < 600 && d.a.panel.time.opening != nil; k++ {
		d.frames(1)
	}
	if d.a.panel.time.opening != nil {
		d.t.Fatal("the replay file is still opening after 600 frames")
	}
}
