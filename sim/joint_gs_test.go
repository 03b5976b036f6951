package sim

import (
	"testing"

	"tumble/sim/geom"
)

// jointKernelScene is a small ragdoll-like tangle that falls on the ground: capsule limbs on ball
// joints with swing cones and twist limits, a hinged pair with angle limits and a motor, a hinge and
// a free ball joint to the world, two hinges with position motors, so that every row of the written-out kernels acts, at and away from
// its limits, with contacts pushing the limbs.
func jointKernelScene(t *testing.T, s Settings) *World {
	w := gravityWorld(s)
	groundPlane(t, w, 0.6, 0)
	addTangle(t, w, 0)
	// Position motors (servos): an arm on the world that must lift against gravity (no limits: the
	// error taken the short way round), and a pair with limits whose target is past its upper limit.
	arm := mustAdd(t, w, BodyDef{Shape: boxShape(0.3, 0.05, 0.05), Position: Vec3{4.3, 2, 0}, Mass: 1})
	mustJoint(t, w, JointDef{Type: Hinge, BodyA: arm, Anchor: Vec3{4, 2, 0}, Axis: Vec3{0, 0, 1},
		HasMotor: true, Motor: Motor{Mode: MotorPosition, Target: 1, Speed: 3, MaxForce: 4}})
	p := mustAdd(t, w, BodyDef{Shape: boxShape(0.3, 0.1, 0.1), Position: Vec3{5.3, 1.5, 0}, Mass: 1})
	mustJoint(t, w, JointDef{Type: Hinge, BodyA: p, BodyB: arm, Anchor: Vec3{4.6, 2, 0}, Axis: Vec3{0, 0, 1},
		HasLimits: true, Limits: [2]float32{-0.5, 0.5}, HasMotor: true, Motor: Motor{Mode: MotorPosition, Target: 0.8, MaxForce: 2}})
	return w
}

// addTangle adds jointKernelScene's bodies and joints to w, moved z along the z axis.
func addTangle(t testing.TB, w *World, z float32) {
	limb := geom.Shape{Kind: geom.Capsule, Radius: 0.08, HalfHeight: 0.2}
	var prev Handle
	for k := range 5 { // a chain of limbs, each kicked
		y := 2.5 - 0.5*float32(k)
		h := mustAdd(t, w, BodyDef{Shape: limb, Position: Vec3{0.1 * float32(k), y, z}, Mass: 1,
			Velocity: Vec3{float32(k%3) - 1, 0, 1}, AngularVelocity: Vec3{0, float32(5 * (k % 2)), 2}})
		d := JointDef{Type: Ball, BodyA: h, BodyB: prev, Anchor: Vec3{0.1 * float32(k), y + 0.25, z},
			Axis: Vec3{0, 1, 0}, Swing: 0.5, HasTwist: true, Twist: [2]float32{-0.3, 0.3}}
		mustJoint(t, w, d)
		prev = h
	}
	a := mustAdd(t, w, BodyDef{Shape: boxShape(0.3, 0.1, 0.1), Position: Vec3{2, 1.5, z}, Mass: 2,
		AngularVelocity: Vec3{0, 0, 4}})
	b := mustAdd(t, w, BodyDef{Shape: boxShape(0.3, 0.1, 0.1), Position: Vec3{2.6, 1.5, z}, Mass: 1})
	mustJoint(t, w, JointDef{Type: Hinge, BodyA: a, BodyB: b, Anchor: Vec3{2.3, 1.5, z}, Axis: Vec3{0, 0, 1},
		HasLimits: true, Limits: [2]float32{-0.4, 0.6}, HasMotor: true, Motor: Motor{Speed: 3, MaxForce: 4}})
	c := mustAdd(t, w, BodyDef{Shape: boxShape(0.2, 0.2, 0.2), Position: Vec3{-2, 1.2, z}, Mass: 1,
		AngularVelocity: Vec3{3, 0, 0}})
	mustJoint(t, w, JointDef{Type: Hinge, BodyA: c, Anchor: Vec3{-2, 1.5, z}, Axis: Vec3{1, 0, 0},
		HasLimits: true, Limits: [2]float32{-1, 1}})
	e := mustAdd(t, w, BodyDef{Shape: sphereShape(0.2), Position: Vec3{-3, 1, z}, Mass: 1, Velocity: Vec3{0, 0, 3}})
	mustJoint(t, w, JointDef{Type: Ball, BodyA: e, Anchor: Vec3{-3, 2, z}})
}

// The written-out ball and hinge kernels give the parts' results bit for bit, under PGS (with the
// joints' rows iterative and solved directly) and under the rigid solver (its position passes skip
// the motor), over 240 steps.
func TestJointKernelsMatchParts(t *testing.T) {
	for _, s := range []Settings{{Solver: PGS}, {Solver: PGS, DirectJoints: true}, {Solver: Rigid}} {
		ref := jointKernelScene(t, s)
		mustOptions(t, ref, Options{partJoints: true})
		got := jointKernelScene(t, s)
		limits, contacts := 0, 0
		for step := range 240 {
			run(t, ref, 1)
			run(t, got, 1)
			for i := range ref.Bodies.Position {
				a, b := &ref.Bodies, &got.Bodies
				if !sameBits(a.Position[i], b.Position[i]) || !sameBits(a.Velocity[i], b.Velocity[i]) ||
					!sameBits(a.AngularVelocity[i], b.AngularVelocity[i]) || a.Rotation[i] != b.Rotation[i] {
					t.Fatalf("%v direct %v, step %d, body %d: parts %v %v, kernels %v %v", s.Solver, s.DirectJoints,
						step, i, a.Position[i], a.Velocity[i], b.Position[i], b.Velocity[i])
				}
			}
			for k := range got.joints {
				j := &got.joints[k]
				if j.swing.impulse > 0 || j.twist.lower.impulse > 0 || j.twist.upper.impulse > 0 ||
					j.angle.lower.impulse > 0 || j.angle.upper.impulse > 0 {
					limits++
				}
			}
			contacts += got.Stats.Manifolds
		}
		// The scene must reach the limits and the ground it is there for.
		if limits < 100 || contacts < 100 {
			t.Fatalf("%v: limits held %d joint-steps, contacts %d manifold-steps: the scene does not exercise the kernels",
				s.Solver, limits, contacts)
		}
		t.Logf("%v direct %v: limits held %d joint-steps, %d manifold-steps", s.Solver, s.DirectJoints, limits, contacts)
	}
}
