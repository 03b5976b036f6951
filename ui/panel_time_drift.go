package ui

import (
	"errors"
	"fmt"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
	"tumble/sim/record"
	"tumble/ui/command"
)

// Divergence marks (the Time section): the recording re-simulated from its first step under a
// solver and on a backend chosen here (command.Session.ReSimulate, off the UI thread, with the
// header's bar and Cancel), compared with what was recorded step by step. The steps where the run
// leaves the recording are marked on the recorded-step slider: red at the first step past the
// tolerance (with a zero tolerance, the first whose bits differ), orange at the first past each
// tenfold of it; the status line says where the run diverges.

// driftForm is the re-simulation's widgets and outcome.
type driftForm struct {
	inited  bool
	solver  int32   // 0: the recorded settings; k: driftSolvers[k-1]
	backend int32   // index into the session's backend kinds
	tolMM   float32 // the tolerance, mm
	line    string  // the outcome
	isErr   bool
	running *longJob
	marks   []float32 // the marks' x on the slider as this frame drew them (tests read them)
}

// driftSolvers are the solvers the re-simulation offers besides the recorded settings.
var driftSolvers = sim.CPUCapabilities().Solvers

// driftWidgets draws the re-simulation's widgets: what to run, the tolerance, the button.
func (a *App) driftWidgets() {
	g := &a.w
	f := &a.panel.time.drift
	if !f.inited {
		f.inited, f.tolMM = true, 1
	}
	solvers := []string{"the recorded settings"}
	for _, k := range driftSolvers {
		solvers = append(solvers, sim.SolverOf(k).Title())
	}
	g.combo("re-simulate with", &f.solver, solvers)
	tip("the solver the recording is re-simulated with, from its first step; the recorded\n" +
		"settings show whether the run repeats (bit for bit on one machine and build)")
	kinds := a.S.BackendKinds()
	labels := make([]string, len(kinds))
	for i, k := range kinds {
		labels[i] = command.BackendLabel(k)
	}
	f.backend = min(f.backend, int32(len(kinds)-1))
	g.combo("re-simulate on", &f.backend, labels)
	tip("the backend the re-simulation steps on (another than the CPU runs with sleeping off)")
	g.sliderFloatV("tolerance, mm", &f.tolMM, 0, 1000, "%.3f", imgui.SliderFlagsLogarithmic)
	tip("a step is marked where some body is further than this from its recorded position;\n" +
		"0: the first step whose bits differ")
	if g.button("Re-simulate and mark") && f.running == nil {
		a.reSimulate(kinds[f.backend])
	}
	tip("re-simulate the whole recording and mark on the slider where it leaves the recording")
}

// reSimulate starts the re-simulation off the UI thread.
func (a *App) reSimulate(backend string) {
	f := &a.panel.time.drift
	rs := command.ReSimulation{Backend: backend, Tolerance: f.tolMM / 1000}
	what := "the recorded settings"
	if f.solver > 0 {
		rs.Solver = driftSolvers[f.solver-1]
		what = sim.SolverOf(rs.Solver).Title()
	}
	if backend != command.BackendCPU {
		what += " on " + command.BackendLabel(backend)
	}
	f.line, f.isErr = "re-simulating with "+what+" ...", false
	f.running = a.startJob("re-simulating with "+what, "steps", func(j *longJob) func() {
		rs.Progress = func(done, total int) {
			j.done.Store(int64(done))
			j.total.Store(int64(total))
		}
		rs.Stop = func() bool { return j.ctx.Err() != nil }
		rep, err := a.S.ReSimulate(rs)
		return func() {
			f.running = nil
			switch {
			case errors.Is(err, record.ErrDriftStopped):
				f.line, f.isErr = "re-simulation cancelled", false
			case err != nil:
				f.line, f.isErr = "re-simulation: "+err.Error(), true
			default:
				f.line, f.isErr = driftLine(what, rs.Tolerance, rep), false
			}
			a.status(f.line, f.isErr)
		}
	})
}

// driftLine says where a re-simulation diverges.
func driftLine(what string, tol float32, d *record.DriftReport) string {
	steps := fmt.Sprintf("steps %d to %d", d.From+1, d.To)
	if len(d.Marks) == 0 {
		if d.BitsFrom < 0 {
			return fmt.Sprintf("%s with %s: identical to the recording, bit for bit", steps, what)
		}
		return fmt.Sprintf("%s with %s: within %s of the recording (bits differ from step %d)", steps, what, distance(tol), d.BitsFrom)
	}
	first := d.Marks[0]
	s := fmt.Sprintf("with %s the run diverges at step %d", what, first)
	if tol > 0 {
		s += fmt.Sprintf(" (%s %s off)", d.FirstBody, distance(d.Err[first-d.From-1]))
	} else if d.FirstBody != "" {
		s += fmt.Sprintf(" (%s's bits)", d.FirstBody)
	}
	if n := len(d.Marks); n > 1 {
		last := d.Marks[n-1]
		s += fmt.Sprintf("; %s off by step %d", distance(d.Err[last-d.From-1]), last)
	}
	if tol > 0 && d.BitsFrom >= 0 {
		s += fmt.Sprintf("; bits differ from step %d", d.BitsFrom)
	}
	return s
}

// distance writes a distance in mm below a metre, else in m.
func distance(m float32) string {
	if m < 1 {
		return fmt.Sprintf("%.3g mm", 1000*m)
	}
	return fmt.Sprintf("%.3g m", m)
}

// driftMarks draws the re-simulation's marks on the recorded-step slider (its frame from lo to hi,
// w wide), where the slider's grab stands at each marked step: red the first, orange the others.
func (a *App) driftMarks(tl command.Timeline, lo, hi imgui.Vec2, w float32) {
	f := &a.panel.time.drift
	f.marks = f.marks[:0]
	d := tl.Drift
	if d == nil || tl.Last <= tl.First {
		return
	}
	// Dear ImGui's integer slider: a grab of max(width / (steps + 1), GrabMinSize), 2 px in from
	// each end, its centre at the value's share of the rest.
	const pad = 2
	span := float32(tl.Last - tl.First)
	grab := max((w-2*pad)/(span+1), imgui.CurrentStyle().GrabMinSize())
	dl := imgui.WindowDrawList()
	for k, m := range d.Marks {
		if m < tl.First || m > tl.Last {
			continue
		}
		x := lo.X + pad + grab/2 + (w-2*pad-grab)*float32(m-tl.First)/span
		col := imgui.Vec4{X: 1, Y: 0.6, Z: 0.1, W: 1}
		if k == 0 {
			col = imgui.Vec4{X: 1, Y: 0.2, Z: 0.2, W: 1}
		}
		dl.AddRectFilled(imgui.Vec2{X: x - 1, Y: lo.Y}, imgui.Vec2{X: x + 1, Y: hi.Y}, imgui.PackedColorFromVec4(col))
		f.marks = append(f.marks, x)
	}
	if imgui.IsItemHovered() && len(d.Marks) > 0 {
		imgui.SetTooltip(fmt.Sprintf("the re-simulation leaves the recording at steps %v (red: the first)", d.Marks))
	}
}
