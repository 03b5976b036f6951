package sim

import (
	"math/rand"
	"testing"
)

// worldInertiaTo, written out in scalars, gives the matrix form's bits (mathgl's rotation matrix of
// the quaternion, then R diag(inv) R^T entry by entry) for random orientations and inertias.
func TestWorldInertiaMatchesMatrixForm(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for k := 0; k < 100000; k++ {
		q := Quat{W: r.Float32()*2 - 1, V: Vec3{r.Float32()*2 - 1, r.Float32()*2 - 1, r.Float32()*2 - 1}}.Normalize()
		inv := Vec3{r.Float32() * 3, r.Float32(), r.Float32() * 10}
		rm := q.Mat4().Mat3()
		var want Mat3
		for c := 0; c < 3; c++ {
			for rr := 0; rr < 3; rr++ {
				want[c*3+rr] = rm[rr]*rm[c]*inv[0] + rm[3+rr]*rm[3+c]*inv[1] + rm[6+rr]*rm[6+c]*inv[2]
			}
		}
		if got := worldInertia(q, inv); got != want {
			t.Fatalf("q %v, inverse inertia %v: %v, want %v", q, inv, got, want)
		}
	}
}
