package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"tumble/sim"
)

// stepWorld advances a world by one step; tests replace it to provoke failures.
var stepWorld = (*sim.World).Step

// cmdRun is "sandbox run": load a scene, step it N times, optionally trace it to CSV.
func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var wf worldFlags
	wf.register(fs)
	steps := fs.Int("steps", -1, "number of steps (required, unless -settle gives them)")
	settle := fs.Float64("settle", 0, "check of rest: step the scene for `SECONDS` (instead of -steps) and print its largest speeds, the bodies moving faster than 1 cm/s and, with sleeping on, when all fell asleep")
	tracePath := fs.String("trace", "", "write a CSV trace to this file (\"-\": standard output)")
	every := fs.Int("every", 1, "trace every K-th step (step 0 and the last step are always traced)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the steps (with tracing and recording) to this file (go tool pprof)")
	var tf timeFlags
	tf.register(fs)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if !wf.check("run", stderr) {
		return exitUsage
	}
	if *settle != 0 && (*settle < 0 || *settle > 1e6 || *settle != *settle) {
		fmt.Fprintf(stderr, "sandbox run: -settle must be in (0, 1e6] seconds, got %g\n", *settle)
		return exitUsage
	}
	if *settle != 0 && *steps >= 0 {
		fmt.Fprintln(stderr, "sandbox run: -settle SECONDS sets the steps: give it or -steps N, not both")
		return exitUsage
	}
	if *steps < 0 && *settle == 0 {
		fmt.Fprintln(stderr, "sandbox run: -steps N is required (N >= 0)")
		return exitUsage
	}
	if *every < 1 {
		fmt.Fprintf(stderr, "sandbox run: -every must be >= 1, got %d\n", *every)
		return exitUsage
	}
	checkWorkers, ok := tf.check(stderr)
	if !ok {
		return exitUsage
	}
	s, w, err := wf.open(stderr)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if b := w.Backend(); b != nil {
		defer b.Close()
	}
	rec, err := tf.recorder(w)
	if err != nil {
		return fail(stderr, "%s: %v", wf.scene, err)
	}
	var rest *restWatch
	if *settle != 0 {
		*steps = int(math.Round(*settle / s.TimeStep()))
		rest = newRestWatch(w)
	}

	var trace *traceWriter
	var traceFile *os.File
	if *tracePath != "" {
		out := stdout
		if *tracePath != "-" {
			if traceFile, err = os.Create(*tracePath); err != nil {
				return fail(stderr, "%v", err)
			}
			defer traceFile.Close() // on the error paths; closed and checked below otherwise
			out = traceFile
		}
		if trace, err = newTraceWriter(out, s.TimeStep()); err == nil {
			err = trace.record(0, &w.Bodies)
		}
		if err != nil {
			return fail(stderr, "trace: %v", err)
		}
	}

	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	defer stopProfile()
	prog := newProgress(stderr, "run "+wf.scene, *steps)
	start := time.Now()
	var stepErr error
	for i := 1; i <= *steps; i++ {
		stepErr = stepWorld(w)
		for _, bj := range w.Broken {
			fmt.Fprintf(stderr, "sandbox: %s: step %d: joint %d (%s, %s) broke: force %.4g N > breakForce %.4g N\n",
				wf.scene, bj.Step, bj.Index, bj.Def.Type, jointBodies(w, bj.Def), bj.Force, bj.Def.BreakForce)
		}
		last := i == *steps || stepErr != nil
		if trace != nil && (i%*every == 0 || last) {
			err := w.Sync() // a backend's state comes back only for the steps recorded
			if err == nil {
				err = trace.record(i, &w.Bodies)
			}
			if err != nil {
				prog.done()
				return fail(stderr, "trace: %v", err)
			}
		}
		if stepErr != nil {
			break
		}
		if rest != nil {
			rest.step(i)
		}
		if rec != nil {
			if err := rec.Record(w, ""); err != nil {
				prog.done()
				return fail(stderr, "%s: recording step %d: %v", wf.scene, i, err)
			}
		}
		prog.update(i)
	}
	prog.done()
	elapsed := time.Since(start)
	if trace != nil {
		err := trace.flush()
		if err == nil && traceFile != nil {
			err = traceFile.Close()
		}
		if err != nil {
			return fail(stderr, "trace: %v", err)
		}
	}
	if stepErr != nil {
		var bu *sim.BlowUpError
		if errors.As(stepErr, &bu) {
			return fail(stderr, "%s: stopped: %v", wf.scene, bu)
		}
		return fail(stderr, "%s: step %d: %v", wf.scene, w.StepCount, stepErr)
	}
	if *tracePath != "-" {
		fmt.Fprintf(stdout, "%s: %d bodies, %d steps, %.6g s simulated in %.3f s\n",
			wf.scene, w.Bodies.Len(), *steps, float64(*steps)*s.TimeStep(), elapsed.Seconds())
	}
	if rest != nil {
		out := stdout
		if *tracePath == "-" { // the trace has standard output to itself
			out = stderr
		}
		if err := w.Sync(); err != nil {
			return fail(stderr, "%s: %v", wf.scene, err)
		}
		rest.report(out, wf.scene, *steps, s.TimeStep())
	}
	if rec != nil {
		return tf.finish(rec, wf.scene, checkWorkers, stdout, stderr)
	}
	return exitOK
}

// jointBodies names a joint's bodies ("a-b", or "a-world").
func jointBodies(w *sim.World, d sim.JointDef) string {
	name := func(h sim.Handle) string {
		if i, ok := w.Index(h); ok {
			return w.Bodies.Name[i]
		}
		return "world"
	}
	return name(d.BodyA) + "-" + name(d.BodyB)
}
