package collide

import (
	"math"

	"tumble/sim/geom"
)

// Small float32 helpers, a 3-vector the compiler keeps in registers, and a pose held as a rotation
// matrix, which every routine here reads many times.

// vec is the package's working 3-vector. geom.Vec3 is an array, which the Go compiler keeps in memory
// and copies through the stack on every operation; a struct of three floats lives in registers, which
// makes the routines here several times faster. Conversion happens only at the API boundary.
type vec struct{ x, y, z float32 }

func vg(v geom.Vec3) vec    { return vec{v[0], v[1], v[2]} }
func (a vec) g() geom.Vec3  { return geom.Vec3{a.x, a.y, a.z} }
func (a vec) add(b vec) vec { return vec{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a vec) sub(b vec) vec { return vec{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a vec) neg() vec      { return vec{-a.x, -a.y, -a.z} }
func (a vec) dot(b vec) float32 {
	return a.x*b.x + a.y*b.y + a.z*b.z
}
func (a vec) scale(s float32) vec { return vec{a.x * s, a.y * s, a.z * s} }

// madd returns a + b*s.
func (a vec) madd(b vec, s float32) vec { return vec{a.x + b.x*s, a.y + b.y*s, a.z + b.z*s} }

func (a vec) cross(b vec) vec {
	return vec{a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x}
}

// get returns component k (0, 1 or 2).
func (a vec) get(k int) float32 {
	switch k {
	case 0:
		return a.x
	case 1:
		return a.y
	}
	return a.z
}

// with returns a with component k replaced by v.
func (a vec) with(k int, v float32) vec {
	switch k {
	case 0:
		a.x = v
	case 1:
		a.y = v
	default:
		a.z = v
	}
	return a
}

// axisVec is s times the unit vector of axis k.
func axisVec(k int, s float32) vec { return vec{}.with(k, s) }

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

func clamp32(x, lo, hi float32) float32 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// sign32 returns -1 for negative x and +1 otherwise (zero counts as positive, so choices are stable).
func sign32(x float32) float32 {
	if x < 0 {
		return -1
	}
	return 1
}

// frame is a pose as its origin c and the world directions of its local axes (the columns of its
// rotation matrix).
type frame struct {
	c  vec
	ax [3]vec
}

// makeFrame builds the frame of pose p. The quaternion need not be exactly unit: dividing by its squared
// norm keeps the axes orthonormal when it has drifted slightly.
func makeFrame(p *geom.Pose) frame {
	w, x, y, z := p.Q.W, p.Q.V[0], p.Q.V[1], p.Q.V[2]
	s := quatScale(w, x, y, z)
	xs, ys, zs := x*s, y*s, z*s
	wx, wy, wz := w*xs, w*ys, w*zs
	xx, xy, xz := x*xs, x*ys, x*zs
	yy, yz, zz := y*ys, y*zs, z*zs
	return frame{
		c: vec{p.P[0], p.P[1], p.P[2]},
		ax: [3]vec{
			{1 - (yy + zz), xy + wz, xz - wy},
			{xy - wz, 1 - (xx + zz), yz + wx},
			{xz + wy, yz - wx, 1 - (xx + yy)},
		},
	}
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
	return f.ax[0].scale(l.x).madd(f.ax[1], l.y).madd(f.ax[2], l.z)
}

// toWorld maps a local point to the world.
func (f *frame) toWorld(l vec) vec {
	return f.c.madd(f.ax[0], l.x).madd(f.ax[1], l.y).madd(f.ax[2], l.z)
}

// dirToLocal maps a world direction to the local frame.
func (f *frame) dirToLocal(v vec) vec { return vec{f.ax[0].dot(v), f.ax[1].dot(v), f.ax[2].dot(v)} }

// toLocal maps a world point to the local frame.
func (f *frame) toLocal(p vec) vec { return f.dirToLocal(p.sub(f.c)) }

// rotate turns the local direction l by pose p's rotation.
func rotate(p *geom.Pose, l geom.Vec3) vec {
	w, x, y, z := p.Q.W, p.Q.V[0], p.Q.V[1], p.Q.V[2]
	s := quatScale(w, x, y, z)
	xs, ys, zs := x*s, y*s, z*s
	wx, wy, wz := w*xs, w*ys, w*zs
	xx, xy, xz := x*xs, x*ys, x*zs
	yy, yz, zz := y*ys, y*zs, z*zs
	return vec{
		(1-(yy+zz))*l[0] + (xy-wz)*l[1] + (xz+wy)*l[2],
		(xy+wz)*l[0] + (1-(xx+zz))*l[1] + (yz-wx)*l[2],
		(xz-wy)*l[0] + (yz+wx)*l[1] + (1-(xx+yy))*l[2],
	}
}

// capsuleEnds returns the world end points of a capsule's core segment (local y = -h, then +h).
func capsuleEnds(s *geom.Shape, p *geom.Pose) (vec, vec) {
	w, x, y, z := p.Q.W, p.Q.V[0], p.Q.V[1], p.Q.V[2]
	k := quatScale(w, x, y, z) * s.HalfHeight
	axis := vec{(x*y - w*z) * k, s.HalfHeight - (x*x+z*z)*k, (y*z + w*x) * k}
	c := vg(p.P)
	return c.sub(axis), c.add(axis)
}
