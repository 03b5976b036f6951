// Package instance holds the formats the renderer draws from and the CUDA backend writes into GL
// buffers: the per-instance transform record, the debug line vertex, the colour modes and palettes,
// and the fill of instance records from a World's state. It imports neither OpenGL nor CUDA, so the
// renderer (render), the backend (gpu) and their tests share one definition; a gpu test checks that
// the kernels (gpu/kernels/*.cu) write these layouts.
package instance

import (
	"errors"
	"math"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
	"tumble/sim/geom"
)

// Instance is one shape to draw: where, turned how (quaternion x, y, z, w), scaled how (a box's half
// extents, a sphere's or capsule's radius on every axis, a cylinder's radius, half height and radius),
// a capsule's half height, and its colour.
// The renderer's vertex attributes and the transforms kernel's TbInstance (kernels/transforms.cu)
// follow this layout: 15 float32, no padding.
type Instance struct {
	Pos   [3]float32
	Quat  [4]float32
	Scale [3]float32
	Extra float32
	Color [4]float32
}

// LineVertex is one end of a debug line (debug.cu's TbLineVertex).
type LineVertex struct {
	Pos   [3]float32
	Color [4]float32
}

// Bytes per record: the strides of the GL buffers.
const (
	InstanceBytes   = int(unsafe.Sizeof(Instance{}))   // 60
	LineVertexBytes = int(unsafe.Sizeof(LineVertex{})) // 28
)

// Shape kinds drawn instanced, one draw call each, grouped in this order in an instance buffer.
const (
	KindBox = iota
	KindSphere
	KindCapsule
	// KindCylinder is last: the CUDA backend's instance writer fills the first three (it runs no
	// cylinder, so their count there is 0).
	KindCylinder
	NumKinds
)

// CountKinds counts w's bodies per drawn kind (box, sphere, capsule, cylinder; a compound's children each). Shapes are definitions that only
// edits change, and the World keeps them current on the host, so this needs no Sync.
func CountKinds(w *sim.World) [NumKinds]int {
	var c [NumKinds]int
	for i := range w.Bodies.Shape {
		sh := &w.Bodies.Shape[i]
		if sh.Kind == geom.Compound {
			for j := range sh.Compound.Children {
				if k, ok := kindOf(sh.Compound.Children[j].Shape.Kind); ok {
					c[k]++
				}
			}
		} else if k, ok := kindOf(sh.Kind); ok {
			c[k]++
		}
	}
	return c
}

// kindOf maps a shape kind to its drawn kind (planes are drawn as ground, not instanced).
func kindOf(k geom.Kind) (int, bool) {
	switch k {
	case geom.Box:
		return KindBox, true
	case geom.Sphere:
		return KindSphere, true
	case geom.Capsule:
		return KindCapsule, true
	case geom.Cylinder:
		return KindCylinder, true
	}
	return 0, false
}

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
	// ColorSelected is white: BodyColor's palette is saturated (0.65), so no body's colour is near it.
	ColorSelected = [4]float32{1, 1, 1, 1}
	ColorHovered  = [4]float32{0.30, 1.00, 1.00, 1}
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

// Fill rebuilds shapes from the world's state slices: one instance per body that is not a plane (a
// compound: one per child, in the body's colour),
// coloured by mode (contacts, per dense index, is needed for ColorByContact and may be nil otherwise;
// highlight maps dense indices to a colour that replaces the body's). A convex hull has no shared mesh:
// its instance (scale 1) goes to hull, when not nil, with the body's hull (a static mesh's with each of
// its drawing hulls, MeshHulls). A height field's instance (scale 1) goes to field, when not nil, with
// its grid: how it is drawn depends on the view (FieldView). It returns the bodies' bounds, found false
// when there is no such body.
func Fill(shapes *[NumKinds][]Instance, w *sim.World, mode ColorBy, contacts []int32, highlight map[int][4]float32,
	hull func(h *geom.Hull, in Instance), field func(f *geom.HeightGrid, in Instance)) (lo, hi mgl32.Vec3, found bool) {
	for k := range shapes {
		shapes[k] = shapes[k][:0]
	}
	b := &w.Bodies
	for i := range b.Len() {
		sh := &b.Shape[i]
		kind, ok := kindOf(sh.Kind)
		isHull := sh.Kind == geom.ConvexHull && sh.Hull != nil
		isMesh := sh.Kind == geom.TriMesh && sh.Mesh != nil
		isField := sh.Kind == geom.HeightField && sh.Field != nil
		isCompound := sh.Kind == geom.Compound && sh.Compound != nil
		if !ok && !isHull && !isMesh && !isField && !isCompound {
			continue
		}
		p, q := b.Position[i], b.Rotation[i]
		box := sh.Bounds(geom.Pose{P: p, Q: q})
		if !found {
			lo, hi, found = box.Min, box.Max, true
		} else {
			lo = mgl32.Vec3{min(lo[0], box.Min[0]), min(lo[1], box.Min[1]), min(lo[2], box.Min[2])}
			hi = mgl32.Vec3{max(hi[0], box.Max[0]), max(hi[1], box.Max[1]), max(hi[2], box.Max[2])}
		}
		in := Instance{Pos: p, Quat: [4]float32{q.V[0], q.V[1], q.V[2], q.W}}
		in.Scale, in.Extra = shapeScale(sh)
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
		if isHull {
			if hull != nil {
				in.Scale = [3]float32{1, 1, 1}
				hull(sh.Hull, in)
			}
			continue
		}
		if isCompound {
			// Each child drawn as its own shape, in the body's colour, at its world pose.
			body := geom.Pose{P: p, Q: q}
			for c := range sh.Compound.Children {
				ch := &sh.Compound.Children[c].Shape
				cp := sh.Compound.ChildPose(body, c)
				ci := in
				ci.Pos, ci.Quat = cp.P, [4]float32{cp.Q.V[0], cp.Q.V[1], cp.Q.V[2], cp.Q.W}
				if ch.Kind == geom.ConvexHull {
					if hull != nil {
						ci.Scale, ci.Extra = [3]float32{1, 1, 1}, 0
						hull(ch.Hull, ci)
					}
					continue
				}
				ci.Scale, ci.Extra = shapeScale(ch)
				if k, ok := kindOf(ch.Kind); ok {
					shapes[k] = append(shapes[k], ci)
				}
			}
			continue
		}
		if isMesh {
			if hull != nil {
				in.Scale = [3]float32{1, 1, 1}
				for _, h := range MeshHulls(sh.Mesh) {
					hull(h, in)
				}
			}
			continue
		}
		if isField {
			if field != nil {
				in.Scale = [3]float32{1, 1, 1}
				field(sh.Field, in)
			}
			continue
		}
		shapes[kind] = append(shapes[kind], in)
	}
	return lo, hi, found
}

// Style says how a device writer colours the bodies: Fill's rules, with the palette passed in.
type Style struct {
	Mode                                      ColorBy
	Static, Dynamic, Kinematic, Awake, Asleep [4]float32
	// Contacts are the contact points touching each body, by dense index (ColorByContact; a body past
	// its end has none). It is uploaded per call: the contact colouring is a debug view.
	Contacts []int32
	// Sleeping marks asleep bodies by dense index (ColorBySleep); nil: every body awake.
	Sleeping []bool
	// Highlight replaces some bodies' colours (dense index to colour; a zero colour is ignored).
	Highlight map[int][4]float32
}

// DefaultStyle is Fill's palette in the mode.
func DefaultStyle(mode ColorBy) Style {
	return Style{Mode: mode, Static: ColorStatic, Dynamic: ColorDynamic, Kinematic: ColorKinematic,
		Awake: ColorAwake, Asleep: ColorAsleep}
}

// Written says what a device writer wrote: the records per kind (boxes, spheres, capsules, cylinders,
// in that order in the buffer) and the bodies' bounds, as Fill returns them (Any false: no body that is not a
// plane, bounds unset).
type Written struct {
	Counts [NumKinds]int
	Lo, Hi [3]float32
	Any    bool
}

// Total is the number of records.
func (in Written) Total() int {
	n := 0
	for _, c := range in.Counts {
		n += c
	}
	return n
}

// DebugStyle says which debug layers a device writer writes and in which colours (the window owns
// them). Lengths and sizes are the window's CPU path's (ui/debug.go): crosses of half size 0.05 m,
// normals 0.05 m plus up to 0.55 m by impulse.
type DebugStyle struct {
	Contacts, Normals, AABBs, BVH bool
	BVHDepth                      int // the BVH layer's level, as World.BVHLevel's depth
	// The layers' colours.
	Contact, Normal, AABB, BVHColor [4]float32
}

// DebugLines says what a device writer wrote of the debug lines: the vertices of each layer, in this
// order in the buffer. Contacts holds the crosses and normals, interleaved per contact as the window's
// CPU path draws them.
type DebugLines struct {
	Contacts, AABBs, BVH int
}

// Total is the number of vertices.
func (l DebugLines) Total() int { return l.Contacts + l.AABBs + l.BVH }

// Errors of a device writer.
var (
	// ErrNotOnDevice: the device does not hold the world's bodies yet (before the first step after an
	// edit), or holds a body its instance kernel does not draw (a convex hull); the frame comes from a
	// host copy.
	ErrNotOnDevice = errors.New("the device does not hold the world's bodies yet")
	// ErrLineCapacity is wrapped when the line buffer is too small; the counts returned with it say how
	// many vertices are needed (nothing was written).
	ErrLineCapacity = errors.New("the line buffer is too small")
)

// GLWriter writes a frame's instance records and debug lines straight into GL buffers, named by their
// GL ids, from where the bodies live (the CUDA backend, through CUDA-GL interop). Call it on the GL
// thread, between steps. One GLWriter maps one GL buffer: use one for the instances and another for
// the lines.
type GLWriter interface {
	// WriteInstances writes w's instance records into glBuffer, of capacity records.
	WriteInstances(w *sim.World, glBuffer uint32, capacity int, st *Style) (Written, error)
	// WriteDebugLines writes w's debug lines into glBuffer, of capacity vertices; an error wrapping
	// ErrLineCapacity comes with the counts needed.
	WriteDebugLines(w *sim.World, glBuffer uint32, capacity int, st *DebugStyle) (DebugLines, error)
	// Close releases the buffer's registration.
	Close()
}

// shapeScale is how a drawn kind's unit mesh is scaled to the shape (and a capsule's half height, the
// instance's Extra): a box by its half extents, a sphere by its radius, a capsule by its radius
// around its core, a cylinder by its radius across and its half height along y.
func shapeScale(sh *geom.Shape) ([3]float32, float32) {
	switch sh.Kind {
	case geom.Box:
		return sh.HalfExtents, 0
	case geom.Sphere:
		return [3]float32{sh.Radius, sh.Radius, sh.Radius}, 0
	case geom.Capsule:
		return [3]float32{sh.Radius, sh.Radius, sh.Radius}, sh.HalfHeight
	case geom.Cylinder:
		return [3]float32{sh.Radius, sh.HalfHeight, sh.Radius}, 0
	}
	return [3]float32{}, 0
}
