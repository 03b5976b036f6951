package sim

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// The impulse solver keeps each touching point's arms and K^-1 over a solve op's sweeps because
// nothing moves the bodies between them. After an op of ten sweeps on a leaning, spinning stack,
// every point's kept values equal, bit for bit, those the bodies' poses give now, each manifold's
// points in its own slots; every touching point of a movable pair has its arms, and a K^-1 where it
// approached.
func TestImpulseKeptKMatchesThePoses(t *testing.T) {
	w := gravityWorld(Settings{Solver: Impulse})
	groundPlane(t, w, 0.5, 0)
	tilt := mgl32.QuatRotate(0.3, mgl32.Vec3{1, 0, 1}.Normalize())
	for i := range 4 {
		mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.25, 0.4), Position: Vec3{0.05 * float32(i), 0.3 + 0.55*float32(i), 0},
			Rotation: tilt, AngularVelocity: Vec3{0, 1, 0}, Mass: 1 + float32(i)})
	}
	run(t, w, 20)
	impulseSolver{}.run(w, Op{StageSolve, 10, Biased})
	st := &w.pipe.impulse
	b := &w.Bodies
	arms, ks := 0, 0
	for k := range w.pipe.narrow.manifolds {
		m := &w.pipe.narrow.manifolds[k]
		movable := b.InvMass[m.a] != 0 || b.InvMass[m.b] != 0
		for i := 0; i < int(m.count); i++ {
			cp, c := &m.pts[i], &st.pts[impulsePointsPer*k+i]
			touching := cp.sep <= w.settings.LinearSlop
			if (c.arms == st.epoch) != (touching && movable) {
				t.Fatalf("manifold %d point %d: arms kept %v, touching %v, movable %v", k, i, c.arms == st.epoch, touching, movable)
			}
			if c.arms != st.epoch {
				continue
			}
			arms++
			rA, rB := mulMat(&b.rot[m.a], cp.localA), mulMat(&b.rot[m.b], cp.localB)
			if c.rA != rA || c.rB != rB {
				t.Errorf("manifold %d point %d: kept arms %v %v, the poses give %v %v", k, i, c.rA, c.rB, rA, rB)
			}
			if c.k != st.epoch {
				continue
			}
			ks++
			want := impulseK(&b.InvInertiaWorld[m.a], &b.InvInertiaWorld[m.b], rA, rB, b.InvMass[m.a], b.InvMass[m.b])
			if c.kinv != want {
				t.Errorf("manifold %d point %d: kept K^-1 %v, the poses give %v", k, i, c.kinv, want)
			}
		}
	}
	if arms == 0 || ks == 0 {
		t.Fatalf("%d points kept their arms and %d their K^-1: the stack should touch and approach", arms, ks)
	}
	t.Logf("%d points kept their arms, %d their K^-1", arms, ks)
}
