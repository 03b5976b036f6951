package urdf

import (
	"math"
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// A link's body takes the link's <inertia>, not its shapes': a thin 0.4 x 0.02 x 0.2 m plate of 1 kg
// declares principal moments (0.02, 0.05, 0.06) kg m^2 in an <inertial> frame turned by rpy (0.3,
// 0.5, -0.2), about ten times the plate's own and along other axes. An angular impulse L (a torque
// over a step) then changes the body's spin by I^-1 L, I the declared tensor turned into the world
// (R_yup R_rpy diag R_rpy^T R_yup^T): checked on three impulses to float32 rounding, and after a
// step of free flight to 1 %. The plate's own inertia would be off by far more than that.
func TestLinkTakesItsDeclaredInertia(t *testing.T) {
	rpy := [3]float64{0.3, 0.5, -0.2}
	diag := [3]float64{0.02, 0.05, 0.06}
	s, notes := robotScene(t, `<link name="plate"><inertial><origin rpy="0.3 0.5 -0.2"/><mass value="1"/>
		<inertia ixx="0.02" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.06"/></inertial>
		<collision><origin xyz="0 0 2"/><geometry><box size="0.4 0.02 0.2"/></geometry></collision></link>`)
	taken := false
	for _, b := range s.Bodies {
		taken = taken || b.Name == "plate" && b.Inertia != nil
	}
	if !taken || strings.Contains(strings.Join(notes, "\n"), "<inertia>") {
		t.Errorf("the plate does not take its <inertia>: notes %q", notes)
	}
	// The declared tensor in the world: the <inertial> frame's rotation, then z-up to y-up.
	q := YUpFrame(Identity).Rot.Mul(RPY(rpy))
	var r [3][3]float64 // columns: q e_k
	for k := range 3 {
		var e [3]float64
		e[k] = 1
		c := q.Rotate(e)
		for i := range 3 {
			r[i][k] = c[i]
		}
	}
	var iw, shapes [3][3]float64
	box := [3]float64{0.4, 0.02, 0.2} // the plate's own moments, in y-up: URDF's x, z, y
	own := [3]float64{(box[1]*box[1] + box[2]*box[2]) / 12, (box[0]*box[0] + box[1]*box[1]) / 12, (box[0]*box[0] + box[2]*box[2]) / 12}
	for i := range 3 {
		shapes[i][i] = own[i]
		for j := range 3 {
			for k := range 3 {
				iw[i][j] += r[i][k] * diag[k] * r[j][k]
			}
		}
	}
	w, err := s.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := w.Find("plate")
	for _, l := range [][3]float64{{0.01, 0, 0}, {0, 0.01, 0}, {0.003, -0.004, 0.005}} {
		before := w.Bodies.AngularVelocity[1]
		if err := w.ApplyAngularImpulse(h, sim.Vec3{float32(l[0]), float32(l[1]), float32(l[2])}); err != nil {
			t.Fatal(err)
		}
		after := w.Bodies.AngularVelocity[1]
		want, wrong := solve3(iw, l), solve3(shapes, l)
		for i := range 3 {
			got := float64(after[i] - before[i])
			if math.Abs(got-want[i]) > 1e-4*norm3(want) {
				t.Errorf("impulse %v: spin changed by %v, want I^-1 L = %v", l, sub3(after, before), want)
				break
			}
		}
		if d := [3]float64{want[0] - wrong[0], want[1] - wrong[1], want[2] - wrong[2]}; norm3(d) < 0.5*norm3(want) {
			t.Fatalf("impulse %v: the plate's own inertia gives %v, too near the declared %v to tell them apart", l, wrong, want)
		}
	}
	// In free flight (no torque) the angular momentum I w is kept: after a step it is the sum of the
	// impulses, to the integrator's rounding.
	if err := w.Step(); err != nil {
		t.Fatal(err)
	}
	o := w.Bodies.AngularVelocity[1]
	m := [3]float64{}
	for i := range 3 {
		for j := range 3 {
			m[i] += iw[i][j] * float64(o[j])
		}
	}
	if want := [3]float64{0.013, 0.006, 0.005}; !near3(m, want, 0.01*norm3(want)) {
		t.Errorf("angular momentum after a step %v, want %v", m, want)
	}
}

// solve3 returns a^-1 b by Cramer's rule.
func solve3(a [3][3]float64, b [3]float64) [3]float64 {
	det := func(m [3][3]float64) float64 {
		return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
			m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	}
	d := det(a)
	var x [3]float64
	for k := range 3 {
		c := a
		for i := range 3 {
			c[i][k] = b[i]
		}
		x[k] = det(c) / d
	}
	return x
}

func norm3(v [3]float64) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }

func sub3(a, b sim.Vec3) [3]float64 {
	return [3]float64{float64(a[0] - b[0]), float64(a[1] - b[1]), float64(a[2] - b[2])}
}

// A link's body has its centre of mass at the <inertial> origin, not at its shapes' centre: a box
// centred at (0, 0, 0.1) with its inertial origin at (0.05, 0.02, 0.3) is placed at that origin
// turned to y-up, (0.05, 0.3, -0.02), and its box stays where the file puts it.
func TestLinkCentreIsTheInertialOrigin(t *testing.T) {
	s, _ := robotScene(t, `<link name="l"><inertial><origin xyz="0.05 0.02 0.3"/><mass value="2"/>
		<inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial>
		<collision><origin xyz="0 0 0.1"/><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>`)
	b := s.Bodies[1]
	if b.CenterOfMass == nil || [3]float64(*b.CenterOfMass) != [3]float64{0.05, 0.02, 0.3} {
		t.Fatalf("centerOfMass %v, want the inertial origin", b.CenterOfMass)
	}
	w, err := s.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := w.Bodies.Position[1]
	if d := sub3(at, sim.Vec3{0.05, 0.3, -0.02}); norm3(d) > 1e-6 {
		t.Errorf("body's centre at %v, want (0.05, 0.3, -0.02)", at)
	}
	c := w.Bodies.Shape[1].Compound
	box := c.ChildPose(geom.Pose{P: at, Q: w.Bodies.Rotation[1]}, 0).P
	if d := sub3(box, sim.Vec3{0, 0.1, 0}); norm3(d) > 1e-6 {
		t.Errorf("box at %v, want (0, 0.1, 0)", box)
	}
}

// A link hung from the world by a continuous joint swings as a physical pendulum about the joint,
// its period 2 pi sqrt(I_p / (m g d)) with d the distance from the joint to the <inertial> origin and
// I_p = I_c + m d^2: a 1 kg link, I_c = 0.01 kg m^2, its inertial origin 0.8 m below the joint and its
// collision box (1 m long) centred 0.5 m below, started 0.05 rad out, has T = 1.8083 s (to 2e-4 at
// that amplitude); taken about the box's centre it would be 1.4466 s. Measured between the zero
// crossings of its swing over 6 s, within 1 %.
func TestLinkSwingsAboutItsInertialOrigin(t *testing.T) {
	s, _ := robotScene(t, `<link name="world"/>
		<joint name="pivot" type="continuous"><parent link="world"/><child link="bob"/>
			<origin xyz="0 0 3" rpy="0 0.05 0"/><axis xyz="0 1 0"/></joint>
		<link name="bob"><inertial><origin xyz="0 0 -0.8"/><mass value="1"/>
			<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
			<collision><origin xyz="0 0 -0.5"/><geometry><box size="0.1 0.1 1"/></geometry></collision></link>`)
	w, err := s.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const m, g, d, ic = 1.0, 9.81, 0.8, 0.01
	want := 2 * math.Pi * math.Sqrt((ic+m*d*d)/(m*g*d))
	i, _ := w.Index(mustFind(t, w, "bob"))
	swing := func() float64 { // the angle of the centre from straight down, about the pivot (0, 3, 0)
		p := w.Bodies.Position[i]
		return math.Atan2(float64(p[0]), 3-float64(p[1]))
	}
	dt := float64(w.Resolved().Dt)
	var crossings []float64
	prev := swing()
	for k := 1; float64(k)*dt < 6; k++ {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
		a := swing()
		if (prev < 0) != (a < 0) {
			crossings = append(crossings, (float64(k-1)+prev/(prev-a))*dt)
		}
		prev = a
	}
	if len(crossings) < 4 {
		t.Fatalf("%d zero crossings in 6 s", len(crossings))
	}
	got := 2 * (crossings[len(crossings)-1] - crossings[0]) / float64(len(crossings)-1)
	t.Logf("period %.5f s over %d crossings, analytic %.5f s", got, len(crossings), want)
	if math.Abs(got-want) > 0.01*want {
		t.Errorf("period %.4f s, want %.4f s +-1%%", got, want)
	}
}

func mustFind(t *testing.T, w *sim.World, name string) sim.Handle {
	t.Helper()
	h, ok := w.Find(name)
	if !ok {
		t.Fatalf("no body %s", name)
	}
	return h
}
