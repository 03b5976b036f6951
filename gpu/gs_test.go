package gpu

import (
	"fmt"
	"math"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// newPGSWorld builds a preset with the PGS solver (its first cut bodies when cut > 0), on one worker
// and without the contact cache: a world on a backend runs without it (the CPU step reuses last
// step's manifolds where the device computes them afresh), so the CPU reference does too.
func newPGSWorld(t testing.TB, scene string, cut int) *sim.World {
	t.Helper()
	s, ok := scenes.Preset(scene)
	if !ok {
		t.Fatalf("no preset %s", scene)
	}
	if cut > 0 && cut < len(s.Bodies) {
		s.Bodies = s.Bodies[:cut]
	}
	w, err := s.World(scenes.Options{Solver: sim.PGS, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := w.Settings()
	st.NoContactCache = true
	w.SetSettings(st)
	return w
}

// pgsParity steps scene (a preset) on the CPU's PGS and on the emulated backend's and fails at the
// first step where a body's state differs in any bit.
func pgsParity(t *testing.T, scene string, cut, steps int) *Backend {
	t.Helper()
	return pgsParityOf(t, scene, func() *sim.World { return newPGSWorld(t, scene, cut) }, steps, emulatedBackend, nil)
}

func emulatedBackend(testing.TB) *Backend { return NewEmulated() }

// pgsParityOf steps the world build makes on the CPU's PGS and on a backend's (newBackend), and fails at
// the first step where a body's position, orientation or velocity differs in any bit; after, when not
// nil, looks at the backend before it is detached.
func pgsParityOf(t *testing.T, scene string, build func() *sim.World, steps int, newBackend func(testing.TB) *Backend,
	after func(*Backend)) *Backend {
	t.Helper()
	cpu := build()
	defer cpu.Close()
	dev := build()
	defer dev.Close()
	b := newBackend(t)
	if err := dev.SetBackend(b); err != nil {
		t.Fatal(err)
	}
	defer dev.SetBackend(nil)
	for step := 1; step <= steps; step++ {
		if err := cpu.Step(); err != nil {
			t.Fatalf("%s: CPU step %d: %v", scene, step, err)
		}
		if err := dev.Step(); err != nil {
			t.Fatalf("%s: %s step %d: %v", scene, b.Name(), step, err)
		}
		if step%10 != 0 && step != steps {
			continue
		}
		if err := dev.Sync(); err != nil {
			t.Fatal(err)
		}
		if d := firstDifference(cpu, dev); d != "" {
			t.Fatalf("%s step %d: %s", scene, step, d)
		}
	}
	if after != nil {
		after(b)
	}
	return b
}

// firstDifference names the first body whose state differs between a and b, or returns "".
func firstDifference(a, b *sim.World) string {
	if a.Bodies.Len() != b.Bodies.Len() {
		return fmt.Sprintf("%d bodies against %d", a.Bodies.Len(), b.Bodies.Len())
	}
	for i := range a.Bodies.Len() {
		if a.Bodies.Position[i] != b.Bodies.Position[i] || a.Bodies.Rotation[i] != b.Bodies.Rotation[i] ||
			a.Bodies.Velocity[i] != b.Bodies.Velocity[i] || a.Bodies.AngularVelocity[i] != b.Bodies.AngularVelocity[i] {
			return fmt.Sprintf("body %s: CPU at %v moving %v, %v; device at %v moving %v, %v", a.Bodies.Name[i],
				a.Bodies.Position[i], a.Bodies.Velocity[i], a.Bodies.AngularVelocity[i], b.Bodies.Position[i],
				b.Bodies.Velocity[i], b.Bodies.AngularVelocity[i])
		}
	}
	return ""
}

func TestEmulatedPGSMatchesCPU(t *testing.T) {
	for _, c := range []struct {
		scene      string
		cut, steps int
	}{
		{"stack", 0, 60},     // 20 boxes: contacts colour by colour
		{"pyramid20", 0, 30}, // 210 boxes
		{"ragdoll", 0, 30},   // ball and hinge joints, with swing, twist, limits and friction, on capsules
		{"engine", 0, 60},    // a piston, hinges with motors, a ball joint
		{"door", 0, 60},      // a hinge with limits
		{"cradle", 0, 60},    // restitution, colour by colour
		{"rain", 5 + 250, 30},
		{"rocks", 0, 30}, // convex hulls
	} {
		t.Run(c.scene, func(t *testing.T) { pgsParity(t, c.scene, c.cut, c.steps) })
	}
}

// overflowWorld is a PGS world whose constraint graphs overflow the 64 colours: 72 boxes, spheres and
// lying capsules (four, one and two contact points) on one dynamic plate, whose 73 manifolds all share
// it, and 68 satellites hung from one dynamic hub by ball joints. The rows past the 64th colour are
// solved one after another in sim's order (the manifolds by point count, most first, then by index;
// the joints by index), which a different order would show in the bits.
func overflowWorld(t testing.TB) *sim.World {
	w := sim.NewWorld(sim.Settings{Solver: sim.PGS, Gravity: sim.Vec3{0, -9.81, 0}, Workers: 1, NoContactCache: true})
	addBody(t, w, sim.BodyDef{Name: "ground", Type: sim.Static, Friction: 0.6,
		Shape: geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}})
	addBody(t, w, sim.BodyDef{Name: "plate", Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{6, 0.2, 6}},
		Position: sim.Vec3{0, 0.2, 0}, Rotation: sim.Quat{W: 1}, Friction: 0.6})
	lying := sim.Quat{V: sim.Vec3{0, 0, float32(math.Sin(math.Pi / 4))}, W: float32(math.Cos(math.Pi / 4))}
	for i := range 72 {
		x, z := float32(i%9)*1.2-4.8, float32(i/9)*1.4-4.9
		d := sim.BodyDef{Name: fmt.Sprintf("item%d", i), Rotation: sim.Quat{W: 1}, Friction: 0.5}
		switch i % 3 {
		case 0:
			d.Shape, d.Position = cubeOf(0.2), sim.Vec3{x, 0.61, z}
		case 1:
			d.Shape, d.Position = geom.Shape{Kind: geom.Sphere, Radius: 0.2}, sim.Vec3{x, 0.61, z}
		default:
			d.Shape = geom.Shape{Kind: geom.Capsule, Radius: 0.15, HalfHeight: 0.2}
			d.Position, d.Rotation = sim.Vec3{x, 0.56, z}, lying
		}
		addBody(t, w, d)
	}
	hub := addBody(t, w, sim.BodyDef{Name: "hub", Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.3},
		Position: sim.Vec3{30, 6, 0}, Rotation: sim.Quat{W: 1}})
	if _, err := w.AddJoint(sim.JointDef{Type: sim.Ball, BodyA: hub, Anchor: sim.Vec3{30, 6, 0}}); err != nil {
		t.Fatal(err)
	}
	for i := range 68 {
		a := 2 * math.Pi * float64(i) / 68
		p := sim.Vec3{30 + 2*float32(math.Cos(a)), 6 - 0.02*float32(i), 2 * float32(math.Sin(a))}
		s := addBody(t, w, sim.BodyDef{Name: fmt.Sprintf("sat%d", i), Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.05},
			Position: p, Rotation: sim.Quat{W: 1}})
		if _, err := w.AddJoint(sim.JointDef{Type: sim.Ball, BodyA: s, BodyB: hub, Anchor: p}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// A fixed joint, the one kind the presets above lack.
			tag := addBody(t, w, sim.BodyDef{Name: "tag", Shape: cubeOf(0.05), Position: p.Add(sim.Vec3{0, -0.1, 0}),
				Rotation: sim.Quat{W: 1}})
			if _, err := w.AddJoint(sim.JointDef{Type: sim.Fixed, BodyA: tag, BodyB: s, Anchor: p}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return w
}

// TestEmulatedPGSOverflowMatchesCPU: rows past the 64 colours (the overflow, solved in sequence after
// them) give the CPU's bits, the manifolds' and the joints'; the first step needed more colours than
// the passes launched and ran again.
func TestEmulatedPGSOverflowMatchesCPU(t *testing.T) {
	checkPGSOverflow(t, 6, emulatedBackend)
}

// checkPGSOverflow runs the overflowing world steps steps against the CPU on a backend from newBackend.
func checkPGSOverflow(t *testing.T, steps int, newBackend func(testing.TB) *Backend) {
	pgsParityOf(t, "overflow", func() *sim.World { return overflowWorld(t) }, steps, newBackend, func(b *Backend) {
		if b.solver.colours.budget != gsColours+1 || b.solver.jointColours.budget != gsColours+1 {
			t.Errorf("colour budgets %d (manifolds) and %d (joints), want %d: the overflow did not run",
				b.solver.colours.budget, b.solver.jointColours.budget, gsColours+1)
		}
		if b.Reruns == 0 {
			t.Error("no re-run: the first step's passes launched the overflow without being asked to")
		}
	})
}

// stepLaunches steps w once and returns the launches its step asked of the device (b launches one by
// one: NoGraphs).
func stepLaunches(t *testing.T, w *sim.World, b *Backend) int {
	t.Helper()
	must(t, w.Step())
	return b.LastStep.Launches
}

// A PGS pass of the per-pass path (NoSmall) is one launch per colour: one more colour in the budget
// adds one launch to each pass of the step, 6 x (4+2) = 36, and one to the restitution pass, and
// changes no bit. The log gives the launches a step makes (no graph) on the stack, the 20-row pyramid
// and the ragdolls after they landed, under PGS and under Jacobi.
func TestEmulatedPGSLaunchesAColourAPass(t *testing.T) {
	for _, c := range []struct {
		scene string
		steps int
	}{{"stack", 3}, {"pyramid20", 3}, {"ragdoll", 45}} { // the ragdolls land on the ground and each other
		scene := c.scene
		per := map[sim.SolverKind]int{}
		var colours, jointColours int
		for _, solver := range []sim.SolverKind{sim.PGS, sim.Jacobi} {
			w := newPGSWorld(t, scene, 0)
			st := w.Settings()
			st.Solver = solver
			w.SetSettings(st)
			b := NewEmulated()
			b.NoGraphs, b.NoSmall = true, true
			must(t, w.SetBackend(b))
			for range c.steps {
				per[solver] = stepLaunches(t, w, b)
			}
			if solver == sim.PGS {
				colours, jointColours = b.solver.colours.budget, b.solver.jointColours.budget
				if scene == "stack" {
					ref := newPGSWorld(t, scene, 0)
					for range 4 {
						must(t, ref.Step())
					}
					b.solver.colours.budget++
					r := w.Resolved()
					if got, want := stepLaunches(t, w, b)-per[solver], r.Substeps*(r.Iterations+r.RelaxIterations)+1; got != want {
						t.Errorf("one more colour added %d launches to the step, want %d", got, want)
					}
					must(t, w.Sync())
					if d := firstDifference(ref, w); d != "" {
						t.Errorf("an empty colour's launches changed the step: %s", d)
					}
					ref.Close()
				}
			}
			w.SetBackend(nil)
			w.Close()
		}
		t.Logf("%s: %d launches a step under pgs (budgets of %d colours of manifolds, %d of joints), %d under jacobi", scene,
			per[sim.PGS], colours, jointColours, per[sim.Jacobi])
	}
}

// A steady PGS step is one graph launch with one read-back of 24 bytes (the counters and the colours
// needed), and the same bits as the step launched kernel by kernel.
func TestEmulatedPGSStepIsOneGraphLaunch(t *testing.T) {
	plain, graphed := newPGSWorld(t, "stack", 0), newPGSWorld(t, "stack", 0)
	defer plain.Close()
	defer graphed.Close()
	pb, gb := NewEmulated(), NewEmulated()
	pb.NoGraphs = true
	must(t, plain.SetBackend(pb), graphed.SetBackend(gb))
	defer plain.SetBackend(nil)
	defer graphed.SetBackend(nil)
	graphSteps(t, plain, 4)
	graphSteps(t, graphed, 4)
	if gc := gb.StepCounts(); gc.Launches != 1 || gc.Graphs != 1 || gc.Downloads != 1 || gc.DownloadBytes != 24 {
		t.Errorf("steady PGS step: %+v; want one graph launch and one read-back of 24 bytes", gc)
	}
	must(t, plain.Sync(), graphed.Sync())
	sameBodies(t, "after 4 PGS steps", plain, graphed)
}

// TestEmulatedPGSRemovalsAsOnTheCPU: removals between two steps move the last body into the removed
// one's index; under PGS the CPU keeps last step's contacts through them, renamed (sim's dropBody), and
// so does the device (solverStage.rename), so the steps after stay the CPU's bit for bit. One batch
// removes a box under the pyramid's top one (the last body), which moves into its index, its pairs
// with the boxes below renamed, and then the new last one (nothing moves); another, later, a box from
// the bottom row, whose moved box's pairs with the boxes below it would change order and go.
func TestEmulatedPGSRemovalsAsOnTheCPU(t *testing.T) {
	remove := func(w *sim.World, at ...func(n int) int) error {
		for _, f := range at {
			if err := w.RemoveBody(w.HandleAt(f(w.Bodies.Len()))); err != nil {
				return err
			}
		}
		return nil
	}
	c := sleepCase{"pyramid", func(t testing.TB) *sim.World { return newPGSWorld(t, "pyramid", 0) }, 20, 20,
		func(w *sim.World) error {
			return remove(w, func(n int) int { return n - 2 }, func(n int) int { return n - 1 })
		}}
	runSleepParity(t, NewEmulated(), c)
	c.settle, c.wake = 10, func(w *sim.World) error { return remove(w, func(int) int { return 2 }) }
	runSleepParity(t, NewEmulated(), c)
}
