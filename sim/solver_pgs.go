package sim

// pgsSolver is projected Gauss-Seidel over graph colours, the CPU default: the joints, then the
// manifolds, one colour at a time, each colour's rows in parallel (no two share a dynamic body), each row
// seeing the impulses of the rows solved before it. It runs inside Box2D v3's soft step: sub-steps of
// integrate velocities, warm start, biased passes, integrate positions and relax passes.
type pgsSolver struct{}

// Kind is PGS.
func (pgsSolver) Kind() SolverKind { return PGS }

// Params are the soft step's, and the direct joint solve.
func (pgsSolver) Params() Param { return softParams | ParamDirectJoints }

// Plan is the soft step with one restitution pass.
func (pgsSolver) Plan(s *Settings, p Plan) Plan { return softStepPlan(s, 1, p) }

// defaults: 8 sub-steps of 4 iterations at 120 Hz. Contact stiffness is bounded by the sub-step rate (a
// soft contact is stable up to about a quarter of it), and a stack compresses by load / (m_eff omega^2):
// 20 boxes compress 1.0 cm at 8 x 1 and 120 Hz. Iterations hold a 20-row pyramid against creep: its
// worst box moves 16.5 cm in 15 s at 8 x 1, 4.8 cm at 8 x 2, 1.3 cm at 8 x 4 with one relax pass, 0.2 cm
// at 8 x 4 with four; over 30 s 0.19 cm with 4 iterations and 2 relax passes (as good as 4 + 4, 22% fewer
// passes), 2.5 cm with 4 + 1, 1.6 cm with 3 + 2.
func (pgsSolver) defaults(s *Settings) { softDefaults{substeps: 8, iterations: 4, hertz: 120}.fill(s) }

func (pgsSolver) splitMasses() bool { return false }
func (pgsSolver) colours() bool     { return true }

// run: a pass solves the joints, then the manifolds, colour by colour; restitution visits the
// manifolds the same way.
func (pgsSolver) run(w *World, op Op) bool {
	p := &w.pipe
	return w.runSoftStep(op, func() {
		w.eachJointColour(p.fnJointColour)
		w.eachColour(p.fnColour)
	}, func() { w.eachColour(p.fnRestColour) })
}

func (pgsSolver) jointForce(w *World, j *joint) float32 { return j.force(w.pipe.invH) }
