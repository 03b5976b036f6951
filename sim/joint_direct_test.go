package sim

import (
	"testing"
	"time"
	"tumble/sim/geom"
	"tumble/sim/internal/vecmath"
)

// A 100-link chain released horizontally swings down and whips; under the direct joint solve its
// joints hold to float32 rounding: positions near 20 m carry 2e-6 m of rounding, and each sub-step's
// rotation is first order, so the stretch stays within 1e-4 m (measured: about 1e-5 m). The iterative
// soft joints at the same sub-steps stretch by centimetres under the whole chain's weight and whip.
func TestDirectJointsHoldAHundredLinkChain(t *testing.T) {
	steps := 180
	if testing.Short() {
		steps = 90
	}
	for _, solver := range []SolverKind{PGS, Jacobi} {
		direct, _ := chainWorld(t, Settings{Solver: solver, DirectJoints: true}, 100, 0.2, 1, false)
		iter, _ := chainWorld(t, Settings{Solver: solver}, 100, 0.2, 1, false)
		var worstD, worstI float32
		var tD, tI time.Duration
		for range steps {
			t0 := time.Now()
			run(t, direct, 1)
			t1 := time.Now()
			run(t, iter, 1)
			tD += t1.Sub(t0)
			tI += time.Since(t1)
			worstD, worstI = max(worstD, direct.MaxJointGap()), max(worstI, iter.MaxJointGap())
		}
		t.Logf("%v: max stretch %.2e m direct (%.2f ms/step), %.2e m iterative (%.2f ms/step)", solver,
			worstD, tD.Seconds()*1e3/float64(steps), worstI, tI.Seconds()*1e3/float64(steps))
		if worstD > 1e-4 {
			t.Errorf("%v: direct joints stretched %.2e m, want < 1e-4", solver, worstD)
		}
		if worstI < 10*worstD {
			t.Errorf("%v: iterative joints stretched %.2e m, not clearly more than the direct %.2e m", solver, worstI, worstD)
		}
		if st := direct.DirectJointStats(); st.Joints != 100 || st.Blocks != 99 || st.Fill != 0 {
			t.Errorf("%v: the chain's system is %+v, want 100 joints, 99 blocks and no fill", solver, st)
		}
	}
}

// A loop of bodies (a square of four bars joined at the corners by ball joints, one corner pinned to
// the world) is not a tree: the loop-closing joint is eliminated last and fills in blocks, and the
// loop still holds, falling and swinging, to float32 rounding.
func TestDirectJointsHoldALoop(t *testing.T) {
	w := gravityWorld(Settings{DirectJoints: true})
	const y0 = 5
	corners := []Vec3{{0, y0, 0}, {1, y0, 0}, {1, y0, 1}, {0, y0, 1}}
	var bars []Handle
	for k := range corners {
		a, b := corners[k], corners[(k+1)%4]
		mid := a.Add(b).Mul(0.5)
		he := b.Sub(a).Mul(0.5)
		he = Vec3{max(vecmath.Abs(he[0]), 0.05), 0.05, max(vecmath.Abs(he[2]), 0.05)}
		bars = append(bars, mustAdd(t, w, BodyDef{Shape: geom.Shape{Kind: geom.Box, HalfExtents: he}, Position: mid, Mass: 1}))
	}
	for k := range corners {
		mustJoint(t, w, JointDef{Type: Ball, BodyA: bars[k], BodyB: bars[(k+3)%4], Anchor: corners[k]})
	}
	mustJoint(t, w, JointDef{Type: Ball, BodyA: bars[1], Anchor: corners[1]})
	worst := float32(0)
	for range 120 {
		run(t, w, 1)
		worst = max(worst, w.MaxJointGap())
	}
	st := w.DirectJointStats()
	t.Logf("max stretch %.2e m; system %+v", worst, st)
	if st.Fill == 0 {
		t.Errorf("a loop's elimination added no block: %+v", st)
	}
	if worst > 1e-4 {
		t.Errorf("the loop stretched %.2e m, want < 1e-4", worst)
	}
}
