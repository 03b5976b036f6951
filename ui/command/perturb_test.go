package command

import (
	"math"
	"strconv"
	"testing"

	"tumble/scenes"
	"tumble/sim"
)

// floating returns a session on a zero-gravity scene of one free body of the given shape (JSON), at
// the origin, at rest.
func floating(t *testing.T, shape string, mass float64) *Session {
	t.Helper()
	sc, err := scenes.Parse("float.json", []byte(`{"gravity": [0, 0, 0], "bodies": [{"name": "b", "shape": `+
		shape+`, "position": [0, 0, 0], "mass": `+strconv.FormatFloat(mass, 'g', -1, 64)+`}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New("float", sc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// bodyOf reads body "b"'s handle and state.
func bodyOf(t *testing.T, s *Session) (sim.Handle, sim.BodyState) {
	t.Helper()
	var h sim.Handle
	var st sim.BodyState
	s.View(func(w *sim.World) {
		var ok bool
		if h, ok = w.Find("b"); !ok {
			t.Fatal("no body b")
		}
		var err error
		if st, err = w.BodyState(h); err != nil {
			t.Fatal(err)
		}
	})
	return h, st
}

// A force held on a free body changes its momentum by the force times the time: held far away the
// force is capped, so F = m * PerturbMaxAccel along the drag, and the momentum after n steps is
// F n dt (the body starts at rest, gravity off); and every step's force, as Perturbing reports it for
// the arrow, sums to the momentum too.
func TestPerturbForceChangesMomentumByForceTimesTime(t *testing.T) {
	const m = 4.0
	s := floating(t, `{"type": "box", "halfExtents": [0.5, 0.25, 0.25]}`, m)
	h, _ := bodyOf(t, s)
	grab := sim.Vec3{0.5, 0, 0} // on the +x face: the force along x goes through the centre, no spin
	s.Do(StartPerturb(h, grab, sim.Vec3{0, 0, 1}, PerturbForce))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.SetPerturbTarget(sim.Vec3{1000, 0, 0}) // far: the spring asks for more than the cap
	dt := s.Dt()
	const n = 30
	var sum sim.Vec3
	for range n {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		p, ok := s.Perturbing()
		if !ok || !p.Applied {
			t.Fatal("the perturbation ended by itself")
		}
		sum = sum.Add(p.Force.Mul(float32(dt)))
	}
	_, st := bodyOf(t, s)
	got := st.Velocity.Mul(st.Mass)
	want := m * PerturbMaxAccel * float64(n) * dt
	if math.Abs(float64(got[0])-want) > 1e-3*want || math.Abs(float64(got[1])) > 1e-3 || math.Abs(float64(got[2])) > 1e-3 {
		t.Errorf("momentum after %d steps of the capped force: %v, want (%.4g, 0, 0)", n, got, want)
	}
	if got.Sub(sum).Len() > 1e-3*sum.Len() {
		t.Errorf("the steps' reported forces times dt sum to %v, the momentum is %v", sum, got)
	}
	if st.AngularVelocity.Len() > 1e-4 {
		t.Errorf("a force through the centre spun the body: w %v", st.AngularVelocity)
	}

	// Let go: no more force, the momentum stays.
	s.Do(EndPerturb())
	if err := s.Steps(10); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Perturbing(); ok {
		t.Fatal("EndPerturb left the perturbation on")
	}
	_, st2 := bodyOf(t, s)
	if d := st2.Velocity.Sub(st.Velocity).Len(); d > 1e-5 {
		t.Errorf("the velocity changed by %v after letting go", d)
	}
}

// A force off the centre of mass also turns the body: its angular momentum about the centre grows by
// r x F per unit time (a sphere, whose world inertia is the same in every orientation, so L = I w).
// An uncapped spring's force changes every step: the sum of the reported forces' moments is checked.
func TestPerturbTorqueChangesAngularMomentumByTorqueTimesTime(t *testing.T) {
	const m, r = 2.0, 0.5
	s := floating(t, `{"type": "sphere", "radius": 0.5}`, m)
	h, st0 := bodyOf(t, s)
	inertia := 0.4 * m * r * r // solid sphere
	// Grab the front (+z, towards the eye) and drag 0.2 m right: the front turns right, about +y.
	s.Do(StartPerturb(h, sim.Vec3{0, 0, r}, sim.Vec3{0, 0, 1}, PerturbTorque))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.SetPerturbTarget(sim.Vec3{0.2, 0, r})
	dt := s.Dt()
	var sum sim.Vec3
	for range 20 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		p, _ := s.Perturbing()
		sum = sum.Add(p.Torque.Mul(float32(dt)))
		if p.Force != (sim.Vec3{}) {
			t.Fatalf("a torque perturbation applied a force %v", p.Force)
		}
	}
	_, st := bodyOf(t, s)
	L := st.AngularVelocity.Mul(float32(inertia))
	if L.Sub(sum).Len() > 2e-3*sum.Len() || sum.Len() == 0 {
		t.Errorf("angular momentum %v, the reported torques times dt sum to %v", L, sum)
	}
	if !(L[1] > 0) || math.Abs(float64(L[0])) > 1e-3*float64(L[1]) || math.Abs(float64(L[2])) > 1e-3*float64(L[1]) {
		t.Errorf("dragging the front to the right: angular momentum %v, want along +y", L)
	}
	if d := st.Velocity.Len(); d > 1e-5 || st.Position.Sub(st0.Position).Len() > 1e-5 {
		t.Errorf("a torque moved the body: v %v", st.Velocity)
	}
	// Held, the body turns to the reference: the drag of 0.2 m at radius 0.5 m is 0.4 rad about y.
	for range 240 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	_, st = bodyOf(t, s)
	got := rotationVector(st.Rotation)
	if math.Abs(float64(got[1])-0.4) > 0.01 || st.AngularVelocity.Len() > 0.01 {
		t.Errorf("held for 4 s: rotation vector %v, w %v; want (0, 0.4, 0) at rest", got, st.AngularVelocity)
	}
}

// A perturbation of a static body, or of a body removed while held, does nothing and ends.
func TestPerturbEndsWhenItsBodyGoes(t *testing.T) {
	s := floating(t, `{"type": "sphere", "radius": 0.5}`, 1)
	h, _ := bodyOf(t, s)
	s.Do(StartPerturb(h, sim.Vec3{0, 0, 0.5}, sim.Vec3{0, 0, 1}, PerturbForce))
	s.Do(RemoveBody(h))
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Perturbing(); ok {
		t.Error("the perturbation outlived its body")
	}
}
