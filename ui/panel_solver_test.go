package ui

import (
	"math"
	"strconv"
	"testing"

	"tumble/sim"
	"tumble/ui/command"
)

// enabled reports whether exactly one widget matches suffix in the last frame and it takes input.
func (d *driver) enabled(suffix string) bool {
	it, n := d.a.w.find(suffix)
	return n == 1 && !it.Disabled
}

// useSolver switches the world to solver k, as the solver combo does.
func (d *driver) useSolver(k sim.SolverKind) {
	d.t.Helper()
	d.a.do("solver", command.SetSettings(func(s *sim.Settings) { s.Solver = k }))
	d.frames(2)
}

// setting reads the tunable setting t from the world's settings.
func (d *driver) setting(t sim.Tunable) (x float64) {
	d.world(func(w *sim.World) { s := w.Settings(); x = t.Get(&s) })
	return x
}

// Every widget the solver settings draw from sim.Tunables changes the world's setting by real input,
// under a solver that reads it: a slider dragged, then a value typed into it (ctrl+click), a checkbox
// clicked. Under a solver that does not read it the same widget is greyed and a click changes nothing.
// A setting added to the table is driven here with no test of its own.
func TestEverySolverSettingWidgetChangesTheWorldByRealInput(t *testing.T) {
	d := drive(t, Options{Scene: "pendulum", Open: []string{"simulation"}})
	for _, s := range sim.Tunables() {
		path := "simulation/" + s.Label
		d.useSolver(s.Readers()[0])
		if !d.enabled(path) {
			t.Errorf("%s: greyed under %s, which reads it", s.Key, s.Readers()[0])
			continue
		}
		before := d.setting(s)
		switch s.Kind {
		case sim.TunableOnOff:
			d.click(path)
			d.frames(2)
			if got := d.setting(s); got == before {
				t.Errorf("%s: still %g after a click", s.Key, got)
			}
			d.click(path)
			d.frames(2)
			if got := d.setting(s); got != before {
				t.Errorf("%s: %g after a second click, want %g back", s.Key, got, before)
			}
		default:
			d.drag(path, 0, 1, 60)
			d.frames(2)
			got := d.setting(s)
			if got == before || got < s.SliderMin || got > s.SliderMax {
				t.Errorf("%s: dragging its slider took it from %g to %g (want a change within [%g, %g])",
					s.Key, before, got, s.SliderMin, s.SliderMax)
			}
			want := math.Round((s.SliderMin+s.SliderMax)*0.3) + 1
			d.setText(path, 0, 1, strconv.FormatFloat(want, 'f', -1, 64))
			d.frames(2)
			if got := d.setting(s); math.Abs(got-want) > 1e-3*want {
				t.Errorf("%s: %g after typing %g", s.Key, got, want)
			}
		}
		for _, k := range sim.Solvers() {
			if s.ReadBy(k) {
				continue
			}
			d.useSolver(k)
			if d.enabled(path) || !d.has(path) {
				t.Errorf("%s: under %s, which does not read it, the widget is not drawn greyed", s.Key, k)
			}
			before := d.setting(s)
			d.click(path)
			d.frames(2)
			if got := d.setting(s); got != before {
				t.Errorf("%s: a click on the greyed widget under %s took it from %g to %g", s.Key, k, before, got)
			}
			break
		}
	}
}

// The solver settings keep their places whichever solver runs: what a solver does not read is greyed,
// not left out, so nothing under it moves when the solver changes.
func TestSolverSettingsKeepTheirPlacesAcrossSolvers(t *testing.T) {
	d := drive(t, Options{Scene: "pendulum", Open: []string{"simulation"}})
	var first map[string]float32
	for _, k := range sim.Solvers() {
		d.useSolver(k)
		at := map[string]float32{}
		for _, s := range sim.Tunables() {
			it := d.find("simulation/" + s.Label)
			at[s.Key] = it.Min.Y
		}
		if first == nil {
			first = at
			continue
		}
		for key, y := range at {
			if y != first[key] {
				t.Errorf("under %s %s is at y %.0f, under %s at %.0f", k, key, y, sim.Solvers()[0], first[key])
			}
		}
	}
}
