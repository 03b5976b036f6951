package collide

import (
	"math"
	"math/rand"
	"testing"

	"tumble/sim/geom"
)

// Hulls are checked against the box routines (which reference_test.go checks against a float64
// reference): a hull built from a box's corners must collide like the box, with every kind.

// hullOfBox is the convex hull of a box's 8 corners: the same solid, through the hull routines.
func hullOfBox(h geom.Vec3) geom.Shape {
	var pts []geom.Vec3
	for i := 0; i < 8; i++ {
		pts = append(pts, geom.Vec3{float32(i&1*2-1) * h[0], float32(i>>1&1*2-1) * h[1], float32(i>>2&1*2-1) * h[2]})
	}
	hl, err := geom.NewHull(pts)
	if err != nil {
		panic(err)
	}
	return geom.Shape{Kind: geom.ConvexHull, Hull: hl}
}

// rock is a random convex hull of n points on a squashed sphere of radius about r.
func rock(rng *rand.Rand, n int, r float32) geom.Shape {
	pts := make([]geom.Vec3, n)
	for i := range pts {
		v := geom.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()) * 0.7, float32(rng.NormFloat64())}.Normalize()
		pts[i] = v.Mul(r * (0.8 + 0.4*rng.Float32()))
	}
	h, err := geom.NewHull(pts)
	if err != nil {
		panic(err)
	}
	return geom.Shape{Kind: geom.ConvexHull, Hull: h}
}

func TestHullOfABoxCollidesLikeTheBox(t *testing.T) {
	const margin = 0.02
	for _, pc := range []struct {
		name string
		a, b geom.Kind
	}{
		{"BoxBox", geom.Box, geom.Box}, {"SphereBox", geom.Sphere, geom.Box}, {"CapsuleBox", geom.Capsule, geom.Box},
		{"PlaneBox", geom.Plane, geom.Box},
	} {
		t.Run(pc.name, func(t *testing.T) {
			cases := randomPairs(21, pc.a, pc.b, 2000)
			worstSep, worstN, touching := 0.0, 1.0, 0
			for i := range cases {
				c := &cases[i]
				var want, got Manifold
				Collide(&c.a, c.pa, &c.b, c.pb, margin, &want)
				hb := hullOfBox(c.b.HalfExtents)
				Collide(&c.a, c.pa, &hb, c.pb, margin, &got)
				size := float64(min(c.b.HalfExtents[0], c.b.HalfExtents[1], c.b.HalfExtents[2]))
				tol := 2e-3 + 1e-3*size
				if pc.a == geom.Capsule {
					// boxCapsule measures a contact just past a face's edge along the face normal;
					// in case 529 it is 2.6e-3 shallower than the exact distance (brute force over
					// the core: -0.066454), which the hull routine gives.
					// Deep cores choose between face and edge axes within preferFaceTol.
					tol = 2*tol + float64(preferFaceTol(float32(minSep(&want)), float32(size)))
				}
				if (want.Count > 0) != (got.Count > 0) {
					s := minSep(&want)
					if got.Count > 0 {
						s = minSep(&got)
					}
					// Only a pair right at the margin may differ, or a speculative point (apart) one
					// routine keeps where the other finds none.
					if math.Abs(s-margin) > tol && s < 0 {
						t.Fatalf("case %d: box gives %d points, hull %d (separation %.4g)", i, want.Count, got.Count, s)
					}
					continue
				}
				if want.Count == 0 {
					continue
				}
				touching++
				ds := math.Abs(minSep(&want) - minSep(&got))
				worstSep = math.Max(worstSep, ds)
				if ds > tol {
					t.Fatalf("case %d: deepest separation box %.5g, hull %.5g", i, minSep(&want), minSep(&got))
				}
				dn := float64(want.Normal.Dot(got.Normal))
				if minSep(&want) < -0.05*size {
					worstN = math.Min(worstN, dn)
					if dn < 0.99 {
						t.Fatalf("case %d: normals %v (box) and %v (hull), separation %.4g", i, want.Normal, got.Normal, minSep(&want))
					}
				}
			}
			t.Logf("%d touching of %d: worst separation difference %.2g, worst normal dot %.5f", touching, len(cases), worstSep, worstN)
		})
	}
}

func TestHullPairsAreSymmetric(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for i := 0; i < 500; i++ {
		a, b := rock(rng, 6+rng.Intn(30), 0.5), rock(rng, 6+rng.Intn(30), 0.4)
		pa := geom.Pose{P: geom.Vec3{0, 0, 0}, Q: randQuat(rng)}
		pb := geom.Pose{P: geom.Vec3{uniform(rng, -0.9, 0.9), uniform(rng, -0.9, 0.9), uniform(rng, -0.9, 0.9)}, Q: randQuat(rng)}
		var ab, ba Manifold
		Collide(&a, pa, &b, pb, 0.02, &ab)
		Collide(&b, pb, &a, pa, 0.02, &ba)
		if (ab.Count > 0) != (ba.Count > 0) {
			t.Fatalf("case %d: %d points one way, %d the other", i, ab.Count, ba.Count)
		}
		if ab.Count == 0 {
			continue
		}
		// Each order prefers its own A's face within preferFaceTol, so deep overlaps may differ by that.
		if d := math.Abs(minSep(&ab) - minSep(&ba)); d > float64(preferFaceTol(float32(minSep(&ab)), 0.4))+2e-3 {
			t.Fatalf("case %d: deepest separation %.4g one way, %.4g the other", i, minSep(&ab), minSep(&ba))
		}
	}
}

// The deepest contact of two rocks must match the overlap along its normal measured from the vertices
// (the support functions): the normal is a separating-axis candidate of least penetration, so no other
// direction among many may show a smaller overlap by more than the tolerance.
func TestHullHullNormalIsTheAxisOfLeastPenetration(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	support := func(s *geom.Shape, p geom.Pose, d geom.Vec3) float32 {
		best := float32(-1e30)
		for _, v := range s.Hull.Verts {
			best = max(best, p.Apply(v).Dot(d))
		}
		return best
	}
	dirs := fibonacci(2000)
	checked := 0
	for i := 0; i < 300; i++ {
		a, b := rock(rng, 8+rng.Intn(20), 0.5), rock(rng, 8+rng.Intn(20), 0.5)
		pa := geom.Pose{Q: randQuat(rng)}
		pb := geom.Pose{P: geom.Vec3{uniform(rng, -0.8, 0.8), uniform(rng, -0.8, 0.8), uniform(rng, -0.8, 0.8)}, Q: randQuat(rng)}
		var m Manifold
		Collide(&a, pa, &b, pb, 0, &m)
		if m.Count == 0 {
			// Then some direction separates them.
			sep := false
			for _, d := range dirs {
				dv := d.vec()
				if support(&a, pa, dv) < -support(&b, pb, dv.Mul(-1)) {
					sep = true
					break
				}
			}
			_ = sep // a separating edge axis may be missed by the sampled directions; no claim
			continue
		}
		checked++
		n := m.Normal
		overlap := support(&a, pa, n) + support(&b, pb, n.Mul(-1))
		if d := float64(overlap) + minSep(&m); math.Abs(d) > float64(preferFaceTol(overlap, 0.4))+2e-3 {
			t.Fatalf("case %d: overlap along the normal %.4g but deepest separation %.4g", i, overlap, minSep(&m))
		}
		for _, d := range dirs {
			dv := d.vec()
			// A face axis is preferred over a better one within preferFaceTol.
			if o := support(&a, pa, dv) + support(&b, pb, dv.Mul(-1)); o < overlap-preferFaceTol(overlap, 0.4)-2e-3 {
				t.Fatalf("case %d: overlap %.4g along %v is less than %.4g along the normal %v", i, o, dv, overlap, n)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d overlapping cases", checked)
	}
}

func TestHullRestingOnHullKeepsItsFeatureIDs(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	a := hullOfBox(geom.Vec3{1, 0.5, 1})
	b := rock(rng, 12, 0.4)
	// Rest b on a's top face: lower it until its lowest vertex is 1 mm into the face.
	pb := geom.Pose{P: geom.Vec3{0.1, 0, -0.1}, Q: randQuat(rng)}
	lo := float32(1e30)
	for _, v := range b.Hull.Verts {
		lo = min(lo, pb.Q.Rotate(v)[1])
	}
	pb.P[1] = 0.5 - lo - 1e-3
	var m0 Manifold
	Collide(&a, at(0, 0, 0), &b, pb, 0.02, &m0)
	if m0.Count == 0 {
		t.Fatal("no contact")
	}
	for k := 0; k < 50; k++ {
		var m Manifold
		Collide(&a, at(0, 0, 0), &b, jitter(rng, pb, 1e-4, 1e-4), 0.02, &m)
		if m.Count != m0.Count {
			t.Fatalf("jitter %d: %d points, was %d", k, m.Count, m0.Count)
		}
		for i := 0; i < m.Count; i++ {
			found := false
			for j := 0; j < m0.Count; j++ {
				found = found || m.Points[i].ID == m0.Points[j].ID
			}
			if !found {
				t.Fatalf("jitter %d: point %d has a new id %x", k, i, m.Points[i].ID)
			}
		}
	}
}

func TestHullOnPlaneRestsOnItsLowestVertices(t *testing.T) {
	h := hullOfBox(geom.Vec3{0.5, 0.25, 0.5})
	floor := geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}
	var m Manifold
	Collide(&floor, at(0, 0, 0), &h, at(0, 0.24, 0), 0.02, &m)
	if m.Count != 4 {
		t.Fatalf("%d points, want the 4 bottom corners", m.Count)
	}
	for i := 0; i < 4; i++ {
		if s := m.Points[i].Separation; math.Abs(float64(s)+0.01) > 1e-6 {
			t.Fatalf("separation %v, want -0.01", s)
		}
	}
	if m.Normal != (geom.Vec3{0, 1, 0}) {
		t.Fatalf("normal %v", m.Normal)
	}
}

func TestHullSphereAndCapsuleDistances(t *testing.T) {
	h := hullOfBox(geom.Vec3{0.5, 0.5, 0.5})
	s := sphere(0.25)
	var m Manifold
	// Off a corner: distance from (1,1,1) to (0.5,0.5,0.5) is sqrt(3)/2.
	Collide(&h, at(0, 0, 0), &s, at(1, 1, 1), 1, &m)
	want := math.Sqrt(3)/2 - 0.25
	if m.Count != 1 || math.Abs(float64(m.Points[0].Separation)-want) > 1e-5 {
		t.Fatalf("corner: %d points, separation %v, want %v", m.Count, m.Points[0].Separation, want)
	}
	// A capsule lying on the top face: two points, both 0.01 deep.
	c := capsule(0.1, 0.3)
	Collide(&h, at(0, 0, 0), &c, turned(0, 0.59, 0, 90, geom.Vec3{0, 0, 1}), 0.02, &m)
	if m.Count != 2 {
		t.Fatalf("lying capsule: %d points, want 2", m.Count)
	}
	for i := 0; i < 2; i++ {
		if math.Abs(float64(m.Points[i].Separation)+0.01) > 1e-5 {
			t.Fatalf("lying capsule: separation %v, want -0.01", m.Points[i].Separation)
		}
	}
}

func TestHullCollisionsDoNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	r1, r2 := rock(rng, 20, 0.5), rock(rng, 20, 0.5)
	shapes := []geom.Shape{r1, box(0.4, 0.3, 0.2), sphere(0.3), capsule(0.2, 0.3), {Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}}
	var m Manifold
	allocs := testing.AllocsPerRun(20, func() {
		for i := range shapes {
			Collide(&r2, at(0, 0.5, 0), &shapes[i], at(0.2, 0, 0), 0.05, &m)
			Collide(&shapes[i], at(0.2, 0, 0), &r2, at(0, 0.5, 0), 0.05, &m)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
}

func hullPairs(seed int64, n int, mk func(rng *rand.Rand) (geom.Shape, geom.Shape)) []pairCase {
	rng := rand.New(rand.NewSource(seed))
	cases := randomPairs(seed, geom.Box, geom.Box, n)
	for i := range cases {
		c := &cases[i]
		if mk == nil {
			c.a, c.b = hullOfBox(c.a.HalfExtents), hullOfBox(c.b.HalfExtents)
		} else {
			c.a, c.b = mk(rng)
		}
	}
	return cases
}

// BenchmarkCollideHullHullBoxes runs the box-box benchmark's placements through the hull routines (each
// box as the hull of its corners): the cost of generality against BenchmarkCollideBoxBox.
func BenchmarkCollideHullHullBoxes(b *testing.B) {
	benchPairs(b, hullPairs(2, 1024, nil))
}

// BenchmarkCollideRockRock: two 16-point rocks near contact.
func BenchmarkCollideRockRock(b *testing.B) {
	benchPairs(b, hullPairs(3, 1024, func(rng *rand.Rand) (geom.Shape, geom.Shape) {
		return rock(rng, 16, 0.5), rock(rng, 16, 0.5)
	}))
}

// A hull lying on three level vertices, with three more vertices a little over a centimetre up (inside
// the 2 cm margin) spread far wider, keeps the three it stands on: the touching vertices come before
// speculative ones, which only fill the fourth slot. Choosing by spread alone kept two of the three and
// wider speculative ones, and the bunny preset's bunnies rocked on the two for ever.
func TestHullOnPlaneKeepsTheVerticesItStandsOn(t *testing.T) {
	pts := []geom.Vec3{{0, 0, 0}, {0.2, 0, 0}, {0, 0, 0.2}, // touching
		{0.8, 0.012, 0.8}, {-0.6, 0.015, 0.1}, {0.1, 0.014, -0.6}, // speculative
		{0.1, 0.6, 0.1}}
	hl, err := geom.NewHull(pts)
	if err != nil {
		t.Fatal(err)
	}
	h := geom.Shape{Kind: geom.ConvexHull, Hull: hl}
	floor := geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}
	var m Manifold
	Collide(&floor, at(0, 0, 0), &h, geom.Pose{P: hl.Centre, Q: hl.Frame}, 0.02, &m)
	if m.Count != 4 {
		t.Fatalf("%d points, want 4", m.Count)
	}
	touching := 0
	for i := 0; i < m.Count; i++ {
		if s := m.Points[i].Separation; math.Abs(float64(s)) < 1e-5 {
			touching++
		} else if s < 0.011 || s > 0.016 {
			t.Errorf("point %d: separation %v, neither touching nor one of the raised vertices", i, s)
		}
	}
	if touching != 3 {
		t.Errorf("%d of the 3 vertices the hull stands on are in the manifold", touching)
	}
}
