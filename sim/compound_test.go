package sim

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim/geom"
)

func mustCompound(t testing.TB, children ...geom.Child) *geom.CompoundShape {
	t.Helper()
	for i := range children {
		if children[i].Pose.Q == (Quat{}) {
			children[i].Pose.Q = mgl32.QuatIdent()
		}
		if children[i].Material == (geom.Material{}) {
			children[i].Material = geom.BodyMaterial
		}
	}
	c, err := geom.NewCompound(children)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// dumbbell is two balls of radius r and mass mb at x = +-l joined by a bar (a box 2l x 2a x 2a of
// mass mr): its inertia about the centre is, by the parallel axis theorem,
// Ixx = 2 (2/5 mb r^2) + mr (2a)^2/6 and Iyy = Izz = 2 (2/5 mb r^2 + mb l^2) + mr ((2l)^2 + (2a)^2)/12.
func dumbbell(t testing.TB, r, mb, l, a, mr float32) *geom.CompoundShape {
	return mustCompound(t,
		geom.Child{Shape: sphereShape(r), Pose: geom.Pose{P: Vec3{-l, 0, 0}}, Mass: mb},
		geom.Child{Shape: boxShape(l, a, a), Mass: mr},
		geom.Child{Shape: sphereShape(r), Pose: geom.Pose{P: Vec3{l, 0, 0}}, Mass: mb})
}

func TestDumbbellInertiaIsTheParallelAxisSum(t *testing.T) {
	const r, mb, l, a, mr = 0.1, 4.0, 0.3, 0.02, 0.5
	c := dumbbell(t, r, mb, l, a, mr)
	w := NewWorld(Settings{})
	// Lifted and turned: the children are given about an offset origin, so the centre of mass and
	// the frame must come out of the sum, not from where they were written.
	h := mustAdd(t, w, BodyDef{Name: "d", Shape: geom.Shape{Kind: geom.Compound, Compound: c}, Position: Vec3{1, 2, 3}})
	i, _ := w.Index(h)
	m := float32(2*mb + mr)
	if got := w.Bodies.Mass[i]; math.Abs(float64(got-m)) > 1e-5*float64(m) {
		t.Errorf("mass %v, want %v", got, m)
	}
	ixx := 2*(0.4*mb*r*r) + mr*(2*a)*(2*a)/6
	iyy := 2*(0.4*mb*r*r+mb*l*l) + mr*((2*l)*(2*l)+(2*a)*(2*a))/12
	want := Vec3{float32(ixx), float32(iyy), float32(iyy)}
	inv := w.Bodies.InvInertiaLocal[i]
	for k := range 3 {
		if got := 1 / float64(inv[k]); math.Abs(got-float64(want[k])) > 1e-5*float64(want[k]) {
			t.Errorf("I[%d] = %.7g, want %.7g", k, got, want[k])
		}
	}
	if c.Centre.Len() > 1e-6 || c.Frame != mgl32.QuatIdent() {
		t.Errorf("a symmetric dumbbell about its centre moved: centre %v, frame %v", c.Centre, c.Frame)
	}
}

// A child given off the origin and turned: the centre of mass is the mass-weighted mean, and the
// inertia tensor about it (R I R^T plus the parallel-axis term) has the principal moments of the
// analytic tensor, whatever frame the sum picks.
func TestCompoundCentreAndRotatedInertia(t *testing.T) {
	q := mgl32.QuatRotate(0.7, Vec3{0, 0, 1})
	box := boxShape(0.5, 0.1, 0.2)
	c := mustCompound(t,
		geom.Child{Shape: box, Pose: geom.Pose{P: Vec3{1, 0, 0}, Q: q}, Mass: 3},
		geom.Child{Shape: sphereShape(0.2), Pose: geom.Pose{P: Vec3{-1, 1, 0}}, Mass: 1})
	wantC := Vec3{(3*1 - 1) / 4.0, 1 / 4.0, 0}
	if c.Centre.Sub(wantC).Len() > 1e-6 {
		t.Fatalf("centre %v, want %v", c.Centre, wantC)
	}
	// The tensor by hand: the box's R diag R^T, the sphere's, and each m (|d|^2 E - d d^T).
	var tensor [3][3]float64
	addChild := func(m float64, u Vec3, r mgl32.Mat3, d Vec3) {
		for j := range 3 {
			for k := range 3 {
				for l := range 3 {
					tensor[j][k] += m * float64(r.At(j, l)*u[l]*r.At(k, l))
				}
				dd := float64(d[j]) * float64(d[k])
				if j == k {
					tensor[j][k] += m * float64(d.Dot(d))
				}
				tensor[j][k] -= m * dd
			}
		}
	}
	addChild(3, box.UnitInertia(), q.Mat4().Mat3(), Vec3{1, 0, 0}.Sub(wantC))
	s := sphereShape(0.2)
	addChild(1, s.UnitInertia(), mgl32.Ident3(), Vec3{-1, 1, 0}.Sub(wantC))
	// Invariants of the tensor: trace and determinant against the principal moments'.
	mom := c.UnitInertia.Mul(4)
	tr := tensor[0][0] + tensor[1][1] + tensor[2][2]
	det := tensor[0][0]*(tensor[1][1]*tensor[2][2]-tensor[1][2]*tensor[2][1]) -
		tensor[0][1]*(tensor[1][0]*tensor[2][2]-tensor[1][2]*tensor[2][0]) +
		tensor[0][2]*(tensor[1][0]*tensor[2][1]-tensor[1][1]*tensor[2][0])
	if got := float64(mom[0] + mom[1] + mom[2]); math.Abs(got-tr) > 1e-5*tr {
		t.Errorf("trace %v, want %v", got, tr)
	}
	if got := float64(mom[0]) * float64(mom[1]) * float64(mom[2]); math.Abs(got-det) > 1e-4*det {
		t.Errorf("determinant %v, want %v", got, det)
	}
	// Each child's world pose is unchanged by the re-centring and the turn into the principal frame:
	// a body at Centre turned by Frame puts the box where it was given.
	body := geom.Pose{P: c.Centre, Q: c.Frame}
	if p := c.ChildPose(body, 0); p.P.Sub(Vec3{1, 0, 0}).Len() > 1e-5 || math.Abs(float64(p.Q.Dot(q))) < 1-1e-5 {
		t.Errorf("the box's pose in the given frame is %v, want (1, 0, 0) turned by %v", p, q)
	}
}

// A hammer (a heavy head on a light handle) thrown spinning about a tilted axis in zero gravity keeps
// its angular momentum: nothing acts on it.
func TestThrownHammerKeepsAngularMomentum(t *testing.T) {
	c := mustCompound(t,
		geom.Child{Shape: boxShape(0.015, 0.15, 0.015), Mass: 0.3},
		geom.Child{Shape: boxShape(0.05, 0.025, 0.025), Pose: geom.Pose{P: Vec3{0.02, 0.17, 0}}, Mass: 0.8})
	w := NewWorld(Settings{})
	mustAdd(t, w, BodyDef{Name: "hammer", Shape: geom.Shape{Kind: geom.Compound, Compound: c},
		Velocity: Vec3{2, 1, 0}, AngularVelocity: Vec3{3, 8, 0.5}})
	p0, l0 := momenta(w)
	for s := 0; s < 300; s++ {
		run(t, w, 1)
		p, l := momenta(w)
		// The implicit midpoint gyroscopic step keeps |L| to float32 rounding (measured 1e-4 after
		// 5 s). Its direction wobbles and comes back: the rotation is advanced with each sub-step's
		// end velocity, an error of order h |w| (1/360 s x 8.5 rad/s = 2.4%) that does not grow.
		if d := math.Abs(norm3(l) - norm3(l0)); d > 1e-3*norm3(l0) {
			t.Fatalf("step %d: |L| drifted %.3g%%", s, 100*d/norm3(l0))
		}
		if d := norm3(diff3(l, l0)); d > 0.03*norm3(l0) {
			t.Fatalf("step %d: angular momentum turned by %.3g%% of |L|", s, 100*d/norm3(l0))
		}
		if d := norm3(diff3(p, p0)); d > 1e-5*norm3(p0) {
			t.Fatalf("step %d: momentum drifted by %g", s, d)
		}
	}
}

// An L (a bar lying on a ledge, an upright post at its far end) rests on the ledge when its centre of
// mass is over the ledge and tips over the edge when it is beyond it, even where the bar's own middle
// is still over the ledge: the post's mass moves the centre of mass out along the bar.
func TestLShapeTipsWhereItsCentreOfMassSays(t *testing.T) {
	for _, comX := range []float32{-0.03, 0.03} {
		for _, solver := range []SolverKind{PGS, Jacobi} {
			w := gravityWorld(Settings{Solver: solver})
			// The ledge: its top at y = 0, its edge at x = 0.
			mustAdd(t, w, BodyDef{Name: "ledge", Type: Static, Shape: boxShape(1, 0.5, 1), Position: Vec3{-1, -0.5, 0}, Friction: 0.8})
			bar := boxShape(0.5, 0.05, 0.1)
			post := boxShape(0.05, 0.3, 0.1)
			c := mustCompound(t,
				geom.Child{Shape: bar, Mass: 1},
				geom.Child{Shape: post, Pose: geom.Pose{P: Vec3{0.45, 0.35, 0}}, Mass: 1})
			// The centre of mass is 0.225 m along the bar from its middle: with comX = 0.03 the bar's
			// middle is at x = -0.195, well over the ledge.
			lift := 0.05 - c.Centre[1] + 0.001
			h := mustAdd(t, w, BodyDef{Name: "L", Shape: geom.Shape{Kind: geom.Compound, Compound: c},
				Position: Vec3{comX, lift, 0}, Rotation: c.BodyRotation(mgl32.QuatIdent()), Friction: 0.8})
			i, _ := w.Index(h)
			if mid := w.Bodies.Position[i][0] - c.Centre[0]; !(mid < -0.15) {
				t.Fatalf("the bar's middle is at x = %v, want it well over the ledge", mid)
			}
			run(t, w, 120)
			y := w.Bodies.Position[i][1]
			tipped := y < -0.2
			if want := comX > 0; tipped != want {
				t.Errorf("%s, centre of mass at x = %v: tipped %v (centre at y = %.3f), want %v", solver, comX, tipped, y, want)
			}
		}
	}
}

// A dumbbell at rest on the ground touches it with its two balls only: one manifold each, naming the
// ball, and the bar between them does not touch.
func TestDumbbellRestsOnItsBalls(t *testing.T) {
	w := gravityWorld(Settings{})
	groundPlane(t, w, 0.6, 0)
	c := dumbbell(t, 0.1, 4, 0.3, 0.02, 0.5)
	h := mustAdd(t, w, BodyDef{Name: "d", Shape: geom.Shape{Kind: geom.Compound, Compound: c}, Position: Vec3{0, 0.12, 0}})
	run(t, w, 90)
	i, _ := w.Index(h)
	if y := w.Bodies.Position[i][1]; math.Abs(float64(y-0.1)) > 0.005 {
		t.Errorf("resting centre at y = %v, want 0.1 (the balls' radius)", y)
	}
	kids := map[int]int{}
	for _, cp := range w.Contacts(nil) {
		child := cp.ChildA
		if cp.BodyB == i {
			child = cp.ChildB
		}
		kids[child]++
	}
	if len(kids) != 2 || kids[0] == 0 || kids[2] == 0 {
		t.Errorf("contacts by child %v, want the two balls (0 and 2) only", kids)
	}
}

// A compound's child with its own friction slides where the body's other child sticks: the child's
// material, not the body's, enters the pair.
func TestCompoundChildMaterial(t *testing.T) {
	slide := func(mu float32) float32 {
		w := gravityWorld(Settings{})
		theta := float32(0.4) // tan 0.4 = 0.42
		q := mgl32.QuatRotate(theta, Vec3{0, 0, 1})
		mustAdd(t, w, BodyDef{Name: "slope", Type: Static, Shape: boxShape(5, 0.5, 5), Position: q.Rotate(Vec3{0, -0.5, 0}), Rotation: q, Friction: 1})
		c := mustCompound(t,
			geom.Child{Shape: boxShape(0.2, 0.1, 0.2), Pose: geom.Pose{P: Vec3{-0.2, 0, 0}}, Mass: 1, Material: geom.Material{Friction: mu, Restitution: -1}},
			geom.Child{Shape: boxShape(0.2, 0.1, 0.2), Pose: geom.Pose{P: Vec3{0.2, 0, 0}}, Mass: 1, Material: geom.Material{Friction: mu, Restitution: -1}})
		h := mustAdd(t, w, BodyDef{Name: "c", Shape: geom.Shape{Kind: geom.Compound, Compound: c}, Position: q.Rotate(Vec3{0, 0.101, 0}),
			Rotation: q, Friction: 1})
		i, _ := w.Index(h)
		p0 := w.Bodies.Position[i]
		run(t, w, 60)
		return w.Bodies.Position[i].Sub(p0).Len()
	}
	// The pair's coefficient is sqrt(mu * 1): 0.3 slides (below tan 0.4), 0.9 holds.
	if d := slide(0.09); d < 0.5 {
		t.Errorf("children of friction 0.09 on a 0.4 rad slope moved %v m in 1 s, want them sliding", d)
	}
	if d := slide(0.81); d > 0.01 {
		t.Errorf("children of friction 0.81 on a 0.4 rad slope moved %v m in 1 s, want them held", d)
	}
}

// Picking names the child: a ray down onto each part of a dumbbell hits that part, at its surface,
// and a ray through the gap beside the bar hits nothing.
func TestRayCastNamesTheCompoundChild(t *testing.T) {
	w := NewWorld(Settings{})
	c := dumbbell(t, 0.1, 4, 0.3, 0.02, 0.5)
	mustAdd(t, w, BodyDef{Name: "d", Shape: geom.Shape{Kind: geom.Compound, Compound: c}, Position: Vec3{0, 1, 0}})
	for _, tc := range []struct {
		x     float32
		child int
		top   float32
	}{{-0.3, 0, 1.1}, {0, 1, 1.02}, {0.3, 2, 1.1}} {
		h, ok := w.RayCast(Vec3{tc.x, 3, 0.001}, Vec3{0, -1, 0}, 10, QueryFilter{})
		if !ok || h.Child != tc.child || math.Abs(float64(h.Point[1]-tc.top)) > 1e-4 {
			t.Errorf("ray at x = %v: hit %v (child %d at y = %v), want child %d at y = %v", tc.x, ok, h.Child, h.Point[1], tc.child, tc.top)
		}
	}
	if h, ok := w.RayCast(Vec3{0, 3, 0.05}, Vec3{0, -1, 0}, 10, QueryFilter{}); ok {
		t.Errorf("a ray beside the bar hit %+v", h)
	}
	h, ok, err := w.ShapeCast(sphereShape(0.05), geom.Pose{P: Vec3{0.3, 2, 0}}, Vec3{0, -1, 0}, 5, QueryFilter{})
	if err != nil || !ok || h.Child != 2 || math.Abs(float64(h.T-(1-0.15))) > 2e-3 {
		t.Errorf("a ball cast onto the right ball: %+v %v %v, want child 2 after 0.85 m", h, ok, err)
	}
}

// Warm starting holds per shape: a table standing on the ground touches it with its four legs, a
// manifold each, their points' feature ids distinct across the legs (the leg's index is in them), so
// each point finds its own last-step point: after a second at rest every point kept its friction
// anchors, and the impulses hold the weight.
func TestCompoundContactsWarmStartPerShape(t *testing.T) {
	w := gravityWorld(Settings{})
	groundPlane(t, w, 0.6, 0)
	leg := boxShape(0.025, 0.35, 0.025)
	kids := []geom.Child{{Shape: boxShape(0.6, 0.025, 0.4), Pose: geom.Pose{P: Vec3{0, 0.725, 0}}, Mass: 28.8}}
	for _, x := range []float32{-0.55, 0.55} {
		for _, z := range []float32{-0.35, 0.35} {
			kids = append(kids, geom.Child{Shape: leg, Pose: geom.Pose{P: Vec3{x, 0.35, z}}, Mass: 1.05})
		}
	}
	c := mustCompound(t, kids...)
	mustAdd(t, w, BodyDef{Name: "table", Shape: geom.Shape{Kind: geom.Compound, Compound: c}, Position: Vec3{0, c.Centre[1] + 0.001, 0},
		Friction: 0.6})
	run(t, w, 60)
	ms := w.pipe.narrow.prev
	if len(ms) != 4 {
		t.Fatalf("%d manifolds, want one per leg", len(ms))
	}
	ids := map[uint32]bool{}
	legs := map[uint8]bool{}
	var total float32
	for k := range ms {
		m := &ms[k]
		legs[m.child.a+m.child.b] = true // the ground is no compound: child 0 on its side
		for i := range int(m.count) {
			p := &m.pts[i]
			if ids[p.id] {
				t.Errorf("feature id %#x appears twice among the legs' points", p.id)
			}
			ids[p.id] = true
			if !p.kept {
				t.Errorf("leg %v point %d did not keep its anchors from the last step", m.child, i)
			}
			total += p.normalImpulse
		}
	}
	if len(legs) != 4 || legs[0] {
		t.Errorf("manifolds of shapes %v, want the four legs (1 to 4)", legs)
	}
	// The normal impulses of a sub-step hold the weight: m g h.
	r := w.Resolved()
	if want := float32(33) * g * r.Dt / float32(r.Substeps); math.Abs(float64(total-want)) > 0.02*float64(want) {
		t.Errorf("the legs' normal impulses sum to %v N s a sub-step, want m g h = %v", total, want)
	}
}

// A wheel set (two cylinder wheels of radius R on a thin box axle, one compound) rolling on the floor
// is stopped by its wheels' own rolling resistance c, the body's being 0: the wheels' torques sum to
// c R m g against the roll (R is the centre of mass's height over the contact plane), so
// (m + I/R^2) dv/dt = -c m g, with I the set's moment about its axle, and it stops after
// v0^2 / (2 a). With the wheels' resistance left to the body's (0), it rolls on.
func TestWheelSetRollsToRestByItsWheelsResistance(t *testing.T) {
	const R, hh, mw, ma, c, v0 = 0.3, 0.05, 2.0, 0.5, 0.05, 1.0
	roll := func(solver SolverKind, wheel geom.Material) (*World, int, float64) {
		w := gravityWorld(Settings{Solver: solver})
		groundPlane(t, w, 0.8, 0)
		side := mgl32.QuatRotate(math.Pi/2, Vec3{0, 0, 1}) // the cylinders' axis (local y) along x
		set := mustCompound(t,
			geom.Child{Shape: geom.Shape{Kind: geom.Cylinder, Radius: R, HalfHeight: hh}, Pose: geom.Pose{P: Vec3{-0.4, 0, 0}, Q: side}, Mass: mw, Material: wheel},
			geom.Child{Shape: boxShape(0.4, 0.03, 0.03), Mass: ma},
			geom.Child{Shape: geom.Shape{Kind: geom.Cylinder, Radius: R, HalfHeight: hh}, Pose: geom.Pose{P: Vec3{0.4, 0, 0}, Q: side}, Mass: mw, Material: wheel})
		h := mustAdd(t, w, BodyDef{Name: "wheels", Shape: geom.Shape{Kind: geom.Compound, Compound: set}, Position: Vec3{0, R, 0},
			Velocity: Vec3{0, 0, v0}, AngularVelocity: Vec3{v0 / R, 0, 0}, Friction: 0.8})
		i, _ := w.Index(h)
		// The moment about the axle (world x) from the body's principal inverse inertia.
		x := w.Bodies.Rotation[i].Conjugate().Rotate(Vec3{1, 0, 0}) // world x in the body's frame
		inv := w.Bodies.InvInertiaLocal[i]
		var ix float64
		for k := range 3 {
			ix += float64(x[k]*x[k]) / float64(inv[k])
		}
		return w, i, ix
	}
	for _, solver := range []SolverKind{PGS, Jacobi} {
		w, i, ix := roll(solver, geom.Material{Friction: -1, Restitution: -1, RollingResistance: c, SpinningResistance: -1})
		m := float64(w.Bodies.Mass[i])
		a := c * m * g / (m + ix/(R*R))
		want := v0 * v0 / (2 * a)
		run(t, w, int(math.Ceil(1.3*v0/a/float64(w.Resolved().Dt))))
		d := float64(w.Bodies.Position[i][2])
		t.Logf("%v: I about the axle %.4f kg m^2 (analytic 0.1803), rolled %.4f m, analytic %.4f m", solver, ix, d, want)
		if math.Abs(d-want) > 0.03*want {
			t.Errorf("%v: the wheel set rolled %.3f m, want %.3f m within 3%%", solver, d, want)
		}
		if v := w.Bodies.Velocity[i].Len(); v > 1e-3 {
			t.Errorf("%v: still rolling at %.3g m/s", solver, v)
		}
		free, j, _ := roll(solver, geom.BodyMaterial)
		run(t, free, int(math.Ceil(1.3*v0/a/float64(free.Resolved().Dt))))
		if v := float64(free.Bodies.Velocity[j][2]); v < 0.9*v0 {
			t.Errorf("%v: with the body's resistance (0) the set slowed to %.3f m/s from %.1f", solver, v, v0)
		}
	}
}
