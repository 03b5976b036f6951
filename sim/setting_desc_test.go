package sim

import (
	"math"
	"testing"
)

// Every Param has exactly one descriptor, and the descriptors' keys, flags and labels are distinct.
func TestEveryParamHasOneTunable(t *testing.T) {
	count := map[Param]int{}
	keys, flags, labels := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, d := range Tunables() {
		count[d.Param]++
		for _, s := range []struct {
			seen map[string]bool
			v    string
		}{{keys, d.Key}, {flags, d.Flag}, {labels, d.Label}} {
			if s.v == "" || s.seen[s.v] {
				t.Errorf("%s: key, flag or label %q empty or repeated", d.Key, s.v)
			}
			s.seen[s.v] = true
		}
		if d.Param.String() != d.Key {
			t.Errorf("param %d is named %q, its descriptor's key is %q", d.Param, d.Param.String(), d.Key)
		}
		if d.Tip == "" || d.Get == nil || d.Set == nil {
			t.Errorf("%s: no tip or accessors", d.Key)
		}
		if d.Kind != TunableOnOff && !(d.SliderMin < d.SliderMax && d.SliderMin >= d.Min && d.SliderMax <= d.Max) {
			t.Errorf("%s: slider [%g, %g] not inside [%g, %g]", d.Key, d.SliderMin, d.SliderMax, d.Min, d.Max)
		}
	}
	for i := range numParams {
		if p := Param(1) << i; count[p] != 1 {
			t.Errorf("param %s has %d descriptors, want 1", p, count[p])
		}
	}
}

// Each solver's Params and the descriptors agree: every param a solver reads has a descriptor that
// says the solver reads it, and every descriptor is read by some solver (else it would change nothing).
func TestTunablesAgreeWithEverySolversParams(t *testing.T) {
	for _, k := range Solvers() {
		var described Param
		for _, d := range Tunables() {
			if d.ReadBy(k) {
				described |= d.Param
			}
		}
		if got := SolverOf(k).Params(); described != got {
			t.Errorf("%s: the descriptors it reads are {%s}, its Params {%s}", k, described, got)
		}
	}
	for _, d := range Tunables() {
		if len(d.Readers()) == 0 {
			t.Errorf("%s: no solver reads it", d.Key)
		}
	}
}

// probeValues are values of d inside its range: its bounds (or just above an open bound) and one
// between them that no default equals.
func probeValues(d Tunable) []float64 {
	if d.Kind == TunableOnOff {
		return []float64{0, 1, 0}
	}
	lo := d.Min
	if d.MinOpen {
		lo = math.Max(d.Min+1e-3, d.SliderMin)
	}
	mid := math.Round((d.SliderMin+d.SliderMax)/2*1000) / 1000
	if d.Kind == TunableInt {
		mid = math.Round(mid) + 1
	}
	return []float64{lo, d.Max, mid}
}

// Set then Get gives the value back (to float32's precision), Set changes no other setting, and a
// value set under a solver that reads it survives Resolve: it is what the solver runs with.
func TestEveryTunableRoundTripsThroughSettings(t *testing.T) {
	for _, d := range Tunables() {
		for _, x := range probeValues(d) {
			if p, ok := d.Check(x); !ok {
				t.Fatalf("%s: probe %g refused: %s", d.Key, x, p)
			}
			var s Settings
			d.Set(&s, x)
			if got := d.Get(&s); math.Abs(got-x) > 1e-6*math.Max(1, math.Abs(x)) {
				t.Errorf("%s: set %g, got %g", d.Key, x, got)
			}
			for _, o := range Tunables() {
				var zero Settings
				if o.Param != d.Param && o.Get(&s) != o.Get(&zero) {
					t.Errorf("setting %s = %g changed %s to %g", d.Key, x, o.Key, o.Get(&s))
				}
			}
			for _, k := range d.Readers() {
				s := Settings{Solver: k}
				d.Set(&s, x)
				r := s.Resolve()
				if got := d.Get(&r); math.Abs(got-x) > 1e-6*math.Max(1, math.Abs(x)) {
					t.Errorf("%s under %s: set %g, resolved to %g", d.Key, k, x, got)
				}
			}
		}
	}
}

// Check refuses what a scene or a flag must not set, naming the range.
func TestTunableCheckRefusesValuesOutsideTheRange(t *testing.T) {
	hz, _ := TunableOf(ParamContactHertz)
	sub, _ := TunableOf(ParamSubsteps)
	cache, _ := TunableOf(ParamContactCache)
	for _, c := range []struct {
		d    Tunable
		x    float64
		want string
	}{
		{hz, 0, "must be in (0, 10000] Hz"},
		{hz, 10001, "must be in (0, 10000] Hz"},
		{hz, math.NaN(), "must be finite"},
		{hz, math.Inf(1), "must be finite"},
		{sub, 0, "must be in [1, 100]"},
		{sub, 101, "must be in [1, 100]"},
		{sub, 2.5, "must be a whole number"},
		{cache, 2, "must be on or off"},
	} {
		if p, ok := c.d.Check(c.x); ok || p != c.want {
			t.Errorf("%s %g: %q, %v; want %q", c.d.Key, c.x, p, ok, c.want)
		}
	}
	for _, x := range []float64{1e4, 0.001, 30} {
		if p, ok := hz.Check(x); !ok {
			t.Errorf("contactHertz %g refused: %s", x, p)
		}
	}
	if got := hz.NotRead(XPBD); got != "the xpbd solver does not read it (the solvers that do: pgs, jacobi, shapematch)" {
		t.Errorf("NotRead: %q", got)
	}
	if got := hz.Default(PGS); got != 120 {
		t.Errorf("contactHertz's default under pgs: %g, want 120", got)
	}
}
