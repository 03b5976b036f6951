package ui

import (
	"math"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
	"tumble/ui/command"
)

// solverSettings draws one widget per tunable solver setting (sim.Tunables: its label, slider span,
// scale, format and tip), in the table's order, two on/off switches to a line. A setting the selected
// solver does not read is drawn greyed, with a tooltip that says which solvers read it, rather than
// left out: every widget keeps its place whichever solver runs. set are the world's settings, res the
// same resolved for its backend (the values in force).
func (a *App) solverSettings(set, res sim.Settings, caps sim.Capabilities) {
	g := &a.w
	lineOpen := false // the last widget was a switch that began a line
	for _, t := range sim.Tunables() {
		why := ""
		switch {
		case !t.ReadBy(res.Solver):
			why = t.NotRead(res.Solver)
		case t.Param == sim.ParamRelaxIterations && set.NoRelax:
			why = "the relax pass is off"
		case t.Param == sim.ParamDirectJoints && !caps.DirectJoints:
			why = caps.Name + " does not solve joints directly"
		case t.Param == sim.ParamContactCache && !caps.ContactCache:
			// The box shows what runs (off), as the sliders show the resolved values.
			why, set.NoContactCache = caps.Name+" has no contact cache: it tests every touching pair afresh each step", true
		}
		g.beginDisabled(why != "")
		var x float64
		var changed bool
		switch t.Kind {
		case sim.TunableOnOff:
			if lineOpen {
				g.sameLine("checkbox", t.Label)
			}
			lineOpen = !lineOpen
			on := t.Get(&set) != 0
			if changed = g.checkbox(t.Label, &on); on {
				x = 1
			}
		case sim.TunableInt:
			lineOpen = false
			v := int32(t.Get(&res))
			changed = g.sliderInt(t.Label, &v, int32(t.SliderMin), int32(t.SliderMax))
			x = float64(v)
		case sim.TunableFloat:
			lineOpen = false
			v := float32(t.Get(&res))
			var flags imgui.SliderFlags
			if t.Log {
				flags = imgui.SliderFlagsLogarithmic
			}
			changed = g.sliderFloatV(t.Label, &v, float32(t.SliderMin), float32(t.SliderMax), t.Format, flags)
			x = float64(v)
		}
		g.endDisabled()
		if why != "" {
			tipWhenDisabled(why)
		} else {
			tip(t.Tip + rangeNote(t))
		}
		if changed && why == "" {
			// A typed value (ctrl+click) may leave the slider's span: keep it inside what a scene and
			// the CLI accept, so the window never runs a setting a saved scene would refuse.
			x = clampTunable(t, x)
			if _, ok := t.Check(x); ok {
				a.do(t.Label, command.SetSettings(func(s *sim.Settings) { t.Set(s, x) }))
			}
		}
	}
}

// rangeNote is the tooltip's second line: the accepted range, where typing can leave the slider's.
func rangeNote(t sim.Tunable) string {
	if t.Kind == sim.TunableOnOff {
		return ""
	}
	return "\n" + t.Range() + " (ctrl+click to type)"
}

// clampTunable moves x into t's range (a whole number for an int); a value at an open bound stays
// there, and Check refuses it.
func clampTunable(t sim.Tunable, x float64) float64 {
	if t.Kind == sim.TunableInt {
		x = math.Round(x)
	}
	return math.Min(math.Max(x, t.Min), t.Max)
}

// tipWhenDisabled shows why over a greyed item, which Dear ImGui does not count as hovered by default.
func tipWhenDisabled(why string) {
	if imgui.IsItemHoveredV(imgui.HoveredFlagsAllowWhenDisabled) {
		imgui.SetTooltip(why)
	}
}
