// Package geom holds the geometry every stage of the step shares: shapes, poses, bounding boxes and
// mass properties. It is the leaf of the simulation: the narrow phase (sim/collide), the broad phase
// (sim/broad) and the world (sim) all speak in these types, so none of them needs to import another.
//
// All shapes are described in their body's local frame, centred on the centre of mass, so their
// inertia tensors are diagonal there and a body's world inertia is R diag(I0) R^T.
package geom

import (
	"math"
	"tumble/sim/internal/vecmath"

	"github.com/go-gl/mathgl/mgl32"
)

// Vec3 is a 3-vector of float32 (mathgl's, so the renderer can use it unchanged).
type Vec3 = mgl32.Vec3

// Quat is a unit quaternion (mathgl's: W scalar, V vector part).
type Quat = mgl32.Quat

// Mat3 is a column-major 3x3 matrix (mathgl's).
type Mat3 = mgl32.Mat3

// Kind names a shape type.
type Kind uint8

// The shape kinds.
const (
	Box Kind = iota
	Sphere
	Capsule
	Plane
	// ConvexHull is a convex polyhedron (Shape.Hull), built from points by NewHull.
	ConvexHull
	// TriMesh is a static triangle mesh (Shape.Mesh), built by NewMesh.
	TriMesh
	// Cylinder is a solid circular cylinder: Radius, and HalfHeight along local y (flat caps at
	// y = +-HalfHeight).
	Cylinder
	// HeightField is a static terrain from a grid of heights (Shape.Field), built by NewHeightField.
	HeightField
	// Compound is several shapes with their own poses and materials (Shape.Compound), built by
	// NewCompound.
	Compound
	NumKinds
)

var kindNames = [...]string{"box", "sphere", "capsule", "plane", "hull", "mesh", "cylinder", "heightfield", "compound"}

// String returns the kind's name as used in scene files.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Shape is a convex collision shape in its body's local frame. Only the fields of its Kind are used.
type Shape struct {
	Kind        Kind
	HalfExtents Vec3    // box: half sizes along local x, y, z
	Radius      float32 // sphere, capsule, cylinder
	HalfHeight  float32 // capsule: half length of the core segment; cylinder: half its height (both along local y)
	Normal      Vec3    // plane: unit normal (local frame)
	Offset      float32 // plane: points p with Normal.p = Offset (local frame)
	// Hull is a convex hull's shared, immutable geometry (vertices in the principal frame, faces,
	// edges, mass properties). A pointer keeps Shape small and comparable: equal hulls are the same
	// Hull, built once.
	Hull *Hull
	// Mesh is a triangle mesh's shared, immutable geometry (static bodies only).
	Mesh *Mesh
	// Field is a height field's shared, immutable geometry (static bodies only).
	Field *HeightGrid
	// Compound is a compound's shared, immutable children and mass properties.
	Compound *CompoundShape
}

// Pose is a rigid transform: a position and a rotation.
type Pose struct {
	P Vec3
	Q Quat
}

// Identity is the identity pose.
var Identity = Pose{Q: mgl32.QuatIdent()}

// Apply maps a local point to the world.
func (p Pose) Apply(v Vec3) Vec3 { return p.P.Add(p.Q.Rotate(v)) }

// ApplyInv maps a world point to the local frame.
func (p Pose) ApplyInv(v Vec3) Vec3 { return p.Q.Conjugate().Rotate(v.Sub(p.P)) }

// AABB is an axis-aligned bounding box.
type AABB struct {
	Min, Max Vec3
}

// Overlaps reports whether two boxes intersect (touching counts).
func (a AABB) Overlaps(b AABB) bool {
	return a.Min[0] <= b.Max[0] && b.Min[0] <= a.Max[0] &&
		a.Min[1] <= b.Max[1] && b.Min[1] <= a.Max[1] &&
		a.Min[2] <= b.Max[2] && b.Min[2] <= a.Max[2]
}

// Union returns the smallest box holding both.
func (a AABB) Union(b AABB) AABB {
	return AABB{
		Min: Vec3{min(a.Min[0], b.Min[0]), min(a.Min[1], b.Min[1]), min(a.Min[2], b.Min[2])},
		Max: Vec3{max(a.Max[0], b.Max[0]), max(a.Max[1], b.Max[1]), max(a.Max[2], b.Max[2])},
	}
}

// Contains reports whether b lies inside a.
func (a AABB) Contains(b AABB) bool {
	return a.Min[0] <= b.Min[0] && a.Min[1] <= b.Min[1] && a.Min[2] <= b.Min[2] &&
		b.Max[0] <= a.Max[0] && b.Max[1] <= a.Max[1] && b.Max[2] <= a.Max[2]
}

// Centre returns the box's centre.
func (a AABB) Centre() Vec3 { return a.Min.Add(a.Max).Mul(0.5) }

// PlaneExtent bounds the half-space of a plane: planes are infinite, so their box is this large.
const PlaneExtent = 1e6

// rotation is q.Mat4().Mat3() without the 4x4 in between: the same expressions, so the same bits.
func rotation(q mgl32.Quat) mgl32.Mat3 {
	w, x, y, z := q.W, q.V[0], q.V[1], q.V[2]
	return mgl32.Mat3{
		1 - 2*y*y - 2*z*z, 2*x*y + 2*w*z, 2*x*z - 2*w*y,
		2*x*y - 2*w*z, 1 - 2*x*x - 2*z*z, 2*y*z + 2*w*x,
		2*x*z + 2*w*y, 2*y*z - 2*w*x, 1 - 2*x*x - 2*y*y,
	}
}

// Bounds returns the shape's world AABB at pose p. A plane's box is the whole world unless its normal is
// axis-aligned, in which case the box is cut at the plane (a floor's box stops at the floor).
func (s *Shape) Bounds(p Pose) AABB {
	switch s.Kind {
	case Sphere:
		r := Vec3{s.Radius, s.Radius, s.Radius}
		return AABB{Min: p.P.Sub(r), Max: p.P.Add(r)}
	case Capsule:
		axis := p.Q.Rotate(Vec3{0, s.HalfHeight, 0})
		r := Vec3{s.Radius, s.Radius, s.Radius}
		a, b := p.P.Add(axis), p.P.Sub(axis)
		lo := Vec3{min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2])}
		hi := Vec3{max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])}
		return AABB{Min: lo.Sub(r), Max: hi.Add(r)}
	case Cylinder:
		// The caps are discs of radius r about the turned axis a at +-h a: a disc's extent along world
		// axis i is r sqrt(1 - a_i^2).
		a := p.Q.Rotate(Vec3{0, 1, 0})
		var ext Vec3
		for i := 0; i < 3; i++ {
			ext[i] = vecmath.Abs(a[i])*s.HalfHeight + s.Radius*float32(math.Sqrt(float64(max(0, 1-a[i]*a[i]))))
		}
		return AABB{Min: p.P.Sub(ext), Max: p.P.Add(ext)}
	case Box:
		m := rotation(p.Q)
		var ext Vec3
		for i := 0; i < 3; i++ {
			ext[i] = vecmath.Abs(m.At(i, 0))*s.HalfExtents[0] + vecmath.Abs(m.At(i, 1))*s.HalfExtents[1] + vecmath.Abs(m.At(i, 2))*s.HalfExtents[2]
		}
		return AABB{Min: p.P.Sub(ext), Max: p.P.Add(ext)}
	case ConvexHull:
		// The exact box of the turned vertices: a hull has at most MaxHullPoints of them.
		m := rotation(p.Q)
		lo := Vec3{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}
		hi := lo.Mul(-1)
		for _, v := range s.Hull.Verts {
			w := m.Mul3x1(v)
			lo = Vec3{min(lo[0], w[0]), min(lo[1], w[1]), min(lo[2], w[2])}
			hi = Vec3{max(hi[0], w[0]), max(hi[1], w[1]), max(hi[2], w[2])}
		}
		return AABB{Min: p.P.Add(lo), Max: p.P.Add(hi)}
	case TriMesh, HeightField:
		// The local box, turned: its centre moved and its half extents through |R|.
		lb := s.localBox()
		m := rotation(p.Q)
		c := p.Apply(lb.Centre())
		h := lb.Max.Sub(lb.Min).Mul(0.5)
		var ext Vec3
		for i := 0; i < 3; i++ {
			ext[i] = vecmath.Abs(m.At(i, 0))*h[0] + vecmath.Abs(m.At(i, 1))*h[1] + vecmath.Abs(m.At(i, 2))*h[2]
		}
		return AABB{Min: c.Sub(ext), Max: c.Add(ext)}
	case Compound:
		return s.Compound.bounds(p)
	case Plane:
		n := p.Q.Rotate(s.Normal)
		d := s.Offset + n.Dot(p.P)
		box := AABB{Min: Vec3{-PlaneExtent, -PlaneExtent, -PlaneExtent}, Max: Vec3{PlaneExtent, PlaneExtent, PlaneExtent}}
		for i := 0; i < 3; i++ {
			if n[i] > 1-1e-6 {
				box.Max[i] = d // solid below the plane along +axis
			} else if n[i] < -(1 - 1e-6) {
				box.Min[i] = -d
			}
		}
		return box
	}
	return AABB{}
}

// localBox is a mesh's or a height field's bounds in its own frame.
func (s *Shape) localBox() AABB {
	if s.Kind == HeightField {
		return s.Field.Box
	}
	return s.Mesh.Box
}

// Volume returns the shape's volume in m^3 (zero for a plane, a mesh and a height field, which are
// static).
func (s *Shape) Volume() float64 {
	switch s.Kind {
	case Box:
		return 8 * float64(s.HalfExtents[0]) * float64(s.HalfExtents[1]) * float64(s.HalfExtents[2])
	case Sphere:
		r := float64(s.Radius)
		return 4.0 / 3.0 * math.Pi * r * r * r
	case Capsule:
		r, h := float64(s.Radius), float64(s.HalfHeight)
		return math.Pi*r*r*2*h + 4.0/3.0*math.Pi*r*r*r
	case Cylinder:
		r, h := float64(s.Radius), float64(s.HalfHeight)
		return math.Pi * r * r * 2 * h
	case ConvexHull:
		return s.Hull.Volume
	case Compound:
		v := 0.0
		for i := range s.Compound.Children {
			v += s.Compound.Children[i].Shape.Volume()
		}
		return v
	}
	return 0
}

// UnitInertia returns the principal moments of inertia (about the local axes through the centre of
// mass) of the shape with unit mass. Exact for every kind; multiply by the mass.
func (s *Shape) UnitInertia() Vec3 {
	switch s.Kind {
	case Box:
		x, y, z := 2*float64(s.HalfExtents[0]), 2*float64(s.HalfExtents[1]), 2*float64(s.HalfExtents[2])
		return Vec3{float32((y*y + z*z) / 12), float32((x*x + z*z) / 12), float32((x*x + y*y) / 12)}
	case Sphere:
		r := float64(s.Radius)
		v := float32(0.4 * r * r)
		return Vec3{v, v, v}
	case Capsule:
		return capsuleUnitInertia(float64(s.Radius), float64(s.HalfHeight))
	case Cylinder:
		// A solid cylinder of unit mass, radius r, height H = 2h along y: r^2/2 about its axis,
		// (3r^2 + H^2)/12 about any diameter through its centre.
		r, H := float64(s.Radius), 2*float64(s.HalfHeight)
		ix := (3*r*r + H*H) / 12
		return Vec3{float32(ix), float32(r * r / 2), float32(ix)}
	case ConvexHull:
		return s.Hull.UnitInertia
	case Compound:
		return s.Compound.UnitInertia
	}
	return Vec3{}
}

// capsuleUnitInertia is the inertia of a solid capsule (a cylinder of radius r and length 2h along y,
// capped by two hemispheres) of unit mass. The hemispheres' own moments about their centroid
// (83/320 m r^2 transverse) are moved to the capsule's centre by the parallel-axis theorem; their
// centroids sit 3r/8 beyond the cylinder's ends.
func capsuleUnitInertia(r, h float64) Vec3 {
	vc := math.Pi * r * r * 2 * h
	vs := 4.0 / 3.0 * math.Pi * r * r * r
	mc, ms := vc/(vc+vs), vs/(vc+vs) // cylinder and both hemispheres together
	H := 2 * h
	iy := mc*r*r/2 + ms*2*r*r/5
	d := h + 3*r/8
	ix := mc*(r*r/4+H*H/12) + ms*(83.0/320.0*r*r+d*d)
	return Vec3{float32(ix), float32(iy), float32(ix)}
}
