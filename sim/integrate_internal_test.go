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
	w.Bodies.rot = resize(w.Bodies.rot, n)
	for i := range n {
		w.Bodies.rot[i] = quatMat3(w.Bodies.Rotation[i])
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

// TestRotateWideMatchesScalar checks the wide quaternion step against rotate bit for bit: unit and
// drifted quaternions under slow to fast spins, spins so slow that the step keeps the length at 1
// (normalizeQuat returns the quaternion as it is), a zero quaternion (the identity), and lengths past
// MaxFloat32 (clamped).
func TestRotateWideMatchesScalar(t *testing.T) {
	if wideRotateKernel == nil {
		t.Skip("no wide quaternion step in this build (it needs GOEXPERIMENT=simd and AVX2): make test runs this package again with it")
	}
	r := rand.New(rand.NewSource(5))
	w := NewWorld(Settings{})
	const n = 64
	for range n {
		mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.2, 0.1), Mass: 1})
	}
	w.Bodies.rot = resize(w.Bodies.rot, n)
	cases := map[string]int{}
	var idx [wideLanes]int32
	for trial := 0; trial < 2000; trial++ {
		hh := []float32{0.5 / 2400, 0.5 / 360, 0.5 / 60, 0.5 / 6}[trial%4]
		spin := []float32{1e-7, 0.1, 3, 40, 400}[trial/4%5]
		for i := range n {
			q := Quat{W: r.Float32()*2 - 1, V: Vec3{r.Float32()*2 - 1, r.Float32()*2 - 1, r.Float32()*2 - 1}}
			switch k := r.Intn(10); {
			case k < 6:
				q = q.Normalize()
			case k == 6:
				q = Quat{W: 1}
			case k == 7:
				q = Quat{}
			case k == 8:
				q = Quat{W: 3e38, V: Vec3{-3e38, 2e38, 1}}
			}
			w.Bodies.Rotation[i] = q
			w.Bodies.AngularVelocity[i] = Vec3{(r.Float32()*2 - 1) * spin, (r.Float32()*2 - 1) * spin, (r.Float32()*2 - 1) * spin}
			w.Bodies.rot[i] = Mat3{}
		}
		want := make([]Quat, n)
		wantRot := make([]Mat3, n)
		q0 := append([]Quat(nil), w.Bodies.Rotation...)
		for i := range n {
			w.rotate(i, hh)
			want[i], wantRot[i] = w.Bodies.Rotation[i], w.Bodies.rot[i]
			nw, nx, ny, nz := want[i].W, want[i].V[0], want[i].V[1], want[i].V[2]
			switch l := nw*nw + nx*nx + ny*ny + nz*nz; {
			case q0[i] == (Quat{}):
				cases["zero"]++
			case math.IsInf(float64(q0[i].W), 0) || q0[i].W > 1e38:
				cases["huge"]++
			case want[i] == q0[i]:
				cases["kept"]++
			case l > 0:
				cases["normalised"]++
			}
		}
		copy(w.Bodies.Rotation, q0)
		for l := range idx {
			idx[l] = int32(r.Intn(n/wideLanes)*wideLanes + l) // distinct bodies, in any group
		}
		wideRotateKernel(w, idx, hh)
		for _, i := range idx {
			if got := w.Bodies.Rotation[i]; !sameQuatBits(got, want[i]) {
				t.Fatalf("trial %d (hh %v, spin %v), body %d from %v: wide %v, scalar %v", trial, hh, spin, i, q0[i], got, want[i])
			}
			for e := range 9 {
				if g, h := w.Bodies.rot[i][e], wantRot[i][e]; math.Float32bits(g) != math.Float32bits(h) && (g == g || h == h) {
					t.Fatalf("trial %d, body %d: rotation matrix element %d: wide %v, scalar %v", trial, i, e, w.Bodies.rot[i], wantRot[i])
				}
			}
		}
	}
	for _, c := range []string{"zero", "huge", "kept", "normalised"} {
		if cases[c] == 0 {
			t.Errorf("no %s quaternion among the cases: %v", c, cases)
		}
	}
}

// sameQuatBits reports whether a and b are the same floats, bit for bit, but for a NaN's payload and
// sign (a blown-up body: the step's blow-up check catches it either way).
func sameQuatBits(a, b Quat) bool {
	same := func(x, y float32) bool {
		return math.Float32bits(x) == math.Float32bits(y) || x != x && y != y
	}
	return same(a.W, b.W) && same(a.V[0], b.V[0]) && same(a.V[1], b.V[1]) && same(a.V[2], b.V[2])
}

// XPBD's rotateBody, written out in scalars, gives mathgl's bits: q + 1/2 (th, 0) q through Quat and
// Vec3 operations, Normalize, and quatMat3 of the result, for random orientations and
// rotation vectors from 1e-9 to 1 rad (the position pass's corrections are small), and the body's
// summed correction grows by th.
func TestXPBDRotateBodyMatchesMathgl(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	w := NewWorld(Settings{})
	mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.2, 0.1), Mass: 1})
	w.Bodies.rot = resize(w.Bodies.rot, 1)
	w.pipe.xpbd.corrTh = resize(w.pipe.xpbd.corrTh, 1)
	for k := 0; k < 100000; k++ {
		q := Quat{W: r.Float32()*2 - 1, V: Vec3{r.Float32()*2 - 1, r.Float32()*2 - 1, r.Float32()*2 - 1}}
		if k%2 == 0 {
			q = q.Normalize() // as a body's rotation is; the odd ones are off unit length
		}
		size := float32(math.Pow(10, -9*r.Float64()))
		th := vec{X: (r.Float32()*2 - 1) * size, Y: (r.Float32()*2 - 1) * size, Z: (r.Float32()*2 - 1) * size}
		tv := th.Vec3()
		want := q
		want.W += 0.5 * -dot(tv, q.V)
		want.V = want.V.Add(tv.Mul(q.W).Add(cross(tv, q.V)).Mul(0.5))
		want = want.Normalize()
		corr := w.pipe.xpbd.corrTh[0]
		w.Bodies.Rotation[0] = q
		w.rotateBody(0, th)
		if got := w.Bodies.Rotation[0]; got != want {
			t.Fatalf("q %v, th %v: %v, want %v", q, th, got, want)
		}
		if got := w.Bodies.rot[0]; got != quatMat3(want) {
			t.Fatalf("q %v, th %v: matrix %v, want %v", q, th, got, quatMat3(want))
		}
		if got := w.pipe.xpbd.corrTh[0]; got != corr.Add(th) {
			t.Fatalf("summed correction %v, want %v", got, corr.Add(th))
		}
	}
}
