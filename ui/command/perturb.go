package command

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
)

// PerturbMode says what a perturbation applies.
type PerturbMode uint8

const (
	// PerturbForce pulls the grabbed point towards the target with a force (Ctrl + left drag).
	PerturbForce PerturbMode = iota
	// PerturbTorque turns the body towards a reference orientation the drag sets (Ctrl + right drag).
	PerturbTorque
)

// Perturb is MuJoCo simulate's perturbation: a force or a torque on one body, applied as an impulse
// before each step while the user holds it. Unlike the mouse joint (Drag) it does not cancel gravity
// or hold the body: it is a plain external force, shown with its magnitude.
//
// Force: a damped spring from the grabbed point p (moving with the body) to the target,
// F = m (k (target - p) - c v_p), with MuJoCo's default stiffness k = 100 s^-2 and c = sqrt(k) (a
// damping ratio of 1/2), its magnitude capped at MaxAccel times the mass.
//
// Torque: the drag turns a reference orientation as a trackball does: moving the grabbed point by L
// across the view turns the reference by L / R about the axis (towards the eye) x (drag), R the grabbed
// point's distance from the centre of mass (at least MinRadius), so the grabbed point follows the
// cursor. The torque drives the body to the reference, tau = I (k e - c w), e the rotation vector from
// the body's orientation to the reference, I the world inertia, its angular acceleration capped at
// MaxAngAccel.
type Perturb struct {
	Body   sim.Handle
	Mode   PerturbMode
	Local  sim.Vec3 // grabbed point, body frame
	Target sim.Vec3 // world: the cursor's point at the grab depth
	// Grab is the grabbed point in the world when grabbed, ToEye the unit vector from it towards the
	// eye, Start the body's orientation then (the torque's reference is measured from them).
	Grab, ToEye sim.Vec3
	Start       sim.Quat
	// Point, Force and Torque are the grabbed point (world) and the force (N) or torque (N m) the
	// last step applied, for drawing.
	Point, Force, Torque sim.Vec3
	Applied              bool // a step has applied it
}

// Perturbation constants: MuJoCo's default perturbation stiffness (mjVisual.map.stiffness) and a
// damping ratio of 1/2; the caps keep a long drag from flinging a body through a stack.
const (
	PerturbStiffness   = 100       // s^-2
	PerturbDamping     = 10        // s^-1: sqrt(PerturbStiffness)
	PerturbMaxAccel    = 50 * 9.81 // m/s^2 per kilogram
	PerturbMaxAngAccel = 200       // rad/s^2
	PerturbMinRadius   = 0.1       // m
)

// StartPerturb grabs body h at the world point p to push it with a force or turn it with a torque;
// toEye points from p towards the camera (the torque's trackball). A body that is not dynamic is not
// perturbed.
func StartPerturb(h sim.Handle, p sim.Vec3, toEye sim.Vec3, mode PerturbMode) Command {
	return func(s *Session) error {
		i, ok := s.world.Index(h)
		if !ok {
			return ErrNoSelection
		}
		b := &s.world.Bodies
		if b.Type[i] != sim.Dynamic {
			return nil
		}
		if !finite(p) || !finite(toEye) || !(toEye.Len() > 1e-6) {
			return fmt.Errorf("perturb: grab point %v or view direction %v not finite", p, toEye)
		}
		local := b.Rotation[i].Conjugate().Rotate(p.Sub(b.Position[i]))
		s.drag = nil // one hand on a body at a time
		s.perturb = &Perturb{Body: h, Mode: mode, Local: local, Target: p, Grab: p, ToEye: toEye.Normalize(),
			Start: b.Rotation[i], Point: p}
		return nil
	}
}

// SetPerturbTarget moves the perturbation's target at once, without queueing a command (as
// SetDragTarget: a mouse move must not make the next Apply read every body back from a backend).
func (s *Session) SetPerturbTarget(target sim.Vec3) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perturb != nil && finite(target) {
		s.perturb.Target = target
	}
}

// EndPerturb lets go (the mouse button released).
func EndPerturb() Command {
	return func(s *Session) error { s.perturb = nil; return nil }
}

// Perturbing returns the current perturbation, if any, with what the last step applied.
func (s *Session) Perturbing() (Perturb, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perturb == nil {
		return Perturb{}, false
	}
	return *s.perturb, true
}

// applyPerturb gives the perturbed body one step's impulse of its force or torque (F dt at the
// grabbed point, or tau dt about the centre of mass), reading that body alone (World.BodyState).
func (s *Session) applyPerturb() {
	p := s.perturb
	if p == nil {
		return
	}
	w := s.world
	b, ok := s.grabbed(p.Body, "perturbed")
	if !ok {
		s.perturb = nil
		return
	}
	dt := w.Resolved().Dt
	r := b.Rotation.Rotate(p.Local)
	p.Point = b.Position.Add(r)
	p.Force, p.Torque = sim.Vec3{}, sim.Vec3{}
	var err error
	switch p.Mode {
	case PerturbForce:
		v := b.Velocity.Add(b.AngularVelocity.Cross(r))
		a := p.Target.Sub(p.Point).Mul(PerturbStiffness).Sub(v.Mul(PerturbDamping))
		if l := a.Len(); l > PerturbMaxAccel {
			a = a.Mul(PerturbMaxAccel / l)
		}
		p.Force = a.Mul(b.Mass)
		err = w.ApplyImpulse(p.Body, p.Force.Mul(dt), p.Point)
	case PerturbTorque:
		e := rotationVector(perturbReference(p, r.Len()).Mul(b.Rotation.Conjugate()))
		alpha := e.Mul(PerturbStiffness).Sub(b.AngularVelocity.Mul(PerturbDamping))
		if l := alpha.Len(); l > PerturbMaxAngAccel {
			alpha = alpha.Mul(PerturbMaxAngAccel / l)
		}
		p.Torque = b.InvInertiaWorld.Inv().Mul3x1(alpha)
		err = w.ApplyAngularImpulse(p.Body, p.Torque.Mul(dt))
	}
	p.Applied = true
	if err != nil {
		s.perturb = nil
	}
}

// perturbReference is the torque's reference orientation: the start orientation turned by the drag
// (Target - Grab) as a trackball turns it, radius the grabbed point's distance from the centre.
func perturbReference(p *Perturb, radius float32) sim.Quat {
	d := p.Target.Sub(p.Grab)
	d = d.Sub(p.ToEye.Mul(d.Dot(p.ToEye))) // across the view only
	axis := p.ToEye.Cross(d)
	l := axis.Len()
	if l < 1e-6 {
		return p.Start
	}
	angle := d.Len() / max(radius, PerturbMinRadius)
	return mgl32.QuatRotate(angle, axis.Mul(1/l)).Mul(p.Start).Normalize()
}

// rotationVector is the axis times the angle (-pi..pi] of the unit quaternion q.
func rotationVector(q sim.Quat) sim.Vec3 {
	if q.W < 0 { // the shorter way round
		q = sim.Quat{W: -q.W, V: q.V.Mul(-1)}
	}
	s := q.V.Len()
	if s < 1e-9 {
		return q.V.Mul(2)
	}
	angle := 2 * float32(math.Atan2(float64(s), float64(q.W)))
	return q.V.Mul(angle / s)
}
