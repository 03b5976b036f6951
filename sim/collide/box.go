package collide

import (
	"tumble/sim/geom"
	"tumble/sim/internal/vecmath"
)

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

// Feature ids of box-box contacts. Face contacts: refIsB<<12 | refFace<<9 | incFace<<6 | clip feature
// (see clipVert), faces numbered as faceIndex does. Edge contacts: idBoxEdges | edgeA<<4 | edgeB, edges
// numbered axis<<2 | the sides of the other two axes.
const idBoxEdges = 1 << 13

// preferFaceTol is how much larger a separation must be to replace a face axis of separation sep.
func preferFaceTol(sep, scale float32) float32 {
	return preferFaceRel*vecmath.Abs(sep) + preferFaceAbs*scale
}

// next3[i] and next3[i+1] are the two axes after i, cyclically.
var next3 = [4]int{1, 2, 0, 1}

// faceIndex numbers a box face: 2*axis, plus one on the negative side.
func faceIndex(axis int, sg float32) int {
	if sg < 0 {
		return 2*axis + 1
	}
	return 2 * axis
}

// boxBox collides two boxes.
func boxBox(a *geom.Shape, pa *geom.Pose, b *geom.Shape, pb *geom.Pose, margin float32, m *Manifold) {
	// Bounding spheres first: most pairs the broad phase passes are not touching.
	ea, eb := vg(a.HalfExtents), vg(b.HalfExtents)
	if lim, c := vecmath.Sqrt(ea.Dot(ea))+vecmath.Sqrt(eb.Dot(eb))+margin, vg(pb.P).Sub(vg(pa.P)); c.Dot(c) > lim*lim {
		return
	}
	var fa, fb frame
	fa.set(pa)
	fb.set(pb)
	ha0, ha1, ha2 := a.HalfExtents[0], a.HalfExtents[1], a.HalfExtents[2]
	hb0, hb1, hb2 := b.HalfExtents[0], b.HalfExtents[1], b.HalfExtents[2]
	d := fb.c.Sub(fa.c)
	// rIJ = A_I . B_J, aIJ its magnitude; taI and tbJ: the centres' offset along A_I and B_J. All the
	// axes below are unrolled into scalars, which the compiler keeps in registers.
	r00 := fa.ax[0].Dot(fb.ax[0])
	r01 := fa.ax[0].Dot(fb.ax[1])
	r02 := fa.ax[0].Dot(fb.ax[2])
	r10 := fa.ax[1].Dot(fb.ax[0])
	r11 := fa.ax[1].Dot(fb.ax[1])
	r12 := fa.ax[1].Dot(fb.ax[2])
	r20 := fa.ax[2].Dot(fb.ax[0])
	r21 := fa.ax[2].Dot(fb.ax[1])
	r22 := fa.ax[2].Dot(fb.ax[2])
	a00, a01, a02 := vecmath.Abs(r00), vecmath.Abs(r01), vecmath.Abs(r02)
	a10, a11, a12 := vecmath.Abs(r10), vecmath.Abs(r11), vecmath.Abs(r12)
	a20, a21, a22 := vecmath.Abs(r20), vecmath.Abs(r21), vecmath.Abs(r22)
	ta0, ta1, ta2 := fa.ax[0].Dot(d), fa.ax[1].Dot(d), fa.ax[2].Dot(d)
	tb0, tb1, tb2 := fb.ax[0].Dot(d), fb.ax[1].Dot(d), fb.ax[2].Dot(d)

	// Face axes of A, then of B. Any axis separating by margin or more rules out every point.
	sepA, iA := float32(-1e30), 0
	for i, s := range [3]float32{
		vecmath.Abs(ta0) - ha0 - (hb0*a00 + hb1*a01 + hb2*a02),
		vecmath.Abs(ta1) - ha1 - (hb0*a10 + hb1*a11 + hb2*a12),
		vecmath.Abs(ta2) - ha2 - (hb0*a20 + hb1*a21 + hb2*a22),
	} {
		if s >= margin {
			return
		}
		if s > sepA {
			sepA, iA = s, i
		}
	}
	sepB, iB := float32(-1e30), 0
	for j, s := range [3]float32{
		vecmath.Abs(tb0) - hb0 - (ha0*a00 + ha1*a10 + ha2*a20),
		vecmath.Abs(tb1) - hb1 - (ha0*a01 + ha1*a11 + ha2*a21),
		vecmath.Abs(tb2) - hb2 - (ha0*a02 + ha1*a12 + ha2*a22),
	} {
		if s >= margin {
			return
		}
		if s > sepB {
			sepB, iB = s, j
		}
	}
	// Edge axes A_i x B_j, worked in A's frame where the axis is e_i x (column j of R): its length is
	// the sine of the angle between the edges, the projection of the offset is taI2*rI1J - taI1*rI2J,
	// and the boxes' radii along it come from the other two axes of each.
	sepE, iE, jE := float32(-1e30), -1, -1
	if l2 := r10*r10 + r20*r20; l2 >= edgeParallelSq { // A0 x B0
		s := (vecmath.Abs(ta2*r10-ta1*r20) - ha1*a20 - ha2*a10 - hb1*a02 - hb2*a01) / vecmath.Sqrt(l2)
		if s >= margin {
			return
		}
		if s > sepE {
			sepE, iE, jE = s, 0, 0
		}
	}
	if l2 := r11*r11 + r21*r21; l2 >= edgeParallelSq { // A0 x B1
		s := (vecmath.Abs(ta2*r11-ta1*r21) - ha1*a21 - ha2*a11 - hb2*a00 - hb0*a02) / vecmath.Sqrt(l2)
		if s >= margin {
			return
		}
		if s > sepE {
			sepE, iE, jE = s, 0, 1
		}
	}
	if l2 := r12*r12 + r22*r22; l2 >= edgeParallelSq { // A0 x B2
		s := (vecmath.Abs(ta2*r12-ta1*r22) - ha1*a22 - ha2*a12 - hb0*a01 - hb1*a00) / vecmath.Sqrt(l2)
		if s >= margin {
			return
		}
		if s > sepE {
			sepE, iE, jE = s, 0, 2
		}
	}
	if l2 := r20*r20 + r00*r00; l2 >= edgeParallelSq { // A1 x B0
		s := (vecmath.Abs(ta0*r20-ta2*r00) - ha2*a00 - ha0*a20 - hb1*a12 - hb2*a11) / vecmath.Sqrt(l2)
		if s >= margin {
			return
		}
		if s > sepE {
			sepE, iE, jE = s, 1, 0
		}
	}
	if l2 := r21*r21 + r01*r01; l2 >= edgeParallelSq { // A1 x B1
		s := (vecmath.Abs(ta0*r21-ta2*r01) - ha2*a01 - ha0*a21 - hb2*a10 - hb0*a12) / vecmath.Sqrt(l2)
		if s >= margin {
			return
		}
		if s > sepE {
			sepE, iE, jE = s, 1, 1
		}
	}
	if l2 := r22*r22 + r02*r02; l2 >= edgeParallelSq { // A1 x B2
		s := (vecmath.Abs(ta0*r22-ta2*r02) - ha2*a02 - ha0*a22 - hb0*a11 - hb1*a10) / vecmath.Sqrt(l2)
		if s >= margin {
			return
		}
		if s > sepE {
			sepE, iE, jE = s, 1, 2
		}
	}
	if l2 := r00*r00 + r10*r10; l2 >= edgeParallelSq { // A2 x B0
		s := (vecmath.Abs(ta1*r00-ta0*r10) - ha0*a10 - ha1*a00 - hb1*a22 - hb2*a21) / vecmath.Sqrt(l2)
		if s >= margin {
			return
		}
		if s > sepE {
			sepE, iE, jE = s, 2, 0
		}
	}
	if l2 := r01*r01 + r11*r11; l2 >= edgeParallelSq { // A2 x B1
		s := (vecmath.Abs(ta1*r01-ta0*r11) - ha0*a11 - ha1*a01 - hb2*a20 - hb0*a22) / vecmath.Sqrt(l2)
		if s >= margin {
			return
		}
		if s > sepE {
			sepE, iE, jE = s, 2, 1
		}
	}
	if l2 := r02*r02 + r12*r12; l2 >= edgeParallelSq { // A2 x B2
		s := (vecmath.Abs(ta1*r02-ta0*r12) - ha0*a12 - ha1*a02 - hb0*a21 - hb1*a20) / vecmath.Sqrt(l2)
		if s >= margin {
			return
		}
		if s > sepE {
			sepE, iE, jE = s, 2, 2
		}
	}

	ha, hb := vg(a.HalfExtents), vg(b.HalfExtents)
	scale := min(max(ha.X, ha.Y, ha.Z), max(hb.X, hb.Y, hb.Z))
	best := sepA
	useB := sepB > sepA+preferFaceTol(sepA, scale)
	if useB {
		best = sepB
	}
	if iE >= 0 && sepE > best+preferFaceTol(best, scale) && boxEdgeContact(m, &fa, ha, iE, &fb, hb, jE, d, sepE >= 0, margin) {
		return
	}
	// The preferred face, then, if the boxes are apart and none of its clipped points is within the
	// margin, the other box's best face (its clipped points may be).
	for try := 0; try < 2 && m.Count == 0; try++ {
		if useB {
			boxFaceContact(m, &fb, hb, iB, -vecmath.Sign(fb.ax[iB].Dot(d)), &fa, ha, true, margin)
		} else {
			boxFaceContact(m, &fa, ha, iA, vecmath.Sign(fa.ax[iA].Dot(d)), &fb, hb, false, margin)
		}
		useB = !useB
	}
}

// boxFaceContact clips the incident box's face most opposed to the reference face (axis i of ref, side
// sg, facing the incident box) against the reference face and adds the (at most four) kept points.
// refIsB says the reference box is B, so the normal is reversed.
func boxFaceContact(m *Manifold, ref *frame, hr vec, i int, sg float32, inc *frame, hi vec, refIsB bool, margin float32) {
	nRef := ref.ax[i].Scale(sg)
	// Incident face: the one whose outward normal is most anti-parallel to nRef.
	k, dk := 0, nRef.Dot(inc.ax[0])
	if dj := nRef.Dot(inc.ax[1]); vecmath.Abs(dj) > vecmath.Abs(dk) {
		k, dk = 1, dj
	}
	if dj := nRef.Dot(inc.ax[2]); vecmath.Abs(dj) > vecmath.Abs(dk) {
		k, dk = 2, dj
	}
	tau := -vecmath.Sign(dk)
	k1, k2 := next3[k], next3[k+1]
	ctr := ref.toLocal(inc.c.MAdd(inc.ax[k], tau*hi.Get(k)))
	eu := ref.dirToLocal(inc.ax[k1].Scale(hi.Get(k1)))
	ev := ref.dirToLocal(inc.ax[k2].Scale(hi.Get(k2)))

	// The incident face's corners in the reference face's coordinates, in order ++, -+, --, +-.
	i1, i2 := next3[i], next3[i+1]
	hri := hr.Get(i)
	var poly, tmp [maxPoly]clipVert
	corner := func(c int, x vec) {
		poly[c] = clipVert{u: x.Get(i1), v: x.Get(i2), w: sg*x.Get(i) - hri, feat: uint8(c), edge: uint8(c)}
	}
	corner(0, ctr.Add(eu).Add(ev))
	corner(1, ctr.Sub(eu).Add(ev))
	corner(2, ctr.Sub(eu).Sub(ev))
	corner(3, ctr.Add(eu).Sub(ev))

	lu, lv := hr.Get(i1), hr.Get(i2)
	bu, bv := lu*clipSlack, lv*clipSlack
	n, pts := clipFace(&poly, &tmp, 4, lu, lv, bu, bv)

	// Keep the points below the margin.
	cnt := 0
	for j := 0; j < n; j++ {
		if pts[j].w < margin {
			pts[cnt] = pts[j]
			cnt++
		}
	}
	if cnt == 0 {
		return
	}
	var keep [4]int
	cnt = reduce(pts, cnt, max(lu, lv), &keep)

	base := uint32(faceIndex(i, sg))<<9 | uint32(faceIndex(k, tau))<<6
	if refIsB {
		base |= 1 << 12
		m.setNormal(nRef.Neg())
	} else {
		m.setNormal(nRef)
	}
	for j := 0; j < cnt; j++ {
		p := &pts[keep[j]]
		l := vec{}.With(i1, p.u).With(i2, p.v).With(i, sg*(hri+p.w/2))
		m.addPoint(ref.toWorld(l), p.w, base|uint32(p.feat))
	}
}

// boxEdgeContact adds the single point between edge axis iE of box A and edge axis jE of box B: the
// closest points of A's edge furthest along the axis and B's edge furthest against it.
//
// When the boxes overlap and this is their least penetration axis, those edges cross as seen along the
// axis, up to rounding, which clamping absorbs. When the boxes are apart (apart is true) the best axis
// need not come from touching edges: if the edges' lines meet beyond an end, it reports false, adding
// nothing, and the caller falls back to the best face axis.
func boxEdgeContact(m *Manifold, fa *frame, ha vec, iE int, fb *frame, hb vec, jE int, d vec, apart bool, margin float32) bool {
	ua, ub := fa.ax[iE], fb.ax[jE]
	L := ua.Cross(ub)
	L = L.Scale(1 / vecmath.Sqrt(L.Dot(L)))
	if L.Dot(d) < 0 {
		L = L.Neg()
	}
	ca, cb := fa.c, fb.c
	var idA, idB uint32
	for k := 0; k < 3; k++ {
		if k != iE {
			sa := vecmath.Sign(L.Dot(fa.ax[k]))
			ca = ca.MAdd(fa.ax[k], sa*ha.Get(k))
			idA <<= 1
			if sa > 0 {
				idA |= 1
			}
		}
		if k != jE {
			sb := -vecmath.Sign(L.Dot(fb.ax[k]))
			cb = cb.MAdd(fb.ax[k], sb*hb.Get(k))
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
	hae, hbe := ha.Get(iE), hb.Get(jE)
	if apart && (vecmath.Abs(s) > hae*slack || vecmath.Abs(t) > hbe*slack) {
		return false
	}
	s, t = vecmath.Clamp(s, -hae, hae), vecmath.Clamp(t, -hbe, hbe)
	p, q := ca.MAdd(ua, s), cb.MAdd(ub, t)
	sep := q.Sub(p).Dot(L)
	if sep < margin {
		m.setNormal(L)
		m.addPoint(p.Add(q).Scale(0.5), sep, idBoxEdges|(uint32(iE)<<2|idA)<<4|uint32(jE)<<2|idB)
	}
	return true
}
