package gpu

import (
	"fmt"
	"math"
	"testing"

	"tumble/gpu/emu"
	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// The parity tests run a scene twice, on the CPU stages (with the Jacobi solver, the CUDA backend's)
// and on a Backend, and compare the trajectories. On the emulated device they check the whole launch
// sequence, every kernel and the host code between them, in make test; parity_cuda_test.go runs the
// same cases on a GPU in the cuda build.
//
// Why tolerances and not bit equality: the GPU sums each body's Jacobi impulses with atomicAdd, in
// whatever order the rows arrive, where the CPU gathers them in adjacency order; float32 sums in a
// different order differ in the last bits, and nvcc fuses multiply-adds. In a scene at rest those
// differences stay at rounding level; in a chaotic one (rain) they grow, so there only the first steps
// are compared body by body and the rest by what the physics fixes.

// parityCase is a scene, how long to run it, and how far apart the two runs may drift.
type parityCase struct {
	scene string
	steps int
	tol   float64 // metres: largest position difference over the run
	cut   int     // when > 0, only the scene's first cut bodies (a small piece of a giant preset)
}

// emulatedParity are small enough for the emulator in make test.
var emulatedParity = []parityCase{
	{"stack", 600, 2e-3, 0},     // 20 boxes at rest: rounding-level differences, a stack that falls fails
	{"pyramid20", 240, 2e-3, 0}, // 210 boxes at rest
	{"pendulum", 600, 5e-3, 0},  // joints: a swinging pendulum's phase error grows linearly, slowly
	{"chain", 300, 1e-2, 0},     // 30 links, joints and contacts with the ground
	// The rain's bin and its first 10 rows of tilted drops: they touch their neighbours from the
	// first step, fall 7 m and land on the bin's floor. Exact: on the emulator every sum runs in the
	// CPU's order, and this pile of rotated boxes is chaotic enough that any other difference shows.
	{"rain", 120, 0, 5 + 250},
	// Convex hulls: 48 rocks of six hulls dropped in a heap among five static boulders, on the ground
	// within a second. Exact: the hull routines are ported operation for operation.
	{"rocks", 150, 0, 0},
	{"bunny", 150, 0, 0}, // 5 bunnies (a hull of 69 points, the mesh's inertia) dropped onto rocks
	// A static triangle mesh: 36 boxes, spheres and rocks dropped onto a bumpy bowl of 1,152
	// triangles, landing from the second layer's fall on. Exact: the mesh routines and the BVH's
	// order are ported operation for operation.
	{"terrain", 150, 0, 0},
}

// newWorld builds a preset with the Jacobi solver.
func newWorld(t testing.TB, scene string) *sim.World { return newCutWorld(t, scene, 0) }

// newCutWorld builds a preset with the Jacobi solver, keeping only its first cut bodies when cut > 0.
func newCutWorld(t testing.TB, scene string, cut int) *sim.World {
	t.Helper()
	s, ok := scenes.Preset(scene)
	if !ok {
		t.Fatalf("no preset %s", scene)
	}
	if cut > 0 && cut < len(s.Bodies) {
		s.Bodies = s.Bodies[:cut]
	}
	w, err := s.World(scenes.Options{Solver: sim.Jacobi, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// runParity steps the scene on the CPU and on b, returning the largest position difference seen and
// where.
func runParity(t *testing.T, b *Backend, c parityCase) (float64, string) {
	cpu := newCutWorld(t, c.scene, c.cut)
	defer cpu.Close()
	dev := newCutWorld(t, c.scene, c.cut)
	defer dev.Close()
	if err := dev.SetBackend(b); err != nil {
		t.Fatal(err)
	}
	defer dev.SetBackend(nil)
	worst, where := 0.0, ""
	for step := 1; step <= c.steps; step++ {
		if err := cpu.Step(); err != nil {
			t.Fatalf("%s: CPU step %d: %v", c.scene, step, err)
		}
		if err := dev.Step(); err != nil {
			t.Fatalf("%s: %s step %d: %v", c.scene, b.Name(), step, err)
		}
		if step%10 != 0 && step != c.steps {
			continue
		}
		if err := dev.Sync(); err != nil {
			t.Fatal(err)
		}
		for i := range cpu.Bodies.Len() {
			d := dist(cpu.Bodies.Position[i], dev.Bodies.Position[i])
			if !(d <= worst) { // NaN counts as worst
				worst, where = d, fmt.Sprintf("body %s at step %d: CPU %v, device %v", cpu.Bodies.Name[i], step,
					cpu.Bodies.Position[i], dev.Bodies.Position[i])
			}
		}
		if (cpu.Stats.Manifolds != dev.Stats.Manifolds || cpu.Stats.Contacts != dev.Stats.Contacts ||
			cpu.Stats.Pairs != dev.Stats.Pairs) && step < 30 {
			t.Errorf("%s step %d: %d pairs, %d touching, %d points on the CPU; %d, %d, %d on the device", c.scene,
				step, cpu.Stats.Pairs, cpu.Stats.Manifolds, cpu.Stats.Contacts, dev.Stats.Pairs, dev.Stats.Manifolds,
				dev.Stats.Contacts)
		}
	}
	return worst, where
}

func dist(a, b sim.Vec3) float64 {
	dx, dy, dz := float64(a[0]-b[0]), float64(a[1]-b[1]), float64(a[2]-b[2])
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

// checkParity runs each case against the CPU on a backend from newBackend.
func checkParity(t *testing.T, cases []parityCase, newBackend func(testing.TB) *Backend) {
	for _, c := range cases {
		t.Run(c.scene, func(t *testing.T) {
			worst, where := runParity(t, newBackend(t), c)
			t.Logf("%s: %d steps, largest position difference %.3g m (%s)", c.scene, c.steps, worst, where)
			if !(worst <= c.tol) {
				t.Errorf("%s: positions differ by %.3g m > %.3g m: %s", c.scene, worst, c.tol, where)
			}
		})
	}
}

func TestEmulatedParity(t *testing.T) {
	checkParity(t, emulatedParity, func(testing.TB) *Backend { return NewEmulated() })
}

// TestEmulatedEdits: edits between steps (spawn, remove, a type change, set velocity, teleport, a new
// joint, new settings) reach the device incrementally and give the same world as on the CPU: both
// keep the contacts' warm start through a spawn and a type change, and both forget it at a removal.
func TestEmulatedEdits(t *testing.T) {
	cpu := newWorld(t, "stack")
	defer cpu.Close()
	dev := newWorld(t, "stack")
	defer dev.Close()
	if err := dev.SetBackend(NewEmulated()); err != nil {
		t.Fatal(err)
	}
	defer dev.SetBackend(nil)
	both := func(f func(w *sim.World) error) {
		t.Helper()
		for _, w := range []*sim.World{cpu, dev} {
			if err := f(w); err != nil {
				t.Fatal(err)
			}
		}
	}
	step := func(n int) {
		t.Helper()
		for range n {
			both((*sim.World).Step)
		}
	}
	step(30)
	both(func(w *sim.World) error {
		_, err := w.AddBody(sim.BodyDef{Name: "thrown", Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.3, 0.3, 0.3}}, Position: sim.Vec3{4, 1, 0},
			Rotation: sim.Quat{W: 1}, Velocity: sim.Vec3{-3, 2, 0}, Friction: 0.6})
		return err
	})
	step(30)
	both(func(w *sim.World) error {
		h, _ := w.Find("box10")
		return w.RemoveBody(h)
	})
	step(20)
	both(func(w *sim.World) error {
		h, _ := w.Find("box5") // pinned mid-stack: the boxes above keep standing on it
		return w.SetType(h, sim.Static)
	})
	step(10)
	both(func(w *sim.World) error {
		h, _ := w.Find("box19")
		return w.SetVelocity(h, sim.Vec3{0, 5, 0}, sim.Vec3{0, 0, 2})
	})
	step(20)
	both(func(w *sim.World) error {
		h, _ := w.Find("thrown")
		return w.SetPose(h, sim.Vec3{-3, 2, 1}, sim.Quat{W: 1})
	})
	both(func(w *sim.World) error {
		s := w.Settings()
		s.Gravity = sim.Vec3{0, -5, 0}
		w.SetSettings(s)
		return nil
	})
	step(40)
	if err := dev.Sync(); err != nil {
		t.Fatal(err)
	}
	if cpu.Bodies.Len() != dev.Bodies.Len() {
		t.Fatalf("%d bodies on the CPU, %d on the device", cpu.Bodies.Len(), dev.Bodies.Len())
	}
	// The same bits here (measured: 0). A side that forgot its warm start where the other kept it
	// (as a body's type change would, handled on one side only) is off by about 2e-5 m.
	for i := range cpu.Bodies.Len() {
		if d := dist(cpu.Bodies.Position[i], dev.Bodies.Position[i]); !(d < 1e-6) {
			t.Errorf("%s: CPU %v, device %v", cpu.Bodies.Name[i], cpu.Bodies.Position[i], dev.Bodies.Position[i])
		}
	}
}

// TestEmulatedOverflowReruns: with lists far too small for the pyramid, every overflowing step is put
// back, the lists grow, and the step runs again, so the world moves exactly as on the CPU.
func TestEmulatedOverflowReruns(t *testing.T) {
	b := NewEmulated()
	b.pairCap, b.contactCap = 3, 2
	worst, where := runParity(t, b, parityCase{scene: "pyramid20", steps: 20})
	if b.Reruns == 0 {
		t.Error("no step was re-run: the small lists did not overflow")
	}
	if worst != 0 {
		t.Errorf("after %d re-runs positions differ by %.3g m: %s", b.Reruns, worst, where)
	}
	if b.pairCap < 400 || b.contactCap < 400 {
		t.Errorf("lists grew to %d pairs and %d contacts, want at least the pyramid's 400", b.pairCap, b.contactCap)
	}
}

// TestEmulatedRerunIsExact: a step whose contact list overflowed is put back and run again, and the
// re-run must be the step the CPU takes, bit for bit. Overflows are forced at the first step and at
// later ones (warm started, joints carrying impulses) by shrinking the contact list before the step.
// The cases are small cuts that fail on each thing a re-run once got wrong: the rain's rotated boxes
// (the world inverse inertia was left as the attempt's end made it), the stack (warm starting was
// dropped) and Newton's cradle (the joints' impulses were left as the attempt's end made them).
func TestEmulatedRerunIsExact(t *testing.T) {
	for _, c := range []struct {
		scene string
		cut   int
	}{{"rain", 5 + 100}, {"stack", 0}, {"cradle", 0}} {
		t.Run(c.scene, func(t *testing.T) {
			cpu := newCutWorld(t, c.scene, c.cut)
			defer cpu.Close()
			dev := newCutWorld(t, c.scene, c.cut)
			defer dev.Close()
			b := NewEmulated()
			must(t, dev.SetBackend(b))
			defer dev.SetBackend(nil)
			for step := 1; step <= 12; step++ {
				force, before := step%4 == 1, b.Reruns
				if force {
					b.pairCap, b.contactCap = 1, 1 // the next step's lists: it overflows and runs again
				}
				must(t, cpu.Step(), dev.Step(), dev.Sync())
				if force && b.Reruns == before {
					t.Fatalf("step %d: no re-run: the lists did not overflow", step)
				}
				cb, db := &cpu.Bodies, &dev.Bodies
				for i := range cb.Len() {
					if cb.Position[i] != db.Position[i] || cb.Rotation[i] != db.Rotation[i] ||
						cb.Velocity[i] != db.Velocity[i] || cb.AngularVelocity[i] != db.AngularVelocity[i] {
						t.Fatalf("step %d: %s differs: CPU v %v w %v, device v %v w %v", step, cb.Name[i],
							cb.Velocity[i], cb.AngularVelocity[i], db.Velocity[i], db.AngularVelocity[i])
					}
				}
			}
		})
	}
}

// TestEmulatedJointEdit: joints edited in place (sim.World.UpdateJoint) move on the device as on the
// CPU, at rounding level: a new motor (the rows it does not change keep their warm start on both
// sides), then an upper limit narrowed from 100 degrees to 0.5 rad, which pulls the door back. The
// device reports the force the hinge holds (JointState) as the CPU does.
func TestEmulatedJointEdit(t *testing.T) {
	cpu := newWorld(t, "door")
	defer cpu.Close()
	dev := newWorld(t, "door")
	defer dev.Close()
	if err := dev.SetBackend(NewEmulated()); err != nil {
		t.Fatal(err)
	}
	defer dev.SetBackend(nil)
	worst := 0.0
	for step := 1; step <= 180; step++ {
		for _, w := range []*sim.World{cpu, dev} {
			d := w.Joint(0)
			switch step {
			case 31:
				d.HasMotor, d.Motor = true, sim.Motor{Speed: 2, MaxForce: 100}
			case 91:
				d.Limits[1] = 0.5
			}
			if err := w.UpdateJoint(0, d); err != nil {
				t.Fatal(err)
			}
			if err := w.Step(); err != nil {
				t.Fatal(err)
			}
		}
		if err := dev.Sync(); err != nil {
			t.Fatal(err)
		}
		for i := range cpu.Bodies.Len() {
			worst = max(worst, dist(cpu.Bodies.Position[i], dev.Bodies.Position[i]))
		}
		if step == 90 {
			if worst > 1e-5 {
				t.Errorf("after a new motor the positions differ by up to %.3g m", worst)
			}
			t.Logf("a new motor: positions differ by up to %.3g m", worst)
			worst = 0
		}
		if c, d := cpu.JointState(0), dev.JointState(0); step%30 == 0 &&
			!(math.Abs(float64(d.Force-c.Force)) <= 0.01*float64(c.Force)+1e-3) {
			t.Errorf("step %d: the hinge holds %.4f N on the CPU, %.4f on the device", step, c.Force, d.Force)
		}
	}
	c, d := cpu.JointState(0), dev.JointState(0)
	t.Logf("narrowed limits: hinge at %.5f rad on the CPU, %.5f on the device, holding %.2f N and %.2f N; "+
		"positions differ by up to %.3g m", c.Coordinate, d.Coordinate, c.Force, d.Force, worst)
	if math.Abs(float64(c.Coordinate-0.5)) > 0.01 || math.Abs(float64(d.Coordinate-c.Coordinate)) > 1e-4 || worst > 1e-4 {
		t.Errorf("narrowed limits: hinge at %.5f rad on the CPU, %.5f on the device (limit 0.5); positions differ by "+
			"up to %.3g m", c.Coordinate, d.Coordinate, worst)
	}
}

// TestEmulatedStepIsTheSameInAnyThreadOrder: a GPU runs a launch's threads in any order, so the step
// must not depend on it. The emulator runs every launch's blocks and threads last first on one world
// and first first on another; both must stay equal bit for bit. Float atomics fail this (a body's
// impulses summed in another order round differently): the solver records each manifold's and joint's
// impulses and gathers them per body in index order instead.
func TestEmulatedStepIsTheSameInAnyThreadOrder(t *testing.T) {
	for _, scene := range []string{"pyramid20", "cradle", "ragdoll"} {
		t.Run(scene, func(t *testing.T) {
			fwd := newCutWorld(t, scene, 0)
			defer fwd.Close()
			rev := newCutWorld(t, scene, 0)
			defer rev.Close()
			must(t, fwd.SetBackend(NewEmulated()), rev.SetBackend(NewEmulated()))
			defer fwd.SetBackend(nil)
			defer rev.SetBackend(nil)
			for step := 1; step <= 20; step++ {
				must(t, fwd.Step())
				emu.SetReverse(true)
				err := rev.Step()
				emu.SetReverse(false)
				must(t, err, fwd.Sync(), rev.Sync())
				a, b := &fwd.Bodies, &rev.Bodies
				for i := range a.Len() {
					if a.Position[i] != b.Position[i] || a.Rotation[i] != b.Rotation[i] ||
						a.Velocity[i] != b.Velocity[i] || a.AngularVelocity[i] != b.AngularVelocity[i] {
						t.Fatalf("step %d: %s differs with the threads in reverse: v %v w %v, reversed v %v w %v", step,
							a.Name[i], a.Velocity[i], a.AngularVelocity[i], b.Velocity[i], b.AngularVelocity[i])
					}
				}
			}
		})
	}
}

// TestAStepAsksTheDeviceForNoWaitsAndOneReadBack: untimed, a steady step of the pyramid launches its
// kernels as one graph (graph.go) and reads back once (the list counters, the blow-up index and the contact count, 16 bytes),
// with no explicit wait and nothing uploaded, and every steady step asks the same; timed, it waits once
// per stage of its plan. The counts are the GPU's, measured without one.
func TestAStepAsksTheDeviceForNoWaitsAndOneReadBack(t *testing.T) {
	w := newCutWorld(t, "pyramid20", 0)
	defer w.Close()
	b := NewEmulated()
	must(t, w.SetBackend(b))
	defer w.SetBackend(nil)
	for range 3 { // the first steps upload the world and grow the lists
		must(t, w.Step())
	}
	must(t, w.Step())
	c := b.StepCounts()
	if c.Syncs != 0 || c.Downloads != 1 || c.DownloadBytes != 16 || c.Uploads != 0 || c.Launches != 1 || c.Graphs != 1 {
		t.Errorf("untimed step: %+v; want no waits, one 16-byte read-back, no uploads, one launch of the step's graph", c)
	}
	must(t, w.Step())
	if c2 := b.StepCounts(); c2 != c {
		t.Errorf("two steady steps asked differently: %+v then %+v", c, c2)
	}
	b.Timed = true
	must(t, w.Step())
	plan := sim.PlanOf(sim.ResolveFor(b.Capabilities(), w.Settings()))
	if c := b.StepCounts(); c.Syncs < len(plan) {
		t.Errorf("timed step: %d waits for a plan of %d stages", c.Syncs, len(plan))
	}
	t.Logf("pyramid20 on the emulated device, one untimed step: %d launches, %d device copies, %d clears, "+
		"%d read-backs of %d bytes", c.Launches, c.DeviceCopies, c.Zeroes, c.Downloads, c.DownloadBytes)
}

// TestEmulatedJointScenesAreExact: with the joints' angles from Go's Atan2 (gomath.cuh) and the
// impulses gathered in the CPU's order, the emulated step of the jointed presets equals the CPU's
// Jacobi step bit for bit, step after step: hinges with limits and motors (door, car, engine), a chain,
// a bridge, ragdolls (ball joints with swing and twist).
func TestEmulatedJointScenesAreExact(t *testing.T) {
	for _, scene := range []string{"door", "chain", "ragdoll", "car", "bridge", "engine"} {
		t.Run(scene, func(t *testing.T) {
			cpu := newWorld(t, scene)
			defer cpu.Close()
			dev := newWorld(t, scene)
			defer dev.Close()
			must(t, dev.SetBackend(NewEmulated()))
			defer dev.SetBackend(nil)
			for step := 1; step <= 60; step++ {
				must(t, cpu.Step(), dev.Step(), dev.Sync())
				a, b := &cpu.Bodies, &dev.Bodies
				for i := range a.Len() {
					if a.Position[i] != b.Position[i] || a.Rotation[i] != b.Rotation[i] ||
						a.Velocity[i] != b.Velocity[i] || a.AngularVelocity[i] != b.AngularVelocity[i] {
						t.Fatalf("step %d: %s differs: CPU v %v w %v, device v %v w %v", step, a.Name[i],
							a.Velocity[i], a.AngularVelocity[i], b.Velocity[i], b.AngularVelocity[i])
					}
				}
			}
		})
	}
}

// TestEmulatedServosAreExact: position motors (sim.MotorPosition) on every hinge and piston of the
// jointed presets, their targets changed while they run, step as the CPU's Jacobi step does, bit for
// bit: a door's hinge with limits, the engine's crank (no limits: the error taken the short way
// round) and piston.
func TestEmulatedServosAreExact(t *testing.T) {
	for _, scene := range []string{"door", "engine"} {
		t.Run(scene, func(t *testing.T) {
			cpu := newWorld(t, scene)
			defer cpu.Close()
			dev := newWorld(t, scene)
			defer dev.Close()
			must(t, dev.SetBackend(NewEmulated()))
			defer dev.SetBackend(nil)
			servos := 0
			for step := 1; step <= 60; step++ {
				if step == 1 || step == 31 {
					for _, w := range []*sim.World{cpu, dev} {
						servos = 0
						for k := range w.NumJoints() {
							d := w.Joint(k)
							if d.Type != sim.Hinge && d.Type != sim.Piston {
								continue
							}
							target := float32(0.4)
							if step > 1 {
								target = -3 // past pi the short way for a hinge without limits
							}
							if d.Type == sim.Piston {
								target = 0.05 * target
							}
							d.HasMotor = true
							d.Motor = sim.Motor{Mode: sim.MotorPosition, Target: target, Speed: 3, MaxForce: 200}
							must(t, w.UpdateJoint(k, d))
							servos++
						}
					}
				}
				must(t, cpu.Step(), dev.Step(), dev.Sync())
				a, b := &cpu.Bodies, &dev.Bodies
				for i := range a.Len() {
					if a.Position[i] != b.Position[i] || a.Rotation[i] != b.Rotation[i] ||
						a.Velocity[i] != b.Velocity[i] || a.AngularVelocity[i] != b.AngularVelocity[i] {
						t.Fatalf("step %d: %s differs: CPU v %v w %v, device v %v w %v", step, a.Name[i],
							a.Velocity[i], a.AngularVelocity[i], b.Velocity[i], b.AngularVelocity[i])
					}
				}
			}
			if servos == 0 {
				t.Fatalf("%s has no hinge or piston", scene)
			}
			t.Logf("%s: %d servos, coordinate of the first %.4f", scene, servos, cpu.JointCoordinate(0))
		})
	}
}

// TestEmulatedJointFrictionIsExact: joint friction (examples/joint-friction.json: a wheel spinning
// down on a hinge's friction, bars held and swinging on hinges and a ball joint, a piston sliding to
// a stop) steps on the emulated device as the CPU's Jacobi step does, bit for bit, before and after
// the ball joint's and a hinge's friction are edited in place (their impulses dropped on both).
func TestEmulatedJointFrictionIsExact(t *testing.T) {
	load := func() *sim.World {
		s, err := scenes.Load("../examples/joint-friction.json")
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.World(scenes.Options{Solver: sim.Jacobi, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	cpu, dev := load(), load()
	defer cpu.Close()
	defer dev.Close()
	must(t, dev.SetBackend(NewEmulated()))
	defer dev.SetBackend(nil)
	for step := 1; step <= 90; step++ {
		if step == 45 {
			for _, w := range []*sim.World{cpu, dev} {
				for _, k := range []int{1, 3} { // heldBar's hinge, ballBar's ball joint
					d := w.Joint(k)
					d.Friction = 7
					must(t, w.UpdateJoint(k, d))
				}
			}
		}
		must(t, cpu.Step(), dev.Step(), dev.Sync())
		a, b := &cpu.Bodies, &dev.Bodies
		for i := range a.Len() {
			if a.Position[i] != b.Position[i] || a.Rotation[i] != b.Rotation[i] ||
				a.Velocity[i] != b.Velocity[i] || a.AngularVelocity[i] != b.AngularVelocity[i] {
				t.Fatalf("step %d: %s differs: CPU v %v w %v, device v %v w %v", step, a.Name[i],
					a.Velocity[i], a.AngularVelocity[i], b.Velocity[i], b.AngularVelocity[i])
			}
		}
	}
	var held, swung float32
	i, _ := cpu.Find("heldBar")
	k, _ := cpu.Index(i)
	held = cpu.Bodies.AngularVelocity[k].Len()
	i, _ = cpu.Find("swingingBar")
	k, _ = cpu.Index(i)
	swung = cpu.Bodies.AngularVelocity[k].Len()
	t.Logf("after 1.5 s: the held bar turns at %.3g rad/s (its friction cut below its load at 0.75 s), the swinging one at %.3g", held, swung)
}
