package sim

import (
	"math/rand/v2"
	"testing"

	"tumble/sim/geom"
)

// The bounds the step makes from a body's rotation matrix (boxes, spheres, capsules) are the shape's
// own bounds at its pose, swept and grown as BodyBounds grows them, within float rounding: 300 bodies
// of each shape at random poses and velocities, dynamic and static.
func TestBoundsFromTheRotationMatchBodyBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := func(a float32) float32 { return a * (2*rng.Float32() - 1) }
	w := gravityWorld(Settings{Workers: 1})
	defer w.Close()
	shapes := []geom.Shape{boxShape(0.5, 0.2, 0.1), sphereShape(0.3), {Kind: geom.Capsule, Radius: 0.1, HalfHeight: 0.4}}
	for k := range 900 {
		q := Quat{W: r(1), V: Vec3{r(1), r(1), r(1)}}.Normalize()
		def := BodyDef{Shape: shapes[k%3], Position: Vec3{r(50), r(50), r(50)}, Rotation: q, Mass: 1,
			Velocity: Vec3{r(9), r(9), r(9)}, AngularVelocity: Vec3{r(20), r(20), r(20)}}
		if k%5 == 0 {
			def.Type, def.Mass, def.Velocity, def.AngularVelocity = Static, 0, Vec3{}, Vec3{}
		}
		mustAdd(t, w, def)
	}
	b := &w.Bodies
	const dt, margin = 1.0 / 60, 0.01
	for i := range b.Len() {
		var m Mat3
		q := b.Rotation[i]
		setRotation(&m, q.W, q.V[0], q.V[1], q.V[2])
		got, want := boundsFromRotation(b, i, &m, dt, margin), BodyBounds(b, i, dt, margin)
		for a := range 3 {
			for _, d := range []float32{got.Min[a] - want.Min[a], got.Max[a] - want.Max[a]} {
				if d > 2e-5 || d < -2e-5 { // positions up to 50 m: a few float32 ulps
					t.Fatalf("body %d (%v): bounds %v, BodyBounds %v", i, b.Shape[i].Kind, got, want)
				}
			}
		}
	}
}
