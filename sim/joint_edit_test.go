package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// hingedBar is a 1 m bar hinged at one end to the world about axis, with limits and a motor that
// turns it towards its upper limit; it returns the world, the bar and the joint's index.
func hingedBar(t *testing.T, solver SolverKind, axis Vec3) (*World, Handle, int) {
	t.Helper()
	w := gravityWorld(Settings{Solver: solver})
	h := mustAdd(t, w, BodyDef{Name: "bar", Shape: boxShape(0.5, 0.05, 0.05), Position: Vec3{0.5, 2, 0}, Mass: 1})
	// Another joint before it, so an index that moved would show.
	o := mustAdd(t, w, BodyDef{Name: "bob", Shape: sphereShape(0.1), Position: Vec3{-2, 1, 0}, Mass: 1})
	mustJoint(t, w, JointDef{Type: Ball, BodyA: o, Anchor: Vec3{-2, 2, 0}})
	k, err := w.AddJoint(JointDef{Type: Hinge, BodyA: h, Anchor: Vec3{0, 2, 0}, Axis: axis,
		HasLimits: true, Limits: [2]float32{-1, 1}, HasMotor: true, Motor: Motor{Speed: 1, MaxForce: 20}})
	if err != nil {
		t.Fatal(err)
	}
	mustJoint(t, w, JointDef{Type: Ball, BodyA: o, Anchor: Vec3{-2, 2, 0}})
	return w, h, k
}

func TestUpdateJointRefusesANewTypeBodyAnchorOrAxis(t *testing.T) {
	w, h, k := hingedBar(t, PGS, Vec3{0, 0, 1})
	for _, c := range []struct {
		field string
		edit  func(d *JointDef)
	}{
		{"type", func(d *JointDef) { d.Type = Piston }},
		{"bodyA", func(d *JointDef) { d.BodyA, _ = w.Find("bob") }},
		{"bodyB", func(d *JointDef) { d.BodyB = h }},
		{"anchor", func(d *JointDef) { d.Anchor[1] += 0.1 }},
		{"axis", func(d *JointDef) { d.Axis = Vec3{1, 0, 0} }},
	} {
		d := w.Joint(k)
		c.edit(&d)
		err := w.UpdateJoint(k, d)
		if err == nil || !strings.Contains(err.Error(), "joint 1: "+c.field+": cannot change") ||
			!strings.Contains(err.Error(), "remove") {
			t.Errorf("%s: %v", c.field, err)
		}
	}
	ball := w.Joint(0)
	ball.Swing = 0.5
	if err := w.UpdateJoint(0, ball); err == nil || !strings.Contains(err.Error(), "joint 0: swing") {
		t.Errorf("a swing cone on a ball joint added without an axis: %v", err)
	}
	// One added with them has its axis for good: they can go and come back.
	cone, err := w.AddJoint(JointDef{Type: Ball, BodyA: h, Anchor: Vec3{0, 2, 0}, Axis: Vec3{1, 0, 0}, Swing: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, swing := range []float32{0, 0.3} {
		d := w.Joint(cone)
		d.Swing = swing
		if err := w.UpdateJoint(cone, d); err != nil {
			t.Errorf("swing %v on a ball joint added with a cone: %v", swing, err)
		}
	}
	if err := w.RemoveJoint(cone); err != nil {
		t.Fatal(err)
	}
	if err := w.UpdateJoint(3, w.Joint(k)); err == nil || !strings.Contains(err.Error(), "joint 3: no such joint") {
		t.Errorf("joint 3 of 3: %v", err)
	}
	if w.Joint(k).Type != Hinge || w.Joint(0).Swing != 0 {
		t.Error("a refused edit changed the joint")
	}
}

func TestUpdateJointChecksItsParameters(t *testing.T) {
	w, _, k := hingedBar(t, PGS, Vec3{0, 0, 1})
	nan := float32(math.NaN())
	for _, c := range []struct {
		want string // in the error, after "joint 1: "
		edit func(d *JointDef)
	}{
		{"limits: lo must be <= hi, got [0.5 0.2]", func(d *JointDef) { d.Limits = [2]float32{0.5, 0.2} }},
		{"limits: [0 NaN] must be finite", func(d *JointDef) { d.Limits[1] = nan }},
		{"motor max force: must be finite and >= 0, got -1", func(d *JointDef) { d.Motor.MaxForce = -1 }},
		{"motor speed: must be finite, got +Inf", func(d *JointDef) { d.Motor.Speed = float32(math.Inf(1)) }},
		{"swing: must be finite and >= 0, got -0.1", func(d *JointDef) { d.Swing = -0.1 }},
		{"twist: lo must be <= hi, got [1 0]", func(d *JointDef) { d.HasTwist, d.Twist = true, [2]float32{1, 0} }},
		{"break force: must be finite and >= 0, got NaN", func(d *JointDef) { d.BreakForce = nan }},
	} {
		d := w.Joint(k)
		d.Limits[0] = 0
		c.edit(&d)
		if err := w.UpdateJoint(k, d); err == nil || !strings.Contains(err.Error(), "joint 1: "+c.want) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
	// The same checks guard AddJoint.
	d := w.Joint(k)
	d.Motor.MaxForce = -1
	if _, err := w.AddJoint(d); err == nil || !strings.Contains(err.Error(), "joint 3: motor max force") {
		t.Errorf("AddJoint with a negative motor force: %v", err)
	}
}

// An edit between steps changes the limits and motor of the joint where it is: same index, same
// frames, the bar does not move, and the new limits hold from the creation pose.
func TestUpdateJointKeepsTheJointsIndexFramesAndPose(t *testing.T) {
	for _, solver := range jointSolvers {
		w, h, k := hingedBar(t, solver, Vec3{0, 0, 1})
		run(t, w, 45) // the motor turns the bar up at 1 rad/s: about 0.75 rad
		i, _ := w.Index(h)
		before, frame := w.JointState(k), w.JointFrame(k)
		pos, rot := w.Bodies.Position[i], w.Bodies.Rotation[i]
		if before.Coordinate < 0.5 || before.Coordinate > 0.9 {
			t.Fatalf("%v: the bar turned to %.3f rad, want about 0.75", solver, before.Coordinate)
		}
		d := w.Joint(k)
		d.Limits = [2]float32{-0.2, 0.9}
		d.Motor = Motor{Speed: -2, MaxForce: 20}
		d.BreakForce = 1e4
		if err := w.UpdateJoint(k, d); err != nil {
			t.Fatal(err)
		}
		frame.Def = d
		if w.NumJoints() != 3 || w.Joint(k) != d || w.JointFrame(k) != frame {
			t.Fatalf("%v: after the edit joint %d is %+v", solver, k, w.JointFrame(k))
		}
		if w.Bodies.Position[i] != pos || w.Bodies.Rotation[i] != rot {
			t.Errorf("%v: the edit moved the bar", solver)
		}
		if st := w.JointState(k); st.Coordinate != before.Coordinate || st.AnchorA != before.AnchorA {
			t.Errorf("%v: the edit changed the joint's state: %+v, was %+v", solver, st, before)
		}
		run(t, w, 1)
		if st := w.JointState(k); st.AnchorA.Sub(st.AnchorB).Len() > 1e-3 || math.Abs(float64(st.Coordinate-before.Coordinate)) > 0.05 {
			t.Errorf("%v: one step after the edit the bar jumped: angle %.3f (was %.3f), anchors %.2g m apart", solver,
				st.Coordinate, before.Coordinate, st.AnchorA.Sub(st.AnchorB).Len())
		}
		// The motor now turns the bar back down to -0.2, the new lower limit, and holds it there.
		lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
		gap := float32(0)
		for range 180 {
			run(t, w, 1)
			st := w.JointState(k)
			lo, hi = min(lo, st.Coordinate), max(hi, st.Coordinate)
			gap = max(gap, st.AnchorA.Sub(st.AnchorB).Len())
		}
		if hi > before.Coordinate+0.02 || lo < -0.2-0.02 || lo > -0.2+0.02 {
			t.Errorf("%v: over 3 s the angle went from %.3f to %.3f, want down from %.3f to the new limit -0.2",
				solver, hi, lo, before.Coordinate)
		}
		if gap > 1e-3 {
			t.Errorf("%v: the anchors came %.2g m apart", solver, gap)
		}
		t.Logf("%v: angle %.3f -> %.3f (limit -0.2), anchors at most %.2g m apart", solver, before.Coordinate, lo, gap)
	}
}

// A narrowed limit that the joint is already past pulls it back to the limit and holds it there.
func TestUpdateJointNarrowedLimitsTakeEffect(t *testing.T) {
	for _, solver := range jointSolvers {
		w, _, k := hingedBar(t, solver, Vec3{0, 0, 1})
		run(t, w, 45)
		d := w.Joint(k)
		d.Limits[1] = 0.4
		if err := w.UpdateJoint(k, d); err != nil {
			t.Fatal(err)
		}
		run(t, w, 120)
		if c := w.JointState(k).Coordinate; math.Abs(float64(c-0.4)) > 0.02 {
			t.Errorf("%v: pushed by its motor against the new upper limit 0.4, the bar is at %.3f", solver, c)
		}
	}
}

// Only the impulses of what changed are dropped: the rows that still hold the same thing keep
// warm starting, and an edit that changes nothing is not an edit.
func TestUpdateJointDropsOnlyTheChangedImpulses(t *testing.T) {
	w, _, k := hingedBar(t, PGS, Vec3{0, 0, 1})
	run(t, w, 90) // at the upper limit, the motor pushing into it
	j := &w.joints[k]
	point, hinge, upper := j.point.impulse, j.hinge.impulse, j.angle.upper.impulse
	if j.angle.motor.impulse == 0 || upper == 0 || point == (vec{}) {
		t.Fatalf("motor %g, upper limit %g, point %v: want all non-zero", j.angle.motor.impulse, upper, point)
	}
	w.TakeEdits()
	if err := w.UpdateJoint(k, w.Joint(k)); err != nil || w.TakeEdits().Joints {
		t.Errorf("an unchanged definition: %v, and an edit for the backend", err)
	}
	d := w.Joint(k)
	d.Motor.Speed = 2
	if err := w.UpdateJoint(k, d); err != nil {
		t.Fatal(err)
	}
	if j.angle.motor.impulse != 0 || j.angle.upper.impulse != upper || j.point.impulse != point || j.hinge.impulse != hinge {
		t.Errorf("after a new motor speed: motor %g (want 0), upper %g (want %g), point %v, hinge %v",
			j.angle.motor.impulse, j.angle.upper.impulse, upper, j.point.impulse, j.hinge.impulse)
	}
	if !w.TakeEdits().Joints {
		t.Error("the edit was not listed for a backend")
	}
	d.Limits[1] = 1.2
	if err := w.UpdateJoint(k, d); err != nil {
		t.Fatal(err)
	}
	if j.angle.upper.impulse != 0 || j.point.impulse != point {
		t.Errorf("after new limits: upper %g (want 0), point %v", j.angle.upper.impulse, j.point.impulse)
	}
}

// JointState measures what the solver measures: its coordinate is JointCoordinate at the pose the
// step left, and a hinge's angle is the rotation of body A relative to body B about the axis, as the
// bodies' quaternions give it; the anchors coincide while the joint holds.
func TestJointStateHingeAngleIsTheBodiesRelativeRotation(t *testing.T) {
	axis := Vec3{1, 2, 2}.Normalize()
	for _, solver := range jointSolvers {
		w := gravityWorld(Settings{Solver: solver})
		q0 := mgl32.QuatRotate(0.7, Vec3{1, 0, 1}.Normalize())
		a := mustAdd(t, w, BodyDef{Name: "a", Shape: boxShape(0.4, 0.1, 0.2), Position: Vec3{0.4, 2, 0}, Rotation: q0, Mass: 1,
			AngularVelocity: axis.Mul(3)})
		b := mustAdd(t, w, BodyDef{Name: "b", Shape: boxShape(0.3, 0.3, 0.3), Position: Vec3{-0.3, 2, 0}, Mass: 4})
		mustJoint(t, w, JointDef{Type: Ball, BodyA: b, Anchor: Vec3{-0.3, 3, 0}})
		mustJoint(t, w, JointDef{Type: Hinge, BodyA: a, BodyB: b, Anchor: Vec3{0, 2, 0}, Axis: axis})
		ia, _ := w.Index(a)
		ib, _ := w.Index(b)
		worst := 0.0
		for s := 0; s < 120; s++ {
			run(t, w, 1)
			st := w.JointState(1)
			if d := math.Abs(float64(st.Coordinate - w.JointCoordinate(1))); d > 1e-5 {
				t.Fatalf("%v step %d: JointState %.6f, the solver's coordinate %.6f", solver, s, st.Coordinate, w.JointCoordinate(1))
			}
			// A's rotation relative to B since creation, qB^-1 qA q0^-1 (B started at identity), about
			// the axis in B's frame.
			rel := w.Bodies.Rotation[ib].Conjugate().Mul(w.Bodies.Rotation[ia]).Mul(q0.Conjugate())
			n := w.Bodies.Rotation[ib].Conjugate().Rotate(st.Axis)
			want := 2 * math.Atan2(float64(rel.V.Dot(n)), float64(rel.W))
			want = math.Remainder(want, 2*math.Pi)
			diff := math.Abs(math.Remainder(float64(st.Coordinate)-want, 2*math.Pi))
			worst = max(worst, diff)
			if gap := st.AnchorA.Sub(st.AnchorB).Len(); gap > 2e-3 {
				t.Fatalf("%v step %d: anchors %.3g m apart", solver, s, gap)
			}
		}
		if worst > 2e-3 {
			t.Errorf("%v: the hinge angle differs from the bodies' relative rotation by up to %.3g rad", solver, worst)
		}
		t.Logf("%v: angle within %.2g rad of the quaternions', now %.3f", solver, worst, w.JointState(1).Coordinate)
	}
}

// A piston's coordinate is the travel between its anchors along its axis; a ball joint's swing and
// twist are the solver's; the force a joint holds is the load it carries.
func TestJointStatePistonBallAndForce(t *testing.T) {
	for _, solver := range jointSolvers {
		w := gravityWorld(Settings{Solver: solver})
		axis := Vec3{1, -1, 0}.Normalize()
		p := mustAdd(t, w, BodyDef{Name: "slider", Shape: boxShape(0.1, 0.1, 0.1), Position: Vec3{0, 2, 0}, Mass: 2})
		mustJoint(t, w, JointDef{Type: Piston, BodyA: p, Anchor: Vec3{0, 2, 0}, Axis: axis,
			HasLimits: true, Limits: [2]float32{-0.5, 0.5}})
		bb := mustAdd(t, w, BodyDef{Name: "ball", Shape: sphereShape(0.1), Position: Vec3{3, 1, 0}, Mass: 3,
			Velocity: Vec3{0, 0, 3}, AngularVelocity: Vec3{0, 4, 0}})
		mustJoint(t, w, JointDef{Type: Ball, BodyA: bb, Anchor: Vec3{3, 2, 0}, Axis: Vec3{0, -1, 0},
			Swing: 0.4, HasTwist: true, Twist: [2]float32{-0.3, 0.3}})
		most := float32(0)
		for range 60 {
			run(t, w, 1)
			ball := w.JointState(1)
			most = max(most, ball.Swing)
			if math.Abs(float64(ball.Coordinate-w.JointCoordinate(1))) > 1e-5 || ball.Swing > 0.45 ||
				ball.Coordinate < -0.32 || ball.Coordinate > 0.32 {
				t.Fatalf("%v: ball swing %.3f (cone 0.4), twist %.3f (solver %.3f, limits 0.3)", solver, ball.Swing,
					ball.Coordinate, w.JointCoordinate(1))
			}
		}
		if most < 0.3 {
			t.Errorf("%v: the ball swung out to %.3f rad only", solver, most)
		}
		st := w.JointState(0)
		travel := -st.AnchorB.Sub(st.AnchorA).Dot(st.Axis)
		if math.Abs(float64(st.Coordinate-travel)) > 1e-5 || math.Abs(float64(st.Coordinate-w.JointCoordinate(0))) > 1e-5 {
			t.Errorf("%v: piston at %.4f, its anchors %.4f apart along the axis, the solver's %.4f", solver,
				st.Coordinate, travel, w.JointCoordinate(0))
		}
		if math.Abs(float64(st.Coordinate-0.5)) > 0.02 || st.Axis.Sub(axis).Len() > 1e-3 {
			t.Errorf("%v: the slider slid down its axis %v to %.3f, want to its limit 0.5", solver, st.Axis, st.Coordinate)
		}
		// At rest on its limit, the piston holds the slider's weight across the axis and along it.
		if f := st.Force; math.Abs(float64(f)-2*g) > 0.05*2*g {
			t.Errorf("%v: the piston holds %.2f N, want the slider's weight %.2f N", solver, f, 2*g)
		}
		t.Logf("%v: piston %.3f m holding %.2f N; ball swung out to %.3f rad", solver, st.Coordinate, st.Force, most)
	}
}

// Each joint has its own ID, which it keeps when joints before it go and when it is edited, so a
// backend can tell an edited joint from a new one.
func TestJointIDsSurviveEditsAndRemovals(t *testing.T) {
	w, _, k := hingedBar(t, PGS, Vec3{0, 0, 1})
	ids := [3]uint64{w.JointFrame(0).ID, w.JointFrame(1).ID, w.JointFrame(2).ID}
	if ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] {
		t.Fatalf("IDs %v", ids)
	}
	d := w.Joint(k)
	d.Limits[1] = 0.5
	if err := w.UpdateJoint(k, d); err != nil {
		t.Fatal(err)
	}
	if err := w.RemoveJoint(0); err != nil {
		t.Fatal(err)
	}
	n, err := w.AddJoint(w.Joint(1)) // the same definition again: another joint
	if err != nil {
		t.Fatal(err)
	}
	if got := [3]uint64{w.JointFrame(0).ID, w.JointFrame(1).ID, w.JointFrame(n).ID}; got[0] != ids[1] ||
		got[1] != ids[2] || got[2] == ids[0] || got[2] == ids[1] || got[2] == ids[2] {
		t.Errorf("IDs %v after an edit, a removal and an addition, were %v", got, ids)
	}
}

// A ball joint added with an axis and no limits keeps it as its twist axis: a swing cone added later
// holds, measured from the creation pose.
func TestABallJointAddedWithAnAxisTakesASwingConeLater(t *testing.T) {
	w := NewWorld(Settings{Workers: 1})
	defer w.Close()
	top := mustAdd(t, w, BodyDef{Shape: boxShape(0.1, 0.5, 0.1), Position: Vec3{0, 2.5, 0}, Velocity: Vec3{3, 0, 0}, Mass: 1})
	k, err := w.AddJoint(JointDef{Type: Ball, BodyA: top, Anchor: Vec3{0, 3, 0}, Axis: Vec3{0, 1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if st := w.JointState(k); st.Axis.Len() < 0.99 {
		t.Fatalf("a ball joint added with an axis reports axis %v", st.Axis)
	}
	d := w.Joint(k)
	d.Swing = 0.3
	if err := w.UpdateJoint(k, d); err != nil {
		t.Fatalf("adding a swing cone: %v", err)
	}
	most := float32(0)
	for range 240 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
		most = max(most, w.JointState(k).Swing)
	}
	if most > 0.35 || most < 0.2 {
		t.Errorf("largest swing %.3f rad with a 0.3 rad cone (pushed at 3 m/s)", most)
	}
}

// A ball joint made with a second axis (AxisB: body B's, here the world's, twist axis) starts swung by
// the angle between the two and untwisted, and its cone stays centred on B's axis: a bob made 0.3 rad
// out from the world's down and pushed outwards stops at the 0.4 rad cone about down, not 0.4 rad
// past where it was made. This is how a scene saved while a joint is swung keeps its cone.
func TestABallJointMadeSwungKeepsItsConeWhereItWas(t *testing.T) {
	for _, solver := range jointSolvers {
		w := gravityWorld(Settings{Solver: solver, Workers: 1})
		const tilt = 0.3
		dir := Vec3{float32(math.Sin(tilt)), -float32(math.Cos(tilt)), 0}
		pivot := Vec3{0, 3, 0}
		bob := mustAdd(t, w, BodyDef{Shape: sphereShape(0.1), Position: pivot.Add(dir), Mass: 1, Velocity: Vec3{2, 0, 0}})
		k, err := w.AddJoint(JointDef{Type: Ball, BodyA: bob, Anchor: pivot, Axis: dir, AxisB: Vec3{0, -2, 0},
			Swing: 0.4, HasTwist: true, Twist: [2]float32{-0.2, 0.2}})
		if err != nil {
			t.Fatal(err)
		}
		if st := w.JointState(k); math.Abs(float64(st.Swing)-tilt) > 1e-4 || math.Abs(float64(st.Coordinate)) > 1e-4 {
			t.Fatalf("%v: made with its axes %.2f rad apart: swing %.5f, twist %.5f", solver, tilt, st.Swing, st.Coordinate)
		}
		most := 0.0
		for range 120 {
			run(t, w, 1)
			d := w.Bodies.Position[0].Sub(pivot).Normalize()
			most = max(most, math.Acos(float64(-d[1])))
		}
		if most > 0.45 || most < 0.35 {
			t.Errorf("%v: the bob swung out to %.3f rad from down, want the cone's 0.4", solver, most)
		}
	}
	w := NewWorld(Settings{})
	defer w.Close()
	b := mustAdd(t, w, BodyDef{Shape: sphereShape(0.1), Mass: 1})
	for _, d := range []JointDef{
		{Type: Hinge, BodyA: b, Axis: Vec3{0, 0, 1}, AxisB: Vec3{0, 1, 0}},
		{Type: Ball, BodyA: b, AxisB: Vec3{0, 1, 0}},
		{Type: Ball, BodyA: b, Axis: Vec3{0, 1, 0}, Swing: 0.3, AxisB: Vec3{float32(math.NaN()), 0, 0}},
	} {
		if _, err := w.AddJoint(d); err == nil || !strings.Contains(err.Error(), "axisB") {
			t.Errorf("%+v: got %v, want an error naming axisB", d, err)
		}
	}
}
