package collide

import "tumble/sim/geom"

// Box against box: the separating axis test over the 15 candidate axes (three face normals of each box
// and the nine cross products of their edges) finds the axis of least penetration. A face axis gives a
// face contact: the other box's most anti-parallel face is clipped against the reference face. An edge
// axis gives one point between the two edges.

// Choosing a face axis over a slightly better one (a larger separation) keeps the choice stable from frame
// to frame in resting stacks, where several axes have almost the same penetration.
const (
	preferFaceRel = 0.05 // tolerance as a fraction of the separation
	preferFaceAbs = 1e-3 // tolerance as a fraction of the box size
)

// edgeParallelSq is the squared sine of the angle between two edges below which their cross product is
// not tried as an axis: it is nearly a face axis then, and normalising it would amplify rounding.
const edgeParallelSq = 1e-5

// Feature ids of box-box contacts. Face contacts: refB<<12 | refFace<<9 | incFace<<6 | clip feature
// (see clipVert), faces numbered 2*axis + (1 on the negative side). Edge contacts: idBoxEdges |
// edgeA<<4 | edgeB, edges numbered axis<<2 | the sides of the other two axes.
const idBoxEdges = 1 << 13

// preferFaceTol is how much larger a separation must be to replace a face axis of separation sep.
func preferFaceTol(sep, scale float32) float32 { return preferFaceRel*abs32(sep) + preferFaceAbs*scale }

// boxBox collides two boxes.
func boxBox(a *geom.Shape, pa geom.Pose, b *geom.Shape, pb geom.Pose, margin float32, m *Manifold) {
	fa, fb := makeFrame(pa), makeFrame(pb)
	ha, hb := a.HalfExtents, b.HalfExtents
	d := fb.c.Sub(fa.c)
	var R, absR [3][3]float32 // R[i][j] = A_i . B_j
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r := fa.ax[i].Dot(fb.ax[j])
			R[i][j], absR[i][j] = r, abs32(r)
		}
	}
	ta, tb := fa.dirToLocal(d), fb.dirToLocal(d)

	// Face axes of A, then of B. Any axis separating by margin or more rules out every point.
	sepA, iA := float32(-1e30), 0
	for i := 0; i < 3; i++ {
		s := abs32(ta[i]) - ha[i] - (hb[0]*absR[i][0] + hb[1]*absR[i][1] + hb[2]*absR[i][2])
		if s >= margin {
			return
		}
		if s > sepA {
			sepA, iA = s, i
		}
	}
	sepB, iB := float32(-1e30), 0
	for j := 0; j < 3; j++ {
		s := abs32(tb[j]) - hb[j] - (ha[0]*absR[0][j] + ha[1]*absR[1][j] + ha[2]*absR[2][j])
		if s >= margin {
			return
		}
		if s > sepB {
			sepB, iB = s, j
		}
	}
	// Edge axes A_i x B_j, worked in A's frame where the axis is e_i x (column j of R).
	sepE, iE, jE := float32(-1e30), -1, -1
	for i := 0; i < 3; i++ {
		i1, i2 := next3[i], next3[i+1]
		for j := 0; j < 3; j++ {
			l2 := R[i1][j]*R[i1][j] + R[i2][j]*R[i2][j]
			if l2 < edgeParallelSq {
				continue
			}
			j1, j2 := next3[j], next3[j+1]
			proj := ta[i2]*R[i1][j] - ta[i1]*R[i2][j]
			rA := ha[i1]*absR[i2][j] + ha[i2]*absR[i1][j]
			rB := hb[j1]*absR[i][j2] + hb[j2]*absR[i][j1]
			s := (abs32(proj) - rA - rB) / sqrt32(l2)
			if s >= margin {
				return
			}
			if s > sepE {
				sepE, iE, jE = s, i, j
			}
		}
	}

	scale := min(max(ha[0], ha[1], ha[2]), max(hb[0], hb[1], hb[2]))
	best := sepA
	useB := sepB > sepA+preferFaceTol(sepA, scale)
	if useB {
		best = sepB
	}
	if iE >= 0 && sepE > best+preferFaceTol(best, scale) && boxEdgeContact(m, &fa, ha, iE, &fb, hb, jE, d, margin) {
		return
	}
	if useB {
		boxFaceContact(m, &fb, hb, iB, -sign32(tb[iB]), &fa, ha, true, margin)
	} else {
		boxFaceContact(m, &fa, ha, iA, sign32(ta[iA]), &fb, hb, false, margin)
	}
}

// next3[i] and next3[i+1] are the two axes after i, cyclically.
var next3 = [4]int{1, 2, 0, 1}

// boxFaceContact clips the incident box's face most opposed to the reference face (axis i of ref, side
// sg, facing the incident box) against the reference face and adds the (at most four) kept points.
// refIsB says the reference box is B, so the normal is reversed.
func boxFaceContact(m *Manifold, ref *frame, hr geom.Vec3, i int, sg float32, inc *frame, hi geom.Vec3, refIsB bool, margin float32) {
	nRef := ref.ax[i].Mul(sg)
	// Incident face: the one whose outward normal is most anti-parallel to nRef.
	k, dk := 0, nRef.Dot(inc.ax[0])
	for j := 1; j < 3; j++ {
		if dj := nRef.Dot(inc.ax[j]); abs32(dj) > abs32(dk) {
			k, dk = j, dj
		}
	}
	tau := -sign32(dk)
	k1, k2 := next3[k], next3[k+1]
	ctr := ref.toLocal(madd(inc.c, inc.ax[k], tau*hi[k]))
	eu := ref.dirToLocal(inc.ax[k1].Mul(hi[k1]))
	ev := ref.dirToLocal(inc.ax[k2].Mul(hi[k2]))

	i1, i2 := next3[i], next3[i+1]
	var poly, tmp [maxPoly]clipVert
	for c := 0; c < 4; c++ {
		su, sv := float32(1), float32(1) // corners in order ++, -+, --, +-
		if c == 1 || c == 2 {
			su = -1
		}
		if c >= 2 {
			sv = -1
		}
		x := madd(madd(ctr, eu, su), ev, sv)
		poly[c] = clipVert{u: x[i1], v: x[i2], w: sg*x[i] - hr[i], feat: uint8(c), edge: uint8(c)}
	}
	lu, lv := hr[i1], hr[i2]
	bu, bv := lu*clipSlack, lv*clipSlack
	n := clipSide(&poly, 4, &tmp, false, 1, lu, bu, 0)
	n = clipSide(&tmp, n, &poly, false, -1, lu, bu, 1)
	n = clipSide(&poly, n, &tmp, true, 1, lv, bv, 2)
	n = clipSide(&tmp, n, &poly, true, -1, lv, bv, 3)

	// Keep the points below the margin.
	cnt := 0
	for j := 0; j < n; j++ {
		if poly[j].w < margin {
			poly[cnt] = poly[j]
			cnt++
		}
	}
	if cnt == 0 {
		return
	}
	var keep [4]int
	cnt = reduce(&poly, cnt, &keep)

	base := uint32(faceIndex(i, sg))<<9 | uint32(faceIndex(k, tau))<<6
	if refIsB {
		base |= 1 << 12
		m.Normal = neg(nRef)
	} else {
		m.Normal = nRef
	}
	for j := 0; j < cnt; j++ {
		p := &poly[keep[j]]
		var l geom.Vec3
		l[i1], l[i2], l[i] = p.u, p.v, sg*(hr[i]+p.w/2)
		m.add(ref.toWorld(l), p.w, base|uint32(p.feat))
	}
}

// faceIndex numbers a box face: 2*axis, plus one on the negative side.
func faceIndex(axis int, sg float32) int {
	if sg < 0 {
		return 2*axis + 1
	}
	return 2 * axis
}

// boxEdgeContact adds the single point between edge axis iE of box A and edge axis jE of box B: the
// closest points of A's edge furthest along the axis and B's edge furthest against it. It reports false,
// adding nothing, when those edges do not cross as seen along the axis (their lines' closest points lie
// beyond an end): the edges are then not the touching features, which happens when the boxes are apart,
// and the caller falls back to the best face axis.
func boxEdgeContact(m *Manifold, fa *frame, ha geom.Vec3, iE int, fb *frame, hb geom.Vec3, jE int, d geom.Vec3, margin float32) bool {
	ua, ub := fa.ax[iE], fb.ax[jE]
	L := ua.Cross(ub)
	L = L.Mul(1 / sqrt32(L.Dot(L)))
	if L.Dot(d) < 0 {
		L = neg(L)
	}
	ca, cb := fa.c, fb.c
	var idA, idB uint32
	for k := 0; k < 3; k++ {
		if k != iE {
			sa := sign32(L.Dot(fa.ax[k]))
			ca = madd(ca, fa.ax[k], sa*ha[k])
			idA <<= 1
			if sa > 0 {
				idA |= 1
			}
		}
		if k != jE {
			sb := -sign32(L.Dot(fb.ax[k]))
			cb = madd(cb, fb.ax[k], sb*hb[k])
			idB <<= 1
			if sb > 0 {
				idB |= 1
			}
		}
	}
	// Closest points of the lines ca + s*ua and cb + t*ub (unit directions, not parallel).
	r := ca.Sub(cb)
	b := ua.Dot(ub)
	c, f := ua.Dot(r), ub.Dot(r)
	den := 1 - b*b
	s := (b*f - c) / den
	t := (f - b*c) / den
	const slack = 1 + 1e-3
	if abs32(s) > ha[iE]*slack || abs32(t) > hb[jE]*slack {
		return false
	}
	s, t = clamp32(s, -ha[iE], ha[iE]), clamp32(t, -hb[jE], hb[jE])
	p, q := madd(ca, ua, s), madd(cb, ub, t)
	sep := q.Sub(p).Dot(L)
	if sep < margin {
		m.Normal = L
		m.add(p.Add(q).Mul(0.5), sep, idBoxEdges|(uint32(iE)<<2|idA)<<4|uint32(jE)<<2|idB)
	}
	return true
}
