package main

import (
	"flag"
	"io"
	"math"
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
)

// flagValue is a value of d inside its range and off its default, as the command line writes it.
func flagValue(d sim.Tunable) (float64, string) {
	switch d.Kind {
	case sim.TunableOnOff:
		return 0, "off"
	case sim.TunableInt:
		x := d.SliderMin + 2
		return x, sim.FormatValue(x)
	}
	x := math.Round(d.SliderMax*0.7*100) / 100
	return x, sim.FormatValue(x)
}

// Every setting's flag, under a solver that does not read it, is refused as a scene that sets it is:
// the flag, the solver, the solvers that read it and the value, exit status 1.
func TestEverySettingFlagIsRefusedUnderASolverThatDoesNotReadIt(t *testing.T) {
	refused := 0
	for _, d := range sim.Tunables() {
		_, value := flagValue(d)
		for _, k := range sim.Solvers() {
			if d.ReadBy(k) {
				continue
			}
			code, _, errs := sandbox("run", "-scene", "stack", "-steps", "1", "-solver", k.String(), "-"+d.Flag, value)
			want := "-" + d.Flag + ": " + d.NotRead(k) + ", got " + value
			if code != 1 || !strings.Contains(errs, want) {
				t.Errorf("-%s %s under %s: code %d, stderr %q; want 1 and %q", d.Flag, value, k, code, errs, want)
			}
			refused++
			break // one solver per flag: the run is the slow part, and NotRead is held per solver in scenes
		}
	}
	if refused < 12 {
		t.Errorf("only %d flags refused", refused)
	}
}

// Every setting's flag, under each solver that reads it, replaces the scene's value in the world.
func TestEverySettingFlagSetsTheWorldsSetting(t *testing.T) {
	for _, d := range sim.Tunables() {
		x, value := flagValue(d)
		for _, k := range d.Readers() {
			var wf worldFlags
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			wf.register(fs)
			if err := fs.Parse([]string{"-" + d.Flag, value}); err != nil {
				t.Fatalf("-%s %s: %v", d.Flag, value, err)
			}
			s, _ := scenes.Preset("pendulum")
			w, err := s.World(scenes.Options{Solver: k})
			if err != nil {
				t.Fatal(err)
			}
			if err := wf.applySettings(w); err != nil {
				t.Errorf("-%s %s under %s: %v", d.Flag, value, k, err)
				continue
			}
			set := w.Settings()
			if got := d.Get(&set); math.Abs(got-x) > 1e-6*math.Max(1, x) {
				t.Errorf("-%s %s under %s: the world's %s is %g", d.Flag, value, k, d.Key, got)
			}
		}
	}
}

// A value outside a setting's range, or not of its kind, is a usage error (exit 2) naming the flag,
// the value and the range.
func TestSettingFlagsRefuseValuesOutsideTheirRange(t *testing.T) {
	for _, d := range sim.Tunables() {
		bad, want := sim.FormatValue(d.Max*2), "must be in "+d.Range()
		switch d.Kind {
		case sim.TunableOnOff:
			bad, want = "yes", "must be on or off"
		case sim.TunableInt:
			bad = "0"
		}
		code, _, errs := sandbox("run", "-scene", "stack", "-steps", "1", "-"+d.Flag, bad)
		if msg := `invalid value "` + bad + `" for flag -` + d.Flag + ": " + want; code != 2 || !strings.Contains(errs, msg) {
			t.Errorf("-%s %s: code %d, stderr %q; want 2 and %q", d.Flag, bad, code, errs, msg)
		}
	}
}
