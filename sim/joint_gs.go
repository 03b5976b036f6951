package sim

// The Gauss-Seidel joint pass of the two joint types a ragdoll is made of, written out: a
// ball joint (friction, swing cone, twist limits, anchor point) and a hinge (motor or friction, angle limits, the two
// rotation rows, anchor point). The bodies' velocities stay in locals (registers) across the joint's
// rows instead of in a jointPair in memory, and no impulse sums are kept (a Gauss-Seidel pass writes
// the velocities back and reads none). Each row does the general parts' float32 operations in their
// order (axisPart.solveMotor and solveServo, frictionPart.solve, and jointPair's applyRow, applyAngular and applyPoint; the limit rows
// share axisPart.limitImpulse, the hinge's rotation rows hingeRotationPart.impulse2, the anchor's
// pointPart.impulse3), so the results are the same bits (TestJointKernelsMatchParts). The other types
// go through solveJointParts.

// solveBall is one Gauss-Seidel pass over a ball joint.
func (w *World) solveBall(j *joint, mode PassMode) {
	useBias := mode.bias()
	p := &w.pipe
	soft := &p.joints.jointSoft
	def := &j.def
	vA, wA, vB, wB := w.pairVelocities(j)
	if def.Friction > 0 && !mode.pseudo() { // friction acts on velocities, not poses
		L := j.fric.impulse3(wA, wB, def.Friction/p.plan.ctx.invH)
		wA, wB = wA.Sub(mulMat(&j.iA, L)), wB.Add(mulMat(&j.iB, L))
	}
	if def.Swing > 0 {
		wA, wB = limitRow(&j.swing, wA, wB, soft, useBias, p.plan.ctx.invH)
	}
	if def.HasTwist {
		wA, wB = limitRow(&j.twist.lower, wA, wB, soft, useBias, p.plan.ctx.invH)
		wA, wB = limitRow(&j.twist.upper, wA, wB, soft, useBias, p.plan.ctx.invH)
	}
	if !p.joints.useDirect {
		vA, wA, vB, wB = j.pointRow(vA, wA, vB, wB, soft, useBias)
	}
	w.storePair(j, vA, wA, vB, wB)
}

// solveHinge is one Gauss-Seidel pass over a hinge.
func (w *World) solveHinge(j *joint, mode PassMode) {
	useBias := mode.bias()
	p := &w.pipe
	soft := &p.joints.jointSoft
	def := &j.def
	vA, wA, vB, wB := w.pairVelocities(j)
	if def.driven() && (!mode.pseudo() || def.servo()) { // a speed motor or friction drives velocities, not poses
		r := &j.angle.motor
		m := def.drive()
		maxImpulse := m.MaxForce / p.plan.ctx.invH
		v := r.rb.Dot(wB) - r.ra.Dot(wA)
		var imp float32
		if m.Mode == MotorPosition {
			imp = r.servoImpulse(v, &m, j.coord, !def.HasLimits, p.joints.servoSoft(), useBias, p.plan.ctx.invH, maxImpulse)
		} else {
			acc := min(max(r.impulse+r.mass*(m.Speed-v), -maxImpulse), maxImpulse)
			imp = acc - r.impulse
			r.impulse = acc
		}
		if imp != 0 {
			wA, wB = wA.Sub(r.ia.Scale(imp)), wB.Add(r.ib.Scale(imp))
		}
	}
	if def.HasLimits {
		wA, wB = limitRow(&j.angle.lower, wA, wB, soft, useBias, p.plan.ctx.invH)
		wA, wB = limitRow(&j.angle.upper, wA, wB, soft, useBias, p.plan.ctx.invH)
	}
	if !p.joints.useDirect {
		L := j.hinge.impulse2(wA, wB, soft, useBias)
		wA, wB = wA.Sub(mulMat(&j.iA, L)), wB.Add(mulMat(&j.iB, L))
		vA, wA, vB, wB = j.pointRow(vA, wA, vB, wB, soft, useBias)
	}
	w.storePair(j, vA, wA, vB, wB)
}

// limitRow is axisPart.solveLimit on an angular row (d zero: only the angular velocities change).
func limitRow(r *axisPart, wA, wB vec, soft *softness, useBias bool, invH float32) (vec, vec) {
	imp := r.limitImpulse(r.rb.Dot(wB)-r.ra.Dot(wA), soft, useBias, invH)
	if imp == 0 {
		return wA, wB
	}
	return wA.Sub(r.ia.Scale(imp)), wB.Add(r.ib.Scale(imp))
}

// pointRow is pointPart.solve with jointPair.applyPoint: the anchors' three rows as one block.
func (j *joint) pointRow(vA, wA, vB, wB vec, soft *softness, useBias bool) (vec, vec, vec, vec) {
	pt := &j.point
	imp := pt.impulse3(vA, wA, vB, wB, soft, useBias)
	lA, lB := pt.rA.Cross(imp), pt.rB.Cross(imp)
	return vA.Sub(imp.Scale(j.mA)), wA.Sub(mulMat(&j.iA, lA)), vB.Add(imp.Scale(j.mB)), wB.Add(mulMat(&j.iB, lB))
}

// pairVelocities loads a joint's bodies' velocities (zero for the world).
func (w *World) pairVelocities(j *joint) (vA, wA, vB, wB vec) {
	b := &w.Bodies
	vA, wA = ldv(&b.Velocity[j.a]), ldv(&b.AngularVelocity[j.a])
	if j.b >= 0 {
		vB, wB = ldv(&b.Velocity[j.b]), ldv(&b.AngularVelocity[j.b])
	}
	return
}

// storePair writes a joint's dynamic bodies' velocities back (storeJoint's rule: a static or
// kinematic body, or the world, is never written).
func (w *World) storePair(j *joint, vA, wA, vB, wB vec) {
	b := &w.Bodies
	mB := float32(0) // the world
	if j.b >= 0 {
		mB = b.InvMass[j.b]
	}
	b.storeVelocities(j.a, j.b, b.InvMass[j.a], mB, vA, wA, vB, wB)
}
