package sim

import "tumble/sim/internal/vecmath"

// penaltySolver is the penalty method of seed 003, a teaching solver: contacts are springs. Every
// touching point that overlaps by depth d (> 0) pushes its bodies apart along the normal with the force
//
//	f_n = max(k d + c d', 0),  d' = -v_n the rate at which the overlap grows,
//
// k = Settings.PenaltyStiffness and c = Settings.PenaltyDamping per point, and rubs with a Coulomb
// friction force of at most mu f_n against the sliding (no more than stops the slide within the
// sub-step). The forces are integrated explicitly: every point's force is computed from the poses and
// velocities at the start of the sub-step, before gravity is added (so the damper does not see this
// sub-step's fall as a closing speed), and the forces on each body are summed (a gather, as Jacobi's).
//
// What it shows: the overlap is how the force is made, so a body at rest sinks in by its weight over
// the stiffness (m g / k, shared by its points), and a dropped body overshoots that depth and rings
// about it like the spring-damper it is (for a box set down at rest on n points, the deepest overlap is
// (1 + exp(-zeta pi / sqrt(1 - zeta^2))) m g / (n k), with zeta = n c / (2 sqrt(n k m)), twice the rest
// depth when undamped): the penalty-drop preset shows light and heavy boxes doing both. Where it
// fails: a stiffer spring sinks less but rings faster, and explicit integration of a spring of angular
// frequency omega = sqrt(n k / m) is stable only while omega h < 2, so stiff contacts on light bodies
// need tiny sub-steps or the step blows up, and soft ones let heavy bodies sink through. Joints are
// solved by the PGS joint rows.
type penaltySolver struct{}

// Kind is Penalty.
func (penaltySolver) Kind() SolverKind { return Penalty }

// Params: sub-steps, friction, and the springs' stiffness and damping.
func (penaltySolver) Params() Param {
	return ParamSubsteps | ParamFriction | ParamPenaltyStiffness | ParamPenaltyDamping | ParamContactCache
}

// Plan: the collision stages, then Substeps times the contact forces (and a pass of the joints' rows),
// integrate velocities (gravity), integrate positions; then storing the step's state.
func (penaltySolver) Plan(s *Settings, p Plan) Plan {
	p = collisionPlan(p)
	for range s.Substeps {
		p = append(p, Op{StageSolve, 1, Biased}, Op{StageIntegrateVelocities, 1, Unbiased}, Op{StageIntegratePositions, 1, Unbiased})
	}
	return endPlan(s, p)
}

// DefaultPenaltyStiffness and DefaultPenaltyDamping are the springs' defaults (per contact point): a
// 1 kg box on 4 points rests 0.25 mm deep and rings at omega = 200 rad/s with a damping ratio of 0.2
// (it overshoots to 1.53 times its rest depth); at the default 20 sub-steps (h = 1/1200 s) omega h =
// 0.17. A 100 kg box sinks 2.5 cm and is ten times less damped.
const (
	DefaultPenaltyStiffness = 1e4 // N/m
	DefaultPenaltyDamping   = 20  // N s/m
)

// defaults: 20 sub-steps (explicit springs need small steps), one pass, no warm start.
func (penaltySolver) defaults(s *Settings) {
	if s.Substeps <= 0 {
		s.Substeps = 20
	}
	if s.Iterations <= 0 {
		s.Iterations = 1
	}
	if s.PenaltyStiffness == 0 {
		s.PenaltyStiffness = DefaultPenaltyStiffness
	}
	if s.PenaltyDamping == 0 {
		s.PenaltyDamping = DefaultPenaltyDamping
	}
	s.NoWarmStart = true
}

func (penaltySolver) traits() solverTraits { return solverTraits{colours: true, renamesContacts: true} } // the joints are solved by colour

func (penaltySolver) run(w *World, op Op) bool {
	if op.Stage != StageSolve {
		return false
	}
	p := &w.pipe
	w.refreshRows()
	for k := range p.narrow.manifolds {
		w.penaltyManifold(k)
	}
	p.joints.gatherJoints = false
	w.each(loopGather, w.Bodies.Len(), bodyGrain)
	p.loops.mode = op.Mode
	w.eachJointColour(loopJointColour)
	return true
}

func (penaltySolver) jointForce(w *World, j *joint) float32 { return j.force(w.pipe.consts.invH) }

// penaltyManifold records, for gatherImpulses, the impulses over one sub-step of the spring and friction
// forces of a manifold's overlapping points, all from the velocities at the sub-step's start.
func (w *World) penaltyManifold(km int) {
	b := &w.Bodies
	p := &w.pipe
	m := &p.narrow.manifolds[km]
	sum := &p.narrow.sums[km]
	s := w.loadPair(m)
	*sum = impulseSum{}
	if s.mA == 0 && s.mB == 0 {
		return
	}
	k, c, h := w.settings.PenaltyStiffness, w.settings.PenaltyDamping, p.consts.h
	n := m.normal
	var cA, cB vec // the touching points' arms and normal impulse, for the resistance
	var normal float32
	touching := 0
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		if cp.sep >= 0 {
			continue
		}
		rA, rB := mulMat(&p.bounds.rot[m.a], cp.localA), mulMat(&p.bounds.rot[m.b], cp.localB)
		v := s.vB.Add(s.wB.Cross(rB)).Sub(s.vA).Sub(s.wA.Cross(rA))
		vn := v.Dot(n)
		f := max(k*(-cp.sep)-c*vn, 0)
		J := n.Scale(f * h)
		if !w.settings.NoFriction {
			vt := v.Sub(n.Scale(vn))
			if l := vecmath.Sqrt(vt.Dot(vt)); l > 1e-9 {
				t := vt.Scale(1 / l)
				// The impulse that stops the slide within the sub-step, capped at mu f_n h.
				ft := min(m.friction*f*h, l*effMass(rA.Cross(t), rB.Cross(t), mulMat(&b.InvInertiaWorld[m.a], rA.Cross(t)),
					mulMat(&b.InvInertiaWorld[m.b], rB.Cross(t)), s.mA, s.mB, 1, 1))
				J = J.Sub(t.Scale(ft))
			}
		}
		sum.lin, sum.angA, sum.angB = sum.lin.Add(J), sum.angA.Add(rA.Cross(J)), sum.angB.Add(rB.Cross(J))
		cp.normalImpulse = f * h // for inspection (Contacts)
		if m.resist.on() {
			cA, cB, normal = cA.Add(rA), cB.Add(rB), normal+f*h
			touching++
		}
	}
	if touching > 0 {
		inv := 1 / float32(touching)
		l := w.resistRecord(m, s.wA, s.wB, cA.Scale(inv), cB.Scale(inv), &b.InvInertiaWorld[m.a],
			&b.InvInertiaWorld[m.b], normal)
		sum.angA, sum.angB = sum.angA.Add(l), sum.angB.Add(l)
	}
}

// Title names the solver for a menu.
func (penaltySolver) Title() string { return "penalty" }

// Schedule says the passes of one step.
func (penaltySolver) Schedule(s *Settings) string { return softSchedule(s) }
