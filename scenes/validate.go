package scenes

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"tumble/sim"
	"tumble/sim/geom"
)

// Limits on numbers in a scene. They keep every value well inside float32 (the simulation's type) and
// refuse what can only be a typo; docs/SCENES.md lists them. The solver's settings are bounded by
// their descriptors (sim.Tunables).
const (
	MaxGravity    = 1000 // |component|, m/s^2
	MaxDt         = 1.0  // s
	MaxCoordinate = 1e5  // |position|, |anchor|, |plane offset|, m
	MaxSpeed      = 1000 // |velocity component|, m/s, and |angular velocity component|, rad/s
	MinSize       = 1e-3 // half extents, radius, half height, m
	MaxSize       = 1e4  // half extents, radius, half height, m
	MinMass       = 1e-6 // kg
	MaxMass       = 1e9  // kg
	MinDensity    = 1e-3 // kg/m^3
	MaxDensity    = 1e6  // kg/m^3
	MaxFriction   = 100  // Coulomb coefficient
	MaxResistance = 10   // rolling and spinning resistance coefficients
	MaxMotorSpeed = 1e4  // rad/s or m/s
	MaxMotorForce = 1e9  // N m or N
	UnitTolerance = 0.01 // a rotation's length must be within 1 +- UnitTolerance
	MaxHingeLimit = 2 * math.Pi
)

// Validate checks a scene (one built in code, or a parsed one again) against every rule of the format.
// The error, if any, is an *Error with an empty File.
func (s *Scene) Validate() error {
	if err := s.validate(); err != nil {
		return err
	}
	return nil
}

// check collects the first error.
type check struct{ err *Error }

func (c *check) fail(path, problem, value string) {
	if c.err == nil {
		c.err = &Error{Path: path, Problem: problem, Value: value}
	}
}

// rotation checks a unit quaternion [x, y, z, w] (within UnitTolerance).
func (c *check) rotation(path string, q *Quat) {
	c.vec(path, q[:], 2, "")
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if c.err == nil && math.Abs(l-1) > UnitTolerance {
		c.fail(path, "must be a unit quaternion [x, y, z, w] (length "+
			strconv.FormatFloat(l, 'g', 4, 64)+")", fmtVec(q[:]))
	}
}

// num checks that x is finite and lo <= x <= hi; positive means x must also be > 0 (and at least lo).
func (c *check) num(path string, x, lo, hi float64, positive bool, unit string) {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		c.fail(path, "must be finite", fmtNum(x))
	case positive && x <= 0:
		c.fail(path, "must be > 0", fmtNum(x))
	case x < lo && lo == 0:
		c.fail(path, "must be >= 0", fmtNum(x))
	case x < lo:
		c.fail(path, "must be at least "+fmtNum(lo)+unit, fmtNum(x))
	case x > hi:
		c.fail(path, "must be at most "+fmtNum(hi)+unit, fmtNum(x))
	}
}

func (c *check) vec(path string, v []float64, bound float64, unit string) {
	for i, x := range v {
		c.num(path+"["+strconv.Itoa(i)+"]", x, -bound, bound, false, unit)
	}
}

// direction checks a vector that is normalised before use: finite and not (nearly) zero.
func (c *check) direction(path string, v *Vec3) {
	c.vec(path, v[:], 1e6, "")
	if c.err == nil && math.Sqrt(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]) < 1e-6 {
		c.fail(path, "must not be zero", fmtVec(v[:]))
	}
}

func (s *Scene) validate() *Error {
	c := &check{}
	if s.Gravity != nil {
		c.vec("gravity", s.Gravity[:], MaxGravity, " m/s^2")
	}
	if s.Dt != nil {
		c.num("dt", *s.Dt, 0, MaxDt, true, " s")
	}
	if s.Solver != nil {
		s.Solver.validate(c)
	}
	if s.Broadphase != "" {
		if _, err := sim.ParseBroadphase(s.Broadphase); err != nil {
			c.fail("broadphase", "unknown broad phase (want lbvh, sap, grid or brute)", strconv.Quote(s.Broadphase))
		}
	}
	names := make(map[string]int, len(s.Bodies))
	for i := range s.Bodies {
		path := "bodies[" + strconv.Itoa(i) + "]"
		s.Bodies[i].validate(c, path)
		name := s.bodyName(i)
		if j, dup := names[name]; dup && c.err == nil {
			c.fail(path+".name", "duplicate of bodies["+strconv.Itoa(j)+"]'s name", strconv.Quote(name))
		}
		names[name] = i
	}
	for i := range s.Joints {
		s.Joints[i].validate(c, "joints["+strconv.Itoa(i)+"]", s, names)
	}
	for i := range s.Clusters {
		s.Clusters[i].validate(c, "clusters["+strconv.Itoa(i)+"]", s, names)
	}
	if v := s.View; v != nil && v.Follow != "" {
		if _, ok := names[v.Follow]; !ok {
			c.fail("view.follow", "no body of that name", strconv.Quote(v.Follow))
		}
	}
	return c.err
}

func (k *Cluster) validate(c *check, path string, s *Scene, names map[string]int) {
	if len(k.Bodies) < 2 {
		c.fail(path+".bodies", "a cluster needs at least 2 bodies", strconv.Itoa(len(k.Bodies))+" bodies")
	}
	seen := make(map[string]bool, len(k.Bodies))
	for i, name := range k.Bodies {
		bp := path + ".bodies[" + strconv.Itoa(i) + "]"
		b, ok := names[name]
		switch {
		case !ok:
			c.fail(bp, "no body has this name", strconv.Quote(name))
		case seen[name]:
			c.fail(bp, "listed twice in the cluster", strconv.Quote(name))
		case !isDynamic(s.Bodies[b].Type):
			c.fail(bp, "a cluster's bodies must be dynamic", strconv.Quote(name)+" ("+s.Bodies[b].Type+")")
		}
		seen[name] = true
	}
	if k.Stiffness == nil {
		c.fail(path+".stiffness", "missing (required)", "")
	} else {
		c.num(path+".stiffness", *k.Stiffness, 0, 1, false, "")
	}
	if k.Damping != nil {
		c.num(path+".damping", *k.Damping, 0, 1, false, "")
	}
	if k.Linear != nil {
		c.num(path+".linear", *k.Linear, 0, 1, false, "")
	}
	if c.err == nil && (s.Solver == nil || s.Solver.Type != "shapematch") {
		typ := "none"
		if s.Solver != nil && s.Solver.Type != "" {
			typ = strconv.Quote(s.Solver.Type)
		}
		c.fail(path, "clusters are matched only by the shapematch solver: set solver.type to \"shapematch\"", "solver.type "+typ)
	}
}

// validate checks the solver's type and every tunable setting the scene gives (sim.Tunables): each
// within its descriptor's range, and each read by the scene's solver (its type, or PGS, the CPU's
// default, where it names none); one it does not read is refused as the CLI refuses its flag.
func (v *Solver) validate(c *check) {
	k, known := sim.PGS, true
	if v.Type != "" {
		var err error
		if k, err = sim.ParseSolver(v.Type); err != nil {
			c.fail("solver.type", "unknown solver (want "+sim.SolverNames+")", strconv.Quote(v.Type))
			known = false
		}
	}
	for _, t := range sim.Tunables() {
		x, set := v.Value(t)
		if !set {
			continue
		}
		path := "solver." + t.Key
		if problem, ok := t.Check(x); !ok {
			c.fail(path, problem, formatTunable(t, x))
		} else if known && !t.ReadBy(k) {
			c.fail(path, t.NotRead(k), formatTunable(t, x))
		}
	}
}

func (b *Body) validate(c *check, path string) {
	switch b.Type {
	case "", "dynamic", "kinematic", "static":
	default:
		c.fail(path+".type", "unknown body type (want dynamic, kinematic or static)", strconv.Quote(b.Type))
	}
	if b.Shapes != nil {
		b.validateShapes(c, path)
	} else {
		b.Shape.validate(c, path+".shape")
	}
	if b.Shape.Type == "mesh" && b.Type != "static" && c.err == nil {
		b.Shape.validateMovingMesh(c, path+".shape")
	}
	if (b.Shape.Type == "plane" || b.Shape.Type == "heightfield") && b.Type != "static" && c.err == nil {
		typ := b.Type
		if typ == "" {
			typ = "dynamic"
		}
		c.fail(path+".type", "a "+b.Shape.Type+" must be on a static body", strconv.Quote(typ))
	}
	if b.Position != nil {
		c.vec(path+".position", b.Position[:], MaxCoordinate, " m")
	}
	if q := b.Rotation; q != nil {
		c.rotation(path+".rotation", q)
	}
	if b.Velocity != nil {
		c.vec(path+".velocity", b.Velocity[:], MaxSpeed, " m/s")
	}
	if b.AngularVelocity != nil {
		c.vec(path+".angularVelocity", b.AngularVelocity[:], MaxSpeed, " rad/s")
	}
	if b.Mass != nil {
		c.num(path+".mass", *b.Mass, MinMass, MaxMass, true, " kg")
	}
	if b.Density != nil {
		if b.Mass != nil {
			c.fail(path+".density", "give mass or density, not both", fmtNum(*b.Density))
		}
		c.num(path+".density", *b.Density, MinDensity, MaxDensity, true, " kg/m^3")
	}
	if b.Friction != nil {
		c.num(path+".friction", *b.Friction, 0, MaxFriction, false, "")
	}
	if b.Restitution != nil {
		c.num(path+".restitution", *b.Restitution, 0, 1, false, "")
	}
	if b.RollingResistance != nil {
		c.num(path+".rollingResistance", *b.RollingResistance, 0, MaxResistance, false, "")
	}
	if b.SpinningResistance != nil {
		c.num(path+".spinningResistance", *b.SpinningResistance, 0, MaxResistance, false, "")
	}
	if t := b.Inertia; t != nil && c.err == nil {
		p := path + ".inertia"
		value := fmt.Sprintf("[%s, %s, %s, %s, %s, %s]", fmtNum(t[0]), fmtNum(t[1]), fmtNum(t[2]), fmtNum(t[3]), fmtNum(t[4]), fmtNum(t[5]))
		switch {
		case b.Shapes == nil:
			c.fail(p, "an inertia is given for a compound body (shapes; a single shape as shapes of one)", value)
		case b.Type != "" && b.Type != "dynamic":
			c.fail(p, "a "+b.Type+" body has no inertia", value)
		default:
			if err := geom.CheckInertia(inertiaTensor(t, 1)); err != nil {
				c.fail(p, strings.TrimPrefix(err.Error(), geom.ErrCompound.Error()+": "), value)
			}
		}
	}
	if p := b.CenterOfMass; p != nil && c.err == nil {
		path := path + ".centerOfMass"
		switch {
		case b.Shapes == nil:
			c.fail(path, "a centre of mass is given for a compound body (shapes; a single shape as shapes of one)", fmtVec(p[:]))
		case b.Type != "" && b.Type != "dynamic":
			c.fail(path, "a "+b.Type+" body has no centre of mass", fmtVec(p[:]))
		default:
			c.vec(path, p[:], MaxCoordinate, " m")
		}
	}
}

// inertiaTensor is the symmetric tensor of Body.Inertia's six numbers, divided by mass.
func inertiaTensor(t *[6]float64, mass float64) [3][3]float64 {
	return [3][3]float64{
		{t[0] / mass, t[1] / mass, t[2] / mass},
		{t[1] / mass, t[3] / mass, t[4] / mass},
		{t[2] / mass, t[4] / mass, t[5] / mass},
	}
}

func (s *Shape) validate(c *check, path string) {
	size := func(field string, x *float64) {
		if x == nil {
			c.fail(path+"."+field, "missing (required for a "+s.Type+")", "")
			return
		}
		c.num(path+"."+field, *x, MinSize, MaxSize, true, " m")
	}
	// unused refuses a field that the shape's type does not read.
	unused := func(field string, set bool, value string) {
		if set {
			c.fail(path+"."+field, "not a field of a "+s.Type+" shape", value)
		}
	}
	unusedVec := func(field string, v *Vec3) {
		if v != nil {
			unused(field, true, fmtVec(v[:]))
		}
	}
	unusedNum := func(field string, x *float64) {
		if x != nil {
			unused(field, true, fmtNum(*x))
		}
	}
	if s.Type != "hull" && s.Points != nil {
		unused("points", true, strconv.Itoa(len(s.Points))+" points")
	}
	if s.Type != "heightfield" {
		unused("heights", s.Heights != nil, strconv.Itoa(len(s.Heights))+" rows")
		if s.Spacing != nil {
			unused("spacing", true, fmtVec(s.Spacing[:]))
		}
		unusedNum("heightScale", s.HeightScale)
	}
	if s.Type != "mesh" && s.Type != "heightfield" {
		unused("file", s.File != "", strconv.Quote(s.File))
	}
	if s.Type != "mesh" {
		unused("vertices", s.Vertices != nil, strconv.Itoa(len(s.Vertices))+" vertices")
		unused("triangles", s.Triangles != nil, strconv.Itoa(len(s.Triangles))+" triangles")
	}
	switch s.Type {
	case "box":
		if s.HalfExtents == nil {
			c.fail(path+".halfExtents", "missing (required for a box)", "")
		} else {
			for i, x := range s.HalfExtents {
				c.num(path+".halfExtents["+strconv.Itoa(i)+"]", x, MinSize, MaxSize, true, " m")
			}
		}
		unusedNum("radius", s.Radius)
		unusedNum("halfHeight", s.HalfHeight)
		unusedVec("normal", s.Normal)
		unusedNum("offset", s.Offset)
	case "sphere":
		size("radius", s.Radius)
		unusedVec("halfExtents", s.HalfExtents)
		unusedNum("halfHeight", s.HalfHeight)
		unusedVec("normal", s.Normal)
		unusedNum("offset", s.Offset)
	case "capsule", "cylinder":
		size("radius", s.Radius)
		size("halfHeight", s.HalfHeight)
		unusedVec("halfExtents", s.HalfExtents)
		unusedVec("normal", s.Normal)
		unusedNum("offset", s.Offset)
	case "plane":
		if s.Normal == nil {
			c.fail(path+".normal", "missing (required for a plane)", "")
		} else {
			c.direction(path+".normal", s.Normal)
		}
		if s.Offset != nil {
			c.num(path+".offset", *s.Offset, -MaxCoordinate, MaxCoordinate, false, " m")
		}
		unusedVec("halfExtents", s.HalfExtents)
		unusedNum("radius", s.Radius)
		unusedNum("halfHeight", s.HalfHeight)
	case "hull":
		s.validateHull(c, path)
		unusedVec("halfExtents", s.HalfExtents)
		unusedNum("radius", s.Radius)
		unusedNum("halfHeight", s.HalfHeight)
		unusedVec("normal", s.Normal)
		unusedNum("offset", s.Offset)
	case "mesh":
		unusedVec("halfExtents", s.HalfExtents)
		unusedNum("radius", s.Radius)
		unusedNum("halfHeight", s.HalfHeight)
		unusedVec("normal", s.Normal)
		unusedNum("offset", s.Offset)
		if c.err == nil {
			s.validateMesh(c, path)
		}
	case "heightfield":
		unusedVec("halfExtents", s.HalfExtents)
		unusedNum("radius", s.Radius)
		unusedNum("halfHeight", s.HalfHeight)
		unusedVec("normal", s.Normal)
		unusedNum("offset", s.Offset)
		if c.err == nil {
			s.validateField(c, path)
		}
	case "":
		c.fail(path+".type", "missing (required)", "")
	default:
		c.fail(path+".type", "unknown shape type (want box, sphere, capsule, cylinder, plane, hull, mesh or heightfield)", strconv.Quote(s.Type))
	}
}

func (j *Joint) validate(c *check, path string, s *Scene, names map[string]int) {
	axial := j.Type == "hinge" || j.Type == "piston"
	switch j.Type {
	case "ball", "hinge", "piston", "fixed":
	case "":
		c.fail(path+".type", "missing (required)", "")
	default:
		c.fail(path+".type", "unknown joint type (want ball, hinge, piston or fixed)", strconv.Quote(j.Type))
	}
	a, okA := names[j.BodyA]
	switch {
	case j.BodyA == "":
		c.fail(path+".bodyA", "missing (required)", "")
	case !okA:
		c.fail(path+".bodyA", "no body has this name", strconv.Quote(j.BodyA))
	}
	dynamic := okA && isDynamic(s.Bodies[a].Type)
	if j.BodyB != "" {
		b, okB := names[j.BodyB]
		switch {
		case !okB:
			c.fail(path+".bodyB", "no body has this name", strconv.Quote(j.BodyB))
		case j.BodyB == j.BodyA:
			c.fail(path+".bodyB", "must differ from bodyA", strconv.Quote(j.BodyB))
		}
		dynamic = dynamic || okB && isDynamic(s.Bodies[b].Type)
	}
	if !dynamic && okA {
		c.fail(path+".bodyA", "a joint needs at least one dynamic body", strconv.Quote(j.BodyA))
	}
	if j.Anchor == nil {
		c.fail(path+".anchor", "missing (required)", "")
	} else {
		c.vec(path+".anchor", j.Anchor[:], MaxCoordinate, " m")
	}
	swingTwist := j.Swing != nil || j.Twist != nil
	if swingTwist && j.Type != "ball" {
		field := ".swing"
		if j.Swing == nil {
			field = ".twist"
		}
		c.fail(path+field, "only ball joints have swing and twist limits", "")
	}
	ballAxis := j.Type == "ball" && swingTwist
	switch {
	case axial && j.Axis == nil:
		c.fail(path+".axis", "missing (required for a "+j.Type+")", "")
	case ballAxis && j.Axis == nil:
		c.fail(path+".axis", "missing (a ball joint with swing or twist limits needs its twist axis)", "")
	case axial || ballAxis:
		c.direction(path+".axis", j.Axis)
	case j.Axis != nil:
		c.fail(path+".axis", "only hinge and piston joints, and ball joints with swing or twist, have an axis", fmtVec(j.Axis[:]))
	}
	if j.AxisB != nil {
		if ballAxis {
			c.direction(path+".axisB", j.AxisB)
		} else {
			c.fail(path+".axisB", "only ball joints with swing or twist have a second twist axis", fmtVec(j.AxisB[:]))
		}
	}
	if j.Swing != nil {
		c.num(path+".swing", *j.Swing, 0, math.Pi, true, " rad")
	}
	if j.Twist != nil {
		tp := path + ".twist"
		c.vec(tp, j.Twist[:], math.Pi, " rad")
		if c.err == nil && j.Twist[0] > j.Twist[1] {
			c.fail(tp, "lo must be <= hi", fmtVec(j.Twist[:]))
		}
	}
	if j.BreakForce != nil {
		c.num(path+".breakForce", *j.BreakForce, 0, MaxMotorForce, true, " N")
	}
	if j.Friction != nil {
		unit := " N m"
		if j.Type == "piston" {
			unit = " N"
		}
		if j.Type == "fixed" {
			c.fail(path+".friction", "a fixed joint has no free axis to resist", fmtNum(*j.Friction))
		}
		c.num(path+".friction", *j.Friction, 0, MaxMotorForce, false, unit)
	}
	if j.Limits != nil {
		lp := path + ".limits"
		if !axial {
			c.fail(lp, "only hinge and piston joints have limits", fmtVec(j.Limits[:]))
		}
		bound, unit := float64(MaxCoordinate), " m"
		if j.Type == "hinge" {
			bound, unit = MaxHingeLimit, " rad"
		}
		c.vec(lp, j.Limits[:], bound, unit)
		if c.err == nil && j.Limits[0] > j.Limits[1] {
			c.fail(lp, "lo must be <= hi", fmtVec(j.Limits[:]))
		}
	}
	if j.Motor != nil {
		mp := path + ".motor"
		if !axial {
			c.fail(mp, "only hinge and piston joints have a motor", "")
		}
		switch j.Motor.Mode {
		case "", "speed":
			if j.Motor.Target != nil {
				c.fail(mp+".target", `only a position motor (mode "position") has a target`, fmtNum(*j.Motor.Target))
			}
		case "position":
			if j.Motor.Target == nil {
				c.fail(mp+".target", "missing (required for mode position)", "")
			} else if j.Type == "hinge" {
				c.num(mp+".target", *j.Motor.Target, -math.Pi, math.Pi, false, " rad")
			} else {
				c.num(mp+".target", *j.Motor.Target, -MaxCoordinate, MaxCoordinate, false, " m")
			}
		default:
			c.fail(mp+".mode", `unknown motor mode (want "speed" or "position")`, strconv.Quote(j.Motor.Mode))
		}
		c.num(mp+".speed", j.Motor.Speed, -MaxMotorSpeed, MaxMotorSpeed, false, "")
		c.num(mp+".maxForce", j.Motor.MaxForce, 0, MaxMotorForce, true, "")
	}
}

func isDynamic(t string) bool { return t == "" || t == "dynamic" }
