package ui

import (
	"strings"
	"testing"

	"tumble/sim"
)

// convergenceLine is the plot's summary line as the last frame showed it.
func (d *driver) convergenceLine() string {
	for _, it := range d.a.w.items {
		if it.Kind == "text" && strings.Contains(it.Path, "/"+convergenceLabel+"/") {
			return it.Label
		}
	}
	return ""
}

// The convergence plot in the Stats section: the steps are traced only while it is open; open, it
// plots one residual per pass of the selected solver's plan (PGS on the stack: its solve and relax
// passes of every sub-step), falling over the solve's passes; its log scale moves nothing; a solver
// with no passes (penalty) says so; closed again, the steps are untraced.
func TestTheConvergencePlotTracesOnlyWhileOpen(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"simulation", "stats"}, NoShadows: true, Width: 800, Height: 700})
	traced := func() (on bool) {
		d.world(func(w *sim.World) { on = w.ConvergenceTraced() })
		return on
	}
	d.frames(5)
	if traced() {
		t.Fatal("the steps are traced with the plot closed")
	}
	d.click("stats/" + convergenceLabel)
	d.frames(3)
	c := &d.a.tools.conv
	if !traced() || !c.has {
		t.Fatalf("plot open: traced %v, a step's residuals %v", traced(), c.has)
	}
	var plan sim.Plan
	d.world(func(w *sim.World) { plan = w.Plan() })
	_, solve := plan.Count(sim.StageSolve)
	_, relax := plan.Count(sim.StageRelax)
	if len(c.last.Passes) != solve+relax || len(c.values) != solve+relax {
		t.Fatalf("%d passes traced, %d plotted; the plan runs %d solve and %d relax passes", len(c.last.Passes), len(c.values), solve, relax)
	}
	if line := d.convergenceLine(); !strings.HasPrefix(line, "step ") || !strings.Contains(c.line, "passes over") || !strings.Contains(c.line2, "m/s") {
		t.Errorf("summary %q (in full %q)", line, c.line)
	}
	linear := append([]float32(nil), c.values...)

	// Paused: the stage times' line above wraps as its numbers change, which moves the whole section.
	d.click("Tumble/###play")
	d.reveal("stats/" + convergenceLabel + "/log10 scale")
	before := d.sectionLayout("stats")
	d.click("stats/" + convergenceLabel + "/log10 scale")
	d.frames(1)
	d.compareLayouts("the log scale was ticked", before, d.sectionLayout("stats"))
	if !c.log || len(c.values) != len(linear) {
		t.Fatalf("log scale %v: %d values plotted", c.log, len(c.values))
	}
	for _, v := range c.values {
		if v > 2 { // log10 of a residual: a step of the stack corrects far less than 100 m/s
			t.Fatalf("log scale plots %v", c.values)
		}
	}

	d.choose("simulation/solver", "penalty")
	d.click("Tumble/Step (N)")
	d.frames(2)
	if line := d.convergenceLine(); !strings.HasPrefix(line, "no residual") || !strings.Contains(c.line, "no passes") || len(c.values) != 1 {
		t.Errorf("penalty: summary %q (in full %q), %d values", line, c.line, len(c.values))
	}

	d.click("stats/" + convergenceLabel)
	d.frames(2)
	if traced() {
		t.Error("the steps are still traced with the plot closed")
	}
}
