package sim_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
	"tumble/sim/geom"
)

// editWorld is a world with a dynamic box "box" (2 kg, resting in the air, no gravity), a static
// plane "ground" and a dynamic sphere "ball".
func editWorld(t *testing.T, set sim.Settings) (*sim.World, sim.Handle) {
	t.Helper()
	w := sim.NewWorld(set)
	t.Cleanup(w.Close)
	h, err := w.AddBody(sim.BodyDef{Name: "box", Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.5, 0.25, 1}},
		Position: sim.Vec3{0, 3, 0}, Rotation: mgl32.QuatRotate(0.4, sim.Vec3{0, 0, 1}), Mass: 2, Friction: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []sim.BodyDef{
		{Name: "ground", Type: sim.Static, Shape: geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}},
		{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.5}, Position: sim.Vec3{3, 0.5, 0}},
	} {
		if _, err := w.AddBody(d); err != nil {
			t.Fatal(err)
		}
	}
	return w, h
}

// TestSetMassRecomputesInertiaAsAddBody: SetMass leaves the body with the mass and inertia that
// AddBody gives a body of that mass.
func TestSetMassRecomputesInertiaAsAddBody(t *testing.T) {
	w, h := editWorld(t, sim.Settings{})
	if err := w.SetMass(h, 7); err != nil {
		t.Fatal(err)
	}
	ref, _ := editWorld(t, sim.Settings{})
	i, _ := w.Index(h)
	r, _ := ref.Find("box")
	j, _ := ref.Index(r)
	if _, err := ref.AddBody(sim.BodyDef{Name: "seven", Shape: w.Bodies.Shape[i], Rotation: w.Bodies.Rotation[i], Mass: 7}); err != nil {
		t.Fatal(err)
	}
	k := ref.Bodies.Len() - 1
	b, c := &w.Bodies, &ref.Bodies
	if b.Mass[i] != c.Mass[k] || b.InvMass[i] != c.InvMass[k] || b.InvInertiaLocal[i] != c.InvInertiaLocal[k] ||
		b.InvInertiaWorld[i] != c.InvInertiaWorld[k] {
		t.Errorf("after SetMass(7): mass %v, 1/m %v, I^-1 %v, world %v; AddBody with mass 7: %v, %v, %v, %v",
			b.Mass[i], b.InvMass[i], b.InvInertiaLocal[i], b.InvInertiaWorld[i], c.Mass[k], c.InvMass[k],
			c.InvInertiaLocal[k], c.InvInertiaWorld[k])
	}
	if c.Mass[j] != 2 {
		t.Fatalf("reference box has mass %v", c.Mass[j])
	}
}

// TestEditsRefuseInvalidValues: each invalid edit is an error that changes nothing.
func TestEditsRefuseInvalidValues(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	cases := []struct {
		name string
		edit func(w *sim.World, box, ground sim.Handle) error
	}{
		{"mass NaN", func(w *sim.World, h, _ sim.Handle) error { return w.SetMass(h, nan) }},
		{"mass +Inf", func(w *sim.World, h, _ sim.Handle) error { return w.SetMass(h, inf) }},
		{"mass negative", func(w *sim.World, h, _ sim.Handle) error { return w.SetMass(h, -1) }},
		{"mass zero", func(w *sim.World, h, _ sim.Handle) error { return w.SetMass(h, 0) }},
		{"mass of a static body", func(w *sim.World, _, g sim.Handle) error { return w.SetMass(g, 3) }},
		{"friction negative", func(w *sim.World, h, _ sim.Handle) error { return w.SetMaterial(h, -0.1, 0) }},
		{"friction NaN", func(w *sim.World, h, _ sim.Handle) error { return w.SetMaterial(h, nan, 0) }},
		{"restitution +Inf", func(w *sim.World, h, _ sim.Handle) error { return w.SetMaterial(h, 0.5, inf) }},
		{"a dynamic plane", func(w *sim.World, _, g sim.Handle) error { return w.SetType(g, sim.Dynamic) }},
		{"an unknown type", func(w *sim.World, h, _ sim.Handle) error { return w.SetType(h, 7) }},
		{"impulse NaN", func(w *sim.World, h, _ sim.Handle) error {
			return w.ApplyImpulse(h, sim.Vec3{nan, 0, 0}, sim.Vec3{})
		}},
		{"impulse point +Inf", func(w *sim.World, h, _ sim.Handle) error {
			return w.ApplyImpulse(h, sim.Vec3{1, 0, 0}, sim.Vec3{0, inf, 0})
		}},
		{"angular impulse NaN", func(w *sim.World, h, _ sim.Handle) error {
			return w.ApplyAngularImpulse(h, sim.Vec3{0, nan, 0})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, h := editWorld(t, sim.Settings{})
			g, _ := w.Find("ground")
			before := snapshot(w)
			if err := c.edit(w, h, g); err == nil {
				t.Fatal("no error")
			}
			if got := snapshot(w); got != before {
				t.Errorf("the refused edit changed the world:\n%v\n%v", before, got)
			}
		})
	}
	t.Run("stale handle", func(t *testing.T) {
		w, h := editWorld(t, sim.Settings{})
		if err := w.RemoveBody(h); err != nil {
			t.Fatal(err)
		}
		for _, err := range []error{w.SetMass(h, 1), w.SetType(h, sim.Static), w.SetMaterial(h, 0, 0),
			w.ApplyImpulse(h, sim.Vec3{}, sim.Vec3{}), w.ApplyAngularImpulse(h, sim.Vec3{})} {
			if !errors.Is(err, sim.ErrStale) {
				t.Errorf("got %v, want ErrStale", err)
			}
		}
	})
}

// snapshot prints every body's definition and state.
func snapshot(w *sim.World) string {
	b := &w.Bodies
	s := ""
	for i := range b.Len() {
		s += fmt.Sprintf("%s %v %v %v %v %v %v %v %v %v %v %v\n", b.Name[i], b.Type[i], b.Position[i], b.Rotation[i],
			b.Velocity[i], b.AngularVelocity[i], b.Mass[i], b.InvMass[i], b.InvInertiaLocal[i], b.InvInertiaWorld[i],
			b.Friction[i], b.Restitution[i])
	}
	return s
}

// TestSetTypeStaticStopsAndDynamicWeighsItsShape: a body made static loses its mass and velocity; made
// dynamic again it has its shape's mass at DefaultDensity.
func TestSetTypeStaticStopsAndDynamicWeighsItsShape(t *testing.T) {
	w, h := editWorld(t, sim.Settings{})
	if err := w.SetVelocity(h, sim.Vec3{1, 2, 3}, sim.Vec3{0, 1, 0}); err != nil {
		t.Fatal(err)
	}
	i, _ := w.Index(h)
	b := &w.Bodies
	if err := w.SetType(h, sim.Kinematic); err != nil {
		t.Fatal(err)
	}
	if b.Mass[i] != 0 || b.InvMass[i] != 0 || b.InvInertiaLocal[i] != (sim.Vec3{}) || b.Velocity[i] != (sim.Vec3{1, 2, 3}) {
		t.Errorf("kinematic: mass %v, 1/m %v, I^-1 %v, v %v; want no mass, the velocity kept", b.Mass[i], b.InvMass[i],
			b.InvInertiaLocal[i], b.Velocity[i])
	}
	if err := w.SetType(h, sim.Static); err != nil {
		t.Fatal(err)
	}
	if b.Velocity[i] != (sim.Vec3{}) || b.AngularVelocity[i] != (sim.Vec3{}) {
		t.Errorf("static: v %v, omega %v; want 0", b.Velocity[i], b.AngularVelocity[i])
	}
	if err := w.SetType(h, sim.Dynamic); err != nil {
		t.Fatal(err)
	}
	want := float32(sim.DefaultDensity * b.Shape[i].Volume())
	if math.Abs(float64(b.Mass[i]-want)) > 1e-3*float64(want) || b.InvMass[i] == 0 {
		t.Errorf("dynamic again: mass %v, want %v", b.Mass[i], want)
	}
}

// TestApplyImpulseAtAPointPushesAndSpins: an impulse J at r from the centre changes v by J/m and omega
// by I^-1 (r x J), at once; on a static body it does nothing.
func TestApplyImpulseAtAPointPushesAndSpins(t *testing.T) {
	w, _ := editWorld(t, sim.Settings{})
	h, _ := w.Find("ball")
	i, _ := w.Index(h)
	b := &w.Bodies
	m := b.Mass[i]
	J, p := sim.Vec3{0, 0, 2}, b.Position[i].Add(sim.Vec3{0.5, 0, 0})
	if err := w.ApplyImpulse(h, J, p); err != nil {
		t.Fatal(err)
	}
	wantV := J.Mul(1 / m)
	// A solid sphere: I = 2/5 m r^2 about every axis; r x J = (0.5,0,0) x (0,0,2) = (0,-1,0).
	wantW := sim.Vec3{0, -1 / (0.4 * m * 0.25), 0}
	if b.Velocity[i].Sub(wantV).Len() > 1e-6 || b.AngularVelocity[i].Sub(wantW).Len() > 1e-4*wantW.Len() {
		t.Errorf("v %v, omega %v; want %v, %v", b.Velocity[i], b.AngularVelocity[i], wantV, wantW)
	}
	if err := w.ApplyAngularImpulse(h, sim.Vec3{0, 1, 0}); err != nil {
		t.Fatal(err)
	}
	if got := b.AngularVelocity[i][1]; math.Abs(float64(got)) > 1e-4 {
		t.Errorf("the opposite angular impulse left omega_y = %v", got)
	}
	g, _ := w.Find("ground")
	if err := w.ApplyImpulse(g, J, sim.Vec3{}); err != nil {
		t.Fatal(err)
	}
	k, _ := w.Index(g)
	if b.Velocity[k] != (sim.Vec3{}) {
		t.Errorf("the ground moved: %v", b.Velocity[k])
	}
}

// TestEditsWakeASleepingBody: every edit wakes the body it edits.
func TestEditsWakeASleepingBody(t *testing.T) {
	for name, edit := range map[string]func(w *sim.World, h sim.Handle) error{
		"SetMass":             func(w *sim.World, h sim.Handle) error { return w.SetMass(h, 3) },
		"SetMaterial":         func(w *sim.World, h sim.Handle) error { return w.SetMaterial(h, 0.1, 0.2) },
		"SetType":             func(w *sim.World, h sim.Handle) error { return w.SetType(h, sim.Kinematic) },
		"ApplyImpulse":        func(w *sim.World, h sim.Handle) error { return w.ApplyImpulse(h, sim.Vec3{0, 1, 0}, sim.Vec3{}) },
		"ApplyAngularImpulse": func(w *sim.World, h sim.Handle) error { return w.ApplyAngularImpulse(h, sim.Vec3{0, 1, 0}) },
	} {
		t.Run(name, func(t *testing.T) {
			w, _ := editWorld(t, sim.Settings{Sleep: true})
			h, _ := w.Find("ball") // resting on the ground
			i, _ := w.Index(h)
			for step := 0; !w.Bodies.Asleep[i]; step++ {
				if step == 600 {
					t.Fatal("the ball never fell asleep")
				}
				if err := w.Step(); err != nil {
					t.Fatal(err)
				}
			}
			if err := edit(w, h); err != nil {
				t.Fatal(err)
			}
			if w.Bodies.Asleep[i] {
				t.Error("still asleep after the edit")
			}
		})
	}
}
