package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"tumble/sim"
	"tumble/sim/broad"
	"tumble/sim/broad/broadtest"
	"tumble/sim/broad/bvh"
	"tumble/sim/geom"
)

// randomWorld returns n bodies of every shape kind at random poses and velocities, a mix of dynamic,
// kinematic and static ones, packed so that each overlaps a few others; one of them (when n > 2) is a
// static ground plane and, when n > 5, another a tilted plane, whose boxes span the world.
func randomWorld(t testing.TB, r *rand.Rand, n int) *sim.World {
	w := sim.NewWorld(sim.Settings{})
	side := float32(math.Cbrt(float64(n)))*1.5 + 1
	for i := 0; i < n; i++ {
		def := sim.BodyDef{
			Position:        broadtest.RandVec(r, -side, side),
			Rotation:        randomRotation(r),
			Velocity:        broadtest.RandVec(r, -3, 3),
			AngularVelocity: broadtest.RandVec(r, -4, 4),
			Friction:        r.Float32(),
			Restitution:     r.Float32(),
		}
		switch r.IntN(10) {
		case 0, 1:
			def.Type = sim.Static
		case 2:
			def.Type = sim.Kinematic
		}
		switch r.IntN(3) {
		case 0:
			def.Shape = geom.Shape{Kind: geom.Box, HalfExtents: broadtest.RandVec(r, 0.1, 0.8)}
		case 1:
			def.Shape = geom.Shape{Kind: geom.Sphere, Radius: broadtest.RandIn(r, 0.1, 0.8)}
		case 2:
			def.Shape = geom.Shape{Kind: geom.Capsule, Radius: broadtest.RandIn(r, 0.1, 0.5), HalfHeight: broadtest.RandIn(r, 0.1, 0.8)}
		}
		switch {
		case n > 2 && i == n/2: // a floor: its box stops at the plane
			def.Type, def.Rotation = sim.Static, geom.Identity.Q
			def.Shape = geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}, Offset: -side / 2}
		case n > 5 && i == n/3: // tilted: the whole world
			def.Type, def.Shape = sim.Static, geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{1, 1, 0}.Normalize(), Offset: 0.5}
		case n > 8 && i == n/4: // a ceiling, turned a quarter about z so that its normal becomes -x
			def.Type, def.Rotation = sim.Static, geom.Quat{W: float32(math.Sqrt(0.5)), V: geom.Vec3{0, 0, float32(math.Sqrt(0.5))}}
			def.Shape = geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}, Offset: side / 2}
		}
		if _, err := w.AddBody(def); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func randomRotation(r *rand.Rand) geom.Quat {
	q := geom.Quat{W: float32(r.NormFloat64()), V: geom.Vec3{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())}}
	return q.Normalize()
}

// broadRun uploads the world's bodies, runs the stage and returns the boxes and moving flags it
// computed and its pair list.
func broadRun(t testing.TB, d device, s *broadStage, w *sim.World) ([]geom.AABB, []bool, []broad.Pair) {
	t.Helper()
	b, err := uploadBodies(d, &w.Bodies)
	if err != nil {
		t.Fatal(err)
	}
	defer b.release(d)
	st := w.Resolved()
	run := func() error {
		if err := s.bounds(d, b, st.Dt, st.Speculative, 0, 0, 0); err != nil {
			return err
		}
		return s.pairsOf(d, b.n)
	}
	if err := run(); err != nil {
		t.Fatal(err)
	}
	if c := pairCount(t, d, s); c > s.capacity { // the backend's path: grow and run again
		if err := s.reserve(d, b.n, c); err != nil {
			t.Fatal(err)
		}
		if err := run(); err != nil {
			t.Fatal(err)
		}
	}
	boxes, moving := downloadBoxes(t, d, s, b.n)
	return boxes, moving, downloadPairs(t, d, s)
}

func pairCount(t testing.TB, d device, s *broadStage) int {
	t.Helper()
	_, count, _ := s.pairList()
	var c [1]uint32
	if err := downloadSlice(d, c[:], count); err != nil {
		t.Fatal(err)
	}
	return int(c[0])
}

func downloadBoxes(t testing.TB, d device, s *broadStage, n int) ([]geom.AABB, []bool) {
	t.Helper()
	boxes := make([]geom.AABB, n)
	flags := make([]uint32, n)
	if err := downloadSlice(d, boxes, s.boxes.p); err != nil {
		t.Fatal(err)
	}
	if err := downloadSlice(d, flags, s.moving.p); err != nil {
		t.Fatal(err)
	}
	moving := make([]bool, n)
	for i, f := range flags {
		moving[i] = f != 0
	}
	return boxes, moving
}

// downloadPairs reads the pair list, failing the test when it overflowed.
func downloadPairs(t testing.TB, d device, s *broadStage) []broad.Pair {
	t.Helper()
	pairs, _, capacity := s.pairList()
	c := pairCount(t, d, s)
	if c > capacity {
		t.Fatalf("%d pairs overflow the capacity of %d", c, capacity)
	}
	out := make([]broad.Pair, c)
	if err := downloadSlice(d, out, pairs); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBroadLayoutsMatch(t *testing.T) {
	d := emulated{}
	var out buffer
	if err := grow(d, &out, 12); err != nil {
		t.Fatal(err)
	}
	defer release(d, &out)
	if err := (kernelSet{d}).broadSizes(1, 1, broadSizesArgs{Out: out.p}); err != nil {
		t.Fatal(err)
	}
	var got [3]uint32
	if err := downloadSlice(d, got[:], out.p); err != nil {
		t.Fatal(err)
	}
	want := [3]uintptr{unsafe.Sizeof(tbBox{}), unsafe.Sizeof(tbNode{}), unsafe.Sizeof(tbBig{})}
	if uintptr(got[0]) != want[0] || uintptr(got[1]) != want[1] || uintptr(got[2]) != want[2] ||
		unsafe.Sizeof(geom.AABB{}) != want[0] {
		t.Errorf("sizeof(TbBox, TbNode, TbBig) = %v in C++, %v in Go; sizeof(geom.AABB) = %d", got, want,
			unsafe.Sizeof(geom.AABB{}))
	}
}

// TestBroadBoundsMatchSimBodyBounds: every body's box is sim.BodyBounds within 1e-5 relative (the
// kernels use sqrtf of a float32 sum where sim takes a float64 square root, and nvcc contracts to FMAs:
// a few float32 roundings of the largest term, which is below 1e-6 relative), and it moves iff it is
// dynamic.
func TestBroadBoundsMatchSimBodyBounds(t *testing.T) {
	d := emulated{}
	var s broadStage
	defer s.release(d)
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 17, 300} {
		w := randomWorld(t, r, n)
		boxes, moving, _ := broadRun(t, d, &s, w)
		st := w.Resolved()
		for i := range boxes {
			want := sim.BodyBounds(&w.Bodies, i, st.Dt, 0.5*st.Speculative)
			for k := 0; k < 3; k++ {
				for _, g := range [][2]float32{{boxes[i].Min[k], want.Min[k]}, {boxes[i].Max[k], want.Max[k]}} {
					if math.Abs(float64(g[0]-g[1])) > 1e-5*max(1, math.Abs(float64(g[1]))) {
						t.Fatalf("n=%d: body %d (%v): box %v, want %v", n, i, w.Bodies.Shape[i].Kind, boxes[i], want)
					}
				}
			}
			if moving[i] != (w.Bodies.Type[i] == sim.Dynamic) {
				t.Fatalf("n=%d: body %d (%v): moving %v", n, i, w.Bodies.Type[i], moving[i])
			}
		}
	}
}

// TestBroadPairsMatchSim: on random worlds and on the structured ones (all bodies in one point,
// identical boxes, nothing moving), the pair list is, pair for pair, what sim's LBVH and the brute
// force give on the same boxes and moving flags.
func TestBroadPairsMatchSim(t *testing.T) {
	d := emulated{}
	var s broadStage
	defer s.release(d)
	if err := s.reserve(d, 16, 64); err != nil { // small, so that some runs overflow and grow
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 2))
	check := func(what string, w *sim.World) {
		t.Helper()
		if s.small {
			what += " (the small path's one-launch sorts)"
		}
		boxes, moving, got := broadRun(t, d, &s, w)
		want := bvh.New().Pairs(boxes, moving, nil)
		broadtest.CheckPairs(t, what, got, want)
		if len(boxes) <= 300 {
			broadtest.CheckPairs(t, what+" (brute)", got, broad.Brute{}.Pairs(boxes, moving, nil))
		}
	}
	for _, n := range []int{0, 1, 2, 3, 17, 300, 2000} {
		check(fmt.Sprintf("random n=%d", n), randomWorld(t, r, n))
	}
	// The sorts of one and two tiles in one launch (tb_broad_radix_one): the codes of 300 and 2,000
	// bodies, and the pairs up to 2,048.
	s.small = true
	for _, n := range []int{2, 17, 300, 2000} {
		check(fmt.Sprintf("random n=%d", n), randomWorld(t, r, n))
	}
	s.small = false
	same := func(n int, typ func(i int) sim.BodyType, shape geom.Shape) *sim.World {
		w := sim.NewWorld(sim.Settings{})
		for i := 0; i < n; i++ {
			if _, err := w.AddBody(sim.BodyDef{Type: typ(i), Shape: shape, Position: sim.Vec3{1, 2, 3}}); err != nil {
				t.Fatal(err)
			}
		}
		return w
	}
	alternate := func(i int) sim.BodyType { return sim.BodyType(i % 3) }
	check("one point", same(100, alternate, geom.Shape{Kind: geom.Sphere, Radius: 1e-6}))
	check("identical boxes", same(70, alternate, geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.5, 0.5, 0.5}}))
	check("nothing moves", same(50, func(int) sim.BodyType { return sim.Static }, geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{1, 1, 1}}))
}

// TestBroadPairsOnBoxScenes runs the LBVH kernels on broadtest's box scenes, boxes uploaded as they
// are: NaN, infinite and inverted boxes, world-spanning planes, touching grids, one point.
func TestBroadPairsOnBoxScenes(t *testing.T) {
	d := emulated{}
	var s broadStage
	defer s.release(d)
	r := rand.New(rand.NewPCG(3, 3))
	names := make([]string, 0, len(broadtest.Scenes))
	for name := range broadtest.Scenes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, n := range []int{2, 33, 400} {
			if n > 100 && (name == "one point" || name == "identical") {
				n = 100 // n^2/2 pairs: the emulator sorts them slowly
			}
			for _, p := range []float64{1, 0.3} {
				boxes := broadtest.Scenes[name](r, n)
				moving := broadtest.RandomMoving(r, n, p)
				got := boxPairs(t, d, &s, boxes, moving)
				want := broad.Brute{}.Pairs(boxes, moving, nil)
				broadtest.CheckPairs(t, fmt.Sprintf("%s n=%d moving=%g", name, n, p), got, want)
			}
		}
	}
}

// boxPairs runs the LBVH part of the stage on the given boxes (moving nil: all move).
func boxPairs(t testing.TB, d device, s *broadStage, boxes []geom.AABB, moving []bool) []broad.Pair {
	t.Helper()
	n := len(boxes)
	if err := s.reserve(d, n, 0); err != nil {
		t.Fatal(err)
	}
	flags := make([]uint32, n)
	for i := range flags {
		if moving == nil || moving[i] {
			flags[i] = 1
		}
	}
	if err := uploadSlice(d, s.boxes.p, boxes); err != nil {
		t.Fatal(err)
	}
	if err := uploadSlice(d, s.moving.p, flags); err != nil {
		t.Fatal(err)
	}
	if err := s.pairsOf(d, n); err != nil {
		t.Fatal(err)
	}
	if c := pairCount(t, d, s); c > s.capacity {
		if err := s.reserve(d, n, c); err != nil {
			t.Fatal(err)
		}
		if err := s.pairsOf(d, n); err != nil {
			t.Fatal(err)
		}
	}
	return downloadPairs(t, d, s)
}

// TestBroadOverflowCountsPastCapacity: with too little room the counter still reports every pair and
// nothing is written past the list (the emulator's guard pages would fail the launch); with the room
// it asked for, the list is complete.
func TestBroadOverflowCountsPastCapacity(t *testing.T) {
	d := emulated{}
	r := rand.New(rand.NewPCG(4, 4))
	boxes := broadtest.Scenes["identical"](r, 40) // 780 pairs
	want := broad.Brute{}.Pairs(boxes, nil, nil)
	for _, capacity := range []int{1, 100, 779} {
		var s broadStage
		if err := s.reserve(d, len(boxes), capacity); err != nil {
			t.Fatal(err)
		}
		// Shrink the stage's idea of its room to exactly capacity: grow's headroom would hide an
		// off-by-one, and the pair buffers then end at capacity as far as the kernels know.
		s.capacity = capacity
		for _, b := range []*buffer{&s.pairA[0], &s.pairA[1], &s.pairB[0], &s.pairB[1], &s.pairs} {
			size := 4
			if b == &s.pairs {
				size = 8 // int2
			}
			release(d, b)
			p, err := d.alloc(capacity * size)
			if err != nil {
				t.Fatal(err)
			}
			*b = buffer{p: p, bytes: capacity * size}
		}
		flags := make([]uint32, len(boxes))
		for i := range flags {
			flags[i] = 1
		}
		if err := uploadSlice(d, s.boxes.p, boxes); err != nil {
			t.Fatal(err)
		}
		if err := uploadSlice(d, s.moving.p, flags); err != nil {
			t.Fatal(err)
		}
		if err := s.pairsOf(d, len(boxes)); err != nil {
			t.Fatalf("capacity %d: %v", capacity, err)
		}
		var c [1]uint32
		if err := downloadSlice(d, c[:], s.count.p); err != nil {
			t.Fatal(err)
		}
		if int(c[0]) != len(want) {
			t.Fatalf("capacity %d: count %d, want %d", capacity, c[0], len(want))
		}
		if err := s.reserve(d, len(boxes), int(c[0])); err != nil {
			t.Fatal(err)
		}
		broadtest.CheckPairs(t, fmt.Sprintf("capacity %d, then grown", capacity), boxPairs(t, d, &s, boxes, nil), want)
		s.release(d)
	}
}

// TestBroadTreeIsConsistent checks the intermediate stages on a random world: the sorted keys
// (code<<32 | body) strictly increase and hold every body once; every internal node's children link
// back to it; a walk from the root reaches every leaf once, each under its own sorted position; each
// child slot holds the union of the child's boxes (or the leaf's box) and the last leaf under it, with
// the moving bit set iff a moving body is below.
func TestBroadTreeIsConsistent(t *testing.T) {
	d := emulated{}
	var s broadStage
	defer s.release(d)
	r := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{2, 3, 17, 1000} {
		w := randomWorld(t, r, n)
		boxes, moving, _ := broadRun(t, d, &s, w)
		codes, index := make([]uint32, n), make([]uint32, n)
		nodes, parent := make([]tbNode, n-1), make([]int32, 2*n-1)
		leafBox := make([]geom.AABB, n)
		for _, err := range []error{
			downloadSlice(d, codes, s.codes[s.cur].p), downloadSlice(d, index, s.index[s.cur].p),
			downloadSlice(d, nodes, s.nodes.p), downloadSlice(d, parent, s.parent.p),
			downloadSlice(d, leafBox, s.leafBox.p),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		seen := make([]bool, n)
		for k := range codes {
			if codes[k] >= 1<<30 || int(index[k]) >= n || seen[index[k]] {
				t.Fatalf("n=%d: sorted key %d is code %#x body %d", n, k, codes[k], index[k])
			}
			seen[index[k]] = true
			if k > 0 && uint64(codes[k-1])<<32|uint64(index[k-1]) >= uint64(codes[k])<<32|uint64(index[k]) {
				t.Fatalf("n=%d: keys %d, %d not increasing", n, k-1, k)
			}
		}
		if parent[0] != -1 {
			t.Fatalf("n=%d: root's parent %d", n, parent[0])
		}
		pos := make([]int, n) // body -> sorted position
		for k, b := range index {
			pos[b] = k
		}
		reached := make([]int, n)
		// walk returns the box, moving bit and first and last sorted leaf of internal node i's subtree.
		var walk func(i int) (geom.AABB, uint32, int, int)
		walk = func(i int) (geom.AABB, uint32, int, int) {
			nd := &nodes[i]
			var box geom.AABB
			var mv uint32
			first := -1
			for c := 0; c < 2; c++ {
				var cb geom.AABB
				var cm uint32
				var lo, hi int
				if ch := nd.Child[c]; ch < 0 {
					k := pos[^ch]
					reached[k]++
					if parent[n-1+k] != int32(i)<<1|int32(c) {
						t.Fatalf("n=%d: leaf %d's parent %d, want node %d side %d", n, k, parent[n-1+k], i, c)
					}
					cb, lo, hi = leafBox[k], k, k
					if moving[^ch] {
						cm = broadMovingBit
					}
				} else {
					if parent[ch] != int32(i)<<1|int32(c) {
						t.Fatalf("n=%d: node %d's parent %d, want node %d side %d", n, ch, parent[ch], i, c)
					}
					cb, cm, lo, hi = walk(int(ch))
				}
				if first < 0 {
					first = lo
				}
				if got := (geom.AABB{Min: nd.Box[c].Lo, Max: nd.Box[c].Hi}); got != cb && !(isEmpty(got) && isEmpty(cb)) {
					t.Fatalf("n=%d: node %d child %d box %v, want %v", n, i, c, got, cb)
				}
				if nd.Last[c] != uint32(hi)|cm {
					t.Fatalf("n=%d: node %d child %d last %#x, want %#x", n, i, c, nd.Last[c], uint32(hi)|cm)
				}
				if c == 0 {
					box = cb
				} else {
					box = geom.AABB{Min: minVec(box.Min, cb.Min), Max: maxVec(box.Max, cb.Max)}
				}
				mv |= cm
				if c == 1 {
					return box, mv, first, hi
				}
			}
			panic("unreachable")
		}
		walk(0)
		for k, c := range reached {
			if c != 1 {
				t.Fatalf("n=%d: leaf %d reached %d times", n, k, c)
			}
			want := boxes[index[k]]
			if !validBox(want) {
				want = geom.AABB{Min: geom.Vec3{inf, inf, inf}, Max: geom.Vec3{-inf, -inf, -inf}}
			}
			if leafBox[k] != want {
				t.Fatalf("n=%d: leaf %d box %v, want %v", n, k, leafBox[k], want)
			}
		}
	}
}

var inf = float32(math.Inf(1))

func isEmpty(b geom.AABB) bool { return b.Min[0] > b.Max[0] }

func validBox(b geom.AABB) bool {
	dx, dy, dz := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1], b.Max[2]-b.Min[2]
	return dx >= 0 && dy >= 0 && dz >= 0 && dx+dy+dz <= math.MaxFloat32
}

func minVec(a, b geom.Vec3) geom.Vec3 {
	return geom.Vec3{min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2])}
}

func maxVec(a, b geom.Vec3) geom.Vec3 {
	return geom.Vec3{max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])}
}

// TestBroadTimerSeesEveryStage: the timer hook is called once per stage, in order.
func TestBroadTimerSeesEveryStage(t *testing.T) {
	d := emulated{}
	var s broadStage
	defer s.release(d)
	var got []string
	s.timer = func(stage string) { got = append(got, stage) }
	broadRun(t, d, &s, randomWorld(t, rand.New(rand.NewPCG(6, 6)), 5))
	want := []string{"scene", "morton", "sort", "build", "fit", "query", "pairs"}
	if !slices.Equal(got[:min(len(got), len(want))], want) {
		t.Errorf("stages %v, want %v", got, want)
	}
}

// TestUploadBodiesFillsEveryArray checks each device array against the sim.Bodies it came from; the
// world inverse inertia against sim's own (the same products in the same order: equal to a rounding).
func TestUploadBodiesFillsEveryArray(t *testing.T) {
	d := emulated{}
	w := randomWorld(t, rand.New(rand.NewPCG(7, 7)), 40)
	sb := &w.Bodies
	b, err := uploadBodies(d, sb)
	if err != nil {
		t.Fatal(err)
	}
	defer b.release(d)
	n := sb.Len()
	if b.n != n {
		t.Fatalf("n = %d, want %d", b.n, n)
	}
	pos, rot, vel, omega, invI := make([]float4, n), make([]float4, n), make([]float4, n), make([]float4, n), make([]float4, n)
	shape, material, flags, invIW := make([]tbShape, n), make([]float4, n), make([]uint32, n), make([]float4, 3*n)
	for _, err := range []error{
		downloadSlice(d, pos, b.pos.p), downloadSlice(d, rot, b.rot.p), downloadSlice(d, vel, b.vel.p),
		downloadSlice(d, omega, b.omega.p), downloadSlice(d, invI, b.invI.p), downloadSlice(d, shape, b.shape.p),
		downloadSlice(d, material, b.material.p), downloadSlice(d, flags, b.flags.p), downloadSlice(d, invIW, b.invIW.p),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		p, q, v, om, ii, s := sb.Position[i], sb.Rotation[i], sb.Velocity[i], sb.AngularVelocity[i], sb.InvInertiaLocal[i], sb.Shape[i]
		wantShape := tbShape{Kind: int32(s.Kind), NX: s.Normal[0], NY: s.Normal[1], NZ: s.Normal[2], D: s.Offset}
		switch s.Kind {
		case geom.Box:
			wantShape.A, wantShape.B, wantShape.C = s.HalfExtents[0], s.HalfExtents[1], s.HalfExtents[2]
		case geom.Sphere, geom.Capsule:
			wantShape.A, wantShape.B = s.Radius, s.HalfHeight
		}
		if pos[i] != (float4{p[0], p[1], p[2], sb.InvMass[i]}) || rot[i] != (float4{q.V[0], q.V[1], q.V[2], q.W}) ||
			vel[i] != (float4{v[0], v[1], v[2], 0}) || omega[i] != (float4{om[0], om[1], om[2], 0}) ||
			invI[i] != (float4{ii[0], ii[1], ii[2], 0}) || shape[i] != wantShape ||
			material[i] != (float4{sb.Friction[i], sb.Restitution[i], sb.RollingResistance[i], sb.SpinningResistance[i]}) || flags[i] != uint32(sb.Type[i]) {
			t.Fatalf("body %d: pos %v rot %v vel %v omega %v invI %v shape %+v material %v flags %d", i, pos[i], rot[i],
				vel[i], omega[i], invI[i], shape[i], material[i], flags[i])
		}
		m := sb.InvInertiaWorld[i] // column-major
		for r := 0; r < 3; r++ {
			row := [3]float32{invIW[3*i+r].X, invIW[3*i+r].Y, invIW[3*i+r].Z}
			for c := 0; c < 3; c++ {
				if want := m[c*3+r]; math.Abs(float64(row[c]-want)) > 1e-6*max(1, math.Abs(float64(want))) {
					t.Fatalf("body %d: invIW[%d][%d] = %g, want %g", i, r, c, row[c], want)
				}
			}
		}
	}
}

// TestBroadPlaneDoesNotWalkTheTree: on broadtest's pile of N boxes over a static ground plane (the
// plane's leaf sorts first, so that its walk over everything after it visited every node: N-1), the
// longest query walk stays within a few tree depths, 10 log2 N, and grows by far less than N does from
// 1,000 to 8,000 boxes; the plane is on the big list, and the pairs are the brute force's.
func TestBroadPlaneDoesNotWalkTheTree(t *testing.T) {
	d := emulated{}
	var s broadStage
	defer s.release(d)
	r := rand.New(rand.NewPCG(13, 13))
	var longest []int
	for _, n := range []int{1000, 8000} {
		boxes, moving := broadtest.Pile(r, n)
		got := boxPairs(t, d, &s, boxes, moving)
		broadtest.CheckPairs(t, fmt.Sprintf("pile n=%d", n), got, bvh.New().Pairs(boxes, moving, nil))
		w, err := s.walks(d)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("pile n=%d: %v", n, w)
		if w.Leaves != n || w.Big != 1 {
			t.Errorf("pile n=%d: %d query threads, %d big bodies; want %d and 1 (the plane)", n, w.Leaves, w.Big, n)
		}
		if limit := 10 * math.Log2(float64(n)); float64(w.Max) > limit {
			t.Errorf("pile n=%d: the longest walk tests %d nodes, more than 10 log2 N = %.0f", n, w.Max, limit)
		}
		longest = append(longest, w.Max)
	}
	if longest[1] > 2*longest[0] {
		t.Errorf("the longest walk went from %d nodes at 1,000 boxes to %d at 8,000: more than twice", longest[0], longest[1])
	}
}

// TestBroadBigListPastItsCapacity: with more big bodies than the list holds (60 floor slabs and
// walls among small boxes, some resting), the list keeps bigCap of them, the others walk the tree,
// and the pairs are still the brute force's.
func TestBroadBigListPastItsCapacity(t *testing.T) {
	d := emulated{}
	var s broadStage
	defer s.release(d)
	r := rand.New(rand.NewPCG(14, 14))
	var boxes []geom.AABB
	for i := range 300 {
		if i%5 == 0 {
			// A slab 20 m across on two axes, thin on the third, in a 20 m scene.
			h := geom.Vec3{10, 10, 10}
			h[i%3] = 0.2
			boxes = append(boxes, broadtest.BoxAt(broadtest.RandVec(r, 8, 12), h))
			continue
		}
		boxes = append(boxes, broadtest.BoxAt(broadtest.RandVec(r, 0, 20), broadtest.RandVec(r, 0.2, 1)))
	}
	moving := broadtest.RandomMoving(r, len(boxes), 0.6)
	got := boxPairs(t, d, &s, boxes, moving)
	broadtest.CheckPairs(t, "60 slabs", got, broad.Brute{}.Pairs(boxes, moving, nil))
	w, err := s.walks(d)
	if err != nil {
		t.Fatal(err)
	}
	var c [2]uint32
	if err := downloadSlice(d, c[:], s.count.p); err != nil {
		t.Fatal(err)
	}
	if w.Big != bigCap || c[1] != 60 {
		t.Errorf("%d bodies listed of %d big; want %d of 60", w.Big, c[1], bigCap)
	}
}
