// lbvh.cu: the linear BVH broad phase of sim/bvh, one kernel per stage (gpu/broad.go runs them):
//
//  1. tb_broad_scene_blocks, tb_broad_scene_frame: the box of the ordinary boxes' centres, reduced per
//     block then in one block, and the Morton frame from it;
//  2. tb_broad_morton: a 30-bit Morton code per body (the body index is the value that rides along);
//  3. tb_broad_radix_count, tb_broad_radix_scatter: a stable LSD radix sort of 4-bit digits (per-block
//     digit counts, a scan of them (scan.cu), a stable scatter), for the codes and later the pairs;
//  4. tb_broad_build: the Karras 2012 radix tree over the sorted 64-bit keys code<<32 | index;
//  5. tb_broad_fit: the bottom-up AABB pass, with an atomic flag per node;
//  6. tb_broad_query: per leaf, the walk up and the stack traversal of sim/bvh's queryKernel, appending
//     pairs through an atomic counter; big bodies (planes, floors) do not walk but are tested by every
//     leaf from a short list the fit makes;
//  7. the pairs sorted by (a, b) with the same radix sort, and tb_broad_pairs_out.
#include "broad.cuh"

#define TB_BROAD_THREADS 256

// --- 1. scene bounds ---------------------------------------------------------------------------------

// tbReduceBox folds the block's per-thread boxes (lo, hi in shared memory, TB_BROAD_THREADS each) into
// element 0. min and max are exact, so the result does not depend on the order.
TB_FN void tbReduceBox(float (*lo)[TB_BROAD_THREADS], float (*hi)[TB_BROAD_THREADS]) {
	unsigned t = threadIdx.x;
	for (unsigned s = TB_BROAD_THREADS / 2; s > 0; s >>= 1) {
		__syncthreads();
		if (t < s) {
			for (int k = 0; k < 3; k++) {
				lo[k][t] = fminf(lo[k][t], lo[k][t + s]);
				hi[k][t] = fmaxf(hi[k][t], hi[k][t + s]);
			}
		}
	}
	__syncthreads();
}

// tb_broad_scene_blocks writes to partial[block] the box of the centres of the ordinary boxes (valid
// and not world-spanning) among those the block visits (a grid-stride loop). Launch with
// TB_BROAD_THREADS threads.
TB_KERNEL void tb_broad_scene_blocks(const TbBox *boxes, int n, TbBox *partial) {
	__shared__ float lo[3][TB_BROAD_THREADS], hi[3][TB_BROAD_THREADS];
	unsigned t = threadIdx.x;
	float l[3] = {INFINITY, INFINITY, INFINITY}, h[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (unsigned i = tbThread(); i < (unsigned)n; i += gridDim.x * blockDim.x) {
		TbBox b = boxes[i];
		if (!tbBoxOrdinary(b)) {
			continue;
		}
		for (int k = 0; k < 3; k++) {
			float c = 0.5f * (b.lo[k] + b.hi[k]);
			l[k] = fminf(l[k], c);
			h[k] = fmaxf(h[k], c);
		}
	}
	for (int k = 0; k < 3; k++) {
		lo[k][t] = l[k];
		hi[k][t] = h[k];
	}
	tbReduceBox(lo, hi);
	if (t == 0) {
		TbBox p;
		for (int k = 0; k < 3; k++) {
			p.lo[k] = lo[k][0];
			p.hi[k] = hi[k][0];
		}
		partial[blockIdx.x] = p;
	}
}
TB_REGISTER_SYNC(tb_broad_scene_blocks)

// tb_broad_scene_frame reduces the nb partial boxes and writes the Morton frame: frame[0..2] the origin,
// frame[3] the scale to [0, 1024), one for all three axes so that the cells are cubes (as sim/bvh).
// An axis without ordinary boxes keeps origin 0; with no extent at all the scale is 0. Launch one
// block of TB_BROAD_THREADS threads.
TB_KERNEL void tb_broad_scene_frame(const TbBox *partial, int nb, float *frame) {
	__shared__ float lo[3][TB_BROAD_THREADS], hi[3][TB_BROAD_THREADS];
	unsigned t = threadIdx.x;
	float l[3] = {INFINITY, INFINITY, INFINITY}, h[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (unsigned i = t; i < (unsigned)nb; i += blockDim.x) {
		TbBox b = partial[i];
		for (int k = 0; k < 3; k++) {
			l[k] = fminf(l[k], b.lo[k]);
			h[k] = fmaxf(h[k], b.hi[k]);
		}
	}
	for (int k = 0; k < 3; k++) {
		lo[k][t] = l[k];
		hi[k][t] = h[k];
	}
	tbReduceBox(lo, hi);
	if (t == 0) {
		float span = 0;
		for (int k = 0; k < 3; k++) {
			frame[k] = 0;
			if (lo[k][0] <= hi[k][0]) {
				frame[k] = lo[k][0];
				span = fmaxf(span, hi[k][0] - lo[k][0]);
			}
		}
		frame[3] = span > 0 ? 1024 / span : 0;
	}
}
TB_REGISTER_SYNC(tb_broad_scene_frame)

// --- 2. Morton codes ---------------------------------------------------------------------------------

// tbExpandBits spreads the low 10 bits of v so that two zero bits follow each: bit k moves to bit 3k.
TB_FN unsigned tbExpandBits(unsigned v) {
	v = (v * 0x00010001u) & 0xFF0000FFu;
	v = (v * 0x00000101u) & 0x0F00F00Fu;
	v = (v * 0x00000011u) & 0xC30C30C3u;
	v = (v * 0x00000005u) & 0x49249249u;
	return v;
}

// tb_broad_morton writes body i's 30-bit Morton code (x highest) in the frame to codes[i] and i to
// index[i]. Centres outside the frame (world-spanning boxes) clamp to its faces; invalid boxes get the
// last code.
TB_KERNEL void tb_broad_morton(const TbBox *boxes, const float *frame, unsigned *codes, unsigned *index, int n) {
	unsigned i = tbThread();
	if (i >= (unsigned)n) {
		return;
	}
	TbBox b = boxes[i];
	unsigned code = (1u << 30) - 1;
	if (tbBoxValid(b)) {
		unsigned q[3];
		float scale = frame[3];
		for (int k = 0; k < 3; k++) {
			float c = (0.5f * (b.lo[k] + b.hi[k]) - frame[k]) * scale;
			q[k] = (unsigned)fminf(fmaxf(c, 0), 1023); // fmaxf takes 0 over a NaN (Inf-Inf, Inf*0)
		}
		code = tbExpandBits(q[0]) << 2 | tbExpandBits(q[1]) << 1 | tbExpandBits(q[2]);
	}
	codes[i] = code;
	index[i] = i;
}
TB_REGISTER(tb_broad_morton)

// --- 3. radix sort -----------------------------------------------------------------------------------

#define TB_RADIX_BITS 4
#define TB_RADIX_DIGITS (1 << TB_RADIX_BITS)
#define TB_RADIX_THREADS 128
#define TB_RADIX_PER_THREAD 8
#define TB_RADIX_TILE (TB_RADIX_THREADS * TB_RADIX_PER_THREAD)

// tbCount is how many values a sort or a pair pass covers: n, or fewer when a device counter says so.
TB_FN unsigned tbCount(int n, const unsigned *count) {
	unsigned m = (unsigned)n;
	if (count) {
		m = min(m, *count);
	}
	return m;
}

// tbRadixCount writes hist[d * tiles + tile] = how many of the tile's TB_RADIX_TILE keys have digit d
// at bit shift: digit-major, so that an exclusive scan of hist gives each (digit, tile) its first place
// in the output. Keys past tbCount(n, count) are left out. A block of TB_RADIX_THREADS threads runs it.
TB_FN void tbRadixCount(unsigned tile, unsigned tiles, const unsigned *keys, int n, const unsigned *count,
                        int shift, unsigned *hist) {
	__shared__ unsigned digits[TB_RADIX_DIGITS];
	unsigned t = threadIdx.x, m = tbCount(n, count);
	if (t < TB_RADIX_DIGITS) {
		digits[t] = 0;
	}
	__syncthreads();
	unsigned base = tile * TB_RADIX_TILE + t * TB_RADIX_PER_THREAD;
	for (int j = 0; j < TB_RADIX_PER_THREAD; j++) {
		if (base + j < m) {
			atomicAdd(&digits[(keys[base + j] >> shift) & (TB_RADIX_DIGITS - 1)], 1u);
		}
	}
	__syncthreads();
	if (t < TB_RADIX_DIGITS) {
		hist[t * tiles + tile] = digits[t];
	}
}

// tb_broad_radix_count is tbRadixCount, a block per tile. Launch with TB_RADIX_THREADS threads.
TB_KERNEL void tb_broad_radix_count(const unsigned *keys, int n, const unsigned *count, int shift,
                                    unsigned *hist) {
	tbRadixCount(blockIdx.x, gridDim.x, keys, n, count, shift, hist);
}
TB_REGISTER_SYNC(tb_broad_radix_count)

// tbRadixScatter moves each key of the tile and its value to its place in the order sorted (stably) by
// the digit at bit shift; offsets is hist after an exclusive scan. Stability within a tile: each thread
// holds TB_RADIX_PER_THREAD consecutive keys, and a block-wide exclusive scan of the per-thread digit
// counts, digit-major, gives every thread the number of the tile's keys that go before its own. A block
// of TB_RADIX_THREADS threads runs it.
TB_FN void tbRadixScatter(unsigned tile, unsigned tiles, const unsigned *keys, const unsigned *vals,
                          unsigned *keysOut, unsigned *valsOut, int n, const unsigned *count, int shift,
                          const unsigned *offsets) {
	__shared__ unsigned cnt[TB_RADIX_DIGITS * TB_RADIX_THREADS]; // [digit][thread]
	__shared__ unsigned part[TB_RADIX_THREADS];
	__shared__ unsigned place[TB_RADIX_DIGITS]; // global place of the tile's first key of each digit
	unsigned t = threadIdx.x, m = tbCount(n, count);
	unsigned base = tile * TB_RADIX_TILE + t * TB_RADIX_PER_THREAD;
	for (int d = 0; d < TB_RADIX_DIGITS; d++) {
		cnt[d * TB_RADIX_THREADS + t] = 0;
	}
	unsigned key[TB_RADIX_PER_THREAD], val[TB_RADIX_PER_THREAD], dig[TB_RADIX_PER_THREAD];
	for (int j = 0; j < TB_RADIX_PER_THREAD; j++) {
		dig[j] = TB_RADIX_DIGITS; // none
		if (base + j < m) {
			key[j] = keys[base + j];
			val[j] = vals[base + j];
			dig[j] = (key[j] >> shift) & (TB_RADIX_DIGITS - 1);
			cnt[dig[j] * TB_RADIX_THREADS + t]++;
		}
	}
	__syncthreads();
	// Exclusive scan of cnt in its flat (digit-major) order: thread t owns entries
	// [t * TB_RADIX_DIGITS, (t + 1) * TB_RADIX_DIGITS).
	unsigned own = t * TB_RADIX_DIGITS, sum = 0;
	for (int e = 0; e < TB_RADIX_DIGITS; e++) {
		sum += cnt[own + e];
	}
	part[t] = sum;
	__syncthreads();
	// Each thread adds up the sums before its own: a loop of at most TB_RADIX_THREADS broadcast reads,
	// which costs about what a log-step scan's barriers do and keeps the block to four barriers.
	unsigned run = 0;
	for (unsigned u = 0; u < t; u++) {
		run += part[u];
	}
	for (int e = 0; e < TB_RADIX_DIGITS; e++) {
		unsigned v = cnt[own + e];
		cnt[own + e] = run;
		run += v;
	}
	__syncthreads();
	// cnt[d][t] now counts the tile's keys of digits below d plus those of digit d in threads below t.
	if (t < TB_RADIX_DIGITS) {
		place[t] = offsets[t * tiles + tile] - cnt[t * TB_RADIX_THREADS];
	}
	__syncthreads();
	for (int j = 0; j < TB_RADIX_PER_THREAD; j++) {
		if (dig[j] < TB_RADIX_DIGITS) {
			unsigned d = dig[j];
			unsigned at = place[d] + cnt[d * TB_RADIX_THREADS + t]++;
			keysOut[at] = key[j];
			valsOut[at] = val[j];
		}
	}
}

// tb_broad_radix_scatter is tbRadixScatter, a block per tile: launch with the grid of
// tb_broad_radix_count.
TB_KERNEL void tb_broad_radix_scatter(const unsigned *keys, const unsigned *vals, unsigned *keysOut,
                                      unsigned *valsOut, int n, const unsigned *count, int shift,
                                      const unsigned *offsets) {
	tbRadixScatter(blockIdx.x, gridDim.x, keys, vals, keysOut, valsOut, n, count, shift, offsets);
}
TB_REGISTER_SYNC(tb_broad_radix_scatter)

// tb_broad_radix_one is the whole sort of a few tiles (gpu/broad.go's radixSort: every pass's digit
// counts, their exclusive scan and the scatter) in one launch of one block of TB_RADIX_THREADS: each
// phase runs tbRadixCount or tbRadixScatter on the tiles one after another where the multi-block sort
// launches a block per tile, and the scan of a few dozen counts is thread 0's, exact as scan.cu's. The
// passes move the data between (keys0, vals0) and (keys1, vals1), starting from the first pair; an
// odd number of passes leaves the result in the second.
TB_KERNEL void tb_broad_radix_one(unsigned *keys0, unsigned *vals0, unsigned *keys1, unsigned *vals1, int n,
                                  const unsigned *count, int bits, unsigned *hist) {
	unsigned tiles = (unsigned)(n + TB_RADIX_TILE - 1) / TB_RADIX_TILE;
	unsigned *keys[2] = {keys0, keys1}, *vals[2] = {vals0, vals1};
	int cur = 0;
	for (int shift = 0; shift < bits; shift += TB_RADIX_BITS) {
		for (unsigned b = 0; b < tiles; b++) {
			tbRadixCount(b, tiles, keys[cur], n, count, shift, hist);
			__syncthreads();
		}
		if (threadIdx.x == 0) {
			unsigned run = 0;
			for (unsigned e = 0; e < TB_RADIX_DIGITS * tiles; e++) {
				unsigned v = hist[e];
				hist[e] = run;
				run += v;
			}
		}
		__syncthreads();
		for (unsigned b = 0; b < tiles; b++) {
			tbRadixScatter(b, tiles, keys[cur], vals[cur], keys[1 - cur], vals[1 - cur], n, count, shift, hist);
			__syncthreads();
		}
		cur = 1 - cur;
	}
}
TB_REGISTER_SYNC(tb_broad_radix_one)

// --- 4. build ----------------------------------------------------------------------------------------

// tbDelta is the length of the common prefix of sorted keys i and j (code << 32 | index), or -1 when j
// is out of range.
TB_FN int tbDelta(const unsigned *codes, const unsigned *index, int n, int i, int j) {
	if (j < 0 || j >= n) {
		return -1;
	}
	unsigned long long a = (unsigned long long)codes[i] << 32 | index[i];
	unsigned long long b = (unsigned long long)codes[j] << 32 | index[j];
	return __clzll((long long)(a ^ b));
}

// tb_broad_build makes internal node i (i < n-1) of the Karras tree over the n sorted keys, as sim/bvh's
// buildKernel: the node's range from the direction of the longer common prefix (doubling, then binary
// search), its split at the last key sharing more than the node's prefix, children (internal node, or
// ~body for a one-leaf child), the last leaf under each child, and the children's parent links
// (parent<<1 | side; node slots: internal 0..n-2, then leaf k at n-1+k). parent[0] = -1 (the root).
TB_KERNEL void tb_broad_build(const unsigned *codes, const unsigned *index, int n, TbNode *nodes, int *parent) {
	int i = (int)tbThread();
	if (i >= n - 1) {
		return;
	}
	if (i == 0) {
		parent[0] = -1;
	}
	int d = tbDelta(codes, index, n, i, i + 1) < tbDelta(codes, index, n, i, i - 1) ? -1 : 1;
	int dmin = tbDelta(codes, index, n, i, i - d);
	int lmax = 2;
	// Past 2n the probe is out of range anyway; the bound only stops a corrupt (unsorted, duplicated)
	// key list from looping here for ever.
	while (lmax < 2 * n && tbDelta(codes, index, n, i, i + lmax * d) > dmin) {
		lmax *= 2;
	}
	int l = 0;
	for (int s = lmax / 2; s > 0; s /= 2) {
		if (tbDelta(codes, index, n, i, i + (l + s) * d) > dmin) {
			l += s;
		}
	}
	int j = i + l * d;
	int dnode = tbDelta(codes, index, n, i, j);
	int s = 0;
	for (int step = max((l + 1) / 2, 1);; step = (step + 1) / 2) { // l >= 1 unless the keys are corrupt
		if (tbDelta(codes, index, n, i, i + (s + step) * d) > dnode) {
			s += step;
		}
		if (step == 1) {
			break;
		}
	}
	int gamma = i + s * d + min(d, 0);
	int first = min(i, j), last = max(i, j);
	TbNode *nd = &nodes[i];
	nd->last[0] = (unsigned)gamma;
	nd->last[1] = (unsigned)last;
	int left = gamma, right = gamma + 1;
	nd->child[0] = gamma;
	nd->child[1] = gamma + 1;
	if (first == gamma) {
		left += n - 1;
		nd->child[0] = ~(int)index[gamma];
	}
	if (last == gamma + 1) {
		right += n - 1;
		nd->child[1] = ~(int)index[gamma + 1];
	}
	parent[left] = i << 1;
	parent[right] = i << 1 | 1;
}
TB_REGISTER(tb_broad_build)

// --- 5. fit ------------------------------------------------------------------------------------------

// tb_broad_fit gives leaf k (sorted position) its body's box (empty for an invalid one) and walks up,
// writing each fitted box into its parent's slot for it. At each node the first child to arrive
// counts itself in flags (zero before the pass) and stops; the second fits the node around both
// children and goes on, so every node is fitted once, after both children. The fence orders a slot's
// write before the count that lets the sibling read it; the sibling reads through volatile so that it
// sees the write and not a cached line.
//
// A valid big box (tbBoxBig in the frame) is also appended to the big list (at most TB_BIG_CAP of
// them; *bigCount, zero before the pass, counts on past it), which tb_broad_query tests every leaf
// against instead of letting the big leaf walk the tree. Which big bodies get a place when there are
// more does not change the pairs, only who finds them.
TB_KERNEL void tb_broad_fit(const TbBox *boxes, const unsigned *moving, const unsigned *index, int n,
                            const int *parent, TbNode *nodes, TbBox *leafBox, unsigned *flags, const float *frame,
                            TbBig *big, unsigned *bigCount) {
	unsigned k = tbThread();
	if (k >= (unsigned)n) {
		return;
	}
	unsigned body = index[k];
	TbBox box = boxes[body];
	if (!tbBoxValid(box)) {
		for (int a = 0; a < 3; a++) {
			box.lo[a] = INFINITY;
			box.hi[a] = -INFINITY;
		}
	}
	leafBox[k] = box;
	unsigned mv = moving[body] ? TB_MOVING_BIT : 0;
	if (tbBoxValid(box) && tbBoxBig(box, frame[3])) {
		unsigned at = atomicAdd(bigCount, 1u);
		if (at < TB_BIG_CAP) {
			TbBig g;
			g.box = box;
			g.leaf = (int)k;
			g.body = (int)body;
			g.moving = mv;
			big[at] = g;
		}
	}
	for (int up = parent[n - 1 + k]; up >= 0;) {
		int idx = up >> 1, side = up & 1;
		volatile TbNode *nd = &nodes[idx];
		for (int a = 0; a < 3; a++) {
			nd->box[side].lo[a] = box.lo[a];
			nd->box[side].hi[a] = box.hi[a];
		}
		nd->last[side] = (nd->last[side] & TB_LAST_MASK) | mv;
		__threadfence();
		if (atomicAdd(&flags[idx], 1u) != 1) {
			return; // 0: the sibling is not fitted yet and will come up this way (more: a corrupt tree)
		}
		__threadfence();
		for (int a = 0; a < 3; a++) {
			box.lo[a] = fminf(nd->box[0].lo[a], nd->box[1].lo[a]);
			box.hi[a] = fmaxf(nd->box[0].hi[a], nd->box[1].hi[a]);
		}
		mv = (nd->last[0] | nd->last[1]) & TB_MOVING_BIT;
		up = parent[idx];
	}
}
TB_REGISTER(tb_broad_fit)

// --- 6. query ----------------------------------------------------------------------------------------

TB_FN bool tbOverlaps(const TbBox &q, const TbBox &b) {
	return q.lo[0] <= b.hi[0] && b.lo[0] <= q.hi[0] && q.lo[1] <= b.hi[1] && b.lo[1] <= q.hi[1] &&
	       q.lo[2] <= b.hi[2] && b.lo[2] <= q.hi[2];
}

// tbEmit appends the pair (body, other), smaller index first, if there is room; the counter counts on
// past cap so that the host learns how much room the list needs.
TB_FN void tbEmit(unsigned *pairA, unsigned *pairB, unsigned *count, int cap, int body, int other) {
	unsigned at = atomicAdd(count, 1u);
	if (at < (unsigned)cap) {
		pairA[at] = (unsigned)min(body, other);
		pairB[at] = (unsigned)max(body, other);
	}
}

// tbId is the body of leaf j of a tree over the bodies ids lists (all bodies: ids is 0).
TB_FN int tbId(const int *ids, int j) { return ids != 0 ? ids[j] : j; }

// tbWalkNext takes a depth-first walk of a tree to the next internal node: from node c, whose
// children c0 and c1 the query's box overlaps as hit0 and hit1 say (a leaf child already handled and
// its hit cleared), it goes down to c0, keeping c1 on the stack when both are hit (while the stack of
// 64 has room: a tree that deep is lost to the walk, not overrun), else to the one hit, else back to
// the last node kept. false: the walk is over.
TB_FN bool tbWalkNext(int *c, int *stack, int *top, bool hit0, bool hit1, int c0, int c1) {
	if (hit0 && hit1 && *top < 64) {
		stack[(*top)++] = c1;
		*c = c0;
	} else if (hit0) {
		*c = c0;
	} else if (hit1) {
		*c = c1;
	} else if (*top > 0) {
		*c = stack[--*top];
	} else {
		return false;
	}
	return true;
}

// tb_broad_query finds the pairs of leaf k (sorted position) with the leaves after it, as sim/bvh's
// queryKernel: those leaves are the right children of the ancestors whose left subtree holds k, so the
// query walks up the parent links and, at each such ancestor, tests the right child's box and walks an
// overlapping subtree depth first with an explicit stack. From a resting body it looks only into
// subtrees holding a moving body. The tree is at most 64 deep (each level lengthens the key prefix).
//
// The bodies of the big list (tb_broad_fit) do not walk: a world-spanning body's walk visits the whole
// tree, one thread's serial tail. Instead every leaf tests the listed leaves before it, so each pair
// is still found once, from its first leaf when that one walks and from its second when the first is
// listed, with the same overlap and moving tests: the pairs are the same, and so is their sorted list.
// visits[k] is the number of internal nodes and listed bodies leaf k's thread tested (0 for an
// invalid body), so that the longest walk is measurable (Backend.QueryWalks).
//
// A tree over part of the world (ids not 0) has leaf j for body ids[j]: the pairs name the bodies. The
// ids increase with j, so the smaller leaf is the smaller body.
TB_KERNEL void tb_broad_query(const TbNode *nodes, const int *parent, const TbBox *leafBox, const unsigned *index,
                              const unsigned *moving, int n, const TbBig *big, const unsigned *bigCount,
                              unsigned *pairA, unsigned *pairB, unsigned *count, int cap, unsigned *visits,
                              const int *ids) {
	unsigned k = tbThread();
	if (k >= (unsigned)n) {
		return;
	}
	TbBox q = leafBox[k];
	if (q.lo[0] > q.hi[0]) {
		visits[k] = 0;
		return; // invalid body
	}
	int body = (int)index[k];
	bool mv = moving[body] != 0;
	unsigned need = mv ? 0 : TB_MOVING_BIT;
	unsigned seen = 0;
	bool listed = false;
	unsigned nbig = min(*bigCount, (unsigned)TB_BIG_CAP);
	for (unsigned j = 0; j < nbig; j++) {
		const TbBig *g = &big[j];
		if (g->leaf == (int)k) {
			listed = true;
		} else if (g->leaf < (int)k) {
			seen++;
			if ((mv || g->moving) && tbOverlaps(q, g->box)) {
				tbEmit(pairA, pairB, count, cap, tbId(ids, body), tbId(ids, g->body));
			}
		}
	}
	if (listed) {
		visits[k] = seen;
		return;
	}
	int stack[64];
	// A query visits each internal node at most once; the budget only ends a walk over a corrupt
	// tree (one with a cycle), which would otherwise never end on a GPU without a watchdog.
	int budget = 2 * n;
	for (int up = parent[n - 1 + k]; up >= 0 && --budget > 0;) {
		int idx = up >> 1;
		bool fromRight = up & 1;
		up = parent[idx];
		if (fromRight) {
			continue; // the left subtree holds only leaves before k
		}
		seen++;
		const TbNode *nd = &nodes[idx];
		if ((nd->last[1] & need) != need || !tbOverlaps(q, nd->box[1])) {
			continue;
		}
		int c = nd->child[1];
		if (c < 0) {
			tbEmit(pairA, pairB, count, cap, tbId(ids, body), tbId(ids, ~c));
			continue;
		}
		int top = 0;
		while (--budget > 0) {
			seen++;
			const TbNode *m = &nodes[c];
			bool hit0 = (m->last[0] & need) == need && tbOverlaps(q, m->box[0]);
			bool hit1 = (m->last[1] & need) == need && tbOverlaps(q, m->box[1]);
			int c0 = m->child[0], c1 = m->child[1];
			if (hit0 && c0 < 0) {
				tbEmit(pairA, pairB, count, cap, tbId(ids, body), tbId(ids, ~c0));
				hit0 = false;
			}
			if (hit1 && c1 < 0) {
				tbEmit(pairA, pairB, count, cap, tbId(ids, body), tbId(ids, ~c1));
				hit1 = false;
			}
			if (!tbWalkNext(&c, stack, &top, hit0, hit1, c0, c1)) {
				break;
			}
		}
	}
	visits[k] = seen;
}
TB_REGISTER(tb_broad_query)

// tb_broad_cross finds the pairs of the moving bodies of one tree (the awake bodies' leaves: boxes,
// moving and ids, n of them, in body order) with the bodies of another (the sleeping and static
// bodies': nodes and leaf boxes over nOther leaves, leaf j body otherIds[j]), each moving leaf walking
// the other tree from its root depth first. The other tree is kept while no body falls asleep, so a
// body of it that has woken since (dynamic and not TB_ASLEEP in flags) is skipped: it is a leaf of
// the awake tree now, where its pairs are found. The pairs of a moving body and a resting one are
// those a tree over all bodies finds (tb_broad_query), with the same overlap test.
TB_KERNEL void tb_broad_cross(const TbBox *boxes, const unsigned *moving, const int *ids, int n, const TbNode *nodes,
                              const TbBox *otherBoxes, const int *otherIds, int nOther, const unsigned *flags,
                              unsigned *pairA, unsigned *pairB, unsigned *count, int cap) {
	int j = tbThread();
	if (j >= n || nOther == 0 || !moving[j]) {
		return;
	}
	TbBox q = boxes[j];
	if (!tbBoxValid(q)) {
		return;
	}
	int body = ids[j];
	// A resting body of the other tree that has not woken since it was built.
	auto rests = [&](int leaf) {
		unsigned f = flags[otherIds[leaf]];
		return (f & TB_TYPE_MASK) != TB_DYNAMIC || (f & TB_ASLEEP) != 0;
	};
	if (nOther == 1) {
		if (tbBoxValid(otherBoxes[0]) && tbOverlaps(q, otherBoxes[0]) && rests(0)) {
			tbEmit(pairA, pairB, count, cap, body, otherIds[0]);
		}
		return;
	}
	int stack[64];
	int top = 0, c = 0;
	// Each internal node is visited at most once; the budget only ends a walk over a corrupt tree.
	for (int budget = 2 * nOther; --budget > 0;) {
		const TbNode *m = &nodes[c];
		bool hit0 = tbOverlaps(q, m->box[0]), hit1 = tbOverlaps(q, m->box[1]);
		int c0 = m->child[0], c1 = m->child[1];
		if (hit0 && c0 < 0) {
			if (rests(~c0)) {
				tbEmit(pairA, pairB, count, cap, body, otherIds[~c0]);
			}
			hit0 = false;
		}
		if (hit1 && c1 < 0) {
			if (rests(~c1)) {
				tbEmit(pairA, pairB, count, cap, body, otherIds[~c1]);
			}
			hit1 = false;
		}
		if (!tbWalkNext(&c, stack, &top, hit0, hit1, c0, c1)) {
			break;
		}
	}
}
TB_REGISTER(tb_broad_cross)

// --- 7. output ---------------------------------------------------------------------------------------

// tb_broad_pairs_out interleaves the sorted pair columns into the int2 list, up to the count (at most
// cap).
TB_KERNEL void tb_broad_pairs_out(const unsigned *pairA, const unsigned *pairB, const unsigned *count, int cap,
                                  int2 *pairs) {
	unsigned i = tbThread();
	if (i >= tbCount(cap, count)) {
		return;
	}
	pairs[i] = make_int2((int)pairA[i], (int)pairB[i]);
}
TB_REGISTER(tb_broad_pairs_out)

// tb_broad_sizes writes the sizes of the broad phase's structures, for the Go mirrors' test.
TB_KERNEL void tb_broad_sizes(unsigned *out) {
	if (tbThread() == 0) {
		out[0] = sizeof(TbBox);
		out[1] = sizeof(TbNode);
		out[2] = sizeof(TbBig);
	}
}
TB_REGISTER(tb_broad_sizes)
