package collide

import (
	"math"
	"testing"
	"tumble/sim/internal/vecmath"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim/geom"
)

// Hand-worked configurations whose contacts are known exactly.

func box(hx, hy, hz float32) geom.Shape {
	return geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{hx, hy, hz}}
}

func sphere(r float32) geom.Shape { return geom.Shape{Kind: geom.Sphere, Radius: r} }

func capsule(r, hh float32) geom.Shape {
	return geom.Shape{Kind: geom.Capsule, Radius: r, HalfHeight: hh}
}

var floor = geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}

func at(x, y, z float32) geom.Pose { return geom.Pose{P: geom.Vec3{x, y, z}, Q: mgl32.QuatIdent()} }

// turned is at(x, y, z) rotated by deg degrees about axis.
func turned(x, y, z, deg float32, axis geom.Vec3) geom.Pose {
	return geom.Pose{P: geom.Vec3{x, y, z}, Q: mgl32.QuatRotate(mgl32.DegToRad(deg), axis.Normalize())}
}

var (
	xAxis = geom.Vec3{1, 0, 0}
	yAxis = geom.Vec3{0, 1, 0}
	zAxis = geom.Vec3{0, 0, 1}
)

type wantPoint struct {
	pos geom.Vec3
	sep float32
}

func TestCollideExactCases(t *testing.T) {
	s2 := float32(math.Sqrt2)
	r45 := 0.5 * s2 // half diagonal of a unit box's face
	c30, s30 := float32(math.Cos(math.Pi/6)), float32(0.5)
	low30 := 0.5 * (c30 + s30) // a unit box turned 30 degrees reaches this far below its centre
	cases := []struct {
		name   string
		a      geom.Shape
		pa     geom.Pose
		b      geom.Shape
		pb     geom.Pose
		margin float32
		normal geom.Vec3
		points []wantPoint
	}{
		{
			name: "unit box resting on a bigger box gives its four bottom corners",
			a:    box(2, 0.5, 2), pa: at(0, 0, 0),
			b: box(0.5, 0.5, 0.5), pb: at(0.3, 0.99, -0.2),
			normal: yAxis,
			points: []wantPoint{
				{geom.Vec3{-0.2, 0.495, -0.7}, -0.01}, {geom.Vec3{0.8, 0.495, -0.7}, -0.01},
				{geom.Vec3{-0.2, 0.495, 0.3}, -0.01}, {geom.Vec3{0.8, 0.495, 0.3}, -0.01},
			},
		},
		{
			name: "bigger box under a unit box, swapped: normal reversed, same points",
			a:    box(0.5, 0.5, 0.5), pa: at(0.3, 0.99, -0.2),
			b: box(2, 0.5, 2), pb: at(0, 0, 0),
			normal: yAxis.Mul(-1),
			points: []wantPoint{
				{geom.Vec3{-0.2, 0.495, -0.7}, -0.01}, {geom.Vec3{0.8, 0.495, -0.7}, -0.01},
				{geom.Vec3{-0.2, 0.495, 0.3}, -0.01}, {geom.Vec3{0.8, 0.495, 0.3}, -0.01},
			},
		},
		{
			name: "unit box turned 45 degrees on a bigger box keeps its corners",
			a:    box(2, 0.5, 2), pa: at(0, 0, 0),
			b: box(0.5, 0.5, 0.5), pb: turned(0, 0.99, 0, 45, yAxis),
			normal: yAxis,
			points: []wantPoint{
				{geom.Vec3{r45, 0.495, 0}, -0.01}, {geom.Vec3{-r45, 0.495, 0}, -0.01},
				{geom.Vec3{0, 0.495, r45}, -0.01}, {geom.Vec3{0, 0.495, -r45}, -0.01},
			},
		},
		{
			name: "equal boxes stacked flush",
			a:    box(0.5, 0.5, 0.5), pa: at(0, 0, 0),
			b: box(0.5, 0.5, 0.5), pb: at(0, 0.98, 0),
			normal: yAxis,
			points: []wantPoint{
				{geom.Vec3{0.5, 0.49, 0.5}, -0.02}, {geom.Vec3{-0.5, 0.49, 0.5}, -0.02},
				{geom.Vec3{0.5, 0.49, -0.5}, -0.02}, {geom.Vec3{-0.5, 0.49, -0.5}, -0.02},
			},
		},
		{
			name: "box overhanging a table's edge is clipped at the edge",
			a:    box(1, 0.5, 1), pa: at(0, 0, 0),
			b: box(0.5, 0.5, 0.5), pb: at(1.2, 0.99, 0),
			normal: yAxis,
			points: []wantPoint{
				{geom.Vec3{0.7, 0.495, 0.5}, -0.01}, {geom.Vec3{0.7, 0.495, -0.5}, -0.01},
				{geom.Vec3{1, 0.495, 0.5}, -0.01}, {geom.Vec3{1, 0.495, -0.5}, -0.01},
			},
		},
		{
			name: "box tilted 30 degrees on a plane rests on its lowest edge",
			a:    floor, pa: at(0, 0, 0),
			b: box(0.5, 0.5, 0.5), pb: turned(0, low30-0.01, 0, 30, zAxis),
			margin: 0.02, normal: yAxis,
			points: []wantPoint{{geom.Vec3{-0.5*c30 + 0.5*s30, -0.005, 0.5}, -0.01}, {geom.Vec3{-0.5*c30 + 0.5*s30, -0.005, -0.5}, -0.01}},
		},
		{
			name: "box tilted 30 degrees on a plane with a wide margin: four deepest corners",
			a:    floor, pa: at(0, 0, 0),
			b: box(0.5, 0.5, 0.5), pb: turned(0, low30-0.01, 0, 30, zAxis),
			margin: 1, normal: yAxis,
			points: []wantPoint{
				{geom.Vec3{-0.5*c30 + 0.5*s30, -0.005, 0.5}, -0.01}, {geom.Vec3{-0.5*c30 + 0.5*s30, -0.005, -0.5}, -0.01},
				{geom.Vec3{0.5*c30 + 0.5*s30, 0.245, 0.5}, 0.49}, {geom.Vec3{0.5*c30 + 0.5*s30, 0.245, -0.5}, 0.49},
			},
		},
		{
			name: "edges of two crossed boxes touch at one point",
			a:    box(0.5, 0.5, 0.5), pa: turned(0, 0, 0, 45, zAxis),
			b: box(0.5, 0.5, 0.5), pb: turned(0.1, 2*r45-0.01, 0.05, 45, xAxis), // its bottom edge runs along x at z = 0.05
			normal: yAxis,
			points: []wantPoint{{geom.Vec3{0, r45 - 0.005, 0.05}, -0.01}},
		},
		{
			name: "sphere on a box face",
			a:    box(1, 0.5, 1), pa: at(0, 0, 0),
			b: sphere(0.3), pb: at(0.2, 0.79, 0.1),
			normal: yAxis,
			points: []wantPoint{{geom.Vec3{0.2, 0.495, 0.1}, -0.01}},
		},
		{
			name: "sphere on a box edge",
			a:    box(1, 0.5, 1), pa: at(0, 0, 0),
			b: sphere(0.3), pb: at(1.2, 0.7, 0.4),
			normal: geom.Vec3{1 / s2, 1 / s2, 0},
			points: []wantPoint{{geom.Vec3{1, 0.5, 0.4}.Add(geom.Vec3{1, 1, 0}.Mul((0.2*s2 - 0.3) / 2 / s2)), 0.2*s2 - 0.3}},
		},
		{
			name: "sphere on a box corner",
			a:    box(1, 0.5, 1), pa: at(0, 0, 0),
			b: sphere(0.3), pb: at(1.1, 0.6, 1.1),
			normal: geom.Vec3{1, 1, 1}.Normalize(),
			points: []wantPoint{{geom.Vec3{1, 0.5, 1}.Add(geom.Vec3{1, 1, 1}.Normalize().Mul((0.1*float32(math.Sqrt(3)) - 0.3) / 2)), 0.1*float32(math.Sqrt(3)) - 0.3}},
		},
		{
			name: "sphere centre inside a box leaves through the nearest face",
			a:    sphere(0.3), pa: at(0.2, 0.45, 0.1),
			b: box(1, 0.5, 1), pb: at(0, 0, 0),
			normal: yAxis.Mul(-1),
			points: []wantPoint{{geom.Vec3{0.2, 0.5 - 0.175, 0.1}, -0.35}},
		},
		{
			name: "sphere resting on a sphere",
			a:    sphere(0.5), pa: at(0, 0, 0),
			b: sphere(0.25), pb: at(0, 0.74, 0),
			normal: yAxis,
			points: []wantPoint{{geom.Vec3{0, 0.495, 0}, -0.01}},
		},
		{
			name: "capsule lying on a box face touches at both ends",
			a:    box(1, 0.5, 1), pa: at(0, 0, 0),
			b: capsule(0.2, 0.5), pb: turned(0.1, 0.69, 0.3, 90, zAxis),
			normal: yAxis,
			points: []wantPoint{{geom.Vec3{-0.4, 0.495, 0.3}, -0.01}, {geom.Vec3{0.6, 0.495, 0.3}, -0.01}},
		},
		{
			name: "capsule lying over a box's edge is clipped at the edge",
			a:    capsule(0.2, 0.5), pa: turned(1, 0.69, 0.3, 90, zAxis),
			b: box(1, 0.5, 1), pb: at(0, 0, 0),
			normal: yAxis.Mul(-1),
			points: []wantPoint{{geom.Vec3{0.5, 0.495, 0.3}, -0.01}, {geom.Vec3{1, 0.495, 0.3}, -0.01}},
		},
		{
			name: "capsule standing on a box face touches at its lower end",
			a:    box(1, 0.5, 1), pa: at(0, 0, 0),
			b: capsule(0.2, 0.5), pb: at(0.1, 1.19, 0.3),
			normal: yAxis,
			points: []wantPoint{{geom.Vec3{0.1, 0.495, 0.3}, -0.01}},
		},
		{
			name: "capsule sunk into a box (core inside): pushed out through the top at both ends",
			a:    box(1, 0.5, 1), pa: at(0, 0, 0),
			b: capsule(0.2, 0.5), pb: turned(0.1, 0.4, 0.3, 90, zAxis),
			normal: yAxis,
			points: []wantPoint{{geom.Vec3{-0.4, 0.35, 0.3}, -0.3}, {geom.Vec3{0.6, 0.35, 0.3}, -0.3}},
		},
		{
			name: "capsule core cutting a box's edge: one point on the edge",
			a:    box(0.5, 0.5, 0.5), pa: turned(0, 0, 0, 45, zAxis),
			b: capsule(0.2, 0.5), pb: turned(0, 0.65, 0, 90, zAxis),
			normal: yAxis,
			points: []wantPoint{{geom.Vec3{0, (r45+0.65)/2 - 0.1, 0}, 0.65 - r45 - 0.2}},
		},
		{
			name: "capsule lying on a parallel capsule touches at both ends of the overlap",
			a:    capsule(0.2, 1), pa: turned(0, 0, 0, 90, zAxis),
			b: capsule(0.3, 0.5), pb: turned(0.8, 0.49, 0, 90, zAxis),
			normal: yAxis,
			points: []wantPoint{{geom.Vec3{0.3, 0.195, 0}, -0.01}, {geom.Vec3{1, 0.195, 0}, -0.01}},
		},
		{
			name: "crossed capsules touch at one point",
			a:    capsule(0.2, 1), pa: turned(0, 0, 0, 90, zAxis),
			b: capsule(0.3, 0.5), pb: turned(0.4, 0.49, 0, 90, xAxis),
			normal: yAxis,
			points: []wantPoint{{geom.Vec3{0.4, 0.195, 0}, -0.01}},
		},
		{
			name: "capsule lying on a plane touches at both ends",
			a:    capsule(0.2, 0.5), pa: turned(0.5, 0.19, 0, 90, xAxis),
			b: floor, pb: at(0, 0, 0),
			normal: yAxis.Mul(-1),
			points: []wantPoint{{geom.Vec3{0.5, -0.005, 0.5}, -0.01}, {geom.Vec3{0.5, -0.005, -0.5}, -0.01}},
		},
		{
			name: "sphere on a plane",
			a:    floor, pa: at(0, 0, 0),
			b: sphere(0.5), pb: at(1, 0.49, 2),
			normal: yAxis,
			points: []wantPoint{{geom.Vec3{1, -0.005, 2}, -0.01}},
		},
		{
			name: "plane raised by its offset and pose",
			a:    geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}, Offset: 0.5}, pa: at(0, 0.5, 0),
			b: sphere(0.5), pb: at(1, 1.49, 2),
			normal: yAxis,
			points: []wantPoint{{geom.Vec3{1, 0.995, 2}, -0.01}},
		},
		{
			name: "apart beyond the margin: nothing",
			a:    box(0.5, 0.5, 0.5), pa: at(0, 0, 0),
			b: sphere(0.5), pb: at(0, 1.2, 0),
			margin: 0.1,
		},
		{
			name: "apart within the margin: a speculative point",
			a:    box(0.5, 0.5, 0.5), pa: at(0, 0, 0),
			b: sphere(0.5), pb: at(0, 1.05, 0),
			margin: 0.1, normal: yAxis,
			points: []wantPoint{{geom.Vec3{0, 0.525, 0}, 0.05}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m Manifold
			Collide(&c.a, c.pa, &c.b, c.pb, c.margin, &m)
			if m.Count != len(c.points) {
				t.Fatalf("%d points %+v, want %d", m.Count, m.Points[:m.Count], len(c.points))
			}
			if m.Count == 0 {
				return
			}
			const tol = 2e-5
			if !near(m.Normal, c.normal, tol) {
				t.Fatalf("normal %v, want %v", m.Normal, c.normal)
			}
			ids := map[uint32]bool{}
			for _, w := range c.points {
				found := false
				for i := 0; i < m.Count; i++ {
					p := m.Points[i]
					if near(p.Position, w.pos, tol) && vecmath.Abs(p.Separation-w.sep) < tol {
						found = true
					}
				}
				if !found {
					t.Fatalf("no point at %v with separation %v in %+v", w.pos, w.sep, m.Points[:m.Count])
				}
			}
			for i := 0; i < m.Count; i++ {
				if ids[m.Points[i].ID] {
					t.Fatalf("repeated id in %+v", m.Points[:m.Count])
				}
				ids[m.Points[i].ID] = true
			}
		})
	}
}

// near reports whether a and b differ by at most tol in every coordinate.
func near(a, b geom.Vec3, tol float32) bool {
	return vecmath.Abs(a[0]-b[0]) <= tol && vecmath.Abs(a[1]-b[1]) <= tol && vecmath.Abs(a[2]-b[2]) <= tol
}

// Two capsules lying side by side on the ground, their cores level and 1.2e-4 rad apart (above
// parallelSin): the lines through the cores meet 5 km away, so the cores' common perpendicular
// d1 x d2 is vertical, while the capsules touch sideways. The contact's normal is the horizontal line
// between the cores and its depth the gap (0.6 m between the axes, twice the radius): a vertical
// normal measured the whole diameter as depth. The poses are the mixed preset's capsules 5 and 35 at
// the step where XPBD threw one at 120 m/s.
func TestCapsulesSideBySideNearlyParallelTouchSideways(t *testing.T) {
	c := capsule(0.3, 0.4)
	pa := geom.Pose{P: v3{-0.37967524, 0.29999447, -4.8197403}, Q: mgl32.Quat{W: -0.37837407, V: mgl32.Vec3{-0.17846355, 0.59735465, 0.6842158}}}
	pb := geom.Pose{P: v3{0.19219218, 0.29999444, -5.0019236}, Q: mgl32.Quat{W: 0.4998301, V: mgl32.Vec3{0.3238266, -0.50016975, -0.6285988}}}
	var m Manifold
	Collide(&c, pa, &c, pb, 0.02, &m)
	if m.Count != 2 {
		t.Fatalf("%d points, want 2 (side by side): %+v", m.Count, m)
	}
	// The axes' horizontal gap, and the normal along it: the cores are level to 1e-7 m.
	d := pb.P.Sub(pa.P)
	d[1] = 0
	gap := d.Len() - 2*c.Radius
	if n := m.Normal; vecmath.Abs(n[1]) > 1e-3 || n.Dot(d.Normalize()) < 0.999 {
		t.Errorf("normal %v, want the horizontal %v", n, d.Normalize())
	}
	// The cores' skew moves the ends' gaps apart by at most 1.2e-4 x 0.8 m.
	for i := 0; i < m.Count; i++ {
		if s := m.Points[i].Separation; vecmath.Abs(s-gap) > 2e-4 {
			t.Errorf("point %d: separation %g, want the gap %g", i, s, gap)
		}
	}
}
