package gpu

import (
	"math"
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// The friction and restitution switches on the emulated CUDA backend: the same physics as sim's
// friction_test.go, and the same trajectories as the CPU's Jacobi step, bit for bit, while friction is
// turned off and on and the coefficients change under resting boxes.

// restingBoxes returns the incline preset's boxes that static friction holds (tan theta < mu, named
// "..._sticks"), with their ramp angles.
func restingBoxes(t *testing.T, w *sim.World) ([]int, []float64) {
	t.Helper()
	var boxes []int
	var angles []float64
	for i, name := range w.Bodies.Name {
		theta, _, sticks, ok := scenes.InclineBox(name)
		if !ok || !sticks {
			continue
		}
		if v := w.Bodies.Velocity[i].Len(); v > 0.01 {
			t.Fatalf("%s moves at %.4f m/s after a second with friction on: not at rest", name, v)
		}
		boxes, angles = append(boxes, i), append(angles, theta)
	}
	if len(boxes) != 6 {
		t.Fatalf("%d resting boxes, want 6", len(boxes))
	}
	return boxes, angles
}

// stepSync steps w n times and reads its state back.
func stepSync(t *testing.T, w *sim.World, n int) {
	t.Helper()
	for range n {
		must(t, w.Step())
	}
	must(t, w.Sync())
}

// TestEmulatedFrictionOffFreesRestingBoxes: on the emulated backend, boxes resting on the incline
// preset slide at g sin theta (within 0.5%: along a frictionless slope only gravity acts, and the
// sub-stepped integration gives a = g sin theta up to float32 rounding, measured within 1e-5) once
// friction is turned off, or once every friction coefficient is set to 0, with warm starting on.
func TestEmulatedFrictionOffFreesRestingBoxes(t *testing.T) {
	for _, how := range []string{"friction off", "mu = 0"} {
		t.Run(strings.ReplaceAll(how, " ", ""), func(t *testing.T) {
			w := newWorld(t, "incline")
			defer w.Close()
			must(t, w.SetBackend(NewEmulated()))
			defer w.SetBackend(nil)
			stepSync(t, w, 60)
			boxes, angles := restingBoxes(t, w)
			if how == "friction off" {
				s := w.Settings()
				s.NoFriction = true // command.SetFriction(false)
				w.SetSettings(s)
			} else {
				for i := range w.Bodies.Friction { // command.SetFrictionCoefficient(0)
					must(t, w.SetMaterial(w.HandleAt(i), 0, w.Bodies.Restitution[i]))
				}
			}
			down := func(k int) float64 {
				th := angles[k]
				return float64(w.Bodies.Velocity[boxes[k]].Dot(sim.Vec3{float32(math.Cos(th)), float32(-math.Sin(th)), 0}))
			}
			v0 := make([]float64, len(boxes))
			for k := range boxes {
				v0[k] = down(k)
			}
			const seconds = 0.5
			stepSync(t, w, 30)
			g := float64(w.Resolved().Gravity.Len())
			for k := range boxes {
				a, want := (down(k)-v0[k])/seconds, g*math.Sin(angles[k])
				if math.Abs(a-want) > 0.005*want {
					t.Errorf("%s: %s: acceleration down the slope %.3f m/s^2, want g sin theta = %.3f within 0.5%%",
						how, w.Bodies.Name[boxes[k]], a, want)
				}
			}
		})
	}
}

// TestEmulatedFrictionSwitchesAreExact: the incline preset with friction turned off, back on, and the
// coefficients lowered under resting and sliding boxes (the warm-started friction impulse is then
// clamped to the new Coulomb disc), set to 0 and restored (the friction anchors start afresh) moves
// exactly as on the CPU's Jacobi step.
func TestEmulatedFrictionSwitchesAreExact(t *testing.T) {
	cpu := newWorld(t, "incline")
	defer cpu.Close()
	dev := newWorld(t, "incline")
	defer dev.Close()
	must(t, dev.SetBackend(NewEmulated()))
	defer dev.SetBackend(nil)
	both := func(f func(w *sim.World)) {
		must(t, dev.Sync())
		f(cpu)
		f(dev)
	}
	setFriction := func(on bool) func(w *sim.World) {
		return func(w *sim.World) {
			s := w.Settings()
			s.NoFriction = !on
			w.SetSettings(s)
		}
	}
	mu := append([]float32(nil), cpu.Bodies.Friction...) // the preset's coefficients
	scaleMu := func(f float32) func(w *sim.World) {
		return func(w *sim.World) {
			for i := range w.Bodies.Friction {
				if err := w.SetMaterial(w.HandleAt(i), f*mu[i], w.Bodies.Restitution[i]); err != nil {
					panic(err)
				}
			}
		}
	}
	phases := []struct {
		what  string
		edit  func(w *sim.World)
		steps int
	}{
		{"settle", func(*sim.World) {}, 60},
		{"friction off", setFriction(false), 10},
		{"friction on", setFriction(true), 20},
		{"mu x 0.3", scaleMu(0.3), 20},
		{"mu = 0", scaleMu(0), 10},
		{"mu back", scaleMu(1), 20},
	}
	for _, ph := range phases {
		both(ph.edit)
		for step := 1; step <= ph.steps; step++ {
			must(t, cpu.Step(), dev.Step(), dev.Sync())
			cb, db := &cpu.Bodies, &dev.Bodies
			for i := range cb.Len() {
				if cb.Position[i] != db.Position[i] || cb.Velocity[i] != db.Velocity[i] ||
					cb.AngularVelocity[i] != db.AngularVelocity[i] {
					t.Fatalf("%s, step %d: %s differs: CPU x %v v %v, device x %v v %v", ph.what, step, cb.Name[i],
						cb.Position[i], cb.Velocity[i], db.Position[i], db.Velocity[i])
				}
			}
		}
	}
}

// TestEmulatedRestitutionOffDoesNotBounce: a ball of restitution 0.8 dropped from 2 m with restitution
// off rises no more than 3 mm after it lands (a bounce would reach 1.28 m).
func TestEmulatedRestitutionOffDoesNotBounce(t *testing.T) {
	w := sim.NewWorld(sim.Settings{Gravity: sim.Vec3{0, -9.81, 0}, Solver: sim.Jacobi, NoRestitution: true, Workers: 1})
	defer w.Close()
	if _, err := w.AddBody(sim.BodyDef{Name: "ground", Type: sim.Static, Friction: 0.5, Restitution: 0.8,
		Shape: geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	const r, h0 = 0.25, 2.0
	h, err := w.AddBody(sim.BodyDef{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: r},
		Position: sim.Vec3{0, r + h0, 0}, Restitution: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	must(t, w.SetBackend(NewEmulated()))
	defer w.SetBackend(nil)
	i, _ := w.Index(h)
	landed, rise := false, 0.0
	for range 180 {
		stepSync(t, w, 1)
		y := float64(w.Bodies.Position[i][1]) - r
		landed = landed || y < 0.01
		if landed {
			rise = math.Max(rise, y)
		}
	}
	if !landed {
		t.Fatal("the ball never reached the ground")
	}
	if rise > 0.003 {
		t.Errorf("restitution off: the ball rose to %.4f m after landing, want <= 0.003 m", rise)
	}
}
