package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"tumble/sim"
	"tumble/sim/record"
)

// cmdReplay is "sandbox replay FILE": check and describe a replay file, export a trace CSV of any
// range of its steps, or re-simulate it to check determinism.
func cmdReplay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	tracePath := fs.String("trace", "", "write the recorded steps as a CSV trace to this file (\"-\": standard output)")
	from := fs.Int("from", -1, "first step to trace (default: the first recorded)")
	to := fs.Int("to", -1, "last step to trace (default: the last recorded)")
	every := fs.Int("every", 1, "trace every K-th step of the range (its first and last are always traced)")
	check := fs.Bool("check-determinism", false, "re-simulate the recording from its first step and report the first step and body that differ")
	workers := fs.Int("workers", 0, "worker count of the determinism check (0: one per CPU)")
	file, rest := "", args
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		file, rest = args[0], args[1:]
	}
	if code, ok := parseFlags(fs, rest, stderr); !ok {
		return code
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	} else if fs.NArg() > 0 || file == "" {
		fmt.Fprintln(stderr, "sandbox replay: one replay file, then flags: sandbox replay FILE [-trace OUT.csv] [-from A] [-to B] [-every K] [-check-determinism]")
		return exitUsage
	}
	if *every < 1 {
		fmt.Fprintf(stderr, "sandbox replay: -every must be >= 1, got %d\n", *every)
		return exitUsage
	}
	lp := newProgress(stderr, "loading "+file, 0)
	rp, err := record.LoadProgress(file, func(done, total int) error { lp.total = total; lp.update(done); return nil })
	lp.done()
	if err != nil {
		return fail(stderr, "%v", err)
	}
	lo, hi := rp.First(), rp.Last()
	if *from >= 0 {
		lo = *from
	}
	if *to >= 0 {
		hi = *to
	}
	if lo < rp.First() || hi > rp.Last() || lo > hi {
		return fail(stderr, "replay %s: -from %d -to %d: outside the recorded steps %d to %d", file, lo, hi, rp.First(), rp.Last())
	}
	names, dt, _ := rp.Names(rp.Last())
	out := stdout
	if *tracePath != "-" {
		fmt.Fprintf(stdout, "%s: scene %q, steps %d to %d (%.4g s), %d bodies at the end, %d keyframes, %.2f MB",
			file, rp.Scene, rp.First(), rp.Last(), float64(rp.Last()-rp.First())*dt, len(names), rp.Keyframes(), float64(rp.Bytes())/(1<<20))
		if !rp.Resumable {
			fmt.Fprint(stdout, "; written by a build with other solver structures: it can be traced, not re-simulated")
		}
		fmt.Fprintln(stdout)
		steps, edits := rp.Edits()
		for i := range steps {
			fmt.Fprintf(stdout, "  step %d: %s\n", steps[i], edits[i])
		}
	}
	if *tracePath != "" {
		var f *os.File
		if *tracePath != "-" {
			if f, err = os.Create(*tracePath); err != nil {
				return fail(stderr, "%v", err)
			}
			defer f.Close()
			out = f
		}
		if err := traceReplay(rp, out, lo, hi, *every, stderr); err != nil {
			return fail(stderr, "trace: %v", err)
		}
		if f != nil {
			if err := f.Close(); err != nil {
				return fail(stderr, "trace: %v", err)
			}
			fmt.Fprintf(stdout, "trace of steps %d to %d written to %s\n", lo, hi, *tracePath)
		}
	}
	if *check {
		if !rp.Resumable {
			return fail(stderr, "replay %s: cannot re-simulate: %v", file, "written by a build with other solver structures (sim.StateLayout)")
		}
		prog := newProgress(stderr, "determinism check", hi-lo)
		err := rp.Check(record.CheckOptions{From: lo, To: hi, Workers: *workers, Progress: func(d, _ int) { prog.update(d) }})
		prog.done()
		if err != nil {
			return fail(stderr, "replay %s: determinism check, steps %d to %d: first difference at %v", file, lo, hi, err)
		}
		fmt.Fprintf(stdout, "determinism: steps %d to %d re-simulated: identical, bit for bit\n", lo, hi)
	}
	return exitOK
}

// traceReplay writes the recorded steps lo..hi (every k-th, and hi) as trace rows, exactly: a step
// whose exact poses the file does not hold is re-simulated from its keyframe (checked against the
// recorded hash). A file that cannot be re-simulated gives its display poses for those steps, said
// once on stderr.
func traceReplay(rp *record.Replay, out io.Writer, lo, hi, k int, stderr io.Writer) error {
	var tw *traceWriter
	var b sim.Bodies
	prog := newProgress(stderr, "trace", hi-lo)
	defer prog.done()
	w := sim.NewWorld(sim.Settings{})
	defer w.Close()
	noted := false
	for s := lo; s <= hi; s++ {
		var bits []uint32
		var err error
		switch {
		case rp.Exact(s) || !rp.Resumable:
			if !rp.Exact(s) && !noted {
				noted = true
				fmt.Fprintf(stderr, "trace: steps from %d on are the display poses (to 1/2048 m; velocities estimated): the file holds no exact poses there and cannot be re-simulated by this build\n", s)
			}
			if (s-lo)%k != 0 && s != hi {
				continue
			}
			bits, err = rp.Frame(s)
		default:
			// Re-simulate every step in between, so the next traced one is one step on.
			bits, err = rp.ExactFrame(w, s)
			if (s-lo)%k != 0 && s != hi {
				prog.update(s - lo)
				continue
			}
		}
		if err != nil {
			return err
		}
		rec := rp.Recorder
		names, dt, err := rec.Names(s)
		if err != nil {
			return err
		}
		if tw == nil {
			if tw, err = newTraceWriter(out, dt); err != nil {
				return err
			}
		}
		tw.dt = dt
		n := len(names)
		b.Name = names
		b.Position = resizeVec(b.Position, n)
		b.Rotation = resizeQuat(b.Rotation, n)
		b.Velocity = resizeVec(b.Velocity, n)
		b.AngularVelocity = resizeVec(b.AngularVelocity, n)
		f := func(i, k int) float32 { return math.Float32frombits(bits[i*record.PoseWords+k]) }
		for i := 0; i < n; i++ {
			b.Position[i] = sim.Vec3{f(i, 0), f(i, 1), f(i, 2)}
			b.Rotation[i].V = sim.Vec3{f(i, 3), f(i, 4), f(i, 5)}
			b.Rotation[i].W = f(i, 6)
			b.Velocity[i] = sim.Vec3{f(i, 7), f(i, 8), f(i, 9)}
			b.AngularVelocity[i] = sim.Vec3{f(i, 10), f(i, 11), f(i, 12)}
		}
		if err := tw.record(s, &b); err != nil {
			return err
		}
		prog.update(s - lo)
	}
	return tw.flush()
}

func resizeVec(v []sim.Vec3, n int) []sim.Vec3 {
	if cap(v) < n {
		return make([]sim.Vec3, n)
	}
	return v[:n]
}

func resizeQuat(v []sim.Quat, n int) []sim.Quat {
	if cap(v) < n {
		return make([]sim.Quat, n)
	}
	return v[:n]
}
