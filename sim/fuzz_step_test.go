package sim_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"tumble/sim"
	"tumble/sim/geom"

	"github.com/go-gl/mathgl/mgl32"
)

// FuzzStep steps random worlds made from the fuzz input: bodies of every shape the CPU runs (box,
// sphere, capsule, convex hull; static planes and triangle meshes), masses from 1e-3 to 1e4 kg, speeds
// up to 1e3 m/s, joints of every kind with their limits, motors and break forces, a shape-matching
// cluster, every solver, and between the steps the edits the panel makes (ui/command: spawn, remove,
// mass, friction, type, velocity, drag, break or remove a joint, switch the solver, sleeping on or
// off). A step must never panic, and must never leave a non-finite body unless it returned the
// *sim.BlowUpError that names it (World.Step's report). Its seeds (f.Add, and testdata/fuzz/FuzzStep)
// run as an ordinary test; make fuzz runs the fuzzer.
func FuzzStep(f *testing.F) {
	// The empty input: one 2 cm box with its centre on a plane, under PGS. Then inputs of random
	// bytes, long enough for joints and edits, whose first byte gives each solver twice, with
	// sleeping off and on.
	f.Add([]byte{})
	r := rand.New(rand.NewPCG(41, 4))
	n := len(sim.Solvers())
	for k := range 2 * n {
		seed := make([]byte, 600)
		for i := range seed {
			seed[i] = byte(r.Uint32())
		}
		seed[0] = byte(k%n) | byte(k/n)<<7
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A world of a few bodies steps in milliseconds; one that takes a minute is stuck (a loop that
		// does not end on some input). Crash with every goroutine's stack, so that the fuzzer keeps the
		// input and the trace says where.
		stuck := time.AfterFunc(time.Minute, func() {
			buf := make([]byte, 1<<20)
			panic(fmt.Sprintf("FuzzStep: a world still stepping after a minute:\n%s", buf[:runtime.Stack(buf, true)]))
		})
		defer stuck.Stop()
		fuzzWorld(t, &fuzzInput{b: data})
	})
}

// fuzzInput reads numbers from the fuzz input; past its end every read is 0, so any input is a world
// (and, once it is read to the end, one stepped with no more edits).
type fuzzInput struct{ b []byte }

func (in *fuzzInput) done() bool { return len(in.b) == 0 }

func (in *fuzzInput) byte() byte {
	if len(in.b) == 0 {
		return 0
	}
	c := in.b[0]
	in.b = in.b[1:]
	return c
}

// intn returns a number in [0, n).
func (in *fuzzInput) intn(n int) int { return int(in.byte()) % n }

// unit returns a number in [0, 1] in 256 steps.
func (in *fuzzInput) unit() float32 { return float32(in.byte()) / 255 }

// span returns a number in [lo, hi].
func (in *fuzzInput) span(lo, hi float32) float32 { return lo + (hi-lo)*in.unit() }

// logSpan returns a number in [lo, hi] (both > 0), evenly spread in its logarithm: masses and speeds
// over decades.
func (in *fuzzInput) logSpan(lo, hi float32) float32 {
	l, h := math.Log(float64(lo)), math.Log(float64(hi))
	return float32(math.Exp(l + (h-l)*float64(in.unit())))
}

func (in *fuzzInput) vec(lo, hi float32) sim.Vec3 {
	return sim.Vec3{in.span(lo, hi), in.span(lo, hi), in.span(lo, hi)}
}

// velocity returns a velocity of random direction and a speed from 0 up to max (a quarter of them
// still, the rest spread in log over 1e-2 .. max).
func (in *fuzzInput) velocity(max float32) sim.Vec3 {
	d := in.vec(-1, 1)
	if in.intn(4) == 0 || d.Len() < 1e-3 {
		return sim.Vec3{}
	}
	return d.Normalize().Mul(in.logSpan(1e-2, max))
}

func (in *fuzzInput) rotation() sim.Quat {
	q := mgl32.Quat{W: in.span(-1, 1), V: in.vec(-1, 1)}
	if q.Len() < 1e-3 {
		return mgl32.QuatIdent()
	}
	return q.Normalize()
}

// dynamicShape returns a shape a moving body may have: a box, sphere, capsule or convex hull, 2 cm to
// 1.5 m across.
func (in *fuzzInput) dynamicShape() geom.Shape {
	switch in.intn(4) {
	case 0:
		return geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{in.logSpan(0.01, 0.75), in.logSpan(0.01, 0.75), in.logSpan(0.01, 0.75)}}
	case 1:
		return geom.Shape{Kind: geom.Sphere, Radius: in.logSpan(0.01, 0.75)}
	case 2:
		return geom.Shape{Kind: geom.Capsule, Radius: in.logSpan(0.01, 0.5), HalfHeight: in.logSpan(0.01, 0.75)}
	}
	n := 4 + in.intn(9)
	s := in.logSpan(0.02, 0.75)
	pts := make([]sim.Vec3, n)
	for k := range pts {
		pts[k] = in.vec(-s, s)
	}
	h, err := geom.NewHull(pts)
	if err != nil { // flat or repeated points: no hull, so a box of that size
		return geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{s, s, s}}
	}
	return geom.Shape{Kind: geom.ConvexHull, Hull: h}
}

// body returns the definition of a body near the origin (within 3 m, so that bodies meet).
func (in *fuzzInput) body() sim.BodyDef {
	d := sim.BodyDef{
		Shape:           in.dynamicShape(),
		Position:        sim.Vec3{in.span(-3, 3), in.span(0, 4), in.span(-3, 3)},
		Rotation:        in.rotation(),
		Velocity:        in.velocity(1e3),
		AngularVelocity: in.velocity(1e2),
		Mass:            in.logSpan(1e-3, 1e4),
		Friction:        in.span(0, 1.2),
		Restitution:     in.span(0, 1),
	}
	switch in.intn(8) {
	case 0:
		d.Type = sim.Kinematic
	case 1:
		d.Type = sim.Static
	}
	return d
}

// ground returns the static ground: a plane, a box, or a bumpy triangle mesh.
func (in *fuzzInput) ground() sim.BodyDef {
	d := sim.BodyDef{Name: "ground", Type: sim.Static, Friction: in.span(0, 1)}
	switch in.intn(3) {
	case 0:
		d.Shape = geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}
	case 1:
		d.Shape = geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{20, 0.5, 20}}
		d.Position = sim.Vec3{0, -0.5, 0}
	default:
		a := in.span(0, 0.5)
		m, err := geom.NewGridMesh(10, 8, func(x, z float32) float32 {
			return a * float32(math.Sin(float64(x))*math.Cos(float64(z)))
		})
		if err != nil {
			panic(err) // a fixed grid: not the input's doing
		}
		d.Shape = geom.Shape{Kind: geom.TriMesh, Mesh: m}
	}
	return d
}

// joint returns a joint of any kind between two of the bodies (or one and the world), anchored near
// the first, with limits, a motor, a swing cone, twist limits or a break force as the input says.
func (in *fuzzInput) joint(w *sim.World) (sim.JointDef, bool) {
	n := w.Bodies.Len()
	if n < 2 {
		return sim.JointDef{}, false
	}
	a := 1 + in.intn(n-1) // 0 is the ground
	d := sim.JointDef{Type: sim.JointType(in.intn(4)), BodyA: w.HandleAt(a)}
	if b := in.intn(n); b != a && b != 0 {
		d.BodyB = w.HandleAt(b)
	}
	d.Anchor = w.Bodies.Position[a].Add(in.vec(-0.5, 0.5))
	d.Axis = in.vec(-1, 1)
	if d.Axis.Len() < 1e-2 {
		d.Axis = sim.Vec3{0, 0, 1}
	}
	d.Axis = d.Axis.Normalize()
	flags := in.byte()
	if flags&1 != 0 && (d.Type == sim.Hinge || d.Type == sim.Piston) {
		lo := in.span(-3, 0)
		d.HasLimits, d.Limits = true, [2]float32{lo, lo + in.span(0, 3)}
	}
	if flags&2 != 0 && (d.Type == sim.Hinge || d.Type == sim.Piston) {
		d.HasMotor, d.Motor = true, sim.Motor{Speed: in.span(-20, 20), MaxForce: in.logSpan(1e-2, 1e5)}
	}
	if flags&4 != 0 && d.Type == sim.Ball {
		d.Swing = in.span(0, 3)
	}
	if flags&8 != 0 && d.Type == sim.Ball {
		lo := in.span(-3, 0)
		d.HasTwist, d.Twist = true, [2]float32{lo, lo + in.span(0, 3)}
	}
	if flags&16 != 0 {
		d.BreakForce = in.logSpan(1e-1, 1e6)
	}
	return d, true
}

// fuzzWorld builds the input's world and steps it with the input's edits, checking every step.
func fuzzWorld(t *testing.T, in *fuzzInput) {
	solvers := sim.Solvers()
	head, counts := in.byte(), in.byte()
	bodies, joints, steps := 1+int(counts&7), int(counts>>3&7), 20+in.intn(100)
	set := sim.Settings{
		Gravity: sim.Vec3{0, -9.81, 0},
		Solver:  solvers[int(head)%len(solvers)],
		Sleep:   head&0x80 != 0,
		Workers: 1 + int(head>>6&1), // two workers now and then: the pool's own paths
	}
	w := sim.NewWorld(set)
	defer w.Close()
	if _, err := w.AddBody(in.ground()); err != nil {
		t.Fatalf("ground: %v", err)
	}
	for range bodies {
		if _, err := w.AddBody(in.body()); err != nil {
			t.Fatalf("body: %v", err)
		}
	}
	for range joints {
		if d, ok := in.joint(w); ok {
			_, _ = w.AddJoint(d) // a joint that fails its own checks is refused: the world is unchanged
		}
	}
	if in.intn(4) == 0 {
		addCluster(w, in)
	}
	t.Logf("%d bodies, %d joints, %v, sleep %v", w.Bodies.Len(), w.NumJoints(), set.Solver, set.Sleep)
	for step := range steps {
		if !in.done() && (step%4 == 0 || in.intn(4) == 0) {
			fuzzEdit(w, in)
		}
		if !stepChecked(t, w) {
			return
		}
	}
	t.Logf("%d steps: %d bodies, %d joints, %v, sleep %v", steps, w.Bodies.Len(), w.NumJoints(), w.Settings().Solver, w.Settings().Sleep)
}

// addCluster joins the dynamic bodies (two or more) in one shape-matching cluster.
func addCluster(w *sim.World, in *fuzzInput) {
	var c sim.ClusterDef
	for i := range w.Bodies.Len() {
		if w.Bodies.Type[i] == sim.Dynamic {
			c.Bodies = append(c.Bodies, w.HandleAt(i))
		}
	}
	c.Stiffness, c.Damping, c.Linear = in.unit(), in.unit(), in.unit()
	if len(c.Bodies) >= 2 {
		_, _ = w.AddCluster(c)
	}
}

// fuzzEdit makes one of the panel's edits (ui/command) on a body or joint the input picks. Edits the
// world refuses (a removed body, a static body's mass) return errors, as they do in the panel; they
// must not change the world or panic.
func fuzzEdit(w *sim.World, in *fuzzInput) {
	n := w.Bodies.Len()
	pick := func() (sim.Handle, int) { i := in.intn(n); return w.HandleAt(i), i }
	switch in.intn(12) {
	case 0: // Spawn or Shoot: a new body, up to 1e3 m/s
		_, _ = w.AddBody(in.body())
	case 1: // Remove
		if n > 1 {
			h, _ := pick()
			_ = w.RemoveBody(h)
		}
	case 2: // the inspector's mass
		h, _ := pick()
		_ = w.SetMass(h, in.logSpan(1e-3, 1e4))
	case 3: // the inspector's friction and restitution
		h, _ := pick()
		_ = w.SetMaterial(h, in.span(0, 1.2), in.span(0, 1))
	case 4: // the inspector's type
		h, i := pick()
		if w.Bodies.Shape[i].Kind != geom.Plane && w.Bodies.Shape[i].Kind != geom.TriMesh {
			_ = w.SetType(h, sim.BodyType(in.intn(3)))
		}
	case 5: // the inspector's velocity
		h, _ := pick()
		_ = w.SetVelocity(h, in.velocity(1e3), in.velocity(1e2))
	case 6: // a drag: the spring's impulse towards a target, as ui/command's applyDrag gives it
		h, i := pick()
		if w.Bodies.Type[i] == sim.Dynamic {
			target := in.vec(-5, 5)
			a := target.Sub(w.Bodies.Position[i]).Mul(400)
			if l := a.Len(); l > 200 {
				a = a.Mul(200 / l)
			}
			_ = w.ApplyImpulse(h, a.Mul(w.Bodies.Mass[i]*w.Resolved().Dt), w.Bodies.Position[i].Add(in.vec(-0.1, 0.1)))
		}
	case 7: // break a joint (the Joints panel's break force, set below what it holds) or remove it
		if k := w.NumJoints(); k > 0 {
			j := in.intn(k)
			if in.intn(2) == 0 {
				_ = w.RemoveJoint(j)
			} else {
				d := w.Joint(j)
				d.BreakForce = 1e-3
				_ = w.UpdateJoint(j, d)
			}
		}
	case 8: // a new joint (Join)
		if d, ok := in.joint(w); ok {
			_, _ = w.AddJoint(d)
		}
	case 9: // the Simulation panel's solver
		s := w.Settings()
		solvers := sim.Solvers()
		s.Solver = solvers[in.intn(len(solvers))]
		w.SetSettings(s)
	case 10: // sleeping on or off
		s := w.Settings()
		s.Sleep = !s.Sleep
		w.SetSettings(s)
	case 11: // the joint's limits and motor (EditJoint)
		if k := w.NumJoints(); k > 0 {
			j := in.intn(k)
			d := w.Joint(j)
			if d.Type == sim.Hinge || d.Type == sim.Piston {
				lo := in.span(-3, 0)
				d.HasLimits, d.Limits = in.intn(2) == 0, [2]float32{lo, lo + in.span(0, 3)}
				d.HasMotor, d.Motor = in.intn(2) == 0, sim.Motor{Speed: in.span(-20, 20), MaxForce: in.logSpan(1e-2, 1e5)}
			}
			_ = w.UpdateJoint(j, d)
		}
	}
}

// stepChecked steps w and checks what the step left: every body finite, or a blow-up report that names
// a body whose state is non-finite or over the speed limit. It returns false when the world blew up
// (and so is done).
func stepChecked(t *testing.T, w *sim.World) bool {
	t.Helper()
	err := w.Step()
	var bu *sim.BlowUpError
	if err != nil && !errors.As(err, &bu) {
		t.Fatalf("step %d: %v", w.StepCount, err)
	}
	b := &w.Bodies
	if bu != nil {
		h, ok := w.Find(bu.Body)
		if !ok {
			t.Fatalf("step %d: the blow-up report names %q, which is no body: %v", w.StepCount, bu.Body, bu)
		}
		i, _ := w.Index(h)
		limit := float64(w.Resolved().MaxLinearSpeed)
		if bodyFinite(b, i) && float64(b.Velocity[i].Len()) <= limit {
			t.Fatalf("step %d: the blow-up report names %q, whose state is finite and under %g m/s: %v", w.StepCount, bu.Body, limit, bu)
		}
		t.Logf("blew up (reported): %v", bu)
		return false
	}
	for i := range b.Len() {
		if !bodyFinite(b, i) {
			t.Fatalf("step %d: body %q (%v, %v) is not finite, and the step reported no blow-up: p %v q %v v %v w %v",
				w.StepCount, b.Name[i], b.Type[i], b.Shape[i].Kind, b.Position[i], b.Rotation[i], b.Velocity[i], b.AngularVelocity[i])
		}
	}
	return true
}

// bodyFinite reports whether body i's pose and velocities are all finite numbers.
func bodyFinite(b *sim.Bodies, i int) bool {
	q := b.Rotation[i]
	for _, x := range [...]float32{b.Position[i][0], b.Position[i][1], b.Position[i][2], b.Velocity[i][0], b.Velocity[i][1], b.Velocity[i][2],
		b.AngularVelocity[i][0], b.AngularVelocity[i][1], b.AngularVelocity[i][2], q.W, q.V[0], q.V[1], q.V[2]} {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}
