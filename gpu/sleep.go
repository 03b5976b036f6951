package gpu

import (
	"fmt"

	"tumble/sim"
)

// sleepThreads is the block size of sleep.cu's launches.
const sleepThreads = 256

// Operations of tb_sleep_ends (TB_SLEEP_ENDS_INIT, _ROOTS, _LABEL).
const (
	sleepEndsInit int32 = iota
	sleepEndsRoots
	sleepEndsLabel
)

// sleepStage is sleeping's bookkeeping on the device (kernels/sleep.cu): the awake dynamic bodies' rest
// times, the islands of the step's touching contacts and joints, and the decision that puts an island
// to sleep (run), as sim's finishStep and updateSleep make them, and the waking of the islands an awake
// or moving body reaches (wake), as sim's wakeTouched and flushWakes; all launches, with no read-back.
// The rest times and labels live across steps; the union-find's arrays are the step's.
type sleepStage struct {
	rest    buffer // float32 per body: seconds at rest (sim.Bodies.SleepTime)
	asleep  buffer // uint32 per body: its sleeping island's label, 0 while awake
	parent  buffer // int32 per body: union-find parent, then its island's root (lowest index)
	restMin buffer // uint32 per body: at a root, its island's least awake rest time, as float bits
	label   buffer // uint32 per body: at a root, the label its island falls asleep under (0: stays awake)
	next    buffer // uint32: the last label given
	// waking
	marked buffer // uint32 per body: marked to wake (cleared by the flush)
	seen   buffer // uint32 per body: a label listed in woken, at slot label % n (cleared by the flush)
	woken  buffer // uint32 per body: the labels of the islands to wake, nWoken of them
	counts buffer // uint32: nWoken, then the bodies woken since counts was last cleared
	idx    buffer // int32: pushed's staging of the bodies pushed
	n      int
}

// reserve makes room for n bodies, keeping the first keep bodies' rest times and labels (a
// device-to-device copy when a buffer grows); a body past keep starts awake with no rest time.
func (s *sleepStage) reserve(d device, n, keep int) error {
	keep = min(keep, s.n, n)
	for _, b := range []*buffer{&s.rest, &s.asleep} {
		if b.bytes < 4*n || b.p == 0 {
			old := *b
			*b = buffer{}
			if err := grow(d, b, 4*max(n, 1)); err != nil {
				return fmt.Errorf("gpu: sleeping: %d bodies: %w", n, err)
			}
			if old.p != 0 {
				if keep > 0 {
					if err := d.copy(b.p, old.p, 4*keep); err != nil {
						return err
					}
				}
				d.free(old.p)
			}
		}
		if n > keep {
			if err := d.zero(b.at(keep, 4), 4*(n-keep)); err != nil {
				return err
			}
		}
	}
	fresh := s.marked.bytes < 4*n || s.marked.p == 0 || s.seen.bytes < 4*n || s.seen.p == 0 || n != s.n
	for _, b := range []*buffer{&s.parent, &s.restMin, &s.label, &s.marked, &s.seen, &s.woken} {
		if err := grow(d, b, 4*max(n, 1)); err != nil {
			return fmt.Errorf("gpu: sleeping: %d bodies: %w", n, err)
		}
	}
	if fresh { // no marks yet (the flush clears them after each use; a new n moves the slots)
		if err := d.zero(s.marked.p, s.marked.bytes); err != nil {
			return err
		}
		if err := d.zero(s.seen.p, s.seen.bytes); err != nil {
			return err
		}
	}
	if s.next.p == 0 {
		if err := grow(d, &s.next, 4); err != nil {
			return err
		}
		if err := grow(d, &s.counts, 8); err != nil {
			return err
		}
		if err := d.zero(s.next.p, 4); err != nil {
			return err
		}
	}
	s.n = n
	return nil
}

// sleepInput is what one step's sleep stage reads: the bodies, the narrow phase's contact list and
// the jointed pairs (keys a<<32|b, as narrowStage.setJointed has them).
type sleepInput struct {
	bodies *bodyBuffers
	// awake lists the awake bodies when some body sleeps (nil: none is listed), which the timers, the
	// rest minima, the labels and the decision run over.
	awake                  *awakeList
	contacts, contactCount ptr
	contactCap             int
	jointed                ptr
	nJointed               int
	dt, sleepTime          float32
}

// run launches one step's sleeping at its end, after the bodies' final velocities: the rest times,
// the islands, and the islands that fall asleep (their bodies labelled, their velocities zeroed). With
// an awake list, every per-body kernel runs over it, and the islands' set-up, roots and labels reach
// the sleeping bodies the step's contacts and joints name through tb_sleep_ends: the step's cost
// follows its awake bodies, not the world.
func (s *sleepStage) run(d device, in sleepInput) error {
	n := in.bodies.n
	if n == 0 {
		return nil
	}
	if s.n != n {
		return fmt.Errorf("gpu: sleeping: reserved for %d bodies, stepping %d", s.n, n)
	}
	k := kernelSet{d}
	bb := in.bodies
	var list, listN ptr
	lg := blocks(n, sleepThreads)
	if in.awake != nil {
		list, listN, lg = in.awake.args(n, sleepThreads)
	}
	if err := k.sleepTimers(lg, sleepThreads, sleepTimersArgs{Vel: bb.vel.p, Omega: bb.omega.p, Shape: bb.shape.p,
		Flags: bb.flags.p, Asleep: s.asleep.p, Rest: s.rest.p, N: int32(n), Dt: in.dt, Speed: sim.SleepSpeed,
		List: list, ListN: listN}); err != nil {
		return err
	}
	ends := func(op int32) error {
		if list == 0 || in.contactCap+in.nJointed == 0 {
			return nil
		}
		return k.sleepEnds(blocks(in.contactCap+in.nJointed, sleepThreads), sleepThreads, sleepEndsArgs{
			Contacts: in.contacts, Count: in.contactCount, Cap: int32(in.contactCap), Jointed: in.jointed,
			NJointed: int32(in.nJointed), Op: op, Flags: bb.flags.p, Parent: s.parent.p, RestMin: s.restMin.p,
			Label: s.label.p, Next: s.next.p, SleepTime: in.sleepTime})
	}
	if err := k.sleepInit(lg, sleepThreads, sleepInitArgs{Parent: s.parent.p, RestMin: s.restMin.p, Label: s.label.p,
		N: int32(n), List: list, ListN: listN}); err != nil {
		return err
	}
	if err := ends(sleepEndsInit); err != nil {
		return err
	}
	if in.contactCap > 0 {
		if err := k.sleepLinkContacts(blocks(in.contactCap, sleepThreads), sleepThreads, sleepLinkContactsArgs{
			Contacts: in.contacts, Count: in.contactCount, Cap: int32(in.contactCap), Vel: bb.vel.p, Omega: bb.omega.p,
			Flags: bb.flags.p, Parent: s.parent.p, Rest: s.rest.p}); err != nil {
			return err
		}
	}
	if in.nJointed > 0 {
		if err := k.sleepLinkJoints(blocks(in.nJointed, sleepThreads), sleepThreads, sleepLinkJointsArgs{
			Jointed: in.jointed, N: int32(in.nJointed), Flags: bb.flags.p, Parent: s.parent.p}); err != nil {
			return err
		}
	}
	if err := k.sleepRoots(lg, sleepThreads, sleepRootsArgs{Parent: s.parent.p, N: int32(n), List: list,
		ListN: listN}); err != nil {
		return err
	}
	if err := ends(sleepEndsRoots); err != nil {
		return err
	}
	if err := k.sleepRestMin(lg, sleepThreads, sleepRestMinArgs{Parent: s.parent.p, Rest: s.rest.p, Flags: bb.flags.p,
		Asleep: s.asleep.p, RestMin: s.restMin.p, N: int32(n), List: list, ListN: listN}); err != nil {
		return err
	}
	if err := k.sleepLabel(lg, sleepThreads, sleepLabelArgs{Parent: s.parent.p, RestMin: s.restMin.p, Flags: bb.flags.p,
		Label: s.label.p, Next: s.next.p, N: int32(n), SleepTime: in.sleepTime, List: list, ListN: listN}); err != nil {
		return err
	}
	if err := ends(sleepEndsLabel); err != nil {
		return err
	}
	return k.sleepDecide(lg, sleepThreads, sleepDecideArgs{Parent: s.parent.p, Label: s.label.p, Flags: bb.flags.p,
		Asleep: s.asleep.p, Vel: bb.vel.p, Omega: bb.omega.p, N: int32(n), List: list, ListN: listN})
}

// wakeInput is what waking reads after the narrow phase: the bodies, the contact list and jointed
// pairs as sleepInput has them, the broad phase's boxes (tbBox per body) and the moving kinematic
// bodies (int32 indices).
type wakeInput struct {
	sleepInput
	boxes      ptr
	kinematic  ptr
	nKinematic int
}

// wake launches the waking of the sleeping islands that an awake body touches or is jointed to, or a
// moving kinematic body's box reaches; the second counter of s.counts is left holding how many bodies
// woke.
func (s *sleepStage) wake(d device, in wakeInput) error {
	n := in.bodies.n
	if n == 0 {
		return nil
	}
	if s.n != n {
		return fmt.Errorf("gpu: sleeping: reserved for %d bodies, waking %d", s.n, n)
	}
	if err := d.zero(s.counts.p, 8); err != nil {
		return err
	}
	k := kernelSet{d}
	flags := in.bodies.flags.p
	nWoken := s.counts.p
	if in.contactCap > 0 {
		if err := k.sleepWakeContacts(blocks(in.contactCap, sleepThreads), sleepThreads, sleepWakeContactsArgs{
			Contacts: in.contacts, Count: in.contactCount, Cap: int32(in.contactCap), Flags: flags, Asleep: s.asleep.p,
			Marked: s.marked.p, Seen: s.seen.p, Woken: s.woken.p, NWoken: nWoken, N: int32(n)}); err != nil {
			return err
		}
	}
	if in.nJointed > 0 {
		if err := k.sleepWakeJoints(blocks(in.nJointed, sleepThreads), sleepThreads, sleepWakeJointsArgs{
			Jointed: in.jointed, NJointed: int32(in.nJointed), Flags: flags, Asleep: s.asleep.p, Marked: s.marked.p,
			Seen: s.seen.p, Woken: s.woken.p, NWoken: nWoken, N: int32(n)}); err != nil {
			return err
		}
	}
	if in.nKinematic > 0 {
		if err := k.sleepWakeKinematic(blocks(n, sleepThreads), sleepThreads, sleepWakeKinematicArgs{
			Boxes: in.boxes, Kinematic: in.kinematic, NKinematic: int32(in.nKinematic), Asleep: s.asleep.p,
			Marked: s.marked.p, Seen: s.seen.p, Woken: s.woken.p, NWoken: nWoken, N: int32(n)}); err != nil {
			return err
		}
	}
	return s.flush(d, in.bodies)
}

// flush launches the waking of the islands marked since the last flush (tb_sleep_wake_flush); the
// second counter of s.counts gains the bodies woken.
func (s *sleepStage) flush(d device, bb *bodyBuffers) error {
	return kernelSet{d}.sleepWakeFlush(blocks(s.n, sleepThreads), sleepThreads, sleepWakeFlushArgs{Asleep: s.asleep.p,
		Flags: bb.flags.p, Rest: s.rest.p, Marked: s.marked.p, Seen: s.seen.p, Woken: s.woken.p, NWoken: s.counts.p,
		Awoke: s.counts.p + 4, N: int32(s.n)})
}

// pushed restarts the rest time of the bodies at the dense indices idx (the program pushed them: an
// impulse, a drag) and wakes the islands of those that sleep, as sim's markWake and flushWakes. idx is
// staged through s.idx.
func (s *sleepStage) pushed(d device, bb *bodyBuffers, idx []int32) error {
	if len(idx) == 0 || s.n == 0 {
		return nil
	}
	if err := grow(d, &s.idx, 4*len(idx)); err != nil {
		return err
	}
	if err := uploadSlice(d, s.idx.p, idx); err != nil {
		return err
	}
	if err := d.zero(s.counts.p, 8); err != nil {
		return err
	}
	if err := (kernelSet{d}).sleepMarkBodies(blocks(len(idx), sleepThreads), sleepThreads, sleepMarkBodiesArgs{
		Idx: s.idx.p, NIdx: int32(len(idx)), Asleep: s.asleep.p, Rest: s.rest.p, Marked: s.marked.p, Seen: s.seen.p,
		Woken: s.woken.p, NWoken: s.counts.p, N: int32(s.n)}); err != nil {
		return err
	}
	return s.flush(d, bb)
}

// put uploads the host's sleeping state of every body (sim.Bodies.Asleep, SleepTime and the island
// labels) and sets the bodies' TB_ASLEEP flags from it. The next label given is past every label in
// use, all of which the host holds.
func (s *sleepStage) put(d device, bb *bodyBuffers, src *sim.Bodies) error {
	n := src.Len()
	if n == 0 || s.n != n {
		return nil
	}
	labels, rest := make([]uint32, n), make([]float32, n)
	last := uint32(0)
	for i := range n {
		if src.Asleep[i] {
			labels[i] = src.IslandLabel(i)
			last = max(last, labels[i])
		}
		rest[i] = src.SleepTime[i]
	}
	if err := uploadSlice(d, s.asleep.p, labels); err != nil {
		return err
	}
	if err := uploadSlice(d, s.rest.p, rest); err != nil {
		return err
	}
	if err := uploadSlice(d, s.next.p, []uint32{last}); err != nil {
		return err
	}
	return kernelSet{d}.sleepFlags(blocks(n, sleepThreads), sleepThreads, sleepFlagsArgs{Asleep: s.asleep.p,
		Flags: bb.flags.p, N: int32(n)})
}

// get downloads the first n bodies' sleeping state into dst (Asleep, SleepTime, the island labels).
func (s *sleepStage) get(d device, dst *sim.Bodies, n int) error {
	n = min(n, s.n)
	if n == 0 {
		return nil
	}
	labels, rest := make([]uint32, n), make([]float32, n)
	if err := downloadSlice(d, labels, s.asleep.p); err != nil {
		return err
	}
	if err := downloadSlice(d, rest, s.rest.p); err != nil {
		return err
	}
	for i := range n {
		dst.SetSleep(i, labels[i], rest[i])
	}
	return nil
}

// still zeroes the sleeping bodies' velocities after the solve (tb_sleep_still).
func (s *sleepStage) still(d device, bb *bodyBuffers) error {
	return kernelSet{d}.sleepStill(blocks(bb.n, sleepThreads), sleepThreads, sleepStillArgs{Flags: bb.flags.p,
		Vel: bb.vel.p, Omega: bb.omega.p, N: int32(bb.n)})
}

// count launches the count of the sleeping and the awake dynamic bodies into out's two uint32s; over
// the awake list when awake is not nil, when the first counts those of the list that fell asleep.
func (s *sleepStage) count(d device, bb *bodyBuffers, out ptr, awake *awakeList) error {
	if err := d.zero(out, 8); err != nil {
		return err
	}
	if bb.n == 0 {
		return nil
	}
	var list, listN ptr
	grid := blocks(bb.n, sleepThreads)
	if awake != nil {
		list, listN, grid = awake.args(bb.n, sleepThreads)
	}
	return kernelSet{d}.sleepCount(grid, sleepThreads, sleepCountArgs{Flags: bb.flags.p, N: int32(bb.n), Out: out,
		List: list, ListN: listN})
}

// release frees the stage's buffers.
func (s *sleepStage) release(d device) {
	for _, b := range []*buffer{&s.rest, &s.asleep, &s.parent, &s.restMin, &s.label, &s.next, &s.marked, &s.seen, &s.woken,
		&s.counts, &s.idx} {
		release(d, b)
	}
	*s = sleepStage{}
}
