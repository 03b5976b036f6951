package geom

import (
	"errors"
	"math"
	"testing"
)

// NewCompound refuses what cannot be a compound's shape or mass, naming the shape.
func TestNewCompoundRefusesBadShapes(t *testing.T) {
	ball := Shape{Kind: Sphere, Radius: 0.1}
	for _, c := range []struct {
		name string
		kids []Child
	}{
		{"none", nil},
		{"a plane", []Child{{Shape: ball, Pose: Identity, Mass: 1}, {Shape: Shape{Kind: Plane, Normal: Vec3{0, 1, 0}}, Pose: Identity, Mass: 1}}},
		{"no mass", []Child{{Shape: ball, Pose: Identity}}},
		{"too many", make([]Child, MaxChildren+1)},
	} {
		if _, err := NewCompound(c.kids); !errors.Is(err, ErrCompound) {
			t.Errorf("%s: %v, want ErrCompound", c.name, err)
		}
	}
}

// Two equal balls on the x axis: the centre halfway, Ix their own moments, Iy and Iz with the parallel
// axis term m d^2 each; the children re-centred at -+d; the radius the far ball's reach.
func TestNewCompoundOfTwoBalls(t *testing.T) {
	ball := Shape{Kind: Sphere, Radius: 0.1}
	c, err := NewCompound([]Child{{Shape: ball, Pose: Pose{P: Vec3{1, 2, 0}, Q: Identity.Q}, Mass: 2},
		{Shape: ball, Pose: Pose{P: Vec3{3, 2, 0}, Q: Identity.Q}, Mass: 2}})
	if err != nil {
		t.Fatal(err)
	}
	own := float32(0.4 * 0.01)
	want := Vec3{own, own + 1, own + 1} // per unit mass: (2 own m + 2 m 1^2) / 4 m
	if c.Centre != (Vec3{2, 2, 0}) || c.UnitInertia.Sub(want).Len() > 1e-6 || c.Mass != 4 {
		t.Errorf("centre %v, unit inertia %v (want %v), mass %v", c.Centre, c.UnitInertia, want, c.Mass)
	}
	if c.Children[0].Pose.P != (Vec3{-1, 0, 0}) || c.Children[1].Pose.P != (Vec3{1, 0, 0}) || c.Radius != 1.1 {
		t.Errorf("children at %v and %v, radius %v", c.Children[0].Pose.P, c.Children[1].Pose.P, c.Radius)
	}
	s := Shape{Kind: Compound, Compound: c}
	box := s.Bounds(Pose{P: Vec3{0, 1, 0}, Q: Identity.Q})
	if box.Min.Sub(Vec3{-1.1, 0.9, -0.1}).Len() > 1e-6 || box.Max.Sub(Vec3{1.1, 1.1, 0.1}).Len() > 1e-6 {
		t.Errorf("bounds %v", box)
	}
}

// The same two balls about a given centre, 0.5 m from the right ball: the centre is the given one, the
// children sit 1.5 and 0.5 m from it, and the moments are the balls' own plus m d^2 for those offsets,
// (2 own m + m 1.5^2 + m 0.5^2) / 2 m per unit mass across x; the radius is the far ball's reach.
func TestNewCompoundAboutAGivenCentre(t *testing.T) {
	ball := Shape{Kind: Sphere, Radius: 0.1}
	c, err := NewCompoundAbout([]Child{{Shape: ball, Pose: Pose{P: Vec3{1, 2, 0}, Q: Identity.Q}, Mass: 2},
		{Shape: ball, Pose: Pose{P: Vec3{3, 2, 0}, Q: Identity.Q}, Mass: 2}}, Vec3{2.5, 2, 0})
	if err != nil {
		t.Fatal(err)
	}
	own := float32(0.4 * 0.01)
	across := own + (1.5*1.5+0.5*0.5)/2
	want := Vec3{own, across, across}
	if c.Centre != (Vec3{2.5, 2, 0}) || c.UnitInertia.Sub(want).Len() > 1e-6 || c.Mass != 4 {
		t.Errorf("centre %v, unit inertia %v (want %v), mass %v", c.Centre, c.UnitInertia, want, c.Mass)
	}
	if c.Children[0].Pose.P.Sub(Vec3{-1.5, 0, 0}).Len() > 1e-6 || c.Children[1].Pose.P.Sub(Vec3{0.5, 0, 0}).Len() > 1e-6 ||
		math.Abs(float64(c.Radius)-1.6) > 1e-6 {
		t.Errorf("children at %v and %v, radius %v", c.Children[0].Pose.P, c.Children[1].Pose.P, c.Radius)
	}
	// What the children alone say: their centre 0.5 m from the given one, their tensor about it the
	// compound's (no inertia was declared).
	centre, unit := c.Own()
	if centre.Sub(Vec3{-0.5, 0, 0}).Len() > 1e-6 || math.Abs(unit[0][0]-float64(own)) > 1e-6 ||
		math.Abs(unit[1][1]-float64(across)) > 1e-6 || math.Abs(unit[0][1]) > 1e-9 {
		t.Errorf("own centre %v, tensor %v", centre, unit)
	}
}
