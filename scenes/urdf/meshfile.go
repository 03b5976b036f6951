package urdf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// meshData is a triangle mesh read from a collision element's file: its vertices (scaled, in the
// element's frame, m) and triangles (indices from 0, in the file's winding).
type meshData struct {
	verts [][3]float64
	tris  [][3]int
}

// maxMeshFile bounds the triangles read from one mesh file (Tumble's static mesh takes 65,536).
const maxMeshFile = 1 << 16

// readMesh reads an STL (binary or ASCII) or OBJ mesh file and scales its vertices. STL repeats a
// vertex in every facet that has it: equal vertices are welded into one, so a closed STL surface
// comes out closed (each edge shared by two triangles).
func readMesh(path string, scale [3]float64) (meshData, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return meshData{}, err
	}
	var m meshData
	if strings.EqualFold(filepath.Ext(path), ".obj") {
		m, err = readOBJ(data)
	} else {
		m, err = readSTL(data)
	}
	if err != nil {
		return meshData{}, fmt.Errorf("%s: %v", filepath.Base(path), err)
	}
	if len(m.tris) == 0 {
		return meshData{}, fmt.Errorf("%s: no triangles", filepath.Base(path))
	}
	for i, v := range m.verts {
		m.verts[i] = [3]float64{v[0] * scale[0], v[1] * scale[1], v[2] * scale[2]}
	}
	if scale[0]*scale[1]*scale[2] < 0 { // a mirroring scale turns the triangles' winding inside out
		for i, t := range m.tris {
			m.tris[i] = [3]int{t[0], t[2], t[1]}
		}
	}
	return m, nil
}

// welder gives each distinct vertex one index.
type welder struct {
	m     *meshData
	index map[[3]float64]int
}

func (w *welder) vertex(v [3]float64) int {
	if i, ok := w.index[v]; ok {
		return i
	}
	w.index[v] = len(w.m.verts)
	w.m.verts = append(w.m.verts, v)
	return len(w.m.verts) - 1
}

// readSTL reads binary STL (an 80-byte header, a triangle count, then 50 bytes a triangle: a normal
// and three vertices as float32, and a 2-byte attribute) when the size fits the count, else ASCII STL
// (its "vertex x y z" lines, three a facet).
func readSTL(data []byte) (meshData, error) {
	var m meshData
	w := welder{m: &m, index: map[[3]float64]int{}}
	if len(data) >= 84 {
		n := int(binary.LittleEndian.Uint32(data[80:84]))
		if n <= maxMeshFile && len(data) == 84+50*n {
			for t := range n {
				rec := data[84+50*t:]
				var tri [3]int
				for k := range 3 {
					var v [3]float64
					for c := range 3 {
						v[c] = float64(math.Float32frombits(binary.LittleEndian.Uint32(rec[12+12*k+4*c:])))
						if math.IsNaN(v[c]) || math.IsInf(v[c], 0) {
							return m, fmt.Errorf("triangle %d: a coordinate is not finite", t)
						}
					}
					tri[k] = w.vertex(v)
				}
				m.tris = append(m.tris, tri)
			}
			return m, nil
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	var tri []int
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "vertex" {
			continue
		}
		if len(f) != 4 {
			return m, fmt.Errorf("line %d: a vertex needs x y z", line)
		}
		var v [3]float64
		for c := range 3 {
			x, err := strconv.ParseFloat(f[1+c], 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return m, fmt.Errorf("line %d: %q is not a finite number", line, f[1+c])
			}
			v[c] = x
		}
		if tri = append(tri, w.vertex(v)); len(tri) == 3 {
			if len(m.tris) == maxMeshFile {
				return m, fmt.Errorf("more than %d triangles", maxMeshFile)
			}
			m.tris = append(m.tris, [3]int(tri))
			tri = tri[:0]
		}
	}
	if len(tri) != 0 {
		return m, fmt.Errorf("%d vertices left over after the last facet (want 3 a facet)", len(tri))
	}
	return m, nil
}

// readOBJ reads an OBJ file's v and f lines (indices from 1, or negative from the end; v/vt/vn forms
// read the vertex), polygons fanned into triangles; other statements are not needed for a shape.
func readOBJ(data []byte) (meshData, error) {
	var m meshData
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "v":
			if len(f) < 4 {
				return m, fmt.Errorf("line %d: a vertex needs x y z", line)
			}
			var v [3]float64
			for c := range 3 {
				x, err := strconv.ParseFloat(f[1+c], 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return m, fmt.Errorf("line %d: %q is not a finite number", line, f[1+c])
				}
				v[c] = x
			}
			m.verts = append(m.verts, v)
		case "f":
			if len(f) < 4 {
				return m, fmt.Errorf("line %d: a face needs at least 3 vertices", line)
			}
			idx := make([]int, 0, len(f)-1)
			for _, s := range f[1:] {
				s, _, _ = strings.Cut(s, "/")
				i, err := strconv.Atoi(s)
				if i < 0 {
					i += len(m.verts) + 1
				}
				if err != nil || i < 1 || i > len(m.verts) {
					return m, fmt.Errorf("line %d: face vertex %q is not an index of the %d vertices so far", line, s, len(m.verts))
				}
				idx = append(idx, i-1)
			}
			for k := 1; k+1 < len(idx); k++ {
				if len(m.tris) == maxMeshFile {
					return m, fmt.Errorf("more than %d triangles", maxMeshFile)
				}
				m.tris = append(m.tris, [3]int{idx[0], idx[k], idx[k+1]})
			}
		}
	}
	return m, nil
}
