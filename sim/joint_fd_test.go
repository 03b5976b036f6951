package sim

import (
	"fmt"
	"math"
	"testing"
	"tumble/sim/internal/vecmath"

	"github.com/go-gl/mathgl/mgl32"
)

// rowCheck is one constraint row: its value C and its Jacobian times the bodies' velocities.
type rowCheck struct {
	name string
	c    float32
	jv   float32
}

// jointRows lists every row of a refreshed joint with its position function and J v.
func (w *World) jointRows(j *joint) []rowCheck {
	var s jointPair
	w.loadJoint(j, &s)
	var out []rowCheck
	add := func(name string, c, jv float32) { out = append(out, rowCheck{name, c, jv}) }
	point := func() {
		p := &j.point
		jv := s.vB.Add(s.wB.Cross(p.rB)).Sub(s.vA).Sub(s.wA.Cross(p.rA))
		add("point.X", p.c.X, jv.X)
		add("point.Y", p.c.Y, jv.Y)
		add("point.Z", p.c.Z, jv.Z)
	}
	rot := func() {
		dw := s.wB.Sub(s.wA)
		add("rotation.X", j.rot.c.X, dw.X)
		add("rotation.Y", j.rot.c.Y, dw.Y)
		add("rotation.Z", j.rot.c.Z, dw.Z)
	}
	def := &j.def
	switch def.Type {
	case Ball:
		point()
		if def.Swing > 0 {
			add("swing", j.swing.c, s.rowVel(&j.swing))
		}
		if def.HasTwist {
			add("twist", j.coord, s.rowVel(&j.twist.lower))
		}
	case Hinge:
		point()
		dw := s.wB.Sub(s.wA)
		add("hinge.1", j.hinge.c[0], j.hinge.u1.Dot(dw))
		add("hinge.2", j.hinge.c[1], j.hinge.u2.Dot(dw))
		add("angle", j.coord, s.rowVel(&j.angle.lower))
	case Piston:
		add("perp.1", j.perp[0].c, s.rowVel(&j.perp[0]))
		add("perp.2", j.perp[1].c, s.rowVel(&j.perp[1]))
		rot()
		add("travel", j.coord, s.rowVel(&j.angle.lower))
	case Fixed:
		point()
		rot()
	}
	return out
}

// Every joint row's Jacobian agrees with a central finite difference of its constraint function
// along the bodies' velocities, at a pose away from the joint's rest pose (so C != 0). The point,
// axis, hinge-rotation, swing and hinge-angle rows are exact there: the check is to float32 rounding
// (tolerance 2e-3 of the velocity scale), the hinge angle where the hinge-rotation rows hold. The
// rotation part's Jacobian is exact only at zero error (its rows are d/dt of 2 vec(qE) at qE = 1, as
// in Jolt), the twist row uses the mean twist axis, and the hinge angle's rate is a1.(wA - wB) only
// on the hinge: these are checked near their rest pose, to a tolerance of the order of the error
// (5e-2).
func TestJointRowsMatchFiniteDifferences(t *testing.T) {
	cases := []struct {
		name string
		def  JointDef
		turn float32 // how far body A is turned from the joint's rest pose, rad
		tol  float32
		axis Vec3 // the axis it is turned about; zero means (0.2, 1, 0.4)
	}{
		{"ball", JointDef{Type: Ball}, 0.5, 2e-3, Vec3{}},
		{"ball swing", JointDef{Type: Ball, Axis: Vec3{0, 1, 0}, Swing: 0.3}, 0.5, 2e-3, Vec3{}},
		{"ball twist", JointDef{Type: Ball, Axis: Vec3{0, 1, 0}, HasTwist: true, Twist: [2]float32{-1, 1}}, 0.05, 5e-2, Vec3{}},
		{"hinge about its axis", JointDef{Type: Hinge, Axis: Vec3{0.3, 0.2, 1}, HasLimits: true, Limits: [2]float32{-1, 1}}, 0.5, 2e-3, Vec3{0.3, 0.2, 1}},
		{"hinge", JointDef{Type: Hinge, Axis: Vec3{0.3, 0.2, 1}, HasLimits: true, Limits: [2]float32{-1, 1}}, 0.05, 5e-2, Vec3{}},
		{"piston", JointDef{Type: Piston, Axis: Vec3{1, 0.5, 0}, HasLimits: true, Limits: [2]float32{-1, 1}}, 0.05, 5e-2, Vec3{}},
		{"fixed", JointDef{Type: Fixed}, 0.05, 5e-2, Vec3{}},
	}
	for _, tc := range cases {
		for _, world := range []bool{false, true} {
			w := NewWorld(Settings{})
			ha := mustAdd(t, w, BodyDef{Shape: boxShape(0.3, 0.2, 0.1), Position: Vec3{0.1, 1, -0.2},
				Rotation: mgl32.QuatRotate(0.7, Vec3{1, 2, 3}.Normalize()), Mass: 2})
			hb := Handle{}
			if !world {
				hb = mustAdd(t, w, BodyDef{Shape: boxShape(0.2, 0.4, 0.3), Position: Vec3{0.6, 1.3, 0.1},
					Rotation: mgl32.QuatRotate(-0.4, Vec3{0, 1, 1}.Normalize()), Mass: 3})
			}
			d := tc.def
			d.BodyA, d.BodyB, d.Anchor = ha, hb, Vec3{0.3, 1.2, 0}
			mustJoint(t, w, d)
			// Move body A off the rest pose, give both bodies velocities.
			b := &w.Bodies
			b.Position[0] = b.Position[0].Add(Vec3{0.02, -0.01, 0.03})
			ax := tc.axis
			if ax == (Vec3{}) {
				ax = Vec3{0.2, 1, 0.4}
			}
			b.Rotation[0] = mgl32.QuatRotate(tc.turn, ax.Normalize()).Mul(b.Rotation[0]).Normalize()
			b.Velocity[0], b.AngularVelocity[0] = Vec3{0.3, -0.2, 0.5}, Vec3{0.7, -0.4, 0.9}
			if !world {
				b.Velocity[1], b.AngularVelocity[1] = Vec3{-0.4, 0.1, 0.2}, Vec3{-0.3, 0.8, 0.5}
			}
			n := b.Len()
			p := &w.pipe
			b.rot = resize(b.rot, n)
			p.graph.count = resize(p.graph.count, n)
			x0, q0 := append([]Vec3(nil), b.Position...), append([]Quat(nil), b.Rotation...)
			pose := func(eps float32) {
				for i := 0; i < n; i++ {
					b.Position[i] = x0[i].Add(b.Velocity[i].Mul(eps))
					om := b.AngularVelocity[i]
					b.Rotation[i] = mgl32.QuatRotate(om.Len()*eps, om.Normalize()).Mul(q0[i]).Normalize()
					b.rot[i] = quatMat3(b.Rotation[i])
					b.InvInertiaWorld[i] = worldInertia(b.Rotation[i], b.InvInertiaLocal[i])
				}
				w.prepareJoints()
				w.jointMasses(0, len(w.joints))
				w.refreshJoint(&w.joints[0])
			}
			const eps = 1e-3
			pose(0)
			rows := w.jointRows(&w.joints[0])
			pose(eps)
			plus := w.jointRows(&w.joints[0])
			pose(-eps)
			minus := w.jointRows(&w.joints[0])
			for k, r := range rows {
				fd := (plus[k].c - minus[k].c) / (2 * eps)
				label := fmt.Sprintf("%s (world %v) %s", tc.name, world, r.name)
				if math.IsNaN(float64(fd)) || vecmath.Abs(fd-r.jv) > tc.tol*(1+vecmath.Abs(r.jv)) {
					t.Errorf("%s: C = %.4f, J v = %.5f, finite difference %.5f", label, r.c, r.jv, fd)
				} else if testing.Verbose() {
					t.Logf("%s: C = %.4f, J v = %.5f, finite difference %.5f", label, r.c, r.jv, fd)
				}
			}
		}
	}
}
