package gpu

import (
	"fmt"

	"tumble/sim"
	"tumble/sim/geom"
)

// uploadBodies allocates body buffers for b's bodies and fills every array of layout.cuh from it.
func uploadBodies(d device, b *sim.Bodies) (*bodyBuffers, error) {
	out := &bodyBuffers{}
	if err := out.upload(d, b); err != nil {
		out.release(d)
		return nil, err
	}
	return out, nil
}

// upload makes the buffers hold b's bodies (growing them as needed) and copies every array in. The
// world inverse inertia is computed here from the orientation and InvInertiaLocal, as sim's
// worldInertia does, so that it is right even when the CPU's copy is stale.
func (bb *bodyBuffers) upload(d device, b *sim.Bodies) error {
	n := b.Len()
	pos := make([]float4, n)
	rot := make([]float4, n)
	vel := make([]float4, n)
	omega := make([]float4, n)
	invI := make([]float4, n)
	shape := make([]tbShape, n)
	material := make([]float2, n)
	flags := make([]uint32, n)
	invIW := make([]float4, 3*n)
	for i := 0; i < n; i++ {
		p, q, v, w, ii := b.Position[i], b.Rotation[i], b.Velocity[i], b.AngularVelocity[i], b.InvInertiaLocal[i]
		pos[i] = float4{p[0], p[1], p[2], b.InvMass[i]}
		rot[i] = float4{q.V[0], q.V[1], q.V[2], q.W}
		vel[i] = float4{v[0], v[1], v[2], 0}
		omega[i] = float4{w[0], w[1], w[2], 0}
		invI[i] = float4{ii[0], ii[1], ii[2], 0}
		s := &b.Shape[i]
		shape[i] = tbShape{Kind: int32(s.Kind), NX: s.Normal[0], NY: s.Normal[1], NZ: s.Normal[2], D: s.Offset}
		switch s.Kind {
		case geom.Box:
			shape[i].A, shape[i].B, shape[i].C = s.HalfExtents[0], s.HalfExtents[1], s.HalfExtents[2]
		case geom.Sphere, geom.Capsule:
			shape[i].A, shape[i].B = s.Radius, s.HalfHeight
		}
		material[i] = float2{b.Friction[i], b.Restitution[i]}
		flags[i] = uint32(b.Type[i])
		// R diag(invI) R^T, row by row (it is symmetric).
		r := q.Mat4().Mat3() // column-major: r[col*3+row]
		for row := 0; row < 3; row++ {
			var m [3]float32
			for col := 0; col < 3; col++ {
				m[col] = r[row]*r[col]*ii[0] + r[3+row]*r[3+col]*ii[1] + r[6+row]*r[6+col]*ii[2]
			}
			invIW[3*i+row] = float4{m[0], m[1], m[2], 0}
		}
	}
	c := max(n, 1)
	for _, g := range []struct {
		b    *buffer
		size int
	}{{&bb.pos, 16}, {&bb.rot, 16}, {&bb.vel, 16}, {&bb.omega, 16}, {&bb.invI, 16}, {&bb.shape, 32},
		{&bb.material, 8}, {&bb.flags, 4}, {&bb.invIW, 48}} {
		if err := grow(d, g.b, g.size*c); err != nil {
			return fmt.Errorf("uploading %d bodies: %w", n, err)
		}
	}
	for _, err := range []error{
		uploadSlice(d, bb.pos.p, pos), uploadSlice(d, bb.rot.p, rot), uploadSlice(d, bb.vel.p, vel),
		uploadSlice(d, bb.omega.p, omega), uploadSlice(d, bb.invI.p, invI), uploadSlice(d, bb.shape.p, shape),
		uploadSlice(d, bb.material.p, material), uploadSlice(d, bb.flags.p, flags),
		uploadSlice(d, bb.invIW.p, invIW),
	} {
		if err != nil {
			return fmt.Errorf("uploading %d bodies: %w", n, err)
		}
	}
	bb.n = n
	return nil
}

// release frees the body buffers.
func (bb *bodyBuffers) release(d device) {
	for _, b := range []*buffer{&bb.pos, &bb.rot, &bb.vel, &bb.omega, &bb.invI, &bb.shape, &bb.material,
		&bb.flags, &bb.invIW} {
		release(d, b)
	}
	bb.n = 0
}
