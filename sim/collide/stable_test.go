package collide

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim/geom"
)

// Resting contacts must keep their feature ids while the bodies jitter by tiny amounts, since the solver
// matches last step's impulses to this step's points by id.

// jitter moves p by up to dist and turns it by up to angle radians about a random axis.
func jitter(rng *rand.Rand, p geom.Pose, dist, angle float32) geom.Pose {
	ax := randUnit(rng).vec()
	q := mgl32.QuatRotate(angle*(2*rng.Float32()-1), ax).Mul(p.Q)
	d := randUnit(rng).vec().Mul(dist * rng.Float32())
	return geom.Pose{P: p.P.Add(d), Q: q.Normalize()}
}

func ids(m *Manifold) []uint32 {
	out := make([]uint32, m.Count)
	for i := range out {
		out[i] = m.Points[i].ID
	}
	slices.Sort(out)
	return out
}

func TestFeatureIDsStableUnderJitter(t *testing.T) {
	cases := []struct {
		name   string
		a      geom.Shape
		pa     geom.Pose
		b      geom.Shape
		pb     geom.Pose
		points int
	}{
		{"unit box resting on a bigger box", box(2, 0.5, 2), at(0, 0, 0), box(0.5, 0.5, 0.5), at(0.3, 0.995, -0.2), 4},
		{"equal boxes stacked flush", box(0.5, 0.5, 0.5), at(0, 0, 0), box(0.5, 0.5, 0.5), at(0, 0.995, 0), 4},
		{"box turned 45 degrees on a box", box(1, 0.5, 1), at(0, 0, 0), box(0.5, 0.5, 0.5), turned(0, 0.995, 0, 45, yAxis), 4},
		{"box turned 30 degrees over a box's corner (clip points)", box(1, 0.5, 1), at(0, 0, 0), box(0.5, 0.5, 0.5), turned(1, 0.995, 1, 30, yAxis), 4},
		{"box overhanging a table's edge", box(1, 0.5, 1), at(0, 0, 0), box(0.5, 0.5, 0.5), at(1.2, 0.995, 0), 4},
		{"wide plank across a narrow box (clip points)", box(0.3, 0.5, 0.3), at(0, 0, 0), box(1, 0.1, 0.2), turned(0, 0.595, 0, 20, yAxis), 4},
		{"box flat on a plane", floor, at(0, 0, 0), box(0.5, 0.5, 0.5), turned(3, 0.495, 1, 10, yAxis), 4},
		{"box on its edge on a plane", floor, at(0, 0, 0), box(0.5, 0.5, 0.5), turned(0, 0.5*1.4142135-0.005, 0, 45, zAxis), 2},
		{"crossed boxes edge on edge", box(0.5, 0.5, 0.5), turned(0, 0, 0, 45, zAxis), box(0.5, 0.5, 0.5), turned(0.1, 1.4142135-0.005, 0.05, 45, xAxis), 1},
		{"sphere on a box face", box(1, 0.5, 1), at(0, 0, 0), sphere(0.3), at(0.2, 0.795, 0.1), 1},
		{"sphere on a box edge", box(1, 0.5, 1), at(0, 0, 0), sphere(0.3), at(1.2, 0.7, 0.4), 1},
		{"capsule lying on a box", box(1, 0.5, 1), at(0, 0, 0), capsule(0.2, 0.5), turned(0.1, 0.695, 0.3, 90, zAxis), 2},
		{"capsule lying over a box's edge", box(1, 0.5, 1), at(0, 0, 0), capsule(0.2, 0.5), turned(1, 0.695, 0.3, 90, zAxis), 2},
		{"capsule lying flush with a box's edge", box(0.5, 0.5, 1), at(0, 0, 0), capsule(0.2, 0.5), turned(0, 0.695, 0.3, 90, zAxis), 2},
		{"capsule lying on a capsule", capsule(0.2, 1), turned(0, 0, 0, 90, zAxis), capsule(0.3, 0.5), turned(0.8, 0.495, 0, 90, zAxis), 2},
		{"capsule lying on a plane", floor, at(0, 0, 0), capsule(0.2, 0.5), turned(0.5, 0.195, 0, 90, xAxis), 2},
		{"cylinder standing on a plane", floor, at(0, 0, 0), cylinder(0.3, 0.5), at(0.2, 0.495, 0.1), 4},
		{"cylinder lying on a plane", floor, at(0, 0, 0), cylinder(0.3, 0.5), turned(0.2, 0.295, 0.1, 90, zAxis), 2},
		{"cylinder standing on a box", box(1, 0.5, 1), at(0, 0, 0), cylinder(0.3, 0.5), at(0.2, 0.995, 0.1), 4},
		{"cylinder lying on a box", box(1, 0.5, 1), at(0, 0, 0), cylinder(0.3, 0.5), turned(0.2, 0.795, 0.1, 90, xAxis), 2},
		{"box on a standing cylinder", cylinder(0.3, 0.5), at(0, 0, 0), box(0.5, 0.2, 0.5), at(0.05, 0.695, 0), 4},
		{"cylinders stacked cap on cap", cylinder(0.3, 0.5), at(0, 0, 0), cylinder(0.3, 0.5), at(0.01, 0.995, 0), 4},
		{"logs lying side by side", cylinder(0.3, 0.5), turned(0, 0, 0, 90, xAxis), cylinder(0.3, 0.5), turned(0.1, 0.595, 0, 90, xAxis), 2},
		{"capsule lying on a log", cylinder(0.3, 0.5), turned(0, 0, 0, 90, xAxis), capsule(0.2, 0.4), turned(0, 0.495, 0.05, 90, xAxis), 2},
	}
	const (
		dist  = 1e-4 // jitter of a resting body in a settled scene
		angle = 1e-4
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m Manifold
			Collide(&c.a, c.pa, &c.b, c.pb, 0.02, &m)
			if m.Count != c.points {
				t.Fatalf("%d points, want %d: %+v", m.Count, c.points, m.Points[:m.Count])
			}
			want := ids(&m)
			if len(slices.Compact(slices.Clone(want))) != len(want) {
				t.Fatalf("repeated ids %v", want)
			}
			rng := rand.New(rand.NewSource(7))
			for i := 0; i < 500; i++ {
				pa, pb := c.pa, c.pb
				if c.a.Kind != geom.Plane {
					pa = jitter(rng, pa, dist, angle)
				}
				pb = jitter(rng, pb, dist, angle)
				Collide(&c.a, pa, &c.b, pb, 0.02, &m)
				if got := ids(&m); !slices.Equal(got, want) {
					t.Fatalf("jitter %d: ids %v, want %v (%+v)", i, got, want, m.Points[:m.Count])
				}
			}
		})
	}
}
