package sim

import (
	"fmt"
	"strings"
)

// Solver is a constraint solver, one module of the step: it declares the settings it reads, fills in
// the defaults it needs, writes the step's Plan, and runs on the CPU the stages that are its own (the
// others, from the bounds to the integration, are the step's common stages), and says through its
// traits and its plan which fast paths its rows may take (wide passes, the island block), so that no
// other code asks which solver runs. One file holds each: solver_jacobi.go, solver_pgs.go,
// solver_rigid.go, solver_xpbd.go, the teaching solvers of seed 003 (solver_impulse.go,
// solver_penalty.go), and PGS with shape matching, solver_shapematch.go. A new solver is a new file
// implementing this interface and an entry in solverTable and solverNames.
type Solver interface {
	// Kind is the solver's kind, as Settings.Solver names it.
	Kind() SolverKind
	// Params lists the settings the solver reads (Tunables describes each). The panel enables, and
	// scenes and the CLI accept, only these.
	Params() Param
	// Plan appends the stages of one step under resolved settings s to p.
	Plan(s *Settings, p Plan) Plan
	// Title names the solver for a menu, with what it is in a word or two.
	Title() string
	// Schedule says the passes of one step under resolved settings s, e.g. "6 substeps x (4
	// iterations + 2 relax), 120 Hz contacts".
	Schedule(s *Settings) string

	// defaults fills in the solver's own defaults for the zero fields of s: sub-steps, iterations and
	// contact stiffness, which differ from solver to solver.
	defaults(s *Settings)
	// traits are what the common stages need to know of the solver's rows, so that none of them asks
	// which solver runs.
	traits() solverTraits
	// run runs op on w if its stage is the solver's own and reports whether it did.
	run(w *World, op Op) bool
	// jointForce is the force (N) joint j held in this step, the value its break force is compared with.
	jointForce(w *World, j *joint) float32
}

// solverTraits are what the common stages need to know of a solver's rows.
type solverTraits struct {
	// split: the rows' effective masses use split masses (Jacobi: a body under c constraints counts as
	// c bodies of mass m/c), which also sets the joints' stiffness.
	split bool
	// colours: the solver visits the rows by graph colour (Gauss-Seidel), so Prepare colours them.
	colours bool
	// wideContacts: its contact passes are solveManifold over a colour's manifolds, which may then run
	// wide (wide.go) where the build has the kernels; wideJoints: its ball and hinge passes are
	// solveBall and solveHinge, which may likewise run wide (joint_wide.go).
	wideContacts, wideJoints bool
	// renamesContacts: when a removal moves the last body into the freed index, last step's contacts
	// follow it, so warm starting carries on. Without it a removal drops them all, as the CUDA backend
	// does on the device (its contacts are not renamed), so that the solver it shares with the CPU
	// steps the same bits on both.
	renamesContacts bool
	// separationsOnly: its contact rows read the points' separations and nothing else that
	// refreshRows brings to the poses (no friction anchors' drift), so the refresh skips the rest.
	separationsOnly bool
}

// RenamesContacts says whether the solver k keeps last step's contacts through a removal, renamed
// with the body that moved into the removed one's index, or drops them all: a backend that keeps
// contacts does the same for its Edits.Moves, so that its step stays the CPU's.
func RenamesContacts(k SolverKind) bool { return SolverOf(k).traits().renamesContacts }

// softSchedule is Schedule for a solver of the soft step's passes.
func softSchedule(s *Settings) string {
	return fmt.Sprintf("%d substeps x (%d iterations + %d relax), %.0f Hz contacts", s.Substeps, s.Iterations,
		s.RelaxIterations, s.ContactHertz)
}

// WidePasses reports whether the solver of kind k takes the wide (SIMD) contact pass where the build
// and the world's options have it.
func WidePasses(k SolverKind) bool { return SolverOf(k).traits().wideContacts }

// solverTable holds each kind's solver.
var solverTable = [...]Solver{Jacobi: jacobiSolver{}, PGS: pgsSolver{}, XPBD: xpbdSolver{},
	Impulse: impulseSolver{}, Penalty: penaltySolver{}, ShapeMatch: shapeMatchSolver{}, Rigid: rigidSolver{}}

// SolverOf returns the solver of kind k; SolverDefault and an unknown kind give PGS, the CPU default.
func SolverOf(k SolverKind) Solver {
	if k == SolverDefault || int(k) >= len(solverTable) {
		return solverTable[PGS]
	}
	return solverTable[k]
}

// PlanOf returns the plan of one step under settings s, resolved as the World resolves them.
func PlanOf(s Settings) Plan {
	s = s.resolved()
	return SolverOf(s.Solver).Plan(&s, nil)
}

// Param names a tunable setting that a solver may or may not read. A Param value is also a set of them
// (the bits or-ed together).
type Param uint32

// The params. Friction, restitution and the sub-step count are read by every solver; the rest by some.
const (
	ParamSubsteps             Param = 1 << iota // Settings.Substeps
	ParamIterations                             // Settings.Iterations
	ParamRelaxIterations                        // Settings.RelaxIterations
	ParamWarmStart                              // Settings.NoWarmStart
	ParamRelax                                  // Settings.NoRelax
	ParamFriction                               // Settings.NoFriction
	ParamRestitution                            // Settings.NoRestitution
	ParamRestitutionThreshold                   // Settings.RestitutionThreshold
	ParamContactHertz                           // Settings.ContactHertz
	ParamDampingRatio                           // Settings.DampingRatio
	ParamMaxPushOut                             // Settings.MaxPushOut
	ParamJointDamping                           // Settings.JointDamping
	ParamDirectJoints                           // Settings.DirectJoints
	ParamPenaltyStiffness                       // Settings.PenaltyStiffness
	ParamPenaltyDamping                         // Settings.PenaltyDamping
	ParamContactCache                           // Settings.NoContactCache
	numParams                 = iota
)

// Has reports whether the set p holds every param of q.
func (p Param) Has(q Param) bool { return p&q == q }

// String returns the param's name as scene files spell it; a set of several is listed, comma-separated.
func (p Param) String() string {
	var names []string
	for i := range numParams {
		if p&(1<<i) != 0 {
			names = append(names, paramNames[i])
		}
	}
	return strings.Join(names, ", ")
}

// softParams are the settings the soft-step velocity solvers (Jacobi, PGS) read.
const softParams = ParamSubsteps | ParamIterations | ParamRelaxIterations | ParamWarmStart | ParamRelax |
	ParamFriction | ParamRestitution | ParamRestitutionThreshold | ParamContactHertz | ParamDampingRatio |
	ParamMaxPushOut

// collisionPlan appends the collision stages and Prepare, which every solver's step begins with.
func collisionPlan(p Plan) Plan {
	return append(p, Op{StageBounds, 1, Unbiased}, Op{StageBroad, 1, Unbiased}, Op{StageNarrow, 1, Unbiased}, Op{StagePrepare, 1, Unbiased})
}

// softStepPlan is the step of the soft-step velocity solvers (Box2D v3's soft step): Substeps times
// integrate velocities, warm start, Iterations biased passes, integrate positions, the joints'
// projection under the direct joint solve, and RelaxIterations relax passes; then restitution
// (restitutionPasses passes) and storing the impulses. With islands the sub-steps are an island block
// (StageIslands), except under the direct joint solve, whose projection couples every joint.
func softStepPlan(s *Settings, restitutionPasses int, islands bool, p Plan) Plan {
	p = collisionPlan(p)
	block := len(p)
	if islands && !s.DirectJoints {
		p = append(p, Op{StageIslands, 0, Unbiased})
	}
	for range s.Substeps {
		p = append(p, Op{StageIntegrateVelocities, 1, Unbiased})
		if !s.NoWarmStart {
			p = append(p, Op{StageWarmStart, 1, Unbiased})
		}
		p = append(p, Op{StageSolve, s.Iterations, Biased}, Op{StageIntegratePositions, 1, Unbiased})
		if s.DirectJoints {
			p = append(p, Op{StageProject, 1, Unbiased})
		}
		if !s.NoRelax {
			p = append(p, Op{StageRelax, s.RelaxIterations, Unbiased})
		}
	}
	if len(p) > block && p[block].Stage == StageIslands {
		p[block].Passes = len(p) - block - 1
	}
	if !s.NoRestitution {
		p = append(p, Op{StageRestitution, restitutionPasses, Unbiased})
	}
	return endPlan(s, p)
}

// endPlan appends the stages every step ends with.
func endPlan(s *Settings, p Plan) Plan {
	p = append(p, Op{StageStoreImpulses, 1, Unbiased})
	if s.Sleep {
		p = append(p, Op{StageSleep, 1, Unbiased})
	}
	return p
}

// refreshRows brings the contact and joint rows to the bodies' current poses (the separations, the
// friction anchors' drift, the joints' axes and errors), once after each move: a velocity solver's
// warm start, solve and relax stages read them.
func (w *World) refreshRows() {
	p := &w.pipe
	if !p.plan.posesMoved {
		return
	}
	w.refreshContacts(p.plan.solver.traits().separationsOnly)
	if p.jwide.jwideOn { // the joints outside the batches from their list (jrest), not a scan of every joint
		w.eachOf(loopJRestRefresh, p.jwide.jrest, jointGrain)
		w.each(loopJWideMass, len(p.jwide.jwide), wideJointGrain)
	} else {
		w.each(loopJointRefresh, len(w.joints), jointGrain)
	}
	p.plan.posesMoved = false
}

// warmStart is the velocity solvers' warm start: every contact and joint applies the impulse it held at
// the end of the last step, gathered per body.
func (w *World) warmStart() {
	p := &w.pipe
	w.refreshRows()
	w.warmStartContacts()
	if p.jwide.jwideOn {
		w.eachOf(loopJRestWarm, p.jwide.jrest, jointGrain)
		w.each(loopJWideWarm, len(p.jwide.jwide), wideJointGrain)
	} else {
		w.each(loopJointWarm, len(w.joints), jointGrain)
	}
	p.graph.gather.joints = true
	w.each(loopGather, w.Bodies.Len(), bodyGrain)
}

// softDefaults are a soft-step solver's defaults for the settings that depend on the solver.
type softDefaults struct {
	substeps, iterations int
	hertz                float32 // contact stiffness
}

// fill sets the zero fields of s.
func (d softDefaults) fill(s *Settings) {
	if s.Substeps <= 0 {
		s.Substeps = d.substeps
	}
	if s.Iterations <= 0 {
		s.Iterations = d.iterations
	}
	if s.ContactHertz == 0 {
		s.ContactHertz = d.hertz
	}
}

// runSoftStep runs the soft step's solver stages for a velocity solver whose one pass over every row
// is pass and whose one restitution pass is restitute: the warm start, the biased solve and the relax
// (the rows brought to the current poses first, and with Settings.DirectJoints the joints' equality
// rows solved directly after each pass), the direct joints' projection, and restitution. It reports whether op was one of them.
func (w *World) runSoftStep(op Op, pass, restitute func()) bool {
	p := &w.pipe
	switch op.Stage {
	case StageWarmStart:
		w.warmStart()
	case StageProject:
		w.projectJointsDirect()
	case StageSolve, StageRelax:
		w.refreshRows()
		p.loops.mode = op.Mode
		w.loadState()
		// The last pass records the batches' warm-start sums where the next sub-step's warm start
		// would read the impulses it leaves (warmFollows).
		sums := p.wide.wideOn && op.Passes > 0 && warmFollows(p.plan.steps, p.plan.at)
		k := 0
		w.passes(op, func() {
			k++
			p.loops.sums = sums && k == op.Passes
			pass()
			if p.joints.useDirect {
				w.solveJointsDirect(p.loops.mode.bias()) // the joints' equality rows, exactly (joint_direct.go)
			}
		})
		p.loops.sums = false
		p.wide.sumsReady = sums
		w.storeState() // the wide joints' impulses go back to the joints once a step (StageStoreImpulses)
	case StageRestitution:
		w.syncWideImpulses()
		for range op.Passes {
			restitute()
		}
	default:
		return false
	}
	return true
}
