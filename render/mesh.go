package render

import "math"

// vertex is a mesh vertex: position, normal, and the capsule shift (-1, 0 or +1).
type vertex struct {
	pos, normal [3]float32
	shift       float32
}

type mesh struct {
	verts []vertex
	index []uint32
}

// boxMesh is the cube [-1, 1]^3 with flat faces: scaled by half extents it is any box.
func boxMesh() mesh {
	var m mesh
	for axis := range 3 {
		for _, sign := range []float32{-1, 1} {
			var n [3]float32
			n[axis] = sign
			u, v := (axis+1)%3, (axis+2)%3
			base := uint32(len(m.verts))
			for _, c := range [4][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
				var p [3]float32
				p[axis], p[u], p[v] = sign, c[0], c[1]
				m.verts = append(m.verts, vertex{pos: p, normal: n})
			}
			if sign > 0 {
				m.index = append(m.index, base, base+1, base+2, base, base+2, base+3)
			} else {
				m.index = append(m.index, base, base+2, base+1, base, base+3, base+2)
			}
		}
	}
	return m
}

// cylinderMesh is the unit cylinder (radius 1, y in [-1, 1]) of the given number of sides: scaled by
// (radius, half height, radius) it is any cylinder. The side's vertices carry the radial normal (smooth
// shading round it), each cap its own ring with the axial normal (a sharp rim).
func cylinderMesh(slices int) mesh {
	var m mesh
	ring := func(y float32, n func(c, s float32) [3]float32) uint32 {
		base := uint32(len(m.verts))
		for j := 0; j <= slices; j++ {
			a := 2 * math.Pi * float64(j) / float64(slices)
			c, s := float32(math.Cos(a)), float32(math.Sin(a))
			m.verts = append(m.verts, vertex{pos: [3]float32{c, y, s}, normal: n(c, s)})
		}
		return base
	}
	radial := func(c, s float32) [3]float32 { return [3]float32{c, 0, s} }
	top, bottom := ring(1, radial), ring(-1, radial)
	for j := uint32(0); j < uint32(slices); j++ {
		// Wound as sphereMesh's bands (upper ring, next, lower ring); the renderer does not cull.
		m.index = append(m.index, top+j, top+j+1, bottom+j, top+j+1, bottom+j+1, bottom+j)
	}
	for _, y := range []float32{1, -1} {
		centre := uint32(len(m.verts))
		m.verts = append(m.verts, vertex{pos: [3]float32{0, y, 0}, normal: [3]float32{0, y, 0}})
		rim := ring(y, func(float32, float32) [3]float32 { return [3]float32{0, y, 0} })
		for j := uint32(0); j < uint32(slices); j++ {
			m.index = append(m.index, centre, rim+j, rim+j+1)
		}
	}
	return m
}

// sphereMesh is a unit UV sphere. With capsule set, the upper half carries shift +1 and the lower
// half -1, and the equator ring is doubled so the two halves, pulled apart, are joined by a cylinder.
func sphereMesh(slices, stacks int, capsule bool) mesh {
	var m mesh
	ring := func(lat float64, shift float32) {
		for j := 0; j <= slices; j++ {
			lon := 2 * math.Pi * float64(j) / float64(slices)
			n := [3]float32{float32(math.Cos(lat) * math.Cos(lon)), float32(math.Sin(lat)),
				float32(math.Cos(lat) * math.Sin(lon))}
			m.verts = append(m.verts, vertex{pos: n, normal: n, shift: shift})
		}
	}
	rows := 0
	for i := 0; i <= stacks; i++ {
		lat := math.Pi/2 - math.Pi*float64(i)/float64(stacks)
		shift := float32(0)
		if capsule {
			shift = 1
			if lat < 0 || (lat == 0 && i > stacks/2) {
				shift = -1
			}
		}
		ring(lat, shift)
		rows++
		if capsule && i == stacks/2 { // the equator again, for the lower half
			ring(0, -1)
			rows++
		}
	}
	w := uint32(slices + 1)
	for r := 0; r < rows-1; r++ {
		for j := uint32(0); j < uint32(slices); j++ {
			a := uint32(r)*w + j
			b := a + w
			m.index = append(m.index, a, a+1, b, a+1, b+1, b)
		}
	}
	return m
}
