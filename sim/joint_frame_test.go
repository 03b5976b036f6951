package sim

import "testing"

// StepConstantsOf's joint softness, which the CUDA backend takes, must be what Step itself gives the
// joint rows, for every velocity solver and for settings that hit each of its caps (the sub-step
// rate, Jacobi's contact frequency).
func TestJointSoftnessMatchesStep(t *testing.T) {
	for _, s := range []Settings{
		{Solver: PGS}, {Solver: Jacobi}, {Solver: Jacobi, Substeps: 1}, {Solver: PGS, Substeps: 2, ContactHertz: 30},
		{Solver: Jacobi, Dt: 1.0 / 240, Substeps: 3, ContactHertz: 1000},
	} {
		w := chainsWorld(t, s, 1, 3)
		run(t, w, 1)
		j := StepConstantsOf(s.resolved()).Joint
		if got := w.pipe.joints.jointSoft; got.biasRate != j.BiasRate || got.massScale != j.MassScale || got.impulseScale != j.ImpulseScale {
			t.Errorf("%+v: StepConstantsOf's joint softness %+v, Step used %+v", s, j, got)
		}
		w.Close()
	}
}

// JointFrame exposes the private frames and the dense indices Step resolves, also after a removal
// moved a body to another index.
func TestJointFrameMatchesTheSolversJoint(t *testing.T) {
	w := NewWorld(Settings{Solver: Jacobi})
	defer w.Close()
	var hs []Handle
	for i := 0; i < 4; i++ {
		hs = append(hs, mustAdd(t, w, BodyDef{Shape: sphereShape(0.2), Position: Vec3{float32(i), 1, 0}}))
	}
	mustJoint(t, w, JointDef{Type: Hinge, BodyA: hs[3], BodyB: hs[2], Anchor: Vec3{2.5, 1, 0}, Axis: Vec3{0, 0, 2}})
	mustJoint(t, w, JointDef{Type: Piston, BodyA: hs[1], Anchor: Vec3{1, 1, 0}, Axis: Vec3{1, 1, 0}})
	if err := w.RemoveBody(hs[0]); err != nil {
		t.Fatal(err)
	}
	run(t, w, 1)
	for i := range w.joints {
		j, f := &w.joints[i], w.JointFrame(i)
		if f.A != int(j.a) || f.B != int(j.b) || f.Def != j.def || f.LocalA != j.localA.Vec3() || f.LocalB != j.localB.Vec3() ||
			f.AxisA != j.axisA.Vec3() || f.AxisB != j.axisB.Vec3() || f.PerpA != j.perpA.Vec3() || f.PerpB != j.perpB.Vec3() || f.Rel0 != j.rel0 {
			t.Errorf("joint %d: frame %+v does not match the solver's joint", i, f)
		}
	}
	if f := w.JointFrame(0); f.A != 0 { // body 3 moved into the removed body's slot
		t.Errorf("joint 0: A = %d, want 0 (the moved body's new index)", f.A)
	}
}
