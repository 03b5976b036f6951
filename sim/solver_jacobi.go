package sim

// jacobiSolver is seed 000's projected Jacobi solver, the GPU's: every row of a pass is computed from
// the same old velocities, each manifold and joint records its impulse, and one gather per body sums
// them, scaled by split masses (a body under c constraints counts as c bodies of mass m/c, Tonge et al.
// 2012, the seed's stepInv), so the pass runs in parallel over all rows with no colouring and no atomics.
// It runs inside soft sub-steps with warm starting and relax passes, as PGS does; split masses make its
// rows softer, so it takes more sub-steps and a stiffer contact for the same stack.
type jacobiSolver struct{}

// Kind is Jacobi.
func (jacobiSolver) Kind() SolverKind { return Jacobi }

// Params are the soft step's, and the direct joint solve.
func (jacobiSolver) Params() Param { return softParams | ParamDirectJoints }

// Plan is the soft step, with jacobiRestitutionPasses restitution passes.
func (jacobiSolver) Plan(s *Settings, p Plan) Plan {
	return softStepPlan(s, jacobiRestitutionPasses, false, p)
}

// defaults: 16 sub-steps of 2 iterations at 240 Hz. Split masses make each row softer by the number
// of rows on its bodies, so Jacobi needs a higher frequency, hence more sub-steps, for the stack PGS
// holds at 8 x 4 and 120 Hz (measured: 20 boxes compress 1.3 cm with Jacobi at 16 x 2 and 240 Hz, 5.3 cm
// at 8 x 2 and 120 Hz; a 20-row pyramid's worst box moves 0.8 cm in 15 s at 16 x 2).
func (jacobiSolver) defaults(s *Settings) {
	softDefaults{substeps: 16, iterations: 2, hertz: 240}.fill(s)
}

func (jacobiSolver) traits() solverTraits { return solverTraits{split: true} }

// run: a pass computes every contact's and joint's impulse from the same velocities, then gathers them
// per body. Restitution repeats its pass: one Jacobi pass moves each body by its split share only (a
// ball between a contact and a joint gets half the bounce), and each further pass converges towards e
// times the approach speed (measured on Newton's cradle, e = 1: the last ball leaves at 27% of the
// first's speed after one pass, 65% after four, 92% after eight).
func (jacobiSolver) run(w *World, op Op) bool {
	p := &w.pipe
	n := w.Bodies.Len()
	return w.runSoftStep(op, func() {
		p.graph.gather.joints = true
		w.each(loopJacobi, len(p.narrow.manifolds), passGrain)
		w.each(loopJointJacobi, len(w.joints), jointGrain)
		w.each(loopGather, n, bodyGrain)
	}, func() {
		p.graph.gather.joints = false
		w.each(loopRestJacobi, len(p.narrow.manifolds), passGrain)
		w.each(loopGather, n, bodyGrain)
	})
}

func (jacobiSolver) jointForce(w *World, j *joint) float32 { return j.force(w.pipe.plan.ctx.invH) }

// jacobiRestitutionPasses is the number of restitution passes the Jacobi solver makes.
const jacobiRestitutionPasses = 8

// Title names the solver for a menu.
func (jacobiSolver) Title() string { return "jacobi" }

// Schedule says the passes of one step.
func (jacobiSolver) Schedule(s *Settings) string { return softSchedule(s) }
