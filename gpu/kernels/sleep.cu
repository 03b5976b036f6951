// sleep.cu: sleeping's bookkeeping on the device (sim/sleep.go's finishStep timers and updateSleep),
// with no read-back. Each awake dynamic body counts how long it has rested; the islands (dynamic bodies
// linked by a touching contact or a joint) are found by a lock-free union-find in which the larger root
// always hooks under the smaller, so every island's root is its lowest body index whatever order the
// threads run in: the CPU's union-find gives the same roots. An island whose awake bodies have all
// rested for the sleep time gets a fresh label, and its bodies are marked asleep with their velocities
// zeroed.
//
// At the end of a step: tb_sleep_timers, tb_sleep_init, tb_sleep_link_contacts, tb_sleep_link_joints,
// tb_sleep_roots, tb_sleep_rest_min, tb_sleep_label, tb_sleep_decide (and tb_sleep_ends over the
// awake list). After the narrow phase:
// tb_sleep_wake_contacts, tb_sleep_wake_joints, tb_sleep_wake_kinematic, tb_sleep_wake_flush.
#include "broad.cuh"

// TB_SLEEP_NONE is the least rest time of an island with no awake body (the CPU's 1e30), as float bits:
// rest times are never negative, so their bits order as the floats do and atomicMin on them is a
// minimum of the floats.
#define TB_SLEEP_NONE 0x7149f2caU

// tbSleepLen is |v| as mgl32's Vec3.Len computes it.
TB_FN float tbSleepLen(float4 v) { return sqrtf(v.x * v.x + v.y * v.y + v.z * v.z); }

TB_FN bool tbSleepDynamic(const unsigned *flags, int i) { return i >= 0 && (flags[i] & TB_TYPE_MASK) == TB_DYNAMIC; }

// The end of the step's kernels each run one of the device functions below over their items, which
// the small path's one block (small.cu) runs over the same items between barriers.

// tbSleepTimer counts body i's rest time if it is an awake dynamic body (finishStep): dt more while its
// fastest point, speed plus spin times bounding radius, moves slower than speed; 0 otherwise. asleep
// holds a sleeping body's island label, 0 for an awake body.
TB_FN void tbSleepTimer(int i, const float4 *vel, const float4 *omega, const TbShape *shape, const unsigned *flags,
                        const unsigned *asleep, float *rest, float dt, float speed) {
	if (!tbSleepDynamic(flags, i) || asleep[i] != 0) {
		return;
	}
	if (tbSleepLen(vel[i]) + tbSleepLen(omega[i]) * tbBoundingRadius(shape[i]) < speed) {
		rest[i] += dt;
	} else {
		rest[i] = 0;
	}
}

// tb_sleep_timers runs tbSleepTimer over the bodies.
// Those of the end of the step that read only awake bodies (the timers, the rest minima, the decision)
// run over the bodies a list names when there is one (see tbBodyCount): the step's awake bodies. So do
// the islands' set-up, roots and labels, with tb_sleep_ends over the step's contacts and joints: an
// island of awake bodies may hang from a sleeping one that a contact left after the last round of
// waking reached, or that a joint holds.
TB_KERNEL void tb_sleep_timers(const float4 *vel, const float4 *omega, const TbShape *shape, const unsigned *flags,
                               const unsigned *asleep, float *rest, int n, float dt, float speed, const int *list,
                               const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		tbSleepTimer(tbBodyAt(list, t), vel, omega, shape, flags, asleep, rest, dt, speed);
	}
}
TB_REGISTER(tb_sleep_timers)

// tbSleepInit makes body i its own island, with no rest time yet.
TB_FN void tbSleepInit(int i, int *parent, unsigned *restMin) {
	parent[i] = i;
	restMin[i] = TB_SLEEP_NONE;
}

// tb_sleep_init makes each body its own island (tbSleepInit), with no label: every body, or those a
// list names (the step's awake bodies), with tb_sleep_ends doing the same for the bodies the step's
// contacts and joints name. No other body takes part in the step's unions, and no kernel reads
// another body's parent, rest minimum or label: a world that mostly sleeps sets up its islands over
// its awake part.
TB_KERNEL void tb_sleep_init(int *parent, unsigned *restMin, unsigned *label, int n, const int *list,
                             const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		int i = tbBodyAt(list, t);
		tbSleepInit(i, parent, restMin);
		label[i] = 0;
	}
}
TB_REGISTER(tb_sleep_init)

// tbSleepFind returns i's root. Roots only ever hook under lower roots, so the walk ends. The reads are
// volatile: while other threads hook roots, a load must see memory, not a copy a register or a
// non-coherent cache kept from before a failed compare-and-swap (the walk would then never end).
TB_FN int tbSleepFind(const volatile int *parent, int i) {
	int p = parent[i];
	while (p != i) {
		i = p;
		p = parent[i];
	}
	return i;
}

// tbSleepUnion joins the islands of a and b: the higher root hooks under the lower one with a
// compare-and-swap that fails when another thread hooked it first, in which case the walk starts again
// from the roots as they now are.
TB_FN void tbSleepUnion(int *parent, int a, int b) {
	for (;;) {
		a = tbSleepFind(parent, a);
		b = tbSleepFind(parent, b);
		if (a == b) {
			return;
		}
		if (a > b) {
			int t = a;
			a = b;
			b = t;
		}
		if (atomicCAS(&parent[b], b, a) == b) {
			return;
		}
	}
}

// tbSleepLinkContact joins the islands of the two bodies of contact k (of the count the narrow phase
// made, at most cap) when both are dynamic and it touches, and restarts the rest time of a dynamic body
// touching a moving kinematic one (updateSleep: it does not rest).
TB_FN void tbSleepLinkContact(unsigned k, const TbContact *contacts, const unsigned *count, int cap, const float4 *vel,
                              const float4 *omega, const unsigned *flags, int *parent, float *rest) {
	if (k >= min(*count, (unsigned)cap) || contacts[k].count == 0) {
		return;
	}
	int a = contacts[k].a, b = contacts[k].b;
	bool dynA = tbSleepDynamic(flags, a), dynB = tbSleepDynamic(flags, b);
	if (dynA && dynB) {
		tbSleepUnion(parent, a, b);
		return;
	}
	int d = dynA ? a : b, o = dynA ? b : a;
	if ((dynA || dynB) && (flags[o] & TB_TYPE_MASK) == TB_KINEMATIC) {
		float4 v = vel[o], w = omega[o];
		if (v.x != 0 || v.y != 0 || v.z != 0 || w.x != 0 || w.y != 0 || w.z != 0) {
			rest[d] = 0;
		}
	}
}

// tb_sleep_link_contacts runs tbSleepLinkContact over the contact list.
TB_KERNEL void tb_sleep_link_contacts(const TbContact *contacts, const unsigned *count, int cap, const float4 *vel,
                                      const float4 *omega, const unsigned *flags, int *parent, float *rest) {
	tbSleepLinkContact(tbThread(), contacts, count, cap, vel, omega, flags, parent, rest);
}
TB_REGISTER(tb_sleep_link_contacts)

// tbSleepLinkJoint joins the islands of the two bodies of jointed pair k when both are dynamic:
// jointed holds the jointed pairs as the narrow phase has them, keys a<<32|b.
TB_FN void tbSleepLinkJoint(int k, const unsigned long long *jointed, const unsigned *flags, int *parent) {
	int a = (int)(jointed[k] >> 32), b = (int)(jointed[k] & 0xffffffffu);
	if (tbSleepDynamic(flags, a) && tbSleepDynamic(flags, b)) {
		tbSleepUnion(parent, a, b);
	}
}

// tb_sleep_link_joints joins the islands of two dynamic bodies a joint links (tbSleepLinkJoint over
// the n jointed pairs).
TB_KERNEL void tb_sleep_link_joints(const unsigned long long *jointed, int n, const unsigned *flags, int *parent) {
	int k = tbThread();
	if (k < n) {
		tbSleepLinkJoint(k, jointed, flags, parent);
	}
}
TB_REGISTER(tb_sleep_link_joints)

// tb_sleep_roots points every body (or each one a list names) straight at its island's root (the
// unions are all done: roots no longer move, and a thread that reads a parent another one has just
// rewritten still finds the root).
TB_KERNEL void tb_sleep_roots(int *parent, int n, const int *list, const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		int i = tbBodyAt(list, t);
		parent[i] = tbSleepFind(parent, i);
	}
}
TB_REGISTER(tb_sleep_roots)

// tbSleepRestMin brings body i's rest time to its island's least, at the root, if it is an awake
// dynamic body.
TB_FN void tbSleepRestMin(int i, const int *parent, const float *rest, const unsigned *flags, const unsigned *asleep,
                          unsigned *restMin) {
	if (tbSleepDynamic(flags, i) && asleep[i] == 0) {
		atomicMin(&restMin[parent[i]], __float_as_uint(rest[i]));
	}
}

// tb_sleep_rest_min keeps at each island's root the least rest time of its awake dynamic bodies
// (tbSleepRestMin over the bodies).
TB_KERNEL void tb_sleep_rest_min(const int *parent, const float *rest, const unsigned *flags, const unsigned *asleep,
                                 unsigned *restMin, int n, const int *list, const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		tbSleepRestMin(tbBodyAt(list, t), parent, rest, flags, asleep, restMin);
	}
}
TB_REGISTER(tb_sleep_rest_min)

// tbSleepLabelRoot gives root i of a dynamic island a fresh label (from *next, never 0) when r, the
// least rest time of its awake bodies, reaches sleepTime, and 0 otherwise. The order of the labels is
// the threads', which does not matter: a label only tells one sleeping island from another.
TB_FN void tbSleepLabelRoot(unsigned *label, unsigned *next, int i, unsigned r, float sleepTime) {
	label[i] = 0;
	if (r != TB_SLEEP_NONE && __uint_as_float(r) >= sleepTime) {
		unsigned l = atomicAdd(next, 1u) + 1u;
		if (l == 0) { // the counter wrapped: 0 means awake, and labels that old are long gone
			l = atomicAdd(next, 1u) + 1u;
		}
		label[i] = l;
	}
}

// tbSleepLabel labels body i (tbSleepLabelRoot) if it is the root of a dynamic island.
TB_FN void tbSleepLabel(int i, const int *parent, const unsigned *restMin, const unsigned *flags, unsigned *label,
                        unsigned *next, float sleepTime) {
	if (parent[i] == i && tbSleepDynamic(flags, i)) {
		tbSleepLabelRoot(label, next, i, restMin[i], sleepTime);
	}
}

// tb_sleep_label labels the root of each island (tbSleepLabel) among every body, or among those a
// list names: the awake bodies, whose islands' sleeping roots tb_sleep_ends labels.
TB_KERNEL void tb_sleep_label(const int *parent, const unsigned *restMin, const unsigned *flags, unsigned *label,
                              unsigned *next, int n, float sleepTime, const int *list, const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		tbSleepLabel(tbBodyAt(list, t), parent, restMin, flags, label, next, sleepTime);
	}
}
TB_REGISTER(tb_sleep_label)

// tbSleepDecide puts body i to sleep if it is an awake dynamic body of an island tbSleepLabel
// labelled: it takes its island's label and the TB_ASLEEP flag, and its velocities are zeroed.
TB_FN void tbSleepDecide(int i, const int *parent, const unsigned *label, unsigned *flags, unsigned *asleep, float4 *vel,
                         float4 *omega) {
	if (!tbSleepDynamic(flags, i) || asleep[i] != 0) {
		return;
	}
	unsigned l = label[parent[i]];
	if (l != 0) {
		asleep[i] = l;
		flags[i] |= TB_ASLEEP;
		vel[i] = make_float4(0, 0, 0, 0);
		omega[i] = make_float4(0, 0, 0, 0);
	}
}

// TB_SLEEP_CLAIMED marks the rest minimum of a root tb_sleep_ends has labelled: NaN bits, which no
// rest time has.
#define TB_SLEEP_CLAIMED 0xffffffffU

// Operations of tb_sleep_ends on the bodies of the step's contacts and joints.
#define TB_SLEEP_ENDS_INIT 0  // tb_sleep_init's, before the unions
#define TB_SLEEP_ENDS_ROOTS 1 // tb_sleep_roots', after them
#define TB_SLEEP_ENDS_LABEL 2 // the label of a sleeping root, after tb_sleep_label

// tb_sleep_ends does op to both bodies of each of the step's first min(*count, cap) contacts (threads
// 0 to cap-1) and nJointed jointed pairs (keys a<<32|b, the next nJointed threads), when the body
// kernels of the sleep stage run over the awake list: the islands' unions reach only those bodies and
// the listed ones, so initialising, flattening and labelling them with the listed bodies sets up every
// island of the step. Of a contact's or joint's bodies only those not listed need it; the listed ones
// get the same writes twice, before the unions (init) or of their roots (roots), which changes
// nothing. An island's root that sleeps (a sleeping body that touches, after the last round of
// waking, or is jointed to awake ones) is labelled here, once: the first thread to reach it swaps its
// rest minimum for TB_SLEEP_CLAIMED, the others see the claim.
TB_KERNEL void tb_sleep_ends(const TbContact *contacts, const unsigned *count, int cap,
                             const unsigned long long *jointed, int nJointed, int op, const unsigned *flags,
                             int *parent, unsigned *restMin, unsigned *label, unsigned *next, float sleepTime) {
	int k = tbThread();
	int a, b;
	if (k < cap) {
		if ((unsigned)k >= min(*count, (unsigned)cap)) {
			return;
		}
		a = contacts[k].a, b = contacts[k].b;
	} else if (k - cap < nJointed) {
		unsigned long long key = jointed[k - cap];
		a = (int)(key >> 32), b = (int)(key & 0xffffffffu);
	} else {
		return;
	}
	int ends[2] = {a, b};
	for (int e = 0; e < 2; e++) {
		int i = ends[e];
		if (i < 0) {
			continue;
		}
		if (op == TB_SLEEP_ENDS_INIT) {
			parent[i] = i;
			restMin[i] = TB_SLEEP_NONE;
			label[i] = 0;
		} else if (op == TB_SLEEP_ENDS_ROOTS) {
			parent[i] = tbSleepFind(parent, i);
		} else {
			int r = parent[i];
			if (!tbSleepDynamic(flags, r) || (flags[r] & TB_ASLEEP) == 0) {
				continue; // no island, or an awake root: listed, and labelled by tb_sleep_label
			}
			unsigned rest = atomicExch(&restMin[r], TB_SLEEP_CLAIMED);
			if (rest != TB_SLEEP_CLAIMED) {
				tbSleepLabelRoot(label, next, r, rest, sleepTime);
			}
		}
	}
}
TB_REGISTER(tb_sleep_ends)

// tb_sleep_decide puts to sleep the awake dynamic bodies of the islands tb_sleep_label labelled
// (tbSleepDecide over the bodies, or those a list names).
TB_KERNEL void tb_sleep_decide(const int *parent, const unsigned *label, unsigned *flags, unsigned *asleep,
                               float4 *vel, float4 *omega, int n, const int *list, const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		tbSleepDecide(tbBodyAt(list, t), parent, label, flags, asleep, vel, omega);
	}
}
TB_REGISTER(tb_sleep_decide)

// Waking (sim/sleep.go's wakeTouched and flushWakes). After the narrow phase, a sleeping body is marked
// when it touches an awake dynamic body, is jointed to one, or lies in the box of a moving kinematic
// body; then every sleeping body whose island holds a marked body wakes, its rest time restarted. The
// marks read the sleep labels as they were before any of them: the CPU wakes each marked body at once,
// but the broad phase makes no pair of two bodies that were both asleep, so no contact it reads can link
// two islands that only a body woken in the same pass joins.

// tbSleepAwakeDynamic reports whether i is a dynamic body that is awake.
TB_FN bool tbSleepAwakeDynamic(const unsigned *flags, const unsigned *asleep, int i) {
	return tbSleepDynamic(flags, i) && asleep[i] == 0;
}

// tbSleepMark queues sleeping body i's island to wake. Only i's first mark may append its label to
// woken (*nWoken counts them), so a list of n labels never overflows; and a label goes in only when
// seen[label % n] did not hold it already, so an island touched at many bodies is listed about once (two
// labels that share a slot may both be listed more than once: the flush reads the list as a set).
TB_FN void tbSleepMark(const unsigned *asleep, unsigned *marked, unsigned *seen, unsigned *woken, unsigned *nWoken,
                       int i, int n) {
	if (atomicExch(&marked[i], 1u) == 0) {
		unsigned l = asleep[i];
		if (atomicExch(&seen[l % (unsigned)n], l) != l) {
			woken[atomicAdd(nWoken, 1u)] = l;
		}
	}
}

// tb_sleep_wake_contacts marks the sleeping body of each touching contact whose other body is an awake
// dynamic one.
TB_KERNEL void tb_sleep_wake_contacts(const TbContact *contacts, const unsigned *count, int cap, const unsigned *flags,
                                      const unsigned *asleep, unsigned *marked, unsigned *seen, unsigned *woken,
                                      unsigned *nWoken, int n) {
	unsigned k = tbThread();
	if (k >= min(*count, (unsigned)cap) || contacts[k].count == 0) {
		return;
	}
	int a = contacts[k].a, b = contacts[k].b;
	if (asleep[a] != 0 && tbSleepAwakeDynamic(flags, asleep, b)) {
		tbSleepMark(asleep, marked, seen, woken, nWoken, a, n);
	} else if (asleep[b] != 0 && tbSleepAwakeDynamic(flags, asleep, a)) {
		tbSleepMark(asleep, marked, seen, woken, nWoken, b, n);
	}
}
TB_REGISTER(tb_sleep_wake_contacts)

// tb_sleep_wake_joints marks the sleeping body of each jointed pair (nJointed keys a<<32|b) whose other
// body is an awake dynamic one.
TB_KERNEL void tb_sleep_wake_joints(const unsigned long long *jointed, int nJointed, const unsigned *flags,
                                    const unsigned *asleep, unsigned *marked, unsigned *seen, unsigned *woken,
                                    unsigned *nWoken, int n) {
	int k = tbThread();
	if (k >= nJointed) {
		return;
	}
	int a = (int)(jointed[k] >> 32), b = (int)(jointed[k] & 0xffffffffu);
	if (asleep[a] != 0 && tbSleepAwakeDynamic(flags, asleep, b)) {
		tbSleepMark(asleep, marked, seen, woken, nWoken, a, n);
	} else if (asleep[b] != 0 && tbSleepAwakeDynamic(flags, asleep, a)) {
		tbSleepMark(asleep, marked, seen, woken, nWoken, b, n);
	}
}
TB_REGISTER(tb_sleep_wake_joints)

// tb_sleep_wake_kinematic marks each sleeping body whose box overlaps the box of a moving kinematic body
// (kinematic lists nKinematic of them; boxes are the broad phase's).
TB_KERNEL void tb_sleep_wake_kinematic(const TbBox *boxes, const int *kinematic, int nKinematic, const unsigned *asleep,
                                       unsigned *marked, unsigned *seen, unsigned *woken, unsigned *nWoken, int n) {
	int i = tbThread();
	if (i >= n || asleep[i] == 0) {
		return;
	}
	TbBox b = boxes[i];
	for (int k = 0; k < nKinematic; k++) {
		TbBox m = boxes[kinematic[k]];
		if (m.lo[0] <= b.hi[0] && b.lo[0] <= m.hi[0] && m.lo[1] <= b.hi[1] && b.lo[1] <= m.hi[1] && m.lo[2] <= b.hi[2] &&
		    b.lo[2] <= m.hi[2]) {
			tbSleepMark(asleep, marked, seen, woken, nWoken, i, n);
			return;
		}
	}
}
TB_REGISTER(tb_sleep_wake_kinematic)

// tb_sleep_wake_flush wakes every sleeping body whose label is among the nWoken queued ones, restarting
// its rest time and clearing its TB_ASLEEP flag, and clears its mark and its slot of seen for the next
// pass; *awoke counts the bodies woken.
TB_KERNEL void tb_sleep_wake_flush(unsigned *asleep, unsigned *flags, float *rest, unsigned *marked, unsigned *seen,
                                   const unsigned *woken, const unsigned *nWoken, unsigned *awoke, int n) {
	int i = tbThread();
	if (i >= n) {
		return;
	}
	marked[i] = 0;
	seen[i] = 0;
	unsigned l = asleep[i];
	if (l == 0) {
		return;
	}
	unsigned m = *nWoken;
	for (unsigned k = 0; k < m; k++) {
		if (woken[k] == l) {
			asleep[i] = 0;
			flags[i] &= ~TB_ASLEEP;
			rest[i] = 0;
			atomicAdd(awoke, 1u);
			return;
		}
	}
}
TB_REGISTER(tb_sleep_wake_flush)

// tb_sleep_mark_bodies restarts the rest time of each of the nIdx bodies idx lists (bodies the program
// pushed: sim's markWake) and marks the sleeping ones to wake with their islands (tb_sleep_wake_flush).
TB_KERNEL void tb_sleep_mark_bodies(const int *idx, int nIdx, const unsigned *asleep, float *rest, unsigned *marked,
                                    unsigned *seen, unsigned *woken, unsigned *nWoken, int n) {
	int k = tbThread();
	if (k >= nIdx) {
		return;
	}
	int i = idx[k];
	if (i < 0 || i >= n) {
		return;
	}
	rest[i] = 0;
	if (asleep[i] != 0) {
		tbSleepMark(asleep, marked, seen, woken, nWoken, i, n);
	}
}
TB_REGISTER(tb_sleep_mark_bodies)

// tb_sleep_flags sets each body's TB_ASLEEP flag from its island label (a dynamic body with a label
// sleeps), after the labels were uploaded from the host.
TB_KERNEL void tb_sleep_flags(const unsigned *asleep, unsigned *flags, int n) {
	int i = tbThread();
	if (i >= n) {
		return;
	}
	unsigned f = flags[i] & ~TB_ASLEEP;
	if (asleep[i] != 0 && (f & TB_TYPE_MASK) == TB_DYNAMIC) {
		f |= TB_ASLEEP;
	}
	flags[i] = f;
}
TB_REGISTER(tb_sleep_flags)

// tbSleepStill zeroes body i's velocities if it sleeps, after the solve (sim's restoreSleepers), and
// tb_sleep_still does so for every body:
// a joint between two sleeping bodies is still solved, and moves no pose since the integration skips
// them, but leaves velocities that a sleeping body must not keep.
TB_FN void tbSleepStill(int i, const unsigned *flags, float4 *vel, float4 *omega) {
	if ((flags[i] & TB_ASLEEP) != 0) {
		vel[i] = make_float4(0, 0, 0, 0);
		omega[i] = make_float4(0, 0, 0, 0);
	}
}

TB_KERNEL void tb_sleep_still(const unsigned *flags, float4 *vel, float4 *omega, int n) {
	int i = tbThread();
	if (i < n) {
		tbSleepStill(i, flags, vel, omega);
	}
}
TB_REGISTER(tb_sleep_still)

// tb_sleep_count counts into *out (zeroed first) the sleeping bodies and, in out[1], the awake dynamic
// ones: of every body, or of those a list names (the step's awake list: out[0] is then the bodies
// that fell asleep in the step).
TB_KERNEL void tb_sleep_count(const unsigned *flags, int n, unsigned *out, const int *list, const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		int i = tbBodyAt(list, t);
		if ((flags[i] & TB_TYPE_MASK) == TB_DYNAMIC) {
			atomicAdd(&out[(flags[i] & TB_ASLEEP) != 0 ? 0 : 1], 1u);
		}
	}
}
TB_REGISTER(tb_sleep_count)

// The awake list (gpu/awake.go): the bodies a step moves, neither static nor asleep, in index order,
// made on the device after the waking so that the body kernels of a world that mostly sleeps run over
// its awake bodies alone.

// tb_sleep_awake_mark sets mark[i] to 1 for each body neither static nor asleep, 0 for the others and
// for mark[n] (so that the exclusive scan of mark ends with their number).
TB_KERNEL void tb_sleep_awake_mark(const unsigned *flags, int n, unsigned *mark) {
	int i = tbThread();
	if (i > n) {
		return;
	}
	mark[i] = i < n && (flags[i] & TB_TYPE_MASK) != TB_STATIC && (flags[i] & TB_ASLEEP) == 0 ? 1u : 0u;
}
TB_REGISTER(tb_sleep_awake_mark)

// tb_sleep_awake_list writes the marked bodies' indices to list (offsets: the marks' exclusive scan)
// and their number to *listN; and, when rest is not 0, the others' (static or asleep) to rest, in
// index order too (body i is the (i - offsets[i])-th of them).
TB_KERNEL void tb_sleep_awake_list(const unsigned *offsets, int n, int *list, unsigned *listN, int *rest) {
	int i = tbThread();
	if (i > n) {
		return;
	}
	if (i == n) {
		*listN = offsets[n];
	} else if (offsets[i + 1] != offsets[i]) {
		list[offsets[i]] = i;
	} else if (rest != 0) {
		rest[i - (int)offsets[i]] = i;
	}
}
TB_REGISTER(tb_sleep_awake_list)
