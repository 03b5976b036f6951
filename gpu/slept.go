package gpu

import (
	"fmt"

	"tumble/sim"
)

// sleptStage keeps the contact points of the sleeping islands on the device (kernels/solver.cu's
// tb_solver_slept_*), as sim's sleep stage keeps them for World.Contacts: an island that falls asleep
// leaves the broad phase, so no later step has its manifolds, and the points of the step it fell
// asleep in are what Contacts lists for it while it sleeps. They are points to show, not warm starts:
// the CPU warm-starts a woken island from nothing, and so does the device.
//
// At each step's sleep stage the manifolds whose island fell asleep are marked, scanned and appended
// (their points, 4 slots a manifold as tb_solver_export writes them, and the island's label), with no
// read-back: the count the list would need rides on the step's read-back, and a step that found the
// list too short runs again after grow has made room. A point is listed while its island sleeps under
// the label it fell asleep with; the others stay in the list, unread, until grow drops them.
type sleptStage struct {
	pts    buffer // TbContactOut x 4 per kept manifold
	labels buffer // uint32 per kept manifold: the label its island fell asleep under
	n      buffer // uint32: the kept manifolds
	mark   buffer // uint32 per manifold of the step, and one: the marks, then their exclusive scan
	scan   scanner
	cap    int // manifolds pts holds
	// selected's: the marks of the kept manifolds (one more), the points selected and their manifolds
	sel, out, outN buffer
}

// reserve makes room for the marks of contactCap manifolds and, the first time, a list of a few
// manifolds.
func (s *sleptStage) reserve(d device, contactCap int) error {
	if err := grow(d, &s.mark, 4*(contactCap+1)); err != nil {
		return fmt.Errorf("gpu: sleeping contacts: %w", err)
	}
	if s.n.p != 0 {
		return nil
	}
	if err := grow(d, &s.n, 4); err != nil {
		return err
	}
	if err := d.zero(s.n.p, 4); err != nil {
		return err
	}
	return s.resize(d, 64)
}

// resize makes the list hold capacity manifolds (its contents are gone: callers keep what they need).
func (s *sleptStage) resize(d device, capacity int) error {
	if err := grow(d, &s.pts, 4*contactOutBytes*capacity); err != nil {
		return fmt.Errorf("gpu: sleeping contacts: %d manifolds: %w", capacity, err)
	}
	if err := grow(d, &s.labels, 4*capacity); err != nil {
		return fmt.Errorf("gpu: sleeping contacts: %d manifolds: %w", capacity, err)
	}
	s.cap = capacity
	return nil
}

// sleptInput is what keep reads at the step's sleep stage: the step's solver manifolds and their
// number (the solver's kept list, swapped in by StoreImpulses), the sleep stage's islands (parent, the
// roots' labels), the bodies, and where to write the room the list needed (a word of the step's
// read-back).
type sleptInput struct {
	man, kept             ptr
	capacity              int // manifolds man holds
	parent, label, asleep ptr
	bodies                *bodyBuffers
	need                  ptr
}

// keep appends the points of the step's manifolds whose island fell asleep in it.
func (s *sleptStage) keep(d device, in sleptInput) error {
	k := kernelSet{d}
	bb := in.bodies
	if err := k.solverSleptMark(blocks(in.capacity+1, solverManifoldThreads), solverManifoldThreads,
		solverSleptMarkArgs{Man: in.man, Kept: in.kept, Flags: bb.flags.p, Parent: in.parent, Label: in.label,
			Asleep: in.asleep, Mark: s.mark.p}); err != nil {
		return err
	}
	if err := s.scan.run(d, s.mark.p, s.mark.p, in.capacity+1); err != nil {
		return err
	}
	if err := k.solverSleptKeep(blocks(4*max(in.capacity, 1), solverManifoldThreads), solverManifoldThreads,
		solverSleptKeepArgs{Man: in.man, Kept: in.kept, Offsets: s.mark.p, Flags: bb.flags.p, Parent: in.parent,
			Label: in.label, Asleep: in.asleep, Pos: bb.pos.p, Rot: bb.rot.p, Slept: s.pts.p, SleptLabel: s.labels.p, SleptN: s.n.p,
			Cap: int32(s.cap)}); err != nil {
		return err
	}
	return k.solverSleptCount(1, 1, solverSleptCountArgs{Kept: in.kept, Offsets: s.mark.p, SleptN: s.n.p,
		Cap: int32(s.cap), Need: in.need})
}

// selected reads back the kept points of the islands that still sleep (their dynamic bodies asleep
// under the label they fell asleep with: asleep holds the n bodies' labels), all of them (body < 0) or
// those body takes part in, chosen and gathered on the device: the read is their manifolds' points and
// a count.
func (s *sleptStage) selected(d device, flags, asleep ptr, n, body int) ([]tbContactOut, error) {
	if s.n.p == 0 || s.cap == 0 {
		return nil, nil
	}
	for _, g := range []struct {
		b     *buffer
		bytes int
	}{{&s.sel, 4 * (s.cap + 1)}, {&s.out, 4 * contactOutBytes * s.cap}, {&s.outN, 4}} {
		if err := grow(d, g.b, g.bytes); err != nil {
			return nil, fmt.Errorf("gpu: sleeping contacts: %w", err)
		}
	}
	k := kernelSet{d}
	if err := k.solverSleptSelect(blocks(s.cap+1, solverManifoldThreads), solverManifoldThreads, solverSleptSelectArgs{
		Slept: s.pts.p, SleptLabel: s.labels.p, SleptN: s.n.p, Flags: flags, Asleep: asleep, NBodies: int32(n),
		Body: int32(body), Mark: s.sel.p}); err != nil {
		return nil, err
	}
	if err := s.scan.run(d, s.sel.p, s.sel.p, s.cap+1); err != nil {
		return nil, err
	}
	if err := k.solverSleptGather(blocks(4*(s.cap+1), solverManifoldThreads), solverManifoldThreads,
		solverSleptGatherArgs{Slept: s.pts.p, SleptN: s.n.p, Offsets: s.sel.p, Out: s.out.p, OutN: s.outN.p}); err != nil {
		return nil, err
	}
	var m [1]uint32
	if err := downloadSlice(d, m[:], s.outN.p); err != nil {
		return nil, err
	}
	if m[0] == 0 {
		return nil, nil
	}
	pts := make([]tbContactOut, 4*min(int(m[0]), s.cap))
	if err := downloadSlice(d, pts, s.out.p); err != nil {
		return nil, err
	}
	return pts, nil
}

// sleptPoint is a kept point with its island's label.
type sleptPoint struct {
	p     tbContactOut
	label uint32
}

// read downloads the kept manifolds' points, with their labels.
func (s *sleptStage) read(d device) ([]sleptPoint, error) {
	if s.n.p == 0 {
		return nil, nil
	}
	var n [1]uint32
	if err := downloadSlice(d, n[:], s.n.p); err != nil {
		return nil, err
	}
	m := min(int(n[0]), s.cap)
	if m == 0 {
		return nil, nil
	}
	pts := make([]tbContactOut, 4*m)
	labels := make([]uint32, m)
	if err := downloadSlice(d, pts, s.pts.p); err != nil {
		return nil, err
	}
	if err := downloadSlice(d, labels, s.labels.p); err != nil {
		return nil, err
	}
	out := make([]sleptPoint, 0, len(pts))
	for k, p := range pts {
		if p.A >= 0 {
			out = append(out, sleptPoint{p, labels[k/4]})
		}
	}
	return out, nil
}

// write replaces the list with pts (points of one manifold share a label and are consecutive, as
// read returns them), growing it to hold at least capacity manifolds.
func (s *sleptStage) write(d device, pts []sleptPoint, capacity int) error {
	var slots []tbContactOut
	var labels []uint32
	for k := 0; k < len(pts); {
		first := pts[k]
		labels = append(labels, first.label)
		n := 0
		for ; k < len(pts) && n < 4 && pts[k].label == first.label && pts[k].p.A == first.p.A && pts[k].p.B == first.p.B; k++ {
			slots = append(slots, pts[k].p)
			n++
		}
		for ; n < 4; n++ {
			slots = append(slots, tbContactOut{A: -1, B: -1})
		}
	}
	if capacity > s.cap {
		if err := s.resize(d, capacity); err != nil {
			return err
		}
	}
	if err := uploadSlice(d, s.pts.p, slots); err != nil {
		return err
	}
	if err := uploadSlice(d, s.labels.p, labels); err != nil {
		return err
	}
	return uploadSlice(d, s.n.p, []uint32{uint32(len(labels))})
}

// live reports whether a kept point's island still sleeps under its label: each of its dynamic bodies
// is asleep with that label (sim's stillAsleep). asleep holds the bodies' labels, dynamic their types.
func (p *sleptPoint) live(asleep []uint32, dynamic func(int) bool) bool {
	for _, i := range [2]int32{p.p.A, p.p.B} {
		if int(i) >= len(asleep) || i < 0 {
			return false
		}
		if dynamic(int(i)) && asleep[i] != p.label {
			return false
		}
	}
	return true
}

// grow makes room for need manifolds: the list is read back, its points whose island woke are dropped,
// and the rest written to a list with room for need and half as many again. A step that found the
// list short calls it, after its state was put back, and runs again.
func (s *sleptStage) grow(d device, need int, asleep []uint32, dynamic func(int) bool) error {
	pts, err := s.read(d)
	if err != nil {
		return err
	}
	kept := pts[:0]
	for _, p := range pts {
		if p.live(asleep, dynamic) {
			kept = append(kept, p)
		}
	}
	return s.write(d, kept, need+need/2)
}

// rename applies removals' index moves to the kept points, as sim's sleep stage does to its: the
// removed body's points go, and the moved body's are renamed (Last becoming Index). A removal is a
// rare edit: the list makes one round trip through the host.
func (s *sleptStage) rename(d device, moves []sim.Move) error {
	if len(moves) == 0 {
		return nil
	}
	pts, err := s.read(d)
	if err != nil || len(pts) == 0 {
		return err
	}
	for _, mv := range moves {
		kept := pts[:0]
		for _, p := range pts {
			if p.p.A == mv.Index || p.p.B == mv.Index {
				continue
			}
			if p.p.A == mv.Last {
				p.p.A = mv.Index
			}
			if p.p.B == mv.Last {
				p.p.B = mv.Index
			}
			kept = append(kept, p)
		}
		pts = kept
	}
	return s.write(d, pts, s.cap)
}

// forget empties the list.
func (s *sleptStage) forget(d device) error {
	if s.n.p == 0 {
		return nil
	}
	return d.zero(s.n.p, 4)
}

// release frees the stage's buffers.
func (s *sleptStage) release(d device) {
	for _, b := range []*buffer{&s.pts, &s.labels, &s.n, &s.mark, &s.sel, &s.out, &s.outN} {
		release(d, b)
	}
	s.scan.release(d)
	*s = sleptStage{}
}
