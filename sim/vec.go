package sim

import "tumble/sim/internal/vecmath"

// vec is the solver's internal 3-vector (sim/internal/vecmath.V). Go keeps a small struct in registers
// but passes a [3]float32 (mathgl's Vec3) through memory at every operation, so the hot loops use this
// type and convert at the edges (measured: the contact solve ran 2.4x faster).
type vec = vecmath.V

func vv(v Vec3) vec { return vecmath.From(v) }

// ldv loads *p element by element. vv(*p) copies the array through the stack first, with 8-byte loads
// that straddle its 4-byte stores and stall store forwarding (measured: a ragdoll joint's load took
// 27 ns); the hot loops load and store bodies' vectors with ldv and stv.
func ldv(p *Vec3) vec { return vec{X: p[0], Y: p[1], Z: p[2]} }

// stv stores v into *p element by element (see ldv).
func stv(p *Vec3, v vec) { p[0], p[1], p[2] = v.X, v.Y, v.Z }

// stp stores *v into *p element by element. For a vector held in memory (a field of a struct the
// solver updates in place) it replaces stv, whose by-value argument was copied in 4- and 8-byte moves
// over the fields' 4-byte stores (a store-forwarding stall on every joint's store).
func stp(p *Vec3, v *vec) { p[0], p[1], p[2] = v.X, v.Y, v.Z }

// length is |v|, as mathgl's Vec3.Len computes it (the same bits).
func length(v vec) float32 { return vecmath.Sqrt(v.X*v.X + v.Y*v.Y + v.Z*v.Z) }

// mulMat returns m v.
func mulMat(m *Mat3, v vec) vec {
	return vec{
		X: m[0]*v.X + m[3]*v.Y + m[6]*v.Z,
		Y: m[1]*v.X + m[4]*v.Y + m[7]*v.Z,
		Z: m[2]*v.X + m[5]*v.Y + m[8]*v.Z,
	}
}

// mulMatT returns m^T v.
func mulMatT(m *Mat3, v vec) vec {
	return vec{
		X: m[0]*v.X + m[1]*v.Y + m[2]*v.Z,
		Y: m[3]*v.X + m[4]*v.Y + m[5]*v.Z,
		Z: m[6]*v.X + m[7]*v.Y + m[8]*v.Z,
	}
}
