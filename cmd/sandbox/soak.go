package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"time"

	"tumble/sim"
)

// cmdSoak is "sandbox soak": step one scene for a long run and report what a long run can go wrong
// in: memory that keeps growing (a leak: the live Go heap and the process's resident set, sampled over
// the run), a body that blows up (a non-finite state, or a speed no preset reaches) and the slowest
// step. scripts/soak.sh runs it over the presets and solvers (make soak), one process per run, so that
// one run's memory is not another's.
func cmdSoak(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	var wf worldFlags
	wf.register(fs)
	steps := fs.Int("steps", 100000, "number of steps")
	every := fs.Int("sample", 1000, "sample the memory every N steps (and at step 0, at the end of the warm-up and at the last step); each sample collects the garbage first")
	warm := fs.Float64("warm", 10, "simulated seconds of warm-up: memory may grow during them (caches, contacts of a settling scene); the early figure is the largest sample up to then")
	maxSpeed := fs.Float64("max-speed", 100, "a body faster than this (m/s) is a blow-up")
	maxSpin := fs.Float64("max-spin", 1000, "a body spinning faster than this (rad/s) is a blow-up")
	row := fs.Bool("row", false, "print the report as a row of the markdown table scripts/soak.sh writes instead of a sentence")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if !wf.check("soak", stderr) {
		return exitUsage
	}
	if *steps < 1 || *every < 1 || !(*warm >= 0) || !(*maxSpeed > 0) || !(*maxSpin > 0) {
		fmt.Fprintf(stderr, "sandbox soak: want -steps >= 1, -sample >= 1, -warm >= 0, -max-speed > 0 and -max-spin > 0, got %d, %d, %g, %g, %g\n",
			*steps, *every, *warm, *maxSpeed, *maxSpin)
		return exitUsage
	}
	s, w, err := wf.open(stderr)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if b := w.Backend(); b != nil {
		defer b.Close()
	}
	r := soakReport{scene: wf.scene, solver: stepSettings(w).Solver.String(), bodies: w.Bodies.Len(),
		slowestAt: -1}
	warmSteps := int(math.Ceil(*warm / s.TimeStep()))
	limits := speedLimits{speed2: float32(*maxSpeed * *maxSpeed), spin2: float32(*maxSpin * *maxSpin)}
	took := make([]time.Duration, 0, *steps) // made before the first sample, so it is in the early figures
	var mem memSampler
	mem.sample(0, warmSteps)

	prog := newProgress(stderr, "soak "+wf.scene, *steps)
	start, cpu0 := time.Now(), cpuTime()
	var total time.Duration
	for i := 1; i <= *steps; i++ {
		t0 := time.Now()
		err := stepWorld(w)
		d := time.Since(t0)
		total += d
		took = append(took, d)
		if d > r.slowest {
			r.slowest, r.slowestAt = d, i
		}
		r.steps = i
		last := i == *steps
		if err == nil && w.Backend() == nil {
			err = limits.check(w) // on a backend, only the sampled steps (they read the state back)
		}
		if err == nil && (i%*every == 0 || i == warmSteps || last) {
			if w.Backend() != nil {
				if err = w.Sync(); err == nil {
					err = limits.check(w)
				}
			}
			mem.sample(i, warmSteps)
		}
		if err != nil {
			var bu *sim.BlowUpError
			if !errors.As(err, &bu) {
				prog.done()
				return fail(stderr, "%s: step %d: %v", wf.scene, w.StepCount, err)
			}
			r.blowUp = bu
			mem.sample(i, warmSteps)
			break
		}
		prog.update(i)
	}
	prog.done()
	r.wall, r.cpu = time.Since(start), cpuTime()-cpu0
	r.mean = total / time.Duration(r.steps)
	slices.Sort(took)
	r.p999 = took[min(len(took)-1, len(took)*999/1000)]
	r.simulated = float64(r.steps) * s.TimeStep()
	r.mem = mem
	if *row {
		fmt.Fprintln(stdout, r.row())
	} else {
		fmt.Fprintln(stdout, r.sentence())
	}
	if r.blowUp != nil || r.mem.grew() {
		return exitError
	}
	return exitOK
}

// speedLimits is soak's test of absurd speed, squared: no preset's body moves at 100 m/s or spins at
// 1,000 rad/s, so one that does has blown up even where its state is still finite.
type speedLimits struct{ speed2, spin2 float32 }

// check returns a *sim.BlowUpError naming the first body over a limit. The step has already checked
// the state is finite (World.Step); this is one pass over the velocities.
func (l speedLimits) check(w *sim.World) error {
	b := &w.Bodies
	for i := range b.Velocity {
		if b.Type[i] == sim.Static {
			continue
		}
		v, a := b.Velocity[i], b.AngularVelocity[i]
		switch {
		case v.Dot(v) > l.speed2:
			return &sim.BlowUpError{Body: b.Name[i], Step: w.StepCount, What: "velocity (over -max-speed)", Value: v}
		case a.Dot(a) > l.spin2:
			return &sim.BlowUpError{Body: b.Name[i], Step: w.StepCount, What: "angular velocity (over -max-spin)", Value: a}
		}
	}
	return nil
}

// memSampler keeps the memory figures of a run: the largest sample of the warm-up (the early figure)
// and of the last tenth of the samples (the end figure), for the live Go heap and the resident set.
type memSampler struct {
	early, end memFigures
	samples    []memFigures // all of them, for the end figure (a 100,000-step run sampled every 1,000: 102)
}

// memFigures is one sample: the live Go heap (runtime/metrics' /gc/heap/live:bytes right after a
// collection, so the sample does not depend on where the collector's cycle stands) and the process's
// resident set (bytes; 0 where /proc/self/statm cannot be read).
type memFigures struct{ heap, rss uint64 }

var heapLive = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// sample takes the figures after step (of a run whose warm-up is warmSteps): a collection (a few
// milliseconds for these heaps, outside the timed steps), then the readings.
func (m *memSampler) sample(step, warmSteps int) {
	runtime.GC()
	metrics.Read(heapLive)
	f := memFigures{rss: residentSet()}
	if heapLive[0].Value.Kind() == metrics.KindUint64 {
		f.heap = heapLive[0].Value.Uint64()
	}
	if step <= warmSteps {
		m.early.heap, m.early.rss = max(m.early.heap, f.heap), max(m.early.rss, f.rss)
	}
	m.samples = append(m.samples, f)
	n := len(m.samples)
	m.end = memFigures{}
	for _, s := range m.samples[n-max(1, n/10):] {
		m.end.heap, m.end.rss = max(m.end.heap, s.heap), max(m.end.rss, s.rss)
	}
}

// Slack of the growth test: the end figure may exceed the early one by 10% and by this much before
// the run is flagged. The heap's live bytes move by some kilobytes as contacts come and go; the
// resident set by the heap goal's steps (the collector lets the heap reach twice the live heap).
const (
	heapSlack = 1 << 20
	rssSlack  = 8 << 20
)

// grew reports whether memory grew after the warm-up: a leak, or a scene that does not settle.
func (m *memSampler) grew() bool {
	g := func(early, end, slack uint64) bool { return end > early+early/10+slack }
	return g(m.early.heap, m.end.heap, heapSlack) || m.early.rss > 0 && g(m.early.rss, m.end.rss, rssSlack)
}

// residentSet returns the process's resident set in bytes from /proc/self/statm (its second field, in
// pages), or 0 where there is none.
func residentSet() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}

// soakReport is what one soak run found.
type soakReport struct {
	scene, solver string
	bodies, steps int
	simulated     float64 // seconds
	wall          time.Duration
	// cpu is the CPU time of the run, every worker's (with the samples' collections). On a machine
	// shared with other work it is the steadier figure: wall time counts the waits for a core.
	cpu           time.Duration
	mean, slowest time.Duration
	p999          time.Duration // the 99.9th percentile: a slowest step far above it is one step (on a shared machine often a preemption)
	slowestAt     int
	mem           memSampler
	blowUp        *sim.BlowUpError
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func (r *soakReport) blowUpText() string {
	if r.blowUp == nil {
		return "none"
	}
	return r.blowUp.Error()
}

func (r *soakReport) growthText() string {
	if r.mem.grew() {
		return "GROWS"
	}
	return "flat"
}

// sentence is the report in words.
func (r *soakReport) sentence() string {
	return fmt.Sprintf("%s (%s): %d bodies, %d steps (%.6g s simulated) in %.1f s (%.2f s of CPU); step mean %.3f ms, 99.9th percentile %.3f ms, slowest %.3f ms (step %d); "+
		"live heap %.1f MiB after the warm-up, %.1f MiB at the end; resident %.1f MiB, then %.1f MiB: %s; blow-up: %s",
		r.scene, r.solver, r.bodies, r.steps, r.simulated, r.wall.Seconds(), r.cpu.Seconds(), ms(r.mean), ms(r.p999), ms(r.slowest), r.slowestAt,
		mib(r.mem.early.heap), mib(r.mem.end.heap), mib(r.mem.early.rss), mib(r.mem.end.rss), r.growthText(), r.blowUpText())
}

// row is the report as a row of the table scripts/soak.sh writes (its header is there).
func (r *soakReport) row() string {
	return fmt.Sprintf("| %s | %s | %d | %d | %.0f | %.1f | %.3f | %.2f | %.2f (%d) | %.1f → %.1f | %.1f → %.1f | %s | %s |",
		r.scene, r.solver, r.bodies, r.steps, r.wall.Seconds(), r.cpu.Seconds(), ms(r.mean), ms(r.p999), ms(r.slowest), r.slowestAt,
		mib(r.mem.early.heap), mib(r.mem.end.heap), mib(r.mem.early.rss), mib(r.mem.end.rss), r.growthText(), r.blowUpText())
}
