package gpu

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
	"tumble/sim/geom"
)

func releaseTestBodies(d device, b *bodyBuffers) {
	for _, buf := range []*buffer{&b.pos, &b.rot, &b.vel, &b.omega, &b.invI, &b.shape, &b.material, &b.flags, &b.invIW} {
		release(d, buf)
	}
}

// jointRig runs the joint stage on the emulated device over a World's bodies, applying the joints'
// impulse records on the host as sim's gatherImpulses does (the solver stage's tb_solver_gather that
// does it on the device is tested with the solver).
type jointRig struct {
	d     device
	b     *bodyBuffers
	st    jointStage
	split buffer
	c     stepConsts
	// Host copies: the state the CPU's gather reads and writes.
	pos   []sim.Vec3
	rot   []sim.Quat
	vel   []sim.Vec3
	omega []sim.Vec3
	invM  []float32
	invIW []sim.Mat3
}

// newJointRig loads w's bodies and joints; the step constants are those w's settings give one step.
func newJointRig(t testing.TB, w *sim.World) *jointRig {
	t.Helper()
	d := emulated{}
	b := &w.Bodies
	n := b.Len()
	r := &jointRig{d: d, b: testBodies(t, d, b)}
	r.pos = append([]sim.Vec3(nil), b.Position...)
	r.rot = append([]sim.Quat(nil), b.Rotation...)
	r.vel = append([]sim.Vec3(nil), b.Velocity...)
	r.omega = append([]sim.Vec3(nil), b.AngularVelocity...)
	r.invM = append([]float32(nil), b.InvMass...)
	r.invIW = append([]sim.Mat3(nil), b.InvInertiaWorld...)
	for _, buf := range []struct {
		b     *buffer
		bytes int
	}{{&r.split, 4 * n}} {
		if err := grow(d, buf.b, buf.bytes); err != nil {
			t.Fatal(err)
		}
	}
	s := w.Resolved()
	h := s.Dt / float32(s.Substeps)
	k := sim.StepConstantsOf(s)
	j, l := k.Joint, k.Limit
	r.c = stepConsts{s: s, h: h, invH: 1 / h, joint: softness{j.BiasRate, j.MassScale, j.ImpulseScale},
		limit: softness{l.BiasRate, l.MassScale, l.ImpulseScale}}
	if err := r.st.upload(d, w); err != nil {
		t.Fatal(err)
	}
	return r
}

// reload replaces the bodies with w's current state (no more bodies than at first), keeping the
// joints (and their impulses).
func (r *jointRig) reload(t testing.TB, w *sim.World) {
	t.Helper()
	releaseTestBodies(r.d, r.b)
	b := &w.Bodies
	r.b = testBodies(t, r.d, b)
	r.pos = append(r.pos[:0], b.Position...)
	r.rot = append(r.rot[:0], b.Rotation...)
	r.vel = append(r.vel[:0], b.Velocity...)
	r.omega = append(r.omega[:0], b.AngularVelocity...)
	r.invM = append(r.invM[:0], b.InvMass...)
	r.invIW = append(r.invIW[:0], b.InvInertiaWorld...)
}

func (r *jointRig) close() {
	releaseTestBodies(r.d, r.b)
	r.st.release(r.d)
	release(r.d, &r.split)
}

// begin does what a step does before its sub-steps (split counts from the joints alone, no contacts,
// then prepare) and the sub-step's refresh.
func (r *jointRig) begin(t testing.TB) {
	t.Helper()
	must(t, r.d.zero(r.split.p, 4*r.b.n))
	must(t, r.st.count(r.d, r.b, r.split.p))
	must(t, r.st.prepare(r.d, r.b, r.split.p, &r.c))
	must(t, r.st.refresh(r.d, r.b, &r.c))
}

// warm runs the warm start and applies it.
func (r *jointRig) warm(t testing.TB) {
	t.Helper()
	must(t, r.st.warmStart(r.d, r.b, &r.c))
	r.apply(t)
}

// pass runs one Jacobi pass and applies it.
func (r *jointRig) pass(t testing.TB, useBias bool) {
	t.Helper()
	must(t, r.st.solve(r.d, r.b, &r.c, useBias))
	r.apply(t)
}

// apply adds the joints' impulse records to the velocities of the bodies with mass, each body's in its
// list's order (sim's gatherImpulses, in the same float32 operations), and sends the velocities back.
func (r *jointRig) apply(t testing.TB) {
	t.Helper()
	n := r.b.n
	if r.st.n == 0 {
		r.sendVelocities(t)
		return
	}
	impP, startP, adjP := r.st.lists()
	imp, start := make([]float4, 3*r.st.n), make([]int32, n+1)
	must(t, downloadSlice(r.d, imp, impP), downloadSlice(r.d, start, startP))
	adj := make([]int32, max(start[n], 1))
	must(t, downloadSlice(r.d, adj, adjP))
	for i := 0; i < n; i++ {
		if r.invM[i] == 0 {
			continue
		}
		var lin, a float4
		for _, e := range adj[start[i]:start[i+1]] {
			k, sign := int(e>>1), float32(-1)
			ang := imp[3*k+1]
			if e&1 == 1 {
				sign, ang = 1, imp[3*k+2]
			}
			l := imp[3*k]
			lin = float4{lin.X + sign*l.X, lin.Y + sign*l.Y, lin.Z + sign*l.Z, 0}
			a = float4{a.X + sign*ang.X, a.Y + sign*ang.Y, a.Z + sign*ang.Z, 0}
		}
		m := r.invM[i]
		r.vel[i] = r.vel[i].Add(sim.Vec3{lin.X * m, lin.Y * m, lin.Z * m})
		I := &r.invIW[i]
		r.omega[i] = r.omega[i].Add(sim.Vec3{
			I[0]*a.X + I[3]*a.Y + I[6]*a.Z,
			I[1]*a.X + I[4]*a.Y + I[7]*a.Z,
			I[2]*a.X + I[5]*a.Y + I[8]*a.Z,
		})
	}
	r.sendVelocities(t)
}

func (r *jointRig) sendVelocities(t testing.TB) {
	t.Helper()
	n := r.b.n
	vel, omega := make([]float4, n), make([]float4, n)
	for i := 0; i < n; i++ {
		v, w := r.vel[i], r.omega[i]
		vel[i], omega[i] = float4{v[0], v[1], v[2], 0}, float4{w[0], w[1], w[2], 0}
	}
	must(t, uploadSlice(r.d, r.b.vel.p, vel))
	must(t, uploadSlice(r.d, r.b.omega.p, omega))
}

func (r *jointRig) joints(t testing.TB) []tbJoint {
	t.Helper()
	out := make([]tbJoint, r.st.n)
	must(t, downloadSlice(r.d, out, r.st.joints.p))
	return out
}

func (r *jointRig) forces(t testing.TB) []float32 {
	t.Helper()
	p, n := r.st.forces()
	out := make([]float32, n)
	must(t, downloadSlice(r.d, out, p))
	return out
}

// rates returns each joint's coordinate and swing angle rates from the current velocities, by finite
// difference: the poses are moved on by dt (x += v dt, q += dt/2 (w, 0) q), the rows refreshed there,
// and the poses put back (refreshed again).
func (r *jointRig) rates(t testing.TB, dt float32) (coord, swing []float32) {
	t.Helper()
	before := r.joints(t)
	n := r.b.n
	pos, rot := make([]float4, n), make([]float4, n)
	for i := 0; i < n; i++ {
		p, q, v, w := r.pos[i], r.rot[i], r.vel[i], r.omega[i]
		p = p.Add(v.Mul(dt))
		dq := mgl32.Quat{W: 0, V: w}.Mul(q).Scale(dt / 2)
		q = q.Add(dq).Normalize()
		pos[i], rot[i] = float4{p[0], p[1], p[2], r.invM[i]}, float4{q.V[0], q.V[1], q.V[2], q.W}
	}
	must(t, uploadSlice(r.d, r.b.pos.p, pos))
	must(t, uploadSlice(r.d, r.b.rot.p, rot))
	must(t, r.st.refresh(r.d, r.b, &r.c))
	after := r.joints(t)
	for i := 0; i < n; i++ {
		p, q := r.pos[i], r.rot[i]
		pos[i], rot[i] = float4{p[0], p[1], p[2], r.invM[i]}, float4{q.V[0], q.V[1], q.V[2], q.W}
	}
	must(t, uploadSlice(r.d, r.b.pos.p, pos))
	must(t, uploadSlice(r.d, r.b.rot.p, rot))
	must(t, r.st.refresh(r.d, r.b, &r.c))
	for k := range before {
		coord = append(coord, (after[k].Coord-before[k].Coord)/dt)
		swing = append(swing, (after[k].SwingAngle-before[k].SwingAngle)/dt)
	}
	return coord, swing
}

// oneStep is the CPU's step that one GPU pass reproduces: Jacobi, one sub-step of one biased pass, no
// relax pass, no warm start, no gravity (and the tests leave no contacts and give angular velocity
// only to bodies of isotropic inertia, which have no gyroscopic term), so the step's velocity change
// is exactly one jacobiJoint pass over every joint followed by gatherImpulses.
var oneStep = sim.Settings{Solver: sim.Jacobi, Substeps: 1, Iterations: 1, NoWarmStart: true, NoRelax: true,
	NoRestitution: true}

func addBody(t testing.TB, w *sim.World, d sim.BodyDef) sim.Handle {
	t.Helper()
	h, err := w.AddBody(d)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func addJoint(t testing.TB, w *sim.World, d sim.JointDef) {
	t.Helper()
	if _, err := w.AddJoint(d); err != nil {
		t.Fatal(err)
	}
}

func randVec(rng *rand.Rand, s float32) sim.Vec3 {
	return sim.Vec3{(rng.Float32()*2 - 1) * s, (rng.Float32()*2 - 1) * s, (rng.Float32()*2 - 1) * s}
}

func randRot(rng *rand.Rand, angle float32) sim.Quat {
	axis := randVec(rng, 1)
	if axis.Len() < 1e-3 {
		axis = sim.Vec3{0, 1, 0}
	}
	return mgl32.QuatRotate(angle*rng.Float32(), axis.Normalize())
}

// randomJointWorld makes bodies on a grid 3 m apart (no two touch) of every shape, a static and a
// kinematic one among them, joins random pairs and bodies to the world with every joint type, limit
// and motor, then moves the bodies off the joints' poses and sets velocities. Only spheres and cubes
// spin (see oneStep). With isotropic set every dynamic body is a sphere or a cube. Every joint gets
// breakForce.
func randomJointWorld(t testing.TB, seed uint64, s sim.Settings, nb, nj int, isotropic bool, breakForce float32) *sim.World {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	w := sim.NewWorld(s)
	var hs []sim.Handle
	spins := map[sim.Handle]bool{}
	for i := 0; i < nb; i++ {
		d := sim.BodyDef{Position: sim.Vec3{3 * float32(i%6), 5, 3 * float32(i/6)}, Rotation: randRot(rng, math.Pi),
			Mass: 0.5 + 4*rng.Float32()}
		spin := true
		switch k := rng.IntN(4); {
		case k == 0 || isotropic && k != 1:
			d.Shape = geom.Shape{Kind: geom.Sphere, Radius: 0.3 + 0.3*rng.Float32()}
		case k == 1:
			e := 0.2 + 0.4*rng.Float32()
			d.Shape = geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{e, e, e}}
		case k == 2:
			d.Shape = geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.2 + 0.4*rng.Float32(), 0.2 + 0.4*rng.Float32(), 0.2 + 0.4*rng.Float32()}}
			spin = false
		default:
			d.Shape = geom.Shape{Kind: geom.Capsule, Radius: 0.2 + 0.2*rng.Float32(), HalfHeight: 0.1 + 0.3*rng.Float32()}
			spin = false
		}
		switch i {
		case 1:
			d.Type = sim.Static
		case 2:
			d.Type, d.Velocity = sim.Kinematic, randVec(rng, 1)
		}
		h := addBody(t, w, d)
		hs = append(hs, h)
		spins[h] = spin && d.Type == sim.Dynamic
	}
	for k := 0; k < nj; k++ {
		a := hs[rng.IntN(nb)]
		for a == hs[1] || a == hs[2] {
			a = hs[rng.IntN(nb)]
		}
		var b sim.Handle
		if rng.IntN(4) != 0 {
			for b = hs[rng.IntN(nb)]; b == a; b = hs[rng.IntN(nb)] {
			}
		}
		ia, _ := w.Index(a)
		anchor := w.Bodies.Position[ia].Add(randVec(rng, 1))
		def := sim.JointDef{Type: sim.JointType(k % 4), BodyA: a, BodyB: b, Anchor: anchor, Axis: randVec(rng, 1),
			BreakForce: breakForce}
		if def.Axis.Len() < 0.1 {
			def.Axis = sim.Vec3{0, 0, 1}
		}
		switch def.Type {
		case sim.Ball:
			if rng.IntN(3) != 0 {
				def.Swing = 0.05 + 0.4*rng.Float32()
			}
			if rng.IntN(3) != 0 {
				def.HasTwist = true
				lo := -0.4 + 0.45*rng.Float32()
				def.Twist = [2]float32{lo, lo + 0.4*rng.Float32()}
			}
		case sim.Hinge, sim.Piston:
			scale := float32(0.4)
			if def.Type == sim.Piston {
				scale = 0.15
			}
			if rng.IntN(3) != 0 {
				def.HasLimits = true
				lo := scale * (-1 + 1.1*rng.Float32())
				def.Limits = [2]float32{lo, lo + scale*rng.Float32()}
			}
			if rng.IntN(2) == 0 {
				def.HasMotor = true
				def.Motor = sim.Motor{Speed: 4*rng.Float32() - 2, MaxForce: []float32{0.5, 20, 1e5}[rng.IntN(3)]}
			}
		}
		addJoint(t, w, def)
	}
	for i, h := range hs {
		if i == 1 {
			continue
		}
		p, q := w.Bodies.Position[i], w.Bodies.Rotation[i]
		must(t, w.SetPose(h, p.Add(randVec(rng, 0.15)), randRot(rng, 0.35).Mul(q).Normalize()))
		var om sim.Vec3
		if spins[h] {
			om = randVec(rng, 2)
		}
		if i != 2 {
			must(t, w.SetVelocity(h, randVec(rng, 1), om))
		}
	}
	return w
}

// near reports whether got is within tol of want, relative to max(1, |want|).
func near(got, want sim.Vec3, tol float32) bool {
	return got.Sub(want).Len() <= tol*max(1, want.Len())
}

// One biased Jacobi pass over random joints of every type (limits active and open, motors saturated
// and not, bodies on several joints so the split counts differ, static, kinematic and world
// partners) changes the velocities as the CPU's step does, and each joint's force is the one the CPU
// compares with its break force. The tolerance, 2e-4 of the speed, covers float32 rounding where
// the two builds order operations differently (atan2 in float64 on the CPU, mathgl's matrix
// inverse); a row on a wrong body or a wrong sign moves velocities by order one.
func TestJointPassMatchesCPUJacobiStep(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		// Every joint breaks (break force 1e-9 N), so w.Broken reports every force.
		w := randomJointWorld(t, seed, oneStep, 24, 40, false, 1e-9)
		r := newJointRig(t, w)
		forcesCPU := make([]float32, w.NumJoints())
		must(t, w.Step())
		r.begin(t)
		r.pass(t, true)
		for i := range r.vel {
			if !near(r.vel[i], w.Bodies.Velocity[i], 2e-4) || !near(r.omega[i], w.Bodies.AngularVelocity[i], 2e-4) {
				t.Errorf("seed %d body %d: GPU v %v w %v, CPU v %v w %v", seed, i, r.vel[i], r.omega[i],
					w.Bodies.Velocity[i], w.Bodies.AngularVelocity[i])
			}
		}
		got := r.forces(t)
		for _, br := range w.Broken {
			forcesCPU[br.Index] = br.Force
		}
		for k, f := range got {
			if d := math.Abs(float64(f - forcesCPU[k])); d > 2e-4*max(1, float64(forcesCPU[k])) {
				t.Errorf("seed %d joint %d (%v): GPU force %v, CPU %v", seed, k, r.st.host[k].Type, f, forcesCPU[k])
			}
		}
		r.close()
		w.Close()
	}
}

// Warm starting and refreshing at moved poses: after a step, with the bodies moved again, joints
// removed or added and a body removed (upload carries the kept joints' impulses over), the next step's refresh, warm
// start (last step's impulses on this step's rows) and biased pass change the velocities as the CPU's
// warm-started step does, and the joint coordinates (limits and motors act on
// them) are the CPU's. Every dynamic body is a sphere or a cube so that spinning bodies have no
// gyroscopic term in the CPU's step.
func TestJointWarmStartAndRefreshMatchCPU(t *testing.T) {
	s := oneStep
	s.NoWarmStart = false
	for seed := uint64(1); seed <= 4; seed++ {
		w := randomJointWorld(t, seed, s, 18, 30, true, 0)
		r := newJointRig(t, w)
		for step := 0; step < 3; step++ {
			if step == 2 {
				// The last body moves to index 0: its joints' dense indices change.
				must(t, w.RemoveBody(w.HandleAt(0)))
			}
			if step > 0 {
				rng := rand.New(rand.NewPCG(seed, uint64(step)))
				for i := 0; i < w.Bodies.Len(); i++ {
					if w.Bodies.Type[i] == sim.Dynamic {
						q := randRot(rng, 0.1).Mul(w.Bodies.Rotation[i]).Normalize()
						must(t, w.SetPose(w.HandleAt(i), w.Bodies.Position[i].Add(randVec(rng, 0.05)), q))
					}
				}
				r.reload(t, w)
				// Joint edits: the kept joints keep their impulses, a new one starts from none, and one
				// edited in place (UpdateJoint) drops those of the rows that changed and keeps the others.
				switch step {
				case 1:
					must(t, w.RemoveJoint(3))
					must(t, w.RemoveJoint(0))
					for k := range w.NumJoints() {
						def := w.Joint(k)
						switch k % 4 {
						case 0:
							def.HasLimits, def.Limits = true, [2]float32{-0.2, 0.3}
						case 1:
							def.Motor.Speed += 0.5
						case 2:
							if def.Swing > 0 {
								def.Swing *= 0.8
							}
							if def.HasTwist {
								def.Twist[0] -= 0.05
							}
						case 3:
							def.BreakForce = 1e6
						}
						must(t, w.UpdateJoint(k, def))
					}
				case 2:
					def := w.Joint(5)
					def.Type, def.HasMotor, def.Motor = sim.Hinge, true, sim.Motor{Speed: 1, MaxForce: 50}
					addJoint(t, w, def)
				}
				must(t, r.st.upload(r.d, w))
			}
			must(t, w.Step())
			r.begin(t)
			r.warm(t)
			r.pass(t, true)
			for i := range r.vel {
				if !near(r.vel[i], w.Bodies.Velocity[i], 2e-4) || !near(r.omega[i], w.Bodies.AngularVelocity[i], 2e-4) {
					t.Errorf("seed %d step %d body %d: GPU v %v w %v, CPU v %v w %v", seed, step, i, r.vel[i], r.omega[i],
						w.Bodies.Velocity[i], w.Bodies.AngularVelocity[i])
				}
			}
			for k, j := range r.joints(t) {
				if c := w.JointCoordinate(k); math.Abs(float64(j.Coord-c)) > 1e-4 {
					t.Errorf("seed %d step %d joint %d: GPU coordinate %v, CPU %v", seed, step, k, j.Coord, c)
				}
			}
		}
		r.close()
		w.Close()
	}
}

// The split counts are the number of joints on each body, and prepare scales each side's inverse mass
// and inertia by its body's count (at least one, as sim's jointMasses).
func TestJointCountAndPrepareSplitMasses(t *testing.T) {
	w := randomJointWorld(t, 9, oneStep, 24, 40, false, 0)
	defer w.Close()
	r := newJointRig(t, w)
	defer r.close()
	r.begin(t)
	want := make([]uint32, w.Bodies.Len())
	for k := 0; k < w.NumJoints(); k++ {
		f := w.JointFrame(k)
		want[f.A]++
		if f.B >= 0 {
			want[f.B]++
		}
	}
	got := make([]uint32, len(want))
	must(t, downloadSlice(r.d, got, r.split.p))
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("body %d: split count %d, want %d", i, got[i], want[i])
		}
	}
	for k, j := range r.joints(t) {
		f := w.JointFrame(k)
		sA := float32(max(want[f.A], 1))
		if j.MA != w.Bodies.InvMass[f.A]*sA || j.IA[4] != w.Bodies.InvInertiaWorld[f.A][4]*sA {
			t.Errorf("joint %d: body A mass %v inertia %v, want %v %v", k, j.MA, j.IA[4], w.Bodies.InvMass[f.A]*sA,
				w.Bodies.InvInertiaWorld[f.A][4]*sA)
		}
		if f.B < 0 && (j.MB != 0 || j.IB != [9]float32{}) {
			t.Errorf("joint %d to the world: body B mass %v inertia %v, want zero", k, j.MB, j.IB)
		}
	}
}

// Without warm starting prepare zeroes the impulses, and a warm start then adds nothing.
func TestJointPrepareWithoutWarmStartZeroesImpulses(t *testing.T) {
	s := oneStep
	s.NoWarmStart = false
	w := randomJointWorld(t, 3, s, 12, 20, false, 0)
	defer w.Close()
	r := newJointRig(t, w)
	defer r.close()
	r.begin(t)
	r.pass(t, true)
	if j := r.joints(t)[0]; j.PointImpulse == (float3{}) {
		t.Fatal("a ball joint under load holds no impulse")
	}
	r.c.s.NoWarmStart = true
	r.begin(t)
	for k, j := range r.joints(t) {
		imp := []float32{j.PointImpulse.X, j.PointImpulse.Y, j.PointImpulse.Z, j.RotImpulse.X, j.RotImpulse.Y,
			j.RotImpulse.Z, j.HingeImpulse[0], j.HingeImpulse[1], j.Perp[0].Impulse, j.Perp[1].Impulse,
			j.SwingRow.Impulse, j.Motor.Impulse, j.Lower.Impulse, j.Upper.Impulse, j.TwistLower.Impulse, j.TwistUpper.Impulse}
		for _, x := range imp {
			if x != 0 {
				t.Fatalf("joint %d: impulses %v after prepare without warm starting", k, imp)
			}
		}
	}
	v := append([]sim.Vec3(nil), r.vel...)
	r.warm(t)
	for i := range v {
		if v[i] != r.vel[i] {
			t.Fatalf("body %d: warm start of zero impulses changed its velocity", i)
		}
	}
}

// The generated tbJoint and tbJointRow have the sizes the kernel reports (see TestSolverLayouts).
func TestJointLayoutMatchesKernel(t *testing.T) {
	d := emulated{}
	var b buffer
	must(t, grow(d, &b, 8))
	defer release(d, &b)
	must(t, kernelSet{d}.jointSizes(1, 1, jointSizesArgs{Out: b.p}))
	got := make([]uint32, 2)
	must(t, downloadSlice(d, got, b.p))
	if got[0] != uint32(unsafe.Sizeof(tbJoint{})) || got[1] != uint32(unsafe.Sizeof(tbJointRow{})) {
		t.Errorf("sizeof TbJoint, TbJointRow = %v in C++, %d %d in Go", got, unsafe.Sizeof(tbJoint{}), unsafe.Sizeof(tbJointRow{}))
	}
}

// A world with no joints launches nothing and reports no forces.
func TestJointStageWithoutJoints(t *testing.T) {
	w := sim.NewWorld(oneStep)
	defer w.Close()
	addBody(t, w, sim.BodyDef{Shape: geom.Shape{Kind: geom.Sphere, Radius: 1}})
	r := newJointRig(t, w)
	defer r.close()
	r.begin(t)
	r.warm(t)
	r.pass(t, true)
	if _, n := r.st.forces(); n != 0 {
		t.Errorf("forces: %d joints, want 0", n)
	}
}

var (
	boxA = geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.3, 0.5, 0.2}}
	boxB = geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.4, 0.2, 0.3}}
	cube = geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.3, 0.3, 0.3}}
)

// pairWorld joins two boxes of different (anisotropic) inertia, tilted, by def at anchor, and sets
// velocities that move the joint in every direction.
func pairWorld(t *testing.T, def sim.JointDef) (*sim.World, sim.Vec3) {
	w := sim.NewWorld(oneStep)
	a := addBody(t, w, sim.BodyDef{Shape: boxA, Mass: 2, Rotation: mgl32.QuatRotate(0.7, sim.Vec3{1, 2, 3}.Normalize())})
	b := addBody(t, w, sim.BodyDef{Shape: boxB, Mass: 5, Position: sim.Vec3{1.2, 0.3, 0},
		Rotation: mgl32.QuatRotate(-0.4, sim.Vec3{0, 1, 1}.Normalize())})
	anchor := sim.Vec3{0.6, 0.2, 0.1}
	def.BodyA, def.BodyB, def.Anchor = a, b, anchor
	addJoint(t, w, def)
	must(t, w.SetVelocity(a, sim.Vec3{-1, 0.5, 0}, sim.Vec3{0.3, -1, 2}))
	must(t, w.SetVelocity(b, sim.Vec3{1, 0, -0.5}, sim.Vec3{2, 0, 1}))
	return w, anchor
}

// relative returns the velocity of B's anchor point relative to A's and B's spin relative to A's.
func (r *jointRig) relative(anchor sim.Vec3) (dv, dw sim.Vec3) {
	va := r.vel[0].Add(r.omega[0].Cross(anchor.Sub(r.pos[0])))
	vb := r.vel[1].Add(r.omega[1].Cross(anchor.Sub(r.pos[1])))
	return vb.Sub(va), r.omega[1].Sub(r.omega[0])
}

func offAxis(v, axis sim.Vec3) sim.Vec3 { return v.Sub(axis.Mul(v.Dot(axis))) }

// A rigid pass (no bias) of a lone ball joint (split counts 1) makes its anchors move together, and
// the impulses are equal and opposite (momentum is kept).
func TestBallJointRigidPassStopsAnchorSeparation(t *testing.T) {
	w, anchor := pairWorld(t, sim.JointDef{Type: sim.Ball})
	defer w.Close()
	r := newJointRig(t, w)
	defer r.close()
	momentum := func() sim.Vec3 { return r.vel[0].Mul(w.Bodies.Mass[0]).Add(r.vel[1].Mul(w.Bodies.Mass[1])) }
	p0 := momentum()
	r.begin(t)
	before, _ := r.relative(anchor)
	r.pass(t, false)
	after, _ := r.relative(anchor)
	if before.Len() < 1 || after.Len() > 1e-5*before.Len() {
		t.Errorf("anchor relative velocity %v before the pass, %v after, want 0", before, after)
	}
	if p1 := momentum(); !near(p1, p0, 1e-5) {
		t.Errorf("momentum %v before, %v after", p0, p1)
	}
}

// kinetic returns the bodies' kinetic energy (rigid joint rows may take energy out, never put it in).
func (r *jointRig) kinetic(w *sim.World) float32 {
	var e float32
	for i := range r.vel {
		if r.invM[i] == 0 {
			continue
		}
		I := r.invIW[i].Inv()
		e += 0.5*w.Bodies.Mass[i]*r.vel[i].Dot(r.vel[i]) + 0.5*r.omega[i].Dot(I.Mul3x1(r.omega[i]))
	}
	return e
}

// Hinge and fixed joints between two bodies: repeated rigid passes converge to a relative motion the
// joint allows (the parts of one pass are solved in sequence, so one pass leaves what the later parts
// disturbed of the earlier ones): no anchor separation, no relative spin off the hinge axis (none at
// all for fixed), and no energy gained on the way.
func TestHingeAndFixedRigidPassesConverge(t *testing.T) {
	axis := sim.Vec3{1, 2, 0.5}.Normalize()
	for _, typ := range []sim.JointType{sim.Hinge, sim.Fixed} {
		w, anchor := pairWorld(t, sim.JointDef{Type: typ, Axis: axis})
		r := newJointRig(t, w)
		r.begin(t)
		e := r.kinetic(w)
		for it := 0; it < 60; it++ {
			r.pass(t, false)
			if e1 := r.kinetic(w); e1 > e*(1+1e-5) {
				t.Errorf("%v: pass %d raised the kinetic energy from %v to %v", typ, it, e, e1)
			}
			e = r.kinetic(w)
		}
		dv, dw := r.relative(anchor)
		if typ == sim.Hinge {
			dw = offAxis(dw, axis)
		}
		if dv.Len() > 1e-3 || dw.Len() > 1e-3 {
			t.Errorf("%v: after 60 passes anchor relative velocity %v, relative spin (off axis) %v", typ, dv, dw)
		}
		r.close()
		w.Close()
	}
}

// worldJoint joins one body at the origin, tilted, to the static world at its centre by def.
func worldJoint(t *testing.T, shape geom.Shape, def sim.JointDef) (*sim.World, sim.Handle) {
	w := sim.NewWorld(oneStep)
	h := addBody(t, w, sim.BodyDef{Shape: shape, Mass: 3, Rotation: mgl32.QuatRotate(0.5, sim.Vec3{1, 1, 0}.Normalize())})
	def.BodyA = h
	addJoint(t, w, def)
	return w, h
}

// One rigid pass of a body joined to the world at its centre, where the anchor rows exert no torque:
// a hinge removes all spin off its axis (its angular impulse is off the axis: with this body's
// anisotropic inertia the spin about the axis changes too), a fixed joint stops the body, a piston
// keeps only the velocity along its axis; the anchor rows stop the centre (ball, hinge, fixed).
func TestWorldJointRigidPassLeavesOnlyTheFreeMotion(t *testing.T) {
	axis := sim.Vec3{1, 2, 0.5}.Normalize()
	v0, w0 := sim.Vec3{0.5, -1, 0.3}, sim.Vec3{1, -2, 3}
	for _, typ := range []sim.JointType{sim.Ball, sim.Hinge, sim.Piston, sim.Fixed} {
		w, h := worldJoint(t, boxA, sim.JointDef{Type: typ, Axis: axis})
		must(t, w.SetVelocity(h, v0, w0))
		r := newJointRig(t, w)
		r.begin(t)
		r.pass(t, false)
		v, om := r.vel[0], r.omega[0]
		wantV, wantW := sim.Vec3{}, sim.Vec3{}
		switch typ {
		case sim.Ball:
			wantW = w0
		case sim.Hinge:
			wantW = axis.Mul(om.Dot(axis))
			I := r.invIW[0].Inv()
			if l := I.Mul3x1(om.Sub(w0)); math.Abs(float64(l.Dot(axis))) > 1e-5*float64(l.Len()) {
				t.Errorf("hinge: angular impulse %v has a part along the axis", l)
			}
		case sim.Piston:
			wantV = axis.Mul(v0.Dot(axis))
		}
		if !near(v, wantV, 1e-5) || !near(om, wantW, 1e-5) {
			t.Errorf("%v: v %v w %v after the pass, want %v %v", typ, v, om, wantV, wantW)
		}
		r.close()
		w.Close()
	}
}

// A limit that is exceeded stops motion further past it in one rigid pass and lets motion back into
// range through untouched; with the bias it pushes the coordinate back; an open limit lets the
// coordinate close the gap within the sub-step and no more. Cases: hinge angle, piston travel, ball
// twist (lower and upper limits) and ball swing cone. The body is a cube at the joint's anchor, so the
// limit row is the only one that sees the motion, and rates are measured on the coordinate itself.
func TestJointLimitsStopMotionPastThem(t *testing.T) {
	z, x, y := sim.Vec3{0, 0, 1}, sim.Vec3{1, 0, 0}, sim.Vec3{0, 1, 0}
	hinge := sim.JointDef{Type: sim.Hinge, Axis: z, HasLimits: true, Limits: [2]float32{-0.2, 0.15}}
	piston := sim.JointDef{Type: sim.Piston, Axis: x, HasLimits: true, Limits: [2]float32{-0.1, 0.05}}
	twist := sim.JointDef{Type: sim.Ball, Axis: y, HasTwist: true, Twist: [2]float32{-0.2, 0.15}}
	swing := sim.JointDef{Type: sim.Ball, Axis: y, Swing: 0.3}
	for _, c := range []struct {
		name     string
		def      sim.JointDef
		turn     sim.Vec3 // rotation vector applied to the body after the joint is made
		move     sim.Vec3 // translation
		push     sim.Vec3 // angular (or, with linear, linear) velocity along which the coordinate moves
		linear   bool
		swing    bool    // the coordinate is the swing angle (upper limit def.Swing)
		gap      float32 // > 0: the limit is open by gap
		lo, hi   float32
		hasLower bool
	}{
		{name: "hinge upper", def: hinge, turn: z.Mul(0.25), push: z},
		{name: "hinge lower", def: hinge, turn: z.Mul(-0.3), push: z},
		{name: "hinge open", def: hinge, turn: z.Mul(0.14), push: z, gap: 0.01},
		{name: "piston upper", def: piston, move: x.Mul(0.1), push: x, linear: true},
		{name: "piston lower", def: piston, move: x.Mul(-0.15), push: x, linear: true},
		{name: "piston open", def: piston, move: x.Mul(-0.09), push: x, linear: true, gap: 0.01},
		{name: "twist upper", def: twist, turn: y.Mul(0.25), push: y},
		{name: "twist lower", def: twist, turn: y.Mul(-0.3), push: y},
		{name: "swing", def: swing, turn: x.Mul(0.4), push: x, swing: true},
		{name: "swing open", def: swing, turn: x.Mul(0.29), push: x, swing: true, gap: 0.01},
	} {
		w, h := worldJoint(t, cube, c.def)
		q := w.Bodies.Rotation[0]
		if l := c.turn.Len(); l > 0 {
			q = mgl32.QuatRotate(l, c.turn.Mul(1/l)).Mul(q).Normalize()
		}
		must(t, w.SetPose(h, c.move, q))
		r := newJointRig(t, w)
		r.begin(t)
		coordOf := func(j tbJoint) float32 {
			if c.swing {
				return j.SwingAngle
			}
			return j.Coord
		}
		rateOf := func() float32 {
			cr, sr := r.rates(t, 1e-3)
			if c.swing {
				return sr[0]
			}
			return cr[0]
		}
		setVel := func(s float32) {
			r.vel[0], r.omega[0] = sim.Vec3{}, sim.Vec3{}
			if c.linear {
				r.vel[0] = c.push.Mul(s)
			} else {
				r.omega[0] = c.push.Mul(s)
			}
			r.sendVelocities(t)
		}
		// Which limit, and how far: side is +1 past (or near) the upper limit, -1 the lower.
		x0 := coordOf(r.joints(t)[0])
		lo, hi := c.def.Limits[0], c.def.Limits[1]
		switch {
		case c.swing:
			lo, hi = -1, c.def.Swing
		case c.def.HasTwist:
			lo, hi = c.def.Twist[0], c.def.Twist[1]
		}
		side, past := float32(1), x0-hi
		if x0-lo < hi-x0 {
			side, past = -1, lo-x0
		}
		if c.gap > 0 && math.Abs(float64(-past-c.gap)) > 1e-4 || c.gap == 0 && past < 0.04 {
			t.Fatalf("%s: coordinate %v against limits [%v, %v]: not the case meant", c.name, x0, lo, hi)
		}
		// The velocity that drives the coordinate further out.
		out := float32(1)
		setVel(3)
		if rateOf()*side < 0 {
			out = -1
			setVel(-3)
		}
		if r0 := rateOf() * side; r0 < 2 {
			t.Fatalf("%s: pushing rate %v", c.name, r0)
		}
		r.pass(t, false)
		want := float32(0)
		if c.gap > 0 {
			want = c.gap * r.c.invH
		}
		if r1 := rateOf() * side; math.Abs(float64(r1-want)) > 5e-3 {
			t.Errorf("%s: after the pass the coordinate moves out at %v, want %v", c.name, r1, want)
		}
		if c.gap > 0 {
			w.Close()
			r.close()
			continue
		}
		// Moving back into range: the limit lets it be. (A new step first: within one, the impulse the
		// limit accumulated stopping the push would also stop this motion until it is used up.)
		r.begin(t)
		setVel(-out)
		back := rateOf()
		if back*side > -0.5 {
			t.Fatalf("%s: moving back at rate %v", c.name, back)
		}
		v, om := r.vel[0], r.omega[0]
		r.pass(t, false)
		if !near(r.vel[0], v, 1e-6) || !near(r.omega[0], om, 1e-6) {
			t.Errorf("%s: moving back into range (rate %v), the pass changed v %v w %v to %v %v", c.name, back, v, om,
				r.vel[0], r.omega[0])
		}
		// At rest past the limit: the biased pass pushes the coordinate back.
		r.begin(t)
		setVel(0)
		r.pass(t, true)
		if rb := rateOf() * side; rb > -0.01 {
			t.Errorf("%s: at rest past the limit, the biased pass gives rate %v outwards, want inwards", c.name, rb)
		}
		r.close()
		w.Close()
	}
}

// A motor with torque to spare brings the coordinate to its speed in one pass (a hinge turns its body
// at +speed about the axis, a piston slides it at +speed along the axis); a weak one changes the rate
// by at most its force times the sub-step over the effective mass.
func TestJointMotorsReachTheirSpeed(t *testing.T) {
	axis := sim.Vec3{1, -2, 0.5}.Normalize()
	for _, typ := range []sim.JointType{sim.Hinge, sim.Piston} {
		for _, force := range []float32{1e6, 2} {
			def := sim.JointDef{Type: typ, Axis: axis, HasMotor: true, Motor: sim.Motor{Speed: 3, MaxForce: force}}
			w, h := worldJoint(t, cube, def)
			must(t, w.SetVelocity(h, axis.Mul(-0.5), axis.Mul(-0.5)))
			r := newJointRig(t, w)
			r.begin(t)
			r.pass(t, false)
			rate, inv := r.omega[0].Dot(axis), w.Bodies.InvInertiaLocal[0][0]
			if typ == sim.Piston {
				rate, inv = r.vel[0].Dot(axis), w.Bodies.InvMass[0]
			}
			want := float32(3)
			if force < 1e3 {
				want = -0.5 + force*r.c.h*inv
			}
			if math.Abs(float64(rate-want)) > 1e-4 {
				t.Errorf("%v motor, max force %v: rate %v after the pass, want %v", typ, force, rate, want)
			}
			cr, _ := r.rates(t, 1e-3)
			if math.Abs(float64(cr[0]-rate)) > 5e-3 {
				t.Errorf("%v motor: the coordinate moves at %v, the body at %v along the axis", typ, cr[0], rate)
			}
			r.close()
			w.Close()
		}
	}
}

// TestKernelAngleIsGosAtan2ToTheBit: the kernels measure joint angles with tbAtan2f, Go's math.Atan2
// ported line for line, so a hinge's coordinate is the CPU's to the bit; atan2f (CUDA's, or the host's
// on the emulator) is another approximation. Random pairs over many scales and every special case.
func TestKernelAngleIsGosAtan2ToTheBit(t *testing.T) {
	d := emulated{}
	rng := rand.New(rand.NewPCG(13, 13))
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, inf, -inf, nan, 1e-38, -1e-38, 3e38}
	var ys, xs []float32
	for _, y := range special {
		for _, x := range special {
			ys, xs = append(ys, y), append(xs, x)
		}
	}
	for range 20000 {
		s := float32(math.Pow(10, rng.Float64()*12-6))
		ys = append(ys, (rng.Float32()*2-1)*s)
		xs = append(xs, (rng.Float32()*2-1)*float32(math.Pow(10, rng.Float64()*12-6)))
	}
	n := len(ys)
	var by, bx, bo buffer
	defer release(d, &by)
	defer release(d, &bx)
	defer release(d, &bo)
	must(t, grow(d, &by, 4*n), grow(d, &bx, 4*n), grow(d, &bo, 4*n), uploadSlice(d, by.p, ys), uploadSlice(d, bx.p, xs))
	must(t, kernelSet{d}.jointAtan2(blocks(n, 128), 128, jointAtan2Args{Y: by.p, X: bx.p, Out: bo.p, N: int32(n)}))
	got := make([]float32, n)
	must(t, downloadSlice(d, got, bo.p))
	bad := 0
	for i := range n {
		want := float32(math.Atan2(float64(ys[i]), float64(xs[i])))
		if math.Float32bits(got[i]) != math.Float32bits(want) && !(want != want && got[i] != got[i]) {
			if bad < 5 {
				t.Errorf("atan2(%g, %g): kernel %g (%08x), Go %g (%08x)", ys[i], xs[i], got[i],
					math.Float32bits(got[i]), want, math.Float32bits(want))
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d differ", bad, n)
	}
}
