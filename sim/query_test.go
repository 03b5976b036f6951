package sim

import (
	"cmp"
	"errors"
	"math"
	"math/rand"
	"slices"
	"testing"

	"tumble/sim/collide"
	"tumble/sim/geom"

	"github.com/go-gl/mathgl/mgl32"
)

var inf32 = float32(math.Inf(1))

func addBody(t testing.TB, w *World, d BodyDef) Handle {
	t.Helper()
	h, err := w.AddBody(d)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func closeTo(a, b float32, tol float64) bool { return math.Abs(float64(a-b)) <= tol }

// TestRayCastHitsEachShapeKindInAWorld: one body of each kind, each alone on its own ray, at known
// distances and normals.
func TestRayCastHitsEachShapeKindInAWorld(t *testing.T) {
	w := NewWorld(Settings{})
	tetra, err := geom.NewHull([]Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	floor, err := geom.NewGridMesh(2, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	r3 := float32(math.Sqrt(3))
	spin := mgl32.QuatRotate(math.Pi/4, Vec3{0, 0, 1})
	// Bodies spread along x, 20 m apart; rays come down along -z from z = 10 (the plane lies at z = -50,
	// facing +z, under them all: it is hit only where nothing else is).
	bodies := []struct {
		name   string
		def    BodyDef
		o, d   Vec3
		t      float32
		normal Vec3
	}{
		{"sphere", BodyDef{Shape: geom.Shape{Kind: geom.Sphere, Radius: 1}, Position: Vec3{0, 0, 5}}, Vec3{0, 0, 10}, Vec3{0, 0, -1}, 4, Vec3{0, 0, 1}},
		{"box turned 45 degrees", BodyDef{Shape: geom.Shape{Kind: geom.Box, HalfExtents: Vec3{1, 1, 1}}, Position: Vec3{20, 0, 0}, Rotation: spin},
			Vec3{23, 3, 0}, Vec3{-1, -1, 0}, 3*math.Sqrt2 - 1, Vec3{1, 1, 0}.Normalize()},
		{"capsule end", BodyDef{Shape: geom.Shape{Kind: geom.Capsule, Radius: 0.5, HalfHeight: 1}, Position: Vec3{40, 0, 0},
			Rotation: mgl32.QuatRotate(math.Pi/2, Vec3{1, 0, 0})}, Vec3{40.3, 0, 10}, Vec3{0, 0, -1}, 8.6, Vec3{0.6, 0, 0.8}},
		{"hull face", BodyDef{Shape: geom.Shape{Kind: geom.ConvexHull, Hull: tetra}, Position: Vec3{60, 0, 0}.Add(tetra.Centre), Rotation: tetra.BodyRotation(mgl32.QuatIdent())},
			Vec3{61, 1, 1}, Vec3{-1, -1, -1}, r3 - 1/r3, Vec3{1, 1, 1}.Normalize()},
		{"mesh triangle", BodyDef{Type: Static, Shape: geom.Shape{Kind: geom.TriMesh, Mesh: floor}, Position: Vec3{80, 0, 0},
			Rotation: mgl32.QuatRotate(math.Pi/2, Vec3{1, 0, 0})}, Vec3{80.5, 0.3, 10}, Vec3{0, 0, -1}, 10, Vec3{0, 0, 1}},
		{"plane", BodyDef{Type: Static, Shape: geom.Shape{Kind: geom.Plane, Normal: Vec3{0, 0, 1}, Offset: -50}}, Vec3{100, 0, 10}, Vec3{0, 0, -1}, 60, Vec3{0, 0, 1}},
	}
	for _, b := range bodies {
		b.def.Name = b.name
		addBody(t, w, b.def)
	}
	for i, b := range bodies {
		h, ok := w.RayCast(b.o, b.d, inf32, QueryFilter{})
		if !ok || h.Index != i || !closeTo(h.T, b.t, 1e-5) || h.Normal.Sub(b.normal).Len() > 1e-5 {
			t.Errorf("%s: hit %+v ok %v, want body %d at T %v normal %v", b.name, h, ok, i, b.t, b.normal)
			continue
		}
		if want := b.o.Add(b.d.Normalize().Mul(b.t)); h.Point.Sub(want).Len() > 1e-4 || h.Body != w.HandleAt(i) {
			t.Errorf("%s: point %v body %v, want %v body %v", b.name, h.Point, h.Body, want, w.HandleAt(i))
		}
		if _, ok := w.RayCast(b.o, b.d, b.t-1e-3, QueryFilter{}); ok {
			t.Errorf("%s: hit beyond maxDist", b.name)
		}
	}
	if _, ok := w.RayCast(Vec3{0, 0, 10}, Vec3{}, inf32, QueryFilter{}); ok {
		t.Error("a ray with no direction hit")
	}
	if _, ok := w.RayCast(Vec3{0, 0, 10}, Vec3{0, 0, 1}, inf32, QueryFilter{}); ok {
		t.Error("a ray up, away from everything, hit")
	}
}

// row is a world of n unit spheres along x at x = 0, 3, 6, ..., the even ones dynamic, the odd ones
// static, over a floor plane at y = -5.
func row(t testing.TB, n int) *World {
	w := NewWorld(Settings{})
	for i := range n {
		typ := Dynamic
		if i%2 == 1 {
			typ = Static
		}
		addBody(t, w, BodyDef{Type: typ, Shape: geom.Shape{Kind: geom.Sphere, Radius: 1}, Position: Vec3{float32(3 * i), 0, 0}})
	}
	addBody(t, w, BodyDef{Name: "floor", Type: Static, Shape: geom.Shape{Kind: geom.Plane, Normal: Vec3{0, 1, 0}, Offset: -5}})
	return w
}

func TestRayCastAllReturnsEveryHitNearestFirst(t *testing.T) {
	w := row(t, 6)
	// From x = 20 along -x: spheres 5, 4, ..., 0, entered at x = 3i + 1.
	hits := w.RayCastAll(Vec3{20, 0, 0}, Vec3{-1, 0, 0}, inf32, QueryFilter{})
	if len(hits) != 6 {
		t.Fatalf("%d hits, want 6: %+v", len(hits), hits)
	}
	for k, h := range hits {
		i := 5 - k
		if h.Index != i || !closeTo(h.T, 20-float32(3*i+1), 1e-5) || h.Normal != (Vec3{1, 0, 0}) {
			t.Errorf("hit %d: %+v, want body %d at %v", k, h, i, 20-float32(3*i+1))
		}
	}
	// maxDist cuts the list; a slanted ray down reaches the floor last.
	if hits := w.RayCastAll(Vec3{20, 0, 0}, Vec3{-1, 0, 0}, 9.5, QueryFilter{}); len(hits) != 2 {
		t.Errorf("%d hits within 9.5 m, want 2", len(hits))
	}
	hits = w.RayCastAll(Vec3{-2, 0.5, 0}, Vec3{1, -0.01, 0}, inf32, QueryFilter{})
	if len(hits) != 7 || w.Bodies.Name[hits[6].Index] != "floor" || !slices.IsSortedFunc(hits, func(a, b Hit) int { return int(a.T - b.T) }) {
		t.Errorf("slanted ray: %d hits, last %v", len(hits), hits[len(hits)-1])
	}
}

func TestQueryFilterLeavesOutTheExcludedBodyTypesAndRejected(t *testing.T) {
	w := row(t, 6)
	o, d := Vec3{20, 0, 0}, Vec3{-1, 0, 0}
	first, _ := w.RayCast(o, d, inf32, QueryFilter{})
	if first.Index != 5 {
		t.Fatalf("nearest is body %d, want 5", first.Index)
	}
	if h, _ := w.RayCast(o, d, inf32, QueryFilter{Exclude: first.Body}); h.Index != 4 {
		t.Errorf("excluding body 5: hit %d, want 4", h.Index)
	}
	if h, _ := w.RayCast(o, d, inf32, QueryFilter{Types: TypesOf(Dynamic)}); h.Index != 4 {
		t.Errorf("dynamic only: hit %d, want 4", h.Index)
	}
	if h, _ := w.RayCast(o, d, inf32, QueryFilter{Types: TypesOf(Static, Kinematic)}); h.Index != 5 {
		t.Errorf("static only: hit %d, want 5", h.Index)
	}
	far := QueryFilter{Accept: func(h Handle) bool { i, _ := w.Index(h); return w.Bodies.Position[i][0] < 5 }}
	got := w.RayCastAll(o, d, inf32, far)
	if len(got) != 2 || got[0].Index != 1 || got[1].Index != 0 {
		t.Errorf("Accept x < 5: %+v, want bodies 1, 0", got)
	}
	if !TypesOf().Has(Kinematic) || TypesOf(Dynamic).Has(Static) {
		t.Error("TypeMask: the zero mask holds every type; a mask of dynamic does not hold static")
	}
	ball := geom.Shape{Kind: geom.Sphere, Radius: 2}
	at := geom.Pose{P: Vec3{4.5, 0, 0}, Q: mgl32.QuatIdent()}
	if hs, _ := w.Overlap(ball, at, QueryFilter{Types: TypesOf(Static)}); len(hs) != 1 || hs[0] != w.HandleAt(1) {
		t.Errorf("static overlap: %v, want body 1", hs)
	}
	if h, ok, _ := w.ShapeCast(ball, geom.Pose{P: Vec3{20, 0, 0}, Q: mgl32.QuatIdent()}, d, inf32, QueryFilter{Exclude: first.Body}); !ok || h.Index != 4 {
		t.Errorf("cast excluding body 5: %+v", h)
	}
}

func TestShapeCastSphereOntoABoxFaceIsAnalytic(t *testing.T) {
	w := NewWorld(Settings{})
	addBody(t, w, BodyDef{Type: Static, Shape: geom.Shape{Kind: geom.Box, HalfExtents: Vec3{1, 2, 3}}, Position: Vec3{0, 0, 0}})
	addBody(t, w, BodyDef{Type: Static, Shape: geom.Shape{Kind: geom.Plane, Normal: Vec3{0, 1, 0}, Offset: -10}})
	ball := geom.Shape{Kind: geom.Sphere, Radius: 0.5}
	h, ok, err := w.ShapeCast(ball, geom.Pose{P: Vec3{10, 1, 2}, Q: mgl32.QuatIdent()}, Vec3{-2, 0, 0}, inf32, QueryFilter{})
	if err != nil || !ok || h.Index != 0 || h.T != 8.5 || h.Normal != (Vec3{1, 0, 0}) || h.Point.Sub(Vec3{1, 1, 2}).Len() > 1e-5 {
		t.Fatalf("sphere along -x: %+v ok %v err %v, want body 0 at T 8.5, point (1, 1, 2), normal +x", h, ok, err)
	}
	// Straight down past the box: the plane, where the sphere's bottom reaches y = -10.
	h, ok, _ = w.ShapeCast(ball, geom.Pose{P: Vec3{10, 1, 2}, Q: mgl32.QuatIdent()}, Vec3{0, -1, 0}, inf32, QueryFilter{})
	if !ok || h.Index != 1 || !closeTo(h.T, 10.5, 1e-5) {
		t.Errorf("sphere down: %+v ok %v, want the plane at T 10.5", h, ok)
	}
	// A box and a capsule cast onto the box's top face.
	for _, s := range []geom.Shape{{Kind: geom.Box, HalfExtents: Vec3{0.5, 0.25, 0.5}}, {Kind: geom.Capsule, Radius: 0.25, HalfHeight: 0.5}} {
		h, ok, _ := w.ShapeCast(s, geom.Pose{P: Vec3{0.3, 7, 0}, Q: mgl32.QuatIdent()}, Vec3{0, -1, 0}, inf32, QueryFilter{})
		want := 7 - 2 - s.Bounds(geom.Identity).Max[1]
		if !ok || h.Index != 0 || !closeTo(h.T, want, 1e-5) || h.Normal.Sub(Vec3{0, 1, 0}).Len() > 1e-6 {
			t.Errorf("%s down: %+v ok %v, want the box at T %v", s.Kind, h, ok, want)
		}
	}
	// A pose without a rotation is the identity: a turned box would reach the face sooner.
	long := geom.Shape{Kind: geom.Box, HalfExtents: Vec3{0.1, 1, 0.1}}
	if h, ok, _ := w.ShapeCast(long, geom.Pose{P: Vec3{0.3, 7, 0}}, Vec3{0, -1, 0}, inf32, QueryFilter{}); !ok || !closeTo(h.T, 4, 1e-5) {
		t.Errorf("an upright box with a zero rotation: %+v ok %v, want T 4", h, ok)
	}
	if hs, _ := w.Overlap(long, geom.Pose{P: Vec3{0.3, 3.1, 0}}, QueryFilter{}); len(hs) != 0 {
		t.Errorf("an upright box with a zero rotation 0.1 m above the face overlaps %v", hs)
	}
	if _, _, err := w.ShapeCast(geom.Shape{Kind: geom.Plane, Normal: Vec3{0, 1, 0}}, geom.Identity, Vec3{1, 0, 0}, 1, QueryFilter{}); err == nil {
		t.Error("a plane was swept without an error")
	}
	if _, err := w.Overlap(geom.Shape{Kind: geom.ConvexHull}, geom.Identity, QueryFilter{}); err == nil {
		t.Error("an overlap with a hull shape that has no hull ran")
	}
}

func TestOverlapReturnsTheBodiesTheShapeTouches(t *testing.T) {
	w := row(t, 6) // spheres of radius 1 at x = 0, 3, ..., 15; the floor at y = -5
	ident := mgl32.QuatIdent()
	cases := []struct {
		name  string
		shape geom.Shape
		pose  geom.Pose
		want  []int
	}{
		{"a sphere between two", geom.Shape{Kind: geom.Sphere, Radius: 0.6}, geom.Pose{P: Vec3{1.5, 0, 0}, Q: ident}, []int{0, 1}},
		{"a sphere just short of both", geom.Shape{Kind: geom.Sphere, Radius: 0.45}, geom.Pose{P: Vec3{1.5, 0, 0}, Q: ident}, nil},
		{"a long box across four, into the floor", geom.Shape{Kind: geom.Box, HalfExtents: Vec3{4.6, 3, 0.2}}, geom.Pose{P: Vec3{6, -2.5, 0}, Q: ident}, []int{1, 2, 3, 6}},
		{"a capsule standing on the floor", geom.Shape{Kind: geom.Capsule, Radius: 0.5, HalfHeight: 1}, geom.Pose{P: Vec3{1.5, -3.6, 0}, Q: ident}, []int{6}},
		{"a capsule lying through three", geom.Shape{Kind: geom.Capsule, Radius: 0.2, HalfHeight: 3}, geom.Pose{P: Vec3{9, 0.5, 0}, Q: mgl32.QuatRotate(math.Pi/2, Vec3{0, 0, 1})}, []int{2, 3, 4}},
	}
	for _, c := range cases {
		got, err := w.Overlap(c.shape, c.pose, QueryFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var want []Handle
		for _, i := range c.want {
			want = append(want, w.HandleAt(i))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", c.name, got, want)
		}
	}
}

// TestQueriesSeeTheWorldAsItIsNow: the cached tree follows steps, edits, removals and restores. Each
// check looks where a body is now and nowhere near where it was, so a stale tree would miss it.
func TestQueriesSeeTheWorldAsItIsNow(t *testing.T) {
	w := NewWorld(Settings{Gravity: Vec3{0, -10, 0}})
	ball := addBody(t, w, BodyDef{Name: "ball", Shape: geom.Shape{Kind: geom.Sphere, Radius: 1}, Position: Vec3{0, 10, 0}, Velocity: Vec3{10, 0, 0}})
	// down casts a ray straight down at x.
	down := func(x float32) (Hit, bool) { return w.RayCast(Vec3{x, 50, 0}, Vec3{0, -1, 0}, inf32, QueryFilter{}) }
	var saved State
	if err := w.SaveState(&saved); err != nil {
		t.Fatal(err)
	}
	if h, ok := down(0); !ok || !closeTo(h.T, 39, 1e-5) {
		t.Fatalf("before stepping: %+v", h)
	}
	for range 60 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	p := w.Bodies.Position[0]
	if h, ok := down(p[0]); !ok || !closeTo(h.T, 50-p[1]-1, 1e-4) || p[0] < 9 {
		t.Errorf("after flying to %v: %+v ok %v", p, h, ok)
	}
	if err := w.SetPose(ball, Vec3{-10, 20, 0}, mgl32.QuatIdent()); err != nil {
		t.Fatal(err)
	}
	if h, ok := down(-10); !ok || !closeTo(h.T, 29, 1e-5) {
		t.Errorf("after SetPose to (-10, 20, 0): %+v ok %v, want T 29", h, ok)
	}
	box := addBody(t, w, BodyDef{Shape: geom.Shape{Kind: geom.Box, HalfExtents: Vec3{1, 1, 1}}, Position: Vec3{20, 30, 0}})
	if h, ok := down(20); !ok || h.Body != box || !closeTo(h.T, 19, 1e-5) {
		t.Errorf("after adding a box at (20, 30, 0): %+v ok %v", h, ok)
	}
	if err := w.RemoveBody(ball); err != nil {
		t.Fatal(err)
	}
	if h, ok := down(-10); ok {
		t.Errorf("after removing the ball: %+v", h)
	}
	if h, ok := down(20); !ok || h.Body != box {
		t.Errorf("the box after removing the ball: %+v ok %v", h, ok)
	}
	if err := w.RestoreState(&saved); err != nil {
		t.Fatal(err)
	}
	if h, ok := down(0); !ok || !closeTo(h.T, 39, 1e-5) {
		t.Errorf("after restoring the state of step 0: %+v ok %v, want T 39", h, ok)
	}
	// Moved and queried at step 0, then restored to step 0: the same step count, other poses.
	ball = w.HandleAt(0)
	if err := w.SetPose(ball, Vec3{30, 10, 0}, mgl32.QuatIdent()); err != nil {
		t.Fatal(err)
	}
	if _, ok := down(30); !ok {
		t.Error("after SetPose at step 0: missed")
	}
	if err := w.RestoreState(&saved); err != nil {
		t.Fatal(err)
	}
	if h, ok := down(0); !ok || !closeTo(h.T, 39, 1e-5) {
		t.Errorf("after restoring step 0 over step 0: %+v ok %v, want T 39", h, ok)
	}
}

// shiftBackend is a Backend that moves every body up 1 m a step, where the World cannot see it until
// it pulls the state back.
type shiftBackend struct{ pulls, steps int }

func (f *shiftBackend) Name() string                                       { return "shift" }
func (f *shiftBackend) Capabilities() Capabilities                         { return CPUCapabilities() }
func (f *shiftBackend) Step(_ *World, _ *StepReport) error                 { f.steps++; return nil }
func (f *shiftBackend) Contacts(_ *World, o []ContactPoint) []ContactPoint { return o }
func (f *shiftBackend) Close()                                             {}
func (f *shiftBackend) Pull(w *World) error {
	f.pulls++
	for i := range w.Bodies.Position {
		w.Bodies.Position[i][1] = float32(f.steps)
	}
	return nil
}

// failBackend cannot read its state back.
type failBackend struct{ shiftBackend }

var errPull = errors.New("no read-back")

func (f *failBackend) Pull(*World) error { return errPull }

func TestQueriesReadTheBackendsBodiesBack(t *testing.T) {
	w := NewWorld(Settings{})
	addBody(t, w, BodyDef{Shape: geom.Shape{Kind: geom.Sphere, Radius: 1}})
	f := &shiftBackend{}
	if err := w.SetBackend(f); err != nil {
		t.Fatal(err)
	}
	for step := 1; step <= 3; step++ {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
		h, ok := w.RayCast(Vec3{0, 50, 0}, Vec3{0, -1, 0}, inf32, QueryFilter{})
		if !ok || !closeTo(h.T, 49-float32(step), 1e-5) || f.pulls != step {
			t.Errorf("step %d: T %v (want %v), %d pulls", step, h.T, 49-float32(step), f.pulls)
		}
		w.RayCastAll(Vec3{0, 50, 0}, Vec3{0, -1, 0}, inf32, QueryFilter{})
		if f.pulls != step {
			t.Errorf("step %d: a second query pulled again", step)
		}
	}
	// A read-back that fails leaves the query on the last bodies read and the next step says why.
	g := NewWorld(Settings{})
	addBody(t, g, BodyDef{Shape: geom.Shape{Kind: geom.Sphere, Radius: 1}})
	if err := g.SetBackend(&failBackend{}); err != nil {
		t.Fatal(err)
	}
	if err := g.Step(); err != nil {
		t.Fatal(err)
	}
	if _, ok := g.RayCast(Vec3{0, 50, 0}, Vec3{0, -1, 0}, inf32, QueryFilter{}); !ok {
		t.Error("no answer from the last bodies read")
	}
	if err := g.Step(); !errors.Is(err, errPull) {
		t.Errorf("the step after a failed read-back: %v, want %v", err, errPull)
	}
}

// randomWorld is n bodies of every kind scattered in a 60 m cube over a floor, some turned.
func randomWorld(t testing.TB, rng *rand.Rand, n int) *World {
	w := NewWorld(Settings{})
	rock, err := geom.NewHull([]Vec3{{-0.6, -0.4, -0.5}, {0.7, -0.3, -0.4}, {0.1, 0.6, -0.3}, {-0.2, 0.1, 0.8}, {0.5, 0.5, 0.5}, {-0.5, -0.6, 0.4}})
	if err != nil {
		t.Fatal(err)
	}
	terrain, err := geom.NewGridMesh(3, 4, func(x, z float32) float32 { return 0.3 * float32(math.Sin(float64(x+z))) })
	if err != nil {
		t.Fatal(err)
	}
	addBody(t, w, BodyDef{Type: Static, Shape: geom.Shape{Kind: geom.Plane, Normal: Vec3{0, 1, 0}, Offset: -31}})
	for range n - 1 {
		p := Vec3{rng.Float32()*60 - 30, rng.Float32()*60 - 30, rng.Float32()*60 - 30}
		q := mgl32.QuatRotate(rng.Float32()*6.3, Vec3{rng.Float32() - 0.5, rng.Float32() - 0.5, rng.Float32() - 0.5}.Normalize())
		d := BodyDef{Position: p, Rotation: q}
		switch rng.Intn(6) {
		case 0:
			d.Shape = geom.Shape{Kind: geom.Box, HalfExtents: Vec3{0.2 + rng.Float32(), 0.2 + rng.Float32(), 0.2 + rng.Float32()}}
		case 1:
			d.Shape = geom.Shape{Kind: geom.Sphere, Radius: 0.2 + rng.Float32()}
		case 2:
			d.Shape = geom.Shape{Kind: geom.Capsule, Radius: 0.2 + 0.5*rng.Float32(), HalfHeight: rng.Float32()}
		case 3, 4:
			d.Shape = geom.Shape{Kind: geom.ConvexHull, Hull: rock}
			d.Type = Kinematic
		case 5:
			// A terrain patch (6 m across) in one of ten of these: meshes are few and large.
			d.Shape, d.Type = geom.Shape{Kind: geom.Sphere, Radius: 0.5}, Static
			if rng.Intn(10) == 0 {
				d.Shape = geom.Shape{Kind: geom.TriMesh, Mesh: terrain}
			}
		}
		addBody(t, w, d)
	}
	return w
}

// bruteRay is RayCastAll by testing every body.
func bruteRay(w *World, o, d Vec3, maxDist float32, f QueryFilter) []Hit {
	var hits []Hit
	for i := range w.Bodies.Len() {
		if !w.admits(&f, i) {
			continue
		}
		if t, n, ok := collide.Ray(&w.Bodies.Shape[i], w.bodyPose(int32(i)), o, d.Normalize(), maxDist); ok {
			hits = append(hits, Hit{Body: w.HandleAt(i), Index: i, T: t, Normal: n})
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int { return cmp.Or(cmp.Compare(a.T, b.T), a.Index-b.Index) })
	return hits
}

// bruteNearest is RayCast by testing every body, the ray cut short at each hit.
func bruteNearest(w *World, o, d Vec3) bool {
	d, tmax, found := d.Normalize(), inf32, false
	for i := range w.Bodies.Len() {
		if t, _, ok := collide.Ray(&w.Bodies.Shape[i], w.bodyPose(int32(i)), o, d, tmax); ok {
			tmax, found = t, true
		}
	}
	return found
}

// TestQueriesThroughTheTreeAgreeWithABruteForceScan: on a random world of 1,000 bodies of every kind,
// rays, all-hits rays, shape casts and overlaps through the tree give what testing every body gives.
func TestQueriesThroughTheTreeAgreeWithABruteForceScan(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	w := randomWorld(t, rng, 1000)
	var excluded Handle
	filters := []QueryFilter{{}, {Types: TypesOf(Dynamic, Static)}, {Accept: func(h Handle) bool { return h.Index%3 != 0 }}}
	hitsSeen, castsSeen, overlapsSeen := 0, 0, 0
	for q := range 300 {
		f := filters[q%len(filters)]
		o := Vec3{rng.Float32()*80 - 40, rng.Float32()*80 - 40, rng.Float32()*80 - 40}
		d := Vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}
		maxDist := inf32
		if q%4 == 0 {
			maxDist = 30
		}
		if q%5 == 0 {
			f.Exclude = excluded
		}
		all := w.RayCastAll(o, d, maxDist, f)
		want := bruteRay(w, o, d, maxDist, f)
		if len(all) != len(want) {
			t.Fatalf("ray %d: %d hits through the tree, %d by the scan", q, len(all), len(want))
		}
		for k := range all {
			if all[k].Index != want[k].Index || all[k].T != want[k].T || all[k].Normal != want[k].Normal {
				t.Fatalf("ray %d, hit %d: %+v, the scan %+v", q, k, all[k], want[k])
			}
		}
		h, ok := w.RayCast(o, d, maxDist, f)
		if ok != (len(want) > 0) || ok && (h.T != want[0].T || h.Index != want[0].Index) {
			t.Fatalf("ray %d: nearest %+v ok %v, the scan %v", q, h, ok, want)
		}
		if ok {
			hitsSeen++
			excluded = h.Body
		}

		// A shape cast: the nearest of every body's own cast.
		shapes := []geom.Shape{{Kind: geom.Sphere, Radius: 0.7}, {Kind: geom.Box, HalfExtents: Vec3{0.5, 1, 0.3}}, {Kind: geom.Capsule, Radius: 0.3, HalfHeight: 0.8}, w.Bodies.Shape[1+q%50]}
		s := shapes[q%len(shapes)]
		if !collide.Castable(s.Kind) {
			s = shapes[0]
		}
		pose := geom.Pose{P: o, Q: mgl32.QuatRotate(float32(q), Vec3{0, 1, 0})}
		sh, sok, err := w.ShapeCast(s, pose, d, maxDist, f)
		if err != nil {
			t.Fatal(err)
		}
		best, found := Hit{T: maxDist}, false
		for i := range w.Bodies.Len() {
			if w.admits(&f, i) {
				if c, ok := collide.Cast(&s, pose, d.Normalize(), maxDist, &w.Bodies.Shape[i], w.bodyPose(int32(i))); ok && (!found || c.T < best.T) {
					best, found = Hit{Index: i, T: c.T}, true
				}
			}
		}
		if sok != found || sok && (sh.T != best.T || sh.Index != best.Index) {
			t.Fatalf("cast %d (%s): %+v ok %v, the scan %+v ok %v", q, s.Kind, sh, sok, best, found)
		}
		if sok {
			castsSeen++
		}

		// An overlap at the ray's origin, grown so that it often meets something.
		big := geom.Shape{Kind: geom.Sphere, Radius: 4}
		got, err := w.Overlap(big, pose, f)
		if err != nil {
			t.Fatal(err)
		}
		var brute []Handle
		for i := range w.Bodies.Len() {
			if w.admits(&f, i) && collide.Overlaps(&big, pose, &w.Bodies.Shape[i], w.bodyPose(int32(i))) {
				brute = append(brute, w.HandleAt(i))
			}
		}
		if !slices.Equal(got, brute) {
			t.Fatalf("overlap %d: %v, the scan %v", q, got, brute)
		}
		overlapsSeen += len(got)
	}
	if hitsSeen < 50 || castsSeen < 50 || overlapsSeen < 100 {
		t.Errorf("the random queries found too little to compare: %d ray hits, %d cast hits, %d overlaps", hitsSeen, castsSeen, overlapsSeen)
	}
}

// BenchmarkRayCast casts random rays through a world of 10,000 bodies of every kind (the tree built
// once, as between two steps): ns/ray is the time of one closest-hit ray through the tree, and, for
// scale, through a scan that tests every body.
func BenchmarkRayCast(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	w := randomWorld(b, rng, 10000)
	rays := make([][2]Vec3, 1024)
	for i := range rays {
		rays[i] = [2]Vec3{{rng.Float32()*80 - 40, rng.Float32()*80 - 40, rng.Float32()*80 - 40}, {rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}}
	}
	w.RayCast(rays[0][0], rays[0][1], inf32, QueryFilter{})
	for _, c := range []struct {
		name string
		cast func(o, d Vec3) bool
	}{
		{"tree", func(o, d Vec3) bool { _, ok := w.RayCast(o, d, inf32, QueryFilter{}); return ok }},
		{"scan", func(o, d Vec3) bool { return bruteNearest(w, o, d) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			hits := 0
			for i := range b.N {
				if r := rays[i%len(rays)]; c.cast(r[0], r[1]) {
					hits++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/ray")
			b.ReportMetric(float64(hits)/float64(b.N), "hits/ray")
		})
	}
}

// TestRayCastBodyAgreesWithRayCastAllBodyByBody: on a random world of 300 bodies of every kind, a
// ray against one body hits exactly the bodies RayCastAll lists, at the same distance, point, normal
// and shape, and misses the others; a gone handle and a zero direction hit nothing.
func TestRayCastBodyAgreesWithRayCastAllBodyByBody(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	w := randomWorld(t, rng, 300)
	hitsSeen := 0
	for q := range 40 {
		o := Vec3{rng.Float32()*80 - 40, rng.Float32()*80 - 40, rng.Float32()*80 - 40}
		d := w.Bodies.Position[1+rng.Intn(w.Bodies.Len()-1)].Sub(o) // at a body's centre: each ray hits
		maxDist := inf32
		if q%4 == 0 {
			maxDist = 30
		}
		want := map[Handle]Hit{}
		for _, h := range w.RayCastAll(o, d, maxDist, QueryFilter{}) {
			want[h.Body] = h
		}
		for i := range w.Bodies.Len() {
			h := w.HandleAt(i)
			got, ok := w.RayCastBody(h, o, d, maxDist)
			wh, wok := want[h]
			if ok != wok || ok && (got.T != wh.T || got.Point != wh.Point || got.Normal != wh.Normal || got.Child != wh.Child || got.Index != i || got.Body != h) {
				t.Fatalf("ray %d, body %d: %+v %v, RayCastAll %+v %v", q, i, got, ok, wh, wok)
			}
			if ok {
				hitsSeen++
			}
		}
	}
	if hitsSeen < 40 {
		t.Fatalf("only %d body hits: the rays test little", hitsSeen)
	}
	h := w.HandleAt(1)
	if _, ok := w.RayCastBody(h, w.Bodies.Position[1].Add(Vec3{0, 10, 0}), Vec3{}, inf32); ok {
		t.Error("a zero direction hit")
	}
	if err := w.RemoveBody(h); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.RayCastBody(h, Vec3{0, 50, 0}, Vec3{0, -1, 0}, inf32); ok {
		t.Error("a removed body was hit")
	}
}
