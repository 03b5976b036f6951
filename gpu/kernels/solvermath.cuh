// solvermath.cuh: the 3-vector and 3x3 matrix arithmetic of the solver and integration kernels, written
// as sim/vec.go and sim/integrate.go write it (same operations in the same order), so the emulated
// kernels match the CPU step bit for bit where summation order agrees. Matrices are column-major
// float[9], as sim.Mat3.
#pragma once
#include "tumble.cuh"

TB_FN float3 tbXYZ(float4 v) { return make_float3(v.x, v.y, v.z); }
TB_FN float3 tbAdd(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
TB_FN float3 tbSub(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
TB_FN float3 tbScale(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
TB_FN float tbDot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
TB_FN float3 tbCross(float3 a, float3 b) {
	return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// tbMulMat returns m v.
TB_FN float3 tbMulMat(const float *m, float3 v) {
	return make_float3(m[0] * v.x + m[3] * v.y + m[6] * v.z, m[1] * v.x + m[4] * v.y + m[7] * v.z,
	                   m[2] * v.x + m[5] * v.y + m[8] * v.z);
}

// tbMulMatT returns m^T v.
TB_FN float3 tbMulMatT(const float *m, float3 v) {
	return make_float3(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
	                   m[6] * v.x + m[7] * v.y + m[8] * v.z);
}

// tbMulRows returns M v for a symmetric matrix stored as three float4 rows (the world inverse inertia).
TB_FN float3 tbMulRows(const float4 *rows, float3 v) {
	float4 r0 = rows[0], r1 = rows[1], r2 = rows[2];
	// Column-major order of terms, as sim's mulMat: element (i, j) is row i's j-th entry.
	return make_float3(r0.x * v.x + r0.y * v.y + r0.z * v.z, r1.x * v.x + r1.y * v.y + r1.z * v.z,
	                   r2.x * v.x + r2.y * v.y + r2.z * v.z);
}

// tbDet3 is mathgl's Mat3.Det.
TB_FN float tbDet3(const float *m) {
	return m[0] * m[4] * m[8] + m[3] * m[7] * m[2] + m[6] * m[1] * m[5] - m[6] * m[4] * m[2] -
	       m[3] * m[1] * m[8] - m[0] * m[7] * m[5];
}

// tbQuatMat writes the rotation matrix of the unit quaternion q = (x, y, z, w) (sim's quatMat3).
TB_FN void tbQuatMat(float4 q, float *m) {
	float x = q.x, y = q.y, z = q.z, w = q.w;
	float xx = x * x, yy = y * y, zz = z * z;
	float xy = x * y, xz = x * z, yz = y * z;
	float wx = w * x, wy = w * y, wz = w * z;
	m[0] = 1 - 2 * (yy + zz), m[1] = 2 * (xy + wz), m[2] = 2 * (xz - wy);
	m[3] = 2 * (xy - wz), m[4] = 1 - 2 * (xx + zz), m[5] = 2 * (yz + wx);
	m[6] = 2 * (xz + wy), m[7] = 2 * (yz - wx), m[8] = 1 - 2 * (xx + yy);
}

// Graph colours of the Gauss-Seidel passes (sim's maxColors): rows that fit none go to colour
// TB_GS_COLOURS, the overflow, which one thread solves in sequence after every colour.
#define TB_GS_COLOURS 64

// tbColourRange sets [*lo, *hi) to the entries of a colour's order that this thread solves: its own
// one in a colour (no two of whose rows share a dynamic body), all of them in sequence in the
// overflow's first thread, none elsewhere.
TB_FN void tbColourRange(const int *colourStart, int c, int *lo, int *hi) {
	int first = colourStart[c], end = colourStart[c + 1];
	int t = (int)tbThread();
	if (c == TB_GS_COLOURS) {
		*lo = first;
		*hi = t == 0 ? end : first;
		return;
	}
	*lo = first + t;
	*hi = *lo < end ? *lo + 1 : *lo;
}
