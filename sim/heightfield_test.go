package sim_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"

	"github.com/go-gl/mathgl/mgl32"
)

// heightField samples h(x, z) on an n x n grid of spacing d, centred on the origin.
func heightField(t *testing.T, n int, d float32, h func(x, z float32) float32) geom.Shape {
	t.Helper()
	hs := make([]float32, n*n)
	x0 := -float32(n-1) * d / 2
	for j := range n {
		for i := range n {
			hs[j*n+i] = h(x0+float32(i)*d, x0+float32(j)*d)
		}
	}
	f, err := geom.NewHeightField(n, n, d, d, hs)
	if err != nil {
		t.Fatal(err)
	}
	return geom.Shape{Kind: geom.HeightField, Field: f}
}

func fieldWorld(t *testing.T, field geom.Shape, friction float32, bodies ...sim.BodyDef) *sim.World {
	t.Helper()
	w := sim.NewWorld(sim.Settings{Gravity: sim.Vec3{0, -9.81, 0}, Dt: 1.0 / 60})
	if _, err := w.AddBody(sim.BodyDef{Name: "field", Type: sim.Static, Shape: field, Friction: friction}); err != nil {
		t.Fatal(err)
	}
	for _, b := range bodies {
		if b.Friction == 0 {
			b.Friction = friction
		}
		if _, err := w.AddBody(b); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// stepSync steps w n times and syncs its bodies.
func stepSync(t *testing.T, w *sim.World, n int) {
	t.Helper()
	stepN(t, w, n)
	w.Sync()
}

// A ball dropped into a V-shaped valley (faces y = |x| tan 30 deg, meeting on a line of samples) rests
// touching both faces, its centre at r / cos(theta) above the valley floor: the distance r from each
// face's plane. The faces are made of 0.25 m cells, so the ball sits on the triangles' shared edges
// and vertices along the floor.
func TestHeightFieldBallRestsInValley(t *testing.T) {
	theta := 30 * math.Pi / 180
	s := float32(math.Tan(theta))
	const r = 0.3
	field := heightField(t, 41, 0.25, func(x, z float32) float32 { return s * float32(math.Abs(float64(x))) })
	w := fieldWorld(t, field, 0.6, sim.BodyDef{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: r},
		Position: geom.Vec3{0.02, 1.5, 0.1}})
	stepSync(t, w, 180)
	p := w.Bodies.Position[1]
	want := r / math.Cos(theta)
	t.Logf("ball at %v, want y = %.4f", p, want)
	if math.Abs(float64(p[1])-want) > 0.005 || math.Abs(float64(p[0])) > 0.005 {
		t.Errorf("ball at %v, want x = 0, y = r/cos(theta) = %.4f", p, want)
	}
}

// A box on a uniform slope field slides down it as down an incline: with friction mu below tan(theta)
// it accelerates at g (sin theta - mu cos theta), covering 1/2 a t^2 in t; a second box with mu above
// tan(theta) stays where it was put, resting at its half height from the slope along the normal.
func TestHeightFieldBoxSlidesAsOnIncline(t *testing.T) {
	theta := 25 * math.Pi / 180
	s := float32(math.Tan(theta))
	field := heightField(t, 49, 0.25, func(x, z float32) float32 { return -s * x }) // downhill is +x
	q := mgl32.QuatRotate(-float32(theta), mgl32.Vec3{0, 0, 1})
	n, down := q.Rotate(mgl32.Vec3{0, 1, 0}), q.Rotate(mgl32.Vec3{1, 0, 0})
	const hy = 0.1
	on := func(x, z float32) geom.Vec3 { return geom.Vec3{x, -s * x, z}.Add(n.Mul(hy)) }
	box := geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.2, hy, 0.15}}
	const mu, muStick = 0.2, 1.5 // a pair's friction is the geometric mean of its bodies'
	w := fieldWorld(t, field, mu,
		sim.BodyDef{Name: "slider", Shape: box, Position: on(-4, -1.5), Rotation: q, Friction: mu},
		sim.BodyDef{Name: "sticker", Shape: box, Position: on(-2, 2), Rotation: q, Friction: muStick})
	const steps = 90
	start := w.Bodies.Position[1]
	stepSync(t, w, steps)
	tt := float64(steps) / 60
	a := 9.81 * (math.Sin(theta) - mu*math.Cos(theta))
	want := 0.5 * a * tt * tt
	d := w.Bodies.Position[1].Sub(start)
	along, off := float64(d.Dot(down)), float64(d.Dot(n))
	t.Logf("slid %.4f m in %.2f s, want %.4f; off the slope by %.4f m", along, tt, want, off)
	if math.Abs(along-want) > 0.03*want {
		t.Errorf("slid %.4f m, want %.4f (g (sin - mu cos) = %.3f m/s^2)", along, want, a)
	}
	if math.Abs(off) > 0.005 {
		t.Errorf("the sliding box left the slope by %.4f m", off)
	}
	stick := w.Bodies.Position[2]
	muS := math.Sqrt(mu * muStick)
	t.Logf("sticking box (pair mu %.3f > tan %.3f) moved %v", muS, math.Tan(theta), stick.Sub(on(-2, 2)))
	if muS > math.Tan(theta) && stick.Sub(on(-2, 2)).Len() > 0.01 {
		t.Errorf("the box with pair friction %.3f > tan(theta) moved from %v to %v", muS, on(-2, 2), stick)
	}
}

// Balls and boxes thrown at 6 m/s across a bumpy field of 0.2 m cells (bumps 0.3 m high, 2.5 m
// apart), and a ball falling onto it at 40 m/s, never end up under the surface: each body's centre
// stays above the surface under it, crossing hundreds of cell edges on the way.
func TestHeightFieldNothingTunnels(t *testing.T) {
	bump := func(x, z float32) float32 {
		return 0.15*float32(math.Sin(2.5*float64(x))*math.Cos(2.5*float64(z))) + 0.02*x
	}
	field := heightField(t, 101, 0.2, bump)
	var bodies []sim.BodyDef
	for k := range 6 {
		z := -4 + 1.6*float32(k)
		sh := geom.Shape{Kind: geom.Sphere, Radius: 0.15}
		if k%2 == 1 {
			sh = geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.15, 0.1, 0.12}}
		}
		bodies = append(bodies, sim.BodyDef{Name: fmt.Sprint("thrown", k), Shape: sh, Position: geom.Vec3{-7, bump(-7, z) + 0.4, z},
			Velocity: geom.Vec3{6, 0, 0.5}})
	}
	bodies = append(bodies, sim.BodyDef{Name: "dropped", Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.15},
		Position: geom.Vec3{1.1, 3, 0.3}, Velocity: geom.Vec3{0, -40, 0}})
	w := fieldWorld(t, field, 0.4, bodies...)
	f := field.Field
	travelled := make([]float32, len(bodies))
	for step := range 180 {
		stepSync(t, w, 1)
		for k := range bodies {
			p := w.Bodies.Position[k+1]
			travelled[k] = max(travelled[k], p[0]+7)
			h, ok := f.HeightAt(p[0], p[2])
			if !ok {
				continue // off the field's edge
			}
			if p[1] < h {
				t.Fatalf("step %d: body %d's centre at %v is under the surface (height %.3f there)", step, k, p, h)
			}
		}
	}
	t.Logf("distances covered along x: %v", travelled)
	if travelled[0] < 3 {
		t.Errorf("the first ball covered only %.2f m: it did not roll across the cells", travelled[0])
	}
}

// A ray cast finds the field under a point at the surface's height there, with the surface's normal,
// through a field moved and turned by its body's pose; a shape cast lands a ball on it.
func TestHeightFieldSceneQueries(t *testing.T) {
	field := heightField(t, 33, 0.25, func(x, z float32) float32 { return 0.5*x + 0.25*z })
	w := sim.NewWorld(sim.Settings{Gravity: sim.Vec3{0, -9.81, 0}, Dt: 1.0 / 60})
	pos := geom.Vec3{1, 2, -1}
	q := mgl32.QuatRotate(0.3, mgl32.Vec3{0, 1, 0})
	if _, err := w.AddBody(sim.BodyDef{Name: "field", Type: sim.Static, Shape: field, Position: pos, Rotation: q}); err != nil {
		t.Fatal(err)
	}
	pose := geom.Pose{P: pos, Q: q}
	local := geom.Vec3{0.8, 0, -1.3}
	local[1] = 0.5*local[0] + 0.25*local[2]
	surface := pose.Apply(local)
	n := q.Rotate(geom.Vec3{-0.5, 1, -0.25}.Normalize())
	hit, ok := w.RayCast(surface.Add(geom.Vec3{0, 5, 0}), geom.Vec3{0, -1, 0}, 20, sim.QueryFilter{})
	if !ok || hit.Point.Sub(surface).Len() > 1e-3 || hit.Normal.Sub(n).Len() > 1e-3 {
		t.Fatalf("ray hit %v (%v) at %v normal %v, want %v normal %v", ok, hit.Index, hit.Point, hit.Normal, surface, n)
	}
	ball := geom.Shape{Kind: geom.Sphere, Radius: 0.2}
	sh, ok, err := w.ShapeCast(ball, geom.Pose{P: surface.Add(geom.Vec3{0, 5, 0}), Q: mgl32.QuatIdent()}, geom.Vec3{0, -1, 0}, 20, sim.QueryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	// The ball touches the plane of the surface where its centre is r/n_y above it.
	want := 5 - 0.2/float64(n[1])
	if !ok || math.Abs(float64(sh.T)-want) > 2e-3 {
		t.Fatalf("shape cast hit %v at %.4f, want %.4f", ok, sh.T, want)
	}
}

// A state's binary form keeps a height field: restored from the bytes into a fresh world, the field
// is the same grid and the step goes on exactly as in the world it was saved from.
func TestHeightFieldStateRoundTrips(t *testing.T) {
	field := heightField(t, 9, 0.5, func(x, z float32) float32 { return 0.2*x - 0.1*z*z })
	w := fieldWorld(t, field, 0.5, sim.BodyDef{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.3},
		Position: geom.Vec3{0.4, 1.5, -0.3}})
	stepSync(t, w, 30)
	var st sim.State
	if err := w.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	data, err := st.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back sim.State
	if err := back.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	w2 := sim.NewWorld(sim.Settings{})
	if err := w2.RestoreState(&back); err != nil {
		t.Fatal(err)
	}
	f, g := w.Bodies.Shape[0].Field, w2.Bodies.Shape[0].Field
	if g == nil || g.NX != f.NX || g.NZ != f.NZ || g.Base != f.Base || g.Step != f.Step || !slices.Equal(g.Q, f.Q) || !slices.Equal(g.Active, f.Active) {
		t.Fatalf("restored field %+v, want %+v", g, f)
	}
	stepSync(t, w, 30)
	stepSync(t, w2, 30)
	if p, q := w.Bodies.Position[1], w2.Bodies.Position[1]; p != q {
		t.Errorf("after 30 more steps the ball is at %v, restored %v", p, q)
	}
}
