package sim

import (
	"math/rand"
	"sort"
	"testing"
)

// findPrev's galloping search from a hint finds what a plain bisection finds: the first of last
// step's manifolds for the pair, or none, for pairs looked up in increasing order (as prepare does),
// in random order and with random hints, over prev lists with runs of several manifolds per pair.
func TestFindPrevMatchesBisection(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for trial := 0; trial < 200; trial++ {
		var p pipeline
		for a := int32(0); a < int32(r.Intn(60)); a++ {
			for b := a + 1; b < a+8; b++ {
				for range r.Intn(4) / 2 * (1 + r.Intn(3)) { // most pairs absent, some with several manifolds
					p.prev = append(p.prev, manifold{a: a, b: b})
				}
			}
		}
		want := func(a, b int32) int {
			i := sort.Search(len(p.prev), func(i int) bool {
				m := &p.prev[i]
				return m.a > a || (m.a == a && m.b >= b)
			})
			if i < len(p.prev) && p.prev[i].a == a && p.prev[i].b == b {
				return i
			}
			return -1
		}
		hint := 0
		for a := int32(0); a < 62; a++ { // in order, carrying the hint
			for b := a + 1; b < a+9; b++ {
				got, next := p.findPrev(a, b, hint)
				if w := want(a, b); got != w {
					t.Fatalf("trial %d: pair (%d, %d) from hint %d: %d, want %d", trial, a, b, hint, got, w)
				}
				hint = next
			}
		}
		for range 200 { // any order, any hint
			a, b, h := int32(r.Intn(62)), int32(r.Intn(70)), r.Intn(len(p.prev)+2)
			if got, _ := p.findPrev(a, b, h); got != want(a, b) {
				t.Fatalf("trial %d: pair (%d, %d) from hint %d: %d, want %d", trial, a, b, h, got, want(a, b))
			}
		}
	}
}
