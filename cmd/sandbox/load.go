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
}

func (f *worldFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.scene, "scene", "", "scene file, or preset name (see \"sandbox scenes\")")
	fs.StringVar(&f.backend, "backend", "cpu", "simulation backend: cpu, cuda, or emu (the CUDA kernels emulated on the CPU: slow, for checking)")
	fs.StringVar(&f.solver, "solver", "", "override the scene's solver: jacobi, pgs or xpbd")
	fs.IntVar(&f.workers, "workers", 0, "CPU worker goroutines (0: one per CPU)")
	fs.StringVar(&f.broad, "broadphase", "", "override the scene's broad phase: lbvh, sap, grid or brute")
	fs.IntVar(&f.substeps, "substeps", 0, "override the scene's solver sub-steps (0: keep)")
	fs.Float64Var(&f.refit, "bvh-refit", 0, "LBVH: refit the tree while its cost stays within this factor of a rebuilt one's (0: the default, 1.1; 1: rebuild every step)")
}

// check reports a missing -scene or a negative -workers as a usage error; it returns false then.
func (f *worldFlags) check(cmd string, stderr io.Writer) bool {
	switch {
	case f.scene == "":
		fmt.Fprintf(stderr, "sandbox %s: -scene is required (a scene file or one of: %s)\n", cmd,
			strings.Join(scenes.Names(), ", "))
	case f.substeps < 0 || f.substeps > 100:
		fmt.Fprintf(stderr, "sandbox %s: -substeps must be in [0, 100], got %d\n", cmd, f.substeps)
	case f.workers < 0:
		fmt.Fprintf(stderr, "sandbox %s: -workers must be >= 0, got %d\n", cmd, f.workers)
	case !(f.refit == 0 || f.refit >= 1 && f.refit <= 1000):
		fmt.Fprintf(stderr, "sandbox %s: -bvh-refit must be 0 (the default) or in [1, 1000], got %g\n", cmd, f.refit)
	default:
		return true
	}
	return false
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
	if f.refit != 0 || f.substeps != 0 {
		set := w.Settings()
		if f.refit != 0 {
			set.BVHRefit = float32(f.refit)
		}
		if f.substeps != 0 {
			set.Substeps = f.substeps
		}
		w.SetSettings(set)
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
// it follows): cuda in a build without CUDA is a one-line note and the CPU; any other failure, or
// settings the backend cannot run (another solver, sleeping), is an error.
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
	if note := sim.NoteFor(b.Capabilities(), w.Settings()); note != "" {
		fmt.Fprintf(stderr, "sandbox: %s\n", note)
	}
	return w.SetBackend(b)
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
