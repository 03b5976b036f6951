package gpu

import (
	"fmt"
	"unsafe"

	"tumble/sim"
)

// jointThreads is the block size of the joint kernels (one thread per joint).
const jointThreads = 64

// Joint flags, as joints.cu's TB_JOINT_*.
const (
	jointLimits = 1 << iota // hinge, piston: limits on the coordinate
	jointMotor              // hinge, piston: a motor on the coordinate
	jointTwist              // ball: twist limits
	jointServo              // hinge, piston: the motor drives the coordinate to its target (sim.MotorPosition)
)

// v3 converts a sim vector to its device layout.
func v3(v sim.Vec3) float3 { return float3{v[0], v[1], v[2]} }

// jointStage solves the joints' rows on the device for the Jacobi sub-step loop (jointHooks). The
// joints are few, so upload sends all of them whenever they change; each step the loop calls count,
// prepare, then per sub-step refresh, warmStart and solve, as sim/step.go does.
type jointStage struct {
	joints buffer // tbJoint
	spare  buffer // tbJoint: the previous array while upload carries impulses over
	from   buffer // int32 per joint: upload's map to the previous array
	force  buffer // float32 per joint: its force in the step's last solve pass
	// held is, with sleeping on, each joint's force at the end of the last step its island was awake
	// (tb_joint_hold: sim's joint.held), carried over uploads as the impulses are.
	held buffer
	// imp is each joint's record of the impulses its last pass applied (three float4: lin, angA,
	// angB), which tb_solver_gather adds to its bodies; start and adj list each body's joints (dense
	// rows, k << 1 | side, by joint index: sim's jointAdjacency), made on the host at upload.
	imp, start, adj buffer
	n               int
	ids             []uint64       // sim.JointFrame.ID of the joints on the device, in order: what upload matches
	defs            []sim.JointDef // their definitions, to tell which rows an in-place edit made stale
	host            []tbJoint      // upload's staging, kept to avoid allocating on every edit
	fromH           []int32
	startH          []int32 // upload's staging of start and adj
	adjH            []int32
	stale           []ptr // upload's list of impulses to zero after the carry-over
}

// upload replaces the device joints with w's (called when Edits.Joints, and after body removals,
// which move dense indices). A joint already on the device keeps its accumulated impulses, as the
// CPU's joints do across edits: w's joints are the previous ones in order, less those removed, plus
// new ones, so each is matched by its ID with the next previous joint at or after the previous match.
// A joint edited in place (sim.World.UpdateJoint) then drops the impulses of the rows the edit made
// stale (sim.ChangedRows), as on the CPU.
func (j *jointStage) upload(d device, w *sim.World) error {
	n := w.NumJoints()
	oldHeld, err := j.heldForces(d)
	if err != nil {
		return err
	}
	j.host = j.host[:0]
	j.fromH = j.fromH[:0]
	j.stale = j.stale[:0]
	size := int(unsafe.Sizeof(tbJoint{}))
	next, kept := 0, false
	newIDs := make([]uint64, 0, n)
	newDefs := make([]sim.JointDef, 0, n)
	for i := 0; i < n; i++ {
		f := w.JointFrame(i)
		def := &f.Def
		if f.A < 0 || f.A >= w.Bodies.Len() || f.B >= w.Bodies.Len() {
			return fmt.Errorf("gpu: joint %d: body index (%d, %d) out of range", i, f.A, f.B)
		}
		from := int32(-1)
		for o := next; o < len(j.ids); o++ {
			if j.ids[o] == f.ID {
				from, next, kept = int32(o), o+1, true
				for _, off := range staleImpulses(sim.ChangedRows(j.defs[o], *def)) {
					j.stale = append(j.stale, ptr(i*size)+off)
				}
				break
			}
		}
		j.fromH = append(j.fromH, from)
		newIDs = append(newIDs, f.ID)
		newDefs = append(newDefs, *def)
		var flags uint32
		if def.HasLimits {
			flags |= jointLimits
		}
		// A hinge's or piston's friction is its motor of speed 0 (sim.JointDef's Friction); a ball
		// joint's is its friction part.
		motor, ballFriction := def.Motor, float32(0)
		switch {
		case def.HasMotor:
			flags |= jointMotor
		case def.Friction > 0 && (def.Type == sim.Hinge || def.Type == sim.Piston):
			flags |= jointMotor
			motor = sim.Motor{MaxForce: def.Friction}
		case def.Type == sim.Ball:
			ballFriction = def.Friction
		}
		if def.HasTwist {
			flags |= jointTwist
		}
		if def.HasMotor && def.Motor.Mode == sim.MotorPosition {
			flags |= jointServo
		}
		j.host = append(j.host, tbJoint{
			Type: int32(def.Type), A: int32(f.A), B: int32(f.B), Flags: flags,
			LocalA: v3(f.LocalA), LocalB: v3(f.LocalB), AxisA: v3(f.AxisA), AxisB: v3(f.AxisB),
			PerpA: v3(f.PerpA), PerpB: v3(f.PerpB),
			Rel0: [4]float32{f.Rel0.V[0], f.Rel0.V[1], f.Rel0.V[2], f.Rel0.W},
			Lo:   def.Limits[0], Hi: def.Limits[1],
			MotorSpeed: motor.Speed, MotorMaxForce: motor.MaxForce, MotorTarget: motor.Target,
			Swing: def.Swing, TwistLo: def.Twist[0], TwistHi: def.Twist[1], Friction: ballFriction,
		})
	}
	j.ids, j.defs = newIDs, newDefs
	j.n = n
	if n == 0 {
		return nil
	}
	j.joints, j.spare = j.spare, j.joints
	if err := grow(d, &j.joints, n*size); err != nil {
		return err
	}
	if err := grow(d, &j.force, 4*n); err != nil {
		return err
	}
	if err := d.zero(j.force.p, 4*n); err != nil {
		return err
	}
	if err := uploadSlice(d, j.joints.p, j.host); err != nil {
		return err
	}
	if err := j.carryHeld(d, oldHeld); err != nil {
		return err
	}
	if err := j.uploadLists(d, w.Bodies.Len()); err != nil {
		return err
	}
	if !kept {
		return nil
	}
	if err := grow(d, &j.from, 4*n); err != nil {
		return err
	}
	if err := uploadSlice(d, j.from.p, j.fromH); err != nil {
		return err
	}
	if err := (kernelSet{d}).jointKeep(blocks(n, jointThreads), jointThreads, jointKeepArgs{Dst: j.joints.p,
		Src: j.spare.p, From: j.from.p, N: int32(n)}); err != nil {
		return err
	}
	for _, off := range j.stale {
		if err := d.zero(j.joints.p+off, 4); err != nil {
			return err
		}
	}
	return nil
}

// staleImpulses returns the offsets in a tbJoint of the accumulated impulses of rows.
func staleImpulses(rows sim.JointRows) []ptr {
	if rows == 0 {
		return nil
	}
	imp := unsafe.Offsetof(tbJointRow{}.Impulse)
	var offs []ptr
	add := func(fields ...uintptr) {
		for _, f := range fields {
			offs = append(offs, ptr(f+imp))
		}
	}
	var z tbJoint
	if rows&sim.LimitRows != 0 {
		add(unsafe.Offsetof(z.Lower), unsafe.Offsetof(z.Upper))
	}
	if rows&sim.MotorRow != 0 {
		add(unsafe.Offsetof(z.Motor))
	}
	if rows&sim.SwingRow != 0 {
		add(unsafe.Offsetof(z.SwingRow))
	}
	if rows&sim.TwistRows != 0 {
		add(unsafe.Offsetof(z.TwistLower), unsafe.Offsetof(z.TwistUpper))
	}
	if rows&sim.FrictionRows != 0 { // a float3, not a row
		f := unsafe.Offsetof(z.FricImpulse)
		offs = append(offs, ptr(f), ptr(f+4), ptr(f+8))
	}
	return offs
}

// count adds each joint's one to the split counts of its bodies.
func (j *jointStage) count(d device, b *bodyBuffers, split ptr) error {
	if j.n == 0 {
		return nil
	}
	return kernelSet{d}.jointCount(blocks(j.n, jointThreads), jointThreads, jointCountArgs{Joints: j.joints.p,
		N: int32(j.n), Split: split})
}

// prepare fixes the split masses for the step and, without warm starting, zeroes the impulses.
func (j *jointStage) prepare(d device, b *bodyBuffers, split ptr, c *stepConsts) error {
	if j.n == 0 {
		return nil
	}
	return kernelSet{d}.jointPrepare(blocks(j.n, jointThreads), jointThreads, jointPrepareArgs{Joints: j.joints.p,
		N: int32(j.n), Pos: b.pos.p, InvIW: b.invIW.p, Split: split, Reset: flag(c.s.NoWarmStart)})
}

// refresh sets the rows and position errors from the bodies' current poses.
func (j *jointStage) refresh(d device, b *bodyBuffers, c *stepConsts) error {
	if j.n == 0 {
		return nil
	}
	return kernelSet{d}.jointRefresh(blocks(j.n, jointThreads), jointThreads, jointRefreshArgs{Joints: j.joints.p,
		N: int32(j.n), Pos: b.pos.p, Rot: b.rot.p})
}

// uploadLists lists each of the n bodies' joints (start, adj) for tb_solver_gather, in joint order, as
// sim's jointAdjacency does, and sizes the joints' impulse records.
func (j *jointStage) uploadLists(d device, n int) error {
	j.startH = append(j.startH[:0], make([]int32, n+1)...)
	for _, h := range j.host {
		j.startH[h.A+1]++
		if h.B >= 0 {
			j.startH[h.B+1]++
		}
	}
	for i := range n {
		j.startH[i+1] += j.startH[i]
	}
	j.adjH = append(j.adjH[:0], make([]int32, j.startH[n])...)
	fill := append([]int32(nil), j.startH[:n]...)
	for k, h := range j.host {
		j.adjH[fill[h.A]] = int32(k) << 1
		fill[h.A]++
		if h.B >= 0 {
			j.adjH[fill[h.B]] = int32(k)<<1 | 1
			fill[h.B]++
		}
	}
	for _, g := range []struct {
		b     *buffer
		bytes int
	}{{&j.imp, 3 * sizeFloat4 * j.n}, {&j.start, 4 * (n + 1)}, {&j.adj, 4 * max(len(j.adjH), 1)}} {
		if err := grow(d, g.b, g.bytes); err != nil {
			return err
		}
	}
	if err := uploadSlice(d, j.start.p, j.startH); err != nil {
		return err
	}
	if len(j.adjH) == 0 {
		return nil
	}
	return uploadSlice(d, j.adj.p, j.adjH)
}

// lists returns the joints' impulse records and each body's list of its joints (start, adj), for
// tb_solver_gather.
func (j *jointStage) lists() (imp, start, adj ptr) { return j.imp.p, j.start.p, j.adj.p }

// rows returns the joints' array, their number and their forces (jointHooks).
func (j *jointStage) rows() (joints ptr, n int, force ptr) { return j.joints.p, j.n, j.force.p }

// warmStart records the accumulated impulses (on the refreshed rows).
func (j *jointStage) warmStart(d device, b *bodyBuffers, c *stepConsts) error {
	if j.n == 0 {
		return nil
	}
	return kernelSet{d}.jointWarm(blocks(j.n, jointThreads), jointThreads, jointWarmArgs{Joints: j.joints.p,
		N: int32(j.n), Jimp: j.imp.p})
}

// solve runs one Jacobi pass of the rows from the bodies' current velocities, recording the impulse
// changes and writing each joint's force.
func (j *jointStage) solve(d device, b *bodyBuffers, c *stepConsts, useBias bool) error {
	if j.n == 0 {
		return nil
	}
	return kernelSet{d}.jointSolve(blocks(j.n, jointThreads), jointThreads, jointSolveArgs{Joints: j.joints.p,
		N: int32(j.n), Vel: b.vel.p, Omega: b.omega.p, Jimp: j.imp.p,
		BiasRate: c.joint.biasRate, MassScale: c.joint.massScale, ImpulseScale: c.joint.impulseScale,
		LimitBias: c.limit.biasRate, LimitMass: c.limit.massScale, LimitImpulse: c.limit.impulseScale,
		InvH: c.invH, UseBias: flag(useBias), Force: j.force.p})
}

// colour colours the joints for the Gauss-Seidel passes (tb_gs_colour over the joints' body lists).
func (j *jointStage) colour(d device, b *bodyBuffers, g *colouring, needed ptr) error {
	if j.n == 0 {
		return nil
	}
	if err := g.reserve(d, j.n); err != nil {
		return err
	}
	var z tbJoint
	return g.run(d, b, edges{ends: j.joints.p, stride: int(unsafe.Sizeof(z)) / 4, offA: int(unsafe.Offsetof(z.A)) / 4,
		countAt: -1, capacity: j.n, start: j.start.p, adj: j.adj.p}, needed)
}

// gsPass runs one Gauss-Seidel pass of the joints on the bodies' velocities, colour by colour, writing
// each joint's force.
func (j *jointStage) gsPass(d device, b *bodyBuffers, c *stepConsts, g *colouring, useBias bool) error {
	if j.n == 0 {
		return nil
	}
	ks := kernelSet{d}
	return g.each(blocks(j.n, jointThreads), func(col int32, grid int) error {
		return ks.jointGs(grid, jointThreads, jointGsArgs{Joints: j.joints.p, Order: g.order.p, ColourStart: g.start.p,
			C: col, Pos: b.pos.p, Vel: b.vel.p, Omega: b.omega.p, BiasRate: c.joint.biasRate,
			MassScale: c.joint.massScale, ImpulseScale: c.joint.impulseScale, LimitBias: c.limit.biasRate,
			LimitMass: c.limit.massScale, LimitImpulse: c.limit.impulseScale, InvH: c.invH, UseBias: flag(useBias),
			Force: j.force.p})
	})
}

// forces returns the device array of each joint's force (N) in the last solve pass, which at the end
// of a step is what sim's breakJoints compares with a joint's BreakForce, and the number of joints.
func (j *jointStage) forces() (ptr, int) { return j.force.p, j.n }

// heldForces downloads the joints' held forces before an upload replaces the joints (nil when none
// were ever held: sleeping was never on).
func (j *jointStage) heldForces(d device) ([]float32, error) {
	if j.held.p == 0 || j.n == 0 {
		return nil, nil
	}
	old := make([]float32, j.n)
	return old, downloadSlice(d, old, j.held.p)
}

// carryHeld gives each uploaded joint the held force of the joint it was (j.fromH), and a new one
// none, when forces were held before the upload (old, from heldForces).
func (j *jointStage) carryHeld(d device, old []float32) error {
	if old == nil {
		return nil
	}
	held := make([]float32, j.n)
	for i, from := range j.fromH {
		if from >= 0 && int(from) < len(old) {
			held[i] = old[from]
		}
	}
	if err := grow(d, &j.held, 4*j.n); err != nil {
		return err
	}
	return uploadSlice(d, j.held.p, held)
}

// hold keeps the force of each joint whose island is awake in held (tb_joint_hold), after the step's
// solve.
func (j *jointStage) hold(d device, b *bodyBuffers) error {
	if j.n == 0 {
		return nil
	}
	held, err := j.heldBuffer(d)
	if err != nil {
		return err
	}
	return kernelSet{d}.jointHold(blocks(j.n, jointThreads), jointThreads, jointHoldArgs{Joints: j.joints.p,
		N: int32(j.n), Flags: b.flags.p, Force: j.force.p, Held: held})
}

// heldBuffer returns the device array of the joints' held forces (float32 per joint), made room for
// (zeroed) at first.
func (j *jointStage) heldBuffer(d device) (ptr, error) {
	if j.held.bytes < 4*j.n || j.held.p == 0 {
		if err := grow(d, &j.held, 4*j.n); err != nil {
			return 0, err
		}
		if err := d.zero(j.held.p, 4*j.n); err != nil {
			return 0, err
		}
	}
	return j.held.p, nil
}

// release frees the device joints.
func (j *jointStage) release(d device) {
	release(d, &j.joints)
	release(d, &j.spare)
	release(d, &j.from)
	release(d, &j.force)
	release(d, &j.held)
	release(d, &j.imp)
	release(d, &j.start)
	release(d, &j.adj)
	j.n, j.ids, j.defs = 0, nil, nil
}

var _ jointHooks = (*jointStage)(nil)
