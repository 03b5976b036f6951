package sim

import (
	"fmt"

	"tumble/sim/collide"
)

// Options says how a World's CPU step runs. None of them changes the results: a world steps the same
// bits under every combination (the wide passes are held to the scalar ones bit for bit, the island
// block to the colour-by-colour order); they trade speed only, for benchmarks that compare
// (`sandbox bench -scalar -lanes 8 -islands=false -grains fine`). Each World has its own, so two
// worlds in one program may differ; the zero value runs the fastest forms this build and CPU have.
// The worker count is a setting (Settings.Workers), saved with scenes and states.
type Options struct {
	// Scalar runs the scalar contact and joint passes even where the build has the wide (SIMD) ones.
	Scalar bool
	// Lanes is the manifolds the wide contact pass takes at once: 8 (AVX2) or 16 (AVX-512); 0 the
	// widest this build and CPU have. SetOptions refuses a width they lack.
	Lanes int
	// NoIslands runs the sub-steps colour by colour under fine grains even where the world falls into
	// islands, instead of island by island.
	NoIslands bool
	// Grains is how a world of more than one worker splits the step's loops: by trials (the zero
	// value), or held coarse or fine.
	Grains GrainMode

	// The reference forms the fast ones are held to, for this package's tests.
	partJoints bool // solveJoint goes through the joints' parts, not the written-out ball and hinge kernels
	rowPrepare bool // the wide batches' rows come from prepareRows, packed, not computed as they are packed
	bodyRows   bool // the wide passes read and write the bodies' velocities, not the stage's velocity rows
}

// laneKernels is one set of the wide kernels over a contact batch and a joint batch, which a build
// with Go's SIMD experiment installs per instruction set (wide_simd.go): lanes is the most manifolds
// its contact kernels take at once.
type laneKernels struct {
	lanes int
	about string
	// solve is solveManifold over a batch's lanes; warm warmStartManifold's sums; refresh
	// refreshManifold; prep prepareRows, as packBatch fills the batch (prepareWide).
	solve   func(w *World, bt *wideBatch, useBias bool)
	warm    func(w *World, bt *wideBatch)
	refresh func(w *World, bt *wideBatch)
	prep    func(w *World, bt *wideBatch, src *[4][batchLanes]*contactPoint, at *[4][batchLanes]*collide.Point,
		kept *[4]uint16, comp *blanes)
	// ball and hinge are solveBall and solveHinge over a joint batch's lanes, piston solveJoint
	// over a batch of pistons'.
	ball, hinge, piston func(w *World, bt *wideJointBatch, mode PassMode)
}

// laneKernelSets lists the wide kernels this build and CPU can run, the widest last: facts about the
// machine, set once when the package starts.
var laneKernelSets []laneKernels

// WideAvailable reports whether this build and CPU have the wide contact pass.
func WideAvailable() bool { return len(laneKernelSets) > 0 }

// LaneWidths lists the widths of the wide contact kernels this build and CPU have (Options.Lanes),
// the widest last, each with its instruction set.
func LaneWidths() (lanes []int, about []string) {
	for _, k := range laneKernelSets {
		lanes, about = append(lanes, k.lanes), append(about, k.about)
	}
	return lanes, about
}

// kernels returns the wide kernels the options select, or nil for the scalar passes.
func (o *Options) kernels() *laneKernels {
	if o.Scalar || len(laneKernelSets) == 0 {
		return nil
	}
	if o.Lanes == 0 {
		return &laneKernelSets[len(laneKernelSets)-1]
	}
	for i := range laneKernelSets {
		if laneKernelSets[i].lanes == o.Lanes {
			return &laneKernelSets[i]
		}
	}
	return nil
}

// check reports options this build or CPU cannot run.
func (o *Options) check() error {
	if o.Lanes == 0 || o.Scalar {
		return nil
	}
	if o.Lanes != wideLanes && o.Lanes != batchLanes {
		return fmt.Errorf("lanes: %d, want 0 (the widest), %d or %d", o.Lanes, wideLanes, batchLanes)
	}
	if o.kernels() != nil {
		return nil
	}
	have, _ := LaneWidths()
	if len(have) == 0 {
		return fmt.Errorf("lanes: %d: this build or CPU has no wide contact pass (it needs GOEXPERIMENT=simd and AVX2)", o.Lanes)
	}
	return fmt.Errorf("lanes: %d: this build and CPU have contact kernels of %v lanes", o.Lanes, have)
}

// Options returns how the world's CPU step runs.
func (w *World) Options() Options { return w.opts }

// SetOptions sets how the world's CPU step runs from the next step on; it refuses options this build
// or CPU cannot run, leaving the world's as they were. Grains other than GrainsByTrial are held from
// then on, also across a change of worker count.
func (w *World) SetOptions(o Options) error {
	if err := o.check(); err != nil {
		return err
	}
	grains := o.Grains != w.opts.Grains
	w.opts = o
	if grains {
		w.pipe.work.pool.setGrains(o.Grains)
	}
	return nil
}

// ContactLanes reports how many manifolds the world's wide contact pass takes at once (0 when it runs
// the scalar pass), and says so with its instruction set.
func (w *World) ContactLanes() (int, string) {
	if k := w.opts.kernels(); k != nil {
		return k.lanes, k.about
	}
	return 0, ""
}
