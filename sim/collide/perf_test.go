package collide

import (
	"math/rand"
	"testing"

	"tumble/sim/geom"
)

// Allocation checks and benchmarks, over random near-contact poses of every kind pair.

type pairCase struct {
	a, b   geom.Shape
	pa, pb geom.Pose
}

// randomPairs makes n random near-contact placements of kinds a and b (a plane is the floor, tilted).
func randomPairs(seed int64, a, b geom.Kind, n int) []pairCase {
	rng := rand.New(rand.NewSource(seed))
	out := make([]pairCase, n)
	for i := range out {
		c := &out[i]
		switch {
		case a == geom.Plane:
			c.a = geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}
			c.b = randShape(rng, b)
			c.pa = geom.Pose{Q: randQuat(rng)}
			c.pb = geom.Pose{P: geom.Vec3{0, 0, 0}, Q: randQuat(rng)}
			rb := newRef(&c.b, c.pb)
			n := newRef(&c.a, c.pa).n
			c.pb.P = n.mul(rb.support(n.mul(-1)) + (rng.Float64()*0.3-0.2)*rb.size()).vec()
		default:
			c.a, c.b = randShape(rng, a), randShape(rng, b)
			c.pa, c.pb = randPair(rng, &c.a, &c.b)
		}
	}
	return out
}

var allPairs = []struct {
	name string
	a, b geom.Kind
}{
	{"BoxBox", geom.Box, geom.Box},
	{"SphereSphere", geom.Sphere, geom.Sphere},
	{"SphereBox", geom.Sphere, geom.Box},
	{"SphereCapsule", geom.Sphere, geom.Capsule},
	{"CapsuleCapsule", geom.Capsule, geom.Capsule},
	{"CapsuleBox", geom.Capsule, geom.Box},
	{"PlaneBox", geom.Plane, geom.Box},
	{"PlaneSphere", geom.Plane, geom.Sphere},
	{"PlaneCapsule", geom.Plane, geom.Capsule},
	{"PlaneCylinder", geom.Plane, geom.Cylinder},
	{"SphereCylinder", geom.Sphere, geom.Cylinder},
	{"CapsuleCylinder", geom.Capsule, geom.Cylinder},
	{"BoxCylinder", geom.Box, geom.Cylinder},
	{"CylinderCylinder", geom.Cylinder, geom.Cylinder},
}

func TestCollideDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	for _, pc := range allPairs {
		t.Run(pc.name, func(t *testing.T) {
			cases := randomPairs(1, pc.a, pc.b, 64)
			var m Manifold
			allocs := testing.AllocsPerRun(20, func() {
				for i := range cases {
					c := &cases[i]
					Collide(&c.a, c.pa, &c.b, c.pb, 0.05, &m)
					Collide(&c.b, c.pb, &c.a, c.pa, 0.05, &m) // the other order too
				}
			})
			if allocs != 0 {
				t.Fatalf("%v allocations per run", allocs)
			}
		})
	}
}

func benchPairs(b *testing.B, cases []pairCase) {
	var m Manifold
	points := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := &cases[i&(len(cases)-1)]
		Collide(&c.a, c.pa, &c.b, c.pb, 0.02, &m)
		points += m.Count
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
	b.ReportMetric(float64(points)/float64(b.N), "points/pair")
}

// The benchmarks run over 1024 random placements near contact (about half of them touching).

func BenchmarkCollideBoxBox(b *testing.B) {
	benchPairs(b, randomPairs(2, geom.Box, geom.Box, 1024))
}

// BenchmarkCollideBoxBoxResting is the case that dominates stacks: a box resting on another's face.
func BenchmarkCollideBoxBoxResting(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	cases := make([]pairCase, 1024)
	for i := range cases {
		cases[i] = pairCase{a: box(0.5, 0.5, 0.5), pa: at(0, 0, 0), b: box(0.5, 0.5, 0.5),
			pb: jitter(rng, turned(uniform(rng, -0.3, 0.3), 0.995, uniform(rng, -0.3, 0.3), uniform(rng, 0, 90), yAxis), 1e-3, 1e-2)}
	}
	benchPairs(b, cases)
}

func BenchmarkCollideSphereSphere(b *testing.B) {
	benchPairs(b, randomPairs(4, geom.Sphere, geom.Sphere, 1024))
}

func BenchmarkCollideSphereBox(b *testing.B) {
	benchPairs(b, randomPairs(5, geom.Sphere, geom.Box, 1024))
}

func BenchmarkCollideSphereCapsule(b *testing.B) {
	benchPairs(b, randomPairs(6, geom.Sphere, geom.Capsule, 1024))
}

func BenchmarkCollideCapsuleCapsule(b *testing.B) {
	benchPairs(b, randomPairs(7, geom.Capsule, geom.Capsule, 1024))
}

func BenchmarkCollideCapsuleBox(b *testing.B) {
	benchPairs(b, randomPairs(8, geom.Capsule, geom.Box, 1024))
}

func BenchmarkCollidePlaneBox(b *testing.B) {
	benchPairs(b, randomPairs(9, geom.Plane, geom.Box, 1024))
}

func BenchmarkCollidePlaneSphere(b *testing.B) {
	benchPairs(b, randomPairs(10, geom.Plane, geom.Sphere, 1024))
}

func BenchmarkCollidePlaneCapsule(b *testing.B) {
	benchPairs(b, randomPairs(11, geom.Plane, geom.Capsule, 1024))
}
