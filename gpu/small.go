package gpu

import (
	"cmp"
	"fmt"
	"slices"

	"tumble/sim"
)

// The small-world path (kernels/small.cu). A small world's step on a GPU is bound by its launches, not
// by its bytes: each costs the device a few microseconds however little it does, and the sub-step loop
// launches a kernel for every phase of every pass (Jacobi's 16 sub-steps of 2+2 passes: about 200 a
// step; PGS one per colour per pass). In a world that fits one block's reach, the step from the first
// sub-step's integration to its end (restitution, world inertia, the kept manifolds, the blow-up
// check) is one launch of tb_small_substeps, one block whose threads
// stride over each phase's bodies, manifolds and joints and meet at a barrier where the per-pass path
// has a kernel boundary. Each phase calls the per-pass kernels' own device functions on the same items,
// so the step's bits are the same (TestEmulatedSmallPathIsThePerPassPath). The broad phase's radix
// sorts of a world of at most smallBodies bodies are one launch each too (smallSortTiles), with or
// without sleeping and joints.
//
// The reach: at most smallBodies bodies and smallJoints joints, which the host knows when it records
// the step. The manifolds are counted on the device; a resting pile has about two a box (pyramid20:
// 400 for its 210 boxes), so a phase over them is a few strides of the block. The
// PGS colours are the budget the per-colour launches would run (gs.go), so a step that needed more
// runs again as it does there.
//
// With sleeping on, the launch runs on to the sleep stage's end: the sleeping bodies' velocities zeroed,
// the joints' held forces, the rest times, the islands (the union-find of sleep.cu, its phases between
// barriers) and the islands that fall asleep, each phase the per-pass kernels' device function on the
// same items, so that the bits are the per-pass path's. The block skips the sleeping bodies by their
// flags where the per-pass path runs over the awake list, which it then does not make. It ends with
// the sleeping islands' kept contacts (Backend.keepSlept's marks, their scan in the block, the points,
// the count). The waking after the narrow phase (Backend.wakeRounds) stays launches of its own.

// smallThreads is tb_small_substeps' block: a world of smallBodies bodies is one stride of it in the
// bodies' phases and a few in the manifolds'. Its 92 registers a thread (ptxas, sm_80; allocated in
// eights, so 96) let a block of up to 512 threads fit an SM's 65,536 (gpu/kernels'
// TestSmallKernelFitsItsBlock).
const smallThreads = 256

// The reach of the small path: bodies and joints (see above).
const (
	smallBodies = 256
	smallJoints = 256
)

// smallSortTiles is the most tiles (radixTile keys each) of a broad-phase sort that a small world sorts
// in one launch (tb_broad_radix_one): its Morton codes are one tile, its pairs (a list of
// max(1024, 8 n) at first) two. The one block runs the tiles of each pass one after another, where the
// multi-block sort launches three kernels a pass (digit counts, their scan, the scatter): the codes'
// 8 passes and the pairs' two sorts of 2 passes each, 36 launches in all, become 3.
const smallSortTiles = 2

// smallStages are the stages tb_small_substeps runs, by their TB_SMALL_* codes; sim's island block
// (StageIslands) runs over all bodies at once on the device and needs none. The ops are kept until the
// step's end (StoreImpulses, or with sleeping on the sleep stage that follows it), or any other stage,
// and launched there.
var smallStages = map[sim.Stage]int32{
	sim.StageIntegrateVelocities: 1,
	sim.StageWarmStart:           2,
	sim.StageSolve:               3,
	sim.StageIntegratePositions:  4,
	sim.StageRelax:               5,
	sim.StageRestitution:         6,
	sim.StageStoreImpulses:       7, // the step's end without sleeping, which launches the kept ops
	sim.StageSleep:               8, // the step's end with sleeping on
}

// smallProgram is the device's copy of the ops tb_small_substeps runs (pairs of a stage code and its
// passes). It is uploaded only when the plan's ops change (a settings change), at the start of the
// step (Backend.Step), so a steady step records no copy.
type smallProgram struct {
	ops  buffer
	sent []int32 // what ops holds
	host []int32 // the upload's staging (hostStaging)
}

// put makes the device's program ops, uploading only when it differs from what was sent.
func (p *smallProgram) put(d device, ops []int32) error {
	if p.ops.p != 0 && slices.Equal(p.sent, ops) {
		return nil
	}
	if err := grow(d, &p.ops, 4*max(len(ops), 1)); err != nil {
		return err
	}
	hostStaging(&p.host, len(ops))
	copy(p.host, ops)
	if err := uploadSlice(d, p.ops.p, p.host); err != nil {
		return err
	}
	p.sent = append(p.sent[:0], ops...)
	return nil
}

// release frees the program's buffer.
func (p *smallProgram) release(d device) {
	release(d, &p.ops)
	*p = smallProgram{}
}

// smallOps appends to ops the program plan gives tb_small_substeps: its ops of smallStages, in order,
// as solverRun.smallOp keeps them.
func smallOps(plan sim.Plan, ops []int32) []int32 {
	for _, op := range plan {
		if code, ok := smallStages[op.Stage]; ok {
			ops = append(ops, code, int32(op.Passes))
		}
	}
	return ops
}

// smallWorld reports whether the step of a world of n bodies and joints joints with settings s takes
// the small path: with sleeping on or off, it is the world's size that decides.
func smallWorld(n, joints int) bool {
	return n <= smallBodies && joints <= smallJoints
}

// smallSleep is what the small path's launch reads and keeps of sleeping, with sleeping on: the
// sleep stage's input and state (its TB_SMALL_SLEEP op) and the joints' held forces (0 without joints),
// which Backend.runPlan launches apart on the per-pass path.
type smallSleep struct {
	in    sleepInput
	stage *sleepStage
	held  ptr
	// slept is the sleeping islands' list the launch appends to, and need the word of the step's
	// read-back that takes the room it needed (keepSlept's).
	slept *sleptStage
	need  ptr
}

// smallEnd is the stage whose op launches the small path's kept ops: the plan's last of smallStages.
func smallEnd(sleep bool) sim.Stage {
	if sleep {
		return sim.StageSleep
	}
	return sim.StageStoreImpulses
}

// smallOp keeps op for the small path's launch when it is one of its stages, tracking whether it moved
// the poses as run does, and reports whether it did.
func (r *solverRun) smallOp(op sim.Op) bool {
	code, ok := smallStages[op.Stage]
	if !ok {
		return op.Stage == sim.StageIslands
	}
	r.ops = append(r.ops, code, int32(op.Passes))
	switch op.Stage {
	case sim.StageWarmStart, sim.StageSolve, sim.StageRelax:
		r.posesMoved = false
	case sim.StageIntegratePositions:
		r.posesMoved = true
	}
	return true
}

// flushSmall launches the ops the small path kept, if any, as one tb_small_substeps.
func (s *solverStage) flushSmall(r *solverRun) error {
	if len(r.ops) == 0 || r.err != nil {
		return r.err
	}
	d, b, c := r.d, r.b, r.c
	if err := s.program.put(d, r.ops); err != nil {
		return err
	}
	a := smallSubstepsArgs{Ops: s.program.ops.p, Nops: int32(len(r.ops) / 2), Pos: b.pos.p, Rot: b.rot.p,
		Vel: b.vel.p, Omega: b.omega.p, InvI: b.invI.p, InvIW: b.invIW.p, Flags: b.flags.p, N: int32(b.n),
		Man: r.man, Count: r.contactCount, Cap: r.capM, Imp: s.imp.p, Start: s.start.p, Adj: s.adj.p,
		Gs: flag(r.gs), H: c.h, InvH: c.invH, GX: c.s.Gravity[0], GY: c.s.Gravity[1], GZ: c.s.Gravity[2], MaxPush: c.s.MaxPushOut,
		NoFriction: flag(c.s.NoFriction), Threshold: c.s.RestitutionThreshold, JointBias: c.joint.biasRate,
		JointMass: c.joint.massScale, JointImpulse: c.joint.impulseScale, LimitBias: c.limit.biasRate,
		LimitMass: c.limit.massScale, LimitImpulse: c.limit.impulseScale, Kept: s.kept[s.cur].p, Bad: s.bad.p,
		MaxSpeed: c.s.MaxLinearSpeed}
	if z := r.sleep; z != nil {
		in := &z.in
		if z.stage.n != b.n {
			return fmt.Errorf("gpu: sleeping: reserved for %d bodies, stepping %d", z.stage.n, b.n)
		}
		a.Held, a.Shape, a.Contacts, a.ContactCount, a.ContactCap = z.held, b.shape.p, in.contacts, in.contactCount,
			int32(in.contactCap)
		a.Jointed, a.NJointed, a.Asleep, a.Rest, a.Parent = in.jointed, int32(in.nJointed), z.stage.asleep.p,
			z.stage.rest.p, z.stage.parent.p
		a.RestMin, a.Label, a.Next, a.Dt, a.SleepSpeed, a.SleepTime = z.stage.restMin.p, z.stage.label.p,
			z.stage.next.p, in.dt, sim.SleepSpeed, in.sleepTime
		if z.slept.mark.bytes < 4*(r.capacity+1) {
			return fmt.Errorf("gpu: sleeping contacts: marks for %d manifolds, stepping %d", z.slept.mark.bytes/4-1,
				r.capacity)
		}
		a.SleptMark, a.Slept, a.SleptLabel, a.SleptN = z.slept.mark.p, z.slept.pts.p, z.slept.labels.p, z.slept.n.p
		a.SleptCap, a.SleptNeed = int32(z.slept.cap), z.need
	}
	// Under Jacobi no colour is run (budgets 0) and the colourings' arrays stay unread, as are the
	// joints' where there are none; the gathers' joint lists point at the contacts' to stay valid, as
	// gather's do.
	if r.gs {
		a.Order, a.ColourStart, a.Budget = s.colours.order.p, s.colours.start.p, int32(s.colours.budget)
	}
	a.Jimp, a.Jstart, a.Jadj = a.Imp, a.Start, a.Adj
	if r.j != nil {
		joints, nj, force := r.j.rows()
		if nj > 0 {
			a.Joints, a.Nj, a.Force = joints, int32(nj), force
			if imp, start, adj := r.j.lists(); imp != 0 {
				a.Jimp, a.Jstart, a.Jadj, a.JointLists = imp, start, adj, 1
			}
			if r.gs {
				g := &s.jointColours
				a.Jorder, a.JcolourStart, a.Jbudget = g.order.p, g.start.p, int32(g.budget)
			}
		}
	}
	s.ops, r.ops = r.ops[:0], r.ops[:0]
	return r.k.smallSubsteps(1, cmp.Or(s.smallBlock, smallThreads), a)
}
