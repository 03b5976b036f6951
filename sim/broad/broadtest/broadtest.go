// Package broadtest holds the random scenes that the broad phases are tested and benchmarked on:
// uniform, clustered, mixed sizes, one point, touching grids, piles on planes, invalid boxes, and the
// settled pile of the benchmarks. It imports no broad phase, so every broad-phase package can use it.
package broadtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"tumble/sim/geom"
)

// BoxAt returns the box of half size h centred at c.
func BoxAt(c geom.Vec3, h geom.Vec3) geom.AABB {
	return geom.AABB{Min: c.Sub(h), Max: c.Add(h)}
}

// Cube returns the half size of a cube of half side h.
func Cube(h float32) geom.Vec3 { return geom.Vec3{h, h, h} }

// Floor returns the box of a ground plane y = 0, as geom gives it.
func Floor() geom.AABB {
	s := geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}
	return s.Bounds(geom.Identity)
}

// RandIn returns a uniform random number in [lo, hi).
func RandIn(r *rand.Rand, lo, hi float32) float32 { return lo + (hi-lo)*r.Float32() }

// RandVec returns a vector of uniform random components in [lo, hi).
func RandVec(r *rand.Rand, lo, hi float32) geom.Vec3 {
	return geom.Vec3{RandIn(r, lo, hi), RandIn(r, lo, hi), RandIn(r, lo, hi)}
}

// LogUniform returns a size between lo and hi, uniform in log scale.
func LogUniform(r *rand.Rand, lo, hi float64) float32 {
	return float32(lo * math.Pow(hi/lo, r.Float64()))
}

// Scenes are the random scene generators, by name; each returns n boxes.
var Scenes = map[string]func(r *rand.Rand, n int) []geom.AABB{
	"uniform": func(r *rand.Rand, n int) []geom.AABB {
		side := float32(math.Cbrt(float64(n))) * 2
		bs := make([]geom.AABB, n)
		for i := range bs {
			bs[i] = BoxAt(RandVec(r, 0, side), RandVec(r, 0.1, 1))
		}
		return bs
	},
	"clustered": func(r *rand.Rand, n int) []geom.AABB {
		centres := make([]geom.Vec3, 1+n/50)
		for i := range centres {
			centres[i] = RandVec(r, -50, 50)
		}
		bs := make([]geom.AABB, n)
		for i := range bs {
			c := centres[r.IntN(len(centres))]
			d := geom.Vec3{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())}
			bs[i] = BoxAt(c.Add(d.Mul(2)), RandVec(r, 0.2, 0.6))
		}
		return bs
	},
	"mixed sizes": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		for i := range bs {
			h := geom.Vec3{LogUniform(r, 0.005, 50), LogUniform(r, 0.005, 50), LogUniform(r, 0.005, 50)}
			bs[i] = BoxAt(RandVec(r, -60, 60), h)
		}
		return bs
	},
	"one point": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		for i := range bs {
			bs[i] = BoxAt(geom.Vec3{1, 2, 3}, geom.Vec3{})
		}
		return bs
	},
	"identical": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		for i := range bs {
			bs[i] = BoxAt(geom.Vec3{-4, 0, 7}, Cube(0.5))
		}
		return bs
	},
	// Unit cubes on an integer grid: face, edge and corner neighbours all exactly touch.
	"touching grid": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		side := int(math.Ceil(math.Cbrt(float64(n))))
		for i := range bs {
			x, y, z := i%side, i/side%side, i/side/side
			bs[i] = geom.AABB{Min: geom.Vec3{float32(x), float32(y), float32(z)}, Max: geom.Vec3{float32(x + 1), float32(y + 1), float32(z + 1)}}
		}
		r.Shuffle(len(bs), func(i, j int) { bs[i], bs[j] = bs[j], bs[i] })
		return bs
	},
	// A Pile on a ground plane, with a second, tilted plane whose box is the whole world.
	"pile on planes": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		for i := range bs {
			bs[i] = BoxAt(geom.Vec3{RandIn(r, -5, 5), RandIn(r, 0, 3), RandIn(r, -5, 5)}, RandVec(r, 0.2, 0.7))
		}
		if n > 0 {
			bs[r.IntN(n)] = Floor()
		}
		if n > 1 {
			tilted := geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{1, 1, 0}.Normalize()}
			bs[r.IntN(n)] = tilted.Bounds(geom.Identity)
		}
		return bs
	},
	// Boxes in a thin rod along z, so the sweep must choose z.
	"rod": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		for i := range bs {
			bs[i] = BoxAt(geom.Vec3{RandIn(r, 0, 1), RandIn(r, 0, 1), RandIn(r, 0, float32(n))}, RandVec(r, 0.1, 1))
		}
		return bs
	},
	// Some boxes are NaN, infinite or inverted: they must pair with nothing.
	"invalid": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		nan, inf := float32(math.NaN()), float32(math.Inf(1))
		for i := range bs {
			bs[i] = BoxAt(RandVec(r, 0, 4), RandVec(r, 0.2, 1))
			switch r.IntN(8) {
			case 0:
				bs[i].Min[r.IntN(3)] = nan
			case 1:
				bs[i].Max[r.IntN(3)] = inf
			case 2:
				bs[i].Min[r.IntN(3)] = -inf
			case 3:
				k := r.IntN(3)
				bs[i].Min[k], bs[i].Max[k] = bs[i].Max[k], bs[i].Min[k]-0.1
			}
		}
		return bs
	},
}

// RandomMoving returns flags with each body moving with probability p (nil when p is 1).
func RandomMoving(r *rand.Rand, n int, p float64) []bool {
	if p >= 1 {
		return nil
	}
	m := make([]bool, n)
	for i := range m {
		m[i] = r.Float64() < p
	}
	return m
}

// Pile returns n boxes packed like a settled pile: a jittered lattice of spacing 1, twice as wide and
// deep as it is high, of boxes with half sizes 0.45..0.56 (the AABBs of cubes of side ~1 at random small
// tilts), so each box overlaps its face neighbours and some edge neighbours: 7 to 8 in all. Box 0 is the
// static ground plane under it; every other box moves.
func Pile(r *rand.Rand, n int) ([]geom.AABB, []bool) {
	ny := max(1, int(math.Ceil(math.Cbrt(float64(n)/4))))
	nx := 2 * ny
	boxes := []geom.AABB{Floor()}
	for i := 0; len(boxes) < n; i++ {
		x, y, z := i%nx, i/nx%ny, i/nx/ny
		c := geom.Vec3{float32(x), float32(y) + 0.5, float32(z)}.Add(RandVec(r, -0.05, 0.05))
		h := RandVec(r, 0.45, 0.56)
		if y == 0 {
			c[1] = h[1] - 0.005 // the bottom layer rests on the ground
		}
		boxes = append(boxes, BoxAt(c, h))
	}
	moving := make([]bool, n)
	for i := 1; i < n; i++ {
		moving[i] = true
	}
	return boxes, moving
}

// Jittered returns a copy of boxes each moved by up to d along each axis.
func Jittered(r *rand.Rand, boxes []geom.AABB, d float32) []geom.AABB {
	out := make([]geom.AABB, len(boxes))
	for i, b := range boxes {
		v := RandVec(r, -d, d)
		out[i] = geom.AABB{Min: b.Min.Add(v), Max: b.Max.Add(v)}
	}
	out[0] = boxes[0] // the ground stays
	return out
}

// ParallelFor returns a parallel-for that splits [0, n) into one range per worker, each run on its own
// goroutine, the way the world's pool hands out work.
func ParallelFor(workers int) func(n int, fn func(worker, lo, hi int)) {
	return func(n int, fn func(worker, lo, hi int)) {
		var wg sync.WaitGroup
		chunk := (n + workers - 1) / workers
		for w := 0; w < workers; w++ {
			lo, hi := w*chunk, min((w+1)*chunk, n)
			if lo >= hi {
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				fn(w, lo, hi)
			}()
		}
		wg.Wait()
	}
}

// CheckPairs fails the test unless got is exactly want and well formed: each pair A < B, sorted by
// (A, B), no duplicates. It takes any pair type shaped like broad.Pair (broadtest cannot import broad,
// whose own tests use it).
func CheckPairs[P ~struct{ A, B int32 }](t testing.TB, what string, got, want []P) {
	t.Helper()
	for k := range got {
		p := struct{ A, B int32 }(got[k])
		if p.A >= p.B {
			t.Fatalf("%s: pair %d is %v: want A < B", what, k, p)
		}
		if k > 0 {
			q := struct{ A, B int32 }(got[k-1])
			if q.A > p.A || q.A == p.A && q.B >= p.B {
				t.Fatalf("%s: pairs %d, %d are %v, %v: not sorted or duplicated", what, k-1, k, q, p)
			}
		}
	}
	if slices.Equal(got, want) {
		return
	}
	for k := 0; ; k++ {
		switch {
		case k >= len(got):
			t.Fatalf("%s: got %d pairs, want %d: missing %v", what, len(got), len(want), want[k])
		case k >= len(want):
			t.Fatalf("%s: got %d pairs, want %d: extra %v", what, len(got), len(want), got[k])
		case got[k] != want[k]:
			t.Fatalf("%s: got %d pairs, want %d: %s", what, len(got), len(want), fmt.Sprintf("at %d got %v, want %v", k, got[k], want[k]))
		}
	}
}
