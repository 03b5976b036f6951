package sim

// What a backend needs to read of the joints to solve them itself (package gpu): the frames fixed at
// creation, which stay private to the CPU solver, and the soft coefficients the velocity solvers give
// the joint rows.

// JointFrame is joint i as a solver sees it: its definition, its bodies' dense indices, and the
// anchors, axes and reference rotation fixed in each body's frame when the joint was made.
type JointFrame struct {
	Def JointDef
	// A and B are the dense indices of BodyA and BodyB now; B is -1 for the static world.
	A, B int
	// LocalA, LocalB: the anchor in A's and B's frames (B's is a world point for the static world).
	LocalA, LocalB Vec3
	// AxisA, AxisB: the joint axis (hinge, piston slide, ball twist; +y when the joint has none).
	AxisA, AxisB Vec3
	// PerpA, PerpB: a direction perpendicular to the axis, the zero of the hinge and twist angles.
	PerpA, PerpB Vec3
	// Rel0 is qA^-1 qB at creation: the relative rotation the piston and fixed joints hold.
	Rel0 Quat
	// ID is unique to the joint in its world: AddJoint gives each joint a new one, which it keeps when
	// joints before it are removed and when UpdateJoint edits it. A backend that keeps state per joint
	// across edits matches its copy by ID.
	ID uint64
}

// JointFrame returns joint i's frame. Dense indices move when bodies are removed, so a backend must
// read the frames again after any removal, not only when joints were edited.
func (w *World) JointFrame(i int) JointFrame {
	j := &w.joints[i]
	a, _ := w.dense(j.def.BodyA)
	b := -1
	if j.def.BodyB != (Handle{}) {
		b, _ = w.dense(j.def.BodyB)
	}
	return JointFrame{
		Def: j.def, A: a, B: b,
		LocalA: j.localA.Vec3(), LocalB: j.localB.Vec3(),
		AxisA: j.axisA.Vec3(), AxisB: j.axisB.Vec3(),
		PerpA: j.perpA.Vec3(), PerpB: j.perpB.Vec3(),
		Rel0: j.rel0, ID: j.id,
	}
}
