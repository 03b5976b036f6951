package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
	"tumble/sim/collide"
	"tumble/sim/geom"
)

// The narrow phase on the device must give what the CPU's gives: for every broad-phase pair, the
// manifold of collide.Collide with the margin of sim's narrowPhase, skipping jointed pairs, listed in
// pair order.
//
// Tolerances. The emulator compiles collide.cuh as host C++ on x86-64, where, as in Go on amd64, every
// float32 operation is rounded on its own and nothing is fused, and the port keeps Go's order of
// operations; so the emulated manifolds are expected to equal the CPU's to the bit or nearly. The
// tolerances are the ones the same comparison needs on a GPU, where nvcc fuses multiply-adds (each
// fusion skips one float32 rounding, a relative 6e-8 per operation; a manifold takes a few dozen
// operations on values of the scene's size): 1e-4 on the unit normal, 1e-4 x scale on positions and
// separations, scale being the largest of 1, the shapes' bounding radii and the coordinates of the
// two bodies' positions. Counts, body indices and feature ids, in order, must match exactly.

const (
	narrowNormalTol = 1e-4
	narrowPosTol    = 1e-4
)

// narrowTestWorld builds bodies for the tests: the narrow phase reads only shapes, poses and
// velocities.
type narrowTestWorld struct{ b sim.Bodies }

func (w *narrowTestWorld) add(s geom.Shape, p geom.Pose, v, omega geom.Vec3) int32 {
	b := &w.b
	typ, invMass := sim.Dynamic, float32(1)
	if s.Kind == geom.Plane {
		typ, invMass, v, omega = sim.Static, 0, geom.Vec3{}, geom.Vec3{}
	}
	b.Name = append(b.Name, "")
	b.Type = append(b.Type, typ)
	b.Shape = append(b.Shape, s)
	b.Position = append(b.Position, p.P)
	b.Rotation = append(b.Rotation, p.Q)
	b.Velocity = append(b.Velocity, v)
	b.AngularVelocity = append(b.AngularVelocity, omega)
	b.Mass = append(b.Mass, 1)
	b.InvMass = append(b.InvMass, invMass)
	b.InvInertiaLocal = append(b.InvInertiaLocal, geom.Vec3{1, 1, 1})
	b.InvInertiaWorld = append(b.InvInertiaWorld, mgl32.Ident3())
	b.Friction = append(b.Friction, 0.5)
	b.Restitution = append(b.Restitution, 0)
	b.RollingResistance = append(b.RollingResistance, 0)
	b.SpinningResistance = append(b.SpinningResistance, 0)
	b.Asleep = append(b.Asleep, false)
	b.SleepTime = append(b.SleepTime, 0)
	return int32(len(b.Position) - 1)
}

// narrowCPU is the CPU's narrow phase and gatherManifolds over pairs, as a contact list: the margin is
// sim's narrowPhase's, line for line.
func narrowCPU(b *sim.Bodies, pairs []int2, dt, speculative float32, jointed []uint64) []tbContact {
	var out []tbContact
	var m collide.Manifold
	for _, pr := range pairs {
		ia, ib := pr.X, pr.Y
		if _, ok := slices.BinarySearch(jointed, uint64(ia)<<32|uint64(ib)); ok {
			continue
		}
		rel := b.Velocity[ib].Sub(b.Velocity[ia]).Len()*dt +
			(b.AngularVelocity[ia].Len()*sim.BoundingRadius(&b.Shape[ia])+
				b.AngularVelocity[ib].Len()*sim.BoundingRadius(&b.Shape[ib]))*dt
		margin := speculative + rel
		pa, pb := geom.Pose{P: b.Position[ia], Q: b.Rotation[ia]}, geom.Pose{P: b.Position[ib], Q: b.Rotation[ib]}
		// A pair with a mesh gives its triangles' manifolds (sim's meshPair), the others one.
		switch {
		case b.Shape[ia].Kind == geom.TriMesh:
			for _, m := range collide.CollideMesh(&b.Shape[ia], pa, &b.Shape[ib], pb, margin, nil) {
				out = appendContact(out, ia, ib, &m, false)
			}
		case b.Shape[ib].Kind == geom.TriMesh:
			for _, m := range collide.CollideMesh(&b.Shape[ib], pb, &b.Shape[ia], pa, margin, nil) {
				out = appendContact(out, ia, ib, &m, true)
			}
		default:
			collide.Collide(&b.Shape[ia], pa, &b.Shape[ib], pb, margin, &m)
			out = appendContact(out, ia, ib, &m, false)
		}
	}
	return out
}

// appendContact appends manifold m of bodies ia and ib as a contact, its normal negated when flip,
// unless it has no points.
func appendContact(out []tbContact, ia, ib int32, m *collide.Manifold, flip bool) []tbContact {
	if m.Count == 0 {
		return out
	}
	n := m.Normal
	if flip {
		n = geom.Vec3{-n[0], -n[1], -n[2]}
	}
	c := tbContact{A: ia, B: ib, Count: int32(m.Count), NX: n[0], NY: n[1], NZ: n[2]}
	for i := 0; i < m.Count; i++ {
		p := &m.Points[i]
		c.Pts[i] = tbPoint{PX: p.Position[0], PY: p.Position[1], PZ: p.Position[2], Sep: p.Separation, ID: p.ID}
	}
	return append(out, c)
}

// narrowRun runs the stage over pairs, uploaded into a buffer of pairCapacity pairs whose slots past
// len(pairs) hold junk the kernels must not read (a body paired with itself, which would touch), with
// the device pair count len(pairs), and returns the downloaded count and the list's first
// min(count, capacity) contacts.
func narrowRun(t testing.TB, d device, s *narrowStage, bb *bodyBuffers, pairs []int2, pairCapacity int, dt, speculative float32) (uint32, []tbContact) {
	t.Helper()
	return narrowRunCount(t, d, s, bb, pairs, uint32(len(pairs)), pairCapacity, dt, speculative)
}

// narrowRunCount is narrowRun with the device pair count given (the broad phase's counter may exceed
// its capacity).
func narrowRunCount(t testing.TB, d device, s *narrowStage, bb *bodyBuffers, pairs []int2, pairCount uint32, pairCapacity int, dt, speculative float32) (uint32, []tbContact) {
	t.Helper()
	var pb, cb buffer
	defer release(d, &pb)
	defer release(d, &cb)
	if err := grow(d, &pb, 8*pairCapacity); err != nil {
		t.Fatal(err)
	}
	slots := make([]int2, pairCapacity)
	copy(slots, pairs)
	for i := len(pairs); i < pairCapacity; i++ {
		slots[i] = int2{0, 0}
	}
	if err := uploadSlice(d, pb.p, slots); err != nil {
		t.Fatal(err)
	}
	if err := grow(d, &cb, 4); err != nil {
		t.Fatal(err)
	}
	if err := uploadSlice(d, cb.p, []uint32{pairCount}); err != nil {
		t.Fatal(err)
	}
	if err := s.run(d, bb, pb.p, cb.p, pairCapacity, dt, speculative); err != nil {
		t.Fatal(err)
	}
	contacts, countP, capacity := s.contactList()
	var count [1]uint32
	if err := downloadSlice(d, count[:], countP); err != nil {
		t.Fatal(err)
	}
	got := make([]tbContact, min(int(count[0]), capacity))
	if err := downloadSlice(d, got, contacts); err != nil {
		t.Fatal(err)
	}
	return count[0], got
}

// narrowDev records the largest differences seen, to judge the tolerances.
type narrowDev struct {
	normal, pos float64
	contacts    int
}

// narrowCompare checks got against want (see the tolerances above).
func narrowCompare(t testing.TB, b *sim.Bodies, want, got []tbContact, dev *narrowDev, where string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d contacts, want %d", where, len(got), len(want))
	}
	for k := range want {
		w, g := &want[k], &got[k]
		if g.A != w.A || g.B != w.B || g.Count != w.Count {
			t.Fatalf("%s: contact %d is pair (%d, %d) with %d points, want (%d, %d) with %d:\n got %+v\nwant %+v",
				where, k, g.A, g.B, g.Count, w.A, w.B, w.Count, *g, *w)
		}
		scale := float64(max(1, sim.BoundingRadius(&b.Shape[w.A]), sim.BoundingRadius(&b.Shape[w.B])))
		for _, body := range []int32{w.A, w.B} {
			for _, x := range b.Position[body] {
				scale = math.Max(scale, math.Abs(float64(x)))
			}
		}
		dn := max(absDiff(g.NX, w.NX), absDiff(g.NY, w.NY), absDiff(g.NZ, w.NZ))
		dev.normal = math.Max(dev.normal, dn)
		if dn > narrowNormalTol {
			t.Fatalf("%s: contact %d (%s-%s): normal (%g %g %g), want (%g %g %g)", where, k,
				b.Shape[w.A].Kind, b.Shape[w.B].Kind, g.NX, g.NY, g.NZ, w.NX, w.NY, w.NZ)
		}
		for i := 0; i < int(w.Count); i++ {
			gp, wp := &g.Pts[i], &w.Pts[i]
			if gp.ID != wp.ID {
				t.Fatalf("%s: contact %d (%s-%s) point %d: id %#x, want %#x (ids got %v want %v)", where, k,
					b.Shape[w.A].Kind, b.Shape[w.B].Kind, i, gp.ID, wp.ID, narrowIDs(g), narrowIDs(w))
			}
			dp := max(absDiff(gp.PX, wp.PX), absDiff(gp.PY, wp.PY), absDiff(gp.PZ, wp.PZ), absDiff(gp.Sep, wp.Sep)) / scale
			dev.pos = math.Max(dev.pos, dp)
			if dp > narrowPosTol {
				t.Fatalf("%s: contact %d (%s-%s) point %d: %+v, want %+v", where, k,
					b.Shape[w.A].Kind, b.Shape[w.B].Kind, i, *gp, *wp)
			}
		}
	}
	dev.contacts += len(want)
}

func absDiff(a, b float32) float64 { return math.Abs(float64(a) - float64(b)) }

func narrowIDs(c *tbContact) []uint32 {
	out := make([]uint32, c.Count)
	for i := range out {
		out[i] = c.Pts[i].ID
	}
	return out
}

// ---- generators ----

func narrowRandUnit(rng *rand.Rand) geom.Vec3 {
	for {
		v := geom.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}
		if l := v.Len(); l > 1e-3 {
			return v.Mul(1 / l)
		}
	}
}

func narrowRandQuat(rng *rand.Rand) geom.Quat {
	q := mgl32.Quat{W: float32(rng.NormFloat64()), V: geom.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}}
	return q.Normalize()
}

// narrowRandShape draws a shape of the kind with sizes from 0.1 to about 1.2 (capsules sometimes
// with no core, planes sometimes tilted and offset, hulls from testHulls).
func narrowRandShape(rng *rand.Rand, k geom.Kind) geom.Shape {
	u := func(lo, hi float32) float32 { return lo + (hi-lo)*rng.Float32() }
	switch k {
	case geom.Box:
		return geom.Shape{Kind: k, HalfExtents: geom.Vec3{u(0.1, 1.2), u(0.1, 1.2), u(0.1, 1.2)}}
	case geom.Sphere:
		return geom.Shape{Kind: k, Radius: u(0.1, 1)}
	case geom.Capsule:
		hh := u(0.05, 1)
		if rng.IntN(10) == 0 {
			hh = 0
		}
		return geom.Shape{Kind: k, Radius: u(0.05, 0.6), HalfHeight: hh}
	case geom.ConvexHull:
		return geom.Shape{Kind: k, Hull: testHulls[rng.IntN(len(testHulls))]}
	case geom.TriMesh:
		return geom.Shape{Kind: k, Mesh: testMesh}
	}
	s := geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}
	if rng.IntN(2) == 0 {
		s.Normal, s.Offset = narrowRandUnit(rng), u(-1, 1)
	}
	return s
}

// narrowSupport is how far shape s at rotation q reaches from its centre along the unit u.
func narrowSupport(s *geom.Shape, q geom.Quat, u geom.Vec3) float32 {
	switch s.Kind {
	case geom.Box:
		var r float32
		for k := 0; k < 3; k++ {
			ax := q.Rotate(unitAxis(k))
			r += abs(u.Dot(ax)) * s.HalfExtents[k]
		}
		return r
	case geom.Sphere:
		return s.Radius
	case geom.Capsule:
		return s.Radius + s.HalfHeight*abs(u.Dot(q.Rotate(geom.Vec3{0, 1, 0})))
	case geom.ConvexHull:
		r := float32(math.Inf(-1))
		for _, v := range s.Hull.Verts {
			r = max(r, u.Dot(q.Rotate(v)))
		}
		return r
	case geom.TriMesh:
		r := float32(math.Inf(-1))
		for _, v := range s.Mesh.Verts {
			r = max(r, u.Dot(q.Rotate(v)))
		}
		return r
	}
	return 0
}

// testMesh is the static mesh the narrow phase's random pairs draw: a 4 m square of 8 x 8 cells, two
// triangles each, flat over a strip (flat seams: inactive edges), with bumps and a crease elsewhere
// (convex and concave folds, active and inactive), so a shape meets one triangle or several with
// normals apart (several manifolds).
var testMesh = func() *geom.Mesh {
	m, err := geom.NewGridMesh(2, 8, func(x, z float32) float32 {
		if x < -1 {
			return 0
		}
		return 0.3*float32(math.Sin(1.7*float64(x))*math.Cos(1.3*float64(z))) + 0.2*abs(z)
	})
	if err != nil {
		panic("gpu: test mesh: " + err.Error())
	}
	return m
}()

func unitAxis(k int) geom.Vec3 {
	var v geom.Vec3
	v[k] = 1
	return v
}

func abs(x float32) float32 { return float32(math.Abs(float64(x))) }

// narrowRandRot draws an orientation: uniform, axis-aligned (faces parallel to the world's), or the
// given one turned a little (tilted resting contacts).
func narrowRandRot(rng *rand.Rand, near geom.Quat) geom.Quat {
	switch rng.IntN(4) {
	case 0:
		return mgl32.QuatIdent()
	case 1:
		return mgl32.QuatRotate(float32(rng.Float64()*0.2-0.1), narrowRandUnit(rng)).Mul(near).Normalize()
	case 2:
		return mgl32.QuatRotate(float32(rng.IntN(4))*math.Pi/2, unitAxis(rng.IntN(3))).Mul(near).Normalize()
	}
	return narrowRandQuat(rng)
}

// narrowRandPair adds two bodies of the kinds, placed near contact: B's projection along a random
// direction (or one of A's face normals) meets A's with a gap from -0.3 to +0.1 of the smaller size,
// so pairs come deep, barely touching and just apart. A plane is placed under the other shape the
// same way along its normal, and a shape over a mesh above a random point of a random triangle.
func narrowRandPair(rng *rand.Rand, w *narrowTestWorld, ka, kb geom.Kind) int2 {
	sa, sb := narrowRandShape(rng, ka), narrowRandShape(rng, kb)
	vel := func() geom.Vec3 {
		if rng.IntN(3) == 0 {
			return geom.Vec3{}
		}
		return narrowRandUnit(rng).Mul(2 * rng.Float32())
	}
	pa := geom.Pose{P: geom.Vec3{8*rng.Float32() - 4, 8*rng.Float32() - 4, 8*rng.Float32() - 4}, Q: narrowRandRot(rng, mgl32.QuatIdent())}
	pb := geom.Pose{Q: narrowRandRot(rng, pa.Q)}
	size := min(sim.BoundingRadius(&sa), sim.BoundingRadius(&sb))
	gap := size * (0.4*rng.Float32() - 0.3)
	switch {
	case ka == geom.TriMesh || kb == geom.TriMesh:
		// Over a random point of a random triangle, along its normal, the gap under the other shape.
		mesh, other, pm, po := &sa, &sb, &pa, &pb
		if ka != geom.TriMesh {
			mesh, other, pm, po = &sb, &sa, &pb, &pa
		}
		m := mesh.Mesh
		ti := rng.IntN(len(m.Tris))
		v0, v1, v2 := m.Verts[m.Tris[ti][0]], m.Verts[m.Tris[ti][1]], m.Verts[m.Tris[ti][2]]
		r1, r2 := rng.Float32(), rng.Float32()
		if r1+r2 > 1 {
			r1, r2 = 1-r1, 1-r2
		}
		at := pm.Apply(v0.Add(v1.Sub(v0).Mul(r1)).Add(v2.Sub(v0).Mul(r2)))
		n := pm.Q.Rotate(m.Normals[ti])
		gap = sim.BoundingRadius(other) * (0.4*rng.Float32() - 0.3)
		po.P = at.Add(n.Mul(narrowSupport(other, po.Q, n.Mul(-1)) + gap))
	case ka == geom.Plane || kb == geom.Plane:
		plane, other, pp, po := &sa, &sb, &pa, &pb
		if kb == geom.Plane {
			plane, other, pp, po = &sb, &sa, &pb, &pa
		}
		n := pp.Q.Rotate(plane.Normal)
		d := plane.Offset + n.Dot(pp.P)
		gap = sim.BoundingRadius(other) * (0.4*rng.Float32() - 0.3)
		tangent := narrowRandUnit(rng)
		tangent = tangent.Sub(n.Mul(tangent.Dot(n))).Mul(3 * rng.Float32())
		po.P = n.Mul(d + narrowSupport(other, po.Q, n) + gap).Add(tangent)
	default:
		u := narrowRandUnit(rng)
		if rng.IntN(3) == 0 {
			u = pa.Q.Rotate(unitAxis(rng.IntN(3)))
			if rng.IntN(2) == 0 {
				u = u.Mul(-1)
			}
			// Slide along the face too, so face contacts get clipped at the face's edges.
			off := narrowRandUnit(rng)
			pb.P = off.Sub(u.Mul(off.Dot(u))).Mul(rng.Float32())
		}
		pb.P = pb.P.Add(pa.P).Add(u.Mul(narrowSupport(&sa, pa.Q, u) + narrowSupport(&sb, pb.Q, u) + gap))
	}
	ia := w.add(sa, pa, vel(), vel())
	ib := w.add(sb, pb, vel(), vel())
	return int2{ia, ib}
}

// narrowCase is one posed pair of shapes.
type narrowCase struct {
	a      geom.Shape
	pa     geom.Pose
	b      geom.Shape
	pb     geom.Pose
	margin float32 // the speculative distance to run it with
}

func nBox(hx, hy, hz float32) geom.Shape {
	return geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{hx, hy, hz}}
}
func nSphere(r float32) geom.Shape { return geom.Shape{Kind: geom.Sphere, Radius: r} }
func nCapsule(r, hh float32) geom.Shape {
	return geom.Shape{Kind: geom.Capsule, Radius: r, HalfHeight: hh}
}

var nFloor = geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}

func nAt(x, y, z float32) geom.Pose { return geom.Pose{P: geom.Vec3{x, y, z}, Q: mgl32.QuatIdent()} }
func nTurned(x, y, z, deg float32, axis geom.Vec3) geom.Pose {
	return geom.Pose{P: geom.Vec3{x, y, z}, Q: mgl32.QuatRotate(mgl32.DegToRad(deg), axis.Normalize())}
}

// narrowExactCases are the configurations of sim/collide's TestCollideExactCases and
// TestFeatureIDsStableUnderJitter (resting stacks, overhangs, crossed edges, capsules lying and
// standing, planes), with their margins.
func narrowExactCases() []narrowCase {
	x, y, z := geom.Vec3{1, 0, 0}, geom.Vec3{0, 1, 0}, geom.Vec3{0, 0, 1}
	r45 := float32(0.5 * math.Sqrt2)
	low30 := float32(0.5 * (math.Cos(math.Pi/6) + 0.5))
	return []narrowCase{
		{nBox(2, 0.5, 2), nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nAt(0.3, 0.99, -0.2), 0},
		{nBox(0.5, 0.5, 0.5), nAt(0.3, 0.99, -0.2), nBox(2, 0.5, 2), nAt(0, 0, 0), 0},
		{nBox(2, 0.5, 2), nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nTurned(0, 0.99, 0, 45, y), 0},
		{nBox(0.5, 0.5, 0.5), nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nAt(0, 0.98, 0), 0},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nAt(1.2, 0.99, 0), 0},
		{nFloor, nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nTurned(0, low30-0.01, 0, 30, z), 0.02},
		{nFloor, nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nTurned(0, low30-0.01, 0, 30, z), 1},
		{nBox(0.5, 0.5, 0.5), nTurned(0, 0, 0, 45, z), nBox(0.5, 0.5, 0.5), nTurned(0.1, 2*r45-0.01, 0.05, 45, x), 0},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nSphere(0.3), nAt(0.2, 0.79, 0.1), 0},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nSphere(0.3), nAt(1.2, 0.7, 0.4), 0},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nSphere(0.3), nAt(1.1, 0.6, 1.1), 0},
		{nSphere(0.3), nAt(0.2, 0.45, 0.1), nBox(1, 0.5, 1), nAt(0, 0, 0), 0},
		{nSphere(0.5), nAt(0, 0, 0), nSphere(0.25), nAt(0, 0.74, 0), 0},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nCapsule(0.2, 0.5), nTurned(0.1, 0.69, 0.3, 90, z), 0},
		{nCapsule(0.2, 0.5), nTurned(1, 0.69, 0.3, 90, z), nBox(1, 0.5, 1), nAt(0, 0, 0), 0},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nCapsule(0.2, 0.5), nAt(0.1, 1.19, 0.3), 0},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nCapsule(0.2, 0.5), nTurned(0.1, 0.4, 0.3, 90, z), 0},
		{nBox(0.5, 0.5, 0.5), nTurned(0, 0, 0, 45, z), nCapsule(0.2, 0.5), nTurned(0, 0.65, 0, 90, z), 0},
		{nCapsule(0.2, 1), nTurned(0, 0, 0, 90, z), nCapsule(0.3, 0.5), nTurned(0.8, 0.49, 0, 90, z), 0},
		{nCapsule(0.2, 1), nTurned(0, 0, 0, 90, z), nCapsule(0.3, 0.5), nTurned(0.4, 0.49, 0, 90, x), 0},
		{nCapsule(0.2, 0.5), nTurned(0.5, 0.19, 0, 90, x), nFloor, nAt(0, 0, 0), 0},
		{nFloor, nAt(0, 0, 0), nSphere(0.5), nAt(1, 0.49, 2), 0},
		{geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}, Offset: 0.5}, nAt(0, 0.5, 0), nSphere(0.5), nAt(1, 1.49, 2), 0},
		{nBox(0.5, 0.5, 0.5), nAt(0, 0, 0), nSphere(0.5), nAt(0, 1.2, 0), 0.1},
		{nBox(0.5, 0.5, 0.5), nAt(0, 0, 0), nSphere(0.5), nAt(0, 1.05, 0), 0.1},
		// TestFeatureIDsStableUnderJitter's, at margin 0.02.
		{nBox(2, 0.5, 2), nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nAt(0.3, 0.995, -0.2), 0.02},
		{nBox(0.5, 0.5, 0.5), nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nAt(0, 0.995, 0), 0.02},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nTurned(0, 0.995, 0, 45, y), 0.02},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nTurned(1, 0.995, 1, 30, y), 0.02},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nAt(1.2, 0.995, 0), 0.02},
		{nBox(0.3, 0.5, 0.3), nAt(0, 0, 0), nBox(1, 0.1, 0.2), nTurned(0, 0.595, 0, 20, y), 0.02},
		{nFloor, nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nTurned(3, 0.495, 1, 10, y), 0.02},
		{nFloor, nAt(0, 0, 0), nBox(0.5, 0.5, 0.5), nTurned(0, 0.5*1.4142135-0.005, 0, 45, z), 0.02},
		{nBox(0.5, 0.5, 0.5), nTurned(0, 0, 0, 45, z), nBox(0.5, 0.5, 0.5), nTurned(0.1, 1.4142135-0.005, 0.05, 45, x), 0.02},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nSphere(0.3), nAt(0.2, 0.795, 0.1), 0.02},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nSphere(0.3), nAt(1.2, 0.7, 0.4), 0.02},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nCapsule(0.2, 0.5), nTurned(0.1, 0.695, 0.3, 90, z), 0.02},
		{nBox(1, 0.5, 1), nAt(0, 0, 0), nCapsule(0.2, 0.5), nTurned(1, 0.695, 0.3, 90, z), 0.02},
		{nBox(0.5, 0.5, 1), nAt(0, 0, 0), nCapsule(0.2, 0.5), nTurned(0, 0.695, 0.3, 90, z), 0.02},
		{nCapsule(0.2, 1), nTurned(0, 0, 0, 90, z), nCapsule(0.3, 0.5), nTurned(0.8, 0.495, 0, 90, z), 0.02},
		{nFloor, nAt(0, 0, 0), nCapsule(0.2, 0.5), nTurned(0.5, 0.195, 0, 90, x), 0.02},
	}
}

// narrowJitter moves p by up to dist and turns it by up to angle radians (a resting body in a settled
// scene), as sim/collide's stability test does.
func narrowJitter(rng *rand.Rand, p geom.Pose, dist, angle float32) geom.Pose {
	q := mgl32.QuatRotate(angle*(2*rng.Float32()-1), narrowRandUnit(rng)).Mul(p.Q)
	return geom.Pose{P: p.P.Add(narrowRandUnit(rng).Mul(dist * rng.Float32())), Q: q.Normalize()}
}

// narrowCheckCases runs cases grouped by margin (the stage's speculative distance; bodies at rest, so
// it is the whole margin) and compares each group with the CPU.
func narrowCheckCases(t *testing.T, cases []narrowCase, dev *narrowDev) {
	t.Helper()
	d := emulated{}
	byMargin := map[float32][]narrowCase{}
	var margins []float32
	for _, c := range cases {
		if _, ok := byMargin[c.margin]; !ok {
			margins = append(margins, c.margin)
		}
		byMargin[c.margin] = append(byMargin[c.margin], c)
	}
	for _, margin := range margins {
		var w narrowTestWorld
		var pairs []int2
		for _, c := range byMargin[margin] {
			ia := w.add(c.a, c.pa, geom.Vec3{}, geom.Vec3{})
			ib := w.add(c.b, c.pb, geom.Vec3{}, geom.Vec3{})
			pairs = append(pairs, int2{ia, ib})
		}
		bb := testBodies(t, d, &w.b)
		var s narrowStage
		if err := s.reserve(d, len(pairs), 4*len(pairs)); err != nil {
			t.Fatal(err)
		}
		count, got := narrowRun(t, d, &s, bb, pairs, len(pairs), 1.0/60, margin)
		want := narrowCPU(&w.b, pairs, 1.0/60, margin, nil)
		if int(count) != len(want) {
			t.Fatalf("margin %g: count %d, want %d", margin, count, len(want))
		}
		narrowCompare(t, &w.b, want, got, dev, fmt.Sprintf("margin %g", margin))
		s.release(d)
	}
}

// ---- tests ----

// TestNarrowMatchesCollideExactCases: sim/collide's hand-worked configurations, in both orders, and
// 20 jittered copies of each, give the CPU's manifolds.
func TestNarrowMatchesCollideExactCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var cases []narrowCase
	for _, c := range narrowExactCases() {
		swapped := narrowCase{c.b, c.pb, c.a, c.pa, c.margin}
		cases = append(cases, c, swapped)
		for i := 0; i < 20; i++ {
			j := c
			if j.a.Kind != geom.Plane {
				j.pa = narrowJitter(rng, j.pa, 1e-4, 1e-4)
			}
			if j.b.Kind != geom.Plane {
				j.pb = narrowJitter(rng, j.pb, 1e-4, 1e-4)
			}
			cases = append(cases, j, narrowCase{j.b, j.pb, j.a, j.pa, j.margin})
		}
	}
	var dev narrowDev
	narrowCheckCases(t, cases, &dev)
	t.Logf("%d cases, %d contacts: max normal difference %.2g, max point difference %.2g x scale", len(cases), dev.contacts, dev.normal, dev.pos)
}

// TestNarrowMatchesCollideOnRandomPairs: thousands of random pairs of every kind combination (both
// orders), placed deep, touching and just apart, with random velocities (so the margin varies per
// pair), plus resting box stacks, crossed edges, tilted boxes and capsules lying across box edges.
func TestNarrowMatchesCollideOnRandomPairs(t *testing.T) {
	d := emulated{}
	rng := rand.New(rand.NewPCG(5, 6))
	var w narrowTestWorld
	var pairs []int2
	kinds := capabilities.Shapes // every shape the backend says it runs
	const perCombo = 400
	for _, ka := range kinds {
		for _, kb := range kinds {
			if ka == geom.Plane && kb == geom.Plane {
				continue
			}
			for i := 0; i < perCombo; i++ {
				pairs = append(pairs, narrowRandPair(rng, &w, ka, kb))
			}
		}
	}
	// Structured box pairs: B resting on a face of A (equal or random sizes, turned about the face
	// normal, tilted a hair, sunk or lifted a little), and edge on edge.
	for i := 0; i < 1000; i++ {
		ha := geom.Vec3{0.2 + rng.Float32(), 0.2 + rng.Float32(), 0.2 + rng.Float32()}
		hb := ha
		if rng.IntN(2) == 0 {
			hb = geom.Vec3{0.2 + rng.Float32(), 0.2 + rng.Float32(), 0.2 + rng.Float32()}
		}
		qa := narrowRandRot(rng, mgl32.QuatIdent())
		pa := geom.Pose{P: geom.Vec3{8*rng.Float32() - 4, 8*rng.Float32() - 4, 8*rng.Float32() - 4}, Q: qa}
		var pb geom.Pose
		if i%4 == 3 {
			// Edge on edge: in the frame qa, A turned 45 degrees about z and B about x, so A's top
			// edge runs along z and B's bottom edge along x across it.
			pa.Q = qa.Mul(mgl32.QuatRotate(math.Pi/4, geom.Vec3{0, 0, 1}))
			qb := qa.Mul(mgl32.QuatRotate(math.Pi/4+0.05*(rng.Float32()-0.5), geom.Vec3{1, 0, 0}))
			n := qa.Rotate(geom.Vec3{0, 1, 0})
			dist := narrowSupport(&geom.Shape{Kind: geom.Box, HalfExtents: ha}, pa.Q, n) +
				narrowSupport(&geom.Shape{Kind: geom.Box, HalfExtents: hb}, qb, n) + 0.04*(rng.Float32()-0.75)
			off := qa.Rotate(geom.Vec3{0.4 * (rng.Float32() - 0.5), 0, 0.4 * (rng.Float32() - 0.5)})
			pb = geom.Pose{P: pa.P.Add(n.Mul(dist)).Add(off), Q: qb}
		} else {
			k := rng.IntN(3)
			sg := float32(1)
			if rng.IntN(2) == 0 {
				sg = -1
			}
			n := qa.Rotate(unitAxis(k)).Mul(sg)
			yaw := float32(0)
			if rng.IntN(2) == 0 {
				yaw = rng.Float32() * math.Pi
			}
			qb := mgl32.QuatRotate(yaw, n).Mul(qa)
			if rng.IntN(2) == 0 {
				qb = mgl32.QuatRotate(1e-3*rng.Float32(), narrowRandUnit(rng)).Mul(qb).Normalize()
			}
			sink := []float32{-0.02, -0.01, -0.001, 0, 0.001, 0.01}[rng.IntN(6)]
			off := narrowRandUnit(rng)
			off = off.Sub(n.Mul(off.Dot(n))).Mul(rng.Float32() * ha[(k+1)%3])
			if rng.IntN(3) == 0 {
				off = geom.Vec3{}
			}
			dist := ha[k] + narrowSupport(&geom.Shape{Kind: geom.Box, HalfExtents: hb}, qb, n) + sink
			pb = geom.Pose{P: pa.P.Add(n.Mul(dist)).Add(off), Q: qb}
		}
		a := w.add(geom.Shape{Kind: geom.Box, HalfExtents: ha}, pa, geom.Vec3{}, geom.Vec3{})
		b := w.add(geom.Shape{Kind: geom.Box, HalfExtents: hb}, pb, geom.Vec3{}, geom.Vec3{})
		if rng.IntN(2) == 0 {
			// The same pair the other way round: B's shape and pose at the lower index.
			w.b.Shape[a], w.b.Shape[b] = w.b.Shape[b], w.b.Shape[a]
			w.b.Position[a], w.b.Position[b] = w.b.Position[b], w.b.Position[a]
			w.b.Rotation[a], w.b.Rotation[b] = w.b.Rotation[b], w.b.Rotation[a]
		}
		pairs = append(pairs, int2{a, b})
	}
	// Capsules lying across a box's edge, tilted up to 10 degrees either way: on the face, nearly
	// above it (taken as a face contact) or past it (an edge contact).
	for i := 0; i < 600; i++ {
		h := geom.Vec3{0.2 + rng.Float32(), 0.2 + rng.Float32(), 0.2 + rng.Float32()}
		c := nCapsule(0.05+0.4*rng.Float32(), 0.1+rng.Float32())
		qa := narrowRandRot(rng, mgl32.QuatIdent())
		pa := geom.Pose{P: geom.Vec3{8*rng.Float32() - 4, 8*rng.Float32() - 4, 8*rng.Float32() - 4}, Q: qa}
		tilt := (rng.Float32() - 0.5) * 20 * math.Pi / 180
		local := geom.Vec3{h[0] + c.HalfHeight*(1.6*rng.Float32()-0.8), h[1] + c.Radius + 0.03*(rng.Float32()-0.7), h[2] * (2*rng.Float32() - 1)}
		if i%2 == 0 {
			// One end just past the edge, the core dipping 3 to 9 degrees: whether the contact stays
			// on the face hangs on faceNormalCos and on how far the end dips.
			tilt = (3 + 6*rng.Float32()) * math.Pi / 180
			if rng.IntN(2) == 0 {
				tilt = -tilt
			}
			local[0] = h[0] - c.HalfHeight + 0.08*rng.Float32()
		}
		pb := geom.Pose{P: pa.P.Add(qa.Rotate(local)), Q: qa.Mul(mgl32.QuatRotate(math.Pi/2+tilt, geom.Vec3{0, 0, 1}))}
		a := w.add(geom.Shape{Kind: geom.Box, HalfExtents: h}, pa, geom.Vec3{}, geom.Vec3{})
		b := w.add(c, pb, geom.Vec3{}, geom.Vec3{})
		if rng.IntN(2) == 0 {
			w.b.Shape[a], w.b.Shape[b] = w.b.Shape[b], w.b.Shape[a]
			w.b.Position[a], w.b.Position[b] = w.b.Position[b], w.b.Position[a]
			w.b.Rotation[a], w.b.Rotation[b] = w.b.Rotation[b], w.b.Rotation[a]
		}
		pairs = append(pairs, int2{a, b})
	}
	bb := testBodies(t, d, &w.b)
	var s narrowStage
	defer s.release(d)
	if err := s.reserve(d, len(pairs), meshSlots*len(pairs)); err != nil {
		t.Fatal(err)
	}
	var dev narrowDev
	for _, spec := range []float32{0, 0.02, 0.1} {
		const dt = 1.0 / 60
		count, got := narrowRun(t, d, &s, bb, pairs, len(pairs), dt, spec)
		want := narrowCPU(&w.b, pairs, dt, spec, nil)
		if int(count) != len(want) {
			t.Fatalf("speculative %g: count %d, want %d", spec, count, len(want))
		}
		narrowCompare(t, &w.b, want, got, &dev, fmt.Sprintf("speculative %g", spec))
		// Enough of the pairs must touch, or the comparison says little.
		if len(want) < len(pairs)/3 {
			t.Fatalf("speculative %g: only %d of %d pairs touch", spec, len(want), len(pairs))
		}
		t.Logf("speculative %g: %d of %d pairs touch", spec, len(want), len(pairs))
	}
	t.Logf("%d contacts: max normal difference %.2g, max point difference %.2g x scale", dev.contacts, dev.normal, dev.pos)
}

// narrowPile is n bodies of random kinds and sizes heaped in a 3 m cube over a floor plane (body 0),
// moving, with every pair (i < j) as the broad phase would list them when it passes everything: many
// pairs share bodies, and touching ones are scattered through the list.
func narrowPile(rng *rand.Rand, n int) (*narrowTestWorld, []int2) {
	w := &narrowTestWorld{}
	w.add(nFloor, nAt(0, 0, 0), geom.Vec3{}, geom.Vec3{})
	kinds := []geom.Kind{geom.Box, geom.Sphere, geom.Capsule}
	for i := 1; i < n; i++ {
		s := narrowRandShape(rng, kinds[rng.IntN(len(kinds))])
		switch s.Kind {
		case geom.Box:
			s.HalfExtents = s.HalfExtents.Mul(0.5)
		default:
			s.Radius *= 0.5
			s.HalfHeight *= 0.5
		}
		p := geom.Pose{P: geom.Vec3{3 * rng.Float32(), 3*rng.Float32() - 0.1, 3 * rng.Float32()}, Q: narrowRandQuat(rng)}
		w.add(s, p, narrowRandUnit(rng).Mul(rng.Float32()), narrowRandUnit(rng).Mul(rng.Float32()))
	}
	var pairs []int2
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			pairs = append(pairs, int2{int32(i), int32(j)})
		}
	}
	return w, pairs
}

// narrowDegenerateCases are the routines' rare branches: cores that meet (crossing at one point, end to
// end), a sphere centre deep inside a box nearest its z face, coincident sphere centres, a sphere on a
// capsule's core, a capsule with no core.
func narrowDegenerateCases() []narrowCase {
	x, z := geom.Vec3{1, 0, 0}, geom.Vec3{0, 0, 1}
	return []narrowCase{
		{nCapsule(0.2, 0.5), nTurned(0, 0, 0, 90, z), nCapsule(0.3, 0.5), nTurned(0, 0, 0, 90, x), 0},
		{nCapsule(0.2, 0.5), nTurned(0, 0, 0, 90, z), nCapsule(0.3, 0.5), nTurned(1, 0, 0, 90, z), 0},
		{nCapsule(0.2, 0.5), nTurned(0, 0, 0, 90, z), nCapsule(0.3, 0.5), nTurned(0.4, 0, 0, 90, z), 0.01},
		{nBox(1, 1, 0.3), nAt(0, 0, 0), nSphere(0.2), nAt(0.1, 0.2, 0.1), 0},
		{nBox(1, 1, 0.3), nAt(0, 0, 0), nSphere(0.2), nAt(0.1, 0.2, -0.1), 0},
		{nCapsule(0.2, 0.5), nAt(0, 0, 0), nCapsule(0.3, 0.5), nTurned(0, 0.5, -0.5, 90, x), 0},
		{nSphere(0.2), nAt(1, 1, 1), nSphere(0.3), nAt(1, 1, 1), 0},
		{nCapsule(0.2, 0.5), nTurned(0, 0, 0, 30, z), nSphere(0.3), nAt(0, 0, 0), 0},
		{nCapsule(0.2, 0), nAt(0, 0, 0), nCapsule(0.3, 0), nAt(0.1, 0.4, 0), 0},
		{nBox(0.5, 0.5, 0.5), nAt(0, 0, 0), nCapsule(0.3, 0), nAt(0.1, 0.7, 0), 0},
		{nBox(0.5, 0.5, 0.5), nAt(0, 0, 0), nCapsule(0.1, 0.3), nAt(0, 0, 0), 0},
		// Lying side by side, level, their cores 1.24e-4 rad apart: the lines meet far beyond the
		// cores, so the normal is the closest points' difference, not the vertical d1 x d2.
		{nCapsule(0.3, 0.4), nTurned(0, 0.3, 0, 90, z), nCapsule(0.3, 0.4),
			geom.Pose{P: geom.Vec3{0, 0.3, 0.6}, Q: mgl32.QuatRotate(1.24e-4, geom.Vec3{0, 1, 0}).Mul(mgl32.QuatRotate(math.Pi/2, z))}, 0.02},
	}
}

// TestNarrowMatchesCollideDegenerateCases: the rare branches agree too.
func TestNarrowMatchesCollideDegenerateCases(t *testing.T) {
	var cases []narrowCase
	for _, c := range narrowDegenerateCases() {
		cases = append(cases, c, narrowCase{c.b, c.pb, c.a, c.pa, c.margin})
	}
	var dev narrowDev
	narrowCheckCases(t, cases, &dev)
	if dev.contacts < len(cases)-2 {
		t.Fatalf("only %d contacts from %d touching cases", dev.contacts, len(cases))
	}
}

// TestNarrowCompactsInPairOrder: over a pile's all-pairs list, with junk past the device pair count,
// the list holds exactly the touching pairs in pair order, as the CPU's manifolds; a broad-phase count
// past the pair capacity reads only the capacity; a count of zero empties the list.
func TestNarrowCompactsInPairOrder(t *testing.T) {
	d := emulated{}
	rng := rand.New(rand.NewPCG(7, 8))
	w, pairs := narrowPile(rng, 80)
	bb := testBodies(t, d, &w.b)
	var s narrowStage
	defer s.release(d)
	if err := s.reserve(d, len(pairs)+100, len(pairs)); err != nil {
		t.Fatal(err)
	}
	const dt, spec = 1.0 / 60, 0.02
	want := narrowCPU(&w.b, pairs, dt, spec, nil)
	if len(want) < 50 || len(want) > len(pairs)/2 {
		t.Fatalf("%d of %d pairs touch: want a scattered few", len(want), len(pairs))
	}
	var dev narrowDev
	count, got := narrowRun(t, d, &s, bb, pairs, len(pairs)+100, dt, spec)
	if int(count) != len(want) {
		t.Fatalf("count %d, want %d", count, len(want))
	}
	narrowCompare(t, &w.b, want, got, &dev, "pile")
	for k := 1; k < len(got); k++ {
		if p, q := got[k-1], got[k]; p.A > q.A || (p.A == q.A && p.B >= q.B) {
			t.Fatalf("contacts %d and %d out of pair order: (%d, %d) then (%d, %d)", k-1, k, p.A, p.B, q.A, q.B)
		}
	}

	// The broad phase overflowed: its count exceeds the capacity the pairs were written to.
	half := pairs[:len(pairs)/2]
	count, got = narrowRunCount(t, d, &s, bb, half, uint32(len(pairs)), len(half), dt, spec)
	wantHalf := narrowCPU(&w.b, half, dt, spec, nil)
	if int(count) != len(wantHalf) {
		t.Fatalf("pair count past capacity: count %d, want %d", count, len(wantHalf))
	}
	narrowCompare(t, &w.b, wantHalf, got, &dev, "pair count past capacity")

	for _, capacity := range []int{len(pairs), 0} {
		count, _ = narrowRunCount(t, d, &s, bb, pairs, 0, capacity, dt, spec)
		if count != 0 {
			t.Fatalf("no pairs (capacity %d): count %d", capacity, count)
		}
	}
}

// TestNarrowOverflowKeepsCounting: with room for half the contacts, the count still says how many
// touch, the first half are written in order, and nothing is written past the capacity; after the
// backend's reserve of the counted size the same run gives the whole list.
func TestNarrowOverflowKeepsCounting(t *testing.T) {
	d := emulated{}
	rng := rand.New(rand.NewPCG(9, 10))
	w, pairs := narrowPile(rng, 60)
	bb := testBodies(t, d, &w.b)
	const dt, spec = 1.0 / 60, 0.02
	want := narrowCPU(&w.b, pairs, dt, spec, nil)
	capacity := len(want) / 2
	var s narrowStage
	defer s.release(d)
	if err := s.reserve(d, len(pairs), capacity); err != nil {
		t.Fatal(err)
	}
	// Mark the whole allocation, headroom included, to see any write past the capacity.
	const mark = 0xAB
	fill := make([]byte, s.contacts.bytes)
	for i := range fill {
		fill[i] = mark
	}
	if err := uploadSlice(d, s.contacts.p, fill); err != nil {
		t.Fatal(err)
	}
	count, got := narrowRun(t, d, &s, bb, pairs, len(pairs), dt, spec)
	if int(count) != len(want) {
		t.Fatalf("count %d, want %d (capacity %d)", count, len(want), capacity)
	}
	var dev narrowDev
	narrowCompare(t, &w.b, want[:capacity], got, &dev, "overflowed list")
	after := make([]byte, s.contacts.bytes)
	if err := downloadSlice(d, after, s.contacts.p); err != nil {
		t.Fatal(err)
	}
	for i := capacity * contactBytes; i < len(after); i++ {
		if after[i] != mark {
			t.Fatalf("byte %d written, past the capacity of %d contacts (%d bytes)", i, capacity, capacity*contactBytes)
		}
	}

	if err := s.reserve(d, len(pairs), int(count)); err != nil {
		t.Fatal(err)
	}
	count, got = narrowRun(t, d, &s, bb, pairs, len(pairs), dt, spec)
	if int(count) != len(want) {
		t.Fatalf("after reserve: count %d, want %d", count, len(want))
	}
	narrowCompare(t, &w.b, want, got, &dev, "after reserve")
}

// TestNarrowSkipsJointedPairs: pairs listed as jointed give no contacts (some touching, some not,
// some keys of pairs not in the list), the rest keep their order; clearing the list brings them back.
func TestNarrowSkipsJointedPairs(t *testing.T) {
	d := emulated{}
	rng := rand.New(rand.NewPCG(11, 12))
	w, pairs := narrowPile(rng, 60)
	bb := testBodies(t, d, &w.b)
	const dt, spec = 1.0 / 60, 0.02
	all := narrowCPU(&w.b, pairs, dt, spec, nil)
	var keys []uint64
	for k, c := range all {
		if k%3 == 0 {
			keys = append(keys, uint64(c.A)<<32|uint64(c.B))
		}
	}
	keys = append(keys, uint64(0)<<32|1, uint64(5)<<32|59, uint64(58)<<32|59, uint64(60)<<32|61)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	want := narrowCPU(&w.b, pairs, dt, spec, keys)
	if len(want) >= len(all)-len(all)/4 {
		t.Fatalf("jointed keys removed only %d of %d contacts", len(all)-len(want), len(all))
	}
	var s narrowStage
	defer s.release(d)
	if err := s.reserve(d, len(pairs), len(pairs)); err != nil {
		t.Fatal(err)
	}
	if err := s.setJointed(d, keys); err != nil {
		t.Fatal(err)
	}
	var dev narrowDev
	count, got := narrowRun(t, d, &s, bb, pairs, len(pairs), dt, spec)
	if int(count) != len(want) {
		t.Fatalf("count %d, want %d", count, len(want))
	}
	narrowCompare(t, &w.b, want, got, &dev, "jointed")

	if err := s.setJointed(d, nil); err != nil {
		t.Fatal(err)
	}
	count, got = narrowRun(t, d, &s, bb, pairs, len(pairs), dt, spec)
	if int(count) != len(all) {
		t.Fatalf("no joints: count %d, want %d", count, len(all))
	}
	narrowCompare(t, &w.b, all, got, &dev, "no joints")

	if err := s.setJointed(d, []uint64{5, 3}); err == nil {
		t.Fatal("unsorted jointed keys accepted")
	}
}
