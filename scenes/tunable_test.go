package scenes

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"tumble/sim"
)

// Each descriptor's key is a field of Solver of its kind's type, and every field of Solver but type and
// sleep is a descriptor's: the struct and the table cannot drift apart.
func TestEveryTunableHasASolverField(t *testing.T) {
	want := map[sim.TunableKind]reflect.Type{sim.TunableInt: reflect.TypeFor[*int](),
		sim.TunableFloat: reflect.TypeFor[*float64](), sim.TunableOnOff: reflect.TypeFor[*bool]()}
	keys := map[string]bool{"type": true, "sleep": true}
	typ := reflect.TypeFor[Solver]()
	for _, d := range sim.Tunables() {
		keys[d.Key] = true
		i, ok := solverFields[d.Key]
		if !ok {
			t.Errorf("%s: no field of scenes.Solver has this JSON name", d.Key)
			continue
		}
		if f := typ.Field(i); f.Type != want[d.Kind] {
			t.Errorf("%s: field %s is %v, want %v", d.Key, f.Name, f.Type, want[d.Kind])
		}
	}
	for key := range solverFields {
		if !keys[key] {
			t.Errorf("scenes.Solver's field %q has no descriptor in sim.Tunables", key)
		}
	}
}

// sceneValue is a value of d inside its range and off its default, as a scene writes it.
func sceneValue(d sim.Tunable) float64 {
	switch d.Kind {
	case sim.TunableOnOff:
		return 0
	case sim.TunableInt:
		return d.SliderMin + 2
	}
	return math.Round(d.SliderMax*0.7*100) / 100
}

// solverScene is a scene whose solver block sets the type (unless "") and key: value.
func solverScene(typ, key, value string) string {
	block := `"` + key + `": ` + value
	if typ != "" {
		block = `"type": "` + typ + `", ` + block
	}
	return `{"solver": {` + block + `}, "bodies": []}`
}

// A scene that sets a tunable setting its solver does not read is refused with the JSON path, the
// solver, the solvers that read it and the value, for every descriptor and every such solver (and PGS,
// the default, where the scene names no solver); the CLI refuses its flag the same way.
func TestSceneRefusesATunableItsSolverDoesNotRead(t *testing.T) {
	refused := 0
	for _, d := range sim.Tunables() {
		value := formatTunable(d, sceneValue(d))
		for _, k := range append(sim.Solvers(), sim.SolverDefault) {
			if d.ReadBy(k) {
				continue
			}
			typ := ""
			if k != sim.SolverDefault {
				typ = k.String()
			}
			_, err := Parse("x.json", []byte(solverScene(typ, d.Key, value)))
			want := "x.json: solver." + d.Key + ": the " + sim.SolverOf(k).Kind().String() + " solver does not read it (the solvers that do: "
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), want) || e.Value != value || e.Problem != d.NotRead(k) {
				t.Errorf("%s = %s under %q: %v; want %q...%s", d.Key, value, typ, err, want, value)
			}
			refused++
		}
	}
	if refused < 20 {
		t.Errorf("only %d refusals checked", refused)
	}
}

// Every tunable setting a solver reads loads and reaches the world's settings.
func TestSceneSetsEveryTunableItsSolverReads(t *testing.T) {
	for _, d := range sim.Tunables() {
		x := sceneValue(d)
		for _, k := range d.Readers() {
			s, err := Parse("x.json", []byte(solverScene(k.String(), d.Key, formatTunable(d, x))))
			if err != nil {
				t.Errorf("%s under %s: %v", d.Key, k, err)
				continue
			}
			set := s.Settings()
			if got := d.Get(&set); math.Abs(got-x) > 1e-6*math.Max(1, x) {
				t.Errorf("%s under %s: scene says %g, settings hold %g", d.Key, k, x, got)
			}
			if back, _ := SolverFor(set).Value(d); math.Abs(back-x) > 1e-6*math.Max(1, x) {
				t.Errorf("%s under %s: saved as %g, want %g", d.Key, k, back, x)
			}
		}
	}
}

// A value outside a setting's range is refused naming the range and the value, before whether the
// solver reads it.
func TestSceneRefusesATunableOutsideItsRange(t *testing.T) {
	for _, d := range sim.Tunables() {
		if d.Kind == sim.TunableOnOff {
			continue
		}
		low := d.Min - 1
		if d.MinOpen {
			low = d.Min
		}
		for _, x := range []float64{low, d.Max * 2} {
			k := d.Readers()[0]
			_, err := Parse("x.json", []byte(solverScene(k.String(), d.Key, fmtNum(x))))
			want := "x.json: solver." + d.Key + ": must be in " + d.Range() + ", got " + fmtNum(x)
			if err == nil || err.Error() != want {
				t.Errorf("%s = %g: %v, want %q", d.Key, x, err, want)
			}
		}
	}
	if _, err := Parse("x.json", []byte(solverScene("pgs", "substeps", "2.5"))); err == nil ||
		!strings.Contains(err.Error(), "solver.substeps: must be a whole number, got 2.5") {
		t.Errorf("fractional sub-steps: %v", err)
	}
}

// The example of the refusal docs/SCENES.md gives: contactHertz under xpbd.
func TestSceneRefusesContactHertzUnderXPBD(t *testing.T) {
	_, err := Parse("x.json", []byte(`{"solver": {"type": "xpbd", "contactHertz": 30}, "bodies": []}`))
	want := "x.json: solver.contactHertz: the xpbd solver does not read it (the solvers that do: pgs, jacobi, shapematch), got 30"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}
