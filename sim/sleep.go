package sim

import "tumble/sim/geom"

// Sleeping (Settings.Sleep). At the end of a step the dynamic bodies are grouped into islands: two
// bodies are in one island when a touching contact or a joint connects them (static and kinematic
// bodies connect nothing). An island all of whose bodies have been at rest for Settings.SleepTime
// falls asleep: its velocities are zeroed and its bodies marked Asleep.
//
// A sleeping body is left out of the next steps' work: the broad phase treats it as resting (so it
// makes no pairs with other sleeping or static bodies), and it is neither integrated nor moved by the
// solver. It wakes, with its rest time reset, when:
//   - an awake dynamic body touches it (a contact between the two after the narrow phase), or a joint
//     ties it to an awake dynamic body: it is solved in that same step;
//   - a moving kinematic body's box overlaps its box;
//   - the program edits it (SetVelocity, SetPose), adds or removes a joint on it, removes a body whose
//     box overlaps it, or changes the settings (every body wakes).
//
// Waking spreads through a sleeping pile one contact per step: the contacts between two sleeping bodies
// are not computed, so a woken body's sleeping neighbours wake on the next step, when its contacts with
// them appear. Their warm-start impulses are gone, so a woken pile starts its solve cold.

// sleepSpeed is the speed, m/s, under which a body counts as at rest: its linear speed plus its angular
// speed times its bounding radius (Box2D v3 uses 0.05 m/s as well).
const sleepSpeed = 0.05

// wakeIndex wakes body i and restarts its rest time.
func (w *World) wakeIndex(i int) {
	b := &w.Bodies
	b.Asleep[i] = false
	b.SleepTime[i] = 0
}

// Wake wakes a body (and restarts its rest time); it reports false for a stale handle.
func (w *World) Wake(h Handle) bool {
	i, ok := w.dense(h)
	if ok {
		w.wakeIndex(i)
	}
	return ok
}

// wakeAll wakes every body.
func (w *World) wakeAll() {
	b := &w.Bodies
	clear(b.Asleep)
	clear(b.SleepTime)
}

// wakeOverlapping wakes the sleeping bodies whose boxes overlap box.
func (w *World) wakeOverlapping(box geom.AABB) {
	b := &w.Bodies
	for i := range b.Asleep {
		if b.Asleep[i] && box.Overlaps(b.Shape[i].Bounds(geom.Pose{P: b.Position[i], Q: b.Rotation[i]})) {
			w.wakeIndex(i)
		}
	}
}

// wakeTouched runs after the narrow phase: it wakes the sleeping bodies that touch an awake dynamic
// body or a moving kinematic body, or are jointed to an awake dynamic body (through chains of joints).
func (w *World) wakeTouched() {
	b := &w.Bodies
	p := &w.pipe
	awake := func(i int32) bool { return i >= 0 && b.Type[i] == Dynamic && !b.Asleep[i] }
	for k := range p.manifolds {
		m := &p.manifolds[k]
		if m.count == 0 {
			continue
		}
		if b.Asleep[m.a] && awake(m.b) {
			w.wakeIndex(int(m.a))
		} else if b.Asleep[m.b] && awake(m.a) {
			w.wakeIndex(int(m.b))
		}
	}
	for i := range b.Type {
		if b.Type[i] == Kinematic && (b.Velocity[i] != Vec3{} || b.AngularVelocity[i] != Vec3{}) {
			box := p.boxes[i]
			for j := range b.Asleep {
				if b.Asleep[j] && box.Overlaps(p.boxes[j]) {
					w.wakeIndex(j)
				}
			}
		}
	}
	for changed := len(w.joints) > 0; changed; {
		changed = false
		for k := range w.joints {
			j := &w.joints[k]
			if j.b < 0 {
				continue
			}
			if b.Asleep[j.a] && awake(j.b) {
				w.wakeIndex(int(j.a))
				changed = true
			} else if b.Asleep[j.b] && awake(j.a) {
				w.wakeIndex(int(j.b))
				changed = true
			}
		}
	}
}

// keepSleepers remembers the sleeping bodies' poses before the solve, and restoreSleepers puts them
// back after it: a joint between two sleeping bodies is still solved, and XPBD's corrections move
// poses directly, but a sleeping body must not move.
func (w *World) keepSleepers() {
	b := &w.Bodies
	p := &w.pipe
	p.sleepers = p.sleepers[:0]
	for i, a := range b.Asleep {
		if a {
			p.sleepers = append(p.sleepers, sleeper{int32(i), b.Position[i], b.Rotation[i]})
		}
	}
}

func (w *World) restoreSleepers() {
	b := &w.Bodies
	for _, s := range w.pipe.sleepers {
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
func (w *World) updateSleep() {
	b := &w.Bodies
	p := &w.pipe
	n := b.Len()
	p.island = resize(p.island, n)
	for i := range p.island {
		p.island[i] = int32(i)
	}
	dyn := func(i int32) bool { return i >= 0 && b.Type[i] == Dynamic }
	moving := func(i int32) bool {
		return i >= 0 && b.Type[i] == Kinematic && (b.Velocity[i] != Vec3{} || b.AngularVelocity[i] != Vec3{})
	}
	for k := range p.prev { // this step's manifolds (swapped into prev at the end of the step)
		m := &p.prev[k]
		if m.count == 0 {
			continue
		}
		switch {
		case dyn(m.a) && dyn(m.b):
			p.union(m.a, m.b)
		case dyn(m.a) && moving(m.b):
			b.SleepTime[m.a] = 0
		case dyn(m.b) && moving(m.a):
			b.SleepTime[m.b] = 0
		}
	}
	for k := range w.joints {
		if j := &w.joints[k]; dyn(j.a) && dyn(j.b) {
			p.union(j.a, j.b)
		}
	}
	// The least rest time per island, kept at its root.
	p.islandRest = resize(p.islandRest, n)
	for i := range p.islandRest {
		p.islandRest[i] = float32(1e30)
	}
	for i := 0; i < n; i++ {
		if b.Type[i] == Dynamic && !b.Asleep[i] {
			r := p.find(int32(i))
			p.islandRest[r] = min(p.islandRest[r], b.SleepTime[i])
		}
	}
	asleep := 0
	for i := 0; i < n; i++ {
		if b.Type[i] != Dynamic {
			continue
		}
		if !b.Asleep[i] && p.islandRest[p.find(int32(i))] >= w.settings.SleepTime {
			b.Asleep[i] = true
			b.Velocity[i], b.AngularVelocity[i] = Vec3{}, Vec3{}
		}
		if b.Asleep[i] {
			asleep++
		}
	}
	w.Stats.Asleep = asleep
}

// find returns the root of i's island, halving the path as it goes.
func (p *pipeline) find(i int32) int32 {
	for p.island[i] != i {
		p.island[i] = p.island[p.island[i]]
		i = p.island[i]
	}
	return i
}

// union joins the islands of a and b; the smaller index becomes the root, so the result does not
// depend on the order of the unions.
func (p *pipeline) union(a, b int32) {
	ra, rb := p.find(a), p.find(b)
	if ra < rb {
		p.island[rb] = ra
	} else if rb < ra {
		p.island[ra] = rb
	}
}
