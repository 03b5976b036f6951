package sim

import "slices"

// Backend runs a World's steps somewhere other than this package's CPU stages: the CUDA backend in
// package gpu keeps the body state in device memory and steps it there. The World stays the model: it
// holds the bodies, joints and settings, applies edits to its own copy, and lists them (TakeEdits) for
// the backend to mirror before its next step. Its Bodies are brought up to date from the backend only
// when someone asks (Sync), so a step has no host round trip.
type Backend interface {
	// Name says what runs the steps, e.g. "cuda (NVIDIA H100 80GB HBM3)".
	Name() string
	// Capabilities says what it runs (solvers, sleeping, broad phases): CheckFor and ResolveFor read
	// settings with them.
	Capabilities() Capabilities
	// Step advances the world by one time step, running the stages of its Plan (PlanOf the world's
	// settings), and fills in r. It reads w (its settings, TakeEdits, the joints) and does not change
	// it: the World applies the report.
	Step(w *World, r *StepReport) error
	// Pull copies the backend's body state (positions, rotations, velocities) into w.Bodies.
	Pull(w *World) error
	// Contacts appends the last step's contact points to out (read back from the backend).
	Contacts(w *World, out []ContactPoint) []ContactPoint
	// Close releases what the backend holds. The World keeps the state of its last Sync.
	Close()
}

// StepReport is what a backend's step tells the World, which applies it: the step's statistics, the
// joints that broke and the body that blew up.
type StepReport struct {
	// Stats describes the step (Timings by stage, pairs, manifolds, contacts).
	Stats Stats
	// Broken lists the joints whose force exceeded their break force, in ascending joint index, with
	// the force and Step the number of the step that broke them. The World removes them.
	Broken []BrokenJoint
	// BlowUp is the dense index of the first body whose state became non-finite or faster than
	// MaxLinearSpeed, or -1.
	BlowUp int
}

// JointForceReader is a Backend that can report the force each joint held in its last step, the value
// it compares with the joint's BreakForce. World.JointState reads it through this, once per step.
type JointForceReader interface {
	// JointForces appends to out the force (N) of each of w's joints in the backend's last step, in
	// w's joint order, NaN for a joint the backend has not stepped yet.
	JointForces(w *World, out []float32) ([]float32, error)
}

// Edits lists what changed in a World since a backend last took them (TakeEdits).
type Edits struct {
	// All: take everything again (a backend was just attached).
	All bool
	// Bodies are the dense indices whose definition or state was set (added bodies, a removal's moved
	// body, SetPose, SetVelocity, Wake), sorted and unique, all below Bodies.Len().
	Bodies []int32
	// Removed: bodies were removed, so dense indices moved (the last body into a removed one's place)
	// and last step's contacts no longer name the same bodies. Added bodies move none.
	Removed bool
	// Moves are the removals' index moves, in order (Removed is set with them).
	Moves []Move
	// Joints: joints were added, removed or edited (UpdateJoint). JointFrame.ID tells an edited joint
	// from a new one.
	Joints bool
	// Settings: the settings changed.
	Settings bool
	// Impulses are applied to the backend's body state after the bodies above are uploaded, in order
	// (ApplyImpulse): the backend changes those bodies' velocities where they live, with no upload of
	// the bodies.
	Impulses []BodyImpulse
}

// Move is one removal's change of dense indices: the body at Last (the last one) moved to Index, the
// removed body's (Index == Last when the removed body was last). A backend that keeps last step's
// contacts renames them with it where its solver does (RenamesContacts), and drops them all otherwise.
type Move struct{ Index, Last int32 }

// SetBackend makes b run the world's steps from now on (nil: the CPU stages of this package). The
// previous backend's state is synced into Bodies and it is closed; b starts from the whole world. A
// body of a shape b does not run (CheckShapesFor) is an error, and the world stays as it was, on its
// previous backend; b is not closed.
func (w *World) SetBackend(b Backend) error {
	if b != nil {
		if err := CheckShapesFor(b.Capabilities(), &w.Bodies); err != nil {
			return err
		}
	}
	if err := w.Sync(); err != nil {
		return err
	}
	if w.backend != nil {
		w.backend.Close()
	}
	w.backend = b
	w.edits = Edits{All: true}
	w.forcesRead = false
	w.pipe.invalidate()
	return nil
}

// Backend returns the backend that runs the steps, or nil for the CPU stages.
func (w *World) Backend() Backend { return w.backend }

// Sync brings Bodies up to date with the backend's state, impulses queued since the last step
// (ApplyImpulse) included. It reads nothing back when the world has no backend or nothing stepped
// since the last Sync.
func (w *World) Sync() error {
	if w.backend == nil {
		return nil
	}
	if w.stale {
		if err := w.backend.Pull(w); err != nil {
			return err
		}
		w.stale = false
		w.claimLabels()
		for i := range w.Bodies.InvInertiaWorld {
			w.Bodies.InvInertiaWorld[i] = worldInertia(w.Bodies.Rotation[i], w.Bodies.InvInertiaLocal[i])
		}
	}
	w.foldImpulses()
	return nil
}

// TakeEdits returns the edits since the last call and forgets them.
func (w *World) TakeEdits() Edits {
	e := w.edits
	w.edits = Edits{}
	n := int32(w.Bodies.Len())
	slices.Sort(e.Bodies)
	e.Bodies = slices.Compact(e.Bodies)
	for len(e.Bodies) > 0 && e.Bodies[len(e.Bodies)-1] >= n {
		e.Bodies = e.Bodies[:len(e.Bodies)-1]
	}
	return e
}

// beforeEdit readies the host copy for an edit: with a backend, Bodies must be current first (an
// edit such as a removal copies one body's state over another's).
func (w *World) beforeEdit() {
	w.invalidateQueries()
	if w.backend == nil {
		return
	}
	if err := w.Sync(); err != nil && w.backendErr == nil {
		w.backendErr = err
	}
}

// edited records that body i changed.
func (w *World) edited(i int) {
	w.invalidateQueries()
	if w.backend != nil && !w.edits.All {
		w.edits.Bodies = append(w.edits.Bodies, int32(i))
	}
}

// stepBackend is Step with a backend: the backend steps, and the World applies its report.
func (w *World) stepBackend() error {
	if w.backendErr != nil {
		err := w.backendErr
		w.backendErr = nil
		return err
	}
	if err := CheckFor(w.backend.Capabilities(), w.user); err != nil {
		return err
	}
	w.Broken = w.Broken[:0]
	r := &w.report
	*r = StepReport{Broken: r.Broken[:0], BlowUp: -1}
	err := w.backend.Step(w, r)
	w.stale, w.forcesRead = true, false
	w.StepCount++
	w.Time = float64(w.StepCount) * float64(w.settings.Dt)
	if err != nil {
		return err
	}
	w.Stats = r.Stats
	if i := r.BlowUp; i >= 0 && i < w.Bodies.Len() {
		if err := w.Sync(); err != nil {
			return err
		}
		b := &w.Bodies
		e := &BlowUpError{Body: b.Name[i], Step: w.StepCount, What: "velocity", Value: b.Velocity[i]}
		if p := b.Position[i]; !finite(p[:]...) {
			e.What, e.Value = "position", p
		}
		return e
	}
	// Broken joints go highest index first, so the lower indices stay valid.
	for k := len(r.Broken) - 1; k >= 0; k-- {
		if err := w.RemoveJoint(r.Broken[k].Index); err != nil {
			return err
		}
	}
	w.Broken = append(w.Broken, r.Broken...)
	return nil
}

// DropBackend closes the backend without reading its state back: Bodies keep the state of the last
// Sync and the CPU stages step the world from there. It is the way off a backend whose state cannot
// be read (a failed Pull), where SetBackend(nil) fails.
func (w *World) DropBackend() {
	if w.backend != nil {
		w.backend.Close()
	}
	w.foldImpulses() // onto the state of the last Sync, as the CPU would have applied them
	w.backend, w.stale, w.backendErr = nil, false, nil
	w.edits = Edits{}
	w.pipe.invalidate()
}
