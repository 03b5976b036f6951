package geom

import (
	"fmt"
	"math"
)

// MassProps are the mass properties of a closed triangle mesh of uniform unit density: its volume
// (which is also its mass), centre of mass, and inertia tensor about the centre of mass (row-major,
// symmetric).
type MassProps struct {
	Volume  float64
	Centre  v3
	Inertia [3][3]float64
}

// MeshMass returns the volume, centre of mass and inertia tensor (per unit density, about the centre of
// mass, row-major) of the solid a closed, consistently oriented triangle mesh bounds (triangles
// counter-clockwise seen from outside). Exact for any polyhedron (up to rounding): see polyhedronMass.
func MeshMass(verts []Vec3, tris [][3]int) (volume float64, centre Vec3, inertia [3][3]float64) {
	p := make([]v3, len(verts))
	for i, v := range verts {
		p[i] = v3{float64(v[0]), float64(v[1]), float64(v[2])}
	}
	mp := polyhedronMass(p, tris)
	return mp.Volume, mp.Centre.f32(), mp.Inertia
}

// polyhedronMass integrates 1, x, y, z, x^2, y^2, z^2, xy, yz, zx over the solid bounded by the
// triangles by the divergence theorem: each volume integral becomes a sum over the triangles of a
// surface integral of a polynomial whose divergence is the integrand, and those have closed forms in
// the triangle's vertices (Eberly, "Polyhedral Mass Properties (Revisited)", 2002, after Mirtich 1996).
// The result is exact for a polyhedron. The vertices are first shifted by their mean, which keeps the
// cubic terms small and the rounding low for a mesh far from the origin.
func polyhedronMass(p []v3, tris [][3]int) MassProps {
	var o v3
	for _, q := range p {
		o = o.add(q)
	}
	o = o.scale(1 / float64(len(p)))
	var in [10]float64
	sub := func(w0, w1, w2 float64) (f1, f2, f3, g0, g1, g2 float64) {
		t0 := w0 + w1
		f1 = t0 + w2
		t1 := w0 * w0
		t2 := t1 + w1*t0
		f2 = t2 + w2*f1
		f3 = w0*t1 + w1*t2 + w2*f2
		g0 = f2 + w0*(f1+w0)
		g1 = f2 + w1*(f1+w1)
		g2 = f2 + w2*(f1+w2)
		return
	}
	for _, t := range tris {
		a, b, c := p[t[0]].sub(o), p[t[1]].sub(o), p[t[2]].sub(o)
		d := b.sub(a).cross(c.sub(a))
		f1x, f2x, f3x, g0x, g1x, g2x := sub(a.x, b.x, c.x)
		_, f2y, f3y, g0y, g1y, g2y := sub(a.y, b.y, c.y)
		_, f2z, f3z, g0z, g1z, g2z := sub(a.z, b.z, c.z)
		in[0] += d.x * f1x
		in[1] += d.x * f2x
		in[2] += d.y * f2y
		in[3] += d.z * f2z
		in[4] += d.x * f3x
		in[5] += d.y * f3y
		in[6] += d.z * f3z
		in[7] += d.x * (a.y*g0x + b.y*g1x + c.y*g2x)
		in[8] += d.y * (a.z*g0y + b.z*g1y + c.z*g2y)
		in[9] += d.z * (a.x*g0z + b.x*g1z + c.x*g2z)
	}
	in[0] /= 6
	for k := 1; k <= 3; k++ {
		in[k] /= 24
	}
	for k := 4; k <= 6; k++ {
		in[k] /= 60
	}
	for k := 7; k <= 9; k++ {
		in[k] /= 120
	}
	var mp MassProps
	m := in[0]
	mp.Volume = m
	if m == 0 {
		return mp
	}
	c := v3{in[1] / m, in[2] / m, in[3] / m}
	// About the origin, then moved to the centre of mass (parallel-axis theorem).
	ixx := in[5] + in[6] - m*(c.y*c.y+c.z*c.z)
	iyy := in[4] + in[6] - m*(c.z*c.z+c.x*c.x)
	izz := in[4] + in[5] - m*(c.x*c.x+c.y*c.y)
	ixy := -(in[7] - m*c.x*c.y)
	iyz := -(in[8] - m*c.y*c.z)
	izx := -(in[9] - m*c.z*c.x)
	mp.Centre = c.add(o)
	mp.Inertia = [3][3]float64{{ixx, ixy, izx}, {ixy, iyy, iyz}, {izx, iyz, izz}}
	return mp
}

// principalAxes diagonalises the symmetric tensor t by Jacobi rotations: t = R diag(moments) R^T. It
// returns the moments and R's columns as rows of the result (axes[k] is the k-th principal axis), a
// right-handed frame. A tensor already diagonal (off-diagonal terms below 1e-10 of the trace, e.g. a
// box or a cube given along its axes) keeps the identity, so symmetric shapes are not turned by
// rounding noise.
func principalAxes(t [3][3]float64) (moments [3]float64, axes [3]v3) {
	a := t
	v := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} // columns are the axes
	tr := math.Abs(a[0][0]) + math.Abs(a[1][1]) + math.Abs(a[2][2])
	for sweep := 0; sweep < 50; sweep++ {
		off := math.Abs(a[0][1]) + math.Abs(a[0][2]) + math.Abs(a[1][2])
		if off <= 1e-10*tr {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, q := pq[0], pq[1]
			if math.Abs(a[p][q]) <= 1e-14*tr {
				continue
			}
			theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
			tt := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			c := 1 / math.Sqrt(tt*tt+1)
			s := tt * c
			// a = J^T a J with J the rotation in the (p, q) plane.
			for k := 0; k < 3; k++ {
				akp, akq := a[k][p], a[k][q]
				a[k][p], a[k][q] = c*akp-s*akq, s*akp+c*akq
			}
			for k := 0; k < 3; k++ {
				apk, aqk := a[p][k], a[q][k]
				a[p][k], a[q][k] = c*apk-s*aqk, s*apk+c*aqk
			}
			for k := 0; k < 3; k++ {
				vkp, vkq := v[k][p], v[k][q]
				v[k][p], v[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
			}
		}
	}
	for k := 0; k < 3; k++ {
		moments[k] = a[k][k]
		axes[k] = v3{v[0][k], v[1][k], v[2][k]}
	}
	if axes[0].cross(axes[1]).dot(axes[2]) < 0 {
		axes[2] = axes[2].scale(-1)
	}
	return moments, axes
}

// matToQuat returns the rotation whose matrix has the given columns.
func matToQuat(c [3]v3) Quat {
	m00, m11, m22 := c[0].x, c[1].y, c[2].z
	m21, m12 := c[1].z, c[2].y // row 2 col 1, row 1 col 2
	m02, m20 := c[2].x, c[0].z
	m10, m01 := c[0].y, c[1].x
	var w, x, y, z float64
	switch tr := m00 + m11 + m22; {
	case tr > 0:
		s := 0.5 / math.Sqrt(tr+1)
		w, x, y, z = 0.25/s, (m21-m12)*s, (m02-m20)*s, (m10-m01)*s
	case m00 > m11 && m00 > m22:
		s := 2 * math.Sqrt(1+m00-m11-m22)
		w, x, y, z = (m21-m12)/s, 0.25*s, (m01+m10)/s, (m02+m20)/s
	case m11 > m22:
		s := 2 * math.Sqrt(1+m11-m00-m22)
		w, x, y, z = (m02-m20)/s, (m01+m10)/s, 0.25*s, (m12+m21)/s
	default:
		s := 2 * math.Sqrt(1+m22-m00-m11)
		w, x, y, z = (m10-m01)/s, (m02+m20)/s, (m12+m21)/s, 0.25*s
	}
	l := math.Sqrt(w*w + x*x + y*y + z*z)
	return Quat{W: float32(w / l), V: Vec3{float32(x / l), float32(y / l), float32(z / l)}}
}

// CheckClosedMesh reports whether the triangles form a closed, consistently oriented 2-manifold: every
// directed edge used once and its reverse used once. The error names the first offending edge.
func CheckClosedMesh(nverts int, tris [][3]int) error {
	dir := make(map[[2]int]int, 3*len(tris))
	for ti, t := range tris {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			if a < 0 || a >= nverts {
				return fmt.Errorf("triangle %d: vertex index %d out of range [0, %d)", ti, a, nverts)
			}
			if a == b {
				return fmt.Errorf("triangle %d: repeats vertex %d", ti, a)
			}
			if prev, dup := dir[[2]int{a, b}]; dup {
				return fmt.Errorf("edge %d-%d is used by triangles %d and %d in the same direction (non-manifold or inconsistently oriented)", a, b, prev, ti)
			}
			dir[[2]int{a, b}] = ti
		}
	}
	for ti, t := range tris {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			if _, ok := dir[[2]int{b, a}]; !ok {
				return fmt.Errorf("edge %d-%d of triangle %d has no neighbour: the mesh is open", a, b, ti)
			}
		}
	}
	return nil
}
