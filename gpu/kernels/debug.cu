// debug.cu: the window's debug lines (contact crosses and normals, body AABBs, BVH level boxes),
// written straight from the device buffers into the renderer's line buffer (on the interop path a
// mapped GL buffer), so that a debug layer does not need the bodies on the host.
//
// A vertex is render.LineVertex: position (3 floats), colour (4 floats), 28 bytes; a line is two
// vertices. Each layer is laid out as the window's CPU path (ui/debug.go) appends it: items in the
// same order, each item's vertices in render.Frame's Line/Box/Cross order. Items are placed by a
// stable compaction: a flag kernel marks them, gpu/debug.go scans the marks, and the write kernels put
// item k at its rank, so the output does not depend on thread order.
#include "broad.cuh"

// TbLineVertex is render.LineVertex.
struct TbLineVertex {
	float p[3];
	float c[4];
};

// TbDebugPoint is solver.cu's TbContactOut (tb_solver_export's output), read here.
struct TbDebugPoint {
	int a, b; // a is -1 for an unused slot
	float px, py, pz;
	float nx, ny, nz;
	float sep, normalImpulse;
	float fx, fy, fz;
};

// Palette entries (float4 palette[4]), the window's colours.
#define TB_DEBUG_CONTACT 0
#define TB_DEBUG_NORMAL 1
#define TB_DEBUG_AABB 2
#define TB_DEBUG_BVH 3

// Vertices per item: render.Frame's Cross (3 lines), Line, Box (12 edges).
#define TB_CROSS_VERTS 6
#define TB_LINE_VERTS 2
#define TB_BOX_VERTS 24

// tbLine writes render.Frame.Line(a, b, c) at v.
TB_FN void tbLine(TbLineVertex *v, const float a[3], const float b[3], float4 c) {
	for (int k = 0; k < 3; k++) {
		v[0].p[k] = a[k];
		v[1].p[k] = b[k];
	}
	float cv[4] = {c.x, c.y, c.z, c.w};
	for (int k = 0; k < 4; k++) {
		v[0].c[k] = cv[k];
		v[1].c[k] = cv[k];
	}
}

// tbCross writes render.Frame.Cross(p, s, c) at v: one line per axis, p -+ s along it.
TB_FN void tbCross(TbLineVertex *v, const float p[3], float s, float4 c) {
	for (int k = 0; k < 3; k++) {
		float a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
		a[k] = p[k] - s;
		b[k] = p[k] + s;
		tbLine(v + 2 * k, a, b, c);
	}
}

// tbBoxLines writes render.Frame.Box(lo, hi, c) at v: for each corner i (bit k set: hi along k), the
// edges to the corners i | 1<<k above it.
TB_FN void tbBoxLines(TbLineVertex *v, const TbBox &box, float4 c) {
	int e = 0;
	for (int i = 0; i < 8; i++) {
		for (int k = 0; k < 3; k++) {
			int j = i | (1 << k);
			if (j == i) {
				continue;
			}
			float a[3], b[3];
			for (int x = 0; x < 3; x++) {
				a[x] = (i >> x & 1) ? box.hi[x] : box.lo[x];
				b[x] = (j >> x & 1) ? box.hi[x] : box.lo[x];
			}
			tbLine(v + 2 * e, a, b, c);
			e++;
		}
	}
}

// tb_debug_contact_flag marks the used slots of tb_solver_export's output (launched over its
// capacity: the slot count lives on the device, kept x 4) and takes the largest normal impulse
// (maxN must start at 0; impulses are never negative).
TB_KERNEL void tb_debug_contact_flag(const TbDebugPoint *pts, const int *kept, int slots, unsigned *flag,
                                     float *maxN) {
	int s = tbThread();
	if (s >= slots) {
		return;
	}
	bool used = s < 4 * *kept && pts[s].a >= 0;
	flag[s] = used;
	if (used) {
		tbAtomicMaxFloat(maxN, pts[s].normalImpulse);
	}
}
TB_REGISTER(tb_debug_contact_flag)

// tb_debug_contacts writes each used contact's cross (cross != 0) then its normal (normals != 0), as the
// window's loop does per contact: the normal is 0.05 m long plus 0.55 m scaled by its impulse over the
// largest. Contact k's vertices start at base + rank[k] x (its vertex count); nothing is written past
// capacity vertices.
TB_KERNEL void tb_debug_contacts(const TbDebugPoint *pts, const unsigned *flag, const unsigned *rank, int slots,
                                 const float *maxN, int cross, int normals, const float4 *palette,
                                 TbLineVertex *dst, int base, int capacity) {
	int s = tbThread();
	if (s >= slots || !flag[s]) {
		return;
	}
	int per = (cross ? TB_CROSS_VERTS : 0) + (normals ? TB_LINE_VERTS : 0);
	long long at = base + (long long)rank[s] * per;
	if (per == 0 || at + per > capacity) {
		return;
	}
	const TbDebugPoint &c = pts[s];
	float p[3] = {c.px, c.py, c.pz};
	TbLineVertex *v = dst + at;
	if (cross) {
		tbCross(v, p, 0.05f, palette[TB_DEBUG_CONTACT]);
		v += TB_CROSS_VERTS;
	}
	if (normals) {
		float l = 0.05f, m = *maxN;
		if (m > 0) {
			float r = 0.55f * c.normalImpulse; // Go's order: (0.55 * impulse) / max
			l += r / m;
		}
		float n[3] = {c.nx, c.ny, c.nz}, e[3];
		for (int k = 0; k < 3; k++) {
			float d = n[k] * l;
			e[k] = p[k] + d;
		}
		tbLine(v, p, e, palette[TB_DEBUG_NORMAL]);
	}
}
TB_REGISTER(tb_debug_contacts)

// tb_debug_body_flag marks the bodies that are not planes: the window draws no box for a plane.
TB_KERNEL void tb_debug_body_flag(const TbShape *shape, unsigned *flag, int n) {
	int i = tbThread();
	if (i >= n) {
		return;
	}
	flag[i] = shape[i].kind != TB_PLANE;
}
TB_REGISTER(tb_debug_body_flag)

// tb_debug_boxes writes the marked bodies' boxes (tb_broad_bounds' output with no sweep or margin: the
// shapes' bounds at their poses), body i's at base + rank[i] x 24.
TB_KERNEL void tb_debug_boxes(const TbBox *boxes, const unsigned *flag, const unsigned *rank, int n,
                              const float4 *palette, TbLineVertex *dst, int base, int capacity) {
	int i = tbThread();
	if (i >= n || !flag[i]) {
		return;
	}
	long long at = base + (long long)rank[i] * TB_BOX_VERTS;
	if (at + TB_BOX_VERTS > capacity) {
		return;
	}
	tbBoxLines(dst + at, boxes[i], palette[TB_DEBUG_AABB]);
}
TB_REGISTER(tb_debug_boxes)

// tbDrawnBVHBox is the window's filter: a box as wide as a plane's would fill the view.
TB_FN bool tbDrawnBVHBox(const TbBox &b) { return b.lo[0] <= b.hi[0] && b.hi[0] - b.lo[0] < TB_PLANE_EXTENT; }

// tb_debug_bvh_flag marks the boxes of sim/bvh's LevelBoxes(depth) (depth >= 1) in the tree of n
// leaves: internal node i's child c is one when it sits at the depth, or is a leaf above it. Those
// children's leaf ranges split the leaves, so the last sorted leaf under each is a distinct slot, in
// the order of LevelBoxes' depth-first walk (the left child's range comes first). slot[last] gets the
// child (2i + c) and flag[last] 1 when the window draws the box; flag must be zeroed before.
TB_KERNEL void tb_debug_bvh_flag(const TbNode *nodes, const int *parent, int n, int depth, unsigned *flag,
                                 int *slot) {
	int i = tbThread();
	if (i >= n - 1) {
		return;
	}
	int d = 0; // node i's depth: its parent links up to the root
	for (int up = parent[i]; up >= 0; up = parent[up >> 1]) {
		d++;
	}
	if (d + 1 > depth) {
		return;
	}
	const TbNode &nd = nodes[i];
	for (int c = 0; c < 2; c++) {
		if (d + 1 != depth && nd.child[c] >= 0) {
			continue;
		}
		unsigned last = nd.last[c] & TB_LAST_MASK;
		if (last < (unsigned)n && tbDrawnBVHBox(nd.box[c])) {
			flag[last] = 1;
			slot[last] = 2 * i + c;
		}
	}
}
TB_REGISTER(tb_debug_bvh_flag)

// tb_debug_bvh_root marks LevelBoxes(0): the root's box, the union of its children's, in slot 0
// (slot -1 for the union). flag must be zeroed before.
TB_KERNEL void tb_debug_bvh_root(const TbNode *nodes, int n, unsigned *flag, int *slot) {
	if (tbThread() != 0 || n < 2) {
		return;
	}
	TbBox b;
	for (int k = 0; k < 3; k++) {
		b.lo[k] = fminf(nodes[0].box[0].lo[k], nodes[0].box[1].lo[k]);
		b.hi[k] = fmaxf(nodes[0].box[0].hi[k], nodes[0].box[1].hi[k]);
	}
	if (tbDrawnBVHBox(b)) {
		flag[0] = 1;
		slot[0] = -1;
	}
}
TB_REGISTER(tb_debug_bvh_root)

// tb_debug_bvh writes the marked level boxes, slot k's at base + rank[k] x 24.
TB_KERNEL void tb_debug_bvh(const TbNode *nodes, const unsigned *flag, const int *slot, const unsigned *rank,
                            int n, const float4 *palette, TbLineVertex *dst, int base, int capacity) {
	int k = tbThread();
	if (k >= n || !flag[k]) {
		return;
	}
	long long at = base + (long long)rank[k] * TB_BOX_VERTS;
	if (at + TB_BOX_VERTS > capacity) {
		return;
	}
	int s = slot[k];
	TbBox b;
	if (s < 0) {
		for (int x = 0; x < 3; x++) {
			b.lo[x] = fminf(nodes[0].box[0].lo[x], nodes[0].box[1].lo[x]);
			b.hi[x] = fmaxf(nodes[0].box[0].hi[x], nodes[0].box[1].hi[x]);
		}
	} else {
		b = nodes[s >> 1].box[s & 1];
	}
	tbBoxLines(dst + at, b, palette[TB_DEBUG_BVH]);
}
TB_REGISTER(tb_debug_bvh)

// tb_debug_totals writes the number of marked items of each of the three layers (the last exclusive
// rank plus the last mark), for the one read-back that sizes the output.
TB_KERNEL void tb_debug_totals(const unsigned *flagC, const unsigned *rankC, int nC, const unsigned *flagA,
                               const unsigned *rankA, int nA, const unsigned *flagB, const unsigned *rankB, int nB,
                               unsigned *out) {
	if (tbThread() != 0) {
		return;
	}
	out[0] = nC > 0 ? rankC[nC - 1] + flagC[nC - 1] : 0;
	out[1] = nA > 0 ? rankA[nA - 1] + flagA[nA - 1] : 0;
	out[2] = nB > 0 ? rankB[nB - 1] + flagB[nB - 1] : 0;
}
TB_REGISTER(tb_debug_totals)

// tb_debug_sizes writes sizeof(TbLineVertex) and sizeof(TbDebugPoint), for the Go side's checks.
TB_KERNEL void tb_debug_sizes(int *out) {
	if (tbThread() == 0) {
		out[0] = sizeof(TbLineVertex);
		out[1] = sizeof(TbDebugPoint);
	}
}
TB_REGISTER(tb_debug_sizes)
