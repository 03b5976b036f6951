package render

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// The shadow map covers the wall the camera looks at, not the 300 m out to the ball that rolled away;
// a scene framed whole keeps its bounds.
func TestShadowBoxLeavesOutWhatLiesFarFromTheView(t *testing.T) {
	cam := NewCamera(mgl32.Vec3{0, 2.5, 5}, 15)
	lo, hi := shadowBox(mgl32.Vec3{-5, 0, -0.25}, mgl32.Vec3{300.5, 5, 10.5}, &cam)
	if want := (mgl32.Vec3{45, 5, 10.5}); hi.Sub(want).Len() > 1e-4 || lo != (mgl32.Vec3{-5, 0, -0.25}) {
		t.Errorf("shadow box [%v, %v], want [-5 0 -0.25], %v", lo, hi, want)
	}
	lo, hi = shadowBox(mgl32.Vec3{-5, 0, -5}, mgl32.Vec3{5, 10, 5}, &cam)
	if lo != (mgl32.Vec3{-5, 0, -5}) || hi != (mgl32.Vec3{5, 10, 5}) {
		t.Errorf("a framed pyramid's box became [%v, %v]", lo, hi)
	}
	far := NewCamera(mgl32.Vec3{1000, 0, 0}, 5)
	if lo, hi = shadowBox(mgl32.Vec3{-5, 0, -5}, mgl32.Vec3{5, 10, 5}, &far); hi != (mgl32.Vec3{5, 10, 5}) {
		t.Errorf("bounds out of reach became [%v, %v]", lo, hi)
	}
}
