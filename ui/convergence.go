package ui

import (
	"fmt"
	"math"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
)

// The convergence plot (in the Stats section, under the profile table): the residual of each of the
// selected solver's passes over the last step, in the order they ran (sub-step by sub-step: the
// solve's passes, then the relax's), as sim.World.TraceConvergence measures it. The steps are traced
// only while the plot is open: closing it (or the section, or hiding the panel) turns the trace off,
// and the step runs as if the plot did not exist.

// convergenceState is the plot's state between frames.
type convergenceState struct {
	open   bool // the plot was drawn this frame
	traced bool // what the session was last told
	log    bool // the residuals drawn as log10
	last   sim.Convergence
	has    bool      // last holds a traced step
	values []float32 // the plotted values
	line   string    // the summary under the plot
	line2  string    // its second line: the first and last residuals
}

// convergenceLabel is the plot's tree node.
const convergenceLabel = "solver convergence"

// convergencePlotHeight is the plot's height, px (times the content scale).
const convergencePlotHeight = 90

// syncConvergenceTrace tells the session whether the steps are traced: while the plot was drawn this
// frame (viewOverlay calls it after the panel).
func (a *App) syncConvergenceTrace() {
	c := &a.tools.conv
	if c.open != c.traced {
		c.traced = c.open
		a.S.TraceConvergence(c.open)
	}
	if !c.open {
		c.has = false
	}
	c.open = false
}

// convergencePlot draws the plot: a fixed set of lines (the scale checkbox, the plot, its summary),
// whatever the solver reports, so that nothing below moves.
func (a *App) convergencePlot() {
	g := &a.w
	c := &a.tools.conv
	if !g.treeNode(convergenceLabel) {
		return
	}
	defer g.treePop()
	c.open = true
	g.checkbox("log10 scale", &c.log)
	tip("draw log10 of the residual: a converging solver's passes fall on a line")
	if c.traced {
		c.has = a.S.Convergence(&c.last)
	}
	c.values = c.values[:0]
	overlay := ""
	c.line2 = ""
	switch {
	case !c.has:
		c.line = "tracing from the next step (a paused world: step with N)"
	case c.last.None != "":
		c.line = "no residual: " + c.last.None
	default:
		l := &c.last
		first, end := l.Passes[0].Residual, l.Passes[len(l.Passes)-1].Residual
		subs := l.Passes[len(l.Passes)-1].Substep + 1
		c.line = fmt.Sprintf("step %d: %d passes over %d sub-steps", l.Step, len(l.Passes), subs)
		c.line2 = fmt.Sprintf("first pass %.3g %s, last %.3g %s", first, l.Unit, end, l.Unit)
		for _, p := range l.Passes {
			v := p.Residual
			if c.log {
				v = float32(math.Log10(float64(max(v, 1e-12))))
			}
			c.values = append(c.values, v)
		}
		overlay = "residual, " + l.Unit
		if c.log {
			overlay = "log10 residual, " + l.Unit
		}
	}
	lo, hi := float32(0), float32(1)
	if len(c.values) == 0 {
		c.values = append(c.values, 0) // ImGui's plot reads its first value
	} else {
		lo, hi = c.values[0], c.values[0]
		for _, v := range c.values {
			lo, hi = min(lo, v), max(hi, v)
		}
		if !c.log {
			lo = 0
		}
		if hi <= lo {
			hi = lo + 1e-6
		}
	}
	imgui.PlotLinesV("residual vs pass", c.values, 0, overlay, lo, hi, imgui.Vec2{Y: convergencePlotHeight * a.scale()})
	if imgui.IsItemHovered() && c.has && c.last.None == "" {
		tip("each point is one pass: the mass-weighted norm of the velocity change it made (XPBD: of\n" +
			"its pose correction); the sub-steps' passes follow one another, solve then relax")
	}
	g.text(fitText(c.line, imgui.ContentRegionAvail().X))
	keepLine(c.line2) // always there: the line below does not move
}
