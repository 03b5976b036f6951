package sim

import (
	"fmt"
	"runtime"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim/geom"
)

// Vec3 is the simulation's 3-vector (float32).
type Vec3 = geom.Vec3

// Quat is the simulation's unit quaternion.
type Quat = geom.Quat

// Mat3 is the simulation's column-major 3x3 matrix.
type Mat3 = geom.Mat3

// SolverKind selects the constraint solver.
type SolverKind uint8

// The solvers. SolverDefault picks the backend's default (PGS on the CPU).
const (
	SolverDefault SolverKind = iota
	// Jacobi computes every row from the same old velocities and sums the impulses per body, with mass
	// splitting (seed 000; the GPU's solver).
	Jacobi
	// PGS is projected Gauss-Seidel over graph colours (the CPU default).
	PGS
	// XPBD is the sub-stepped position-based solver of seed 002 (Mueller et al. 2020), with a velocity
	// pass for friction, restitution, joint motors and damping.
	XPBD
	// Impulse is seed 003's impulse-based collision response, a teaching solver: each contact point in
	// turn gets the impulse j = K^-1 (v_new - v) to the seed's post-impulse velocity, with restitution
	// that decays to 0 for slow approaches, and overlap projected out (solver_impulse.go).
	Impulse
	// Penalty is seed 003's penalty method, a teaching solver: contacts are springs and dampers
	// integrated explicitly, so bodies sink in and overshoot (solver_penalty.go).
	Penalty
	// ShapeMatch is PGS with seed 003's shape matching (Müller et al. 2005): each sub-step pulls the
	// members of every cluster (World.AddCluster) towards the best-fit rotation of its rest shape, so a
	// cluster of bodies moves like one soft, jelly-like body (solver_shapematch.go, cluster.go).
	ShapeMatch
	// Rigid is projected Gauss-Seidel with rigid contacts and joints, as Jolt and Box2D v2.4 solve
	// them: one step of warm-started velocity passes with no position feedback, then position passes
	// that push the remaining overlap and joint drift out by moving the bodies (solver_rigid.go).
	Rigid
)

var solverNames = [...]string{"default", "jacobi", "pgs", "xpbd", "impulse", "penalty", "shapematch", "rigid"}

// String returns the solver's name as used in scene files and on the command line.
func (k SolverKind) String() string {
	if int(k) < len(solverNames) {
		return solverNames[k]
	}
	return "unknown"
}

// Solvers lists the solvers, in the order the panel offers them.
func Solvers() []SolverKind {
	return []SolverKind{PGS, Rigid, Jacobi, XPBD, Impulse, Penalty, ShapeMatch}
}

// SolverNames lists the solvers' names as ParseSolver accepts them, for messages.
const SolverNames = "jacobi, pgs, rigid, xpbd, impulse, penalty or shapematch"

// ParseSolver maps a name (one of SolverNames: "jacobi", "pgs", "rigid", "xpbd", "impulse", "penalty",
// "shapematch") to a SolverKind.
func ParseSolver(name string) (SolverKind, error) {
	for i, n := range solverNames {
		if n == name && i != 0 {
			return SolverKind(i), nil
		}
	}
	return SolverDefault, fmt.Errorf("unknown solver %q (want %s)", name, SolverNames)
}

// BroadphaseKind selects the broad phase.
type BroadphaseKind uint8

// The broad phases. BroadDefault picks LBVH. Every one returns the same pairs; they differ in speed.
const (
	BroadDefault BroadphaseKind = iota
	// LBVH is the linear BVH of package bvh: Morton codes, radix sort, Karras build, bottom-up fit,
	// per-body traversal (the GPU's broad phase). The default.
	LBVH
	// SAP is sort and sweep in stripes, keeping the order between steps (package broad).
	SAP
	// Grid is a uniform grid, good when the bodies' sizes are alike (package broad).
	Grid
	// Brute tests every pair: the O(n^2) reference.
	Brute
)

var broadphaseNames = [...]string{"default", "lbvh", "sap", "grid", "brute"}

// String returns the broad phase's name as used in scene files and on the command line.
func (k BroadphaseKind) String() string {
	if int(k) < len(broadphaseNames) {
		return broadphaseNames[k]
	}
	return "unknown"
}

// ParseBroadphase maps a name ("lbvh", "sap", "grid", "brute") to a BroadphaseKind.
func ParseBroadphase(name string) (BroadphaseKind, error) {
	for i, n := range broadphaseNames {
		if n == name && i != 0 {
			return BroadphaseKind(i), nil
		}
	}
	return BroadDefault, fmt.Errorf("unknown broad phase %q (want lbvh, sap, grid or brute)", name)
}

// DefaultBVHRefit is the LBVH's refit threshold when Settings.BVHRefit is 0: refit while the tree's
// cost is within 10% of a fresh build's. Measured: refitting skips the four build
// stages (11-15% of the broad phase); at 1.1 a falling cloud is rebuilt every ~12 steps with no slower
// queries, while at 1.25 and above the queries slow down faster than the cost metric grows.
const DefaultBVHRefit = 1.1

// Settings are the world's tunable parameters. The zero value is usable: every zero field means the
// documented default (so a Settings{} world has zero gravity; scenes supply gravity explicitly).
type Settings struct {
	Gravity    Vec3       // m/s^2
	Dt         float32    // seconds per step; 0 means 1/60
	Solver     SolverKind // 0 means PGS
	Substeps   int        // soft sub-steps per step; 0 means 8 (PGS) or 16 (Jacobi)
	Iterations int        // solver iterations per sub-step; 0 means 4 (PGS) or 2 (Jacobi)

	RelaxIterations int // relax passes per sub-step; 0 means min(Iterations, 2)

	NoFriction    bool // friction rows off
	NoWarmStart   bool // start every step from zero impulses
	NoRelax       bool // skip the relax pass (keeps the bias velocity in the bodies: bouncier stacks)
	NoRestitution bool // ignore restitution coefficients

	// NoContactCache makes the narrow phase test every touching pair afresh each step. By default a
	// pair whose relative pose moved less than CacheMaxShift and turned less than CacheMaxTurn since
	// its points were computed reuses them, moved with the bodies (Jolt's body pair cache), as the
	// solvers with ParamContactCache do (every solver but Jacobi, whose CPU step matches the GPU's).
	NoContactCache bool

	ContactHertz         float32 // contact stiffness; 0 means 120 (PGS) or 240 (Jacobi), capped at a quarter of the sub-step rate
	DampingRatio         float32 // contact damping ratio; 0 means 10
	MaxPushOut           float32 // cap on the velocity that resolves overlap, m/s; 0 means 3
	RestitutionThreshold float32 // relative normal speed under which nothing bounces, m/s; 0 means 1
	LinearSlop           float32 // allowed overlap, m; 0 means 0.005
	Speculative          float32 // contacts are made this far apart, m; 0 means 4 x LinearSlop
	MaxLinearSpeed       float32 // a body faster than this is a blow-up, m/s; 0 means 1e4

	// JointDamping damps the relative motion of jointed bodies, 1/s (XPBD's velocity pass removes
	// min(JointDamping h, 1) of it each sub-step); 0 means none. The velocity solvers ignore it: their
	// soft joint rows carry their own damping.
	JointDamping float32

	// DirectJoints solves the joints' equality rows (everything but limits and motors) of the velocity
	// solvers (PGS, Jacobi) directly: A = J M^-1 J^T factored as L D L^T in leaf-to-root order, exact
	// in every pass, with rigid rows instead of soft ones (joint_direct.go). Contacts stay iterative.
	// The other solvers do not read it.
	DirectJoints bool

	// PenaltyStiffness and PenaltyDamping are the penalty solver's contact springs, per contact point:
	// N/m and N s/m; 0 means auto, each point's spring scaled to the pair's effective mass there
	// (PenaltyOmega, PenaltyDampingRatio; solver_penalty.go). The other solvers do not read them.
	PenaltyStiffness float32
	PenaltyDamping   float32

	Workers int // CPU worker goroutines; 0 means GOMAXPROCS

	Broadphase BroadphaseKind // 0 means LBVH

	// Sleep lets islands of touching or jointed bodies that have all been at rest for SleepTime
	// fall asleep (off by default: the physics tests watch every body move).
	Sleep     bool
	SleepTime float32 // seconds at rest before an island sleeps; 0 means 0.5
	// BVHRefit lets the LBVH refit its tree instead of rebuilding it while the tree's cost stays within
	// this factor of a fresh build's (bvh.LBVH.RefitGrowth). 0 means DefaultBVHRefit; 1 (or less)
	// rebuilds it on every query (the broad phase runs only when a body leaves its grown box: FatMargin).
	BVHRefit float32
}

// Resolve returns the settings with every default filled in, as a World resolves them. The defaults
// of some fields depend on the solver, so a backend whose default solver differs sets it first.
func (s Settings) Resolve() Settings { return s.resolved() }

// resolved returns the settings with every default filled in.
func (s Settings) resolved() Settings {
	if s.Dt == 0 {
		s.Dt = 1.0 / 60
	}
	if s.Solver == SolverDefault {
		s.Solver = PGS
	}
	if s.Broadphase == BroadDefault {
		s.Broadphase = LBVH
	}
	if s.BVHRefit == 0 {
		s.BVHRefit = DefaultBVHRefit
	}
	if s.SleepTime <= 0 {
		s.SleepTime = 0.5
	}
	// The solver's own defaults: sub-steps, iterations and contact stiffness (see each solver's file).
	SolverOf(s.Solver).defaults(&s)
	if s.RelaxIterations <= 0 {
		s.RelaxIterations = min(s.Iterations, 2)
	}
	if s.DampingRatio == 0 {
		s.DampingRatio = 10
	}
	if s.MaxPushOut == 0 {
		s.MaxPushOut = 3
	}
	if s.RestitutionThreshold == 0 {
		s.RestitutionThreshold = 1
	}
	if s.LinearSlop == 0 {
		s.LinearSlop = 0.005
	}
	if s.Speculative == 0 {
		s.Speculative = 4 * s.LinearSlop
	}
	if s.MaxLinearSpeed == 0 {
		s.MaxLinearSpeed = 1e4
	}
	if s.Workers <= 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	return s
}

func identityIfZero(q Quat) Quat {
	if q.W == 0 && q.V == (Vec3{}) {
		return mgl32.QuatIdent()
	}
	return q.Normalize()
}

// Check reports settings the world cannot run (an unknown solver).
func (s Settings) Check() error {
	if int(s.Solver) >= len(solverTable) {
		return fmt.Errorf("unknown solver %d", s.Solver)
	}
	if s.Broadphase > Brute {
		return fmt.Errorf("unknown broad phase %d", s.Broadphase)
	}
	return nil
}
