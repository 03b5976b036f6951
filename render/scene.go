package render

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
	"tumble/sim/geom"
)

// Instance is one shape to draw: where, turned how (quaternion x, y, z, w), scaled how (a box's half
// extents, a sphere's or capsule's radius on every axis), a capsule's half height, and its colour.
type Instance struct {
	Pos   [3]float32
	Quat  [4]float32
	Scale [3]float32
	Extra float32
	Color [4]float32
}

// LineVertex is one end of a debug line.
type LineVertex struct {
	Pos   [3]float32
	Color [4]float32
}

// Plane is a plane body to draw as ground: its unit normal and offset (points p with n.p = offset).
type Plane struct {
	Normal mgl32.Vec3
	Offset float32
}

// Shape kinds the renderer draws instanced, one draw call each.
const (
	KindBox = iota
	KindSphere
	KindCapsule
	numKinds
)

// Frame is what one frame draws: the instances per shape kind, the planes, debug lines, and the
// bounds of the bodies (the shadow map covers them).
type Frame struct {
	Shapes [numKinds][]Instance
	Hulls  []HullBatch // convex hulls, one batch per distinct hull (drawn from the host, never Device)
	Planes []Plane
	Lines  []LineVertex
	Lo, Hi mgl32.Vec3
	// Device, when set, says the instances are already in the renderer's device buffer
	// (Renderer.DeviceBuffer), written there by CUDA through interop: Counts of them per kind, grouped
	// boxes, spheres, capsules. Shapes is then ignored and nothing is uploaded.
	Device bool
	Counts [numKinds]int
	// DeviceLines is the number of debug line vertices already in the renderer's device line buffer
	// (Renderer.DeviceLineBuffer), written there by CUDA through interop; they are drawn after Lines.
	DeviceLines int
}

// NumKinds is the number of instanced shape kinds (box, sphere, capsule), the groups of the device
// buffer in that order.
const NumKinds = numKinds

// ColorBy chooses the bodies' colours.
type ColorBy int

// The colour modes.
const (
	ColorByBody    ColorBy = iota // a distinct hue per body
	ColorByType                   // dynamic, kinematic, static
	ColorBySleep                  // awake or asleep (sim.Bodies.Asleep; only with sim.Settings.Sleep on)
	ColorByContact                // number of contact points touching the body, blue to red
)

// ColorNames are the colour modes' names, in order, for the panel.
var ColorNames = []string{"body", "type", "sleep state", "contact count"}

// Colours of the type mode and of highlights.
var (
	ColorDynamic   = [4]float32{0.90, 0.55, 0.20, 1}
	ColorKinematic = [4]float32{0.25, 0.55, 0.95, 1}
	ColorStatic    = [4]float32{0.55, 0.57, 0.60, 1}
	ColorAwake     = [4]float32{0.35, 0.75, 0.35, 1}
	ColorAsleep    = [4]float32{0.30, 0.35, 0.75, 1}
	ColorSelected  = [4]float32{1.00, 0.95, 0.25, 1}
	ColorHovered   = [4]float32{0.30, 1.00, 1.00, 1}
)

// BodyColor is body i's colour in the by-body mode: golden-ratio hues, saturated enough that a body
// never looks like the grey ground.
func BodyColor(i int) [4]float32 {
	h := math.Mod(float64(i)*0.618033988749895+0.05, 1)
	r, g, b := hsv(h, 0.65, 0.92)
	return [4]float32{r, g, b, 1}
}

func hsv(h, s, v float64) (float32, float32, float32) {
	i := math.Floor(h * 6)
	f := h*6 - i
	p, q, t := v*(1-s), v*(1-f*s), v*(1-(1-f)*s)
	var r, g, b float64
	switch int(i) % 6 {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	return float32(r), float32(g), float32(b)
}

// Fill rebuilds f from the world's state slices: one instance per body, coloured by mode (contacts,
// per dense index, is needed for ColorByContact and may be nil otherwise). highlight maps dense
// indices to a colour that replaces the body's.
func Fill(f *Frame, w *sim.World, mode ColorBy, contacts []int32, highlight map[int][4]float32) {
	for k := range f.Shapes {
		f.Shapes[k] = f.Shapes[k][:0]
	}
	f.Hulls = f.Hulls[:0]
	f.Planes = f.Planes[:0]
	f.Device = false
	b := &w.Bodies
	first := true
	for i := range b.Len() {
		sh := &b.Shape[i]
		if sh.Kind == geom.Plane {
			f.Planes = append(f.Planes, Plane{Normal: sh.Normal, Offset: sh.Offset})
			continue
		}
		p, q := b.Position[i], b.Rotation[i]
		{
			box := sh.Bounds(geom.Pose{P: p, Q: q})
			if first {
				f.Lo, f.Hi, first = box.Min, box.Max, false
			} else {
				f.Lo = mgl32.Vec3{min(f.Lo[0], box.Min[0]), min(f.Lo[1], box.Min[1]), min(f.Lo[2], box.Min[2])}
				f.Hi = mgl32.Vec3{max(f.Hi[0], box.Max[0]), max(f.Hi[1], box.Max[1]), max(f.Hi[2], box.Max[2])}
			}
		}
		in := Instance{Pos: p, Quat: [4]float32{q.V[0], q.V[1], q.V[2], q.W}}
		kind := KindBox
		switch sh.Kind {
		case geom.Box:
			in.Scale = sh.HalfExtents
		case geom.Sphere:
			in.Scale, kind = [3]float32{sh.Radius, sh.Radius, sh.Radius}, KindSphere
		case geom.Capsule:
			in.Scale, in.Extra, kind = [3]float32{sh.Radius, sh.Radius, sh.Radius}, sh.HalfHeight, KindCapsule
		}
		switch {
		case highlight[i] != [4]float32{}:
			in.Color = highlight[i]
		case b.Type[i] == sim.Static && mode != ColorByContact:
			in.Color = ColorStatic
		case mode == ColorByType:
			in.Color = ColorDynamic
			if b.Type[i] == sim.Kinematic {
				in.Color = ColorKinematic
			}
		case mode == ColorBySleep:
			in.Color = ColorAwake
			if b.Asleep[i] {
				in.Color = ColorAsleep
			}
		case mode == ColorByContact:
			n := 0.0
			if i < len(contacts) {
				n = math.Min(float64(contacts[i])/8, 1)
			}
			r, g, bb := hsv(0.66*(1-n), 0.75, 0.9)
			in.Color = [4]float32{r, g, bb, 1}
		default:
			in.Color = BodyColor(i)
		}
		if sh.Kind == geom.ConvexHull {
			in.Scale = [3]float32{1, 1, 1}
			f.addHull(sh.Hull, in)
			continue
		}
		f.Shapes[kind] = append(f.Shapes[kind], in)
	}
	if first {
		f.Lo, f.Hi = mgl32.Vec3{-5, 0, -5}, mgl32.Vec3{5, 2, 5}
	}
}

// Line appends a line from a to b in colour c.
func (f *Frame) Line(a, b mgl32.Vec3, c [4]float32) {
	f.Lines = append(f.Lines, LineVertex{a, c}, LineVertex{b, c})
}

// Box appends the 12 edges of the axis-aligned box [lo, hi].
func (f *Frame) Box(lo, hi mgl32.Vec3, c [4]float32) {
	corner := func(i int) mgl32.Vec3 {
		p := lo
		for k := range 3 {
			if i>>k&1 == 1 {
				p[k] = hi[k]
			}
		}
		return p
	}
	for i := range 8 {
		for k := range 3 {
			if j := i | 1<<k; j != i {
				f.Line(corner(i), corner(j), c)
			}
		}
	}
}

// Cross appends a small three-axis cross of half size s at p.
func (f *Frame) Cross(p mgl32.Vec3, s float32, c [4]float32) {
	for k := range 3 {
		var d mgl32.Vec3
		d[k] = s
		f.Line(p.Sub(d), p.Add(d), c)
	}
}

// FillPlanes sets only f's planes from w (the ground the device path draws; plane bodies are
// definitions, current on the host without a sync).
func FillPlanes(f *Frame, w *sim.World) {
	f.Planes = f.Planes[:0]
	for i := range w.Bodies.Shape {
		if sh := &w.Bodies.Shape[i]; sh.Kind == geom.Plane {
			f.Planes = append(f.Planes, Plane{Normal: sh.Normal, Offset: sh.Offset})
		}
	}
}
