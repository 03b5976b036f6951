package sim

import (
	"fmt"
	"math"
	"slices"

	"tumble/sim/broad/bvh"
	"tumble/sim/collide"
	"tumble/sim/geom"
)

// Scene queries: what a ray, a swept shape or a shape at rest meets among the world's bodies, as the
// bodies stand now. Each query walks a bounding volume hierarchy over the bodies' boxes (the broad
// phase's linear BVH, built for queries alone) and tests only the bodies whose boxes it reaches with
// the exact per-shape maths of package collide. The tree is built on the first query after a step or an
// edit and kept for the queries that follow, so many queries between two steps pay for it once.
//
// With a backend (the CUDA one), a query first brings Bodies up to date (Sync), so every backend
// answers the same queries; a failed read-back is kept and returned by the next Step, and the query
// answers from the bodies as last read. A query updates that cached tree, so, like a step or an edit,
// it is made from the goroutine that drives the world.

// Hit is what a scene query found: the body, its dense index when the query ran, the distance along
// the query's direction (a ray's distance to the surface, or how far a swept shape moved before it
// touched), the world point on the body's surface, and the body's unit surface normal there (pointing
// out of it, towards the ray's origin or the swept shape).
type Hit struct {
	Body   Handle
	Index  int
	T      float32
	Point  Vec3
	Normal Vec3
	// Child is the compound child hit (geom.CompoundShape.Children's index; 0 for a body of one shape).
	Child int
}

// TypeMask is a set of body types: bit t holds BodyType t. The zero mask holds every type.
type TypeMask uint8

// TypesOf returns the mask of the given types.
func TypesOf(types ...BodyType) TypeMask {
	var m TypeMask
	for _, t := range types {
		m |= 1 << t
	}
	return m
}

// Has reports whether the mask holds type t (the zero mask holds all).
func (m TypeMask) Has(t BodyType) bool { return m == 0 || m&(1<<t) != 0 }

// QueryFilter chooses the bodies a scene query sees. The zero filter sees every body.
type QueryFilter struct {
	// Exclude leaves this body out (a probe's own body); the zero Handle leaves none out.
	Exclude Handle
	// Types are the body types seen; zero sees every type.
	Types TypeMask
	// Accept, when set, is asked about each body the rest lets through: false leaves it out.
	Accept func(h Handle) bool
}

// queryCache is the scene queries' tree over the bodies' boxes, valid for the world as it was at step
// step while valid holds: a step moves StepCount on, and every edit of a body (beforeEdit, edited,
// RestoreState) clears valid.
type queryCache struct {
	tree  *bvh.LBVH
	boxes []geom.AABB
	step  int
	valid bool
}

// queryTreeGrowth lets the query tree be refitted, not rebuilt, while its cost stays within this factor
// of a fresh build's (bvh.LBVH.RefitGrowth): a step moves bodies little, and a refit of 10,000 boxes
// took 0.38 ms where a rebuild took 1.0 ms (least of 20, one thread).
const queryTreeGrowth = 2

// queryTree brings Bodies up to date with the backend, if any, and returns the tree over their boxes,
// built now if the world stepped or was edited since the last one.
func (w *World) queryTree() *bvh.LBVH {
	if w.backend != nil && w.stale {
		if err := w.Sync(); err != nil && w.backendErr == nil {
			w.backendErr = err
		}
	}
	c := &w.queries
	b := &w.Bodies
	if c.valid && c.step == w.StepCount && len(c.boxes) == b.Len() {
		return c.tree
	}
	if c.tree == nil {
		c.tree = bvh.New()
		c.tree.RefitGrowth = queryTreeGrowth
	}
	c.boxes = slices.Grow(c.boxes[:0], b.Len())[:b.Len()]
	for i := range c.boxes {
		c.boxes[i] = b.Shape[i].Bounds(geom.Pose{P: b.Position[i], Q: b.Rotation[i]})
	}
	c.tree.Build(c.boxes)
	// Bodies still waiting on a read-back are not the world as it is: build again next time.
	c.step, c.valid = w.StepCount, !(w.backend != nil && w.stale)
	return c.tree
}

// invalidateQueries marks the query tree out of date: a body was added, removed, moved or reshaped.
func (w *World) invalidateQueries() { w.queries.valid = false }

// admits reports whether filter f lets the body at dense index i through.
func (w *World) admits(f *QueryFilter, i int) bool {
	if !f.Types.Has(w.Bodies.Type[i]) {
		return false
	}
	if f.Exclude == (Handle{}) && f.Accept == nil {
		return true
	}
	h := w.HandleAt(i)
	return h != f.Exclude && (f.Accept == nil || f.Accept(h))
}

// bodyPose is body i's pose.
func (w *World) bodyPose(i int32) geom.Pose {
	return geom.Pose{P: w.Bodies.Position[i], Q: w.Bodies.Rotation[i]}
}

// unitDir returns d normalised, or false for a zero or non-finite d.
func unitDir(d Vec3) (Vec3, bool) {
	l := d.Len()
	if !(l > 0) || math.IsInf(float64(l), 0) {
		return Vec3{}, false
	}
	return d.Mul(1 / l), true
}

// RayCast returns the first body the ray from origin along dir meets within maxDist (+Inf: no limit)
// and that f lets through. dir need not be unit: Hit.T is in metres along it. A ray that starts inside
// a body passes out of it without hitting it; planes are hit from their front, triangle meshes from
// either side. A zero or non-finite dir, or a negative maxDist, hits nothing.
func (w *World) RayCast(origin, dir Vec3, maxDist float32, f QueryFilter) (Hit, bool) {
	d, ok := unitDir(dir)
	if !ok || !(maxDist >= 0) {
		return Hit{}, false
	}
	b := &w.Bodies
	best, found := Hit{T: maxDist}, false
	w.queryTree().Cast(origin, d, Vec3{}, maxDist, func(i int32, _, tmax float32) float32 {
		if !w.admits(&f, int(i)) {
			return tmax
		}
		if t, n, c, ok := collide.RayChild(&b.Shape[i], w.bodyPose(i), origin, d, tmax); ok && (!found || t < best.T) {
			best, found = Hit{Index: int(i), T: t, Normal: n, Child: c}, true
			return t
		}
		return tmax
	})
	if !found {
		return Hit{}, false
	}
	best.Body, best.Point = w.HandleAt(best.Index), origin.Add(d.Mul(best.T))
	return best, true
}

// RayCastBody is RayCast against the one body h: where the ray from origin along dir meets its
// shape within maxDist. It reads that body alone (BodyState: with a backend, one body crosses the
// bus) and builds no tree, so it costs the same whatever the number of bodies: a hover that asks
// whether the body under a still cursor is still there, after a step, pays for one body, not for all.
// A gone handle hits nothing; a failed read-back hits nothing and, as a query's, is returned by the
// next Step.
func (w *World) RayCastBody(h Handle, origin, dir Vec3, maxDist float32) (Hit, bool) {
	d, ok := unitDir(dir)
	if !ok || !(maxDist >= 0) {
		return Hit{}, false
	}
	i, ok := w.dense(h)
	if !ok {
		return Hit{}, false
	}
	s, err := w.BodyState(h)
	if err != nil {
		if w.backendErr == nil {
			w.backendErr = err
		}
		return Hit{}, false
	}
	t, n, c, hit := collide.RayChild(&w.Bodies.Shape[i], geom.Pose{P: s.Position, Q: s.Rotation}, origin, d, maxDist)
	if !hit {
		return Hit{}, false
	}
	return Hit{Body: h, Index: i, T: t, Point: origin.Add(d.Mul(t)), Normal: n, Child: c}, true
}

// RayCastAll returns every body the ray meets within maxDist that f lets through, nearest first (equal
// distances in dense index order), one hit per body: where the ray enters it. The rules are
// RayCast's.
func (w *World) RayCastAll(origin, dir Vec3, maxDist float32, f QueryFilter) []Hit {
	d, ok := unitDir(dir)
	if !ok || !(maxDist >= 0) {
		return nil
	}
	b := &w.Bodies
	var hits []Hit
	w.queryTree().Cast(origin, d, Vec3{}, maxDist, func(i int32, _, tmax float32) float32 {
		if w.admits(&f, int(i)) {
			if t, n, c, ok := collide.RayChild(&b.Shape[i], w.bodyPose(i), origin, d, tmax); ok {
				hits = append(hits, Hit{Body: w.HandleAt(int(i)), Index: int(i), T: t, Point: origin.Add(d.Mul(t)), Normal: n, Child: c})
			}
		}
		return tmax
	})
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.T != b.T {
			if a.T < b.T {
				return -1
			}
			return 1
		}
		return a.Index - b.Index
	})
	return hits
}

// checkQueryShape refuses a query shape that cannot be swept or tested for overlap.
func checkQueryShape(what string, s *geom.Shape) error {
	if !collide.Castable(s.Kind) {
		return fmt.Errorf("sim: %s: the shape is a %s; a query shape is a box, sphere, capsule or hull", what, s.Kind)
	}
	if s.Kind == geom.ConvexHull && s.Hull == nil {
		return fmt.Errorf("sim: %s: the hull shape has no Hull", what)
	}
	return nil
}

// ShapeCast sweeps shape s (a box, sphere, capsule or hull, as a body holds it: centred on its centre
// of mass) from pose along dir, up to maxDist (+Inf: no limit), and returns the first body it touches
// that f lets through: Hit.T is how far it moved (to within collide.CastTolerance of the contact,
// never past it), Point and Normal are on the body's surface there. A body the shape touches at its
// start pose is hit at T = 0. dir need not be unit; a zero pose.Q is the identity, as in BodyDef.
// Another kind of shape is an error.
func (w *World) ShapeCast(s geom.Shape, pose geom.Pose, dir Vec3, maxDist float32, f QueryFilter) (Hit, bool, error) {
	if err := checkQueryShape("ShapeCast", &s); err != nil {
		return Hit{}, false, err
	}
	d, ok := unitDir(dir)
	if !ok || !(maxDist >= 0) {
		return Hit{}, false, nil
	}
	// The swept shape's box moves with its centre: the tree is cast along that segment with the box's
	// half extents (a Minkowski sum), which reaches every body the shape can touch.
	box := s.Bounds(pose)
	ext := box.Max.Sub(box.Min).Mul(0.5)
	b := &w.Bodies
	best, found := Hit{T: maxDist}, false
	w.queryTree().Cast(box.Centre(), d, ext, maxDist, func(i int32, _, tmax float32) float32 {
		if !w.admits(&f, int(i)) {
			return tmax
		}
		if h, ok := collide.Cast(&s, pose, d, tmax, &b.Shape[i], w.bodyPose(i)); ok && (!found || h.T < best.T) {
			best, found = Hit{Index: int(i), T: h.T, Point: h.Point, Normal: h.Normal, Child: h.Child}, true
			return h.T
		}
		return tmax
	})
	if !found {
		return Hit{}, false, nil
	}
	best.Body = w.HandleAt(best.Index)
	return best, true, nil
}

// Overlap returns the bodies that shape s (a box, sphere, capsule or hull) at pose touches or overlaps
// and that f lets through, in dense index order. A zero pose.Q is the identity, as in BodyDef. Another
// kind of shape is an error.
func (w *World) Overlap(s geom.Shape, pose geom.Pose, f QueryFilter) ([]Handle, error) {
	if err := checkQueryShape("Overlap", &s); err != nil {
		return nil, err
	}
	b := &w.Bodies
	var found []int32
	w.queryTree().Overlap(s.Bounds(pose), func(i int32) {
		if w.admits(&f, int(i)) && collide.Overlaps(&s, pose, &b.Shape[i], w.bodyPose(i)) {
			found = append(found, i)
		}
	})
	slices.Sort(found)
	out := make([]Handle, len(found))
	for k, i := range found {
		out[k] = w.HandleAt(int(i))
	}
	return out, nil
}
