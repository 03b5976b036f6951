// hull.cuh: convex hulls against every kind, sim/collide/hull.go ported to device code with the same
// branches, tolerances, feature ids and order of floating-point operations (see collide.cuh). Hull
// against hull and box is the separating axis test over both polyhedra's face normals and the edge
// pairs that cross on the Gauss map; a face axis clips the incident face against the reference face's
// side planes and keeps at most four points, an edge axis gives one point between the edges.
//
// A polyhedron is read through NcPoly: a hull's entry of the hull table, or a box's vertices and faces
// made on the stack from the unit cube's entry, as collide's boxPoly makes them. Where the Go code keeps
// B's vertices and face normals in A's frame in arrays, they are computed again at each use: the same
// operations give the same bits, and the thread's stack stays small.
#pragma once
#include "collide.cuh"

// NC_MAX_HULL_POINTS is geom.MaxHullPoints; NC_MAX_CLIP bounds the clipped polygon (collide's maxClip).
#define NC_MAX_HULL_POINTS 256
#define NC_MAX_CLIP (2 * NC_MAX_HULL_POINTS)
// NC_HULL_SMALL_CLIP is the capacity of the clipping arrays a hull pair is first tried with
// (tb_narrow_hulls keeps them on the thread's stack). A pair whose incident face, clipped polygon or
// kept plane points would need more is not finished there but flagged (NcClipBuf.over) and collided
// again with NC_MAX_CLIP-point arrays (tb_narrow_hulls_wide). A pair that stays within it never met
// collide's maxClip cap either (32 < 512), so both give the CPU's result to the bit. A triangle clipped
// by a triangle has at most 6 vertices, a quad by a quad 8, so rocks and boxes stay far below it.
#define NC_HULL_SMALL_CLIP 32

#define NC_HULL_DEPTH_TOL 1e-3f
#define NC_HULL_AREA_TOL 1e-3f
#define NC_TOUCH_BAND 0.25f
#define NC_LYING_SIN 0.03f

// NcHulls is the hull table the kernels are given (layout.cuh).
struct NcHulls {
	const TbHull *hulls;
	const float4 *verts;
	const TbHullFace *faces;
	const int *loops;
	const TbHullEdge *edges;
};

// NcPoly is collide's poly: a convex polyhedron's vertices, faces, face loops and edges, and its radius.
struct NcPoly {
	const float4 *verts;
	int nv;
	const TbHullFace *faces;
	int nf;
	const int *fv;
	const TbHullEdge *edges;
	int ne;
	float radius;
};

TB_FN NcPoly ncHullPoly(const NcHulls &hs, int i) {
	TbHull h = hs.hulls[i];
	NcPoly p;
	p.verts = hs.verts + h.firstVert;
	p.nv = h.numVerts;
	p.faces = hs.faces + h.firstFace;
	p.nf = h.numFaces;
	p.fv = hs.loops + h.firstLoop;
	p.edges = hs.edges + h.firstEdge;
	p.ne = h.numEdges;
	p.radius = h.radius;
	return p;
}

// ncBoxPoly is boxPoly: the box of half extents h with the unit cube's topology, its vertices and
// faces written to verts and faces.
TB_FN NcPoly ncBoxPoly(const NcHulls &hs, NcVec h, float4 *verts, TbHullFace *faces) {
	NcPoly u = ncHullPoly(hs, TB_UNIT_BOX_HULL);
	for (int i = 0; i < 8; i++) {
		float4 v = u.verts[i];
		verts[i] = make_float4(v.x * h.x, v.y * h.y, v.z * h.z, 0);
	}
	for (int i = 0; i < 6; i++) {
		TbHullFace f = u.faces[i];
		f.offset = ncAbs(f.nx) * h.x + ncAbs(f.ny) * h.y + ncAbs(f.nz) * h.z;
		faces[i] = f;
	}
	NcPoly p = u;
	p.verts = verts;
	p.faces = faces;
	p.radius = sqrtf(h.x * h.x + h.y * h.y + h.z * h.z);
	return p;
}

// ncShapePoly is shapePoly: the polyhedron of a box or hull shape.
TB_FN NcPoly ncShapePoly(const NcHulls &hs, const TbShape &s, float4 *verts, TbHullFace *faces) {
	if (s.kind == TB_BOX) {
		return ncBoxPoly(hs, ncVec(s.a, s.b, s.c), verts, faces);
	}
	return ncHullPoly(hs, s.hull);
}

TB_FN NcVec ncPolyVert(const NcPoly &p, int i) {
	float4 v = p.verts[i];
	return ncVec(v.x, v.y, v.z);
}
TB_FN NcVec ncFaceNormal(const TbHullFace &f) { return ncVec(f.nx, f.ny, f.nz); }

// ncMix is one word of mix32 (FNV-1a over the words' bytes) folded into h; NC_MIX_SEED starts it.
#define NC_MIX_SEED 2166136261u
TB_FN unsigned ncMix(unsigned h, unsigned x) {
	for (int k = 0; k < 4; k++) {
		h ^= (x >> (8 * k)) & 0xffu;
		h *= 16777619u;
	}
	return h;
}

// NcBInA is B's pose in A's frame: its origin t and the columns rb of its rotation (hullHull's bToA
// and dirBToA).
struct NcBInA {
	NcVec t;
	NcVec rb[3];
};
TB_FN NcVec ncBPoint(const NcBInA &x, NcVec v) {
	return ncMadd(ncMadd(ncMadd(x.t, x.rb[0], v.x), x.rb[1], v.y), x.rb[2], v.z);
}
TB_FN NcVec ncBDir(const NcBInA &x, NcVec v) { return ncMadd(ncMadd(ncScale(x.rb[0], v.x), x.rb[1], v.y), x.rb[2], v.z); }
TB_FN NcVec ncBVert(const NcBInA &x, const NcPoly &B, int i) { return ncBPoint(x, ncPolyVert(B, i)); }
TB_FN NcVec ncBNormal(const NcBInA &x, const NcPoly &B, int i) { return ncBDir(x, ncFaceNormal(B.faces[i])); }

// NcClipPt is collide's clipPt: a vertex of the clipped incident polygon (A's frame), its separation
// from the reference face and the feature that made it.
struct NcClipPt {
	NcVec p;
	float sep;
	unsigned feat;
};

// NcClipBuf is the working memory of the hull routines' clipping: two arrays of cap points each (the
// incident polygon and the other side of Sutherland-Hodgman's ping-pong; the plane routine uses the
// first for its points). over is null where cap is NC_MAX_CLIP, which is collide's own cap: a point
// past it is dropped, as collide drops it. Otherwise a point past cap sets *over and the routine gives
// up, leaving the manifold to be made again with arrays of NC_MAX_CLIP.
struct NcClipBuf {
	NcClipPt *poly, *tmp;
	int cap;
	bool *over;
};

// ncReducePts is reducePts: at most four of p[:n] to keep (indices in keep), touching points first.
TB_FN int ncReducePts(const NcClipPt *p, int n, NcVec nrm, float size, float band, int *keep) {
	if (n <= 4) {
		for (int i = 0; i < n; i++) {
			keep[i] = i;
		}
		return n;
	}
	int i0 = 0;
	for (int i = 0; i < n; i++) {
		if (p[i].sep < p[i0].sep - NC_HULL_DEPTH_TOL * size) {
			i0 = i;
		}
	}
	float touching = p[i0].sep + band;
	float areaTol = NC_HULL_AREA_TOL * size * size;
	int i1 = -1, i2 = -1, i3 = -1;
	for (int round = 0; round < 2; round++) {
		bool all = round == 1;
		if (i1 < 0) {
			float best = -1;
			for (int i = 0; i < n; i++) {
				NcVec d = ncSub(p[i].p, p[i0].p);
				float l = ncDot(d, d);
				if (i != i0 && (all || p[i].sep <= touching) && l > best + areaTol) {
					i1 = i;
					best = l;
				}
			}
			if (i1 < 0) {
				continue;
			}
		}
		NcVec a = p[i0].p, b = p[i1].p;
		float hi = 0, lo = 0;
		if (i2 >= 0) {
			hi = ncDot(ncCross(ncSub(b, a), ncSub(p[i2].p, a)), nrm);
		}
		if (i3 >= 0) {
			lo = ncDot(ncCross(ncSub(b, a), ncSub(p[i3].p, a)), nrm);
		}
		for (int i = 0; i < n; i++) {
			if (i == i0 || i == i1 || !(all || p[i].sep <= touching)) {
				continue;
			}
			float ar = ncDot(ncCross(ncSub(b, a), ncSub(p[i].p, a)), nrm);
			// A slot a touching point filled keeps it: the second round only fills empty ones.
			if (ar > hi + areaTol && (!all || i2 < 0 || p[i2].sep > touching)) {
				i2 = i;
				hi = ar;
			}
			if (ar < lo - areaTol && (!all || i3 < 0 || p[i3].sep > touching)) {
				i3 = i;
				lo = ar;
			}
		}
	}
	keep[0] = i0;
	keep[1] = i1;
	int c = 2;
	if (i2 >= 0) {
		keep[c++] = i2;
	}
	if (i3 >= 0) {
		keep[c++] = i3;
	}
	return c;
}

// ncRefVert is vertex k of the reference face's loop, in A's frame: a vertex of A's face fi, or of
// B's face fi carried into A's frame when refIsB.
TB_FN NcVec ncRefVert(const NcPoly &A, const NcPoly &B, const NcBInA &x, bool refIsB, int fi, int k) {
	if (!refIsB) {
		const TbHullFace &f = A.faces[fi];
		return ncPolyVert(A, A.fv[f.first + k]);
	}
	const TbHullFace &f = B.faces[fi];
	return ncBVert(x, B, B.fv[f.first + k]);
}

// ncClipToFace is clipToFace: the convex polygon w.poly[:n] clipped by the side planes of the reference
// face (its loop of nref vertices, ncRefVert, normal nrm), band the slack a vertex keeps its id in.
// It returns the count; *out is the array holding the result (w.poly or w.tmp). A point past w.cap
// with w.over set makes it set *w.over and return 0.
TB_FN int ncClipToFace(const NcClipBuf &w, int n, const NcPoly &A, const NcPoly &B, const NcBInA &x, bool refIsB,
                       int refFace, int nref, NcVec nrm, float band, NcClipPt **out) {
	NcClipPt *src = w.poly, *dst = w.tmp;
	for (int k = 0; k < nref; k++) {
		if (n == 0) {
			break;
		}
		NcVec a = ncRefVert(A, B, x, refIsB, refFace, k);
		NcVec b = ncRefVert(A, B, x, refIsB, refFace, (k + 1) % nref);
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
				if (cnt == w.cap && w.over) {
					*w.over = true;
					return 0;
				}
				if (cnt < w.cap) {
					dst[cnt++] = p;
				}
			}
			if ((dp <= band) != (dq <= band) && (dp < 0) != (dq < 0)) {
				float u = dp / (dp - dq);
				if (cnt == w.cap && w.over) {
					*w.over = true;
					return 0;
				}
				if (cnt < w.cap) {
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

// ncIncidentFace is incidentFace: the face of P (B's in A's frame when inB) around P's deepest vertex
// along -n that meets n most head-on.
TB_FN int ncIncidentFace(const NcPoly &P, const NcBInA &x, bool inB, NcVec n) {
	float deep = 1e30f;
	int dv = 0;
	for (int i = 0; i < P.nv; i++) {
		NcVec v = inB ? ncBVert(x, P, i) : ncPolyVert(P, i);
		float d = ncDot(n, v);
		if (d < deep) {
			deep = d;
			dv = i;
		}
	}
	float best = 2;
	int bi = 0;
	for (int i = 0; i < P.nf; i++) {
		const TbHullFace &f = P.faces[i];
		bool has = false;
		for (int k = 0; k < f.count; k++) {
			has = has || P.fv[f.first + k] == dv;
		}
		if (!has) {
			continue;
		}
		NcVec nn = inB ? ncBNormal(x, P, i) : ncFaceNormal(f);
		float dd = ncDot(nn, n);
		if (dd < best) {
			best = dd;
			bi = i;
		}
	}
	return bi;
}

// ncFaceContact is faceContact: the incident face clipped against the reference face (A's face iA, or
// B's face iB when refIsB), the points below the margin, at most four, in A's frame.
TB_FN void ncFaceContact(const NcPoly &A, const NcPoly &B, const NcBInA &x, bool refIsB, int iA, int iB, float scale,
                         float margin, const NcClipBuf &w, TbContact *m) {
	NcClipPt *poly = w.poly;
	NcVec n;
	float d;
	int nref, ninc, refFace, incFace;
	if (!refIsB) {
		refFace = iA;
		const TbHullFace &f = A.faces[iA];
		n = ncFaceNormal(f);
		d = f.offset;
		nref = f.count;
		incFace = ncIncidentFace(B, x, true, n);
		const TbHullFace &g = B.faces[incFace];
		if (g.count > w.cap && w.over) {
			*w.over = true;
			return;
		}
		for (int k = 0; k < g.count; k++) {
			int vi = B.fv[g.first + k];
			poly[k].p = ncBVert(x, B, vi);
			poly[k].sep = 0;
			poly[k].feat = (unsigned)vi;
		}
		ninc = g.count;
	} else {
		refFace = iB;
		const TbHullFace &f = B.faces[iB];
		n = ncBNormal(x, B, iB);
		d = f.offset + ncDot(n, x.t);
		nref = f.count;
		incFace = ncIncidentFace(A, x, false, n);
		const TbHullFace &g = A.faces[incFace];
		if (g.count > w.cap && w.over) {
			*w.over = true;
			return;
		}
		for (int k = 0; k < g.count; k++) {
			int vi = A.fv[g.first + k];
			poly[k].p = ncPolyVert(A, vi);
			poly[k].sep = 0;
			poly[k].feat = (unsigned)vi;
		}
		ninc = g.count;
	}
	NcClipPt *out;
	int cnt = ncClipToFace(w, ninc, A, B, x, refIsB, refFace, nref, n, 1e-3f * scale, &out);
	if (w.over && *w.over) {
		return;
	}
	// Keep the points below the margin, compacted in place: nothing is written where none is kept, so
	// the fallback below reads the incident polygon as the clipping left it, as the Go code does.
	int k = 0;
	for (int i = 0; i < cnt; i++) {
		NcClipPt p = out[i];
		p.sep = ncDot(n, p.p) - d;
		if (p.sep < margin) {
			out[k++] = p;
		}
	}
	if (k == 0) {
		// Every clipped point is above the margin though the faces overlap by less: the incident
		// polygon reaches past the reference face's sides. Its deepest vertex stands in.
		NcClipPt deep;
		deep.p = ncVec(0, 0, 0);
		deep.sep = 1e30f;
		deep.feat = 0;
		for (int i = 0; i < ninc; i++) {
			float s = ncDot(n, poly[i].p) - d;
			if (s < deep.sep) {
				deep = poly[i];
				deep.sep = s;
			}
		}
		if (deep.sep >= margin) {
			return;
		}
		out[0] = deep;
		k = 1;
	}
	int keep[4];
	int nk = ncReducePts(out, k, n, scale, NC_TOUCH_BAND * margin, keep);
	unsigned side = 0;
	NcVec normal = n;
	if (refIsB) {
		side = 1;
		normal = ncNeg(n);
	}
	ncSetNormal(m, normal);
	for (int i = 0; i < nk; i++) {
		const NcClipPt &p = out[keep[i]];
		unsigned id = ncMix(ncMix(ncMix(ncMix(NC_MIX_SEED, side), (unsigned)refFace), (unsigned)incFace), p.feat);
		ncAddPoint(m, ncMadd(p.p, n, -p.sep / 2), p.sep, id);
	}
}

// ncHullHull is hullHull: two polyhedra (hulls or boxes) A and B at poses pa and pb, clipping in w.
TB_FN void ncHullHull(const NcPoly &A, const NcPose &pa, const NcPoly &B, const NcPose &pb, float margin,
                      const NcClipBuf &w, TbContact *m) {
	float lim = A.radius + B.radius + margin;
	NcVec c = ncSub(pb.p, pa.p);
	if (ncDot(c, c) > lim * lim) {
		return;
	}
	NcFrame fa = ncMakeFrame(pa), fb = ncMakeFrame(pb);
	NcBInA x;
	x.t = ncToLocal(fa, fb.c);
	for (int k = 0; k < 3; k++) {
		x.rb[k] = ncDirToLocal(fa, fb.ax[k]);
	}

	// Face axes of A: the deepest vertex of B below each face.
	float sepA = -1e30f;
	int iA = 0;
	for (int i = 0; i < A.nf; i++) {
		const TbHullFace &f = A.faces[i];
		NcVec n = ncFaceNormal(f);
		float s = 1e30f;
		for (int j = 0; j < B.nv; j++) {
			s = fminf(s, ncDot(n, ncBVert(x, B, j)));
		}
		s -= f.offset;
		if (s >= margin) {
			return;
		}
		if (s > sepA) {
			sepA = s;
			iA = i;
		}
	}
	// Face axes of B: the deepest vertex of A below each (B's face in A's frame).
	float sepB = -1e30f;
	int iB = 0;
	for (int i = 0; i < B.nf; i++) {
		const TbHullFace &f = B.faces[i];
		NcVec n = ncBDir(x, ncFaceNormal(f));
		float d = f.offset + ncDot(n, x.t);
		float s = 1e30f;
		for (int j = 0; j < A.nv; j++) {
			s = fminf(s, ncDot(n, ncPolyVert(A, j)));
		}
		s -= d;
		if (s >= margin) {
			return;
		}
		if (s > sepB) {
			sepB = s;
			iB = i;
		}
	}
	// Edge pairs that form a face of the Minkowski difference (minkowskiFace, unrolled).
	float sepE = -1e30f;
	int eA = -1, eB = -1;
	NcVec axisE = ncVec(0, 0, 0);
	for (int j = 0; j < B.ne; j++) {
		const TbHullEdge &eb = B.edges[j];
		NcVec nc = ncNeg(ncBNormal(x, B, eb.f0)), nd = ncNeg(ncBNormal(x, B, eb.f1));
		NcVec dxc = ncCross(nd, nc);
		NcVec pb0 = ncBVert(x, B, eb.v0);
		NcVec db = ncSub(ncBVert(x, B, eb.v1), pb0);
		for (int i = 0; i < A.ne; i++) {
			const TbHullEdge &ea = A.edges[i];
			NcVec na = ncFaceNormal(A.faces[ea.f0]), nb = ncFaceNormal(A.faces[ea.f1]);
			NcVec bxa = ncCross(nb, na);
			float cba = ncDot(nc, bxa), dba = ncDot(nd, bxa);
			if (cba * dba >= 0) {
				continue;
			}
			float adc = ncDot(na, dxc), bdc = ncDot(nb, dxc);
			if (adc * bdc >= 0 || cba * bdc <= 0) {
				continue;
			}
			NcVec pa0 = ncPolyVert(A, ea.v0);
			NcVec da = ncSub(ncPolyVert(A, ea.v1), pa0);
			NcVec l = ncCross(da, db);
			float l2 = ncDot(l, l);
			if (l2 <= NC_EDGE_PARALLEL_SQ * ncDot(da, da) * ncDot(db, db)) {
				continue;
			}
			l = ncScale(l, 1 / sqrtf(l2));
			if (ncDot(l, pa0) < 0) { // point away from A's centre (its origin)
				l = ncNeg(l);
			}
			float s = ncDot(l, ncSub(pb0, pa0));
			if (s >= margin) {
				return;
			}
			if (s > sepE) {
				sepE = s;
				eA = i;
				eB = j;
				axisE = l;
			}
		}
	}

	float scale = fminf(A.radius, B.radius);
	bool refIsB = sepB > sepA + ncPreferFaceTol(sepA, scale);
	float faceSep = refIsB ? sepB : sepA;
	if (eA >= 0 && sepE > faceSep + ncPreferFaceTol(faceSep, scale)) {
		const TbHullEdge &ea = A.edges[eA], &eb = B.edges[eB];
		NcVec p0 = ncPolyVert(A, ea.v0);
		NcVec d1 = ncSub(ncPolyVert(A, ea.v1), p0);
		NcVec q0 = ncBVert(x, B, eb.v0);
		NcVec d2 = ncSub(ncBVert(x, B, eb.v1), q0);
		float s, u;
		ncClosestSegments(p0, d1, q0, d2, &s, &u);
		NcVec qa = ncMadd(p0, d1, s), qb = ncMadd(q0, d2, u);
		ncSetNormal(m, axisE);
		ncAddPoint(m, ncScale(ncAdd(qa, qb), 0.5f), sepE,
		           ncMix(ncMix(ncMix(NC_MIX_SEED, 0xedceu), (unsigned)eA), (unsigned)eB));
		ncManifoldToWorld(m, fa);
		return;
	}
	ncFaceContact(A, B, x, refIsB, iA, iB, scale, margin, w, m);
	ncManifoldToWorld(m, fa);
}

// ncPlaneHull is planeHull: plane a against hull b, the vertices below the margin, at most four,
// gathered in w.poly (a hull's at most NC_MAX_HULL_POINTS vertices fit NC_MAX_CLIP).
TB_FN void ncPlaneHull(const NcHulls &hs, const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb,
                       float margin, const NcClipBuf &w, TbContact *m) {
	float d;
	NcVec n = ncWorldPlane(a, pa, &d);
	NcPoly h = ncHullPoly(hs, b.hull);
	if (ncDot(n, pb.p) - d - h.radius >= margin) {
		return;
	}
	NcFrame f = ncMakeFrame(pb);
	NcClipPt *pts = w.poly;
	int k = 0;
	for (int i = 0; i < h.nv; i++) {
		NcVec v = ncToWorld(f, ncPolyVert(h, i));
		float s = ncDot(n, v) - d;
		if (s < margin) {
			if (k == w.cap && w.over) {
				*w.over = true;
				return;
			}
			pts[k].p = v;
			pts[k].sep = s;
			pts[k].feat = (unsigned)i;
			k++;
		}
	}
	if (k == 0) {
		return;
	}
	int keep[4];
	int nk = ncReducePts(pts, k, n, h.radius, NC_TOUCH_BAND * margin, keep);
	ncSetNormal(m, n);
	for (int i = 0; i < nk; i++) {
		const NcClipPt &p = pts[keep[i]];
		ncPlanePoint(m, n, p.p, p.sep, p.feat);
	}
}

// ncClosestOnFace is closestOnFace: the point of face f of h closest to q (the hull's frame), and
// whether it lies inside the face.
TB_FN NcVec ncClosestOnFace(const NcPoly &h, const TbHullFace &f, NcVec q, bool *inside) {
	NcVec n = ncFaceNormal(f);
	NcVec proj = ncMadd(q, n, -(ncDot(n, q) - f.offset));
	bool in = true;
	for (int k = 0; k < f.count; k++) {
		NcVec a = ncPolyVert(h, h.fv[f.first + k]), b = ncPolyVert(h, h.fv[f.first + (k + 1) % f.count]);
		if (ncDot(ncCross(ncSub(b, a), n), ncSub(proj, a)) > 0) {
			in = false;
			break;
		}
	}
	*inside = in;
	if (in) {
		return proj;
	}
	NcVec best = proj;
	float bd = 1e30f;
	for (int k = 0; k < f.count; k++) {
		NcVec a = ncPolyVert(h, h.fv[f.first + k]), b = ncPolyVert(h, h.fv[f.first + (k + 1) % f.count]);
		NcVec e = ncSub(b, a);
		NcVec c = ncMadd(a, e, ncClosestOnSegment(a, e, q));
		float dd = ncDot(ncSub(c, q), ncSub(c, q));
		if (dd < bd) {
			best = c;
			bd = dd;
		}
	}
	return best;
}

// ncHullSphere is hullSphere: hull a against sphere b, in the hull's frame.
TB_FN void ncHullSphere(const NcHulls &hs, const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb,
                        float margin, TbContact *m) {
	NcPoly h = ncHullPoly(hs, a.hull);
	float lim = h.radius + b.a + margin;
	NcVec cw = ncSub(pb.p, pa.p);
	if (ncDot(cw, cw) > lim * lim) {
		return;
	}
	NcFrame f = ncMakeFrame(pa);
	NcVec c = ncToLocal(f, pb.p);
	float r = b.a;
	float smax = -1e30f;
	int imax = 0;
	for (int i = 0; i < h.nf; i++) {
		float s = ncDot(ncFaceNormal(h.faces[i]), c) - h.faces[i].offset;
		if (s > smax) {
			smax = s;
			imax = i;
		}
	}
	if (smax - r >= margin) {
		return; // the face's plane separates: the distance is at least smax
	}
	NcVec q = ncVec(0, 0, 0), n;
	float dist;
	if (smax <= 0) {
		n = ncFaceNormal(h.faces[imax]);
		q = ncMadd(c, n, -smax);
		dist = smax;
	} else {
		float bd = 1e30f;
		for (int i = 0; i < h.nf; i++) {
			const TbHullFace &fc = h.faces[i];
			if (ncDot(ncFaceNormal(fc), c) - fc.offset <= 0) {
				continue;
			}
			bool unused;
			NcVec p = ncClosestOnFace(h, fc, c, &unused);
			float dd = ncDot(ncSub(p, c), ncSub(p, c));
			if (dd < bd) {
				bd = dd;
				q = p;
			}
		}
		dist = sqrtf(bd);
		n = ncDirectionOr(ncSub(c, q), ncFaceNormal(h.faces[imax]));
	}
	float s = dist - r;
	if (s >= margin) {
		return;
	}
	ncSetNormal(m, n);
	ncAddPoint(m, ncMadd(q, n, s / 2), s, 0);
	ncManifoldToWorld(m, f);
}

// ncSegmentOnFace is segmentOnFace: the core segment e0 + t*dir clipped to face fi's side planes, a
// point for each end below the margin; it returns how many it added.
TB_FN int ncSegmentOnFace(TbContact *m, const NcPoly &h, int fi, NcVec e0, NcVec dir, float r, float margin) {
	const TbHullFace &fc = h.faces[fi];
	NcVec nn = ncFaceNormal(fc);
	float t0 = 0, t1 = 1;
	for (int k = 0; k < fc.count; k++) {
		NcVec av = ncPolyVert(h, h.fv[fc.first + k]), bv = ncPolyVert(h, h.fv[fc.first + (k + 1) % fc.count]);
		NcVec s = ncCross(ncSub(bv, av), nn);
		float d0 = ncDot(s, ncSub(e0, av));
		float dd = ncDot(s, dir);
		// Points with d0 + t*dd <= 0 are inside this side plane.
		if (dd > 0) {
			t1 = fminf(t1, -d0 / dd);
		} else if (dd < 0) {
			t0 = fmaxf(t0, -d0 / dd);
		} else if (d0 > 0) {
			return 0;
		}
	}
	if (t0 > t1) {
		return 0;
	}
	ncSetNormal(m, nn);
	int added = 0;
	for (int end = 0; end < 2; end++) {
		float t = end == 0 ? t0 : t1;
		NcVec e = ncMadd(e0, dir, t);
		float sep = ncDot(nn, e) - fc.offset - r;
		if (sep < margin) {
			ncAddPoint(m, ncMadd(e, nn, -r - sep / 2), sep,
			           ncMix(ncMix(ncMix(NC_MIX_SEED, 0xca95u), (unsigned)fi), (unsigned)end));
			added++;
		}
	}
	return added;
}

// ncHullCapsule is hullCapsule: hull a against capsule b, in the hull's frame.
TB_FN void ncHullCapsule(const NcHulls &hs, const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb,
                         float margin, TbContact *m) {
	NcPoly h = ncHullPoly(hs, a.hull);
	float r = b.a;
	float lim = h.radius + b.b + r + margin;
	NcVec cw = ncSub(pb.p, pa.p);
	if (ncDot(cw, cw) > lim * lim) {
		return;
	}
	NcFrame f = ncMakeFrame(pa);
	NcVec w0, w1;
	ncCapsuleEnds(b, pb, &w0, &w1);
	NcVec e0 = ncToLocal(f, w0), e1 = ncToLocal(f, w1);
	NcVec dir = ncSub(e1, e0);
	// Does the core cross the hull? Clip it by every face plane (Cyrus-Beck).
	float t0 = 0, t1 = 1;
	float best = -1e30f; // the face axis of least penetration
	int bf = 0;
	for (int i = 0; i < h.nf; i++) {
		const TbHullFace &fc = h.faces[i];
		NcVec nn = ncFaceNormal(fc);
		float d0 = ncDot(nn, e0) - fc.offset, d1 = ncDot(nn, e1) - fc.offset;
		float s = fminf(d0, d1);
		if (s > best) {
			best = s;
			bf = i;
		}
		if (d0 > 0 && d1 > 0) {
			t0 = 1;
			t1 = 0;
		} else if (d0 > 0) {
			t0 = fmaxf(t0, d0 / (d0 - d1));
		} else if (d1 > 0) {
			t1 = fminf(t1, d0 / (d0 - d1));
		}
	}
	if (best - r >= margin) {
		return;
	}
	if (t0 > t1) {
		// Outside: closest points over the faces the segment reaches in front of.
		float bd = 1e30f;
		NcVec q = ncVec(0, 0, 0), s = ncVec(0, 0, 0);
		for (int i = 0; i < h.nf; i++) {
			const TbHullFace &fc = h.faces[i];
			NcVec nn = ncFaceNormal(fc);
			if (ncDot(nn, e0) - fc.offset <= 0 && ncDot(nn, e1) - fc.offset <= 0) {
				continue;
			}
			for (int end = 0; end < 2; end++) {
				NcVec e = end == 0 ? e0 : e1;
				bool unused;
				NcVec p = ncClosestOnFace(h, fc, e, &unused);
				float dd = ncDot(ncSub(p, e), ncSub(p, e));
				if (dd < bd) {
					bd = dd;
					q = p;
					s = e;
				}
			}
			for (int k = 0; k < fc.count; k++) {
				NcVec av = ncPolyVert(h, h.fv[fc.first + k]), bv = ncPolyVert(h, h.fv[fc.first + (k + 1) % fc.count]);
				float u, v;
				ncClosestSegments(e0, dir, av, ncSub(bv, av), &u, &v);
				NcVec sp = ncMadd(e0, dir, u), hp = ncMadd(av, ncSub(bv, av), v);
				float dd = ncDot(ncSub(hp, sp), ncSub(hp, sp));
				if (dd < bd) {
					bd = dd;
					q = hp;
					s = sp;
				}
			}
		}
		float dist = sqrtf(bd);
		if (dist - r >= margin) {
			return;
		}
		NcVec n = ncDirectionOr(ncSub(s, q), ncFaceNormal(h.faces[bf]));
		// On (or nearly straight above) a face, with the core lying along it: two points.
		for (int i = 0; i < h.nf; i++) {
			NcVec nn = ncFaceNormal(h.faces[i]);
			if (ncDot(nn, n) > NC_FACE_NORMAL_COS && ncAbs(ncDot(nn, dir)) <= NC_LYING_SIN * sqrtf(ncDot(dir, dir))) {
				if (ncSegmentOnFace(m, h, i, e0, dir, r, margin) > 0) {
					ncManifoldToWorld(m, f);
					return;
				}
				break;
			}
		}
		float sep = dist - r;
		ncSetNormal(m, n);
		ncAddPoint(m, ncMadd(q, n, sep / 2), sep, ncMix(ncMix(NC_MIX_SEED, 0xca95u), (unsigned)bf));
		ncManifoldToWorld(m, f);
		return;
	}
	// The core is inside: edge axes (the core's direction across each hull edge) compete with the
	// faces, which are preferred within preferFaceTol.
	float bestE = -1e30f;
	int be = -1;
	NcVec axE = ncVec(0, 0, 0);
	for (int i = 0; i < h.ne; i++) {
		const TbHullEdge &ed = h.edges[i];
		NcVec av = ncPolyVert(h, ed.v0);
		NcVec l = ncCross(dir, ncSub(ncPolyVert(h, ed.v1), av));
		float l2 = ncDot(l, l);
		if (l2 <= NC_EDGE_PARALLEL_SQ * ncDot(dir, dir) * h.radius * h.radius) {
			continue;
		}
		l = ncScale(l, 1 / sqrtf(l2));
		if (ncDot(l, av) < 0) { // away from the hull's centre, across this edge
			l = ncNeg(l);
		}
		float sup = -1e30f;
		for (int j = 0; j < h.nv; j++) {
			sup = fmaxf(sup, ncDot(l, ncPolyVert(h, j)));
		}
		float s = fminf(ncDot(l, e0), ncDot(l, e1)) - sup;
		if (s > bestE) {
			bestE = s;
			be = i;
			axE = l;
		}
	}
	if (be >= 0 && bestE > best + ncPreferFaceTol(best, h.radius)) {
		if (bestE - r >= margin) {
			return;
		}
		const TbHullEdge &ed = h.edges[be];
		NcVec av = ncPolyVert(h, ed.v0);
		float u, v;
		ncClosestSegments(e0, dir, av, ncSub(ncPolyVert(h, ed.v1), av), &u, &v);
		NcVec sp = ncMadd(e0, dir, u), hp = ncMadd(av, ncSub(ncPolyVert(h, ed.v1), av), v);
		float sep = bestE - r;
		ncSetNormal(m, axE);
		ncAddPoint(m, ncScale(ncAdd(hp, ncMadd(sp, axE, -r)), 0.5f), sep, ncMix(ncMix(NC_MIX_SEED, 0xca9eu), (unsigned)be));
		ncManifoldToWorld(m, f);
		return;
	}
	if (ncSegmentOnFace(m, h, bf, e0, dir, r, margin) == 0) {
		// Both clipped ends fell outside the face: the deepest end alone.
		const TbHullFace &fc = h.faces[bf];
		NcVec nn = ncFaceNormal(fc);
		NcVec e = e0;
		unsigned id = 0;
		if (ncDot(nn, e1) < ncDot(nn, e0)) {
			e = e1;
			id = 1;
		}
		float sep = ncDot(nn, e) - fc.offset - r;
		ncSetNormal(m, nn);
		ncAddPoint(m, ncMadd(e, nn, -r - sep / 2), sep, ncMix(ncMix(ncMix(NC_MIX_SEED, 0xca95u), (unsigned)bf), id));
	}
	ncManifoldToWorld(m, f);
}

// ncCollideHull is collide.Collide for the pairs with a hull (hull against hull, box, plane, sphere and
// capsule, either way round): m gets the count, normal (from a to b) and points; hs is the hull table
// the hull shapes index, w the clipping arrays (where *w.over is set on return, m is to be ignored).
TB_FN void ncCollideHull(const NcHulls &hs, const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb,
                         float margin, const NcClipBuf &w, TbContact *m) {
	m->count = 0;
	int ka = a.kind, kb = b.kind;
	if ((ka == TB_HULL && (kb == TB_HULL || kb == TB_BOX)) || (ka == TB_BOX && kb == TB_HULL)) {
		float4 va[8], vb[8];
		TbHullFace fa[6], fb[6];
		NcPoly A = ncShapePoly(hs, a, va, fa), B = ncShapePoly(hs, b, vb, fb);
		ncHullHull(A, pa, B, pb, margin, w, m);
	} else if (ka == TB_PLANE && kb == TB_HULL) {
		ncPlaneHull(hs, a, pa, b, pb, margin, w, m);
	} else if (ka == TB_HULL && kb == TB_PLANE) {
		ncPlaneHull(hs, b, pb, a, pa, margin, w, m);
		ncFlip(m);
	} else if (ka == TB_HULL && kb == TB_SPHERE) {
		ncHullSphere(hs, a, pa, b, pb, margin, m);
	} else if (ka == TB_SPHERE && kb == TB_HULL) {
		ncHullSphere(hs, b, pb, a, pa, margin, m);
		ncFlip(m);
	} else if (ka == TB_HULL && kb == TB_CAPSULE) {
		ncHullCapsule(hs, a, pa, b, pb, margin, m);
	} else if (ka == TB_CAPSULE && kb == TB_HULL) {
		ncHullCapsule(hs, b, pb, a, pa, margin, m);
		ncFlip(m);
	}
}
