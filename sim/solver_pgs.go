package sim

// pgsSolver is projected Gauss-Seidel over graph colours, the CPU default: the joints, then the
// manifolds, one colour at a time, each colour's rows in parallel (no two share a dynamic body), each row
// seeing the impulses of the rows solved before it. It runs inside Box2D v3's soft step: sub-steps of
// integrate velocities, warm start, biased passes, integrate positions and relax passes.
type pgsSolver struct{}

// Kind is PGS.
func (pgsSolver) Kind() SolverKind { return PGS }

// Params are the soft step's, and the direct joint solve.
func (pgsSolver) Params() Param { return softParams | ParamDirectJoints | ParamContactCache }

// Plan is the soft step with one restitution pass, its sub-steps an island block: PGS's passes are
// the ones the block runs by region (islands.go).
func (pgsSolver) Plan(s *Settings, p Plan) Plan { return softStepPlan(s, 1, true, p) }

// defaults: 6 sub-steps of 4 iterations and 2 relax passes, contacts at 120 Hz capped at a quarter of
// the sub-step rate (90 Hz at 60 steps/s). Contact stiffness is bounded by the sub-step rate (a soft
// contact is stable up to about a quarter of it), and a stack compresses by load / (m_eff omega^2).
// Iterations and relax passes hold a 20-row pyramid against creep. Measured over 30 s (the stability
// tests' scenes, largest drift of any box, the tests' bar 2 cm; sub-steps x (iterations +
// relax)):
//
//	8 x (4+2): stack 0.66 cm, pyramid 0.19 cm    6 x (4+2): stack 1.18 cm, pyramid 0.34 cm
//	5 x (4+2): stack 1.70 cm, pyramid 0.50 cm    4 x (4+2): stack 2.66 cm, pyramid 0.78 cm
//	8 x (3+1): pyramid 6.0 cm    8 x (2+2): 8.8 cm    6 x (3+2): 2.0 cm    6 x (3+1): 7.7 cm
//
// The pyramid needs 4 iterations and 2 relax passes whatever the sub-steps; the stack's sag grows as h^2
// (the stiffness cap). 6 x (4+2) makes 25% fewer passes than 8 x (4+2) and passes every physics test.
func (pgsSolver) defaults(s *Settings) { softDefaults{substeps: 6, iterations: 4, hertz: 120}.fill(s) }

func (pgsSolver) traits() solverTraits {
	return solverTraits{colours: true, wideContacts: true, wideJoints: true, renamesContacts: true}
}

// run: a pass solves the joints, then the manifolds, colour by colour; restitution visits the
// manifolds the same way.
func (pgsSolver) run(w *World, op Op) bool {
	return w.runSoftStep(op, func() {
		w.jointPass(op.Mode)  // wide where the build has it (joint_wide.go)
		w.eachContactColour() // wide where the build has it (wide.go)
	}, func() { w.restitutionColours() })
}

func (pgsSolver) jointForce(w *World, j *joint) float32 { return j.force(w.pipe.plan.ctx.invH) }

// Title names the solver for a menu.
func (pgsSolver) Title() string { return "pgs (Gauss-Seidel)" }

// Schedule says the passes of one step.
func (pgsSolver) Schedule(s *Settings) string { return softSchedule(s) }
