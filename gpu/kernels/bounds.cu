// bounds.cu: each body's world AABB for the step and its moving flag (sim's updateBounds and
// BodyBounds), the input of the broad phase.
#include "shapebox.cuh"

// tb_broad_bounds writes body i's box for a step of dt (its shape's box grown by how far it can move,
// velocity x dt plus the sweep of its farthest point under rotation, and by margin) and whether it
// moves (an awake dynamic body: a sleeping one makes no pair with another sleeping or a static body).
TB_KERNEL void tb_broad_bounds(const float4 *pos, const float4 *rot, const float4 *vel, const float4 *omega,
                               const TbShape *shape, const TbHull *hulls, const float4 *hullVerts,
                               const unsigned *flags, TbBox *boxes, unsigned *moving, int n, float dt, float margin) {
	unsigned i = tbThread();
	if (i >= (unsigned)n) {
		return;
	}
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
TB_REGISTER(tb_broad_bounds)
