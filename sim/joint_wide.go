package sim

// The wide joint pass (issue 14): PGS's Gauss-Seidel pass over eight joints of one graph colour at
// once, one per lane of an AVX2 register, in builds with the wide contact pass (wide.go). It takes the
// two joint types a ragdoll is made of, in their common form: ball joints with a swing cone and twist
// limits, and hinges with angle limits and no motor, between two bodies. The joints of a colour share
// no dynamic body, so solveBall and solveHinge visit them in any order with the same result; the wide
// kernels (joint_wide_simd.go) do each lane's arithmetic in their order with the same float32
// operations, so the results are theirs bit for bit (TestWideJointsMatchScalar), NaN excepted (a
// clamped NaN impulse becomes zero instead of staying NaN). Other joints, and every joint without the
// wide kernels or with the direct joint solve, go through solveJoint.
//
// The rows live in wideJointBatch, lane-major. refreshJoint sets a joint's anchors (and a hinge's
// other parts) as always and copies them, impulses included, into its lane (packJoint); the anchor
// blocks' K^-1 and the ball joints' swing and twist rows and angles are then computed in the lanes,
// eight joints at a time (anchorMassWide, swingTwistWide), and the ball joints' warm start sums come
// from the lanes (ballWarmWide). After each stage's passes the lanes' impulses are copied back to the
// parts (syncWideJoints), so joint forces, breaking and inspection read the parts as before; a wide
// ball joint's swing and twist rows in its parts are not kept current (nothing else reads them).

// wideAngle is eight angular limit rows (an axisPart with d zero), lane-major.
type wideAngle struct {
	ra, rb, ia, ib   lanes3
	mass, c, impulse lanes
}

// wideAnchor is eight anchor blocks (pointPart), lane-major; mass is K^-1 column-major.
type wideAnchor struct {
	rA, rB, c, impulse lanes3
	mass               [9]lanes
}

// wideJointBatch holds up to eight joints of one colour and one kind.
type wideJointBatch struct {
	a, b   [wideLanes]int32 // bodies; an empty lane repeats lane 0's, and is neither solved nor stored
	k      [wideLanes]int32 // joint index; -1 in an empty lane
	lanes  int              // lanes in use
	hinge  bool             // hinges (rows: angle lower, upper); otherwise ball joints (swing, twist lower, upper)
	safe   bool             // no body is the last of its arrays (see gather)
	mA, mB lanes
	iA, iB [9]lanes // the bodies' world inverse inertias, column-major
	rows   [3]wideAngle
	point  wideAnchor
	// the hinge's rotation rows (hingeRotationPart)
	u1, u2 lanes3
	hc     [2]lanes
	hmass  [3]lanes
	himp   [2]lanes
	// the ball joint's frames and limits, for its swing and twist rows' refresh (swingTwistWide)
	axisA, axisB, perpA, perpB lanes3
	swing, twistLo, twistHi    lanes
}

// The wide joint kernels over one batch, all set or all nil (see wideKernel).
var (
	wideBallKernel       func(w *World, bt *wideJointBatch, useBias bool)
	wideHingeKernel      func(w *World, bt *wideJointBatch, useBias bool)
	wideAnchorMassKernel func(bt *wideJointBatch) // pointPart.setMass over a batch's lanes
	// refreshSwingTwist over a batch of ball joints, into the lanes (and each joint's angles)
	wideSwingTwistKernel func(w *World, bt *wideJointBatch)
	// warmJoint over a batch of ball joints, from the lanes
	wideBallWarmKernel func(w *World, bt *wideJointBatch)
)

// wideJointGrain: a loop over joint batches goes to the workers when it gives each of two at least
// this many (about 50 us of work; a batch's pass is about 0.2 us).
const wideJointGrain = 256

// wideJointKind says which wide kernel takes joint j: 1 for balls, 2 for hinges, 0 for none.
func wideJointKind(j *joint) int {
	def := &j.def
	switch {
	case j.b < 0:
		return 0
	case def.Type == Ball && def.Swing > 0 && def.HasTwist:
		return 1
	case def.Type == Hinge && def.HasLimits && !def.HasMotor:
		return 2
	}
	return 0
}

// planWideJoints decides whether this step's joint passes are wide and if so lays out each colour's
// batches (by kind) and the joints left to solveJoint, and copies the step's masses into the lanes
// (prepare, after the joints' masses).
func (w *World) planWideJoints() {
	p := &w.pipe
	for k := range w.joints {
		w.joints[k].wide = -1
	}
	p.jwideOn = wideBallKernel != nil && WideSolve && jointKernels && p.solver.Kind() == PGS &&
		!p.useDirect && len(w.joints) > 0
	p.jwideDirty = false
	if !p.jwideOn {
		return
	}
	p.jwideStart = resize(p.jwideStart, maxColors+1)
	p.jrestStart = resize(p.jrestStart, maxColors+2)
	p.jwide, p.jrest = p.jwide[:0], p.jrest[:0]
	order, start := p.jointColorOrder, p.jointColorStart
	for c := 0; c < maxColors; c++ {
		p.jwideStart[c], p.jrestStart[c] = int32(len(p.jwide)), int32(len(p.jrest))
		for kind := 0; kind <= 2; kind++ {
			var bt *wideJointBatch
			for _, k := range order[start[c]:start[c+1]] {
				j := &w.joints[k]
				switch wideJointKind(j) {
				case kind:
				default:
					continue
				}
				if kind == 0 {
					p.jrest = append(p.jrest, k)
					continue
				}
				if bt == nil || bt.lanes == wideLanes {
					p.jwide = append(p.jwide, wideJointBatch{hinge: kind == 2})
					bt = &p.jwide[len(p.jwide)-1]
					for l := range wideLanes {
						bt.k[l] = -1
					}
				}
				l := bt.lanes
				bt.lanes++
				j.wide = int32(len(p.jwide)-1)<<3 | int32(l)
				bt.a[l], bt.b[l], bt.k[l] = j.a, j.b, k
				bt.mA[l], bt.mB[l] = j.mA, j.mB
				for e := range 9 {
					bt.iA[e][l], bt.iB[e][l] = j.iA[e], j.iB[e]
				}
				if kind == 1 {
					put3(&bt.axisA, l, j.axisA)
					put3(&bt.axisB, l, j.axisB)
					put3(&bt.perpA, l, j.perpA)
					put3(&bt.perpB, l, j.perpB)
					bt.swing[l], bt.twistLo[l], bt.twistHi[l] = j.def.Swing, j.def.Twist[0], j.def.Twist[1]
				}
			}
		}
	}
	w.setGatherCap()
	for i := range p.jwide { // empty lanes: lane 0's bodies, so that a full gather reads valid ones
		bt := &p.jwide[i]
		for l := bt.lanes; l < wideLanes; l++ {
			bt.a[l], bt.b[l] = bt.a[0], bt.b[0]
		}
		bt.safe = gatherSafe(&bt.a, &bt.b, p.gatherCap)
	}
	p.jwideStart[maxColors] = int32(len(p.jwide))
	p.jrestStart[maxColors] = int32(len(p.jrest))
	p.jrest = append(p.jrest, order[start[maxColors]:start[maxColors+1]]...)
	p.jrestStart[maxColors+1] = int32(len(p.jrest))
}

// packJoint copies joint j's rows and impulses, just refreshed, into its lane; its anchor block's
// K^-1, and a ball joint's swing and twist rows, are computed in the lanes after the refresh
// (wideAnchorMassKernel, wideSwingTwistKernel).
func (w *World) packJoint(j *joint) {
	bt := &w.pipe.jwide[j.wide>>3]
	l := int(j.wide & (wideLanes - 1))
	if bt.hinge {
		putAngle(&bt.rows[0], l, &j.angle.lower)
		putAngle(&bt.rows[1], l, &j.angle.upper)
		h := &j.hinge
		put3(&bt.u1, l, h.u1)
		put3(&bt.u2, l, h.u2)
		bt.hc[0][l], bt.hc[1][l] = h.c[0], h.c[1]
		bt.hmass[0][l], bt.hmass[1][l], bt.hmass[2][l] = h.mass[0], h.mass[1], h.mass[2]
		bt.himp[0][l], bt.himp[1][l] = h.impulse[0], h.impulse[1]
	} else { // the rows themselves come from swingTwistWide
		bt.rows[0].impulse[l] = j.swing.impulse
		bt.rows[1].impulse[l], bt.rows[2].impulse[l] = j.twist.lower.impulse, j.twist.upper.impulse
	}
	pt, d := &j.point, &bt.point
	put3(&d.rA, l, pt.rA)
	put3(&d.rB, l, pt.rB)
	put3(&d.c, l, pt.c)
	put3(&d.impulse, l, pt.impulse)
}

func putAngle(d *wideAngle, l int, r *axisPart) {
	put3(&d.ra, l, r.ra)
	put3(&d.rb, l, r.rb)
	put3(&d.ia, l, r.ia)
	put3(&d.ib, l, r.ib)
	d.mass[l], d.c[l], d.impulse[l] = r.mass, r.c, r.impulse
}

// syncWideJoints copies the lanes' impulses back to the joints' parts if a wide pass changed them.
func (w *World) syncWideJoints() {
	p := &w.pipe
	if !p.jwideDirty {
		return
	}
	p.jwideDirty = false
	for i := range p.jwide {
		bt := &p.jwide[i]
		for l := range bt.lanes {
			j := &w.joints[bt.k[l]]
			if bt.hinge {
				j.angle.lower.impulse, j.angle.upper.impulse = bt.rows[0].impulse[l], bt.rows[1].impulse[l]
				j.hinge.impulse = [2]float32{bt.himp[0][l], bt.himp[1][l]}
			} else {
				j.swing.impulse = bt.rows[0].impulse[l]
				j.twist.lower.impulse, j.twist.upper.impulse = bt.rows[1].impulse[l], bt.rows[2].impulse[l]
			}
			im := &bt.point.impulse
			j.point.impulse = vec{X: im[0][l], Y: im[1][l], Z: im[2][l]}
		}
	}
}

// jointPass is one PGS pass over the joints, colour by colour: a colour's wide batches, then its other
// joints with solveJoint; the overflow (joints that fit no colour) last, serially.
func (w *World) jointPass() {
	p := &w.pipe
	if !p.jwideOn {
		w.eachJointColour(p.fnJointColour)
		return
	}
	for c := 0; c < maxColors; c++ {
		if lo, hi := p.jwideStart[c], p.jwideStart[c+1]; hi > lo {
			p.curJWide = p.jwide[lo:hi]
			p.pool.run(int(hi-lo), wideJointGrain, p.fnJWide)
		}
		if lo, hi := p.jrestStart[c], p.jrestStart[c+1]; hi > lo {
			p.currentJoints = p.jrest[lo:hi]
			p.pool.run(int(hi-lo), jointGrain, p.fnJointColour)
		}
	}
	p.jwideDirty = true
	for _, k := range p.jrest[p.jrestStart[maxColors]:p.jrestStart[maxColors+1]] {
		w.solveJoint(&w.joints[k], p.useBias)
	}
}
