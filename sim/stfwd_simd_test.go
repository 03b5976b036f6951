//go:build goexperiment.simd && amd64

package sim

import (
	"simd/archsimd"
	"testing"
)

// The store-to-load patterns behind the wide passes' loads: a vector written by three scalar stores
// and read back at once, by a masked 128-bit load (LoadFloat32x4SlicePart, VMASKMOVPS), by a plain
// 128-bit load (ld4f's), or by scalar loads; ns/op is one store-then-load round, each round waiting for the last. On this AMD
// machine all three take a few ns; on the GPU machine's Intel Xeon the masked load took 110-210 ns.

var stfwdBuf [16]float32

//go:noinline
func stfwdAlias(p *[16]float32) *[16]float32 { return p }

func BenchmarkStoreThenMaskedLoad(b *testing.B) {
	p, q := &stfwdBuf, stfwdAlias(&stfwdBuf)
	one := archsimd.BroadcastFloat32x4(1e-9)
	var s float32
	for range b.N {
		p[4], p[5], p[6] = s, s, s
		s = archsimd.LoadFloat32x4SlicePart(q[4:7]).Add(one).GetElem(0)
	}
	archsimd.ClearAVXUpperBits()
	stfwdBuf[0] = s
}

func BenchmarkStoreThenPlainLoad(b *testing.B) {
	p, q := &stfwdBuf, stfwdAlias(&stfwdBuf)
	one := archsimd.BroadcastFloat32x4(1e-9)
	var s float32
	for range b.N {
		p[4], p[5], p[6] = s, s, s
		s = ld4f(&q[4]).Add(one).GetElem(0)
	}
	archsimd.ClearAVXUpperBits()
	stfwdBuf[0] = s
}

func BenchmarkStoreThenScalarLoads(b *testing.B) {
	p, q := &stfwdBuf, stfwdAlias(&stfwdBuf)
	var s float32
	for range b.N {
		p[4], p[5], p[6] = s, s, s
		s = q[4] + q[5] + q[6] + 1e-9
	}
	stfwdBuf[0] = s
}
