package sim

import (
	"math"
	"sync/atomic"
	"tumble/sim/internal/vecmath"

	"tumble/sim/broad"
	"tumble/sim/collide"
	"tumble/sim/geom"
)

// contactPoint is one solver contact: a normal row and two friction rows. Each row's angular
// Jacobian terms (r x d for both bodies, and the inverse inertia times them) are fixed for the step,
// so a pass only takes dot products and scaled additions.
type contactPoint struct {
	nA, nB, inA, inB     vec // rA x n, rB x n, IA^-1 (rA x n), IB^-1 (rB x n)
	t1A, t1B, it1A, it1B vec // the same for the first friction direction
	t2A, t2B, it2A, it2B vec // and the second
	normalImpulse        float32
	tangentImpulse       [2]float32
	maxNormal            float32 // largest normal impulse applied this step (restitution needs contact)
	normalMass           float32
	softMass             float32 // effective mass of the soft (biased) normal row
	leak                 float32 // fraction of the accumulated impulse the soft row gives back each pass
	tangentMass          [2]float32
	sep                  float32 // current separation, refreshed when positions change (refreshManifold)
	sliding              bool    // the Coulomb clamp was active in the last friction pass
	kept                 bool    // anchorA and anchorB are last step's (prepareContacts)

	localA, localB vec     // anchors in the bodies' frames: current separation is measured from them
	relVel         float32 // relative normal velocity before the solve (restitution)
	id             uint32
	// Friction anchors: the material points of each body where this contact started sticking. The
	// biased pass pulls their tangential drift back to zero, so static friction holds positions and
	// not only velocities (no creep in tall pyramids). They move with the contact while it slides.
	anchorA, anchorB vec
}

// manifold is the solver's view of one touching pair.
type manifold struct {
	a, b        int32 // dense body indices, a < b
	pair        int32 // index of the broad-phase pair (and narrow-phase result) it came from
	count       int32
	normal      vec // from a to b
	t1, t2      vec // friction directions
	friction    float32
	restitution float32
	resist      resistRows // rolling and spinning resistance (contact_resist.go)
	biasRate    float32    // soft push-out rate of the biased pass
	massScale   float32    // soft scales of the biased pass (see softness), used by anchored friction
	leak        float32
	drift       vec   // mean friction-anchor drift, refreshed with sep
	slot        int32 // its batch times batchLanes plus its lane where the wide path prepared its rows; -1 otherwise
	child       childPair
	pts         [4]contactPoint
	cache       manifoldCache // the points as the narrow phase last computed them (contact_cache.go)
}

// childPair names the shapes of a manifold's bodies that touch: each body's compound child, 0 for a
// body of one shape.
type childPair struct{ a, b uint8 }

// impulseSum is the impulses a manifold applies in a pass (Jacobi, penalty, restitution's record) or
// its warm start, summed for its bodies; gatherImpulses adds them up per body. They are kept apart
// from the manifolds (pipeline.sums, by manifold), so that the gather reads a dense array instead of
// a field of each kilobyte-long manifold.
type impulseSum struct {
	lin        vec // on b (a gets the opposite)
	angA, angB vec // rA x P and rB x P summed: a's angular impulse is -angA, b's is angB
}

// ContactPoint is a contact for inspection (UI, debugging): where, which way, how hard.
type ContactPoint struct {
	BodyA, BodyB int // dense indices
	// ChildA and ChildB are the shapes of compound bodies that touch (geom.CompoundShape.Children's
	// indices); 0 for a body of one shape.
	ChildA, ChildB int
	Position       Vec3
	Normal         Vec3 // from A to B
	Separation     float32
	NormalImpulse  float32
	// FrictionImpulse is the accumulated friction impulse, N s, a world vector in the contact plane.
	FrictionImpulse Vec3
}

// Contacts appends the last step's contact points to out.
func (w *World) Contacts(out []ContactPoint) []ContactPoint {
	if w.backend != nil {
		return w.backend.Contacts(w, out)
	}
	for _, k := range w.pipe.keepers() {
		out = k.appendContacts(&w.Bodies, -1, out)
	}
	return out
}

// ContactReader is a Backend that can read back the contact points of one body without reading every
// contact (World.ContactsOf uses it): an inspector of one body among 100,000 then moves that body's
// few points across the bus, not megabytes a frame.
type ContactReader interface {
	// ContactsOf appends the last step's contact points that the body at dense index i takes part in,
	// as Contacts lists them, to out. ok is false, with out as it was given, where the backend cannot
	// tell that body's points apart (the caller then filters Contacts).
	ContactsOf(w *World, i int, out []ContactPoint) (points []ContactPoint, ok bool)
}

// ContactsOf appends the last step's contact points that body h takes part in, in Contacts' order:
// Contacts with the others' left out. On the CPU only h's manifolds are turned into points, so an
// inspector of one body among 100,000 does not build every body's points each frame; a backend reads
// back h's points alone where it can (ContactReader), otherwise every point, filtered here. A gone
// handle has none.
func (w *World) ContactsOf(h Handle, out []ContactPoint) []ContactPoint {
	i, ok := w.dense(h)
	if !ok {
		return out
	}
	if w.backend != nil {
		if r, ok := w.backend.(ContactReader); ok {
			if got, ok := r.ContactsOf(w, i, out); ok {
				return got
			}
		}
		n := len(out)
		all := w.backend.Contacts(w, out)
		out = all[:n]
		for _, c := range all[n:] {
			if c.BodyA == i || c.BodyB == i {
				out = append(out, c)
			}
		}
		return out
	}
	for _, k := range w.pipe.keepers() {
		out = k.appendContacts(&w.Bodies, i, out)
	}
	return out
}

// appendContacts appends the points of last step's manifolds, all of them (body < 0) or those body
// takes part in, as Contacts lists them.
func (s *narrowStage) appendContacts(b *Bodies, body int, out []ContactPoint) []ContactPoint {
	for k := range s.prev {
		if m := &s.prev[k]; body < 0 || int(m.a) == body || int(m.b) == body {
			out = manifoldContacts(out, b, m)
		}
	}
	return out
}

// saveState copies last step's manifolds, the warm-start cache, into st.
func (s *narrowStage) saveState(st *State) { st.prev = append(st.prev[:0], s.prev...) }

// restoreState makes last step's manifolds st's.
func (s *narrowStage) restoreState(st *State) { s.prev = append(s.prev[:0], st.prev...) }

// removeBody drops body i from last step's manifolds after the last body moved into i: renamed with
// it (dropBody) when renames, else all of them go.
func (s *narrowStage) removeBody(i, last int, renames bool) {
	if renames {
		s.dropBody(int32(i), int32(last))
	} else {
		s.prev = s.prev[:0]
	}
}

// forget drops last step's manifolds.
func (s *narrowStage) forget() { s.prev = s.prev[:0] }

// manifoldContacts appends manifold m's points, as Contacts lists them.
func manifoldContacts(out []ContactPoint, b *Bodies, m *manifold) []ContactPoint {
	for i := 0; i < int(m.count); i++ {
		cp := &m.pts[i]
		pA := ldv(&b.Position[m.a]).Add(mulMat(&b.rot[m.a], cp.localA))
		pB := ldv(&b.Position[m.b]).Add(mulMat(&b.rot[m.b], cp.localB))
		out = append(out, ContactPoint{
			BodyA: int(m.a), BodyB: int(m.b), ChildA: int(m.child.a), ChildB: int(m.child.b), Position: pA.Add(pB).Scale(0.5).Vec3(), Normal: m.normal.Vec3(),
			Separation: pB.Sub(pA).Dot(m.normal), NormalImpulse: cp.normalImpulse,
			FrictionImpulse: m.t1.Scale(cp.tangentImpulse[0]).Add(m.t2.Scale(cp.tangentImpulse[1])).Vec3(),
		})
	}
	return out
}

// tangents builds two friction directions orthogonal to n (seed 000's SetupFrictionConstraints):
// t1 = (0, nz, -ny) normalised when n is not along x, else (nz, 0, -nx); t2 = t1 x n.
func tangents(n vec) (vec, vec) {
	const eps = 1e-6
	var t1 vec
	if vecmath.Abs(n.Y) > eps || vecmath.Abs(n.Z) > eps {
		t1 = vec{X: 0, Y: n.Z, Z: -n.Y}
	} else {
		t1 = vec{X: n.Z, Y: 0, Z: -n.X}
	}
	t1 = t1.Scale(1 / vecmath.Sqrt(t1.Dot(t1)))
	t2 := t1.Cross(n)
	return t1, t2.Scale(1 / vecmath.Sqrt(t2.Dot(t2)))
}

// BoundingRadius is the distance from the centre to the farthest point of the shape (how far a spin
// moves a body's surface: the bounds and the narrow phase's margin use it).
func BoundingRadius(s *geom.Shape) float32 { return boundingRadius(s) }

// boundingRadius is the distance from the centre to the farthest point of the shape.
func boundingRadius(s *geom.Shape) float32 {
	switch s.Kind {
	case geom.Box:
		return s.HalfExtents.Len()
	case geom.Sphere:
		return s.Radius
	case geom.Capsule:
		return s.Radius + s.HalfHeight
	case geom.Cylinder:
		return vecmath.Sqrt(s.Radius*s.Radius + s.HalfHeight*s.HalfHeight)
	case geom.ConvexHull:
		return s.Hull.Radius
	case geom.TriMesh:
		return s.Mesh.Radius
	case geom.HeightField:
		return s.Field.Radius
	case geom.Compound:
		return s.Compound.Radius
	}
	return 0
}

// updateBounds computes each body's world AABB, enlarged by how far it can move this step (velocity x dt,
// plus the sweep of its farthest point under rotation) and half the speculative distance, so that the
// pairs found once per step hold for every sub-step.
func (w *World) updateBounds(lo, hi int) {
	b := &w.Bodies
	p := &w.pipe
	dt := w.settings.Dt
	half := 0.5 * w.settings.Speculative
	for i := lo; i < hi; i++ {
		q := &b.Rotation[i]
		setRotation(&b.rot[i], q.W, q.V[0], q.V[1], q.V[2])
		p.bounds.boxes[i] = boundsFromRotation(b, i, &b.rot[i], dt, half)
		p.bounds.dynamic[i] = b.Type[i] == Dynamic && !b.Asleep[i]
	}
}

// boundsFromRotation is BodyBounds with body i's rotation matrix m at hand: a box's, a sphere's or a
// capsule's from m, in scalars, about half the time of going through the shape's pose (the same box
// within float rounding: TestBoundsFromTheRotationMatchBodyBounds); another shape's through
// BodyBounds.
func boundsFromRotation(b *Bodies, i int, m *Mat3, dt, margin float32) geom.AABB {
	s := &b.Shape[i]
	var ex, ey, ez float32 // the shape's world box's half extents about its position
	switch s.Kind {
	case geom.Box:
		h := &s.HalfExtents
		ex = vecmath.Abs(m[0])*h[0] + vecmath.Abs(m[3])*h[1] + vecmath.Abs(m[6])*h[2]
		ey = vecmath.Abs(m[1])*h[0] + vecmath.Abs(m[4])*h[1] + vecmath.Abs(m[7])*h[2]
		ez = vecmath.Abs(m[2])*h[0] + vecmath.Abs(m[5])*h[1] + vecmath.Abs(m[8])*h[2]
	case geom.Sphere:
		ex, ey, ez = s.Radius, s.Radius, s.Radius
	case geom.Capsule: // the segment along the body's y axis, then the radius
		ex = vecmath.Abs(m[3])*s.HalfHeight + s.Radius
		ey = vecmath.Abs(m[4])*s.HalfHeight + s.Radius
		ez = vecmath.Abs(m[5])*s.HalfHeight + s.Radius
	default:
		return BodyBounds(b, i, dt, margin)
	}
	e := margin
	if b.Type[i] != Static {
		e += (b.Velocity[i].Len() + b.AngularVelocity[i].Len()*boundingRadius(s)) * dt
	}
	x := &b.Position[i]
	return geom.AABB{Min: Vec3{x[0] - ex - e, x[1] - ey - e, x[2] - ez - e}, Max: Vec3{x[0] + ex + e, x[1] + ey + e, x[2] + ez + e}}
}

// BodyBounds is body i's world AABB for a step of dt: its shape's bounds, enlarged by how far it can
// move (velocity x dt, plus the sweep of its farthest point under rotation) and by margin.
func BodyBounds(b *Bodies, i int, dt, margin float32) geom.AABB {
	box := b.Shape[i].Bounds(geom.Pose{P: b.Position[i], Q: b.Rotation[i]})
	reach := float32(0)
	if b.Type[i] != Static {
		reach = (b.Velocity[i].Len() + b.AngularVelocity[i].Len()*boundingRadius(&b.Shape[i])) * dt
	}
	e := reach + margin
	box.Min = box.Min.Sub(Vec3{e, e, e})
	box.Max = box.Max.Add(Vec3{e, e, e})
	return box
}

// narrowPhase runs the exact collision test on each broad-phase pair. The distance at which contacts are
// made grows with the pair's relative motion this step (speculative contacts): a contact that is still
// open has bias s/h, so the solver lets the bodies close the gap but not pass through each other, which
// is what stops fast bodies tunnelling.
func (w *World) narrowPhase(lo, hi int) {
	b := &w.Bodies
	p := &w.pipe
	dt := w.settings.Dt
	hint := 0
	for k := lo; k < hi; k++ {
		pr := p.narrow.pairs[k]
		ia, ib := pr.A, pr.B
		p.narrow.candN[k], p.narrow.candMulti[k] = 0, false
		p.narrow.candFrom[k], p.narrow.candMargin[k] = -1, 0
		if p.jointed(ia, ib) { // jointed bodies do not collide: gatherManifolds drops the pair
			p.narrow.cand[k].Count = 0
			p.narrow.multiCand[k] = p.narrow.multiCand[k][:0]
			continue
		}
		rel := length(ldv(&b.Velocity[ib]).Sub(ldv(&b.Velocity[ia])))*dt +
			(length(ldv(&b.AngularVelocity[ia]))*boundingRadius(&b.Shape[ia])+
				length(ldv(&b.AngularVelocity[ib]))*boundingRadius(&b.Shape[ib]))*dt
		margin := w.settings.Speculative + rel
		if ka, kb := b.Shape[ia].Kind, b.Shape[ib].Kind; triangles(ka) || triangles(kb) || ka == geom.Compound || kb == geom.Compound {
			p.narrow.cand[k].Count = 0
			if ka == geom.Compound || kb == geom.Compound {
				p.narrow.multiCand[k], p.narrow.multiChild[k] = compoundPair(b, ia, ib, margin, p.narrow.multiCand[k][:0], p.narrow.multiChild[k][:0])
			} else {
				p.narrow.candMulti[k] = true
				if p.narrow.cacheOn && fieldPair(b, ia, ib) {
					p.narrow.candMargin[k] = margin
					if p.reuseField(b, k, ia, ib, margin, &hint) {
						continue
					}
				}
				var buf [collide.MaxMeshManifolds]collide.KeptPoints
				kept := buf[:0]
				if fieldPair(b, ia, ib) {
					kept = p.lastPoints(ia, ib, &hint, kept)
				}
				p.narrow.multiCand[k] = meshPair(b, ia, ib, margin, kept, p.narrow.multiCand[k][:0])
				p.narrow.multiChild[k] = resize(p.narrow.multiChild[k], len(p.narrow.multiCand[k]))
				clear(p.narrow.multiChild[k])
			}
			p.narrow.candMulti[k] = true
			for s := range p.narrow.multiCand[k] {
				if p.narrow.multiCand[k][s].Count > 0 {
					p.narrow.candN[k]++
				}
			}
			continue
		}
		if p.narrow.cacheOn {
			p.narrow.candMargin[k] = margin
			if p.reuse(b, k, ia, ib, margin, &hint) {
				p.narrow.candN[k] = 1
				continue
			}
		}
		collide.Collide(&b.Shape[ia], geom.Pose{P: b.Position[ia], Q: b.Rotation[ia]},
			&b.Shape[ib], geom.Pose{P: b.Position[ib], Q: b.Rotation[ib]}, margin, &p.narrow.cand[k])
		if p.narrow.cand[k].Count > 0 {
			p.narrow.candN[k] = 1
		}
	}
}

// triangles reports whether shapes of kind k collide as triangles (collide.CollideMesh): meshes and
// height fields, which may give several manifolds a pair.
func triangles(k geom.Kind) bool { return k == geom.TriMesh || k == geom.HeightField }

// meshPair collides a mesh or height field body with another body (either order) into out: the
// triangles' manifolds, each with its normal from ia to ib. kept is the ids of the pair's manifolds'
// points last step (lastPoints; collide.CollideMeshKeeping), nil for none.
func meshPair(b *Bodies, ia, ib int32, margin float32, kept []collide.KeptPoints, out []collide.Manifold) []collide.Manifold {
	pa := geom.Pose{P: b.Position[ia], Q: b.Rotation[ia]}
	pb := geom.Pose{P: b.Position[ib], Q: b.Rotation[ib]}
	if triangles(b.Shape[ia].Kind) {
		return collide.CollideMeshKeeping(&b.Shape[ia], pa, &b.Shape[ib], pb, margin, kept, out)
	}
	out = collide.CollideMeshKeeping(&b.Shape[ib], pb, &b.Shape[ia], pa, margin, kept, out)
	for i := range out {
		n := out[i].Normal
		out[i].Normal = geom.Vec3{-n[0], -n[1], -n[2]}
	}
	return out
}

// compoundPair collides two bodies of which one at least is a compound, child by child (a body of one
// shape counts as a compound of that shape), into out: a manifold per touching pair of children, each
// with its normal from ia to ib and its feature ids tagged with the children (geom.ChildFeature), and
// in kids the children of each. A pair of children whose boxes, one grown by margin, do not overlap
// is skipped.
func compoundPair(b *Bodies, ia, ib int32, margin float32, out []collide.Manifold, kids []childPair) ([]collide.Manifold, []childPair) {
	pa := geom.Pose{P: b.Position[ia], Q: b.Rotation[ia]}
	pb := geom.Pose{P: b.Position[ib], Q: b.Rotation[ib]}
	sa, sb := &b.Shape[ia], &b.Shape[ib]
	for i := range childCount(sa) {
		ca, qa := childOf(sa, pa, i)
		box := ca.Bounds(qa)
		box.Min, box.Max = box.Min.Sub(Vec3{margin, margin, margin}), box.Max.Add(Vec3{margin, margin, margin})
		for j := range childCount(sb) {
			cb, qb := childOf(sb, pb, j)
			if !box.Overlaps(cb.Bounds(qb)) {
				continue
			}
			from := len(out)
			switch {
			case triangles(ca.Kind):
				out = collide.CollideMesh(ca, qa, cb, qb, margin, out)
			case triangles(cb.Kind):
				out = collide.CollideMesh(cb, qb, ca, qa, margin, out)
				for s := from; s < len(out); s++ {
					n := out[s].Normal
					out[s].Normal = geom.Vec3{-n[0], -n[1], -n[2]}
				}
			default:
				out = append(out, collide.Manifold{})
				collide.Collide(ca, qa, cb, qb, margin, &out[from])
			}
			for s := from; s < len(out); s++ {
				if out[s].Count == 0 {
					continue
				}
				for q := range out[s].Count {
					out[s].Points[q].ID = geom.ChildFeature(out[s].Points[q].ID, i, j)
				}
				out[from] = out[s]
				from++
				kids = append(kids, childPair{uint8(i), uint8(j)})
			}
			out = out[:from]
		}
	}
	return out, kids
}

// childCount is the number of shapes of a body's shape: a compound's children, or 1.
func childCount(s *geom.Shape) int {
	if s.Kind == geom.Compound {
		return len(s.Compound.Children)
	}
	return 1
}

// childOf returns shape i of a body's shape at pose p, with its world pose: a compound's child, or the
// shape itself.
func childOf(s *geom.Shape, p geom.Pose, i int) (*geom.Shape, geom.Pose) {
	if s.Kind == geom.Compound {
		return &s.Compound.Children[i].Shape, s.Compound.ChildPose(p, i)
	}
	return s, p
}

// material is the friction and restitution of child c of body i: the child's own where it gives them,
// else the body's. Every per-shape contact property is read here.
func (b *Bodies) material(i int32, c uint8) geom.Material {
	m := geom.Material{Friction: b.Friction[i], Restitution: b.Restitution[i],
		RollingResistance: b.RollingResistance[i], SpinningResistance: b.SpinningResistance[i]}
	if s := &b.Shape[i]; s.Kind == geom.Compound {
		return s.Compound.Children[c].Material.Of(m)
	}
	return m
}

// candOf returns the narrow phase's manifold that solver manifold k came from.
func (p *pipeline) candOf(k int) *collide.Manifold {
	m := &p.narrow.manifolds[k]
	if s := p.narrow.manSub[k]; s >= 0 {
		return &p.narrow.multiCand[m.pair][s]
	}
	return &p.narrow.cand[m.pair]
}

// gatherChunk is the number of pairs in a chunk of gatherManifolds' fill.
const gatherChunk = 1024

// gatherGrain is the least number of chunks of gatherManifolds' fill a worker takes (about 40 us of
// work): split from one chunk, the fill of the pyramid's 1,240 pairs went half to the second worker,
// whose manifolds the first then pulled back across the cores for Prepare.
const gatherGrain = 4

// gatherManifolds turns the narrow phase's touching pairs into solver manifolds, in pair order (so
// the result is deterministic): where each chunk of gatherChunk pairs starts from the narrow phase's
// counts (candN), then the chunks filled in parallel. The manifolds (about 1 KB each) grow without
// copying: the step fills them from scratch, and growing them by append, a manifold at a time, copied
// what was filled so far each time, a quarter of the rain's narrow phase while it was filling up.
func (w *World) gatherManifolds() {
	p := &w.pipe
	chunks := (len(p.narrow.pairs) + gatherChunk - 1) / gatherChunk
	p.narrow.gatherAt = resize(p.narrow.gatherAt, chunks+1)
	p.narrow.gatherPoints = resize(p.narrow.gatherPoints, chunks)
	p.narrow.gatherReused = resize(p.narrow.gatherReused, chunks)
	n := int32(0)
	for g := range chunks {
		p.narrow.gatherAt[g] = n
		for _, c := range p.narrow.candN[g*gatherChunk : min((g+1)*gatherChunk, len(p.narrow.pairs))] {
			n += c
		}
	}
	p.narrow.gatherAt[chunks] = n
	if cap(p.narrow.manifolds) < int(n) {
		p.narrow.manifolds = make([]manifold, n, n+n/4)
	}
	p.narrow.manifolds = p.narrow.manifolds[:n]
	p.narrow.manSub = resize(p.narrow.manSub, int(n))
	w.each(loopGatherFill, chunks, gatherGrain)
	contacts, reused := 0, 0
	for g, c := range p.narrow.gatherPoints {
		contacts += int(c)
		reused += int(p.narrow.gatherReused[g])
	}
	w.Stats.Reused = reused
	w.Stats.Manifolds = len(p.narrow.manifolds)
	w.Stats.Contacts = contacts
}

// gatherFill fills the manifolds of pair chunk g (gatherManifolds).
func (w *World) gatherFill(g int) {
	p := &w.pipe
	b := &w.Bodies
	at := p.narrow.gatherAt[g]
	points, reused := int32(0), int32(0)
	add := func(k int, sub int32, c *collide.Manifold) {
		ia, ib := p.narrow.pairs[k].A, p.narrow.pairs[k].B
		m := &p.narrow.manifolds[at]
		*m = manifold{}
		m.a, m.b, m.pair, m.count, m.normal = ia, ib, int32(k), int32(c.Count), ldv(&c.Normal)
		if sub >= 0 {
			m.child = p.narrow.multiChild[k][sub]
		}
		ma, mb := b.material(ia, m.child.a), b.material(ib, m.child.b)
		m.friction = float32(math.Sqrt(float64(ma.Friction * mb.Friction)))
		m.restitution = max(ma.Restitution, mb.Restitution)
		m.resist.rolling = max(ma.RollingResistance, mb.RollingResistance)
		m.resist.spinning = max(ma.SpinningResistance, mb.SpinningResistance)
		for i := 0; i < c.Count; i++ {
			m.pts[i].id = c.Points[i].ID
		}
		if p.narrow.cacheOn && (sub < 0 || fieldPair(b, ia, ib)) {
			p.keepCache(b, m, k, sub, c)
			if p.narrow.candFrom[k] >= 0 {
				reused++
			}
		}
		p.narrow.manSub[at] = sub
		at++
		points += int32(c.Count)
	}
	for k := g * gatherChunk; k < min((g+1)*gatherChunk, len(p.narrow.pairs)); k++ {
		switch n := p.narrow.candN[k]; {
		case n == 0:
		case p.narrow.candMulti[k]:
			for s := range p.narrow.multiCand[k] {
				if p.narrow.multiCand[k][s].Count > 0 {
					add(k, int32(s), &p.narrow.multiCand[k][s])
				}
			}
		default:
			add(k, -1, &p.narrow.cand[k])
		}
	}
	p.narrow.gatherPoints[g] = points
	p.narrow.gatherReused[g] = reused
}

// dropBody updates last step's manifolds (prev) for RemoveBody of body i, after the last body moved
// into i: the removed body's manifolds go and the moved body's are renamed, b = last becoming i, so
// that the other pairs keep their warm starts and cached points. A renamed manifold whose bodies would
// change order (its other body above i) goes too: its normal, points and anchors are A's and B's in
// that order. The rest keep their order and the renamed ones are merged in by pair, so prev stays
// sorted for findPrev; the merge writes into manifolds, which holds nothing between steps.
func (s *narrowStage) dropBody(i, last int32) {
	var moved []int32 // the renamed manifolds, in prev's order (by a)
	for k := range s.prev {
		if m := &s.prev[k]; i != last && m.b == last && m.a < i {
			moved = append(moved, int32(k))
		}
	}
	out := s.manifolds[:0]
	if cap(out) < len(s.prev) {
		out = make([]manifold, 0, cap(s.prev))
	}
	next := 0
	// emit appends the renamed manifolds whose pair (a, i) sorts before (a, b).
	emit := func(a, b int32) {
		for ; next < len(moved); next++ {
			m := &s.prev[moved[next]]
			if m.a > a || m.a == a && i > b {
				return
			}
			out = append(out, *m)
			out[len(out)-1].b = i
		}
	}
	for k := range s.prev {
		m := &s.prev[k]
		if m.a == i || m.b == i || m.b == last {
			continue // the removed body's, or the moved one's (renamed, or out of order)
		}
		emit(m.a, m.b)
		out = append(out, *m)
	}
	emit(last, last)
	s.prev, s.manifolds = out, s.prev[:0]
}

// findPrev returns the index of last step's first manifold for the pair (a, b), or -1, and where
// the search ended (a hint for the next pair's). prev is sorted by (a, b); a pair with a mesh may have
// several manifolds, which follow the first. Prepare looks pairs up in increasing order, so the
// search gallops forward from the last one's position (a few probes near it, in cache) rather than
// bisecting all of prev (a probe per halving, each a cache miss in a large scene); it finds the same
// index.
func (p *pipeline) findPrev(a, b int32, hint int) (int, int) {
	before := func(m *manifold) bool { return m.a < a || (m.a == a && m.b < b) }
	lo, hi := 0, len(p.narrow.prev)
	if hint > 0 && hint <= hi && before(&p.narrow.prev[hint-1]) {
		lo = hint // every entry before hint precedes (a, b)
		for step := 1; ; step *= 2 {
			probe := lo + step - 1
			if probe >= hi {
				break
			}
			if !before(&p.narrow.prev[probe]) {
				hi = probe // the first entry at or after (a, b) is at most here
				break
			}
			lo = probe + 1
		}
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if before(&p.narrow.prev[mid]) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(p.narrow.prev) && p.narrow.prev[lo].a == a && p.narrow.prev[lo].b == b {
		return lo, lo
	}
	return -1, lo
}

// lastPoints appends to kept the ids of the points of pair (a, b)'s manifolds last step, which
// collide.CollideMeshKeeping keeps while they still hold, and returns it; hint is findPrev's.
func (p *pipeline) lastPoints(a, b int32, hint *int, kept []collide.KeptPoints) []collide.KeptPoints {
	old, h := p.findPrev(a, b, *hint)
	*hint = h
	if old < 0 {
		return kept
	}
	for j := old; j < len(p.narrow.prev) && p.narrow.prev[j].a == a && p.narrow.prev[j].b == b; j++ {
		m := &p.narrow.prev[j]
		kp := collide.KeptPoints{Count: int(m.count)}
		for i := range kp.Count {
			kp.IDs[i] = m.pts[i].id
		}
		kept = append(kept, kp)
	}
	return kept
}

// boundsStage is the Bounds stage's: each body's box and rotation for the step.
type boundsStage struct {
	boxes   []geom.AABB
	dynamic []bool
}

// narrowStage is the Narrow stage's: the pairs' candidate manifolds, this step's manifolds and last step's.
type narrowStage struct {
	widePrep     bool         // the wide stage computes its batches' rows as it packs them (the wide stage's, handed by prepare)
	splitCount   []int32      // under split masses, per body: the rows its mass is split between (the graph's count); else nil
	pairs        []broad.Pair // this step's pairs, the broad stage's (narrowPhaseAll)
	cand         []collide.Manifold
	multiCand    [][]collide.Manifold // per pair with a mesh or a compound: its manifolds (cand[k] is then empty)
	multiChild   [][]childPair        // per pair with a mesh or a compound: each manifold's children
	manSub       []int32              // per manifold: its index in multiCand[pair], or -1 (cand[pair])
	candN        []int32              // per pair: the manifolds it gives (narrowPhase)
	candMulti    []bool               // per pair: a mesh's or a compound's (its manifolds are in multiCand)
	candFrom     []int32              // per pair: the prev manifold whose cached points it reused, or -1
	candMargin   []float32            // per pair: the margin its points were made with (the cache's)
	cacheOn      bool                 // the narrow phase reuses cached manifolds (contact_cache.go)
	speculative  float32              // Settings.Speculative, for the cache
	gatherAt     []int32              // per chunk of gatherChunk pairs: its first manifold
	gatherPoints []int32              // per chunk of gatherChunk pairs: its manifolds' points
	gatherReused []int32              // per chunk of gatherChunk pairs: its manifolds reused from the cache
	manifolds    []manifold
	prev         []manifold   // last step's, sorted by (a, b): warm starting and Contacts
	sums         []impulseSum // per manifold: the impulses it recorded for gatherImpulses
	// mayBounce is 1 once the prepare stage met a point approaching faster than the restitution
	// threshold (read and written with sync/atomic: the prepare loops run on every worker). Without
	// one no manifold can bounce (restitutionImpulse's first test), so a colour solver's
	// restitution pass, which would only visit manifolds to find that, is skipped.
	mayBounce uint32
}

// noteApproach records at prepare time that a point approaches at relVel: one faster than the
// restitution threshold makes the restitution pass run (narrowStage.mayBounce).
func (p *pipeline) noteApproach(relVel float32) {
	if relVel <= -p.plan.ctx.restThreshold && atomic.LoadUint32(&p.narrow.mayBounce) == 0 {
		atomic.StoreUint32(&p.narrow.mayBounce, 1)
	}
}
