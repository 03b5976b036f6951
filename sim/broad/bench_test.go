package broad

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"tumble/sim/broad/broadtest"
	"tumble/sim/geom"
)

var benchSizes = []int{1_000, 10_000, 100_000}

func reportPairs(b *testing.B, pairs, calls int) {
	b.ReportMetric(float64(pairs)*float64(calls)/b.Elapsed().Seconds(), "pairs/s")
	b.ReportMetric(float64(pairs), "pairs")
}

// BenchmarkSAP is the steady state: every body moves a little (up to 1 mm along each axis, more than a
// settled broadtest.Pile does in a step) between calls, so each call re-sorts the kept order by insertion.
func BenchmarkSAP(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("broadtest.Pile-%dk", n/1000), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, uint64(n)))
			boxes, moving := broadtest.Pile(r, n)
			frames := [2][]geom.AABB{boxes, broadtest.Jittered(r, boxes, 0.001)}
			s := NewSAP()
			out := s.Pairs(frames[1], moving, nil)
			out = s.Pairs(frames[0], moving, out)
			calls, pairs := 0, 0
			for b.Loop() {
				calls++
				out = s.Pairs(frames[calls%2], moving, out)
				pairs += len(out)
			}
			reportPairs(b, pairs/calls, calls)
		})
	}
}

// BenchmarkSAPFullSort is the cold case: every call sorts from scratch (the first step of a scene, or a
// change of sweep axis).
func BenchmarkSAPFullSort(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("broadtest.Pile-%dk", n/1000), func(b *testing.B) {
			boxes, moving := broadtest.Pile(rand.New(rand.NewPCG(1, uint64(n))), n)
			s := NewSAP()
			out := s.Pairs(boxes, moving, nil)
			calls := 0
			for b.Loop() {
				calls++
				s.axis = -1 // forget the order
				out = s.Pairs(boxes, moving, out)
			}
			reportPairs(b, len(out), calls)
		})
	}
}

// BenchmarkBrute is the reference's cost, for scale (100k would take minutes).
func BenchmarkBrute(b *testing.B) {
	for _, n := range benchSizes[:2] {
		b.Run(fmt.Sprintf("broadtest.Pile-%dk", n/1000), func(b *testing.B) {
			boxes, moving := broadtest.Pile(rand.New(rand.NewPCG(1, uint64(n))), n)
			out := Brute{}.Pairs(boxes, moving, nil)
			calls := 0
			for b.Loop() {
				calls++
				out = Brute{}.Pairs(boxes, moving, out)
			}
			reportPairs(b, len(out), calls)
		})
	}
}

// TestPileHasPileDensity keeps the benchmark scene honest: 6 to 10 neighbours per box.
func TestPileHasPileDensity(t *testing.T) {
	for _, n := range []int{1000, 10000} {
		boxes, moving := broadtest.Pile(rand.New(rand.NewPCG(1, uint64(n))), n)
		pairs := NewSAP().Pairs(boxes, moving, nil)
		ground := 0
		for _, p := range pairs {
			if p.A == 0 {
				ground++
			}
		}
		per := 2 * float64(len(pairs)-ground) / float64(n-1)
		if per < 6 || per > 10 {
			t.Errorf("n=%d: %.1f neighbours per box, want 6..10", n, per)
		}
		t.Logf("n=%d: %d pairs, %.1f neighbours per box, %d on the ground", n, len(pairs), per, ground)
	}
}

// TestSAPSweepsPileInStripes guards the stripes: a wide broadtest.Pile must be swept along a horizontal axis and
// cut into stripes across the other one, not swept whole.
func TestSAPSweepsPileInStripes(t *testing.T) {
	boxes, _ := broadtest.Pile(rand.New(rand.NewPCG(1, 10000)), 10000)
	p := NewSAP().plan(boxes)
	if p.axis == 1 || p.cut == 1 || p.stripes < 8 {
		t.Errorf("plan %+v: want sweep and cut along x and z (not y), and at least 8 stripes", p)
	}
}
