package sim

import "tumble/sim/internal/vecmath"

// impulseSolver is seed 003's impulse-based collision response, a teaching solver. Each contact point
// is handled on its own, in turn (sequential impulses): if its bodies approach there (v_n < 0), it is
// given the velocity the seed asks for,
//
//	v_new = -e v_n n + a v_t,  a = max(1 - mu (1 + e) |v_n| / |v_t|, 0),
//
// by the impulse j = K^-1 (v_new - v) with K = (1/mA + 1/mB) 1 - [rA]x IA^-1 [rA]x - [rB]x IB^-1 [rB]x,
// the 3x3 matrix that maps an impulse at the point to the change of the point's relative velocity. The
// restitution decays to nothing for slow approaches: e is the pair's coefficient when the approach is
// faster than Settings.RestitutionThreshold and 0 below it, so a bouncing ball's hops die out and a
// resting contact stays still instead of jittering (the seed's fix). Iterations sweeps over all points
// let a point's impulse reach the points it disturbs. Overlap is removed by moving the bodies apart
// along the normal (the project stage: direct projection, linear only, shared by inverse mass), which
// adds no velocity, so nothing springs out of a pile.
//
// Where it fails, and why the other solvers exist: it keeps no impulse from one step to the next (no
// warm start) and clamps each point's impulse on its own, so a contact under a tall stack has to be
// rebuilt from zero every sub-step by a handful of sweeps, and the seed's friction is proportional to
// the normal velocity change, so a resting contact barely rubs: the sweeps' sideways residue
// accumulates. A stack of three boxes stands (its top moves 1 cm in 5 s), one of five creeps (8 cm),
// one of ten walks apart and topples within seconds; the impulse-stack preset shows them beside a
// bouncing ball, which the scheme gets right. Joints are solved by the PGS joint rows.
type impulseSolver struct{}

// Kind is Impulse.
func (impulseSolver) Kind() SolverKind { return Impulse }

// Params: sub-steps, sweeps, friction and restitution with its threshold.
func (impulseSolver) Params() Param {
	return ParamSubsteps | ParamIterations | ParamFriction | ParamRestitution | ParamRestitutionThreshold |
		ParamContactCache
}

// Plan: the collision stages, then Substeps times integrate velocities, Iterations sweeps of impulses,
// integrate positions and the projection of overlap; then storing the step's state.
func (impulseSolver) Plan(s *Settings, p Plan) Plan {
	p = collisionPlan(p)
	for range s.Substeps {
		p = append(p, Op{StageIntegrateVelocities, 1, Unbiased}, Op{StageSolve, s.Iterations, Biased},
			Op{StageIntegratePositions, 1, Unbiased}, Op{StageProject, impulseProjectPasses, Unbiased})
	}
	return endPlan(s, p)
}

// defaults: 2 sub-steps of 10 sweeps, no warm start (the scheme has none).
func (impulseSolver) defaults(s *Settings) {
	if s.Substeps <= 0 {
		s.Substeps = 2
	}
	if s.Iterations <= 0 {
		s.Iterations = 10
	}
	s.NoWarmStart = true
}

func (impulseSolver) traits() solverTraits { return solverTraits{colours: true, renamesContacts: true} } // the joints are solved by colour

func (impulseSolver) run(w *World, op Op) bool {
	switch op.Stage {
	case StageSolve:
		w.refreshRows()
		w.pipe.loops.mode = op.Mode
		st := &w.pipe.impulse
		st.begin(len(w.pipe.narrow.manifolds))
		w.passes(op, func() {
			w.eachJointColour(loopJointColour)
			for k := range w.pipe.narrow.manifolds {
				w.impulseManifold(&w.pipe.narrow.manifolds[k], st.pts[impulsePointsPer*k:impulsePointsPer*(k+1)], st.epoch)
			}
		})
	case StageProject:
		for range op.Passes {
			w.refreshRows()
			for k := range w.pipe.narrow.manifolds {
				w.projectManifold(&w.pipe.narrow.manifolds[k])
			}
			w.pipe.plan.posesMoved = true
		}
	default:
		return false
	}
	return true
}

func (impulseSolver) jointForce(w *World, j *joint) float32 { return j.force(w.pipe.plan.ctx.invH) }

// impulseProjectPasses is the number of projection passes per sub-step; impulseProjectFraction is the
// share of the overlap beyond the slop each pass removes (all of it overshoots in a pile, where one
// body is pushed by several contacts).
const (
	impulseProjectPasses   = 2
	impulseProjectFraction = 0.5
)

// impulseStage keeps, over the sweeps of one solve op, what a touching point's impulse needs that
// only the poses set: its arms r_A, r_B and K^-1. The sweeps of a sub-step change velocities alone
// (the joints' rows included); the poses, the world inertias and the points' separations move only
// between ops. So the values a point computes at its first sweep hold for the op's other sweeps, and
// K, six matrix products and an inverse, is built once per point and sub-step instead of once per
// sweep, with the same operations (the same bits).
type impulseStage struct {
	pts   []impulsePoint // impulsePointsPer a manifold, in the order of the narrow stage's manifolds
	epoch uint32         // the current solve op's number; a point's values stamped otherwise are stale
}

// impulsePointsPer is the room a manifold's points take in impulseStage.pts (manifold.pts's length).
const impulsePointsPer = len(manifold{}.pts)

// impulsePoint is one contact point's cached arms and K^-1, each stamped with the op that computed it.
type impulsePoint struct {
	rA, rB vec
	kinv   Mat3
	arms   uint32 // the epoch whose rA and rB these are
	k      uint32 // the epoch whose kinv this is
}

// begin opens a solve op over n manifolds: every point's cached values become stale.
func (s *impulseStage) begin(n int) {
	if s.epoch++; s.epoch == 0 { // wrapped: no stamp may match by age
		clear(s.pts[:cap(s.pts)])
		s.epoch = 1
	}
	if need := impulsePointsPer * n; cap(s.pts) < need {
		s.pts = make([]impulsePoint, need)
	} else {
		s.pts = s.pts[:need]
	}
}

// impulseK returns K^-1 for a point of arms rA and rB between bodies of inverse masses mA, mB and
// world inverse inertias iA, iB: K = (mA + mB) 1 - [rA]x IA [rA]x - [rB]x IB [rB]x, column by
// column K u = (mA + mB) u + (IA (rA x u)) x rA + (IB (rB x u)) x rB.
func impulseK(iA, iB *Mat3, rA, rB vec, mA, mB float32) Mat3 {
	var k Mat3
	for col, u := range [3]vec{{X: 1, Y: 0, Z: 0}, {X: 0, Y: 1, Z: 0}, {X: 0, Y: 0, Z: 1}} {
		kc := u.Scale(mA + mB).
			Add(mulMat(iA, rA.Cross(u)).Cross(rA)).
			Add(mulMat(iB, rB.Cross(u)).Cross(rB))
		k[3*col], k[3*col+1], k[3*col+2] = kc.X, kc.Y, kc.Z
	}
	return invert(k)
}

// impulseManifold gives each approaching point of a manifold the seed's post-impulse velocity. cache
// holds the manifold's points' arms and K^-1 for the solve op numbered epoch (impulseStage).
func (w *World) impulseManifold(m *manifold, cache []impulsePoint, epoch uint32) {
	b := &w.Bodies
	p := &w.pipe
	s := w.loadPair(m)
	if s.mA == 0 && s.mB == 0 {
		return
	}
	iA, iB := &b.InvInertiaWorld[m.a], &b.InvInertiaWorld[m.b]
	n := m.normal
	friction := !w.settings.NoFriction
	var cA, cB vec // the arms and normal impulse of the points that took one, for the resistance
	var normal float32
	hit := 0
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		if cp.sep > w.settings.LinearSlop {
			continue // not touching yet (a speculative point)
		}
		c := &cache[i]
		if c.arms != epoch {
			c.rA, c.rB, c.arms = mulMat(&b.rot[m.a], cp.localA), mulMat(&b.rot[m.b], cp.localB), epoch
		}
		rA, rB := c.rA, c.rB
		v := s.vB.Add(s.wB.Cross(rB)).Sub(s.vA).Sub(s.wA.Cross(rA))
		vn := v.Dot(n)
		if vn >= 0 {
			continue
		}
		e := float32(0)
		if !w.settings.NoRestitution && -vn > p.plan.ctx.restThreshold {
			e = m.restitution
		}
		vt := v.Sub(n.Scale(vn))
		target := n.Scale(-e * vn)
		if friction {
			a := float32(0)
			if l := vecmath.Sqrt(vt.Dot(vt)); l > 1e-9 {
				a = max(1-m.friction*(1+e)*(-vn)/l, 0)
			}
			target = target.Add(vt.Scale(a))
		} else {
			target = target.Add(vt)
		}
		if c.k != epoch {
			c.kinv, c.k = impulseK(iA, iB, rA, rB, s.mA, s.mB), epoch
		}
		j := mulMat(&c.kinv, target.Sub(v))
		if s.mA != 0 {
			s.vA = s.vA.Sub(j.Scale(s.mA))
			s.wA = s.wA.Sub(mulMat(iA, rA.Cross(j)))
		}
		if s.mB != 0 {
			s.vB = s.vB.Add(j.Scale(s.mB))
			s.wB = s.wB.Add(mulMat(iB, rB.Cross(j)))
		}
		cp.normalImpulse = max(j.Dot(n), 0) // for inspection (Contacts)
		if m.resist.on() {
			cA, cB, normal = cA.Add(rA), cB.Add(rB), normal+cp.normalImpulse
			hit++
		}
	}
	if hit > 0 {
		inv := 1 / float32(hit)
		l := w.resistRecord(m, s.wA, s.wB, cA.Scale(inv), cB.Scale(inv), iA, iB, normal)
		if s.mA != 0 {
			s.wA = s.wA.Sub(mulMat(iA, l))
		}
		if s.mB != 0 {
			s.wB = s.wB.Add(mulMat(iB, l))
		}
	}
	w.store(m, &s)
}

// projectManifold moves a manifold's bodies apart along its normal by impulseProjectFraction of its
// deepest point's overlap beyond the slop, shared by inverse mass (the seed's direct projection).
func (w *World) projectManifold(m *manifold) {
	b := &w.Bodies
	mA, mB := b.InvMass[m.a], b.InvMass[m.b]
	if mA+mB == 0 {
		return
	}
	deepest := float32(0)
	for i := 0; i < int(m.count); i++ {
		deepest = min(deepest, m.pts[i].sep)
	}
	d := -deepest - w.settings.LinearSlop
	if d <= 0 {
		return
	}
	push := m.normal.Scale(impulseProjectFraction * d / (mA + mB))
	if mA != 0 {
		stv(&b.Position[m.a], ldv(&b.Position[m.a]).Sub(push.Scale(mA)))
	}
	if mB != 0 {
		stv(&b.Position[m.b], ldv(&b.Position[m.b]).Add(push.Scale(mB)))
	}
	for i := 0; i < int(m.count); i++ {
		m.pts[i].sep += impulseProjectFraction * d // this manifold's points; refreshRows redoes them all
	}
}

// Title names the solver for a menu.
func (impulseSolver) Title() string { return "impulse" }

// Schedule says the passes of one step.
func (impulseSolver) Schedule(s *Settings) string { return softSchedule(s) }
