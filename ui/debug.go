package ui

import (
	"github.com/go-gl/mathgl/mgl32"

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
	if a.hoverPoint != nil {
		p := *a.hoverPoint
		f.Cross(p, 0.25, colHover)
		f.Box(p.Sub(mgl32.Vec3{0.08, 0.08, 0.08}), p.Add(mgl32.Vec3{0.08, 0.08, 0.08}), colHover)
	}
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
	if d.Joints || a.panel.jointA != (sim.Handle{}) {
		for k := range w.NumJoints() {
			j := w.Joint(k)
			ia, _ := w.Index(j.BodyA)
			f.Cross(j.Anchor, 0.15, colJoint)
			f.Line(b.Position[ia], j.Anchor, colJoint)
			if ib, ok := w.Index(j.BodyB); ok {
				f.Line(b.Position[ib], j.Anchor, colJoint)
			}
			if j.Type == sim.Hinge || j.Type == sim.Piston {
				f.Line(j.Anchor.Sub(j.Axis.Mul(0.6)), j.Anchor.Add(j.Axis.Mul(0.6)), colNormal)
				if j.HasLimits && j.Type == sim.Piston {
					f.Cross(j.Anchor.Add(j.Axis.Mul(j.Limits[0])), 0.08, colContact)
					f.Cross(j.Anchor.Add(j.Axis.Mul(j.Limits[1])), 0.08, colContact)
				}
				if j.HasLimits && j.Type == sim.Hinge {
					// The limit arc: a fan of the allowed angles about the axis.
					u := perp(j.Axis)
					const n = 12
					for s := 0; s <= n; s++ {
						ang := j.Limits[0] + (j.Limits[1]-j.Limits[0])*float32(s)/n
						r := mgl32.QuatRotate(ang, j.Axis).Rotate(u)
						f.Line(j.Anchor, j.Anchor.Add(r.Mul(0.4)), colContact)
					}
				}
			}
		}
	}
}

func perp(n mgl32.Vec3) mgl32.Vec3 {
	t := mgl32.Vec3{1, 0, 0}
	if n[0] > 0.9 || n[0] < -0.9 {
		t = mgl32.Vec3{0, 1, 0}
	}
	return n.Cross(t).Normalize()
}
