package ui

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tumble/sim"
	"tumble/ui/command"
)

// jointRow is the joints table's row label of joint k.
func (d *driver) jointRow(k int) string {
	return fmt.Sprintf("joints/#%d/###joint", k)
}

func (d *driver) joint(k int) (j sim.JointDef, st sim.JointState) {
	d.world(func(w *sim.World) { j, st = w.Joint(k), w.JointState(k) })
	return
}

// The door's hinge, clicked in the joints table, shows its own limits and motor; editing its motor
// keeps its 0-100 degree limits (not the creation widgets'), and an edited limit holds.
func TestJointsInspectorEditsAJointsOwnLimitsAndMotor(t *testing.T) {
	d := drive(t, Options{Scene: "door", Open: []string{"joints"}})
	j0, _ := d.joint(0)
	if !j0.HasLimits {
		t.Fatalf("the door's hinge has no limits")
	}
	d.click(d.jointRow(0))
	if d.a.panel.joint.selected != 0 {
		t.Fatalf("selected joint %d after clicking row 0", d.a.panel.joint.selected)
	}
	d.click("selected/motor##own")
	if j, _ := d.joint(0); !j.HasMotor || j.Motor.MaxForce <= 0 || j.Motor.Speed == 0 {
		t.Errorf("a motor switched on that was never set: %+v (it would do nothing)", j.Motor)
	}
	d.setText("selected/speed deg/s, max N m##own", 0, 2, "90")
	d.setText("selected/speed deg/s, max N m##own", 1, 2, "40")
	j, st := d.joint(0)
	if !j.HasMotor || !near(j.Motor.Speed, math.Pi/2, 1e-5) || j.Motor.MaxForce != 40 || !j.HasLimits || j.Limits != j0.Limits {
		t.Fatalf("after the motor edit: motor %v %+v, limits %v %v (were %v)", j.HasMotor, j.Motor, j.HasLimits, j.Limits, j0.Limits)
	}
	if gap := st.AnchorA.Sub(st.AnchorB).Len(); gap > 0.01 {
		t.Errorf("the hinge's anchors %.3f m apart after the edit", gap)
	}
	d.setText("selected/lo, hi, deg##own", 1, 2, "30")
	j, _ = d.joint(0)
	if !near(j.Limits[1], 30*math.Pi/180, 1e-4) || j.Limits[0] != j0.Limits[0] {
		t.Fatalf("limits %v after typing 30 deg as the upper one", j.Limits)
	}
	d.frames(180) // the motor drives the door open against its new limit
	_, st = d.joint(0)
	if st.Coordinate > j.Limits[1]+0.05 || st.Coordinate < j.Limits[0]-0.05 {
		t.Errorf("door at %.1f deg, limits %.1f to %.1f", st.Coordinate*180/math.Pi, j.Limits[0]*180/math.Pi, j.Limits[1]*180/math.Pi)
	}
	d.setText("selected/break force, N", 0, 1, "100000")
	d.click("selected/limits##own")
	j, _ = d.joint(0)
	if j.BreakForce != 1e5 || j.HasLimits {
		t.Errorf("break force %v, limits on %v", j.BreakForce, j.HasLimits)
	}
	d.click("selected/limits##own")
	d.click("selected/motor##own")
	if j, _ = d.joint(0); !j.HasLimits || j.HasMotor {
		t.Errorf("limits on %v, motor on %v after turning them back", j.HasLimits, j.HasMotor)
	}
}

// Pick A then B in the view, choose the joint in the form, create it, inspect its swing and twist,
// and delete it.
func TestJointsFormCreatesABallJointBetweenTwoClickedBodies(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"joints"}})
	d.frames(20)
	d.click("joints/Pick A then B")
	d.clickBody("box3")
	d.clickBody("box2")
	if d.a.bodyName(d.a.panel.joint.a, false) != "box3" || d.a.bodyName(d.a.panel.joint.b, false) != "box2" {
		t.Fatalf("picked %q and %q", d.a.bodyName(d.a.panel.joint.a, false), d.a.bodyName(d.a.panel.joint.b, false))
	}
	d.choose("joints/type", "piston")
	d.choose("joints/anchor", "clicked point")
	d.click("joints/limits")
	d.drag("joints/lo, hi, m", 1, 2, 15)
	d.click("joints/motor")
	d.drag("joints/speed m/s, max N", 0, 2, 10)
	d.click("joints/in A's frame")
	d.choose("joints/axis", "y")
	d.choose("joints/type", "ball")
	d.choose("joints/anchor", "midpoint")
	var n int
	d.world(func(w *sim.World) { n = w.NumJoints() })
	d.click("joints/Create joint")
	j, _ := d.joint(n)
	if j.Type != sim.Ball || d.a.panel.joint.selected != n {
		t.Fatalf("created %v, selected %d: %s", j.Type, d.a.panel.joint.selected, d.a.panel.message)
	}
	d.setText("selected/swing cone, deg", 0, 1, "20")
	d.click("selected/twist limits")
	d.setText("selected/twist lo, hi, deg", 1, 2, "15")
	j, _ = d.joint(n)
	if !near(j.Swing, 20*math.Pi/180, 1e-4) || !j.HasTwist || !near(j.Twist[1], 15*math.Pi/180, 1e-4) {
		t.Errorf("swing %v, twist %v %v", j.Swing, j.HasTwist, j.Twist)
	}
	d.click("joints/B = world")
	if d.a.panel.joint.b != (sim.Handle{}) {
		t.Errorf("B = world left B set")
	}
	d.click("joints/" + lastJointDelete(n))
	d.world(func(w *sim.World) {
		if w.NumJoints() != n {
			t.Errorf("%d joints after deleting the new one, want %d", w.NumJoints(), n)
		}
	})
}

func lastJointDelete(k int) string { return fmt.Sprintf("#%d/delete", k) }

// Limits switched on for a joint that never had any start as a range around where the joint is, not
// as a lock at its creation pose.
func TestLimitsSwitchedOnForTheFirstTimeHoldTheJointWhereItIs(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"joints"}, Setup: func(a *App) {
		a.S.View(func(w *sim.World) {
			top, _ := w.Find("box3")
			a.panel.joint.a = top
		})
		a.panel.joint.axis = 2
		a.do("joint", command.Join(a.JoinSpec()))
		a.panel.joint.selected = 0
	}})
	d.frames(10)
	j, _ := d.joint(0)
	if j.Type != sim.Hinge || j.HasLimits {
		t.Fatalf("set-up: %v with limits %v", j.Type, j.HasLimits)
	}
	d.click("selected/limits##own")
	j, st := d.joint(0)
	if !j.HasLimits || !(j.Limits[0] < st.Coordinate && st.Coordinate < j.Limits[1]) || j.Limits[1]-j.Limits[0] < 1 {
		t.Errorf("limits %v around the joint's angle %v", j.Limits, st.Coordinate)
	}
}

// A 1000 kg box hanging from a hinge, inspected in the joints table: once its island falls asleep
// (the window sleeps by default) the inspector still shows the m g = 9810 N the hinge holds, within
// 1%, and says the joint is asleep; woken by an edit, it shows the live force again.
func TestASleepingJointShowsTheForceItHeldAndSaysAsleep(t *testing.T) {
	scene := filepath.Join(t.TempDir(), "hanging.json")
	if err := os.WriteFile(scene, []byte(`{"gravity": [0, -9.81, 0], "bodies": [
		{"name": "box", "shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "position": [0, 1, 0], "mass": 1000}],
		"joints": [{"type": "hinge", "bodyA": "box", "anchor": [0, 2, 0], "axis": [0, 0, 1]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d := drive(t, Options{Scene: scene, Open: []string{"joints"}})
	d.click(d.jointRow(0))
	force := func() (float64, bool) {
		d.frames(2)
		for _, it := range d.a.w.items {
			var f float64
			if it.Kind == "text" && strings.HasPrefix(it.Label, "force ") {
				if _, err := fmt.Sscanf(it.Label, "force %f N", &f); err != nil {
					t.Fatalf("the inspector says %q", it.Label)
				}
				return f, strings.HasSuffix(it.Label, ", asleep")
			}
		}
		t.Fatal("the joint inspector shows no force")
		return 0, false
	}
	asleep := false
	for range 60 { // the island rests for 0.5 s, then sleeps
		if d.frames(5); asleep {
			break
		}
		d.world(func(w *sim.World) { asleep = w.Bodies.Asleep[0] })
	}
	if !asleep {
		t.Fatal("the hanging box never fell asleep")
	}
	if f, said := force(); !said || math.Abs(f-9810) > 98.1 {
		t.Errorf("asleep: the inspector shows %.1f N (says asleep %v), want 9810 N within 1%% and asleep", f, said)
	}
	d.a.do("wake", command.SetSettings(func(*sim.Settings) {})) // a settings edit wakes every island
	d.frames(10)
	if f, said := force(); said || f < 9810*0.5 {
		t.Errorf("woken: the inspector shows %.1f N (says asleep %v), want the live force, awake", f, said)
	}
}

// Joint friction through the panel: typed into the creation form (N m for a ball joint), the new
// joint has it; typed into the inspector with Enter, the door's hinge gets it; a piston's field is
// in N.
func TestJointFrictionIsTypedIntoTheFormAndTheInspector(t *testing.T) {
	d := drive(t, Options{Scene: "door", Open: []string{"joints"}})
	d.click(d.jointRow(0))
	d.setText("selected/friction, N m", 0, 1, "12.5")
	if j, _ := d.joint(0); j.Friction != 12.5 {
		t.Errorf("the door's hinge has friction %v after typing 12.5, want 12.5", j.Friction)
	}
	d.click("joints/Pick A then B")
	d.clickBody("door")
	d.click("joints/B = world")
	d.choose("joints/type", "piston")
	if !d.has("joints/friction, N") {
		t.Fatalf("a piston's friction field is not in N")
	}
	d.setText("joints/friction, N", 0, 1, "40")
	var np int
	d.world(func(w *sim.World) { np = w.NumJoints() })
	d.click("joints/Create joint")
	if j, _ := d.joint(np); j.Type != sim.Piston || j.Friction != 40 {
		t.Fatalf("created a %v with friction %v, want a piston with 40 N: %s", j.Type, j.Friction, d.a.panel.message)
	}
	d.setText("selected/friction, N", 0, 1, "25")
	if j, _ := d.joint(np); j.Friction != 25 {
		t.Errorf("the piston's friction %v after typing 25 into the inspector, want 25", j.Friction)
	}
	d.click("joints/Pick A then B")
	d.clickBody("door")
	d.click("joints/B = world")
	d.choose("joints/type", "ball")
	d.setText("joints/friction, N m", 0, 1, "1.5")
	var n int
	d.world(func(w *sim.World) { n = w.NumJoints() })
	d.click("joints/Create joint")
	j, _ := d.joint(n)
	if j.Type != sim.Ball || j.Friction != 1.5 {
		t.Fatalf("created a %v with friction %v, want a ball joint with 1.5: %s", j.Type, j.Friction, d.a.panel.message)
	}
	d.setText("selected/friction, N m", 0, 1, "0")
	if j, _ = d.joint(n); j.Friction != 0 {
		t.Errorf("friction %v after typing 0 into the inspector", j.Friction)
	}
}
