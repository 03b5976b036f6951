// integrate.cu: the body integration of the sub-step loop (sim/integrate.go), one thread per body.
//
// The arithmetic follows the CPU's operation for operation (same formulas, same order), so the emulated
// kernels reproduce the CPU step to the last bit where no atomic sums are involved; on a GPU, nvcc's
// fused multiply-adds differ in the last bits only.
#include "layout.cuh"
#include "solvermath.cuh"

// tbInvert3 is mathgl's Mat3.Inv (column-major m): the adjugate over the determinant, or zero when
// the determinant is within 1e-20 of zero (mathgl's FloatEqual against 0).
TB_FN void tbInvert3(const float *m, float *out) {
	float det = tbDet3(m);
	if (fabsf(det) < 1e-20f) {
		for (int i = 0; i < 9; i++) {
			out[i] = 0;
		}
		return;
	}
	float adj[9] = {
	    m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
	    m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
	    m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
	};
	float inv = 1 / det;
	for (int i = 0; i < 9; i++) {
		out[i] = adj[i] * inv;
	}
}

// tbSkew writes [v]x, column-major, so that [v]x u = v x u.
TB_FN void tbSkew(float3 v, float *s) {
	s[0] = 0, s[1] = v.z, s[2] = -v.y;
	s[3] = -v.z, s[4] = 0, s[5] = v.x;
	s[6] = v.y, s[7] = -v.x, s[8] = 0;
}

// tbIntegrateVelocity applies gravity and the gyroscopic torque to each awake dynamic body over one
// sub-step h (integrateVelocities). The gyroscopic term is integrated by the implicit midpoint rule in
// the body frame, two Newton steps from w2 = w1, which conserves a free body's |L| and energy.
TB_FN void tbIntegrateVelocity(int i, const float4 *rot, float4 *vel, float4 *omega, const float4 *invI,
                               const unsigned *flags, float h, float gx, float gy, float gz) {
	if ((flags[i] & TB_TYPE_MASK) != TB_DYNAMIC || (flags[i] & TB_ASLEEP) != 0) {
		return;
	}
	float4 v = vel[i];
	v.x += gx * h, v.y += gy * h, v.z += gz * h;
	vel[i] = v;
	float3 om = tbXYZ(omega[i]);
	if (om.x == 0 && om.y == 0 && om.z == 0) {
		return;
	}
	float4 inv = invI[i];
	if (inv.x == inv.y && inv.y == inv.z) {
		return; // a sphere-like inertia has no gyroscopic torque
	}
	float I[3] = {1 / inv.x, 1 / inv.y, 1 / inv.z};
	float r[9];
	tbQuatMat(rot[i], r);
	float3 w1 = tbMulMatT(r, om);
	float3 w2 = w1;
	for (int it = 0; it < 2; it++) {
		float3 m = tbScale(tbAdd(w1, w2), 0.5f);
		float3 Im = make_float3(I[0] * m.x, I[1] * m.y, I[2] * m.z);
		float3 f = tbAdd(make_float3(I[0] * (w2.x - w1.x), I[1] * (w2.y - w1.y), I[2] * (w2.z - w1.z)),
		                 tbScale(tbCross(m, Im), h));
		// J = df/dw2 = I + h/2 (skew(m) I - skew(I m)), column-major.
		float J[9], sm[9], sIm[9];
		tbSkew(m, sm);
		tbSkew(Im, sIm);
		for (int c = 0; c < 3; c++) {
			for (int rr = 0; rr < 3; rr++) {
				J[c * 3 + rr] = 0.5f * h * (sm[c * 3 + rr] * I[c] - sIm[c * 3 + rr]);
			}
		}
		J[0] += I[0];
		J[4] += I[1];
		J[8] += I[2];
		float det = tbDet3(J);
		if (det == 0 || isnan(det)) {
			break;
		}
		float Jinv[9];
		tbInvert3(J, Jinv);
		w2 = tbSub(w2, tbMulMat(Jinv, f));
	}
	float3 o = tbMulMat(r, w2);
	omega[i] = make_float4(o.x, o.y, o.z, 0);
}

// tb_integrate_velocities runs tbIntegrateVelocity over the bodies (every body, or the list: see
// tbBodyCount).
TB_KERNEL void tb_integrate_velocities(const float4 *rot, float4 *vel, float4 *omega, const float4 *invI,
                                       const unsigned *flags, int n, float h, float gx, float gy, float gz,
                                       const int *list, const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		tbIntegrateVelocity(tbBodyAt(list, t), rot, vel, omega, invI, flags, h, gx, gy, gz);
	}
}
TB_REGISTER(tb_integrate_velocities)

// tbNormalizeQuat is mathgl's Quat.Normalize: unchanged at length 1, identity at length 0.
TB_FN float4 tbNormalizeQuat(float4 q) {
	float len = sqrtf(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
	if (len == 1) {
		return q;
	}
	if (len == 0) {
		return make_float4(0, 0, 0, 1);
	}
	if (isinf(len) && len > 0) {
		len = 3.40282346638528859811704183484516925440e+38f;
	}
	float s = 1 / len;
	return make_float4(q.x * s, q.y * s, q.z * s, q.w * 1 / len);
}

// tbIntegratePosition moves awake dynamic and kinematic bodies over one sub-step h (integratePositions):
// x += h v, q += h/2 (w, 0) q, renormalised.
TB_FN void tbIntegratePosition(int i, float4 *pos, float4 *rot, const float4 *vel, const float4 *omega,
                               const unsigned *flags, float h) {
	if ((flags[i] & TB_TYPE_MASK) == TB_STATIC || (flags[i] & TB_ASLEEP) != 0) {
		return;
	}
	float4 p = pos[i], v = vel[i];
	p.x += v.x * h, p.y += v.y * h, p.z += v.z * h;
	pos[i] = p; // w (inverse mass) unchanged
	float3 om = tbXYZ(omega[i]);
	if (om.x == 0 && om.y == 0 && om.z == 0) {
		return;
	}
	float4 q = rot[i];
	float hh = 0.5f * h;
	float3 qv = make_float3(q.x, q.y, q.z);
	float dw = -(om.x * q.x + om.y * q.y + om.z * q.z);
	float3 dv = tbAdd(tbCross(om, qv), tbScale(om, q.w));
	q.w += hh * dw;
	qv = tbAdd(qv, tbScale(dv, hh));
	rot[i] = tbNormalizeQuat(make_float4(qv.x, qv.y, qv.z, q.w));
}

// tb_integrate_positions runs tbIntegratePosition over the bodies (every body, or the list).
TB_KERNEL void tb_integrate_positions(float4 *pos, float4 *rot, const float4 *vel, const float4 *omega,
                                      const unsigned *flags, int n, float h, const int *list,
                                      const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		tbIntegratePosition(tbBodyAt(list, t), pos, rot, vel, omega, flags, h);
	}
}
TB_REGISTER(tb_integrate_positions)

// tbIntegrateFinish refreshes the world inverse inertia of dynamic bodies from their final
// orientations (finishStep; sim's worldInertia, through mathgl's rotation matrix). The solver keeps
// the step's inertia fixed until then, as the CPU does.
TB_FN void tbIntegrateFinish(int i, const float4 *rot, const float4 *invI, float4 *invIW, const unsigned *flags) {
	if ((flags[i] & TB_TYPE_MASK) != TB_DYNAMIC) {
		return;
	}
	float4 q = rot[i], inv = invI[i];
	float x = q.x, y = q.y, z = q.z, w = q.w;
	float r[9] = {
	    1 - 2 * y * y - 2 * z * z, 2 * x * y + 2 * w * z, 2 * x * z - 2 * w * y,
	    2 * x * y - 2 * w * z, 1 - 2 * x * x - 2 * z * z, 2 * y * z + 2 * w * x,
	    2 * x * z + 2 * w * y, 2 * y * z - 2 * w * x, 1 - 2 * x * x - 2 * y * y,
	};
	// Row rr of R diag(inv) R^T (symmetric, so rows and columns agree bit for bit).
	for (int rr = 0; rr < 3; rr++) {
		float e[3];
		for (int c = 0; c < 3; c++) {
			e[c] = r[rr] * r[c] * inv.x + r[3 + rr] * r[3 + c] * inv.y + r[6 + rr] * r[6 + c] * inv.z;
		}
		invIW[3 * i + rr] = make_float4(e[0], e[1], e[2], 0);
	}
}

// tb_integrate_finish runs tbIntegrateFinish over the bodies (every body, or the list: a body off the
// list, asleep, keeps the inertia of its unchanged orientation).
TB_KERNEL void tb_integrate_finish(const float4 *rot, const float4 *invI, float4 *invIW, const unsigned *flags,
                                   int n, const int *list, const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		tbIntegrateFinish(tbBodyAt(list, t), rot, invI, invIW, flags);
	}
}
TB_REGISTER(tb_integrate_finish)

// tbBlowupCheck records in *bad the lowest index of a non-static body whose position,
// velocity, angular velocity or rotation is non-finite, or whose speed exceeds maxSpeed (checkBlowUp).
// *bad must hold n before the launch; tb_integrate_blowup_done turns "none" (n) into -1.
TB_FN void tbBlowupCheck(int i, const float4 *pos, const float4 *rot, const float4 *vel, const float4 *omega,
                         const unsigned *flags, float maxSpeed, int *bad) {
	if ((flags[i] & TB_TYPE_MASK) == TB_STATIC) {
		return;
	}
	float4 p = pos[i], v = vel[i], o = omega[i], q = rot[i];
	// Sums, as the CPU checks them: any non-finite component makes the sum non-finite.
	bool badState = !isfinite(p.x + p.y + p.z) || !isfinite(v.x + v.y + v.z) || !isfinite(o.x + o.y + o.z) ||
	                sqrtf(v.x * v.x + v.y * v.y + v.z * v.z) > maxSpeed || !isfinite(q.w + q.x + q.y + q.z);
	if (badState) {
		atomicMin(bad, i);
	}
}

// tb_integrate_blowup_check runs tbBlowupCheck over the bodies (every body, or the list: a body off
// the list, asleep, keeps the state it was checked with).
TB_KERNEL void tb_integrate_blowup_check(const float4 *pos, const float4 *rot, const float4 *vel,
                                         const float4 *omega, const unsigned *flags, int n, float maxSpeed,
                                         int *bad, const int *list, const unsigned *listN) {
	int m = tbBodyCount(list, listN, n);
	for (int t = tbThread(); t < m; t += tbStride()) {
		tbBlowupCheck(tbBodyAt(list, t), pos, rot, vel, omega, flags, maxSpeed, bad);
	}
}
TB_REGISTER(tb_integrate_blowup_check)

// tb_integrate_blowup_reset and tb_integrate_blowup_done bracket tb_integrate_blowup_check.
TB_KERNEL void tb_integrate_blowup_reset(int *bad, int n) {
	if (tbThread() == 0) {
		*bad = n;
	}
}
TB_REGISTER(tb_integrate_blowup_reset)

TB_KERNEL void tb_integrate_blowup_done(int *bad, int n) {
	if (tbThread() == 0 && *bad >= n) {
		*bad = -1;
	}
}
TB_REGISTER(tb_integrate_blowup_done)
