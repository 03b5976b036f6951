package geom

import (
	"math"
	"math/rand"
	"testing"
	"tumble/sim/internal/vecmath"

	"github.com/go-gl/mathgl/mgl32"
)

// inside reports whether a local point lies in the shape.
func inside(s *Shape, p Vec3) bool {
	switch s.Kind {
	case Box:
		return vecmath.Abs(p[0]) <= s.HalfExtents[0] && vecmath.Abs(p[1]) <= s.HalfExtents[1] && vecmath.Abs(p[2]) <= s.HalfExtents[2]
	case Sphere:
		return p.Len() <= s.Radius
	case Capsule:
		y := max(-s.HalfHeight, min(s.HalfHeight, p[1]))
		return p.Sub(Vec3{0, y, 0}).Len() <= s.Radius
	case Cylinder:
		return vecmath.Abs(p[1]) <= s.HalfHeight && p[0]*p[0]+p[2]*p[2] <= s.Radius*s.Radius
	}
	return false
}

// Volume and unit inertia agree with Monte Carlo integration over the shape (an independent check of
// the closed forms, the capsule's parallel-axis terms above all).
func TestMassPropertiesMatchMonteCarlo(t *testing.T) {
	shapes := []Shape{
		{Kind: Box, HalfExtents: Vec3{0.5, 0.2, 1.5}},
		{Kind: Sphere, Radius: 0.7},
		{Kind: Capsule, Radius: 0.3, HalfHeight: 0.8},
		{Kind: Capsule, Radius: 1, HalfHeight: 0.1},
		{Kind: Cylinder, Radius: 0.4, HalfHeight: 0.9},
		{Kind: Cylinder, Radius: 1.2, HalfHeight: 0.1},
	}
	rng := rand.New(rand.NewSource(1))
	const n = 400000
	for _, s := range shapes {
		ext := s.Bounds(Identity)
		size := ext.Max.Sub(ext.Min)
		boxVol := float64(size[0]) * float64(size[1]) * float64(size[2])
		hit := 0
		var ixx, iyy, izz float64
		for k := 0; k < n; k++ {
			p := Vec3{ext.Min[0] + size[0]*rng.Float32(), ext.Min[1] + size[1]*rng.Float32(), ext.Min[2] + size[2]*rng.Float32()}
			if !inside(&s, p) {
				continue
			}
			hit++
			x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
			ixx += y*y + z*z
			iyy += x*x + z*z
			izz += x*x + y*y
		}
		vol := boxVol * float64(hit) / n
		// Monte Carlo standard error of the volume fraction: sqrt(f(1-f)/n); allow 5 sigma.
		f := float64(hit) / n
		tol := 5 * math.Sqrt(f*(1-f)/n) * boxVol
		if math.Abs(vol-s.Volume()) > tol {
			t.Errorf("%v: volume %.5f, Monte Carlo %.5f +- %.5f", s.Kind, s.Volume(), vol, tol)
		}
		got := s.UnitInertia()
		want := [3]float64{ixx / float64(hit), iyy / float64(hit), izz / float64(hit)}
		for k := 0; k < 3; k++ {
			if math.Abs(float64(got[k])-want[k]) > 0.01*want[k] {
				t.Errorf("%v: unit inertia[%d] = %.5f, Monte Carlo %.5f", s.Kind, k, got[k], want[k])
			}
		}
	}
}

// Every point of a rotated shape lies inside its world AABB.
func TestBoundsContainRotatedShape(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	shapes := []Shape{
		{Kind: Box, HalfExtents: Vec3{0.5, 0.2, 1.5}},
		{Kind: Sphere, Radius: 0.7},
		{Kind: Capsule, Radius: 0.3, HalfHeight: 0.8},
		{Kind: Cylinder, Radius: 0.6, HalfHeight: 0.25},
	}
	for trial := 0; trial < 200; trial++ {
		s := shapes[trial%len(shapes)]
		axis := Vec3{rng.Float32() - 0.5, rng.Float32() - 0.5, rng.Float32() - 0.5}.Normalize()
		pose := Pose{P: Vec3{rng.Float32() * 10, rng.Float32() * 10, rng.Float32() * 10}, Q: mgl32.QuatRotate(rng.Float32()*6.3, axis)}
		box := s.Bounds(pose)
		loc := s.Bounds(Identity)
		for k := 0; k < 200; k++ {
			p := Vec3{loc.Min[0] + (loc.Max[0]-loc.Min[0])*rng.Float32(), loc.Min[1] + (loc.Max[1]-loc.Min[1])*rng.Float32(), loc.Min[2] + (loc.Max[2]-loc.Min[2])*rng.Float32()}
			if !inside(&s, p) {
				continue
			}
			wp := pose.Apply(p)
			grown := AABB{Min: box.Min.Sub(Vec3{1e-4, 1e-4, 1e-4}), Max: box.Max.Add(Vec3{1e-4, 1e-4, 1e-4})}
			if !grown.Contains(AABB{Min: wp, Max: wp}) {
				t.Fatalf("%v: point %v outside bounds %v", s.Kind, wp, box)
			}
		}
	}
}

func TestPlaneBoundsStopAtTheFloor(t *testing.T) {
	floor := Shape{Kind: Plane, Normal: Vec3{0, 1, 0}, Offset: 0}
	b := floor.Bounds(Identity)
	if b.Max[1] != 0 || b.Min[1] > -1000 || b.Max[0] < 1000 {
		t.Errorf("floor bounds %v", b)
	}
}

// A cylinder's mass properties are the closed forms: V = pi r^2 H, I_axis = m r^2/2 and
// I_perp = m (3 r^2 + H^2)/12 with H = 2h; its box is tight (the caps' rims reach it).
func TestCylinderMassPropertiesAreExact(t *testing.T) {
	r, h := 0.3, 0.7
	s := Shape{Kind: Cylinder, Radius: float32(r), HalfHeight: float32(h)}
	if v, want := s.Volume(), math.Pi*r*r*2*h; math.Abs(v-want) > 1e-6*want {
		t.Errorf("volume %v, want %v", v, want)
	}
	in := s.UnitInertia()
	perp := (3*r*r + 4*h*h) / 12
	for k, want := range [3]float64{perp, r * r / 2, perp} {
		if math.Abs(float64(in[k])-want) > 1e-6*want {
			t.Errorf("unit inertia[%d] = %v, want %v", k, in[k], want)
		}
	}
	// Lying along x: the box spans h along x and r along y and z. The disc's extent r sqrt(1 - a_i^2)
	// turns float32 rounding of the unit axis (1e-7) into about r sqrt(2e-7) = 1.4e-4 at most.
	b := s.Bounds(Pose{Q: mgl32.QuatRotate(math.Pi/2, Vec3{0, 0, 1})})
	for k, want := range [3]float32{float32(h), float32(r), float32(r)} {
		if d := vecmath.Abs(b.Max[k] - want); d > 2e-4 || vecmath.Abs(b.Min[k]+want) > 2e-4 {
			t.Errorf("bounds axis %d: %v..%v, want +-%v", k, b.Min[k], b.Max[k], want)
		}
	}
}
