package sim

import (
	"fmt"
	"math"

	"tumble/sim/geom"
)

// Edits of one body's definition and state. Each method validates its values (an error changes
// nothing), keeps the derived quantities consistent (mass, inverse mass and inertia as AddBody computes
// them), wakes the body's island, and records the edit for an attached backend: a definition change
// uploads that one body before the next step; an impulse is queued (Edits.Impulses) and applied where
// the state lives, so no body's state crosses the bus for it.

// BodyImpulse is an impulse applied to one body, queued for a backend (Edits.Impulses): a linear impulse
// at a world point, plus an angular impulse about the centre of mass.
type BodyImpulse struct {
	Body    int32 // dense index
	Linear  Vec3  // N s, world
	Point   Vec3  // world point the linear impulse acts at
	Angular Vec3  // N m s, world, about the centre of mass
}

// BodyState is one body's moving state and what an impulse on it needs: what World.BodyState reads
// (a narrow read, without syncing every body from a backend).
type BodyState struct {
	Type            BodyType
	Position        Vec3 // centre of mass, world
	Rotation        Quat
	Velocity        Vec3
	AngularVelocity Vec3
	Mass, InvMass   float32
	InvInertiaWorld Mat3
	// Asleep: the body's island sleeps (Bodies.Asleep; with a backend, as the backend holds it).
	Asleep bool
}

// Apply adds the impulse im (its Body aside) to s's velocities.
func (s *BodyState) Apply(im BodyImpulse) {
	r := im.Point.Sub(s.Position)
	s.Velocity = s.Velocity.Add(im.Linear.Mul(s.InvMass))
	s.AngularVelocity = s.AngularVelocity.Add(s.InvInertiaWorld.Mul3x1(r.Cross(im.Linear).Add(im.Angular)))
}

// StateReader is a Backend that can read back the moving state of a few bodies without pulling them
// all (World.BodyState uses it).
type StateReader interface {
	// PullStates fills out[k]'s Position, Rotation, Velocity, AngularVelocity and Asleep with the backend's
	// state of the body at dense index idx[k]; len(out) == len(idx).
	PullStates(w *World, idx []int32, out []BodyState) error
}

// finite reports whether every value is a finite number.
func finite(v ...float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// editIndex returns the dense index of a live body and readies the host copy for an edit of it.
func (w *World) editIndex(h Handle) (int, error) {
	i, ok := w.dense(h)
	if !ok {
		return 0, ErrStale
	}
	w.beforeEdit()
	return i, nil
}

// SetMass gives a dynamic body the mass m (kg, finite and > 0), its inertia scaled from its shape's
// unit inertia as AddBody computes it. Static and kinematic bodies have no mass to set.
func (w *World) SetMass(h Handle, m float32) error {
	i, ok := w.dense(h)
	if !ok {
		return ErrStale
	}
	if !(m > 0) || !finite(m) {
		return fmt.Errorf("body %q: mass must be finite and > 0, got %v", w.Bodies.Name[i], m)
	}
	if w.Bodies.Type[i] != Dynamic {
		return fmt.Errorf("body %q: a %s body has no mass to set", w.Bodies.Name[i], w.Bodies.Type[i])
	}
	w.beforeEdit()
	w.setMass(i, m)
	w.edited(i)
	w.wakeIndex(i)
	return nil
}

// setMass writes body i's mass, inverse mass and inverse inertia (local and world) for mass m.
func (w *World) setMass(i int, m float32) {
	b := &w.Bodies
	d := BodyDef{Type: Dynamic, Shape: b.Shape[i], Mass: m}
	mass, invMass, invI := massProperties(&d)
	b.Mass[i], b.InvMass[i], b.InvInertiaLocal[i] = mass, invMass, invI
	b.InvInertiaWorld[i] = worldInertia(b.Rotation[i], invI)
}

// SetType changes a body's type. A static or kinematic body has no mass (and a static one stops);
// a body made dynamic gets the mass of its shape at DefaultDensity, a compound its shapes' masses
// (SetMass changes it). A plane must stay static.
func (w *World) SetType(h Handle, t BodyType) error {
	i, ok := w.dense(h)
	if !ok {
		return ErrStale
	}
	b := &w.Bodies
	if t > Static {
		return fmt.Errorf("body %q: invalid type %d", b.Name[i], t)
	}
	if t == b.Type[i] {
		return nil
	}
	if b.Shape[i].Kind == geom.Plane && t != Static {
		return fmt.Errorf("body %q: a plane must be static", b.Name[i])
	}
	if b.Shape[i].Kind == geom.TriMesh && t != Static {
		return fmt.Errorf("body %q: a triangle mesh must be static", b.Name[i])
	}
	if b.Shape[i].Kind == geom.HeightField && t != Static {
		return fmt.Errorf("body %q: a height field must be static", b.Name[i])
	}
	w.beforeEdit()
	if b.Type[i] != Dynamic && t != Dynamic {
		w.markWake(i) // a kinematic body's island is itself; nothing else to wake
	} else {
		w.wakeIndex(i) // its island wakes before it leaves (or after it joins) the dynamic bodies
	}
	b.Type[i] = t
	if t == Dynamic {
		w.setMass(i, float32(defaultMass(&b.Shape[i])))
	} else {
		b.Mass[i], b.InvMass[i], b.InvInertiaLocal[i], b.InvInertiaWorld[i] = 0, 0, Vec3{}, Mat3{}
		b.Asleep[i], b.SleepTime[i], b.island[i] = false, 0, 0
		if t == Static {
			b.Velocity[i], b.AngularVelocity[i] = Vec3{}, Vec3{}
		}
	}
	// No index moves, so last step's contacts keep their warm start (as the GPU backend's do).
	w.edited(i)
	return nil
}

// SetMaterial sets a body's friction coefficient and restitution (both finite and >= 0).
func (w *World) SetMaterial(h Handle, friction, restitution float32) error {
	i, ok := w.dense(h)
	if !ok {
		return ErrStale
	}
	if !(friction >= 0) || !finite(friction) {
		return fmt.Errorf("body %q: friction must be finite and >= 0, got %v", w.Bodies.Name[i], friction)
	}
	if !(restitution >= 0) || !finite(restitution) {
		return fmt.Errorf("body %q: restitution must be finite and >= 0, got %v", w.Bodies.Name[i], restitution)
	}
	w.beforeEdit()
	w.Bodies.Friction[i], w.Bodies.Restitution[i] = friction, restitution
	w.edited(i)
	w.wakeIndex(i)
	return nil
}

// SetResistance sets a body's rolling and spinning resistance coefficients (both finite and >= 0;
// see BodyDef.RollingResistance).
func (w *World) SetResistance(h Handle, rolling, spinning float32) error {
	i, ok := w.dense(h)
	if !ok {
		return ErrStale
	}
	if !(rolling >= 0) || !finite(rolling) {
		return fmt.Errorf("body %q: rolling resistance must be finite and >= 0, got %v", w.Bodies.Name[i], rolling)
	}
	if !(spinning >= 0) || !finite(spinning) {
		return fmt.Errorf("body %q: spinning resistance must be finite and >= 0, got %v", w.Bodies.Name[i], spinning)
	}
	w.beforeEdit()
	w.Bodies.RollingResistance[i], w.Bodies.SpinningResistance[i] = rolling, spinning
	w.edited(i)
	w.wakeIndex(i)
	return nil
}

// ApplyImpulse applies the impulse j (N s, world) at the world point p to a dynamic body, changing
// its linear and angular velocity at once (not at the next step), and wakes it. With a backend the
// impulse is queued and applied on the backend's state at the start of its next step, without reading
// the bodies back; a Sync before then applies it to Bodies instead. Static and kinematic bodies are
// not moved by impulses (nil error, nothing done).
func (w *World) ApplyImpulse(h Handle, j, p Vec3) error {
	return w.impulse(h, BodyImpulse{Linear: j, Point: p})
}

// ApplyAngularImpulse applies the angular impulse l (N m s, world) about a dynamic body's centre of
// mass, as ApplyImpulse applies a linear one.
func (w *World) ApplyAngularImpulse(h Handle, l Vec3) error {
	i, ok := w.dense(h)
	if !ok {
		return ErrStale
	}
	return w.impulse(h, BodyImpulse{Angular: l, Point: w.Bodies.Position[i]})
}

// impulse applies im to the body h (or queues it for the backend).
func (w *World) impulse(h Handle, im BodyImpulse) error {
	i, ok := w.dense(h)
	if !ok {
		return ErrStale
	}
	if !finite(im.Linear[0], im.Linear[1], im.Linear[2], im.Point[0], im.Point[1], im.Point[2], im.Angular[0], im.Angular[1], im.Angular[2]) {
		return fmt.Errorf("body %q: impulse %v at %v, angular %v: not finite", w.Bodies.Name[i], im.Linear, im.Point, im.Angular)
	}
	if w.Bodies.Type[i] != Dynamic {
		return nil
	}
	if w.Bodies.Asleep[i] {
		w.beforeEdit()
		w.edited(i) // it wakes: the backend takes it with the impulse
	}
	w.wakeIndex(i)
	im.Body = int32(i)
	if w.backend != nil {
		w.edits.Impulses = append(w.edits.Impulses, im)
		return nil
	}
	w.applyImpulse(im)
	return nil
}

// applyImpulse applies one impulse to the host copy of the bodies.
func (w *World) applyImpulse(im BodyImpulse) {
	b := &w.Bodies
	i := im.Body
	s := BodyState{Position: b.Position[i], Velocity: b.Velocity[i], AngularVelocity: b.AngularVelocity[i],
		InvMass: b.InvMass[i], InvInertiaWorld: b.InvInertiaWorld[i]}
	s.Apply(im)
	b.Velocity[i], b.AngularVelocity[i] = s.Velocity, s.AngularVelocity
}

// foldImpulses applies the impulses queued for the backend to the host copy (which must be current)
// and records their bodies as edited instead: after a Sync, Bodies show them, and an upload of those
// bodies carries them.
func (w *World) foldImpulses() {
	if len(w.edits.Impulses) == 0 {
		return
	}
	for _, im := range w.edits.Impulses {
		if int(im.Body) < w.Bodies.Len() {
			w.applyImpulse(im)
			w.edited(int(im.Body))
		}
	}
	w.edits.Impulses = w.edits.Impulses[:0]
}

// BodyState reads one body's moving state, with what an impulse on it needs. With a backend it reads
// that body alone when the backend can (StateReader), without syncing every body; otherwise it syncs.
// Impulses queued since the last step are included.
func (w *World) BodyState(h Handle) (BodyState, error) {
	i, ok := w.dense(h)
	if !ok {
		return BodyState{}, ErrStale
	}
	b := &w.Bodies
	s := BodyState{Type: b.Type[i], Position: b.Position[i], Rotation: b.Rotation[i], Velocity: b.Velocity[i],
		AngularVelocity: b.AngularVelocity[i], Mass: b.Mass[i], InvMass: b.InvMass[i], InvInertiaWorld: b.InvInertiaWorld[i],
		Asleep: b.Asleep[i]}
	if w.backend != nil && w.stale {
		r, ok := w.backend.(StateReader)
		if !ok {
			if err := w.Sync(); err != nil {
				return BodyState{}, err
			}
			return w.BodyState(h)
		}
		out := []BodyState{s}
		if err := r.PullStates(w, []int32{int32(i)}, out); err != nil {
			return BodyState{}, err
		}
		s.Position, s.Rotation, s.Velocity, s.AngularVelocity = out[0].Position, out[0].Rotation, out[0].Velocity, out[0].AngularVelocity
		s.Asleep = out[0].Asleep
		s.InvInertiaWorld = worldInertia(s.Rotation, b.InvInertiaLocal[i])
	}
	for _, im := range w.edits.Impulses {
		if int(im.Body) == i {
			s.Apply(im)
		}
	}
	return s, nil
}
