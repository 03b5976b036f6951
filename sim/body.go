package sim

import (
	"fmt"
	"math"

	"tumble/sim/geom"
)

// BodyType says how a body moves.
type BodyType uint8

// The body types.
const (
	// Dynamic bodies move under forces and contacts.
	Dynamic BodyType = iota
	// Kinematic bodies move at their given velocity, push dynamic bodies and are not pushed.
	Kinematic
	// Static bodies never move.
	Static
)

var bodyTypeNames = [...]string{"dynamic", "kinematic", "static"}

// String returns the type's name as used in scene files.
func (t BodyType) String() string {
	if int(t) < len(bodyTypeNames) {
		return bodyTypeNames[t]
	}
	return "unknown"
}

// DefaultDensity is the density (kg/m^3, water's) used when a body gives neither mass nor density.
const DefaultDensity = 1000

// BodyDef describes a body to add. The zero value plus a Shape is a valid dynamic body at the origin.
type BodyDef struct {
	Name            string // unique within a world; empty means "body<index>"
	Type            BodyType
	Shape           geom.Shape
	Position        Vec3    // centre of mass, world
	Rotation        Quat    // zero value means identity
	Velocity        Vec3    // world, m/s
	AngularVelocity Vec3    // world, rad/s
	Mass            float32 // kg; if zero, Density x volume
	Density         float32 // kg/m^3; if zero (and Mass zero), DefaultDensity
	Friction        float32 // Coulomb coefficient; pairs combine by geometric mean
	Restitution     float32 // pairs combine by max
	// RollingResistance c_r and SpinningResistance c_s (dimensionless, >= 0) resist rolling and
	// spinning at a contact: an angular impulse about the contact plane's axes of at most c_r r N,
	// and one about the normal of at most c_s r N, with N the contact's normal impulse and r its
	// lever (contactResistance). Pairs combine each by max; 0 leaves the contact as it is.
	RollingResistance  float32
	SpinningResistance float32
}

// Handle addresses a body stably: it stays valid, and keeps naming the same body, across removals of
// other bodies. A removed body's handle is detected as stale.
type Handle struct {
	Index uint32 // slot in the handle table (not the dense index)
	Gen   uint32 // generation of the slot; 0 is never issued, so the zero Handle is invalid
}

// Bodies is the world's body state in structure-of-arrays form: entry i of every slice describes the
// body at dense index i. Readers (renderer, traces, UI) may read it between steps; they must not write
// to it: edits go through World's methods.
type Bodies struct {
	Name            []string
	Type            []BodyType
	Shape           []geom.Shape
	Position        []Vec3 // centre of mass, world
	Rotation        []Quat
	Velocity        []Vec3
	AngularVelocity []Vec3
	Mass            []float32 // 0 for static and kinematic bodies
	InvMass         []float32 // 0 for static and kinematic bodies
	InvInertiaLocal []Vec3    // principal inverse moments, local frame
	InvInertiaWorld []Mat3    // R diag(InvInertiaLocal) R^T, refreshed every (sub-)step
	Friction        []float32
	Restitution     []float32
	// RollingResistance and SpinningResistance are BodyDef's coefficients, per body.
	RollingResistance  []float32
	SpinningResistance []float32
	// Asleep marks dynamic bodies of a sleeping island (Settings.Sleep): they hold still, cost no
	// solver work, and wake when touched, edited or joined. SleepTime is how long a body has been
	// at rest, seconds.
	Asleep    []bool
	SleepTime []float32
	island    []uint32 // label of a sleeping body's island (0 when awake): waking one wakes all
	handle    []uint32 // dense index -> handle slot
	// rot is the rotation matrix of each body's orientation: a cache that every stage turning a
	// local vector into world space reads, so it goes with the bodies and belongs to no stage. The
	// step sizes it to the bodies and the bounds stage writes it from the orientations; a stage
	// that rotates a body (XPBD's moves, the direct joints' projection, the position integration)
	// writes that body's.
	rot []Mat3
}

// Len returns the number of bodies.
func (b *Bodies) Len() int { return len(b.Position) }

func (b *Bodies) append(d *BodyDef, invMass float32, invI Vec3, mass float32) {
	b.Name = append(b.Name, d.Name)
	b.Type = append(b.Type, d.Type)
	b.Shape = append(b.Shape, d.Shape)
	b.Position = append(b.Position, d.Position)
	b.Rotation = append(b.Rotation, d.Rotation)
	b.Velocity = append(b.Velocity, d.Velocity)
	b.AngularVelocity = append(b.AngularVelocity, d.AngularVelocity)
	b.Mass = append(b.Mass, mass)
	b.InvMass = append(b.InvMass, invMass)
	b.InvInertiaLocal = append(b.InvInertiaLocal, invI)
	b.InvInertiaWorld = append(b.InvInertiaWorld, worldInertia(d.Rotation, invI))
	b.Friction = append(b.Friction, d.Friction)
	b.Restitution = append(b.Restitution, d.Restitution)
	b.RollingResistance = append(b.RollingResistance, d.RollingResistance)
	b.SpinningResistance = append(b.SpinningResistance, d.SpinningResistance)
	b.Asleep = append(b.Asleep, false)
	b.SleepTime = append(b.SleepTime, 0)
	b.island = append(b.island, 0)
}

// moveLast moves the last body into slot i and shrinks every slice by one.
func (b *Bodies) moveLast(i int) {
	last := len(b.Position) - 1
	b.Name[i], b.Name = b.Name[last], b.Name[:last]
	b.Type[i], b.Type = b.Type[last], b.Type[:last]
	b.Shape[i], b.Shape = b.Shape[last], b.Shape[:last]
	b.Position[i], b.Position = b.Position[last], b.Position[:last]
	b.Rotation[i], b.Rotation = b.Rotation[last], b.Rotation[:last]
	b.Velocity[i], b.Velocity = b.Velocity[last], b.Velocity[:last]
	b.AngularVelocity[i], b.AngularVelocity = b.AngularVelocity[last], b.AngularVelocity[:last]
	b.Mass[i], b.Mass = b.Mass[last], b.Mass[:last]
	b.InvMass[i], b.InvMass = b.InvMass[last], b.InvMass[:last]
	b.InvInertiaLocal[i], b.InvInertiaLocal = b.InvInertiaLocal[last], b.InvInertiaLocal[:last]
	b.InvInertiaWorld[i], b.InvInertiaWorld = b.InvInertiaWorld[last], b.InvInertiaWorld[:last]
	b.Friction[i], b.Friction = b.Friction[last], b.Friction[:last]
	b.Restitution[i], b.Restitution = b.Restitution[last], b.Restitution[:last]
	b.RollingResistance[i], b.RollingResistance = b.RollingResistance[last], b.RollingResistance[:last]
	b.SpinningResistance[i], b.SpinningResistance = b.SpinningResistance[last], b.SpinningResistance[:last]
	b.Asleep[i], b.Asleep = b.Asleep[last], b.Asleep[:last]
	b.SleepTime[i], b.SleepTime = b.SleepTime[last], b.SleepTime[:last]
	b.island[i], b.island = b.island[last], b.island[:last]
	b.handle[i], b.handle = b.handle[last], b.handle[:last]
	if last < len(b.rot) { // the step sizes rot to the bodies; until then the moved body's goes with it
		b.rot[i] = b.rot[last]
	}
}

// massProperties returns mass, inverse mass and inverse principal inertia for a body definition.
func massProperties(d *BodyDef) (mass, invMass float32, invI Vec3) {
	if d.Type != Dynamic {
		return 0, 0, Vec3{}
	}
	m := float64(d.Mass)
	if m == 0 {
		if d.Density == 0 {
			m = defaultMass(&d.Shape)
		} else {
			m = float64(d.Density) * d.Shape.Volume()
		}
	}
	unit := d.Shape.UnitInertia()
	for k := 0; k < 3; k++ {
		invI[k] = float32(1 / (m * float64(unit[k])))
	}
	return float32(m), float32(1 / m), invI
}

// defaultMass is the mass of a body that gives neither mass nor density: a compound's children's
// masses summed, another shape's volume at DefaultDensity.
func defaultMass(s *geom.Shape) float64 {
	if s.Kind == geom.Compound {
		return float64(s.Compound.Mass)
	}
	return DefaultDensity * s.Volume()
}

// validateDef checks a body definition; scene files are validated with better messages before this.
func validateDef(d *BodyDef) error {
	s := &d.Shape
	bad := func(field string, v any) error { return fmt.Errorf("body %q: %s: invalid value %v", d.Name, field, v) }
	finite := func(v ...float32) bool {
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return false
			}
		}
		return true
	}
	if d.Type > Static {
		return bad("type", d.Type)
	}
	switch s.Kind {
	case geom.Box:
		if !(s.HalfExtents[0] > 0 && s.HalfExtents[1] > 0 && s.HalfExtents[2] > 0) || !finite(s.HalfExtents[:]...) {
			return bad("shape.halfExtents", s.HalfExtents)
		}
	case geom.Sphere:
		if !(s.Radius > 0) || !finite(s.Radius) {
			return bad("shape.radius", s.Radius)
		}
	case geom.Capsule:
		if !(s.Radius > 0) || !finite(s.Radius) {
			return bad("shape.radius", s.Radius)
		}
		if !(s.HalfHeight > 0) || !finite(s.HalfHeight) {
			return bad("shape.halfHeight", s.HalfHeight)
		}
	case geom.Cylinder:
		if !(s.Radius > 0) || !finite(s.Radius) {
			return bad("shape.radius", s.Radius)
		}
		if !(s.HalfHeight > 0) || !finite(s.HalfHeight) {
			return bad("shape.halfHeight", s.HalfHeight)
		}
	case geom.ConvexHull:
		if s.Hull == nil || !(s.Hull.Volume > 0) {
			return bad("shape.points", "no hull (build it with geom.NewHull)")
		}
	case geom.TriMesh:
		if d.Type != Static {
			return fmt.Errorf("body %q: a triangle mesh must be static, got %s", d.Name, d.Type)
		}
		if s.Mesh == nil {
			return bad("shape.mesh", "no mesh (build it with geom.NewMesh)")
		}
	case geom.HeightField:
		if d.Type != Static {
			return fmt.Errorf("body %q: a height field must be static, got %s", d.Name, d.Type)
		}
		if s.Field == nil {
			return bad("shape.field", "no height field (build it with geom.NewHeightField)")
		}
	case geom.Compound:
		if s.Compound == nil {
			return bad("shapes", "no compound (build it with geom.NewCompound)")
		}
		if d.Density != 0 {
			return fmt.Errorf("body %q: a compound's density is its shapes' own (give mass to scale them)", d.Name)
		}
	case geom.Plane:
		if d.Type != Static {
			return fmt.Errorf("body %q: a plane must be static, got %s", d.Name, d.Type)
		}
		if l := s.Normal.Len(); !(l > 0.5 && l < 2) || !finite(s.Normal[:]...) {
			return bad("shape.normal", s.Normal)
		}
	default:
		return bad("shape.type", s.Kind)
	}
	if !finite(d.Position[:]...) || !finite(d.Velocity[:]...) || !finite(d.AngularVelocity[:]...) ||
		!finite(d.Rotation.W, d.Rotation.V[0], d.Rotation.V[1], d.Rotation.V[2]) {
		return bad("pose or velocity", "non-finite")
	}
	if d.Mass < 0 || d.Density < 0 || !finite(d.Mass, d.Density) {
		return bad("mass/density", [2]float32{d.Mass, d.Density})
	}
	if d.Friction < 0 || d.Restitution < 0 || !finite(d.Friction, d.Restitution) {
		return bad("friction/restitution", [2]float32{d.Friction, d.Restitution})
	}
	if !(d.RollingResistance >= 0) || !(d.SpinningResistance >= 0) || !finite(d.RollingResistance, d.SpinningResistance) {
		return bad("rollingResistance/spinningResistance", [2]float32{d.RollingResistance, d.SpinningResistance})
	}
	return nil
}

// worldInertia returns R diag(inv) R^T.
func worldInertia(q Quat, inv Vec3) Mat3 {
	var m Mat3
	worldInertiaTo(&m, &q, &inv)
	return m
}

// worldInertiaTo sets dst to R diag(inv) R^T, with R mathgl's Quat.Mat4 rotation of q, all in
// scalars in the matrix form's order of operations (the same bits; the Mat4 and Mat3 went through
// memory and were copied in wide moves over their narrow stores, which stalls).
func worldInertiaTo(dst *Mat3, q *Quat, inv *Vec3) {
	w, x, y, z := q.W, q.V[0], q.V[1], q.V[2]
	r0, r1, r2 := 1-2*y*y-2*z*z, 2*x*y+2*w*z, 2*x*z-2*w*y
	r3, r4, r5 := 2*x*y-2*w*z, 1-2*x*x-2*z*z, 2*y*z+2*w*x
	r6, r7, r8 := 2*x*z+2*w*y, 2*y*z-2*w*x, 1-2*x*x-2*y*y
	i0, i1, i2 := inv[0], inv[1], inv[2]
	// entry (row rr, column c) = r[rr] r[c] i0 + r[3+rr] r[3+c] i1 + r[6+rr] r[6+c] i2
	e := func(a0, b0, a1, b1, a2, b2 float32) float32 { return a0*b0*i0 + a1*b1*i1 + a2*b2*i2 }
	dst[0], dst[1], dst[2] = e(r0, r0, r3, r3, r6, r6), e(r1, r0, r4, r3, r7, r6), e(r2, r0, r5, r3, r8, r6)
	dst[3], dst[4], dst[5] = e(r0, r1, r3, r4, r6, r7), e(r1, r1, r4, r4, r7, r7), e(r2, r1, r5, r4, r8, r7)
	dst[6], dst[7], dst[8] = e(r0, r2, r3, r5, r6, r8), e(r1, r2, r4, r5, r7, r8), e(r2, r2, r5, r5, r8, r8)
}
