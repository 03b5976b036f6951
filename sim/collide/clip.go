package collide

// Clipping of an incident face against a reference face (Sutherland-Hodgman, one side plane at a time)
// and reduction of the clipped polygon to at most four points.

// clipSlack is a band outside the reference face's side planes, as a fraction of the face's half
// extents, within which an incident vertex is kept as it is rather than clipped. An incident vertex flush
// with the reference face's edge (equal boxes stacked) then stays one vertex with one id, instead of
// flickering between a vertex and two clip points from frame to frame. Edges that really cross a side
// plane are still cut exactly at it.
const clipSlack = 1e-3

// clipVert is a vertex of the incident polygon in the reference face's coordinates: u and v along the
// face, w the height above it (the separation). feat names what made it (0..3: an incident face vertex;
// 8+4*edge+plane: where a polygon edge crossed a side plane) and edge labels the polygon edge leaving it
// (0..3: an incident face edge; 4+plane: a stretch along a side plane).
type clipVert struct {
	u, v, w    float32
	feat, edge uint8
}

// maxPoly is the most vertices a quadrilateral keeps after clipping by four half-planes.
const maxPoly = 8

// clipSide clips the convex polygon in[:n] to the half-plane side*c <= lim, where c is the vertex's v
// when onV is true and u otherwise, writes the result to out and returns its length. Vertices up to band
// beyond the plane are kept unmoved. plane (0..3) names the side plane in the features of new vertices.
func clipSide(in *[maxPoly]clipVert, n int, out *[maxPoly]clipVert, onV bool, side, lim, band float32, plane uint8) int {
	if n == 0 {
		return 0
	}
	cnt := 0
	da := sideDist(&in[0], onV, side, lim)
	for i := 0; i < n && cnt < maxPoly; i++ {
		a := &in[i]
		b := &in[0]
		if i+1 < n {
			b = &in[i+1]
		}
		db := sideDist(b, onV, side, lim)
		// Edge a -> b: keep a if it is inside or in the band, add the point where the edge crosses the
		// plane if it runs between an inside vertex and one beyond the band.
		cross := false
		if da <= band {
			out[cnt] = *a
			if db > band {
				if da <= 0 {
					cross = true
				} else {
					out[cnt].edge = 4 + plane // from a, the polygon runs along the side plane
				}
			}
			cnt++
		} else if db <= 0 {
			cross = true
		}
		if cross && cnt < maxPoly {
			t := da / (da - db)
			x := &out[cnt]
			x.u = a.u + t*(b.u-a.u)
			x.v = a.v + t*(b.v-a.v)
			x.w = a.w + t*(b.w-a.w)
			x.feat = 8 + 4*a.edge + plane
			x.edge = a.edge // entering: the rest of a's edge follows
			if onV {
				x.v = side * lim
			} else {
				x.u = side * lim
			}
			if da <= 0 {
				x.edge = 4 + plane // leaving: the polygon runs along the side plane from here
			}
			cnt++
		}
		da = db
	}
	return cnt
}

// clipFace clips the polygon in poly[:n] to the rectangle |u| <= lu, |v| <= lv (each side with its band)
// using tmp as scratch, and returns the result's length and the array holding it. Side planes that no
// vertex crosses are skipped.
func clipFace(poly, tmp *[maxPoly]clipVert, n int, lu, lv, bu, bv float32) (int, *[maxPoly]clipVert) {
	src, dst := poly, tmp
	for plane := uint8(0); plane < 4; plane++ {
		onV := plane >= 2
		side, lim, band := float32(1), lu, bu
		if plane&1 != 0 {
			side = -1
		}
		if onV {
			lim, band = lv, bv
		}
		out := false
		for i := 0; i < n; i++ {
			if sideDist(&src[i], onV, side, lim) > band {
				out = true
				break
			}
		}
		if out {
			n = clipSide(src, n, dst, onV, side, lim, band, plane)
			src, dst = dst, src
		}
	}
	return n, src
}

// sideDist is p's signed distance beyond the side plane side*c = lim.
func sideDist(p *clipVert, onV bool, side, lim float32) float32 {
	if onV {
		return side*p.v - lim
	}
	return side*p.u - lim
}

// Tolerances of the reduction: among points within these of the best, the first in polygon order is
// taken, so near ties (a box resting almost flat, symmetric overlaps) resolve the same way every frame.
const (
	reduceDepthTol  = 1e-3 // deepest point: depth within this fraction of the face's size
	reduceSpreadTol = 1e-2 // farthest point and largest triangles: within this fraction
)

// reduce chooses at most four of the points p[:n] to keep and writes their indices to keep, returning
// how many. It keeps the deepest point, then the one farthest from it, then the two making the largest
// triangles with those on either side, which holds the deepest contact and covers the most area. size
// is the reference face's size, for the depth tolerance.
func reduce(p *[maxPoly]clipVert, n int, size float32, keep *[4]int) int {
	if n <= 4 {
		for i := 0; i < n; i++ {
			keep[i] = i
		}
		return n
	}
	wMin := p[0].w
	for i := 1; i < n; i++ {
		wMin = min(wMin, p[i].w)
	}
	i0 := 0
	for p[i0].w > wMin+reduceDepthTol*size {
		i0++
	}
	var far float32
	for i := 0; i < n; i++ {
		far = max(far, dist2D(&p[i], &p[i0]))
	}
	i1 := 0
	for i1 == i0 || dist2D(&p[i1], &p[i0]) < far*(1-reduceSpreadTol) {
		i1++
	}
	eu, ev := p[i1].u-p[i0].u, p[i1].v-p[i0].v
	area := func(i int) float32 { return eu*(p[i].v-p[i0].v) - ev*(p[i].u-p[i0].u) }
	var aMax, aMin float32
	for i := 0; i < n; i++ {
		a := area(i)
		aMax, aMin = max(aMax, a), min(aMin, a)
	}
	keep[0], keep[1] = i0, i1
	k := 2
	if aMax > 0 {
		i := 0
		for area(i) < aMax*(1-reduceSpreadTol) {
			i++
		}
		keep[k] = i
		k++
	}
	if aMin < 0 {
		i := 0
		for area(i) > aMin*(1-reduceSpreadTol) {
			i++
		}
		keep[k] = i
		k++
	}
	// All points on one side of the first pair: fill with the points farthest from those kept.
	for k < 4 {
		best, bestD := -1, float32(0)
		for i := 0; i < n; i++ {
			nearest := float32(-1)
			for j := 0; j < k && nearest != 0; j++ {
				if d := dist2D(&p[i], &p[keep[j]]); nearest < 0 || d < nearest {
					nearest = d
				}
			}
			if nearest > bestD {
				best, bestD = i, nearest
			}
		}
		if best < 0 {
			break
		}
		keep[k] = best
		k++
	}
	return k
}

// dist2D is the squared distance between two clip vertices in the face's plane.
func dist2D(a, b *clipVert) float32 {
	du, dv := a.u-b.u, a.v-b.v
	return du*du + dv*dv
}
