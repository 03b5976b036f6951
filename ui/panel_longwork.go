package ui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/inkyblackness/imgui-go/v4"
)

// Long work (a video encoded, a large scene built or written, a replay written) runs on a goroutine
// of its own, never on the UI thread: GL stays on the main OS thread and the window goes on drawing
// frames while it runs, with a progress bar and a Cancel button where the work was started. Its
// outcome is applied on the UI thread at the start of a frame (pollJobs), so that only the UI thread
// changes the panel's state.

// longJob is one piece of long work under way.
type longJob struct {
	what    string       // what it does, as the bar says ("encoding tumble-....gif")
	unit    string       // what done and total count ("frames", "bodies", "MB")
	stage   atomic.Value // a string, when set: the unit of the stage under way ("steps decoding")
	done    atomic.Int64 // progress so far
	total   atomic.Int64 // of this much; 0 while not known (the bar then shows the time taken)
	ctx     context.Context
	cancel  context.CancelFunc
	started time.Time
	outcome chan func() // the outcome, to run on the UI thread once the work returns
	// dropOnClose: the window closing cancels it (a load) rather than waits for it (an encoding, a save).
	dropOnClose bool
}

// startJob runs work on a goroutine of its own; the function work returns runs on the UI thread
// when it is done (pollJobs). work reports its progress on j and returns early once j.ctx is done.
func (a *App) startJob(what, unit string, work func(j *longJob) func()) *longJob {
	ctx, cancel := context.WithCancel(context.Background())
	j := &longJob{what: what, unit: unit, ctx: ctx, cancel: cancel, started: time.Now(), outcome: make(chan func(), 1)}
	a.jobs = append(a.jobs, j)
	go func() { j.outcome <- work(j) }()
	return j
}

// pollJobs applies the outcomes of the jobs that finished (at the start of a frame, on the UI thread).
func (a *App) pollJobs() {
	keep := a.jobs[:0]
	for _, j := range a.jobs {
		select {
		case f := <-j.outcome:
			if f != nil {
				f()
			}
			j.cancel() // releases the context (the outcome above read whether it was cancelled)
		default:
			keep = append(keep, j)
		}
	}
	clear(a.jobs[len(keep):])
	a.jobs = keep
}

// waitJobs lets the jobs under way finish and applies their outcomes (the window closing: a video
// half encoded or a file half written is finished, not lost); a load is cancelled first.
func (a *App) waitJobs() {
	for _, j := range a.jobs {
		if j.dropOnClose {
			j.cancel()
		}
	}
	for _, j := range a.jobs {
		if f := <-j.outcome; f != nil {
			f()
		}
		j.cancel()
	}
	a.jobs = nil
}

// running reports whether j is under way (not nil and not finished).
func (a *App) running(j *longJob) bool {
	for _, x := range a.jobs {
		if x == j && j != nil {
			return true
		}
	}
	return false
}

// jobBar draws j's progress bar and, on the same line, its Cancel button (labelled cancel, an ID of
// its own in the section): one line, the height of a button.
func (a *App) jobBar(j *longJob, cancel string) {
	g := &a.w
	done, total := j.done.Load(), j.total.Load()
	unit := j.unit
	if st, ok := j.stage.Load().(string); ok {
		unit = st
	}
	secs := time.Since(j.started).Seconds()
	frac := float32(0)
	// The count first: a narrow bar cuts the text's end.
	text := fmt.Sprintf("%.0f s %s", secs, j.what)
	if total > 0 {
		frac = float32(done) / float32(total)
		text = fmt.Sprintf("%d/%d %s %s", done, total, unit, j.what)
	} else if done > 0 {
		text = fmt.Sprintf("%d %s, %.0f s %s", done, unit, secs, j.what)
	}
	if j.ctx.Err() != nil {
		text = "cancelling " + text
	}
	st := imgui.CurrentStyle()
	w := imgui.ContentRegionAvail().X - imgui.CalcTextSize(shown(cancel), true, 0).X - 2*st.FramePadding().X - st.ItemSpacing().X
	imgui.ProgressBarV(frac, imgui.Vec2{X: max(w, 40), Y: imgui.FrameHeight()}, fitText(text, w))
	g.record("progress", "###progress"+strings.TrimPrefix(idPart(cancel), "###"))
	tip(text)
	imgui.SameLine()
	if g.button(cancel) {
		j.cancel()
	}
}
