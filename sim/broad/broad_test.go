package broad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"tumble/sim/broad/broadtest"
	"tumble/sim/geom"
)

// A scene is one broad-phase input.
type scene struct {
	boxes  []geom.AABB
	moving []bool
}

func TestBruteFindsTouchingAndSkipsStaticPairs(t *testing.T) {
	boxes := []geom.AABB{
		broadtest.BoxAt(geom.Vec3{0, 0, 0}, broadtest.Cube(0.5)),
		broadtest.BoxAt(geom.Vec3{1, 0, 0}, broadtest.Cube(0.5)),   // touches 0 on a face
		broadtest.BoxAt(geom.Vec3{1, 1, 1}, broadtest.Cube(0.5)),   // touches 0 at a corner, 1 on a face
		broadtest.BoxAt(geom.Vec3{5, 0, 0}, broadtest.Cube(0.5)),   // alone
		broadtest.BoxAt(geom.Vec3{1.5, 0, 0}, broadtest.Cube(0.1)), // inside 1's face region, apart from 0
		broadtest.Floor(), // under 0, 1, 3 and 4 (4 static); 2 is above it
	}
	moving := []bool{true, true, false, true, false, false}
	got := Brute{}.Pairs(boxes, moving, nil)
	want := []Pair{{0, 1}, {0, 2}, {0, 5}, {1, 2}, {1, 4}, {1, 5}, {3, 5}}
	broadtest.CheckPairs(t, "brute", got, want)
}

func TestSAPAndGridMatchBruteOnRandomScenes(t *testing.T) {
	sizes := []int{0, 1, 2, 3, 17, 200, 1000}
	fractions := []float64{1, 0.5, 0.05, 0}
	for name, gen := range broadtest.Scenes {
		for _, n := range sizes {
			for _, p := range fractions {
				r := rand.New(rand.NewPCG(uint64(n), uint64(p*100)))
				sc := scene{gen(r, n), broadtest.RandomMoving(r, n, p)}
				want := Brute{}.Pairs(sc.boxes, sc.moving, nil)
				got := NewSAP().Pairs(sc.boxes, sc.moving, nil)
				broadtest.CheckPairs(t, fmt.Sprintf("%s n=%d moving=%.2f", name, n, p), got, want)
				par := NewSAP()
				par.Parallel, par.Workers = broadtest.ParallelFor(3), 3
				got = par.Pairs(sc.boxes, sc.moving, got)
				broadtest.CheckPairs(t, fmt.Sprintf("%s n=%d moving=%.2f parallel", name, n, p), got, want)
				got = NewGrid().Pairs(sc.boxes, sc.moving, got)
				broadtest.CheckPairs(t, fmt.Sprintf("%s n=%d moving=%.2f grid", name, n, p), got, want)
				grid := NewGrid()
				grid.Parallel, grid.Workers = broadtest.ParallelFor(3), 3
				got = grid.Pairs(sc.boxes, sc.moving, got)
				broadtest.CheckPairs(t, fmt.Sprintf("%s n=%d moving=%.2f parallel grid", name, n, p), got, want)
			}
		}
	}
}

// TestSAPAndGridAcrossSteps runs one SAP (and one grid) over a sequence of scenes that exercise each way its kept
// order can go stale: small motion (insertion sort), a shuffle (the fallback to a full sort), bodies
// added and removed, and the scene turning so that another axis has the greatest spread.
func TestSAPAndGridAcrossSteps(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	s := NewSAP()
	g := NewGrid()
	g.Parallel, g.Workers = broadtest.ParallelFor(2), 2
	var out []Pair
	boxes := broadtest.Scenes["uniform"](r, 500)
	moving := broadtest.RandomMoving(r, len(boxes), 0.7)
	step := func(what string) {
		t.Helper()
		want := Brute{}.Pairs(boxes, moving, nil)
		out = s.Pairs(boxes, moving, out)
		broadtest.CheckPairs(t, what, out, want)
		out = g.Pairs(boxes, moving, out)
		broadtest.CheckPairs(t, what+" (grid)", out, want)
	}
	for k := 0; k < 20; k++ {
		for i := range boxes {
			d := broadtest.RandVec(r, -0.2, 0.2)
			boxes[i] = geom.AABB{Min: boxes[i].Min.Add(d), Max: boxes[i].Max.Add(d)}
		}
		step(fmt.Sprintf("jitter %d", k))
	}
	r.Shuffle(len(boxes), func(i, j int) { boxes[i], boxes[j] = boxes[j], boxes[i] })
	step("shuffled")
	boxes = append(boxes, broadtest.Scenes["clustered"](r, 100)...)
	moving = append(moving, broadtest.RandomMoving(r, 100, 0)...)
	step("bodies added")
	boxes, moving = boxes[:300], moving[:300]
	step("bodies removed")
	for k := 1; k <= 10; k++ { // squash x, stretch z: the sweep axis must change
		for i := range boxes {
			c := boxes[i].Centre()
			h := boxes[i].Max.Sub(c)
			c[0] *= 0.7
			c[2] *= 1.3
			boxes[i] = broadtest.BoxAt(c, h)
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
	boxes := []geom.AABB{broadtest.BoxAt(geom.Vec3{}, broadtest.Cube(1)), broadtest.BoxAt(geom.Vec3{1, 1, 1}, broadtest.Cube(1))}
	for _, ph := range []Phase{Brute{}, NewSAP(), NewGrid()} {
		out := []Pair{{7, 9}, {8, 9}}
		out = ph.Pairs(boxes, nil, out)
		broadtest.CheckPairs(t, fmt.Sprintf("%T", ph), out, []Pair{{0, 1}})
		if out = ph.Pairs(nil, nil, out); len(out) != 0 {
			t.Errorf("%T: no boxes gave %v", ph, out)
		}
	}
}

func TestPairsPanicsOnShortMoving(t *testing.T) {
	for _, ph := range []Phase{Brute{}, NewSAP(), NewGrid()} {
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
	boxes := broadtest.Scenes["pile on planes"](r, 2000)
	moving := broadtest.RandomMoving(r, len(boxes), 0.9)
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
		{broadtest.BoxAt(geom.Vec3{}, broadtest.Cube(1)), true},
		{broadtest.BoxAt(geom.Vec3{3, 4, 5}, broadtest.Cube(0)), true},
		{broadtest.Floor(), true},
		{geom.AABB{Min: geom.Vec3{0, nan, 0}, Max: geom.Vec3{1, 1, 1}}, false},
		{geom.AABB{Min: geom.Vec3{0, 0, 0}, Max: geom.Vec3{1, 1, inf}}, false},
		{geom.AABB{Min: geom.Vec3{-inf, 0, 0}, Max: geom.Vec3{1, 1, 1}}, false},
		{geom.AABB{Min: geom.Vec3{0, 0, 2}, Max: geom.Vec3{1, 1, 1}}, false},
	} {
		if got := Valid(&tc.box); got != tc.want {
			t.Errorf("Valid(%v) = %v, want %v", tc.box, got, tc.want)
		}
	}
}

// FuzzSAPMatchesBrute decodes the input as a small scene (boxes on a coarse grid, so that ties and
// touching faces are common) and checks SAP against Brute over two calls.
func FuzzSAPMatchesBrute(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1})
	f.Add([]byte{0, 0, 0, 2, 2, 2, 1, 2, 0, 0, 3, 3, 3, 0, 9, 9, 9, 9, 9, 9, 1})
	f.Add([]byte("a broadtest.Pile of bytes to be boxes, some of them moving and some of them not"))
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
			broadtest.CheckPairs(t, fmt.Sprintf("call %d", call), s.Pairs(boxes, moving, nil), want)
			for i := range boxes { // move every other box a step, then sweep again
				if i%2 == 0 {
					boxes[i].Min[i%3] += 0.5
					boxes[i].Max[i%3] += 0.5
				}
			}
		}
	})
}
