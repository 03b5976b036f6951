package sim

import "tumble/sim/internal/vecmath"

// penaltySolver is the penalty method of seed 003, a teaching solver: contacts are springs. Every
// touching point that overlaps by depth d (> 0) pushes its bodies apart along the normal with the force
//
//	f_n = max(k d + c d', 0),  d' = -v_n the rate at which the overlap grows,
//
// and rubs with a Coulomb friction force of at most mu f_n against the sliding (no more than stops the
// slide within the sub-step). The forces are integrated explicitly: every point's force is computed
// from the poses and velocities at the start of the sub-step, before gravity is added (so the damper
// does not see this sub-step's fall as a closing speed), and the forces on each body are summed (a
// gather, as Jacobi's).
//
// The spring of each point is Settings.PenaltyStiffness k (N/m) and PenaltyDamping c (N s/m) where a
// scene sets them. Left at 0 (auto) they are scaled to the point, to the pair's effective mass along
// the normal n there (rotation included), with arms r_A and r_B from the bodies' centres:
//
//	m_eff = 1 / (1/m_A + 1/m_B + (r_A x n) . I_A^-1 (r_A x n) + (r_B x n) . I_B^-1 (r_B x n)),
//	k = m_eff omega^2,  c = 2 zeta sqrt(k m_eff)  (= 2 zeta m_eff omega for the auto k),
//
// omega = PenaltyOmega and zeta = PenaltyDampingRatio. A sphere on its one point, or a cube on its
// four corners (each corner's m_eff is m / 4), then rests g / omega^2 deep (0.25 mm) and rings at
// omega, whatever its mass. The stability of the explicit step bounds omega: a body held by points of
// these springs rings at most at sqrt(N) omega, N its points (the trace of M^-1 K is N omega^2), and
// omega h < 2 must hold for every mode, so the auto omega is clamped to PenaltyMaxOmegaH / h.
//
// What it shows: the overlap is how the force is made, so a body at rest sinks in by its weight over
// the stiffness (m g / k, shared by its points), and a dropped body overshoots that depth and rings
// about it like the spring-damper it is (for a box set down at rest on n points of explicit springs,
// the deepest overlap is (1 + exp(-zeta pi / sqrt(1 - zeta^2))) m g / (n k), with zeta = n c / (2
// sqrt(n k m)), twice the rest depth when undamped): the penalty-drop preset shows light and heavy
// boxes doing both on explicit springs. Where it fails: a stiffer spring sinks less but rings faster,
// and explicit integration of a spring of angular frequency omega = sqrt(n k / m) is stable only while
// omega h < 2, so stiff explicit springs on light bodies need tiny sub-steps or the step blows up, and
// soft ones let heavy bodies sink through (the auto springs avoid both by growing with the mass).
// Joints are solved by the PGS joint rows.
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

// PenaltyOmega and PenaltyDampingRatio are the auto springs' angular frequency and damping ratio
// (PenaltyStiffness and PenaltyDamping left at 0): every point's spring rings at 200 rad/s (32 Hz)
// with a damping ratio of 0.3 on the pair's effective mass, so a body rests g / omega^2 = 0.25 mm deep
// on compact supports and overshoots that to 1.37 times; at the default 20 sub-steps (h = 1/1200 s)
// omega h = 0.17. PenaltyMaxOmegaH caps omega h for fewer sub-steps: 0.5 keeps sqrt(N) omega h within
// 2 for a body held by up to N = 16 points.
const (
	PenaltyOmega        = 200 // rad/s
	PenaltyDampingRatio = 0.3
	PenaltyMaxOmegaH    = 0.5
)

// defaults: 20 sub-steps (explicit springs need small steps), one pass, no warm start; the springs
// stay 0, auto.
func (penaltySolver) defaults(s *Settings) {
	if s.Substeps <= 0 {
		s.Substeps = 20
	}
	if s.Iterations <= 0 {
		s.Iterations = 1
	}
	s.NoWarmStart = true
}

// traits: the joints are solved by colour; the springs read the separations and no friction anchor.
func (penaltySolver) traits() solverTraits {
	return solverTraits{colours: true, renamesContacts: true, separationsOnly: true}
}

func (penaltySolver) run(w *World, op Op) bool {
	if op.Stage != StageSolve {
		return false
	}
	p := &w.pipe
	w.refreshRows()
	for k := range p.narrow.manifolds {
		w.penaltyManifold(k)
	}
	p.graph.gather.joints = false
	w.each(loopGather, w.Bodies.Len(), bodyGrain)
	p.loops.mode = op.Mode
	w.eachJointColour(loopJointColour)
	return true
}

func (penaltySolver) jointForce(w *World, j *joint) float32 { return j.force(w.pipe.plan.ctx.invH) }

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
	k, c, h := w.settings.PenaltyStiffness, w.settings.PenaltyDamping, p.plan.ctx.h
	omega := min(float32(PenaltyOmega), PenaltyMaxOmegaH/h)
	n := m.normal
	var cA, cB vec // the touching points' arms and normal impulse, for the resistance
	var normal float32
	touching := 0
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		if cp.sep >= 0 {
			continue
		}
		rA, rB := mulMat(&b.rot[m.a], cp.localA), mulMat(&b.rot[m.b], cp.localB)
		v := s.vB.Add(s.wB.Cross(rB)).Sub(s.vA).Sub(s.wA.Cross(rA))
		vn := v.Dot(n)
		ki, ci := k, c
		if ki == 0 || ci == 0 {
			ki, ci = penaltyAuto(ki, ci, omega, w.normalMass(&s, m.a, m.b, n, rA, rB))
		}
		f := max(ki*(-cp.sep)-ci*vn, 0)
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

// penaltyAuto fills in a point's auto spring, k or c where 0, for a pair of effective mass me along
// the normal at the point: k = me omega^2 and c = 2 zeta sqrt(k me), zeta = PenaltyDampingRatio, so
// the point alone would ring at omega (or at sqrt(k / me) under an explicit k) with that damping ratio.
func penaltyAuto(k, c, omega, me float32) (float32, float32) {
	if k == 0 {
		k = me * omega * omega
	}
	if c == 0 {
		c = 2 * PenaltyDampingRatio * vecmath.Sqrt(k*me)
	}
	return k, c
}

// normalMass is the effective mass of bodies a and b (with pair s's inverse masses) along normal n at
// arms rA and rB: 1 / (1/m_a + 1/m_b + (rA x n) . I_a^-1 (rA x n) + (rB x n) . I_b^-1 (rB x n)).
func (w *World) normalMass(s *bodyPair, a, b int32, n, rA, rB vec) float32 {
	inv := w.Bodies.InvInertiaWorld
	an, bn := rA.Cross(n), rB.Cross(n)
	return effMass(an, bn, mulMat(&inv[a], an), mulMat(&inv[b], bn), s.mA, s.mB, 1, 1)
}

// Title names the solver for a menu.
func (penaltySolver) Title() string { return "penalty" }

// Schedule says the passes of one step.
func (penaltySolver) Schedule(s *Settings) string { return softSchedule(s) }
