package scenes

import (
	"math"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
	"tumble/sim/geom"
)

// Part is one shape of a compound body (Body.Shapes): the shape, its pose in the body's frame, its
// mass or density and its own material. Nil pointers are fields the file left out.
type Part struct {
	Shape    Shape `json:"shape"`              // a box, sphere, capsule, cylinder or hull
	Position *Vec3 `json:"position,omitempty"` // the shape's centre in the body's frame; default origin
	Rotation *Quat `json:"rotation,omitempty"` // [x, y, z, w], in the body's frame; default identity
	// Mass (kg) or Density (kg/m^3); default the body's density, else sim.DefaultDensity.
	Mass    *float64 `json:"mass,omitempty"`
	Density *float64 `json:"density,omitempty"`
	// Friction, Restitution and the resistances are the shape's own; default the body's (and an
	// edit of the body's reaches the shapes that gave none).
	Friction           *float64 `json:"friction,omitempty"`
	Restitution        *float64 `json:"restitution,omitempty"`
	RollingResistance  *float64 `json:"rollingResistance,omitempty"`
	SpinningResistance *float64 `json:"spinningResistance,omitempty"`
}

// partShapes are the shape types a compound holds.
const partShapes = "box, sphere, capsule, cylinder or hull"

func (d *decoder) part(n *node, path string, p *Part) {
	m := d.fields(n, path, "shape", "position", "rotation", "mass", "density", "friction", "restitution",
		"rollingResistance", "spinningResistance")
	d.required(m, "shape", path)
	if m == nil || d.err != nil {
		return
	}
	d.shape(m["shape"], join(path, "shape"), &p.Shape)
	p.Position = d.optVec(m, "position", path)
	p.Rotation = d.optQuat(m, "rotation", path)
	p.Mass = d.optNumber(m, "mass", path)
	p.Density = d.optNumber(m, "density", path)
	p.Friction = d.optNumber(m, "friction", path)
	p.Restitution = d.optNumber(m, "restitution", path)
	p.RollingResistance = d.optNumber(m, "rollingResistance", path)
	p.SpinningResistance = d.optNumber(m, "spinningResistance", path)
}

func (d *decoder) parts(n *node, path string) []Part {
	if n.kind != 'a' {
		d.fail(path, "must be an array of shapes", n)
		return nil
	}
	out := make([]Part, len(n.vals))
	for i, it := range n.vals {
		d.part(it, path+"["+strconv.Itoa(i)+"]", &out[i])
		if d.err != nil {
			return nil
		}
	}
	return out
}

// validateShapes checks a compound body's shapes: 1 to geom.MaxChildren, each a valid box, sphere,
// capsule or hull with a pose, a mass or density, and a material in range.
func (b *Body) validateShapes(c *check, path string) {
	p := path + ".shapes"
	if len(b.Shapes) == 0 || len(b.Shapes) > geom.MaxChildren {
		c.fail(p, "a compound has 1 to "+strconv.Itoa(geom.MaxChildren)+" shapes", strconv.Itoa(len(b.Shapes))+" shapes")
		return
	}
	if b.Shape.Type != "" {
		c.fail(path+".shape", "give shape or shapes, not both", strconv.Quote(b.Shape.Type))
		return
	}
	for i := range b.Shapes {
		q := &b.Shapes[i]
		pp := p + "[" + strconv.Itoa(i) + "]"
		switch q.Shape.Type {
		case "box", "sphere", "capsule", "cylinder", "hull":
			q.Shape.validate(c, pp+".shape")
		case "":
			c.fail(pp+".shape.type", "missing (required)", "")
		default:
			c.fail(pp+".shape.type", "a compound's shape is a "+partShapes, strconv.Quote(q.Shape.Type))
		}
		if q.Position != nil {
			c.vec(pp+".position", q.Position[:], MaxCoordinate, " m")
		}
		if q.Rotation != nil {
			c.rotation(pp+".rotation", q.Rotation)
		}
		if q.Mass != nil {
			c.num(pp+".mass", *q.Mass, MinMass, MaxMass, true, " kg")
		}
		if q.Density != nil {
			if q.Mass != nil {
				c.fail(pp+".density", "give mass or density, not both", fmtNum(*q.Density))
			}
			c.num(pp+".density", *q.Density, MinDensity, MaxDensity, true, " kg/m^3")
		}
		if q.Friction != nil {
			c.num(pp+".friction", *q.Friction, 0, MaxFriction, false, "")
		}
		if q.Restitution != nil {
			c.num(pp+".restitution", *q.Restitution, 0, 1, false, "")
		}
		if q.RollingResistance != nil {
			c.num(pp+".rollingResistance", *q.RollingResistance, 0, MaxResistance, false, "")
		}
		if q.SpinningResistance != nil {
			c.num(pp+".spinningResistance", *q.SpinningResistance, 0, MaxResistance, false, "")
		}
		if c.err != nil {
			return
		}
	}
}

// compoundDef sets d's shape to the compound of b's shapes: each child's mass from its mass, or its
// density (else the body's, else sim.DefaultDensity) times its volume; a hull child placed by its own
// centre of mass and principal frame; the body's rotation turned into the compound's principal frame,
// as hullDef does; with a centre of mass, the compound about it (geom.NewCompoundAbout); with an
// inertia, that tensor's principal frame (geom.CompoundShape.WithInertia).
// The body's mass, if given, is the whole's (sim scales the children to it). The scene must be valid.
func compoundDef(d *sim.BodyDef, b *Body) {
	rho := float64(sim.DefaultDensity)
	if b.Density != nil {
		rho = *b.Density
	}
	kids := make([]geom.Child, len(b.Shapes))
	for i := range b.Shapes {
		q := &b.Shapes[i]
		ch := geom.Child{Pose: geom.Identity, Material: geom.BodyMaterial}
		sd := sim.BodyDef{Rotation: mgl32.QuatIdent()}
		if q.Rotation != nil {
			ch.Pose.Q = quat(q.Rotation)
			sd.Rotation = ch.Pose.Q
		}
		if q.Position != nil {
			ch.Pose.P = vec(*q.Position)
		}
		sh := &q.Shape
		switch sh.Type {
		case "hull":
			hullDef(&sd, sh)
			ch.Pose.P = ch.Pose.P.Add(ch.Pose.Q.Rotate(sd.Shape.Hull.Centre))
			ch.Pose.Q = sd.Rotation
		default:
			sd.Shape = basicShape(sh)
		}
		ch.Shape = sd.Shape
		switch {
		case q.Mass != nil:
			ch.Mass = float32(*q.Mass)
		case q.Density != nil:
			ch.Mass = float32(*q.Density * ch.Shape.Volume())
		default:
			ch.Mass = float32(rho * ch.Shape.Volume())
		}
		if q.Friction != nil {
			ch.Material.Friction = float32(*q.Friction)
		}
		if q.Restitution != nil {
			ch.Material.Restitution = float32(*q.Restitution)
		}
		if q.RollingResistance != nil {
			ch.Material.RollingResistance = float32(*q.RollingResistance)
		}
		if q.SpinningResistance != nil {
			ch.Material.SpinningResistance = float32(*q.SpinningResistance)
		}
		kids[i] = ch
	}
	var c *geom.CompoundShape
	var err error
	if b.CenterOfMass != nil {
		c, err = geom.NewCompoundAbout(kids, vec(*b.CenterOfMass))
	} else {
		c, err = geom.NewCompound(kids)
	}
	if err == nil && b.Inertia != nil {
		// The tensor is at the body's mass: its given mass, else its parts' summed.
		mass := float64(c.Mass)
		if b.Mass != nil {
			mass = *b.Mass
		}
		c, err = c.WithInertia(inertiaTensor(b.Inertia, mass))
	}
	if err != nil {
		panic("scenes: BodyDef of an invalid scene: " + err.Error())
	}
	d.Shape = geom.Shape{Kind: geom.Compound, Compound: c}
	d.Rotation = c.BodyRotation(d.Rotation)
}

// quat converts a file rotation [x, y, z, w], normalised.
func quat(q *Quat) mgl32.Quat {
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	return mgl32.Quat{W: float32(q[3] / l), V: mgl32.Vec3{float32(q[0] / l), float32(q[1] / l), float32(q[2] / l)}}
}
