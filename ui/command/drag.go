package command

import (
	"fmt"
	"math"

	"tumble/sim"
)

// Drag is the soft mouse joint: a damped spring from a point on the body to the target, its force
// capped at MaxAccel times the body's mass (as Box2D's samples cap theirs), applied as an impulse
// before each step.
type Drag struct {
	Body     sim.Handle
	Local    sim.Vec3 // grabbed point, body frame
	Target   sim.Vec3 // world
	Hertz    float32  // spring frequency
	Damping  float32  // damping ratio
	MaxAccel float32  // m/s^2: the force cap per kilogram
}

// DefaultMaxAccel caps the mouse force at 30 g per kilogram: it can lift a body, not fling it through
// a stack.
const DefaultMaxAccel = 30 * 9.81

// StartDrag grabs body h at the world point p.
func StartDrag(h sim.Handle, p sim.Vec3) Command {
	return func(s *Session) error {
		i, ok := s.world.Index(h)
		if !ok {
			return ErrNoSelection
		}
		b := &s.world.Bodies
		if b.Type[i] != sim.Dynamic {
			return nil // nothing to drag
		}
		local := b.Rotation[i].Conjugate().Rotate(p.Sub(b.Position[i]))
		s.drag = &Drag{Body: h, Local: local, Target: p, Hertz: 5, Damping: 0.7, MaxAccel: DefaultMaxAccel}
		return nil
	}
}

// SetDragTarget moves the mouse joint's target at once, without queueing a command: a queued command
// makes the next Apply read every body back from a backend, which a mouse move must not cost.
func (s *Session) SetDragTarget(target sim.Vec3) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drag != nil {
		s.drag.Target = target
	}
}

// grabbed reads the state of the body a drag or a perturbation holds (World.BodyState: with a
// backend, one body crosses the bus, not the world). false says to let go: the body is gone or no
// longer dynamic, or it could not be read (that error becomes the session's, naming the what).
func (s *Session) grabbed(h sim.Handle, what string) (sim.BodyState, bool) {
	b, err := s.world.BodyState(h)
	if err != nil || b.Type != sim.Dynamic {
		if err != nil && err != sim.ErrStale && s.err == nil {
			s.setErr(fmt.Errorf("reading the %s body back from the backend: %w", what, err))
		}
		return sim.BodyState{}, false
	}
	return b, true
}

// EndDrag lets go.
func EndDrag() Command {
	return func(s *Session) error { s.drag = nil; return nil }
}

// Dragging returns the current mouse joint, if any.
func (s *Session) Dragging() (Drag, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drag == nil {
		return Drag{}, false
	}
	return *s.drag, true
}

// applyDrag gives the dragged body one step's impulse of the soft spring, capped. It reads the grabbed
// body's state alone (World.BodyState: with a backend, one body crosses the bus, not the world) and
// applies the impulse through World.ApplyImpulse.
func (s *Session) applyDrag() {
	d := s.drag
	if d == nil {
		return
	}
	w := s.world
	b, ok := s.grabbed(d.Body, "dragged")
	if !ok {
		s.drag = nil
		return
	}
	dt := w.Resolved().Dt
	r := b.Rotation.Rotate(d.Local)
	p := b.Position.Add(r)
	v := b.Velocity.Add(b.AngularVelocity.Cross(r))
	omega := 2 * math.Pi * float64(d.Hertz)
	k := float32(omega * omega)
	c := float32(2 * float64(d.Damping) * omega)
	// Acceleration of the grabbed point the spring asks for; gravity is cancelled so a held body hangs
	// at the cursor rather than below it.
	a := d.Target.Sub(p).Mul(k).Sub(v.Mul(c)).Sub(w.Resolved().Gravity)
	if l := a.Len(); l > d.MaxAccel {
		a = a.Mul(d.MaxAccel / l)
	}
	imp := a.Mul(b.Mass * dt)
	if err := w.ApplyImpulse(d.Body, imp, p); err != nil {
		s.drag = nil
		return
	}
	// A little angular damping so a body held off its centre settles instead of swinging forever: the
	// angular impulse that takes 2% off the angular velocity the spring's impulse leaves.
	b.Apply(sim.BodyImpulse{Linear: imp, Point: p})
	if b.AngularVelocity == (sim.Vec3{}) {
		return
	}
	damp := b.InvInertiaWorld.Inv().Mul3x1(b.AngularVelocity.Mul(-0.02))
	if err := w.ApplyAngularImpulse(d.Body, damp); err != nil {
		s.drag = nil
	}
}
