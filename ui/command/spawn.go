package command

import (
	"fmt"
	"math"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// Pattern is how Spawn arranges its bodies.
type Pattern int

// The spawn patterns.
const (
	Single  Pattern = iota // one body
	Stack                  // a column of Count bodies
	Wall                   // rows of bodies side by side, as square as Count allows
	Pyramid                // rows shrinking by one, Count bodies in all (the last row may be short)
	Rain                   // Count bodies scattered over a square, falling from 4 to 14 m above At
)

// PatternNames are the patterns' names, in order, for the panel.
var PatternNames = []string{"single", "stack", "wall", "pyramid", "rain"}

// HullShape is which convex hull Spawn makes for geom.ConvexHull.
type HullShape int

// The hulls Spawn makes.
const (
	Rock  HullShape = iota // a random rock (scenes.RockPoints), a different one for each body
	Bunny                  // the low-poly bunny (scenes.BunnyPoints)
)

// CompoundShape is which compound body Spawn makes for geom.Compound.
type CompoundShape int

// The compounds Spawn makes (scenes' part lists, at the scale Size[0]).
const (
	Table    CompoundShape = iota // scenes.TableParts: a 1.2 m table at scale 1
	Chair                         // scenes.ChairParts: a chair, its seat 0.45 m up at scale 1
	Dumbbell                      // scenes.DumbbellParts: a 0.6 m steel dumbbell at scale 1
)

// Spec describes bodies to spawn.
type Spec struct {
	// Kind is geom.Box, geom.Sphere, geom.Capsule, geom.Cylinder, geom.ConvexHull (Hull says which)
	// or geom.Compound (Compound says which).
	Kind     geom.Kind
	Hull     HullShape
	Compound CompoundShape
	Pattern  Pattern
	Count    int
	// Size: a box's half extents; a sphere's radius is Size[0]; a capsule's or a cylinder's radius
	// Size[0] and half height Size[1] (a cylinder stands on a cap); a rock's size (its half sizes about
	// 1.3, 0.8 and 1 times it) Size[0]; a bunny's length Size[0]; a compound's scale Size[0] (1: its
	// part list's own size).
	Size        sim.Vec3
	Mass        float32 // kg; 0 means 1000 kg/m^3
	Friction    float32
	Restitution float32
	// At is the point the pattern stands on (its base centre): a ground point under the cursor, or
	// Session.AboveScene.
	At sim.Vec3
}

// shape returns the spec's collision shape for its k-th body and its half size along each axis (how far
// its centre sits above the surface it rests on; for a hull its bounding sphere's radius, whatever way
// it turns), and for a hull the rotation that holds it as its points are given (upright).
func (sp *Spec) shape(k int) (geom.Shape, sim.Vec3, sim.Quat, error) {
	if sp.Kind == geom.ConvexHull {
		return sp.hull(k)
	}
	if sp.Kind == geom.Compound {
		return sp.compound()
	}
	s, half, err := sp.solid()
	return s, half, sim.Quat{W: 1}, err
}

// hull makes the k-th body's hull: rock k, or the bunny.
func (sp *Spec) hull(k int) (geom.Shape, sim.Vec3, sim.Quat, error) {
	size := float64(sp.Size[0])
	if !(size >= 0.02 && size <= 50) {
		return geom.Shape{}, sim.Vec3{}, sim.Quat{}, fmt.Errorf("spawn: a hull's size must be 0.02..50 m, got %v", sp.Size[0])
	}
	var pts []scenes.Vec3
	switch sp.Hull {
	case Rock:
		pts = scenes.RockPoints(uint32(7919*k+1), size)
	case Bunny:
		pts = scenes.BunnyPoints(size)
	default:
		return geom.Shape{}, sim.Vec3{}, sim.Quat{}, fmt.Errorf("spawn: unknown hull %d", sp.Hull)
	}
	gp := make([]geom.Vec3, len(pts))
	for i, p := range pts {
		gp[i] = geom.Vec3{float32(p[0]), float32(p[1]), float32(p[2])}
	}
	h, err := scenes.Hull(gp)
	if err != nil {
		return geom.Shape{}, sim.Vec3{}, sim.Quat{}, fmt.Errorf("spawn: %w", err)
	}
	r := h.Radius
	return geom.Shape{Kind: geom.ConvexHull, Hull: h}, sim.Vec3{r, r, r}, h.BodyRotation(sim.Quat{W: 1}), nil
}

// compound makes the spec's compound body at its scale: its shape, how far it reaches from its centre
// of mass along each axis (the larger of the two sides), and its rotation into the principal frame.
func (sp *Spec) compound() (geom.Shape, sim.Vec3, sim.Quat, error) {
	scale := float64(sp.Size[0])
	if !(scale >= 0.1 && scale <= 10) {
		return geom.Shape{}, sim.Vec3{}, sim.Quat{}, fmt.Errorf("spawn: a compound's scale must be 0.1..10, got %v", sp.Size[0])
	}
	var parts []scenes.Part
	switch sp.Compound {
	case Table:
		parts = scenes.TableParts(scale)
	case Chair:
		parts = scenes.ChairParts(scale)
	case Dumbbell:
		parts = scenes.DumbbellParts(scale)
	default:
		return geom.Shape{}, sim.Vec3{}, sim.Quat{}, fmt.Errorf("spawn: unknown compound %d", sp.Compound)
	}
	sc := &scenes.Scene{Bodies: []scenes.Body{{Shapes: parts}}}
	if err := sc.Validate(); err != nil {
		return geom.Shape{}, sim.Vec3{}, sim.Quat{}, fmt.Errorf("spawn: %w", err)
	}
	d := sc.BodyDef(0)
	box := d.Shape.Bounds(geom.Pose{Q: d.Rotation})
	var half sim.Vec3
	for k := range 3 {
		half[k] = max(-box.Min[k], box.Max[k])
	}
	return d.Shape, half, d.Rotation, nil
}

// solid returns a box's, sphere's, capsule's or cylinder's shape and half size.
func (sp *Spec) solid() (geom.Shape, sim.Vec3, error) {
	sz := sp.Size
	switch sp.Kind {
	case geom.Box:
		if !(sz[0] > 0 && sz[1] > 0 && sz[2] > 0) {
			return geom.Shape{}, sim.Vec3{}, fmt.Errorf("spawn: box half extents must be > 0, got %v", sz)
		}
		return geom.Shape{Kind: geom.Box, HalfExtents: sz}, sz, nil
	case geom.Sphere:
		if !(sz[0] > 0) {
			return geom.Shape{}, sim.Vec3{}, fmt.Errorf("spawn: radius must be > 0, got %v", sz[0])
		}
		return sphere(sz[0]), sim.Vec3{sz[0], sz[0], sz[0]}, nil
	case geom.Capsule:
		if !(sz[0] > 0 && sz[1] > 0) {
			return geom.Shape{}, sim.Vec3{}, fmt.Errorf("spawn: capsule radius and half height must be > 0, got %v", sz)
		}
		return geom.Shape{Kind: geom.Capsule, Radius: sz[0], HalfHeight: sz[1]},
			sim.Vec3{sz[0], sz[0] + sz[1], sz[0]}, nil
	case geom.Cylinder:
		if !(sz[0] > 0 && sz[1] > 0) {
			return geom.Shape{}, sim.Vec3{}, fmt.Errorf("spawn: cylinder radius and half height must be > 0, got %v", sz)
		}
		return geom.Shape{Kind: geom.Cylinder, Radius: sz[0], HalfHeight: sz[1]}, sim.Vec3{sz[0], sz[1], sz[0]}, nil
	}
	return geom.Shape{}, sim.Vec3{}, fmt.Errorf("spawn: cannot spawn a %s", sp.Kind)
}

func sphere(r float32) geom.Shape { return geom.Shape{Kind: geom.Sphere, Radius: r} }

// Positions returns where the spec's bodies go (their centres).
func (sp *Spec) Positions() ([]sim.Vec3, error) {
	_, half, _, err := sp.shape(0)
	if err != nil {
		return nil, err
	}
	n := sp.Count
	if sp.Pattern == Single {
		n = 1
	}
	if n < 1 || n > 100000 {
		return nil, fmt.Errorf("spawn: count must be 1..100000, got %d", sp.Count)
	}
	const gap = 0.01
	w, h := 2*half[0]+gap, 2*half[1]+gap
	at := sp.At
	base := at[1] + half[1] + gap
	var out []sim.Vec3
	switch sp.Pattern {
	case Single:
		out = append(out, sim.Vec3{at[0], base, at[2]})
	case Stack:
		for i := range n {
			out = append(out, sim.Vec3{at[0], base + float32(i)*h, at[2]})
		}
	case Wall:
		cols := int(math.Ceil(math.Sqrt(float64(n))))
		for i := range n {
			r, c := i/cols, i%cols
			off := float32(0)
			if r%2 == 1 && sp.Kind == geom.Box {
				off = 0.5 * w // running bond
			}
			out = append(out, sim.Vec3{at[0] + (float32(c)-float32(cols-1)/2)*w + off - w/4, base + float32(r)*h, at[2]})
		}
	case Pyramid:
		rows := 1
		for rows*(rows+1)/2 < n {
			rows++
		}
		k := 0
		for r := 0; k < n; r++ {
			m := rows - r
			for c := 0; c < m && k < n; c++ {
				out = append(out, sim.Vec3{at[0] + (float32(c)-float32(m-1)/2)*w, base + float32(r)*h, at[2]})
				k++
			}
		}
	case Rain:
		side := float32(math.Ceil(math.Sqrt(float64(n)))) * w * 1.5
		rng := uint32(12345 + n)
		next := func() float32 { // xorshift: a fixed sequence, so a spawn is reproducible
			rng ^= rng << 13
			rng ^= rng >> 17
			rng ^= rng << 5
			return float32(rng%10000) / 10000
		}
		for range n {
			out = append(out, sim.Vec3{at[0] + (next()-0.5)*side, base + 4 + 10*next(), at[2] + (next()-0.5)*side})
		}
	default:
		return nil, fmt.Errorf("spawn: unknown pattern %d", sp.Pattern)
	}
	return out, nil
}

// Spawn adds the spec's bodies, all dynamic, at rest. It refuses the whole spec if any is invalid.
func Spawn(sp Spec) Command {
	return func(s *Session) error {
		pos, err := sp.Positions()
		if err != nil {
			return err
		}
		if sp.Mass < 0 || sp.Friction < 0 || sp.Restitution < 0 {
			return fmt.Errorf("spawn: mass, friction and restitution must be >= 0")
		}
		defs := make([]sim.BodyDef, len(pos))
		for k, p := range pos {
			shape, _, rot, err := sp.shape(k)
			if err != nil {
				return err
			}
			defs[k] = sim.BodyDef{Shape: shape, Position: p, Rotation: rot, Mass: sp.Mass, Friction: sp.Friction,
				Restitution: sp.Restitution}
		}
		for _, d := range defs {
			if _, err := s.world.AddBody(d); err != nil {
				return err
			}
		}
		return nil
	}
}

// AboveScene returns a point above the highest body near the middle of the scene, where a spawned
// pattern will fall onto what is there.
func (s *Session) AboveScene() sim.Vec3 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	b := &s.world.Bodies
	top := float32(0)
	var c sim.Vec3
	n := 0
	for i := range b.Len() {
		if b.Shape[i].Kind == geom.Plane {
			continue
		}
		box := b.Shape[i].Bounds(geom.Pose{P: b.Position[i], Q: b.Rotation[i]})
		if box.Max[1] > top && box.Max[1] < 1e3 {
			top = box.Max[1]
		}
		if b.Type[i] == sim.Dynamic {
			c = c.Add(b.Position[i])
			n++
		}
	}
	if n > 0 {
		c = c.Mul(1 / float32(n))
	}
	return sim.Vec3{c[0], top + 1, c[2]}
}
