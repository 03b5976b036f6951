package gpu

import (
	"fmt"

	"tumble/sim"
)

// The contact solver, integration and the sub-step loop of the CUDA step (kernels/solver.cu,
// kernels/integrate.cu): sim's Jacobi path, stage for stage, after the narrow phase.

// Launch geometry.
const (
	solverManifoldThreads = 64
	solverBodyThreads     = 128
)

// makeConsts derives the step's constants from resolved settings s (World.Resolved), through the same
// function the CPU step uses.
func makeConsts(s sim.Settings) stepConsts {
	k := sim.StepConstantsOf(s)
	soft := func(x sim.Softness) softness { return softness{x.BiasRate, x.MassScale, x.ImpulseScale} }
	return stepConsts{s: s, h: k.H, invH: k.InvH, contactSoft: soft(k.Contact), staticSoft: soft(k.Static),
		joint: soft(k.Joint)}
}

// solverStage runs everything of a step after the narrow phase: split counts, prepare with warm
// starting, the soft sub-steps (integrate velocities, warm start, Jacobi passes with bias, integrate
// positions, relax), restitution, world inertia and the blow-up check. It keeps this step's solver
// manifolds as the next step's warm-start source (two buffers, swapped every step).
type solverStage struct {
	split          buffer    // uint32 per body: contact points and joints touching it
	accLin, accAng buffer    // float4 per body: the Jacobi accumulators (accum)
	man            [2]buffer // TbSolverManifold: the one this step writes (cur) and last step's
	kept           [2]buffer // int32: the number of manifolds in man[i] valid for warm starting
	cur            int       // the buffer of man and kept this step writes; 1-cur holds last step's
	bad            buffer    // int32: first blown-up body, or -1
	out            buffer    // TbContactOut, readContacts
	capacity       int       // manifolds man[] holds
	forgetPrev     bool
}

// reserve makes room for the given numbers of bodies and contacts (manifolds). Growing keeps last
// step's manifolds, so warm starting survives a re-run with a larger capacity.
func (s *solverStage) reserve(d device, bodies, contactCapacity int) error {
	bodies, contactCapacity = max(bodies, 1), max(contactCapacity, 1)
	for _, g := range []struct {
		b     *buffer
		bytes int
	}{{&s.split, 4 * bodies}, {&s.accLin, 16 * bodies}, {&s.accAng, 16 * bodies}} {
		if err := grow(d, g.b, g.bytes); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
	}
	for i := range s.kept {
		if s.kept[i].p == 0 {
			if err := grow(d, &s.kept[i], 4); err != nil {
				return fmt.Errorf("solver: %w", err)
			}
			if err := d.zero(s.kept[i].p, 4); err != nil {
				return err
			}
		}
	}
	if s.bad.p == 0 {
		if err := grow(d, &s.bad, 4); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
	}
	if contactCapacity <= s.capacity && s.man[0].p != 0 {
		return nil
	}
	prev := 1 - s.cur
	if err := grow(d, &s.man[s.cur], solverManifoldBytes*contactCapacity); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	// Last step's manifolds move to a larger buffer with their contents.
	old := s.man[prev]
	if old.bytes < solverManifoldBytes*contactCapacity {
		var nb buffer
		if err := grow(d, &nb, solverManifoldBytes*contactCapacity); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
		if old.p != 0 {
			if err := d.copy(nb.p, old.p, old.bytes); err != nil {
				return err
			}
			release(d, &s.man[prev])
		}
		s.man[prev] = nb
	}
	s.capacity = min(s.man[0].bytes, s.man[1].bytes) / solverManifoldBytes
	return nil
}

// forget drops the warm-start cache (bodies were removed or reordered, so last step's body indices
// name other bodies).
func (s *solverStage) forget() { s.forgetPrev = true }

// rewind undoes the last step's swap of the manifold buffers, for a re-run of that step: the re-run
// warm starts from the same manifolds as the attempt it replaces (the previous step's, which the
// attempt only read), as the CPU's one run of the step does. Forgetting them instead (as the re-run
// once did) started the re-run cold (measured: the stack's bottom box 3.5e-3 m/s off the CPU's after a
// re-run at step 5; TestEmulatedRerunIsExact).
func (s *solverStage) rewind() { s.cur = 1 - s.cur }

// blowUp is the device int32 that step leaves: the first non-static body whose state is non-finite or
// faster than MaxLinearSpeed, or -1.
func (s *solverStage) blowUp() ptr { return s.bad.p }

// solverRun is one step's launch context for the solver's stages: the contact list the narrow phase
// left, the manifold buffer this step writes, the launch grids and the first error. Each stage only
// launches kernels.
type solverRun struct {
	d            device
	b            *bodyBuffers
	contactCount ptr // device int32: the narrow phase's contact count
	capM         int32
	capacity     int
	j            jointHooks // nil without joints
	c            *stepConsts
	man          ptr // this step's manifolds
	mg, bg       int // grids over the manifolds and over the bodies
	acc          accum
	// posesMoved: the bodies moved since the rows were last refreshed (sim's refreshRows).
	posesMoved bool
	err        error
}

func (r *solverRun) launch(kernel string, grid, block int, args ...any) {
	if r.err == nil {
		r.err = r.d.launch(kernel, grid, block, args...)
	}
}

func (r *solverRun) hook(f func() error) {
	if r.err == nil && r.j != nil {
		r.err = f()
	}
}

// prepare is the Prepare stage on the device: split counts and the contact and joint rows, warm
// started from last step's manifolds. It readies r for the step's other stages.
func (s *solverStage) prepare(r *solverRun, d device, b *bodyBuffers, contacts, contactCount ptr, contactCapacity int,
	j jointHooks, c *stepConsts) error {
	if err := s.reserve(d, b.n, contactCapacity); err != nil {
		return err
	}
	st := &c.s
	n := b.n
	// Grids of at least one block: CUDA refuses an empty grid, and the kernels return early.
	*r = solverRun{d: d, b: b, contactCount: contactCount, capM: int32(contactCapacity), capacity: contactCapacity,
		j: j, c: c, man: s.man[s.cur].p, mg: blocks(max(contactCapacity, 1), solverManifoldThreads),
		bg: blocks(max(n, 1), solverBodyThreads), acc: accum{lin: s.accLin.p, ang: s.accAng.p}, posesMoved: true}
	prev := 1 - s.cur
	k := sim.StepConstantsOf(*st)
	if s.forgetPrev {
		if err := d.zero(s.kept[prev].p, 4); err != nil {
			return err
		}
		s.forgetPrev = false
	}
	for _, z := range []struct {
		p     ptr
		bytes int
	}{{s.split.p, 4 * n}, {s.accLin.p, 16 * n}, {s.accAng.p, 16 * n}} {
		if err := d.zero(z.p, z.bytes); err != nil {
			return err
		}
	}
	r.launch("tb_solver_split", r.mg, solverManifoldThreads, contacts, contactCount, r.capM, s.split)
	r.hook(func() error { return j.count(d, b, s.split.p) })
	r.launch("tb_solver_prepare", r.mg, solverManifoldThreads, contacts, contactCount, r.capM, r.man, s.man[prev],
		s.kept[prev], b.pos, b.rot, b.vel, b.omega, b.invIW, b.material, s.split,
		k.Contact.BiasRate, k.Contact.MassScale, k.Contact.ImpulseScale, k.Contact.Compliance,
		k.Static.BiasRate, k.Static.MassScale, k.Static.ImpulseScale, k.Static.Compliance,
		flag(!st.NoWarmStart), 2*st.LinearSlop, flag(st.NoFriction))
	r.hook(func() error { return j.prepare(d, b, s.split.p, c) })
	return r.err
}

// run runs one of the solver's stages of the plan (after Prepare) on the device: sim's Jacobi solver,
// stage for stage.
func (s *solverStage) run(r *solverRun, op sim.Op) error {
	d, b, c, st := r.d, r.b, r.c, &r.c.s
	n := int32(b.n)
	apply := func() {
		if r.err == nil {
			r.err = s.apply(d, b)
		}
	}
	// refreshRows brings the contact and joint rows to the current poses, once after each move.
	refreshRows := func() {
		if !r.posesMoved {
			return
		}
		r.launch("tb_solver_refresh", r.mg, solverManifoldThreads, r.man, r.contactCount, r.capM, b.pos, b.rot)
		r.hook(func() error { return r.j.refresh(d, b, c) })
		r.posesMoved = false
	}
	switch op.Stage {
	case sim.StageIntegrateVelocities:
		r.launch("tb_integrate_velocities", r.bg, solverBodyThreads, b.rot, b.vel, b.omega, b.invI, b.flags, n,
			c.h, st.Gravity[0], st.Gravity[1], st.Gravity[2])
	case sim.StageWarmStart:
		refreshRows()
		r.launch("tb_solver_warm_start", r.mg, solverManifoldThreads, r.man, r.contactCount, r.capM, b.pos, r.acc.lin,
			r.acc.ang)
		r.hook(func() error { return r.j.warmStart(d, b, r.acc, c) })
		apply()
	case sim.StageSolve, sim.StageRelax:
		refreshRows()
		useBias := op.Stage == sim.StageSolve
		for range op.Passes {
			if r.err == nil {
				r.err = s.jacobi(d, b, r.man, r.contactCount, r.capacity, c, useBias)
			}
			r.hook(func() error { return r.j.solve(d, b, r.acc, c, useBias) })
			apply()
		}
	case sim.StageIntegratePositions:
		r.launch("tb_integrate_positions", r.bg, solverBodyThreads, b.pos, b.rot, b.vel, b.omega, b.flags, n, c.h)
		r.posesMoved = true
	case sim.StageRestitution:
		// Jacobi repeats the restitution pass (see sim's Jacobi solver); joints take no part.
		for range op.Passes {
			r.launch("tb_solver_restitute", r.mg, solverManifoldThreads, r.man, r.contactCount, r.capM, b.pos, b.vel,
				b.omega, r.acc.lin, r.acc.ang, st.RestitutionThreshold)
			apply()
		}
	case sim.StageStoreImpulses:
		r.launch("tb_integrate_finish", r.bg, solverBodyThreads, b.rot, b.invI, b.invIW, b.flags, n)
		// This step's manifolds become the next step's warm-start source.
		r.launch("tb_solver_keep", 1, 1, r.contactCount, r.capM, s.kept[s.cur])
		r.launch("tb_integrate_blowup_reset", 1, 1, s.bad, n)
		r.launch("tb_integrate_blowup_check", r.bg, solverBodyThreads, b.pos, b.rot, b.vel, b.omega, b.flags, n,
			st.MaxLinearSpeed, s.bad)
		r.launch("tb_integrate_blowup_done", 1, 1, s.bad, n)
		if r.err == nil {
			s.cur = 1 - s.cur
		}
	default:
		return fmt.Errorf("solver: the CUDA backend has no %s stage (it solves with jacobi)", op.Stage)
	}
	if r.err != nil {
		return fmt.Errorf("solver: %w", r.err)
	}
	return nil
}

// jacobi launches one Jacobi pass of the contact rows of the manifolds at man into the accumulators.
func (s *solverStage) jacobi(d device, b *bodyBuffers, man, contactCount ptr, contactCapacity int, c *stepConsts,
	useBias bool) error {
	return d.launch("tb_solver_jacobi", blocks(max(contactCapacity, 1), solverManifoldThreads), solverManifoldThreads,
		man, contactCount, int32(contactCapacity), b.pos, b.vel, b.omega, s.accLin.p, s.accAng.p, c.invH,
		c.s.MaxPushOut, flag(useBias), flag(c.s.NoFriction))
}

// apply launches the kernel that applies the accumulated impulses to the bodies and clears them.
func (s *solverStage) apply(d device, b *bodyBuffers) error {
	return d.launch("tb_solver_apply", blocks(max(b.n, 1), solverBodyThreads), solverBodyThreads, b.pos, b.vel,
		b.omega, b.invIW, s.accLin.p, s.accAng.p, int32(b.n))
}

// pass runs one biased Jacobi pass of the contacts over last step's manifolds and applies it (for
// measuring a pass in isolation: Backend.MeasureFloor).
func (s *solverStage) pass(d device, b *bodyBuffers, contactCount ptr, contactCapacity int, c *stepConsts,
	useBias bool) error {
	if err := s.jacobi(d, b, s.man[1-s.cur].p, contactCount, contactCapacity, c, useBias); err != nil {
		return err
	}
	return s.apply(d, b)
}

// flag is a kernel's int flag.
func flag(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// readContacts appends the last step's contact points to out, as World.Contacts reports them (for the
// panel; it reads back, so it is not part of a step).
func (s *solverStage) readContacts(d device, b *bodyBuffers, out []sim.ContactPoint) ([]sim.ContactPoint, error) {
	last := 1 - s.cur
	if s.forgetPrev || s.kept[last].p == 0 {
		return out, nil
	}
	var kept [1]int32
	if err := downloadSlice(d, kept[:], s.kept[last].p); err != nil {
		return out, err
	}
	k := int(kept[0])
	if k <= 0 {
		return out, nil
	}
	if err := grow(d, &s.out, 4*k*contactOutBytes); err != nil {
		return out, fmt.Errorf("solver: %w", err)
	}
	if err := d.launch("tb_solver_export", blocks(4*k, solverManifoldThreads), solverManifoldThreads,
		s.man[last], s.kept[last], b.pos, b.rot, s.out); err != nil {
		return out, fmt.Errorf("solver: %w", err)
	}
	pts := make([]tbContactOut, 4*k)
	if err := downloadSlice(d, pts, s.out.p); err != nil {
		return out, err
	}
	for _, p := range pts {
		if p.A < 0 {
			continue
		}
		out = append(out, sim.ContactPoint{
			BodyA: int(p.A), BodyB: int(p.B), Position: sim.Vec3{p.PX, p.PY, p.PZ},
			Normal: sim.Vec3{p.NX, p.NY, p.NZ}, Separation: p.Sep, NormalImpulse: p.NormalImpulse,
			FrictionImpulse: sim.Vec3{p.FX, p.FY, p.FZ},
		})
	}
	return out, nil
}

// release frees the stage's buffers.
func (s *solverStage) release(d device) {
	for _, b := range []*buffer{&s.split, &s.accLin, &s.accAng, &s.man[0], &s.man[1], &s.kept[0], &s.kept[1],
		&s.bad, &s.out} {
		release(d, b)
	}
	*s = solverStage{}
}
