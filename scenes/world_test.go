package scenes

import (
	"math"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
)

func TestWorldAppliesDefaults(t *testing.T) {
	s, err := Parse("s.json", []byte(`{"bodies": [
		{"type": "static", "shape": {"type": "plane", "normal": [0, 1, 0]}},
		{"shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.World(Options{})
	if err != nil {
		t.Fatal(err)
	}
	set := w.Settings()
	if set.Gravity != (sim.Vec3{0, -9.81, 0}) || set.Dt != float32(1.0/60) || set.Solver != sim.SolverDefault {
		t.Errorf("settings %+v", set)
	}
	b := &w.Bodies
	if b.Name[0] != "body0" || b.Name[1] != "body1" || b.Type[0] != sim.Static || b.Type[1] != sim.Dynamic {
		t.Errorf("names %v types %v", b.Name, b.Type)
	}
	if b.Friction[1] != 0.5 || b.Restitution[1] != 0 || b.Mass[1] != 1000 || b.Rotation[1].W != 1 {
		t.Errorf("friction %v restitution %v mass %v rotation %v", b.Friction[1], b.Restitution[1], b.Mass[1], b.Rotation[1])
	}
}

func TestWorldMapsEveryField(t *testing.T) {
	s, err := Parse("everything.json", []byte(everything))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.World(Options{})
	if err != nil {
		t.Fatal(err)
	}
	set := w.Settings()
	want := sim.Settings{Gravity: sim.Vec3{0.5, -9.81, 0.25}, Dt: 0.005, Solver: sim.PGS, Iterations: 12,
		Substeps: 3, NoFriction: true, NoWarmStart: true, NoRelax: true, NoRestitution: true,
		ContactHertz: 45.5, DampingRatio: 2, Broadphase: sim.Grid, Sleep: true, NoContactCache: true,
		DirectJoints: true, RelaxIterations: 3, MaxPushOut: 2.5, RestitutionThreshold: 0.5}
	if set != want {
		t.Errorf("settings\n%+v, want\n%+v", set, want)
	}
	b := &w.Bodies
	// The plane's normal [0, 2, 0] with offset -1 is the plane y = -0.5.
	if sh := b.Shape[0]; sh.Kind != geom.Plane || sh.Normal != (sim.Vec3{0, 1, 0}) || sh.Offset != -0.5 {
		t.Errorf("plane %+v", sh)
	}
	if b.Type[1] != sim.Kinematic || b.Velocity[1] != (sim.Vec3{0, 0.5, 0}) || b.AngularVelocity[1] != (sim.Vec3{0, 0.1, 0}) {
		t.Errorf("kinematic body %v %v %v", b.Type[1], b.Velocity[1], b.AngularVelocity[1])
	}
	// File order [x, y, z, w]; mgl32 keeps W apart.
	q := b.Rotation[2]
	if math.Abs(float64(q.W)-0.70710677) > 1e-6 || math.Abs(float64(q.V[2])-0.70710677) > 1e-6 || q.V[0] != 0 {
		t.Errorf("rotation %v", q)
	}
	if b.Mass[2] != 2 || b.Friction[2] != 0.3 || b.Restitution[2] != 0.7 {
		t.Errorf("cube mass %v friction %v restitution %v", b.Mass[2], b.Friction[2], b.Restitution[2])
	}
	sphereMass := 500 * 4.0 / 3 * math.Pi * 0.25 * 0.25 * 0.25
	if b.Name[3] != "body3" || math.Abs(float64(b.Mass[3])-sphereMass) > 1e-3 {
		t.Errorf("sphere %s mass %v, want %v", b.Name[3], b.Mass[3], sphereMass)
	}
	if b.RollingResistance[3] != 0.05 || b.SpinningResistance[3] != 0.125 || b.RollingResistance[2] != 0 {
		t.Errorf("resistance: sphere %v %v, cube %v", b.RollingResistance[3], b.SpinningResistance[3], b.RollingResistance[2])
	}
	if w.NumJoints() != 5 {
		t.Errorf("%d joints", w.NumJoints())
	}
	if d := w.Joint(1); d.Type != sim.Ball || d.Swing != 0.7 || !d.HasTwist || d.Twist != [2]float32{-0.25, 0.5} ||
		d.BreakForce != 1000 || d.Axis != (sim.Vec3{1, 0, 0}) {
		t.Errorf("ball joint %+v", d)
	}
	if d := w.Joint(2); d.Type != sim.Hinge || !d.HasLimits || !d.HasMotor || d.Motor.MaxForce != 10 {
		t.Errorf("hinge joint %+v", d)
	}
}

func TestWorldOptionsOverrideSolverWorkersAndBroadphase(t *testing.T) {
	s, _ := Parse("everything.json", []byte(everything))
	w, err := s.World(Options{Solver: sim.Jacobi, Workers: 3, Broadphase: sim.SAP})
	if err != nil {
		t.Fatal(err)
	}
	if set := w.Settings(); set.Solver != sim.Jacobi || set.Workers != 3 || set.Iterations != 12 || set.Broadphase != sim.SAP {
		t.Errorf("settings %+v", set)
	}
}

func TestWorldRefusesAnInvalidSceneWithoutAWorld(t *testing.T) {
	s, _ := Preset("stack")
	s.Bodies[3].Shape.HalfExtents[1] = 0
	w, err := s.World(Options{})
	if w != nil || err == nil || err.Error() != "bodies[3].shape.halfExtents[1]: must be > 0, got 0" {
		t.Errorf("got %v, %v", w, err)
	}
	s, _ = Preset("stack")
	s.Bodies[2].Name = "box5"
	if w, err := s.World(Options{}); w != nil || err == nil {
		t.Errorf("duplicate name accepted")
	}
}

// examples/joint-servo.json: its servos bring a two-link arm to 45 degrees at the shoulder and -60
// at the elbow, and a block up 0.5 m, and hold them there within 1e-3 rad or m (sim's servo tests
// say why that bound).
func TestServoExampleHoldsItsTargets(t *testing.T) {
	s, err := Load("../examples/joint-servo.json")
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.World(Options{})
	if err != nil {
		t.Fatal(err)
	}
	targets := []float32{0.7854, -1.0472, 0.5}
	for k, want := range targets {
		if m := w.Joint(k).Motor; m.Mode != sim.MotorPosition || m.Target != want {
			t.Fatalf("joint %d: motor %+v, want a position motor to %v", k, m, want)
		}
	}
	for range 180 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	for k, want := range targets {
		if x := w.JointCoordinate(k); math.Abs(float64(x-want)) > 1e-3 {
			t.Errorf("joint %d at %.5f after 3 s, want %v", k, x, want)
		}
	}
}
