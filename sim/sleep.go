package sim

import (
	"slices"

	"tumble/sim/geom"
)

// Sleeping (Settings.Sleep). At the end of a step the dynamic bodies are grouped into islands: two
// bodies are in one island when a touching contact or a joint connects them (static and kinematic
// bodies connect nothing). An island all of whose bodies have been at rest for Settings.SleepTime
// falls asleep: its velocities are zeroed and its bodies marked Asleep.
//
// A sleeping body is left out of the next steps' work: the broad phase treats it as resting (so it
// makes no pairs with other sleeping or static bodies), and it is neither integrated nor moved by the
// solver. Its island wakes whole, every body's rest time reset, when one of its bodies:
//   - is touched by an awake dynamic body (a contact between the two after the narrow phase), or is
//     tied by a joint to one;
//   - is reached by a moving kinematic body's box;
//   - is edited by the program (SetVelocity, SetPose, Wake), gains or loses a joint, or overlaps a body
//     being removed; a change of settings wakes every body.
//
// An island woken by contact is solved in that same step: the collision stages run again with its
// bodies moving, so its contacts are there (Step allows maxWakeRounds rounds). A sleeping island's
// contacts are kept for Contacts only (as they were when it fell asleep: it has not moved since), not
// for the solver, so a woken island starts its solve without warm-start impulses (a woken pyramid of
// 385 boxes moves 0.14 mm over the next 2 s).

// sleepSpeed is the speed, m/s, under which a body counts as at rest: its linear speed plus its angular
// speed times its bounding radius (Box2D v3 uses 0.05 m/s as well).
const sleepSpeed = 0.05

// SleepSpeed is sleepSpeed, for a backend that counts rest times itself.
const SleepSpeed = sleepSpeed

// IslandLabel returns the label of body i's sleeping island, 0 while it is awake: bodies with one
// label wake together. It is for a backend that keeps sleeping itself (Backend.Pull).
func (b *Bodies) IslandLabel(i int) uint32 { return b.island[i] }

// SetSleep sets body i's sleeping state as a backend that keeps sleeping itself found it (Backend.Pull):
// label is its sleeping island's label (0: awake) and rest its time at rest, seconds.
func (b *Bodies) SetSleep(i int, label uint32, rest float32) {
	b.Asleep[i], b.island[i], b.SleepTime[i] = label != 0, label, rest
}

// claimLabels keeps the next island label past every label a body holds: labels a backend gave
// (Pull, through SetSleep) must not be given again to another island, whose waking would wake theirs.
func (w *World) claimLabels() {
	for _, l := range w.Bodies.island {
		w.pipe.sleep.nextLabel = max(w.pipe.sleep.nextLabel, l)
	}
}

// maxWakeRounds bounds how many times a step runs its collision stages because islands woke.
const maxWakeRounds = 4

// MaxWakeRounds is maxWakeRounds, for a backend that wakes islands itself.
const MaxWakeRounds = maxWakeRounds

// markWake wakes body i, restarts its rest time, and queues its island for flushWakes.
func (w *World) markWake(i int) {
	b := &w.Bodies
	if b.Asleep[i] && b.island[i] != 0 {
		w.pipe.sleep.wakeLabels = append(w.pipe.sleep.wakeLabels, b.island[i])
		w.pipe.sleep.sleptStale = true
	}
	b.Asleep[i], b.SleepTime[i], b.island[i] = false, 0, 0
}

// flushWakes wakes every body of the islands markWake queued; it reports whether any body woke.
func (w *World) flushWakes() bool {
	p := &w.pipe
	if len(p.sleep.wakeLabels) == 0 {
		return false
	}
	b := &w.Bodies
	for i, a := range b.Asleep {
		if a {
			for _, l := range p.sleep.wakeLabels {
				if b.island[i] == l {
					b.Asleep[i], b.SleepTime[i], b.island[i] = false, 0, 0
					break
				}
			}
		}
	}
	p.sleep.wakeLabels = p.sleep.wakeLabels[:0]
	p.sleep.sleptStale = true
	return true
}

// wakeIndex wakes body i and the rest of its island now.
func (w *World) wakeIndex(i int) {
	w.markWake(i)
	w.flushWakes()
}

// Wake wakes a body and its island (and restarts their rest time); it reports false for a stale
// handle.
func (w *World) Wake(h Handle) bool {
	i, ok := w.dense(h)
	if ok {
		w.beforeEdit()
		w.edited(i)
		w.wakeIndex(i)
	}
	return ok
}

// wakeAll wakes every body.
func (w *World) wakeAll() {
	b := &w.Bodies
	clear(b.Asleep)
	clear(b.SleepTime)
	clear(b.island)
	w.pipe.sleep.slept = w.pipe.sleep.slept[:0]
}

// wakeOverlapping wakes the sleeping bodies whose boxes overlap box, and their islands.
func (w *World) wakeOverlapping(box geom.AABB) {
	b := &w.Bodies
	for i := range b.Asleep {
		if b.Asleep[i] && box.Overlaps(b.Shape[i].Bounds(geom.Pose{P: b.Position[i], Q: b.Rotation[i]})) {
			w.markWake(i)
		}
	}
	w.flushWakes()
}

// wakeTouched runs after the narrow phase: it wakes the islands of the sleeping bodies that touch an
// awake dynamic body (manifolds) or a moving kinematic body (their boxes), or are jointed to an awake
// dynamic body. It reports whether any body woke.
func (w *World) wakeTouched(manifolds []manifold, boxes []geom.AABB) bool {
	b := &w.Bodies
	awake := func(i int32) bool { return i >= 0 && b.Type[i] == Dynamic && !b.Asleep[i] }
	for k := range manifolds {
		m := &manifolds[k]
		if m.count == 0 {
			continue
		}
		if b.Asleep[m.a] && awake(m.b) {
			w.markWake(int(m.a))
		} else if b.Asleep[m.b] && awake(m.a) {
			w.markWake(int(m.b))
		}
	}
	for i := range b.Type {
		if b.Type[i] == Kinematic && (b.Velocity[i] != Vec3{} || b.AngularVelocity[i] != Vec3{}) {
			box := boxes[i]
			for j := range b.Asleep {
				if b.Asleep[j] && box.Overlaps(boxes[j]) {
					w.markWake(j)
				}
			}
		}
	}
	for k := range w.joints {
		j := &w.joints[k]
		if j.b < 0 {
			continue
		}
		if b.Asleep[j.a] && awake(j.b) {
			w.markWake(int(j.a))
		} else if b.Asleep[j.b] && awake(j.a) {
			w.markWake(int(j.b))
		}
	}
	return w.flushWakes()
}

// keepSleepers remembers the sleeping bodies' poses before the solve, and restoreSleepers puts them
// back after it: a joint between two sleeping bodies is still solved, and XPBD's corrections move
// poses directly, but a sleeping body must not move.
func (w *World) keepSleepers() {
	b := &w.Bodies
	p := &w.pipe
	p.sleep.sleepers = p.sleep.sleepers[:0]
	for i, a := range b.Asleep {
		if a {
			p.sleep.sleepers = append(p.sleep.sleepers, sleeper{int32(i), b.Position[i], b.Rotation[i]})
		}
	}
}

func (w *World) restoreSleepers() {
	b := &w.Bodies
	for _, s := range w.pipe.sleep.sleepers {
		b.Position[s.i], b.Rotation[s.i] = s.pos, s.rot
		b.Velocity[s.i], b.AngularVelocity[s.i] = Vec3{}, Vec3{}
	}
}

// sleeper is a sleeping body's pose, kept across the solve.
type sleeper struct {
	i   int32
	pos Vec3
	rot Quat
}

// updateSleep runs at the end of a step with sleeping on: it builds the islands of awake dynamic
// bodies (union-find over touching contacts and joints) and puts to sleep each island whose bodies
// have all rested for SleepTime. A body touching a moving kinematic body does not count as resting.
//
// manifolds are this step's contacts, and matched says the plan matches shapes (StageShapeMatch).
func (w *World) updateSleep(manifolds []manifold, matched bool) {
	b := &w.Bodies
	p := &w.pipe
	n := b.Len()
	p.sleep.island.reset(n)
	dyn := func(i int32) bool { return i >= 0 && b.Type[i] == Dynamic }
	moving := func(i int32) bool {
		return i >= 0 && b.Type[i] == Kinematic && (b.Velocity[i] != Vec3{} || b.AngularVelocity[i] != Vec3{})
	}
	for k := range manifolds {
		m := &manifolds[k]
		if m.count == 0 {
			continue
		}
		switch {
		case dyn(m.a) && dyn(m.b):
			p.sleep.island.union(m.a, m.b)
		case dyn(m.a) && moving(m.b):
			b.SleepTime[m.a] = 0
		case dyn(m.b) && moving(m.a):
			b.SleepTime[m.b] = 0
		}
	}
	for k := range w.joints {
		if j := &w.joints[k]; dyn(j.a) && dyn(j.b) {
			p.sleep.island.union(j.a, j.b)
		}
	}
	// A shape-matching cluster rests and wakes as one where the plan matches shapes (which ties its
	// members).
	if matched {
		for _, c := range w.clusters {
			first := int32(-1)
			for _, m := range w.members[c.first : c.first+c.count] {
				if i, ok := w.dense(m.body); ok && dyn(int32(i)) {
					if first < 0 {
						first = int32(i)
					} else {
						p.sleep.island.union(first, int32(i))
					}
				}
			}
		}
	}
	// The least rest time per island, kept at its root.
	p.sleep.islandRest = resize(p.sleep.islandRest, n)
	for i := range p.sleep.islandRest {
		p.sleep.islandRest[i] = float32(1e30)
	}
	for i := 0; i < n; i++ {
		if b.Type[i] == Dynamic && !b.Asleep[i] {
			r := p.sleep.island.find(int32(i))
			p.sleep.islandRest[r] = min(p.sleep.islandRest[r], b.SleepTime[i])
		}
	}
	p.sleep.islandLabel = resize(p.sleep.islandLabel, n)
	clear(p.sleep.islandLabel)
	w.pruneSlept()
	fell := false
	asleep := 0
	for i := 0; i < n; i++ {
		if b.Type[i] != Dynamic {
			continue
		}
		if r := p.sleep.island.find(int32(i)); !b.Asleep[i] && p.sleep.islandRest[r] >= w.settings.SleepTime {
			if p.sleep.islandLabel[r] == 0 {
				p.sleep.nextLabel++
				if p.sleep.nextLabel == 0 { // wrapped: labels in use are unique enough, 0 is not a label
					p.sleep.nextLabel = 1
				}
				p.sleep.islandLabel[r] = p.sleep.nextLabel
			}
			b.Asleep[i], b.island[i] = true, p.sleep.islandLabel[r]
			b.Velocity[i], b.AngularVelocity[i] = Vec3{}, Vec3{}
			fell = true
		}
		if b.Asleep[i] {
			asleep++
		}
	}
	w.Stats.Asleep = asleep
	if fell {
		w.keepSleptContacts(manifolds)
	}
}

// sleptContact is one contact point of a sleeping island (pipeline.slept), with the island's label.
type sleptContact struct {
	ContactPoint
	label uint32
}

// keepSleptContacts adds the contacts of the islands that fell asleep this step (labelled in
// islandLabel by updateSleep) to the sleep stage's slept, from this step's manifolds.
func (w *World) keepSleptContacts(manifolds []manifold) {
	b := &w.Bodies
	p := &w.pipe
	newly := func(i int32) uint32 {
		if b.Type[i] != Dynamic || !b.Asleep[i] || p.sleep.islandLabel[p.sleep.island.find(i)] != b.island[i] {
			return 0
		}
		return b.island[i]
	}
	for k := range manifolds {
		m := &manifolds[k]
		if m.count == 0 {
			continue
		}
		l := newly(m.a)
		if l == 0 {
			l = newly(m.b)
		}
		if l == 0 {
			continue
		}
		p.sleep.sleptScratch = manifoldContacts(p.sleep.sleptScratch[:0], b, m)
		for _, c := range p.sleep.sleptScratch {
			p.sleep.slept = append(p.sleep.slept, sleptContact{c, l})
		}
	}
}

// stillAsleep says whether a kept contact's island still sleeps: its dynamic bodies are asleep under
// its label.
func (c *sleptContact) stillAsleep(b *Bodies) bool {
	for _, i := range [2]int{c.BodyA, c.BodyB} {
		if i >= b.Len() {
			return false
		}
		if b.Type[i] == Dynamic && (!b.Asleep[i] || b.island[i] != c.label) {
			return false
		}
	}
	return true
}

// pruneSlept drops the kept contacts of islands that woke (if any did since the last time: a world
// asleep costs nothing here).
func (w *World) pruneSlept() {
	p := &w.pipe
	if !p.sleep.sleptStale {
		return
	}
	p.sleep.sleptStale = false
	b := &w.Bodies
	p.sleep.slept = slices.DeleteFunc(p.sleep.slept, func(c sleptContact) bool { return !c.stillAsleep(b) })
}

// appendContacts appends the sleeping islands' kept contacts whose islands still sleep, all of them
// (body < 0) or those body takes part in, as Contacts lists them.
func (s *sleepStage) appendContacts(b *Bodies, body int, out []ContactPoint) []ContactPoint {
	for k := range s.slept {
		if c := &s.slept[k]; (body < 0 || c.BodyA == body || c.BodyB == body) && c.stillAsleep(b) {
			out = append(out, c.ContactPoint)
		}
	}
	return out
}

// saveState copies the sleeping bookkeeping into st: the next island label and the islands to wake.
// The kept contacts are left out: they serve Contacts only.
func (s *sleepStage) saveState(st *State) {
	st.nextLabel = s.nextLabel
	st.wakeLabels = append(st.wakeLabels[:0], s.wakeLabels...)
}

// restoreState makes the sleeping bookkeeping st's. The kept contacts go (Contacts lists a restored
// sleeping island's contacts again once it wakes and sleeps again).
func (s *sleepStage) restoreState(st *State) {
	s.slept = s.slept[:0]
	s.nextLabel = st.nextLabel
	s.wakeLabels = append(s.wakeLabels[:0], st.wakeLabels...)
}

// removeBody drops body i's kept contacts after the last body moved into i, and renames the moved
// body's (last becoming i) whatever renames says: they are points for Contacts, not warm starts, so
// a settled pyramid's contacts do not vanish from the view when a body elsewhere is removed.
func (s *sleepStage) removeBody(i, last int, _ bool) {
	s.slept = slices.DeleteFunc(s.slept, func(c sleptContact) bool { return c.BodyA == i || c.BodyB == i })
	for k := range s.slept {
		c := &s.slept[k]
		if c.BodyA == last {
			c.BodyA = i
		}
		if c.BodyB == last {
			c.BodyB = i
		}
	}
}

// forget drops the kept contacts.
func (s *sleepStage) forget() { s.slept = s.slept[:0] }

// unionFind is a union-find over bodies: each entry is its body's parent, a root its own.
type unionFind []int32

// reset makes every one of n bodies an island of its own.
func (u *unionFind) reset(n int) {
	*u = resize(*u, n)
	for i := range *u {
		(*u)[i] = int32(i)
	}
}

// find returns the root of i's island, halving the path as it goes.
func (u unionFind) find(i int32) int32 {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

// union joins the islands of a and b; the smaller index becomes the root, so the result does not
// depend on the order of the unions.
func (u unionFind) union(a, b int32) {
	ra, rb := u.find(a), u.find(b)
	if ra < rb {
		u[rb] = ra
	} else if rb < ra {
		u[ra] = rb
	}
}

// sleepStage is the Sleep stage's: the union-find over islands, and what sleeping islands keep.
type sleepStage struct {
	// sleeping
	sleepers []sleeper // sleeping bodies' poses, kept across the solve
	// slept are the contacts of sleeping islands as they were when each fell asleep, for Contacts:
	// a sleeping island's pairs make no manifolds, but it has not moved, so they still hold.
	slept        []sleptContact
	sleptStale   bool // a body woke since slept was last pruned
	sleptScratch []ContactPoint
	island       unionFind // the islands of awake bodies
	islandRest   []float32 // least rest time per island root
	islandLabel  []uint32  // label given to a sleeping island, per root
	nextLabel    uint32
	wakeLabels   []uint32 // islands to wake whole (flushWakes)
}
