package urdf

import (
	"math"
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
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
