package command

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// Pause stops (on true) or resumes (on false) real-time stepping.
func Pause(on bool) Command {
	if on {
		return pauseOn
	}
	return pauseOff
}

// The play-state commands are plain functions, not closures, so that the timeline can tell them
// from edits (controlCommands).
func pauseOn(s *Session) error     { s.paused = true; return nil }
func pauseOff(s *Session) error    { s.paused = false; return nil }
func togglePause(s *Session) error { s.paused = !s.paused; return nil }
func stepOnce(s *Session) error    { s.paused = true; s.single++; return nil }

// TogglePause flips the play state (the Space key).
func TogglePause() Command { return togglePause }

// StepOnce pauses and takes one step at the next Advance (the N key).
func StepOnce() Command { return stepOnce }

// Reset rebuilds the world from the scene it was loaded from (the R key), keeping the settings the
// user has changed since (solver, sub-steps, friction, gravity...): RevertSettings goes back to the
// scene's own.
func Reset() Command {
	return func(s *Session) error {
		w, err := s.initial.World(scenes.Options{})
		if err != nil {
			return err
		}
		s.resetTo(w)
		return nil
	}
}

// resetTo installs w, built from the scene the world was loaded from, with the settings changed
// since (Reset, InstallReset).
func (s *Session) resetTo(w *sim.World) {
	set, notes := s.world.Settings(), s.notes
	s.install(s.name, s.initial, w, 0, 0)
	s.world.SetSettings(set)
	s.notes = notes // the same scene: what its file left out still is
}

// RevertSettings sets the scene's own settings again (as its file or preset gives them), undoing every
// change made in the panel or by commands.
func RevertSettings() Command {
	return func(s *Session) error {
		w, err := s.initial.World(scenes.Options{})
		if err != nil {
			return err
		}
		defer w.Close()
		set := w.Settings()
		set.Sleep = set.Sleep || s.sleepDefault && sleepUnset(s.initial) && s.world.Capabilities().Sleep
		s.world.SetSettings(set)
		return nil
	}
}

// LoadPreset replaces the world with the named preset.
func LoadPreset(name string) Command {
	return func(s *Session) error {
		sc, ok := scenes.Preset(name)
		if !ok {
			return fmt.Errorf("no preset named %q", name)
		}
		return s.load(name, sc)
	}
}

// LoadFile replaces the world with a scene file's (or a URDF robot's: ReadSceneFile); on error the
// world is kept.
func LoadFile(path string) Command {
	return func(s *Session) error {
		sc, notes, err := ReadSceneFile(path)
		if err != nil {
			return err
		}
		if err := s.load(path, sc); err != nil {
			return err
		}
		s.notes = notes
		return nil
	}
}

// SaveFile writes the current state (poses, velocities, settings, joints) as a scene file.
func SaveFile(path string) Command {
	return func(s *Session) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := s.currentScene().Save(f); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		return f.Close()
	}
}

// Snapshot keeps a copy of the current state in memory for Restore.
func Snapshot() Command {
	return func(s *Session) error {
		s.snap, s.snapStep, s.snapTime = s.currentScene(), s.world.StepCount, s.world.Time
		return nil
	}
}

// Restore goes back to the last Snapshot, its clock (step and time) included, keeping Reset's scene as
// it was.
func Restore() Command {
	return func(s *Session) error {
		if s.snap == nil {
			return fmt.Errorf("no snapshot to restore")
		}
		w, err := s.snap.World(scenes.Options{})
		if err != nil {
			return err
		}
		s.restoreTo(w)
		return nil
	}
}

// restoreTo installs w, built from the snapshot, with the snapshot's clock, keeping Reset's scene
// (Restore, InstallRestore).
func (s *Session) restoreTo(w *sim.World) {
	init := s.initial
	s.install(s.name, s.snap, w, s.snapStep, s.snapTime)
	s.initial = init
}

// HasSnapshot says whether Restore has something to restore.
func (s *Session) HasSnapshot() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap != nil
}

// SetSettings changes the simulation settings through World.SetSettings; edit receives the current
// (user-given) settings. A setting sim refuses (such as an unimplemented solver) leaves them unchanged.
func SetSettings(edit func(*sim.Settings)) Command {
	return func(s *Session) error {
		set := s.world.Settings()
		edit(&set)
		if err := set.Check(); err != nil {
			return err
		}
		s.world.SetSettings(set)
		return nil
	}
}

// SetFriction turns friction on or off.
func SetFriction(on bool) Command {
	return SetSettings(func(set *sim.Settings) { set.NoFriction = !on })
}

// SetFrictionCoefficient sets every body's friction coefficient to mu (pairs combine by geometric
// mean, so a pair of bodies with mu has mu).
func SetFrictionCoefficient(mu float32) Command {
	return func(s *Session) error {
		w := s.world
		for i := range w.Bodies.Len() {
			if err := w.SetMaterial(w.HandleAt(i), mu, w.Bodies.Restitution[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// SetRestitutionAll sets every body's restitution coefficient to e.
func SetRestitutionAll(e float32) Command {
	return func(s *Session) error {
		w := s.world
		for i := range w.Bodies.Len() {
			if err := w.SetMaterial(w.HandleAt(i), w.Bodies.Friction[i], e); err != nil {
				return err
			}
		}
		return nil
	}
}

// RemoveBody removes a body and the joints on it (the Delete key).
func RemoveBody(h sim.Handle) Command {
	return func(s *Session) error {
		if _, ok := s.world.Index(h); !ok {
			return ErrNoSelection
		}
		kept := s.frames[:0]
		for i, f := range s.frames {
			if j := s.world.Joint(i); j.BodyA != h && j.BodyB != h {
				kept = append(kept, f)
			}
		}
		s.frames = kept
		if s.drag != nil && s.drag.Body == h {
			s.drag = nil
		}
		return s.world.RemoveBody(h)
	}
}

// BodyEdit is an in-place edit of a body's properties (the Inspect panel). Nil fields are unchanged.
type BodyEdit struct {
	Type        *sim.BodyType
	Mass        *float32 // kg, dynamic bodies only
	Friction    *float32
	Restitution *float32
	// RollingResistance and SpinningResistance are the material's resistance coefficients
	// (sim.BodyDef), each >= 0.
	RollingResistance  *float32
	SpinningResistance *float32
	Velocity           *sim.Vec3
	AngularVelocity    *sim.Vec3
}

// EditBody applies e to the body h through the World's edit methods (SetType, SetMass, SetMaterial,
// SetResistance, SetVelocity). Changing the type to static or kinematic leaves it without mass (and, for static,
// stops it); back to dynamic, the mass is the edit's or the shape's at 1000 kg/m^3. The edit's values
// are checked first: an invalid one changes nothing.
func EditBody(h sim.Handle, e BodyEdit) Command {
	return func(s *Session) error {
		w := s.world
		i, ok := w.Index(h)
		if !ok {
			return ErrNoSelection
		}
		b := &w.Bodies
		if e.Mass != nil && !(*e.Mass > 0) {
			return fmt.Errorf("mass must be > 0, got %v", *e.Mass)
		}
		if e.Type != nil && *e.Type != sim.Static && b.Shape[i].Kind == geom.Plane {
			return fmt.Errorf("a plane must be static")
		}
		mu, rest := b.Friction[i], b.Restitution[i]
		if e.Friction != nil {
			if !(*e.Friction >= 0) {
				return fmt.Errorf("friction must be >= 0")
			}
			mu = *e.Friction
		}
		if e.Restitution != nil {
			if !(*e.Restitution >= 0) {
				return fmt.Errorf("restitution must be >= 0")
			}
			rest = *e.Restitution
		}
		roll, spin := b.RollingResistance[i], b.SpinningResistance[i]
		if e.RollingResistance != nil {
			if !(*e.RollingResistance >= 0) {
				return fmt.Errorf("rolling resistance must be >= 0")
			}
			roll = *e.RollingResistance
		}
		if e.SpinningResistance != nil {
			if !(*e.SpinningResistance >= 0) {
				return fmt.Errorf("spinning resistance must be >= 0")
			}
			spin = *e.SpinningResistance
		}
		if e.Type != nil {
			if err := w.SetType(h, *e.Type); err != nil {
				return err
			}
		}
		if e.Mass != nil && b.Type[i] == sim.Dynamic {
			if err := w.SetMass(h, *e.Mass); err != nil {
				return err
			}
		}
		if e.Friction != nil || e.Restitution != nil {
			if err := w.SetMaterial(h, mu, rest); err != nil {
				return err
			}
		}
		if e.RollingResistance != nil || e.SpinningResistance != nil {
			if err := w.SetResistance(h, roll, spin); err != nil {
				return err
			}
		}
		if b.Type[i] != sim.Static && (e.Velocity != nil || e.AngularVelocity != nil) {
			v, omega := b.Velocity[i], b.AngularVelocity[i]
			if e.Velocity != nil {
				v = *e.Velocity
			}
			if e.AngularVelocity != nil {
				omega = *e.AngularVelocity
			}
			return w.SetVelocity(h, v, omega)
		}
		return nil
	}
}

// ShotSpec describes what Shoot fires.
type ShotSpec struct {
	Kind geom.Kind // geom.Box, geom.Sphere or geom.Capsule
	// Size: a box's half extents; a sphere's radius is Size[0]; a capsule's radius Size[0] and half
	// height Size[1]. The sizes a kind uses must be positive and finite; the others are ignored.
	Size  [3]float32
	Mass  float32 // kg; 0 means 1000 kg/m^3 (sim.DefaultDensity), as Spawn's
	Speed float32 // m/s, 0..500
}

// DefaultShot is what the B key fires: a 0.3 m, 10 kg ball at 25 m/s.
func DefaultShot() ShotSpec {
	return ShotSpec{Kind: geom.Sphere, Size: [3]float32{0.3}, Mass: 10, Speed: 25}
}

// maxShotSpeed bounds ShotSpec.Speed (m/s): faster bodies tunnel through thin ones in a 1/60 s step.
const maxShotSpeed = 500

// check returns an error naming the first field of the spec out of range, and its value.
func (sp ShotSpec) check() error {
	finitePos := func(x float32) bool { return x > 0 && !math.IsInf(float64(x), 0) }
	var names []string
	switch sp.Kind {
	case geom.Box:
		names = []string{"half extent x", "half extent y", "half extent z"}
	case geom.Sphere:
		names = []string{"radius"}
	case geom.Capsule:
		names = []string{"radius", "half height"}
	default:
		return fmt.Errorf("shoot: kind: must be box, sphere or capsule, got %s", sp.Kind)
	}
	for k, n := range names {
		if !finitePos(sp.Size[k]) {
			return fmt.Errorf("shoot: size[%d] (%s %s): must be positive and finite, got %v", k, sp.Kind, n, sp.Size[k])
		}
	}
	if !(sp.Mass >= 0) || math.IsInf(float64(sp.Mass), 0) {
		return fmt.Errorf("shoot: mass: must be >= 0 and finite (0: 1000 kg/m^3), got %v", sp.Mass)
	}
	if !(sp.Speed >= 0 && sp.Speed <= maxShotSpeed) {
		return fmt.Errorf("shoot: speed: must be 0..%d m/s, got %v", maxShotSpeed, sp.Speed)
	}
	return nil
}

// Shoot fires the spec's body from origin along dir (the B key), with friction 0.5 and restitution
// 0.1. A box flies face-first (its local +z along dir) and a capsule point-first (its axis, local y,
// along dir). An invalid spec, a non-finite origin or a zero direction fires nothing.
func Shoot(origin, dir sim.Vec3, sp ShotSpec) Command {
	return func(s *Session) error {
		if err := sp.check(); err != nil {
			return err
		}
		l := dir.Len()
		if !(l > 1e-6) || math.IsInf(float64(l), 0) {
			return fmt.Errorf("shoot: direction: must be a non-zero finite vector, got %v", dir)
		}
		if !finite(origin) {
			return fmt.Errorf("shoot: origin: must be finite, got %v", origin)
		}
		d := dir.Mul(1 / l)
		def := sim.BodyDef{Position: origin, Velocity: d.Mul(sp.Speed), Mass: sp.Mass,
			Friction: 0.5, Restitution: 0.1}
		switch sp.Kind {
		case geom.Box:
			def.Shape = geom.Shape{Kind: geom.Box, HalfExtents: sp.Size}
			def.Rotation = facing(d)
		case geom.Sphere:
			def.Shape = sphere(sp.Size[0])
		case geom.Capsule:
			def.Shape = geom.Shape{Kind: geom.Capsule, Radius: sp.Size[0], HalfHeight: sp.Size[1]}
			def.Rotation = mgl32.QuatBetweenVectors(sim.Vec3{0, 1, 0}, d)
		}
		_, err := s.world.AddBody(def)
		return err
	}
}

// facing returns the rotation that turns local +z onto the unit vector d, with local y as near world up
// as d allows (a box fired level flies upright).
func facing(d sim.Vec3) sim.Quat {
	up := sim.Vec3{0, 1, 0}
	if d[1] > 0.99 || d[1] < -0.99 {
		up = sim.Vec3{0, 0, -1} // straight up or down: any roll will do
	}
	x := up.Cross(d).Normalize()
	y := d.Cross(x)
	return mgl32.Mat4ToQuat(mgl32.Mat3FromCols(x, y, d).Mat4()).Normalize()
}

func finite(v sim.Vec3) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// currentScene is the world as it is now, as a scene file: poses, velocities, masses, materials,
// settings, joints (anchors and axes moved with body A) and shape-matching clusters.
func (s *Session) currentScene() *scenes.Scene {
	sc, _ := s.capture().Scene(nil) // without a progress function it cannot stop
	return sc
}

// Captured is the world's state as a scene file writes it, copied under the session's lock so that
// the slow part, the million bodies' entries written out, runs without it (Captured.Scene): the
// scene's settings, joints and clusters are written at once, the bodies' arrays copied.
type Captured struct {
	head   *scenes.Scene // everything but the bodies
	bodies sim.Bodies    // the arrays a body's entry reads, copied
	step   int           // the world's clock
	time   float64
}

// Capture copies the current state (with a backend, read back first) for Captured.Scene.
func (s *Session) Capture() *Captured {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	return s.capture()
}

// Bodies is the captured body count.
func (c *Captured) Bodies() int { return c.bodies.Len() }

func (s *Session) capture() *Captured {
	w := s.world
	b := &w.Bodies
	c := &Captured{step: w.StepCount, time: w.Time, bodies: sim.Bodies{
		Name: slices.Clone(b.Name), Type: slices.Clone(b.Type), Shape: slices.Clone(b.Shape),
		Position: slices.Clone(b.Position), Rotation: slices.Clone(b.Rotation),
		Velocity: slices.Clone(b.Velocity), AngularVelocity: slices.Clone(b.AngularVelocity),
		Mass: slices.Clone(b.Mass), Friction: slices.Clone(b.Friction), Restitution: slices.Clone(b.Restitution),
		RollingResistance: slices.Clone(b.RollingResistance), SpinningResistance: slices.Clone(b.SpinningResistance)}}
	c.head = s.sceneHead()
	return c
}

// captureEvery is how many bodies' entries Captured.Scene writes between two progress reports.
const captureEvery = 4096

// Scene writes the captured state as a scene. progress, when not nil, is called with the bodies
// written so far and the total; an error it returns stops the writing and is returned.
func (c *Captured) Scene(progress func(done, total int) error) (*scenes.Scene, error) {
	out := *c.head
	b := &c.bodies
	n := b.Len()
	if n > 0 {
		out.Bodies = make([]scenes.Body, 0, n)
	}
	for i := range n {
		if progress != nil && i%captureEvery == 0 {
			if err := progress(i, n); err != nil {
				return nil, err
			}
		}
		out.Bodies = append(out.Bodies, fileBody(b, i))
	}
	if progress != nil {
		if err := progress(n, n); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// fileBody is body i's entry in a scene file.
func fileBody(b *sim.Bodies, i int) scenes.Body {
	body := scenes.Body{Name: b.Name[i], Type: b.Type[i].String(),
		Position: vp(b.Position[i]), Friction: fp(b.Friction[i]), Restitution: fp(b.Restitution[i])}
	if c := b.RollingResistance[i]; c != 0 {
		body.RollingResistance = fp(c)
	}
	if c := b.SpinningResistance[i]; c != 0 {
		body.SpinningResistance = fp(c)
	}
	if b.Shape[i].Kind == geom.Compound {
		body.Shapes = fileParts(b, i)
	} else {
		body.Shape = fileShape(b, i)
	}
	q := b.Rotation[i]
	body.Rotation = &scenes.Quat{f64(q.V[0]), f64(q.V[1]), f64(q.V[2]), f64(q.W)}
	if b.Type[i] != sim.Static {
		body.Velocity, body.AngularVelocity = vp(b.Velocity[i]), vp(b.AngularVelocity[i])
	}
	if b.Type[i] == sim.Dynamic {
		body.Mass = fp(b.Mass[i])
		if c := b.Shape[i].Compound; c != nil {
			body.CenterOfMass, body.Inertia = declared(c, b.Mass[i])
		}
	}
	return body
}

// declared returns a compound's centre of mass and inertia as a scene file writes them where they
// were declared rather than made by its shapes (scenes.Body's CenterOfMass and Inertia), nil where the
// shapes make them: its shapes are written in its principal frame about its centre of mass, so a
// declared centre is the origin and a declared inertia diagonal, at the body's mass. A shape-made
// property is told from a declared one to float32 rounding of the shapes' own (geom's Own).
func declared(c *geom.CompoundShape, mass float32) (*scenes.Vec3, *[6]float64) {
	centre, unit := c.Own()
	var at *scenes.Vec3
	if float64(centre.Len()) > 1e-5*float64(c.Radius) {
		at = &scenes.Vec3{}
	}
	u := c.UnitInertia
	tol := 1e-4 * float64(u[0]+u[1]+u[2])
	var inertia *[6]float64
	for j := range 3 {
		for k := range 3 {
			want := 0.0
			if j == k {
				want = float64(u[j])
			}
			if math.Abs(unit[j][k]-want) > tol {
				inertia = &[6]float64{f64(mass * u[0]), 0, 0, f64(mass * u[1]), 0, f64(mass * u[2])}
			}
		}
	}
	return at, inertia
}

// sceneHead is the current state as a scene without its bodies: the settings, the joints (anchors
// and axes moved with body A), the clusters and the view.
func (s *Session) sceneHead() *scenes.Scene {
	w := s.world
	set := w.Settings()
	out := &scenes.Scene{Name: s.name}
	if s.initial != nil {
		out.Name = s.initial.Name
	}
	g := set.Gravity
	out.Gravity = &scenes.Vec3{f64(g[0]), f64(g[1]), f64(g[2])}
	dt := f64(w.Resolved().Dt)
	out.Dt = &dt
	// The solver's type and every tunable setting it reads, with sleeping said either way: the window
	// loads a scene that does not say with sleeping on.
	sv := scenes.SolverFor(set)
	if set.Broadphase != sim.BroadDefault {
		out.Broadphase = set.Broadphase.String()
	}
	out.Solver = sv
	b := &w.Bodies
	for k := range w.NumJoints() {
		j := w.Joint(k)
		ia, _ := w.Index(j.BodyA)
		f := s.frames[k]
		anchor := b.Position[ia].Add(b.Rotation[ia].Rotate(f.anchor))
		fj := scenes.Joint{Type: j.Type.String(), BodyA: b.Name[ia], Anchor: vp(anchor)}
		if ib, ok := w.Index(j.BodyB); ok {
			fj.BodyB = b.Name[ib]
		}
		// A loaded joint holds the pose its bodies have at load time: its coordinate starts at zero
		// there. The limits are measured from the pose the joint was made at, so they are saved
		// shifted by the coordinate now, and bound the same motion once loaded. A swung ball joint is
		// saved with B's twist axis too (axisB), so that its cone stays centred where it was.
		coord := f64(w.JointState(k).Coordinate)
		if j.Type == sim.Hinge || j.Type == sim.Piston {
			fj.Axis = vp(b.Rotation[ia].Rotate(f.axis))
			if j.HasLimits {
				fj.Limits = &[2]float64{f64(j.Limits[0]) - coord, f64(j.Limits[1]) - coord}
			}
			if j.HasMotor {
				fj.Motor = &scenes.Motor{Speed: f64(j.Motor.Speed), MaxForce: f64(j.Motor.MaxForce)}
				if j.Motor.Mode == sim.MotorPosition {
					// A servo's target is a coordinate, shifted as the limits are; a hinge's is kept in
					// the loaded joint's angle range, (-pi, pi], the same way round.
					t := f64(j.Motor.Target) - coord
					if j.Type == sim.Hinge {
						t = math.Remainder(t, 2*math.Pi)
					}
					fj.Motor.Mode, fj.Motor.Target = sim.MotorPosition.String(), &t
				}
			}
		}
		if j.Type == sim.Ball && f.axis.Len() > 1e-6 {
			fj.Axis = vp(b.Rotation[ia].Rotate(f.axis))
			// B's twist axis where it has swung away from A's: the loaded joint starts swung as much,
			// its cone centred where it was (and its twist at zero, as coord shifts the limits).
			axisB := w.JointFrame(k).AxisB
			if ib, ok := w.Index(j.BodyB); ok {
				axisB = b.Rotation[ib].Rotate(axisB)
			}
			if axisA := b.Rotation[ia].Rotate(f.axis); axisB.Sub(axisA).Len() > 1e-5 {
				fj.AxisB = vp(axisB)
			}
			if j.Swing > 0 {
				fj.Swing = fp(j.Swing)
			}
			if j.HasTwist {
				fj.Twist = &[2]float64{f64(j.Twist[0]) - coord, f64(j.Twist[1]) - coord}
			}
		}
		if j.BreakForce > 0 {
			fj.BreakForce = fp(j.BreakForce)
		}
		if j.Friction > 0 {
			fj.Friction = fp(j.Friction)
		}
		out.Joints = append(out.Joints, fj)
	}
	// Clusters: their members by name (a reload takes the poses it finds as the rest shape).
	for k := range w.NumClusters() {
		c := w.Cluster(k)
		fc := scenes.Cluster{Stiffness: fp(c.Stiffness), Damping: fp(c.Damping), Linear: fp(c.Linear)}
		for _, h := range c.Bodies {
			if i, ok := w.Index(h); ok {
				fc.Bodies = append(fc.Bodies, b.Name[i])
			}
		}
		out.Clusters = append(out.Clusters, fc)
	}
	// The scene's view, while the body it follows is still there.
	if s.initial != nil && s.initial.View != nil {
		if _, ok := w.Find(s.initial.View.Follow); ok {
			v := *s.initial.View
			out.View = &v
		}
	}
	return out
}

// CurrentScene returns the world as it is now, as a scene (what SaveFile writes).
func (s *Session) CurrentScene() *scenes.Scene {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	return s.currentScene()
}

func fileShape(b *sim.Bodies, i int) scenes.Shape { return shapeFile(&b.Shape[i]) }

// fileParts is a compound body's shapes as the scene file writes them: each in the compound's frame
// (the body's rotation holds them), with its mass (its share of the body's, for a dynamic body, as the
// body's own mass scales them) and its own material where it has one.
func fileParts(b *sim.Bodies, i int) []scenes.Part {
	c := b.Shape[i].Compound
	out := make([]scenes.Part, len(c.Children))
	for k := range c.Children {
		ch := &c.Children[k]
		m := ch.Mass
		if b.Type[i] == sim.Dynamic {
			m = b.Mass[i] * ch.Mass / c.Mass
		}
		q := ch.Pose.Q
		out[k] = scenes.Part{Shape: shapeFile(&ch.Shape), Position: vp(ch.Pose.P),
			Rotation: &scenes.Quat{f64(q.V[0]), f64(q.V[1]), f64(q.V[2]), f64(q.W)}, Mass: fp(m)}
		if ch.Material.Friction >= 0 {
			out[k].Friction = fp(ch.Material.Friction)
		}
		if ch.Material.Restitution >= 0 {
			out[k].Restitution = fp(ch.Material.Restitution)
		}
		if ch.Material.RollingResistance >= 0 {
			out[k].RollingResistance = fp(ch.Material.RollingResistance)
		}
		if ch.Material.SpinningResistance >= 0 {
			out[k].SpinningResistance = fp(ch.Material.SpinningResistance)
		}
	}
	return out
}

// shapeFile is a shape as the scene file writes it.
func shapeFile(sh *geom.Shape) scenes.Shape {
	switch sh.Kind.String() {
	case "box":
		return scenes.Shape{Type: "box", HalfExtents: vp(sh.HalfExtents)}
	case "sphere":
		return scenes.Shape{Type: "sphere", Radius: fp(sh.Radius)}
	case "capsule":
		return scenes.Shape{Type: "capsule", Radius: fp(sh.Radius), HalfHeight: fp(sh.HalfHeight)}
	case "cylinder":
		return scenes.Shape{Type: "cylinder", Radius: fp(sh.Radius), HalfHeight: fp(sh.HalfHeight)}
	case "hull":
		// The vertices in the principal frame, where the body's rotation holds them: loaded again,
		// the same solid at the same pose. A moving mesh is written as its closed mesh, so that it
		// keeps the mesh's mass properties, not its hull's.
		if h := sh.Hull; len(h.MeshTris) > 0 {
			verts := make([]scenes.Vec3, len(h.MeshVerts))
			for k, v := range h.MeshVerts {
				verts[k] = *vp(v)
			}
			tris := make([][3]int, len(h.MeshTris))
			for k, t := range h.MeshTris {
				tris[k] = [3]int{int(t[0]), int(t[1]), int(t[2])}
			}
			return scenes.Shape{Type: "mesh", Vertices: verts, Triangles: tris}
		}
		pts := make([]scenes.Vec3, len(sh.Hull.Verts))
		for k, v := range sh.Hull.Verts {
			pts[k] = *vp(v)
		}
		return scenes.Shape{Type: "hull", Points: pts}
	case "mesh":
		// A static mesh inline, its vertices in the body's frame as it holds them.
		verts := make([]scenes.Vec3, len(sh.Mesh.Verts))
		for k, v := range sh.Mesh.Verts {
			verts[k] = *vp(v)
		}
		tris := make([][3]int, len(sh.Mesh.Tris))
		for k, t := range sh.Mesh.Tris {
			tris[k] = [3]int{int(t[0]), int(t[1]), int(t[2])}
		}
		return scenes.Shape{Type: "mesh", Vertices: verts, Triangles: tris}
	case "heightfield":
		// A height field inline, its samples' heights as the field holds them: reloaded, they are
		// quantised again over their range, the same heights within half a step.
		f := sh.Field
		rows := make([][]float64, f.NZ)
		for j := range rows {
			rows[j] = make([]float64, f.NX)
			for i := range rows[j] {
				rows[j][i] = f64(f.Height(i, j))
			}
		}
		return scenes.Shape{Type: "heightfield", Spacing: &[2]float64{f64(f.DX), f64(f.DZ)}, Heights: rows}
	}
	return scenes.Shape{Type: "plane", Normal: vp(sh.Normal), Offset: fp(sh.Offset)}
}

// f64 widens a float32 keeping its shortest decimal form (0.1f saves as 0.1, not 0.10000000149).
func f64(x float32) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	if err != nil {
		return float64(x)
	}
	return v
}

func fp(x float32) *float64      { v := f64(x); return &v }
func vp(v sim.Vec3) *scenes.Vec3 { return &scenes.Vec3{f64(v[0]), f64(v[1]), f64(v[2])} }
func boolp(b bool) *bool         { return &b }
