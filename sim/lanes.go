package sim

// The wide row kernels have one source. PGS's wide passes (the contact rows' solve, relax, warm
// start, refresh and prepare; the ball, hinge and piston joints' rows) run eight lanes at a time on AVX2 and
// sixteen on AVX-512 (wide.go). Both forms come from rows_template.go: the generator lanegen
// (sim/internal/lanegen) writes it out as rows8_simd.go and rows16_simd.go, renaming every identifier
// that ends in _W for the width (f_W is f8 or f16, solve_W is solve8 or solve16), and
// TestGeneratedIsCurrent fails while they are stale. A new row form, or a change to a row's maths,
// goes into rows_template.go, followed by `make generate` (or `go generate ./sim`); the scalar form
// (contact_solver.go, joint_solver.go, joint_part.go) stays the reference, and the wide tests
// (TestWidePassMatchesScalar, TestWideJointsMatchScalar, ...) hold both forms to it bit for bit.
//
// What the widths do differently is a small hand-written helper per width with one signature, which
// the template calls: how a batch's rows are read (rows8, point8, l8 read half h of a batch through a
// view shifted by 8h floats; rows16, point16, l16 read the whole batch, h always 0), how the bodies'
// velocities and poses are gathered and scattered (gatherVel8 and gatherVel16, ...), in
// wide_simd.go and wide16_simd.go. A kernel with no vector maths (a gather's shuffles) stays
// hand-written per width.

//go:generate go run ./internal/lanegen
