package collide

import (
	"math"

	"tumble/sim/geom"
)

// CastTolerance is the gap (m) at which a shape cast counts as touching: Cast's T is the first
// contact's distance or at most CastTolerance/(the approach speed along the normal) short of it,
// never past it.
const CastTolerance = 1e-5

// CastHit is where a swept shape first touches another: how far it moved, the point on the other
// shape's surface, and that surface's unit normal there (pointing out of it, towards the swept shape).
type CastHit struct {
	T      float32
	Point  geom.Vec3
	Normal geom.Vec3
	Child  int // the compound child of b it touched (0 for another shape)
}

// Castable reports whether a shape of kind k can be swept (Cast) or tested for overlap (Overlaps) as
// the moving shape: the convex solids, box, sphere, capsule, hull and cylinder.
func Castable(k geom.Kind) bool {
	return k == geom.Box || k == geom.Sphere || k == geom.Capsule || k == geom.ConvexHull || k == geom.Cylinder
}

// Cast sweeps shape a (Castable) from pose pa along the unit direction d, up to distance tmax, against
// shape b (any kind) at pose pb, all in the world, and returns where it first touches. Shapes that
// touch at the start hit at T = 0; where their cores overlap there is no surface normal to give and the
// hit's Normal is -d, its Point a's centre. A triangle mesh is hit from either side.
//
// The convex pairs use conservative advancement (Mirtich 1996) on the GJK distance: for a pure
// translation, the gap g between two convex shapes closes at most at the speed d.n along the line n
// between their closest points, so moving a by g/(d.n) never passes the contact, and for flat faces
// it lands on it in one step. A plane is met where a's lowest point along its normal meets it.
func Cast(a *geom.Shape, pa geom.Pose, d geom.Vec3, tmax float32, b *geom.Shape, pb geom.Pose) (CastHit, bool) {
	A, ok := coreOf(a, pa)
	if !ok || !(tmax >= 0) {
		return CastHit{}, false
	}
	dir := d3of(d)
	switch b.Kind {
	case geom.Plane:
		return castPlane(&A, dir, float64(tmax), b, pb)
	case geom.TriMesh, geom.HeightField:
		return castMesh(a, pa, dir, float64(tmax), b, pb)
	case geom.Compound:
		return castCompound(a, pa, d, tmax, b.Compound, pb)
	}
	B, ok := coreOf(b, pb)
	if !ok {
		return CastHit{}, false
	}
	return castCores(&A, &B, dir, float64(tmax))
}

// Overlaps reports whether shape a (Castable) at pose pa and shape b (any kind) at pose pb touch or
// overlap: a cast of no length that hits.
func Overlaps(a *geom.Shape, pa geom.Pose, b *geom.Shape, pb geom.Pose) bool {
	_, ok := Cast(a, pa, geom.Vec3{1, 0, 0}, 0, b, pb)
	return ok
}

// castCompound is Cast against each child of c, the first touch kept.
func castCompound(a *geom.Shape, pa geom.Pose, d geom.Vec3, tmax float32, c *geom.CompoundShape, pb geom.Pose) (CastHit, bool) {
	var best CastHit
	found := false
	for i := range c.Children {
		if h, ok := Cast(a, pa, d, tmax, &c.Children[i].Shape, c.ChildPose(pb, i)); ok && (!found || h.T < best.T) {
			best, found, tmax = h, true, h.T
			best.Child = i
		}
	}
	return best, found
}

// castCores advances A along dir until its gap to B is within CastTolerance.
func castCores(A, B *core, dir d3, tmax float64) (CastHit, bool) {
	start, t := A.c, 0.0
	var n, point d3
	for i := range 64 {
		A.c = start.madd(dir, t)
		dist, pa, pb := distance(A, B)
		if dist < 1e-9 {
			if i == 0 {
				return CastHit{Point: start.f32(), Normal: dir.scale(-1).f32()}, true
			}
			// A step cannot pass the contact; rounding can bring the cores together. The last
			// normal stands.
			return CastHit{T: float32(t), Point: point.f32(), Normal: n.f32()}, true
		}
		n = pa.sub(pb).scale(1 / dist) // out of B, towards A
		point = pb.madd(n, B.r)
		gap := dist - A.r - B.r
		if gap <= CastTolerance {
			return CastHit{T: float32(t), Point: point.f32(), Normal: n.f32()}, true
		}
		closing := -dir.dot(n)
		if closing <= 1e-12 {
			return CastHit{}, false // moving apart or alongside: convex shapes' gap only grows
		}
		t += gap / closing
		if t > tmax {
			return CastHit{}, false
		}
	}
	// The steps converge in a few (a sphere grazing a sphere 1e-5 m inside tangency takes 8); after
	// 64, what gap is left is far below any scale that matters.
	return CastHit{T: float32(t), Point: point.f32(), Normal: n.f32()}, true
}

// castPlane meets the plane n.x = off (b at pb) with A's lowest point along n.
func castPlane(A *core, dir d3, tmax float64, b *geom.Shape, pb geom.Pose) (CastHit, bool) {
	n := d3of(pb.Q.Rotate(b.Normal))
	off := float64(b.Offset) + n.dot(d3of(pb.P))
	low := A.support(n.scale(-1)).madd(n, -A.r)
	h := n.dot(low) - off
	if h <= CastTolerance {
		return CastHit{Point: low.madd(n, -h).f32(), Normal: n.f32()}, true
	}
	closing := -dir.dot(n)
	if closing <= 0 {
		return CastHit{}, false
	}
	t := h / closing
	if t > tmax {
		return CastHit{}, false
	}
	return CastHit{T: float32(t), Point: low.madd(dir, t).f32(), Normal: n.f32()}, true
}

// sweepReach caps an unbounded sweep's box: farther than the widest world a plane spans is nowhere.
const sweepReach = 2 * geom.PlaneExtent

// castMesh casts against each triangle of the mesh whose box meets the sweep's, in the mesh's frame,
// and keeps the first hit.
func castMesh(a *geom.Shape, pa geom.Pose, dir d3, tmax float64, b *geom.Shape, pb geom.Pose) (CastHit, bool) {
	if (b.Kind != geom.TriMesh || b.Mesh == nil) && (b.Kind != geom.HeightField || b.Field == nil) {
		return CastHit{}, false
	}
	inv := pb.Q.Conjugate()
	rel := geom.Pose{P: inv.Rotate(pa.P.Sub(pb.P)), Q: inv.Mul(pa.Q)}
	dl := inv.Rotate(dir.f32())
	box := a.Bounds(rel)
	reach := float32(min(tmax, sweepReach))
	end := box
	end.Min, end.Max = end.Min.Add(dl.Mul(reach)), end.Max.Add(dl.Mul(reach))
	box = box.Union(end)
	var tris [][3]geom.Vec3
	if m := b.Mesh; b.Kind == geom.TriMesh {
		var buf [64]int32
		for _, ti := range m.Query(box, buf[:0]) {
			tr := m.Tris[ti]
			tris = append(tris, [3]geom.Vec3{m.Verts[tr[0]], m.Verts[tr[1]], m.Verts[tr[2]]})
		}
	} else {
		for _, tr := range fieldTris(b.Field, box, nil) {
			tris = append(tris, [3]geom.Vec3{tr.v[0].Vec3(), tr.v[1].Vec3(), tr.v[2].Vec3()})
		}
	}
	best, found := CastHit{T: float32(math.Inf(1))}, false
	A, _ := coreOf(a, rel)
	start, ldir := A.c, d3of(dl)
	for _, tr := range tris {
		B := triangleCore(d3of(tr[0]), d3of(tr[1]), d3of(tr[2]))
		A.c = start
		if h, ok := castCores(&A, &B, ldir, min(tmax, float64(best.T))); ok && (!found || h.T < best.T) {
			best, found = h, true
		}
	}
	if !found {
		return CastHit{}, false
	}
	best.Point, best.Normal = pb.Apply(best.Point), pb.Q.Rotate(best.Normal)
	return best, true
}
