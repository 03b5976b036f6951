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
	cur            int
	bad            buffer // int32: first blown-up body, or -1
	out            buffer // TbContactOut, readContacts
	capacity       int    // manifolds man[] holds
	// timer, when set, is called after the launches of each part of the step with the stage they
	// belong to (prepare, integrate, solve), for benchmarks that wait for the device and read a clock.
	timer      func(stage sim.Stage) error
	forgetPrev bool
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

// step runs the solver part of one step on b, for the contacts the narrow phase left at contacts (the
// device int32 at contactCount says how many; those past contactCapacity are ignored). j may be nil
// (no joints). It only launches kernels.
func (s *solverStage) step(d device, b *bodyBuffers, contacts, contactCount ptr, contactCapacity int, j jointHooks,
	c *stepConsts) error {
	if err := s.reserve(d, b.n, contactCapacity); err != nil {
		return err
	}
	st := &c.s
	n := b.n
	capM := int32(contactCapacity)
	// Grids of at least one block: CUDA refuses an empty grid, and the kernels return early.
	mg, bg := blocks(max(contactCapacity, 1), solverManifoldThreads), blocks(max(n, 1), solverBodyThreads)
	cur, prev := s.cur, 1-s.cur
	man := s.man[cur].p
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
	var err error
	launch := func(kernel string, grid, block int, args ...any) {
		if err == nil {
			err = d.launch(kernel, grid, block, args...)
		}
	}
	hook := func(f func() error) {
		if err == nil && j != nil {
			err = f()
		}
	}
	acc := accum{lin: s.accLin.p, ang: s.accAng.p}
	lap := func(stage sim.Stage) {
		if s.timer != nil && err == nil {
			err = s.timer(stage)
		}
	}
	apply := func() {
		if err == nil {
			err = s.apply(d, b)
		}
	}
	refresh := func() { launch("tb_solver_refresh", mg, solverManifoldThreads, man, contactCount, capM, b.pos, b.rot) }
	pass := func(useBias bool) {
		if err == nil {
			err = s.jacobi(d, b, man, contactCount, contactCapacity, c, useBias)
		}
		hook(func() error { return j.solve(d, b, acc, c, useBias) })
		apply()
	}

	launch("tb_solver_split", mg, solverManifoldThreads, contacts, contactCount, capM, s.split)
	hook(func() error { return j.count(d, b, s.split.p) })
	launch("tb_solver_prepare", mg, solverManifoldThreads, contacts, contactCount, capM, man, s.man[prev],
		s.kept[prev], b.pos, b.rot, b.vel, b.omega, b.invIW, b.material, s.split,
		k.Contact.BiasRate, k.Contact.MassScale, k.Contact.ImpulseScale, k.Contact.Compliance,
		k.Static.BiasRate, k.Static.MassScale, k.Static.ImpulseScale, k.Static.Compliance,
		flag(!st.NoWarmStart), 2*st.LinearSlop, flag(st.NoFriction))
	hook(func() error { return j.prepare(d, b, s.split.p, c) })
	lap(sim.StagePrepare)
	for sub := 0; sub < st.Substeps; sub++ {
		launch("tb_integrate_velocities", bg, solverBodyThreads, b.rot, b.vel, b.omega, b.invI, b.flags, int32(n),
			c.h, st.Gravity[0], st.Gravity[1], st.Gravity[2])
		lap(sim.StageIntegrate)
		hook(func() error { return j.refresh(d, b, c) })
		if !st.NoWarmStart {
			launch("tb_solver_warm_start", mg, solverManifoldThreads, man, contactCount, capM, b.pos, acc.lin, acc.ang)
			hook(func() error { return j.warmStart(d, b, acc, c) })
			apply()
		}
		refresh()
		for it := 0; it < st.Iterations; it++ {
			pass(true)
		}
		lap(sim.StageSolve)
		launch("tb_integrate_positions", bg, solverBodyThreads, b.pos, b.rot, b.vel, b.omega, b.flags, int32(n), c.h)
		lap(sim.StageIntegrate)
		if !st.NoRelax {
			refresh()
			hook(func() error { return j.refresh(d, b, c) })
			for it := 0; it < st.RelaxIterations; it++ {
				pass(false)
			}
		}
	}
	if !st.NoRestitution {
		// Jacobi repeats the restitution pass (see sim's restitutionPass); joints take no part.
		for it := 0; it < sim.JacobiRestitutionPasses; it++ {
			launch("tb_solver_restitute", mg, solverManifoldThreads, man, contactCount, capM, b.pos, b.vel, b.omega,
				acc.lin, acc.ang, st.RestitutionThreshold)
			apply()
		}
	}
	lap(sim.StageSolve)
	launch("tb_integrate_finish", bg, solverBodyThreads, b.rot, b.invI, b.invIW, b.flags, int32(n))
	// This step's manifolds become the next step's warm-start source.
	launch("tb_solver_keep", 1, 1, contactCount, capM, s.kept[cur])
	launch("tb_integrate_blowup_reset", 1, 1, s.bad, int32(n))
	launch("tb_integrate_blowup_check", bg, solverBodyThreads, b.pos, b.rot, b.vel, b.omega, b.flags, int32(n),
		st.MaxLinearSpeed, s.bad)
	launch("tb_integrate_blowup_done", 1, 1, s.bad, int32(n))
	lap(sim.StageIntegrate)
	if err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	s.cur = prev
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
