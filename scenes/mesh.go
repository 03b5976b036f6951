package scenes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"tumble/sim"
	"tumble/sim/geom"
)

// Static triangle meshes: {"type": "mesh", "file": "terrain.obj"} (a Wavefront OBJ file, its path
// relative to the scene file) or {"type": "mesh", "vertices": [[x, y, z], ...], "triangles": [[i, j,
// k], ...]} (indices from 0). Only static bodies may have one. The vertices are in the body's frame
// (the body's position and rotation place the mesh; nothing is re-centred), and a triangle's front is
// the side its vertices run counter-clockwise on: bodies are kept on that side. The checks are
// geom.NewMesh's: at least one and at most geom.MaxMeshTriangles triangles, finite coordinates within
// MaxCoordinate, indices in range, no triangle of zero area.

// MaxMeshVertices is the most vertices a mesh may list: three per triangle at most are of use.
const MaxMeshVertices = 3 * geom.MaxMeshTriangles

// meshSource is a mesh shape's geometry, as given inline or read from its file.
type meshSource struct {
	verts []geom.Vec3
	tris  [][3]uint32
}

// meshFile is where the shape's OBJ file is: relative to the scene file's folder (base), or as written
// when absolute or when the scene has no file.
func (s *Shape) meshFile() string {
	if filepath.IsAbs(s.File) || s.base == "" {
		return s.File
	}
	return filepath.Join(s.base, s.File)
}

// validateMesh checks a mesh shape and returns its mesh, built (nil when refused).
func (s *Shape) validateMesh(c *check, path string) *geom.Mesh {
	inline := s.Vertices != nil || s.Triangles != nil
	if s.File != "" && inline {
		c.fail(path+".file", "give a file or vertices and triangles, not both", strconv.Quote(s.File))
		return nil
	}
	var src meshSource
	var fieldOf func(e *geom.MeshError) (string, string)
	if s.File != "" {
		var err error
		src, err = readOBJ(s.meshFile())
		if err != nil {
			c.fail(path+".file", err.Error(), strconv.Quote(s.File))
			return nil
		}
		fieldOf = func(e *geom.MeshError) (string, string) { return path + ".file", strconv.Quote(s.File) }
	} else {
		if s.Vertices == nil {
			c.fail(path+".vertices", "missing (a mesh needs a file, or vertices and triangles)", "")
			return nil
		}
		if s.Triangles == nil {
			c.fail(path+".triangles", "missing (a mesh needs a file, or vertices and triangles)", "")
			return nil
		}
		if len(s.Vertices) > MaxMeshVertices {
			c.fail(path+".vertices", "too many vertices: a mesh takes at most "+strconv.Itoa(MaxMeshVertices), strconv.Itoa(len(s.Vertices))+" vertices")
			return nil
		}
		if len(s.Triangles) > geom.MaxMeshTriangles {
			c.fail(path+".triangles", "too many triangles: a mesh takes at most "+strconv.Itoa(geom.MaxMeshTriangles), strconv.Itoa(len(s.Triangles))+" triangles")
			return nil
		}
		for i, v := range s.Vertices {
			c.vec(path+".vertices["+strconv.Itoa(i)+"]", v[:], MaxCoordinate, " m")
		}
		for i, t := range s.Triangles {
			for k, x := range t {
				if x < 0 || x >= len(s.Vertices) {
					c.fail(path+".triangles["+strconv.Itoa(i)+"]["+strconv.Itoa(k)+"]",
						"vertex index out of range [0, "+strconv.Itoa(len(s.Vertices))+")", strconv.Itoa(x))
				}
			}
		}
		if c.err != nil {
			return nil
		}
		src = s.inlineSource()
		fieldOf = func(e *geom.MeshError) (string, string) {
			if e.Triangle >= 0 {
				t := s.Triangles[e.Triangle]
				return path + ".triangles[" + strconv.Itoa(e.Triangle) + "]", fmt.Sprintf("[%d, %d, %d]", t[0], t[1], t[2])
			}
			if e.Vertex >= 0 {
				return path + ".vertices[" + strconv.Itoa(e.Vertex) + "]", fmtVec(s.Vertices[e.Vertex][:])
			}
			return path + ".triangles", strconv.Itoa(len(s.Triangles)) + " triangles"
		}
	}
	if len(src.verts) > MaxMeshVertices {
		c.fail(path+".file", "too many vertices: a mesh takes at most "+strconv.Itoa(MaxMeshVertices), strconv.Itoa(len(src.verts))+" vertices")
		return nil
	}
	for i, v := range src.verts {
		for _, x := range v {
			if !(math.Abs(float64(x)) <= MaxCoordinate) {
				c.fail(path+".file", "vertex "+strconv.Itoa(i)+" must be finite and within "+fmtNum(MaxCoordinate)+" m", strconv.Quote(s.File))
				return nil
			}
		}
	}
	m, err := geom.NewMesh(src.verts, src.tris)
	if err != nil {
		var me *geom.MeshError
		if errors.As(err, &me) {
			p, v := fieldOf(me)
			c.fail(p, err.Error(), v)
			return nil
		}
		p, v := fieldOf(&geom.MeshError{Triangle: -1, Vertex: -1})
		c.fail(p, err.Error(), v)
		return nil
	}
	return m
}

// validateMovingMesh checks that a mesh on a dynamic or kinematic body can move: closed,
// consistently oriented, enclosing a volume, at most geom.MaxHullPoints vertices (geom.NewMeshHull).
// The shape has passed validateMesh.
func (s *Shape) validateMovingMesh(c *check, path string) *geom.Hull {
	src, field, value := s.source()
	h, err := geom.NewMeshHull(src.verts, src.tris)
	if err != nil {
		c.fail(path+field, err.Error(), value)
		return nil
	}
	if r := float64(h.Radius); r < MinSize || r > MaxSize {
		c.fail(path+field, "mesh size (largest distance from its centre of mass) must be in ["+fmtNum(MinSize)+", "+fmtNum(MaxSize)+"] m", fmtNum(r))
		return nil
	}
	return h
}

// source returns a valid mesh shape's geometry, and the field and value naming it in an error.
func (s *Shape) source() (meshSource, string, string) {
	if s.File != "" {
		src, err := readOBJ(s.meshFile())
		if err != nil {
			panic("scenes: the mesh file of a validated scene: " + err.Error())
		}
		return src, ".file", strconv.Quote(s.File)
	}
	return s.inlineSource(), ".triangles", strconv.Itoa(len(s.Triangles)) + " triangles"
}

// movingMeshDef sets d's shape to a moving mesh's hull (its mass properties the mesh's) and turns d's
// rotation into the mesh's principal frame, as hullDef does. The scene must be valid.
func movingMeshDef(d *sim.BodyDef, sh *Shape) {
	c := &check{}
	h := sh.validateMovingMesh(c, "shape")
	if c.err != nil {
		panic("scenes: BodyDef of an invalid scene: " + c.err.Error())
	}
	d.Shape = geom.Shape{Kind: geom.ConvexHull, Hull: h}
	d.Rotation = h.BodyRotation(d.Rotation)
}

// inlineSource converts inline vertices and triangles (valid) to the simulation's types.
func (s *Shape) inlineSource() meshSource {
	src := meshSource{verts: make([]geom.Vec3, len(s.Vertices)), tris: make([][3]uint32, len(s.Triangles))}
	for i, v := range s.Vertices {
		src.verts[i] = vec(v)
	}
	for i, t := range s.Triangles {
		src.tris[i] = [3]uint32{uint32(t[0]), uint32(t[1]), uint32(t[2])}
	}
	return src
}

// builtMesh builds the mesh of a valid mesh shape (again: a Shape keeps no built state, so a scene
// compares equal to its saved and parsed copy).
func (s *Shape) builtMesh() *geom.Mesh {
	c := &check{}
	m := s.validateMesh(c, "shape")
	if c.err != nil {
		panic("scenes: BodyDef of an invalid scene: " + c.err.Error())
	}
	return m
}

// readOBJ reads the v and f statements of a Wavefront OBJ file; polygons are fanned into triangles
// (v0, v[i], v[i+1]). Face indices count from 1, or from the end when negative; texture and normal
// indices (v/vt/vn) are ignored, as are normals, texture coordinates, groups, objects, smoothing and
// materials. Anything else is an error naming the line.
func readOBJ(path string) (meshSource, error) {
	var src meshSource
	data, err := os.ReadFile(path)
	if err != nil {
		return src, fmt.Errorf("cannot read the mesh file: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line := 0
	bad := func(format string, a ...any) (meshSource, error) {
		return meshSource{}, fmt.Errorf("%s line %d: %s", filepath.Base(path), line, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "v":
			if len(f) < 4 || len(f) > 5 {
				return bad("a vertex needs x y z, got %q", sc.Text())
			}
			var v geom.Vec3
			for k := 0; k < 3; k++ {
				x, err := strconv.ParseFloat(f[1+k], 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > MaxCoordinate {
					return bad("coordinate %q must be a finite number within %s m", f[1+k], fmtNum(MaxCoordinate))
				}
				v[k] = float32(x)
			}
			if len(src.verts) >= MaxMeshVertices {
				return bad("too many vertices: a mesh takes at most %d", MaxMeshVertices)
			}
			src.verts = append(src.verts, v)
		case "f":
			if len(f) < 4 {
				return bad("a face needs at least 3 vertices, got %d", len(f)-1)
			}
			idx := make([]uint32, 0, len(f)-1)
			for _, w := range f[1:] {
				s, _, _ := strings.Cut(w, "/")
				i, err := strconv.Atoi(s)
				if err != nil || i == 0 {
					return bad("face vertex %q is not an index (1 to the vertex count, or negative from the end)", w)
				}
				if i < 0 {
					i += len(src.verts) + 1
				}
				if i < 1 || i > len(src.verts) {
					return bad("face vertex %q is out of range (%d vertices so far)", w, len(src.verts))
				}
				idx = append(idx, uint32(i-1))
			}
			for k := 1; k+1 < len(idx); k++ {
				if len(src.tris) >= geom.MaxMeshTriangles {
					return bad("too many triangles: a mesh takes at most %d", geom.MaxMeshTriangles)
				}
				src.tris = append(src.tris, [3]uint32{idx[0], idx[k], idx[k+1]})
			}
		case "vn", "vt", "vp", "g", "o", "s", "usemtl", "mtllib", "l":
		default:
			return bad("unknown statement %q (a mesh file holds v and f lines)", f[0])
		}
	}
	if err := sc.Err(); err != nil {
		return src, fmt.Errorf("cannot read the mesh file: %v", err)
	}
	if len(src.tris) == 0 {
		return src, fmt.Errorf("%s has no faces (f lines)", filepath.Base(path))
	}
	return src, nil
}

// triangles decodes an array of [i, j, k] vertex indices.
func (d *decoder) triangles(m map[string]*node, key, path string) [][3]int {
	n, ok := m[key]
	if !ok || d.err != nil {
		return nil
	}
	p := join(path, key)
	if n.kind != 'a' {
		d.fail(p, "must be an array of [i, j, k] vertex indices", n)
		return nil
	}
	out := make([][3]int, len(n.vals))
	for i, v := range n.vals {
		q := p + "[" + strconv.Itoa(i) + "]"
		a := d.array(v, q, 3)
		if d.err != nil {
			return nil
		}
		for k, x := range a {
			if x != math.Trunc(x) || math.Abs(x) > 1e9 {
				d.fail(q+"["+strconv.Itoa(k)+"]", "must be a whole number (a vertex index from 0)", v.vals[k])
				return nil
			}
			out[i][k] = int(x)
		}
	}
	return out
}
