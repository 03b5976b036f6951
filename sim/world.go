// Package sim is Tumble's physics model and its CPU backend: bodies in structure-of-arrays form,
// settings, and the step.
//
// A step is a Plan: an ordered list of Stages (stage.go) that the selected Solver writes (solver.go,
// one file per solver). For the velocity solvers (Jacobi, PGS) it is bounds, broad phase, narrow phase,
// prepare, then Substeps soft sub-steps of integrate velocities, warm start, solve, integrate positions
// and relax, then restitution, store impulses and sleep; XPBD's sub-steps are integrate velocities,
// predict positions, position passes, derive velocities and a velocity pass. The CPU runs the plan
// stage by stage here (step.go: runStage), the CUDA backend (package gpu) runs the same plan as kernels,
// and both time it by the same stages.
//
// A World is driven from one goroutine: Step advances it by Settings.Dt; edits (AddBody, RemoveBody,
// SetSettings) happen between steps. Inside a step each stage runs over a pool of worker goroutines.
package sim

import (
	"errors"
	"fmt"
	"time"

	"tumble/sim/broad/bvh"
	"tumble/sim/geom"
)

// Stats describes the last step.
type Stats struct {
	Timings   Timings // wall time per stage
	Pairs     int     // broad-phase pairs
	Manifolds int     // touching pairs (manifolds with at least one point)
	Contacts  int     // contact points
	// Reused is how many of the manifolds reused their points from the contact cache instead of a
	// fresh test (Settings.NoContactCache).
	Reused int
	Colors int // graph colours used by PGS (0 for Jacobi)
	Asleep int // sleeping bodies after the step (Settings.Sleep)
	// Handed is how many of the step's loops went to the worker goroutines; 0 when the whole step ran
	// on the calling goroutine, as a small scene's does under coarse grains at any worker count (a
	// loop is handed over only when it gives each of two workers enough work to pay for the
	// hand-off; FineGrains).
	Handed int
	// Stalls is how many times in the step a helper kept the caller waiting for a chunk it had taken
	// (its core taken away): after each, that helper sat out the loops for a while (workpool).
	Stalls int
	// FineGrains: the step ran with fine grains, its loops split into smaller chunks (grains.go;
	// World.Grains says why).
	FineGrains bool
	// IslandRegions is how many regions the step's sub-steps ran in, island by island, each region's
	// every stage on one worker with no wait between them (under fine grains, sim/islands.go); 0 when
	// they ran stage by stage and colour by colour.
	IslandRegions int
	// PairsKept: the broad phase did not run; its pairs came from the last query, whose boxes, grown
	// by FatMargin, still held every body's (broad_keep.go).
	PairsKept bool
	// Moved is how many bodies had left their grown boxes on a step that kept the pairs: their pairs
	// were found again by testing each against every body (at most MaxMoved).
	Moved int

	// BVH breaks the broad stage down when the LBVH ran it (BVH.Used): its wall time per stage
	// (zero for the build stages on a step that refitted) and whether it rebuilt the tree.
	BVH BVHStats
}

// BVHStats is the LBVH's share of a step.
type BVHStats struct {
	Used    bool
	Rebuilt bool
	Stages  [bvh.NumStages]time.Duration
}

// World is a rigid-body world.
type World struct {
	// Bodies is the body state; read it between steps, edit through methods.
	Bodies Bodies
	// Stats describes the last step.
	Stats Stats
	// StepCount is the number of steps taken; Time is StepCount x Dt in seconds.
	StepCount int
	Time      float64
	// Broken lists the joints that broke in the last step (their break force was exceeded); they have
	// been removed.
	Broken []BrokenJoint

	settings Settings // resolved
	user     Settings // as given

	slots    []slot // handle table
	freeSlot []uint32
	names    map[string]int32 // name -> handle slot

	joints      []joint
	jointSerial uint64 // the last joint id given out (joint.id)

	clusters []cluster       // shape-matching clusters (cluster.go)
	members  []clusterMember // their members, each cluster's in one run

	pipe pipeline
	opts Options // how the CPU step runs (SetOptions)

	backend    Backend    // nil: the CPU stages
	stale      bool       // the backend has stepped since Bodies were last synced
	edits      Edits      // changes the backend has not taken yet
	backendErr error      // a failed Sync during an edit, returned by the next Step
	forces     []float32  // the joints' forces read from the backend (JointState), when forcesRead
	forcesRead bool       // forces are the backend's for the last step and the joints as they are
	report     StepReport // the backend's last step

	queries queryCache // the scene queries' tree (query.go)

	conv convergence // the solver's per-pass residuals, while traced (convergence.go)
}

type slot struct {
	dense int32 // -1 when free
	gen   uint32
}

// NewWorld returns an empty world.
func NewWorld(s Settings) *World {
	w := &World{names: map[string]int32{}}
	w.SetSettings(s)
	return w
}

// Settings returns the settings as given (zero fields unresolved).
func (w *World) Settings() Settings { return w.user }

// Resolved returns the settings in force, every default filled in.
func (w *World) Resolved() Settings { return w.settings }

// SetSettings replaces the settings; it takes effect at the next step.
func (w *World) SetSettings(s Settings) {
	w.beforeEdit()
	w.edits.Settings = true
	w.user = s
	w.settings = s.resolved()
	w.wakeAll() // gravity, friction or the solver may have changed: nothing is at rest any more
	w.ensurePool()
}

// ErrStale is returned for a handle whose body was removed.
var ErrStale = errors.New("stale body handle")

// AddBody adds a body and returns its handle. With a backend attached, a body of a shape it does not
// run (CheckShapeFor) is an error and nothing is added.
func (w *World) AddBody(d BodyDef) (Handle, error) {
	w.beforeEdit()
	d.Rotation = identityIfZero(d.Rotation)
	if d.Name == "" {
		// body<index>, as scene files default it; after removals that name may be taken.
		for k := w.Bodies.Len(); d.Name == ""; k++ {
			if _, taken := w.names[fmt.Sprintf("body%d", k)]; !taken {
				d.Name = fmt.Sprintf("body%d", k)
			}
		}
	}
	if _, dup := w.names[d.Name]; dup {
		return Handle{}, fmt.Errorf("body %q: duplicate name", d.Name)
	}
	if err := validateDef(&d); err != nil {
		return Handle{}, err
	}
	if w.backend != nil {
		if err := CheckShapeFor(w.backend.Capabilities(), d.Name, d.Shape.Kind); err != nil {
			return Handle{}, err
		}
	}
	mass, invMass, invI := massProperties(&d)
	var si uint32
	if n := len(w.freeSlot); n > 0 {
		si = w.freeSlot[n-1]
		w.freeSlot = w.freeSlot[:n-1]
	} else {
		si = uint32(len(w.slots))
		w.slots = append(w.slots, slot{})
	}
	s := &w.slots[si]
	s.gen++
	s.dense = int32(w.Bodies.Len())
	w.Bodies.append(&d, invMass, invI, mass)
	w.Bodies.handle = append(w.Bodies.handle, si)
	w.names[d.Name] = int32(si)
	// The others keep their dense indices, so last step's contacts stay theirs: warm starting and the
	// friction anchors carry on (dropped, a standing pyramid crept 6 mm in 10 s of a spawn every 10
	// steps).
	w.edited(w.Bodies.Len() - 1)
	return Handle{Index: si, Gen: s.gen}, nil
}

// RemoveBody removes a body; its handle and any joint naming it become stale.
func (w *World) RemoveBody(h Handle) error {
	i, ok := w.dense(h)
	if !ok {
		return ErrStale
	}
	w.beforeEdit()
	delete(w.names, w.Bodies.Name[i])
	// What rested on it wakes (a margin of twice the contact distance catches what touched it).
	b := &w.Bodies
	box := b.Shape[i].Bounds(geom.Pose{P: b.Position[i], Q: b.Rotation[i]})
	e := 2 * w.settings.Speculative
	box.Min, box.Max = box.Min.Sub(Vec3{e, e, e}), box.Max.Add(Vec3{e, e, e})
	w.wakeOverlapping(box)
	// Joints on the removed body go with it.
	kept := w.joints[:0]
	for _, j := range w.joints {
		if j.def.BodyA != h && j.def.BodyB != h {
			kept = append(kept, j)
		}
	}
	if len(kept) != len(w.joints) {
		w.jointsChanged()
	}
	clear(w.joints[len(kept):])
	w.joints = kept
	w.dropClusterMember(h)
	last := w.Bodies.Len() - 1
	if i != last {
		w.slots[w.Bodies.handle[last]].dense = int32(i)
	}
	w.Bodies.moveLast(i)
	w.slots[h.Index].dense = -1
	w.freeSlot = append(w.freeSlot, h.Index)
	// The last body moved to i: the state the stages keep follows it, so the other pairs keep their
	// warm starts and cached points. Jacobi, the solver the GPU backend shares, drops its contacts
	// instead, as the device does for Jacobi on a removal (Edits.Moves, RenamesContacts), so that the CPU's Jacobi step stays the device's bit for bit (gpu's TestEmulatedEdits).
	renames := SolverOf(w.settings.Solver).traits().renamesContacts
	for _, k := range w.pipe.keepers() {
		k.removeBody(i, last, renames)
	}
	if w.backend != nil {
		w.edits.Removed = true
		w.edits.Moves = append(w.edits.Moves, Move{Index: int32(i), Last: int32(last)})
	}
	w.edited(i)
	return nil
}

// Index returns the dense index of a live body (its entry in Bodies), or false for a stale handle.
func (w *World) Index(h Handle) (int, bool) { return w.dense(h) }

func (w *World) dense(h Handle) (int, bool) {
	if h.Gen == 0 || int(h.Index) >= len(w.slots) {
		return 0, false
	}
	s := w.slots[h.Index]
	if s.gen != h.Gen || s.dense < 0 {
		return 0, false
	}
	return int(s.dense), true
}

// HandleAt returns the handle of the body at dense index i.
func (w *World) HandleAt(i int) Handle {
	si := w.Bodies.handle[i]
	return Handle{Index: si, Gen: w.slots[si].gen}
}

// Find returns the handle of the body with the given name.
func (w *World) Find(name string) (Handle, bool) {
	si, ok := w.names[name]
	if !ok {
		return Handle{}, false
	}
	return Handle{Index: uint32(si), Gen: w.slots[si].gen}, true
}

// SetVelocity sets a body's linear and angular velocity (world frame).
func (w *World) SetVelocity(h Handle, v, omega Vec3) error {
	i, ok := w.dense(h)
	if !ok {
		return ErrStale
	}
	w.beforeEdit()
	w.edited(i)
	w.Bodies.Velocity[i], w.Bodies.AngularVelocity[i] = v, omega
	w.wakeIndex(i)
	return nil
}

// SetPose teleports a body.
func (w *World) SetPose(h Handle, p Vec3, q Quat) error {
	i, ok := w.dense(h)
	if !ok {
		return ErrStale
	}
	w.beforeEdit()
	w.edited(i)
	q = identityIfZero(q)
	w.Bodies.Position[i], w.Bodies.Rotation[i] = p, q
	w.Bodies.InvInertiaWorld[i] = worldInertia(q, w.Bodies.InvInertiaLocal[i])
	w.wakeIndex(i)
	return nil
}

// BlowUpError reports a body whose state became non-finite or ran away during a step.
type BlowUpError struct {
	Body  string // the body's name
	Step  int    // the step that produced it
	What  string // which quantity, e.g. "position"
	Value Vec3
}

// Error names the body, the step and the quantity that went bad.
func (e *BlowUpError) Error() string {
	return fmt.Sprintf("step %d: body %q blew up: %s = %v", e.Step, e.Body, e.What, e.Value)
}

// BVHLevel appends to out the boxes of the broad phase's tree at depth d (0 is the root), as of its
// last query, for debug drawing: its leaves are the bodies' boxes grown by FatMargin, and a step that
// kept the pairs (Stats.PairsKept) leaves the tree as it was. It appends nothing when the broad phase
// is not the LBVH or has not run. BVHDepth is the number of levels below the root.
func (w *World) BVHLevel(d int, out []geom.AABB) []geom.AABB {
	if t, ok := w.pipe.broad.phase.(*bvh.LBVH); ok {
		return t.LevelBoxes(d, out)
	}
	return out
}

// BVHDepth returns the depth of the broad phase's tree as of its last query (0 when it is not the
// LBVH, or before its first query).
func (w *World) BVHDepth() int {
	if t, ok := w.pipe.broad.phase.(*bvh.LBVH); ok {
		return t.Depth()
	}
	return 0
}
