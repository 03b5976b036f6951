package command

import (
	"math"
	"testing"

	"tumble/scenes"
	"tumble/sim"
)

const deg = math.Pi / 180

// doorYaw is the door's rotation about +y, radians: the door preset's hinge angle (the post is
// static, and both start unrotated), from the door's quaternion.
func doorYaw(w *sim.World) float64 {
	h, _ := w.Find("door")
	i, _ := w.Index(h)
	q := w.Bodies.Rotation[i]
	return 2 * math.Atan2(float64(q.V[1]), float64(q.W))
}

// doorLimits returns the door preset's hinge limits, as the scene gives them.
func doorLimits(t *testing.T) [2]float32 {
	sc, _ := scenes.Preset("door")
	if len(sc.Joints) != 1 || sc.Joints[0].Limits == nil {
		t.Fatalf("the door preset's joints: %+v", sc.Joints)
	}
	l := sc.Joints[0].Limits
	return [2]float32{float32(l[0]), float32(l[1])}
}

// Giving the door's hinge a motor keeps its 0-100 degree limits, its place in the joint list and its
// frames: re-making it at the door's current pose would count the limits from there, and the door
// would swing on to 200 degrees.
func TestEditingTheDoorsMotorKeepsItsHingeAndLimits(t *testing.T) {
	s := preset(t, "door")
	lim := doorLimits(t)
	if err := s.Steps(30); err != nil {
		t.Fatal(err)
	}
	var before sim.JointState
	s.View(func(w *sim.World) {
		before = w.JointState(0)
		if yaw := doorYaw(w); yaw < 5*deg {
			t.Fatalf("the ball has not opened the door yet (%.1f degrees)", yaw/deg)
		}
	})
	for _, speed := range []float32{1, -1} { // open into the upper limit, then closed into the lower
		s.Do(EditJoint(0, JointEdit{Motor: &sim.Motor{Speed: speed, MaxForce: 50}}))
		if err := s.Apply(); err != nil {
			t.Fatal(err)
		}
		s.View(func(w *sim.World) {
			j := w.Joint(0)
			if w.NumJoints() != 1 || j.Type != sim.Hinge || !j.HasLimits || j.Limits != lim ||
				!j.HasMotor || j.Motor.Speed != speed {
				t.Fatalf("after the edit: %d joints, joint 0 %+v", w.NumJoints(), j)
			}
			st := w.JointState(0)
			if gap := st.AnchorA.Sub(st.AnchorB).Len(); gap > 1e-3 {
				t.Errorf("right after the edit the hinge's anchors are %.3g m apart", gap)
			}
			if speed > 0 && st.Coordinate != before.Coordinate {
				t.Errorf("the edit moved the hinge from %.4f to %.4f rad", before.Coordinate, st.Coordinate)
			}
		})
		lo, hi, gap := math.Inf(1), math.Inf(-1), float32(0)
		for range 180 { // 3 s
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			s.View(func(w *sim.World) {
				st := w.JointState(0)
				lo, hi = min(lo, float64(st.Coordinate)), max(hi, float64(st.Coordinate))
				gap = max(gap, st.AnchorA.Sub(st.AnchorB).Len())
				if d := math.Abs(float64(st.Coordinate) - doorYaw(w)); d > 1e-3 {
					t.Fatalf("the hinge angle %.4f is not the door's rotation %.4f", st.Coordinate, doorYaw(w))
				}
			})
		}
		if lo < float64(lim[0])-deg || hi > float64(lim[1])+deg {
			t.Errorf("motor %+.0f rad/s: the door turned from %.1f to %.1f degrees, its limits are %.1f to %.1f",
				speed, lo/deg, hi/deg, lim[0]/deg, lim[1]/deg)
		}
		end := lim[1]
		if speed < 0 {
			end = lim[0]
		}
		var at float32
		s.View(func(w *sim.World) { at = w.JointState(0).Coordinate })
		if math.Abs(float64(at-end)) > deg {
			t.Errorf("motor %+.0f rad/s: the door ends at %.1f degrees, want it held at its limit %.1f", speed, at/deg, end/deg)
		}
		if gap > 2e-3 {
			t.Errorf("motor %+.0f rad/s: the hinge's anchors came %.3g m apart", speed, gap)
		}
		t.Logf("motor %+.0f rad/s: %.1f to %.1f degrees, ends at %.1f; anchors at most %.2g m apart", speed, lo/deg,
			hi/deg, at/deg, gap)
	}
}

// JointState's hinge angle is the door's rotation as its quaternion gives it, while the ball swings it
// open and it comes to its limit.
func TestJointStateIsTheDoorsRotation(t *testing.T) {
	s := preset(t, "door")
	worst, most := 0.0, 0.0
	for range 120 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		s.View(func(w *sim.World) {
			st := w.JointState(0)
			worst = max(worst, math.Abs(float64(st.Coordinate)-doorYaw(w)))
			most = max(most, doorYaw(w))
			if st.Axis.Sub(sim.Vec3{0, 1, 0}).Len() > 1e-3 {
				t.Fatalf("the hinge axis is %v, want +y", st.Axis)
			}
		})
	}
	if worst > 1e-4 || most < 30*deg {
		t.Errorf("the hinge angle is up to %.3g rad off the door's rotation; the door opened to %.1f degrees", worst, most/deg)
	}
}

// UpdateJoint refuses what it cannot change, with the field in the error, and the command leaves the
// joint as it was.
func TestEditJointRefusesBadParameters(t *testing.T) {
	s := preset(t, "door")
	lim := doorLimits(t)
	bad := [2]float32{1, 0}
	s.Do(EditJoint(0, JointEdit{Limits: &bad}))
	if err := s.Apply(); err == nil || err.Error() != "joint 0: limits: lo must be <= hi, got [1 0]" {
		t.Errorf("limits [1 0]: %v", err)
	}
	s.Do(EditJoint(1, JointEdit{}))
	if err := s.Apply(); err == nil {
		t.Error("editing joint 1 of 1 succeeded")
	}
	off := false
	s.Do(EditJoint(0, JointEdit{HasLimits: &off}))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if j := w.Joint(0); j.HasLimits || j.Limits != lim {
			t.Errorf("limits turned off: %+v", j)
		}
		d := w.Joint(0)
		d.Type = sim.Piston
		if err := w.UpdateJoint(0, d); err == nil || err.Error()[:24] != "joint 0: type: cannot ch" {
			t.Errorf("a hinge made a piston: %v", err)
		}
		d = w.Joint(0)
		d.Anchor[0] += 0.5
		if err := w.UpdateJoint(0, d); err == nil || err.Error()[:26] != "joint 0: anchor: cannot ch" {
			t.Errorf("a new anchor: %v", err)
		}
	})
}

// On the emulated CUDA backend an edit reaches the device: the door's limits narrowed to 0-30 degrees
// stop it at 30 while its motor pushes it open.
func TestAnEditedDoorLimitHoldsOnTheEmulatedBackend(t *testing.T) {
	s := preset(t, "door")
	s.Do(UseBackend(BackendEmulated))
	if err := s.Steps(30); err != nil {
		t.Fatal(err)
	}
	if s.BackendKind() != BackendEmulated {
		t.Fatalf("on %q", s.BackendKind())
	}
	narrow := [2]float32{0, 30 * deg}
	s.Do(EditJoint(0, JointEdit{Limits: &narrow, Motor: &sim.Motor{Speed: 2, MaxForce: 100}}))
	hi := 0.0
	for range 180 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		s.View(func(w *sim.World) { hi = max(hi, doorYaw(w)) })
	}
	var at float64
	s.View(func(w *sim.World) {
		at = doorYaw(w)
		if d := w.Joint(0); w.NumJoints() != 1 || d.Limits != narrow {
			t.Errorf("%d joints, joint 0 %+v", w.NumJoints(), d)
		}
		st := w.JointState(0)
		if math.Abs(float64(st.Coordinate)-at) > 1e-3 {
			t.Errorf("JointState's angle %.4f, the door's rotation %.4f", st.Coordinate, at)
		}
		// At rest against its limit the hinge holds the 20 kg door's weight (the device reports it).
		if weight := 20 * 9.81; !(math.Abs(float64(st.Force)-weight) < 0.05*weight) {
			t.Errorf("the hinge holds %.1f N, want the door's weight %.1f N", st.Force, weight)
		}
	})
	if math.Abs(at-30*deg) > deg || hi > 32*deg {
		t.Errorf("with its limits narrowed to 0-30 degrees the door went to %.1f and ends at %.1f", hi/deg, at/deg)
	}
	t.Logf("door at %.2f degrees (at most %.2f)", at/deg, hi/deg)
}
