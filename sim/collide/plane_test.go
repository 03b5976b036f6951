package collide

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"tumble/sim/geom"
)

// Planes against the reference: the plane is exact, so the lowest point of the other shape (from its
// exact support function) gives the depth, and every point can be checked tightly.

func TestPlaneContactsAgreeWithReference(t *testing.T) {
	for _, k := range []geom.Kind{geom.Box, geom.Sphere, geom.Capsule, geom.Cylinder} {
		t.Run("plane-"+k.String(), func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(k) + 100))
			for trial := 0; trial < 300; trial++ {
				checkPlanePair(t, rng, trial, k)
				if t.Failed() {
					return
				}
			}
		})
	}
}

func checkPlanePair(t *testing.T, rng *rand.Rand, trial int, k geom.Kind) {
	t.Helper()
	plane := geom.Shape{Kind: geom.Plane, Normal: randUnit(rng).vec(), Offset: uniform(rng, -1, 1)}
	pp := geom.Pose{P: geom.Vec3{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)}, Q: randQuat(rng)}
	s := randShape(rng, k)
	rp := newRef(&plane, pp)
	ps := geom.Pose{Q: randQuat(rng)}
	rs := newRef(&s, ps)
	size := rs.size()
	// Put the shape's lowest point at height gap above the plane.
	gap := (rng.Float64()*0.6 - 0.4) * size
	foot := rp.n.mul(rp.d).add(randUnit(rng).cross(rp.n).mul(2))
	ps.P = foot.madd(rp.n, rs.support(rp.n.mul(-1))+gap).vec()
	rs = newRef(&s, ps)
	lowest := -rs.support(rp.n.mul(-1)) - rp.d // exact height of the lowest point
	margin := float32(0.3 * size)
	where := fmt.Sprintf("trial %d: %v at %v, plane %v at %v", trial, s, ps, plane, pp)
	const tol = 2e-5

	// Heights of the features that can touch: a box's corners, a capsule's two ends, a sphere's centre.
	var heights []float64
	switch k {
	case geom.Box:
		for v := 0; v < 8; v++ {
			var l rv
			for a := 0; a < 3; a++ {
				l[a] = rs.h[a]
				if v&(1<<a) == 0 {
					l[a] = -l[a]
				}
			}
			heights = append(heights, rp.sdf(rs.world(l)))
		}
	case geom.Capsule:
		heights = append(heights, rp.sdf(rs.world(rv{0, -rs.hh, 0}))-rs.r, rp.sdf(rs.world(rv{0, rs.hh, 0}))-rs.r)
	case geom.Sphere:
		heights = append(heights, rp.sdf(rs.c)-rs.r)
	case geom.Cylinder:
		// The lowest rim point must be there; up to three more rim points may be.
		heights = append(heights, lowest)
	}
	want := 0
	for _, h := range heights {
		if h < float64(margin)-tol {
			want++
		}
	}
	want = min(want, 4)

	for _, swap := range []bool{false, true} {
		var m Manifold
		n := rp.n
		if swap {
			Collide(&s, ps, &plane, pp, margin, &m)
			n = n.mul(-1)
		} else {
			Collide(&plane, pp, &s, ps, margin, &m)
		}
		most := min(len(heights), 4)
		if k == geom.Cylinder {
			most = 4
		}
		if m.Count < want || m.Count > most {
			t.Fatalf("%s (swap %v): %d points, want %d (heights %v)", where, swap, m.Count, want, heights)
		}
		if m.Count == 0 {
			continue
		}
		if d := toRV(m.Normal).sub(n).norm(); d > 1e-5 {
			t.Fatalf("%s (swap %v): normal %v, want %v", where, swap, m.Normal, n)
		}
		depthTol := tol
		if k == geom.Cylinder {
			depthTol += deepestTol * math.Hypot(rs.r, rs.hh) // keepDeepest's
		}
		if e := math.Abs(minSep(&m) - lowest); e > depthTol {
			t.Fatalf("%s (swap %v): min separation %.6f, lowest point at %.6f", where, swap, minSep(&m), lowest)
		}
		for i := 0; i < m.Count; i++ {
			p := m.Points[i]
			sep := float64(p.Separation)
			if p.Separation >= margin {
				t.Fatalf("%s: separation %v not below margin %v", where, sep, margin)
			}
			// The anchors: on the plane, and on the shape's surface at the height the separation says.
			ancP, ancS := toRV(p.Position).madd(n, -sep/2), toRV(p.Position).madd(n, sep/2)
			if swap {
				ancP, ancS = ancS, ancP
			}
			if e := math.Abs(rp.sdf(ancP)); e > tol {
				t.Fatalf("%s: point %d %+v: plane anchor %.2g off the plane", where, i, p, e)
			}
			e := math.Abs(rs.sdf(ancS))
			if k == geom.Capsule {
				// The lowest point of an end's sphere: inside the capsule when it is tilted.
				e0, e1 := rs.world(rv{0, -rs.hh, 0}), rs.world(rv{0, rs.hh, 0})
				e = math.Min(math.Abs(ancS.sub(e0).norm()-rs.r), math.Abs(ancS.sub(e1).norm()-rs.r))
			}
			if e > tol {
				t.Fatalf("%s: point %d %+v: shape anchor %.2g off the shape", where, i, p, e)
			}
			if e := math.Abs(rp.sdf(ancS) - sep); e > tol {
				t.Fatalf("%s: point %d %+v: shape anchor at height %.6f", where, i, p, rp.sdf(ancS))
			}
		}
	}
}

func TestPlanePlaneNeverCollides(t *testing.T) {
	p := geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}
	q := geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{1, 0, 0}}
	m := Manifold{Count: 3}
	Collide(&p, geom.Identity, &q, geom.Identity, 1, &m)
	if m.Count != 0 {
		t.Fatalf("plane-plane gave %d points", m.Count)
	}
}
