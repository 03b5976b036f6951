package ui

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/render"
	"tumble/scenes"
	"tumble/sim"
)

// These tests draw joints into a render.Frame, which is plain data: they need no window or display.

// presetWorld builds the named preset's world, after edit (if any) changes the scene.
func presetWorld(t *testing.T, name string, edit ...func(*scenes.Scene)) *sim.World {
	t.Helper()
	s, ok := scenes.Preset(name)
	if !ok {
		t.Fatalf("no preset %q", name)
	}
	for _, e := range edit {
		e(s)
	}
	w, err := s.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

type segment struct {
	a, b mgl32.Vec3
	col  [4]float32
}

func drawJoint(w *sim.World, k int) []segment {
	var f render.Frame
	jointLines(&f, w, hostPoses(w), k, true)
	out := make([]segment, 0, len(f.Lines)/2)
	for i := 0; i+1 < len(f.Lines); i += 2 {
		out = append(out, segment{f.Lines[i].Pos, f.Lines[i+1].Pos, f.Lines[i].Color})
	}
	return out
}

// pose is a body's position and rotation; the zero pose (a zero handle) is the static world's.
type pose struct {
	x mgl32.Vec3
	q mgl32.Quat
}

func poseOf(w *sim.World, h sim.Handle) pose {
	i, ok := w.Index(h)
	if !ok {
		return pose{q: mgl32.QuatIdent()}
	}
	return pose{w.Bodies.Position[i], w.Bodies.Rotation[i]}
}

// carry moves a world point p and direction d fixed in a body from its pose then to its pose now:
// now.q * then.q^-1 applied to them. This is how the joint's frame must move, worked out here without
// World.JointFrame.
func carry(then, now pose, p, d mgl32.Vec3) (mgl32.Vec3, mgl32.Vec3) {
	r := now.q.Mul(then.q.Conjugate())
	return now.x.Add(r.Rotate(p.Sub(then.x))), r.Rotate(d)
}

// findLine returns a line of colour col from a to b (either way round), within tol.
func findLine(segs []segment, a, b mgl32.Vec3, col [4]float32, tol float32) bool {
	for _, s := range segs {
		if s.col != col {
			continue
		}
		if s.a.Sub(a).Len() < tol && s.b.Sub(b).Len() < tol || s.a.Sub(b).Len() < tol && s.b.Sub(a).Len() < tol {
			return true
		}
	}
	return false
}

// angleAbout returns the angle (right-handed about the unit axis) from u to v, both across the axis.
func angleAbout(axis, u, v mgl32.Vec3) float64 {
	return math.Atan2(float64(axis.Dot(u.Cross(v))), float64(u.Dot(v)))
}

func checkFinite(t *testing.T, name string, k int, segs []segment) {
	t.Helper()
	for _, s := range segs {
		for _, x := range append(s.a[:], s.b[:]...) {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("%s joint %d: non-finite line %v", name, k, s)
			}
		}
	}
}

// The door's hinge: the fan spans the limits [0, 100 degrees] about the axis, fixed to the post, and the
// current-angle line follows the door as the ball pushes it open, staying inside the fan.
func TestJointLinesDrawTheDoorsHingeFanAndItsCurrentAngle(t *testing.T) {
	w := presetWorld(t, "door")
	def := w.Joint(0)
	jf := w.JointFrame(0)
	sc := jointScale(w, 0) // the drawing's scale
	then := poseOf(w, def.BodyA)
	perp0 := jf.PerpB // the post is static and unturned: its frame is the world's
	lastEnd := mgl32.Vec3{}
	for round := range 2 {
		segs := drawJoint(w, 0)
		checkFinite(t, "door", 0, segs)
		now := poseOf(w, def.BodyA)
		anchor, axis := carry(then, now, def.Anchor, def.Axis)
		_, ref := carry(then, now, def.Anchor, perp0)
		// The fan: red rays of jointFanLen*sc from the post's anchor, from lo to hi about the axis.
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range segs {
			if s.col == colContact && s.a.Sub(def.Anchor).Len() < 1e-5 && math.Abs(float64(s.b.Sub(s.a).Len()-jointFanLen*sc)) < 1e-4 {
				a := angleAbout(def.Axis, perp0, s.b.Sub(s.a).Normalize())
				lo, hi = min(lo, a), max(hi, a)
			}
		}
		if math.Abs(lo-float64(def.Limits[0])) > 1e-3 || math.Abs(hi-float64(def.Limits[1])) > 1e-3 {
			t.Errorf("round %d: fan spans [%.4f, %.4f], limits %v", round, lo, hi, def.Limits)
		}
		// The current angle: from A's anchor along A's reference direction, as carried by A.
		end := anchor.Add(ref.Mul(1.15 * jointFanLen * sc))
		if !findLine(segs, anchor, end, colJointNow, 1e-4) {
			t.Errorf("round %d: no current-angle line from %v to %v", round, anchor, end)
		}
		if !findLine(segs, anchor.Sub(axis.Mul(jointAxisLen*sc)), anchor.Add(axis.Mul(jointAxisLen*sc)), colNormal, 1e-4) {
			t.Errorf("round %d: no axis line through %v along %v", round, anchor, axis)
		}
		ang := angleAbout(def.Axis, perp0, ref)
		if ang < float64(def.Limits[0])-0.05 || ang > float64(def.Limits[1])+0.05 {
			t.Errorf("round %d: current angle %.3f outside the fan %v", round, ang, def.Limits)
		}
		if round == 1 {
			if c := float64(w.JointCoordinate(0)); math.Abs(ang-c) > 0.02 {
				t.Errorf("drawn angle %.4f, the joint's coordinate %.4f", ang, c)
			}
			if ang < 0.2 || end.Sub(lastEnd).Len() < 0.05 {
				t.Errorf("the door did not open (angle %.3f) or its line did not follow (moved %.3f m)", ang, end.Sub(lastEnd).Len())
			}
		}
		lastEnd = end
		for range 90 { // the ball reaches the door and pushes it open
			if err := w.Step(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A ragdoll's waist (a ball joint with a 0.5 rad swing cone and twist limits), the torso set
// spinning: the cone's rim lies at the swing angle from the pelvis's twist axis, the torso's twist axis
// line moves with the torso, and its reference direction shows the joint's twist. The waist's joint
// friction is taken off, so that the spin carries the torso to its limits within the rounds.
func TestJointLinesDrawABallJointsSwingConeAndTwistAxis(t *testing.T) {
	w := presetWorld(t, "ragdoll", func(s *scenes.Scene) {
		for i := range s.Bodies {
			if s.Bodies[i].Name == "r19_torso" { // the top ragdoll's
				s.Bodies[i].AngularVelocity = &scenes.Vec3{2, 4, 3}
			}
		}
		for i := range s.Joints {
			if s.Joints[i].BodyA == "r19_torso" && s.Joints[i].BodyB == "r19_pelvis" {
				s.Joints[i].Friction = nil
			}
		}
	})
	const k = 190 // r19_torso on r19_pelvis
	def := w.Joint(k)
	if def.Type != sim.Ball || !(def.Swing > 0) || !def.HasTwist {
		t.Fatalf("joint %d is not a ball joint with a cone and twist limits: %+v", k, def)
	}
	thenA, thenB := poseOf(w, def.BodyA), poseOf(w, def.BodyB)
	jf := w.JointFrame(k)
	sc := jointScale(w, k) // the drawing's scale
	perp0 := thenB.q.Rotate(jf.PerpB)
	var lastAxis mgl32.Vec3
	for round := range 2 {
		segs := drawJoint(w, k)
		checkFinite(t, "ragdoll", k, segs)
		nowA, nowB := poseOf(w, def.BodyA), poseOf(w, def.BodyB)
		anchorA, axisA := carry(thenA, nowA, def.Anchor, def.Axis)
		anchorB, axisB := carry(thenB, nowB, def.Anchor, def.Axis)
		_, perpB := carry(thenB, nowB, def.Anchor, perp0)
		rim := 0
		for _, s := range segs {
			ra, rb := s.a.Sub(anchorB), s.b.Sub(anchorB)
			if s.col != colContact || math.Abs(float64(ra.Len()-jointConeLen*sc)) > 1e-4 || math.Abs(float64(rb.Len()-jointConeLen*sc)) > 1e-4 {
				continue
			}
			rim++
			for _, r := range []mgl32.Vec3{ra, rb} {
				a := math.Acos(math.Max(-1, math.Min(1, float64(r.Normalize().Dot(axisB)))))
				if math.Abs(a-float64(def.Swing)) > 1e-3 {
					t.Errorf("round %d: rim point at %.5f rad from the twist axis, swing %v", round, a, def.Swing)
				}
			}
		}
		if rim != jointRimSteps {
			t.Errorf("round %d: %d rim segments, want %d", round, rim, jointRimSteps)
		}
		if !findLine(segs, anchorA, anchorA.Add(axisA.Mul(1.15*jointConeLen*sc)), colJointNow, 1e-4) {
			t.Errorf("round %d: no twist-axis line from %v along %v", round, anchorA, axisA)
		}
		// The twist limits: red rays from the cone's tip spanning -hi..-lo about B's axis.
		tip := anchorB.Add(axisB.Mul(jointConeLen * sc))
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range segs {
			if s.col == colContact && s.a.Sub(tip).Len() < 1e-4 {
				a := angleAbout(axisB, perpB, s.b.Sub(s.a).Normalize())
				lo, hi = min(lo, a), max(hi, a)
			}
		}
		if math.Abs(lo+float64(def.Twist[1])) > 1e-3 || math.Abs(hi+float64(def.Twist[0])) > 1e-3 {
			t.Errorf("round %d: twist rays span [%.4f, %.4f], limits %v", round, lo, hi, def.Twist)
		}
		if round == 1 {
			// A's reference direction, drawn at the tip, is B's turned by minus the joint's twist.
			var tw mgl32.Vec3
			for _, s := range segs {
				if s.col == colJointNow && s.a.Sub(tip).Len() < 1e-4 {
					tw = s.b.Sub(s.a).Normalize()
				}
			}
			if tw == (mgl32.Vec3{}) {
				t.Fatal("no twist line at the cone's tip")
			}
			if a, c := angleAbout(axisB, perpB, tw), float64(w.JointCoordinate(k)); math.Abs(a+c) > 0.02 {
				t.Errorf("drawn twist %.4f, the joint's twist %.4f", -a, c)
			}
			if math.Abs(float64(w.JointCoordinate(k))) < 0.05 || axisA.Sub(lastAxis).Len() < 0.05 {
				t.Errorf("the torso did not turn: twist %v, twist axis %v, was %v", w.JointCoordinate(k), axisA, lastAxis)
			}
		}
		lastAxis = axisA
		for range 30 { // the torso twists and swings against the pelvis
			if err := w.Step(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// The engine's piston: a red segment between the stops along the slide axis, and the slider's tick on
// it at the piston's travel.
func TestJointLinesDrawAPistonsStopsAndSlider(t *testing.T) {
	w := presetWorld(t, "engine")
	for range 20 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	const k = 3
	def := w.Joint(k)
	if def.Type != sim.Piston || !def.HasLimits {
		t.Fatalf("joint %d is not a limited piston: %+v", k, def)
	}
	segs := drawJoint(w, k)
	lo, hi := def.Anchor.Add(def.Axis.Mul(def.Limits[0])), def.Anchor.Add(def.Axis.Mul(def.Limits[1]))
	if !findLine(segs, lo, hi, colContact, 1e-4) {
		t.Errorf("no stop-to-stop segment from %v to %v", lo, hi)
	}
	ticks := 0
	for _, s := range segs {
		if s.col == colJointNow {
			ticks++
			travel := s.a.Add(s.b).Mul(0.5).Sub(def.Anchor).Dot(def.Axis)
			if c := w.JointCoordinate(k); math.Abs(float64(travel-c)) > 0.01 {
				t.Errorf("slider drawn at %.4f m, the joint's travel %.4f m", travel, c)
			}
		}
	}
	if ticks != 1 {
		t.Errorf("%d slider ticks", ticks)
	}
}

// Every joint of the joint presets, and a fixed joint, draws finite lines.
func TestJointLinesDrawEveryJointType(t *testing.T) {
	for _, name := range []string{"pendulum", "cradle", "chain", "bridge", "door", "engine", "car", "ragdoll"} {
		w := presetWorld(t, name)
		for k := range w.NumJoints() {
			segs := drawJoint(w, k)
			if len(segs) < 2 {
				t.Errorf("%s joint %d: %d lines", name, k, len(segs))
			}
			checkFinite(t, name, k, segs)
		}
	}
	s, err := scenes.Load(filepath.Join("..", "examples", "joint-fixed.json"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The cross (3) and the box's 12 edges (the lines to the bodies' centres are jointLinks').
	if segs := drawJoint(w, 0); len(segs) != 3+12 {
		t.Errorf("fixed joint: %d lines, want 15", len(segs))
	}
}
