package sim

// shapeMatchSolver is seed 003's shape matching (Müller, Heidelberger, Teschner and Gross 2005,
// "Meshless deformations based on shape matching") on top of PGS: the contacts and joints are PGS's soft
// step, and in each sub-step, after gravity, the shape-match stage finds for every cluster
// (World.AddCluster) the rotation R that best maps its rest shape onto where its members are now (the
// rotation part of Apq = sum m p q^T, p and q the members' offsets from their centres of mass now and at
// rest) and pulls each member towards its goal g = c + R q by the paper's explicit step v += alpha (g -
// x) / h, and its orientation towards R times its rest orientation (cluster.go). The contacts then see
// the pulled velocities, so a cluster lands, squashes, bounces and recovers its shape.
//
// What it does well: a cluster of small boxes behaves like one piece of jelly, wobbling and recovering
// its rest shape after a drop, at the cost of one 3x3 fit per cluster per sub-step; the pull is an
// internal force (momentum and angular momentum are kept, so a free cluster drifts and spins as one).
// Where it fails: the pull is a spring of angular frequency sqrt(alpha)/dt, so stiffness is relative to
// the time step (stiffness 1 is rigid-like at 1/60 s but sags and swings at large dt), an undamped
// cluster rings for ever (the explicit step adds no dissipation; Damping removes it), and a soft one sags
// under its own weight and loses volume: the goal is a rotation of the rest shape, and nothing but the
// spring holds the members apart (see the jelly preset, docs/SCENES.md).
type shapeMatchSolver struct{}

// Kind is ShapeMatch.
func (shapeMatchSolver) Kind() SolverKind { return ShapeMatch }

// Params are PGS's soft-step settings.
func (shapeMatchSolver) Params() Param { return softParams | ParamContactCache }

// Plan is PGS's soft step with the shape-match stage after each sub-step's integrate velocities.
func (shapeMatchSolver) Plan(s *Settings, p Plan) Plan {
	for _, op := range softStepPlan(s, 1, false, nil) {
		p = append(p, op)
		if op.Stage == StageIntegrateVelocities {
			p = append(p, Op{StageShapeMatch, 1, Unbiased})
		}
	}
	return p
}

// defaults are PGS's.
func (shapeMatchSolver) defaults(s *Settings) { pgsSolver{}.defaults(s) }

func (shapeMatchSolver) traits() solverTraits {
	return solverTraits{colours: true, wideContacts: true, renamesContacts: true}
}

// run runs the shape-match stage, and PGS's stages.
func (shapeMatchSolver) run(w *World, op Op) bool {
	if op.Stage == StageShapeMatch {
		w.matchClusters(w.pipe.plan.ctx.h, w.settings.Substeps)
		return true
	}
	return pgsSolver{}.run(w, op)
}

func (shapeMatchSolver) jointForce(w *World, j *joint) float32 { return j.force(w.pipe.plan.ctx.invH) }

// Title names the solver for a menu.
func (shapeMatchSolver) Title() string { return "shapematch" }

// Schedule says the passes of one step.
func (shapeMatchSolver) Schedule(s *Settings) string { return softSchedule(s) }
