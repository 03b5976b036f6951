package bvh

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"tumble/sim/broad"
	"tumble/sim/broad/broadtest"
	"tumble/sim/geom"
)

// TestEveryPhaseAgreesOnAMillionBodies runs 2^20 + 1 bodies (one past a power of two, so every block,
// level and buffer size is crossed) through the LBVH (rebuilt and refitted, on one worker and on
// three), SAP and the grid. Brute force over all 5.5e11 pairs would take hours, so the exact check is
// by sampling: for 400 random bodies (and the plane), every box is tested against them directly and the pairs with
// them must be exactly those the phases returned. Beyond that the phases must agree pair for pair, and
// every pair returned must overlap and have a moving member.
func TestEveryPhaseAgreesOnAMillionBodies(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("million-body test: run without -race and -short (make test does)")
	}
	const n = 1<<20 + 1
	r := rand.New(rand.NewPCG(20, 1))
	// Uniform boxes of half size 0.1..1 in a cube sized for about four neighbours each, a ground plane
	// under them (its box spans the world), a few NaN boxes, and a tenth of the bodies at rest.
	side := float32(140)
	boxes := make([]geom.AABB, n)
	for i := range boxes {
		boxes[i] = broadtest.BoxAt(broadtest.RandVec(r, 0, side), broadtest.RandVec(r, 0.1, 1))
	}
	boxes[12345] = broadtest.Floor()
	for _, i := range []int{7, 1 << 19, n - 1} {
		boxes[i].Min[1] = float32(math.NaN())
	}
	moving := broadtest.RandomMoving(r, n, 0.9)

	tr := New()
	got := tr.Pairs(boxes, moving, nil)
	checkTree(t, "lbvh", tr, moving)
	if len(got) < n || len(got) > 6*n {
		t.Fatalf("%d pairs for %d bodies: the scene is not the intended density", len(got), n)
	}
	for k, p := range got {
		if p.A >= p.B || k > 0 && !(got[k-1].A < p.A || got[k-1].A == p.A && got[k-1].B < p.B) {
			t.Fatalf("pair %d %v: not sorted, duplicated or not A < B", k, p)
		}
		if !boxes[p.A].Overlaps(boxes[p.B]) || !(moving[p.A] || moving[p.B]) {
			t.Fatalf("pair %v: boxes do not overlap, or neither moves", p)
		}
	}

	// Sampled brute force.
	samples := []int32{12345} // the plane, which pairs with the whole bottom layer
	for len(samples) < 400 {
		if i := int32(r.IntN(n)); !slices.Contains(samples, i) {
			samples = append(samples, i)
		}
	}
	partners := make(map[int32][]int32)
	for _, i := range samples {
		var list []int32
		for j := range boxes {
			if int32(j) != i && (moving[i] || moving[j]) && broad.Valid(&boxes[j]) && broad.Valid(&boxes[i]) && boxes[i].Overlaps(boxes[j]) {
				list = append(list, int32(j))
			}
		}
		partners[i] = list
	}
	found := make(map[int32][]int32)
	for _, p := range got {
		if _, ok := partners[p.A]; ok {
			found[p.A] = append(found[p.A], p.B)
		}
		if _, ok := partners[p.B]; ok {
			found[p.B] = append(found[p.B], p.A)
		}
	}
	for i, want := range partners {
		have := found[i]
		slices.Sort(have)
		if !slices.Equal(have, want) {
			t.Fatalf("body %d: the LBVH pairs it with %d bodies, brute force with %d (%v vs %v)", i, len(have), len(want), head(have), head(want))
		}
	}

	start := time.Now()
	check := func(what string, ph broad.Phase) {
		t.Helper()
		broadtest.CheckPairs(t, what, ph.Pairs(boxes, moving, nil), got)
		t.Logf("%s: %v", what, time.Since(start))
		start = time.Now()
	}
	par := New()
	par.Parallel, par.Workers = broadtest.ParallelFor(3), 3
	check("lbvh, 3 workers", par)
	checkTree(t, "lbvh, 3 workers", par, moving)
	// Refit: shift every box, refit, and compare with a fresh build on the shifted boxes.
	for i := range boxes {
		d := geom.Vec3{0.05, -0.05, 0.02}
		boxes[i] = geom.AABB{Min: boxes[i].Min.Add(d), Max: boxes[i].Max.Add(d)}
	}
	par.RefitGrowth = 10
	shifted := New().Pairs(boxes, moving, nil)
	broadtest.CheckPairs(t, "refitted", par.Pairs(boxes, moving, nil), shifted)
	if par.Rebuilt {
		t.Error("the tree was rebuilt, not refitted")
	}
	got = shifted
	check("sap", broad.NewSAP())
	check("grid", broad.NewGrid())
}

func head(xs []int32) []int32 { return xs[:min(len(xs), 8)] }
