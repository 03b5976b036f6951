package command

import (
	"fmt"
	"math"

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

// Spec describes bodies to spawn.
type Spec struct {
	Kind    geom.Kind // geom.Box, geom.Sphere or geom.Capsule
	Pattern Pattern
	Count   int
	// Size: a box's half extents; a sphere's radius is Size[0]; a capsule's radius Size[0] and half
	// height Size[1].
	Size        sim.Vec3
	Mass        float32 // kg; 0 means 1000 kg/m^3
	Friction    float32
	Restitution float32
	// At is the point the pattern stands on (its base centre): a ground point under the cursor, or
	// Session.AboveScene.
	At sim.Vec3
}

// shape returns the spec's collision shape and its half height along y (how far its centre sits
// above the surface it rests on).
func (sp *Spec) shape() (geom.Shape, sim.Vec3, error) {
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
	}
	return geom.Shape{}, sim.Vec3{}, fmt.Errorf("spawn: cannot spawn a %s", sp.Kind)
}

func sphere(r float32) geom.Shape { return geom.Shape{Kind: geom.Sphere, Radius: r} }

// Positions returns where the spec's bodies go (their centres).
func (sp *Spec) Positions() ([]sim.Vec3, error) {
	_, half, err := sp.shape()
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
		shape, _, err := sp.shape()
		if err != nil {
			return err
		}
		pos, err := sp.Positions()
		if err != nil {
			return err
		}
		if sp.Mass < 0 || sp.Friction < 0 || sp.Restitution < 0 {
			return fmt.Errorf("spawn: mass, friction and restitution must be >= 0")
		}
		for _, p := range pos {
			if _, err := s.world.AddBody(sim.BodyDef{Shape: shape, Position: p, Mass: sp.Mass,
				Friction: sp.Friction, Restitution: sp.Restitution}); err != nil {
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
