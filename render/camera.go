package render

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Camera is an orbit camera: it looks at Target from Distance away, turned by Yaw about the vertical
// and tilted by Pitch (radians, positive looks down).
type Camera struct {
	Target   mgl32.Vec3
	Yaw      float32
	Pitch    float32
	Distance float32
	FovY     float32 // radians; 0 means 45 degrees
}

// NewCamera returns a camera looking at target from distance, from the front-right and above.
func NewCamera(target mgl32.Vec3, distance float32) Camera {
	return Camera{Target: target, Yaw: 0.6, Pitch: 0.45, Distance: distance}
}

// Eye is the camera's position.
func (c *Camera) Eye() mgl32.Vec3 {
	cp := float32(math.Cos(float64(c.Pitch)))
	dir := mgl32.Vec3{cp * float32(math.Sin(float64(c.Yaw))), float32(math.Sin(float64(c.Pitch))),
		cp * float32(math.Cos(float64(c.Yaw)))}
	return c.Target.Add(dir.Mul(c.Distance))
}

func (c *Camera) fov() float32 {
	if c.FovY == 0 {
		return mgl32.DegToRad(45)
	}
	return c.FovY
}

// ConeAngle is the half-angle, radians, of the narrowest cone about the view direction that holds
// the view of the given aspect ratio (width / height): its corners are atan(tan(fovY/2) sqrt(1 +
// aspect^2)) off the axis.
func (c *Camera) ConeAngle(aspect float32) float32 {
	t := math.Tan(float64(c.fov()) / 2)
	return float32(math.Atan(t * math.Sqrt(1+float64(aspect*aspect))))
}

// View is the world-to-camera matrix.
func (c *Camera) View() mgl32.Mat4 {
	return mgl32.LookAtV(c.Eye(), c.Target, mgl32.Vec3{0, 1, 0})
}

// Proj is the projection for a viewport of the given aspect ratio (width / height).
func (c *Camera) Proj(aspect float32) mgl32.Mat4 {
	near := max(0.05, c.Distance*0.005)
	return mgl32.Perspective(c.fov(), aspect, near, near*20000)
}

// Orbit turns the camera by dyaw and dpitch radians, keeping the pitch short of straight up or down.
func (c *Camera) Orbit(dyaw, dpitch float32) {
	c.Yaw += dyaw
	c.Pitch = mgl32.Clamp(c.Pitch+dpitch, -1.5, 1.5)
}

// Pan moves the target in the view plane by dx, dy, fractions of the view's height.
func (c *Camera) Pan(dx, dy float32) {
	v := c.View()
	right := mgl32.Vec3{v[0], v[4], v[8]}
	up := mgl32.Vec3{v[1], v[5], v[9]}
	h := 2 * c.Distance * float32(math.Tan(float64(c.fov()/2)))
	c.Target = c.Target.Sub(right.Mul(dx * h)).Add(up.Mul(dy * h))
}

// Zoom scales the distance by factor (< 1 moves in).
func (c *Camera) Zoom(factor float32) {
	c.Distance = mgl32.Clamp(c.Distance*factor, 0.2, 5000)
}

// Frame points the camera at the box [lo, hi] and moves in as close as it can with every corner in a
// viewport of the given aspect ratio (width / height), with a margin.
func (c *Camera) Frame(lo, hi mgl32.Vec3, aspect float32) {
	c.Target = lo.Add(hi).Mul(0.5)
	r := hi.Sub(lo).Len() / 2
	far := max(2, r/float32(math.Sin(float64(c.fov()/2)))*1.05) // the bounding sphere fits: all in view
	fits := func(d float32) bool {
		c.Distance = d
		m := c.Proj(aspect).Mul4(c.View())
		for i := range 8 {
			p := lo
			for k := range 3 {
				if i>>k&1 == 1 {
					p[k] = hi[k]
				}
			}
			q := m.Mul4x1(p.Vec4(1))
			if q[3] <= 0 || math.Abs(float64(q[0]/q[3])) > 0.9 || math.Abs(float64(q[1]/q[3])) > 0.9 {
				return false
			}
		}
		return true
	}
	nearest := far
	for lo, hi := float32(0), far; hi-lo > 0.01*far; {
		mid := (lo + hi) / 2
		if fits(mid) {
			hi, nearest = mid, mid
		} else {
			lo = mid
		}
	}
	c.Distance = max(nearest, 1)
}

// Ray returns the world ray through the viewport point (x, y), in pixels from the top left of a
// width x height viewport: the eye and a unit direction.
func (c *Camera) Ray(x, y, width, height float32) (mgl32.Vec3, mgl32.Vec3) {
	ndcX := 2*x/width - 1
	ndcY := 1 - 2*y/height
	inv := c.Proj(width / height).Mul4(c.View()).Inv()
	near := inv.Mul4x1(mgl32.Vec4{ndcX, ndcY, -1, 1})
	far := inv.Mul4x1(mgl32.Vec4{ndcX, ndcY, 1, 1})
	a := near.Vec3().Mul(1 / near[3])
	b := far.Vec3().Mul(1 / far[3])
	return c.Eye(), b.Sub(a).Normalize()
}

// Project returns the viewport pixel (from the top left) of a world point, and whether it is in
// front of the camera.
func (c *Camera) Project(p mgl32.Vec3, width, height float32) (float32, float32, bool) {
	clip := c.Proj(width / height).Mul4(c.View()).Mul4x1(p.Vec4(1))
	if clip[3] <= 0 {
		return 0, 0, false
	}
	x, y := clip[0]/clip[3], clip[1]/clip[3]
	return (x + 1) / 2 * width, (1 - y) / 2 * height, true
}
