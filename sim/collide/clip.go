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
	cnt := 0
	for i := 0; i < n && cnt < maxPoly; i++ {
		a := &in[i]
		b := &in[0]
		if i+1 < n {
			b = &in[i+1]
		}
		da, db := sideDist(a, onV, side, lim), sideDist(b, onV, side, lim)
		// Edge a -> b: keep a if it is inside or in the band, add the point where the edge crosses the
		// plane if it runs between an inside vertex and one beyond the band.
		cross := false
		if da <= band {
			v := *a
			if db > band {
				if da <= 0 {
					cross = true
				} else {
					v.edge = 4 + plane // from a, the polygon runs along the side plane
				}
			}
			out[cnt] = v
			cnt++
		} else if db <= 0 {
			cross = true
		}
		if cross && cnt < maxPoly {
			t := da / (da - db)
			x := clipVert{
				u:    a.u + t*(b.u-a.u),
				v:    a.v + t*(b.v-a.v),
				w:    a.w + t*(b.w-a.w),
				feat: 8 + 4*a.edge + plane,
				edge: a.edge, // entering: the rest of a's edge follows
			}
			if onV {
				x.v = side * lim
			} else {
				x.u = side * lim
			}
			if da <= 0 {
				x.edge = 4 + plane // leaving: the polygon runs along the side plane from here
			}
			out[cnt] = x
			cnt++
		}
	}
	return cnt
}

// sideDist is p's signed distance beyond the side plane side*c = lim.
func sideDist(p *clipVert, onV bool, side, lim float32) float32 {
	if onV {
		return side*p.v - lim
	}
	return side*p.u - lim
}

// reduce chooses at most four of the points p[:n] to keep and writes their indices to keep, returning
// how many. It keeps the deepest point, then the one farthest from it, then the two making the largest
// triangles with those on either side, which holds the deepest contact and covers the most area.
func reduce(p *[maxPoly]clipVert, n int, keep *[4]int) int {
	if n <= 4 {
		for i := 0; i < n; i++ {
			keep[i] = i
		}
		return n
	}
	i0 := 0
	for i := 1; i < n; i++ {
		if p[i].w < p[i0].w {
			i0 = i
		}
	}
	i1, far := -1, float32(-1)
	for i := 0; i < n; i++ {
		du, dv := p[i].u-p[i0].u, p[i].v-p[i0].v
		if d2 := du*du + dv*dv; i != i0 && d2 > far {
			i1, far = i, d2
		}
	}
	eu, ev := p[i1].u-p[i0].u, p[i1].v-p[i0].v
	i2, i3 := -1, -1
	var aMax, aMin float32
	for i := 0; i < n; i++ {
		area := eu*(p[i].v-p[i0].v) - ev*(p[i].u-p[i0].u)
		if area > aMax {
			i2, aMax = i, area
		}
		if area < aMin {
			i3, aMin = i, area
		}
	}
	keep[0], keep[1] = i0, i1
	k := 2
	if i2 >= 0 {
		keep[k] = i2
		k++
	}
	if i3 >= 0 {
		keep[k] = i3
		k++
	}
	// All points on one side of the first pair: fill with the points farthest from those kept.
	for k < 4 {
		best, bestD := -1, float32(-1)
		for i := 0; i < n; i++ {
			nearest := float32(-1)
			for j := 0; j < k; j++ {
				if keep[j] == i {
					nearest = -1
					break
				}
				du, dv := p[i].u-p[keep[j]].u, p[i].v-p[keep[j]].v
				if d2 := du*du + dv*dv; nearest < 0 || d2 < nearest {
					nearest = d2
				}
			}
			if nearest > bestD {
				best, bestD = i, nearest
			}
		}
		if best < 0 || bestD <= 0 {
			break
		}
		keep[k] = best
		k++
	}
	return k
}
