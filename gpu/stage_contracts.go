package gpu

import "tumble/sim"

// The contracts between the stages of the CUDA step, each in its own file:
//
//	bounds and broad phase  broad.go   (kernels/bounds.cu, kernels/lbvh.cu)
//	narrow phase            narrow.go  (kernels/narrow.cu)
//	contact solver, integration, the sub-step loop   solver.go  (kernels/solver.cu, kernels/integrate.cu)
//	joints                  joints.go  (kernels/joints.cu)
//	renderer transforms     transforms.go (kernels/transforms.cu)
//	the small-world path    small.go   (kernels/small.cu)
//
// backend.go owns the body buffers and runs the step's sim.Plan (runPlan): bounds and broad phase in
// broad.go, the narrow phase in narrow.go, and Prepare and every later stage in solver.go
// (solverStage.prepare and run), the same stages in the same order as the CPU. In a small world
// (small.go) solverStage.run keeps the stages from the first sub-step to the step's end and launches
// them as one kernel there.

// softness mirrors the CPU solver's soft-constraint coefficients (Box2D v3's soft step) for one sub-step.
type softness struct {
	biasRate, massScale, impulseScale float32
}

// stepConsts are the values every solver stage derives from the settings for one step.
type stepConsts struct {
	s                              sim.Settings // resolved
	h, invH                        float32      // sub-step and its inverse
	contactSoft, staticSoft, joint softness
	limit                          softness // the joints' limit rows' (sim.StepConstants.Limit)
}

// jointHooks is what the sub-step loop (solver.go) calls for the joints (joints.go implements it).
// Every method only launches kernels; none reads back.
type jointHooks interface {
	// count adds each joint's share to the split counts (uint32 per body) before prepare.
	count(d device, b *bodyBuffers, split ptr) error
	// prepare fixes the joints' effective masses for the step (split masses under Jacobi; a zero
	// split count, PGS's, is one).
	prepare(d device, b *bodyBuffers, split ptr, c *stepConsts) error
	// refresh recomputes what depends on positions (called after positions change).
	refresh(d device, b *bodyBuffers, c *stepConsts) error
	// warmStart records the joints' accumulated impulses (lists).
	warmStart(d device, b *bodyBuffers, c *stepConsts) error
	// solve runs one Jacobi pass of the joint rows, recording their impulse changes (lists).
	solve(d device, b *bodyBuffers, c *stepConsts, useBias bool) error
	// lists returns the joints' impulse records (three float4 per joint: lin, angA, angB) and each
	// body's list of its joints in joint order (dense rows start, adj: k << 1 | side), which
	// tb_solver_gather adds after the contacts'.
	lists() (imp, start, adj ptr)
	// rows returns the joints' array (tbJoint), their number and each joint's force (float32), which
	// the small path's one kernel (small.go) solves and writes as the per-pass kernels do.
	rows() (joints ptr, n int, force ptr)
	// colour colours the joints for the Gauss-Seidel passes into g, the colours they needed into the
	// int32 at needed.
	colour(d device, b *bodyBuffers, g *colouring, needed ptr) error
	// gsPass runs one Gauss-Seidel pass of the joints, colour by colour (g), on the bodies' velocities.
	gsPass(d device, b *bodyBuffers, c *stepConsts, g *colouring, useBias bool) error
}
