package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress shows "label: step i/n" on one updating line of a terminal, at most 10 times a second.
// On anything but a terminal (a file, a pipe, a test's buffer) it shows nothing.
type progress struct {
	w     io.Writer // nil when off
	label string
	total int
	last  time.Time
}

func newProgress(stderr io.Writer, label string, total int) *progress {
	p := &progress{label: label, total: total}
	if f, ok := stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.w = stderr
		}
	}
	return p
}

func (p *progress) update(step int) {
	if p.w == nil {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond {
		p.last = now
		fmt.Fprintf(p.w, "\r%s: step %d/%d", p.label, step, p.total)
	}
}

// done clears the line.
func (p *progress) done() {
	if p.w != nil && !p.last.IsZero() {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
