package sim

import (
	"math"
	"math/rand"
	"testing"
)

// worldInertiaTo, written out in scalars, gives the matrix form's bits (mathgl's rotation matrix of
// the quaternion, then R diag(inv) R^T entry by entry) for random orientations and inertias.
func TestWorldInertiaMatchesMatrixForm(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for k := 0; k < 100000; k++ {
		q := Quat{W: r.Float32()*2 - 1, V: Vec3{r.Float32()*2 - 1, r.Float32()*2 - 1, r.Float32()*2 - 1}}.Normalize()
		inv := Vec3{r.Float32() * 3, r.Float32(), r.Float32() * 10}
		rm := q.Mat4().Mat3()
		var want Mat3
		for c := 0; c < 3; c++ {
			for rr := 0; rr < 3; rr++ {
				want[c*3+rr] = rm[rr]*rm[c]*inv[0] + rm[3+rr]*rm[3+c]*inv[1] + rm[6+rr]*rm[6+c]*inv[2]
			}
		}
		if got := worldInertia(q, inv); got != want {
			t.Fatalf("q %v, inverse inertia %v: %v, want %v", q, inv, got, want)
		}
	}
}

// The wide gyroscopic step gives gyro's bits, body by body, for random shapes from a metre and 10 kg to a
// millimetre and 1e-12 kg (the smallest have determinants mathgl calls zero, or zero: the steps that
// skip an update or stop), orientations and spins from slow to violent, over sub-steps from 1/2400 s to 1/6 s.
func TestGyroWideMatchesScalar(t *testing.T) {
	if wideGyroKernel == nil {
		t.Skip("no wide gyroscopic step in this build (it needs GOEXPERIMENT=simd and AVX2): make test runs this package again with it")
	}
	r := rand.New(rand.NewSource(3))
	w := NewWorld(Settings{})
	const n = 512
	for k := 0; k < n; k++ {
		q := Quat{W: r.Float32()*2 - 1, V: Vec3{r.Float32()*2 - 1, r.Float32()*2 - 1, r.Float32()*2 - 1}}.Normalize()
		// sizes and masses over many decades, so that the Newton matrices' determinants fall on both
		// sides of Epsilon^2 (mathgl's zero), and to 0 (underflow)
		size := float32(math.Pow(10, -3*r.Float64()))
		mass := float32(math.Pow(10, 1-14*r.Float64()))
		mustAdd(t, w, BodyDef{Shape: boxShape(size*(0.5+r.Float32()), size*(0.1+r.Float32()*0.3), size*(0.1+r.Float32()*2)),
			Rotation: q, Mass: mass})
	}
	w.pipe.rot = resize(w.pipe.rot, n)
	for i := range n {
		w.pipe.rot[i] = quatMat3(w.Bodies.Rotation[i])
	}
	var idx [wideLanes]int32
	for trial := 0; trial < 400; trial++ {
		h := []float32{1.0 / 2400, 1.0 / 360, 1.0 / 60, 1.0 / 6}[trial%4]
		spin := []float32{0.1, 3, 40, 400}[trial/4%4]
		for i := range n {
			w.Bodies.AngularVelocity[i] = Vec3{(r.Float32()*2 - 1) * spin, (r.Float32()*2 - 1) * spin, (r.Float32()*2 - 1) * spin}
		}
		want := make([]Vec3, n)
		for i := range n {
			om := w.Bodies.AngularVelocity[i]
			w.gyro(i, h)
			want[i], w.Bodies.AngularVelocity[i] = w.Bodies.AngularVelocity[i], om
		}
		for l := range idx {
			idx[l] = int32(r.Intn(n/wideLanes)*wideLanes + l) // distinct bodies, in any group
		}
		wideGyroKernel(w, idx, h)
		for _, i := range idx {
			if got := w.Bodies.AngularVelocity[i]; !sameBits(got, want[i]) {
				t.Fatalf("trial %d (h %v, spin %v), body %d: wide %v, scalar %v", trial, h, spin, i, got, want[i])
			}
		}
	}
}
