package sim

import (
	"slices"
	"strconv"
	"strings"
)

// Tunable describes one tunable solver setting: everything the scene file, the command line and the
// panel need to offer it, check it and apply it. Tunables is the one table of them; a new setting is a
// new Param and a new row there, and the scene validator, the CLI's flags, the panel's widgets and
// docs/SCENES.md's solver table follow from the row.
//
// A value is a float64 in the user's terms, as a scene file writes it: a count for an int, the
// number in Unit for a float, 1 (on) or 0 (off) for an on/off switch, whatever the Settings field
// stores (NoFriction holds the opposite of "friction": on).
type Tunable struct {
	Param Param       // the setting's Param: which solvers read it is the solvers' Params
	Key   string      // the field under "solver" in a scene file (and Param.String)
	Flag  string      // the CLI flag, without its dash
	Label string      // the panel's label
	Kind  TunableKind // how the value is written and edited
	// Min and Max bound what a scene and the CLI accept; with MinOpen Min itself is refused (the
	// Settings field's zero means the default, so a scene cannot ask for it).
	Min, Max float64
	MinOpen  bool
	Unit     string // the value's unit ("Hz", "m/s", "1/s"), "" for none
	Tip      string // one line: what it does, in the panel's tooltip, the flag's usage and the docs
	// SliderMin and SliderMax are the panel slider's span (typing a value reaches all of Min..Max);
	// Log makes the slider logarithmic; Format is its printf format.
	SliderMin, SliderMax float64
	Log                  bool
	Format               string
	// Get reads the value from settings s; Set writes x (within Min..Max) into s.
	Get func(s *Settings) float64
	Set func(s *Settings, x float64)
}

// TunableKind is how a Tunable's value is written: a whole number, a real number or a switch.
type TunableKind uint8

// The kinds.
const (
	TunableInt   TunableKind = iota // a whole number: a scene's integer, the panel's int slider
	TunableFloat                    // a real number in Unit
	TunableOnOff                    // a switch: true/false in a scene, on/off on the CLI, a checkbox
)

// tunables is the table, in the order the panel shows them (on/off switches two to a line).
var tunables = []Tunable{
	{Param: ParamSubsteps, Key: "substeps", Flag: "substeps", Label: "sub-steps", Kind: TunableInt,
		Min: 1, Max: 100, SliderMin: 1, SliderMax: 32,
		Tip: "sub-steps per step: each integrates the velocities and solves the rows again",
		Get: func(s *Settings) float64 { return float64(s.Substeps) },
		Set: func(s *Settings, x float64) { s.Substeps = int(x) }},
	{Param: ParamIterations, Key: "iterations", Flag: "iterations", Label: "iterations", Kind: TunableInt,
		Min: 1, Max: 1000, SliderMin: 1, SliderMax: 32,
		Tip: "solver passes per sub-step (XPBD: position passes; rigid: velocity passes)",
		Get: func(s *Settings) float64 { return float64(s.Iterations) },
		Set: func(s *Settings, x float64) { s.Iterations = int(x) }},
	{Param: ParamWarmStart, Key: "warmStart", Flag: "warm-start", Label: "warm starting", Kind: TunableOnOff,
		Min: 0, Max: 1, Tip: "start each step from the impulses the rows held at the end of the last",
		Get: func(s *Settings) float64 { return onOff(!s.NoWarmStart) },
		Set: func(s *Settings, x float64) { s.NoWarmStart = x == 0 }},
	{Param: ParamRelax, Key: "relax", Flag: "relax", Label: "relax", Kind: TunableOnOff,
		Min: 0, Max: 1, Tip: "relax passes after the soft solve remove the velocity that pushed overlap out",
		Get: func(s *Settings) float64 { return onOff(!s.NoRelax) },
		Set: func(s *Settings, x float64) { s.NoRelax = x == 0 }},
	{Param: ParamRelaxIterations, Key: "relaxIterations", Flag: "relax-iterations", Label: "relax passes",
		Kind: TunableInt, Min: 1, Max: 1000, SliderMin: 1, SliderMax: 32,
		Tip: "relax passes per sub-step, with the relax pass on (default: min(iterations, 2))",
		Get: func(s *Settings) float64 { return float64(s.RelaxIterations) },
		Set: func(s *Settings, x float64) { s.RelaxIterations = int(x) }},
	{Param: ParamContactHertz, Key: "contactHertz", Flag: "contact-hertz", Label: "contact Hz", Kind: TunableFloat,
		Min: 0, MinOpen: true, Max: 1e4, Unit: "Hz", SliderMin: 5, SliderMax: 480, Log: true, Format: "%.0f",
		Tip: "contact stiffness as a spring's frequency, capped at a quarter of the sub-step rate",
		Get: func(s *Settings) float64 { return float64(s.ContactHertz) },
		Set: func(s *Settings, x float64) { s.ContactHertz = float32(x) }},
	{Param: ParamDampingRatio, Key: "dampingRatio", Flag: "damping-ratio", Label: "damping ratio", Kind: TunableFloat,
		Min: 0, MinOpen: true, Max: 1000, SliderMin: 0.1, SliderMax: 20, Format: "%.3f",
		Tip: "the soft contact's damping ratio: 1 is critical, more settles overlap without a bounce",
		Get: func(s *Settings) float64 { return float64(s.DampingRatio) },
		Set: func(s *Settings, x float64) { s.DampingRatio = float32(x) }},
	{Param: ParamMaxPushOut, Key: "maxPushOut", Flag: "max-push-out", Label: "max push-out, m/s", Kind: TunableFloat,
		Min: 0, MinOpen: true, Max: 1000, Unit: "m/s", SliderMin: 0.1, SliderMax: 20, Log: true, Format: "%.2f",
		Tip: "cap on the velocity the soft contacts use to push overlap out",
		Get: func(s *Settings) float64 { return float64(s.MaxPushOut) },
		Set: func(s *Settings, x float64) { s.MaxPushOut = float32(x) }},
	{Param: ParamRestitutionThreshold, Key: "restitutionThreshold", Flag: "restitution-threshold",
		Label: "bounce threshold, m/s", Kind: TunableFloat, Min: 0, MinOpen: true, Max: 1000, Unit: "m/s",
		SliderMin: 0.01, SliderMax: 10, Log: true, Format: "%.2f",
		Tip: "relative normal speed under which nothing bounces",
		Get: func(s *Settings) float64 { return float64(s.RestitutionThreshold) },
		Set: func(s *Settings, x float64) { s.RestitutionThreshold = float32(x) }},
	{Param: ParamJointDamping, Key: "jointDamping", Flag: "joint-damping", Label: "joint damping, 1/s",
		Kind: TunableFloat, Min: 0, Max: 1e4, Unit: "1/s", SliderMin: 0, SliderMax: 50, Format: "%.3f",
		Tip: "damps the relative motion of jointed bodies: each sub-step removes min(jointDamping h, 1) of it",
		Get: func(s *Settings) float64 { return float64(s.JointDamping) },
		Set: func(s *Settings, x float64) { s.JointDamping = float32(x) }},
	{Param: ParamContactCache, Key: "contactCache", Flag: "contact-cache", Label: "contact cache", Kind: TunableOnOff,
		Min: 0, Max: 1,
		Tip: "reuse a touching pair's contact points while its bodies move less than 1 mm and 2 degrees relative to each other",
		Get: func(s *Settings) float64 { return onOff(!s.NoContactCache) },
		Set: func(s *Settings, x float64) { s.NoContactCache = x == 0 }},
	{Param: ParamDirectJoints, Key: "directJoints", Flag: "direct-joints", Label: "direct joints", Kind: TunableOnOff,
		Min: 0, Max: 1,
		Tip: "solve the joints' equality rows together, exactly (J M^-1 J^T factored tip to root): no stretch",
		Get: func(s *Settings) float64 { return onOff(s.DirectJoints) },
		Set: func(s *Settings, x float64) { s.DirectJoints = x != 0 }},
	{Param: ParamPenaltyStiffness, Key: "penaltyStiffness", Flag: "penalty-stiffness", Label: "spring k, N/m",
		Kind: TunableFloat, Min: 0, Max: 1e9, Unit: "N/m", SliderMin: 1e2, SliderMax: 1e7, Log: true,
		Format: "%.3g", Tip: "each contact point's spring: a body sinks m g / k; too stiff for the sub-step and it blows up; " +
			"0 = auto: k = m_eff (200 rad/s)^2 at each point, so every body sinks about g / omega^2 = 0.25 mm",
		Get: func(s *Settings) float64 { return float64(s.PenaltyStiffness) },
		Set: func(s *Settings, x float64) { s.PenaltyStiffness = float32(x) }},
	{Param: ParamPenaltyDamping, Key: "penaltyDamping", Flag: "penalty-damping", Label: "spring c, N s/m",
		Kind: TunableFloat, Min: 0, Max: 1e7, Unit: "N s/m", SliderMin: 0.1, SliderMax: 1e4, Log: true,
		Format: "%.3g", Tip: "each contact point's damper: less damping, more overshoot; " +
			"0 = auto: c = 2 (0.3) sqrt(k m_eff), a damping ratio of 0.3 at each point",
		Get: func(s *Settings) float64 { return float64(s.PenaltyDamping) },
		Set: func(s *Settings, x float64) { s.PenaltyDamping = float32(x) }},
	{Param: ParamFriction, Key: "friction", Flag: "friction", Label: "friction", Kind: TunableOnOff, Min: 0, Max: 1,
		Tip: "friction rows on; off, every contact is frictionless whatever the bodies' coefficients",
		Get: func(s *Settings) float64 { return onOff(!s.NoFriction) },
		Set: func(s *Settings, x float64) { s.NoFriction = x == 0 }},
	{Param: ParamRestitution, Key: "restitution", Flag: "restitution", Label: "restitution", Kind: TunableOnOff,
		Min: 0, Max: 1, Tip: "bounce by the bodies' restitution coefficients; off, nothing bounces",
		Get: func(s *Settings) float64 { return onOff(!s.NoRestitution) },
		Set: func(s *Settings, x float64) { s.NoRestitution = x == 0 }},
}

// paramNames are the params' names as scene files spell them: the tunables' keys, by bit.
var paramNames = func() (names [numParams]string) {
	for _, t := range tunables {
		for i := range numParams {
			if t.Param == 1<<i {
				names[i] = t.Key
			}
		}
	}
	return names
}()

func onOff(on bool) float64 {
	if on {
		return 1
	}
	return 0
}

// Tunables returns the table of tunable solver settings, one per Param, in the panel's order.
func Tunables() []Tunable { return slices.Clone(tunables) }

// TunableOf returns the descriptor of param p (a single param), and false for none.
func TunableOf(p Param) (Tunable, bool) {
	for _, t := range tunables {
		if t.Param == p {
			return t, true
		}
	}
	return Tunable{}, false
}

// ReadBy reports whether the solver of kind k reads the setting (its Params hold it).
func (t Tunable) ReadBy(k SolverKind) bool { return SolverOf(k).Params().Has(t.Param) }

// Readers lists the solvers that read the setting, in the panel's order of solvers.
func (t Tunable) Readers() []SolverKind {
	var ks []SolverKind
	for _, k := range Solvers() {
		if t.ReadBy(k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// NotRead is the refusal of the setting under solver k, which does not read it: the scene validator
// and the CLI both say it, before the value they were given.
func (t Tunable) NotRead(k SolverKind) string {
	names := make([]string, 0, len(Solvers()))
	for _, r := range t.Readers() {
		names = append(names, r.String())
	}
	return "the " + SolverOf(k).Kind().String() + " solver does not read it (the solvers that do: " +
		strings.Join(names, ", ") + ")"
}

// Default is the value solver k runs with when nothing sets the setting (Settings.Resolve under k's
// defaults).
func (t Tunable) Default(k SolverKind) float64 {
	s := Settings{Solver: k}.Resolve()
	return t.Get(&s)
}

// Check reports whether x is a value of the setting: finite, whole for an int, 0 or 1 for a switch,
// and within Min..Max. The problem, if any, is worded for "PATH: PROBLEM, got VALUE".
func (t Tunable) Check(x float64) (problem string, ok bool) {
	switch {
	case x != x || x-x != 0: // NaN or an infinity
		return "must be finite", false
	case t.Kind == TunableOnOff && x != 0 && x != 1:
		return "must be on or off", false
	case t.Kind == TunableInt && x != float64(int64(x)):
		return "must be a whole number", false
	case t.MinOpen && x <= t.Min, !t.MinOpen && x < t.Min, x > t.Max:
		return "must be in " + t.Range(), false
	}
	return "", true
}

// Range is the accepted range as the messages and the docs write it: "[1, 100]", "(0, 10000] Hz",
// "on or off".
func (t Tunable) Range() string {
	if t.Kind == TunableOnOff {
		return "on or off"
	}
	lo := "["
	if t.MinOpen {
		lo = "("
	}
	r := lo + FormatValue(t.Min) + ", " + FormatValue(t.Max) + "]"
	if t.Unit != "" {
		r += " " + t.Unit
	}
	return r
}

// FormatValue writes a value as the messages do: the shortest form that reads back, 1e9 for 1e+09.
func FormatValue(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if m, e, ok := strings.Cut(s, "e"); ok {
		sign := ""
		if e[0] == '-' {
			sign = "-"
		}
		s = m + "e" + sign + strings.TrimLeft(e[1:], "0")
	}
	return s
}
