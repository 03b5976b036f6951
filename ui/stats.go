package ui

import (
	"fmt"
	"math"
	"time"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
)

const historyLen = 240

// statsHistory keeps rolling series for the Stats plots.
type statsHistory struct {
	stages         [sim.NumStages][historyLen]float32 // ms
	step           [historyLen]float32                // ms, the whole step
	frame, draw    [historyLen]float32                // ms
	fill           [historyLen]float32                // ms: the instances written (interop) or filled from the host copy
	upload, panel  [historyLen]float32                // ms: the host copy into GL's buffers; building the panel
	wait           [historyLen]float32                // ms: waiting for the simulation goroutine's step
	energy, moment [historyLen]float32
	n, lastStep    int
	bodies, pairs  int
	contacts       int
	touching       int // manifolds
	reused         int // manifolds whose points the contact cache reused, -1 with the cache off
	joints         int
	asleep         int // bodies asleep, -1 with sleeping off
	workers        int // CPU workers, 0 on another backend
	handed         int // the last step's loops handed to the helper workers
	islands        int // the last step's regions of islands (sim.Stats.IslandRegions), 0 stage by stage
	grains         sim.GrainTrial
	fps            float32
	// realTime is simulated seconds per wall second over about the last second (clock holds the
	// samples it is measured over).
	realTime float64
	clock    []clockSample
}

type clockSample struct {
	wall time.Time
	sim  float64
}

// tick records the simulated time t at wall time now and updates the real-time factor.
func (s *statsHistory) tick(now time.Time, t float64) {
	if n := len(s.clock); n > 0 && t < s.clock[n-1].sim {
		s.clock = s.clock[:0] // a reset or a new scene: time starts again
	}
	s.clock = append(s.clock, clockSample{now, t})
	k := 0
	for k < len(s.clock)-2 && now.Sub(s.clock[k+1].wall) >= time.Second {
		k++
	}
	s.clock = s.clock[k:]
	first := s.clock[0]
	if dt := now.Sub(first.wall).Seconds(); dt > 0.1 {
		s.realTime = (t - first.sim) / dt
	}
}

// addFrame records a frame: dt since the last one, and its split (the step is sampled apart, by
// sampleStep; draw is the time to submit the draw calls, which a GPU may finish later).
func (s *statsHistory) addFrame(dt time.Duration, ft FrameTiming, draw time.Duration) {
	k := s.n % historyLen
	s.frame[k] = float32(dt.Seconds() * 1000)
	s.panel[k] = float32(ft.Panel.Seconds() * 1000)
	s.fill[k] = float32(ft.Fill.Seconds() * 1000)
	s.upload[k] = float32(ft.Upload.Seconds() * 1000)
	s.wait[k] = float32(ft.Wait.Seconds() * 1000)
	s.draw[k] = float32(draw.Seconds() * 1000)
	if dt > 0 {
		s.fps = 0.9*s.fps + 0.1*float32(1/dt.Seconds())
	}
	s.n++
}

// sample records the world's counters and energies (under the session's lock).
func (s *statsHistory) sample(w *sim.World) {
	k := s.n % historyLen
	b := &w.Bodies
	var ke, px, py, pz float64
	for i := range b.Len() {
		if b.InvMass[i] == 0 {
			continue
		}
		m := float64(b.Mass[i])
		v := b.Velocity[i]
		ke += 0.5 * m * float64(v.Dot(v))
		inv := b.InvInertiaLocal[i]
		wl := b.Rotation[i].Conjugate().Rotate(b.AngularVelocity[i])
		for c := range 3 {
			if inv[c] > 0 {
				ke += 0.5 * float64(wl[c]*wl[c]/inv[c])
			}
		}
		px += m * float64(v[0])
		py += m * float64(v[1])
		pz += m * float64(v[2])
	}
	s.energy[k] = float32(ke)
	s.moment[k] = float32(math.Sqrt(px*px + py*py + pz*pz))
}

// sampleStep records the last step's time by stage and the world's counters, every frame (under the
// session's lock; it reads no body, so the interop path samples it too).
func (s *statsHistory) sampleStep(w *sim.World) {
	k := s.n % historyLen
	for st := range sim.NumStages {
		s.stages[st][k] = float32(w.Stats.Timings[st].Seconds() * 1000)
	}
	s.step[k] = float32(w.Stats.Timings.Total().Seconds() * 1000)
	s.bodies, s.pairs, s.contacts, s.joints = w.Bodies.Len(), w.Stats.Pairs, w.Stats.Contacts, w.NumJoints()
	s.touching, s.reused = w.Stats.Manifolds, w.Stats.Reused
	if !w.ContactCacheOn() {
		s.reused = -1
	}
	s.asleep = -1
	if w.Settings().Sleep {
		s.asleep = w.Stats.Asleep
	}
	s.workers, s.handed, s.grains, s.islands = 0, w.Stats.Handed, w.Grains(), w.Stats.IslandRegions
	if w.Backend() == nil {
		s.workers = w.Resolved().Workers
	}
}

// ordered returns the series oldest first.
func (s *statsHistory) ordered(series *[historyLen]float32) []float32 {
	n := min(s.n, historyLen)
	out := make([]float32, 0, n)
	for i := s.n - n; i < s.n; i++ {
		out = append(out, series[i%historyLen])
	}
	return out
}

func last(v []float32) float32 {
	if len(v) == 0 {
		return 0
	}
	return v[len(v)-1]
}

func (s *statsHistory) show(a *App) {
	if s.asleep >= 0 { // sleeping on: how much of the world costs nothing
		imgui.Textf("bodies %d (%d asleep)  pairs %d  contacts %d  joints %d", s.bodies, s.asleep, s.pairs, s.contacts, s.joints)
	} else {
		imgui.Textf("bodies %d  pairs %d  contacts %d  joints %d", s.bodies, s.pairs, s.contacts, s.joints)
	}
	if s.reused >= 0 {
		imgui.Textf("touching pairs %d, %d reusing cached points", s.touching, s.reused)
	} else {
		imgui.Textf("touching pairs %d (contact cache off)", s.touching)
	}
	if s.workers > 1 { // how the step uses the workers: the loops it hands out, coarse or fine grains
		grains := "coarse"
		if s.grains.Fine {
			grains = "fine"
		}
		text := fmt.Sprintf("workers %d: %d loops handed out, %s grains", s.workers, s.handed, grains)
		if s.islands > 0 { // under fine grains: chosen, or a trial's step
			text += fmt.Sprintf("; the last step island by island (%d regions)", s.islands)
		}
		imgui.Text(text)
		tip("a loop goes to the helper workers when it holds enough work to pay for the hand-off; trials\nof a few steps " +
			"measure whether smaller (fine) grains pay on this machine, and the faster are kept;\nunder fine grains, " +
			"a world of islands runs its sub-steps island by island, each worker its own")
		if g := s.grains; g.Trials > 0 {
			imgui.Textf("  last trial: fine %.2f ms a step, coarse %.2f", float64(g.FineStep.Microseconds())/1000,
				float64(g.Coarse.Microseconds())/1000)
		} else {
			imgui.Text("  no trial of fine grains yet")
		}
	}
	fr := s.ordered(&s.frame)
	step := s.ordered(&s.step)
	imgui.Textf("%.0f FPS   frame %.2f ms", s.fps, last(fr))
	// The frame's split: the simulation (its last step), the bodies brought to GL (interop, or the host
	// copy filled and uploaded), the drawing (the panel built, the draw calls submitted).
	fill, upload := last(s.ordered(&s.fill)), last(s.ordered(&s.upload))
	panel, draw := last(s.ordered(&s.panel)), last(s.ordered(&s.draw))
	wait := last(s.ordered(&s.wait))
	toGL := "to GL"
	if a.frame.Device {
		toGL = "to GL (interop)"
	}
	imgui.Textf("split: sim %.2f   %s %.2f   drawing %.2f ms", last(step), toGL, fill+upload, panel+draw)
	imgui.Textf("  fill %.2f  upload %.2f  panel %.2f  draw %.2f", fill, upload, panel, draw)
	tip("fill and panel leave out the wait below")
	// The frame reads the world under the session's lock, which the simulation goroutine holds while
	// it steps: a scene slower than real time keeps the frame waiting up to a step.
	imgui.Textf("  waiting for the step %.2f ms", wait)
	imgui.Textf("  the draw on the GPU %.2f ms (GL timer query)", a.gpuDraw.last)
	// The stages the recent steps ran (a solver's plan runs some of sim's stages, not all).
	line := ""
	for st := range sim.NumStages {
		if v := s.ordered(&s.stages[st]); maxOf(v) > 1.1e-6 {
			line += fmt.Sprintf("%s %.2f  ", sim.Stage(st), last(v))
		}
	}
	imgui.Textf("step %.2f ms: %s", last(step), line)
	a.profileTable()
	a.convergencePlot()
	if len(step) == 0 {
		return // nothing sampled yet (ImGui's plots index their first value)
	}
	size := imgui.Vec2{X: 0, Y: 45}
	imgui.PlotLinesV("step ms", step, 0, "", 0, maxOf(step), size)
	if a.w.treeNode("step ms by stage") {
		for st := range sim.NumStages {
			v := s.ordered(&s.stages[st])
			if maxOf(v) <= 1.1e-6 {
				continue
			}
			imgui.PlotLinesV(sim.Stage(st).String(), v, 0, fmt.Sprintf("%.2f", last(v)), 0, maxOf(v), imgui.Vec2{Y: 30})
		}
		a.w.treePop()
	}
	imgui.PlotLinesV("frame ms", fr, 0, "", 0, maxOf(fr), size)
	e := s.ordered(&s.energy)
	imgui.PlotLinesV("kinetic J", e, 0, fmt.Sprintf("%.3g", last(e)), 0, maxOf(e), size)
	m := s.ordered(&s.moment)
	imgui.PlotLinesV("|momentum|", m, 0, fmt.Sprintf("%.3g", last(m)), 0, maxOf(m), size)
}

func maxOf(v []float32) float32 {
	m := float32(1e-6)
	for _, x := range v {
		m = max(m, x)
	}
	return m * 1.1
}
