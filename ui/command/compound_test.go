package command

import (
	"math"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

// Save writes a compound body as its shapes: loaded back, each compound has the same shapes, masses,
// materials, centre of mass, pose and inertia, a hull shape and a body mass that scales its shapes
// included, mid-flight and turned.
func TestSaveKeepsCompoundBodies(t *testing.T) {
	const file = `{"name": "parts", "bodies": [
	  {"name": "ground", "type": "static", "shape": {"type": "plane", "normal": [0, 1, 0]}},
	  {"name": "mallet", "mass": 3, "friction": 0.4, "position": [0, 2, 0], "angularVelocity": [1, 5, 2], "shapes": [
	    {"shape": {"type": "capsule", "radius": 0.02, "halfHeight": 0.2}, "density": 700},
	    {"shape": {"type": "hull", "points": [[-0.1, 0.2, -0.05], [0.1, 0.2, -0.05], [0, 0.3, -0.05],
	      [-0.1, 0.2, 0.05], [0.1, 0.2, 0.05], [0, 0.3, 0.05]]}, "position": [0.02, 0.01, 0], "density": 3000, "restitution": 0.4},
	    {"shape": {"type": "sphere", "radius": 0.05}, "position": [0, -0.2, 0], "friction": 0.9}]}]}`
	sc, err := scenes.Parse("parts.json", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New("parts", sc)
	if err != nil {
		t.Fatal(err)
	}
	s.Steps(20)
	type body struct {
		c     *geom.CompoundShape
		mass  float32
		world sim.Mat3
		at    sim.Vec3
		q     sim.Quat
	}
	get := func(s *Session, name string) (out body) {
		s.View(func(w *sim.World) {
			h, ok := w.Find(name)
			if !ok {
				t.Fatalf("no body %s", name)
			}
			i, _ := w.Index(h)
			b := &w.Bodies
			out = body{b.Shape[i].Compound, b.Mass[i], b.InvInertiaWorld[i], b.Position[i], b.Rotation[i]}
		})
		return out
	}
	before := get(s, "mallet")
	saved, s2 := saveAndReload(t, s)
	if n := len(saved.Bodies[1].Shapes); n != 3 || saved.Bodies[1].Shape.Type != "" {
		t.Fatalf("saved with %d shapes and shape %q", n, saved.Bodies[1].Shape.Type)
	}
	after := get(s2, "mallet")
	if after.c == nil || len(after.c.Children) != 3 {
		t.Fatalf("loaded back as %+v", after.c)
	}
	if math.Abs(float64(after.mass-3)) > 1e-5 || after.at.Sub(before.at).Len() > 1e-5 ||
		math.Abs(float64(after.q.Dot(before.q))) < 1-1e-6 {
		t.Errorf("mass %v at %v turned %v after loading, %v at %v turned %v before", after.mass, after.at, after.q,
			before.mass, before.at, before.q)
	}
	for k := range 3 {
		a, b := &after.c.Children[k], &before.c.Children[k]
		if a.Shape.Kind != b.Shape.Kind || a.Material != b.Material || math.Abs(float64(a.Mass/after.c.Mass-b.Mass/before.c.Mass)) > 1e-5 {
			t.Errorf("shape %d: %s %+v, share %v after; %s %+v, share %v before", k, a.Shape.Kind, a.Material,
				a.Mass/after.c.Mass, b.Shape.Kind, b.Material, b.Mass/before.c.Mass)
		}
		// Where each shape is in the world.
		pa := after.c.ChildPose(geom.Pose{P: after.at, Q: after.q}, k)
		pb := before.c.ChildPose(geom.Pose{P: before.at, Q: before.q}, k)
		if pa.P.Sub(pb.P).Len() > 1e-5 {
			t.Errorf("shape %d at %v after loading, %v before", k, pa.P, pb.P)
		}
	}
	for r := range 3 {
		for c := range 3 {
			if d := math.Abs(float64(after.world.At(r, c) - before.world.At(r, c))); d > 1e-4*float64(before.world.At(r, r)) {
				t.Errorf("inverse world inertia [%d][%d] %v after loading, %v before", r, c, after.world.At(r, c), before.world.At(r, c))
			}
		}
	}
}

// Save keeps a compound's declared centre of mass and inertia: a link whose centre is 0.8 m from its
// box (and one whose inertia is declared too) is written with centerOfMass (and inertia), and loaded
// back has the same centre of mass, box pose and inertia, mid-swing and turned; a compound whose
// shapes make both is written without either.
func TestSaveKeepsADeclaredCentreOfMass(t *testing.T) {
	const file = `{"name": "links", "gravity": [0, 0, 0], "bodies": [
	  {"name": "plain", "position": [3, 2, 0], "angularVelocity": [1, 2, 0.5], "shapes": [
	    {"shape": {"type": "box", "halfExtents": [0.1, 0.5, 0.2]}, "position": [0, -0.5, 0]},
	    {"shape": {"type": "sphere", "radius": 0.2}, "position": [0.3, 0, 0]}]},
	  {"name": "centred", "mass": 2, "position": [0, 2, 0], "centerOfMass": [0, -0.8, 0.1], "angularVelocity": [1, 2, 0.5],
	    "shapes": [{"shape": {"type": "box", "halfExtents": [0.05, 0.5, 0.05]}, "position": [0, -0.5, 0]}]},
	  {"name": "declared", "mass": 1, "position": [-3, 2, 0], "centerOfMass": [0, -0.8, 0], "angularVelocity": [1, 2, 0.5],
	    "inertia": [0.02, 0.001, 0, 0.01, 0, 0.015],
	    "shapes": [{"shape": {"type": "box", "halfExtents": [0.05, 0.5, 0.05]}, "position": [0, -0.5, 0]}]}]}`
	sc, err := scenes.Parse("links.json", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New("links", sc)
	if err != nil {
		t.Fatal(err)
	}
	s.Steps(20)
	type body struct {
		at, box sim.Vec3
		world   sim.Mat3
	}
	get := func(s *Session, name string) (out body) {
		s.View(func(w *sim.World) {
			h, _ := w.Find(name)
			i, _ := w.Index(h)
			b := &w.Bodies
			out.at, out.world = b.Position[i], b.InvInertiaWorld[i]
			out.box = b.Shape[i].Compound.ChildPose(geom.Pose{P: b.Position[i], Q: b.Rotation[i]}, 0).P
		})
		return out
	}
	saved, s2 := saveAndReload(t, s)
	for k, name := range []string{"plain", "centred", "declared"} {
		sb := saved.Bodies[k]
		if (sb.CenterOfMass != nil) != (k > 0) || (sb.Inertia != nil) != (k == 2) {
			t.Errorf("%s saved with centerOfMass %v, inertia %v", name, sb.CenterOfMass, sb.Inertia)
		}
		before, after := get(s, name), get(s2, name)
		if after.at.Sub(before.at).Len() > 1e-5 || after.box.Sub(before.box).Len() > 1e-5 {
			t.Errorf("%s: centre %v, box %v after loading; %v, %v before", name, after.at, after.box, before.at, before.box)
		}
		for r := range 3 {
			for c := range 3 {
				if d := math.Abs(float64(after.world.At(r, c) - before.world.At(r, c))); d > 1e-4*float64(before.world.At(r, r)) {
					t.Errorf("%s: inverse world inertia [%d][%d] %v after loading, %v before", name, r, c, after.world.At(r, c), before.world.At(r, c))
				}
			}
		}
	}
}
