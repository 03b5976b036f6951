package sim

import (
	"math"

	"tumble/sim/collide"
	"tumble/sim/geom"
)

// The contact cache (Jolt's body pair cache): a touching pair whose bodies have barely moved relative
// to each other since the narrow phase last tested them reuses that test's points instead of testing
// again. The points are kept on each body's surface in the body's frame, so they move with the bodies;
// the reused points' separations are measured afresh from them. The reference is the pose at which the
// points were computed, not last step's, so a slow drift still ends the reuse once it adds up.
//
// A resting pile's pairs all hit: the pyramid's 1,240 box-box tests (SAT and clipping, about 200 ns
// each) become a lookup and two rotations per point. What the cache gives up is what moved within its
// tolerances: a point that a 1 mm shift or a 2 degree turn would have made or removed waits until the
// drift exceeds them.

// CacheMaxShift is how far, m, a pair's bodies may move relative to each other (B's centre in A's frame)
// since their points were computed for the points to be reused: Jolt's default.
const CacheMaxShift = 0.001

// CacheMaxTurn is how far, radians, a pair's bodies may turn relative to each other since their points
// were computed for the points to be reused: Jolt's default, 2 degrees.
const CacheMaxTurn = 2 * math.Pi / 180

// cacheCosHalfTurn is cos(CacheMaxTurn / 2): the least |q1 . q2| of two relative rotations within it.
var cacheCosHalfTurn = float32(math.Cos(CacheMaxTurn / 2))

// cacheMarginGrowth is how much, as a fraction of the speculative distance, the margin a pair's points
// are wanted within may exceed the one they were computed with: a pair that starts closing fast wants
// speculative points farther out than the cached ones, so it is tested again.
const cacheMarginGrowth = 0.25

// manifoldCache is a manifold's points as the narrow phase computed them, for later steps to reuse: the
// relative pose they hold for and, in A's frame, the normal and each point on A's surface, and in B's
// frame each point on B's surface. margin is 0 when there is nothing to reuse (a mesh's manifold, the
// cache off).
type manifoldCache struct {
	rel    vec        // B's centre in A's frame
	rot    [4]float32 // conj(qA) qB: B's rotation in A's frame (w, x, y, z)
	normal vec        // the normal, from A to B, in A's frame
	margin float32    // the speculative margin the points were made within, m
	onA    [4]vec     // each point on A's surface, in A's frame
	onB    [4]vec     // each point on B's surface, in B's frame
}

// ContactCacheOn reports whether the world's steps reuse cached contact points: on the CPU, with a
// solver that has the cache (ParamContactCache) and Settings.NoContactCache unset.
func (w *World) ContactCacheOn() bool {
	return w.backend == nil && !w.settings.NoContactCache && SolverOf(w.settings.Solver).Params().Has(ParamContactCache)
}

// relPose returns B's centre and rotation in A's frame: conj(qA) (xB - xA) and conj(qA) qB.
func relPose(b *Bodies, rA *Mat3, ia, ib int32) (vec, [4]float32) {
	d := mulMatT(rA, ldv(&b.Position[ib]).Sub(ldv(&b.Position[ia])))
	qa, qb := &b.Rotation[ia], &b.Rotation[ib]
	aw, ax, ay, az := qa.W, qa.V[0], qa.V[1], qa.V[2]
	bw, bx, by, bz := qb.W, qb.V[0], qb.V[1], qb.V[2]
	// (aw, -av) (bw, bv) = (aw bw + av . bv, aw bv - bw av - av x bv)
	return d, [4]float32{
		aw*bw + ax*bx + ay*by + az*bz,
		aw*bx - bw*ax - (ay*bz - az*by),
		aw*by - bw*ay - (az*bx - ax*bz),
		aw*bz - bw*az - (ax*by - ay*bx),
	}
}

// reuse fills pair k's narrow-phase manifold from last step's manifold of the pair (ia, ib) when that
// one's cached points still hold (cacheHolds). It reports whether it did; hint is findPrev's, for the
// next pair of the same run.
func (p *pipeline) reuse(b *Bodies, k int, ia, ib int32, margin float32, hint *int) bool {
	old, h := p.findPrev(ia, ib, *hint)
	*hint = h
	if old < 0 || !p.cacheHolds(b, &p.narrow.prev[old], ia, ib, margin) {
		return false
	}
	p.fromCache(b, &p.narrow.prev[old], ia, ib, &p.narrow.cand[k])
	p.narrow.candFrom[k] = int32(old)
	return true
}

// reuseField fills height-field pair k's manifolds (multiCand) from last step's manifolds of the pair
// (ia, ib) when their cached points still hold, as reuse does for a pair of one manifold. A body on a
// terrain touches a few triangles a step, each clipped against it and the results merged
// (collide.CollideMesh): all of that is skipped while the body rests. The pair's manifolds were made
// in one test at one relative pose, so the first one's cache decides for all of them.
func (p *pipeline) reuseField(b *Bodies, k int, ia, ib int32, margin float32, hint *int) bool {
	old, h := p.findPrev(ia, ib, *hint)
	*hint = h
	prev := p.narrow.prev
	if old < 0 || !p.cacheHolds(b, &prev[old], ia, ib, margin) {
		return false
	}
	out := p.narrow.multiCand[k][:0]
	for j := old; j < len(prev) && prev[j].a == ia && prev[j].b == ib; j++ {
		out = append(out, collide.Manifold{})
		p.fromCache(b, &prev[j], ia, ib, &out[len(out)-1])
	}
	p.narrow.multiCand[k] = out
	p.narrow.multiChild[k] = resize(p.narrow.multiChild[k], len(out))
	clear(p.narrow.multiChild[k])
	p.narrow.candN[k] = int32(len(out))
	p.narrow.candFrom[k] = int32(old)
	return true
}

// cacheHolds reports whether manifold om's cached points hold for the pair (ia, ib) now: the bodies
// moved and turned relative to each other within the cache's tolerances since the points were
// computed, and the pair wants its points within no wider a margin.
func (p *pipeline) cacheHolds(b *Bodies, om *manifold, ia, ib int32, margin float32) bool {
	c := &om.cache
	if c.margin <= 0 || margin > c.margin+cacheMarginGrowth*p.narrow.speculative {
		return false
	}
	d, q := relPose(b, &b.rot[ia], ia, ib)
	if s := d.Sub(c.rel); s.Dot(s) > CacheMaxShift*CacheMaxShift {
		return false
	}
	dot := q[0]*c.rot[0] + q[1]*c.rot[1] + q[2]*c.rot[2] + q[3]*c.rot[3]
	return dot >= cacheCosHalfTurn || -dot >= cacheCosHalfTurn
}

// fromCache writes manifold om's cached points, carried by the bodies' current poses, into m: the
// normal turned with A, each point midway between its ends on A and B, its separation measured
// afresh along the normal, and its feature id kept.
func (p *pipeline) fromCache(b *Bodies, om *manifold, ia, ib int32, m *collide.Manifold) {
	c := &om.cache
	rA, rB := &b.rot[ia], &b.rot[ib]
	xA, xB := ldv(&b.Position[ia]), ldv(&b.Position[ib])
	n := mulMat(rA, c.normal)
	stv(&m.Normal, n)
	m.Count = int(om.count)
	for i := range m.Count {
		pa := xA.Add(mulMat(rA, c.onA[i]))
		pb := xB.Add(mulMat(rB, c.onB[i]))
		pt := &m.Points[i]
		stv(&pt.Position, pa.Add(pb).Scale(0.5))
		pt.Separation = pb.Sub(pa).Dot(n)
		pt.ID = om.pts[i].id
	}
}

// fieldPair reports whether the pair (ia, ib) is a height field and a shape of one piece: the pairs
// of several manifolds that the contact cache keeps (reuseField).
func fieldPair(b *Bodies, ia, ib int32) bool {
	ka, kb := b.Shape[ia].Kind, b.Shape[ib].Kind
	return (ka == geom.HeightField || kb == geom.HeightField) && ka != geom.Compound && kb != geom.Compound
}

// keepCache sets manifold m's cache, for pair k whose narrow-phase manifold is c (sub: its index in
// the pair's multiCand, or -1 for cand): a copy of the reused one's, or the points of a fresh test in
// the bodies' frames.
func (p *pipeline) keepCache(b *Bodies, m *manifold, k int, sub int32, c *collide.Manifold) {
	if from := p.narrow.candFrom[k]; from >= 0 {
		m.cache = p.narrow.prev[from+max(sub, 0)].cache
		return
	}
	ia, ib := m.a, m.b
	rA, rB := &b.rot[ia], &b.rot[ib]
	mc := &m.cache
	mc.rel, mc.rot = relPose(b, rA, ia, ib)
	n := ldv(&c.Normal)
	mc.normal = mulMatT(rA, n)
	mc.margin = p.narrow.candMargin[k]
	xA, xB := ldv(&b.Position[ia]), ldv(&b.Position[ib])
	for i := range c.Count {
		pt := &c.Points[i]
		half := n.Scale(0.5 * pt.Separation)
		pos := ldv(&pt.Position)
		mc.onA[i] = mulMatT(rA, pos.Sub(half).Sub(xA))
		mc.onB[i] = mulMatT(rB, pos.Add(half).Sub(xB))
	}
}
