package bvh

import (
	"math/rand/v2"
	"testing"
	"time"

	"tumble/sim/broad"
	"tumble/sim/broad/broadtest"
)

func TestDebugQuery(t *testing.T) {
	for _, n := range []int{10000, 100000} {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		boxes, moving := broadtest.Pile(r, n)
		tr := New()
		out := tr.Pairs(boxes, moving, nil)
		var best, bestSAP time.Duration = 1e12, 1e12
		s := broad.NewSAP()
		s.Pairs(boxes, moving, out)
		for k := 0; k < 7; k++ {
			out = tr.Pairs(boxes, moving, out)
			best = min(best, tr.Times[StageQuery])
			t0 := time.Now()
			out = s.Pairs(boxes, moving, out)
			bestSAP = min(bestSAP, time.Since(t0))
		}
		t.Logf("n=%d pairs=%d query=%v sap=%v", n, len(out), best, bestSAP)
	}
}

func TestDebugOnlyLBVH(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 10000))
	boxes, moving := broadtest.Pile(r, 10000)
	tr := New()
	out := tr.Pairs(boxes, moving, nil)
	for k := 0; k < 3; k++ {
		out = tr.Pairs(boxes, moving, out)
	}
}
