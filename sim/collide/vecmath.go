package collide

import (
	"math"

	"tumble/sim/geom"
)

// Small float32 helpers and a pose held as a rotation matrix, which every routine here reads many times.

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

// madd returns a + v*s.
func madd(a, v geom.Vec3, s float32) geom.Vec3 {
	return geom.Vec3{a[0] + v[0]*s, a[1] + v[1]*s, a[2] + v[2]*s}
}

// neg returns -v.
func neg(v geom.Vec3) geom.Vec3 { return geom.Vec3{-v[0], -v[1], -v[2]} }

// frame is a pose as its origin c and the world directions of its local axes (the columns of its
// rotation matrix).
type frame struct {
	c  geom.Vec3
	ax [3]geom.Vec3
}

// makeFrame builds the frame of pose p. The quaternion need not be exactly unit: dividing by its squared
// norm keeps the axes orthonormal when it has drifted slightly.
func makeFrame(p geom.Pose) frame {
	w, x, y, z := p.Q.W, p.Q.V[0], p.Q.V[1], p.Q.V[2]
	n := w*w + x*x + y*y + z*z
	s := float32(2)
	if n > 0 {
		s = 2 / n
	}
	xs, ys, zs := x*s, y*s, z*s
	wx, wy, wz := w*xs, w*ys, w*zs
	xx, xy, xz := x*xs, x*ys, x*zs
	yy, yz, zz := y*ys, y*zs, z*zs
	return frame{
		c: p.P,
		ax: [3]geom.Vec3{
			{1 - (yy + zz), xy + wz, xz - wy},
			{xy - wz, 1 - (xx + zz), yz + wx},
			{xz + wy, yz - wx, 1 - (xx + yy)},
		},
	}
}

// dirToWorld maps a local direction to the world.
func (f *frame) dirToWorld(l geom.Vec3) geom.Vec3 {
	return geom.Vec3{
		f.ax[0][0]*l[0] + f.ax[1][0]*l[1] + f.ax[2][0]*l[2],
		f.ax[0][1]*l[0] + f.ax[1][1]*l[1] + f.ax[2][1]*l[2],
		f.ax[0][2]*l[0] + f.ax[1][2]*l[1] + f.ax[2][2]*l[2],
	}
}

// toWorld maps a local point to the world.
func (f *frame) toWorld(l geom.Vec3) geom.Vec3 { return f.c.Add(f.dirToWorld(l)) }

// dirToLocal maps a world direction to the local frame.
func (f *frame) dirToLocal(v geom.Vec3) geom.Vec3 {
	return geom.Vec3{f.ax[0].Dot(v), f.ax[1].Dot(v), f.ax[2].Dot(v)}
}

// toLocal maps a world point to the local frame.
func (f *frame) toLocal(p geom.Vec3) geom.Vec3 { return f.dirToLocal(p.Sub(f.c)) }

// capsuleEnds returns the world end points of a capsule's core segment (local y = -h and +h).
func capsuleEnds(s *geom.Shape, p geom.Pose) (geom.Vec3, geom.Vec3) {
	axis := p.Q.Rotate(geom.Vec3{0, s.HalfHeight, 0})
	return p.P.Sub(axis), p.P.Add(axis)
}
