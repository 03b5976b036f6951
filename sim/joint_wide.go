package sim

// The wide joint pass: PGS's Gauss-Seidel pass over sixteen joints of one graph colour at
// once, one per lane of an AVX-512 register (wide16_simd.go), or eight at once with AVX2 only
// (joint_wide_simd.go), in builds with the wide contact pass (wide.go). It takes the two joint types a ragdoll is made of, in their common form: ball joints with a swing cone and twist
// limits, and hinges with angle limits and no motor; plain ball joints (the anchor block alone, as
// a chain or a grid of spheres has them); all between two bodies, each with or without
// friction (a batch's joints all have it or all lack it: a ball joint's frictionPart, a hinge's
// friction as the motor row of speed 0); and pistons between two bodies (a lane's
// piston with or without limits, with a speed motor, friction, or no drive: widePiston's
// masks say which rows a lane has; a servo stays scalar: wideJointKind). The joints of a colour share no dynamic body, so solveBall,
// solveHinge and solveJointParts visit them in any order with the same result; the wide kernels
// (rows_template.go) do each lane's arithmetic in their order with the same float32 operations, so
// the results are theirs bit for bit (TestWideJointsMatchScalar, TestWidePistonsMatchScalar), NaN
// excepted (a clamped NaN impulse becomes zero instead of staying NaN). Other joints, and every joint
// without the wide kernels or with the direct joint solve, go through solveJoint.
//
// The rows live in wideJointBatch, lane-major, and are refreshed there, eight joints at a time (a
// batch's halves; K^-1 and the warm start sixteen at a time measured no faster), from the bodies'
// poses: the anchors, a hinge's rotation rows, angle and limit rows (refreshJointsWide),
// the anchor blocks' K^-1 (anchorMassWide), a ball joint's swing and twist rows and angles
// (swingTwistRows); the warm start's sums come from the lanes too (ballWarmWide, hingeWarmWide).
// A ball joint's friction rows' K^-1 (frictionPart.set) depends only on the step's inverse inertias,
// so it is set once, when the batches are laid out, by frictionPart.set itself; a hinge's friction
// row has the lower limit row's vectors and mass (anglePart.set gives both the same), so the lanes
// keep only its impulse (rows[2], which a hinge has no other use for) and the friction.
// A piston's rows (widePiston) are refreshed in the lanes too (refreshPistonsWide), its rotation
// block's K^-1 once when the batches are laid out, and its warm start's sums come from the lanes
// (pistonWarmWide). refreshJoint and warmJoint skip a wide joint, whose rows in its parts are not
// kept current (nothing else reads them). The impulses are copied into the lanes when the batches
// are laid out, each step, and back to the parts when the step stores its impulses
// (syncWideJoints), so joint forces, breaking and inspection read the parts as before; each joint's
// angles (coord, swingA) are written back at each refresh.

// wideAngle is sixteen angular limit rows (an axisPart with d zero), lane-major.
type wideAngle struct {
	ra, rb, ia, ib   blanes3
	mass, c, impulse blanes
}

// wideAnchor is sixteen anchor blocks (pointPart), lane-major; mass is K^-1 column-major.
type wideAnchor struct {
	rA, rB, c, impulse blanes3
	mass               [9]blanes
}

// wideAxis is sixteen linear rows (an axisPart with d not zero), lane-major.
type wideAxis struct {
	d, ra, rb, ia, ib blanes3
	mass, c, impulse  blanes
}

// widePiston is a batch of pistons' rows (refreshPistonsWide), lane-major: the two off-axis rows
// (perp), the travel's lower limit row, whose vectors and mass the drive row has too and the upper
// limit row has negated (anglePart.set), and the rotation block (rotationPart: K^-1 column-major,
// its error and impulse). limits and driven are 1 in the lanes whose joint has limits or a drive
// (its motor, or its friction as a motor of speed 0) and 0 elsewhere; speed is the drive's target
// rate (Motor.rate at the refresh's travel) and maxForce its bound.
type widePiston struct {
	perp                            [2]wideAxis
	travel                          wideAxis
	upperC, upperImp, driveImp      blanes
	limits, driven, speed, maxForce blanes
	rotC, rotImp                    blanes3
	rotMass                         [9]blanes
	rel0                            [4]blanes // joint.rel0: W, X, Y, Z
}

// wideJointBatch holds up to sixteen joints of one colour and one kind. Like a contact batch
// (wideBatch), its rows are 64 bytes each, on cache lines of their own, and the kernels take it
// sixteen lanes at a time where the CPU has AVX-512 and it holds more than eight joints, else eight
// at a time (its halves).
type wideJointBatch struct {
	mA, mB blanes
	iA, iB [9]blanes // the bodies' world inverse inertias, column-major
	rows   [3]wideAngle
	point  wideAnchor
	// the hinge's rotation rows (hingeRotationPart)
	u1, u2 blanes3
	hc     [2]blanes
	hmass  [3]blanes
	himp   [2]blanes
	// the anchors in the bodies' frames (refreshJointsWide)
	localA, localB blanes3
	// the joint's frames: a ball joint's for its swing and twist rows (swingTwistRows), a hinge's for
	// its rotation rows and angle (crossB is axisB x perpB)
	axisA, axisB, perpA, perpB, crossB blanes3
	// a ball joint's swing limit; lo and hi are its twist limits, or a hinge's angle limits
	swing, lo, hi blanes
	// with fric: the joints' friction (JointDef.Friction), a ball joint's friction rows' K^-1
	// (frictionPart.mass, column-major) and their accumulated impulse
	friction blanes
	fmass    [9]blanes
	fimp     blanes3

	a, b  [batchLanes]int32 // bodies; an empty lane repeats lane 0's, and is neither solved nor stored
	k     [batchLanes]int32 // joint index; -1 in an empty lane
	lanes int               // lanes in use
	pi    int32             // a batch of pistons: its rows are jointWideStage.pist[pi]
	hinge bool              // hinges (rows: angle lower, upper); otherwise ball joints (swing, twist lower, upper) or pistons
	plain bool              // ball joints without cone or twist limits: their rows (swing, twist) are unused
	fric  bool              // the joints have friction (a hinge's friction row's impulse is rows[2]'s)
	safe  bool              // no body is the last of its arrays (see gather)
	// pistons (widePiston's rows); limits and drive: some lane's piston has limits, a drive
	piston, limits, drive bool
	_                     [45]byte
}

// The wide joint kernels over one batch that do not depend on the contact lanes, all set or all nil
// (where the build or the CPU has none; the passes are laneKernels.ball and hinge).
var (
	wideAnchorMassKernel func(bt *wideJointBatch) // pointPart.setMass over a batch's lanes
	// refreshJoint's anchors, and a hinge's rotation and limit rows and angle, into the lanes
	wideJointRefreshKernel func(w *World, bt *wideJointBatch)
	// warmJoint over a batch of ball joints or of hinges, from the lanes
	wideBallWarmKernel, wideHingeWarmKernel func(w *World, bt *wideJointBatch)
	// refreshJoint and warmJoint over a batch of pistons, from and into the lanes
	widePistonRefreshKernel, widePistonWarmKernel func(w *World, bt *wideJointBatch)
)

// wideJointGrain: a loop over joint batches goes to the workers when it gives each of two at least
// this many (about 50 us of work; a batch's pass is about 0.2 us).
const wideJointGrain = 256

// wideJointKind says which wide batches take joint j: 1 for balls with a swing cone and twist
// limits, 2 for hinges, 3 and 4 for the same with friction, 5 for pistons (with or without limits,
// a speed motor or friction: a lane's own), 6 and 7 for plain balls (neither cone nor twist limits:
// the anchor block alone) without and with friction, 0 for none. A servo (MotorPosition) stays on
// the scalar rows: near its target it is a soft row under a soft step (axisPart.solveServo), which
// the lanes' drive does not have. A ball joint with only one of the cone and the twist limits stays
// scalar too.
func wideJointKind(j *joint) int {
	def := &j.def
	kind := 0
	switch {
	case j.b < 0:
		return 0
	case def.Type == Ball && def.Swing > 0 && def.HasTwist:
		kind = 1
	case def.Type == Ball && def.Swing == 0 && !def.HasTwist:
		if def.Friction > 0 {
			return widePlainBallKind + 1
		}
		return widePlainBallKind
	case def.Type == Hinge && def.HasLimits && !def.HasMotor:
		kind = 2
	case def.Type == Piston && (!def.HasMotor || def.Motor.Mode != MotorPosition):
		return widePistonKind
	default:
		return 0
	}
	if def.Friction > 0 {
		kind += 2
	}
	return kind
}

// widePistonKind is wideJointKind's kind of the pistons' batches; widePlainBallKind its kind of
// the plain ball joints' without friction (and the next, with), the last kind.
const (
	widePistonKind    = 5
	widePlainBallKind = 6
)

// jointWideInputs is what planWideJoints reads of the rest of the step, handed over by prepare.
type jointWideInputs struct {
	on bool // the joints' passes are wide (the solver, the options and the lane kernels allow it)
	// The coloured joints by colour and, by island (islands.go), by region within a colour: seg[c*r+g]
	// is where colour c's joints of region g start in order.
	order, seg []int32
	r          int
	overflow   []int32 // the joints that fit no colour
	gatherCap  int     // the least capacity of the arrays the wide kernels gather from (gatherCapOf)
}

// planWideJoints decides whether this step's joint passes are wide and if so lays out each colour's
// batches (by kind) and the joints left to solveJoint, and copies the step's masses into the lanes
// (prepare: the joints left to solveJoint get theirs after it, jointMasses).
func (w *World) planWideJoints(in jointWideInputs) {
	p := &w.pipe
	b := &w.Bodies
	p.jwide.jwideOn = in.on && len(w.joints) > 0
	p.jwide.jwideDirty = false
	if !p.jwide.jwideOn {
		for k := range w.joints {
			w.joints[k].wide = -1
		}
		return
	}
	// Each joint's kind, once: the layout below goes over a region's joints once per kind, and reads
	// a byte per joint there instead of the joint's definition and bodies (two cache lines of it).
	p.jwide.kinds = resize(p.jwide.kinds, len(w.joints))
	for k := range w.joints {
		j := &w.joints[k]
		j.wide = -1
		p.jwide.kinds[k] = uint8(wideJointKind(j))
	}
	p.jwide.jwideStart = resize(p.jwide.jwideStart, maxColors+1)
	p.jwide.jrestStart = resize(p.jwide.jrestStart, maxColors+2)
	p.jwide.jwide, p.jwide.jrest, p.jwide.pist = p.jwide.jwide[:0], p.jwide.jrest[:0], p.jwide.pist[:0]
	order, seg, r := in.order, in.seg, in.r
	p.jwide.jwideSeg = resize(p.jwide.jwideSeg, maxColors*r+1)
	p.jwide.jrestSeg = resize(p.jwide.jrestSeg, maxColors*r+1)
	for cg := 0; cg < maxColors*r; cg++ {
		c := cg / r
		if cg%r == 0 {
			p.jwide.jwideStart[c], p.jwide.jrestStart[c] = int32(len(p.jwide.jwide)), int32(len(p.jwide.jrest))
		}
		p.jwide.jwideSeg[cg], p.jwide.jrestSeg[cg] = int32(len(p.jwide.jwide)), int32(len(p.jwide.jrest))
		for kind := 0; kind <= widePlainBallKind+1; kind++ {
			var bt *wideJointBatch
			for _, k := range order[seg[cg]:seg[cg+1]] {
				if int(p.jwide.kinds[k]) != kind {
					continue
				}
				j := &w.joints[k]
				if kind == 0 {
					p.jwide.jrest = append(p.jwide.jrest, k)
					continue
				}
				if bt == nil || bt.lanes == batchLanes {
					// A new batch, zeroed where it lies: append(p.jwide, wideJointBatch{...}) zeroed
					// 8 KB on the stack and copied them.
					n := len(p.jwide.jwide)
					if n < cap(p.jwide.jwide) {
						p.jwide.jwide = p.jwide.jwide[:n+1]
						clear(p.jwide.jwide[n:])
					} else {
						p.jwide.jwide = append(p.jwide.jwide, wideJointBatch{})
					}
					bt = &p.jwide.jwide[n]
					bt.hinge, bt.fric = kind == 2 || kind == 4, kind == 3 || kind == 4 || kind == widePlainBallKind+1
					bt.plain = kind >= widePlainBallKind
					if bt.piston = kind == widePistonKind; bt.piston {
						bt.pi = int32(len(p.jwide.pist))
						if m := len(p.jwide.pist); m < cap(p.jwide.pist) { // zeroed where it lies, as the batch
							p.jwide.pist = p.jwide.pist[:m+1]
							clear(p.jwide.pist[m:])
						} else {
							p.jwide.pist = append(p.jwide.pist, widePiston{})
						}
					}
					for l := range batchLanes {
						bt.k[l] = -1
					}
				}
				l := bt.lanes
				bt.lanes++
				j.wide = int32(len(p.jwide.jwide)-1)<<4 | int32(l)
				bt.a[l], bt.b[l], bt.k[l] = j.a, j.b, k
				// The step's masses, unsplit (the wide pass runs under no split), straight from the
				// bodies: jointMasses' values (m * 1 is m) without storing them in the joint, except
				// for the parts set from the joint's own below (frictionPart.set, packPiston).
				if bt.fric || bt.piston {
					w.jointMasses(int(k), int(k)+1)
				}
				bt.mA[l], bt.mB[l] = b.InvMass[j.a], b.InvMass[j.b]
				iA, iB := &b.InvInertiaWorld[j.a], &b.InvInertiaWorld[j.b]
				for e := range 9 {
					bt.iA[e][l], bt.iB[e][l] = iA[e], iB[e]
				}
				put3(&bt.localA, l, j.localA)
				put3(&bt.localB, l, j.localB)
				if !bt.plain { // a plain ball joint has no axis
					put3(&bt.axisA, l, j.axisA)
					put3(&bt.axisB, l, j.axisB)
					put3(&bt.perpA, l, j.perpA)
					put3(&bt.perpB, l, j.perpB)
				}
				if bt.fric { // (read only by the friction rows)
					bt.friction[l] = j.def.Friction
				}
				if bt.piston {
					w.packPiston(j, bt, l)
				} else if !bt.hinge {
					if !bt.plain {
						bt.swing[l], bt.lo[l], bt.hi[l] = j.def.Swing, j.def.Twist[0], j.def.Twist[1]
					}
					if bt.fric {
						j.fric.set(j)
						for e := range 9 {
							bt.fmass[e][l] = j.fric.mass[e]
						}
					}
				} else {
					put3(&bt.crossB, l, j.axisB.Cross(j.perpB))
					bt.lo[l], bt.hi[l] = j.def.Limits[0], j.def.Limits[1]
				}
				w.packImpulses(j, bt, l)
			}
		}
	}
	p.jwide.gatherCap = in.gatherCap
	for i := range p.jwide.jwide { // empty lanes: lane 0's bodies, so that a full gather reads valid ones
		bt := &p.jwide.jwide[i]
		for l := bt.lanes; l < batchLanes; l++ {
			bt.a[l], bt.b[l] = bt.a[0], bt.b[0]
		}
		bt.safe = gatherSafe(bt.a[:], bt.b[:], p.jwide.gatherCap)
	}
	p.jwide.jwideStart[maxColors] = int32(len(p.jwide.jwide))
	p.jwide.jrestStart[maxColors] = int32(len(p.jwide.jrest))
	p.jwide.jwideSeg[maxColors*r], p.jwide.jrestSeg[maxColors*r] = p.jwide.jwideStart[maxColors], p.jwide.jrestStart[maxColors]
	p.jwide.jrest = append(p.jwide.jrest, in.overflow...)
	p.jwide.jrestStart[maxColors+1] = int32(len(p.jwide.jrest))
}

// packImpulses copies joint j's accumulated impulses into lane l of its batch, where the passes
// accumulate them until syncWideJoints copies them back.
func (w *World) packImpulses(j *joint, bt *wideJointBatch, l int) {
	if bt.piston {
		pr := &w.pipe.jwide.pist[bt.pi]
		pr.perp[0].impulse[l], pr.perp[1].impulse[l] = j.perp[0].impulse, j.perp[1].impulse
		pr.travel.impulse[l], pr.upperImp[l], pr.driveImp[l] = j.angle.lower.impulse, j.angle.upper.impulse, j.angle.motor.impulse
		put3(&pr.rotImp, l, j.rot.impulse)
		return
	}
	switch {
	case bt.hinge:
		bt.rows[0].impulse[l], bt.rows[1].impulse[l] = j.angle.lower.impulse, j.angle.upper.impulse
		bt.himp[0][l], bt.himp[1][l] = j.hinge.impulse[0], j.hinge.impulse[1]
		bt.rows[2].impulse[l] = j.angle.motor.impulse
	case bt.plain: // no swing or twist rows
		if bt.fric {
			put3(&bt.fimp, l, j.fric.impulse)
		}
	default:
		bt.rows[0].impulse[l] = j.swing.impulse
		bt.rows[1].impulse[l], bt.rows[2].impulse[l] = j.twist.lower.impulse, j.twist.upper.impulse
		put3(&bt.fimp, l, j.fric.impulse)
	}
	put3(&bt.point.impulse, l, j.point.impulse)
}

// refreshJointBatch brings a joint batch's rows to the bodies' poses: a batch of pistons through
// refreshPistonsWide, the others through the wide refresh and the anchors' K^-1.
func (w *World) refreshJointBatch(bt *wideJointBatch) {
	if bt.piston {
		widePistonRefreshKernel(w, bt)
		return
	}
	wideJointRefreshKernel(w, bt)
	wideAnchorMassKernel(bt)
}

// warmJointBatch records a joint batch's warm-start sums into sums (pipeline.jsums).
func (w *World) warmJointBatch(bt *wideJointBatch, sums []impulseSum) {
	switch {
	case bt.piston:
		widePistonWarmKernel(w, bt)
	case bt.hinge:
		wideHingeWarmKernel(w, bt)
	default:
		wideBallWarmKernel(w, bt)
	}
}

// solveJointBatch is one pass of the given mode over a joint batch with kernels kern.
func (w *World) solveJointBatch(kern *laneKernels, bt *wideJointBatch, mode PassMode) {
	switch {
	case bt.piston:
		kern.piston(w, bt, mode)
	case bt.hinge:
		kern.hinge(w, bt, mode)
	default:
		kern.ball(w, bt, mode)
	}
}

// packPiston sets lane l of a batch of pistons to piston j's: which rows it has and its drive's
// bound, its limits, its creation pose and its rotation block's K^-1 (the other rows are
// refreshPistonsWide's).
func (w *World) packPiston(j *joint, bt *wideJointBatch, l int) {
	pr := &w.pipe.jwide.pist[bt.pi]
	def := &j.def
	pr.limits[l], pr.driven[l] = 0, 0
	if def.HasLimits {
		pr.limits[l] = 1
		bt.limits = true
	}
	if def.driven() {
		pr.driven[l] = 1
		pr.maxForce[l] = def.drive().MaxForce
		bt.drive = true
	}
	bt.lo[l], bt.hi[l] = def.Limits[0], def.Limits[1]
	q := j.rel0
	pr.rel0[0][l], pr.rel0[1][l], pr.rel0[2][l], pr.rel0[3][l] = q.W, q.V[0], q.V[1], q.V[2]
	// rotationPart.set's K^-1: (IA + IB)^-1, which only the step's inverse inertias change
	var k, inv Mat3
	for e := range k {
		k[e] = j.iA[e] + j.iB[e]
	}
	invertTo(&inv, &k)
	for e := range 9 {
		pr.rotMass[e][l] = inv[e]
	}
}

// unpackPiston copies lane l's accumulated impulses back to its piston j's parts.
func (w *World) unpackPiston(j *joint, bt *wideJointBatch, l int) {
	pr := &w.pipe.jwide.pist[bt.pi]
	j.perp[0].impulse, j.perp[1].impulse = pr.perp[0].impulse[l], pr.perp[1].impulse[l]
	j.angle.lower.impulse, j.angle.upper.impulse, j.angle.motor.impulse = pr.travel.impulse[l], pr.upperImp[l], pr.driveImp[l]
	j.rot.impulse = vec{X: pr.rotImp[0][l], Y: pr.rotImp[1][l], Z: pr.rotImp[2][l]}
}

// syncWideJoints copies the lanes' impulses back to the joints' parts if a wide pass changed them
// (once a step, before the joints' forces are read).
func (w *World) syncWideJoints() {
	p := &w.pipe
	if !p.jwide.jwideDirty {
		return
	}
	p.jwide.jwideDirty = false
	for i := range p.jwide.jwide {
		bt := &p.jwide.jwide[i]
		for l := range bt.lanes {
			j := &w.joints[bt.k[l]]
			if bt.piston {
				w.unpackPiston(j, bt, l)
				continue
			}
			if bt.hinge {
				j.angle.lower.impulse, j.angle.upper.impulse = bt.rows[0].impulse[l], bt.rows[1].impulse[l]
				j.hinge.impulse = [2]float32{bt.himp[0][l], bt.himp[1][l]}
				if bt.fric {
					j.angle.motor.impulse = bt.rows[2].impulse[l]
				}
			} else {
				if !bt.plain {
					j.swing.impulse = bt.rows[0].impulse[l]
					j.twist.lower.impulse, j.twist.upper.impulse = bt.rows[1].impulse[l], bt.rows[2].impulse[l]
				}
				if bt.fric {
					j.fric.impulse = vec{X: bt.fimp[0][l], Y: bt.fimp[1][l], Z: bt.fimp[2][l]}
				}
			}
			im := &bt.point.impulse
			j.point.impulse = vec{X: im[0][l], Y: im[1][l], Z: im[2][l]}
		}
	}
}

// jointPass is one PGS pass of the given mode over the joints, colour by colour: a colour's wide
// batches, then its other joints with solveJoint; the overflow (joints that fit no colour) last,
// serially.
func (w *World) jointPass(mode PassMode) {
	p := &w.pipe
	if !p.jwide.jwideOn {
		w.eachJointColour(loopJointColour)
		return
	}
	for c := 0; c < maxColors; c++ {
		if lo, hi := p.jwide.jwideStart[c], p.jwide.jwideStart[c+1]; hi > lo {
			p.jwide.curJWide = p.jwide.jwide[lo:hi]
			w.each(loopJWide, int(hi-lo), wideJointGrain)
		}
		if lo, hi := p.jwide.jrestStart[c], p.jwide.jrestStart[c+1]; hi > lo {
			w.eachOf(loopJointColour, p.jwide.jrest[lo:hi], jointGrain)
		}
	}
	p.jwide.jwideDirty = true
	for _, k := range p.jwide.jrest[p.jwide.jrestStart[maxColors]:p.jwide.jrestStart[maxColors+1]] {
		w.solveJoint(&w.joints[k], mode)
	}
}

// jointWideStage is the wide joint pass: batches of a colour's joints of one kind, where each colour's batches start, and the joints left to solveJoint (jrest, by colour, then the overflow).
type jointWideStage struct {
	jwideOn, jwideDirty    bool
	jwide, curJWide        []wideJointBatch
	pist                   []widePiston // the rows of the batches of pistons (wideJointBatch.pi)
	jwideStart, jrestStart []int32
	jrest                  []int32
	kinds                  []uint8 // per joint: wideJointKind, for the layout
	jwideSeg               []int32 // by island: colour c's batches of region g start at jwide[jwideSeg[c*r+g]]
	jrestSeg               []int32 // and its joints left to solveJoint at jrest[jrestSeg[c*r+g]]
	gatherCap              int     // the least capacity of the arrays the wide kernels gather from
}
