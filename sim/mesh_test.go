package sim_test

import (
	"math"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"

	"github.com/go-gl/mathgl/mgl32"
)

// gridMesh is a flat square of side 2*half in the xz plane made of n x n cells, two triangles each,
// facing +y: a floor full of internal edges.
func gridMesh(t *testing.T, half float32, n int) geom.Shape {
	t.Helper()
	m, err := geom.NewGridMesh(half, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	return geom.Shape{Kind: geom.TriMesh, Mesh: m}
}

func meshWorld(t *testing.T, mesh geom.Shape, meshRot mgl32.Quat, body sim.BodyDef, friction float32) *sim.World {
	t.Helper()
	w := sim.NewWorld(sim.Settings{Gravity: sim.Vec3{0, -9.81, 0}, Dt: 1.0 / 60})
	if _, err := w.AddBody(sim.BodyDef{Name: "mesh", Type: sim.Static, Shape: mesh, Rotation: meshRot, Friction: friction}); err != nil {
		t.Fatal(err)
	}
	body.Friction = friction
	if _, err := w.AddBody(body); err != nil {
		t.Fatal(err)
	}
	return w
}

// A ball rolls down a 20 degree slope made of 0.25 m triangles without slipping: its centre
// accelerates at 5/7 g sin(theta) (a solid sphere's rolling), so in 1.5 s it covers 1/2 a t^2 along the
// slope. The seams it rolls over cost it nothing measurable (within 2%).
func TestMeshBallRollsDownSlope(t *testing.T) {
	theta := 20 * math.Pi / 180
	q := mgl32.QuatRotate(float32(theta), mgl32.Vec3{0, 0, 1}) // downhill is -x
	n := q.Rotate(mgl32.Vec3{0, 1, 0})
	start := n.Mul(0.2).Add(q.Rotate(mgl32.Vec3{3, 0, 0.1}))
	w := meshWorld(t, gridMesh(t, 5, 40), q, sim.BodyDef{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.2}, Position: start}, 1)
	const steps = 90
	for range steps {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	w.Sync()
	tt := float64(steps) / 60
	want := 0.5 * 5.0 / 7.0 * 9.81 * math.Sin(theta) * tt * tt
	d := w.Bodies.Position[1].Sub(start)
	along := -float64(d.Dot(q.Rotate(mgl32.Vec3{1, 0, 0})))
	off := float64(d.Dot(n))
	t.Logf("rolled %.4f m in %.2f s, want %.4f; off the slope by %.4f m", along, tt, want, off)
	if math.Abs(along-want) > 0.02*want {
		t.Errorf("rolled %.4f m, want %.4f (5/7 g sin theta)", along, want)
	}
	if math.Abs(off) > 0.005 {
		t.Errorf("the ball left the slope's surface by %.4f m", off)
	}
}

// A box sliding without friction at 3 m/s across a floor of 0.25 m triangles (diagonal seams and
// straight ones, crossed 12 times a second) keeps its speed and stays flat: internal edges give no
// normal of their own, so nothing catches its edges. A box caught on a seam loses speed and tips.
func TestMeshBoxSlidesOverSeams(t *testing.T) {
	w := meshWorld(t, gridMesh(t, 5, 40), mgl32.QuatIdent(), sim.BodyDef{Name: "box",
		Shape: geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.2, 0.1, 0.15}}, Position: geom.Vec3{-3, 0.1, 0.05},
		Velocity: geom.Vec3{3, 0, 0.4}}, 0)
	for range 90 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	w.Sync()
	v, wv := w.Bodies.Velocity[1], w.Bodies.AngularVelocity[1]
	y := w.Bodies.Position[1][1]
	t.Logf("after 1.5 s: velocity %v, spin %v, height %.4f", v, wv, y)
	if math.Abs(float64(v.Len())-math.Hypot(3, 0.4)) > 0.01*math.Hypot(3, 0.4) || wv.Len() > 0.05 {
		t.Errorf("velocity %v (speed %.4f, want %.4f), spin %v: caught on a seam", v, v.Len(), math.Hypot(3, 0.4), wv)
	}
	if math.Abs(float64(y)-0.1) > 0.005 {
		t.Errorf("height %.4f, want 0.1 (resting on the floor)", y)
	}
}

// A ball falling at 40 m/s onto a mesh floor (0.67 m in a step, more than three times its radius)
// stops on it: speculative contacts catch it before it passes. It then rests at its radius.
func TestMeshNoTunnelling(t *testing.T) {
	w := meshWorld(t, gridMesh(t, 5, 4), mgl32.QuatIdent(), sim.BodyDef{Name: "ball",
		Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.2}, Position: geom.Vec3{0.3, 1.5, 0.2}, Velocity: geom.Vec3{0, -40, 0}}, 0.5)
	lowest := float32(1e9)
	for range 60 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
		w.Sync()
		lowest = min(lowest, w.Bodies.Position[1][1])
	}
	if lowest < 0.15 {
		t.Errorf("the ball's centre reached y = %.3f: it went into (or through) the floor", lowest)
	}
	if y := w.Bodies.Position[1][1]; math.Abs(float64(y)-0.2) > 0.005 {
		t.Errorf("the ball rests at y = %.4f, want 0.2", y)
	}
}
