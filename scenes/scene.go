// Package scenes is Tumble's scene file format (schema v1, JSON): Go types that mirror the file, Parse
// and Load with full validation, Save, the conversion of a scene into a sim.World, and the built-in
// presets.
//
// The types keep what the file said, not what it means: an optional field is a pointer (or an empty
// string) that stays nil when the file leaves it out, so defaults are applied only when a world is
// built and save(load(x)) writes back the same scene. Every error names the file, the JSON path and the
// offending value (see Error), and nothing is half-loaded. docs/SCENES.md is the user's reference.
package scenes

import (
	"math"

	"strconv"
	"strings"
)

// Vec3 is a 3-vector as written in a scene file.
type Vec3 [3]float64

// Quat is a rotation quaternion in file order [x, y, z, w] (glTF's; mgl32.Quat is {W, V}).
type Quat [4]float64

// Scene is a scene file, schema v1. Nil pointers and empty strings are fields the file left out.
type Scene struct {
	Name    string   `json:"name,omitempty"`
	Gravity *Vec3    `json:"gravity,omitempty"` // m/s^2; default DefaultGravity
	Dt      *float64 `json:"dt,omitempty"`      // seconds per step; default DefaultDt
	Solver  *Solver  `json:"solver,omitempty"`
	Bodies  []Body   `json:"bodies"`
	Joints  []Joint  `json:"joints,omitempty"`
	// Clusters are Tumble's extension: shape-matching clusters, which need solver.type "shapematch".
	Clusters []Cluster `json:"clusters,omitempty"`

	// Broadphase is Tumble's extension: "lbvh", "sap", "grid" or "brute"; default "lbvh".
	Broadphase string `json:"broadphase,omitempty"`

	// View is Tumble's extension: how the window shows the scene. Headless runs ignore it.
	View *View `json:"view,omitempty"`
}

// View is how the window shows a scene (Tumble's extension).
type View struct {
	// Follow names a body the camera follows from the start (as if it were selected and C pressed),
	// for a scene that moves away from where it starts, such as the car.
	Follow string `json:"follow,omitempty"`
}

// Solver holds the solver settings. Type, Iterations, Substeps, Friction and WarmStart are the
// contract's; the others are Tumble's extensions. Every field but Type and Sleep is a tunable setting
// of sim.Tunables (its JSON name is the descriptor's Key): a scene that sets one its solver does not
// read is refused.
type Solver struct {
	Type       string `json:"type,omitempty"`       // "jacobi", "pgs", "xpbd", "impulse", "penalty" or "shapematch"; default: the backend's
	Iterations *int   `json:"iterations,omitempty"` // per sub-step; default: the solver's
	Substeps   *int   `json:"substeps,omitempty"`   // per step; default: sim.Settings
	Friction   *bool  `json:"friction,omitempty"`   // friction rows on; default true
	WarmStart  *bool  `json:"warmStart,omitempty"`  // start from last step's impulses; default true

	Relax        *bool    `json:"relax,omitempty"`        // relax pass after the soft solve; default true
	Restitution  *bool    `json:"restitution,omitempty"`  // bounce by the bodies' restitution; default true
	ContactHertz *float64 `json:"contactHertz,omitempty"` // contact stiffness, Hz; default: sim.Settings
	DampingRatio *float64 `json:"dampingRatio,omitempty"` // contact damping ratio; default: sim.Settings
	Sleep        *bool    `json:"sleep,omitempty"`        // let resting islands sleep; default false
	// DirectJoints solves the joints' equality rows directly (pgs, jacobi); default false.
	DirectJoints *bool `json:"directJoints,omitempty"`
	// ContactCache lets a touching pair reuse its contact points while its bodies barely move
	// relative to each other (every solver but jacobi; sim.Settings.NoContactCache); default true.
	ContactCache *bool `json:"contactCache,omitempty"`
	// RelaxIterations is the relax passes per sub-step (pgs, jacobi, shapematch); default: the
	// solver's. JointDamping (1/s) damps jointed bodies' relative motion (xpbd); default none.
	RelaxIterations *int     `json:"relaxIterations,omitempty"`
	JointDamping    *float64 `json:"jointDamping,omitempty"`
	// PenaltyStiffness (N/m) and PenaltyDamping (N s/m) are the penalty solver's contact springs, per
	// contact point; default (or 0): auto, scaled to each point's effective mass (sim.PenaltyOmega,
	// sim.PenaltyDampingRatio).
	PenaltyStiffness *float64 `json:"penaltyStiffness,omitempty"`
	PenaltyDamping   *float64 `json:"penaltyDamping,omitempty"`
	// MaxPushOut (m/s) caps the velocity that pushes overlap out (pgs, jacobi, shapematch);
	// RestitutionThreshold (m/s) is the approach speed under which nothing bounces.
	MaxPushOut           *float64 `json:"maxPushOut,omitempty"`
	RestitutionThreshold *float64 `json:"restitutionThreshold,omitempty"`
}

// Body is one rigid body.
type Body struct {
	Name  string `json:"name,omitempty"` // unique; default "body<index>"
	Type  string `json:"type,omitempty"` // "dynamic" (default), "kinematic" or "static"
	Shape Shape  `json:"shape,omitzero"` // one shape; or
	// Shapes makes a compound body: several shapes, each posed in the body's frame with its own
	// mass and material. Its position is the whole's centre of mass.
	Shapes          []Part   `json:"shapes,omitempty"`
	Position        *Vec3    `json:"position,omitempty"`        // centre of mass, world; default origin
	Rotation        *Quat    `json:"rotation,omitempty"`        // [x, y, z, w]; default identity
	Velocity        *Vec3    `json:"velocity,omitempty"`        // world, m/s; default zero
	AngularVelocity *Vec3    `json:"angularVelocity,omitempty"` // world, rad/s; default zero
	Mass            *float64 `json:"mass,omitempty"`            // kg; or
	Density         *float64 `json:"density,omitempty"`         // kg/m^3; default sim.DefaultDensity
	Friction        *float64 `json:"friction,omitempty"`        // default DefaultFriction
	Restitution     *float64 `json:"restitution,omitempty"`     // default 0
	// RollingResistance and SpinningResistance are the coefficients of the resisting torques
	// against rolling and against spin about a contact's normal (sim.BodyDef); default 0.
	RollingResistance  *float64 `json:"rollingResistance,omitempty"`
	SpinningResistance *float64 `json:"spinningResistance,omitempty"`
	// Inertia (a compound body, dynamic) is the whole's inertia tensor about its centre of mass in
	// the frame its shapes are written in, [ixx, ixy, ixz, iyy, iyz, izz] in kg m^2, at the body's
	// mass, in place of the one its shapes make; default the shapes'.
	Inertia *[6]float64 `json:"inertia,omitempty"`
	// CenterOfMass (a compound body, dynamic) is the whole's centre of mass in the frame its shapes
	// are written in, m, in place of the shapes' mass-weighted centre: the point Position places and
	// the body turns about; default the shapes'. Without Inertia, the inertia is the shapes' about it.
	CenterOfMass *Vec3 `json:"centerOfMass,omitempty"`
}

// Shape is a body's collision shape in its local frame. Only the fields of its Type may be set.
type Shape struct {
	Type        string   `json:"type"`                  // "box", "sphere", "capsule", "cylinder", "plane", "hull", "mesh" or "heightfield"
	HalfExtents *Vec3    `json:"halfExtents,omitempty"` // box
	Radius      *float64 `json:"radius,omitempty"`      // sphere, capsule, cylinder
	HalfHeight  *float64 `json:"halfHeight,omitempty"`  // capsule: half the core segment; cylinder: half its height; both along local y
	Normal      *Vec3    `json:"normal,omitempty"`      // plane: any non-zero length (normalised)
	Offset      *float64 `json:"offset,omitempty"`      // plane: points p with n.p = offset; default 0
	Points      []Vec3   `json:"points,omitempty"`      // hull: 4 to geom.MaxHullPoints points, re-centred on the centre of mass
	// Mesh (static bodies only): an OBJ file, its path relative to the scene file, or vertices and
	// triangles (indices from 0, counter-clockwise seen from the side bodies are kept on).
	File      string   `json:"file,omitempty"`
	Vertices  []Vec3   `json:"vertices,omitempty"`
	Triangles [][3]int `json:"triangles,omitempty"`
	// Height field (static bodies only): the spacing of its samples [dx, dz] (m) and either inline
	// heights (rows along z of samples along x, m) or File, a 16-bit grayscale PNG, with HeightScale
	// the height of a white pixel (m).
	Heights     [][]float64 `json:"heights,omitempty"`
	Spacing     *[2]float64 `json:"spacing,omitempty"`
	HeightScale *float64    `json:"heightScale,omitempty"`

	base string // the scene file's folder, for File
}

// Joint joins two bodies, or a body and the static world (BodyB empty).
type Joint struct {
	Type   string      `json:"type"` // "ball", "hinge", "piston" or "fixed"
	BodyA  string      `json:"bodyA"`
	BodyB  string      `json:"bodyB,omitempty"`
	Anchor *Vec3       `json:"anchor,omitempty"` // required: world point at load time
	Axis   *Vec3       `json:"axis,omitempty"`   // hinge and piston (required), ball twist axis (with swing or twist)
	Limits *[2]float64 `json:"limits,omitempty"` // hinge and piston only: [lo, hi], rad or m
	Motor  *Motor      `json:"motor,omitempty"`  // hinge and piston only
	// Ball joints only: the swing cone's half angle (rad, > 0) and twist limits ([lo, hi] rad) about
	// the twist axis, which is Axis (required with either).
	Swing *float64    `json:"swing,omitempty"`
	Twist *[2]float64 `json:"twist,omitempty"`
	// AxisB, ball joints with swing or twist only: body B's twist axis at load time where it differs
	// from Axis (a joint saved while swung); default Axis.
	AxisB *Vec3 `json:"axisB,omitempty"`
	// BreakForce, N (> 0): the joint is removed, and reported, once its constraint force exceeds it.
	BreakForce *float64 `json:"breakForce,omitempty"`
	// Friction, ball, hinge and piston only (>= 0): the joint's Coulomb friction, the largest torque
	// (N m; ball and hinge) or force (N; piston) with which it resists turning or sliding
	// (sim.JointDef.Friction). A motor takes its place on a hinge or piston. Default 0: frictionless.
	Friction *float64 `json:"friction,omitempty"`
}

// Cluster groups dynamic bodies into a shape-matching cluster (sim.ClusterDef): under the shapematch
// solver each step pulls them towards the best-fit rotation of their rest shape, which is their poses as
// loaded.
type Cluster struct {
	Bodies    []string `json:"bodies"`            // body names: at least 2, distinct, dynamic
	Stiffness *float64 `json:"stiffness"`         // required, in [0, 1]: 0 free, 1 rigid-like
	Damping   *float64 `json:"damping,omitempty"` // in [0, 1]: share of the deformation's velocity removed per step; default 0
	Linear    *float64 `json:"linear,omitempty"`  // in [0, 1]: share of the linear fit in the goal (stretch and shear); default 0
}

// Motor drives a joint's free coordinate with a bounded force: to a speed, or (mode "position", a
// servo) to a target coordinate (sim.Motor).
type Motor struct {
	Mode string `json:"mode,omitempty"` // "speed" (the default, also when empty) or "position"
	// Speed is the target speed (mode speed, required) or the largest speed (mode position, optional:
	// 0 or absent for no limit), rad/s or m/s.
	Speed    float64  `json:"speed"`
	Target   *float64 `json:"target,omitempty"` // mode position only, required there: rad (hinge, in [-pi, pi]) or m (piston)
	MaxForce float64  `json:"maxForce"`         // N m or N; > 0
}

// Defaults for fields a scene file leaves out.
const (
	DefaultDt       = 1.0 / 60
	DefaultFriction = 0.5
)

// DefaultGravity is the gravity of a scene that gives none.
var DefaultGravity = Vec3{0, -9.81, 0}

// Error is a refused scene: the file, the JSON path of the offending field (e.g.
// "bodies[3].shape.halfExtents[1]"), what is wrong with it and the value found, as JSON.
type Error struct {
	File    string // may be empty for a scene built in code
	Line    int    // 1-based line and column, only for malformed JSON
	Column  int
	Path    string // empty for malformed JSON
	Problem string
	Value   string // empty when there is no value (a missing field)
}

// Error formats the refusal as "FILE: PATH: PROBLEM, got VALUE" (or "FILE:LINE:COL: malformed JSON: ...").
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column))
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Problem)
	if e.Value != "" {
		b.WriteString(", got " + e.Value)
	}
	return b.String()
}

// bodyName returns the name body i goes by: its own, or "body<i>".
func (s *Scene) bodyName(i int) string {
	if s.Bodies[i].Name != "" {
		return s.Bodies[i].Name
	}
	return "body" + strconv.Itoa(i)
}

// fmtNum writes a number the way Save does.
func fmtNum(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return string(appendNum(nil, x))
}

func fmtVec(v []float64) string {
	b := []byte{'['}
	for i, x := range v {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, fmtNum(x)...)
	}
	return string(append(b, ']'))
}
