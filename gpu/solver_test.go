package gpu

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
	"tumble/sim/collide"
	"tumble/sim/geom"
)

// The solver stage is checked against the CPU step (Solver: sim.Jacobi) scene by scene: the GPU side
// gets its contacts from the host, computed exactly as the CPU step computes them from the GPU's current
// state, so any difference in the trajectories comes from the solver and integration kernels.
//
// Tolerances: the emulated kernels do the CPU's float32 arithmetic in the CPU's order (the accumulators
// are summed by atomics in manifold order, which is the CPU's gather order), and the trajectories agree
// bit for bit (measured: a largest difference of 0 in every scene here). The bounds, 1e-4 m for short
// runs and 1e-3 m for the long and chaotic ones (velocities ten times that, in m/s), leave room for a
// change of summation order or of floating-point contraction (a real GPU's atomics, nvcc's fused
// multiply-adds, a host compiler using FMA), whose last-bit differences a stack or a pile amplifies,
// while a wrong index or a missing term moves bodies by centimetres within a few steps (each kernel's
// index mutations were checked to fail these tests).

// hostContacts is the CPU step's collision stages for state b: bounds with half the speculative
// distance, every overlapping pair with a dynamic body, sorted by (a, b), and the narrow phase with the
// CPU's margin (speculative distance plus the pair's relative motion this step).
func hostContacts(s *sim.Settings, b *sim.Bodies) []tbContact {
	n := b.Len()
	boxes := make([]geom.AABB, n)
	for i := range boxes {
		boxes[i] = sim.BodyBounds(b, i, s.Dt, 0.5*s.Speculative)
	}
	var out []tbContact
	for ia := 0; ia < n; ia++ {
		for ib := ia + 1; ib < n; ib++ {
			if (b.Type[ia] != sim.Dynamic && b.Type[ib] != sim.Dynamic) || !boxes[ia].Overlaps(boxes[ib]) {
				continue
			}
			dt := s.Dt
			rel := b.Velocity[ib].Sub(b.Velocity[ia]).Len()*dt +
				(b.AngularVelocity[ia].Len()*sim.BoundingRadius(&b.Shape[ia])+
					b.AngularVelocity[ib].Len()*sim.BoundingRadius(&b.Shape[ib]))*dt
			var m collide.Manifold
			collide.Collide(&b.Shape[ia], geom.Pose{P: b.Position[ia], Q: b.Rotation[ia]},
				&b.Shape[ib], geom.Pose{P: b.Position[ib], Q: b.Rotation[ib]}, s.Speculative+rel, &m)
			if m.Count == 0 {
				continue
			}
			c := tbContact{A: int32(ia), B: int32(ib), Count: int32(m.Count), NX: m.Normal[0], NY: m.Normal[1], NZ: m.Normal[2]}
			for k := 0; k < m.Count; k++ {
				p := m.Points[k]
				c.Pts[k] = tbPoint{PX: p.Position[0], PY: p.Position[1], PZ: p.Position[2], Sep: p.Separation, ID: p.ID}
			}
			out = append(out, c)
		}
	}
	return out
}

// solverRig runs one scene twice: on the CPU (cpu) and through the solver stage on the emulated device,
// whose state is mirrored into host (a world that is never stepped) to compute its contacts.
type solverRig struct {
	t        testing.TB
	d        device
	cpu      *sim.World
	host     *sim.World
	bb       *bodyBuffers
	st       solverStage
	c        stepConsts
	contacts buffer
	count    buffer
	capacity int
}

func newSolverRig(t testing.TB, s sim.Settings, defs []sim.BodyDef) *solverRig {
	t.Helper()
	s.Solver = sim.Jacobi
	r := &solverRig{t: t, d: emulated{}, cpu: sim.NewWorld(s), host: sim.NewWorld(s), capacity: 64}
	for _, def := range defs {
		if _, err := r.cpu.AddBody(def); err != nil {
			t.Fatal(err)
		}
		if _, err := r.host.AddBody(def); err != nil {
			t.Fatal(err)
		}
	}
	r.c = makeConsts(r.cpu.Resolved())
	r.bb = testBodies(t, r.d, &r.host.Bodies)
	must(t, grow(r.d, &r.contacts, r.capacity*int(unsafe.Sizeof(tbContact{}))), grow(r.d, &r.count, 4),
		r.st.reserve(r.d, r.bb.n, r.capacity))
	t.Cleanup(func() {
		r.st.release(r.d)
		r.bb.release(r.d)
		release(r.d, &r.contacts)
		release(r.d, &r.count)
		r.cpu.Close()
		r.host.Close()
	})
	return r
}

// pull copies the device's body state into the host world.
func (r *solverRig) pull() {
	n := r.bb.n
	pos, rot, vel, om := make([]float4, n), make([]float4, n), make([]float4, n), make([]float4, n)
	must(r.t, downloadSlice(r.d, pos, r.bb.pos.p), downloadSlice(r.d, rot, r.bb.rot.p),
		downloadSlice(r.d, vel, r.bb.vel.p), downloadSlice(r.d, om, r.bb.omega.p))
	b := &r.host.Bodies
	for i := 0; i < n; i++ {
		b.Position[i] = sim.Vec3{pos[i].X, pos[i].Y, pos[i].Z}
		b.Rotation[i] = mgl32.Quat{W: rot[i].W, V: sim.Vec3{rot[i].X, rot[i].Y, rot[i].Z}}
		b.Velocity[i] = sim.Vec3{vel[i].X, vel[i].Y, vel[i].Z}
		b.AngularVelocity[i] = sim.Vec3{om[i].X, om[i].Y, om[i].Z}
	}
}

// step advances both worlds by one step; the host world holds the device's state afterwards. It
// returns the device's blow-up index.
func (r *solverRig) step() int32 {
	t := r.t
	t.Helper()
	if err := r.cpu.Step(); err != nil {
		t.Fatal(err)
	}
	s := r.cpu.Resolved()
	cs := hostContacts(&s, &r.host.Bodies)
	if len(cs) > r.capacity {
		t.Fatalf("%d contacts, capacity %d", len(cs), r.capacity)
	}
	must(t, uploadSlice(r.d, r.contacts.p, cs), uploadSlice(r.d, r.count.p, []int32{int32(len(cs))}),
		solverStep(&r.st, r.d, r.bb, r.contacts.p, r.count.p, r.capacity, nil, &r.c))
	var bad [1]int32
	must(t, downloadSlice(r.d, bad[:], r.st.blowUp()))
	r.pull()
	return bad[0]
}

// diff returns the largest difference between the two worlds' positions (m) and velocities (m/s),
// and the body where the position differs most.
func (r *solverRig) diff() (dx, dv float64, worst int) {
	a, b := &r.cpu.Bodies, &r.host.Bodies
	for i := 0; i < a.Len(); i++ {
		if x := float64(a.Position[i].Sub(b.Position[i]).Len()); x > dx || math.IsNaN(x) {
			dx, worst = x, i
		}
		q := float64(a.Rotation[i].Sub(b.Rotation[i]).Len())
		dx = math.Max(dx, q) // a rotation difference of q moves a point at 1 m by about 2q
		dv = math.Max(dv, float64(a.Velocity[i].Sub(b.Velocity[i]).Len()))
		dv = math.Max(dv, float64(a.AngularVelocity[i].Sub(b.AngularVelocity[i]).Len()))
	}
	return
}

// run steps the scene, failing as soon as the worlds differ by more than tol (m, m/s) or the device
// reports a blow-up.
func (r *solverRig) run(steps int, tol float64) (maxDx float64) {
	t := r.t
	t.Helper()
	for k := 0; k < steps; k++ {
		if bad := r.step(); bad != -1 {
			t.Fatalf("step %d: device reports body %d blew up", k, bad)
		}
		dx, dv, worst := r.diff()
		maxDx = math.Max(maxDx, dx)
		if !(dx <= tol && dv <= 10*tol) {
			t.Fatalf("step %d: GPU and CPU differ by %.3g m, %.3g m/s (body %d: CPU %v, GPU %v)", k, dx, dv, worst,
				r.cpu.Bodies.Position[worst], r.host.Bodies.Position[worst])
		}
	}
	return maxDx
}

func ground(friction, restitution float32) sim.BodyDef {
	return sim.BodyDef{Name: "ground", Type: sim.Static, Friction: friction, Restitution: restitution,
		Shape: geom.Shape{Kind: geom.Plane, Normal: sim.Vec3{0, 1, 0}}}
}

func box(name string, p sim.Vec3, h float32) sim.BodyDef {
	return sim.BodyDef{Name: name, Position: p, Friction: 0.6,
		Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{h, h, h}}}
}

var earth = sim.Vec3{0, -9.81, 0}

func TestSolverBoxRestsOnPlane(t *testing.T) {
	r := newSolverRig(t, sim.Settings{Gravity: earth}, []sim.BodyDef{ground(0.6, 0), box("box", sim.Vec3{0, 0.52, 0}, 0.5)})
	dx := r.run(120, 1e-4)
	y := r.host.Bodies.Position[1][1]
	if math.Abs(float64(y)-0.5) > 0.01 || r.host.Bodies.Velocity[1].Len() > 1e-2 {
		t.Errorf("box at y = %v, v = %v: want resting at 0.5", y, r.host.Bodies.Velocity[1])
	}
	t.Logf("max position difference %.3g m", dx)
}

// TestSolverStackOfFiveStandsAndMatches: 600 steps (10 s) of a 5-box stack, the test of warm starting,
// relax, friction anchors and mass splitting together. 1e-3 m: the brief's bound for a long run.
func TestSolverStackOfFiveStandsAndMatches(t *testing.T) {
	defs := []sim.BodyDef{ground(0.6, 0)}
	for i := 0; i < 5; i++ {
		defs = append(defs, box("", sim.Vec3{0.01 * float32(i%2), 0.5 + float32(i)*1.001, 0}, 0.5))
	}
	r := newSolverRig(t, sim.Settings{Gravity: earth}, defs)
	dx := r.run(600, 1e-3)
	top := r.host.Bodies.Position[5]
	if math.Abs(float64(top[0])-0) > 0.05 || top[1] < 4.4 {
		t.Errorf("top box at %v: the stack did not stand", top)
	}
	t.Logf("max position difference %.3g m over 600 steps", dx)
}

func TestSolverPyramidMatches(t *testing.T) {
	defs := []sim.BodyDef{ground(0.6, 0)}
	for row := 0; row < 3; row++ {
		for i := 0; i < 3-row; i++ {
			x := (float32(i) - float32(2-row)*0.5) * 1.05
			defs = append(defs, box("", sim.Vec3{x, 0.5 + float32(row), 0}, 0.5))
		}
	}
	r := newSolverRig(t, sim.Settings{Gravity: earth}, defs)
	dx := r.run(200, 1e-3)
	if apex := r.host.Bodies.Position[len(defs)-1]; apex[1] < 2.4 {
		t.Errorf("apex at %v: the pyramid fell", apex)
	}
	t.Logf("max position difference %.3g m", dx)
}

// TestSolverSphereBouncesWithRestitution drops a sphere with restitution 0.5 from 2 m and compares the
// apexes of its bounces: each is about e^2 = 1/4 of the previous drop on both sides.
func TestSolverSphereBouncesWithRestitution(t *testing.T) {
	ball := sim.BodyDef{Name: "ball", Position: sim.Vec3{0, 2.5, 0}, Restitution: 0.5, Friction: 0.5,
		Shape: geom.Shape{Kind: geom.Sphere, Radius: 0.5}}
	r := newSolverRig(t, sim.Settings{Gravity: earth}, []sim.BodyDef{ground(0.5, 0.5), ball})
	var apexCPU, apexGPU []float32
	prevCPU, prevGPU := float32(0), float32(0)
	for k := 0; k < 150; k++ {
		if bad := r.step(); bad != -1 {
			t.Fatalf("blow-up at body %d", bad)
		}
		vc, vg := r.cpu.Bodies.Velocity[1][1], r.host.Bodies.Velocity[1][1]
		if prevCPU > 0 && vc <= 0 {
			apexCPU = append(apexCPU, r.cpu.Bodies.Position[1][1])
		}
		if prevGPU > 0 && vg <= 0 {
			apexGPU = append(apexGPU, r.host.Bodies.Position[1][1])
		}
		prevCPU, prevGPU = vc, vg
		if dx, _, _ := r.diff(); dx > 1e-3 {
			t.Fatalf("step %d: differ by %.3g m", k, dx)
		}
	}
	if len(apexGPU) < 2 || len(apexGPU) != len(apexCPU) {
		t.Fatalf("apexes: GPU %v, CPU %v", apexGPU, apexCPU)
	}
	for i := range apexGPU {
		if math.Abs(float64(apexGPU[i]-apexCPU[i])) > 1e-3 {
			t.Errorf("apex %d: GPU %.4f m, CPU %.4f m", i, apexGPU[i], apexCPU[i])
		}
	}
	if h := apexGPU[0] - 0.5; h < 0.35 || h > 0.65 {
		t.Errorf("first bounce rises %.3f m above rest, want about 2 m e^2 = 0.5", h)
	}
	t.Logf("apex heights GPU %v CPU %v", apexGPU, apexCPU)
}

// TestSolverBoxSlidesToRest: a box launched at 3 m/s along a plane with friction 0.5 stops after
// v^2 / (2 mu g) = 0.92 m, on both sides.
func TestSolverBoxSlidesToRest(t *testing.T) {
	b := box("slider", sim.Vec3{0, 0.5, 0}, 0.5)
	b.Velocity = sim.Vec3{3, 0, 0}
	b.Friction = 0.5
	r := newSolverRig(t, sim.Settings{Gravity: earth}, []sim.BodyDef{ground(0.5, 0), b})
	r.run(90, 1e-4)
	p, v := r.host.Bodies.Position[1], r.host.Bodies.Velocity[1]
	if v.Len() > 1e-2 || math.Abs(float64(p[0])-0.917) > 0.1 {
		t.Errorf("slider at x = %.3f m, v = %v: want at rest near 0.92 m", p[0], v)
	}
}

// TestSolverFreeSpinKeepsAngularMomentum: a free box with three different moments spinning about an
// axis near the unstable middle one; the implicit-midpoint gyroscopic step keeps |L| on both sides and
// the two trajectories agree.
func TestSolverFreeSpinKeepsAngularMomentum(t *testing.T) {
	b := sim.BodyDef{Name: "handle", Position: sim.Vec3{0, 3, 0}, AngularVelocity: sim.Vec3{0.1, 6, 0.1},
		Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.1, 0.4, 0.8}}}
	r := newSolverRig(t, sim.Settings{}, []sim.BodyDef{b})
	L := func(w *sim.World) float64 {
		bd := &w.Bodies
		q := bd.Rotation[0]
		wl := q.Inverse().Rotate(bd.AngularVelocity[0])
		inv := bd.InvInertiaLocal[0]
		l := sim.Vec3{wl[0] / inv[0], wl[1] / inv[1], wl[2] / inv[2]}
		return float64(l.Len())
	}
	l0 := L(r.host)
	r.run(240, 1e-4)
	if l := L(r.host); math.Abs(l-l0) > 1e-3*l0 {
		t.Errorf("|L| went from %.5g to %.5g", l0, l)
	}
	if lc, lg := L(r.cpu), L(r.host); math.Abs(lc-lg) > 1e-4*lc {
		t.Errorf("|L|: CPU %.6g, GPU %.6g", lc, lg)
	}
}

// TestSolverKinematicCarriesBox: a kinematic platform moving at 1 m/s carries a box by friction; the
// platform is moved, never pushed, on both sides.
func TestSolverKinematicCarriesBox(t *testing.T) {
	plat := sim.BodyDef{Name: "platform", Type: sim.Kinematic, Position: sim.Vec3{0, 0.25, 0}, Velocity: sim.Vec3{1, 0, 0},
		Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{3, 0.25, 3}}, Friction: 0.8}
	r := newSolverRig(t, sim.Settings{Gravity: earth}, []sim.BodyDef{plat, box("rider", sim.Vec3{0, 1.0, 0}, 0.5)})
	r.run(90, 1e-4)
	if v := r.host.Bodies.Velocity[1]; math.Abs(float64(v[0])-1) > 0.02 {
		t.Errorf("rider moves at %v, want carried at 1 m/s", v)
	}
	if p := r.host.Bodies.Position[0]; math.Abs(float64(p[0])-1.5) > 1e-4 || p[1] != 0.25 {
		t.Errorf("platform at %v, want (1.5, 0.25, 0)", p)
	}
}

// TestSolverHonoursSettings runs a 3-box stack with each switch the solver honours, against the CPU.
func TestSolverHonoursSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    sim.Settings
	}{
		{"NoWarmStart", sim.Settings{NoWarmStart: true}},
		{"NoFriction", sim.Settings{NoFriction: true}},
		{"NoRelax", sim.Settings{NoRelax: true}},
		{"NoRestitution", sim.Settings{NoRestitution: true}},
		{"Iterations3Substeps4", sim.Settings{Iterations: 3, Substeps: 4, RelaxIterations: 1}},
		{"SoftContacts", sim.Settings{ContactHertz: 30, DampingRatio: 1, MaxPushOut: 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			s.Gravity = sim.Vec3{0.5, -9.81, 0}
			defs := []sim.BodyDef{ground(0.6, 0.3)}
			for i := 0; i < 3; i++ {
				d := box("", sim.Vec3{0.05 * float32(i), 0.6 + float32(i)*1.02, 0}, 0.5)
				d.Restitution = 0.4
				d.Velocity = sim.Vec3{0, -2, 0}
				defs = append(defs, d)
			}
			r := newSolverRig(t, s, defs)
			r.run(40, 1e-4)
		})
	}
}

// TestSolverContactsMatchCPU: readContacts reports last step's points as World.Contacts does.
func TestSolverContactsMatchCPU(t *testing.T) {
	defs := []sim.BodyDef{ground(0.6, 0)}
	for i := 0; i < 3; i++ {
		// Turned about y by different angles, so that each body's frame matters.
		b := box("", sim.Vec3{0.1 * float32(i), 0.5 + float32(i)*1.001, 0}, 0.5)
		b.Rotation = mgl32.QuatRotate(0.3*float32(i), sim.Vec3{0, 1, 0})
		defs = append(defs, b)
	}
	r := newSolverRig(t, sim.Settings{Gravity: sim.Vec3{1, -9.81, 0}}, defs)
	r.run(30, 1e-4)
	want := r.cpu.Contacts(nil)
	got, err := r.st.readContacts(r.d, r.bb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) < 12 {
		t.Fatalf("%d contacts, CPU %d (want at least 4 per touching pair)", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.BodyA != w.BodyA || g.BodyB != w.BodyB || g.Position.Sub(w.Position).Len() > 1e-4 ||
			g.Normal.Sub(w.Normal).Len() > 1e-6 || math.Abs(float64(g.Separation-w.Separation)) > 1e-4 ||
			math.Abs(float64(g.NormalImpulse-w.NormalImpulse)) > 1e-3*math.Abs(float64(w.NormalImpulse))+1e-5 ||
			g.FrictionImpulse.Sub(w.FrictionImpulse).Len() > 1e-3*w.FrictionImpulse.Len()+1e-5 {
			t.Errorf("contact %d: GPU %+v\nCPU %+v", i, g, w)
		}
	}
	r.st.forget()
	if got, _ := r.st.readContacts(r.d, r.bb, nil); len(got) != 0 {
		t.Errorf("after forget: %d contacts, want none", len(got))
	}
}

// TestSolverBlowUpNamesFirstBadBody: the blow-up index is the first non-static body that is non-finite
// or faster than MaxLinearSpeed, and -1 when none is, from the per-pass kernels and from the small
// path's one launch (small.go).
func TestSolverBlowUpNamesFirstBadBody(t *testing.T) {
	for _, small := range []bool{false, true} {
		checkBlowUp(t, small)
	}
}

func checkBlowUp(t *testing.T, small bool) {
	d := emulated{}
	mk := func(v sim.Vec3) sim.BodyDef {
		b := box("", sim.Vec3{}, 0.5)
		b.Velocity = v
		return b
	}
	for _, tc := range []struct {
		name string
		vel  []sim.Vec3
		want int32
	}{
		{"none", []sim.Vec3{{1, 0, 0}, {0, 5, 0}, {0, 0, 1}}, -1},
		{"fast", []sim.Vec3{{1, 0, 0}, {0, 200, 0}, {0, 300, 0}}, 1},
		{"nan", []sim.Vec3{{1, 0, 0}, {0, 0, 0}, {1, 0, 0}}, 2}, // body 2's x becomes NaN below
	} {
		w := sim.NewWorld(sim.Settings{MaxLinearSpeed: 100, Solver: sim.Jacobi})
		defs := []sim.BodyDef{{Name: "wall", Type: sim.Static, Position: sim.Vec3{50, 0, 0}, Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{1, 1, 1}}}}
		for i, v := range tc.vel {
			b := mk(v)
			b.Position = sim.Vec3{0, 0, 10 * float32(i)}
			defs = append(defs, b)
		}
		for _, def := range defs {
			if _, err := w.AddBody(def); err != nil {
				t.Fatal(err)
			}
		}
		if tc.name == "nan" {
			w.Bodies.Position[3][0] = float32(math.NaN()) // AddBody refuses it: set it as a blow-up would
		}
		bb := testBodies(t, d, &w.Bodies)
		st := solverStage{small: small}
		var count buffer
		must(t, grow(d, &count, 4), d.zero(count.p, 4))
		c := makeConsts(w.Resolved())
		must(t, solverStep(&st, d, bb, 0, count.p, 1, nil, &c))
		var bad [1]int32
		must(t, downloadSlice(d, bad[:], st.blowUp()))
		if want := tc.want; want >= 0 {
			want++ // the static wall is body 0
			tc.want = want
		}
		if bad[0] != tc.want {
			t.Errorf("%s (small path %v): blow-up index %d, want %d", tc.name, small, bad[0], tc.want)
		}
		st.release(d)
		release(d, &count)
		bb.release(d)
		w.Close()
	}
}

// TestSolverLayouts checks the Go mirrors' sizes of solver.cu's structures against the sizes the kernel
// reports (TestLayoutsMatchC checks every field; this goes through a launch, so on a GPU it checks
// nvcc's layout).
func TestSolverLayouts(t *testing.T) {
	d := emulated{}
	var b buffer
	must(t, grow(d, &b, 8), kernelSet{d}.solverSizes(1, 1, solverSizesArgs{Out: b.p}))
	defer release(d, &b)
	var sz [2]int32
	must(t, downloadSlice(d, sz[:], b.p))
	if want := [2]int32{int32(unsafe.Sizeof(tbSolverManifold{})), int32(unsafe.Sizeof(tbContactOut{}))}; sz != want {
		t.Errorf("sizeof TbSolverManifold, TbContactOut = %v in the kernel, %v in Go", sz, want)
	}
}

// TestSolverGrowingKeepsWarmStart: reserving more manifolds mid-run keeps last step's manifolds, so the
// next step still warm starts as the CPU's does (losing them shows as a difference right away).
func TestSolverGrowingKeepsWarmStart(t *testing.T) {
	defs := []sim.BodyDef{ground(0.6, 0)}
	for i := 0; i < 3; i++ {
		defs = append(defs, box("", sim.Vec3{0.02 * float32(i), 0.5 + float32(i)*1.001, 0}, 0.5))
	}
	r := newSolverRig(t, sim.Settings{Gravity: earth}, defs)
	r.run(20, 1e-4)
	for _, c := range []int{200, 1000} {
		r.capacity = c
		must(t, grow(r.d, &r.contacts, c*int(unsafe.Sizeof(tbContact{}))), r.st.reserve(r.d, r.bb.n, c))
		r.run(3, 1e-6)
	}
}

// TestSolverIgnoresContactsPastCapacity: a counter past the capacity (the narrow phase overflowed)
// makes the solver use the first capacity contacts and write nothing beyond them.
func TestSolverIgnoresContactsPastCapacity(t *testing.T) {
	d := emulated{}
	w := sim.NewWorld(sim.Settings{Solver: sim.Jacobi, Gravity: earth})
	defer w.Close()
	for _, def := range []sim.BodyDef{ground(0.5, 0), box("a", sim.Vec3{0, 0.49, 0}, 0.5), box("b", sim.Vec3{3, 0.49, 0}, 0.5)} {
		if _, err := w.AddBody(def); err != nil {
			t.Fatal(err)
		}
	}
	bb := testBodies(t, d, &w.Bodies)
	defer bb.release(d)
	s := w.Resolved()
	cs := hostContacts(&s, &w.Bodies)
	if len(cs) != 2 {
		t.Fatalf("%d contacts, want 2", len(cs))
	}
	var st solverStage
	defer st.release(d)
	var contacts, count buffer
	defer release(d, &contacts)
	defer release(d, &count)
	must(t, grow(d, &contacts, int(unsafe.Sizeof(tbContact{}))), uploadSlice(d, contacts.p, cs[:1]),
		grow(d, &count, 4), uploadSlice(d, count.p, []int32{7}))
	c := makeConsts(s)
	must(t, solverStep(&st, d, bb, contacts.p, count.p, 1, nil, &c))
	got, err := st.readContacts(d, bb, nil)
	must(t, err)
	if len(got) != 4 || got[0].BodyB != 1 {
		t.Errorf("kept %d contact points (first %+v), want body 1's 4", len(got), got)
	}
	var pos []float4 = make([]float4, 3)
	must(t, downloadSlice(d, pos, bb.pos.p))
	if pos[1].Y < 0.49 || pos[2].Y > 0.49 {
		t.Errorf("box a at y %.4f (held by its contact), box b at %.4f (falls freely): want a >= 0.49 > b", pos[1].Y, pos[2].Y)
	}
}

// hookLog is a jointHooks that records when the solver calls it, and checks what it is given.
type hookLog struct {
	t     *testing.T
	calls []string
	split []uint32
	imp   buffer // three float4 per joint: the records the hook writes
	list  buffer // the hook's joint lists: start (n+1 int32) then adj
}

func (h *hookLog) count(d device, b *bodyBuffers, split ptr) error {
	h.calls = append(h.calls, "count")
	h.split = make([]uint32, b.n)
	must(h.t, downloadSlice(d, h.split, split))
	h.split[1] += 2 // two joints on body 1
	return uploadSlice(d, split, h.split)
}

func (h *hookLog) prepare(d device, b *bodyBuffers, split ptr, c *stepConsts) error {
	h.calls = append(h.calls, "prepare")
	got := make([]uint32, b.n)
	must(h.t, downloadSlice(d, got, split))
	if got[1] != h.split[1] {
		h.t.Errorf("prepare sees split %v, want %v", got, h.split)
	}
	return nil
}

func (h *hookLog) refresh(d device, b *bodyBuffers, c *stepConsts) error {
	h.calls = append(h.calls, "refresh")
	return nil
}

func (h *hookLog) warmStart(d device, b *bodyBuffers, c *stepConsts) error {
	h.calls = append(h.calls, "warm")
	imp, _, _ := h.lists()
	return uploadSlice(d, imp, make([]float4, 3)) // nothing to warm start
}

// solve records an impulse of 1 N s along x on body 1 (side b of its one joint) in every pass: the
// solver must gather it.
func (h *hookLog) solve(d device, b *bodyBuffers, c *stepConsts, useBias bool) error {
	h.calls = append(h.calls, map[bool]string{true: "solve", false: "relax"}[useBias])
	imp, _, _ := h.lists()
	return uploadSlice(d, imp, []float4{{1, 0, 0, 0}, {}, {}})
}

// lists: one joint, between the static ground (body 0, side a) and body 1 (side b).
func (h *hookLog) colour(d device, b *bodyBuffers, g *colouring, needed ptr) error {
	h.calls = append(h.calls, "colour")
	return nil
}

func (h *hookLog) gsPass(d device, b *bodyBuffers, c *stepConsts, g *colouring, useBias bool) error {
	h.calls = append(h.calls, map[bool]string{true: "gs solve", false: "gs relax"}[useBias])
	return nil
}

// rows: the hook keeps no joint array; the solver stages here never take the small path.
func (h *hookLog) rows() (joints ptr, n int, force ptr) { return 0, 0, 0 }

func (h *hookLog) lists() (imp, start, adj ptr) {
	d := emulated{}
	if h.imp.p == 0 {
		must(h.t, grow(d, &h.imp, 3*sizeFloat4), grow(d, &h.list, 4*5))
		must(h.t, uploadSlice(d, h.imp.p, make([]float4, 3)), uploadSlice(d, h.list.p, []int32{0, 1, 2, 0, 1}))
	}
	return h.imp.p, h.list.p, h.list.p + 3*4
}

// TestSolverCallsJointHooksInOrder: the joint hooks run where the CPU step handles joints, they see the
// contact split counts, and the impulses they record are gathered into the bodies.
func TestSolverCallsJointHooksInOrder(t *testing.T) {
	d := emulated{}
	w := sim.NewWorld(sim.Settings{Solver: sim.Jacobi, Substeps: 2, Iterations: 2, RelaxIterations: 1})
	defer w.Close()
	for _, def := range []sim.BodyDef{ground(0.5, 0), box("a", sim.Vec3{0, 0.49, 0}, 0.5)} {
		if _, err := w.AddBody(def); err != nil {
			t.Fatal(err)
		}
	}
	bb := testBodies(t, d, &w.Bodies)
	defer bb.release(d)
	s := w.Resolved()
	cs := hostContacts(&s, &w.Bodies)
	var st solverStage
	defer st.release(d)
	var contacts, count buffer
	defer release(d, &contacts)
	defer release(d, &count)
	must(t, grow(d, &contacts, 4*int(unsafe.Sizeof(tbContact{}))), uploadSlice(d, contacts.p, cs),
		grow(d, &count, 4), uploadSlice(d, count.p, []int32{int32(len(cs))}))
	h := &hookLog{t: t}
	defer release(d, &h.imp)
	defer release(d, &h.list)
	c := makeConsts(s)
	must(t, solverStep(&st, d, bb, contacts.p, count.p, 4, h, &c))
	// The rows are refreshed once after each move of the bodies: before the first warm start, and
	// before each relax (after integrate positions); the relax pass leaves the poses as they are, so
	// the next sub-step's warm start needs no refresh.
	sub := "warm solve solve refresh relax "
	if got, want := strings.Join(h.calls, " ")+" ", "count prepare refresh "+sub+sub; got != want {
		t.Errorf("hook calls:\n%s\nwant\n%s", got, want)
	}
	if h.split[1] != 4+2 || h.split[0] != 4 {
		t.Errorf("split counts %v, want [4 6]: 4 contact points each, plus the hook's 2 on the box", h.split)
	}
	var vel [2]float4
	must(t, downloadSlice(d, vel[:], bb.vel.p))
	// Six passes of 1 N s on a 1000 kg box without gravity: friction has no normal impulse to hold it.
	if vel[1].X <= 0 {
		t.Errorf("box velocity %v: the hooks' impulses were not applied", vel[1])
	}
}

// TestSolverRandomPileMatches drops a random pile of boxes, spheres and capsules, turned and spinning,
// with random materials, onto the plane and onto each other.
func TestSolverRandomPileMatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	f := func(lo, hi float64) float32 { return float32(lo + (hi-lo)*rng.Float64()) }
	defs := []sim.BodyDef{ground(0.7, 0.2)}
	for i := 0; i < 10; i++ {
		d := sim.BodyDef{
			Position:        sim.Vec3{f(-1, 1), 0.6 + 0.9*float32(i), f(-1, 1)},
			Rotation:        mgl32.QuatRotate(f(0, 3), sim.Vec3{f(-1, 1), 1, f(-1, 1)}.Normalize()),
			Velocity:        sim.Vec3{f(-1, 1), f(-2, 0), f(-1, 1)},
			AngularVelocity: sim.Vec3{f(-3, 3), f(-3, 3), f(-3, 3)},
			Friction:        f(0.2, 1), Restitution: f(0, 0.6), Density: f(200, 2000),
		}
		switch i % 3 {
		case 0:
			d.Shape = geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{f(0.2, 0.5), f(0.2, 0.5), f(0.2, 0.5)}}
		case 1:
			d.Shape = geom.Shape{Kind: geom.Sphere, Radius: f(0.2, 0.4)}
		default:
			d.Shape = geom.Shape{Kind: geom.Capsule, Radius: f(0.15, 0.3), HalfHeight: f(0.1, 0.4)}
		}
		defs = append(defs, d)
	}
	r := newSolverRig(t, sim.Settings{Gravity: earth}, defs)
	dx := r.run(150, 1e-3)
	if n := r.cpu.Stats.Manifolds; n < 8 {
		t.Errorf("%d touching pairs at the end: the pile did not form", n)
	}
	t.Logf("max position difference %.3g m, %d touching pairs", dx, r.cpu.Stats.Manifolds)
}

// solverStep runs the solver's part of a step's plan (Prepare and every stage after it) on the
// contacts at contacts, as Backend.Step does after the narrow phase.
func solverStep(s *solverStage, d device, b *bodyBuffers, contacts, contactCount ptr, contactCapacity int, j jointHooks,
	c *stepConsts) error {
	var r solverRun
	for _, op := range sim.PlanOf(c.s) {
		switch op.Stage {
		case sim.StageBounds, sim.StageBroad, sim.StageNarrow:
		case sim.StagePrepare:
			if err := s.prepare(&r, d, b, contacts, contactCount, contactCapacity, j, c); err != nil {
				return err
			}
		default:
			if err := s.run(&r, op); err != nil {
				return err
			}
		}
	}
	return nil
}
