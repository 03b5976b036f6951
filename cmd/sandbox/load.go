package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"tumble/gpu"
	"tumble/scenes"
	"tumble/sim"
	"tumble/ui/command"
)

// worldFlags are the flags run and bench share: which scene, and how to simulate it.
type worldFlags struct {
	scene   string
	backend string
	solver  string
	broad   string
	refit   float64
	workers int
	// settings are the solver settings' override flags, one per sim.Tunables descriptor; each given
	// one replaces the scene's value and is accepted only by a solver that reads it
	settings []*settingFlag
	scalar   bool   // PGS's scalar contact and joint passes even where the build has the wide ones
	grains   string // "auto", "coarse" or "fine" (sim.Options.Grains)
	islands  bool   // !sim.Options.NoIslands
	lanes    int    // sim.Options.Lanes: 0 (the widest), 8 or 16
}

// settingFlag is the override flag of one tunable solver setting, made from its descriptor: its name,
// its usage (what it does, its range and unit, the solvers that read it) and the check of its value.
type settingFlag struct {
	d     sim.Tunable
	x     float64 // the value, in the descriptor's terms (on = 1)
	given bool
}

// String writes the value as given ("" until it is).
func (f *settingFlag) String() string {
	if f == nil || !f.given {
		return ""
	}
	return f.format()
}

func (f *settingFlag) format() string {
	if f.d.Kind == sim.TunableOnOff {
		return map[bool]string{true: "on", false: "off"}[f.x != 0]
	}
	return sim.FormatValue(f.x)
}

// Set parses s ("on" or "off" for a switch, else a number) and refuses a value outside the range.
func (f *settingFlag) Set(s string) error {
	var x float64
	if f.d.Kind == sim.TunableOnOff {
		switch s {
		case "on":
			x = 1
		case "off":
		default:
			return errors.New("must be on or off")
		}
	} else {
		var err error
		if x, err = strconv.ParseFloat(s, 64); err != nil {
			return errors.New("not a number")
		}
	}
	if problem, ok := f.d.Check(x); !ok {
		return errors.New(problem)
	}
	f.x, f.given = x, true
	return nil
}

// usage is the flag's help line: the scene field it overrides, the value's form (in backquotes, which
// flag.PrintDefaults shows after the name) and range, what it does and the solvers that read it.
func (f *settingFlag) usage() string {
	form := "`N` in " + f.d.Range()
	switch f.d.Kind {
	case sim.TunableFloat:
		form = "`X` in " + f.d.Range()
	case sim.TunableOnOff:
		form = "`on|off`"
	}
	var names []string
	for _, k := range f.d.Readers() {
		names = append(names, k.String())
	}
	return "override the scene's solver." + f.d.Key + ", " + form + ": " + f.d.Tip + " (read by " +
		strings.Join(names, ", ") + ")"
}

func (f *worldFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.scene, "scene", "", "scene file, or preset name (see \"sandbox scenes\")")
	fs.StringVar(&f.backend, "backend", "cpu", "simulation backend: cpu, cuda, or emu (the CUDA kernels emulated on the CPU: slow, for checking)")
	fs.StringVar(&f.solver, "solver", "", "override the scene's solver: "+sim.SolverNames)
	fs.IntVar(&f.workers, "workers", 0, "CPU worker goroutines (0: one per CPU)")
	fs.StringVar(&f.broad, "broadphase", "", "override the scene's broad phase: lbvh, sap, grid or brute")
	f.settings = f.settings[:0]
	for _, d := range sim.Tunables() {
		sf := &settingFlag{d: d}
		f.settings = append(f.settings, sf)
		fs.Var(sf, d.Flag, sf.usage())
	}
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
	s, err := loadScene(f.scene, stderr)
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

// loadScene reads a scene file if one exists at arg (readSceneFile, its notes to notes), else builds
// the preset of that name.
func loadScene(arg string, notes io.Writer) (*scenes.Scene, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return readSceneFile(arg, notes)
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
// solver does not read is refused as a scene that sets it is (sim.Tunable.NotRead), naming the flag and
// its value.
func (f *worldFlags) applySettings(w *sim.World) error {
	set := w.Settings()
	if f.refit != 0 {
		set.BVHRefit = float32(f.refit)
	}
	k := w.Resolved().Solver
	for _, sf := range f.settings {
		if !sf.given {
			continue
		}
		if !sf.d.ReadBy(k) {
			return fmt.Errorf("-%s: %s, got %s", sf.d.Flag, sf.d.NotRead(k), sf.format())
		}
		sf.d.Set(&set, sf.x)
	}
	if set != w.Settings() {
		w.SetSettings(set)
	}
	return nil
}

// readSceneFile reads a scene file, or a URDF robot (command.ReadSceneFile): what the mapping leaves
// out goes to notes, one "sandbox: FILE:LINE: element: why" line each.
func readSceneFile(path string, notes io.Writer) (*scenes.Scene, error) {
	s, ns, err := command.ReadSceneFile(path)
	for _, n := range ns {
		fmt.Fprintf(notes, "sandbox: %s\n", n)
	}
	return s, err
}
