// narrow.cu: the narrow phase. One thread per broad-phase pair runs the exact collision routine of
// collide.cuh or hull.cuh (sim/collide's, ported) into a per-pair slot; a scan of the touching flags
// then gives each touching pair its place in the contact list, so the list comes out in pair order, as the CPU's
// gatherManifolds builds it, whatever order the threads ran in (gpu/narrow.go drives the three steps).
// A pair with a static triangle mesh may give several manifolds (mesh.cuh): they wait in the pair's
// NC_MAX_MESH_MANIFOLDS slots of a second array, and the scan counts them all.
#include "mesh.cuh"

#define TB_NARROW_THREADS 128
// TB_NARROW_MESH_SLOTS is how many manifolds a mesh pair may give (collide.MaxMeshManifolds).
#define TB_NARROW_MESH_SLOTS NC_MAX_MESH_MANIFOLDS

// tbNarrowJointed reports whether the key a<<32|b is among the n sorted keys: jointed bodies do not
// collide.
TB_FN bool tbNarrowJointed(const unsigned long long *keys, int n, int a, int b) {
	unsigned long long key = ((unsigned long long)(unsigned)a << 32) | (unsigned)b;
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = (lo + hi) >> 1;
		if (keys[mid] < key) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < n && keys[lo] == key;
}

// tbNarrowLen is |v| as mgl32's Vec3.Len computes it.
TB_FN float tbNarrowLen(float4 v) { return sqrtf(v.x * v.x + v.y * v.y + v.z * v.z); }

TB_FN NcPose tbNarrowPose(const float4 *pos, const float4 *rot, int i) {
	float4 p = pos[i], q = rot[i];
	NcPose o;
	o.p = ncVec(p.x, p.y, p.z);
	o.qx = q.x;
	o.qy = q.y;
	o.qz = q.z;
	o.qw = q.w;
	return o;
}

// tbNarrowMargin is the contact margin of pair (ia, ib), the CPU's (sim's narrowPhase): the speculative
// distance plus how far the pair can close in dt.
TB_FN float tbNarrowMargin(const float4 *vel, const float4 *omega, const TbShape &sa, const TbShape &sb, int ia,
                           int ib, float dt, float speculative) {
	float4 va = vel[ia], vb = vel[ib];
	float rel = tbNarrowLen(make_float4(vb.x - va.x, vb.y - va.y, vb.z - va.z, 0)) * dt +
	            (tbNarrowLen(omega[ia]) * tbBoundingRadius(sa) + tbNarrowLen(omega[ib]) * tbBoundingRadius(sb)) * dt;
	return speculative + rel;
}

// tbNarrowHasMesh reports whether a pair is tb_narrow_meshes' (one of its shapes is a triangle mesh).
TB_FN bool tbNarrowHasMesh(const TbShape &sa, const TbShape &sb) { return sa.kind == TB_MESH || sb.kind == TB_MESH; }

// tbNarrowHasHull reports whether a pair is tb_narrow_hulls' (one of its shapes is a hull, and neither
// a mesh).
TB_FN bool tbNarrowHasHull(const TbShape &sa, const TbShape &sb) {
	return (sa.kind == TB_HULL || sb.kind == TB_HULL) && !tbNarrowHasMesh(sa, sb);
}

// tbNarrowStore writes pair i's manifold m (count 0: none) to its slot and its touching flag.
TB_FN void tbNarrowStore(const TbContact &m, unsigned i, TbContact *cand, unsigned *touching) {
	if (m.count > 0) {
		cand[i] = m;
	} else {
		cand[i].count = 0;
	}
	touching[i] = m.count > 0 ? 1u : 0u;
}

// tb_narrow_collide collides pair i of pairs[:min(*pairCount, pairCapacity)] into cand[i] and sets
// touching[i] to 1 when it has points (0 past the count, for jointed pairs and for pairs apart), so the
// scan over all pairCapacity flags needs no count from the host. A pair with a hull or a mesh is left
// with no points here: tb_narrow_hulls and tb_narrow_meshes, launched after it when some body is a
// hull or a mesh, collide it. Their routines keep arrays the size of a clipped face on the thread's
// stack (a frame of 1.9 KB for hulls, 3.7 KB for meshes), which a kernel reserves for every thread the
// device can hold; in kernels of their own, scenes without hulls or meshes do not pay for them.
TB_KERNEL void tb_narrow_collide(const int2 *pairs, const unsigned *pairCount, int pairCapacity, const float4 *pos,
                                 const float4 *rot, const float4 *vel, const float4 *omega, const TbShape *shape,
                                 const unsigned long long *jointed, int nJointed, float dt, float speculative,
                                 TbContact *cand, unsigned *touching) {
	unsigned i = tbThread();
	if (i >= (unsigned)pairCapacity) {
		return;
	}
	unsigned n = min(*pairCount, (unsigned)pairCapacity);
	if (i >= n) {
		cand[i].count = 0;
		touching[i] = 0;
		return;
	}
	int2 pr = pairs[i];
	int ia = pr.x, ib = pr.y;
	TbContact m;
	m.a = ia;
	m.b = ib;
	m.count = 0;
	m.nx = m.ny = m.nz = 0;
	TbShape sa = shape[ia], sb = shape[ib];
	if (!tbNarrowHasHull(sa, sb) && !tbNarrowHasMesh(sa, sb) && !tbNarrowJointed(jointed, nJointed, ia, ib)) {
		float margin = tbNarrowMargin(vel, omega, sa, sb, ia, ib, dt, speculative);
		ncCollide(sa, tbNarrowPose(pos, rot, ia), sb, tbNarrowPose(pos, rot, ib), margin, &m);
	}
	tbNarrowStore(m, i, cand, touching);
}
TB_REGISTER(tb_narrow_collide)

// TB_NARROW_WIDE marks in touching a hull pair that tb_narrow_hulls left to tb_narrow_hulls_wide: its
// clipping needed more than NC_HULL_SMALL_CLIP points. No pair has that many manifolds.
#define TB_NARROW_WIDE 0xffffffffu
// TB_NARROW_WIDE_THREADS is how many threads tb_narrow_hulls_wide runs (a multiple of
// TB_NARROW_THREADS), each with its own TB_NARROW_WIDE_WORDS words of scratch.
#define TB_NARROW_WIDE_THREADS 256
#define TB_NARROW_WIDE_WORDS (2 * NC_MAX_CLIP * (int)(sizeof(NcClipPt) / 4))

// tbNarrowHull collides hull pair i (pair pr) into its slot of cand and touching with the clipping
// arrays of w; where w gives up (*w.over), the slot is left empty and touching[i] is TB_NARROW_WIDE.
TB_FN void tbNarrowHull(unsigned i, int2 pr, const float4 *pos, const float4 *rot, const float4 *vel,
                        const float4 *omega, const TbShape &sa, const TbShape &sb, const NcHulls &hs,
                        const unsigned long long *jointed, int nJointed, float dt, float speculative,
                        const NcClipBuf &w, TbContact *cand, unsigned *touching) {
	int ia = pr.x, ib = pr.y;
	TbContact m;
	m.a = ia;
	m.b = ib;
	m.count = 0;
	m.nx = m.ny = m.nz = 0;
	if (!tbNarrowJointed(jointed, nJointed, ia, ib)) {
		float margin = tbNarrowMargin(vel, omega, sa, sb, ia, ib, dt, speculative);
		ncCollideHull(hs, sa, tbNarrowPose(pos, rot, ia), sb, tbNarrowPose(pos, rot, ib), margin, w, &m);
	}
	if (w.over && *w.over) {
		cand[i].count = 0;
		touching[i] = TB_NARROW_WIDE;
		return;
	}
	tbNarrowStore(m, i, cand, touching);
}

// tb_narrow_hulls collides the pairs with a hull among pairs[:min(*pairCount, pairCapacity)] into
// their slots of cand and touching, as tb_narrow_collide does the others, reading the hull table
// (hulls and the pools it points into, layout.cuh). It runs after tb_narrow_collide and writes only
// those pairs' slots. Its clipping arrays hold NC_HULL_SMALL_CLIP points (1.3 KB on the stack, where
// NC_MAX_CLIP's would take 20 KB, which the driver reserves for every thread the device can hold): a
// pair that needs more is marked TB_NARROW_WIDE for tb_narrow_hulls_wide, launched after it.
TB_KERNEL void tb_narrow_hulls(const int2 *pairs, const unsigned *pairCount, int pairCapacity, const float4 *pos,
                               const float4 *rot, const float4 *vel, const float4 *omega, const TbShape *shape,
                               const TbHull *hulls, const float4 *hullVerts, const TbHullFace *hullFaces,
                               const int *hullLoops, const TbHullEdge *hullEdges, const unsigned long long *jointed,
                               int nJointed, float dt, float speculative, TbContact *cand, unsigned *touching) {
	unsigned i = tbThread();
	if (i >= min(*pairCount, (unsigned)pairCapacity)) {
		return;
	}
	int2 pr = pairs[i];
	TbShape sa = shape[pr.x], sb = shape[pr.y];
	if (!tbNarrowHasHull(sa, sb)) {
		return;
	}
	NcHulls hs;
	hs.hulls = hulls;
	hs.verts = hullVerts;
	hs.faces = hullFaces;
	hs.loops = hullLoops;
	hs.edges = hullEdges;
	NcClipPt poly[NC_HULL_SMALL_CLIP], tmp[NC_HULL_SMALL_CLIP];
	bool over = false;
	NcClipBuf w;
	w.poly = poly;
	w.tmp = tmp;
	w.cap = NC_HULL_SMALL_CLIP;
	w.over = &over;
	tbNarrowHull(i, pr, pos, rot, vel, omega, sa, sb, hs, jointed, nJointed, dt, speculative, w, cand, touching);
}
TB_REGISTER(tb_narrow_hulls)

// tb_narrow_hulls_wide collides the hull pairs tb_narrow_hulls marked TB_NARROW_WIDE, with clipping
// arrays of NC_MAX_CLIP points (collide's maxClip, so the CPU's result whatever the faces' sizes) in
// global memory: scratch holds TB_NARROW_WIDE_WORDS words for each of its TB_NARROW_WIDE_THREADS
// threads, which stride over the pairs. Such pairs are rare (faces of more than a few dozen
// vertices), so a few threads do, and no thread keeps the arrays on its stack.
TB_KERNEL void tb_narrow_hulls_wide(const int2 *pairs, const unsigned *pairCount, int pairCapacity,
                                    const float4 *pos, const float4 *rot, const float4 *vel, const float4 *omega,
                                    const TbShape *shape, const TbHull *hulls, const float4 *hullVerts,
                                    const TbHullFace *hullFaces, const int *hullLoops, const TbHullEdge *hullEdges,
                                    const unsigned long long *jointed, int nJointed, float dt, float speculative,
                                    unsigned *scratch, TbContact *cand, unsigned *touching) {
	unsigned t = tbThread();
	unsigned n = min(*pairCount, (unsigned)pairCapacity);
	NcHulls hs;
	hs.hulls = hulls;
	hs.verts = hullVerts;
	hs.faces = hullFaces;
	hs.loops = hullLoops;
	hs.edges = hullEdges;
	NcClipBuf w;
	w.poly = reinterpret_cast<NcClipPt *>(scratch + (size_t)TB_NARROW_WIDE_WORDS * t);
	w.tmp = w.poly + NC_MAX_CLIP;
	w.cap = NC_MAX_CLIP;
	w.over = nullptr;
	for (unsigned i = t; i < n; i += gridDim.x * blockDim.x) {
		if (touching[i] != TB_NARROW_WIDE) {
			continue;
		}
		int2 pr = pairs[i];
		TbShape sa = shape[pr.x], sb = shape[pr.y];
		tbNarrowHull(i, pr, pos, rot, vel, omega, sa, sb, hs, jointed, nJointed, dt, speculative, w, cand,
		             touching);
	}
}
TB_REGISTER(tb_narrow_hulls_wide)

// TB_NARROW_MESH_WIDE_WORDS is how many words of scratch each of tb_narrow_meshes_wide's
// TB_NARROW_WIDE_THREADS threads has: NC_MESH_MAX_PTS gathered points, then the two clipping arrays of
// NC_MESH_CLIP points, whose space the reduction's NC_MESH_MAX_PTS points share.
#define TB_NARROW_MESH_WIDE_WORDS                                                                                   \
	((NC_MESH_MAX_PTS * (int)sizeof(NcMeshPt) + 2 * NC_MESH_CLIP * (int)sizeof(NcClipPt)) / 4)

// tbNarrowMesh collides mesh pair i (pair pr) into its slots of meshCand, cand and touching with the
// working memory w; where w gives up (*w.over), the slots are left empty and touching[i] is
// TB_NARROW_WIDE.
TB_FN void tbNarrowMesh(unsigned i, int2 pr, const float4 *pos, const float4 *rot, const float4 *vel,
                        const float4 *omega, const TbShape &sa, const TbShape &sb, const NcHulls &hs,
                        const NcMeshes &ms, const unsigned long long *jointed, int nJointed, float dt,
                        float speculative, const NcMeshBuf &w, TbContact *cand, TbContact *meshCand,
                        unsigned *touching) {
	int ia = pr.x, ib = pr.y;
	int n = 0;
	TbContact *out = &meshCand[(size_t)TB_NARROW_MESH_SLOTS * i];
	if (!tbNarrowJointed(jointed, nJointed, ia, ib)) {
		float margin = tbNarrowMargin(vel, omega, sa, sb, ia, ib, dt, speculative);
		NcPose pa = tbNarrowPose(pos, rot, ia), pb = tbNarrowPose(pos, rot, ib);
		if (sa.kind == TB_MESH) {
			n = ncCollideMesh(ms, hs, sa, pa, sb, pb, margin, w, out);
		} else {
			n = ncCollideMesh(ms, hs, sb, pb, sa, pa, margin, w, out);
			for (int k = 0; k < n; k++) {
				ncFlip(&out[k]);
			}
		}
		for (int k = 0; k < n; k++) {
			out[k].a = ia;
			out[k].b = ib;
		}
	}
	if (ncMeshOver(w)) {
		cand[i].count = 0;
		touching[i] = TB_NARROW_WIDE;
		return;
	}
	cand[i].count = -n;
	touching[i] = (unsigned)n;
}

// tbNarrowMeshTables gathers the hull and mesh tables' pointers the mesh routines read.
TB_FN void tbNarrowMeshTables(const TbHull *hulls, const float4 *hullVerts, const TbHullFace *hullFaces,
                              const int *hullLoops, const TbHullEdge *hullEdges, const TbMesh *meshes,
                              const TbMeshNode *meshNodes, const int *meshOrder, const TbMeshTri *meshTris,
                              const float4 *meshNormals, const float4 *meshVerts, NcHulls *hs, NcMeshes *ms) {
	hs->hulls = hulls;
	hs->verts = hullVerts;
	hs->faces = hullFaces;
	hs->loops = hullLoops;
	hs->edges = hullEdges;
	ms->meshes = meshes;
	ms->nodes = meshNodes;
	ms->order = meshOrder;
	ms->tris = meshTris;
	ms->normals = meshNormals;
	ms->verts = meshVerts;
}

// tb_narrow_meshes collides the pairs with a static triangle mesh among pairs[:min(*pairCount,
// pairCapacity)] (sim's meshPair): the pair's manifolds go to its slots meshCand[TB_NARROW_MESH_SLOTS
// i : ...], in the CPU's order, each with its normal from a to b, and cand[i].count is minus their
// number (tb_narrow_compact reads them there); touching[i] is their number. It runs after the other
// narrow kernels and writes only those pairs' slots. Its working memory is on the thread's stack with
// NC_MESH_SMALL_PTS gathered points and clipping arrays of NC_MESH_SMALL_CLIP (2.8 KB, where the
// largest caps' take 23 KB, which the driver would reserve for every thread the device can hold): a
// pair that needs more is marked TB_NARROW_WIDE for tb_narrow_meshes_wide, launched after it.
TB_KERNEL void tb_narrow_meshes(const int2 *pairs, const unsigned *pairCount, int pairCapacity, const float4 *pos,
                                const float4 *rot, const float4 *vel, const float4 *omega, const TbShape *shape,
                                const TbHull *hulls, const float4 *hullVerts, const TbHullFace *hullFaces,
                                const int *hullLoops, const TbHullEdge *hullEdges, const TbMesh *meshes,
                                const TbMeshNode *meshNodes, const int *meshOrder, const TbMeshTri *meshTris,
                                const float4 *meshNormals, const float4 *meshVerts, const unsigned long long *jointed,
                                int nJointed, float dt, float speculative, TbContact *cand, TbContact *meshCand,
                                unsigned *touching) {
	unsigned i = tbThread();
	if (i >= min(*pairCount, (unsigned)pairCapacity)) {
		return;
	}
	int2 pr = pairs[i];
	TbShape sa = shape[pr.x], sb = shape[pr.y];
	if (!tbNarrowHasMesh(sa, sb)) {
		return;
	}
	NcHulls hs;
	NcMeshes ms;
	tbNarrowMeshTables(hulls, hullVerts, hullFaces, hullLoops, hullEdges, meshes, meshNodes, meshOrder, meshTris,
	                   meshNormals, meshVerts, &hs, &ms);
	NcMeshPt pts[NC_MESH_SMALL_PTS];
	NcClipPt clip[2 * NC_MESH_SMALL_CLIP];
	bool over = false;
	NcMeshBuf w;
	w.pts = pts;
	w.clip = clip;
	w.tmp = clip + NC_MESH_SMALL_CLIP;
	w.sel = clip;
	w.ptsCap = NC_MESH_SMALL_PTS;
	w.clipCap = NC_MESH_SMALL_CLIP;
	w.over = &over;
	tbNarrowMesh(i, pr, pos, rot, vel, omega, sa, sb, hs, ms, jointed, nJointed, dt, speculative, w, cand, meshCand,
	             touching);
}
TB_REGISTER(tb_narrow_meshes)

// tb_narrow_meshes_wide collides the mesh pairs tb_narrow_meshes marked TB_NARROW_WIDE, with
// NC_MESH_MAX_PTS gathered points and clipping arrays of NC_MESH_CLIP (the caps the pair would have
// had on the stack) in global memory: scratch holds TB_NARROW_MESH_WIDE_WORDS words for each of its
// TB_NARROW_WIDE_THREADS threads, which stride over the pairs. Such pairs are rare (a shape over a
// fine grid's dozens of triangles, or a hull face of more than NC_MESH_SMALL_CLIP points), so a few
// threads do, and no thread keeps the arrays on its stack. It runs after tb_narrow_hulls_wide, which
// has cleared the hull pairs' marks by then.
TB_KERNEL void tb_narrow_meshes_wide(const int2 *pairs, const unsigned *pairCount, int pairCapacity,
                                     const float4 *pos, const float4 *rot, const float4 *vel, const float4 *omega,
                                     const TbShape *shape, const TbHull *hulls, const float4 *hullVerts,
                                     const TbHullFace *hullFaces, const int *hullLoops, const TbHullEdge *hullEdges,
                                     const TbMesh *meshes, const TbMeshNode *meshNodes, const int *meshOrder,
                                     const TbMeshTri *meshTris, const float4 *meshNormals, const float4 *meshVerts,
                                     const unsigned long long *jointed, int nJointed, float dt, float speculative,
                                     unsigned *scratch, TbContact *cand, TbContact *meshCand, unsigned *touching) {
	unsigned t = tbThread();
	unsigned n = min(*pairCount, (unsigned)pairCapacity);
	NcHulls hs;
	NcMeshes ms;
	tbNarrowMeshTables(hulls, hullVerts, hullFaces, hullLoops, hullEdges, meshes, meshNodes, meshOrder, meshTris,
	                   meshNormals, meshVerts, &hs, &ms);
	NcMeshBuf w;
	w.pts = reinterpret_cast<NcMeshPt *>(scratch + (size_t)TB_NARROW_MESH_WIDE_WORDS * t);
	w.clip = reinterpret_cast<NcClipPt *>(w.pts + NC_MESH_MAX_PTS);
	w.tmp = w.clip + NC_MESH_CLIP;
	w.sel = w.clip;
	w.ptsCap = NC_MESH_MAX_PTS;
	w.clipCap = NC_MESH_CLIP;
	w.over = nullptr;
	for (unsigned i = t; i < n; i += gridDim.x * blockDim.x) {
		if (touching[i] != TB_NARROW_WIDE) {
			continue;
		}
		int2 pr = pairs[i];
		TbShape sa = shape[pr.x], sb = shape[pr.y];
		if (!tbNarrowHasMesh(sa, sb)) {
			continue;
		}
		tbNarrowMesh(i, pr, pos, rot, vel, omega, sa, sb, hs, ms, jointed, nJointed, dt, speculative, w, cand,
		             meshCand, touching);
	}
}
TB_REGISTER(tb_narrow_meshes_wide)

// tb_narrow_compact copies each touching pair's manifolds to their place offsets[i] (the exclusive scan
// of the touching counts) in contacts: cand[i], or a mesh pair's -cand[i].count manifolds from its
// slots of meshCand. It drops those at or past capacity, and the last thread writes the number of
// manifolds, which may exceed capacity: the host then grows the list and runs again.
TB_KERNEL void tb_narrow_compact(const TbContact *cand, const TbContact *meshCand, const unsigned *offsets,
                                 int pairCapacity, TbContact *contacts, int capacity, unsigned *count) {
	unsigned i = tbThread();
	if (i >= (unsigned)pairCapacity) {
		return;
	}
	int c = cand[i].count;
	unsigned dst = offsets[i], n = 0;
	if (c > 0) {
		n = 1;
		if (dst < (unsigned)capacity) {
			contacts[dst] = cand[i];
		}
	} else if (c < 0) {
		n = (unsigned)-c;
		for (unsigned k = 0; k < n; k++) {
			if (dst + k < (unsigned)capacity) {
				contacts[dst + k] = meshCand[(size_t)TB_NARROW_MESH_SLOTS * i + k];
			}
		}
	}
	if (i == (unsigned)pairCapacity - 1) {
		*count = dst + n;
	}
}
TB_REGISTER(tb_narrow_compact)
