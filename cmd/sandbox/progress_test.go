package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// TestProgressLineOnATerminal: on a terminal the line shows the step, the share done, the time
// spent and the time left, at most ten times a second, and is cleared at the end; on a file it
// shows nothing.
func TestProgressLineOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(1000, 0)
	p := &progress{w: &buf, label: "run pile", total: 400, now: func() time.Time { return clock }}
	p.start = clock
	clock = clock.Add(10 * time.Second)
	p.update(100)
	if got, want := buf.String(), "\r\033[Krun pile: step 100/400 (25%), 10s, about 30s left"; got != want {
		t.Fatalf("progress line %q, want %q", got, want)
	}
	clock = clock.Add(50 * time.Millisecond)
	p.update(101) // too soon: not drawn
	if strings.Contains(buf.String(), "101") {
		t.Fatalf("drawn again within 100 ms: %q", buf.String())
	}
	clock = clock.Add(time.Second)
	p.update(400)
	if !strings.HasSuffix(buf.String(), "step 400/400 (100%), 11s") {
		t.Fatalf("the last update: %q", buf.String())
	}
	p.done()
	if !strings.HasSuffix(buf.String(), "\r\033[K") {
		t.Fatalf("done did not clear the line: %q", buf.String())
	}

	f, err := os.Create(t.TempDir() + "/log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	q := newProgress(f, "run", 10)
	q.update(5)
	q.done()
	if st, _ := f.Stat(); st.Size() != 0 {
		t.Fatalf("progress wrote %d bytes to a file", st.Size())
	}
}
