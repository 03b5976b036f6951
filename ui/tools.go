package ui

import (
	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
)

// tools is the state of the outliner, the labels layer, the perturbation, the profile table and the
// scene reload (outliner.go, labels.go, perturb.go, profile.go, reload.go).
type tools struct {
	outliner outlinerState
	labels   labelState
	pert     perturbView
	profile  profileState
	conv     convergenceState
	probe    probeState
}

// viewOverlay reads what this frame draws over the 3D view (the perturbation, the labels) and writes
// them, behind the panel, clipped to the view.
func (a *App) viewOverlay() {
	a.syncConvergenceTrace()
	a.probeFrame()
	p, held := a.S.Perturbing()
	if !held && !a.Debug.Labels && !a.tools.probe.on {
		a.tools.pert.cur, a.tools.pert.held = p, false
		a.tools.labels.shown = a.tools.labels.shown[:0]
		return
	}
	a.S.View(func(w *sim.World) {
		a.perturbFrame(w, p, held)
		a.tools.labels.shown = a.tools.labels.shown[:0]
		if a.Debug.Labels {
			a.placeLabels(w)
		}
	})
	vw, vh := a.viewport()
	dl := imgui.BackgroundDrawList()
	dl.PushClipRect(imgui.Vec2{}, imgui.Vec2{X: vw, Y: vh})
	a.drawLabels(dl)
	a.perturbOverlay(dl, vw, vh)
	a.probeOverlay(dl, vw, vh)
	dl.PopClipRect()
}
