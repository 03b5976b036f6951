package gpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim/geom"
)

// wideTestPrism is a prism of sides sides (radius r, half height h along y): its two caps are faces
// of sides vertices.
func wideTestPrism(t testing.TB, sides int, r, h float32) *geom.Hull {
	t.Helper()
	var pts []geom.Vec3
	for _, y := range []float32{-h, h} {
		for i := range sides {
			a := 2 * math.Pi * float64(i) / float64(sides)
			pts = append(pts, geom.Vec3{r * float32(math.Cos(a)), y, r * float32(math.Sin(a))})
		}
	}
	hull, err := geom.NewHull(pts)
	if err != nil {
		t.Fatal(err)
	}
	return hull
}

// TestNarrowHullsWidePairsAreExact: a 48-sided prism lying on its cap (a face of 48 vertices, more
// than tb_narrow_hulls' NC_HULL_SMALL_CLIP points) on the ground, on another prism and on a box needs
// the wide arrays: tb_narrow_hulls alone marks exactly those pairs TB_NARROW_WIDE (more of them than
// tb_narrow_hulls_wide has threads, so its threads go round more than once) and none of the small
// pairs mixed in, and the whole narrow phase gives the CPU's contacts to the bit.
func TestNarrowHullsWidePairsAreExact(t *testing.T) { checkWideHullPairs(t, emulated{}) }

// checkWideHullPairs is TestNarrowHullsWidePairsAreExact on device d.
func checkWideHullPairs(t *testing.T, d device) {
	rng := rand.New(rand.NewPCG(39, 7))
	prism := geom.Shape{Kind: geom.ConvexHull, Hull: wideTestPrism(t, 48, 0.5, 0.2)}
	small := geom.Shape{Kind: geom.ConvexHull, Hull: testHulls[1]}
	var w narrowTestWorld
	var pairs []int2
	wide := map[int]bool{}
	tilt := func() geom.Quat {
		yaw := mgl32.QuatRotate(2*math.Pi*rng.Float32(), geom.Vec3{0, 1, 0})
		return mgl32.QuatRotate(0.005*rng.Float32(), narrowRandUnit(rng)).Mul(yaw).Normalize()
	}
	at := func(y float32) geom.Pose {
		return geom.Pose{P: geom.Vec3{0.1 * (rng.Float32() - 0.5), y, 0.1 * (rng.Float32() - 0.5)}, Q: tilt()}
	}
	add := func(a, b int32, isWide bool) {
		if isWide {
			wide[len(pairs)] = true
		}
		pairs = append(pairs, int2{a, b})
	}
	for range 110 {
		// A slightly sunk, barely tilted prism on the ground, on another prism and on a box, and a
		// small hull on the ground.
		g := w.add(nFloor, nAt(0, 0, 0), geom.Vec3{}, geom.Vec3{})
		add(g, w.add(prism, at(0.2-0.005*rng.Float32()), geom.Vec3{}, geom.Vec3{}), true)
		lo := w.add(prism, nAt(0, 0, 0), geom.Vec3{}, geom.Vec3{})
		add(lo, w.add(prism, at(0.4-0.005*rng.Float32()), geom.Vec3{}, geom.Vec3{}), true)
		bx := w.add(nBox(1, 0.2, 1), nAt(0, 0, 0), geom.Vec3{}, geom.Vec3{})
		add(bx, w.add(prism, at(0.4-0.005*rng.Float32()), geom.Vec3{}, geom.Vec3{}), true)
		add(g, w.add(small, at(0.25), geom.Vec3{}, geom.Vec3{}), false)
	}
	bb := testBodies(t, d, &w.b)
	var s narrowStage
	defer s.release(d)
	must(t, s.reserve(d, len(pairs), len(pairs)))
	const dt, spec = 1.0 / 60, 0.02

	// tb_narrow_hulls alone: which pairs does it leave to the wide kernel?
	var pb, cb buffer
	defer release(d, &pb)
	defer release(d, &cb)
	must(t, grow(d, &pb, 8*len(pairs)), grow(d, &cb, 4))
	must(t, uploadSlice(d, pb.p, pairs), uploadSlice(d, cb.p, []uint32{uint32(len(pairs))}))
	k := kernelSet{d}
	must(t, k.narrowHulls(blocks(len(pairs), narrowThreads), narrowThreads, narrowHullsArgs{
		Pairs: pb.p, PairCount: cb.p, PairCapacity: int32(len(pairs)),
		Pos: bb.pos.p, Rot: bb.rot.p, Vel: bb.vel.p, Omega: bb.omega.p, Shape: bb.shape.p,
		Hulls: bb.hulls.dHulls.p, HullVerts: bb.hulls.dVerts.p, HullFaces: bb.hulls.dFaces.p,
		HullLoops: bb.hulls.dLoops.p, HullEdges: bb.hulls.dEdges.p,
		Jointed: cb.p, Dt: dt, Speculative: spec, Cand: s.cand.p, Touching: s.offsets.p,
	}))
	flags := make([]uint32, len(pairs))
	must(t, downloadSlice(d, flags, s.offsets.p))
	marked := 0
	for i, f := range flags {
		if (f == math.MaxUint32) != wide[i] {
			t.Fatalf("pair %d (wide %v): tb_narrow_hulls left touching %#x", i, wide[i], f)
		}
		if wide[i] {
			marked++
		}
	}
	if marked <= narrowWideThreads {
		t.Fatalf("%d wide pairs: the wide kernel's threads do not go round twice", marked)
	}

	count, got := narrowRun(t, d, &s, bb, pairs, len(pairs), dt, spec)
	want := narrowCPU(&w.b, pairs, dt, spec, nil)
	if int(count) != len(want) || len(got) != len(want) {
		t.Fatalf("%d contacts, want %d", count, len(want))
	}
	if len(want) != len(pairs) {
		t.Fatalf("%d of %d pairs touch on the CPU, want all", len(want), len(pairs))
	}
	for i := range want {
		if !sameContact(&got[i], &want[i]) {
			t.Fatalf("contact %d (wide %v):\n got %+v\nwant %+v", i, wide[i], got[i], want[i])
		}
	}
}
