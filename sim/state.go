package sim

import (
	"errors"
	"fmt"
	"runtime"
)

// State is everything a World's next CPU step reads, captured between two steps: the bodies (poses,
// velocities, masses, materials, world inertia, sleeping state and island labels, handles), the
// joints with their accumulated impulses, last step's contact manifolds (the warm-start cache), the
// step count and time, the settings, and the sleeping bookkeeping. Restoring it into a World and
// stepping gives, bit for bit, what stepping the World it was saved from gives, for any number of
// workers (the CPU stages' results do not depend on it).
//
// What a State leaves out cannot change a step: the broad phase's tree or sweep order (its pairs are
// sorted and the same for any tree over the same boxes), and the per-step scratch the stages rebuild
// from the bodies (bounds, colours, adjacency, XPBD's sub-step poses).
type State struct {
	stepCount   int
	time        float64
	user        Settings
	bodies      Bodies
	slots       []slot
	freeSlot    []uint32
	joints      []joint
	jointSerial uint64
	clusters    []cluster
	members     []clusterMember
	prev        []manifold
	rot         []Mat3
	nextLabel   uint32
	wakeLabels  []uint32
}

// StepCount is the World's StepCount when the state was saved.
func (s *State) StepCount() int { return s.stepCount }

// Len is the number of bodies in the state.
func (s *State) Len() int { return s.bodies.Len() }

// Bodies is the state's body arrays; callers must not modify them.
func (s *State) Bodies() *Bodies { return &s.bodies }

// Settings are the settings as given when the state was saved.
func (s *State) Settings() Settings { return s.user }

// Bytes estimates the memory the state holds, in bytes.
func (s *State) Bytes() int {
	n := 0
	for _, name := range s.bodies.Name {
		n += len(name) + 16
	}
	b := &s.bodies
	n += len(podBytes(b.Type)) + len(podBytes(b.Shape)) + len(podBytes(b.Position)) + len(podBytes(b.Rotation))
	n += len(podBytes(b.Velocity)) + len(podBytes(b.AngularVelocity)) + len(podBytes(b.Mass)) + len(podBytes(b.InvMass))
	n += len(podBytes(b.InvInertiaLocal)) + len(podBytes(b.InvInertiaWorld)) + len(podBytes(b.Friction))
	n += len(podBytes(b.Restitution)) + len(podBytes(b.RollingResistance)) + len(podBytes(b.SpinningResistance))
	n += len(podBytes(b.Asleep)) + len(podBytes(b.SleepTime))
	n += len(podBytes(b.island)) + len(podBytes(b.handle))
	n += len(podBytes(s.slots)) + len(podBytes(s.freeSlot)) + len(podBytes(s.joints)) + len(podBytes(s.prev))
	n += len(podBytes(s.rot)) + len(podBytes(s.wakeLabels))
	n += len(podBytes(s.clusters)) + len(podBytes(s.members))
	return n
}

// ErrStateBackend is returned by SaveState and RestoreState on a World stepped by a backend other
// than the CPU stages: such a backend keeps its contact and joint impulses (the warm-start cache) in
// its own memory, where a State cannot capture them.
var ErrStateBackend = errors.New("state capture needs the CPU backend: this backend keeps the contact and joint impulses it warm starts from in its own memory")

// SaveState copies the world's state into s, reusing s's slices. With a backend it fails with an
// error wrapping ErrStateBackend that names the backend (after syncing the bodies, so the World
// itself stays readable).
func (w *World) SaveState(s *State) error {
	if w.backend != nil {
		if err := w.Sync(); err != nil {
			return err
		}
		return fmt.Errorf("%s: %w", w.backend.Name(), ErrStateBackend)
	}
	s.stepCount, s.time, s.user = w.StepCount, w.Time, w.user
	copyBodies(&s.bodies, &w.Bodies)
	s.slots = append(s.slots[:0], w.slots...)
	s.freeSlot = append(s.freeSlot[:0], w.freeSlot...)
	s.joints = append(s.joints[:0], w.joints...)
	s.jointSerial = w.jointSerial
	s.clusters = append(s.clusters[:0], w.clusters...)
	s.members = append(s.members[:0], w.members...)
	s.rot = append(s.rot[:0], w.Bodies.rot...)
	for _, k := range w.pipe.keepers() {
		k.saveState(s)
	}
	return nil
}

// RestoreState makes the world the one s was saved from, with its settings; the world's worker
// count is kept (it does not change results; see SetWorkers). With a backend it fails with an error
// wrapping ErrStateBackend and leaves the world as it was.
func (w *World) RestoreState(s *State) error {
	if w.backend != nil {
		return fmt.Errorf("%s: %w", w.backend.Name(), ErrStateBackend)
	}
	if err := s.check(); err != nil {
		return err
	}
	workers := w.user.Workers
	w.StepCount, w.Time = s.stepCount, s.time
	w.user = s.user
	w.user.Workers = workers
	w.settings = w.user.resolved()
	w.ensurePool()
	copyBodies(&w.Bodies, &s.bodies)
	w.slots = append(w.slots[:0], s.slots...)
	w.freeSlot = append(w.freeSlot[:0], s.freeSlot...)
	w.joints = append(w.joints[:0], s.joints...)
	w.jointSerial = s.jointSerial
	w.clusters = append(w.clusters[:0], s.clusters...)
	w.members = append(w.members[:0], s.members...)
	w.Bodies.rot = append(w.Bodies.rot[:0], s.rot...)
	for _, k := range w.pipe.keepers() {
		k.restoreState(s)
	}
	if w.names == nil {
		w.names = map[string]int32{}
	}
	clear(w.names)
	for i, name := range w.Bodies.Name {
		w.names[name] = int32(w.Bodies.handle[i])
	}
	w.Broken = w.Broken[:0]
	w.edits = Edits{All: true}
	w.stale, w.backendErr, w.forcesRead = false, nil, false
	w.invalidateQueries()
	w.jointsChanged()
	return nil
}

// SetWorkers sets the number of CPU worker goroutines (0: one per CPU) without touching anything
// else: unlike SetSettings it wakes no body, so a determinism check can re-run a saved state with
// another worker count and compare.
func (w *World) SetWorkers(n int) {
	w.user.Workers = n
	w.settings = w.user.resolved()
	w.ensurePool()
}

// ensurePool makes the worker pool match the resolved worker count.
func (w *World) ensurePool() {
	if w.pipe.work.pool == nil || w.pipe.work.workers != w.settings.Workers {
		w.pipe.work.pool.close()
		w.pipe.work.pool = newPool(w.settings.Workers)
		w.pipe.work.workers = w.settings.Workers
		// The worker goroutines hold no reference to the world; stop them when it is collected.
		runtime.AddCleanup(w, func(p *pool) { p.close() }, w.pipe.work.pool)
		w.pipe.work.pool.setGrains(w.opts.Grains)
	}
}

// check verifies that the state's arrays agree with each other (a decoded state may not), so that
// restoring it cannot index out of range.
func (s *State) check() error {
	b := &s.bodies
	n := b.Len()
	for _, l := range []int{len(b.Name), len(b.Type), len(b.Shape), len(b.Rotation), len(b.Velocity),
		len(b.AngularVelocity), len(b.Mass), len(b.InvMass), len(b.InvInertiaLocal), len(b.InvInertiaWorld),
		len(b.Friction), len(b.Restitution), len(b.RollingResistance), len(b.SpinningResistance), len(b.Asleep), len(b.SleepTime), len(b.island), len(b.handle)} {
		if l != n {
			return fmt.Errorf("state: body arrays of different lengths (%d and %d)", n, l)
		}
	}
	names := make(map[string]bool, n)
	for i, si := range b.handle {
		if int(si) >= len(s.slots) || s.slots[si].dense != int32(i) {
			return fmt.Errorf("state: body %d: handle slot %d does not point back at it", i, si)
		}
		if names[b.Name[i]] {
			return fmt.Errorf("state: body %d: duplicate name %q", i, b.Name[i])
		}
		names[b.Name[i]] = true
		if b.Type[i] > Static {
			return fmt.Errorf("state: body %d: type %d", i, b.Type[i])
		}
	}
	for _, f := range s.freeSlot {
		if int(f) >= len(s.slots) || s.slots[f].dense != -1 {
			return fmt.Errorf("state: free slot %d is not free", f)
		}
	}
	for k, m := range s.prev {
		if m.a < 0 || m.b < 0 || int(m.a) >= n || int(m.b) >= n || m.count < 0 || m.count > 4 {
			return fmt.Errorf("state: manifold %d: bodies %d, %d (of %d), %d points", k, m.a, m.b, n, m.count)
		}
	}
	live := func(h Handle) bool {
		return h.Gen != 0 && int(h.Index) < len(s.slots) && s.slots[h.Index].gen == h.Gen && s.slots[h.Index].dense >= 0
	}
	for k, j := range s.joints {
		if !live(j.def.BodyA) || (j.def.BodyB != (Handle{}) && !live(j.def.BodyB)) || j.def.Type > Fixed {
			return fmt.Errorf("state: joint %d names a body that is not there", k)
		}
	}
	for k, c := range s.clusters {
		if c.first < 0 || c.count < 2 || int(c.first)+int(c.count) > len(s.members) {
			return fmt.Errorf("state: cluster %d: members %d+%d of %d", k, c.first, c.count, len(s.members))
		}
		for _, m := range s.members[c.first : c.first+c.count] {
			if !live(m.body) {
				return fmt.Errorf("state: cluster %d names a body that is not there", k)
			}
		}
	}
	return nil
}

// copyBodies makes dst a deep copy of src, reusing dst's slices.
func copyBodies(dst, src *Bodies) {
	dst.Name = append(dst.Name[:0], src.Name...)
	dst.Type = append(dst.Type[:0], src.Type...)
	dst.Shape = append(dst.Shape[:0], src.Shape...)
	dst.Position = append(dst.Position[:0], src.Position...)
	dst.Rotation = append(dst.Rotation[:0], src.Rotation...)
	dst.Velocity = append(dst.Velocity[:0], src.Velocity...)
	dst.AngularVelocity = append(dst.AngularVelocity[:0], src.AngularVelocity...)
	dst.Mass = append(dst.Mass[:0], src.Mass...)
	dst.InvMass = append(dst.InvMass[:0], src.InvMass...)
	dst.InvInertiaLocal = append(dst.InvInertiaLocal[:0], src.InvInertiaLocal...)
	dst.InvInertiaWorld = append(dst.InvInertiaWorld[:0], src.InvInertiaWorld...)
	dst.Friction = append(dst.Friction[:0], src.Friction...)
	dst.Restitution = append(dst.Restitution[:0], src.Restitution...)
	dst.RollingResistance = append(dst.RollingResistance[:0], src.RollingResistance...)
	dst.SpinningResistance = append(dst.SpinningResistance[:0], src.SpinningResistance...)
	dst.Asleep = append(dst.Asleep[:0], src.Asleep...)
	dst.SleepTime = append(dst.SleepTime[:0], src.SleepTime...)
	dst.island = append(dst.island[:0], src.island...)
	dst.handle = append(dst.handle[:0], src.handle...)
}

// ShowBody sets body i's pose and velocities as a recording shows them (a timeline scrubbing). The
// world's warm-start cache and sleeping state are left as they were, so stepping from here is not
// what the recorded run did: restore a State to go on exactly.
func (w *World) ShowBody(i int, p Vec3, q Quat, v, omega Vec3) {
	b := &w.Bodies
	b.Position[i], b.Rotation[i], b.Velocity[i], b.AngularVelocity[i] = p, q, v, omega
	b.InvInertiaWorld[i] = worldInertia(q, b.InvInertiaLocal[i])
	w.edited(i)
}
