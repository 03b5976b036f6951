// shapebox.cuh: a shape's world box (sim/geom's Shape.Bounds), which the broad phase's bounds
// (bounds.cu) and the narrow phase's mesh routines (mesh.cuh, the mid-phase's query box) both take.
#pragma once
#include "broad.cuh"

// tbRotate rotates v by the unit quaternion q (x, y, z, w) the way mathgl's Quat.Rotate does:
// v + 2w (q x v) + 2q x (q x v).
TB_FN float3 tbRotate(float4 q, float3 v) {
	float3 c = make_float3(q.y * v.z - q.z * v.y, q.z * v.x - q.x * v.z, q.x * v.y - q.y * v.x);
	float3 q2 = make_float3(2 * q.x, 2 * q.y, 2 * q.z);
	float w2 = 2 * q.w;
	return make_float3(v.x + c.x * w2 + (q2.y * c.z - q2.z * c.y), v.y + c.y * w2 + (q2.z * c.x - q2.x * c.z),
	                   v.z + c.z * w2 + (q2.x * c.y - q2.y * c.x));
}

// tbShapeBox is sim/geom's Shape.Bounds at pose (p, q); a hull's vertices are hullVerts (its entry's
// first and number in the hull table).
TB_FN TbBox tbShapeBox(const TbShape &s, float4 p, float4 q, const TbHull *hulls, const float4 *hullVerts) {
	TbBox b;
	float ext[3] = {0, 0, 0};
	switch (s.kind) {
	case TB_HULL: {
		// The exact box of the turned vertices, through the rotation matrix of geom's rotation
		// (mgl32's Mat3.Mul3x1: a row times the vertex).
		float x = q.x, y = q.y, z = q.z, w = q.w;
		float m00 = 1 - 2 * y * y - 2 * z * z, m01 = 2 * x * y - 2 * w * z, m02 = 2 * x * z + 2 * w * y;
		float m10 = 2 * x * y + 2 * w * z, m11 = 1 - 2 * x * x - 2 * z * z, m12 = 2 * y * z - 2 * w * x;
		float m20 = 2 * x * z - 2 * w * y, m21 = 2 * y * z + 2 * w * x, m22 = 1 - 2 * x * x - 2 * y * y;
		float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
		TbHull h = hulls[s.hull];
		for (int i = 0; i < h.numVerts; i++) {
			float4 v = hullVerts[h.firstVert + i];
			float wv[3] = {m00 * v.x + m01 * v.y + m02 * v.z, m10 * v.x + m11 * v.y + m12 * v.z,
			               m20 * v.x + m21 * v.y + m22 * v.z};
			for (int k = 0; k < 3; k++) {
				lo[k] = fminf(lo[k], wv[k]);
				hi[k] = fmaxf(hi[k], wv[k]);
			}
		}
		float pv[3] = {p.x, p.y, p.z};
		for (int k = 0; k < 3; k++) {
			b.lo[k] = pv[k] + lo[k];
			b.hi[k] = pv[k] + hi[k];
		}
		return b;
	}
	case TB_SPHERE:
		ext[0] = ext[1] = ext[2] = s.a;
		break;
	case TB_MESH: {
		// The mesh's local box turned: its centre (nx, ny, nz) carried by the pose, its half extents
		// (a, b, c) through |R| as a box's.
		float3 c = tbRotate(q, make_float3(s.nx, s.ny, s.nz));
		p = make_float4(p.x + c.x, p.y + c.y, p.z + c.z, p.w);
		float x = q.x, y = q.y, z = q.z, w = q.w;
		float m00 = 1 - 2 * y * y - 2 * z * z, m01 = 2 * x * y - 2 * w * z, m02 = 2 * x * z + 2 * w * y;
		float m10 = 2 * x * y + 2 * w * z, m11 = 1 - 2 * x * x - 2 * z * z, m12 = 2 * y * z - 2 * w * x;
		float m20 = 2 * x * z - 2 * w * y, m21 = 2 * y * z + 2 * w * x, m22 = 1 - 2 * x * x - 2 * y * y;
		ext[0] = fabsf(m00) * s.a + fabsf(m01) * s.b + fabsf(m02) * s.c;
		ext[1] = fabsf(m10) * s.a + fabsf(m11) * s.b + fabsf(m12) * s.c;
		ext[2] = fabsf(m20) * s.a + fabsf(m21) * s.b + fabsf(m22) * s.c;
		break;
	}
	case TB_CAPSULE: {
		// The core segment's ends p +- axis, grown by the radius.
		float3 axis = tbRotate(q, make_float3(0, s.b, 0));
		float av[3] = {axis.x, axis.y, axis.z}, pv[3] = {p.x, p.y, p.z};
		for (int k = 0; k < 3; k++) {
			float e0 = pv[k] + av[k], e1 = pv[k] - av[k];
			b.lo[k] = fminf(e0, e1) - s.a;
			b.hi[k] = fmaxf(e0, e1) + s.a;
		}
		return b;
	}
	case TB_BOX: {
		// Rows of the rotation matrix (mathgl's Quat.Mat4), in absolute value, dotted with the half
		// extents.
		float x = q.x, y = q.y, z = q.z, w = q.w;
		float m00 = 1 - 2 * y * y - 2 * z * z, m01 = 2 * x * y - 2 * w * z, m02 = 2 * x * z + 2 * w * y;
		float m10 = 2 * x * y + 2 * w * z, m11 = 1 - 2 * x * x - 2 * z * z, m12 = 2 * y * z - 2 * w * x;
		float m20 = 2 * x * z - 2 * w * y, m21 = 2 * y * z + 2 * w * x, m22 = 1 - 2 * x * x - 2 * y * y;
		ext[0] = fabsf(m00) * s.a + fabsf(m01) * s.b + fabsf(m02) * s.c;
		ext[1] = fabsf(m10) * s.a + fabsf(m11) * s.b + fabsf(m12) * s.c;
		ext[2] = fabsf(m20) * s.a + fabsf(m21) * s.b + fabsf(m22) * s.c;
		break;
	}
	case TB_PLANE: {
		// The whole world, except that an axis-aligned normal cuts the box at the plane (a floor's box
		// stops at the floor).
		float3 n = tbRotate(q, make_float3(s.nx, s.ny, s.nz));
		float d = s.d + (n.x * p.x + n.y * p.y + n.z * p.z);
		float nv[3] = {n.x, n.y, n.z};
		for (int k = 0; k < 3; k++) {
			b.lo[k] = -TB_PLANE_EXTENT;
			b.hi[k] = TB_PLANE_EXTENT;
			if (nv[k] > 1 - 1e-6f) {
				b.hi[k] = d;
			} else if (nv[k] < -(1 - 1e-6f)) {
				b.lo[k] = -d;
			}
		}
		return b;
	}
	default: // an unknown kind has geom's zero box
		for (int k = 0; k < 3; k++) {
			b.lo[k] = b.hi[k] = 0;
		}
		return b;
	}
	float pv[3] = {p.x, p.y, p.z};
	for (int k = 0; k < 3; k++) {
		b.lo[k] = pv[k] - ext[k];
		b.hi[k] = pv[k] + ext[k];
	}
	return b;
}

