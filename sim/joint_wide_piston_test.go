package sim

import (
	"math"
	"testing"
)

// pistonWideScene is 50 kicked pairs of boxes on the ground, each pair's top box sliding on its
// bottom one on a piston, and 5 more boxes on pistons on top of the first five top boxes, with every
// mix of a piston's rows: limits or none, and no drive, friction that gives way under the box's
// weight or holds it, a speed motor, or a position motor (a servo: k%10 == 4, which stays on the
// scalar rows); the axes vertical or tilted; some bodies' quaternions negated. The wide pistons are
// one colour of 45 (batches of sixteen, sixteen and thirteen) and a second of four. With rest, jointKernelScene's
// ball joints and motor hinge are beside them (joints left to solveJoint).
func pistonWideScene(t *testing.T, s Settings, rest bool) *World {
	w := gravityWorld(s)
	groundPlane(t, w, 0.6, 0)
	if rest {
		addTangle(t, w, 6)
	}
	axes := []Vec3{{0, 1, 0}, {0.6, 0.8, 0}, {0, 0.8, -0.6}}
	var tops []Handle
	piston := func(k int, a, b Handle, anchor, axis Vec3) {
		d := JointDef{Type: Piston, BodyA: a, BodyB: b, Anchor: anchor, Axis: axis}
		if k%3 != 0 {
			d.HasLimits, d.Limits = true, [2]float32{-0.08 - 0.01*float32(k%4), 0.1}
		}
		switch k % 5 {
		case 1: // gives way: 1 kg weighs 9.8 N
			d.Friction = 3
		case 2: // holds
			d.Friction = 30
		case 3:
			d.HasMotor, d.Motor = true, Motor{Speed: 0.4 - 0.2*float32(k%2), MaxForce: 12}
		case 4:
			if k%10 == 4 {
				d.HasMotor, d.Motor = true, Motor{Mode: MotorPosition, Target: 0.05, Speed: 0.5, MaxForce: 20}
			} else {
				d.HasMotor, d.Motor = true, Motor{Speed: -0.3, MaxForce: 12}
			}
		}
		mustJoint(t, w, d)
	}
	for k := range 50 {
		x, z := float32(k%9)-4, float32(k/9)-2
		axis := axes[k%len(axes)]
		b := mustAdd(t, w, BodyDef{Shape: boxShape(0.25, 0.1, 0.25), Position: Vec3{x, 0.1, z}, Mass: 2,
			AngularVelocity: Vec3{0, float32(k%3) - 1, 0}})
		p := Vec3{x + 0.35*axis[0], 0.1 + 0.35*axis[1], z + 0.35*axis[2]}
		a := mustAdd(t, w, BodyDef{Shape: boxShape(0.08, 0.15, 0.08), Position: p, Mass: 0.5 + float32(k%3)*0.5,
			Velocity:        Vec3{axis[0] * float32(k%4-1), axis[1] * float32(k%4-1), axis[2] * float32(k%4-1)},
			AngularVelocity: Vec3{float32(k%2) * 3, 0, -2}})
		piston(k, a, b, Vec3{x + 0.2*axis[0], 0.1 + 0.2*axis[1], z + 0.2*axis[2]}, axis)
		if k < 5 {
			c := mustAdd(t, w, BodyDef{Shape: boxShape(0.06, 0.1, 0.06), Position: Vec3{p[0], p[1] + 0.3, p[2]}, Mass: 0.5,
				Velocity: Vec3{0, float32(k%2) - 0.5, 0}})
			tops = append(tops, c)
			piston(k+2, c, a, Vec3{p[0], p[1] + 0.15, p[2]}, Vec3{0, 1, 0})
		}
	}
	if len(tops) != 5 {
		t.Fatalf("%d stacked pistons", len(tops))
	}
	// q and -q are one rotation: a piston whose body's quaternion has the other sign than at its
	// creation measures its rotation error the shorter way round (rotationPart.set's qE.W < 0)
	for i := range w.Bodies.Rotation {
		if i%7 == 3 {
			q := &w.Bodies.Rotation[i]
			q.W, q.V = -q.W, q.V.Mul(-1)
		}
	}
	return w
}

// The wide pass over pistons (their drive, whether a speed motor or friction, their limits,
// rotation block and off-axis rows; lanes of a batch with and without each) gives solveJointParts'
// results bit for bit and the same travel, over 60 steps with 1 and 2 workers and each set of
// kernels the CPU can run, with joints left to solveJoint beside them and without.
func TestWidePistonsMatchScalar(t *testing.T) {
	if !WideAvailable() {
		t.Skip("no wide joint pass in this build (it needs GOEXPERIMENT=simd and AVX2): make test runs this package again with it")
	}
	eachWideSetting(t, func(name string, s Settings, o Options) {
		testWidePistons(t, name+", with solveJoint's joints", s, o, true)
		testWidePistons(t, name+", pistons only", s, o, false)
	})
}

func testWidePistons(t *testing.T, name string, s Settings, o Options, rest bool) {
	ref := pistonWideScene(t, s, rest)
	mustOptions(t, ref, Options{Scalar: true})
	got := pistonWideScene(t, s, rest)
	mustOptions(t, got, o)
	limits, sliding, holding := 0, 0, 0
	var sizes [3]bool // batches of sixteen pistons, of nine to fifteen, of eight or fewer
	for step := range 60 {
		run(t, ref, 1)
		run(t, got, 1)
		p := &got.pipe
		if !p.jwide.jwideOn || len(p.jwide.pist) < 4 {
			t.Fatalf("%s: the wide joint pass is not on (%v), or holds %d batches of pistons", name, p.jwide.jwideOn, len(p.jwide.pist))
		}
		for i := range p.jwide.jwide {
			if bt := &p.jwide.jwide[i]; bt.piston {
				n := bt.lanes
				sizes[0], sizes[1], sizes[2] = sizes[0] || n == batchLanes, sizes[1] || n > wideLanes && n < batchLanes, sizes[2] || n <= wideLanes
			}
		}
		for i := range ref.Bodies.Position {
			a, b := &ref.Bodies, &got.Bodies
			if !sameBits(a.Position[i], b.Position[i]) || !sameBits(a.Velocity[i], b.Velocity[i]) ||
				!sameBits(a.AngularVelocity[i], b.AngularVelocity[i]) || a.Rotation[i] != b.Rotation[i] {
				t.Fatalf("%s, step %d, body %d: scalar %v %v %v, wide %v %v %v", name, step, i,
					a.Position[i], a.Velocity[i], a.AngularVelocity[i], b.Position[i], b.Velocity[i], b.AngularVelocity[i])
			}
		}
		for k := range got.joints {
			a, j := &ref.joints[k], &got.joints[k]
			if a.coord != j.coord {
				t.Fatalf("%s, step %d, joint %d: travel scalar %v, wide %v", name, step, k, a.coord, j.coord)
			}
			if j.def.Type != Piston {
				continue
			}
			if servo := j.def.HasMotor && j.def.Motor.Mode == MotorPosition; servo != (j.wide < 0) {
				t.Fatalf("%s, step %d: piston %d (a servo: %v) in the wide pass: %v", name, step, k, servo, j.wide >= 0)
			}
			if pistonImpulses(a) != pistonImpulses(j) {
				t.Fatalf("%s, step %d, piston %d: impulses scalar %v, wide %v", name, step, k, pistonImpulses(a), pistonImpulses(j))
			}
			if j.angle.lower.impulse > 0 || j.angle.upper.impulse > 0 {
				limits++
			}
			if j.def.driven() {
				// the drive's impulse at its bound MaxForce h (sliding), or within it and not zero
				bound := float64(j.def.drive().MaxForce / p.plan.ctx.invH)
				switch f := math.Abs(float64(j.angle.motor.impulse)); {
				case f > bound*(1-1e-5):
					sliding++
				case f > 0:
					holding++
				}
			}
		}
	}
	if limits < 200 || sliding < 200 || holding < 200 {
		t.Fatalf("%s: the wide pistons held a limit in %d piston-steps, their drives slid in %d and held in %d: the scene does not exercise them",
			name, limits, sliding, holding)
	}
	if sizes != [3]bool{true, true, true} {
		t.Fatalf("%s: batches of 16, 9-15 and at most 8 pistons: %v", name, sizes)
	}
	t.Logf("%s: %d batches of pistons, limits held %d piston-steps, drives slid %d and held %d", name,
		len(got.pipe.jwide.pist), limits, sliding, holding)
}

// pistonImpulses is a piston's accumulated impulses: its drive, lower and upper limits, off-axis
// rows and rotation block.
func pistonImpulses(j *joint) [8]float32 {
	return [8]float32{j.angle.motor.impulse, j.angle.lower.impulse, j.angle.upper.impulse, j.perp[0].impulse,
		j.perp[1].impulse, j.rot.impulse.X, j.rot.impulse.Y, j.rot.impulse.Z}
}
