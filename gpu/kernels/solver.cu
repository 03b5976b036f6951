// solver.cu: the contact rows of the Jacobi solver's sub-step loop, the CPU's Jacobi step computed the
// same way, one thread per manifold or per body.
//
// A manifold's rows are all computed from the velocities at the start of the pass; each manifold
// records the impulses it applied (imp, three float4 per manifold), and tb_solver_gather then moves
// every dynamic body by the sum of its manifolds' and joints' records, added in a fixed order (by
// manifold index, then by joint index, as the CPU's Jacobi step adds them), with no atomics, so a pass gives the
// same bits from run to run and the same as the CPU. Effective masses use split masses (a body touched by c rows counts as c
// bodies of mass m/c), so the simultaneous corrections sum to one. The manifolds of the last step are
// kept (double-buffered) to warm start this step's by feature id. The Gauss-Seidel kernels at the end
// (PGS) colour the manifolds and the joints on the device and solve a colour's manifolds in one launch,
// each on its bodies' current velocities, as the CPU's PGS pass does.
#include "layout.cuh"
#include "solvermath.cuh"

// TbSolverPoint is one solver contact point (sim's contactPoint): a normal row and two friction rows
// with their angular Jacobian terms fixed for the step. It is laid out for the Jacobi pass
// (tb_solver_jacobi), which runs many times a step and reads only part of it: the fields it reads fill
// the first three 32-byte sectors (96 bytes), those it writes the fourth, and the rest, which
// prepare, refresh, restitution and the export use, come after; 256 bytes in all, so that in a
// 256-byte aligned buffer every point starts a sector (gpu/bandwidth_floor.go counts the sectors).
struct TbSolverPoint {
	// Read by the pass (sector 0 to 2).
	float3 nA, nB;   // rA x n, rB x n
	float3 t1A, t1B; // the same for the first friction direction
	float3 t2A, t2B; // and the second
	float normalMass, softMass, leak, tangentMass1, tangentMass2;
	float sep; // current separation (tb_solver_refresh)
	// Read and written by the pass (sector 3).
	float normalImpulse, tangentImpulse1, tangentImpulse2;
	float maxNormal; // largest normal impulse applied this step (restitution needs contact)
	int sliding;     // the Coulomb clamp was active in the last friction pass
	// Not used by the pass.
	float3 inA, inB, it1A, it1B, it2A, it2B; // the world inverse inertia times the angular terms
	float3 localA, localB;                   // anchors in the bodies' frames (current separation)
	float3 anchorA, anchorB;                 // friction anchors: where the point started sticking, bodies' frames
	float relVel;                            // relative normal velocity before the solve (restitution)
	unsigned id;                             // feature id
	float pad[3];                            // to 256 bytes
};

// TbSolverResist is a manifold's rolling and spinning resistance rows (sim's resistRows): three
// angular rows on the relative angular velocity, about t1, t2 (rolling, clamped to the disc of radius
// maxRoll times the summed normal impulse) and n (spinning, clamped by maxSpin times it). 128 bytes,
// after the points: the pass reads them only for a manifold with resistance.
struct TbSolverResist {
	float maxRoll, maxSpin;              // c_r r and c_s r, r the contact's lever
	float mass1, mass2, massN;           // effective masses about t1, t2 and n
	float3 iA1, iA2, iAN, iB1, iB2, iBN; // the world inverse inertias times t1, t2 and n
	float impulse1, impulse2, impulseN;  // accumulated angular impulse, N m s
	float pad[6];                        // to 128 bytes
};

// TbSolverManifold is the solver's view of one touching pair (sim's manifold). Its header is padded to
// three sectors (96 bytes), so that its points start on sector boundaries (1,248 bytes in all).
struct TbSolverManifold {
	int a, b, count;
	float3 normal, t1, t2;
	float friction, restitution;
	float biasRate, massScale, leak; // soft coefficients of the biased pass
	float3 drift;                    // mean friction-anchor drift (tb_solver_refresh)
	float rolling, spinning;         // the pair's resistance coefficients; both 0: no resistance rows
	float pad[2];                    // to 96 bytes
	TbSolverPoint pts[4];
	TbSolverResist resist;
};

// TbContactOut is a contact point as World.Contacts reports it (tb_solver_export).
struct TbContactOut {
	int a, b; // a is -1 for an unused slot
	float px, py, pz;
	float nx, ny, nz;
	float sep, normalImpulse;
	float fx, fy, fz; // friction impulse, world
};

// tb_solver_sizes writes the sizes of the solver's structures, so the Go side can check its mirrors.
TB_KERNEL void tb_solver_sizes(int *out) {
	if (tbThread() == 0) {
		out[0] = sizeof(TbSolverManifold);
		out[1] = sizeof(TbContactOut);
	}
}
TB_REGISTER(tb_solver_sizes)

// tbManifolds is the number of manifolds this step: the narrow phase's count, capped at the capacity
// (the counter keeps counting past it; the backend grows and re-runs).
TB_FN int tbManifolds(const int *count, int cap) { return min(*count, cap); }

// tb_solver_split counts the contact points touching each body (the Jacobi mass splitting). split must
// be zeroed before; the joints add theirs after.
TB_KERNEL void tb_solver_split(const TbContact *contacts, const int *count, int cap, unsigned *split) {
	int k = tbThread();
	if (k >= tbManifolds(count, cap)) {
		return;
	}
	const TbContact &c = contacts[k];
	atomicAdd(&split[c.a], (unsigned)c.count);
	atomicAdd(&split[c.b], (unsigned)c.count);
}
TB_REGISTER(tb_solver_split)

// tbTangents builds two friction directions orthogonal to n (sim's tangents).
TB_FN void tbTangents(float3 n, float3 *t1, float3 *t2) {
	const float eps = 1e-6f;
	float3 t;
	if (fabsf(n.y) > eps || fabsf(n.z) > eps) {
		t = make_float3(0, n.z, -n.y);
	} else {
		t = make_float3(n.z, 0, -n.x);
	}
	t = tbScale(t, 1 / sqrtf(tbDot(t, t)));
	float3 u = tbCross(t, n);
	*t1 = t;
	*t2 = tbScale(u, 1 / sqrtf(tbDot(u, u)));
}

// tbEffMass returns 1 / (J M^-1 J^T) of a row with split inverse masses (sim's effMass).
TB_FN float tbEffMass(float3 ra, float3 rb, float3 ia, float3 ib, float mA, float mB, float sA, float sB) {
	float k = sA * (mA + tbDot(ra, ia)) + sB * (mB + tbDot(rb, ib));
	return k > 0 ? 1 / k : 0;
}

// tbFindPrev returns last step's manifold of the pair (a, b), or null; prev is sorted by (a, b).
TB_FN const TbSolverManifold *tbFindPrev(const TbSolverManifold *prev, int n, int a, int b) {
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = (int)((unsigned)(lo + hi) >> 1);
		const TbSolverManifold &m = prev[mid];
		if (m.a < a || (m.a == a && m.b < b)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < n && prev[lo].a == a && prev[lo].b == b) {
		return &prev[lo];
	}
	return 0;
}

// tbPrevPoint is sim's prevPoint: last step's point with feature id among the manifolds of old's pair
// (old is the first of them in prev, of n; a pair with a mesh has one per contact normal, and they
// follow it), the first found, with its manifold in *om; null when none has it.
TB_FN const TbSolverPoint *tbPrevPoint(const TbSolverManifold *prev, int n, const TbSolverManifold *old,
                                       unsigned id, const TbSolverManifold **om) {
	for (const TbSolverManifold *m = old; m < prev + n && m->a == old->a && m->b == old->b; m++) {
		for (int j = 0; j < m->count; j++) {
			if (m->pts[j].id == id) {
				*om = m;
				return &m->pts[j];
			}
		}
	}
	*om = 0;
	return 0;
}

// tbNearPoint is sim's nearPoint: the point of old, last step's first manifold of the pair, that a new
// point of contact c at arm rA from A's centre continues although its feature id changed, or -1: the
// nearest on body A within reach (rotA carrying last step's point, fixed in A, to where it is now)
// among those no point of c names by id and not given already (the bits of taken).
TB_FN int tbNearPoint(const TbSolverManifold *old, const TbContact *c, float3 rA, const float *rotA, float reach,
                      unsigned taken) {
	float best = reach * reach;
	int found = -1;
	for (int j = 0; j < old->count; j++) {
		if (taken & (1u << j)) {
			continue;
		}
		int named = 0;
		for (int i = 0; i < c->count; i++) {
			named |= c->pts[i].id == old->pts[j].id;
		}
		if (named) {
			continue;
		}
		float3 d = tbSub(tbMulMat(rotA, old->pts[j].localA), rA);
		float d2 = tbDot(d, d);
		if (d2 < best) {
			best = d2, found = j;
		}
	}
	return found;
}

// tbContactLever is sim's contactLever: the larger distance from a moving body's centre of mass to
// the contact plane, over the points so far (lever) and this one's arms rA and rB.
TB_FN float tbContactLever(float lever, float3 rA, float3 rB, float3 n, float mA, float mB) {
	float d = tbDot(rA, n);
	if (d < 0) {
		d = -d;
	}
	if (mA != 0 && d > lever) {
		lever = d;
	}
	d = tbDot(rB, n);
	if (d < 0) {
		d = -d;
	}
	if (mB != 0 && d > lever) {
		lever = d;
	}
	return lever;
}

// tbResistMass is 1 / (sA d.IA d + sB d.IB d), 0 where that is not positive (resistRows.prepare).
TB_FN float tbResistMass(float3 d, float3 ia, float3 ib, float sA, float sB) {
	float k = sA * tbDot(d, ia) + sB * tbDot(d, ib);
	return k > 0 ? 1 / k : 0;
}

// tbResistPrepare fixes a manifold's resistance rows for the step (resistRows.prepare).
TB_FN void tbResistPrepare(TbSolverManifold &m, const float4 *iA, const float4 *iB, float sA, float sB, float lever) {
	TbSolverResist &r = m.resist;
	r.iA1 = tbMulRows(iA, m.t1), r.iB1 = tbMulRows(iB, m.t1);
	r.mass1 = tbResistMass(m.t1, r.iA1, r.iB1, sA, sB);
	r.iA2 = tbMulRows(iA, m.t2), r.iB2 = tbMulRows(iB, m.t2);
	r.mass2 = tbResistMass(m.t2, r.iA2, r.iB2, sA, sB);
	r.iAN = tbMulRows(iA, m.normal), r.iBN = tbMulRows(iB, m.normal);
	r.massN = tbResistMass(m.normal, r.iAN, r.iBN, sA, sB);
	r.maxRoll = m.rolling * lever, r.maxSpin = m.spinning * lever;
}

// tb_solver_prepare turns each narrow-phase contact into a solver manifold for the step (sim's
// gatherManifolds and prepareContacts): tangents, split effective masses, softness (the static one when
// either body does not move), friction sqrt(fa fb), restitution max(ea, eb), anchors, the pre-solve
// relative normal velocity, and, with warm starting, the impulses and friction anchors of last step's
// point with the same feature id. As in prepareContacts, the seeded friction impulse is none when the
// pair does not rub (friction off or a coefficient of 0), and at most mu times the seeded normal impulse
// when the coefficient was lowered since last step; a point that does not rub is marked sliding, so its
// anchors are taken afresh later.
TB_KERNEL void tb_solver_prepare(const TbContact *contacts, const int *count, int cap, TbSolverManifold *man,
                                 const TbSolverManifold *prev, const int *prevCount, const float4 *pos,
                                 const float4 *rot, const float4 *vel, const float4 *omega, const float4 *invIW,
                                 const float4 *material, const unsigned *split, float softBias, float softMass,
                                 float softLeak, float softCompliance, float staticBias, float staticMass,
                                 float staticLeak, float staticCompliance, int warm, float anchorReach,
                                 int noFriction) {
	int k = tbThread();
	if (k >= tbManifolds(count, cap)) {
		return;
	}
	const TbContact &c = contacts[k];
	TbSolverManifold &m = man[k];
	int a = c.a, o = c.b;
	m.a = a, m.b = o, m.count = c.count;
	float3 n = make_float3(c.nx, c.ny, c.nz);
	m.normal = n;
	float4 matA = material[a], matB = material[o];
	m.friction = sqrtf(matA.x * matB.x);
	m.restitution = fmaxf(matA.y, matB.y);
	m.rolling = fmaxf(matA.z, matB.z);
	m.spinning = fmaxf(matA.w, matB.w);
	int resists = m.rolling > 0 || m.spinning > 0;
	m.resist.impulse1 = 0, m.resist.impulse2 = 0, m.resist.impulseN = 0;
	float4 pA = pos[a], pB = pos[o];
	float mA = pA.w, mB = pB.w;
	const float4 *iA = &invIW[3 * a], *iB = &invIW[3 * o];
	float sA = (float)max(split[a], 1u), sB = (float)max(split[o], 1u);
	tbTangents(n, &m.t1, &m.t2);
	float compliance = softCompliance;
	m.biasRate = softBias, m.massScale = softMass, m.leak = softLeak;
	if (mA == 0 || mB == 0) {
		m.biasRate = staticBias, m.massScale = staticMass, m.leak = staticLeak;
		compliance = staticCompliance;
	}
	m.drift = make_float3(0, 0, 0);
	int rubs = !noFriction && m.friction > 0;
	const TbSolverManifold *old = warm ? tbFindPrev(prev, *prevCount, a, o) : 0;
	float rotA[9], rotB[9];
	tbQuatMat(rot[a], rotA);
	tbQuatMat(rot[o], rotB);
	float3 xA = tbXYZ(pA), xB = tbXYZ(pB);
	float3 vA = tbXYZ(vel[a]), wA = tbXYZ(omega[a]);
	float3 vB = tbXYZ(vel[o]), wB = tbXYZ(omega[o]);
	float lever = 0;
	unsigned near = 0; // the points of old that tbNearPoint gave to earlier points
	for (int i = 0; i < c.count; i++) {
		const TbPoint &pt = c.pts[i];
		TbSolverPoint &cp = m.pts[i];
		cp.id = pt.id;
		float3 half = tbScale(n, 0.5f * pt.sep);
		float3 p = make_float3(pt.px, pt.py, pt.pz);
		float3 rA = tbSub(tbSub(p, half), xA);
		float3 rB = tbSub(tbAdd(p, half), xB);
		cp.nA = tbCross(rA, n), cp.nB = tbCross(rB, n);
		cp.t1A = tbCross(rA, m.t1), cp.t1B = tbCross(rB, m.t1);
		cp.t2A = tbCross(rA, m.t2), cp.t2B = tbCross(rB, m.t2);
		cp.inA = tbMulRows(iA, cp.nA), cp.inB = tbMulRows(iB, cp.nB);
		cp.it1A = tbMulRows(iA, cp.t1A), cp.it1B = tbMulRows(iB, cp.t1B);
		cp.it2A = tbMulRows(iA, cp.t2A), cp.it2B = tbMulRows(iB, cp.t2B);
		cp.localA = tbMulMatT(rotA, rA);
		cp.localB = tbMulMatT(rotB, rB);
		cp.normalMass = tbEffMass(cp.nA, cp.nB, cp.inA, cp.inB, mA, mB, sA, sB);
		// The soft row is the constraint plus a compliance gamma = K / a2, K the row's split inverse
		// effective mass (see prepareContacts).
		cp.softMass = 0, cp.leak = 0;
		if (cp.normalMass > 0) {
			float gamma = compliance / cp.normalMass;
			cp.softMass = 1 / (1 / cp.normalMass + gamma);
			cp.leak = gamma * cp.softMass;
		}
		cp.tangentMass1 = tbEffMass(cp.t1A, cp.t1B, cp.it1A, cp.it1B, mA, mB, sA, sB);
		cp.tangentMass2 = tbEffMass(cp.t2A, cp.t2B, cp.it2A, cp.it2B, mA, mB, sA, sB);
		float3 dv = tbSub(tbSub(tbAdd(vB, tbCross(wB, rB)), vA), tbCross(wA, rA));
		cp.relVel = tbDot(dv, n);
		lever = tbContactLever(lever, rA, rB, n, mA, mB);
		cp.maxNormal = 0;
		cp.normalImpulse = 0, cp.tangentImpulse1 = 0, cp.tangentImpulse2 = 0;
		cp.anchorA = cp.localA, cp.anchorB = cp.localB, cp.sliding = !rubs;
		cp.sep = 0;
		if (!old) {
			continue;
		}
		const TbSolverManifold *om;
		const TbSolverPoint *found = tbPrevPoint(prev, *prevCount, old, cp.id, &om);
		if (!found) {
			int j = tbNearPoint(old, &c, rA, rotA, anchorReach, near);
			if (j >= 0) {
				found = &old->pts[j], om = old;
				near |= 1u << j;
			}
		}
		if (found) {
			const TbSolverPoint &op = *found;
			if (!op.sliding) {
				// Keep the old anchors unless they lie far apart along the contact plane (the feature
				// id then names another point of the manifold).
				float3 d = tbSub(tbSub(tbAdd(tbMulMat(rotB, op.anchorB), xB), tbMulMat(rotA, op.anchorA)), xA);
				d = tbSub(d, tbScale(n, tbDot(d, n)));
				if (tbDot(d, d) < anchorReach * anchorReach) {
					cp.anchorA = op.anchorA, cp.anchorB = op.anchorB;
				}
			}
			cp.normalImpulse = op.normalImpulse;
			if (rubs) {
				// Carry the old friction impulse as a world vector onto the new tangents; clamped to the
				// Coulomb disc of the coefficient when it was lowered since last step (sim's coulomb).
				float3 t = tbAdd(tbScale(om->t1, op.tangentImpulse1), tbScale(om->t2, op.tangentImpulse2));
				float l1 = tbDot(t, m.t1), l2 = tbDot(t, m.t2);
				if (m.friction < om->friction) {
					float maxF = m.friction * cp.normalImpulse;
					float mag2 = l1 * l1 + l2 * l2;
					if (mag2 > maxF * maxF) {
						float sc = maxF / sqrtf(mag2);
						l1 *= sc, l2 *= sc;
					}
				}
				cp.tangentImpulse1 = l1, cp.tangentImpulse2 = l2;
			}
		}
	}
	if (resists) {
		tbResistPrepare(m, iA, iB, sA, sB, lever);
		if (old && !noFriction) {
			// Carry last step's angular impulse as a world vector onto the new axes (resistRows.carry).
			const TbSolverResist &or_ = old->resist;
			float3 l = tbAdd(tbAdd(tbScale(old->t1, or_.impulse1), tbScale(old->t2, or_.impulse2)),
			                 tbScale(old->normal, or_.impulseN));
			m.resist.impulse1 = tbDot(l, m.t1), m.resist.impulse2 = tbDot(l, m.t2), m.resist.impulseN = tbDot(l, n);
		}
	}
}
TB_REGISTER(tb_solver_prepare)

// tbRecord writes manifold k's impulses to its record: lin (b gets +lin, a gets -lin) and the angular
// impulses angA (a gets -angA) and angB (b gets +angB), for tb_solver_gather.
TB_FN void tbRecord(float4 *imp, int k, float3 lin, float3 angA, float3 angB) {
	imp[3 * k] = make_float4(lin.x, lin.y, lin.z, 0);
	imp[3 * k + 1] = make_float4(angA.x, angA.y, angA.z, 0);
	imp[3 * k + 2] = make_float4(angB.x, angB.y, angB.z, 0);
}

// tbWarmStart records manifold k's accumulated impulses (warmStartManifold).
TB_FN void tbWarmStart(int k, const TbSolverManifold *man, float4 *imp) {
	const TbSolverManifold &m = man[k];
	float3 lin = make_float3(0, 0, 0), angA = lin, angB = lin;
	for (int i = 0; i < m.count; i++) {
		const TbSolverPoint &cp = m.pts[i];
		float ln = cp.normalImpulse, l1 = cp.tangentImpulse1, l2 = cp.tangentImpulse2;
		lin = tbAdd(tbAdd(tbAdd(lin, tbScale(m.normal, ln)), tbScale(m.t1, l1)), tbScale(m.t2, l2));
		angA = tbAdd(tbAdd(tbAdd(angA, tbScale(cp.nA, ln)), tbScale(cp.t1A, l1)), tbScale(cp.t2A, l2));
		angB = tbAdd(tbAdd(tbAdd(angB, tbScale(cp.nB, ln)), tbScale(cp.t1B, l1)), tbScale(cp.t2B, l2));
	}
	if (m.rolling > 0 || m.spinning > 0) {
		const TbSolverResist &r = m.resist;
		float3 l = tbAdd(tbAdd(tbScale(m.t1, r.impulse1), tbScale(m.t2, r.impulse2)), tbScale(m.normal, r.impulseN));
		angA = tbAdd(angA, l), angB = tbAdd(angB, l);
	}
	tbRecord(imp, k, lin, angA, angB);
}

// tb_solver_warm_start is tbWarmStart, a thread per manifold.
TB_KERNEL void tb_solver_warm_start(const TbSolverManifold *man, const int *count, int cap, float4 *imp) {
	int k = tbThread();
	if (k < tbManifolds(count, cap)) {
		tbWarmStart(k, man, imp);
	}
}
TB_REGISTER(tb_solver_warm_start)

// tb_solver_adj_count counts, for each dynamic body, the manifolds touching it (sim's buildAdjacency;
// static and kinematic bodies are not moved by impulses, so they get no list).
TB_KERNEL void tb_solver_adj_count(const TbSolverManifold *man, const int *count, int cap, const float4 *pos,
                                   unsigned *deg) {
	int k = tbThread();
	if (k >= tbManifolds(count, cap)) {
		return;
	}
	const TbSolverManifold &m = man[k];
	if (pos[m.a].w != 0) {
		atomicAdd(&deg[m.a], 1u);
	}
	if (pos[m.b].w != 0) {
		atomicAdd(&deg[m.b], 1u);
	}
}
TB_REGISTER(tb_solver_adj_count)

// tb_solver_adj_fill lists each dynamic body's manifolds in adj[start[i]:start[i+1]] as k << 1 | side
// (side 1 where the body is b). The atomics leave each list in any order; tb_solver_adj_sort fixes it.
TB_KERNEL void tb_solver_adj_fill(const TbSolverManifold *man, const int *count, int cap, const float4 *pos,
                                  const unsigned *start, unsigned *fill, int *adj) {
	int k = tbThread();
	if (k >= tbManifolds(count, cap)) {
		return;
	}
	const TbSolverManifold &m = man[k];
	if (pos[m.a].w != 0) {
		adj[start[m.a] + atomicAdd(&fill[m.a], 1u)] = k << 1;
	}
	if (pos[m.b].w != 0) {
		adj[start[m.b] + atomicAdd(&fill[m.b], 1u)] = k << 1 | 1;
	}
}
TB_REGISTER(tb_solver_adj_fill)

// tb_solver_adj_sort sorts each body's list, that is by manifold index, the order in which the CPU's
// gather adds the impulses: every body's, or the listed bodies' only when the step's gathers read no
// other list (Jacobi's, without joints, over the awake list). Lists are short (a dynamic body touches
// a few dozen manifolds at most in the scenes; static bodies, which touch thousands, have none), so an
// insertion sort per body does.
TB_KERNEL void tb_solver_adj_sort(const unsigned *start, int *adj, int n, const int *list, const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		int i = tbBodyAt(list, t);
		for (unsigned p = start[i] + 1; p < start[i + 1]; p++) {
			int e = adj[p];
			unsigned q = p;
			for (; q > start[i] && adj[q - 1] > e; q--) {
				adj[q] = adj[q - 1];
			}
			adj[q] = e;
		}
	}
}
TB_REGISTER(tb_solver_adj_sort)

// tbGather moves dynamic body i by the impulses its manifolds recorded in this pass and,
// with joints set, those its joints recorded (sim's gatherImpulses: the sum in list order, then
// v += invMass lin, omega += invIWorld ang). start/adj list the manifolds, jstart/jadj the joints.
TB_FN void tbGather(int i, const float4 *pos, float4 *vel, float4 *omega, const float4 *invIW, const unsigned *start,
                    const int *adj, const float4 *imp, const int *jstart, const int *jadj, const float4 *jimp,
                    int joints) {
	float invMass = pos[i].w;
	if (invMass == 0) {
		return;
	}
	float3 lin = make_float3(0, 0, 0), ang = lin;
	for (unsigned p = start[i]; p < start[i + 1]; p++) {
		int e = adj[p], k = e >> 1;
		if ((e & 1) == 0) {
			lin = tbSub(lin, tbXYZ(imp[3 * k]));
			ang = tbSub(ang, tbXYZ(imp[3 * k + 1]));
		} else {
			lin = tbAdd(lin, tbXYZ(imp[3 * k]));
			ang = tbAdd(ang, tbXYZ(imp[3 * k + 2]));
		}
	}
	if (joints) {
		for (int p = jstart[i]; p < jstart[i + 1]; p++) {
			int e = jadj[p], k = e >> 1;
			if ((e & 1) == 0) {
				lin = tbSub(lin, tbXYZ(jimp[3 * k]));
				ang = tbSub(ang, tbXYZ(jimp[3 * k + 1]));
			} else {
				lin = tbAdd(lin, tbXYZ(jimp[3 * k]));
				ang = tbAdd(ang, tbXYZ(jimp[3 * k + 2]));
			}
		}
	}
	float3 v = tbAdd(tbXYZ(vel[i]), tbScale(lin, invMass));
	float3 w = tbAdd(tbXYZ(omega[i]), tbMulRows(&invIW[3 * i], ang));
	vel[i] = make_float4(v.x, v.y, v.z, 0);
	omega[i] = make_float4(w.x, w.y, w.z, 0);
}
// tb_solver_gather runs tbGather over the bodies (every body, or the list: see tbBodyCount).
TB_KERNEL void tb_solver_gather(const float4 *pos, float4 *vel, float4 *omega, const float4 *invIW,
                                const unsigned *start, const int *adj, const float4 *imp, const int *jstart,
                                const int *jadj, const float4 *jimp, int joints, int n, const int *list,
                                const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		tbGather(tbBodyAt(list, t), pos, vel, omega, invIW, start, adj, imp, jstart, jadj, jimp, joints);
	}
}
TB_REGISTER(tb_solver_gather)

// tbRefresh recomputes what of manifold k depends on positions (refreshManifold): each point's
// separation, measured between its anchors, and the mean drift of the friction anchors.
TB_FN void tbRefresh(int k, TbSolverManifold *man, const float4 *pos, const float4 *rot) {
	TbSolverManifold &m = man[k];
	float rotA[9], rotB[9];
	tbQuatMat(rot[m.a], rotA);
	tbQuatMat(rot[m.b], rotB);
	float3 xA = tbXYZ(pos[m.a]), xB = tbXYZ(pos[m.b]);
	float3 drift = make_float3(0, 0, 0);
	for (int i = 0; i < m.count; i++) {
		TbSolverPoint &cp = m.pts[i];
		cp.sep = tbDot(tbSub(tbSub(tbAdd(xB, tbMulMat(rotB, cp.localB)), xA), tbMulMat(rotA, cp.localA)), m.normal);
		drift = tbAdd(drift, tbSub(tbSub(tbAdd(xB, tbMulMat(rotB, cp.anchorB)), xA), tbMulMat(rotA, cp.anchorA)));
	}
	m.drift = tbScale(drift, 1 / (float)m.count);
}

// tb_solver_refresh is tbRefresh, a thread per manifold.
TB_KERNEL void tb_solver_refresh(TbSolverManifold *man, const int *count, int cap, const float4 *pos,
                                 const float4 *rot) {
	int k = tbThread();
	if (k < tbManifolds(count, cap)) {
		tbRefresh(k, man, pos, rot);
	}
}
TB_REGISTER(tb_solver_refresh)

// tbRowVel returns the relative velocity along a row: d . (vB - vA) + rb . wB - ra . wA.
TB_FN float tbRowVel(float3 d, float3 ra, float3 rb, float3 vA, float3 wA, float3 vB, float3 wB) {
	return tbDot(d, tbSub(vB, vA)) + tbDot(rb, wB) - tbDot(ra, wA);
}

// tbResistSolve is the resistance rows' solve (sim's resistRows.solve): the rolling pair clamped to a
// disc of maxRoll times the manifold's normal impulse, the spinning row to maxSpin times it, against
// the relative angular velocity w (wB - wA). It updates the accumulated impulses and returns their
// changes along t1, t2 and n. The Jacobi pass and the Gauss-Seidel pass apply them their own ways.
TB_FN void tbResistSolve(TbSolverManifold &m, float3 n, float3 w, float *e1, float *e2, float *e3) {
	TbSolverResist &r = m.resist;
	float total = 0;
	for (int i = 0; i < m.count; i++) {
		total += m.pts[i].normalImpulse;
	}
	float o1 = r.impulse1, o2 = r.impulse2, oN = r.impulseN;
	float l1 = o1 - r.mass1 * tbDot(m.t1, w);
	float l2 = o2 - r.mass2 * tbDot(m.t2, w);
	float maxR = r.maxRoll * total;
	if (l1 * l1 + l2 * l2 > maxR * maxR) {
		float sc = maxR / sqrtf(l1 * l1 + l2 * l2);
		l1 *= sc, l2 *= sc;
	}
	float maxS = r.maxSpin * total;
	float l3 = oN - r.massN * tbDot(n, w);
	if (l3 > maxS) {
		l3 = maxS;
	} else if (l3 < -maxS) {
		l3 = -maxS;
	}
	r.impulse1 = l1, r.impulse2 = l2, r.impulseN = l3;
	*e1 = l1 - o1, *e2 = l2 - o2, *e3 = l3 - oN;
}

// tbJacobi is one Jacobi pass over manifold k (jacobiManifold): every row from the
// velocities at the start of the pass, the impulse changes recorded for the gather. An open
// contact may close its gap this sub-step and no more; a penetrating one is pushed out softly with
// bias, not at all without. Friction is clamped to the Coulomb disc, and in the biased pass a sticking
// contact also closes its friction anchors' drift.
TB_FN void tbJacobi(int k, TbSolverManifold *man, const float4 *vel, const float4 *omega, float4 *imp, float invH,
                    float maxPush, int useBias, int noFriction) {
	TbSolverManifold &m = man[k];
	float3 vA = tbXYZ(vel[m.a]), wA = tbXYZ(omega[m.a]);
	float3 vB = tbXYZ(vel[m.b]), wB = tbXYZ(omega[m.b]);
	float3 n = m.normal;
	float3 lin = make_float3(0, 0, 0), angA = lin, angB = lin;
	for (int i = 0; i < m.count; i++) {
		TbSolverPoint &cp = m.pts[i];
		float vn = tbRowVel(n, cp.nA, cp.nB, vA, wA, vB, wB);
		float s = cp.sep, imp;
		if (s > 0) {
			imp = -cp.normalMass * (vn + s * invH);
		} else if (useBias) {
			imp = -cp.softMass * (vn + fmaxf(m.biasRate * s, -maxPush)) - cp.leak * cp.normalImpulse;
		} else {
			imp = -cp.normalMass * vn;
		}
		float acc = fmaxf(cp.normalImpulse + imp, 0);
		imp = acc - cp.normalImpulse;
		cp.normalImpulse = acc;
		cp.maxNormal = fmaxf(cp.maxNormal, imp);
		lin = tbAdd(lin, tbScale(n, imp));
		angA = tbAdd(angA, tbScale(cp.nA, imp));
		angB = tbAdd(angB, tbScale(cp.nB, imp));
		if (noFriction) {
			continue;
		}
		float vt1 = tbRowVel(m.t1, cp.t1A, cp.t1B, vA, wA, vB, wB);
		float vt2 = tbRowVel(m.t2, cp.t2A, cp.t2B, vA, wA, vB, wB);
		float ms = 1, leak = 0;
		if (useBias) {
			vt1 += tbDot(m.drift, m.t1) * m.biasRate;
			vt2 += tbDot(m.drift, m.t2) * m.biasRate;
			ms = m.massScale, leak = m.leak;
		}
		float l1 = cp.tangentImpulse1 - cp.tangentMass1 * ms * vt1 - leak * cp.tangentImpulse1;
		float l2 = cp.tangentImpulse2 - cp.tangentMass2 * ms * vt2 - leak * cp.tangentImpulse2;
		float maxF = m.friction * cp.normalImpulse;
		cp.sliding = 0;
		float mag2 = l1 * l1 + l2 * l2;
		if (mag2 > maxF * maxF) {
			float sc = maxF / sqrtf(mag2);
			l1 *= sc, l2 *= sc;
			cp.sliding = 1;
		}
		float d1 = l1 - cp.tangentImpulse1, d2 = l2 - cp.tangentImpulse2;
		cp.tangentImpulse1 = l1, cp.tangentImpulse2 = l2;
		lin = tbAdd(tbAdd(lin, tbScale(m.t1, d1)), tbScale(m.t2, d2));
		angA = tbAdd(tbAdd(angA, tbScale(cp.t1A, d1)), tbScale(cp.t2A, d2));
		angB = tbAdd(tbAdd(angB, tbScale(cp.t1B, d1)), tbScale(cp.t2B, d2));
	}
	if (!noFriction && (m.rolling > 0 || m.spinning > 0)) {
		// The resistance rows, from the pass's start velocities.
		float e1, e2, e3;
		tbResistSolve(m, n, tbSub(wB, wA), &e1, &e2, &e3);
		float3 l = tbAdd(tbAdd(tbScale(m.t1, e1), tbScale(m.t2, e2)), tbScale(n, e3));
		angA = tbAdd(angA, l), angB = tbAdd(angB, l);
	}
	tbRecord(imp, k, lin, angA, angB);
}

// tb_solver_jacobi is tbJacobi, a thread per manifold.
TB_KERNEL void tb_solver_jacobi(TbSolverManifold *man, const int *count, int cap, const float4 *vel,
                                const float4 *omega, float4 *imp, float invH, float maxPush, int useBias,
                                int noFriction) {
	int k = tbThread();
	if (k < tbManifolds(count, cap)) {
		tbJacobi(k, man, vel, omega, imp, invH, maxPush, useBias, noFriction);
	}
}
TB_REGISTER(tb_solver_jacobi)

// tbRestitutePoint is one point's restitution row (sim's restituteManifold): a point that approached
// faster than the threshold and pushed this step is driven to leave at e times its approach speed,
// its accumulated normal impulse kept non-negative. It returns the impulse it added (0 for a point
// that does not bounce), for the caller to apply or record.
TB_FN float tbRestitutePoint(TbSolverPoint &cp, float3 n, float e, float threshold, float3 vA, float3 wA, float3 vB,
                             float3 wB) {
	if (cp.relVel > -threshold || cp.maxNormal == 0) {
		return 0;
	}
	float vn = tbRowVel(n, cp.nA, cp.nB, vA, wA, vB, wB);
	float imp = -cp.normalMass * (vn + e * cp.relVel);
	float acc = fmaxf(cp.normalImpulse + imp, 0);
	imp = acc - cp.normalImpulse;
	cp.normalImpulse = acc;
	cp.maxNormal = fmaxf(cp.maxNormal, imp);
	return imp;
}

// tbRestitute is one Jacobi restitution pass over manifold k (restituteManifold with record): points
// that approached faster than the threshold and pushed this step leave at e times their approach speed.
TB_FN void tbRestitute(int k, TbSolverManifold *man, const float4 *vel, const float4 *omega, float4 *imp,
                       float threshold) {
	TbSolverManifold &m = man[k];
	float3 vA = tbXYZ(vel[m.a]), wA = tbXYZ(omega[m.a]);
	float3 vB = tbXYZ(vel[m.b]), wB = tbXYZ(omega[m.b]);
	float3 n = m.normal;
	float3 lin = make_float3(0, 0, 0), angA = lin, angB = lin;
	for (int i = 0; i < m.count; i++) {
		TbSolverPoint &cp = m.pts[i];
		float imp = tbRestitutePoint(cp, n, m.restitution, threshold, vA, wA, vB, wB);
		if (imp == 0) {
			continue;
		}
		lin = tbAdd(lin, tbScale(n, imp));
		angA = tbAdd(angA, tbScale(cp.nA, imp));
		angB = tbAdd(angB, tbScale(cp.nB, imp));
	}
	tbRecord(imp, k, lin, angA, angB);
}

// tb_solver_restitute is tbRestitute, a thread per manifold.
TB_KERNEL void tb_solver_restitute(TbSolverManifold *man, const int *count, int cap, const float4 *vel,
                                   const float4 *omega, float4 *imp, float threshold) {
	int k = tbThread();
	if (k < tbManifolds(count, cap)) {
		tbRestitute(k, man, vel, omega, imp, threshold);
	}
}
TB_REGISTER(tb_solver_restitute)

// tb_solver_keep records how many manifolds this step kept: they are the next step's warm-start source.
TB_KERNEL void tb_solver_keep(const int *count, int cap, int *kept) {
	if (tbThread() == 0) {
		*kept = tbManifolds(count, cap);
	}
}
TB_REGISTER(tb_solver_keep)

// tbExportPoint writes point i of manifold m as World.Contacts reports it (sim's manifoldContacts):
// the midpoint of its anchors on the two bodies, posed by pos and rot, a = -1 past m's points.
TB_FN void tbExportPoint(const TbSolverManifold &m, int i, const float4 *pos, const float4 *rot, TbContactOut &o) {
	if (i >= m.count) {
		o.a = -1, o.b = -1;
		return;
	}
	const TbSolverPoint &cp = m.pts[i];
	float rotA[9], rotB[9];
	tbQuatMat(rot[m.a], rotA);
	tbQuatMat(rot[m.b], rotB);
	float3 pA = tbAdd(tbXYZ(pos[m.a]), tbMulMat(rotA, cp.localA));
	float3 pB = tbAdd(tbXYZ(pos[m.b]), tbMulMat(rotB, cp.localB));
	float3 p = tbScale(tbAdd(pA, pB), 0.5f);
	float3 f = tbAdd(tbScale(m.t1, cp.tangentImpulse1), tbScale(m.t2, cp.tangentImpulse2));
	o.a = m.a, o.b = m.b;
	o.px = p.x, o.py = p.y, o.pz = p.z;
	o.nx = m.normal.x, o.ny = m.normal.y, o.nz = m.normal.z;
	o.sep = tbDot(tbSub(pB, pA), m.normal);
	o.normalImpulse = cp.normalImpulse;
	o.fx = f.x, o.fy = f.y, o.fz = f.z;
}

// tb_solver_export writes the kept manifolds' points as World.Contacts reports them, point i of
// manifold k into slot 4k + i (a = -1 in unused slots).
TB_KERNEL void tb_solver_export(const TbSolverManifold *man, const int *kept, const float4 *pos,
                                const float4 *rot, TbContactOut *out) {
	int s = tbThread();
	int k = s >> 2, i = s & 3;
	if (k >= *kept) {
		return;
	}
	tbExportPoint(man[k], i, pos, rot, out[s]);
}
TB_REGISTER(tb_solver_export)

// --- The sleeping islands' contacts (gpu/slept.go) ------------------------------------------------
//
// When an island falls asleep its pairs leave the broad phase, so the next step has no manifold of it;
// sim's sleep stage keeps the points of the step it fell asleep in for World.Contacts (keepSleptContacts),
// and so does the device: at the sleep stage, each of the step's manifolds with a body of an island
// labelled this step (tb_sleep_label) is marked, the marks are scanned, and the marked manifolds'
// points go after the points kept so far, in manifold order, as sim appends them. A kept point is listed
// while its island sleeps under the label it fell asleep with (the host filters on reading).

// tbSleptLabel is the label body i's island fell asleep under this step, 0 when i is not a dynamic body
// that fell asleep with it (parent and label are the sleep stage's: parent[i] is i's root, label[root]
// the label tb_sleep_label gave, 0 for an island that stays awake; asleep holds the bodies' labels).
TB_FN unsigned tbSleptLabel(const unsigned *flags, const int *parent, const unsigned *label, const unsigned *asleep,
                            int i) {
	if (i < 0 || (flags[i] & TB_TYPE_MASK) != TB_DYNAMIC) {
		return 0;
	}
	unsigned l = label[parent[i]];
	return l != 0 && asleep[i] == l ? l : 0;
}

// tbSleptManifold is the label manifold m's island fell asleep under this step (0: none did).
TB_FN unsigned tbSleptManifold(const TbSolverManifold &m, const unsigned *flags, const int *parent,
                               const unsigned *label, const unsigned *asleep) {
	if (m.count == 0) {
		return 0;
	}
	unsigned l = tbSleptLabel(flags, parent, label, asleep, m.a);
	return l != 0 ? l : tbSleptLabel(flags, parent, label, asleep, m.b);
}

// tb_solver_slept_mark sets mark[k] to 1 for each of this step's *kept manifolds whose island fell
// asleep this step, 0 for the others and for mark[*kept] (so the exclusive scan of mark[0..*kept] ends
// with their number).
TB_KERNEL void tb_solver_slept_mark(const TbSolverManifold *man, const int *kept, const unsigned *flags,
                                    const int *parent, const unsigned *label, const unsigned *asleep,
                                    unsigned *mark) {
	int k = tbThread();
	int n = *kept;
	if (k > n) {
		return;
	}
	mark[k] = k < n && tbSleptManifold(man[k], flags, parent, label, asleep) != 0 ? 1u : 0u;
}
TB_REGISTER(tb_solver_slept_mark)

// tb_solver_slept_keep (tbSleptKeep) writes the points of each marked manifold k (offsets: mark's
// exclusive scan) after the *sleptN manifolds kept so far, point i into slot 4j + i of slept and the island's label into
// sleptLabel[j], j = *sleptN + offsets[k]; a manifold past cap is left out (tb_solver_slept_count
// reports the room needed, and the step runs again with more).
// tbSleptKeep is tb_solver_slept_keep's work for point i of manifold k (below *kept).
TB_FN void tbSleptKeep(int k, int i, const TbSolverManifold *man, const unsigned *offsets, const unsigned *flags,
                       const int *parent, const unsigned *label, const unsigned *asleep, const float4 *pos,
                       const float4 *rot, TbContactOut *slept, unsigned *sleptLabel, const unsigned *sleptN, int cap) {
	if (offsets[k + 1] == offsets[k]) {
		return;
	}
	unsigned j = *sleptN + offsets[k];
	if (j >= (unsigned)cap) {
		return;
	}
	tbExportPoint(man[k], i, pos, rot, slept[4 * j + i]);
	if (i == 0) {
		sleptLabel[j] = tbSleptManifold(man[k], flags, parent, label, asleep);
	}
}

TB_KERNEL void tb_solver_slept_keep(const TbSolverManifold *man, const int *kept, const unsigned *offsets,
                                    const unsigned *flags, const int *parent, const unsigned *label,
                                    const unsigned *asleep, const float4 *pos, const float4 *rot, TbContactOut *slept,
                                    unsigned *sleptLabel, const unsigned *sleptN, int cap) {
	int s = tbThread();
	int k = s >> 2, i = s & 3;
	if (k < *kept) {
		tbSleptKeep(k, i, man, offsets, flags, parent, label, asleep, pos, rot, slept, sleptLabel, sleptN, cap);
	}
}
TB_REGISTER(tb_solver_slept_keep)

// tb_solver_slept_count (tbSleptCount) adds this step's kept manifolds to *sleptN (at most cap) and writes into *need
// how many the list would hold had it room for all.
TB_FN void tbSleptCount(int kept, const unsigned *offsets, unsigned *sleptN, int cap, unsigned *need) {
	unsigned t = *sleptN + offsets[kept];
	*need = t;
	*sleptN = min(t, (unsigned)cap);
}

TB_KERNEL void tb_solver_slept_count(const int *kept, const unsigned *offsets, unsigned *sleptN, int cap,
                                     unsigned *need) {
	if (tbThread() == 0) {
		tbSleptCount(*kept, offsets, sleptN, cap, need);
	}
}
TB_REGISTER(tb_solver_slept_count)

// tb_solver_slept_select marks (mark[j] = 1) each of the *sleptN kept manifolds that body takes part
// in (any body when body < 0) and whose island still sleeps: each of its dynamic bodies is asleep
// (asleep holds the bodies' labels) under the label it fell asleep with; mark[*sleptN] = 0, so the
// exclusive scan of mark ends with their number.
TB_KERNEL void tb_solver_slept_select(const TbContactOut *slept, const unsigned *sleptLabel, const unsigned *sleptN,
                                      const unsigned *flags, const unsigned *asleep, int nBodies, int body,
                                      unsigned *mark) {
	int j = tbThread();
	int n = *sleptN;
	if (j > n) {
		return;
	}
	unsigned keep = 0;
	if (j < n) {
		int ends[2] = {slept[4 * j].a, slept[4 * j].b};
		keep = ends[0] >= 0 && (body < 0 || ends[0] == body || ends[1] == body) ? 1u : 0u;
		for (int e = 0; e < 2 && keep; e++) {
			int i = ends[e];
			if (i < 0 || i >= nBodies || ((flags[i] & TB_TYPE_MASK) == TB_DYNAMIC && asleep[i] != sleptLabel[j])) {
				keep = 0;
			}
		}
	}
	mark[j] = keep;
}
TB_REGISTER(tb_solver_slept_select)

// tb_solver_slept_gather copies the points of the kept manifolds tb_solver_slept_select marked
// (offsets: the marks' exclusive scan) to out, 4 slots a manifold in their order, and writes their
// number to *outN.
TB_KERNEL void tb_solver_slept_gather(const TbContactOut *slept, const unsigned *sleptN, const unsigned *offsets,
                                      TbContactOut *out, unsigned *outN) {
	int s = tbThread();
	int j = s >> 2, i = s & 3;
	int n = *sleptN;
	if (j > n) {
		return;
	}
	if (j == n) {
		if (i == 0) {
			*outN = offsets[n];
		}
		return;
	}
	if (offsets[j + 1] != offsets[j]) {
		out[4 * offsets[j] + i] = slept[4 * j + i];
	}
}
TB_REGISTER(tb_solver_slept_gather)

// --- Gauss-Seidel (sim's PGS) ------------------------------------------------------------------------

// tb_gs_colour colours the constraint graph as sim's colourManifolds and colourJoints do, to the same
// colours: each edge (a manifold or a joint, between its dynamic bodies) takes the lowest colour that
// none of the edges before it sharing a dynamic body took; an edge with all TB_GS_COLOURS busy takes
// the overflow and marks no body. That greedy rule is sequential, but an edge's colour depends only on
// the colours of the earlier edges at its bodies, so the block computes it in rounds: each round, every
// edge whose earlier neighbours all have their colours takes its own. The rounds run as long as the
// longest chain of dependent edges (a stack's height), and the result is the sequential one whatever
// order the threads run in. One block (its barriers), launched with TB_GS_THREADS threads.
//
// Edge k's dynamic bodies are ends[k*stride + offA] and the next int (an index < 0, or a body of
// inverse mass 0, is none); its neighbours are read from the bodies' lists start/adj (entries
// k << 1 | side, sorted by k), as the gathers use them. There are min(*count, cap) edges, or cap when
// count is null. It writes each edge's colour, the edges by colour (order, colour c's from
// colourStart[c] to colourStart[c + 1], the overflow last), and *needed, the colours used (the
// colours that hold edges are 0 to needed-1), or TB_GS_COLOURS + 1 when some edge overflowed. A
// colour's order does not matter (its edges share no dynamic body); the overflow's does, and is sim's:
// with countAt >= 0 by the edge's point count (ends[k*stride + countAt]), most first, then by index
// (the manifolds), otherwise by index (the joints).
#define TB_GS_THREADS 256
TB_KERNEL void tb_gs_colour(const int *ends, int stride, int offA, int countAt, const int *count, int cap,
                            const float4 *pos, const unsigned *start, const int *adj, int *colour, int *order,
                            int *colourStart, int *needed) {
	__shared__ int pending;
	__shared__ int cursor[TB_GS_COLOURS + 1];
	int n = count ? min(*count, cap) : cap;
	int t = threadIdx.x, nt = blockDim.x;
	volatile int *col = colour;
	for (int k = t; k < n; k += nt) {
		col[k] = -1;
	}
	for (int c = t; c <= TB_GS_COLOURS; c += nt) {
		cursor[c] = 0;
	}
	do {
		__syncthreads(); // every thread has read pending, and sees every colour set so far
		if (t == 0) {
			pending = 0;
		}
		__syncthreads();
		for (int k = t; k < n; k += nt) {
			if (col[k] >= 0) {
				continue;
			}
			const int *e = ends + (size_t)k * stride + offA;
			unsigned long long busy = 0;
			bool ready = true;
			for (int side = 0; side < 2 && ready; side++) {
				int x = e[side];
				if (x < 0 || pos[x].w == 0) {
					continue;
				}
				for (unsigned p = start[x]; p < start[x + 1]; p++) {
					int o = adj[p] >> 1;
					if (o >= k) {
						break;
					}
					int c = col[o];
					if (c < 0) {
						ready = false;
						break;
					}
					if (c < TB_GS_COLOURS) {
						busy |= 1ull << c;
					}
				}
			}
			if (!ready) {
				pending = 1;
				continue;
			}
			int c = 0;
			while (c < TB_GS_COLOURS && ((busy >> c) & 1)) {
				c++;
			}
			col[k] = c;
		}
		__syncthreads();
	} while (pending);
	for (int k = t; k < n; k += nt) {
		atomicAdd(&cursor[col[k]], 1);
	}
	__syncthreads();
	if (t == 0) {
		int s = 0, used = 0;
		for (int c = 0; c <= TB_GS_COLOURS; c++) {
			colourStart[c] = s;
			int m = cursor[c];
			cursor[c] = s;
			s += m;
			if (m > 0) {
				used = c + 1;
			}
		}
		colourStart[TB_GS_COLOURS + 1] = s;
		*needed = used;
	}
	__syncthreads();
	for (int k = t; k < n; k += nt) {
		order[atomicAdd(&cursor[col[k]], 1)] = k;
	}
	__syncthreads();
	if (t == 0) {
		// The overflow in sim's order (an insertion sort: it is empty but for extreme scenes).
		int lo = colourStart[TB_GS_COLOURS], hi = colourStart[TB_GS_COLOURS + 1];
		for (int i = lo + 1; i < hi; i++) {
			int k = order[i];
			int key = countAt >= 0 ? -ends[(size_t)k * stride + countAt] : 0;
			int j = i;
			for (; j > lo; j--) {
				int o = order[j - 1];
				int ko = countAt >= 0 ? -ends[(size_t)o * stride + countAt] : 0;
				if (ko < key || (ko == key && o < k)) {
					break;
				}
				order[j] = o;
			}
			order[j] = k;
		}
	}
}
TB_REGISTER_SYNC(tb_gs_colour)

// tbStore writes a body's velocities back, a dynamic one's only: a colour's rows may share static and
// kinematic bodies, which no row moves.
TB_FN void tbStore(float4 *vel, float4 *omega, int i, float invMass, float3 v, float3 w) {
	if (invMass != 0) {
		vel[i] = make_float4(v.x, v.y, v.z, 0);
		omega[i] = make_float4(w.x, w.y, w.z, 0);
	}
}

// tbSolveGS is one Gauss-Seidel pass over manifold m (sim's solveManifold, in its form: the normal rows
// carry dvn = n.(vB - vA), the angular velocities and the sum of their impulses, and the linear
// velocities take that sum after the last row; the friction rows likewise), with unsplit masses. Each
// row sees the rows before it.
TB_FN void tbSolveGS(TbSolverManifold &m, const float4 *pos, float4 *vel, float4 *omega, float invH, float maxPush,
                     int useBias, int noFriction) {
	int ia = m.a, ib = m.b;
	float mA = pos[ia].w, mB = pos[ib].w;
	float mAB = mA + mB;
	float3 vA = tbXYZ(vel[ia]), wA = tbXYZ(omega[ia]);
	float3 vB = tbXYZ(vel[ib]), wB = tbXYZ(omega[ib]);
	float3 n = m.normal;
	float biasRate = m.biasRate;
	float dvn = tbDot(n, tbSub(vB, vA));
	float sum = 0;
	for (int i = 0; i < m.count; i++) {
		TbSolverPoint &cp = m.pts[i];
		float vn = dvn + tbDot(cp.nB, wB) - tbDot(cp.nA, wA);
		float s = cp.sep, imp;
		if (s > 0) {
			imp = -cp.normalMass * (vn + s * invH);
		} else if (useBias) {
			imp = -cp.softMass * (vn + fmaxf(biasRate * s, -maxPush)) - cp.leak * cp.normalImpulse;
		} else {
			imp = -cp.normalMass * vn;
		}
		float acc = cp.normalImpulse + imp;
		if (!(acc > 0)) {
			acc = 0;
		}
		imp = acc - cp.normalImpulse;
		cp.normalImpulse = acc;
		if (imp > cp.maxNormal) {
			cp.maxNormal = imp;
		}
		wA = tbSub(wA, tbScale(cp.inA, imp));
		wB = tbAdd(wB, tbScale(cp.inB, imp));
		dvn += imp * mAB;
		sum += imp;
	}
	vA = tbSub(vA, tbScale(n, sum * mA));
	vB = tbAdd(vB, tbScale(n, sum * mB));
	if (!noFriction) {
		float3 t1 = m.t1, t2 = m.t2;
		float3 dv = tbSub(vB, vA);
		float d1 = tbDot(t1, dv), d2 = tbDot(t2, dv);
		if (useBias) {
			d1 += tbDot(m.drift, t1) * biasRate;
			d2 += tbDot(m.drift, t2) * biasRate;
		}
		float mu = m.friction;
		float sum1 = 0, sum2 = 0;
		for (int i = 0; i < m.count; i++) {
			TbSolverPoint &cp = m.pts[i];
			float vt1 = d1 + tbDot(cp.t1B, wB) - tbDot(cp.t1A, wA);
			float vt2 = d2 + tbDot(cp.t2B, wB) - tbDot(cp.t2A, wA);
			float old1 = cp.tangentImpulse1, old2 = cp.tangentImpulse2;
			float l1, l2;
			if (useBias) {
				l1 = old1 - cp.tangentMass1 * m.massScale * vt1 - m.leak * old1;
				l2 = old2 - cp.tangentMass2 * m.massScale * vt2 - m.leak * old2;
			} else {
				l1 = old1 - cp.tangentMass1 * vt1;
				l2 = old2 - cp.tangentMass2 * vt2;
			}
			float maxF = mu * cp.normalImpulse;
			cp.sliding = 0;
			float mag2 = l1 * l1 + l2 * l2;
			if (mag2 > maxF * maxF) {
				float sc = maxF / sqrtf(mag2);
				l1 *= sc, l2 *= sc;
				cp.sliding = 1;
			}
			float e1 = l1 - old1, e2 = l2 - old2;
			cp.tangentImpulse1 = l1, cp.tangentImpulse2 = l2;
			wA = tbSub(tbSub(wA, tbScale(cp.it1A, e1)), tbScale(cp.it2A, e2));
			wB = tbAdd(tbAdd(wB, tbScale(cp.it1B, e1)), tbScale(cp.it2B, e2));
			d1 += e1 * mAB;
			d2 += e2 * mAB;
			sum1 += e1;
			sum2 += e2;
		}
		vA = tbSub(tbSub(vA, tbScale(t1, sum1 * mA)), tbScale(t2, sum2 * mA));
		vB = tbAdd(tbAdd(vB, tbScale(t1, sum1 * mB)), tbScale(t2, sum2 * mB));
		if (m.rolling > 0 || m.spinning > 0) {
			// The resistance rows at the current angular velocities, applied at once.
			TbSolverResist &r = m.resist;
			float e1, e2, e3;
			tbResistSolve(m, n, tbSub(wB, wA), &e1, &e2, &e3);
			wA = tbSub(tbSub(tbSub(wA, tbScale(r.iA1, e1)), tbScale(r.iA2, e2)), tbScale(r.iAN, e3));
			wB = tbAdd(tbAdd(tbAdd(wB, tbScale(r.iB1, e1)), tbScale(r.iB2, e2)), tbScale(r.iBN, e3));
		}
	}
	tbStore(vel, omega, ia, mA, vA, wA);
	tbStore(vel, omega, ib, mB, vB, wB);
}

// tb_solver_gs is one Gauss-Seidel pass over colour c's manifolds (order, colourStart: tb_gs_colour):
// a thread per manifold, or for the overflow one thread for all of them in order.
TB_KERNEL void tb_solver_gs(TbSolverManifold *man, const int *order, const int *colourStart, int c,
                            const float4 *pos, float4 *vel, float4 *omega, float invH, float maxPush, int useBias,
                            int noFriction) {
	int lo, hi;
	tbColourRange(colourStart, c, &lo, &hi);
	for (int i = lo; i < hi; i++) {
		tbSolveGS(man[order[i]], pos, vel, omega, invH, maxPush, useBias, noFriction);
	}
}
TB_REGISTER(tb_solver_gs)

// tbRestituteGS is the Gauss-Seidel restitution pass over manifold m (sim's restituteManifold,
// unrecorded): each bouncing point's row applied to the bodies before the next.
TB_FN void tbRestituteGS(TbSolverManifold &m, const float4 *pos, float4 *vel, float4 *omega, float threshold) {
	bool bounces = false;
	for (int p = 0; p < m.count; p++) {
		if (m.pts[p].relVel <= -threshold && m.pts[p].maxNormal != 0) {
			bounces = true;
			break;
		}
	}
	if (!bounces) {
		return;
	}
	int ia = m.a, ib = m.b;
	float mA = pos[ia].w, mB = pos[ib].w;
	float3 vA = tbXYZ(vel[ia]), wA = tbXYZ(omega[ia]);
	float3 vB = tbXYZ(vel[ib]), wB = tbXYZ(omega[ib]);
	float3 n = m.normal;
	for (int p = 0; p < m.count; p++) {
		TbSolverPoint &cp = m.pts[p];
		float imp = tbRestitutePoint(cp, n, m.restitution, threshold, vA, wA, vB, wB);
		if (imp == 0) {
			continue;
		}
		vA = tbSub(vA, tbScale(n, imp * mA));
		wA = tbSub(wA, tbScale(cp.inA, imp));
		vB = tbAdd(vB, tbScale(n, imp * mB));
		wB = tbAdd(wB, tbScale(cp.inB, imp));
	}
	tbStore(vel, omega, ia, mA, vA, wA);
	tbStore(vel, omega, ib, mB, vB, wB);
}

// tb_solver_gs_restitute is tbRestituteGS over colour c's manifolds (order, colourStart: tb_gs_colour).
TB_KERNEL void tb_solver_gs_restitute(TbSolverManifold *man, const int *order, const int *colourStart, int c,
                                      const float4 *pos, float4 *vel, float4 *omega, float threshold) {
	int lo, hi;
	tbColourRange(colourStart, c, &lo, &hi);
	for (int i = lo; i < hi; i++) {
		tbRestituteGS(man[order[i]], pos, vel, omega, threshold);
	}
}
TB_REGISTER(tb_solver_gs_restitute)
