package scenes

import (
	"reflect"
	"strconv"
	"strings"

	"tumble/sim"
)

// The solver block's tunable settings are those of sim.Tunables: each descriptor's Key is the JSON
// name of one field of Solver (a *int, *float64 or *bool by its Kind), and decoding, validating,
// building the settings and saving all walk the descriptors, so a setting added there is read,
// checked and applied here with no code of its own (TestEveryTunableHasASolverField holds the fields
// and the descriptors together).

// solverFields maps a JSON key of Solver to its field's index.
var solverFields = func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeFor[Solver]()
	for i := range t.NumField() {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		m[key] = i
	}
	return m
}()

// field returns v's field for descriptor t, a nil pointer when the scene leaves it out.
func (v *Solver) field(t sim.Tunable) reflect.Value {
	return reflect.ValueOf(v).Elem().Field(solverFields[t.Key])
}

// Value returns the scene's value of the tunable setting t (an int as a count, a switch as 1 or 0) and
// whether the scene sets it.
func (v *Solver) Value(t sim.Tunable) (float64, bool) {
	f := v.field(t)
	if f.IsNil() {
		return 0, false
	}
	switch e := f.Elem(); e.Kind() {
	case reflect.Bool:
		if e.Bool() {
			return 1, true
		}
		return 0, true
	case reflect.Int:
		return float64(e.Int()), true
	default:
		return e.Float(), true
	}
}

// SetValue sets the tunable setting t to x (see Value).
func (v *Solver) SetValue(t sim.Tunable, x float64) {
	f := v.field(t)
	p := reflect.New(f.Type().Elem())
	switch e := p.Elem(); e.Kind() {
	case reflect.Bool:
		e.SetBool(x != 0)
	case reflect.Int:
		e.SetInt(int64(x))
	default:
		e.SetFloat(x)
	}
	f.Set(p)
}

// shortest32 is the shortest decimal that reads back as the float32 x (a Settings field): 0.1, not
// 0.10000000149011612.
func shortest32(x float64) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', -1, 32), 64)
	if err != nil {
		return x
	}
	return v
}

// formatTunable writes a value as the scene file does: true or false for a switch.
func formatTunable(t sim.Tunable, x float64) string {
	if t.Kind == sim.TunableOnOff {
		return strconv.FormatBool(x != 0)
	}
	return fmtNum(x)
}

// SolverFor returns the solver block that asks for settings s: its type (unless the default), each
// tunable setting that s's solver reads and that s sets (a switch always, a number where it is not
// zero, the default), and sleeping. The settings a solver does not read are left out, so the block
// passes the validator, and a scene saved from a world this way loads back to its settings.
func SolverFor(s sim.Settings) *Solver {
	v := &Solver{}
	if s.Solver != sim.SolverDefault {
		v.Type = s.Solver.String()
	}
	k := sim.SolverOf(s.Solver).Kind()
	for _, t := range sim.Tunables() {
		if x := t.Get(&s); t.ReadBy(k) && (t.Kind == sim.TunableOnOff || x != 0) {
			v.SetValue(t, shortest32(x))
		}
	}
	sleep := s.Sleep
	v.Sleep = &sleep
	return v
}
