package sim

import "math"

// Convergence: how much each of the solver's passes still changed the bodies, pass by pass over one
// step, for a plot of residual against pass. A pass of an iterative solver applies the change of its
// rows' impulses, dlambda, to the bodies: body i's velocity moves by dv_i = M_i^-1 sum J_i^T dlambda.
// The residual of a pass is the mass-weighted norm of that change,
//
//	r = sqrt( sum_i (m_i |dv_i|^2 + dw_i . I_i dw_i) / sum_i m_i )   (m/s),
//
// over the awake dynamic bodies: twice the kinetic energy of the correction, per kilogram, as a speed.
// Gauss-Seidel passes (PGS) shrink it towards zero as they converge; Jacobi's fall more slowly and may
// level off; a step whose rows are all satisfied makes it zero. XPBD's position passes move poses
// instead, so its residual is the same norm of each pass's position and rotation correction (m). The
// penalty solver evaluates its springs once per sub-step: it makes no passes, and reports none.
//
// Tracing is off unless asked for (TraceConvergence): a pass then costs one test of a flag. On, the
// passes run over the whole world in order (never island by island, which gives the same bits), and
// each pass reads every body's velocity once.

// PassResidual is one traced pass: the stage it belongs to (solve, relax), its sub-step (from 0), its
// number within that stage's passes (from 0), and its residual.
type PassResidual struct {
	Stage    Stage
	Substep  int
	Pass     int
	Residual float32
}

// Convergence is the last traced step's passes, in the order they ran. Unit is "m/s" for velocity
// passes and "m" for position passes. None says why a solver reports no passes ("" when it does).
type Convergence struct {
	Step   int // the step the passes belong to (World.StepCount after it)
	Unit   string
	Passes []PassResidual
	None   string
}

// convergence is the tracer's state (World.conv).
type convergence struct {
	on      bool
	inStep  bool   // passes were traced since the step began
	prevV   []Vec3 // each body's velocity (XPBD: correction) before the pass being measured
	prevW   []Vec3 // its angular velocity (XPBD: rotation correction)
	substep [NumStages]int
	cur     Convergence // being filled by the step under way
	last    Convergence // the last finished step's
}

// TraceConvergence turns the per-pass residual trace on or off; off, it costs nothing.
func (w *World) TraceConvergence(on bool) {
	w.conv.on = on
	if !on {
		w.conv = convergence{}
	}
}

// ConvergenceTraced reports whether TraceConvergence is on.
func (w *World) ConvergenceTraced() bool { return w.conv.on }

// LastConvergence copies the last traced step's passes into c (reusing its slice) and reports whether
// there is one.
func (w *World) LastConvergence(c *Convergence) bool {
	l := &w.conv.last
	if !w.conv.on || l.Step == 0 {
		return false
	}
	c.Step, c.Unit, c.None = l.Step, l.Unit, l.None
	c.Passes = append(c.Passes[:0], l.Passes...)
	return true
}

// passes runs op's passes, one call of pass each, and with the trace on measures each one's residual
// from the bodies' velocities (solver_*.go call it in their pass loops).
func (w *World) passes(op Op, pass func()) { w.tracedPasses(op, false, pass) }

// posePasses is passes for position passes (XPBD's): the residual is the passes' pose corrections.
func (w *World) posePasses(op Op, pass func()) { w.tracedPasses(op, true, pass) }

// tracedPasses runs op's passes; with the trace on it measures each pass's residual, from the
// velocities or (pos) from the pose corrections.
func (w *World) tracedPasses(op Op, pos bool, pass func()) {
	if !w.conv.on {
		for range op.Passes {
			pass()
		}
		return
	}
	c := &w.conv
	if !c.inStep {
		c.inStep, c.substep = true, [NumStages]int{}
		c.cur.Passes = c.cur.Passes[:0]
		c.cur.Unit, c.cur.None = "m/s", ""
	}
	if pos {
		c.cur.Unit = "m"
	}
	w.traceRead(w.traceInputs(pos), false)
	for k := range op.Passes {
		pass()
		r := w.traceRead(w.traceInputs(pos), true)
		c.cur.Passes = append(c.cur.Passes, PassResidual{Stage: op.Stage, Substep: c.substep[op.Stage], Pass: k, Residual: r})
	}
	c.substep[op.Stage]++
}

// endTrace closes the step's trace (Step, after its last stage).
func (w *World) endTrace() {
	c := &w.conv
	if !c.on {
		return
	}
	c.cur.Step = w.StepCount
	switch {
	case w.backend != nil:
		c.cur.Passes = c.cur.Passes[:0]
		c.cur.None = "the " + w.backend.Capabilities().Name + " backend reports no per-pass residual"
	case !c.inStep:
		c.cur.Passes = c.cur.Passes[:0]
		c.cur.None = "the " + w.pipe.plan.solver.Title() + " solver makes no passes: its forces are evaluated once per sub-step"
	}
	c.inStep = false
	c.last.Step, c.last.Unit, c.last.None = c.cur.Step, c.cur.Unit, c.cur.None
	c.last.Passes = append(c.last.Passes[:0], c.cur.Passes...)
}

// traceSource is where traceRead finds the bodies' velocities: XPBD's pose corrections (pos), the
// wide stage's velocity rows (vel, while they hold the velocities), or else the bodies'.
type traceSource struct {
	pos           bool
	corrX, corrTh []vec
	vel           []stateRow
}

// traceRead reads every body's velocity (src.pos: its position and rotation correction) into the
// tracer; with diff it returns the norm of the change since the last read (see Convergence).
func (w *World) traceRead(src traceSource, diff bool) float32 {
	c := &w.conv
	b := &w.Bodies
	n := b.Len()
	c.prevV, c.prevW = resize(c.prevV, n), resize(c.prevW, n)
	var sum, mass float64
	for i := range n {
		if b.InvMass[i] == 0 || (len(b.Asleep) > i && b.Asleep[i]) {
			continue
		}
		var v, a Vec3
		switch {
		case src.pos:
			v, a = src.corrX[i].Vec3(), src.corrTh[i].Vec3()
		case src.vel != nil:
			r := &src.vel[i]
			v, a = Vec3{r[0], r[1], r[2]}, Vec3{r[3], r[4], r[5]}
		default:
			v, a = b.Velocity[i], b.AngularVelocity[i]
		}
		if diff {
			dv, da := v.Sub(c.prevV[i]), a.Sub(c.prevW[i])
			m := float64(b.Mass[i])
			e := m * float64(dv.Dot(dv))
			// dw . I dw in the body's frame, where I is diagonal: sum_k dw_k^2 / invI_k.
			l := b.Rotation[i].Conjugate().Rotate(da)
			for k, inv := range b.InvInertiaLocal[i] {
				if inv > 0 {
					e += float64(l[k]*l[k]) / float64(inv)
				}
			}
			sum += e
			mass += m
		}
		c.prevV[i], c.prevW[i] = v, a
	}
	if !diff || mass == 0 {
		return 0
	}
	return float32(math.Sqrt(sum / mass))
}
