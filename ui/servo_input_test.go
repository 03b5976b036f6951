package ui

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tumble/sim"
)

// The door's hinge, clicked in the joints table and ticked "servo", holds where it is; a target of 45
// degrees typed into the servo's field (Enter commits it) turns the door there at the 90 deg/s typed
// beside it, and holds it.
func TestJointsInspectorTurnsAHingeIntoAServo(t *testing.T) {
	d := drive(t, Options{Scene: "door", Open: []string{"joints"}})
	d.click(d.jointRow(0))
	d.click("selected/servo##own")
	j, st := d.joint(0)
	if !j.HasMotor || j.Motor.Mode != sim.MotorPosition || j.Motor.MaxForce <= 0 || j.Motor.Target != st.Coordinate {
		t.Fatalf("after ticking servo: motor %v %+v at %.4f rad, want a servo holding where it is", j.HasMotor, j.Motor, st.Coordinate)
	}
	const field = "selected/to deg, deg/s, N m##own"
	d.setText(field, 1, 3, "90")
	d.setText(field, 0, 3, "45")
	j, _ = d.joint(0)
	if !near(j.Motor.Target, math.Pi/4, 1e-5) || !near(j.Motor.Speed, math.Pi/2, 1e-5) || j.Motor.Mode != sim.MotorPosition {
		t.Fatalf("after typing 45 deg at 90 deg/s: motor %+v", j.Motor)
	}
	d.frames(90) // 45 degrees at 90 deg/s: half a second, and the braking
	_, st = d.joint(0)
	if math.Abs(float64(st.Coordinate)-math.Pi/4) > 1e-3 {
		t.Errorf("door at %.3f deg, want the servo's 45", st.Coordinate*180/math.Pi)
	}
	d.click("selected/servo##own")
	if j, _ = d.joint(0); !j.HasMotor || j.Motor.Mode != sim.MotorSpeed {
		t.Errorf("servo ticked off: motor %v %+v, want a speed motor", j.HasMotor, j.Motor)
	}
}

// The creation form makes a servo: motor and servo ticked, a target typed in degrees, the new hinge's
// motor drives to it.
func TestJointsFormCreatesAServo(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"joints"}})
	d.frames(5)
	d.click("joints/Pick A then B")
	d.clickBody("box3")
	d.click("joints/B = world")
	d.click("joints/motor")
	d.click("joints/servo")
	d.setText("joints/to deg, deg/s, N m", 0, 3, "30")
	var n int
	d.world(func(w *sim.World) { n = w.NumJoints() })
	d.click("joints/Create joint")
	j, _ := d.joint(n)
	if j.Type != sim.Hinge || !j.HasMotor || j.Motor.Mode != sim.MotorPosition || !near(j.Motor.Target, math.Pi/6, 1e-5) ||
		j.Motor.MaxForce != 10 {
		t.Fatalf("created %v with motor %v %+v: %s", j.Type, j.HasMotor, j.Motor, d.a.panel.message)
	}
}

// A URDF robot typed into the file field opens with Open: its links are the bodies, its shoulder a
// servo, and the message line counts what the file left out and names the first.
func TestOpenReadsAURDFRobot(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	// The pointer with a visual on its arm, which the mapping leaves out.
	src, err := os.ReadFile("../scenes/urdf/testdata/simple/pointer.urdf")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pointer.urdf")
	withVisual := strings.Replace(string(src), `<link name="arm">`,
		`<link name="arm"><visual><geometry><box size="0.5 0.05 0.05"/></geometry></visual>`, 1)
	if err := os.WriteFile(path, []byte(withVisual), 0o644); err != nil {
		t.Fatal(err)
	}
	d.typeInto("scene/file", path)
	d.click("scene/Open")
	if d.a.S.Name() != path || d.a.panel.isErr || !strings.Contains(d.a.panel.message, "1 element(s) left out, first ") {
		t.Fatalf("Open: scene %q, message %q", d.a.S.Name(), d.a.panel.message)
	}
	d.world(func(w *sim.World) {
		if _, ok := w.Find("arm"); !ok || w.NumJoints() != 2 || w.Joint(1).Motor.Mode != sim.MotorPosition {
			t.Errorf("opened %d bodies, %d joints", w.Bodies.Len(), w.NumJoints())
		}
	})
}
