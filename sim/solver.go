package sim

import "strings"

// Solver is a constraint solver, one module of the step: it declares the settings it reads, fills in
// the defaults it needs, writes the step's Plan, and runs on the CPU the stages that are its own (the
// others, from the bounds to the integration, are the step's common stages). One file holds each:
// solver_jacobi.go, solver_pgs.go, solver_xpbd.go, and the teaching solvers of seed 003,
// solver_impulse.go and solver_penalty.go, and PGS with shape matching, solver_shapematch.go.
type Solver interface {
	// Kind is the solver's kind, as Settings.Solver names it.
	Kind() SolverKind
	// Params lists the settings the solver reads (Tunables describes each). The panel enables, and
	// scenes and the CLI accept, only these.
	Params() Param
	// Plan appends the stages of one step under resolved settings s to p.
	Plan(s *Settings, p Plan) Plan

	// defaults fills in the solver's own defaults for the zero fields of s: sub-steps, iterations and
	// contact stiffness, which differ from solver to solver.
	defaults(s *Settings)
	// splitMasses says whether the rows' effective masses use split masses (Jacobi: a body under c
	// constraints counts as c bodies of mass m/c), which also sets the joints' stiffness.
	splitMasses() bool
	// colours says whether the solver visits the rows by graph colour (Gauss-Seidel), so Prepare
	// colours them.
	colours() bool
	// run runs op on w if its stage is the solver's own and reports whether it did.
	run(w *World, op Op) bool
	// jointForce is the force (N) joint j held in this step, the value its break force is compared with.
	jointForce(w *World, j *joint) float32
}

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

// ParamOf returns the param a setting name (as String gives it) stands for, and false for no param.
func ParamOf(name string) (Param, bool) {
	for i, n := range paramNames {
		if n == name {
			return 1 << i, true
		}
	}
	return 0, false
}

// softParams are the settings the soft-step velocity solvers (Jacobi, PGS) read.
const softParams = ParamSubsteps | ParamIterations | ParamRelaxIterations | ParamWarmStart | ParamRelax |
	ParamFriction | ParamRestitution | ParamRestitutionThreshold | ParamContactHertz | ParamDampingRatio |
	ParamMaxPushOut

// collisionPlan appends the collision stages and Prepare, which every solver's step begins with.
func collisionPlan(p Plan) Plan {
	return append(p, Op{StageBounds, 1}, Op{StageBroad, 1}, Op{StageNarrow, 1}, Op{StagePrepare, 1})
}

// softStepPlan is the step of the soft-step velocity solvers (Box2D v3's soft step): Substeps times
// integrate velocities, warm start, Iterations biased passes, integrate positions, the joints'
// projection under the direct joint solve, and RelaxIterations relax passes; then restitution (restitutionPasses passes) and storing the impulses.
func softStepPlan(s *Settings, restitutionPasses int, p Plan) Plan {
	p = collisionPlan(p)
	for range s.Substeps {
		p = append(p, Op{StageIntegrateVelocities, 1})
		if !s.NoWarmStart {
			p = append(p, Op{StageWarmStart, 1})
		}
		p = append(p, Op{StageSolve, s.Iterations}, Op{StageIntegratePositions, 1})
		if s.DirectJoints {
			p = append(p, Op{StageProject, 1})
		}
		if !s.NoRelax {
			p = append(p, Op{StageRelax, s.RelaxIterations})
		}
	}
	if !s.NoRestitution {
		p = append(p, Op{StageRestitution, restitutionPasses})
	}
	return endPlan(s, p)
}

// endPlan appends the stages every step ends with.
func endPlan(s *Settings, p Plan) Plan {
	p = append(p, Op{StageStoreImpulses, 1})
	if s.Sleep {
		p = append(p, Op{StageSleep, 1})
	}
	return p
}

// refreshRows brings the contact and joint rows to the bodies' current poses (the separations, the
// friction anchors' drift, the joints' axes and errors), once after each move: a velocity solver's
// warm start, solve and relax stages read them.
func (w *World) refreshRows() {
	p := &w.pipe
	if !p.posesMoved {
		return
	}
	w.refreshContacts()
	p.pool.run(len(w.joints), jointGrain, p.fnJointRefresh)
	if p.jwideOn {
		p.pool.run(len(p.jwide), wideJointGrain, p.fnJWideMass)
	}
	p.posesMoved = false
}

// warmStart is the velocity solvers' warm start: every contact and joint applies the impulse it held at
// the end of the last step, gathered per body.
func (w *World) warmStart() {
	p := &w.pipe
	w.refreshRows()
	w.warmStartContacts()
	p.pool.run(len(w.joints), jointGrain, p.fnJointWarm)
	if p.jwideOn {
		p.pool.run(len(p.jwide), wideJointGrain, p.fnJWideWarm)
	}
	p.gatherJoints = true
	p.pool.run(w.Bodies.Len(), bodyGrain, p.fnGather)
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
		p.useBias = op.Stage == StageSolve
		w.loadState()
		for range op.Passes {
			pass()
			if p.useDirect {
				w.solveJointsDirect(p.useBias) // the joints' equality rows, exactly (joint_direct.go)
			}
		}
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
