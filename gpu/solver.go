package gpu

import (
	"fmt"

	"tumble/sim"
)

// The contact solver, integration and the sub-step loop of the CUDA step (kernels/solver.cu,
// kernels/integrate.cu): sim's Jacobi path, stage for stage, after the narrow phase, and its PGS path,
// whose passes go colour by colour (gs.go).

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
		joint: soft(k.Joint), limit: soft(k.Limit)}
}

// solverStage runs everything of a step after the narrow phase: split counts, prepare with warm
// starting, the soft sub-steps (integrate velocities, warm start, Jacobi passes with bias, integrate
// positions, relax), restitution, world inertia and the blow-up check. It keeps this step's solver
// manifolds as the next step's warm-start source (two buffers, swapped every step).
//
// A Jacobi pass has every manifold and joint record the impulses it applied; tb_solver_gather then adds
// each dynamic body's records in a fixed order, its manifolds by index and then its joints by index (the
// CPU's gatherImpulses), from per-body lists prepare makes each step. No float atomics: the step gives
// the same bits from run to run, as the CPU's does, whatever order the threads run in.
type solverStage struct {
	split      buffer    // uint32 per body: contact points and joints touching it
	imp        buffer    // float4 x 3 per manifold: the impulses its last pass applied (lin, angA, angB)
	start      buffer    // uint32 per body + 1: where each body's manifold list starts in adj
	fill       buffer    // uint32 per body: tb_solver_adj_fill's cursors
	adj        buffer    // int32 x 2 per manifold: each body's manifolds, k << 1 | side, by index
	scan       scanner   // start from the counts
	man        [2]buffer // TbSolverManifold: the one this step writes (cur) and last step's
	kept       [2]buffer // int32: the number of manifolds in man[i] valid for warm starting
	cur        int       // the buffer of man and kept this step writes; 1-cur holds last step's
	bad        buffer    // int32: first blown-up body, or -1
	out        buffer    // TbContactOut, readContacts
	capacity   int       // manifolds man[] holds
	forgetPrev bool
	// The Gauss-Seidel passes (gs.go): the manifolds' and the joints' colours, and the colours each
	// needed this step (two int32, which the step's read-back carries).
	colours, jointColours colouring
	needed                buffer
	// small: this step runs its stages from the first sub-step to its end as one launch (small.go) of
	// program's ops; ops is the step's list of them, kept to spare an allocation a step. smallBlock,
	// when not 0, is that launch's block size instead of smallThreads (to compare on a GPU).
	small      bool
	smallBlock int
	program    smallProgram
	ops        []int32
	// sleepArgs are the small path's launch's arguments of sleeping (solverRun.sleep points at them).
	sleepArgs smallSleep
	// awake, when set and made for the step, lists the bodies it moves: the body kernels run over it.
	awake *awakeList
}

// reserve makes room for the given numbers of bodies and contacts (manifolds). Growing keeps last
// step's manifolds, so warm starting survives a re-run with a larger capacity.
func (s *solverStage) reserve(d device, bodies, contactCapacity int) error {
	bodies, contactCapacity = max(bodies, 1), max(contactCapacity, 1)
	for _, g := range []struct {
		b     *buffer
		bytes int
	}{{&s.split, 4 * bodies}, {&s.start, 4 * (bodies + 1)}, {&s.fill, 4 * bodies},
		{&s.imp, 3 * sizeFloat4 * contactCapacity}, {&s.adj, 8 * contactCapacity}} {
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
	if s.needed.p == 0 {
		if err := grow(d, &s.needed, 8); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
		if err := d.zero(s.needed.p, 8); err != nil {
			return err
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

// rename applies removals' index moves to last step's manifolds, the next step's warm starts, as
// sim's dropBody does to the CPU's, move by move: the removed body's manifolds go, and the moved body's
// are renamed (Last becoming Index) and merged back in by pair, so that the list stays sorted for
// tbFindPrev; a renamed manifold whose other body is not below Index would change its bodies' order
// and goes too. A removal is a rare edit: the list makes one round trip through the host.
func (s *solverStage) rename(d device, moves []sim.Move) error {
	last := 1 - s.cur
	if s.forgetPrev || s.kept[last].p == 0 || len(moves) == 0 {
		return nil
	}
	var kept [1]int32
	if err := downloadSlice(d, kept[:], s.kept[last].p); err != nil {
		return err
	}
	if kept[0] <= 0 {
		return nil
	}
	prev := make([]tbSolverManifold, kept[0])
	if err := downloadSlice(d, prev, s.man[last].p); err != nil {
		return err
	}
	for _, mv := range moves {
		prev = renameManifolds(prev, mv.Index, mv.Last)
	}
	kept[0] = int32(len(prev))
	if err := uploadSlice(d, s.man[last].p, prev); err != nil {
		return err
	}
	return uploadSlice(d, s.kept[last].p, kept[:])
}

// renameManifolds is one move of rename: prev, sorted by (A, B), after the body at last moved into the
// removed body's index i.
func renameManifolds(prev []tbSolverManifold, i, last int32) []tbSolverManifold {
	var moved []tbSolverManifold // the renamed manifolds, in prev's order (by A)
	for _, m := range prev {
		if i != last && m.B == last && m.A < i {
			m.B = i
			moved = append(moved, m)
		}
	}
	out := make([]tbSolverManifold, 0, len(prev))
	next := 0
	// emit appends the renamed manifolds whose pair (A, i) sorts before (a, b).
	emit := func(a, b int32) {
		for ; next < len(moved) && (moved[next].A < a || moved[next].A == a && i <= b); next++ {
			out = append(out, moved[next])
		}
	}
	for _, m := range prev {
		if m.A == i || m.B == i || m.B == last {
			continue // the removed body's, or the moved one's (renamed, or out of order)
		}
		emit(m.A, m.B)
		out = append(out, m)
	}
	emit(last, last)
	return out
}

// rewind undoes the last step's swap of the manifold buffers, for a re-run of that step: the re-run
// warm starts from the same manifolds as the attempt it replaces (the previous step's, which the
// attempt only read), as the CPU's one run of the step does. Forgetting them instead (as the re-run
// once did) started the re-run cold (measured: the stack's bottom box 3.5e-3 m/s off the CPU's after a
// re-run at step 5; TestEmulatedRerunIsExact).
func (s *solverStage) rewind() { s.cur = 1 - s.cur }

// lastManifolds returns the manifolds the last StoreImpulses kept (the next step's warm-start source)
// and the device int32 that counts them.
func (s *solverStage) lastManifolds() (man, kept ptr) {
	last := 1 - s.cur
	return s.man[last].p, s.kept[last].p
}

// blowUp is the device int32 that step leaves: the first non-static body whose state is non-finite or
// faster than MaxLinearSpeed, or -1.
func (s *solverStage) blowUp() ptr { return s.bad.p }

// solverRun is one step's launch context for the solver's stages: the contact list the narrow phase
// left, the manifold buffer this step writes, the launch grids and the first error. Each stage only
// launches kernels.
type solverRun struct {
	d            device
	k            kernelSet
	b            *bodyBuffers
	contactCount ptr // device int32: the narrow phase's contact count
	capM         int32
	capacity     int
	j            jointHooks // nil without joints
	c            *stepConsts
	man          ptr // this step's manifolds
	mg, bg       int // grids over the manifolds and over the bodies
	// posesMoved: the bodies moved since the rows were last refreshed (sim's refreshRows).
	posesMoved bool
	gs         bool // the passes are Gauss-Seidel's (sim's PGS), not Jacobi's
	// small: the stages from the first sub-step on are kept in ops and launched as one (small.go) at
	// the step's end (StoreImpulses), or at any other stage that comes first.
	small bool
	ops   []int32
	// sleep, with sleeping on, is what the small path's launch runs of sleeping (small.go), set before
	// the sleep stage, whose op launches it.
	sleep *smallSleep
	err   error
}

// do runs f unless an earlier launch of the step failed.
func (r *solverRun) do(f func() error) {
	if r.err == nil {
		r.err = f()
	}
}

// hook runs f, a call on the joints, when there are joints and nothing failed.
func (r *solverRun) hook(f func() error) {
	if r.j != nil {
		r.do(f)
	}
}

// prepare is the Prepare stage on the device: split counts, the contact and joint rows, warm started
// from last step's manifolds, and each dynamic body's list of its manifolds for the gathers. It readies
// r for the step's other stages.
func (s *solverStage) prepare(r *solverRun, d device, b *bodyBuffers, contacts, contactCount ptr, contactCapacity int,
	j jointHooks, c *stepConsts) error {
	if err := s.reserve(d, b.n, contactCapacity); err != nil {
		return err
	}
	st := &c.s
	n := b.n
	// Grids of at least one block: CUDA refuses an empty grid, and the kernels return early.
	*r = solverRun{d: d, k: kernelSet{d}, b: b, contactCount: contactCount, capM: int32(contactCapacity),
		capacity: contactCapacity, j: j, c: c, man: s.man[s.cur].p,
		mg: blocks(max(contactCapacity, 1), solverManifoldThreads), bg: blocks(max(n, 1), solverBodyThreads),
		posesMoved: true, gs: st.Solver == sim.PGS, small: s.small, ops: s.ops[:0]}
	prev := 1 - s.cur
	sc := sim.StepConstantsOf(*st)
	if s.forgetPrev {
		if err := d.zero(s.kept[prev].p, 4); err != nil {
			return err
		}
		s.forgetPrev = false
	}
	if err := d.zero(s.split.p, 4*n); err != nil {
		return err
	}
	ks := r.k
	// Gauss-Seidel's rows take whole masses: the split counts stay zero, which prepare reads as one.
	if !r.gs {
		r.do(func() error {
			return ks.solverSplit(r.mg, solverManifoldThreads, solverSplitArgs{Contacts: contacts, Count: contactCount,
				Cap: r.capM, Split: s.split.p})
		})
		r.hook(func() error { return j.count(d, b, s.split.p) })
	}
	r.do(func() error {
		return ks.solverPrepare(r.mg, solverManifoldThreads, solverPrepareArgs{Contacts: contacts, Count: contactCount,
			Cap: r.capM, Man: r.man, Prev: s.man[prev].p, PrevCount: s.kept[prev].p, Pos: b.pos.p, Rot: b.rot.p,
			Vel: b.vel.p, Omega: b.omega.p, InvIW: b.invIW.p, Material: b.material.p, Split: s.split.p,
			SoftBias: sc.Contact.BiasRate, SoftMass: sc.Contact.MassScale, SoftLeak: sc.Contact.ImpulseScale,
			SoftCompliance: sc.Contact.Compliance, StaticBias: sc.Static.BiasRate, StaticMass: sc.Static.MassScale,
			StaticLeak: sc.Static.ImpulseScale, StaticCompliance: sc.Static.Compliance, Warm: flag(!st.NoWarmStart),
			AnchorReach: 2 * st.LinearSlop, NoFriction: flag(st.NoFriction)})
	})
	r.hook(func() error { return j.prepare(d, b, s.split.p, c) })
	r.do(func() error { return s.lists(r) })
	if r.gs {
		r.do(func() error { return d.zero(s.needed.p, 8) })
		r.do(func() error { return s.colourManifolds(r) })
		r.hook(func() error { return j.colour(d, b, &s.jointColours, s.needed.p+4) })
	}
	return r.err
}

// lists makes each dynamic body's list of this step's manifolds, sorted by manifold index: counts, their
// prefix sums, the fill, the sort.
func (s *solverStage) lists(r *solverRun) error {
	d, ks, n := r.d, r.k, r.b.n
	if err := d.zero(s.start.p, 4*(n+1)); err != nil {
		return err
	}
	if err := d.zero(s.fill.p, 4*n); err != nil {
		return err
	}
	if err := ks.solverAdjCount(r.mg, solverManifoldThreads, solverAdjCountArgs{Man: r.man, Count: r.contactCount,
		Cap: r.capM, Pos: r.b.pos.p, Deg: s.start.p}); err != nil {
		return err
	}
	if err := s.scan.run(d, s.start.p, s.start.p, n+1); err != nil {
		return err
	}
	if err := ks.solverAdjFill(r.mg, solverManifoldThreads, solverAdjFillArgs{Man: r.man, Count: r.contactCount,
		Cap: r.capM, Pos: r.b.pos.p, Start: s.start.p, Fill: s.fill.p, Adj: s.adj.p}); err != nil {
		return err
	}
	// Only the gathers read the lists after the sort when the passes are Jacobi's without joints and
	// the step's own kernels (not the small path's): those run over the awake list when there is one,
	// and so does the sort. Gauss-Seidel's colouring, the joints' gather and the small path read every
	// body's.
	var list, listN ptr
	grid := r.bg
	if r.j == nil && !r.gs && !r.small {
		list, listN, grid = s.bodyList(n)
	}
	return ks.solverAdjSort(grid, solverBodyThreads, solverAdjSortArgs{Start: s.start.p, Adj: s.adj.p, N: int32(n),
		List: list, ListN: listN})
}

// run runs one of the solver's stages of the plan (after Prepare) on the device: sim's Jacobi solver,
// stage for stage.
func (s *solverStage) run(r *solverRun, op sim.Op) error {
	d, ks, b, c, st := r.d, r.k, r.b, r.c, &r.c.s
	n := int32(b.n)
	if r.small {
		kept := r.smallOp(op)
		if kept && op.Stage != smallEnd(st.Sleep) {
			return nil // launched with the step's end
		}
		r.do(func() error { return s.flushSmall(r) })
		if kept {
			// The launch ran the step's end: this step's manifolds become the next step's source.
			if r.err != nil {
				return fmt.Errorf("solver: %w", r.err)
			}
			s.cur = 1 - s.cur
			return nil
		}
		if r.err != nil {
			return fmt.Errorf("solver: %w", r.err)
		}
	}
	// refreshRows brings the contact and joint rows to the current poses, once after each move.
	refreshRows := func() {
		if !r.posesMoved {
			return
		}
		r.do(func() error {
			return ks.solverRefresh(r.mg, solverManifoldThreads, solverRefreshArgs{Man: r.man, Count: r.contactCount,
				Cap: r.capM, Pos: b.pos.p, Rot: b.rot.p})
		})
		r.hook(func() error { return r.j.refresh(d, b, c) })
		r.posesMoved = false
	}
	gather := func(joints bool) { r.do(func() error { return s.gather(r.d, b, r.j, joints) }) }
	switch op.Stage {
	case sim.StageIntegrateVelocities:
		r.do(func() error {
			list, listN, grid := s.bodyList(b.n)
			return ks.integrateVelocities(grid, solverBodyThreads, integrateVelocitiesArgs{Rot: b.rot.p, Vel: b.vel.p,
				Omega: b.omega.p, InvI: b.invI.p, Flags: b.flags.p, N: n, H: c.h, GX: st.Gravity[0], GY: st.Gravity[1],
				GZ: st.Gravity[2], List: list, ListN: listN})
		})
	case sim.StageWarmStart:
		refreshRows()
		r.do(func() error {
			return ks.solverWarmStart(r.mg, solverManifoldThreads, solverWarmStartArgs{Man: r.man, Count: r.contactCount,
				Cap: r.capM, Imp: s.imp.p})
		})
		r.hook(func() error { return r.j.warmStart(d, b, c) })
		gather(true)
	case sim.StageIslands:
		// PGS's sub-steps as an island block: the device runs them over all bodies at once, the same bits
		// (sim holds its island order to the colour order).
	case sim.StageSolve, sim.StageRelax:
		refreshRows()
		useBias := op.Stage == sim.StageSolve
		for range op.Passes {
			if r.gs {
				// sim's PGS pass: the joints, then the manifolds, colour by colour.
				r.hook(func() error { return r.j.gsPass(d, b, c, &s.jointColours, useBias) })
				r.do(func() error { return s.gsPass(r, useBias) })
				continue
			}
			r.do(func() error { return s.jacobi(d, b, r.man, r.contactCount, r.capacity, c, useBias) })
			r.hook(func() error { return r.j.solve(d, b, c, useBias) })
			gather(true)
		}
	case sim.StageIntegratePositions:
		r.do(func() error {
			list, listN, grid := s.bodyList(b.n)
			return ks.integratePositions(grid, solverBodyThreads, integratePositionsArgs{Pos: b.pos.p, Rot: b.rot.p,
				Vel: b.vel.p, Omega: b.omega.p, Flags: b.flags.p, N: n, H: c.h, List: list, ListN: listN})
		})
		r.posesMoved = true
	case sim.StageRestitution:
		if r.gs {
			for range op.Passes {
				r.do(func() error { return s.gsRestitute(r) })
			}
			break
		}
		// Jacobi repeats the restitution pass (see sim's Jacobi solver); joints take no part.
		for range op.Passes {
			r.do(func() error {
				return ks.solverRestitute(r.mg, solverManifoldThreads, solverRestituteArgs{Man: r.man,
					Count: r.contactCount, Cap: r.capM, Vel: b.vel.p, Omega: b.omega.p, Imp: s.imp.p,
					Threshold: st.RestitutionThreshold})
			})
			gather(false)
		}
	case sim.StageStoreImpulses:
		list, listN, grid := s.bodyList(b.n)
		r.do(func() error {
			return ks.integrateFinish(grid, solverBodyThreads, integrateFinishArgs{Rot: b.rot.p, InvI: b.invI.p,
				InvIW: b.invIW.p, Flags: b.flags.p, N: n, List: list, ListN: listN})
		})
		// This step's manifolds become the next step's warm-start source.
		r.do(func() error {
			return ks.solverKeep(1, 1, solverKeepArgs{Count: r.contactCount, Cap: r.capM, Kept: s.kept[s.cur].p})
		})
		r.do(func() error { return ks.integrateBlowupReset(1, 1, integrateBlowupResetArgs{Bad: s.bad.p, N: n}) })
		r.do(func() error {
			return ks.integrateBlowupCheck(grid, solverBodyThreads, integrateBlowupCheckArgs{Pos: b.pos.p, Rot: b.rot.p,
				Vel: b.vel.p, Omega: b.omega.p, Flags: b.flags.p, N: n, MaxSpeed: st.MaxLinearSpeed, Bad: s.bad.p,
				List: list, ListN: listN})
		})
		r.do(func() error { return ks.integrateBlowupDone(1, 1, integrateBlowupDoneArgs{Bad: s.bad.p, N: n}) })
		if r.err == nil {
			s.cur = 1 - s.cur
		}
	default:
		return fmt.Errorf("solver: the CUDA backend has no %s stage (it solves with jacobi and pgs)", op.Stage)
	}
	if r.err != nil {
		return fmt.Errorf("solver: %w", r.err)
	}
	return nil
}

// jacobi launches one Jacobi pass of the contact rows of the manifolds at man, each recording the
// impulses it applied.
func (s *solverStage) jacobi(d device, b *bodyBuffers, man, contactCount ptr, contactCapacity int, c *stepConsts,
	useBias bool) error {
	return kernelSet{d}.solverJacobi(blocks(max(contactCapacity, 1), solverManifoldThreads), solverManifoldThreads,
		solverJacobiArgs{Man: man, Count: contactCount, Cap: int32(contactCapacity), Vel: b.vel.p, Omega: b.omega.p,
			Imp: s.imp.p, InvH: c.invH, MaxPush: c.s.MaxPushOut, UseBias: flag(useBias), NoFriction: flag(c.s.NoFriction)})
}

// gather launches the kernel that moves each dynamic body by the impulses its manifolds (and, with
// joints set and j not nil, its joints) recorded, summed in the CPU's order. It runs over the awake
// bodies when they are listed, but where a joint's records are gathered: a joint between two sleeping
// bodies is still solved, and moves them until tb_sleep_still (a sleeping body has no manifold, so
// the manifolds' gather would leave it as it is).
func (s *solverStage) gather(d device, b *bodyBuffers, j jointHooks, joints bool) error {
	grid := blocks(max(b.n, 1), solverBodyThreads)
	a := solverGatherArgs{Pos: b.pos.p, Vel: b.vel.p, Omega: b.omega.p, InvIW: b.invIW.p, Start: s.start.p,
		Adj: s.adj.p, Imp: s.imp.p, N: int32(b.n)}
	// Without joints the joint arrays are never read; they point at the contacts' to stay valid.
	a.Jimp, a.Jstart, a.Jadj = a.Imp, a.Start, a.Adj
	if j != nil && joints {
		if imp, start, adj := j.lists(); imp != 0 {
			a.Jimp, a.Jstart, a.Jadj, a.Joints = imp, start, adj, 1
		}
	}
	if a.Joints == 0 {
		a.List, a.ListN, grid = s.bodyList(b.n)
	}
	return kernelSet{d}.solverGather(grid, solverBodyThreads, a)
}

// bodyList returns the list of awake bodies a body kernel of the step runs over (none: all n) and
// its grid of solverBodyThreads blocks.
func (s *solverStage) bodyList(n int) (list, count ptr, grid int) {
	if s.awake == nil {
		return 0, 0, blocks(max(n, 1), solverBodyThreads)
	}
	return s.awake.args(n, solverBodyThreads)
}

// pass runs one biased Jacobi pass of the contacts over last step's manifolds and gathers it (for
// measuring a pass in isolation: Backend.MeasureFloor).
func (s *solverStage) pass(d device, b *bodyBuffers, contactCount ptr, contactCapacity int, c *stepConsts,
	useBias bool) error {
	if err := s.jacobi(d, b, s.man[1-s.cur].p, contactCount, contactCapacity, c, useBias); err != nil {
		return err
	}
	return s.gather(d, b, nil, false)
}

// contactPoint is p as World.Contacts reports it.
func (p *tbContactOut) contactPoint() sim.ContactPoint {
	return sim.ContactPoint{BodyA: int(p.A), BodyB: int(p.B), Position: sim.Vec3{p.PX, p.PY, p.PZ},
		Normal: sim.Vec3{p.NX, p.NY, p.NZ}, Separation: p.Sep, NormalImpulse: p.NormalImpulse,
		FrictionImpulse: sim.Vec3{p.FX, p.FY, p.FZ}}
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
	if err := (kernelSet{d}).solverExport(blocks(4*k, solverManifoldThreads), solverManifoldThreads,
		solverExportArgs{Man: s.man[last].p, Kept: s.kept[last].p, Pos: b.pos.p, Rot: b.rot.p, Out: s.out.p}); err != nil {
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

// readContactsOf appends the last step's contact points that the body at dense index i takes part in,
// as readContacts lists them, reading back that body's rows alone: its inverse mass (a body with none
// has no manifold list), where its list starts and ends, the list (its manifolds by index: the
// order readContacts gives) and the exported points of those manifolds, each run of consecutive
// manifolds in one copy. Every manifold is exported on the device as for readContacts; only the body's
// cross the bus. ok is false where the body has no list (a static or kinematic body, one that was
// not on the device in the last step) or a row read back names another body: the caller reads every
// point and filters.
func (s *solverStage) readContactsOf(d device, b *bodyBuffers, i int, out []sim.ContactPoint) (points []sim.ContactPoint, ok bool, err error) {
	last := 1 - s.cur
	if s.forgetPrev || s.kept[last].p == 0 {
		return out, true, nil
	}
	if i < 0 || i >= b.n || s.start.bytes < 4*(b.n+1) {
		return out, false, nil
	}
	// The lists were made in the last step from the inverse masses the device still holds: an edit
	// reaches the device at the start of the next step.
	var invMass [1]float32
	if err := downloadSlice(d, invMass[:], b.pos.at(i, sizeFloat4)+12); err != nil {
		return out, false, err
	}
	if invMass[0] == 0 {
		return out, false, nil
	}
	var span [2]uint32
	if err := downloadSlice(d, span[:], s.start.at(i, 4)); err != nil {
		return out, false, err
	}
	if span[1] <= span[0] {
		return out, true, nil
	}
	adj := make([]int32, span[1]-span[0])
	if err := downloadSlice(d, adj, s.adj.at(int(span[0]), 4)); err != nil {
		return out, false, err
	}
	var kept [1]int32
	if err := downloadSlice(d, kept[:], s.kept[last].p); err != nil {
		return out, false, err
	}
	k := int(kept[0])
	if k <= 0 {
		return out, true, nil
	}
	if err := grow(d, &s.out, 4*k*contactOutBytes); err != nil {
		return out, false, fmt.Errorf("solver: %w", err)
	}
	if err := (kernelSet{d}).solverExport(blocks(4*k, solverManifoldThreads), solverManifoldThreads,
		solverExportArgs{Man: s.man[last].p, Kept: s.kept[last].p, Pos: b.pos.p, Rot: b.rot.p, Out: s.out.p}); err != nil {
		return out, false, fmt.Errorf("solver: %w", err)
	}
	n := len(out)
	var pts []tbContactOut
	for lo := 0; lo < len(adj); {
		first := int(adj[lo] >> 1)
		hi := lo + 1
		for hi < len(adj) && int(adj[hi]>>1) == first+hi-lo {
			hi++
		}
		if first < 0 || first+hi-lo > k {
			return out[:n], false, nil
		}
		run := make([]tbContactOut, 4*(hi-lo))
		if err := downloadSlice(d, run, s.out.at(4*first, contactOutBytes)); err != nil {
			return out[:n], false, err
		}
		pts = append(pts, run...)
		lo = hi
	}
	for _, p := range pts {
		if p.A < 0 {
			continue
		}
		if int(p.A) != i && int(p.B) != i {
			return out[:n], false, nil
		}
		out = append(out, sim.ContactPoint{
			BodyA: int(p.A), BodyB: int(p.B), Position: sim.Vec3{p.PX, p.PY, p.PZ},
			Normal: sim.Vec3{p.NX, p.NY, p.NZ}, Separation: p.Sep, NormalImpulse: p.NormalImpulse,
			FrictionImpulse: sim.Vec3{p.FX, p.FY, p.FZ},
		})
	}
	return out, true, nil
}

// release frees the stage's buffers.
func (s *solverStage) release(d device) {
	for _, b := range []*buffer{&s.split, &s.imp, &s.start, &s.fill, &s.adj, &s.man[0], &s.man[1], &s.kept[0],
		&s.kept[1], &s.bad, &s.out, &s.needed} {
		release(d, b)
	}
	s.colours.release(d)
	s.jointColours.release(d)
	s.program.release(d)
	s.scan.release(d)
	*s = solverStage{}
}
