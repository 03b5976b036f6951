package render

import (
	"image"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func TestCameraRayGoesThroughTheProjectedPoint(t *testing.T) {
	c := NewCamera(mgl32.Vec3{1, 2, 3}, 12)
	for _, p := range []mgl32.Vec3{{1, 2, 3}, {0, 0, 0}, {4, 1, -2}} {
		x, y, ok := c.Project(p, 800, 600)
		if !ok {
			t.Fatalf("%v behind the camera", p)
		}
		o, d := c.Ray(x, y, 800, 600)
		// The point's distance from the ray through its own pixel.
		v := p.Sub(o)
		if miss := v.Sub(d.Mul(v.Dot(d))).Len(); miss > 1e-3*v.Len() {
			t.Errorf("%v: pixel (%.1f, %.1f), ray misses it by %v", p, x, y, miss)
		}
	}
	if x, y, _ := c.Project(c.Target, 800, 600); math.Abs(float64(x-400)) > 0.01 || math.Abs(float64(y-300)) > 0.01 {
		t.Errorf("target at (%v, %v), want the centre", x, y)
	}
}

func TestFrameFitsTheBoxInView(t *testing.T) {
	var c Camera
	c = NewCamera(mgl32.Vec3{}, 1)
	lo, hi := mgl32.Vec3{-5, 0, -5}, mgl32.Vec3{5, 10, 5}
	c.Frame(lo, hi, 1)
	for i := range 8 {
		p := mgl32.Vec3{lo[0], lo[1], lo[2]}
		for k := range 3 {
			if i>>k&1 == 1 {
				p[k] = hi[k]
			}
		}
		if x, y, ok := c.Project(p, 600, 600); !ok || x < 0 || y < 0 || x > 600 || y > 600 {
			t.Errorf("corner %v at (%v, %v): out of view", p, x, y)
		}
	}
	// A long thin row is framed from closer than its bounding sphere needs, on a wide view.
	far := c.Distance
	c.Frame(mgl32.Vec3{-20, 0, -0.5}, mgl32.Vec3{20, 1, 0.5}, 16.0/9)
	if c.Distance > far*2 {
		t.Errorf("distance %v for a 40 m row", c.Distance)
	}
}

func TestFlipOpaqueTurnsRowsAndSetsAlpha(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 2, 3))
	for y := range 3 {
		img.Pix[y*img.Stride] = uint8(y + 1)
	}
	FlipOpaque(img)
	for y := range 3 {
		if img.Pix[y*img.Stride] != uint8(3-y) || img.Pix[y*img.Stride+3] != 255 {
			t.Errorf("row %d: %v", y, img.Pix[y*img.Stride:y*img.Stride+4])
		}
	}
}

func TestMeshesAreClosedAndCapsuleHalvesShift(t *testing.T) {
	for name, m := range map[string]mesh{"box": boxMesh(), "sphere": sphereMesh(24, 16, false), "capsule": sphereMesh(24, 16, true),
		"cylinder": cylinderMesh(32)} {
		if len(m.index)%3 != 0 {
			t.Errorf("%s: %d indices", name, len(m.index))
		}
		for _, i := range m.index {
			if int(i) >= len(m.verts) {
				t.Fatalf("%s: index %d of %d vertices", name, i, len(m.verts))
			}
		}
	}
	for _, v := range sphereMesh(24, 16, true).verts {
		if (v.pos[1] > 1e-6 && v.shift != 1) || (v.pos[1] < -1e-6 && v.shift != -1) {
			t.Fatalf("capsule vertex at y %v shifts %v", v.pos[1], v.shift)
		}
	}
}

// The unit cylinder's vertices lie on its surface (radius 1, |y| <= 1), each with a unit normal: radial
// on the side, axial on the caps, so scaled by (r, h, r) it shades as the cylinder it draws.
func TestCylinderMeshLiesOnTheUnitCylinder(t *testing.T) {
	m := cylinderMesh(32)
	for _, v := range m.verts {
		p, n := v.pos, v.normal
		rho := math.Hypot(float64(p[0]), float64(p[2]))
		nl := math.Sqrt(float64(n[0]*n[0] + n[1]*n[1] + n[2]*n[2]))
		onSide := math.Abs(rho-1) < 1e-6 && n[1] == 0
		onCap := math.Abs(math.Abs(float64(p[1]))-1) < 1e-6 && rho <= 1+1e-6 && n[1] == p[1]
		if math.Abs(nl-1) > 1e-6 || !onSide && !onCap {
			t.Fatalf("vertex %v normal %v is neither on the side nor on a cap", p, n)
		}
	}
}
