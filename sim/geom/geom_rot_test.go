package geom

import (
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// rotation gives q.Mat4().Mat3()'s bits exactly (Bounds used the latter; a changed bit could change
// a borderline broad-phase pair).
func TestRotationIsMat4sUpperLeftBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		q := mgl32.Quat{W: r.Float32()*2 - 1, V: mgl32.Vec3{r.Float32()*2 - 1, r.Float32()*2 - 1, r.Float32()*2 - 1}}.Normalize()
		if got, want := rotation(q), q.Mat4().Mat3(); got != want {
			t.Fatalf("%v: %v, want %v", q, got, want)
		}
	}
}
