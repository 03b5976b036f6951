package render

import "github.com/go-gl/mathgl/mgl32"

// shadowReach is how far from the camera's target, in camera distances, the shadow map reaches.
const shadowReach = 3

// shadowBox is the part of the bodies' bounds [lo, hi] the shadow map covers: what lies within
// shadowReach camera distances of the camera's target (each axis), so that a body far away (a ball
// that rolled 300 m from its wall) does not spread the map's texels over the whole distance and blur
// every shadow in view. Bounds wholly outside that reach are kept as they are.
func shadowBox(lo, hi mgl32.Vec3, cam *Camera) (mgl32.Vec3, mgl32.Vec3) {
	r := shadowReach * max(cam.Distance, 1)
	l, h := lo, hi
	for c := range 3 {
		l[c], h[c] = max(lo[c], cam.Target[c]-r), min(hi[c], cam.Target[c]+r)
		if l[c] > h[c] {
			return lo, hi
		}
	}
	return l, h
}
