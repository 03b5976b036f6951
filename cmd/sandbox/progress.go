package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress shows "label: step i/n (p%), elapsed, about t left" on one updating line of a terminal, at
// most 10 times a second. On anything but a terminal (a file, a pipe, a test's buffer) it shows
// nothing, so logs and piped output stay clean.
type progress struct {
	w     io.Writer // nil when off
	label string
	total int
	start time.Time
	last  time.Time
	now   func() time.Time
}

func newProgress(stderr io.Writer, label string, total int) *progress {
	p := &progress{label: label, total: total, now: time.Now}
	p.start = p.now()
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
	now := p.now()
	if now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	line := fmt.Sprintf("%s: step %d/%d", p.label, step, p.total)
	if p.total > 0 {
		line += fmt.Sprintf(" (%d%%), %s", 100*step/p.total, el.Round(time.Second))
		if step > 0 && step < p.total {
			left := time.Duration(float64(el) * float64(p.total-step) / float64(step))
			line += fmt.Sprintf(", about %s left", left.Round(time.Second))
		}
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
}

// done clears the line.
func (p *progress) done() {
	if p.w != nil && !p.last.IsZero() {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
