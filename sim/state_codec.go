package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"unsafe"

	"tumble/sim/geom"
	"tumble/sim/internal/byteread"
)

// A State's binary form (MarshalBinary) is, little endian: the magic "TSTATE1\n", the layout hash
// (StateLayout), the step count (int64), the time (float64 bits), then the jointSerial and nextLabel,
// then length-prefixed sections: the body names, and the in-memory images of the fixed-layout arrays
// (settings, body arrays, slots, joints, the manifold cache, rotation matrices, wake labels,
// shape-matching clusters and their members). The
// arrays are plain data (no pointers; a test checks), so their image is their whole content; the
// layout hash covers every field's name, type, offset and size, so a state written by a build whose
// solver structures differ is refused rather than misread.

var stateMagic = [8]byte{'T', 'S', 'T', 'A', 'T', 'E', '1', '\n'}

// StateLayout is a hash of the memory layout of every structure a State's binary form holds. Two
// builds with the same StateLayout read each other's states.
var StateLayout = layoutHash(reflect.TypeFor[Settings](), reflect.TypeFor[BodyType](), reflect.TypeFor[shapeImage](),
	reflect.TypeFor[Vec3](), reflect.TypeFor[Quat](), reflect.TypeFor[Mat3](), reflect.TypeFor[slot](),
	reflect.TypeFor[joint](), reflect.TypeFor[manifold](), reflect.TypeFor[geom.HullFace](),
	reflect.TypeFor[geom.HullEdge](), reflect.TypeFor[hullScalars](), reflect.TypeFor[cluster](),
	reflect.TypeFor[clusterMember](), reflect.TypeFor[childImage](), reflect.TypeFor[compoundScalars]())

// podTypes are the element types a State stores as memory images.
var podTypes = []reflect.Type{reflect.TypeFor[Settings](), reflect.TypeFor[shapeImage](), reflect.TypeFor[slot](),
	reflect.TypeFor[joint](), reflect.TypeFor[manifold](), reflect.TypeFor[Mat3](), reflect.TypeFor[Quat](),
	reflect.TypeFor[geom.HullFace](), reflect.TypeFor[geom.HullEdge](), reflect.TypeFor[hullScalars](),
	reflect.TypeFor[cluster](), reflect.TypeFor[clusterMember](), reflect.TypeFor[childImage](),
	reflect.TypeFor[compoundScalars](), reflect.TypeFor[fieldScalars]()}

// shapeImage is a geom.Shape as the binary form stores it: a convex hull's, a mesh's and a compound's
// shared geometry (pointers in memory) as indices into the state's tables, -1 for none.
type shapeImage struct {
	Kind        geom.Kind
	HalfExtents Vec3
	Radius      float32
	HalfHeight  float32
	Normal      Vec3
	Offset      float32
	Hull        int32
	Mesh        int32 // index in the mesh table (a height field's: in the field table), or -1
	Compound    int32 // index in the compound table, or -1
}

// fieldTableTag starts a state's table of height fields.
var fieldTableTag = [4]byte{'H', 'F', 'L', 'D'}

// fieldScalars are a height field's grid, stored before its samples.
type fieldScalars struct {
	NX, NZ     int32
	DX, DZ     float32
	Base, Step float32
}

// hullScalars are a hull's mass properties and frame, stored after its arrays.
type hullScalars struct {
	Volume      float64
	UnitInertia Vec3
	Centre      Vec3
	Frame       Quat
	Radius      float32
}

// childImage is a compound's child as the binary form stores it (its hull, if any, in the hull table).
type childImage struct {
	Shape    shapeImage
	Pose     geom.Pose
	Mass     float32
	Material geom.Material
}

// compoundScalars are a compound's mass properties and frame, stored after its children.
type compoundScalars struct {
	Mass        float32
	UnitInertia Vec3
	Centre      Vec3
	Frame       Quat
	Radius      float32
}

// shapeTables are the shared geometry a state's shapes point to, each distinct one once, in order of
// first use: hulls (a compound's children's too), meshes, compounds with their children's images, and
// height fields.
type shapeTables struct {
	hulls     []*geom.Hull
	meshes    []*geom.Mesh
	compounds []*geom.CompoundShape
	kids      [][]childImage
	fields    []*geom.HeightGrid
	hindex    map[*geom.Hull]int32
	mindex    map[*geom.Mesh]int32
	cindex    map[*geom.CompoundShape]int32
	findex    map[*geom.HeightGrid]int32
}

// image returns sh's image, adding its shared geometry to the tables.
func (t *shapeTables) image(sh *geom.Shape) shapeImage {
	im := shapeImage{Kind: sh.Kind, HalfExtents: sh.HalfExtents, Radius: sh.Radius, HalfHeight: sh.HalfHeight,
		Normal: sh.Normal, Offset: sh.Offset, Hull: -1, Mesh: -1, Compound: -1}
	if sh.Field != nil {
		im.Mesh = intern(t.findex, &t.fields, sh.Field)
	}
	if sh.Mesh != nil {
		im.Mesh = intern(t.mindex, &t.meshes, sh.Mesh)
	}
	if sh.Hull != nil {
		im.Hull = intern(t.hindex, &t.hulls, sh.Hull)
	}
	if c := sh.Compound; c != nil {
		k, ok := t.cindex[c]
		if !ok {
			k = int32(len(t.compounds))
			t.cindex[c] = k
			kids := make([]childImage, len(c.Children))
			for j := range c.Children {
				ch := &c.Children[j]
				kids[j] = childImage{Shape: t.image(&ch.Shape), Pose: ch.Pose, Mass: ch.Mass, Material: ch.Material}
			}
			t.compounds = append(t.compounds, c)
			t.kids = append(t.kids, kids)
		}
		im.Compound = k
	}
	return im
}

// intern returns x's index in list, appending it (and recording the index in index) when it is new.
func intern[T comparable](index map[T]int32, list *[]T, x T) int32 {
	k, ok := index[x]
	if !ok {
		k = int32(len(*list))
		index[x] = k
		*list = append(*list, x)
	}
	return k
}

// shapeImages returns the shapes' images and the tables they index. A hull or a compound is stored
// whole (not as what it was built from), so a loaded state's bodies have exactly the geometry and
// mass properties they had.
func shapeImages(shapes []geom.Shape) ([]shapeImage, *shapeTables) {
	t := &shapeTables{hindex: map[*geom.Hull]int32{}, mindex: map[*geom.Mesh]int32{}, cindex: map[*geom.CompoundShape]int32{},
		findex: map[*geom.HeightGrid]int32{}}
	out := make([]shapeImage, len(shapes))
	for i := range shapes {
		out[i] = t.image(&shapes[i])
	}
	return out, t
}

// shapeOf is the shape an image stands for, its shared geometry taken from the tables loaded so far.
func shapeOf(im *shapeImage, hulls []*geom.Hull, meshes []*geom.Mesh, compounds []*geom.CompoundShape,
	fields []*geom.HeightGrid) (geom.Shape, error) {
	sh := geom.Shape{Kind: im.Kind, HalfExtents: im.HalfExtents, Radius: im.Radius, HalfHeight: im.HalfHeight,
		Normal: im.Normal, Offset: im.Offset}
	if im.Hull >= 0 {
		if int(im.Hull) >= len(hulls) {
			return sh, fmt.Errorf("hull %d of %d", im.Hull, len(hulls))
		}
		sh.Hull = hulls[im.Hull]
	}
	if im.Mesh >= 0 && im.Kind == geom.HeightField {
		if int(im.Mesh) >= len(fields) {
			return sh, fmt.Errorf("height field %d of %d", im.Mesh, len(fields))
		}
		sh.Field = fields[im.Mesh]
	} else if im.Mesh >= 0 {
		if int(im.Mesh) >= len(meshes) {
			return sh, fmt.Errorf("mesh %d of %d", im.Mesh, len(meshes))
		}
		sh.Mesh = meshes[im.Mesh]
	}
	if im.Compound >= 0 {
		if int(im.Compound) >= len(compounds) {
			return sh, fmt.Errorf("compound %d of %d", im.Compound, len(compounds))
		}
		sh.Compound = compounds[im.Compound]
	}
	return sh, nil
}

func layoutHash(ts ...reflect.Type) uint64 {
	h := fnv.New64a()
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		fmt.Fprintf(h, "%s:%d:%d;", t.Kind(), t.Size(), t.Align())
		switch t.Kind() {
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				fmt.Fprintf(h, "%s@%d=", f.Name, f.Offset)
				walk(f.Type)
			}
		case reflect.Array:
			fmt.Fprintf(h, "[%d]", t.Len())
			walk(t.Elem())
		}
	}
	for _, t := range ts {
		fmt.Fprintf(h, "%s{", t.Name())
		walk(t)
		h.Write([]byte("}"))
	}
	return h.Sum64()
}

// plainData reports whether values of t hold no pointers, slices, maps, strings or interfaces.
func plainData(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	case reflect.Array:
		return plainData(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !plainData(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// podBytes is the memory image of s.
func podBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// MarshalBinary encodes the state (see StateLayout).
func (s *State) MarshalBinary() ([]byte, error) { return s.AppendBinary(nil) }

// AppendBinary appends the state's binary form (MarshalBinary's) to b. A caller that encodes state
// after state (a recording's keyframes) can reuse one buffer: the pile's state is 7 MB, and encoding
// it into fresh memory, grown as it went, took 40 to 125 ms.
func (s *State) AppendBinary(b []byte) ([]byte, error) {
	if !littleEndian {
		return nil, errors.New("state: binary form needs a little-endian machine")
	}
	out := slices.Grow(b, s.Bytes()+4096)
	out = append(out, stateMagic[:]...)
	out = binary.LittleEndian.AppendUint64(out, StateLayout)
	out = binary.LittleEndian.AppendUint64(out, uint64(s.stepCount))
	out = binary.LittleEndian.AppendUint64(out, math.Float64bits(s.time))
	out = binary.LittleEndian.AppendUint64(out, s.jointSerial)
	out = binary.LittleEndian.AppendUint32(out, s.nextLabel)
	section := func(b []byte) {
		out = binary.LittleEndian.AppendUint64(out, uint64(len(b)))
		out = append(out, b...)
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(s.bodies.Name)))
	for _, n := range s.bodies.Name {
		out = binary.AppendUvarint(out, uint64(len(n)))
		out = append(out, n...)
	}
	section(podBytes([]Settings{s.user}))
	shapes, tables := shapeImages(s.bodies.Shape)
	hulls, meshes := tables.hulls, tables.meshes
	for _, p := range s.arrays(shapes) {
		section(p)
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(hulls)))
	for _, h := range hulls {
		section(podBytes(h.Verts))
		section(podBytes(h.Faces))
		section(podBytes(h.FaceVerts))
		section(podBytes(h.Edges))
		section(podBytes([]hullScalars{{h.Volume, h.UnitInertia, h.Centre, h.Frame, h.Radius}}))
		section(podBytes(h.MeshVerts)) // a moving mesh's own triangles; empty for a hull of points
		section(podBytes(h.MeshTris))
	}
	// Meshes: their vertices and triangles; the rest (normals, edges, BVH) is rebuilt from them on
	// load, by the same deterministic code.
	out = binary.LittleEndian.AppendUint32(out, uint32(len(meshes)))
	for _, m := range meshes {
		section(podBytes(m.Verts))
		section(podBytes(m.Tris))
	}
	// Compounds: their children's images (hulls by the table above) and their mass properties.
	out = binary.LittleEndian.AppendUint32(out, uint32(len(tables.compounds)))
	for k, c := range tables.compounds {
		section(podBytes(tables.kids[k]))
		section(podBytes([]compoundScalars{{c.Mass, c.UnitInertia, c.Centre, c.Frame, c.Radius}}))
	}
	// Height fields, only when there are any (a state without them ends at its compounds): a tag,
	// then each its grid and its 16-bit samples; the edge flags are rebuilt on load.
	if fields := tables.fields; len(fields) > 0 {
		out = append(out, fieldTableTag[:]...)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(fields)))
		for _, f := range fields {
			section(podBytes([]fieldScalars{{int32(f.NX), int32(f.NZ), f.DX, f.DZ, f.Base, f.Step}}))
			section(podBytes(f.Q))
		}
	}
	return out, nil
}

// arrays lists the state's fixed-layout arrays as memory images, in file order.
func (s *State) arrays(shapes []shapeImage) [][]byte {
	b := &s.bodies
	return [][]byte{podBytes(b.Type), podBytes(shapes), podBytes(b.Position), podBytes(b.Rotation),
		podBytes(b.Velocity), podBytes(b.AngularVelocity), podBytes(b.Mass), podBytes(b.InvMass),
		podBytes(b.InvInertiaLocal), podBytes(b.InvInertiaWorld), podBytes(b.Friction), podBytes(b.Restitution),
		podBytes(b.RollingResistance), podBytes(b.SpinningResistance), podBytes(b.Asleep), podBytes(b.SleepTime), podBytes(b.island), podBytes(b.handle),
		podBytes(s.slots), podBytes(s.freeSlot), podBytes(s.joints), podBytes(s.prev), podBytes(s.rot),
		podBytes(s.wakeLabels), podBytes(s.clusters), podBytes(s.members)}
}

// UnmarshalBinary decodes a state MarshalBinary wrote. A wrong magic or layout, a short or long
// input, or arrays that disagree are errors; s is then left unchanged.
func (s *State) UnmarshalBinary(data []byte) error {
	if !littleEndian {
		return errors.New("state: binary form needs a little-endian machine")
	}
	r := byteread.Reader{B: data}
	if m := r.Take(8); r.Err != nil || [8]byte(m) != stateMagic {
		return errors.New("state: not a Tumble state (bad magic)")
	}
	if l := r.U64(); r.Err == nil && l != StateLayout {
		return fmt.Errorf("state: layout %016x, this build reads %016x (written by a build with other solver structures)", l, StateLayout)
	}
	var t State
	t.stepCount = int(r.U64())
	t.time = math.Float64frombits(r.U64())
	t.jointSerial = r.U64()
	t.nextLabel = r.U32()
	n := int(r.U32())
	if r.Err == nil && n > len(data) {
		return fmt.Errorf("state: %d bodies in %d bytes", n, len(data))
	}
	t.bodies.Name = make([]string, 0, min(n, len(data)))
	for i := 0; i < n && r.Err == nil; i++ {
		l, k := binary.Uvarint(r.B[r.Off:])
		if k <= 0 || l > uint64(len(r.B)-r.Off-k) {
			r.Err = fmt.Errorf("body %d's name", i)
			break
		}
		r.Off += k
		t.bodies.Name = append(t.bodies.Name, string(r.Take(int(l))))
	}
	settings := []Settings{{}}
	into(&r, podBytes(settings), "settings")
	t.user = settings[0]
	b := &t.bodies
	load(&r, &b.Type, n, "types")
	var shapes []shapeImage
	load(&r, &shapes, n, "shapes")
	load(&r, &b.Position, n, "positions")
	load(&r, &b.Rotation, n, "rotations")
	load(&r, &b.Velocity, n, "velocities")
	load(&r, &b.AngularVelocity, n, "angular velocities")
	load(&r, &b.Mass, n, "masses")
	load(&r, &b.InvMass, n, "inverse masses")
	load(&r, &b.InvInertiaLocal, n, "inverse inertias")
	load(&r, &b.InvInertiaWorld, n, "world inverse inertias")
	load(&r, &b.Friction, n, "friction")
	load(&r, &b.Restitution, n, "restitution")
	load(&r, &b.RollingResistance, n, "rolling resistance")
	load(&r, &b.SpinningResistance, n, "spinning resistance")
	load(&r, &b.Asleep, n, "asleep")
	load(&r, &b.SleepTime, n, "sleep times")
	load(&r, &b.island, n, "islands")
	load(&r, &b.handle, n, "handles")
	load(&r, &t.slots, -1, "slots")
	load(&r, &t.freeSlot, -1, "free slots")
	load(&r, &t.joints, -1, "joints")
	load(&r, &t.prev, -1, "manifolds")
	load(&r, &t.rot, -1, "rotation matrices")
	load(&r, &t.wakeLabels, -1, "wake labels")
	load(&r, &t.clusters, -1, "clusters")
	load(&r, &t.members, -1, "cluster members")
	var hulls []*geom.Hull
	if nh := int(r.U32()); r.Err == nil {
		if nh > len(data) {
			return fmt.Errorf("state: %d hulls in %d bytes", nh, len(data))
		}
		for i := 0; i < nh && r.Err == nil; i++ {
			h := &geom.Hull{}
			var sc []hullScalars
			load(&r, &h.Verts, -1, "hull vertices")
			load(&r, &h.Faces, -1, "hull faces")
			load(&r, &h.FaceVerts, -1, "hull face loops")
			load(&r, &h.Edges, -1, "hull edges")
			load(&r, &sc, 1, "hull properties")
			load(&r, &h.MeshVerts, -1, "hull mesh vertices")
			load(&r, &h.MeshTris, -1, "hull mesh triangles")
			if r.Err == nil {
				h.Volume, h.UnitInertia, h.Centre, h.Frame, h.Radius = sc[0].Volume, sc[0].UnitInertia, sc[0].Centre,
					sc[0].Frame, sc[0].Radius
				hulls = append(hulls, h)
			}
		}
	}
	var meshes []*geom.Mesh
	if nm := int(r.U32()); r.Err == nil {
		if nm > len(data) {
			return fmt.Errorf("state: %d meshes in %d bytes", nm, len(data))
		}
		for i := 0; i < nm && r.Err == nil; i++ {
			var verts []geom.Vec3
			var tris [][3]uint32
			load(&r, &verts, -1, "mesh vertices")
			load(&r, &tris, -1, "mesh triangles")
			if r.Err == nil {
				m, err := geom.NewMesh(verts, tris)
				if err != nil {
					return fmt.Errorf("state: mesh %d: %v", i, err)
				}
				meshes = append(meshes, m)
			}
		}
	}
	var compounds []*geom.CompoundShape
	if nc := int(r.U32()); r.Err == nil {
		if nc > len(data) {
			return fmt.Errorf("state: %d compounds in %d bytes", nc, len(data))
		}
		for i := 0; i < nc && r.Err == nil; i++ {
			var kids []childImage
			var sc []compoundScalars
			load(&r, &kids, -1, "compound shapes")
			load(&r, &sc, 1, "compound properties")
			if r.Err != nil {
				break
			}
			c := &geom.CompoundShape{Mass: sc[0].Mass, UnitInertia: sc[0].UnitInertia, Centre: sc[0].Centre,
				Frame: sc[0].Frame, Radius: sc[0].Radius, Children: make([]geom.Child, len(kids))}
			for j := range kids {
				if kids[j].Shape.Compound >= 0 {
					return fmt.Errorf("state: compound %d's shape %d is a compound", i, j)
				}
				sh, err := shapeOf(&kids[j].Shape, hulls, meshes, nil, nil)
				if err != nil {
					return fmt.Errorf("state: compound %d's shape %d: %v", i, j, err)
				}
				c.Children[j] = geom.Child{Shape: sh, Pose: kids[j].Pose, Mass: kids[j].Mass, Material: kids[j].Material}
			}
			compounds = append(compounds, c)
		}
	}
	var fields []*geom.HeightGrid
	if r.Err == nil && len(data)-r.Off >= len(fieldTableTag) && [4]byte(data[r.Off:]) == fieldTableTag {
		r.Off += len(fieldTableTag)
		nf := int(r.U32())
		if r.Err == nil && nf > len(data) {
			return fmt.Errorf("state: %d height fields in %d bytes", nf, len(data))
		}
		for i := 0; i < nf && r.Err == nil; i++ {
			var sc []fieldScalars
			var q []uint16
			load(&r, &sc, 1, "height field grid")
			load(&r, &q, -1, "height field samples")
			if r.Err == nil {
				g := sc[0]
				f, err := geom.NewHeightField16(int(g.NX), int(g.NZ), g.DX, g.DZ, g.Base, g.Step, q)
				if err != nil {
					return fmt.Errorf("state: height field %d: %v", i, err)
				}
				fields = append(fields, f)
			}
		}
	}
	b.Shape = make([]geom.Shape, len(shapes))
	for i := range shapes {
		sh, err := shapeOf(&shapes[i], hulls, meshes, compounds, fields)
		if err != nil {
			return fmt.Errorf("state: body %d's %v", i, err)
		}
		b.Shape[i] = sh
	}
	if r.Err != nil {
		return fmt.Errorf("state: truncated or damaged: %s", r.Err)
	}
	if r.Off != len(data) {
		return fmt.Errorf("state: %d bytes after the end", len(data)-r.Off)
	}
	for i, v := range podBytes(b.Asleep) {
		if v > 1 {
			return fmt.Errorf("state: body %d: asleep flag %d", i, v)
		}
	}
	if err := t.check(); err != nil {
		return err
	}
	*s = t
	return nil
}

// into reads one section into dst, which must be exactly its size.
func into(r *byteread.Reader, dst []byte, what string) {
	l := r.U64()
	if r.Err == nil && l != uint64(len(dst)) {
		r.Err = fmt.Errorf("%s (%d bytes, want %d)", what, l, len(dst))
		return
	}
	if p := r.Take(len(dst)); p != nil {
		copy(dst, p)
	} else if r.Err != nil && len(dst) > 0 {
		r.Err = fmt.Errorf("%s: %w", what, r.Err)
	}
}

// load reads one section into a new slice of n elements (any whole number of them when n < 0).
func load[T any](r *byteread.Reader, dst *[]T, n int, what string) {
	if r.Err != nil {
		return
	}
	var z T
	size := int(unsafe.Sizeof(z))
	l := r.U64()
	if r.Err != nil {
		r.Err = fmt.Errorf("%s: %w", what, r.Err)
		return
	}
	if l > uint64(len(r.B)-r.Off) || int(l)%size != 0 || (n >= 0 && int(l) != n*size) {
		r.Err = fmt.Errorf("%s (%d bytes of %d-byte elements, %d left in the input)", what, l, size, len(r.B)-r.Off)
		return
	}
	*dst = make([]T, int(l)/size)
	copy(podBytes(*dst), r.Take(int(l)))
}
