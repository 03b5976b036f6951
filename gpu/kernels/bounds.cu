// bounds.cu: each body's world AABB for the step and its moving flag (sim's updateBounds and
// BodyBounds), the input of the broad phase.
#include "shapebox.cuh"

// tb_broad_bounds writes body i's box for a step of dt (its shape's box grown by how far it can move,
// velocity x dt plus the sweep of its farthest point under rotation, and by margin) and whether it
// moves (an awake dynamic body: a sleeping one makes no pair with another sleeping or a static body),
// for every body or for those a list names (the awake bodies, whose tree is built apart from the
// sleeping ones': gpu/broad.go).
TB_KERNEL void tb_broad_bounds(const float4 *pos, const float4 *rot, const float4 *vel, const float4 *omega,
                               const TbShape *shape, const TbHull *hulls, const float4 *hullVerts,
                               const unsigned *flags, TbBox *boxes, unsigned *moving, int n, float dt, float margin,
                               const int *list, const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		int i = tbBodyAt(list, t);
		TbShape s = shape[i];
		TbBox b = tbShapeBox(s, pos[i], rot[i], hulls, hullVerts);
		unsigned type = flags[i] & TB_TYPE_MASK;
		float reach = 0;
		if (type != TB_STATIC) {
			float4 v = vel[i], w = omega[i];
			reach = (sqrtf(v.x * v.x + v.y * v.y + v.z * v.z) + sqrtf(w.x * w.x + w.y * w.y + w.z * w.z) * tbBoundingRadius(s)) * dt;
		}
		float e = reach + margin;
		for (int k = 0; k < 3; k++) {
			b.lo[k] -= e;
			b.hi[k] += e;
		}
		boxes[i] = b;
		moving[i] = type == TB_DYNAMIC && (flags[i] & TB_ASLEEP) == 0;
	}
}
TB_REGISTER(tb_broad_bounds)

// tb_broad_gather copies the boxes and moving flags of the n bodies ids lists (body indices, in
// increasing order) to boxesOut and movingOut, in the list's order: the leaves of a tree over part of
// the world, whose leaf j is body ids[j].
TB_KERNEL void tb_broad_gather(const TbBox *boxes, const unsigned *moving, const int *ids, int n, TbBox *boxesOut,
                               unsigned *movingOut) {
	int j = tbThread();
	if (j < n) {
		boxesOut[j] = boxes[ids[j]];
		movingOut[j] = moving[ids[j]];
	}
}
TB_REGISTER(tb_broad_gather)
