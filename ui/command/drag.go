package command

import (
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

// MoveDrag moves the mouse joint's target.
func MoveDrag(target sim.Vec3) Command {
	return func(s *Session) error {
		if s.drag != nil {
			s.drag.Target = target
		}
		return nil
	}
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

// applyDrag gives the dragged body one step's impulse of the soft spring, capped.
func (s *Session) applyDrag() {
	d := s.drag
	if d == nil {
		return
	}
	s.sync() // with a backend, the grabbed body's state is read back each step while dragging
	i, ok := s.world.Index(d.Body)
	if !ok || s.world.Bodies.Type[i] != sim.Dynamic {
		s.drag = nil
		return
	}
	b := &s.world.Bodies
	dt := s.world.Resolved().Dt
	r := b.Rotation[i].Rotate(d.Local)
	p := b.Position[i].Add(r)
	v := b.Velocity[i].Add(b.AngularVelocity[i].Cross(r))
	omega := 2 * math.Pi * float64(d.Hertz)
	k := float32(omega * omega)
	c := float32(2 * float64(d.Damping) * omega)
	// Acceleration of the grabbed point the spring asks for; gravity is cancelled so a held body hangs
	// at the cursor rather than below it.
	a := d.Target.Sub(p).Mul(k).Sub(v.Mul(c)).Sub(s.world.Resolved().Gravity)
	if l := a.Len(); l > d.MaxAccel {
		a = a.Mul(d.MaxAccel / l)
	}
	imp := a.Mul(b.Mass[i] * dt)
	b.Velocity[i] = b.Velocity[i].Add(imp.Mul(b.InvMass[i]))
	b.AngularVelocity[i] = b.AngularVelocity[i].Add(b.InvInertiaWorld[i].Mul3x1(r.Cross(imp)))
	// A little angular damping so a body held off its centre settles instead of swinging forever.
	b.AngularVelocity[i] = b.AngularVelocity[i].Mul(0.98)
	s.world.Touched(i)
}
