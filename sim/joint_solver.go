package sim

import (
	"math"
	"math/bits"
	"slices"
	"tumble/sim/internal/vecmath"

	"github.com/go-gl/mathgl/mgl32"
)

var identity3 = Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}

// prepareJoints resolves each joint's bodies to dense indices, fixes their (split) masses for the
// step, and lists the body pairs that joints connect (they do not collide with each other). The
// pairs come in the joints' order; the sorted list is made again only when that order's list
// differs from the last step's (a joint or a body added, removed or renumbered): comparing is
// linear, sorting is not.
func (w *World) prepareJoints() {
	p := &w.pipe
	pairs := p.joints.pairs[:0]
	for k := range w.joints {
		j := &w.joints[k]
		a, _ := w.dense(j.def.BodyA)
		j.a, j.b = int32(a), -1
		if j.def.BodyB != (Handle{}) {
			o, _ := w.dense(j.def.BodyB)
			j.b = int32(o)
			lo, hi := min(a, o), max(a, o)
			pairs = append(pairs, uint64(lo)<<32|uint64(hi))
		}
	}
	if slices.Equal(pairs, p.joints.lastPairs) {
		p.joints.pairs = pairs
		return
	}
	p.joints.connected = append(p.joints.connected[:0], pairs...)
	slices.Sort(p.joints.connected)
	p.joints.pairs, p.joints.lastPairs = p.joints.lastPairs, pairs
}

// jointMasses fixes each joint's inverse masses and inertias for the step; under Jacobi they are split
// by the number of constraints (contact points and joints) on each body.
func (w *World) jointMasses(lo, hi int) {
	b := &w.Bodies
	p := &w.pipe
	count := p.joints.splitCount
	jacobi := count != nil
	for k := lo; k < hi; k++ {
		j := &w.joints[k]
		sA := float32(1)
		if jacobi {
			sA = float32(max(count[j.a], 1))
		}
		j.mA = b.InvMass[j.a] * sA
		j.iA = scaleMat(b.InvInertiaWorld[j.a], sA)
		j.mB, j.iB = 0, Mat3{}
		if j.b >= 0 {
			sB := float32(1)
			if jacobi {
				sB = float32(max(count[j.b], 1))
			}
			j.mB = b.InvMass[j.b] * sB
			j.iB = scaleMat(b.InvInertiaWorld[j.b], sB)
		}
	}
}

func scaleMat(m Mat3, s float32) Mat3 {
	for i := range m {
		m[i] *= s
	}
	return m
}

// jointed reports whether a joint connects the bodies at dense indices a < b.
func (p *pipeline) jointed(a, b int32) bool {
	if len(p.joints.connected) == 0 {
		return false
	}
	_, ok := slices.BinarySearch(p.joints.connected, uint64(a)<<32|uint64(b))
	return ok
}

// jointPoses returns the current positions and rotation matrices of a joint's bodies (the origin
// and identity for the static world).
func (w *World) jointPoses(j *joint) (xA, xB vec, rA, rB *Mat3) {
	b := &w.Bodies
	xA, rA = ldv(&b.Position[j.a]), &b.rot[j.a]
	xB, rB = vec{}, &identity3
	if j.b >= 0 {
		xB, rB = ldv(&b.Position[j.b]), &b.rot[j.b]
	}
	return
}

// jointRotations returns the current orientations of a joint's bodies (the identity for the static
// world). Only the joints with rotation rows need them: a Quat returned by value goes through memory.
func (w *World) jointRotations(j *joint) (qA, qB Quat) {
	b := &w.Bodies
	qA, qB = b.Rotation[j.a], mgl32.QuatIdent()
	if j.b >= 0 {
		qB = b.Rotation[j.b]
	}
	return
}

// refreshJoint sets every part's rows and position errors from the bodies' current poses. It runs
// before the biased solve and again before the relax pass of each sub-step; a joint of the wide pass
// is refreshed in its lane instead (refreshJointsWide).
func (w *World) refreshJoint(j *joint) {
	xA, xB, RA, RB := w.jointPoses(j)
	rA, rB := mulMat(RA, j.localA), mulMat(RB, j.localB)
	d := xB.Add(rB).Sub(xA).Sub(rA)
	def := &j.def
	switch def.Type {
	case Ball:
		j.point.set(rA, rB, d, j)
		if def.Swing > 0 || def.HasTwist {
			w.refreshSwingTwist(j, RA, RB)
		}
		if def.Friction > 0 {
			j.fric.set(j)
		}
	case Hinge:
		j.point.set(rA, rB, d, j)
		a1 := mulMat(RA, j.axisA)
		b2 := mulMat(RB, j.perpB)
		c2 := mulMat(RB, j.axisB.Cross(j.perpB))
		j.hinge.set(a1, b2, c2, j)
		// The coordinate is A's angle relative to B (a motor on a body hinged to the world turns the
		// body at +speed about the axis), so its rate is a1.(wA - wB): the row is -a1.
		j.coord = hingeAngle(j, RA, RB)
		na1 := a1.Scale(-1)
		j.angle.set(vec{}, na1, na1, j.coord, def.HasLimits, def.Limits[0], def.Limits[1], def.driven(), j)
	case Piston:
		n := mulMat(RA, j.axisA)
		n1 := mulMat(RA, j.perpA)
		n2 := n.Cross(n1)
		ra := rA.Add(d)
		j.perp[0].set(n1, ra.Cross(n1), rB.Cross(n1), n1.Dot(d), j)
		j.perp[1].set(n2, ra.Cross(n2), rB.Cross(n2), n2.Dot(d), j)
		qA, qB := w.jointRotations(j)
		j.rot.set(qA, qB, j.rel0, j)
		// A's travel relative to B along the axis: -n.d, at the rate of the reversed row.
		j.coord = -n.Dot(d)
		nn := n.Scale(-1)
		j.angle.set(nn, ra.Cross(nn), rB.Cross(nn), j.coord, def.HasLimits, def.Limits[0], def.Limits[1], def.driven(), j)
	case Fixed:
		j.point.set(rA, rB, d, j)
		qA, qB := w.jointRotations(j)
		j.rot.set(qA, qB, j.rel0, j)
	}
}

// hingeAngle measures a hinge's angle: body A's rotation about its axis a1 relative to body B, from
// A's reference direction p1 to B's b2 (both perpendicular to the axis at creation), right-handed
// about a1 and zero at the creation pose.
func hingeAngle(j *joint, RA, RB *Mat3) float32 {
	a1, p1, b2 := mulMat(RA, j.axisA), mulMat(RA, j.perpA), mulMat(RB, j.perpB)
	return -float32(math.Atan2(float64(a1.Dot(p1.Cross(b2))), float64(p1.Dot(b2))))
}

// swingTwist measures a ball joint's swing (the angle between the bodies' twist axes) and twist (the
// rotation about B's twist axis after the swing is undone: A's reference direction is carried onto B
// by the shortest rotation from tA to tB, then compared with B's).
func swingTwist(j *joint, RA, RB *Mat3) (tA, tB, e vec, swing, twist float32) {
	tA, tB = mulMat(RA, j.axisA), mulMat(RB, j.axisB)
	e = tA.Cross(tB)
	s, c := vecmath.Sqrt(e.Dot(e)), tA.Dot(tB)
	swing = float32(math.Atan2(float64(s), float64(c)))
	pA, pB := mulMat(RA, j.perpA), mulMat(RB, j.perpB)
	if c > -0.999 {
		pA = pA.Scale(c).Add(e.Cross(pA)).Add(e.Scale(e.Dot(pA) / (1 + c)))
	}
	twist = float32(math.Atan2(float64(tB.Dot(pA.Cross(pB))), float64(pA.Dot(pB))))
	return
}

func (w *World) refreshSwingTwist(j *joint, RA, RB *Mat3) {
	def := &j.def
	tA, tB, e, swing, twist := swingTwist(j, RA, RB)
	j.swingA, j.coord = swing, twist
	if def.Swing > 0 {
		// dswing/dt = e/|e| . (wB - wA); the row holds def.Swing - swing >= 0.
		ax := mulMat(RA, j.perpA)
		if s := vecmath.Sqrt(e.Dot(e)); s > 1e-6 {
			ax = e.Scale(1 / s)
		}
		ax = ax.Scale(-1)
		j.swing.set(vec{}, ax, ax, def.Swing-swing, j)
	}
	if def.HasTwist {
		t := tA.Add(tB)
		t = t.Scale(1 / max(vecmath.Sqrt(t.Dot(t)), 1e-6))
		j.twist.set(vec{}, t, t, twist, true, def.Twist[0], def.Twist[1], false, j)
	}
}

// loadJoint sets s to the joint's bodies' velocities and step masses, with no impulses summed. It
// fills *s field by field: a jointPair built and returned by value was copied in 16-byte moves over
// its fields' 4-byte stores, which stalls store forwarding (a ragdoll's joint pass ran 20% slower).
func (w *World) loadJoint(j *joint, s *jointPair) {
	s.vA, s.wA, s.vB, s.wB = w.pairVelocities(j)
	s.mA, s.mB, s.iA, s.iB = j.mA, j.mB, &j.iA, &j.iB
	s.lin, s.angA, s.angB = vec{}, vec{}, vec{}
	s.noSums = false
}

func (w *World) storeJoint(j *joint, s *jointPair) {
	b := &w.Bodies
	if b.InvMass[j.a] != 0 {
		stp(&b.Velocity[j.a], &s.vA)
		stp(&b.AngularVelocity[j.a], &s.wA)
	}
	if j.b >= 0 && b.InvMass[j.b] != 0 {
		stp(&b.Velocity[j.b], &s.vB)
		stp(&b.AngularVelocity[j.b], &s.wB)
	}
}

// sums copies the impulses s summed into the joint's sum (pipeline.jsums), for gatherImpulses (field
// by field, see stp).
func (s *jointPair) sums(j *impulseSum) {
	j.lin.X, j.lin.Y, j.lin.Z = s.lin.X, s.lin.Y, s.lin.Z
	j.angA.X, j.angA.Y, j.angA.Z = s.angA.X, s.angA.Y, s.angA.Z
	j.angB.X, j.angB.Y, j.angB.Z = s.angB.X, s.angB.Y, s.angB.Z
}

// warmJoint records a joint's accumulated impulses for gatherImpulses to apply: the sums of its
// parts' impulses only (the velocities are gatherImpulses' to change).
func (w *World) warmJoint(j *joint, sum *impulseSum) {
	s := jointPair{sumsOnly: true}
	def := &j.def
	switch def.Type {
	case Ball:
		s.applyPoint(j.point.impulse, j.point.rA, j.point.rB)
		if def.Swing > 0 {
			s.applyRow(j.swing.impulse, &j.swing)
		}
		if def.HasTwist {
			j.twist.warm(&s, true, false)
		}
		if def.Friction > 0 {
			s.applyAngular(j.fric.impulse)
		}
	case Hinge:
		s.applyPoint(j.point.impulse, j.point.rA, j.point.rB)
		j.hinge.warm(&s)
		j.angle.warm(&s, def.HasLimits, def.driven())
	case Piston:
		s.applyRow(j.perp[0].impulse, &j.perp[0])
		s.applyRow(j.perp[1].impulse, &j.perp[1])
		s.applyAngular(j.rot.impulse)
		j.angle.warm(&s, def.HasLimits, def.driven())
	case Fixed:
		s.applyPoint(j.point.impulse, j.point.rA, j.point.rB)
		s.applyAngular(j.rot.impulse)
	}
	s.sums(sum)
}

// solveJointParts runs one pass over a joint's parts: motor (or friction) and limits first, then the
// equality parts, so the parts that must hold are solved last (Box2D's order). Under the direct joint
// solve (joint_direct.go) the equality parts are left to it.
func (w *World) solveJointParts(j *joint, s *jointPair, mode PassMode) {
	useBias := mode.bias()
	p := &w.pipe
	soft := &p.joints.jointSoft
	lsoft := &p.joints.limitSoft // the limit rows'
	def := &j.def
	pseudo := mode.pseudo() // speed motors and friction act on velocities, not poses; a servo on both
	var motor *Motor
	var drive Motor
	if def.driven() && (!pseudo || def.servo()) {
		drive = def.drive()
		motor = &drive
	}
	switch def.Type {
	case Ball:
		if def.Friction > 0 && !pseudo {
			j.fric.solve(s, def.Friction/p.plan.ctx.invH)
		}
		if def.Swing > 0 {
			j.swing.solveLimit(s, lsoft, useBias, p.plan.ctx.invH)
		}
		if def.HasTwist {
			j.twist.solve(s, lsoft, nil, useBias, p.plan.ctx.invH, true, nil, 0, false)
		}
		if !p.joints.useDirect {
			j.point.solve(s, soft, useBias)
		}
	case Hinge:
		j.angle.solve(s, lsoft, p.joints.servoSoft(), useBias, p.plan.ctx.invH, def.HasLimits, motor, j.coord, motorWraps(def.Type, def.HasLimits))
		if !p.joints.useDirect {
			j.hinge.solve(s, soft, useBias)
			j.point.solve(s, soft, useBias)
		}
	case Piston:
		j.angle.solve(s, lsoft, p.joints.servoSoft(), useBias, p.plan.ctx.invH, def.HasLimits, motor, j.coord, motorWraps(def.Type, def.HasLimits))
		if !p.joints.useDirect {
			j.rot.solve(s, soft, useBias)
			j.perp[0].solveEquality(s, soft, useBias)
			j.perp[1].solveEquality(s, soft, useBias)
		}
	case Fixed:
		if !p.joints.useDirect { // its rows are all equalities, solved by solveJointsDirect
			j.rot.solve(s, soft, useBias)
			j.point.solve(s, soft, useBias)
		}
	}
}

// solveJoint is one Gauss-Seidel pass over a joint (bodies of one colour are disjoint): ball joints
// and hinges through their written-out kernels (joint_gs.go), the other types through their parts.
func (w *World) solveJoint(j *joint, mode PassMode) {
	if !w.pipe.work.opts.partJoints {
		switch j.def.Type {
		case Ball:
			w.solveBall(j, mode)
			return
		case Hinge:
			w.solveHinge(j, mode)
			return
		}
	}
	var s jointPair
	w.loadJoint(j, &s)
	s.noSums = true
	w.solveJointParts(j, &s, mode)
	w.storeJoint(j, &s)
}

// jacobiJoint solves a joint's parts from the pass's start velocities against its split masses and
// records the impulses for gatherImpulses; it writes no body.
func (w *World) jacobiJoint(j *joint, sum *impulseSum, mode PassMode) {
	var s jointPair
	w.loadJoint(j, &s)
	w.solveJointParts(j, &s, mode)
	s.sums(sum)
}

// jointForce is the joint's constraint force over the last sub-step: its translation impulse over h.
func (j *joint) force(invH float32) float32 {
	var l2 float32
	switch j.def.Type {
	case Ball, Hinge, Fixed:
		l2 = j.point.impulse.Dot(j.point.impulse)
	case Piston:
		t := j.angle.lower.impulse - j.angle.upper.impulse + j.angle.motor.impulse
		l2 = j.perp[0].impulse*j.perp[0].impulse + j.perp[1].impulse*j.perp[1].impulse + t*t
	}
	return vecmath.Sqrt(l2) * invH
}

// breakJoints removes the joints whose force exceeded their break force this step and reports them in
// w.Broken.
func (w *World) breakJoints() {
	broke := false
	for k := range w.joints {
		j := &w.joints[k]
		if j.def.BreakForce > 0 {
			if f := w.pipe.plan.solver.jointForce(w, j); f > j.def.BreakForce {
				w.Broken = append(w.Broken, BrokenJoint{Index: k, Def: j.def, Force: f, Step: w.StepCount + 1})
				j.broken = true
				broke = true
			}
		}
	}
	if !broke { // the usual step: no joint is copied
		return
	}
	kept := w.joints[:0]
	for k := range w.joints {
		if j := &w.joints[k]; !j.broken {
			kept = append(kept, *j)
		}
	}
	clear(w.joints[len(kept):])
	w.joints = kept
}

// colourJoints colours the joints the way colourManifolds colours manifolds (a joint is an edge between
// its two dynamic bodies); the joints of one colour are solved in parallel.
func (p *pipeline) colourJoints(b *Bodies, joints []joint) {
	used := p.graph.bodyColors
	for i := range used {
		used[i] = 0
	}
	var count [maxColors + 1]int32
	for k := range joints {
		j := &joints[k]
		var busy uint64
		dynA := b.InvMass[j.a] != 0
		dynB := j.b >= 0 && b.InvMass[j.b] != 0
		if dynA {
			busy |= used[j.a]
		}
		if dynB {
			busy |= used[j.b]
		}
		c := bits.TrailingZeros64(^busy)
		if c < maxColors {
			bit := uint64(1) << c
			if dynA {
				used[j.a] |= bit
			}
			if dynB {
				used[j.b] |= bit
			}
		}
		j.color = uint8(c)
		count[c]++
	}
	p.graph.jointColorStart = resize(p.graph.jointColorStart, maxColors+2)
	start := int32(0)
	for c := 0; c <= maxColors; c++ {
		p.graph.jointColorStart[c] = start
		start += count[c]
	}
	p.graph.jointColorStart[maxColors+1] = start
	p.graph.jointColorOrder = resize(p.graph.jointColorOrder, len(joints))
	var next [maxColors + 1]int32
	copy(next[:], p.graph.jointColorStart[:maxColors+1])
	for k := range joints {
		c := joints[k].color
		p.graph.jointColorOrder[next[c]] = int32(k)
		next[c]++
	}
}

// jointAdjacency lists, for every body, the joints touching it (as buildAdjacency does for manifolds)
// and adds one to each dynamic body's constraint count per joint (Jacobi's mass splitting).
func (p *pipeline) jointAdjacency(n int, joints []joint) {
	p.graph.jointAdjStart = resize(p.graph.jointAdjStart, n+1)
	clear(p.graph.jointAdjStart)
	for k := range joints {
		j := &joints[k]
		p.graph.jointAdjStart[j.a+1]++
		p.graph.count[j.a]++
		if j.b >= 0 {
			p.graph.jointAdjStart[j.b+1]++
			p.graph.count[j.b]++
		}
	}
	for i := 0; i < n; i++ {
		p.graph.jointAdjStart[i+1] += p.graph.jointAdjStart[i]
	}
	p.graph.jointAdj = resize(p.graph.jointAdj, int(p.graph.jointAdjStart[n]))
	copy(p.graph.fill, p.graph.jointAdjStart[:n])
	for k := range joints {
		j := &joints[k]
		p.graph.jointAdj[p.graph.fill[j.a]] = int32(k) << 1
		p.graph.fill[j.a]++
		if j.b >= 0 {
			p.graph.jointAdj[p.graph.fill[j.b]] = int32(k)<<1 | 1
			p.graph.fill[j.b]++
		}
	}
}

// eachJointColour runs fn over the joints of each colour in turn, then the overflow serially.
func (w *World) eachJointColour(l loop) {
	p := &w.pipe
	w.runColours(p.graph.jointColorStart, p.graph.jointColorOrder, jointGrain, l)
}

// jointGrain: a loop over joints (mass, refresh, warm start, a colour's pass, ~100 ns a joint) runs on
// the workers only when it gives each of two at least this many (see bodyGrain).
const jointGrain = 512

// jointDampingRatio is the damping ratio of the joints' soft rows (Box2D v3's default is 2).
const jointDampingRatio = 2

// resetJointImpulses zeroes every part's accumulated impulse (no warm starting).
func (w *World) resetJointImpulses() {
	for k := range w.joints {
		j := &w.joints[k]
		j.point.impulse, j.rot.impulse = vec{}, vec{}
		j.hinge.impulse = [2]float32{}
		j.perp[0].impulse, j.perp[1].impulse, j.swing.impulse = 0, 0, 0
		j.angle.motor.impulse, j.angle.lower.impulse, j.angle.upper.impulse = 0, 0, 0
		j.twist.lower.impulse, j.twist.upper.impulse = 0, 0
		j.fric.impulse = vec{}
	}
}

// servoSoft returns the softness a servo's row takes near its target (axisPart.solveServo): the
// joints' under a soft step, nil under a plan without a biased solve.
func (s *jointStage) servoSoft() *softness {
	if !s.softSolve {
		return nil
	}
	return &s.jointSoft
}

// jointStage is the joints' rows for the step.
type jointStage struct {
	connected  []uint64 // jointed body pairs (a<<32 | b, a < b), sorted: they do not collide
	split      bool     // the solver's rows use split masses (Jacobi)
	splitCount []int32  // with split, per body: the rows its mass is split between (the graph's count); else nil
	jointSoft  softness
	limitSoft  softness     // the limit rows' (stepSoftness): jointSoft's but under split masses
	softSolve  bool         // the plan's solve passes are biased (a soft step): servos near their targets are soft rows
	useDirect  bool         // the joints' equality rows are solved directly (Settings.DirectJoints)
	direct     directSystem // the direct joint solve's system
	jsums      []impulseSum // per joint: the same (kept apart from the joints for the gather, as sums)

	// the jointed pairs in the joints' order as prepareJoints found them last (lastPairs, which
	// connected holds sorted), and its scratch list (pairs)
	pairs, lastPairs []uint64
}
