package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"tumble/sim"
	"tumble/sim/record"
)

// timeFlags are run's recording flags: record the run, save it as a replay file, check that
// re-simulating it gives the same steps.
type timeFlags struct {
	determinism bool
	workers     string
	save        string
	budgetMB    int
	keyEvery    int
}

func (f *timeFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.determinism, "check-determinism", false, "record the run, then re-simulate it from its first step with each -check-workers count and report the first step and body that differ (exit 1)")
	fs.StringVar(&f.workers, "check-workers", "1,2", "worker counts -check-determinism re-simulates with, comma-separated")
	fs.StringVar(&f.save, "record", "", "record the run and save it as a replay file (see \"sandbox replay\")")
	fs.IntVar(&f.budgetMB, "record-budget", record.DefaultBudget>>20, "recording memory budget, MB (the oldest steps are dropped past it)")
	fs.IntVar(&f.keyEvery, "record-keyframe", record.DefaultKeyEvery, "steps between two keyframes of the recording")
}

// check validates the flags and returns the worker counts to check with.
func (f *timeFlags) check(stderr io.Writer) ([]int, bool) {
	if f.budgetMB < 1 {
		fmt.Fprintf(stderr, "sandbox run: -record-budget must be >= 1 (MB), got %d\n", f.budgetMB)
		return nil, false
	}
	if f.keyEvery < 1 {
		fmt.Fprintf(stderr, "sandbox run: -record-keyframe must be >= 1, got %d\n", f.keyEvery)
		return nil, false
	}
	var ws []int
	for _, p := range strings.Split(f.workers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			fmt.Fprintf(stderr, "sandbox run: -check-workers: %q is not a worker count (a list such as 1,2)\n", p)
			return nil, false
		}
		ws = append(ws, n)
	}
	return ws, true
}

// recorder returns a recorder holding the loaded state (step 0), or nil when no flag asks for one.
func (f *timeFlags) recorder(w *sim.World) (*record.Recorder, error) {
	if !f.determinism && f.save == "" {
		return nil, nil
	}
	rec := record.New(int64(f.budgetMB)<<20, f.keyEvery)
	if err := rec.Record(w, ""); err != nil {
		if errors.Is(err, sim.ErrStateBackend) {
			return nil, fmt.Errorf("-check-determinism and -record: %w (use -backend cpu)", err)
		}
		return nil, err
	}
	return rec, nil
}

// finish reports the recording, saves it and runs the determinism check, as asked.
func (f *timeFlags) finish(rec *record.Recorder, scene string, workers []int, stdout, stderr io.Writer) int {
	steps := rec.Last() - rec.First() + 1
	fmt.Fprintf(stdout, "recording: steps %d to %d, %.2f MB (%.1f KB per step): %d keyframes %.2f MB, exact poses %.2f MB (from step %d), display poses and hashes %.1f KB per step",
		rec.First(), rec.Last(), float64(rec.Bytes())/(1<<20), float64(rec.Bytes())/1024/float64(steps),
		rec.Keyframes(), float64(rec.KeyBytes())/(1<<20), float64(rec.ExactBytes())/(1<<20), rec.ExactFrom(),
		float64(rec.Bytes()-rec.KeyBytes()-rec.ExactBytes())/1024/float64(steps))
	if rec.Thinned() > 0 {
		fmt.Fprintf(stdout, "; %d older keyframes thinned", rec.Thinned())
	}
	if rec.Dropped() > 0 {
		fmt.Fprintf(stdout, "; %d oldest groups dropped for the %d MB budget", rec.Dropped(), f.budgetMB)
	}
	fmt.Fprintln(stdout)
	if f.save != "" {
		if err := rec.Save(f.save, scene); err != nil {
			return fail(stderr, "-record: %v", err)
		}
		fmt.Fprintf(stdout, "replay saved to %s\n", f.save)
	}
	if !f.determinism {
		return exitOK
	}
	for _, n := range workers {
		prog := newProgress(stderr, fmt.Sprintf("determinism check, %d workers", n), rec.Last()-rec.First())
		err := rec.Check(record.CheckOptions{Workers: n, Progress: func(done, _ int) { prog.update(done) }})
		prog.done()
		var d *record.Divergence
		if errors.As(err, &d) {
			return fail(stderr, "%s: determinism check with %d workers: steps %d to %d re-simulated from step %d: first difference at %v",
				scene, n, rec.First(), rec.Last(), rec.First(), d)
		}
		if err != nil {
			return fail(stderr, "%s: determinism check with %d workers: %v", scene, n, err)
		}
		fmt.Fprintf(stdout, "determinism: steps %d to %d re-simulated from step %d with %d worker(s): identical, bit for bit (%d bodies)\n",
			rec.First(), rec.Last(), rec.First(), n, len(mustNames(rec)))
	}
	return exitOK
}

func mustNames(rec *record.Recorder) []string {
	names, _, _ := rec.Names(rec.Last())
	return names
}
