package ui

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/render"
	"tumble/render/instance"
	"tumble/sim"
	"tumble/sim/geom"
)

var (
	colContact  = [4]float32{1, 0.2, 0.2, 1}
	colNormal   = [4]float32{1, 1, 0.2, 1}
	colFriction = [4]float32{0.2, 1, 0.4, 1}
	colAABB     = [4]float32{0.3, 0.9, 1, 1}
	colCOM      = [4]float32{1, 1, 1, 1}
	colVel      = [4]float32{1, 0.4, 1, 1}
	colJoint    = [4]float32{0.2, 0.4, 1, 1}
	colHover    = [4]float32{1, 1, 1, 1}
	colBVH      = [4]float32{1, 0.6, 0.1, 1}
	colSpawn    = [4]float32{0.3, 1, 0.3, 1}
)

// debugLines adds the enabled debug layers to the frame.
func (a *App) debugLines(w *sim.World, contacts []sim.ContactPoint) {
	f := &a.frame
	d := &a.Debug
	b := &w.Bodies
	// Impulses drawn relative to the largest of the frame: the longest line is 0.6 m whatever the masses.
	var maxN, maxT float32
	for _, c := range contacts {
		maxN = max(maxN, c.NormalImpulse)
		maxT = max(maxT, c.FrictionImpulse.Len())
	}
	for _, c := range contacts {
		if d.Contacts {
			f.Cross(c.Position, 0.05, colContact)
		}
		if d.Normals {
			l := float32(0.05)
			if maxN > 0 {
				l += 0.55 * c.NormalImpulse / maxN
			}
			f.Line(c.Position, c.Position.Add(c.Normal.Mul(l)), colNormal)
		}
		if d.Friction {
			if maxT > 0 {
				f.Line(c.Position, c.Position.Add(c.FrictionImpulse.Mul(0.6/maxT)), colFriction)
			}
		}
	}
	if p := a.spawnMark; p != nil { // a cross on the spot and a post above it, as large on screen at any distance
		s := 0.03 * a.Cam.Eye().Sub(*p).Len()
		f.Cross(*p, s, colSpawn)
		f.Line(*p, p.Add(mgl32.Vec3{0, 3 * s, 0}), colSpawn)
	}
	a.hoverMark(f)
	for i := range b.Len() {
		if b.Shape[i].Kind == geom.Plane {
			continue
		}
		if d.AABBs {
			box := b.Shape[i].Bounds(geom.Pose{P: b.Position[i], Q: b.Rotation[i]})
			f.Box(box.Min, box.Max, colAABB)
		}
		if d.COM {
			f.Cross(b.Position[i], 0.1, colCOM)
		}
		if d.Velocities && b.Type[i] != sim.Static {
			f.Line(b.Position[i], b.Position[i].Add(b.Velocity[i].Mul(0.25)), colVel)
		}
	}
	if d.BVH {
		a.bvhBoxes = w.BVHLevel(d.BVHDepth, a.bvhBoxes[:0])
		for _, box := range a.bvhBoxes {
			if box.Max[0]-box.Min[0] < geom.PlaneExtent { // a plane's box would fill the view
				f.Box(box.Min, box.Max, colBVH)
			}
		}
	}
	// Joints and the selection's outline go over the bodies (a hinge sits inside its planks).
	n0 := len(f.Lines)
	pose := hostPoses(w)
	if d.Joints || a.panel.joint.a != (sim.Handle{}) {
		for k := range w.NumJoints() {
			jointLines(f, w, pose, k, a.showsLimits(w, k))
		}
	}
	if i, ok := w.Index(a.Selected); ok && b.Shape[i].Kind != geom.Plane {
		selectionOutline(f, b.Shape[i], b.Position[i], b.Rotation[i])
	}
	a.probeLines(f) // over the bodies: a ray's hit lies on a surface

	f.Overlay = append(f.Overlay[:0], f.Lines[n0:]...)
	f.Lines = f.Lines[:n0]
	if d.Joints || a.panel.joint.a != (sim.Handle{}) {
		for k := range w.NumJoints() {
			jointLinks(f, w, pose, k)
		}
	}
}

// hoverMark marks the point of the contacts table's row under the mouse, if any: a cross in a small
// box. It needs no body state, so the interop path draws it as the host path does.
func (a *App) hoverMark(f *render.Frame) {
	if a.hoverPoint != nil {
		p := *a.hoverPoint
		f.Cross(p, 0.25, colHover)
		f.Box(p.Sub(mgl32.Vec3{0.08, 0.08, 0.08}), p.Add(mgl32.Vec3{0.08, 0.08, 0.08}), colHover)
	}
}

// poses gives the pose of the body at a dense index that the joints layer draws from: the host copy
// of the bodies (hostPoses), or on the interop path the joints' bodies read back one by one
// (App.devicePoses).
type poses func(i int) (sim.Vec3, sim.Quat)

// hostPoses reads the poses from w's Bodies (current after a Sync).
func hostPoses(w *sim.World) poses {
	b := &w.Bodies
	return func(i int) (sim.Vec3, sim.Quat) { return b.Position[i], b.Rotation[i] }
}

// jointLinks draws the lines from joint k's bodies' centres to its anchors, among the bodies rather
// than over them: drawn over, a line into a body's centre would cover it.
func jointLinks(f *render.Frame, w *sim.World, pose poses, k int) {
	jf := w.JointFrame(k)
	ia, ok := w.Index(jf.Def.BodyA)
	if !ok {
		return
	}
	xA, qA := pose(ia)
	f.Line(xA, xA.Add(qA.Rotate(jf.LocalA)), colJoint)
	if ib, ok := w.Index(jf.Def.BodyB); ok && jf.Def.BodyB != (sim.Handle{}) {
		xB, qB := pose(ib)
		f.Line(xB, xB.Add(qB.Rotate(jf.LocalB)), colJoint)
	}
}

// showsLimits reports whether joint k's limits are drawn: a joint of the selected body, or the one
// the Joints section inspects. Every joint's limits at once bury a ragdoll in cones.
func (a *App) showsLimits(w *sim.World, k int) bool {
	if k == a.panel.joint.selected {
		return true
	}
	def := w.Joint(k)
	return a.Selected != (sim.Handle{}) && (def.BodyA == a.Selected || def.BodyB == a.Selected)
}

// selectionOutline draws the selected body's box (a box's own faces, turned with it; another shape's
// axis-aligned bounds; a compound's shapes' each), a little outside it, in the selection colour.
func selectionOutline(f *render.Frame, sh geom.Shape, p mgl32.Vec3, q mgl32.Quat) {
	const grow = 1.06
	if sh.Kind == geom.Compound { // each shape outlined on its own
		for c := range sh.Compound.Children {
			cp := sh.Compound.ChildPose(geom.Pose{P: p, Q: q}, c)
			selectionOutline(f, sh.Compound.Children[c].Shape, cp.P, cp.Q)
		}
		return
	}
	if sh.Kind == geom.Box {
		h := sh.HalfExtents.Mul(grow)
		corner := func(i int) mgl32.Vec3 {
			c := h
			for k := range 3 {
				if i>>k&1 == 0 {
					c[k] = -c[k]
				}
			}
			return p.Add(q.Rotate(c))
		}
		for i := range 8 {
			for k := range 3 {
				if j := i | 1<<k; j != i {
					f.Line(corner(i), corner(j), instance.ColorSelected)
				}
			}
		}
		return
	}
	box := sh.Bounds(geom.Pose{P: p, Q: q})
	c, h := box.Min.Add(box.Max).Mul(0.5), box.Max.Sub(box.Min).Mul(0.5*grow)
	f.Box(c.Sub(h), c.Add(h), instance.ColorSelected)
}

// Joint drawing: sizes (m) and the colour of the joint's current coordinate.
const (
	jointAxisLen  = 0.6  // half the axis line of a hinge or piston
	jointFanLen   = 0.4  // a hinge's limit fan, and its current angle (a little longer)
	jointConeLen  = 0.3  // a ball joint's swing cone (its slant height) and current twist axis
	jointTwistLen = 0.15 // a ball joint's twist limits, drawn at the cone's tip
	jointArcSteps = 12   // segments of a limit arc or fan
	jointRimSteps = 24   // segments of a swing cone's rim
)

var colJointNow = [4]float32{0.4, 1, 0.2, 1}

// A joint's drawing is scaled by jointScale: the sizes above are for a joint whose anchor lies
// jointRefReach or more from its bodies' centres (a door's hinge); a ragdoll's small joints draw
// smaller, down to jointMinScale, so that their axes and cones do not cover the limbs.
const (
	jointRefReach = 0.5 // m
	jointMinScale = 0.25
)

// jointScale is joint k's drawing scale: its anchor's distance from the farther of its bodies'
// centres over jointRefReach, between jointMinScale and 1.
func jointScale(w *sim.World, k int) float32 {
	jf := w.JointFrame(k)
	reach := jf.LocalA.Len()
	if jf.B >= 0 {
		reach = max(reach, jf.LocalB.Len())
	}
	return min(max(reach/jointRefReach, jointMinScale), 1)
}

// jointLines draws joint k as it is now. Its anchors, axes and reference directions are the frames
// fixed in each body at creation (World.JointFrame) turned by the bodies' current rotations, so they move
// with the bodies. Every joint gets a cross at body A's anchor (jointLinks draws the lines from the
// bodies' centres to their anchors). The limits are drawn in body B's frame (the world's for a joint to the world), in red,
// and body A's current coordinate among them, in green, so one sees how near a limit the joint is:
//   - hinge: the axis; the fan of allowed angles; A's reference direction (its angle).
//   - piston: the slide axis; the segment between the two stops; the slider's position on it.
//   - ball with a swing cone or twist limits: the cone about B's twist axis (its rim at the swing
//     angle), the twist limits as an arc at the cone's tip, A's twist axis and A's reference direction
//     carried onto B's axis (its twist).
//   - fixed: a small box at the anchor, turned with body A.
//
// Without limits (a joint neither selected nor of the selected body) the red parts are left out.
func jointLines(f *render.Frame, w *sim.World, pose poses, k int, limits bool) {
	jf := w.JointFrame(k)
	def := jf.Def
	ia, ok := w.Index(def.BodyA)
	if !ok {
		return
	}
	xA, qA := pose(ia)
	xB, qB := sim.Vec3{}, mgl32.QuatIdent()
	ib, okB := w.Index(def.BodyB)
	if def.BodyB != (sim.Handle{}) {
		if !okB {
			return
		}
		xB, qB = pose(ib)
	}
	anchorA, anchorB := xA.Add(qA.Rotate(jf.LocalA)), xB.Add(qB.Rotate(jf.LocalB))
	axisA, axisB := qA.Rotate(jf.AxisA), qB.Rotate(jf.AxisB)
	perpA, perpB := qA.Rotate(jf.PerpA), qB.Rotate(jf.PerpB)
	sc := jointScale(w, k)
	axisLen, fanLen, coneLen, twistLen := sc*jointAxisLen, sc*jointFanLen, sc*jointConeLen, sc*jointTwistLen

	f.Cross(anchorA, 0.15*sc, colJoint)
	switch def.Type {
	case sim.Hinge:
		f.Line(anchorA.Sub(axisA.Mul(axisLen)), anchorA.Add(axisA.Mul(axisLen)), colNormal)
		if def.HasLimits && limits {
			// The hinge angle is A's rotation about the axis relative to B: A's reference direction
			// is B's turned by the angle, so the allowed directions are B's turned by lo..hi.
			fan(f, anchorB, axisB, perpB, def.Limits[0], def.Limits[1], fanLen, true)
		}
		f.Line(anchorA, anchorA.Add(perpA.Mul(1.15*fanLen)), colJointNow)
	case sim.Piston:
		f.Line(anchorA.Sub(axisA.Mul(axisLen)), anchorA.Add(axisA.Mul(axisLen)), colNormal)
		if def.HasLimits && limits {
			lo, hi := anchorB.Add(axisB.Mul(def.Limits[0])), anchorB.Add(axisB.Mul(def.Limits[1]))
			f.Line(lo, hi, colContact)
			f.Cross(lo, 0.08*sc, colContact)
			f.Cross(hi, 0.08*sc, colContact)
		}
		// The travel is A's anchor's offset from B's along the axis; a tick across the axis there.
		p := anchorB.Add(axisB.Mul(axisA.Dot(anchorA.Sub(anchorB))))
		f.Line(p.Sub(perpB.Mul(0.12*sc)), p.Add(perpB.Mul(0.12*sc)), colJointNow)
	case sim.Ball:
		if !(def.Swing > 0 || def.HasTwist) {
			return // a plain ball joint has no axis
		}
		side := axisB.Cross(perpB)
		if def.Swing > 0 && limits {
			sn, cs := sin32(def.Swing), cos32(def.Swing)
			rim := func(i int) mgl32.Vec3 {
				phi := 2 * math.Pi * float64(i) / jointRimSteps
				r := perpB.Mul(float32(math.Cos(phi))).Add(side.Mul(float32(math.Sin(phi))))
				return anchorB.Add(axisB.Mul(cs * coneLen)).Add(r.Mul(sn * coneLen))
			}
			for i := range jointRimSteps {
				f.Line(rim(i), rim(i+1), colContact)
				if i%(jointRimSteps/4) == 0 {
					f.Line(anchorB, rim(i), colContact)
				}
			}
		}
		tip := anchorB.Add(axisB.Mul(coneLen))
		if def.HasTwist && limits {
			// The twist is B's rotation relative to A about B's axis: A's reference direction, carried
			// onto B's axis, is B's turned by -twist, so the allowed directions are B's turned by
			// -hi..-lo.
			fan(f, tip, axisB, perpB, -def.Twist[1], -def.Twist[0], twistLen, false)
		}
		f.Line(anchorA, anchorA.Add(axisA.Mul(1.15*coneLen)), colJointNow)
		// A's reference direction carried by the shortest rotation from A's twist axis onto B's.
		c, e := axisA.Dot(axisB), axisA.Cross(axisB)
		pa := perpA
		if c > -0.999 {
			pa = pa.Mul(c).Add(e.Cross(pa)).Add(e.Mul(e.Dot(pa) / (1 + c)))
		}
		f.Line(tip, tip.Add(pa.Mul(1.3*twistLen)), colJointNow)
	case sim.Fixed:
		orientedBox(f, anchorA, qA, 0.08*sc, colJoint)
	}
}

// fan draws the directions u turned about the unit axis by lo..hi as an arc of radius r about c, with
// its two ends as rays from c (and, with rays, every step's ray too).
func fan(f *render.Frame, c, axis, u mgl32.Vec3, lo, hi, r float32, rays bool) {
	at := func(i int) mgl32.Vec3 {
		ang := lo + (hi-lo)*float32(i)/jointArcSteps
		return c.Add(mgl32.QuatRotate(ang, axis).Rotate(u).Mul(r))
	}
	for i := 0; i <= jointArcSteps; i++ {
		if rays || i == 0 || i == jointArcSteps {
			f.Line(c, at(i), colContact)
		}
		if i < jointArcSteps {
			f.Line(at(i), at(i+1), colContact)
		}
	}
}

// orientedBox draws the 12 edges of a cube of half size h centred on c, turned by q.
func orientedBox(f *render.Frame, c mgl32.Vec3, q mgl32.Quat, h float32, col [4]float32) {
	corner := func(i int) mgl32.Vec3 {
		p := mgl32.Vec3{-h, -h, -h}
		for k := range 3 {
			if i>>k&1 == 1 {
				p[k] = h
			}
		}
		return c.Add(q.Rotate(p))
	}
	for i := range 8 {
		for k := range 3 {
			if j := i | 1<<k; j != i {
				f.Line(corner(i), corner(j), col)
			}
		}
	}
}

func sin32(x float32) float32 { return float32(math.Sin(float64(x))) }
func cos32(x float32) float32 { return float32(math.Cos(float64(x))) }
