package gpu

import (
	"fmt"

	"tumble/sim/collide"
	"tumble/sim/geom"
)

// narrowThreads is the block size of the narrow-phase kernels (narrow.cu's TB_NARROW_THREADS).
const narrowThreads = 128

// narrowWideThreads is how many threads tb_narrow_hulls_wide and tb_narrow_meshes_wide run (narrow.cu's
// TB_NARROW_WIDE_THREADS), and narrowWideBytes each hull thread's scratch (TB_NARROW_WIDE_WORDS
// words): the two clipping arrays of 2 x geom.MaxHullPoints (collide's maxClip) points of 20 bytes
// (NcClipPt). narrowMeshWideBytes is each mesh thread's (TB_NARROW_MESH_WIDE_WORDS words): the
// gathered points, 2 x meshClip of 24 bytes (NcMeshPt), and the two clipping arrays of meshClip
// points (NC_MESH_CLIP: a hull face and one vertex for each side it is clipped by).
const (
	narrowWideThreads   = 256
	narrowWideBytes     = 2 * 2 * geom.MaxHullPoints * 20
	meshClip            = geom.MaxHullPoints + 8
	narrowMeshWideBytes = 2*meshClip*24 + 2*meshClip*20
)

// meshSlots is the most manifolds a pair with a mesh gives (narrow.cu's TB_NARROW_MESH_SLOTS,
// collide.MaxMeshManifolds).
const meshSlots = collide.MaxMeshManifolds

// narrowStage runs the narrow phase on the device (kernels/narrow.cu): every broad-phase pair is
// collided by the routines of sim/collide, ported, into a slot of its own, and the touching ones are
// compacted by a scan into a contact list in pair order, the order of the CPU's manifolds. Everything
// it does is a launch: the pair count is read by the kernels, and the contact count is left on the
// device for the backend to read at the end of the step (it keeps counting past the list's capacity,
// and the backend grows the list with reserve and runs the step again when it did).
type narrowStage struct {
	// cand holds a tbContact per pair: its manifold before compaction (count 0: none; below 0: a mesh
	// pair's, whose manifolds are in meshCand).
	cand buffer
	// meshCand holds meshSlots tbContacts per pair, a mesh pair's manifolds before compaction; it is
	// allocated when some body is a mesh.
	meshCand buffer
	// wide is the scratch of tb_narrow_hulls_wide (narrowWideBytes for each of its threads) and of
	// tb_narrow_meshes_wide (narrowMeshWideBytes), which run one after the other and so share it; it
	// is allocated when some body is a hull or a mesh.
	wide     buffer
	offsets  buffer // uint32 per pair: its number of manifolds, then scanned in place into list positions
	contacts buffer // tbContact per contact slot: the compacted list
	count    buffer // uint32: manifolds this step, possibly more than contactCap
	jointed  buffer // uint64 keys a<<32|b of jointed pairs, sorted
	nJointed int
	pairCap  int
	contCap  int
	scan     scanner
}

// reserve makes room for pairCapacity pairs and contactCapacity contacts (contents are lost when a
// buffer grows).
func (s *narrowStage) reserve(d device, pairCapacity, contactCapacity int) error {
	if pairCapacity < 0 || contactCapacity < 0 {
		return fmt.Errorf("gpu: narrow phase: reserve %d pairs, %d contacts", pairCapacity, contactCapacity)
	}
	if err := grow(d, &s.cand, pairCapacity*contactBytes); err != nil {
		return fmt.Errorf("gpu: narrow phase: %d pair slots: %w", pairCapacity, err)
	}
	if err := grow(d, &s.offsets, 4*pairCapacity); err != nil {
		return fmt.Errorf("gpu: narrow phase: %d pair offsets: %w", pairCapacity, err)
	}
	if err := grow(d, &s.contacts, contactCapacity*contactBytes); err != nil {
		return fmt.Errorf("gpu: narrow phase: %d contacts: %w", contactCapacity, err)
	}
	if err := grow(d, &s.count, 4); err != nil {
		return fmt.Errorf("gpu: narrow phase: contact counter: %w", err)
	}
	s.pairCap = max(s.pairCap, pairCapacity)
	s.contCap = contactCapacity
	return nil
}

// setJointed uploads the keys a<<32|b (a < b, sorted ascending) of the body pairs that a joint
// connects: the narrow phase gives them no contacts, as the CPU's gatherManifolds skips them.
func (s *narrowStage) setJointed(d device, keys []uint64) error {
	for i := 1; i < len(keys); i++ {
		if keys[i] <= keys[i-1] {
			return fmt.Errorf("gpu: narrow phase: jointed keys not sorted and distinct at %d", i)
		}
	}
	if err := grow(d, &s.jointed, 8*len(keys)); err != nil {
		return fmt.Errorf("gpu: narrow phase: %d jointed pairs: %w", len(keys), err)
	}
	s.nJointed = len(keys)
	return uploadSlice(d, s.jointed.p, keys)
}

// run collides the pairs (int2, a < b, sorted by (a, b)) of which the device holds the count at
// pairCount (uint32; only the first pairCapacity are read), with the contact margin of the CPU's
// narrow phase: speculative plus the pair's relative motion over dt. The contact list and its count
// (contactList) are ready when the launches have run.
func (s *narrowStage) run(d device, b *bodyBuffers, pairs, pairCount ptr, pairCapacity int, dt, speculative float32) error {
	if pairCapacity > s.pairCap || s.count.p == 0 {
		if err := s.reserve(d, pairCapacity, s.contCap); err != nil {
			return err
		}
	}
	if pairCapacity == 0 {
		return d.zero(s.count.p, 4)
	}
	// A null pointer is never read (nJointed is 0 then), but keep it a valid address for the
	// emulator's argument checks and the driver alike.
	jointed := s.jointed.p
	if jointed == 0 {
		jointed = s.count.p
	}
	k := kernelSet{d}
	if err := k.narrowCollide(blocks(pairCapacity, narrowThreads), narrowThreads, narrowCollideArgs{
		Pairs: pairs, PairCount: pairCount, PairCapacity: int32(pairCapacity),
		Pos: b.pos.p, Rot: b.rot.p, Vel: b.vel.p, Omega: b.omega.p, Shape: b.shape.p,
		Jointed: jointed, NJointed: int32(s.nJointed), Dt: dt, Speculative: speculative,
		Cand: s.cand.p, Touching: s.offsets.p,
	}); err != nil {
		return err
	}
	// The pairs with a hull, in a kernel of their own (narrow.cu says why), when some body has one.
	if b.hulls.hasHulls() {
		if err := k.narrowHulls(blocks(pairCapacity, narrowThreads), narrowThreads, narrowHullsArgs{
			Pairs: pairs, PairCount: pairCount, PairCapacity: int32(pairCapacity),
			Pos: b.pos.p, Rot: b.rot.p, Vel: b.vel.p, Omega: b.omega.p, Shape: b.shape.p,
			Hulls: b.hulls.dHulls.p, HullVerts: b.hulls.dVerts.p, HullFaces: b.hulls.dFaces.p,
			HullLoops: b.hulls.dLoops.p, HullEdges: b.hulls.dEdges.p,
			Jointed: jointed, NJointed: int32(s.nJointed), Dt: dt, Speculative: speculative,
			Cand: s.cand.p, Touching: s.offsets.p,
		}); err != nil {
			return err
		}
		// The hull pairs whose clipping outgrew tb_narrow_hulls' arrays (narrow.cu says why).
		if err := grow(d, &s.wide, narrowWideThreads*narrowWideBytes); err != nil {
			return fmt.Errorf("gpu: narrow phase: wide hull scratch: %w", err)
		}
		if err := k.narrowHullsWide(narrowWideThreads/narrowThreads, narrowThreads, narrowHullsWideArgs{
			Pairs: pairs, PairCount: pairCount, PairCapacity: int32(pairCapacity),
			Pos: b.pos.p, Rot: b.rot.p, Vel: b.vel.p, Omega: b.omega.p, Shape: b.shape.p,
			Hulls: b.hulls.dHulls.p, HullVerts: b.hulls.dVerts.p, HullFaces: b.hulls.dFaces.p,
			HullLoops: b.hulls.dLoops.p, HullEdges: b.hulls.dEdges.p,
			Jointed: jointed, NJointed: int32(s.nJointed), Dt: dt, Speculative: speculative,
			Scratch: s.wide.p, Cand: s.cand.p, Touching: s.offsets.p,
		}); err != nil {
			return err
		}
	}
	// The pairs with a mesh, last: a pair's several manifolds go to its slots of meshCand.
	meshCand := s.cand.p // never read while no pair has a mesh
	if b.meshes.hasMeshes() {
		if err := grow(d, &s.meshCand, pairCapacity*meshSlots*contactBytes); err != nil {
			return fmt.Errorf("gpu: narrow phase: %d mesh pair slots: %w", pairCapacity, err)
		}
		meshCand = s.meshCand.p
		if err := k.narrowMeshes(blocks(pairCapacity, narrowThreads), narrowThreads, narrowMeshesArgs{
			Pairs: pairs, PairCount: pairCount, PairCapacity: int32(pairCapacity),
			Pos: b.pos.p, Rot: b.rot.p, Vel: b.vel.p, Omega: b.omega.p, Shape: b.shape.p,
			Hulls: b.hulls.dHulls.p, HullVerts: b.hulls.dVerts.p, HullFaces: b.hulls.dFaces.p,
			HullLoops: b.hulls.dLoops.p, HullEdges: b.hulls.dEdges.p,
			Meshes: b.meshes.dMeshes.p, MeshNodes: b.meshes.dNodes.p, MeshOrder: b.meshes.dOrder.p,
			MeshTris: b.meshes.dTris.p, MeshNormals: b.meshes.dNormals.p, MeshVerts: b.meshes.dVerts.p,
			Jointed: jointed, NJointed: int32(s.nJointed), Dt: dt, Speculative: speculative,
			Cand: s.cand.p, MeshCand: meshCand, Touching: s.offsets.p,
		}); err != nil {
			return err
		}
		// The mesh pairs that outgrew tb_narrow_meshes' arrays (narrow.cu says why).
		if err := grow(d, &s.wide, narrowWideThreads*narrowMeshWideBytes); err != nil {
			return fmt.Errorf("gpu: narrow phase: wide mesh scratch: %w", err)
		}
		if err := k.narrowMeshesWide(narrowWideThreads/narrowThreads, narrowThreads, narrowMeshesWideArgs{
			Pairs: pairs, PairCount: pairCount, PairCapacity: int32(pairCapacity),
			Pos: b.pos.p, Rot: b.rot.p, Vel: b.vel.p, Omega: b.omega.p, Shape: b.shape.p,
			Hulls: b.hulls.dHulls.p, HullVerts: b.hulls.dVerts.p, HullFaces: b.hulls.dFaces.p,
			HullLoops: b.hulls.dLoops.p, HullEdges: b.hulls.dEdges.p,
			Meshes: b.meshes.dMeshes.p, MeshNodes: b.meshes.dNodes.p, MeshOrder: b.meshes.dOrder.p,
			MeshTris: b.meshes.dTris.p, MeshNormals: b.meshes.dNormals.p, MeshVerts: b.meshes.dVerts.p,
			Jointed: jointed, NJointed: int32(s.nJointed), Dt: dt, Speculative: speculative,
			Scratch: s.wide.p, Cand: s.cand.p, MeshCand: meshCand, Touching: s.offsets.p,
		}); err != nil {
			return err
		}
	}
	if err := s.scan.run(d, s.offsets.p, s.offsets.p, pairCapacity); err != nil {
		return err
	}
	return k.narrowCompact(blocks(pairCapacity, narrowThreads), narrowThreads, narrowCompactArgs{
		Cand: s.cand.p, MeshCand: meshCand, Offsets: s.offsets.p, PairCapacity: int32(pairCapacity),
		Contacts: s.contacts.p, Capacity: int32(s.contCap), Count: s.count.p,
	})
}

// contactList returns the device list of contacts (tbContact, in pair order), the device address of
// its count (uint32: the number of manifolds, which exceeds capacity when the list overflowed;
// only the first capacity were written) and the list's capacity.
func (s *narrowStage) contactList() (contacts ptr, count ptr, capacity int) {
	return s.contacts.p, s.count.p, s.contCap
}

// release frees the stage's buffers.
func (s *narrowStage) release(d device) {
	release(d, &s.cand)
	release(d, &s.meshCand)
	release(d, &s.wide)
	release(d, &s.offsets)
	release(d, &s.contacts)
	release(d, &s.count)
	release(d, &s.jointed)
	s.scan.release(d)
	*s = narrowStage{}
}
