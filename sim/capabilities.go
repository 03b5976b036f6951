package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"tumble/sim/geom"
)

// Capabilities says what a backend runs: the shapes, the solvers, whether it sleeps, the broad phases
// it honours. The World, the panel and the command line ask the attached backend (or a candidate) for
// them and check bodies with CheckShapesFor and settings with CheckFor, ResolveFor and NoteFor,
// instead of knowing which backend it is.
type Capabilities struct {
	// Name names the backend in messages, e.g. "the CUDA backend".
	Name string
	// Shapes are the shape kinds it runs, in geom.Kind order. A World on the backend refuses a body of
	// any other kind (CheckShapeFor): the backend is not attached, the body not added.
	Shapes []geom.Kind
	// Solvers are the solvers it runs, its default (SolverDefault's meaning) first.
	Solvers []SolverKind
	// Sleep: it puts quiet islands to sleep (Settings.Sleep).
	Sleep bool
	// DirectJoints: it can solve the joints' equality rows directly (Settings.DirectJoints).
	DirectJoints bool
	// ContactCache: it reuses a resting pair's contact points from step to step (Settings'
	// NoContactCache off). A backend without one tests every touching pair afresh each step, and
	// ResolveFor says so by turning the cache off.
	ContactCache bool
	// Broadphases are the broad phases it honours, its default first; asked for another, it runs its
	// default (NoteFor says so).
	Broadphases []BroadphaseKind
	// Note is one line about how the backend runs a step, for the panel, or "".
	Note string
}

// CPUCapabilities returns the capabilities of this package's CPU stages: every shape, every solver
// (PGS the default), sleeping, the direct joint solve, every broad phase (the LBVH the default).
func CPUCapabilities() Capabilities {
	shapes := make([]geom.Kind, geom.NumKinds)
	for k := range shapes {
		shapes[k] = geom.Kind(k)
	}
	return Capabilities{
		Name:         "the CPU backend",
		Shapes:       shapes,
		Solvers:      Solvers(),
		Sleep:        true,
		DirectJoints: true,
		ContactCache: true,
		Broadphases:  []BroadphaseKind{LBVH, SAP, Grid, Brute},
	}
}

// Capabilities returns the capabilities of what runs the world's steps: its backend's, or the CPU's.
func (w *World) Capabilities() Capabilities {
	if w.backend != nil {
		return w.backend.Capabilities()
	}
	return CPUCapabilities()
}

// RunsShape says whether a backend with capabilities c runs bodies of shape kind k.
func (c Capabilities) RunsShape(k geom.Kind) bool { return slices.Contains(c.Shapes, k) }

// CheckShapeFor says whether a backend with capabilities c can step the body named name, of shape
// kind k: a kind it does not run is an error that names the body, its shape and the shapes it runs.
func CheckShapeFor(c Capabilities, name string, k geom.Kind) error {
	if c.RunsShape(k) {
		return nil
	}
	names := make([]string, len(c.Shapes))
	for i, s := range c.Shapes {
		names[i] = s.String()
	}
	runs := "no shapes"
	switch n := len(names); n {
	case 0:
	case 1:
		runs = names[0] + " shapes"
	default:
		runs = strings.Join(names[:n-1], ", ") + " and " + names[n-1] + " shapes"
	}
	return fmt.Errorf("body %q is a %s: %s runs %s; the CPU backend runs every shape", name, k, c.Name, runs)
}

// CheckShapesFor says whether a backend with capabilities c can step every body of b: the first
// body, in dense order, of a shape kind it does not run is an error (CheckShapeFor's).
func CheckShapesFor(c Capabilities, b *Bodies) error {
	var runs [geom.NumKinds]bool
	for _, k := range c.Shapes {
		if k < geom.NumKinds {
			runs[k] = true
		}
	}
	for i, s := range b.Shape {
		if s.Kind >= geom.NumKinds || !runs[s.Kind] {
			return CheckShapeFor(c, b.Name[i], s.Kind)
		}
	}
	return nil
}

// CheckFor says whether a backend with capabilities c can step a world with the settings s (as given,
// unresolved): an unknown value, a solver it does not run, or sleeping where it does not sleep is an
// error that says what to change.
func CheckFor(c Capabilities, s Settings) error {
	if err := s.Check(); err != nil {
		return err
	}
	if s.Solver != SolverDefault && !slices.Contains(c.Solvers, s.Solver) {
		names := make([]string, len(c.Solvers))
		for i, k := range c.Solvers {
			names[i] = k.String()
		}
		return fmt.Errorf("%s solves with %s; the %s solver runs on the CPU backend", c.Name, strings.Join(names, ", "), s.Solver)
	}
	if s.Sleep && !c.Sleep {
		return errors.New(c.Name + " does not put bodies to sleep; turn sleeping off or use the CPU backend")
	}
	if s.DirectJoints && !c.DirectJoints {
		return errors.New(c.Name + " solves joints iteratively; turn directJoints off or use the CPU backend")
	}
	return nil
}

// ResolveFor fills in the defaults of s as a backend with capabilities c runs them: SolverDefault is
// its first solver, whose defaults (sub-steps, iterations, ...) then apply, and a backend without a
// contact cache runs with it off.
func ResolveFor(c Capabilities, s Settings) Settings {
	if s.Solver == SolverDefault && len(c.Solvers) > 0 {
		s.Solver = c.Solvers[0]
	}
	if !c.ContactCache {
		s.NoContactCache = true
	}
	return s.Resolve()
}

// NoteFor returns a one-line note about settings a backend with capabilities c runs differently from
// how they read (a broad phase it does not honour), or "".
func NoteFor(c Capabilities, s Settings) string {
	if s.Broadphase != BroadDefault && len(c.Broadphases) > 0 && !slices.Contains(c.Broadphases, s.Broadphase) {
		return fmt.Sprintf("%s's broad phase is its %s (the %s broad phase runs on the CPU backend)", c.Name,
			strings.ToUpper(c.Broadphases[0].String()), s.Broadphase)
	}
	return ""
}
