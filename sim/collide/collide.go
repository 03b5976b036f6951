// Package collide is the narrow phase: it turns a pair of posed shapes into a contact manifold, up to
// four points sharing one normal, that the solver in package sim keeps apart.
//
// Each kind pair has its own routine. Round shapes (spheres, capsules) reduce to closest points between
// their core point or segment and the other shape, offset by the radius; cylinders go through support
// functions (GJK, EPA, then the facing features clipped: cylinder.go); boxes use the separating axis
// test to pick the axis of least penetration, then clip the other shape's face (or a capsule's segment)
// against the reference face, so a resting contact gets an area of points whose feature ids stay the
// same from step to step.
//
// The scene queries' maths for one shape lives here too: Ray (a ray against any shape), Cast (a convex
// shape swept against any shape, by GJK and conservative advancement) and Overlaps.
package collide

import "tumble/sim/geom"

// Point is one contact point.
type Point struct {
	Position   geom.Vec3 // world, midway between the two surfaces
	Separation float32   // signed distance along Normal; negative when overlapping
	ID         uint32    // feature id: stable from frame to frame while the same features touch
}

// Manifold is the contact between two shapes: up to 4 points sharing one normal.
type Manifold struct {
	Normal geom.Vec3 // unit, world, pointing from A to B
	Points [4]Point
	Count  int
}

// Collide fills m with the contact points between shape a at pose pa and shape b at pose pb whose
// separation is below margin (speculative contacts: margin > 0 gives points slightly apart too);
// m.Count = 0 when none. Works for every kind pair in either order (normal always from A to B), but
// triangle meshes, which may touch a shape with several normals at once: CollideMesh gives theirs.
//
// The anchor on A's surface is Position - Normal*Separation/2 and the one on B's is
// Position + Normal*Separation/2. Two planes never collide.
func Collide(a *geom.Shape, pa geom.Pose, b *geom.Shape, pb geom.Pose, margin float32, m *Manifold) {
	m.Count = 0
	switch pair(a.Kind, b.Kind) {
	case pair(geom.Box, geom.Box):
		boxBox(a, &pa, b, &pb, margin, m)
	case pair(geom.Sphere, geom.Sphere):
		sphereSphere(a, &pa, b, &pb, margin, m)
	case pair(geom.Capsule, geom.Capsule):
		capsuleCapsule(a, &pa, b, &pb, margin, m)

	case pair(geom.Box, geom.Sphere):
		boxSphere(a, &pa, b, &pb, margin, m)
	case pair(geom.Sphere, geom.Box):
		boxSphere(b, &pb, a, &pa, margin, m)
		m.flip()
	case pair(geom.Capsule, geom.Sphere):
		capsuleSphere(a, &pa, b, &pb, margin, m)
	case pair(geom.Sphere, geom.Capsule):
		capsuleSphere(b, &pb, a, &pa, margin, m)
		m.flip()
	case pair(geom.Box, geom.Capsule):
		boxCapsule(a, &pa, b, &pb, margin, m)
	case pair(geom.Capsule, geom.Box):
		boxCapsule(b, &pb, a, &pa, margin, m)
		m.flip()

	case pair(geom.Plane, geom.Box):
		planeBox(a, &pa, b, &pb, margin, m)
	case pair(geom.Box, geom.Plane):
		planeBox(b, &pb, a, &pa, margin, m)
		m.flip()
	case pair(geom.Plane, geom.Sphere):
		planeSphere(a, &pa, b, &pb, margin, m)
	case pair(geom.Sphere, geom.Plane):
		planeSphere(b, &pb, a, &pa, margin, m)
		m.flip()
	case pair(geom.Plane, geom.Capsule):
		planeCapsule(a, &pa, b, &pb, margin, m)
	case pair(geom.Capsule, geom.Plane):
		planeCapsule(b, &pb, a, &pa, margin, m)
		m.flip()

	case pair(geom.ConvexHull, geom.ConvexHull), pair(geom.ConvexHull, geom.Box), pair(geom.Box, geom.ConvexHull):
		hullHull(a, &pa, b, &pb, margin, m)
	case pair(geom.Plane, geom.ConvexHull):
		planeHull(a, &pa, b, &pb, margin, m)
	case pair(geom.ConvexHull, geom.Plane):
		planeHull(b, &pb, a, &pa, margin, m)
		m.flip()
	case pair(geom.ConvexHull, geom.Sphere):
		hullSphere(a, &pa, b, &pb, margin, m)
	case pair(geom.Sphere, geom.ConvexHull):
		hullSphere(b, &pb, a, &pa, margin, m)
		m.flip()
	case pair(geom.ConvexHull, geom.Capsule):
		hullCapsule(a, &pa, b, &pb, margin, m)
	case pair(geom.Capsule, geom.ConvexHull):
		hullCapsule(b, &pb, a, &pa, margin, m)
		m.flip()

	case pair(geom.Plane, geom.Cylinder):
		cylinderPlane(a, &pa, b, &pb, margin, m)
	case pair(geom.Cylinder, geom.Plane):
		cylinderPlane(b, &pb, a, &pa, margin, m)
		m.flip()
	case pair(geom.Cylinder, geom.Sphere):
		cylinderSphere(a, &pa, b, &pb, margin, m)
	case pair(geom.Sphere, geom.Cylinder):
		cylinderSphere(b, &pb, a, &pa, margin, m)
		m.flip()
	case pair(geom.Cylinder, geom.Cylinder), pair(geom.Cylinder, geom.Box), pair(geom.Box, geom.Cylinder),
		pair(geom.Cylinder, geom.Capsule), pair(geom.Capsule, geom.Cylinder),
		pair(geom.Cylinder, geom.ConvexHull), pair(geom.ConvexHull, geom.Cylinder):
		cylinderConvex(a, &pa, b, &pb, margin, m)
	}
}

// pair packs two kinds into one switch key.
func pair(a, b geom.Kind) uint8 { return uint8(a)<<4 | uint8(b) }

// add appends a point given its position and separation.
func (m *Manifold) addPoint(pos vec, sep float32, id uint32) {
	p := &m.Points[m.Count&3]
	p.Position = geom.Vec3{pos.X, pos.Y, pos.Z}
	p.Separation = sep
	p.ID = id
	m.Count++
}

// setNormal sets the manifold's normal.
func (m *Manifold) setNormal(n vec) { m.Normal = geom.Vec3{n.X, n.Y, n.Z} }

// flip turns a manifold computed for (B, A) into the one for (A, B). Positions and separations are
// symmetric; only the normal changes sign.
func (m *Manifold) flip() {
	m.Normal = geom.Vec3{-m.Normal[0], -m.Normal[1], -m.Normal[2]}
}

// toWorld maps a manifold computed in frame f's local coordinates to the world.
func (m *Manifold) toWorld(f *frame) {
	m.setNormal(f.dirToWorld(vg(m.Normal)))
	for i := 0; i < m.Count; i++ {
		p := &m.Points[i]
		p.Position = f.toWorld(vg(p.Position)).Vec3()
	}
}
