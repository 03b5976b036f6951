// mesh.cuh: static triangle meshes against the convex shapes the device runs (box, hull, sphere and
// capsule), sim/collide/mesh.go's CollideMesh ported with the same branches, tolerances, feature ids
// and order of floating-point operations (see collide.cuh). The mesh's BVH gives the triangles whose
// boxes meet the other shape's box in the mesh's frame, in the CPU's traversal order; each is then a
// one-sided convex polygon, and the triangles' contacts whose normals agree are merged into at most
// NC_MAX_MESH_MANIFOLDS manifolds of at most four points. Edges between two triangles that are flat
// or concave (TbMeshTri.active) give the triangle's normal instead of their own, as on the CPU.
//
// The Go code gathers the triangles first and then collides them in that order; here each is collided
// as the traversal meets it, which is the same order and needs no list.
#pragma once
#include "hull.cuh"
#include "shapebox.cuh"

// NC_MAX_MESH_MANIFOLDS is collide.MaxMeshManifolds: the most manifolds one shape gets against a mesh.
#define NC_MAX_MESH_MANIFOLDS 8
// NC_MESH_MERGE_COS is collide's mergeCos: the cosine above which a triangle's contact joins a
// manifold's normal.
#define NC_MESH_MERGE_COS 0.9994f
// NC_MESH_CLIP bounds a clipped polygon here: a hull face of at most NC_MAX_HULL_POINTS vertices
// clipped by a triangle's three sides, or a triangle by a face's sides, gains at most one vertex a
// side, so the Go code's maxClip cap is never reached and a smaller array gives the same result.
#define NC_MESH_CLIP (NC_MAX_HULL_POINTS + 8)
// NC_MESH_MAX_PTS bounds the points a pair gathers from its triangles before the manifolds are
// reduced (collide's ptsBuf, 256, is a slice that grows past it; this array does not: a pair that
// gathers more keeps the first ones, and the result differs from the CPU's). A box lying on a flat
// grid gathers three points a triangle under it, so this is about 170 triangles under one shape. The
// reduction's copy of a cluster's points shares the clipping arrays' space (NcMeshBuf), which the
// gathering is done with by then.
#define NC_MESH_MAX_PTS (2 * NC_MESH_CLIP)
// NC_MESH_SMALL_CLIP and NC_MESH_SMALL_PTS are the capacities a mesh pair is first collided with
// (tb_narrow_meshes, on the thread's stack): a box's face clipped by a triangle, or a triangle by a
// box's face, has at most 7 points, and a box on a terrain's few triangles gathers a few dozen. A pair
// that would need more is not finished there but flagged (NcMeshBuf.over) and collided again with
// NC_MESH_CLIP and NC_MESH_MAX_PTS (tb_narrow_meshes_wide). A pair that stays within them never met
// the larger caps either, so both give the same bits. The reduction's copy of a cluster (at most
// NC_MESH_SMALL_PTS points) fits the two clipping arrays' space.
#define NC_MESH_SMALL_CLIP 32
#define NC_MESH_SMALL_PTS (2 * NC_MESH_SMALL_CLIP)
// Feature codes of a point on a triangle: the face, vertex k (1+k), edge k from vertex k to k+1 (4+k).
#define NC_FEAT_FACE 0
#define NC_FEAT_VERT 1
#define NC_FEAT_EDGE 4

// NcMeshes is the mesh table the kernels are given (layout.cuh).
struct NcMeshes {
	const TbMesh *meshes;
	const TbMeshNode *nodes;
	const int *order;
	const TbMeshTri *tris;
	const float4 *normals;
	const float4 *verts;
};

// NcTri is collide's tri: one triangle in the mesh's frame.
struct NcTri {
	NcVec v[3];
	NcVec n;
	unsigned active;
	unsigned index;
};

// ncTriActive is tri.activeFeat: whether the triangle feature f may give its own normal.
TB_FN bool ncTriActive(const NcTri &t, int f) {
	if (f >= NC_FEAT_EDGE) {
		return (t.active & (1u << (f - NC_FEAT_EDGE))) != 0;
	}
	if (f >= NC_FEAT_VERT) {
		int k = f - NC_FEAT_VERT;
		return (t.active & (1u << k | 1u << ((k + 2) % 3))) != 0;
	}
	return true;
}

// NcMeshPt is collide's meshPt: a contact point in the mesh's frame and its manifold (cluster).
struct NcMeshPt {
	NcClipPt p;
	int cluster;
};

// NcMeshBuf is ncCollideMesh's working memory, kept apart so the caller places it: pts for the
// gathered points (ptsCap of them), clip and tmp the clipping arrays (clipCap points each) while the
// triangles are collided, then sel, ptsCap points for the reduction's copy of a cluster, which may
// share clip's and tmp's space. over is null where the caps are NC_MESH_MAX_PTS and NC_MESH_CLIP, the
// largest: a point past them is dropped, as it always has been there. Otherwise a point past a cap
// sets *over and the routine gives up, leaving the pair to be collided again with the largest caps.
struct NcMeshBuf {
	NcMeshPt *pts;
	NcClipPt *clip, *tmp, *sel;
	int ptsCap, clipCap;
	bool *over;
};

// ncMeshOver reports whether the routine gave up on w's caps.
TB_FN bool ncMeshOver(const NcMeshBuf &w) { return w.over && *w.over; }

// NcMeshCtx is collide's meshCtx: the clusters' normals and deepest separations, and the points (in
// w.pts).
struct NcMeshCtx {
	NcVec normals[NC_MAX_MESH_MANIFOLDS];
	float deepest[NC_MAX_MESH_MANIFOLDS];
	int nclus;
	NcMeshPt *pts;
	int npts;
	float margin, size;
	const NcMeshBuf *w;
};

// ncMeshAdd is meshCtx.add: a triangle's manifold (normal n, points pts[:n]) into the cluster of its
// normal.
TB_FN void ncMeshAdd(NcMeshCtx &c, NcVec n, const NcClipPt *pts, int cnt) {
	if (cnt == 0) {
		return;
	}
	int k = -1;
	for (int i = 0; i < c.nclus; i++) {
		if (ncDot(c.normals[i], n) > NC_MESH_MERGE_COS) {
			k = i;
			break;
		}
	}
	float deep = pts[0].sep;
	for (int i = 0; i < cnt; i++) {
		deep = fminf(deep, pts[i].sep);
	}
	if (k < 0) {
		if (c.nclus < NC_MAX_MESH_MANIFOLDS) {
			k = c.nclus++;
			c.normals[k] = n;
			c.deepest[k] = deep;
		} else {
			// Full: replace the shallowest cluster if this one is deeper, else drop it.
			int s = 0;
			for (int i = 1; i < c.nclus; i++) {
				if (c.deepest[i] > c.deepest[s]) {
					s = i;
				}
			}
			if (deep >= c.deepest[s]) {
				return;
			}
			int j = 0;
			for (int i = 0; i < c.npts; i++) {
				if (c.pts[i].cluster != s) {
					c.pts[j++] = c.pts[i];
				}
			}
			c.npts = j;
			k = s;
			c.normals[k] = n;
			c.deepest[k] = deep;
		}
	}
	c.deepest[k] = fminf(c.deepest[k], deep);
	for (int i = 0; i < cnt; i++) {
		if (c.npts == c.w->ptsCap) {
			if (c.w->over) {
				*c.w->over = true;
			}
			break;
		}
		c.pts[c.npts].p = pts[i];
		c.pts[c.npts].cluster = k;
		c.npts++;
	}
}

// ncMeshTri is meshTri: triangle i (the mesh's own number) of mesh entry e.
TB_FN NcTri ncMeshTri(const NcMeshes &ms, const TbMesh &e, int i) {
	TbMeshTri t = ms.tris[e.firstTri + i];
	const float4 *v = ms.verts + e.firstVert;
	float4 a = v[t.v0], b = v[t.v1], c = v[t.v2], n = ms.normals[e.firstTri + i];
	NcTri r;
	r.v[0] = ncVec(a.x, a.y, a.z);
	r.v[1] = ncVec(b.x, b.y, b.z);
	r.v[2] = ncVec(c.x, c.y, c.z);
	r.n = ncVec(n.x, n.y, n.z);
	r.active = t.active;
	r.index = (unsigned)i;
	return r;
}

// ncBoxesOverlap is geom's AABB.Overlaps.
TB_FN bool ncBoxesOverlap(const float *alo, const float *ahi, const TbBox &b) {
	return alo[0] <= b.hi[0] && b.lo[0] <= ahi[0] && alo[1] <= b.hi[1] && b.lo[1] <= ahi[1] && alo[2] <= b.hi[2] &&
	       b.lo[2] <= ahi[2];
}

// ncTriOverlaps is TriBox(t).Overlaps(box): the triangle's box against the query box.
TB_FN bool ncTriOverlaps(const NcTri &t, const TbBox &box) {
	float lo[3] = {fminf(fminf(t.v[0].x, t.v[1].x), t.v[2].x), fminf(fminf(t.v[0].y, t.v[1].y), t.v[2].y),
	               fminf(fminf(t.v[0].z, t.v[1].z), t.v[2].z)};
	float hi[3] = {fmaxf(fmaxf(t.v[0].x, t.v[1].x), t.v[2].x), fmaxf(fmaxf(t.v[0].y, t.v[1].y), t.v[2].y),
	               fmaxf(fmaxf(t.v[0].z, t.v[1].z), t.v[2].z)};
	return ncBoxesOverlap(lo, hi, box);
}

// NcLoop is a reference face's loop for ncClipToLoop: the triangle's vertices (tri), or face fi of
// B carried into the mesh's frame.
struct NcLoop {
	const NcVec *tri;
	const NcPoly *B;
	const NcBInA *x;
	int fi, n;
};

TB_FN NcVec ncLoopVert(const NcLoop &l, int k) {
	if (l.tri) {
		return l.tri[k];
	}
	return ncBVert(*l.x, *l.B, l.B->fv[l.B->faces[l.fi].first + k]);
}

// ncClipToLoop is clipToFace with the loop of l: the convex polygon w.clip[:n] clipped by the side
// planes of the loop (normal nrm), band the slack a vertex keeps its id in. It returns the count; *out
// is the array holding the result (w.clip or w.tmp). A point past w.clipCap with w.over set makes it
// set *w.over and return 0.
TB_FN int ncClipToLoop(const NcMeshBuf &w, int n, const NcLoop &loop, NcVec nrm, float band, NcClipPt **out) {
	NcClipPt *src = w.clip, *dst = w.tmp;
	*out = src;
	for (int k = 0; k < loop.n; k++) {
		if (n == 0) {
			break;
		}
		NcVec a = ncLoopVert(loop, k);
		NcVec b = ncLoopVert(loop, (k + 1) % loop.n);
		NcVec s = ncCross(ncSub(b, a), nrm); // outward side normal
		float l = sqrtf(ncDot(s, s));
		if (l == 0) {
			continue;
		}
		s = ncScale(s, 1 / l);
		float lim = ncDot(s, a);
		int cnt = 0;
		for (int i = 0; i < n; i++) {
			const NcClipPt &p = src[i], &q = src[(i + 1) % n];
			float dp = ncDot(s, p.p) - lim, dq = ncDot(s, q.p) - lim;
			if (dp <= band) {
				if (cnt == w.clipCap && w.over) {
					*w.over = true;
					return 0;
				}
				if (cnt < w.clipCap) {
					dst[cnt++] = p;
				}
			}
			if ((dp <= band) != (dq <= band) && (dp < 0) != (dq < 0)) {
				float u = dp / (dp - dq);
				if (cnt == w.clipCap && w.over) {
					*w.over = true;
					return 0;
				}
				if (cnt < w.clipCap) {
					NcClipPt c;
					c.p = ncAdd(p.p, ncScale(ncSub(q.p, p.p), u));
					c.sep = 0;
					c.feat = 1u << 31 | (unsigned)k << 16 | ((p.feat * 31u + q.feat) & 0xffffu);
					dst[cnt++] = c;
				}
			}
		}
		n = cnt;
		NcClipPt *sw = src;
		src = dst;
		dst = sw;
	}
	*out = src;
	return n;
}

// ncMeshPolyTri is meshCtx.polyTri: the separating axis test between triangle tr and polyhedron B (in
// the mesh's frame through x), and the contact it gives. The clipping arrays are c.w's.
TB_FN void ncMeshPolyTri(NcMeshCtx &c, const NcTri &tr, const NcPoly &B, const NcBInA &x) {
	float margin = c.margin;
	const NcMeshBuf &w = *c.w;
	NcClipPt *pts = w.clip;
	// The triangle's face: the deepest vertex of B below it.
	float d0 = ncDot(tr.n, tr.v[0]);
	float sepT = 1e30f;
	for (int i = 0; i < B.nv; i++) {
		sepT = fminf(sepT, ncDot(tr.n, ncBVert(x, B, i)));
	}
	sepT -= d0;
	if (sepT >= margin) {
		return;
	}
	// B's faces: the deepest triangle vertex below each.
	float sepB = -1e30f;
	int iB = -1;
	for (int i = 0; i < B.nf; i++) {
		NcVec n = ncBNormal(x, B, i);
		float off = B.faces[i].offset + ncDot(n, x.t);
		float s = fminf(fminf(ncDot(n, tr.v[0]), ncDot(n, tr.v[1])), ncDot(n, tr.v[2])) - off;
		if (s >= margin) {
			return;
		}
		if (s > sepB) {
			sepB = s;
			iB = i;
		}
	}
	// Edge pairs that make a face of the Minkowski difference: the triangle's edge j is the half
	// circle from n to -n through its outward side u on the Gauss map, B's edge the arc between its
	// negated face normals.
	float sepE = -1e30f;
	int eT = -1, eB = -1;
	NcVec axisE = ncVec(0, 0, 0);
	for (int j = 0; j < 3; j++) {
		NcVec q0 = tr.v[j];
		NcVec dq = ncSub(tr.v[(j + 1) % 3], q0);
		NcVec u = ncCross(dq, tr.n); // outward, in the triangle's plane
		for (int i = 0; i < B.ne; i++) {
			const TbHullEdge &eb = B.edges[i];
			NcVec p0 = ncBVert(x, B, eb.v0);
			NcVec dp = ncSub(ncBVert(x, B, eb.v1), p0);
			NcVec l = ncCross(dq, dp);
			float l2 = ncDot(l, l);
			if (l2 <= NC_EDGE_PARALLEL_SQ * ncDot(dq, dq) * ncDot(dp, dp)) {
				continue;
			}
			if (ncDot(l, u) < 0) {
				l = ncNeg(l);
			}
			NcVec cc = ncNeg(ncBNormal(x, B, eb.f0)), dd = ncNeg(ncBNormal(x, B, eb.f1));
			NcVec cd = ncCross(cc, dd);
			if (ncDot(ncCross(cc, l), cd) < 0 || ncDot(ncCross(l, dd), cd) < 0) {
				continue;
			}
			l = ncScale(l, 1 / sqrtf(l2));
			float s = ncDot(l, p0) - ncDot(l, q0);
			if (s >= margin) {
				return;
			}
			if (s > sepE) {
				sepE = s;
				eT = j;
				eB = i;
				axisE = l;
			}
		}
	}

	float scale = B.radius;
	int mode = 0; // 0: the triangle's face, 1: B's face, 2: edges
	float best = sepT;
	if (iB >= 0 && sepB > sepT + ncPreferFaceTol(sepT, scale)) {
		mode = 1;
		best = sepB;
	}
	if (eT >= 0 && sepE > best + ncPreferFaceTol(best, scale)) {
		mode = 2;
	}
	// Internal edges: the triangle feature that gives the normal must be active.
	if (mode == 1) {
		NcVec n = ncBNormal(x, B, iB);
		float ds[3] = {ncDot(n, tr.v[0]), ncDot(n, tr.v[1]), ncDot(n, tr.v[2])};
		float lo = fminf(fminf(ds[0], ds[1]), ds[2]);
		float tol = 1e-3f * scale;
		bool on[3];
		int cnt = 0;
		for (int k = 0; k < 3; k++) {
			on[k] = ds[k] <= lo + tol;
			if (on[k]) {
				cnt++;
			}
		}
		int feat = NC_FEAT_FACE;
		if (cnt == 1) {
			for (int k = 0; k < 3; k++) {
				if (on[k]) {
					feat = NC_FEAT_VERT + k;
				}
			}
		} else if (cnt == 2) {
			for (int k = 0; k < 3; k++) {
				if (on[k] && on[(k + 1) % 3]) {
					feat = NC_FEAT_EDGE + k;
				}
			}
		}
		if (!ncTriActive(tr, feat)) {
			mode = 0;
		}
	} else if (mode == 2) {
		if (!ncTriActive(tr, NC_FEAT_EDGE + eT)) {
			mode = 0;
		}
	}

	if (mode == 2) {
		NcVec q0 = tr.v[eT];
		NcVec dq = ncSub(tr.v[(eT + 1) % 3], q0);
		const TbHullEdge &eb = B.edges[eB];
		NcVec p0 = ncBVert(x, B, eb.v0);
		NcVec dp = ncSub(ncBVert(x, B, eb.v1), p0);
		float s, u;
		ncClosestSegments(q0, dq, p0, dp, &s, &u);
		NcVec pq = ncMadd(q0, dq, s), pp = ncMadd(p0, dp, u);
		NcClipPt k;
		k.p = ncScale(ncAdd(pq, pp), 0.5f);
		k.sep = sepE;
		k.feat = ncMix(ncMix(ncMix(ncMix(NC_MIX_SEED, 2u), tr.index), (unsigned)eT), (unsigned)eB);
		ncMeshAdd(c, axisE, &k, 1);
		return;
	}
	NcLoop loop;
	NcClipPt *res;
	if (mode == 0) {
		// Reference: the triangle; incident: B's face most against its normal.
		int inc = ncIncidentFace(B, x, true, tr.n);
		const TbHullFace &g = B.faces[inc];
		if (g.count > w.clipCap && w.over) {
			*w.over = true;
			return;
		}
		for (int k = 0; k < g.count; k++) {
			int vi = B.fv[g.first + k];
			pts[k].p = ncBVert(x, B, vi);
			pts[k].sep = 0;
			pts[k].feat = (unsigned)vi;
		}
		loop.tri = tr.v;
		loop.n = 3;
		int cnt = ncClipToLoop(w, g.count, loop, tr.n, 1e-3f * scale, &res);
		// The kept points are compacted into res in place: a point is read before its slot is written.
		int k = 0;
		for (int i = 0; i < cnt; i++) {
			NcClipPt p = res[i];
			p.sep = ncDot(tr.n, p.p) - d0;
			if (p.sep < margin) {
				p.feat = ncMix(ncMix(ncMix(ncMix(NC_MIX_SEED, 0u), tr.index), (unsigned)inc), p.feat);
				p.p = ncMadd(p.p, tr.n, -p.sep / 2);
				res[k++] = p;
			}
		}
		ncMeshAdd(c, tr.n, res, k);
		return;
	}
	// Reference: B's face iB; incident: the triangle.
	NcVec n = ncBNormal(x, B, iB);
	float off = B.faces[iB].offset + ncDot(n, x.t);
	for (int k = 0; k < 3; k++) {
		pts[k].p = tr.v[k];
		pts[k].sep = 0;
		pts[k].feat = (unsigned)k;
	}
	loop.tri = 0;
	loop.B = &B;
	loop.x = &x;
	loop.fi = iB;
	loop.n = B.faces[iB].count;
	int cnt = ncClipToLoop(w, 3, loop, n, 1e-3f * scale, &res);
	int k = 0;
	for (int i = 0; i < cnt; i++) {
		NcClipPt p = res[i];
		p.sep = ncDot(n, p.p) - off;
		if (p.sep < margin) {
			p.feat = ncMix(ncMix(ncMix(ncMix(NC_MIX_SEED, 1u), tr.index), (unsigned)iB), p.feat);
			p.p = ncMadd(p.p, n, -p.sep / 2);
			res[k++] = p;
		}
	}
	ncMeshAdd(c, ncNeg(n), res, k);
}

// ncClosestOnTri is closestOnTri: the point of triangle tr nearest q and the feature it lies on
// (Ericson, Real-Time Collision Detection, 5.1.5).
TB_FN NcVec ncClosestOnTri(const NcTri &tr, NcVec q, int *feat) {
	NcVec a = tr.v[0], b = tr.v[1], cc = tr.v[2];
	NcVec ab = ncSub(b, a), ac = ncSub(cc, a), ap = ncSub(q, a);
	float d1 = ncDot(ab, ap), d2 = ncDot(ac, ap);
	if (d1 <= 0 && d2 <= 0) {
		*feat = NC_FEAT_VERT;
		return a;
	}
	NcVec bp = ncSub(q, b);
	float d3 = ncDot(ab, bp), d4 = ncDot(ac, bp);
	if (d3 >= 0 && d4 <= d3) {
		*feat = NC_FEAT_VERT + 1;
		return b;
	}
	float vc = d1 * d4 - d3 * d2;
	if (vc <= 0 && d1 >= 0 && d3 <= 0) {
		*feat = NC_FEAT_EDGE;
		return ncMadd(a, ab, d1 / (d1 - d3));
	}
	NcVec cp = ncSub(q, cc);
	float d5 = ncDot(ab, cp), d6 = ncDot(ac, cp);
	if (d6 >= 0 && d5 <= d6) {
		*feat = NC_FEAT_VERT + 2;
		return cc;
	}
	float vb = d5 * d2 - d1 * d6;
	if (vb <= 0 && d2 >= 0 && d6 <= 0) {
		*feat = NC_FEAT_EDGE + 2;
		return ncMadd(a, ac, d2 / (d2 - d6));
	}
	float va = d3 * d6 - d5 * d4;
	if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
		*feat = NC_FEAT_EDGE + 1;
		return ncMadd(b, ncSub(cc, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
	}
	float den = 1 / (va + vb + vc);
	*feat = NC_FEAT_FACE;
	return ncMadd(ncMadd(a, ab, vb * den), ac, vc * den);
}

// ncMeshRound is meshCtx.roundContact: the contact of a core point p (radius r) nearest the triangle
// at q on feature f, along p - q, or along the triangle's normal when f is the face, an inactive edge
// or vertex, or p lies on the triangle.
TB_FN void ncMeshRound(NcMeshCtx &c, const NcTri &tr, NcVec p, NcVec q, int f, float r, unsigned id) {
	NcVec d = ncSub(p, q);
	float dist = sqrtf(ncDot(d, d));
	if (dist - r >= c.margin) {
		return;
	}
	NcVec n = tr.n;
	float sep = dist - r;
	if (f == NC_FEAT_FACE || !ncTriActive(tr, f) || dist < 1e-6f) {
		sep = fminf(sep, ncDot(n, ncSub(p, tr.v[0])) - r);
	} else {
		n = ncScale(d, 1 / dist);
	}
	NcClipPt k;
	k.p = ncMadd(p, n, -(r + sep / 2));
	k.sep = sep;
	k.feat = id;
	ncMeshAdd(c, n, &k, 1);
}

// ncMeshSphereTri is sphereTri: a sphere (centre p, radius r) against triangle tr.
TB_FN void ncMeshSphereTri(NcMeshCtx &c, const NcTri &tr, NcVec p, float r) {
	int f;
	NcVec q = ncClosestOnTri(tr, p, &f);
	ncMeshRound(c, tr, p, q, f, r, ncMix(ncMix(ncMix(NC_MIX_SEED, 3u), tr.index), (unsigned)f));
}

// ncMeshCapsuleTri is capsuleTri: a capsule (core p0-p1, radius r) against triangle tr: two points
// along the triangle's normal where the core lies almost parallel to it over its face, else the one
// pair of closest points.
TB_FN void ncMeshCapsuleTri(NcMeshCtx &c, const NcTri &tr, NcVec p0, NcVec p1, float r) {
	NcVec d = ncSub(p1, p0);
	float l2 = ncDot(d, d);
	NcVec n = tr.n;
	float dn = ncDot(n, d);
	if (dn * dn < 0.01f * l2) {
		// Clip the core to the triangle's prism.
		float s0 = 0, s1 = 1;
		for (int k = 0; k < 3; k++) {
			NcVec a = tr.v[k], b = tr.v[(k + 1) % 3];
			NcVec side = ncCross(ncSub(b, a), n); // outward
			float h0 = ncDot(side, ncSub(p0, a));
			float hd = ncDot(side, d);
			if (hd == 0) {
				if (h0 > 0) {
					s0 = 1;
					s1 = 0;
				}
				continue;
			}
			float s = -h0 / hd;
			if (hd > 0) {
				s1 = fminf(s1, s);
			} else {
				s0 = fmaxf(s0, s);
			}
		}
		if (s0 < s1 && (s1 - s0) * (s1 - s0) * l2 > 1e-6f * r * r) {
			float d0 = ncDot(n, tr.v[0]);
			NcClipPt pts[2];
			int k = 0;
			float ss[2] = {s0, s1};
			for (int j = 0; j < 2; j++) {
				NcVec p = ncMadd(p0, d, ss[j]);
				float sep = ncDot(n, p) - d0 - r;
				if (sep < c.margin) {
					pts[k].p = ncMadd(p, n, -(r + sep / 2));
					pts[k].sep = sep;
					pts[k].feat = ncMix(ncMix(ncMix(NC_MIX_SEED, 4u), tr.index), (unsigned)j);
					k++;
				}
			}
			ncMeshAdd(c, n, pts, k);
			return;
		}
	}
	// The closest pair: the core's ends against the triangle, the core against the triangle's edges,
	// or the core crossing the triangle.
	float bestD = 1e30f;
	NcVec bp = ncVec(0, 0, 0), bq = bp;
	int bf = NC_FEAT_FACE;
	NcVec ends[2] = {p0, p1};
	for (int j = 0; j < 2; j++) {
		int f;
		NcVec q = ncClosestOnTri(tr, ends[j], &f);
		NcVec dd = ncSub(ends[j], q);
		if (ncDot(dd, dd) < bestD) {
			bestD = ncDot(dd, dd);
			bp = ends[j];
			bq = q;
			bf = f;
		}
	}
	for (int k = 0; k < 3; k++) {
		NcVec a = tr.v[k];
		NcVec e = ncSub(tr.v[(k + 1) % 3], a);
		float s, u;
		ncClosestSegments(p0, d, a, e, &s, &u);
		NcVec p = ncMadd(p0, d, s), q = ncMadd(a, e, u);
		NcVec dd = ncSub(p, q);
		if (ncDot(dd, dd) < bestD) {
			bestD = ncDot(dd, dd);
			bp = p;
			bq = q;
			bf = NC_FEAT_EDGE + k;
		}
	}
	float h0 = ncDot(n, ncSub(p0, tr.v[0])), h1 = ncDot(n, ncSub(p1, tr.v[0]));
	if ((h0 < 0) != (h1 < 0)) {
		float s = h0 / (h0 - h1);
		NcVec xp = ncMadd(p0, d, s);
		int f;
		NcVec q = ncClosestOnTri(tr, xp, &f);
		if (f == NC_FEAT_FACE && ncDot(ncSub(xp, q), ncSub(xp, q)) < 1e-12f) {
			// The core pierces the face: push out the end below it.
			bp = p1;
			bq = xp;
			bf = NC_FEAT_FACE;
			if (h0 < h1) {
				bp = p0;
			}
		}
	}
	ncMeshRound(c, tr, bp, bq, bf, r, ncMix(ncMix(ncMix(NC_MIX_SEED, 5u), tr.index), (unsigned)bf));
}

// ncQuatMulConj is pa.Q.Conjugate().Mul(pb.Q) as mathgl computes it: b's rotation in a's frame.
TB_FN float4 ncQuatMulConj(const NcPose &pa, const NcPose &pb) {
	float x1 = -pa.qx, y1 = -pa.qy, z1 = -pa.qz, w1 = pa.qw;
	float x2 = pb.qx, y2 = pb.qy, z2 = pb.qz, w2 = pb.qw;
	float w = w1 * w2 - (x1 * x2 + y1 * y2 + z1 * z2);
	float cx = y1 * z2 - z1 * y2, cy = z1 * x2 - x1 * z2, cz = x1 * y2 - y1 * x2;
	return make_float4(cx + x2 * w1 + x1 * w2, cy + y2 * w1 + y1 * w2, cz + z2 * w1 + z1 * w2, w);
}

// ncCollideMesh is CollideMesh: static mesh a (shape sa, pose pa) against convex shape b (box, hull,
// sphere or capsule) at pose pb, its manifolds written to out[0:n] with normals from a to b; it returns
// n (at most NC_MAX_MESH_MANIFOLDS). Points whose separation is below margin are kept. Where it gives
// up on w's caps (*w.over set on return), it returns 0 and out is not written.
TB_FN int ncCollideMesh(const NcMeshes &ms, const NcHulls &hs, const TbShape &sa, const NcPose &pa,
                        const TbShape &sb, const NcPose &pb, float margin, const NcMeshBuf &w, TbContact *out) {
	if (sb.kind != TB_BOX && sb.kind != TB_HULL && sb.kind != TB_SPHERE && sb.kind != TB_CAPSULE) {
		return 0;
	}
	NcFrame fa = ncMakeFrame(pa);
	NcVec t = ncToLocal(fa, pb.p);
	TbBox box = tbShapeBox(sb, make_float4(t.x, t.y, t.z, 0), ncQuatMulConj(pa, pb), hs.hulls, hs.verts);
	for (int k = 0; k < 3; k++) {
		box.lo[k] -= margin;
		box.hi[k] += margin;
	}
	NcFrame fb = ncMakeFrame(pb);
	NcBInA x;
	x.t = ncToLocal(fa, fb.c);
	for (int k = 0; k < 3; k++) {
		x.rb[k] = ncDirToLocal(fa, fb.ax[k]);
	}
	NcMeshCtx c;
	c.w = &w;
	c.pts = w.pts;
	c.nclus = 0;
	c.npts = 0;
	c.margin = margin;
	c.size = 0;
	float4 va[8];
	TbHullFace fv[6];
	NcPoly B;
	NcVec p0 = x.t, p1 = x.t;
	switch (sb.kind) {
	case TB_BOX:
	case TB_HULL:
		B = ncShapePoly(hs, sb, va, fv);
		c.size = B.radius;
		break;
	case TB_SPHERE:
		c.size = sb.a;
		break;
	case TB_CAPSULE: {
		c.size = sb.a + sb.b;
		NcVec axis = ncScale(x.rb[1], sb.b);
		p0 = ncSub(x.t, axis);
		p1 = ncAdd(x.t, axis);
		break;
	}
	}
	// The mid-phase, geom.Mesh.Query: the BVH's leaves whose boxes meet the query box, depth first,
	// an inner node's first child before its second.
	TbMesh e = ms.meshes[sa.hull];
	const TbMeshNode *nodes = ms.nodes + e.firstNode;
	const int *order = ms.order + e.firstOrder;
	int stack[64];
	int sp = 0, i = 0;
	for (;;) {
		const TbMeshNode &nd = nodes[i];
		if (ncBoxesOverlap(nd.lo, nd.hi, box)) {
			if (nd.count > 0) {
				for (int j = nd.first; j < nd.first + nd.count; j++) {
					NcTri tr = ncMeshTri(ms, e, order[j]);
					if (!ncTriOverlaps(tr, box)) {
						continue;
					}
					// One-sided: a shape whose centre is behind the triangle's plane ignores it.
					if (ncDot(tr.n, ncSub(x.t, tr.v[0])) < 0) {
						continue;
					}
					switch (sb.kind) {
					case TB_BOX:
					case TB_HULL:
						ncMeshPolyTri(c, tr, B, x);
						break;
					case TB_SPHERE:
						ncMeshSphereTri(c, tr, x.t, sb.a);
						break;
					case TB_CAPSULE:
						ncMeshCapsuleTri(c, tr, p0, p1, sb.a);
						break;
					}
					if (ncMeshOver(w)) {
						return 0;
					}
				}
			} else {
				stack[sp++] = nd.first;
				i++;
				continue;
			}
		}
		if (sp == 0) {
			break;
		}
		i = stack[--sp];
	}
	// One manifold per cluster, its points reduced to four.
	int n = 0;
	for (int k = 0; k < c.nclus; k++) {
		int ns = 0;
		for (int j = 0; j < c.npts; j++) {
			if (c.pts[j].cluster == k) {
				w.sel[ns++] = c.pts[j].p;
			}
		}
		if (ns == 0) {
			continue;
		}
		int keep[4];
		int nk = ncReducePts(w.sel, ns, c.normals[k], c.size, NC_TOUCH_BAND * c.margin, keep);
		TbContact *m = &out[n++];
		m->count = 0;
		ncSetNormal(m, c.normals[k]);
		for (int j = 0; j < nk; j++) {
			const NcClipPt &p = w.sel[keep[j]];
			ncAddPoint(m, p.p, p.sep, p.feat);
		}
		ncManifoldToWorld(m, fa);
	}
	return n;
}
