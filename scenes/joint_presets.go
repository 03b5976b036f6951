package scenes

import (
	"fmt"
	"math"
)

// The joint presets: each exercises a joint type, its limits or its motor (docs/SCENES.md lists them).

// pendulum: a 1 m simple pendulum (a small heavy bob on a ball joint) released at 0.5 rad, and beside
// it a bar pendulum on a hinge released horizontally.
func pendulum() *Scene {
	s := newScene("pendulum")
	s.add(ground(stackFriction))
	const L, th = 1.0, 0.5
	s.add(Body{Name: "bob", Shape: sphere(0.05), Position: v3(L*math.Sin(th), 3-L*math.Cos(th), 0), Mass: num(1)})
	s.joint(Joint{Type: "ball", BodyA: "bob", Anchor: v3(0, 3, 0)})
	s.add(Body{Name: "bar", Shape: box(0.5, 0.05, 0.05), Position: v3(2.5, 3, 0), Mass: num(1)})
	s.joint(Joint{Type: "hinge", BodyA: "bar", Anchor: v3(2, 3, 0), Axis: v3(0, 0, 1)})
	return s
}

// cradle: Newton's cradle of 5 steel-like balls (r = 0.1 m, restitution 1, no friction) on hinges,
// 1 cm apart, the first raised by 0.2 m. dt is 1/240 s so that a ball moving at the impact speed
// (2 m/s) crosses a gap in more than one step: each impact is then its own step, and the
// restitution pass hands the momentum on one ball per step.
func cradle() *Scene {
	const r, L, gap, drop = 0.1, 1.0, 0.01, 0.2
	s := newScene("cradle")
	dt := 1.0 / 240
	s.Dt = &dt
	s.Solver = &Solver{Substeps: intp(4)}
	s.add(ground(stackFriction))
	for k := range 5 {
		x := float64(k) * (2*r + gap)
		pos := v3(x, 2-L, 0)
		if k == 0 {
			th := math.Acos(1 - drop/L)
			pos = v3(x-L*math.Sin(th), 2-L*math.Cos(th), 0)
		}
		name := fmt.Sprintf("ball%d", k)
		s.add(Body{Name: name, Shape: sphere(r), Position: pos, Mass: num(1), Restitution: num(1), Friction: num(0)})
		s.joint(Joint{Type: "hinge", BodyA: name, Anchor: v3(x, 2, 0), Axis: v3(0, 0, 1)})
	}
	return s
}

// chain: 30 capsule links of 0.2 m, joined by ball joints, hanging from a fixed point 8 m up and
// released horizontally.
func chain() *Scene {
	const n, l, y0 = 30, 0.2, 8.0
	s := newScene("chain")
	s.add(ground(stackFriction))
	prev := ""
	for k := range n {
		name := fmt.Sprintf("link%d", k)
		s.add(Body{Name: name, Shape: capsule(0.04, l/2-0.04), Position: v3((float64(k)+0.5)*l, y0, 0),
			Rotation: axisAngle(0, 0, 1, math.Pi/2), Mass: num(1)})
		s.joint(Joint{Type: "ball", BodyA: name, BodyB: prev, Anchor: v3(float64(k)*l, y0, 0)})
		prev = name
	}
	return s
}

// chain100: 100 capsule links of 0.2 m on ball joints, hanging from a fixed point 22 m up and released
// horizontally, solved with the direct joint solve (solver.directJoints): the whole chain's weight and
// its whip at the bottom of the swing load the top joints, which the iterative soft joints let stretch
// by centimetres and the direct solve holds to float32 rounding (docs/PERF.md compares them).
func chain100() *Scene {
	const n, l, y0 = 100, 0.2, 22.0
	s := newScene("chain100")
	s.Solver = &Solver{DirectJoints: boolp(true)}
	s.add(ground(stackFriction))
	prev := ""
	for k := range n {
		name := fmt.Sprintf("link%d", k)
		s.add(Body{Name: name, Shape: capsule(0.04, l/2-0.04), Position: v3((float64(k)+0.5)*l-10, y0, 0),
			Rotation: axisAngle(0, 0, 1, math.Pi/2), Mass: num(1)})
		s.joint(Joint{Type: "ball", BodyA: name, BodyB: prev, Anchor: v3(float64(k)*l-10, y0, 0)})
		prev = name
	}
	return s
}

// bridge: 20 planks joined edge to edge by hinges (axis z) between two static abutments, with five
// boxes dropped on it.
func bridge() *Scene {
	const n, pw, hy, hz, y0 = 20, 0.5, 0.05, 0.75, 3.0
	s := newScene("bridge")
	s.add(ground(stackFriction))
	span := n * pw
	s.add(Body{Name: "left_bank", Type: "static", Shape: box(1, y0/2, 1.5), Position: v3(-span/2-1, y0/2, 0), Friction: num(stackFriction)})
	s.add(Body{Name: "right_bank", Type: "static", Shape: box(1, y0/2, 1.5), Position: v3(span/2+1, y0/2, 0), Friction: num(stackFriction)})
	prev := "left_bank"
	for k := range n {
		name := fmt.Sprintf("plank%d", k)
		x0 := -span/2 + float64(k)*pw
		s.add(Body{Name: name, Shape: box(pw/2-0.01, hy, hz), Position: v3(x0+pw/2, y0-hy, 0), Mass: num(5), Friction: num(stackFriction)})
		s.joint(Joint{Type: "hinge", BodyA: name, BodyB: prev, Anchor: v3(x0, y0-hy, 0), Axis: v3(0, 0, 1)})
		prev = name
	}
	s.joint(Joint{Type: "hinge", BodyA: prev, BodyB: "right_bank", Anchor: v3(span/2, y0-hy, 0), Axis: v3(0, 0, 1)})
	for k := range 5 {
		s.add(Body{Name: fmt.Sprintf("load%d", k), Shape: box(0.3, 0.3, 0.3),
			Position: v3(-3+1.5*float64(k), y0+1+0.5*float64(k), 0), Mass: num(20), Friction: num(stackFriction)})
	}
	return s
}

// door: a door on a vertical hinge that opens from 0 to 100 degrees, pushed open by a ball.
func door() *Scene {
	s := newScene("door")
	s.add(ground(stackFriction))
	s.add(Body{Name: "post", Type: "static", Shape: box(0.05, 1.05, 0.05), Position: v3(-0.05, 1.05, 0)})
	s.add(Body{Name: "door", Shape: box(0.45, 1, 0.03), Position: v3(0.45, 1.05, 0), Mass: num(20)})
	s.joint(Joint{Type: "hinge", BodyA: "door", BodyB: "post", Anchor: v3(0, 1.05, 0), Axis: v3(0, 1, 0),
		Limits: &[2]float64{0, tidy(100 * math.Pi / 180)}})
	// Rotating about +y by a positive angle turns the door's +x edge towards -z: the ball comes from +z.
	s.add(Body{Name: "ball", Shape: sphere(0.15), Position: v3(0.7, 1.2, 2), Velocity: v3(0, 1.5, -6), Mass: num(5)})
	return s
}

// engine: a crank driven by a hinge motor at 4 rad/s turns a connecting rod that drives a piston up
// and down its cylinder axis (a piston joint, travel limited to the stroke and a little more).
func engine() *Scene {
	const r, rod, y0 = 0.3, 1.0, 1.0
	s := newScene("engine")
	s.add(ground(stackFriction))
	s.add(Body{Name: "crank", Shape: box(0.05, r/2+0.05, 0.05), Position: v3(0, y0+r/2, 0.1), Mass: num(2)})
	s.joint(Joint{Type: "hinge", BodyA: "crank", Anchor: v3(0, y0, 0.1), Axis: v3(0, 0, 1),
		Motor: &Motor{Speed: 4, MaxForce: 500}})
	s.add(Body{Name: "rod", Shape: box(0.04, rod/2, 0.04), Position: v3(0, y0+r+rod/2, 0), Mass: num(1)})
	s.joint(Joint{Type: "hinge", BodyA: "rod", BodyB: "crank", Anchor: v3(0, y0+r, 0.05), Axis: v3(0, 0, 1)})
	s.add(Body{Name: "piston", Shape: box(0.15, 0.1, 0.15), Position: v3(0, y0+r+rod, 0), Mass: num(1)})
	s.joint(Joint{Type: "ball", BodyA: "piston", BodyB: "rod", Anchor: v3(0, y0+r+rod, 0)})
	// The piston's travel relative to its cylinder (the world) along +y: 0 at top dead centre, -2r at
	// the bottom.
	s.joint(Joint{Type: "piston", BodyA: "piston", Anchor: v3(0, y0+r+rod, 0), Axis: v3(0, 1, 0),
		Limits: &[2]float64{-2*r - 0.05, 0.05}})
	return s
}

// car: a chassis on four wheels, each on a hinge (axis x) with a motor driving it at 8 rad/s (2.4 m/s)
// with at most 60 N m, on a plane; the window's camera follows the chassis.
func car() *Scene {
	const wr, wx, wz, y0 = 0.3, 0.9, 1.2, 0.3
	s := newScene("car")
	s.add(ground(1))
	s.add(Body{Name: "chassis", Shape: box(0.7, 0.15, 1.5), Position: v3(0, y0+0.35, 0), Mass: num(150), Friction: num(0.5)})
	for k, p := range [4][2]float64{{-wx, wz}, {wx, wz}, {-wx, -wz}, {wx, -wz}} {
		name := fmt.Sprintf("wheel%d", k)
		s.add(Body{Name: name, Shape: sphere(wr), Position: v3(p[0], y0, p[1]), Mass: num(10), Friction: num(1)})
		s.joint(Joint{Type: "hinge", BodyA: name, BodyB: "chassis", Anchor: v3(p[0], y0, p[1]), Axis: v3(1, 0, 0),
			Motor: &Motor{Speed: 8, MaxForce: 60}})
	}
	s.View = &View{Follow: "chassis"} // it drives 24 m in 10 s: the window's camera goes with it
	return s
}

// ragdoll: a pile of 20 ragdolls dropped on the ground, each lying flat and turned 90 degrees from
// the one below. A ragdoll has 11 bodies and 10 joints: ball joints with swing cones and twist
// limits at the neck, waist, shoulders and hips, hinges with limits at the elbows and knees, each
// with joint friction (ragdollFriction).
func ragdoll() *Scene { return ragdollPile("ragdoll", 20) }

// ragdollPile is the ragdoll pile of n ragdolls, the first n of the preset's layers.
func ragdollPile(name string, n int) *Scene {
	s := newScene(name)
	s.add(ground(stackFriction))
	for k := range n {
		// Lying face down (turned -90 degrees about x), yawed 90 degrees every other layer.
		lie := axisAngle(1, 0, 0, -math.Pi/2)
		yaw := axisAngle(0, 1, 0, float64(k%2)*math.Pi/2)
		s.addRagdoll(fmt.Sprintf("r%d_", k), qmul(*yaw, *lie), Vec3{0, 0.3 + 0.45*float64(k), 0})
	}
	return s
}

// ragdollFriction sizes a ragdoll joint's friction: this fraction of the largest torque gravity puts
// on the joint through the bodies beyond it, g times the sum of their masses times their centres'
// distances from the anchor (the limb held out straight). A real joint's friction, and the ragdolls
// of Box2D's samples (a revolute motor of speed 0 and a bounded torque, scaled per bone) and of Jolt
// (mMaxFrictionTorque), hold a limb lightly: a hanging forearm or head stops swinging, a push moves
// it. From 0.22 N m at an elbow to 10 N m at the waist.
const ragdollFriction = 0.1

// addRagdoll adds a ragdoll built standing (feet at y = 0, facing +z, arms out along x), turned by q
// and moved by t. Names get the prefix.
func (s *Scene) addRagdoll(prefix string, q Quat, t Vec3) {
	type part struct {
		at   Vec3
		mass float64
	}
	parts := map[string]part{}
	// friction is ragdollFriction's torque at anchor for the named bodies beyond it.
	friction := func(anchor Vec3, beyond ...string) *float64 {
		m := 0.0
		for _, n := range beyond {
			p := parts[n]
			dx, dy, dz := p.at[0]-anchor[0], p.at[1]-anchor[1], p.at[2]-anchor[2]
			m += p.mass * math.Sqrt(dx*dx+dy*dy+dz*dz)
		}
		return num(math.Round(100*ragdollFriction*-DefaultGravity[1]*m) / 100) // to 0.01 N m
	}
	place := func(p Vec3) *Vec3 {
		r := qrot(q, p)
		return v3(r[0]+t[0], r[1]+t[1], r[2]+t[2])
	}
	dir := func(d Vec3) *Vec3 { r := qrot(q, d); return v3(r[0], r[1], r[2]) }
	body := func(name string, sh Shape, p Vec3, rot *Quat, mass float64) {
		qq := q
		if rot != nil {
			qq = qmul(q, *rot)
		}
		s.add(Body{Name: prefix + name, Shape: sh, Position: place(p), Rotation: tidyQuat(qq), Mass: num(mass), Friction: num(0.6)})
		parts[name] = part{p, mass}
	}
	side := axisAngle(0, 0, 1, math.Pi/2) // a capsule along x
	body("pelvis", box(0.15, 0.1, 0.1), Vec3{0, 1.0, 0}, nil, 10)
	body("torso", box(0.18, 0.22, 0.1), Vec3{0, 1.34, 0}, nil, 20)
	body("head", sphere(0.11), Vec3{0, 1.69, 0}, nil, 5)
	for _, sd := range []struct {
		name string
		x    float64
	}{{"left", -1}, {"right", 1}} {
		body(sd.name+"_upper_arm", capsule(0.05, 0.1), Vec3{sd.x * 0.35, 1.5, 0}, side, 2)
		body(sd.name+"_forearm", capsule(0.045, 0.1), Vec3{sd.x * 0.65, 1.5, 0}, side, 1.5)
		body(sd.name+"_thigh", capsule(0.065, 0.14), Vec3{sd.x * 0.09, 0.7, 0}, nil, 7)
		body(sd.name+"_shin", capsule(0.055, 0.14), Vec3{sd.x * 0.09, 0.28, 0}, nil, 4)
	}
	ball := func(a, b string, anchor, axis Vec3, swing, twist float64, beyond ...string) {
		s.joint(Joint{Type: "ball", BodyA: prefix + a, BodyB: prefix + b, Anchor: place(anchor), Axis: dir(axis),
			Swing: num(swing), Twist: &[2]float64{-twist, twist}, Friction: friction(anchor, append(beyond, a)...)})
	}
	hinge := func(a, b string, anchor, axis Vec3, lo, hi float64) {
		s.joint(Joint{Type: "hinge", BodyA: prefix + a, BodyB: prefix + b, Anchor: place(anchor), Axis: dir(axis),
			Limits: &[2]float64{lo, hi}, Friction: friction(anchor, a)})
	}
	ball("torso", "pelvis", Vec3{0, 1.11, 0}, Vec3{0, 1, 0}, 0.5, 0.4,
		"head", "left_upper_arm", "left_forearm", "right_upper_arm", "right_forearm")
	ball("head", "torso", Vec3{0, 1.57, 0}, Vec3{0, 1, 0}, 0.6, 0.6)
	for _, sd := range []struct {
		name string
		x    float64
	}{{"left", -1}, {"right", 1}} {
		ball(sd.name+"_upper_arm", "torso", Vec3{sd.x * 0.2, 1.5, 0}, Vec3{sd.x, 0, 0}, 1.3, 0.8, sd.name+"_forearm")
		ball(sd.name+"_thigh", "pelvis", Vec3{sd.x * 0.09, 0.9, 0}, Vec3{0, -1, 0}, 1.0, 0.4, sd.name+"_shin")
		// Elbows bend forward (+z): about +y that is a positive angle on the left arm (along -x) and a
		// negative one on the right. Knees bend backward: a positive angle about +x.
		lo, hi := 0.0, 2.5
		if sd.x > 0 {
			lo, hi = -2.5, 0
		}
		hinge(sd.name+"_forearm", sd.name+"_upper_arm", Vec3{sd.x * 0.5, 1.5, 0}, Vec3{0, 1, 0}, lo, hi)
		hinge(sd.name+"_shin", sd.name+"_thigh", Vec3{sd.x * 0.09, 0.49, 0}, Vec3{1, 0, 0}, 0, 2.5)
	}
}

func (s *Scene) joint(j Joint) { s.Joints = append(s.Joints, j) }

func intp(x int) *int { return &x }

func boolp(x bool) *bool { return &x }

// qmul is the Hamilton product a b in file order [x, y, z, w].
func qmul(a, b Quat) Quat {
	return Quat{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

// qrot rotates v by the unit quaternion q.
func qrot(q Quat, v Vec3) Vec3 {
	p := qmul(qmul(q, Quat{v[0], v[1], v[2], 0}), Quat{-q[0], -q[1], -q[2], q[3]})
	return Vec3{p[0], p[1], p[2]}
}

func tidyQuat(q Quat) *Quat {
	for i := range q {
		q[i] = tidy(q[i])
	}
	return &q
}
