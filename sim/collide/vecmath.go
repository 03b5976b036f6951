package collide

import (
	"tumble/sim/geom"
	"tumble/sim/internal/vecmath"
)

// Small float32 helpers, a 3-vector the compiler keeps in registers, and a pose held as a rotation
// matrix, which every routine here reads many times.

// vec is the shared register-held 3-vector (sim/internal/vecmath); geom.Vec3 is an array, which the
// Go compiler keeps in memory, so the routines here convert only at the API boundary.
type vec = vecmath.V

func vg(v geom.Vec3) vec { return vecmath.From(v) }

// frame is a pose as its origin c and the world directions of its local axes (the columns of its
// rotation matrix).
type frame struct {
	c  vec
	ax [3]vec
}

// set makes f the frame of pose p. The quaternion need not be exactly unit: dividing by its squared
// norm keeps the axes orthonormal when it has drifted slightly. It writes f in place: a frame built
// and returned by value was copied in 16-byte moves over its 4-byte stores, which stalls store
// forwarding (every box pair paid it twice).
func (f *frame) set(p *geom.Pose) {
	w, x, y, z := p.Q.W, p.Q.V[0], p.Q.V[1], p.Q.V[2]
	s := quatScale(w, x, y, z)
	xs, ys, zs := x*s, y*s, z*s
	wx, wy, wz := w*xs, w*ys, w*zs
	xx, xy, xz := x*xs, x*ys, x*zs
	yy, yz, zz := y*ys, y*zs, z*zs
	f.c = vec{X: p.P[0], Y: p.P[1], Z: p.P[2]}
	f.ax[0] = vec{X: 1 - (yy + zz), Y: xy + wz, Z: xz - wy}
	f.ax[1] = vec{X: xy - wz, Y: 1 - (xx + zz), Z: yz + wx}
	f.ax[2] = vec{X: xz + wy, Y: yz - wx, Z: 1 - (xx + yy)}
}

// quatScale is 2/|q|^2, the factor of the rotation matrix of a quaternion that is not quite unit.
func quatScale(w, x, y, z float32) float32 {
	if n := w*w + x*x + y*y + z*z; n > 0 {
		return 2 / n
	}
	return 2
}

// dirToWorld maps a local direction to the world.
func (f *frame) dirToWorld(l vec) vec {
	return f.ax[0].Scale(l.X).MAdd(f.ax[1], l.Y).MAdd(f.ax[2], l.Z)
}

// toWorld maps a local point to the world.
func (f *frame) toWorld(l vec) vec {
	return f.c.MAdd(f.ax[0], l.X).MAdd(f.ax[1], l.Y).MAdd(f.ax[2], l.Z)
}

// dirToLocal maps a world direction to the local frame.
func (f *frame) dirToLocal(v vec) vec {
	return vec{X: f.ax[0].Dot(v), Y: f.ax[1].Dot(v), Z: f.ax[2].Dot(v)}
}

// toLocal maps a world point to the local frame.
func (f *frame) toLocal(p vec) vec { return f.dirToLocal(p.Sub(f.c)) }

// rotate turns the local direction l by pose p's rotation.
func rotate(p *geom.Pose, l geom.Vec3) vec {
	w, x, y, z := p.Q.W, p.Q.V[0], p.Q.V[1], p.Q.V[2]
	s := quatScale(w, x, y, z)
	xs, ys, zs := x*s, y*s, z*s
	wx, wy, wz := w*xs, w*ys, w*zs
	xx, xy, xz := x*xs, x*ys, x*zs
	yy, yz, zz := y*ys, y*zs, z*zs
	return vec{X: (1-(yy+zz))*l[0] + (xy-wz)*l[1] + (xz+wy)*l[2], Y: (xy+wz)*l[0] + (1-(xx+zz))*l[1] + (yz-wx)*l[2], Z: (xz-wy)*l[0] + (yz+wx)*l[1] + (1-(xx+yy))*l[2]}
}

// capsuleEnds returns the world end points of a capsule's core segment (local y = -h, then +h).
func capsuleEnds(s *geom.Shape, p *geom.Pose) (vec, vec) {
	w, x, y, z := p.Q.W, p.Q.V[0], p.Q.V[1], p.Q.V[2]
	k := quatScale(w, x, y, z) * s.HalfHeight
	axis := vec{X: (x*y - w*z) * k, Y: s.HalfHeight - (x*x+z*z)*k, Z: (y*z + w*x) * k}
	c := vg(p.P)
	return c.Sub(axis), c.Add(axis)
}
