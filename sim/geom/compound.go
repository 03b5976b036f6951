package geom

import (
	"errors"
	"fmt"
	"math"
)

// MaxChildren is the most shapes a compound holds: a contact's feature id carries its child's index
// in 8 bits (ChildFeature).
const MaxChildren = 255

// Child is one shape of a compound, posed in the compound's frame.
type Child struct {
	Shape Shape // a box, sphere, capsule, cylinder or hull, centred on its own centre of mass
	Pose  Pose  // where the child's centre of mass sits and how it is turned, in the compound's frame
	Mass  float32
	// Material is the child's own friction, restitution and resistances; a negative field takes the body's (so an
	// edit of the body's material reaches every child that gave none).
	Material Material
}

// Material is a surface's contact properties.
type Material struct {
	Friction    float32 // Coulomb coefficient; pairs combine by geometric mean
	Restitution float32 // pairs combine by max
	// RollingResistance and SpinningResistance are the coefficients of the torques that resist rolling
	// and spinning about the contact normal (at most c r N; docs/SCENES.md); pairs combine by max.
	RollingResistance  float32
	SpinningResistance float32
}

// BodyMaterial is a child's material that takes every property from its body.
var BodyMaterial = Material{-1, -1, -1, -1}

// Of returns m with each negative field taken from body.
func (m Material) Of(body Material) Material {
	if m.Friction < 0 {
		m.Friction = body.Friction
	}
	if m.Restitution < 0 {
		m.Restitution = body.Restitution
	}
	if m.RollingResistance < 0 {
		m.RollingResistance = body.RollingResistance
	}
	if m.SpinningResistance < 0 {
		m.SpinningResistance = body.SpinningResistance
	}
	return m
}

// CompoundShape is a rigid set of shapes (Shape.Compound): a table, a dumbbell, a hammer. Its children are
// held in the compound's principal frame, centred on the whole's centre of mass, so that, as for
// every shape, the body's inertia is diagonal in its frame. Immutable once built.
type CompoundShape struct {
	Children []Child
	// Mass is the children's masses summed, kg; UnitInertia the principal moments of the whole per
	// unit mass, about its centre of mass.
	Mass        float32
	UnitInertia Vec3
	// Centre is the centre of mass in the frame the children were given in, and Frame the principal
	// frame there: a child given at pose p sits at Frame^-1 (p - Centre) in the compound.
	Centre Vec3
	Frame  Quat
	Radius float32 // the farthest point of any child from the centre of mass
}

// ErrCompound is wrapped by NewCompound's errors.
var ErrCompound = errors.New("compound")

// NewCompound builds a compound from children posed in a common frame, each with its mass: the mass
// summed, the centre of mass the mass-weighted mean of the children's, and the inertia tensor summed
// exactly about it, R_c diag(m_c u_c) R_c^T + m_c (|d|^2 E - d d^T) for a child turned by R_c with
// principal moments m_c u_c at offset d (the parallel axis theorem), in float64. The children are then
// re-centred and turned into the whole's principal frame.
func NewCompound(children []Child) (*CompoundShape, error) {
	return newCompound(children, nil)
}

// NewCompoundAbout builds a compound as NewCompound does, but with its centre of mass at centre (in the
// frame the children are given in) instead of the children's mass-weighted mean: a body whose centre
// of mass was measured or declared (a URDF link's <inertial> origin) while its shapes are only its
// collision geometry. The inertia is the children's summed about centre, so it is their own tensor plus
// m (|d|^2 E - d d^T) for the offset d of their centre from the given one (a tensor the point mass
// adds, which keeps every moment positive and within the sum of the other two); WithInertia replaces it
// with a declared one.
func NewCompoundAbout(children []Child, centre Vec3) (*CompoundShape, error) {
	return newCompound(children, &centre)
}

func newCompound(children []Child, centre *Vec3) (*CompoundShape, error) {
	if len(children) == 0 || len(children) > MaxChildren {
		return nil, fmt.Errorf("%w: %d shapes; a compound has 1 to %d", ErrCompound, len(children), MaxChildren)
	}
	var mass float64
	var c v3
	for i := range children {
		ch := &children[i]
		switch ch.Shape.Kind {
		case Box, Sphere, Capsule, Cylinder, ConvexHull:
		default:
			return nil, fmt.Errorf("%w: shape %d is a %s; a compound's shapes are boxes, spheres, capsules, cylinders or hulls", ErrCompound, i, ch.Shape.Kind)
		}
		if !(ch.Mass > 0) || math.IsInf(float64(ch.Mass), 0) {
			return nil, fmt.Errorf("%w: shape %d has mass %v", ErrCompound, i, ch.Mass)
		}
		m := float64(ch.Mass)
		mass += m
		c = c.add(of(ch.Pose.P).scale(m))
	}
	c = c.scale(1 / mass)
	if centre != nil {
		c = of(*centre)
	}
	var t [3][3]float64
	for i := range children {
		ch := &children[i]
		m := float64(ch.Mass)
		u := ch.Shape.UnitInertia()
		r := rotation(ch.Pose.Q.Normalize())
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				for l := 0; l < 3; l++ {
					t[j][k] += m * float64(r.At(j, l)) * float64(u[l]) * float64(r.At(k, l))
				}
			}
		}
		d := of(ch.Pose.P).sub(c)
		dd := [3]float64{d.x, d.y, d.z}
		for j := 0; j < 3; j++ {
			t[j][j] += m * d.dot(d)
			for k := 0; k < 3; k++ {
				t[j][k] -= m * dd[j] * dd[k]
			}
		}
	}
	moments, axes := principalAxes(t)
	frame := matToQuat(axes)
	inv := frame.Conjugate()
	out := &CompoundShape{
		Mass:        float32(mass),
		UnitInertia: Vec3{float32(moments[0] / mass), float32(moments[1] / mass), float32(moments[2] / mass)},
		Centre:      c.f32(),
		Frame:       frame,
	}
	for _, ch := range children {
		d := of(ch.Pose.P).sub(c)
		ch.Pose = Pose{
			P: v3{axes[0].dot(d), axes[1].dot(d), axes[2].dot(d)}.f32(),
			Q: inv.Mul(ch.Pose.Q).Normalize(),
		}
		out.Radius = max(out.Radius, ch.Pose.P.Len()+ch.Shape.radius())
		out.Children = append(out.Children, ch)
	}
	return out, nil
}

// WithInertia returns a copy of the compound whose inertia is unit, a tensor per unit mass (m^2) about
// the centre of mass in the frame the children were given in, in place of the one their shapes make:
// a body whose inertia was measured or declared (a URDF link's <inertia>). The principal frame is the
// tensor's (a body's local axes are its principal axes, where its inertia is diagonal), so the children
// turn with it: a child at p in the old principal frame Fc sits at F^-1 Fc p in the new one, F. The
// tensor must be symmetric and finite, its principal moments positive and each at most the sum of the
// other two (CheckInertia).
func (c *CompoundShape) WithInertia(unit [3][3]float64) (*CompoundShape, error) {
	if err := CheckInertia(unit); err != nil {
		return nil, err
	}
	moments, axes := principalAxes(unit)
	frame := matToQuat(axes)
	turn := frame.Conjugate().Mul(c.Frame).Normalize()
	out := *c
	out.Children = append([]Child(nil), c.Children...)
	for i := range out.Children {
		ch := &out.Children[i]
		ch.Pose = Pose{P: turn.Rotate(ch.Pose.P), Q: turn.Mul(ch.Pose.Q).Normalize()}
	}
	out.Frame = frame
	out.UnitInertia = Vec3{float32(moments[0]), float32(moments[1]), float32(moments[2])}
	return &out, nil
}

// Own returns the mass properties the children alone give, in the compound's frame: their
// mass-weighted centre (the origin unless the compound was built about a given centre,
// NewCompoundAbout) and their inertia tensor per unit mass about the compound's centre of mass
// (diag(UnitInertia) unless an inertia was given, WithInertia). A scene writer compares them with the
// compound's own to write back only what was declared.
func (c *CompoundShape) Own() (centre Vec3, unit [3][3]float64) {
	var mass float64
	var p v3
	for i := range c.Children {
		ch := &c.Children[i]
		mass += float64(ch.Mass)
		p = p.add(of(ch.Pose.P).scale(float64(ch.Mass)))
	}
	own, err := newCompound(c.Children, &Vec3{})
	if err != nil {
		panic("geom: a compound's own children are no compound: " + err.Error())
	}
	r := rotation(own.Frame)
	for j := range 3 {
		for k := range 3 {
			for l := range 3 {
				unit[j][k] += float64(r.At(j, l)) * float64(own.UnitInertia[l]) * float64(r.At(k, l))
			}
		}
	}
	return p.scale(1 / mass).f32(), unit
}

// CheckInertia reports whether t is an inertia tensor: symmetric and finite, its principal moments
// positive and each at most the sum of the other two (the triangle inequality every mass distribution
// meets; a thin rod or plate meets it at equality, allowed within rounding).
func CheckInertia(t [3][3]float64) error {
	for j := range 3 {
		for k := range 3 {
			if math.IsNaN(t[j][k]) || math.IsInf(t[j][k], 0) || t[j][k] != t[k][j] {
				return fmt.Errorf("%w: inertia %v is not a finite symmetric tensor", ErrCompound, t)
			}
		}
	}
	moments, _ := principalAxes(t)
	const slack = 1e-9
	for k := range 3 {
		a, b := moments[(k+1)%3], moments[(k+2)%3]
		if !(moments[k] > 0) || moments[k] > (a+b)*(1+slack) {
			return fmt.Errorf("%w: inertia with principal moments %.6g: each must be positive and at most the sum of the other two",
				ErrCompound, moments)
		}
	}
	return nil
}

// BodyRotation returns the rotation of a body whose children, given in a frame turned by q, are held
// in the principal frame: q*Frame.
func (c *CompoundShape) BodyRotation(q Quat) Quat { return q.Mul(c.Frame).Normalize() }

// ChildPose returns child i's world pose on a body at pose body.
func (c *CompoundShape) ChildPose(body Pose, i int) Pose {
	ch := &c.Children[i].Pose
	return Pose{P: body.Apply(ch.P), Q: body.Q.Mul(ch.Q)}
}

// ChildFeature puts the child indices of a compound pair into a contact's feature id: the pair's own
// feature id XOR childA<<24 | childB<<16 (a side that is no compound counts as child 0). Box, sphere,
// capsule and plane ids fit in 16 bits, so theirs stay unique across the children; a hull's use the
// upper bits too, where two could only alias if both the features and the children differ to match.
func ChildFeature(id uint32, childA, childB int) uint32 {
	return id ^ (uint32(childA)&0xff)<<24 ^ (uint32(childB)&0xff)<<16
}

// of converts a Vec3 to float64.
func of(a Vec3) v3 { return v3{float64(a[0]), float64(a[1]), float64(a[2])} }

// radius is the distance from the shape's centre to its farthest point (zero for a plane or a mesh,
// which no compound holds).
func (s *Shape) radius() float32 {
	switch s.Kind {
	case Box:
		return s.HalfExtents.Len()
	case Sphere:
		return s.Radius
	case Capsule:
		return s.Radius + s.HalfHeight
	case Cylinder:
		return float32(math.Hypot(float64(s.Radius), float64(s.HalfHeight)))
	case ConvexHull:
		return s.Hull.Radius
	}
	return 0
}

// bounds is the union of the children's boxes.
func (c *CompoundShape) bounds(p Pose) AABB {
	var box AABB
	for i := range c.Children {
		b := c.Children[i].Shape.Bounds(c.ChildPose(p, i))
		if i == 0 {
			box = b
		} else {
			box = box.Union(b)
		}
	}
	return box
}
