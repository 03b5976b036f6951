package sim

import "time"

// Stage is one stage of the step. The constants list every stage a step can run, in the order a
// velocity solver's step runs them (Box2D v3's b2SolverStageType is the model); which of them a step
// runs, how often and in what order is its Plan, written by the selected solver. The CPU stages of this
// package and the CUDA backend's kernels both run the same Plan, and both time it by these stages.
type Stage int

// The stages.
const (
	// StageBounds gives every body its world bounding box, enlarged by its motion over the step so that
	// pairs found once hold for every sub-step.
	StageBounds Stage = iota
	// StageBroad finds the pairs of overlapping boxes (Settings.Broadphase).
	StageBroad
	// StageNarrow makes a contact manifold for each touching pair and matches its points with last
	// step's by feature id.
	StageNarrow
	// StagePrepare fixes the step's constraint rows: the graph colours, each contact point's anchors,
	// effective masses and warm-start impulses, the joints' masses.
	StagePrepare
	// StageIslands marks the sub-steps that follow it (its Passes are how many ops they are) as a
	// block that may run island by island: where the world falls into islands and the step runs with
	// fine grains, each region of islands runs every one of those ops on one worker with no wait
	// between them (islands.go); elsewhere the ops run one after another as usual. It takes no time
	// of its own: the block's time is shared between the stages it runs.
	StageIslands
	// StageIntegrateVelocities applies gravity and the gyroscopic term over one sub-step.
	StageIntegrateVelocities
	// StageShapeMatch pulls the members of each shape-matching cluster towards the best-fit rotation of
	// its rest shape (the shapematch solver; cluster.go).
	StageShapeMatch
	// StageWarmStart applies the impulses the rows held at the end of the last step.
	StageWarmStart
	// StageSolve runs the solver's passes with the bias that pushes overlap and joint drift out (XPBD:
	// its position passes).
	StageSolve
	// StageIntegratePositions moves the bodies by their velocities over one sub-step (XPBD: predicts
	// the poses its position passes then correct).
	StageIntegratePositions
	// StageProject moves the bodies (not their velocities) to remove the position error the velocity
	// passes left: the joints' under the direct joint solve (its post-stabilisation,
	// Settings.DirectJoints), the contacts' overlap under the impulse solver.
	StageProject
	// StageRelax runs passes without the bias, taking the push-out velocity back out of the bodies.
	StageRelax
	// StageDeriveVelocities sets the velocities from the sub-step's pose change (XPBD).
	StageDeriveVelocities
	// StageSolveVelocities is XPBD's velocity pass: dynamic friction, restitution and joint damping.
	StageSolveVelocities
	// StageRestitution makes the contacts that approached fast enough bounce.
	StageRestitution
	// StageStoreImpulses ends the solve: world inertias, joints past their break force, and this step's
	// impulses kept to warm start the next.
	StageStoreImpulses
	// StageSleep puts islands that have rested long enough to sleep (Settings.Sleep).
	StageSleep
	// NumStages is the number of stages.
	NumStages
)

var stageNames = [NumStages]string{"bounds", "broad", "narrow", "prepare", "islands", "integrate velocities", "shape match", "warm start",
	"solve", "integrate positions", "project", "relax", "derive velocities", "solve velocities", "restitution",
	"store impulses", "sleep"}

// String returns the stage's name.
func (s Stage) String() string {
	if s >= 0 && s < NumStages {
		return stageNames[s]
	}
	return "unknown"
}

// Op is one entry of a Plan: a stage, the number of passes it makes (Solve, Relax, Restitution:
// the iterations; 1 for the others), and how its passes' rows treat position error.
type Op struct {
	Stage  Stage
	Passes int
	Mode   PassMode
}

// PassMode is how a pass's rows treat position error: the plan says it with each op, so a stage's
// passes need not know which solver wrote the plan.
type PassMode uint8

// The pass modes.
const (
	// Unbiased rows take out velocity only: relax passes, restitution, a rigid solver's velocity
	// passes (an open point closes its gap and no more).
	Unbiased PassMode = iota
	// Biased rows also push overlap and joint drift out, softly (a soft step's solve).
	Biased
	// Pseudo rows run over pseudo-velocities that start at zero and move only the poses: contacts
	// push overlap out, servos close their error, speed motors and friction rest (a rigid solver's
	// position passes).
	Pseudo
)

// bias reports whether the rows push position error out.
func (m PassMode) bias() bool { return m != Unbiased }

// pseudo reports whether the rows run over pseudo-velocities (speed motors and friction rest).
func (m PassMode) pseudo() bool { return m == Pseudo }

// solvesBiased reports whether the plan's solve passes are biased: a soft step, whose relax passes
// then take the bias out of the velocities.
func (p Plan) solvesBiased() bool {
	for _, op := range p {
		if op.Stage == StageSolve && op.Mode == Biased {
			return true
		}
	}
	return false
}

// Plan is the ordered list of stages one step runs. Solvers write it (Solver.Plan); every backend runs
// it as it is, so a stage and its order are decided in one place.
type Plan []Op

// Uses reports whether the plan runs stage s.
func (p Plan) Uses(s Stage) bool {
	for _, op := range p {
		if op.Stage == s {
			return true
		}
	}
	return false
}

// Count returns how many times the plan runs stage s, and how many passes in all.
func (p Plan) Count(s Stage) (ops, passes int) {
	for _, op := range p {
		if op.Stage == s {
			ops++
			passes += op.Passes
		}
	}
	return ops, passes
}

// Timings is the wall time each stage took in the last step (summed over its sub-steps).
type Timings [NumStages]time.Duration

// Total is the sum over stages.
func (t *Timings) Total() time.Duration {
	var s time.Duration
	for _, d := range t {
		s += d
	}
	return s
}
