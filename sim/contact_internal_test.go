package sim

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
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
					p.narrow.prev = append(p.narrow.prev, manifold{a: a, b: b})
				}
			}
		}
		want := func(a, b int32) int {
			i := sort.Search(len(p.narrow.prev), func(i int) bool {
				m := &p.narrow.prev[i]
				return m.a > a || (m.a == a && m.b >= b)
			})
			if i < len(p.narrow.prev) && p.narrow.prev[i].a == a && p.narrow.prev[i].b == b {
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
			a, b, h := int32(r.Intn(62)), int32(r.Intn(70)), r.Intn(len(p.narrow.prev)+2)
			if got, _ := p.findPrev(a, b, h); got != want(a, b) {
				t.Fatalf("trial %d: pair (%d, %d) from hint %d: %d, want %d", trial, a, b, h, got, want(a, b))
			}
		}
	}
}

// dropBody gives what filtering, renaming and a stable sort by pair give: the removed body's
// manifolds gone, the moved (last) body's renamed to i where their order holds and gone where it
// would flip, prev sorted for findPrev, the other manifolds in their order. Random prev lists with
// runs of several manifolds per pair, removing a random body (the last one too).
func TestDropBodyMatchesFilterAndSort(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for trial := 0; trial < 300; trial++ {
		n := int32(2 + r.Intn(30))
		var p pipeline
		serial := int32(0)
		for a := int32(0); a < n; a++ {
			for b := a + 1; b < n; b++ {
				for range r.Intn(5) / 3 * (1 + r.Intn(2)) {
					p.narrow.prev = append(p.narrow.prev, manifold{a: a, b: b, pair: serial})
					serial++
				}
			}
		}
		i, last := int32(r.Intn(int(n))), n-1
		var want []manifold
		for _, m := range p.narrow.prev {
			switch {
			case m.a == i || m.b == i:
			case m.b == last && m.a > i:
			case m.b == last:
				m.b = i
				want = append(want, m)
			default:
				want = append(want, m)
			}
		}
		sort.SliceStable(want, func(x, y int) bool {
			return want[x].a < want[y].a || want[x].a == want[y].a && want[x].b < want[y].b
		})
		p.narrow.dropBody(i, last)
		if len(p.narrow.prev) != len(want) {
			t.Fatalf("trial %d (remove %d of %d): %d manifolds kept, want %d", trial, i, n, len(p.narrow.prev), len(want))
		}
		for k := range want {
			if g, w := p.narrow.prev[k], want[k]; g.a != w.a || g.b != w.b || g.pair != w.pair {
				t.Fatalf("trial %d (remove %d of %d): manifold %d is (%d, %d) #%d, want (%d, %d) #%d",
					trial, i, n, k, g.a, g.b, g.pair, w.a, w.b, w.pair)
			}
		}
	}
}

// Removing a body keeps the warm starts of the contacts it did not touch: last step's manifolds
// follow the last body into the removed one's place instead of all being dropped. Two stacks and a
// box between them; the last body added sits on the first stack, so removing the box moves it. Right
// after the removal the contacts are listed as they were (by name), and the next steps start from
// their impulses: the stacks stay as still as they were. Dropped, every contact started cold and the
// stacks sank.
func TestRemovingABodyKeepsTheOtherContactsWarm(t *testing.T) {
	w := gravityWorld(Settings{Solver: PGS})
	groundPlane(t, w, 0.6, 0)
	box := func(name string, x, y float32) Handle {
		return mustAdd(t, w, BodyDef{Name: name, Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{x, y, 0}, Mass: 100, Friction: 0.6})
	}
	for k := range 4 {
		box(fmt.Sprint("b", k), 0, 0.5+float32(k))
	}
	far := box("far", 10, 0.5)
	for k := range 4 {
		box(fmt.Sprint("a", k), -10, 0.5+float32(k))
	}
	box("top", 0, 4.5) // the last body: it moves into far's place
	run(t, w, 180)
	type key struct{ a, b string }
	impulses := func() map[key][]float32 {
		out := map[key][]float32{}
		for _, c := range w.Contacts(nil) {
			k := key{w.Bodies.Name[c.BodyA], w.Bodies.Name[c.BodyB]}
			out[k] = append(out[k], c.NormalImpulse)
		}
		return out
	}
	speed := func() float32 {
		s := float32(0)
		for i := range w.Bodies.Velocity {
			s = max(s, length(ldv(&w.Bodies.Velocity[i])))
		}
		return s
	}
	still := float32(0)
	for range 30 {
		run(t, w, 1)
		still = max(still, speed())
	}
	before := impulses()
	if err := w.RemoveBody(far); err != nil {
		t.Fatal(err)
	}
	after := impulses()
	for k, imp := range before {
		if k.a == "far" || k.b == "far" {
			if len(after[k]) != 0 {
				t.Errorf("contacts of the removed box still listed: %v", k)
			}
			continue
		}
		if !slices.Equal(after[k], imp) {
			t.Errorf("%s on %s: impulses %v after the removal, %v before", k.b, k.a, after[k], imp)
		}
	}
	if !slices.IsSortedFunc(w.pipe.narrow.prev, func(x, y manifold) int {
		return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b))
	}) {
		t.Error("last step's manifolds are no longer sorted by pair")
	}
	moved := float32(0)
	for range 30 {
		run(t, w, 1)
		moved = max(moved, speed())
	}
	t.Logf("largest speed over 30 steps: %.5f m/s before the removal, %.5f after", still, moved)
	if moved > 2*still+1e-3 {
		t.Errorf("the stacks moved at up to %.5f m/s after a box elsewhere was removed, %.5f before", moved, still)
	}
}

// nearPoint gives a renamed point the nearest of last step's points on body A within reach, never one
// that a point of the new manifold names by id, nor one given to an earlier point; A's rotation since
// carries last step's points, which are fixed in A.
func TestNearPointContinuesRenamedPoints(t *testing.T) {
	var old, cur manifold
	old.count = 4
	for j, z := range []float32{-0.5, 0.5, 0.5, -0.5} {
		x := float32(-0.5)
		if j >= 2 {
			x = 0.5
		}
		old.pts[j] = contactPoint{id: uint32(10 + j), localA: vec{X: x, Y: 0.5, Z: z}}
	}
	cur.count = 4
	for j := range 4 {
		cur.pts[j].id = uint32(20 + j)
	}
	const reach = 0.01
	id := Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}
	for _, c := range []struct {
		name  string
		rA    vec
		rot   Mat3
		named uint32 // an id the new manifold holds (0: none)
		taken uint8
		want  int
	}{
		{"3 mm from point 1", vec{X: -0.5, Y: 0.5, Z: 0.497}, id, 0, 0, 1},
		{"between two, nearer 2", vec{X: 0.5, Y: 0.5, Z: 0.4985}, id, 0, 0, 2},
		{"beyond reach", vec{X: -0.5, Y: 0.5, Z: 0.485}, id, 0, 0, -1},
		{"nearest named by a new point", vec{X: -0.5, Y: 0.5, Z: 0.497}, id, 11, 0, -1},
		{"nearest given already", vec{X: -0.5, Y: 0.5, Z: 0.497}, id, 0, 1 << 1, -1},
		// A turned a quarter about y (columns: the images of x, y, z): (x, y, z) in A's frame is
		// (z, y, -x) in the world, so point 1 at (-0.5, 0.5, 0.5) is now at (0.5, 0.5, 0.5).
		{"turned with A", vec{X: 0.5, Y: 0.5, Z: 0.5}, Mat3{0, 0, -1, 0, 1, 0, 1, 0, 0}, 0, 0, 1},
	} {
		cur.pts[3].id = 23
		if c.named != 0 {
			cur.pts[3].id = c.named
		}
		if got := nearPoint(&old, &cur, c.rA, &c.rot, reach, c.taken); got != c.want {
			t.Errorf("%s: point %d, want %d", c.name, got, c.want)
		}
	}
}
