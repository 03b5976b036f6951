package scenes

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
	"tumble/sim/geom"
)

// Options adjust how a scene becomes a world. The zero value builds the scene as written.
type Options struct {
	// Solver, unless sim.SolverDefault, replaces the scene's solver.type (the CLI's -solver flag).
	Solver sim.SolverKind
	// Broadphase, unless sim.BroadDefault, replaces the scene's broadphase (the -broadphase flag).
	Broadphase sim.BroadphaseKind
	// Workers, unless 0, sets the CPU worker count.
	Workers int
	// Progress, when set, is called with the bodies added so far and their total before every 1024th
	// body and once at the end; an error it returns stops the build (the window's Cancel) and is
	// World's error.
	Progress func(done, total int) error
}

// Settings returns the simulation settings the scene asks for, its defaults applied. Fields the scene
// leaves to the simulation (iterations, sub-steps, contact stiffness) stay zero, meaning the solver's
// own default. The scene must be valid.
func (s *Scene) Settings() sim.Settings {
	g := DefaultGravity
	if s.Gravity != nil {
		g = *s.Gravity
	}
	dt := DefaultDt
	if s.Dt != nil {
		dt = *s.Dt
	}
	set := sim.Settings{Gravity: vec(g), Dt: float32(dt)}
	if s.Broadphase != "" {
		set.Broadphase, _ = sim.ParseBroadphase(s.Broadphase)
	}
	if v := s.Solver; v != nil {
		if v.Type != "" {
			set.Solver, _ = sim.ParseSolver(v.Type)
		}
		set.Sleep = v.Sleep != nil && *v.Sleep
		for _, t := range sim.Tunables() {
			if x, ok := v.Value(t); ok {
				t.Set(&set, x)
			}
		}
	}
	return set
}

// TimeStep returns the scene's dt in seconds (DefaultDt if it gives none), at full precision.
func (s *Scene) TimeStep() float64 {
	if s.Dt != nil {
		return *s.Dt
	}
	return DefaultDt
}

// World validates the scene and builds a world from it: its settings (adjusted by o), then its bodies
// in file order (so body i of the scene is dense index i of the world) and its joints. On error it
// returns no world at all.
func (s *Scene) World(o Options) (*sim.World, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	set := s.Settings()
	if o.Solver != sim.SolverDefault {
		set.Solver = o.Solver
	}
	if o.Workers != 0 {
		set.Workers = o.Workers
	}
	if o.Broadphase != sim.BroadDefault {
		set.Broadphase = o.Broadphase
	}
	if err := set.Check(); err != nil {
		return nil, fmt.Errorf("solver: %w", err)
	}
	w := sim.NewWorld(set)
	for i := range s.Bodies {
		if o.Progress != nil && i%1024 == 0 {
			if err := o.Progress(i, len(s.Bodies)); err != nil {
				w.Close()
				return nil, err
			}
		}
		if _, err := w.AddBody(s.BodyDef(i)); err != nil {
			return nil, fmt.Errorf("bodies[%d]: %w", i, err)
		}
	}
	for i := range s.Joints {
		j := &s.Joints[i]
		d := sim.JointDef{Anchor: vec(*j.Anchor)}
		switch j.Type {
		case "ball":
			d.Type = sim.Ball
		case "hinge":
			d.Type = sim.Hinge
		case "piston":
			d.Type = sim.Piston
		case "fixed":
			d.Type = sim.Fixed
		}
		d.BodyA, _ = w.Find(j.BodyA)
		if j.BodyB != "" {
			d.BodyB, _ = w.Find(j.BodyB)
		}
		if j.Axis != nil {
			d.Axis = unit(*j.Axis)
		}
		if j.Limits != nil {
			d.HasLimits = true
			d.Limits = [2]float32{float32(j.Limits[0]), float32(j.Limits[1])}
		}
		if j.Motor != nil {
			d.HasMotor = true
			d.Motor = sim.Motor{Speed: float32(j.Motor.Speed), MaxForce: float32(j.Motor.MaxForce)}
			if mode, _ := sim.ParseMotorMode(j.Motor.Mode); mode == sim.MotorPosition {
				d.Motor.Mode, d.Motor.Target = mode, float32(*j.Motor.Target)
			}
		}
		if j.AxisB != nil {
			d.AxisB = unit(*j.AxisB)
		}
		if j.Swing != nil {
			d.Swing = float32(*j.Swing)
		}
		if j.Twist != nil {
			d.HasTwist = true
			d.Twist = [2]float32{float32(j.Twist[0]), float32(j.Twist[1])}
		}
		if j.BreakForce != nil {
			d.BreakForce = float32(*j.BreakForce)
		}
		if j.Friction != nil {
			d.Friction = float32(*j.Friction)
		}
		if _, err := w.AddJoint(d); err != nil {
			return nil, fmt.Errorf("joints[%d]: %w", i, err)
		}
	}
	for i := range s.Clusters {
		k := &s.Clusters[i]
		d := sim.ClusterDef{Stiffness: float32(*k.Stiffness)}
		if k.Damping != nil {
			d.Damping = float32(*k.Damping)
		}
		if k.Linear != nil {
			d.Linear = float32(*k.Linear)
		}
		for _, name := range k.Bodies {
			h, _ := w.Find(name)
			d.Bodies = append(d.Bodies, h)
		}
		if _, err := w.AddCluster(d); err != nil {
			return nil, fmt.Errorf("clusters[%d]: %w", i, err)
		}
	}
	if o.Progress != nil {
		if err := o.Progress(len(s.Bodies), len(s.Bodies)); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// BodyDef returns body i as the simulation's definition, defaults applied: name "body<i>", dynamic,
// friction DefaultFriction, identity rotation (normalised if given), plane normal normalised. The scene
// must be valid (see Validate).
func (s *Scene) BodyDef(i int) sim.BodyDef {
	b := &s.Bodies[i]
	d := sim.BodyDef{
		Name:     s.bodyName(i),
		Rotation: mgl32.QuatIdent(),
		Friction: DefaultFriction,
	}
	switch b.Type {
	case "kinematic":
		d.Type = sim.Kinematic
	case "static":
		d.Type = sim.Static
	}
	sh := &b.Shape
	d.Shape = basicShape(sh)
	if b.Position != nil {
		d.Position = vec(*b.Position)
	}
	if q := b.Rotation; q != nil {
		d.Rotation = quat(q)
	}
	if b.Shapes != nil {
		compoundDef(&d, b)
	}
	if sh.Type == "hull" {
		hullDef(&d, sh)
	}
	if sh.Type == "heightfield" {
		d.Shape = geom.Shape{Kind: geom.HeightField, Field: sh.builtField()}
	}
	if sh.Type == "mesh" {
		if d.Type == sim.Static {
			d.Shape = geom.Shape{Kind: geom.TriMesh, Mesh: sh.builtMesh()}
		} else {
			movingMeshDef(&d, sh)
		}
	}
	if b.Velocity != nil {
		d.Velocity = vec(*b.Velocity)
	}
	if b.AngularVelocity != nil {
		d.AngularVelocity = vec(*b.AngularVelocity)
	}
	if b.Mass != nil {
		d.Mass = float32(*b.Mass)
	}
	if b.Density != nil && b.Shapes == nil { // a compound's is its shapes' default (compoundDef)
		d.Density = float32(*b.Density)
	}
	if b.Friction != nil {
		d.Friction = float32(*b.Friction)
	}
	if b.Restitution != nil {
		d.Restitution = float32(*b.Restitution)
	}
	if b.RollingResistance != nil {
		d.RollingResistance = float32(*b.RollingResistance)
	}
	if b.SpinningResistance != nil {
		d.SpinningResistance = float32(*b.SpinningResistance)
	}
	return d
}

// basicShape is a box, sphere, capsule or plane as the simulation holds it (the zero shape for
// another type).
func basicShape(sh *Shape) geom.Shape {
	switch sh.Type {
	case "box":
		return geom.Shape{Kind: geom.Box, HalfExtents: vec(*sh.HalfExtents)}
	case "sphere":
		return geom.Shape{Kind: geom.Sphere, Radius: float32(*sh.Radius)}
	case "capsule":
		return geom.Shape{Kind: geom.Capsule, Radius: float32(*sh.Radius), HalfHeight: float32(*sh.HalfHeight)}
	case "cylinder":
		return geom.Shape{Kind: geom.Cylinder, Radius: float32(*sh.Radius), HalfHeight: float32(*sh.HalfHeight)}
	case "plane":
		s := geom.Shape{Kind: geom.Plane, Normal: unit(*sh.Normal)}
		if sh.Offset != nil {
			n := *sh.Normal
			// The file's offset is for its normal as written; scale it with the normalisation.
			s.Offset = float32(*sh.Offset / math.Sqrt(n[0]*n[0]+n[1]*n[1]+n[2]*n[2]))
		}
		return s
	}
	return geom.Shape{}
}

func vec(v Vec3) sim.Vec3 { return sim.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }

func unit(v Vec3) sim.Vec3 {
	l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	return sim.Vec3{float32(v[0] / l), float32(v[1] / l), float32(v[2] / l)}
}
