package render

import (
	"github.com/go-gl/mathgl/mgl32"

	"tumble/render/instance"
	"tumble/sim"
	"tumble/sim/geom"
)

// Plane is a plane body to draw as ground: its unit normal and offset (points p with n.p = offset).
type Plane struct {
	Normal mgl32.Vec3
	Offset float32
}

// Frame is what one frame draws: the instances per shape kind, the planes, debug lines, and the
// bounds of the bodies (the shadow map covers them).
type Frame struct {
	Shapes [instance.NumKinds][]instance.Instance
	Hulls  []HullBatch  // convex hulls, one batch per distinct hull (drawn from the host, never Device)
	Fields []FieldBatch // height fields (drawn from the host, never Device)
	Planes []Plane
	Lines  []instance.LineVertex
	// Overlay are debug lines drawn over the bodies: whole where in front, faint where behind a
	// surface (a hinge inside a plank), so that they are never hidden.
	Overlay []instance.LineVertex
	Lo, Hi  mgl32.Vec3
	// View is the camera's, for what depends on it: a height field is drawn in more detail near the
	// eye and only where the view cone reaches (instance.FieldView). Set it before Fill; its Light is
	// left out (Fill takes LightDir into each field's frame).
	View instance.FieldCamera
	// Device, when set, says the instances are already in the renderer's device buffer
	// (Renderer.DeviceBuffer), written there by CUDA through interop: Counts of them per kind, grouped
	// boxes, spheres, capsules. Shapes is then ignored and nothing is uploaded.
	Device bool
	Counts [instance.NumKinds]int
	// DeviceLines is the number of debug line vertices already in the renderer's device line buffer
	// (Renderer.DeviceLineBuffer), written there by CUDA through interop; they are drawn after Lines.
	DeviceLines int
}

// Fill rebuilds f from the world's state slices: one instance per body (instance.Fill: coloured by
// mode, contacts per dense index for ColorByContact, highlight replacing some bodies' colours; a height
// field in chunks whose detail follows f.View), the planes, and the bounds the shadow map covers.
func Fill(f *Frame, w *sim.World, mode instance.ColorBy, contacts []int32, highlight map[int][4]float32) {
	FillPlanes(f, w)
	f.Device = false
	var found bool
	f.Hulls = f.Hulls[:0]
	f.Fields = f.Fields[:0]
	if f.Lo, f.Hi, found = instance.Fill(&f.Shapes, w, mode, contacts, highlight, f.addHull, f.addField); !found {
		f.Lo, f.Hi = mgl32.Vec3{-5, 0, -5}, mgl32.Vec3{5, 2, 5}
	}
}

// Line appends a line from a to b in colour c.
func (f *Frame) Line(a, b mgl32.Vec3, c [4]float32) {
	f.Lines = append(f.Lines, instance.LineVertex{Pos: a, Color: c}, instance.LineVertex{Pos: b, Color: c})
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

// addField appends height field g, whose body's instance is in, with the levels it is drawn with as
// seen by f.View (instance.FieldView, the camera taken into the field's frame) and whether it can
// shade anything under the light.
func (f *Frame) addField(g *geom.HeightGrid, in instance.Instance) {
	q := mgl32.Quat{W: in.Quat[3], V: mgl32.Vec3{in.Quat[0], in.Quat[1], in.Quat[2]}}.Conjugate()
	c := f.View
	c.Eye, c.Look, c.Light = q.Rotate(c.Eye.Sub(in.Pos)), q.Rotate(c.Look), q.Rotate(LightDir)
	var levels []*instance.FieldLevel
	if n := len(f.Fields); n < cap(f.Fields) {
		levels = f.Fields[:n+1][n].Levels[:0] // the list a field of an earlier frame left
	}
	instance.FieldView(g, c, func(l *instance.FieldLevel) { levels = append(levels, l) })
	f.Fields = append(f.Fields, FieldBatch{Instance: in, Levels: levels, Shades: instance.FieldShades(g, c.Light)})
}
