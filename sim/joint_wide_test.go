package sim

import (
	"math"
	"testing"

	"tumble/sim/geom"
)

// jointWideScene is jointKernelScene (ball chains, a motor hinge, joints to the world: the joints
// the wide pass leaves to solveJoint) with 27 kicked limb pairs on limited hinges and 21 on ball
// joints with cones and twist limits beside it, so that a colour holds batches of sixteen joints, of
// nine to fifteen and of eight or fewer, of both kinds, with friction and without: the first 20
// hinges and the last 10 ball joints resist with jointWideFriction.
// Without rest, only the limb pairs stand on the ground: every joint is wide, so the passes run on
// the stage's velocity rows where the kernels can (pipeline.stateOn).
func jointWideScene(t *testing.T, s Settings, rest bool) *World {
	w := gravityWorld(s)
	groundPlane(t, w, 0.6, 0)
	if rest {
		addTangle(t, w, 0)
	}
	limb := geom.Shape{Kind: geom.Capsule, Radius: 0.06, HalfHeight: 0.15}
	for k := range 48 {
		x, z := float32(k%6)-2.5, 1.5+float32(k/6)*0.6
		a := mustAdd(t, w, BodyDef{Shape: limb, Position: Vec3{x, 1, z}, Mass: 1,
			Velocity: Vec3{0, 0, float32(k%3) - 1}, AngularVelocity: Vec3{float32(k % 4), 0, 2}})
		b := mustAdd(t, w, BodyDef{Shape: limb, Position: Vec3{x, 1.4, z}, Mass: 0.5 + float32(k%3),
			AngularVelocity: Vec3{0, 0, -3}})
		d := JointDef{BodyA: a, BodyB: b, Anchor: Vec3{x, 1.2, z}, Axis: Vec3{1, 0, 0}}
		if k < 27 {
			d.Type, d.HasLimits, d.Limits = Hinge, true, [2]float32{-0.5, 0.8}
		} else {
			d.Type, d.Axis, d.Swing, d.HasTwist, d.Twist = Ball, Vec3{0, 1, 0}, 0.4, true, [2]float32{-0.3, 0.3}
		}
		if k < 20 || k >= 38 {
			d.Friction = jointWideFriction
		}
		mustJoint(t, w, d)
	}
	return w
}

// jointWideFriction is jointWideScene's joint friction, N m: a limb (about 0.03 kg m^2 about its
// joint) kicked at 2 to 3 rad/s takes over a second to stop against it, so the friction rows slide at
// their bound for many steps and then hold.
const jointWideFriction = 0.05

// The wide joint pass (with its refresh of the ball joints' swing and twist rows and their warm
// start, and the joints' friction rows) gives solveBall's and solveHinge's results bit for bit, and the same joint angles (with the
// wide contact pass, which TestWidePassMatchesScalar compares alone), over 240 steps with 1 and 2
// workers, with each set of kernels the CPU can run (eight lanes, and sixteen with AVX-512): with the
// joints left to solveJoint beside them (the passes on the bodies' velocities), and without (on the
// stage's velocity rows where the state rows are on).
func TestWideJointsMatchScalar(t *testing.T) {
	if !WideAvailable() {
		t.Skip("no wide joint pass in this build (it needs GOEXPERIMENT=simd and AVX2): make test runs this package again with it")
	}
	eachWideSetting(t, func(name string, s Settings, o Options) {
		testWideJoints(t, name+", with solveJoint's joints", s, o, true, false)
		testWideJoints(t, name+", wide joints only", s, o, false, !o.bodyRows)
	})
}

func testWideJoints(t *testing.T, name string, s Settings, o Options, rest, state bool) {
	ref := jointWideScene(t, s, rest)
	mustOptions(t, ref, Options{Scalar: true})
	got := jointWideScene(t, s, rest)
	mustOptions(t, got, o)
	limits, sliding, holding := 0, 0, 0
	var sizes [3]bool // batches of sixteen joints, of nine to fifteen, of eight or fewer
	for step := range 240 {
		run(t, ref, 1)
		run(t, got, 1)
		p := &got.pipe
		if !p.jwide.jwideOn || len(p.jwide.jwide) < 4 || p.wide.stateOn != state {
			t.Fatalf("%s: the wide joint pass is not on (%v, %d batches), or on the state rows %v", name, p.jwide.jwideOn, len(p.jwide.jwide), p.wide.stateOn)
		}
		for i := range p.jwide.jwide {
			n := p.jwide.jwide[i].lanes
			sizes[0], sizes[1], sizes[2] = sizes[0] || n == batchLanes, sizes[1] || n > wideLanes && n < batchLanes, sizes[2] || n <= wideLanes
		}
		for i := range ref.Bodies.Position {
			a, b := &ref.Bodies, &got.Bodies
			if !sameBits(a.Position[i], b.Position[i]) || !sameBits(a.Velocity[i], b.Velocity[i]) ||
				!sameBits(a.AngularVelocity[i], b.AngularVelocity[i]) || a.Rotation[i] != b.Rotation[i] {
				t.Fatalf("%s, step %d, body %d: scalar %v %v, wide %v %v", name, step, i,
					a.Position[i], a.Velocity[i], b.Position[i], b.Velocity[i])
			}
		}
		for k := range got.joints {
			if a, b := &ref.joints[k], &got.joints[k]; a.coord != b.coord || a.swingA != b.swingA {
				t.Fatalf("%s, step %d, joint %d: angles scalar %v %v, wide %v %v", name, step, k,
					a.coord, a.swingA, b.coord, b.swingA)
			}
			if j := &got.joints[k]; j.wide >= 0 && (j.swing.impulse > 0 || j.twist.lower.impulse > 0 ||
				j.twist.upper.impulse > 0 || j.angle.lower.impulse > 0 || j.angle.upper.impulse > 0) {
				limits++
			}
			if j := &got.joints[k]; j.wide >= 0 && j.def.Friction > 0 {
				// the friction impulse at its bound friction h (sliding), or within it and not zero
				bound := float64(j.def.Friction / p.plan.ctx.invH)
				f := math.Abs(float64(j.angle.motor.impulse))
				if j.def.Type == Ball {
					f = math.Sqrt(float64(j.fric.impulse.Dot(j.fric.impulse)))
				}
				switch {
				case f > bound*(1-1e-5):
					sliding++
				case f > 0:
					holding++
				}
			}
		}
	}
	if limits < 200 {
		t.Fatalf("%s: the wide joints held a limit in only %d joint-steps: the scene does not exercise them", name, limits)
	}
	if sliding < 200 || holding < 200 {
		t.Fatalf("%s: the wide joints' friction slid in %d joint-steps and held in %d: the scene does not exercise it", name, sliding, holding)
	}
	if sizes != [3]bool{true, true, true} {
		t.Fatalf("%s: batches of 16, 9-15 and at most 8 joints: %v", name, sizes)
	}
	t.Logf("%s: %d wide joint batches, limits held %d joint-steps, friction slid %d and held %d", name,
		len(got.pipe.jwide.jwide), limits, sliding, holding)
}

// plainBallGrid is a small joint_grid: cols x rows spheres 1 m apart, the top row static, each other
// sphere joined by a plain ball joint (no cone, no twist limits) to the one above it and to the one
// before it in x, every second column kicked sideways and spun so that the grid swings and twists,
// and the joints of the even columns' vertical links resisting with jointWideFriction (N m, scaled
// to the spheres: about 0.03 kg m^2 each). With world, a sphere beside the grid hangs from the
// world on a plain ball joint, which stays on solveJoint.
func plainBallGrid(t *testing.T, s Settings, cols, rows int, world bool) *World {
	w := gravityWorld(s)
	ball := sphereShape(0.3)
	h := make([]Handle, cols*rows)
	for k := range cols {
		for i := range rows {
			d := BodyDef{Shape: ball, Position: Vec3{float32(k), -float32(i), 0}, Mass: 1 + 0.25*float32((k+i)%3)}
			if i == 0 {
				d.Type = Static
			} else if k%2 == 1 {
				d.Velocity, d.AngularVelocity = Vec3{0, 0, float32(i%3) - 1}, Vec3{0, 3, float32(k % 4)}
			}
			n := k*rows + i
			h[n] = mustAdd(t, w, d)
			if i > 0 {
				j := JointDef{Type: Ball, BodyA: h[n-1], BodyB: h[n], Anchor: Vec3{float32(k), 0.5 - float32(i), 0}}
				if k%2 == 0 {
					j.Friction = jointWideFriction
				}
				mustJoint(t, w, j)
			}
			if k > 0 && i > 0 {
				mustJoint(t, w, JointDef{Type: Ball, BodyA: h[n-rows], BodyB: h[n], Anchor: Vec3{float32(k) - 0.5, -float32(i), 0}})
			}
		}
	}
	if world {
		e := mustAdd(t, w, BodyDef{Shape: ball, Position: Vec3{-2, -1, 0}, Mass: 1, Velocity: Vec3{0, 0, 2}})
		mustJoint(t, w, JointDef{Type: Ball, BodyA: e, Anchor: Vec3{-2, 0, 0}})
	}
	return w
}

// The wide pass's plain ball joints (the anchor block alone, with friction and without, static
// bodies on one side: joint_grid's joints) give solveBall's results bit for bit over 150 steps, with
// each set of kernels the CPU can run, 1 and 2 workers, on the bodies' rows and on the state rows,
// with a joint to the world left to solveJoint beside them and without it.
func TestWidePlainBallsMatchScalar(t *testing.T) {
	if !WideAvailable() {
		t.Skip("no wide joint pass in this build (it needs GOEXPERIMENT=simd and AVX2): make test runs this package again with it")
	}
	eachWideSetting(t, func(name string, s Settings, o Options) {
		for _, world := range []bool{true, false} {
			ref := plainBallGrid(t, s, 7, 9, world)
			mustOptions(t, ref, Options{Scalar: true})
			got := plainBallGrid(t, s, 7, 9, world)
			mustOptions(t, got, o)
			var kinds [2]bool // plain batches without and with friction
			var sizes [3]bool // batches of sixteen joints, of nine to fifteen, of eight or fewer
			fricHeld := 0
			for step := range 150 {
				run(t, ref, 1)
				run(t, got, 1)
				p := &got.pipe
				if !p.jwide.jwideOn || p.wide.stateOn != (!world && !o.bodyRows) {
					t.Fatalf("%s, world joint %v: the wide joint pass on %v, on the state rows %v", name, world, p.jwide.jwideOn, p.wide.stateOn)
				}
				for i := range p.jwide.jwide {
					bt := &p.jwide.jwide[i]
					if !bt.plain {
						t.Fatalf("%s: batch %d is not of plain ball joints", name, i)
					}
					kinds[b2i(bt.fric)] = true
					n := bt.lanes
					sizes[0], sizes[1], sizes[2] = sizes[0] || n == batchLanes, sizes[1] || n > wideLanes && n < batchLanes, sizes[2] || n <= wideLanes
				}
				for i := range ref.Bodies.Position {
					a, b := &ref.Bodies, &got.Bodies
					if !sameBits(a.Position[i], b.Position[i]) || !sameBits(a.Velocity[i], b.Velocity[i]) ||
						!sameBits(a.AngularVelocity[i], b.AngularVelocity[i]) || a.Rotation[i] != b.Rotation[i] {
						t.Fatalf("%s, world joint %v, step %d, body %d: scalar %v %v, wide %v %v", name, world, step, i,
							a.Position[i], a.Velocity[i], b.Position[i], b.Velocity[i])
					}
				}
				for k := range got.joints {
					if j := &got.joints[k]; j.def.Friction > 0 && j.fric.impulse != (vec{}) {
						fricHeld++
					}
				}
			}
			if kinds != [2]bool{true, true} || sizes != [3]bool{true, true, true} {
				t.Fatalf("%s: plain batches without and with friction %v; of 16, 9-15 and at most 8 joints %v", name, kinds, sizes)
			}
			if fricHeld < 200 {
				t.Fatalf("%s: the joints' friction acted in only %d joint-steps", name, fricHeld)
			}
		}
	})
}
