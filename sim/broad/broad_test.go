package broad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"tumble/sim/geom"
)

// A scene is one broad-phase input.
type scene struct {
	boxes  []geom.AABB
	moving []bool
}

// boxAt returns the box of half size h centred at c.
func boxAt(c geom.Vec3, h geom.Vec3) geom.AABB {
	return geom.AABB{Min: c.Sub(h), Max: c.Add(h)}
}

func cube(h float32) geom.Vec3 { return geom.Vec3{h, h, h} }

// floor returns the box of a ground plane y = 0, as geom gives it.
func floor() geom.AABB {
	s := geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}
	return s.Bounds(geom.Identity)
}

func randIn(r *rand.Rand, lo, hi float32) float32 { return lo + (hi-lo)*r.Float32() }

func randVec(r *rand.Rand, lo, hi float32) geom.Vec3 {
	return geom.Vec3{randIn(r, lo, hi), randIn(r, lo, hi), randIn(r, lo, hi)}
}

// logUniform returns a size between lo and hi, uniform in log scale.
func logUniform(r *rand.Rand, lo, hi float64) float32 {
	return float32(lo * math.Pow(hi/lo, r.Float64()))
}

// The scene generators. Each returns n boxes; movingFrac of them (at random) move.
var generators = map[string]func(r *rand.Rand, n int) []geom.AABB{
	"uniform": func(r *rand.Rand, n int) []geom.AABB {
		side := float32(math.Cbrt(float64(n))) * 2
		bs := make([]geom.AABB, n)
		for i := range bs {
			bs[i] = boxAt(randVec(r, 0, side), randVec(r, 0.1, 1))
		}
		return bs
	},
	"clustered": func(r *rand.Rand, n int) []geom.AABB {
		centres := make([]geom.Vec3, 1+n/50)
		for i := range centres {
			centres[i] = randVec(r, -50, 50)
		}
		bs := make([]geom.AABB, n)
		for i := range bs {
			c := centres[r.IntN(len(centres))]
			d := geom.Vec3{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())}
			bs[i] = boxAt(c.Add(d.Mul(2)), randVec(r, 0.2, 0.6))
		}
		return bs
	},
	"mixed sizes": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		for i := range bs {
			h := geom.Vec3{logUniform(r, 0.005, 50), logUniform(r, 0.005, 50), logUniform(r, 0.005, 50)}
			bs[i] = boxAt(randVec(r, -60, 60), h)
		}
		return bs
	},
	"one point": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		for i := range bs {
			bs[i] = boxAt(geom.Vec3{1, 2, 3}, geom.Vec3{})
		}
		return bs
	},
	"identical": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		for i := range bs {
			bs[i] = boxAt(geom.Vec3{-4, 0, 7}, cube(0.5))
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
	// A pile on a ground plane, with a second, tilted plane whose box is the whole world.
	"pile on planes": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		for i := range bs {
			bs[i] = boxAt(geom.Vec3{randIn(r, -5, 5), randIn(r, 0, 3), randIn(r, -5, 5)}, randVec(r, 0.2, 0.7))
		}
		if n > 0 {
			bs[r.IntN(n)] = floor()
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
			bs[i] = boxAt(geom.Vec3{randIn(r, 0, 1), randIn(r, 0, 1), randIn(r, 0, float32(n))}, randVec(r, 0.1, 1))
		}
		return bs
	},
	// Some boxes are NaN, infinite or inverted: they must pair with nothing.
	"invalid": func(r *rand.Rand, n int) []geom.AABB {
		bs := make([]geom.AABB, n)
		nan, inf := float32(math.NaN()), float32(math.Inf(1))
		for i := range bs {
			bs[i] = boxAt(randVec(r, 0, 4), randVec(r, 0.2, 1))
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

// randomMoving returns flags with each body moving with probability p (nil when p is 1).
func randomMoving(r *rand.Rand, n int, p float64) []bool {
	if p >= 1 {
		return nil
	}
	m := make([]bool, n)
	for i := range m {
		m[i] = r.Float64() < p
	}
	return m
}

// checkPairs fails the test unless got is exactly want and well formed.
func checkPairs(t *testing.T, what string, got, want []Pair) {
	t.Helper()
	for k, p := range got {
		if p.A >= p.B {
			t.Fatalf("%s: pair %d is %v: want A < B", what, k, p)
		}
		if k > 0 && (got[k-1].A > p.A || got[k-1].A == p.A && got[k-1].B >= p.B) {
			t.Fatalf("%s: pairs %d, %d are %v, %v: not sorted or duplicated", what, k-1, k, got[k-1], p)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %d pairs, want %d; first difference: %s", what, len(got), len(want), firstDiff(got, want))
	}
}

func firstDiff(got, want []Pair) string {
	for k := 0; k < len(got) || k < len(want); k++ {
		switch {
		case k >= len(got):
			return fmt.Sprintf("missing %v", want[k])
		case k >= len(want):
			return fmt.Sprintf("extra %v", got[k])
		case got[k] != want[k]:
			return fmt.Sprintf("at %d got %v want %v", k, got[k], want[k])
		}
	}
	return "none"
}

func TestBruteFindsTouchingAndSkipsStaticPairs(t *testing.T) {
	boxes := []geom.AABB{
		boxAt(geom.Vec3{0, 0, 0}, cube(0.5)),
		boxAt(geom.Vec3{1, 0, 0}, cube(0.5)),   // touches 0 on a face
		boxAt(geom.Vec3{1, 1, 1}, cube(0.5)),   // touches 0 at a corner, 1 on a face
		boxAt(geom.Vec3{5, 0, 0}, cube(0.5)),   // alone
		boxAt(geom.Vec3{1.5, 0, 0}, cube(0.1)), // inside 1's face region, apart from 0
		floor(),                                // under 0, 1, 3 and 4 (4 static); 2 is above it
	}
	moving := []bool{true, true, false, true, false, false}
	got := Brute{}.Pairs(boxes, moving, nil)
	want := []Pair{{0, 1}, {0, 2}, {0, 5}, {1, 2}, {1, 4}, {1, 5}, {3, 5}}
	checkPairs(t, "brute", got, want)
}

func TestSAPMatchesBruteOnRandomScenes(t *testing.T) {
	sizes := []int{0, 1, 2, 3, 17, 200, 1000}
	fractions := []float64{1, 0.5, 0.05, 0}
	for name, gen := range generators {
		for _, n := range sizes {
			for _, p := range fractions {
				r := rand.New(rand.NewPCG(uint64(n), uint64(p*100)))
				sc := scene{gen(r, n), randomMoving(r, n, p)}
				want := Brute{}.Pairs(sc.boxes, sc.moving, nil)
				got := NewSAP().Pairs(sc.boxes, sc.moving, nil)
				checkPairs(t, fmt.Sprintf("%s n=%d moving=%.2f", name, n, p), got, want)
				par := NewSAP()
				par.Parallel, par.Workers = parallelFor(3), 3
				got = par.Pairs(sc.boxes, sc.moving, got)
				checkPairs(t, fmt.Sprintf("%s n=%d moving=%.2f parallel", name, n, p), got, want)
			}
		}
	}
}

// parallelFor splits [0, n) into one range per worker, each run on its own goroutine, the way the
// world's pool hands out work.
func parallelFor(workers int) func(n int, fn func(worker, lo, hi int)) {
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

// TestSAPKeepsOrderAcrossSteps runs one SAP over a sequence of scenes that exercise each way its kept
// order can go stale: small motion (insertion sort), a shuffle (the fallback to a full sort), bodies
// added and removed, and the scene turning so that another axis has the greatest spread.
func TestSAPKeepsOrderAcrossSteps(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	s := NewSAP()
	var out []Pair
	boxes := generators["uniform"](r, 500)
	moving := randomMoving(r, len(boxes), 0.7)
	step := func(what string) {
		t.Helper()
		want := Brute{}.Pairs(boxes, moving, nil)
		out = s.Pairs(boxes, moving, out)
		checkPairs(t, what, out, want)
	}
	for k := 0; k < 20; k++ {
		for i := range boxes {
			d := randVec(r, -0.2, 0.2)
			boxes[i] = geom.AABB{Min: boxes[i].Min.Add(d), Max: boxes[i].Max.Add(d)}
		}
		step(fmt.Sprintf("jitter %d", k))
	}
	r.Shuffle(len(boxes), func(i, j int) { boxes[i], boxes[j] = boxes[j], boxes[i] })
	step("shuffled")
	boxes = append(boxes, generators["clustered"](r, 100)...)
	moving = append(moving, randomMoving(r, 100, 0)...)
	step("bodies added")
	boxes, moving = boxes[:300], moving[:300]
	step("bodies removed")
	for k := 1; k <= 10; k++ { // squash x, stretch z: the sweep axis must change
		for i := range boxes {
			c := boxes[i].Centre()
			h := boxes[i].Max.Sub(c)
			c[0] *= 0.7
			c[2] *= 1.3
			boxes[i] = boxAt(c, h)
		}
		step(fmt.Sprintf("turning %d", k))
	}
	for i := range boxes {
		boxes[i].Min[1] = float32(math.NaN())
	}
	step("all invalid")
	boxes, moving = boxes[:1], moving[:1]
	step("one left")
}

func TestPairsResetsOut(t *testing.T) {
	boxes := []geom.AABB{boxAt(geom.Vec3{}, cube(1)), boxAt(geom.Vec3{1, 1, 1}, cube(1))}
	for _, ph := range []Phase{Brute{}, NewSAP()} {
		out := []Pair{{7, 9}, {8, 9}}
		out = ph.Pairs(boxes, nil, out)
		checkPairs(t, fmt.Sprintf("%T", ph), out, []Pair{{0, 1}})
		if out = ph.Pairs(nil, nil, out); len(out) != 0 {
			t.Errorf("%T: no boxes gave %v", ph, out)
		}
	}
}

func TestPairsPanicsOnShortMoving(t *testing.T) {
	for _, ph := range []Phase{Brute{}, NewSAP()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%T: no panic for len(moving) != len(boxes)", ph)
				}
			}()
			ph.Pairs(make([]geom.AABB, 3), make([]bool, 2), nil)
		}()
	}
}

func TestSAPSecondCallDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	boxes := generators["pile on planes"](r, 2000)
	moving := randomMoving(r, len(boxes), 0.9)
	s := NewSAP()
	out := s.Pairs(boxes, moving, nil)
	shift := float32(0.01)
	allocs := testing.AllocsPerRun(20, func() {
		for i := range boxes[:100] { // a little motion, so the insertion sort has work
			boxes[i].Min[0] += shift
			boxes[i].Max[0] += shift
		}
		shift = -shift
		out = s.Pairs(boxes, moving, out)
	})
	if allocs != 0 {
		t.Errorf("steady-state Pairs allocates %.1f times per call, want 0", allocs)
	}
	if len(out) == 0 {
		t.Fatal("no pairs: the scene is wrong")
	}
}

func TestValidBox(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tc := range []struct {
		box  geom.AABB
		want bool
	}{
		{boxAt(geom.Vec3{}, cube(1)), true},
		{boxAt(geom.Vec3{3, 4, 5}, cube(0)), true},
		{floor(), true},
		{geom.AABB{Min: geom.Vec3{0, nan, 0}, Max: geom.Vec3{1, 1, 1}}, false},
		{geom.AABB{Min: geom.Vec3{0, 0, 0}, Max: geom.Vec3{1, 1, inf}}, false},
		{geom.AABB{Min: geom.Vec3{-inf, 0, 0}, Max: geom.Vec3{1, 1, 1}}, false},
		{geom.AABB{Min: geom.Vec3{0, 0, 2}, Max: geom.Vec3{1, 1, 1}}, false},
	} {
		if got := valid(&tc.box); got != tc.want {
			t.Errorf("valid(%v) = %v, want %v", tc.box, got, tc.want)
		}
	}
}

// FuzzSAPMatchesBrute decodes the input as a small scene (boxes on a coarse grid, so that ties and
// touching faces are common) and checks SAP against Brute over two calls.
func FuzzSAPMatchesBrute(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1})
	f.Add([]byte{0, 0, 0, 2, 2, 2, 1, 2, 0, 0, 3, 3, 3, 0, 9, 9, 9, 9, 9, 9, 1})
	f.Add([]byte("a pile of bytes to be boxes, some of them moving and some of them not"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var boxes []geom.AABB
		var moving []bool
		for len(data) >= 7 {
			var b geom.AABB
			for k := 0; k < 3; k++ {
				b.Min[k] = float32(data[k]%16) / 2
				b.Max[k] = b.Min[k] + float32(data[3+k]%8)/2
			}
			boxes = append(boxes, b)
			moving = append(moving, data[6]&1 == 1)
			data = data[7:]
		}
		s := NewSAP()
		for call := 0; call < 2; call++ {
			want := Brute{}.Pairs(boxes, moving, nil)
			checkPairs(t, fmt.Sprintf("call %d", call), s.Pairs(boxes, moving, nil), want)
			for i := range boxes { // move every other box a step, then sweep again
				if i%2 == 0 {
					boxes[i].Min[i%3] += 0.5
					boxes[i].Max[i%3] += 0.5
				}
			}
		}
	})
}
