// transforms.cu: the renderer's instance records, written straight from the device body arrays (the
// CUDA-GL interop path: the records land in a mapped GL buffer and never cross the bus).
//
// One record is render.Instance: 15 floats (60 bytes): position (3), quaternion x y z w (4), scale (3),
// extra (a capsule's half height), colour (4). Records are grouped per shape kind, boxes first, then
// spheres, then capsules, each group in dense body order, as render.Fill appends them; planes get no
// record (the renderer draws them as ground). A body's place in its group is its rank among the bodies
// of its kind: tb_transforms_flag marks them and gpu/transforms.go scans each kind's marks.
#include "layout.cuh"

#define TB_INSTANCE_FLOATS 15

// Colour modes, as render.ColorBy.
#define TB_COLOR_BODY 0
#define TB_COLOR_TYPE 1
#define TB_COLOR_SLEEP 2
#define TB_COLOR_CONTACT 3

// Palette entries (float4 palette[5]), as render's ColorStatic .. ColorAsleep.
#define TB_PAL_STATIC 0
#define TB_PAL_DYNAMIC 1
#define TB_PAL_KINEMATIC 2
#define TB_PAL_AWAKE 3
#define TB_PAL_ASLEEP 4

// tbHsv is render's hsv, in double precision like the Go original, so that the float colours agree.
TB_FN float4 tbHsv(double h, double s, double v) {
	double i = floor(h * 6);
	double f = h * 6 - i;
	double p = v * (1 - s), q = v * (1 - f * s), t = v * (1 - (1 - f) * s);
	double r, g, b;
	switch (((int)i) % 6) {
	case 0:
		r = v, g = t, b = p;
		break;
	case 1:
		r = q, g = v, b = p;
		break;
	case 2:
		r = p, g = v, b = t;
		break;
	case 3:
		r = p, g = q, b = v;
		break;
	case 4:
		r = t, g = p, b = v;
		break;
	default:
		r = v, g = p, b = q;
		break;
	}
	return make_float4((float)r, (float)g, (float)b, 1.0f);
}

// tbBodyColor is render.BodyColor: golden-ratio hues.
TB_FN float4 tbBodyColor(int i) { return tbHsv(fmod((double)i * 0.618033988749895 + 0.05, 1.0), 0.65, 0.92); }

// tbRotate is mgl32's Quat.Rotate, operation for operation: v + 2w (q x v) + (2q) x (q x v).
TB_FN float3 tbRotate(float4 q, float3 v) {
	float3 c = make_float3(q.y * v.z - q.z * v.y, q.z * v.x - q.x * v.z, q.x * v.y - q.y * v.x);
	float w2 = 2 * q.w;
	float3 q2 = make_float3(q.x * 2, q.y * 2, q.z * 2);
	float3 d = make_float3(q2.y * c.z - q2.z * c.y, q2.z * c.x - q2.x * c.z, q2.x * c.y - q2.y * c.x);
	return make_float3(v.x + c.x * w2 + d.x, v.y + c.y * w2 + d.y, v.z + c.z * w2 + d.z);
}

// tb_transforms_flag marks each body in its kind's row of flags (3 rows of n: box, sphere, capsule),
// for the scans that rank the bodies within their kind.
TB_KERNEL void tb_transforms_flag(const TbShape *shape, unsigned *flags, int n) {
	unsigned i = tbThread();
	if (i >= (unsigned)n) {
		return;
	}
	int kind = shape[i].kind;
	for (int k = 0; k < 3; k++) {
		flags[k * n + i] = kind == k ? 1u : 0u;
	}
}
TB_REGISTER(tb_transforms_flag)

// tb_transforms_write writes body i's instance record at rank[kind * n + i] + base of its kind in out
// (capacity records; a slot past it is skipped, never written), and widens bounds (min xyz, max xyz,
// set to +inf and -inf beforehand) by the body's world AABB, as geom.Shape.Bounds computes it.
// contacts (nContacts entries), asleep and hlIdx/hlCol (nHl highlights) may be null.
TB_KERNEL void tb_transforms_write(const float4 *pos, const float4 *rot, const TbShape *shape, const unsigned *flags,
                                   const unsigned *rank, int n, float *out, int capacity, int base1, int base2,
                                   int mode, const float4 *palette, const int *contacts, int nContacts,
                                   const unsigned *asleep, const int *hlIdx, const float4 *hlCol, int nHl,
                                   float *bounds) {
	unsigned i = tbThread();
	if (i >= (unsigned)n) {
		return;
	}
	TbShape sh = shape[i];
	if (sh.kind == TB_PLANE || sh.kind < 0 || sh.kind > TB_CAPSULE) {
		return;
	}
	float4 p = pos[i], q = rot[i];

	// The body's world AABB (geom.Shape.Bounds), for the shadow map's coverage.
	float3 lo, hi;
	if (sh.kind == TB_SPHERE) {
		lo = make_float3(p.x - sh.a, p.y - sh.a, p.z - sh.a);
		hi = make_float3(p.x + sh.a, p.y + sh.a, p.z + sh.a);
	} else if (sh.kind == TB_CAPSULE) {
		float3 ax = tbRotate(q, make_float3(0, sh.b, 0));
		float3 a = make_float3(p.x + ax.x, p.y + ax.y, p.z + ax.z);
		float3 b = make_float3(p.x - ax.x, p.y - ax.y, p.z - ax.z);
		lo = make_float3(fminf(a.x, b.x) - sh.a, fminf(a.y, b.y) - sh.a, fminf(a.z, b.z) - sh.a);
		hi = make_float3(fmaxf(a.x, b.x) + sh.a, fmaxf(a.y, b.y) + sh.a, fmaxf(a.z, b.z) + sh.a);
	} else {
		// Rows of the rotation matrix (mgl32's Quat.Mat4), times the half extents in absolute value.
		float x = q.x, y = q.y, z = q.z, w = q.w;
		float m00 = 1 - 2 * y * y - 2 * z * z, m01 = 2 * x * y - 2 * w * z, m02 = 2 * x * z + 2 * w * y;
		float m10 = 2 * x * y + 2 * w * z, m11 = 1 - 2 * x * x - 2 * z * z, m12 = 2 * y * z - 2 * w * x;
		float m20 = 2 * x * z - 2 * w * y, m21 = 2 * y * z + 2 * w * x, m22 = 1 - 2 * x * x - 2 * y * y;
		float ex = fabsf(m00) * sh.a + fabsf(m01) * sh.b + fabsf(m02) * sh.c;
		float ey = fabsf(m10) * sh.a + fabsf(m11) * sh.b + fabsf(m12) * sh.c;
		float ez = fabsf(m20) * sh.a + fabsf(m21) * sh.b + fabsf(m22) * sh.c;
		lo = make_float3(p.x - ex, p.y - ey, p.z - ez);
		hi = make_float3(p.x + ex, p.y + ey, p.z + ez);
	}
	tbAtomicMinFloat(&bounds[0], lo.x);
	tbAtomicMinFloat(&bounds[1], lo.y);
	tbAtomicMinFloat(&bounds[2], lo.z);
	tbAtomicMaxFloat(&bounds[3], hi.x);
	tbAtomicMaxFloat(&bounds[4], hi.y);
	tbAtomicMaxFloat(&bounds[5], hi.z);

	int base = sh.kind == TB_BOX ? 0 : (sh.kind == TB_SPHERE ? base1 : base2);
	long long slot = (long long)base + rank[sh.kind * n + i];
	if (slot >= capacity) {
		return;
	}

	// The colour, in render.Fill's order of precedence.
	unsigned type = flags[i] & TB_TYPE_MASK;
	float4 col = make_float4(0, 0, 0, 0);
	bool lit = false;
	for (int h = 0; h < nHl; h++) {
		if (hlIdx[h] == (int)i) {
			col = hlCol[h];
			lit = col.x != 0 || col.y != 0 || col.z != 0 || col.w != 0;
		}
	}
	if (lit) {
	} else if (type == TB_STATIC && mode != TB_COLOR_CONTACT) {
		col = palette[TB_PAL_STATIC];
	} else if (mode == TB_COLOR_TYPE) {
		col = palette[type == TB_KINEMATIC ? TB_PAL_KINEMATIC : TB_PAL_DYNAMIC];
	} else if (mode == TB_COLOR_SLEEP) {
		col = palette[asleep != nullptr && asleep[i] != 0 ? TB_PAL_ASLEEP : TB_PAL_AWAKE];
	} else if (mode == TB_COLOR_CONTACT) {
		double c = 0.0;
		if (contacts != nullptr && (int)i < nContacts) {
			c = fmin((double)contacts[i] / 8, 1.0);
		}
		col = tbHsv(0.66 * (1 - c), 0.75, 0.9);
	} else {
		col = tbBodyColor((int)i);
	}

	float *r = out + slot * TB_INSTANCE_FLOATS;
	r[0] = p.x, r[1] = p.y, r[2] = p.z;
	r[3] = q.x, r[4] = q.y, r[5] = q.z, r[6] = q.w;
	if (sh.kind == TB_BOX) {
		r[7] = sh.a, r[8] = sh.b, r[9] = sh.c;
	} else {
		r[7] = sh.a, r[8] = sh.a, r[9] = sh.a;
	}
	r[10] = sh.kind == TB_CAPSULE ? sh.b : 0.0f;
	r[11] = col.x, r[12] = col.y, r[13] = col.z, r[14] = col.w;
}
TB_REGISTER(tb_transforms_write)
