package sim

import (
	"fmt"
	"math"
)

// rigidSolver is projected Gauss-Seidel with rigid rows, the formulation of Jolt and Box2D v2.4
// (sequential impulses with position correction): per sub-step (four by default) the velocities are
// integrated, last step's impulses applied, and Iterations passes solve every contact and joint row
// for zero relative velocity, with no position feedback (an open contact may close its gap and no
// more, so nothing tunnels): PGS's unbiased pass, the one its relax stage runs. The bodies then move, and rigidPositionPasses position passes push out
// what overlap and joint drift remain by moving the bodies, not by changing their velocities, so the
// correction adds no energy (nothing springs out of a pile) and the contacts are as stiff as the
// passes converge, with no spring to sag.
//
// A position pass is a pass of the same rows over pseudo-velocities that start at zero, biased by
// rigidBaumgarte times the position error over the sub-step (contact overlap beyond Settings.LinearSlop,
// a joint's drift, its limits and a servo's error near its target (axisPart.servoImpulse); speed
// motors and friction take no part); the pseudo-velocities are then
// integrated into the poses over one sub-step and the rows' errors measured again, so each pass
// starts from the poses the last one left (non-linear Gauss-Seidel). The velocity passes and a
// position pass visit the rows by graph colour like PGS, so both run in parallel within a colour.
//
// Against the soft step (PGS): a soft contact's stiffness is capped by the sub-step rate, so the soft
// step needs sub-steps to hold a stack and passes to hold a pyramid's friction (6 x (4 + 2) passes);
// this step makes 12 passes, but it holds less: a 20-row pyramid drifts 1.2 cm in 30 s (PGS 0.34), a 20-box column falls over, and a 100 kg box
// crushes the 1 kg box it rests on, as they do in Jolt, whose formulation this is. It is a choice
// of speed over stability, not the default.
type rigidSolver struct{}

// Kind is Rigid.
func (rigidSolver) Kind() SolverKind { return Rigid }

// Params: sub-steps, velocity passes (iterations), warm starting, friction and restitution.
func (rigidSolver) Params() Param {
	return ParamSubsteps | ParamIterations | ParamWarmStart | ParamFriction |
		ParamRestitution | ParamRestitutionThreshold | ParamContactCache
}

// Plan: the collision stages, then per sub-step integrate velocities, warm start, the velocity
// passes, restitution (last sub-step), integrate positions and the position passes; then storing the
// impulses.
func (rigidSolver) Plan(s *Settings, p Plan) Plan {
	p = collisionPlan(p)
	for i := range s.Substeps {
		p = append(p, Op{StageIntegrateVelocities, 1, Unbiased})
		if !s.NoWarmStart {
			p = append(p, Op{StageWarmStart, 1, Unbiased})
		}
		p = append(p, Op{StageSolve, s.Iterations, Unbiased})
		if !s.NoRestitution && i == s.Substeps-1 {
			p = append(p, Op{StageRestitution, 1, Unbiased})
		}
		p = append(p, Op{StageIntegratePositions, 1, Unbiased})
		p = append(p, Op{StageProject, rigidPositionPasses, Pseudo})
	}
	return endPlan(s, p)
}

// defaults: 4 sub-steps of 2 velocity passes and one position pass, 12 passes a step like Jolt's 10
// velocity and 2 position iterations. Measured over 30 s (largest drift of any box; the stability
// tests' scenes; sub-steps x velocity passes, one position pass each):
//
//	1 x 10 (Jolt's schedule): 20-box stack falls, 20-row pyramid falls
//	4 x 2: stack falls, pyramid 1.21 cm     4 x 3: stack 8.98 cm, pyramid 0.82 cm
//	4 x 4: stack 14.4 cm, pyramid 0.55 cm   8 x 1: stack 3.90 cm, pyramid 0.74 cm
//
// Jolt itself (jolt-runner, same scene files) lets the stack fall and the pyramid drift 3.7 cm. The
// stack's drift once it stands is its sinking into the slop (20 contacts); a smaller slop for the
// position pass made every scene jitter.
func (rigidSolver) defaults(s *Settings) {
	if s.Substeps <= 0 {
		s.Substeps = 4
	}
	if s.Iterations <= 0 {
		s.Iterations = 2
	}
}

func (rigidSolver) traits() solverTraits { return solverTraits{colours: true, renamesContacts: true} }

func (rigidSolver) run(w *World, op Op) bool {
	p := &w.pipe
	switch op.Stage {
	case StageWarmStart:
		w.warmStart()
	case StageSolve:
		w.refreshRows()
		p.loops.mode = op.Mode // unbiased: rigid rows, open points closing their gap and no more
		w.passes(op, func() {
			w.eachJointColour(loopJointColour)
			w.eachColour(loopColour)
		})
	case StageRestitution:
		w.restitutionColours()
	case StageProject:
		w.positionPasses(op)
	default:
		return false
	}
	return true
}

func (rigidSolver) jointForce(w *World, j *joint) float32 { return j.force(w.pipe.plan.ctx.invH) }

// rigidBaumgarte is the share of a position error one position pass removes (Jolt's and Box2D
// v2.4's 0.2): more overshoots where several rows push one body.
const rigidBaumgarte = 0.2

// rigidPositionPasses is the number of position passes per sub-step.
const rigidPositionPasses = 1

// rigidAngularSlop is how far, rad, the position passes let a joint pass an angular limit (a hinge's
// angle, a ball joint's swing cone and twist) before they push it back: the limits' counterpart of the
// contacts' LinearSlop (5 mm), the angle that turns a limb of 0.3 m (a forearm) by it, 1 degree
// (Box2D v2.4 has such a slop, b2_angularSlop, of 2 degrees). Without it a limb pressed into its
// stop by the pile it lies in is pushed back to the exact limit each sub-step while the contacts
// that press it keep their slop: the two push against each other and the limb twitches above the
// sleep speed every few steps (a forearm at its elbow's straight stop rose 0.7 mm a step for five
// steps and dropped 3 mm), so the ragdoll pile, one island, never slept. With it every pile of 8 to
// 20 ragdolls sleeps within 21 s.
const rigidAngularSlop = math.Pi / 180

// rigidMaxCorrection caps the overlap one position pass removes at a point, m (Box2D v2.4's 0.2),
// so a deep overlap is pushed out over several steps.
const rigidMaxCorrection = 0.2

// positionPasses runs the rigid solver's position passes: each one solves the rows over
// pseudo-velocities from zero (the bodies' velocity arrays are swapped for them, so the rows' code is
// the velocity passes'), then moves the bodies by them over one sub-step. The rows' accumulated
// impulses, which the next step's warm start and the joints' break forces read, are put back after.
func (w *World) positionPasses(op Op) {
	p := &w.pipe
	b := &w.Bodies
	n := b.Len()
	p.rigid.pseudoV = resize(p.rigid.pseudoV, n)
	p.rigid.pseudoW = resize(p.rigid.pseudoW, n)
	p.rigid.jointKeep = resize(p.rigid.jointKeep, len(w.joints))
	for k := range w.joints {
		p.rigid.jointKeep[k].save(&w.joints[k])
	}
	vel, ang, soft, limitSoft := b.Velocity, b.AngularVelocity, p.joints.jointSoft, p.joints.limitSoft
	b.Velocity, b.AngularVelocity = p.rigid.pseudoV, p.rigid.pseudoW
	p.joints.jointSoft = softness{biasRate: rigidBaumgarte * p.plan.ctx.invH, massScale: 1}
	p.joints.limitSoft = p.joints.jointSoft
	p.loops.mode = op.Mode
	for range op.Passes {
		w.refreshRows()
		for k := range w.joints {
			slopLimits(&w.joints[k])
		}
		clear(p.rigid.pseudoV)
		clear(p.rigid.pseudoW)
		w.resetJointImpulses()
		w.eachJointColour(loopJointColour)
		w.eachColour(loopColour)
		w.each(loopIntPos, n, bodyGrain)
		p.plan.posesMoved = true
	}
	p.loops.mode = Unbiased
	b.Velocity, b.AngularVelocity, p.joints.jointSoft, p.joints.limitSoft = vel, ang, soft, limitSoft
	for k := range w.joints {
		p.rigid.jointKeep[k].restore(&w.joints[k])
	}
}

// slopLimits takes rigidAngularSlop off the position errors of joint j's angular limit rows, as
// refreshed for a position pass: a violation c < 0 becomes min(c + slop, 0), so the pass pushes back
// only what passes the slop (an open limit, c > 0, is left as it is).
func slopLimits(j *joint) {
	slop := func(r *axisPart) {
		if r.c < 0 {
			r.c = min(r.c+rigidAngularSlop, 0)
		}
	}
	switch def := &j.def; def.Type {
	case Hinge:
		if def.HasLimits {
			slop(&j.angle.lower)
			slop(&j.angle.upper)
		}
	case Ball:
		if def.Swing > 0 {
			slop(&j.swing)
		}
		if def.HasTwist {
			slop(&j.twist.lower)
			slop(&j.twist.upper)
		}
	}
}

// pushManifold is a position pass over a manifold's normal rows (the pseudo-velocities are in the
// bodies' velocity arrays): each point overlapping by more than the slop gets the pseudo-velocity that
// removes rigidBaumgarte of the excess over one sub-step, with the accumulated push kept >= 0.
func (w *World) pushManifold(m *manifold) {
	p := &w.pipe
	b := &w.Bodies
	ia, ib := m.a, m.b
	mA, mB := b.InvMass[ia], b.InvMass[ib]
	vA, wA := ldv(&b.Velocity[ia]), ldv(&b.AngularVelocity[ia])
	vB, wB := ldv(&b.Velocity[ib]), ldv(&b.AngularVelocity[ib])
	n := m.normal
	slop, invH := w.settings.LinearSlop, p.plan.ctx.invH
	var acc [4]float32
	for i := range m.pts[:m.count] {
		cp := &m.pts[i]
		c := max(rigidBaumgarte*(cp.sep+slop), -rigidMaxCorrection)
		if c > 0 {
			c = 0
		}
		vn := n.Dot(vB.Sub(vA)) + cp.nB.Dot(wB) - cp.nA.Dot(wA)
		imp := -cp.normalMass * (vn + c*invH)
		a := acc[i] + imp
		if !(a > 0) {
			a = 0
		}
		imp = a - acc[i]
		acc[i] = a
		vA = vA.Sub(n.Scale(imp * mA))
		wA = wA.Sub(cp.inA.Scale(imp))
		vB = vB.Add(n.Scale(imp * mB))
		wB = wB.Add(cp.inB.Scale(imp))
	}
	b.storeVelocities(ia, ib, mA, mB, vA, wA, vB, wB)
}

// jointImpulses are a joint's accumulated impulses, kept across the position passes.
type jointImpulses struct {
	point, rot, fric                                   vec
	hinge                                              [2]float32
	perp0, perp1, swing, motor, lower, upper, tw0, tw1 float32
}

func (k *jointImpulses) save(j *joint) {
	*k = jointImpulses{j.point.impulse, j.rot.impulse, j.fric.impulse, j.hinge.impulse, j.perp[0].impulse, j.perp[1].impulse,
		j.swing.impulse, j.angle.motor.impulse, j.angle.lower.impulse, j.angle.upper.impulse,
		j.twist.lower.impulse, j.twist.upper.impulse}
}

func (k *jointImpulses) restore(j *joint) {
	j.point.impulse, j.rot.impulse, j.fric.impulse, j.hinge.impulse = k.point, k.rot, k.fric, k.hinge
	j.perp[0].impulse, j.perp[1].impulse, j.swing.impulse = k.perp0, k.perp1, k.swing
	j.angle.motor.impulse, j.angle.lower.impulse, j.angle.upper.impulse = k.motor, k.lower, k.upper
	j.twist.lower.impulse, j.twist.upper.impulse = k.tw0, k.tw1
}

// rigidStage is the rigid solver's position passes: the bodies' pseudo-velocities and the joints' impulses kept across them.
type rigidStage struct {
	pseudoV, pseudoW []Vec3
	jointKeep        []jointImpulses
}

// Title names the solver for a menu.
func (rigidSolver) Title() string { return "rigid (Jolt's formulation)" }

// Schedule says the passes of one step.
func (rigidSolver) Schedule(s *Settings) string {
	return fmt.Sprintf("%d substeps x (%d velocity passes + %d position pass)", s.Substeps, s.Iterations, rigidPositionPasses)
}
