package sim

import (
	"math"
	"slices"
	"testing"
)

// TestSolveManifoldMatchesHelpers checks that the hand-written contact pass (solveManifold, which
// carries the rows' relative velocities along n, t1 and t2 instead of the linear velocities) gives
// the impulses and velocities of the row-by-row Gauss-Seidel pass written with the row helpers
// (solveManifoldHelpers) up to float32 rounding, biased and relaxed, over three passes on manifolds
// that cover every branch: resting and speculative (open) points, sticking and sliding friction,
// static and dynamic pairs. The bound is fifty roundings of the largest value compared; a
// dropped or mis-signed term in the carried velocities is off by a good fraction of an impulse.
func TestSolveManifoldMatchesHelpers(t *testing.T) {
	// The scalar pass throughout: with the wide one (GOEXPERIMENT=simd) the manifolds' own
	// separations are not refreshed (the batches' are), and this test reads them.
	w := gravityWorld(Settings{Solver: PGS, Workers: 1})
	defer w.Close()
	mustOptions(t, w, Options{Scalar: true})
	groundPlane(t, w, 0.6, 0)
	for row := 0; row < 4; row++ {
		for k := 0; k < 4-row; k++ {
			x := (float32(k) - float32(3-row)/2) * 1.05
			mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{x, 0.5 + float32(row), 0}, Friction: 0.6})
		}
	}
	// A box sliding fast along the ground (friction clamped), and one falling onto the pyramid.
	mustAdd(t, w, BodyDef{Shape: boxShape(0.3, 0.3, 0.3), Position: Vec3{0, 0.3, 4}, Velocity: Vec3{6, 0, 0}, Friction: 0.2})
	mustAdd(t, w, BodyDef{Shape: boxShape(0.3, 0.3, 0.3), Position: Vec3{0.2, 6, 0}, Velocity: Vec3{0, -3, 0},
		AngularVelocity: Vec3{2, 1, 3}, Friction: 0.5})
	p := &w.pipe
	b := &w.Bodies
	// Step until the last step's manifolds (as its last relax pass left them) hold every kind of point.
	var open, sliding, sticking, static int
	for step := 0; step < 120 && (open == 0 || sliding == 0 || sticking == 0 || static == 0); step++ {
		run(t, w, 1)
		open, sliding, sticking, static = 0, 0, 0, 0
		for _, m := range p.narrow.prev {
			if b.InvMass[m.a] == 0 || b.InvMass[m.b] == 0 {
				static++
			}
			for _, cp := range m.pts[:m.count] {
				switch {
				case cp.sep > 0:
					open++
				case cp.sliding:
					sliding++
				default:
					sticking++
				}
			}
		}
	}
	if open == 0 || sliding == 0 || sticking == 0 || static == 0 {
		t.Fatalf("the scene covers too little: %d open, %d sliding, %d sticking points, %d static manifolds",
			open, sliding, sticking, static)
	}
	start := p.narrow.prev
	v0 := slices.Clone(b.Velocity)
	w0 := slices.Clone(b.AngularVelocity)
	pass := func(solve func(*manifold, bool), useBias bool) ([]manifold, []Vec3, []Vec3) {
		copy(b.Velocity, v0)
		copy(b.AngularVelocity, w0)
		ms := slices.Clone(start)
		for range 3 {
			for k := range ms {
				solve(&ms[k], useBias)
			}
		}
		return ms, slices.Clone(b.Velocity), slices.Clone(b.AngularVelocity)
	}
	for _, useBias := range []bool{true, false} {
		m1, v1, w1 := pass(w.solveManifold, useBias)
		m2, v2, w2 := pass(w.solveManifoldHelpers, useBias)
		// The largest velocity and impulse set the scale of a rounding.
		var vScale, iScale float64
		for i := range v2 {
			for k := range 3 {
				vScale = max(vScale, math.Abs(float64(v2[i][k])), math.Abs(float64(w2[i][k])))
			}
		}
		for k := range m2 {
			for _, c := range m2[k].pts[:m2[k].count] {
				iScale = max(iScale, math.Abs(float64(c.normalImpulse)), math.Abs(float64(c.tangentImpulse[0])),
					math.Abs(float64(c.tangentImpulse[1])))
			}
		}
		const roundings = 50 * 0x1p-24
		vTol, iTol := roundings*vScale, roundings*iScale
		var vErr, iErr float64
		for i := range v1 {
			for k := range 3 {
				vErr = max(vErr, math.Abs(float64(v1[i][k]-v2[i][k])), math.Abs(float64(w1[i][k]-w2[i][k])))
				if math.Abs(float64(v1[i][k]-v2[i][k])) > vTol || math.Abs(float64(w1[i][k]-w2[i][k])) > vTol {
					t.Fatalf("bias %v: body %d: velocity %v %v, helpers give %v %v (bound %.3g)", useBias, i,
						v1[i], w1[i], v2[i], w2[i], vTol)
				}
			}
		}
		for k := range m1 {
			for i := range m1[k].count {
				a, c := &m1[k].pts[i], &m2[k].pts[i]
				for _, d := range []float32{a.normalImpulse - c.normalImpulse, a.maxNormal - c.maxNormal,
					a.tangentImpulse[0] - c.tangentImpulse[0], a.tangentImpulse[1] - c.tangentImpulse[1]} {
					iErr = max(iErr, math.Abs(float64(d)))
					if math.Abs(float64(d)) > iTol {
						t.Fatalf("bias %v: manifold %d point %d: %+v, helpers give %+v (bound %.3g)", useBias, k, i,
							*a, *c, iTol)
					}
				}
			}
		}
		t.Logf("bias %v: largest difference %.3g m/s (bound %.3g), %.3g N s (bound %.3g)", useBias, vErr, vTol, iErr, iTol)
	}
}
