package urdf

import "math"

// Quat is a unit quaternion (x, y, z, w), float64: a robot's frames are composed along its chains.
type Quat [4]float64

// Mul returns q r (r applied first).
func (q Quat) Mul(r Quat) Quat {
	return Quat{
		q[3]*r[0] + q[0]*r[3] + q[1]*r[2] - q[2]*r[1],
		q[3]*r[1] - q[0]*r[2] + q[1]*r[3] + q[2]*r[0],
		q[3]*r[2] + q[0]*r[1] - q[1]*r[0] + q[2]*r[3],
		q[3]*r[3] - q[0]*r[0] - q[1]*r[1] - q[2]*r[2],
	}
}

// Rotate returns v turned by q.
func (q Quat) Rotate(v [3]float64) [3]float64 {
	// v + 2 w (u x v) + 2 u x (u x v), u the vector part.
	u := [3]float64{q[0], q[1], q[2]}
	t := cross(u, v)
	t = [3]float64{2 * t[0], 2 * t[1], 2 * t[2]}
	c := cross(u, t)
	return [3]float64{v[0] + q[3]*t[0] + c[0], v[1] + q[3]*t[1] + c[1], v[2] + q[3]*t[2] + c[2]}
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// axisAngle returns the rotation by angle (rad) about the unit axis a.
func axisAngle(a [3]float64, angle float64) Quat {
	s, c := math.Sincos(angle / 2)
	return Quat{a[0] * s, a[1] * s, a[2] * s, c}
}

// RPY returns the rotation of roll, pitch and yaw about the fixed x, y and z axes, roll first:
// Rz(yaw) Ry(pitch) Rx(roll), URDF's convention.
func RPY(rpy [3]float64) Quat {
	return axisAngle([3]float64{0, 0, 1}, rpy[2]).Mul(axisAngle([3]float64{0, 1, 0}, rpy[1])).Mul(axisAngle([3]float64{1, 0, 0}, rpy[0]))
}

// Frame is a rigid transform: a point p of the frame is at Rot p + Pos outside it.
type Frame struct {
	Pos [3]float64
	Rot Quat
}

// Identity is the frame that moves nothing.
var Identity = Frame{Rot: Quat{0, 0, 0, 1}}

// Of returns the frame of a pose.
func (o Pose) Of() Frame { return Frame{Pos: o.XYZ, Rot: RPY(o.RPY)} }

// Then returns the frame f followed by g inside it: (f g) p = f (g p).
func (f Frame) Then(g Frame) Frame {
	p := f.Rot.Rotate(g.Pos)
	return Frame{Pos: [3]float64{f.Pos[0] + p[0], f.Pos[1] + p[1], f.Pos[2] + p[2]}, Rot: f.Rot.Mul(g.Rot)}
}

// Apply returns the point p of the frame outside it.
func (f Frame) Apply(p [3]float64) [3]float64 {
	r := f.Rot.Rotate(p)
	return [3]float64{r[0] + f.Pos[0], r[1] + f.Pos[1], r[2] + f.Pos[2]}
}

// yUp is the rotation by -90 degrees about x: URDF's z (up) to Tumble's y (up), URDF's y (left) to
// Tumble's -z, x (forward) kept.
var yUp = axisAngle([3]float64{1, 0, 0}, -math.Pi/2)

// YUp returns a URDF (z-up) vector in Tumble's y-up axes: (x, y, z) to (x, z, -y).
func YUp(v [3]float64) [3]float64 { return [3]float64{v[0], v[2], 0 - v[1]} } // 0 - y: no -0 in a saved file

// YUpFrame returns a frame given in URDF's world in Tumble's: the same turn applied before it, so its
// position maps by YUp and its rotation is the turn times its own, while the link's local axes (its
// joint axes, its shapes' poses) keep their meaning inside it.
func YUpFrame(f Frame) Frame {
	return Frame{Pos: YUp(f.Pos), Rot: yUp.Mul(f.Rot)}
}

// Frames returns each link's frame in the robot's (URDF's, z-up) world at zero joint positions, by
// name: the root's is the identity, and a child's is its parent's followed by its joint's origin.
func (r *Robot) Frames() map[string]Frame {
	byChild := map[string]*Joint{}
	for k := range r.Joints {
		byChild[r.Joints[k].Child] = &r.Joints[k]
	}
	out := map[string]Frame{}
	var frame func(name string, depth int) Frame
	frame = func(name string, depth int) Frame {
		if f, ok := out[name]; ok {
			return f
		}
		f := Identity
		if j := byChild[name]; j != nil && depth <= len(r.Joints) { // Parse refuses loops; the depth bounds them anyway
			f = frame(j.Parent, depth+1).Then(j.Origin.Of())
		}
		out[name] = f
		return f
	}
	for _, l := range r.Links {
		frame(l.Name, 0)
	}
	return out
}
