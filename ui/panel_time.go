package ui

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
	"tumble/ui/command"
)

// The Time section is the session's timeline (ui/command/timeline.go, docs/REPLAY.md): a slider over
// the recorded steps that scrubs the view back, step back and forward (also the , and . keys), back
// to the live world, the playback and simulation speed, the recording's memory and budget, the
// determinism check and saving the recording as a replay file.

// timeForm is the Time section's state between frames.
type timeForm struct {
	inited    bool
	file      string // the replay file to save
	saved     string // the last save's outcome: the absolute path written, or the error
	saveErr   bool
	check     string // the determinism check's result line ("checking..." while it runs)
	checkErr  bool
	checking  chan checkResult // the running check's result, nil when none runs
	budgetMB  int32            // the budget slider's value while it is being dragged
	budgetSet bool
	openFile  string // the replay file to open
	opened    string // the last open's outcome: "opened PATH", or why the file was refused
	openErr   bool
	opening   *longJob // the open under way (loading and re-simulating off the UI thread), nil when none
	openPath  string
	openHook  func(stage string, done, total int) // tests: called with each of the open's progress reports
	drift     driftForm
}

// checkResult is a determinism check's outcome.
type checkResult struct {
	line string
	err  error
}

// speedLabels name command.Speeds in the speed combo.
var speedLabels = []string{"1/8x", "1/4x", "1/2x", "1x", "2x", "4x"}

// checkWorkers are the worker counts the determinism check re-simulates with.
var checkWorkers = []int{1, 2}

// defaultReplayFile is the replay file name the section starts with (in the working directory).
const defaultReplayFile = "tumble.replay"

// timeSection draws the Time section.
func (a *App) timeSection() {
	g := &a.w
	f := &a.panel.time
	if !f.inited {
		f.inited, f.file = true, defaultReplayFile
		if f.openFile == "" {
			f.openFile = defaultReplayFile
		}
	}
	tl := a.S.Timeline()
	var step int
	var t float64
	a.S.Peek(func(w *sim.World) { step, t = w.StepCount, w.Time })

	if tl.Off != nil {
		textDisabled("not recording: " + tl.Off.Error())
	}
	if tl.Last >= tl.First && tl.Last >= 0 {
		where := "live"
		if tl.Cursor >= 0 {
			where = fmt.Sprintf("scrubbed back %d steps", tl.Last-tl.Cursor)
		}
		imgui.Textf("step %d   t %.3f s   (%s)", step, t, where)
		tip("the step shown; the recording holds steps " + fmt.Sprint(tl.First, " to ", tl.Last) +
			"; the newest is the live world")
		cur := int32(step)
		w := imgui.CalcItemWidth()
		if g.sliderInt("recorded step", &cur, int32(tl.First), int32(tl.Last)) {
			a.timeErr("scrub", a.S.ScrubTo(int(cur)))
		}
		tip("drag to show any recorded step (pauses); the right end is the live world")
		// The live end: a bar at the slider's right edge, green while live, amber while scrubbed back.
		lo, hi := imgui.ItemRectMin(), imgui.ItemRectMax()
		col := imgui.Vec4{X: 0.3, Y: 0.85, Z: 0.3, W: 1}
		if tl.Cursor >= 0 {
			col = imgui.Vec4{X: 0.95, Y: 0.65, Z: 0.1, W: 1}
		}
		imgui.WindowDrawList().AddRectFilled(imgui.Vec2{X: lo.X + w - 3, Y: lo.Y}, imgui.Vec2{X: lo.X + w, Y: hi.Y},
			imgui.PackedColorFromVec4(col))
		a.driftMarks(tl, lo, hi, w)
	} else {
		textDisabled("nothing recorded")
	}
	if g.button("Step back (,)") {
		a.timeErr("step back", a.S.StepBack())
	}
	g.sameLine("button", "Step forward (.)")
	if g.button("Step forward (.)") {
		a.timeErr("step forward", a.S.StepForward())
	}
	g.sameLine("button", "Live")
	if g.button("Live") {
		a.timeErr("live", a.S.GoLive())
	}
	tip("back to the live world (the newest recorded step)")

	speed := int32(3)
	for i, x := range command.Speeds {
		if x == tl.Speed {
			speed = int32(i)
		}
	}
	if g.combo("speed", &speed, speedLabels) {
		a.timeErr("speed", a.S.SetSpeed(command.Speeds[speed]))
	}
	tip("simulation speed, and playback speed while scrubbed back")

	imgui.Textf("recording: %.2f MB of %.0f MB, %d keyframes", float64(tl.Bytes)/(1<<20), float64(tl.Budget)/(1<<20), tl.Keyframes)
	exact := "no step's exact poses are held: steps are shown from their display poses (to 1/2048 m)"
	if tl.ExactFrom <= tl.Last {
		exact = fmt.Sprintf("exact poses held from step %d (%.2f MB)", tl.ExactFrom, float64(tl.ExactBytes)/(1<<20))
	}
	tip("memory the recorded steps hold; past the budget the exact poses go first, then older keyframes, then the oldest steps; " + exact)
	mb := int32(tl.Budget >> 20)
	if f.budgetSet {
		mb = f.budgetMB
	}
	if g.sliderInt("budget, MB", &mb, 16, 4096) {
		f.budgetMB, f.budgetSet = mb, true
		a.S.SetRecordBudget(int64(mb) << 20)
	}
	if !imgui.IsItemActive() {
		f.budgetSet = false
	}

	if f.checking != nil {
		select {
		case r := <-f.checking:
			f.checking = nil
			f.check, f.checkErr = r.line, r.err != nil
			if r.err != nil {
				f.check = r.err.Error()
			}
		default:
		}
	}
	g.inputText("replay file", &f.file)
	if g.button("Save replay") {
		a.saveReplay(f.file)
	}
	tip("write the recording to the file (sandbox replay FILE reads it)")
	g.sameLine("button", "Check determinism")
	if g.button("Check determinism") && f.checking == nil {
		ch := make(chan checkResult, 1)
		f.checking, f.check, f.checkErr = ch, "checking...", false
		go func() {
			line, err := a.S.CheckDeterminism(checkWorkers...)
			ch <- checkResult{line, err}
		}()
	}
	tip(fmt.Sprintf("re-simulate the recorded steps with %v workers and compare them bit for bit", checkWorkers))
	g.inputText("open file", &f.openFile)
	if g.button("Open replay") {
		a.openReplay(f.openFile)
	}
	tip("open a replay file (also: drop it on the window): scrubbed back to its first step, paused")
	a.driftWidgets()
	// The outcomes come last, so that one appearing (or wrapping) never moves a widget.
	if f.saved != "" {
		statusText(f.saved, f.saveErr)
	}
	if f.check != "" {
		statusText(f.check, f.checkErr)
	}
	if f.opened != "" {
		statusText(f.opened, f.openErr)
	}
	if f.drift.line != "" {
		statusText(f.drift.line, f.drift.isErr)
	}
}

// openReplay opens a replay file in the session (the Open replay button, a file dropped on the
// window) off the UI thread: loading and re-simulating a large recording takes seconds, and the window
// goes on drawing meanwhile, the status line showing the steps decoded, then re-simulated, with a
// Cancel that ends either stage at the step under way. The outcome, or why the file was refused, is the Time section's last line (a refusal also
// the panel's status line, seen with the section closed).
func (a *App) openReplay(path string) {
	f := &a.panel.time
	if f.opening != nil {
		return // one at a time
	}
	f.openFile, f.openPath = path, path
	f.opened, f.openErr = "opening "+path+" ...", false
	hook := f.openHook
	f.opening = a.startJob("opening "+filepath.Base(path), "steps", func(j *longJob) func() {
		progress := func(stage string, done, total int) {
			j.stage.Store("steps " + stage)
			j.done.Store(int64(done))
			j.total.Store(int64(total))
			if hook != nil {
				hook(stage, done, total)
			}
		}
		p, err := command.PrepareReplay(path, progress, func() bool { return j.ctx.Err() != nil })
		return func() {
			f.opening = nil
			if errors.Is(err, command.ErrStopped) || (err == nil && j.ctx.Err() != nil) {
				p.Close()
				f.opened, f.openErr = "open "+path+": cancelled; the scene is as it was", false
				return
			}
			if err == nil {
				err = a.S.InstallReplay(p)
			}
			if err != nil {
				f.opened, f.openErr = err.Error(), true
				a.timeErr("open replay", err)
				return
			}
			f.opened, f.openErr = "opened "+f.openPath, false
			a.status("replay "+f.opened, false)
			a.Selected = sim.Handle{}
		}
	})
	f.opening.dropOnClose = true
}

// statusText shows an outcome line, red when it is an error.
func statusText(s string, isErr bool) {
	if !isErr {
		imgui.Text(s)
		return
	}
	imgui.PushStyleColor(imgui.StyleColorText, imgui.Vec4{X: 1, Y: 0.4, Z: 0.4, W: 1})
	imgui.Text(s)
	imgui.PopStyleColor()
}

// timeErr shows a timeline action's error in the panel's status line (nothing when it worked).
func (a *App) timeErr(what string, err error) {
	if err == nil {
		return
	}
	p := &a.panel
	p.errSeq = a.S.ErrSeq()
	p.message, p.isErr = what+": "+err.Error(), true
}

// onDrop is GLFW's drop callback: the first file dropped on the window is opened, a replay or a
// scene (openDropped).
func (a *App) onDrop(names []string) {
	if len(names) > 0 {
		a.openDropped(names[0])
	}
}
