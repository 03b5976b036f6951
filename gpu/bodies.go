package gpu

import (
	"unsafe"

	"tumble/sim"
	"tumble/sim/geom"
)

// Sizes of the per-body device records (layout.cuh).
const (
	sizeFloat4 = 16
	sizeShape  = int(unsafe.Sizeof(tbShape{}))
	sizeInvIW  = 3 * sizeFloat4
)

// arrays lists every per-body buffer with its record size.
func (bb *bodyBuffers) arrays() []struct {
	b    *buffer
	size int
} {
	return []struct {
		b    *buffer
		size int
	}{
		{&bb.pos, sizeFloat4}, {&bb.rot, sizeFloat4}, {&bb.vel, sizeFloat4}, {&bb.omega, sizeFloat4},
		{&bb.invI, sizeFloat4}, {&bb.shape, sizeShape}, {&bb.material, sizeFloat4}, {&bb.flags, 4},
		{&bb.invIW, sizeInvIW},
	}
}

// reserve makes room for n bodies, keeping the first keep bodies' records (a device-to-device copy
// when a buffer must be reallocated), and sets bb.n = n.
func (bb *bodyBuffers) reserve(d device, n, keep int) error {
	for _, a := range bb.arrays() {
		if a.b.bytes >= n*a.size && a.b.p != 0 {
			continue
		}
		old := *a.b
		*a.b = buffer{}
		if err := grow(d, a.b, n*a.size); err != nil {
			return err
		}
		if old.p != 0 {
			if k := min(keep*a.size, old.bytes); k > 0 {
				if err := d.copy(a.b.p, old.p, k); err != nil {
					return err
				}
			}
			d.free(old.p)
		}
	}
	bb.n = n
	return nil
}

// put uploads bodies [lo, hi) of src into the device arrays (which must hold them).
func (bb *bodyBuffers) put(d device, src *sim.Bodies, lo, hi int) error {
	if hi <= lo {
		return nil
	}
	n := hi - lo
	pos, rot := make([]float4, n), make([]float4, n)
	vel, omega, invI := make([]float4, n), make([]float4, n), make([]float4, n)
	shape, mat := make([]tbShape, n), make([]float4, n)
	flags, iw := make([]uint32, n), make([]float4, 3*n)
	for k := range n {
		i := lo + k
		// The World refuses these before they come here (SetBackend, AddBody); packShape has no record
		// for them.
		if err := sim.CheckShapeFor(capabilities, src.Name[i], src.Shape[i].Kind); err != nil {
			return err
		}
		p, q := src.Position[i], src.Rotation[i]
		pos[k] = float4{p[0], p[1], p[2], src.InvMass[i]}
		rot[k] = float4{q.V[0], q.V[1], q.V[2], q.W}
		v, w, ii := src.Velocity[i], src.AngularVelocity[i], src.InvInertiaLocal[i]
		vel[k] = float4{v[0], v[1], v[2], 0}
		omega[k] = float4{w[0], w[1], w[2], 0}
		invI[k] = float4{ii[0], ii[1], ii[2], 0}
		shape[k] = bb.hulls.pack(&src.Shape[i])
		if src.Shape[i].Kind == geom.TriMesh {
			bb.meshes.pack(&shape[k], src.Shape[i].Mesh)
		}
		mat[k] = float4{src.Friction[i], src.Restitution[i], src.RollingResistance[i], src.SpinningResistance[i]}
		flags[k] = uint32(src.Type[i])
		m := src.InvInertiaWorld[i] // column-major
		for r := range 3 {
			iw[3*k+r] = float4{m[r], m[3+r], m[6+r], 0}
		}
	}
	if err := bb.hulls.upload(d); err != nil {
		return err
	}
	if err := bb.meshes.upload(d); err != nil {
		return err
	}
	for _, c := range []struct {
		b    buffer
		size int
		put  func(ptr) error
	}{
		{bb.pos, sizeFloat4, func(p ptr) error { return uploadSlice(d, p, pos) }},
		{bb.rot, sizeFloat4, func(p ptr) error { return uploadSlice(d, p, rot) }},
		{bb.vel, sizeFloat4, func(p ptr) error { return uploadSlice(d, p, vel) }},
		{bb.omega, sizeFloat4, func(p ptr) error { return uploadSlice(d, p, omega) }},
		{bb.invI, sizeFloat4, func(p ptr) error { return uploadSlice(d, p, invI) }},
		{bb.shape, sizeShape, func(p ptr) error { return uploadSlice(d, p, shape) }},
		{bb.material, sizeFloat4, func(p ptr) error { return uploadSlice(d, p, mat) }},
		{bb.flags, 4, func(p ptr) error { return uploadSlice(d, p, flags) }},
		{bb.invIW, sizeInvIW, func(p ptr) error { return uploadSlice(d, p, iw) }},
	} {
		if err := c.put(c.b.at(lo, c.size)); err != nil {
			return err
		}
	}
	return nil
}

// packShape converts a shape to its device record, but for a hull's entry in the hull table
// (hullTable.pack sets it) and a mesh's record (meshTable.pack).
func packShape(s *geom.Shape) tbShape {
	t := tbShape{Kind: int32(s.Kind)}
	switch s.Kind {
	case geom.Box:
		t.A, t.B, t.C = s.HalfExtents[0], s.HalfExtents[1], s.HalfExtents[2]
	case geom.Sphere:
		t.A = s.Radius
	case geom.Capsule:
		t.A, t.B = s.Radius, s.HalfHeight
	case geom.Plane:
		t.NX, t.NY, t.NZ, t.D = s.Normal[0], s.Normal[1], s.Normal[2], s.Offset
	}
	return t
}

// state is a host copy of the bodies' moving state, as the device holds it.
type state struct {
	pos, rot, vel, omega []float4
}

// get downloads the moving state of the first n bodies.
func (bb *bodyBuffers) get(d device, st *state, n int) error {
	for _, c := range []struct {
		dst *[]float4
		src buffer
	}{{&st.pos, bb.pos}, {&st.rot, bb.rot}, {&st.vel, bb.vel}, {&st.omega, bb.omega}} {
		if cap(*c.dst) < n {
			*c.dst = make([]float4, n)
		}
		*c.dst = (*c.dst)[:n]
		if err := downloadSlice(d, *c.dst, c.src.p); err != nil {
			return err
		}
	}
	return nil
}

// store writes a downloaded state into dst's positions, rotations and velocities.
func (st *state) store(dst *sim.Bodies) {
	for i := range st.pos {
		p, q, v, w := st.pos[i], st.rot[i], st.vel[i], st.omega[i]
		dst.Position[i] = sim.Vec3{p.X, p.Y, p.Z}
		dst.Rotation[i] = sim.Quat{W: q.W, V: sim.Vec3{q.X, q.Y, q.Z}}
		dst.Velocity[i] = sim.Vec3{v.X, v.Y, v.Z}
		dst.AngularVelocity[i] = sim.Vec3{w.X, w.Y, w.Z}
	}
}

// release frees every array.
func (bb *bodyBuffers) release(d device) {
	for _, a := range bb.arrays() {
		release(d, a.b)
	}
	bb.hulls.release(d)
	bb.meshes.release(d)
	bb.n = 0
}

// uploadBodies allocates device arrays for every body of b and uploads them.
func uploadBodies(d device, b *sim.Bodies) (*bodyBuffers, error) {
	bb := &bodyBuffers{}
	if err := bb.reserve(d, b.Len(), 0); err != nil {
		return nil, err
	}
	if err := bb.put(d, b, 0, b.Len()); err != nil {
		bb.release(d)
		return nil, err
	}
	return bb, nil
}

// few is a host copy of a few bodies' moving state, read and written one body at a time
// (PullStates, impulses): no array is copied whole.
type few struct {
	rec []float4 // pos, rot, vel, omega, then invIW's three rows: 7 records
}

// getOne downloads body i's position (w: inverse mass), rotation, velocity, angular velocity and, when
// inertia is set, its world inverse inertia rows into f.rec.
func (bb *bodyBuffers) getOne(d device, f *few, i int, inertia bool) error {
	if f.rec == nil {
		f.rec = make([]float4, 7)
	}
	for k, src := range []buffer{bb.pos, bb.rot, bb.vel, bb.omega} {
		if err := downloadSlice(d, f.rec[k:k+1], src.at(i, sizeFloat4)); err != nil {
			return err
		}
	}
	if inertia {
		return downloadSlice(d, f.rec[4:7], bb.invIW.at(i, sizeInvIW))
	}
	return nil
}

// bodyState converts f.rec (after getOne) into a sim.BodyState's moving state (and, with inertia,
// its inverse mass and world inverse inertia).
func (f *few) bodyState(s *sim.BodyState, inertia bool) {
	p, q, v, w := f.rec[0], f.rec[1], f.rec[2], f.rec[3]
	s.Position = sim.Vec3{p.X, p.Y, p.Z}
	s.Rotation = sim.Quat{W: q.W, V: sim.Vec3{q.X, q.Y, q.Z}}
	s.Velocity = sim.Vec3{v.X, v.Y, v.Z}
	s.AngularVelocity = sim.Vec3{w.X, w.Y, w.Z}
	if inertia {
		s.InvMass = p.W
		for r := range 3 { // row r of the column-major matrix
			row := f.rec[4+r]
			s.InvInertiaWorld[r], s.InvInertiaWorld[3+r], s.InvInertiaWorld[6+r] = row.X, row.Y, row.Z
		}
	}
}

// applyImpulses adds each impulse to its body's velocities on the device: the body's state is read,
// the impulse applied as sim applies it (sim.BodyState.Apply), and its two velocity records
// written back.
func (bb *bodyBuffers) applyImpulses(d device, f *few, ims []sim.BodyImpulse) error {
	for _, im := range ims {
		i := int(im.Body)
		if i >= bb.n {
			continue
		}
		if err := bb.getOne(d, f, i, true); err != nil {
			return err
		}
		var s sim.BodyState
		f.bodyState(&s, true)
		s.Apply(im)
		v, w := s.Velocity, s.AngularVelocity
		f.rec[2] = float4{v[0], v[1], v[2], f.rec[2].W}
		f.rec[3] = float4{w[0], w[1], w[2], f.rec[3].W}
		if err := uploadSlice(d, bb.vel.at(i, sizeFloat4), f.rec[2:3]); err != nil {
			return err
		}
		if err := uploadSlice(d, bb.omega.at(i, sizeFloat4), f.rec[3:4]); err != nil {
			return err
		}
	}
	return nil
}
