package bvh

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"tumble/sim/broad"
	"tumble/sim/geom"
)

// queryBoxes is n random boxes in a 40 m cube, with a floor's world-spanning box and an invalid one
// among them once n allows.
func queryBoxes(rng *rand.Rand, n int) []geom.AABB {
	boxes := make([]geom.AABB, n)
	for i := range boxes {
		c := geom.Vec3{rng.Float32()*40 - 20, rng.Float32()*40 - 20, rng.Float32()*40 - 20}
		h := geom.Vec3{rng.Float32()*1.5 + 0.05, rng.Float32()*1.5 + 0.05, rng.Float32()*1.5 + 0.05}
		boxes[i] = geom.AABB{Min: c.Sub(h), Max: c.Add(h)}
	}
	if n > 10 {
		e := float32(geom.PlaneExtent)
		boxes[3] = geom.AABB{Min: geom.Vec3{-e, -e, -e}, Max: geom.Vec3{e, -15, e}}
		nan := float32(math.NaN())
		boxes[7] = geom.AABB{Min: geom.Vec3{nan, 0, 0}, Max: geom.Vec3{1, 1, 1}}
	}
	return boxes
}

// slabEnter is the brute-force answer for one box: where o + s d, s in [0, tmax], enters the box grown
// by ext, by the textbook slab test in float64.
func slabEnter(b geom.AABB, o, d, ext geom.Vec3, tmax float32) (float64, bool) {
	if !broad.Valid(&b) {
		return 0, false
	}
	t0, t1 := 0.0, float64(tmax)
	for k := range 3 {
		lo, hi := float64(b.Min[k]-ext[k]), float64(b.Max[k]+ext[k])
		if d[k] == 0 {
			if float64(o[k]) < lo || float64(o[k]) > hi {
				return 0, false
			}
			continue
		}
		a, c := (lo-float64(o[k]))/float64(d[k]), (hi-float64(o[k]))/float64(d[k])
		if a > c {
			a, c = c, a
		}
		t0, t1 = max(t0, a), min(t1, c)
	}
	return t0, t0 <= t1
}

func TestCastVisitsExactlyTheBoxesTheSegmentMeets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 50, 2000} {
		boxes := queryBoxes(rng, n)
		tr := New()
		tr.Build(boxes)
		for q := range 200 {
			o := geom.Vec3{rng.Float32()*60 - 30, rng.Float32()*60 - 30, rng.Float32()*60 - 30}
			d := geom.Vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}.Normalize()
			if q%10 == 0 {
				d = geom.Vec3{0, -1, 0} // along an axis: two zero components
			}
			ext := geom.Vec3{}
			if q%3 == 0 {
				ext = geom.Vec3{0.5, 0.2, 1}
			}
			tmax := float32(rng.Float64() * 80)
			var got []int32
			tr.Cast(o, d, ext, tmax, func(body int32, enter, tm float32) float32 {
				got = append(got, body)
				if want, ok := slabEnter(boxes[body], o, d, ext, tmax); !ok || math.Abs(want-float64(enter)) > 1e-3 {
					t.Errorf("n %d query %d: body %d entered at %v, want %v (ok %v)", n, q, body, enter, want, ok)
				}
				return tm
			})
			var want []int32
			for i, b := range boxes {
				if s, ok := slabEnter(b, o, d, ext, tmax); ok && s < float64(tmax)-1e-3 {
					want = append(want, int32(i))
				}
			}
			slices.Sort(got)
			for _, w := range want {
				if _, ok := slices.BinarySearch(got, w); !ok {
					t.Fatalf("n %d query %d: box %d on the segment was not visited", n, q, w)
				}
			}
			if len(got) > len(want)+2 { // boxes the segment only grazes may come either way
				t.Errorf("n %d query %d: visited %d boxes, %d on the segment", n, q, len(got), len(want))
			}
		}
	}
}

// TestCastShorteningTheSegmentFindsTheNearestBox: a closest-hit walk that returns each box's entry
// as the new end finds the box entered first, having visited far fewer than all.
func TestCastShorteningTheSegmentFindsTheNearestBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	boxes := queryBoxes(rng, 5000)
	tr := New()
	tr.Build(boxes)
	visited, queries := 0, 0
	for range 300 {
		o := geom.Vec3{rng.Float32()*60 - 30, rng.Float32()*60 - 30, rng.Float32()*60 - 30}
		d := geom.Vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}.Normalize()
		best, bestBody := float32(math.Inf(1)), int32(-1)
		tr.Cast(o, d, geom.Vec3{}, best, func(body int32, enter, tm float32) float32 {
			visited++
			if enter < best {
				best, bestBody = enter, body
			}
			return best
		})
		want, wantBody := math.Inf(1), int32(-1)
		for i, b := range boxes {
			if s, ok := slabEnter(b, o, d, geom.Vec3{}, float32(math.Inf(1))); ok && s < want {
				want, wantBody = s, int32(i)
			}
		}
		if wantBody != bestBody && math.Abs(want-float64(best)) > 1e-3 {
			t.Errorf("nearest box %d at %v, want %d at %v", bestBody, best, wantBody, want)
		}
		queries++
	}
	if per := float64(visited) / float64(queries); per > 60 {
		t.Errorf("a closest-hit walk visited %.1f boxes per ray of 5000", per)
	}
}

func TestOverlapVisitsExactlyTheOverlappingBoxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 50, 2000} {
		boxes := queryBoxes(rng, n)
		tr := New()
		tr.Build(boxes)
		// Refitting after a move answers for the moved boxes.
		tr.RefitGrowth = 4
		for i := range boxes {
			shift := geom.Vec3{rng.Float32() - 0.5, rng.Float32() - 0.5, rng.Float32() - 0.5}
			boxes[i].Min, boxes[i].Max = boxes[i].Min.Add(shift), boxes[i].Max.Add(shift)
		}
		tr.Build(boxes)
		for q := range 200 {
			c := geom.Vec3{rng.Float32()*50 - 25, rng.Float32()*50 - 25, rng.Float32()*50 - 25}
			h := geom.Vec3{rng.Float32() * 3, rng.Float32() * 3, rng.Float32() * 3}
			box := geom.AABB{Min: c.Sub(h), Max: c.Add(h)}
			var got, want []int32
			tr.Overlap(box, func(body int32) { got = append(got, body) })
			for i, b := range boxes {
				if broad.Valid(&b) && b.Overlaps(box) {
					want = append(want, int32(i))
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("n %d query %d: overlap %v, want %v", n, q, got, want)
			}
		}
	}
}
