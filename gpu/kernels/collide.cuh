// collide.cuh: the narrow phase's collision routines, sim/collide ported to device code.
//
// Every routine here is the Go one of the same name (sim/collide: box.go, clip.go, capsule.go,
// segment.go, sphere.go, plane.go, vecmath.go; hull.go is hull.cuh) with the same branches, tolerances, feature ids and the
// same order of floating-point operations, so that the host build (the emulator, which like Go on
// amd64 rounds every float32 operation and contracts nothing) reproduces the CPU's manifolds to the
// bit, and nvcc's build differs only by its fused multiply-adds. Keep the two in step: a change to
// sim/collide is a change here.
//
// Go folds constant expressions exactly before rounding them to float32 (parallelSin*parallelSin is
// the float32 nearest 1e-8, not 1e-4f*1e-4f), so such products appear below already folded; every
// literal carries the f suffix so that nothing is computed in double.
#pragma once
#include "layout.cuh"

// NcVec is the routines' working 3-vector (collide's vec).
struct NcVec {
	float x, y, z;
};

TB_FN NcVec ncVec(float x, float y, float z) {
	NcVec v;
	v.x = x;
	v.y = y;
	v.z = z;
	return v;
}
TB_FN NcVec ncAdd(NcVec a, NcVec b) { return ncVec(a.x + b.x, a.y + b.y, a.z + b.z); }
TB_FN NcVec ncSub(NcVec a, NcVec b) { return ncVec(a.x - b.x, a.y - b.y, a.z - b.z); }
TB_FN NcVec ncNeg(NcVec a) { return ncVec(-a.x, -a.y, -a.z); }
TB_FN float ncDot(NcVec a, NcVec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
TB_FN NcVec ncScale(NcVec a, float s) { return ncVec(a.x * s, a.y * s, a.z * s); }
// ncMadd is a + b*s.
TB_FN NcVec ncMadd(NcVec a, NcVec b, float s) { return ncVec(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s); }
TB_FN NcVec ncCross(NcVec a, NcVec b) {
	return ncVec(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
// ncGet is component k (0, 1 or 2).
TB_FN float ncGet(NcVec a, int k) { return k == 0 ? a.x : (k == 1 ? a.y : a.z); }
// ncWith is a with component k replaced by v.
TB_FN NcVec ncWith(NcVec a, int k, float v) {
	if (k == 0) {
		a.x = v;
	} else if (k == 1) {
		a.y = v;
	} else {
		a.z = v;
	}
	return a;
}
// ncAxis is s times the unit vector of axis k.
TB_FN NcVec ncAxis(int k, float s) { return ncWith(ncVec(0, 0, 0), k, s); }

// Written as comparisons, not fabsf, so that -0 stays -0 as in Go's abs32.
TB_FN float ncAbs(float x) { return x < 0 ? -x : x; }
TB_FN float ncClamp(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
// ncSign is -1 for negative x and +1 otherwise (zero counts as positive, so choices are stable).
TB_FN float ncSign(float x) { return x < 0 ? -1.0f : 1.0f; }
// ncNext is collide's next3: the axes after k, cyclically (ncNext(k, 1), ncNext(k, 2)).
TB_FN int ncNext(int k, int step) { return (k + step) % 3; }

// NcPose is a body's pose: position and quaternion (x, y, z, w) as in the body arrays.
struct NcPose {
	NcVec p;
	float qx, qy, qz, qw;
};

// NcFrame is a pose as its origin and the world directions of its local axes.
struct NcFrame {
	NcVec c;
	NcVec ax[3];
};

// ncQuatScale is 2/|q|^2, the factor of the rotation matrix of a quaternion that is not quite unit.
TB_FN float ncQuatScale(float w, float x, float y, float z) {
	float n = w * w + x * x + y * y + z * z;
	return n > 0 ? 2 / n : 2.0f;
}

TB_FN NcFrame ncMakeFrame(const NcPose &p) {
	float w = p.qw, x = p.qx, y = p.qy, z = p.qz;
	float s = ncQuatScale(w, x, y, z);
	float xs = x * s, ys = y * s, zs = z * s;
	float wx = w * xs, wy = w * ys, wz = w * zs;
	float xx = x * xs, xy = x * ys, xz = x * zs;
	float yy = y * ys, yz = y * zs, zz = z * zs;
	NcFrame f;
	f.c = p.p;
	f.ax[0] = ncVec(1 - (yy + zz), xy + wz, xz - wy);
	f.ax[1] = ncVec(xy - wz, 1 - (xx + zz), yz + wx);
	f.ax[2] = ncVec(xz + wy, yz - wx, 1 - (xx + yy));
	return f;
}

TB_FN NcVec ncDirToWorld(const NcFrame &f, NcVec l) {
	return ncMadd(ncMadd(ncScale(f.ax[0], l.x), f.ax[1], l.y), f.ax[2], l.z);
}
TB_FN NcVec ncToWorld(const NcFrame &f, NcVec l) {
	return ncMadd(ncMadd(ncMadd(f.c, f.ax[0], l.x), f.ax[1], l.y), f.ax[2], l.z);
}
TB_FN NcVec ncDirToLocal(const NcFrame &f, NcVec v) {
	return ncVec(ncDot(f.ax[0], v), ncDot(f.ax[1], v), ncDot(f.ax[2], v));
}
TB_FN NcVec ncToLocal(const NcFrame &f, NcVec p) { return ncDirToLocal(f, ncSub(p, f.c)); }

// ncRotate turns the local direction l by pose p's rotation.
TB_FN NcVec ncRotate(const NcPose &p, NcVec l) {
	float w = p.qw, x = p.qx, y = p.qy, z = p.qz;
	float s = ncQuatScale(w, x, y, z);
	float xs = x * s, ys = y * s, zs = z * s;
	float wx = w * xs, wy = w * ys, wz = w * zs;
	float xx = x * xs, xy = x * ys, xz = x * zs;
	float yy = y * ys, yz = y * zs, zz = z * zs;
	return ncVec((1 - (yy + zz)) * l.x + (xy - wz) * l.y + (xz + wy) * l.z,
	             (xy + wz) * l.x + (1 - (xx + zz)) * l.y + (yz - wx) * l.z,
	             (xz - wy) * l.x + (yz + wx) * l.y + (1 - (xx + yy)) * l.z);
}

// ncCapsuleEnds gives the world ends of a capsule's core segment (local y = -h, then +h).
TB_FN void ncCapsuleEnds(const TbShape &s, const NcPose &p, NcVec *e0, NcVec *e1) {
	float w = p.qw, x = p.qx, y = p.qy, z = p.qz;
	float k = ncQuatScale(w, x, y, z) * s.b;
	NcVec axis = ncVec((x * y - w * z) * k, s.b - (x * x + z * z) * k, (y * z + w * x) * k);
	*e0 = ncSub(p.p, axis);
	*e1 = ncAdd(p.p, axis);
}

// The manifold under construction is a TbContact (a and b are the caller's).

// ncAddPoint appends a point.
TB_FN void ncAddPoint(TbContact *m, NcVec pos, float sep, unsigned id) {
	TbPoint *p = &m->pts[m->count & 3];
	p->px = pos.x;
	p->py = pos.y;
	p->pz = pos.z;
	p->sep = sep;
	p->id = id;
	m->count++;
}
TB_FN void ncSetNormal(TbContact *m, NcVec n) {
	m->nx = n.x;
	m->ny = n.y;
	m->nz = n.z;
}
TB_FN NcVec ncNormal(const TbContact *m) { return ncVec(m->nx, m->ny, m->nz); }
// ncFlip turns a manifold computed for (B, A) into the one for (A, B).
TB_FN void ncFlip(TbContact *m) { ncSetNormal(m, ncNeg(ncNormal(m))); }
// ncManifoldToWorld maps a manifold computed in frame f's coordinates to the world.
TB_FN void ncManifoldToWorld(TbContact *m, const NcFrame &f) {
	ncSetNormal(m, ncDirToWorld(f, ncNormal(m)));
	for (int i = 0; i < m->count; i++) {
		TbPoint *p = &m->pts[i];
		NcVec w = ncToWorld(f, ncVec(p->px, p->py, p->pz));
		p->px = w.x;
		p->py = w.y;
		p->pz = w.z;
	}
}

// ---- segment.go ----

#define NC_DEGENERATE_SQ 1e-12f
#define NC_PARALLEL_SIN 1e-4f
#define NC_PARALLEL_SIN_SQ 1e-8f // parallelSin*parallelSin, folded as Go folds it

TB_FN float ncClosestOnSegment(NcVec p0, NcVec d, NcVec q) {
	float dd = ncDot(d, d);
	if (dd <= NC_DEGENERATE_SQ) {
		return 0;
	}
	return ncClamp(ncDot(ncSub(q, p0), d) / dd, 0, 1);
}

TB_FN void ncClosestSegments(NcVec p0, NcVec d1, NcVec q0, NcVec d2, float *sOut, float *tOut) {
	float a = ncDot(d1, d1), e = ncDot(d2, d2);
	NcVec r = ncSub(p0, q0);
	float f = ncDot(d2, r);
	if (a <= NC_DEGENERATE_SQ) {
		*sOut = 0;
		*tOut = e <= NC_DEGENERATE_SQ ? 0.0f : ncClamp(f / e, 0, 1);
		return;
	}
	float c = ncDot(d1, r);
	if (e <= NC_DEGENERATE_SQ) {
		*sOut = ncClamp(-c / a, 0, 1);
		*tOut = 0;
		return;
	}
	float b = ncDot(d1, d2);
	float denom = a * e - b * b;
	float s, t;
	if (denom > NC_PARALLEL_SIN_SQ * a * e) {
		s = ncClamp((b * f - c * e) / denom, 0, 1);
	} else {
		float s0 = -c / a, s1 = (b - c) / a;
		if (s0 > s1) {
			float x = s0;
			s0 = s1;
			s1 = x;
		}
		float lo = fmaxf(s0, 0), hi = fminf(s1, 1);
		if (lo <= hi) {
			s = (lo + hi) / 2;
		} else if (s1 < 0) {
			s = 0;
		} else {
			s = 1;
		}
	}
	t = (b * s + f) / e;
	if (t < 0) {
		t = 0;
		s = ncClamp(-c / a, 0, 1);
	} else if (t > 1) {
		t = 1;
		s = ncClamp((b - c) / a, 0, 1);
	}
	*sOut = s;
	*tOut = t;
}

TB_FN float ncExcess(float x, float h) {
	float e = ncAbs(x) - h;
	return e > 0 ? e : 0.0f;
}

TB_FN float ncPointBoxDistSq(NcVec p, NcVec h) {
	float ex = ncExcess(p.x, h.x), ey = ncExcess(p.y, h.y), ez = ncExcess(p.z, h.z);
	return ex * ex + ey * ey + ez * ez;
}

// ncClosestSegmentBox: see closestSegmentBox. Returns t; *distSq gets the squared distance.
TB_FN float ncClosestSegmentBox(NcVec p0v, NcVec dv, NcVec hv, float *distSq) {
	float p0[3] = {p0v.x, p0v.y, p0v.z};
	float d[3] = {dv.x, dv.y, dv.z};
	float h[3] = {hv.x, hv.y, hv.z};
	float cuts[8];
	cuts[0] = 0;
	int n = 1;
	for (int k = 0; k < 3; k++) {
		if (ncAbs(d[k]) <= 1e-12f) {
			continue;
		}
		float inv = 1 / d[k];
		float t = (-h[k] - p0[k]) * inv;
		if (t > 0 && t < 1) {
			cuts[n++] = t;
		}
		t = (h[k] - p0[k]) * inv;
		if (t > 0 && t < 1) {
			cuts[n++] = t;
		}
	}
	cuts[n++] = 1;
	for (int i = 2; i < n - 1; i++) {
		float v = cuts[i];
		int j = i;
		for (; j > 1 && cuts[j - 1] > v; j--) {
			cuts[j] = cuts[j - 1];
		}
		cuts[j] = v;
	}
	float t = 0;
	for (int i = 0; i + 1 < n; i++) {
		float ta = cuts[i], tb = cuts[i + 1];
		float tm = (ta + tb) / 2;
		float qa = 0, qb = 0;
		for (int k = 0; k < 3; k++) {
			float x = p0[k] + tm * d[k];
			float face;
			if (x > h[k]) {
				face = h[k];
			} else if (x < -h[k]) {
				face = -h[k];
			} else {
				continue;
			}
			qa += d[k] * d[k];
			qb += d[k] * (p0[k] - face);
		}
		if (qa == 0) {
			t = tm;
			break;
		}
		float tt = -qb / qa;
		if (tt < tb || i + 2 == n) {
			t = ncClamp(tt, ta, tb);
			break;
		}
	}
	*distSq = ncPointBoxDistSq(ncMadd(p0v, dv, t), hv);
	return t;
}

// ncClampAxis clamps x to [-h, h]; *region gets 0 inside, 1 below, 2 above.
TB_FN float ncClampAxis(float x, float h, unsigned *region) {
	if (x > h) {
		*region = 2;
		return h;
	}
	if (x < -h) {
		*region = 1;
		return -h;
	}
	*region = 0;
	return x;
}

// ncClampBox is the point of the box [-h, h] closest to p; *region gets the feature's code (0..26).
TB_FN NcVec ncClampBox(NcVec p, NcVec h, unsigned *region) {
	unsigned rx, ry, rz;
	float x = ncClampAxis(p.x, h.x, &rx);
	float y = ncClampAxis(p.y, h.y, &ry);
	float z = ncClampAxis(p.z, h.z, &rz);
	*region = rx + 3 * ry + 9 * rz;
	return ncVec(x, y, z);
}

// ncRegionFace reports whether a region code names a face, and which (axis *k, side *sg).
TB_FN bool ncRegionFace(unsigned region, int *k, float *sg) {
	bool found = false;
	*k = 0;
	*sg = 0;
	for (int i = 0; i < 3; i++) {
		unsigned digit = region % 3;
		if (digit != 0) {
			if (found) {
				*k = 0;
				*sg = 0;
				return false;
			}
			found = true;
			*k = i;
			*sg = digit == 1 ? -1.0f : 1.0f;
		}
		region /= 3;
	}
	return found;
}

TB_FN unsigned ncFaceRegion(int k, float sg) {
	unsigned code = sg < 0 ? 1u : 2u;
	for (; k > 0; k--) {
		code *= 3;
	}
	return code;
}

// ---- sphere.go ----

TB_FN NcVec ncFallbackNormal() { return ncVec(0, 1, 0); }

TB_FN void ncRoundPoint(TbContact *m, NcVec pa, NcVec qb, NcVec n, float ra, float rb, float margin, unsigned id) {
	float s = ncDot(ncSub(qb, pa), n) - ra - rb;
	if (s >= margin) {
		return;
	}
	NcVec mid = ncScale(ncAdd(pa, qb), 0.5f);
	ncAddPoint(m, ncMadd(mid, n, (ra - rb) / 2), s, id);
}

TB_FN NcVec ncDirectionOr(NcVec v, NcVec fallback) {
	float l2 = ncDot(v, v);
	if (l2 <= 1e-18f) {
		return fallback;
	}
	return ncScale(v, 1 / sqrtf(l2));
}

TB_FN void ncSphereSphere(const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb, float margin,
                          TbContact *m) {
	NcVec ca = pa.p, cb = pb.p;
	NcVec d = ncSub(cb, ca);
	float dist2 = ncDot(d, d);
	float lim = a.a + b.a + margin;
	if (dist2 >= lim * lim && lim > 0) {
		return;
	}
	NcVec n = ncDirectionOr(d, ncFallbackNormal());
	ncSetNormal(m, n);
	ncRoundPoint(m, ca, cb, n, a.a, b.a, margin, 0);
}

TB_FN NcVec ncPerpendicular(NcVec d) {
	float ax = ncAbs(d.x), ay = ncAbs(d.y), az = ncAbs(d.z);
	NcVec c;
	if (ax <= ay && ax <= az) {
		c = ncVec(0, -d.z, d.y);
	} else if (ay <= az) {
		c = ncVec(d.z, 0, -d.x);
	} else {
		c = ncVec(-d.y, d.x, 0);
	}
	return ncDirectionOr(c, ncFallbackNormal());
}

TB_FN void ncCapsuleSphere(const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb, float margin,
                           TbContact *m) {
	NcVec e0, e1;
	ncCapsuleEnds(a, pa, &e0, &e1);
	NcVec c = pb.p;
	NcVec d = ncSub(e1, e0);
	float t = ncClosestOnSegment(e0, d, c);
	NcVec q = ncMadd(e0, d, t);
	NcVec v = ncSub(c, q);
	float dd = ncDot(d, d);
	if (t > 0 && t < 1 && dd > NC_DEGENERATE_SQ) {
		v = ncMadd(v, d, -ncDot(v, d) / dd);
	}
	float dist2 = ncDot(v, v);
	float lim = a.a + b.a + margin;
	if (dist2 >= lim * lim && lim > 0) {
		return;
	}
	NcVec n = ncDirectionOr(v, ncPerpendicular(d));
	ncSetNormal(m, n);
	ncRoundPoint(m, q, c, n, a.a, b.a, margin, 0);
}

TB_FN void ncBoxSphere(const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb, float margin,
                       TbContact *m) {
	NcVec h = ncVec(a.a, a.b, a.c);
	float r = b.a;
	float lim = sqrtf(ncDot(h, h)) + r + margin;
	NcVec cw = ncSub(pb.p, pa.p);
	if (ncDot(cw, cw) > lim * lim) {
		return;
	}
	NcFrame f = ncMakeFrame(pa);
	NcVec c = ncToLocal(f, pb.p);
	unsigned region;
	NcVec bp = ncClampBox(c, h, &region);
	NcVec v = ncSub(c, bp);
	float dist2 = ncDot(v, v);
	NcVec nl;
	if (dist2 > 1e-14f) {
		float lim2 = r + margin;
		if (dist2 >= lim2 * lim2) {
			return;
		}
		nl = ncScale(v, 1 / sqrtf(dist2));
	} else {
		int k = 0;
		float best = h.x - ncAbs(c.x);
		float g = h.y - ncAbs(c.y);
		if (g < best) {
			k = 1;
			best = g;
		}
		g = h.z - ncAbs(c.z);
		if (g < best) {
			k = 2;
		}
		float sg = ncSign(ncGet(c, k));
		nl = ncAxis(k, sg);
		bp = ncWith(c, k, sg * ncGet(h, k));
		region = ncFaceRegion(k, sg);
	}
	float s = ncDot(ncSub(c, bp), nl) - r;
	if (s >= margin) {
		return;
	}
	ncSetNormal(m, ncDirToWorld(f, nl));
	ncAddPoint(m, ncToWorld(f, ncMadd(bp, nl, s / 2)), s, region);
}

// ---- plane.go ----

TB_FN NcVec ncWorldPlane(const TbShape &s, const NcPose &p, float *d) {
	NcVec n = ncRotate(p, ncVec(s.nx, s.ny, s.nz));
	*d = s.d + ncDot(n, p.p);
	return n;
}

TB_FN void ncPlanePoint(TbContact *m, NcVec n, NcVec q, float s, unsigned id) {
	ncAddPoint(m, ncMadd(q, n, -s / 2), s, id);
}

TB_FN void ncPlaneSphere(const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb, float margin,
                         TbContact *m) {
	float d;
	NcVec n = ncWorldPlane(a, pa, &d);
	NcVec c = pb.p;
	float s = ncDot(n, c) - d - b.a;
	if (s >= margin) {
		return;
	}
	ncSetNormal(m, n);
	ncPlanePoint(m, n, ncMadd(c, n, -b.a), s, 0);
}

TB_FN void ncPlaneCapsule(const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb, float margin,
                          TbContact *m) {
	float d;
	NcVec n = ncWorldPlane(a, pa, &d);
	NcVec e0, e1;
	ncCapsuleEnds(b, pb, &e0, &e1);
	float r = b.a;
	ncSetNormal(m, n);
	float s = ncDot(n, e0) - d - r;
	if (s < margin) {
		ncPlanePoint(m, n, ncMadd(e0, n, -r), s, 0);
	}
	s = ncDot(n, e1) - d - r;
	if (s < margin) {
		ncPlanePoint(m, n, ncMadd(e1, n, -r), s, 1);
	}
}

TB_FN void ncPlaneBox(const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb, float margin,
                      TbContact *m) {
	float d;
	NcVec n = ncWorldPlane(a, pa, &d);
	NcFrame f = ncMakeFrame(pb);
	NcVec h = ncVec(b.a, b.b, b.c);
	float c = ncDot(n, f.c) - d;
	float px = ncDot(n, f.ax[0]) * h.x, py = ncDot(n, f.ax[1]) * h.y, pz = ncDot(n, f.ax[2]) * h.z;
	if (c - ncAbs(px) - ncAbs(py) - ncAbs(pz) >= margin) {
		return;
	}
	float sep[8];
	int idx[8];
	int cnt = 0;
	for (int v = 0; v < 8; v++) {
		float s = c - px - py - pz;
		if (v & 1) {
			s += 2 * px;
		}
		if (v & 2) {
			s += 2 * py;
		}
		if (v & 4) {
			s += 2 * pz;
		}
		if (s < margin) {
			int j = cnt;
			for (; j > 0 && sep[j - 1] > s; j--) {
				sep[j] = sep[j - 1];
				idx[j] = idx[j - 1];
			}
			sep[j] = s;
			idx[j] = v;
			cnt++;
		}
	}
	ncSetNormal(m, n);
	for (int i = 0; i < cnt && i < 4; i++) {
		int v = idx[i];
		NcVec l = ncVec((v & 1) ? h.x : -h.x, (v & 2) ? h.y : -h.y, (v & 4) ? h.z : -h.z);
		ncPlanePoint(m, n, ncToWorld(f, l), sep[i], (unsigned)v);
	}
}

// ---- clip.go ----

#define NC_CLIP_SLACK 1e-3f
#define NC_MAX_POLY 8
#define NC_REDUCE_DEPTH_TOL 1e-3f
#define NC_REDUCE_SPREAD_KEEP 0.99f // 1 - reduceSpreadTol

// NcClipVert is collide's clipVert: u, v along the reference face, w the height above it; feat names
// what made the vertex, edge the polygon edge leaving it.
struct NcClipVert {
	float u, v, w;
	unsigned feat, edge;
};

TB_FN float ncSideDist(const NcClipVert &p, bool onV, float side, float lim) {
	return onV ? side * p.v - lim : side * p.u - lim;
}

TB_FN int ncClipSide(const NcClipVert *in, int n, NcClipVert *out, bool onV, float side, float lim, float band,
                     unsigned plane) {
	if (n == 0) {
		return 0;
	}
	int cnt = 0;
	float da = ncSideDist(in[0], onV, side, lim);
	for (int i = 0; i < n && cnt < NC_MAX_POLY; i++) {
		const NcClipVert *a = &in[i];
		const NcClipVert *b = i + 1 < n ? &in[i + 1] : &in[0];
		float db = ncSideDist(*b, onV, side, lim);
		bool cross = false;
		if (da <= band) {
			out[cnt] = *a;
			if (db > band) {
				if (da <= 0) {
					cross = true;
				} else {
					out[cnt].edge = 4 + plane;
				}
			}
			cnt++;
		} else if (db <= 0) {
			cross = true;
		}
		if (cross && cnt < NC_MAX_POLY) {
			float t = da / (da - db);
			NcClipVert *x = &out[cnt];
			x->u = a->u + t * (b->u - a->u);
			x->v = a->v + t * (b->v - a->v);
			x->w = a->w + t * (b->w - a->w);
			x->feat = 8 + 4 * a->edge + plane;
			x->edge = a->edge;
			if (onV) {
				x->v = side * lim;
			} else {
				x->u = side * lim;
			}
			if (da <= 0) {
				x->edge = 4 + plane;
			}
			cnt++;
		}
		da = db;
	}
	return cnt;
}

// ncClipFace clips poly[:*n] to |u| <= lu, |v| <= lv and returns the array holding the result (poly or
// tmp), its length in *n.
TB_FN NcClipVert *ncClipFace(NcClipVert *poly, NcClipVert *tmp, int *n, float lu, float lv, float bu, float bv) {
	NcClipVert *src = poly, *dst = tmp;
	int cnt = *n;
	for (unsigned plane = 0; plane < 4; plane++) {
		bool onV = plane >= 2;
		float side = (plane & 1) ? -1.0f : 1.0f;
		float lim = onV ? lv : lu, band = onV ? bv : bu;
		bool out = false;
		for (int i = 0; i < cnt; i++) {
			if (ncSideDist(src[i], onV, side, lim) > band) {
				out = true;
				break;
			}
		}
		if (out) {
			cnt = ncClipSide(src, cnt, dst, onV, side, lim, band, plane);
			NcClipVert *x = src;
			src = dst;
			dst = x;
		}
	}
	*n = cnt;
	return src;
}

TB_FN float ncDist2D(const NcClipVert &a, const NcClipVert &b) {
	float du = a.u - b.u, dv = a.v - b.v;
	return du * du + dv * dv;
}

TB_FN float ncArea(const NcClipVert *p, int i0, float eu, float ev, int i) {
	return eu * (p[i].v - p[i0].v) - ev * (p[i].u - p[i0].u);
}

// ncReduce chooses at most four of p[:n] (see reduce) and returns how many, their indices in keep.
TB_FN int ncReduce(const NcClipVert *p, int n, float size, int *keep) {
	if (n <= 4) {
		for (int i = 0; i < n; i++) {
			keep[i] = i;
		}
		return n;
	}
	float wMin = p[0].w;
	for (int i = 1; i < n; i++) {
		wMin = fminf(wMin, p[i].w);
	}
	int i0 = 0;
	while (p[i0].w > wMin + NC_REDUCE_DEPTH_TOL * size) {
		i0++;
	}
	float farthest = 0;
	for (int i = 0; i < n; i++) {
		farthest = fmaxf(farthest, ncDist2D(p[i], p[i0]));
	}
	int i1 = 0;
	while (i1 == i0 || ncDist2D(p[i1], p[i0]) < farthest * NC_REDUCE_SPREAD_KEEP) {
		i1++;
	}
	float eu = p[i1].u - p[i0].u, ev = p[i1].v - p[i0].v;
	float aMax = 0, aMin = 0;
	for (int i = 0; i < n; i++) {
		float a = ncArea(p, i0, eu, ev, i);
		aMax = fmaxf(aMax, a);
		aMin = fminf(aMin, a);
	}
	keep[0] = i0;
	keep[1] = i1;
	int k = 2;
	if (aMax > 0) {
		int i = 0;
		while (ncArea(p, i0, eu, ev, i) < aMax * NC_REDUCE_SPREAD_KEEP) {
			i++;
		}
		keep[k++] = i;
	}
	if (aMin < 0) {
		int i = 0;
		while (ncArea(p, i0, eu, ev, i) > aMin * NC_REDUCE_SPREAD_KEEP) {
			i++;
		}
		keep[k++] = i;
	}
	while (k < 4) {
		int best = -1;
		float bestD = 0;
		for (int i = 0; i < n; i++) {
			float nearest = -1;
			for (int j = 0; j < k && nearest != 0; j++) {
				float d = ncDist2D(p[i], p[keep[j]]);
				if (nearest < 0 || d < nearest) {
					nearest = d;
				}
			}
			if (nearest > bestD) {
				best = i;
				bestD = nearest;
			}
		}
		if (best < 0) {
			break;
		}
		keep[k++] = best;
	}
	return k;
}

// ---- box.go ----

#define NC_PREFER_FACE_REL 0.05f
#define NC_PREFER_FACE_ABS 1e-3f
#define NC_EDGE_PARALLEL_SQ 1e-5f
#define NC_ID_BOX_EDGES (1u << 13)

TB_FN float ncPreferFaceTol(float sep, float scale) {
	return NC_PREFER_FACE_REL * ncAbs(sep) + NC_PREFER_FACE_ABS * scale;
}

TB_FN int ncFaceIndex(int axis, float sg) { return sg < 0 ? 2 * axis + 1 : 2 * axis; }

TB_FN void ncBoxFaceContact(TbContact *m, const NcFrame &ref, NcVec hr, int i, float sg, const NcFrame &inc, NcVec hi,
                            bool refIsB, float margin) {
	NcVec nRef = ncScale(ref.ax[i], sg);
	int k = 0;
	float dk = ncDot(nRef, inc.ax[0]);
	float dj = ncDot(nRef, inc.ax[1]);
	if (ncAbs(dj) > ncAbs(dk)) {
		k = 1;
		dk = dj;
	}
	dj = ncDot(nRef, inc.ax[2]);
	if (ncAbs(dj) > ncAbs(dk)) {
		k = 2;
		dk = dj;
	}
	float tau = -ncSign(dk);
	int k1 = ncNext(k, 1), k2 = ncNext(k, 2);
	NcVec ctr = ncToLocal(ref, ncMadd(inc.c, inc.ax[k], tau * ncGet(hi, k)));
	NcVec eu = ncDirToLocal(ref, ncScale(inc.ax[k1], ncGet(hi, k1)));
	NcVec ev = ncDirToLocal(ref, ncScale(inc.ax[k2], ncGet(hi, k2)));

	int i1 = ncNext(i, 1), i2 = ncNext(i, 2);
	float hri = ncGet(hr, i);
	NcClipVert poly[NC_MAX_POLY], tmp[NC_MAX_POLY];
	NcVec corners[4] = {ncAdd(ncAdd(ctr, eu), ev), ncAdd(ncSub(ctr, eu), ev), ncSub(ncSub(ctr, eu), ev),
	                    ncSub(ncAdd(ctr, eu), ev)};
	for (int c = 0; c < 4; c++) {
		NcVec x = corners[c];
		poly[c].u = ncGet(x, i1);
		poly[c].v = ncGet(x, i2);
		poly[c].w = sg * ncGet(x, i) - hri;
		poly[c].feat = c;
		poly[c].edge = c;
	}
	float lu = ncGet(hr, i1), lv = ncGet(hr, i2);
	float bu = lu * NC_CLIP_SLACK, bv = lv * NC_CLIP_SLACK;
	int n = 4;
	NcClipVert *pts = ncClipFace(poly, tmp, &n, lu, lv, bu, bv);

	int cnt = 0;
	for (int j = 0; j < n; j++) {
		if (pts[j].w < margin) {
			pts[cnt++] = pts[j];
		}
	}
	if (cnt == 0) {
		return;
	}
	int keep[4];
	cnt = ncReduce(pts, cnt, fmaxf(lu, lv), keep);

	unsigned base = ((unsigned)ncFaceIndex(i, sg) << 9) | ((unsigned)ncFaceIndex(k, tau) << 6);
	if (refIsB) {
		base |= 1u << 12;
		ncSetNormal(m, ncNeg(nRef));
	} else {
		ncSetNormal(m, nRef);
	}
	for (int j = 0; j < cnt; j++) {
		const NcClipVert &p = pts[keep[j]];
		NcVec l = ncWith(ncWith(ncWith(ncVec(0, 0, 0), i1, p.u), i2, p.v), i, sg * (hri + p.w / 2));
		ncAddPoint(m, ncToWorld(ref, l), p.w, base | p.feat);
	}
}

TB_FN bool ncBoxEdgeContact(TbContact *m, const NcFrame &fa, NcVec ha, int iE, const NcFrame &fb, NcVec hb, int jE,
                            NcVec d, bool apart, float margin) {
	NcVec ua = fa.ax[iE], ub = fb.ax[jE];
	NcVec L = ncCross(ua, ub);
	L = ncScale(L, 1 / sqrtf(ncDot(L, L)));
	if (ncDot(L, d) < 0) {
		L = ncNeg(L);
	}
	NcVec ca = fa.c, cb = fb.c;
	unsigned idA = 0, idB = 0;
	for (int k = 0; k < 3; k++) {
		if (k != iE) {
			float sa = ncSign(ncDot(L, fa.ax[k]));
			ca = ncMadd(ca, fa.ax[k], sa * ncGet(ha, k));
			idA <<= 1;
			if (sa > 0) {
				idA |= 1;
			}
		}
		if (k != jE) {
			float sb = -ncSign(ncDot(L, fb.ax[k]));
			cb = ncMadd(cb, fb.ax[k], sb * ncGet(hb, k));
			idB <<= 1;
			if (sb > 0) {
				idB |= 1;
			}
		}
	}
	NcVec r = ncSub(ca, cb);
	float b = ncDot(ua, ub);
	float c = ncDot(ua, r), f = ncDot(ub, r);
	float den = 1 - b * b;
	float s = (b * f - c) / den;
	float t = (f - b * c) / den;
	const float slack = 1.001f;
	float hae = ncGet(ha, iE), hbe = ncGet(hb, jE);
	if (apart && (ncAbs(s) > hae * slack || ncAbs(t) > hbe * slack)) {
		return false;
	}
	s = ncClamp(s, -hae, hae);
	t = ncClamp(t, -hbe, hbe);
	NcVec p = ncMadd(ca, ua, s), q = ncMadd(cb, ub, t);
	float sep = ncDot(ncSub(q, p), L);
	if (sep < margin) {
		ncSetNormal(m, L);
		unsigned id = NC_ID_BOX_EDGES | ((((unsigned)iE << 2) | idA) << 4) | ((unsigned)jE << 2) | idB;
		ncAddPoint(m, ncScale(ncAdd(p, q), 0.5f), sep, id);
	}
	return true;
}

// ncEdgeAxis tries the edge axis (i, j) of boxBox whose unnormalised length squared is l2, offset
// projection proj and radii terms r1..r4 (subtracted in that order, as in Go). It returns false when
// the axis separates the boxes by margin or more.
TB_FN bool ncEdgeAxis(float l2, float proj, float r1, float r2, float r3, float r4, float margin, int i, int j,
                      float *sepE, int *iE, int *jE) {
	if (l2 < NC_EDGE_PARALLEL_SQ) {
		return true;
	}
	float s = (ncAbs(proj) - r1 - r2 - r3 - r4) / sqrtf(l2);
	if (s >= margin) {
		return false;
	}
	if (s > *sepE) {
		*sepE = s;
		*iE = i;
		*jE = j;
	}
	return true;
}

TB_FN void ncBoxBox(const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb, float margin,
                    TbContact *m) {
	NcVec ea = ncVec(a.a, a.b, a.c), eb = ncVec(b.a, b.b, b.c);
	float lim = sqrtf(ncDot(ea, ea)) + sqrtf(ncDot(eb, eb)) + margin;
	NcVec cc = ncSub(pb.p, pa.p);
	if (ncDot(cc, cc) > lim * lim) {
		return;
	}
	NcFrame fa = ncMakeFrame(pa), fb = ncMakeFrame(pb);
	float ha0 = a.a, ha1 = a.b, ha2 = a.c;
	float hb0 = b.a, hb1 = b.b, hb2 = b.c;
	NcVec d = ncSub(fb.c, fa.c);
	float r00 = ncDot(fa.ax[0], fb.ax[0]);
	float r01 = ncDot(fa.ax[0], fb.ax[1]);
	float r02 = ncDot(fa.ax[0], fb.ax[2]);
	float r10 = ncDot(fa.ax[1], fb.ax[0]);
	float r11 = ncDot(fa.ax[1], fb.ax[1]);
	float r12 = ncDot(fa.ax[1], fb.ax[2]);
	float r20 = ncDot(fa.ax[2], fb.ax[0]);
	float r21 = ncDot(fa.ax[2], fb.ax[1]);
	float r22 = ncDot(fa.ax[2], fb.ax[2]);
	float a00 = ncAbs(r00), a01 = ncAbs(r01), a02 = ncAbs(r02);
	float a10 = ncAbs(r10), a11 = ncAbs(r11), a12 = ncAbs(r12);
	float a20 = ncAbs(r20), a21 = ncAbs(r21), a22 = ncAbs(r22);
	float ta0 = ncDot(fa.ax[0], d), ta1 = ncDot(fa.ax[1], d), ta2 = ncDot(fa.ax[2], d);
	float tb0 = ncDot(fb.ax[0], d), tb1 = ncDot(fb.ax[1], d), tb2 = ncDot(fb.ax[2], d);

	float sepA = -1e30f;
	int iA = 0;
	float facesA[3] = {ncAbs(ta0) - ha0 - (hb0 * a00 + hb1 * a01 + hb2 * a02),
	                   ncAbs(ta1) - ha1 - (hb0 * a10 + hb1 * a11 + hb2 * a12),
	                   ncAbs(ta2) - ha2 - (hb0 * a20 + hb1 * a21 + hb2 * a22)};
	for (int i = 0; i < 3; i++) {
		float s = facesA[i];
		if (s >= margin) {
			return;
		}
		if (s > sepA) {
			sepA = s;
			iA = i;
		}
	}
	float sepB = -1e30f;
	int iB = 0;
	float facesB[3] = {ncAbs(tb0) - hb0 - (ha0 * a00 + ha1 * a10 + ha2 * a20),
	                   ncAbs(tb1) - hb1 - (ha0 * a01 + ha1 * a11 + ha2 * a21),
	                   ncAbs(tb2) - hb2 - (ha0 * a02 + ha1 * a12 + ha2 * a22)};
	for (int j = 0; j < 3; j++) {
		float s = facesB[j];
		if (s >= margin) {
			return;
		}
		if (s > sepB) {
			sepB = s;
			iB = j;
		}
	}
	float sepE = -1e30f;
	int iE = -1, jE = -1;
	if (!ncEdgeAxis(r10 * r10 + r20 * r20, ta2 * r10 - ta1 * r20, ha1 * a20, ha2 * a10, hb1 * a02, hb2 * a01, margin,
	                0, 0, &sepE, &iE, &jE) ||
	    !ncEdgeAxis(r11 * r11 + r21 * r21, ta2 * r11 - ta1 * r21, ha1 * a21, ha2 * a11, hb2 * a00, hb0 * a02, margin,
	                0, 1, &sepE, &iE, &jE) ||
	    !ncEdgeAxis(r12 * r12 + r22 * r22, ta2 * r12 - ta1 * r22, ha1 * a22, ha2 * a12, hb0 * a01, hb1 * a00, margin,
	                0, 2, &sepE, &iE, &jE) ||
	    !ncEdgeAxis(r20 * r20 + r00 * r00, ta0 * r20 - ta2 * r00, ha2 * a00, ha0 * a20, hb1 * a12, hb2 * a11, margin,
	                1, 0, &sepE, &iE, &jE) ||
	    !ncEdgeAxis(r21 * r21 + r01 * r01, ta0 * r21 - ta2 * r01, ha2 * a01, ha0 * a21, hb2 * a10, hb0 * a12, margin,
	                1, 1, &sepE, &iE, &jE) ||
	    !ncEdgeAxis(r22 * r22 + r02 * r02, ta0 * r22 - ta2 * r02, ha2 * a02, ha0 * a22, hb0 * a11, hb1 * a10, margin,
	                1, 2, &sepE, &iE, &jE) ||
	    !ncEdgeAxis(r00 * r00 + r10 * r10, ta1 * r00 - ta0 * r10, ha0 * a10, ha1 * a00, hb1 * a22, hb2 * a21, margin,
	                2, 0, &sepE, &iE, &jE) ||
	    !ncEdgeAxis(r01 * r01 + r11 * r11, ta1 * r01 - ta0 * r11, ha0 * a11, ha1 * a01, hb2 * a20, hb0 * a22, margin,
	                2, 1, &sepE, &iE, &jE) ||
	    !ncEdgeAxis(r02 * r02 + r12 * r12, ta1 * r02 - ta0 * r12, ha0 * a12, ha1 * a02, hb0 * a21, hb1 * a20, margin,
	                2, 2, &sepE, &iE, &jE)) {
		return;
	}

	NcVec ha = ea, hb = eb;
	float scale = fminf(fmaxf(fmaxf(ha.x, ha.y), ha.z), fmaxf(fmaxf(hb.x, hb.y), hb.z));
	float best = sepA;
	bool useB = sepB > sepA + ncPreferFaceTol(sepA, scale);
	if (useB) {
		best = sepB;
	}
	if (iE >= 0 && sepE > best + ncPreferFaceTol(best, scale) &&
	    ncBoxEdgeContact(m, fa, ha, iE, fb, hb, jE, d, sepE >= 0, margin)) {
		return;
	}
	for (int attempt = 0; attempt < 2 && m->count == 0; attempt++) {
		if (useB) {
			ncBoxFaceContact(m, fb, hb, iB, -ncSign(ncDot(fb.ax[iB], d)), fa, ha, true, margin);
		} else {
			ncBoxFaceContact(m, fa, ha, iA, ncSign(ncDot(fa.ax[iA], d)), fb, hb, false, margin);
		}
		useB = !useB;
	}
}

// ---- capsule.go ----

#define NC_LYING_SIN_SQ 0.0009f // lyingSin*lyingSin, folded as Go folds it
#define NC_FACE_NORMAL_COS 0.998f
#define NC_PERPENDICULAR_TOL_SQ 1e-6f // perpendicularTol*perpendicularTol, folded as Go folds it
#define NC_ID_CAPSULE_CAPSULE 0u
#define NC_ID_BOX_CAPSULE 0x100u
#define NC_ID_CAPSULE_ON_FACE 0x200u
#define NC_ID_CAPSULE_ON_EDGE 0x300u

// ncOffPerpendicularSq is offPerpendicularSq: the squared length of v's part off the direction cr.
TB_FN float ncOffPerpendicularSq(NcVec v, NcVec cr, float crSq, float vSq) {
	float along = ncDot(v, cr);
	return fmaxf(vSq - along * along / crSq, 0);
}

TB_FN void ncCapsuleCapsule(const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb, float margin,
                            TbContact *m) {
	NcVec a0, a1, b0, b1;
	ncCapsuleEnds(a, pa, &a0, &a1);
	ncCapsuleEnds(b, pb, &b0, &b1);
	NcVec da = ncSub(a1, a0), db = ncSub(b1, b0);
	float s, t;
	ncClosestSegments(a0, da, b0, db, &s, &t);
	NcVec p = ncMadd(a0, da, s), q = ncMadd(b0, db, t);
	NcVec v = ncSub(q, p);
	float dist2 = ncDot(v, v);
	float ra = a.a, rb = b.a;
	float lim = ra + rb + margin;
	if (dist2 >= lim * lim && lim > 0) {
		return;
	}
	NcVec cr = ncCross(da, db);
	float crSq = ncDot(cr, cr), aa = ncDot(da, da), bb = ncDot(db, db);
	NcVec n;
	if (s > 0 && s < 1 && t > 0 && t < 1 && crSq > NC_PARALLEL_SIN_SQ * aa * bb &&
	    ncOffPerpendicularSq(v, cr, crSq, dist2) <= NC_PERPENDICULAR_TOL_SQ * ((ra + rb) * (ra + rb) + 1)) {
		n = ncScale(cr, 1 / sqrtf(crSq));
		float side = ncDot(v, n);
		if (side == 0) {
			side = ncDot(n, ncSub(pb.p, pa.p));
		}
		if (side < 0) {
			n = ncNeg(n);
		}
	} else if (dist2 > 1e-14f) {
		n = ncScale(v, 1 / sqrtf(dist2));
	} else {
		n = ncPerpendicular(da);
		if (ncDot(n, ncSub(pb.p, pa.p)) < 0) {
			n = ncNeg(n);
		}
	}
	ncSetNormal(m, n);
	if (aa > NC_DEGENERATE_SQ && bb > NC_DEGENERATE_SQ && crSq < NC_LYING_SIN_SQ * aa * bb) {
		float u0 = ncDot(ncSub(b0, a0), da) / aa, u1 = ncDot(ncSub(b1, a0), da) / aa;
		if (u0 > u1) {
			float x = u0;
			u0 = u1;
			u1 = x;
		}
		float lo = fmaxf(u0, 0), hi = fminf(u1, 1);
		if ((hi - lo) * sqrtf(aa) > 1e-3f * (ra + rb)) {
			NcVec pl = ncMadd(a0, da, lo);
			ncRoundPoint(m, pl, ncMadd(b0, db, ncClosestOnSegment(b0, db, pl)), n, ra, rb, margin,
			             NC_ID_CAPSULE_CAPSULE + 1);
			NcVec ph = ncMadd(a0, da, hi);
			ncRoundPoint(m, ph, ncMadd(b0, db, ncClosestOnSegment(b0, db, ph)), n, ra, rb, margin,
			             NC_ID_CAPSULE_CAPSULE + 2);
			if (m->count > 0) {
				return;
			}
		}
	}
	ncRoundPoint(m, p, q, n, ra, rb, margin, NC_ID_CAPSULE_CAPSULE);
}

TB_FN void ncCapsuleOnFace(TbContact *m, NcVec h, NcVec p0, NcVec d, float r, int k, float sg, float margin) {
	float t0 = 0, t1 = 1;
	unsigned clip0 = 0, clip1 = 0;
	unsigned plane = 1;
	for (int ai = 1; ai <= 2; ai++) {
		int a = ncNext(k, ai);
		float ha = ncGet(h, a), pa = ncGet(p0, a), da = ncGet(d, a);
		float band = ha * NC_CLIP_SLACK;
		for (int si = 0; si < 2; si++) {
			float side = si == 0 ? 1.0f : -1.0f;
			float num = ha - side * pa, den = side * da;
			if (den > 1e-12f) {
				float tt = num / den;
				if (tt < t1 && den - num > band) {
					t1 = tt;
					clip1 = plane;
				}
			} else if (den < -1e-12f) {
				float tt = num / den;
				if (tt > t0 && -num > band) {
					t0 = tt;
					clip0 = plane;
				}
			} else if (num < -band) {
				return;
			}
			plane++;
		}
	}
	if (t0 > t1) {
		return;
	}
	NcVec nl = ncAxis(k, sg);
	unsigned face = (unsigned)ncFaceIndex(k, sg);
	ncSetNormal(m, nl);
	float hk = ncGet(h, k);
	NcVec q = ncMadd(p0, d, t0);
	float s = sg * ncGet(q, k) - hk - r;
	if (s < margin) {
		ncAddPoint(m, ncMadd(q, nl, -(r + s / 2)), s, NC_ID_CAPSULE_ON_FACE | (face << 4) | clip0);
	}
	if ((t1 - t0) * (t1 - t0) * ncDot(d, d) <= 1e-12f * ncDot(h, h)) {
		return;
	}
	q = ncMadd(p0, d, t1);
	s = sg * ncGet(q, k) - hk - r;
	if (s < margin) {
		ncAddPoint(m, ncMadd(q, nl, -(r + s / 2)), s, NC_ID_CAPSULE_ON_FACE | (face << 4) | (1u << 3) | clip1);
	}
}

TB_FN void ncBoxCapsule(const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb, float margin,
                        TbContact *m) {
	NcVec h = ncVec(a.a, a.b, a.c);
	float r = b.a;
	NcVec e0, e1;
	ncCapsuleEnds(b, pb, &e0, &e1);
	NcVec c = pa.p;
	{
		float lim = sqrtf(ncDot(h, h)) + r + margin;
		NcVec q = ncSub(ncMadd(e0, ncSub(e1, e0), ncClosestOnSegment(e0, ncSub(e1, e0), c)), c);
		if (ncDot(q, q) > lim * lim) {
			return;
		}
	}
	NcFrame f = ncMakeFrame(pa);
	NcVec p0 = ncToLocal(f, e0), p1 = ncToLocal(f, e1);
	NcVec d = ncSub(p1, p0);
	float dist2;
	float t = ncClosestSegmentBox(p0, d, h, &dist2);
	float lim = r + margin;
	if (dist2 >= lim * lim && lim > 0) {
		return;
	}
	float scale = fmaxf(fmaxf(h.x, h.y), h.z);
	float eps = 1e-5f * scale;
	if (dist2 > eps * eps) {
		NcVec q = ncMadd(p0, d, t);
		unsigned region;
		NcVec bp = ncClampBox(q, h, &region);
		NcVec nl = ncScale(ncSub(q, bp), 1 / sqrtf(dist2));
		int k;
		float sg;
		bool onFace = ncRegionFace(region, &k, &sg);
		bool nearFace = false;
		if (!onFace) {
			k = 0;
			if (ncAbs(nl.y) > ncAbs(ncGet(nl, k))) {
				k = 1;
			}
			if (ncAbs(nl.z) > ncAbs(ncGet(nl, k))) {
				k = 2;
			}
			sg = ncSign(ncGet(nl, k));
			nearFace = ncAbs(ncGet(nl, k)) >= NC_FACE_NORMAL_COS;
		}
		if (onFace || nearFace) {
			ncCapsuleOnFace(m, h, p0, d, r, k, sg, margin);
			if (nearFace && m->count > 0) {
				float low = fminf(sg * ncGet(p0, k), sg * ncGet(p1, k)) - ncGet(h, k) - r;
				float clipped = m->pts[0].sep;
				if (m->count > 1) {
					clipped = fminf(clipped, m->pts[1].sep);
				}
				if (low < clipped - ncPreferFaceTol(clipped, scale)) {
					m->count = 0;
				}
			}
			if (m->count > 0) {
				ncManifoldToWorld(m, f);
				return;
			}
		}
		float s = sqrtf(dist2) - r;
		if (s >= margin) {
			return;
		}
		ncSetNormal(m, nl);
		ncAddPoint(m, ncMadd(bp, nl, s / 2), s, NC_ID_BOX_CAPSULE + region);
		ncManifoldToWorld(m, f);
		return;
	}

	float faceSep = -1e30f, faceSg = 1;
	int faceK = 0;
	for (int k = 0; k < 3; k++) {
		float x0 = ncGet(p0, k), x1 = ncGet(p1, k), hk = ncGet(h, k);
		float s = fminf(x0, x1) - hk, sg = 1;
		float o = -hk - fmaxf(x0, x1);
		if (o > s) {
			s = o;
			sg = -1;
		}
		if (s > faceSep) {
			faceSep = s;
			faceK = k;
			faceSg = sg;
		}
	}
	float edgeSep = -1e30f;
	int edgeK = -1;
	NcVec edgeN = ncVec(0, 0, 0);
	float dd = ncDot(d, d);
	if (dd > NC_DEGENERATE_SQ) {
		for (int k = 0; k < 3; k++) {
			NcVec L = ncCross(d, ncAxis(k, 1));
			float l2 = ncDot(L, L);
			if (l2 < 1e-6f * dd) {
				continue;
			}
			L = ncScale(L, 1 / sqrtf(l2));
			float cp = ncDot(p0, L);
			float s = ncAbs(cp) - (h.x * ncAbs(L.x) + h.y * ncAbs(L.y) + h.z * ncAbs(L.z));
			if (s > edgeSep) {
				edgeSep = s;
				edgeK = k;
				edgeN = ncScale(L, ncSign(cp));
			}
		}
	}
	if (edgeK < 0 || edgeSep <= faceSep + ncPreferFaceTol(faceSep, scale)) {
		ncCapsuleOnFace(m, h, p0, d, r, faceK, faceSg, margin);
		if (m->count == 0) {
			NcVec q = p0;
			if (faceSg * ncGet(p1, faceK) < faceSg * ncGet(p0, faceK)) {
				q = p1;
			}
			unsigned unused;
			NcVec bp = ncClampBox(q, h, &unused);
			bp = ncWith(bp, faceK, faceSg * ncGet(h, faceK));
			NcVec nl = ncAxis(faceK, faceSg);
			float s = ncDot(ncSub(q, bp), nl) - r;
			ncSetNormal(m, nl);
			ncAddPoint(m, ncMadd(bp, nl, s / 2), s, NC_ID_BOX_CAPSULE + ncFaceRegion(faceK, faceSg));
		}
		ncManifoldToWorld(m, f);
		return;
	}
	unsigned id = 0;
	NcVec e0l = ncVec(0, 0, 0);
	for (int k = 0; k < 3; k++) {
		float hk = ncGet(h, k);
		if (k == edgeK) {
			e0l = ncWith(e0l, k, -hk);
			continue;
		}
		float sk = ncSign(ncGet(edgeN, k));
		e0l = ncWith(e0l, k, sk * hk);
		id <<= 1;
		if (sk > 0) {
			id |= 1;
		}
	}
	NcVec ed = ncAxis(edgeK, 2 * ncGet(h, edgeK));
	float s, u;
	ncClosestSegments(e0l, ed, p0, d, &s, &u);
	ncSetNormal(m, edgeN);
	ncRoundPoint(m, ncMadd(e0l, ed, s), ncMadd(p0, d, u), edgeN, 0, r, margin,
	             (NC_ID_CAPSULE_ON_EDGE + ((unsigned)edgeK << 2)) | id);
	ncManifoldToWorld(m, f);
}

// ---- collide.go ----

// ncCollide fills m (count, normal, points) for shape a at pose pa and shape b at pose pb, with the
// normal from a to b, as collide.Collide. Two planes never collide. The pairs with a hull are
// ncCollideHull's (hull.cuh).
TB_FN void ncCollide(const TbShape &a, const NcPose &pa, const TbShape &b, const NcPose &pb, float margin,
                     TbContact *m) {
	m->count = 0;
	int ka = a.kind, kb = b.kind;
	if (ka == TB_BOX && kb == TB_BOX) {
		ncBoxBox(a, pa, b, pb, margin, m);
	} else if (ka == TB_SPHERE && kb == TB_SPHERE) {
		ncSphereSphere(a, pa, b, pb, margin, m);
	} else if (ka == TB_CAPSULE && kb == TB_CAPSULE) {
		ncCapsuleCapsule(a, pa, b, pb, margin, m);
	} else if (ka == TB_BOX && kb == TB_SPHERE) {
		ncBoxSphere(a, pa, b, pb, margin, m);
	} else if (ka == TB_SPHERE && kb == TB_BOX) {
		ncBoxSphere(b, pb, a, pa, margin, m);
		ncFlip(m);
	} else if (ka == TB_CAPSULE && kb == TB_SPHERE) {
		ncCapsuleSphere(a, pa, b, pb, margin, m);
	} else if (ka == TB_SPHERE && kb == TB_CAPSULE) {
		ncCapsuleSphere(b, pb, a, pa, margin, m);
		ncFlip(m);
	} else if (ka == TB_BOX && kb == TB_CAPSULE) {
		ncBoxCapsule(a, pa, b, pb, margin, m);
	} else if (ka == TB_CAPSULE && kb == TB_BOX) {
		ncBoxCapsule(b, pb, a, pa, margin, m);
		ncFlip(m);
	} else if (ka == TB_PLANE && kb == TB_BOX) {
		ncPlaneBox(a, pa, b, pb, margin, m);
	} else if (ka == TB_BOX && kb == TB_PLANE) {
		ncPlaneBox(b, pb, a, pa, margin, m);
		ncFlip(m);
	} else if (ka == TB_PLANE && kb == TB_SPHERE) {
		ncPlaneSphere(a, pa, b, pb, margin, m);
	} else if (ka == TB_SPHERE && kb == TB_PLANE) {
		ncPlaneSphere(b, pb, a, pa, margin, m);
		ncFlip(m);
	} else if (ka == TB_PLANE && kb == TB_CAPSULE) {
		ncPlaneCapsule(a, pa, b, pb, margin, m);
	} else if (ka == TB_CAPSULE && kb == TB_PLANE) {
		ncPlaneCapsule(b, pb, a, pa, margin, m);
		ncFlip(m);
	}
}
