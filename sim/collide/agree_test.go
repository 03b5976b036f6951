package collide

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"tumble/sim/geom"
)

// The reference comparison: many random near-contact poses per kind pair, each checked against the
// float64 reference of reference_test.go.

// spacing is the reference's surface sampling step; sampled quantities (deepest point, distance) are
// known to within about one step.
const spacing = 0.03

// refStats records the largest discrepancies seen, so the tolerances can be judged.
type refStats struct {
	trials, overlapping, separated, touching int
	depthErr, surfErr, swapErr               float64
	bufA, bufB                               []rv // sample buffers, reused
}

func (st *refStats) String() string {
	return fmt.Sprintf("%d trials (%d overlapping, %d apart within margin, %d too close to call): max |depth - overlap along normal| %.2g, max anchor off surface %.2g, max swap depth diff %.2g",
		st.trials, st.overlapping, st.separated, st.touching, st.depthErr, st.surfErr, st.swapErr)
}

func minSep(m *Manifold) float64 {
	s := math.Inf(1)
	for i := 0; i < m.Count; i++ {
		s = math.Min(s, float64(m.Points[i].Separation))
	}
	return s
}

// probeDirs are directions along which the least penetration is checked: a spread of directions plus,
// per pair, the shapes' axes, their cross products and the centre line.
var probeDirs = fibonacci(400)

func pairDirs(a, b *refShape) []rv {
	dirs := append([]rv(nil), probeDirs...)
	axes := func(s *refShape) []rv {
		switch s.kind {
		case geom.Box:
			return s.ax[:]
		case geom.Capsule, geom.Cylinder:
			return []rv{s.ax[1]}
		}
		return nil
	}
	for _, u := range axes(a) {
		dirs = append(dirs, u, u.mul(-1))
		for _, v := range axes(b) {
			if c := u.cross(v); c.norm() > 1e-3 {
				dirs = append(dirs, c.unit(), c.unit().mul(-1))
			}
		}
	}
	for _, v := range axes(b) {
		dirs = append(dirs, v, v.mul(-1))
	}
	if d := b.c.sub(a.c); d.norm() > 1e-6 {
		dirs = append(dirs, d.unit())
	}
	return dirs
}

// overlapAlong is how far B must move along u (unit) to clear A's projection: positive when the
// projections overlap, minus the gap otherwise.
func overlapAlong(a, b *refShape, u rv) float64 { return a.support(u) + b.support(u.mul(-1)) }

func TestCollideAgreesWithReference(t *testing.T) {
	pairs := []struct {
		a, b geom.Kind
		// dirTol: allowed |depth - overlap along the normal| and excess over the least overlap, as a
		// fraction of the depth plus a fraction of the shapes' size. Exact closest-point pairs only see
		// float32 rounding; box pairs may keep a face axis within preferFaceTol of the best one.
		rel, abs float64
		trials   int // 0: 250
	}{
		{geom.Sphere, geom.Sphere, 0, 1e-5, 0},
		{geom.Sphere, geom.Capsule, 0, 1e-5, 0},
		{geom.Capsule, geom.Capsule, 0, 1e-5, 0},
		{geom.Sphere, geom.Box, 0, 1e-5, 0},
		{geom.Capsule, geom.Box, preferFaceRel, preferFaceAbs, 0},
		{geom.Box, geom.Box, preferFaceRel, preferFaceAbs, 0},
		// Cylinders: EPA ends within epaTol of the least penetration, GJK within gjkTol of the
		// distance, and the clipped points keep the deepest to within deepestTol of the size. Fewer
		// trials: the reference samples a cylinder densely.
		{geom.Sphere, geom.Cylinder, 0, 1e-5, 80},
		{geom.Capsule, geom.Cylinder, 0, deepestTol + 1e-5, 80},
		{geom.Box, geom.Cylinder, 0, deepestTol + 1e-5, 80},
		{geom.Cylinder, geom.Cylinder, 0, deepestTol + 1e-5, 80},
	}
	for _, pc := range pairs {
		trials := pc.trials
		if trials == 0 {
			trials = 250
		}
		name := pc.a.String() + "-" + pc.b.String()
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(pc.a)*10 + int64(pc.b) + 1))
			var st refStats
			for trial := 0; trial < trials; trial++ {
				sa, sb := randShape(rng, pc.a), randShape(rng, pc.b)
				pa, pb := randPair(rng, &sa, &sb)
				if trial%2 == 1 { // exercise both orders
					sa, sb, pa, pb = sb, sa, pb, pa
				}
				checkPair(t, &st, trial, &sa, pa, &sb, pb, pc.rel, pc.abs)
				if t.Failed() {
					return
				}
			}
			t.Log(st.String())
		})
	}
}

func checkPair(t *testing.T, st *refStats, trial int, sa *geom.Shape, pa geom.Pose, sb *geom.Shape, pb geom.Pose, rel, abs float64) {
	t.Helper()
	ra, rb := newRef(sa, pa), newRef(sb, pb)
	size := math.Min(ra.size(), rb.size())
	where := fmt.Sprintf("trial %d: %v at %v and %v at %v", trial, *sa, pa, *sb, pb)
	st.trials++

	// Reference: the deepest sample of either shape inside the other, and the distance between them
	// (from A's samples to B's exact distance function).
	depthRef, distRef := math.Inf(-1), math.Inf(1)
	st.bufA = ra.samples(spacing, st.bufA[:0])
	st.bufB = rb.samples(spacing, st.bufB[:0])
	for _, x := range st.bufA {
		d := rb.sdf(x)
		depthRef = math.Max(depthRef, -d)
		distRef = math.Min(distRef, d)
	}
	for _, y := range st.bufB {
		depthRef = math.Max(depthRef, -ra.sdf(y))
	}
	sampleTol := spacing // a sample lies within spacing/sqrt(2) of any surface point

	// 1. Overlap or not, with no margin.
	var m Manifold
	Collide(sa, pa, sb, pb, 0, &m)
	switch {
	case depthRef > sampleTol:
		st.overlapping++
		if m.Count == 0 {
			t.Fatalf("%s: reference overlaps by %.4f, Collide found no contact", where, depthRef)
		}
	case distRef > sampleTol:
		st.separated++
		if m.Count != 0 {
			t.Fatalf("%s: reference apart by %.4f, Collide gave %d points (min sep %.4f)", where, distRef, m.Count, minSep(&m))
		}
	default:
		st.touching++
	}

	// 2. With a margin: depth, normal and points.
	margin := float32(0.2 * size)
	Collide(sa, pa, sb, pb, margin, &m)
	if distRef < float64(margin)-sampleTol && sa.Kind != geom.Box && sb.Kind != geom.Box && m.Count == 0 {
		t.Fatalf("%s: reference distance %.4f below margin %.4f, no contact", where, distRef, margin)
	}
	if m.Count == 0 {
		return
	}
	n := toRV(m.Normal)
	if math.Abs(n.norm()-1) > 1e-5 {
		t.Fatalf("%s: normal %v not unit", where, m.Normal)
	}
	depth := -minSep(&m)
	// A face axis may be kept over a better one by up to rel of its own (larger) depth plus abs of the
	// size, so the tolerance scales with the larger of the depths compared.
	tolFor := func(depths ...float64) float64 {
		x := 0.0
		for _, d := range depths {
			x = math.Max(x, math.Abs(d))
		}
		return rel*x + abs*size + 2e-5
	}
	ovl := overlapAlong(&ra, &rb, n)
	tol := tolFor(depth, ovl)
	if depth > 0 {
		// The reported depth is the projections' overlap along the normal, and no direction separates
		// the shapes with a shorter move (the normal is the least penetration axis, pointing A to B).
		if e := math.Abs(depth - ovl); e > tol {
			t.Fatalf("%s: depth %.5f, overlap along normal %.5f", where, depth, ovl)
		} else {
			st.depthErr = math.Max(st.depthErr, e)
		}
		for _, u := range pairDirs(&ra, &rb) {
			if o := overlapAlong(&ra, &rb, u); depth > o+tol {
				t.Fatalf("%s: depth %.5f along %v but only %.5f along %v", where, depth, m.Normal, o, u)
			}
		}
		if depth < depthRef-sampleTol {
			t.Fatalf("%s: depth %.5f below the reference's deepest point %.5f", where, depth, depthRef)
		}
	} else {
		// Apart: the points are no closer than the gap along the normal allows, and (closest-point
		// pairs) the separation is the distance.
		if -depth < -ovl-tol {
			t.Fatalf("%s: separation %.5f below the gap %.5f along the normal", where, -depth, -ovl)
		}
		if sa.Kind != geom.Box || sb.Kind != geom.Box {
			if e := math.Abs(-depth - math.Max(distRef, 0)); e > sampleTol {
				t.Fatalf("%s: separation %.5f, reference distance %.5f", where, -depth, distRef)
			}
		}
	}
	// Each point: separation below the margin, anchors on their own shape's surface, and each anchor
	// as far inside (or outside) the other shape as the separation says.
	// Clipping keeps points up to clipSlack of a face's half extents beyond its edges (both, at a corner).
	surfTol := math.Sqrt2*clipSlack*math.Max(ra.size(), rb.size()) + 2e-5
	thin := math.Min(ra.thickness(), rb.thickness())
	for i := 0; i < m.Count; i++ {
		p := m.Points[i]
		s := float64(p.Separation)
		if p.Separation >= margin {
			t.Fatalf("%s: point %d separation %.5f not below margin %.5f", where, i, s, margin)
		}
		pos := toRV(p.Position)
		ancA, ancB := pos.madd(n, -s/2), pos.madd(n, s/2)
		da, db := ra.sdf(ancA), rb.sdf(ancB)
		if da > surfTol || db > surfTol || da < -surfTol && sa.Kind != geom.Capsule || db < -surfTol && sb.Kind != geom.Capsule {
			t.Fatalf("%s: point %d %+v: anchors %.5f from A's surface, %.5f from B's", where, i, p, da, db)
		}
		st.surfErr = math.Max(st.surfErr, math.Max(da, db))
		// Apart: both anchors are outside the other shape, no further from it than the separation.
		// Overlapping: no anchor is deeper in the other shape than the separation, and at least one is
		// inside it (with a deep face contact, the reference face's anchor above a clipped incident
		// point can lie outside the incident box, past its side face; and neither need be inside once
		// the depth passes the thickness of a shape). A capsule tilted towards the
		// other shape is nearer to an anchor than that point's separation says (its core comes closer
		// elsewhere), so with capsules only the upper bounds hold.
		oa, ob := rb.sdf(ancA), ra.sdf(ancB)
		var bad bool
		if s > 0 {
			bad = oa > s+surfTol || ob > s+surfTol
		} else if depth < thin {
			bad = math.Min(oa, ob) > surfTol
		}
		if sa.Kind != geom.Capsule && sb.Kind != geom.Capsule {
			lo := math.Min(s, 0) - surfTol
			bad = bad || oa < lo || ob < lo
		}
		if bad {
			t.Fatalf("%s: point %d %+v: A's anchor %.5f from B, B's anchor %.5f from A", where, i, p, oa, ob)
		}
	}

	// 3. Swapping A and B flips the normal and keeps the depth.
	var w Manifold
	Collide(sb, pb, sa, pa, margin, &w)
	if w.Count == 0 {
		t.Fatalf("%s: no contact when swapped", where)
	}
	wd := -minSep(&w)
	e := math.Abs(wd - depth)
	wovl := overlapAlong(&ra, &rb, toRV(w.Normal).mul(-1))
	tol = tolFor(depth, ovl, wd, wovl)
	if e > tol {
		t.Fatalf("%s: depth %.5f, swapped %.5f", where, depth, wd)
	}
	st.swapErr = math.Max(st.swapErr, e)
	wn := toRV(w.Normal)
	if wn.dot(n) > -1+1e-4 {
		// Only two boxes may pick a different (equally good) axis: the first box's faces are preferred.
		// Overlapping, its depth must be the overlap along it; apart, its points no nearer than the gap
		// along it (the points of a face contact between boxes apart lie further than that gap).
		off := math.Abs(wovl - wd)
		if wd < 0 {
			off = math.Max(0, wd-wovl)
		}
		if sa.Kind != geom.Box || sb.Kind != geom.Box || off > tol {
			t.Fatalf("%s: normal %v, swapped %v", where, m.Normal, w.Normal)
		}
	}
}
