package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"tumble/gpu"
	"tumble/scenes"
	"tumble/sim"
	"tumble/ui/command"
)

// worldFlags are the flags run and bench share: which scene, and how to simulate it.
type worldFlags struct {
	scene    string
	backend  string
	solver   string
	broad    string
	refit    float64
	workers  int
	substeps int
	// solver settings, 0: keep the scene's; each is accepted only by a solver that reads it
	iterations   int
	contactHertz float64
	jointDamping float64
	directJoints string // "on", "off" or "": keep
	contactCache string // "on", "off" or "": keep
	scalar       bool   // PGS's scalar contact and joint passes even where the build has the wide ones
	grains       string // "auto", "coarse" or "fine" (sim.World.SetGrains)
	islands      bool   // !sim.Options.NoIslands
	lanes        int    // sim.Options.Lanes: 0 (the widest), 8 or 16
}

func (f *worldFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.scene, "scene", "", "scene file, or preset name (see \"sandbox scenes\")")
	fs.StringVar(&f.backend, "backend", "cpu", "simulation backend: cpu, cuda, or emu (the CUDA kernels emulated on the CPU: slow, for checking)")
	fs.StringVar(&f.solver, "solver", "", "override the scene's solver: "+sim.SolverNames)
	fs.IntVar(&f.workers, "workers", 0, "CPU worker goroutines (0: one per CPU)")
	fs.StringVar(&f.broad, "broadphase", "", "override the scene's broad phase: lbvh, sap, grid or brute")
	fs.IntVar(&f.substeps, "substeps", 0, "override the scene's solver sub-steps (0: keep)")
	fs.IntVar(&f.iterations, "iterations", 0, "override the scene's solver iterations per sub-step (0: keep)")
	fs.Float64Var(&f.contactHertz, "contact-hertz", 0, "override the contact stiffness, Hz (pgs, jacobi; 0: keep)")
	fs.Float64Var(&f.jointDamping, "joint-damping", 0, "joint damping, 1/s (xpbd; 0: keep)")
	fs.StringVar(&f.directJoints, "direct-joints", "", "solve the joints' equality rows directly: on or off (pgs, jacobi; empty: keep)")
	fs.StringVar(&f.contactCache, "contact-cache", "", "reuse a touching pair's contact points while its bodies barely move relative to each other: on or off (every solver but jacobi; empty: keep)")
	fs.BoolVar(&f.scalar, "scalar", false, "PGS's scalar contact and joint passes even where the build has the wide (SIMD) ones: the same results, slower")
	fs.StringVar(&f.grains, "grains", "auto", "how more than one worker splits the step's loops: auto (coarse or fine, by trials), coarse or fine (held), for benchmarks that compare")
	fs.BoolVar(&f.islands, "islands", true, "under fine grains, run a world's sub-steps island by island where it falls into islands; false: colour by colour (the same results)")
	fs.IntVar(&f.lanes, "lanes", 0, "manifolds the wide contact pass takes at once: 8 (AVX2) or 16 (AVX-512); 0: the widest this CPU has. The same results; for benchmarks that compare")
	fs.Float64Var(&f.refit, "bvh-refit", 0, "LBVH: refit the tree while its cost stays within this factor of a rebuilt one's (0: the default, 1.1; 1: rebuild it on every query)")
}

// check reports a missing -scene or a negative -workers as a usage error; it returns false then.
func (f *worldFlags) check(cmd string, stderr io.Writer) bool {
	switch {
	case f.scene == "":
		fmt.Fprintf(stderr, "sandbox %s: -scene is required (a scene file or one of: %s)\n", cmd,
			strings.Join(scenes.Names(), ", "))
	case f.substeps < 0 || f.substeps > 100:
		fmt.Fprintf(stderr, "sandbox %s: -substeps must be in [0, 100], got %d\n", cmd, f.substeps)
	case f.iterations < 0 || f.iterations > 1000:
		fmt.Fprintf(stderr, "sandbox %s: -iterations must be in [0, 1000], got %d\n", cmd, f.iterations)
	case !(f.contactHertz >= 0 && f.contactHertz <= 1e4):
		fmt.Fprintf(stderr, "sandbox %s: -contact-hertz must be in [0, 10000], got %g\n", cmd, f.contactHertz)
	case !(f.jointDamping >= 0 && f.jointDamping <= 1e4):
		fmt.Fprintf(stderr, "sandbox %s: -joint-damping must be in [0, 10000], got %g\n", cmd, f.jointDamping)
	case f.directJoints != "" && f.directJoints != "on" && f.directJoints != "off":
		fmt.Fprintf(stderr, "sandbox %s: -direct-joints must be on or off, got %q\n", cmd, f.directJoints)
	case f.contactCache != "" && f.contactCache != "on" && f.contactCache != "off":
		fmt.Fprintf(stderr, "sandbox %s: -contact-cache must be on or off, got %q\n", cmd, f.contactCache)
	case f.grains != "auto" && f.grains != "coarse" && f.grains != "fine":
		fmt.Fprintf(stderr, "sandbox %s: -grains must be auto, coarse or fine, got %q\n", cmd, f.grains)
	case f.workers < 0:
		fmt.Fprintf(stderr, "sandbox %s: -workers must be >= 0, got %d\n", cmd, f.workers)
	case f.lanes != 0 && f.lanes != 8 && f.lanes != 16:
		fmt.Fprintf(stderr, "sandbox %s: -lanes must be 0, 8 or 16, got %d\n", cmd, f.lanes)
	case !(f.refit == 0 || f.refit >= 1 && f.refit <= 1000):
		fmt.Fprintf(stderr, "sandbox %s: -bvh-refit must be 0 (the default) or in [1, 1000], got %g\n", cmd, f.refit)
	default:
		return true
	}
	return false
}

// options are the world's step options the flags ask for.
func (f *worldFlags) options() sim.Options {
	return sim.Options{
		Scalar:    f.scalar,
		Lanes:     f.lanes,
		NoIslands: !f.islands,
		Grains:    map[string]sim.GrainMode{"auto": sim.GrainsByTrial, "coarse": sim.GrainsCoarse, "fine": sim.GrainsFine}[f.grains],
	}
}

// open loads the scene and builds its world on the chosen backend, reporting notes (no CUDA) on
// stderr.
func (f *worldFlags) open(stderr io.Writer) (*scenes.Scene, *sim.World, error) {
	if err := checkBackend(f.backend); err != nil {
		return nil, nil, err
	}
	var opt scenes.Options
	opt.Workers = f.workers
	if f.solver != "" {
		k, err := sim.ParseSolver(f.solver)
		if err != nil {
			return nil, nil, fmt.Errorf("-solver: %w", err)
		}
		opt.Solver = k
	}
	if f.broad != "" {
		k, err := sim.ParseBroadphase(f.broad)
		if err != nil {
			return nil, nil, fmt.Errorf("-broadphase: %w", err)
		}
		opt.Broadphase = k
	}
	s, err := loadScene(f.scene)
	if err != nil {
		return nil, nil, err
	}
	w, err := s.World(opt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", f.scene, err)
	}
	if err := f.applySettings(w); err != nil {
		return nil, nil, err
	}
	if err := w.SetOptions(f.options()); err != nil {
		return nil, nil, fmt.Errorf("-lanes: %w", err)
	}
	if err := attachBackend(w, f.backend, stderr); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", f.scene, err)
	}
	return s, w, nil
}

// backends is the program's one chooser of backends (gpu.Open, with the kinds this build offers),
// which the headless commands use here and the window is given (ui.Options.Backends).
var backends = command.Backends{Open: gpu.Open, Kinds: gpu.Kinds()}

// attachBackend puts w on the named backend, made by the one chooser (gpu.Open, whose fallback policy
// it follows): cuda in a build without CUDA is a one-line note and the CPU; any other failure,
// settings the backend cannot run (another solver, sleeping) or a body of a shape it does not run
// (the World's refusal, sim.CheckShapesFor) is an error.
func attachBackend(w *sim.World, name string, stderr io.Writer) error {
	b, err := backends.Open(name)
	if errors.Is(err, gpu.ErrNoCUDA) {
		fmt.Fprintln(stderr, "sandbox: built without CUDA; running on the CPU")
		return nil
	}
	if err != nil {
		return fmt.Errorf("-backend %s: %w", name, err)
	}
	if b == nil {
		return nil
	}
	if err := sim.CheckFor(b.Capabilities(), w.Settings()); err != nil {
		b.Close()
		return fmt.Errorf("-backend %s: %w", name, err)
	}
	if err := w.SetBackend(b); err != nil {
		b.Close()
		return fmt.Errorf("-backend %s: %w", name, err)
	}
	if note := sim.NoteFor(b.Capabilities(), w.Settings()); note != "" {
		fmt.Fprintf(stderr, "sandbox: %s\n", note)
	}
	return nil
}

// loadScene reads a scene file if one exists at arg, else builds the preset of that name.
func loadScene(arg string) (*scenes.Scene, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return scenes.Load(arg)
	}
	if s, ok := scenes.Preset(arg); ok {
		return s, nil
	}
	return nil, fmt.Errorf("no scene file or preset named %q (presets: %s)", arg, strings.Join(scenes.Names(), ", "))
}

// checkBackend accepts cpu, cuda and emu.
func checkBackend(name string) error {
	switch name {
	case "cpu", "cuda", "emu":
		return nil
	}
	return fmt.Errorf("-backend: unknown backend %q (want cpu, cuda or emu)", name)
}

// parseFlags parses a subcommand's flags; it returns an exit status and false when the command should
// stop (help asked for, or a bad command line).
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (int, bool) {
	fs.SetOutput(stderr)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK, false
	}
	if err != nil {
		return exitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sandbox %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return exitUsage, false
	}
	return exitOK, true
}

// applySettings applies the flags that override the scene's settings. A solver setting the world's
// solver does not read (sim.Solver.Params) is refused, naming the flag and the settings it does read.
func (f *worldFlags) applySettings(w *sim.World) error {
	set := w.Settings()
	if f.refit != 0 {
		set.BVHRefit = float32(f.refit)
	}
	solver := sim.SolverOf(w.Resolved().Solver)
	for _, o := range []struct {
		flag  string
		param sim.Param
		given bool
		set   func()
	}{
		{"-substeps", sim.ParamSubsteps, f.substeps != 0, func() { set.Substeps = f.substeps }},
		{"-iterations", sim.ParamIterations, f.iterations != 0, func() { set.Iterations = f.iterations }},
		{"-contact-hertz", sim.ParamContactHertz, f.contactHertz != 0, func() { set.ContactHertz = float32(f.contactHertz) }},
		{"-joint-damping", sim.ParamJointDamping, f.jointDamping != 0, func() { set.JointDamping = float32(f.jointDamping) }},
		{"-direct-joints", sim.ParamDirectJoints, f.directJoints != "", func() { set.DirectJoints = f.directJoints == "on" }},
		{"-contact-cache", sim.ParamContactCache, f.contactCache != "", func() { set.NoContactCache = f.contactCache == "off" }},
	} {
		if !o.given {
			continue
		}
		if !solver.Params().Has(o.param) {
			return fmt.Errorf("%s: the %s solver does not use %s (it reads %s)", o.flag, solver.Kind(), o.param, solver.Params())
		}
		o.set()
	}
	if set != w.Settings() {
		w.SetSettings(set)
	}
	return nil
}
