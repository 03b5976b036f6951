// joints.cu: the joint rows of the Jacobi solver, one thread per joint. A joint is a short
// composition of parts, as on the CPU: a point part (3 translation rows: ball, hinge, fixed), a
// hinge-rotation part (2 rows), a rotation part (3 rows: piston, fixed), a friction part (3 rows: a
// ball joint's friction), scalar rows (the piston's off-axis rows, the swing cone) and angle parts (a
// motor and lower and upper limits on the hinge angle, the piston travel or the ball twist; a hinge's
// or piston's friction is its motor of speed 0, as sim's JointDef.drive).
//
// Each Jacobi pass solves a joint's parts in sequence from the pass's start velocities against the
// split masses, then records the impulses it applied (jimp, three float4 per joint), which
// tb_solver_gather adds per body in joint order after the manifolds', as the CPU's Jacobi step does.
// A Gauss-Seidel pass (PGS, tb_joint_gs) solves the same parts colour by colour on the bodies' current
// velocities, with whole masses, and writes the velocities back.
#include "layout.cuh"
#include "solvermath.cuh"
#include "gomath.cuh"

#define TB_JOINT_BALL 0
#define TB_JOINT_HINGE 1
#define TB_JOINT_PISTON 2
#define TB_JOINT_FIXED 3

// Joint flags.
#define TB_JOINT_LIMITS 1u // hinge, piston: limits on the coordinate
#define TB_JOINT_MOTOR 2u  // hinge, piston: a motor on the coordinate
#define TB_JOINT_TWIST 4u  // ball: twist limits
#define TB_JOINT_SERVO 8u  // hinge, piston: the motor drives the coordinate to motorTarget (sim.MotorPosition)

// TbJointRow is one scalar row (sim's axisPart): J = [-d, -ra, d, rb] on (vA, wA, vB, wB).
struct TbJointRow {
	float3 d, ra, rb;
	float3 ia, ib; // the split inverse inertias times ra and rb
	float mass;    // 1 / (J M^-1 J^T), 0 when no body can move along the row
	float c;       // position error
	float impulse; // accumulated, kept across steps for warm starting
};

// TbJoint is one joint: its definition and creation frames (uploaded by gpu/joints.go from
// sim.JointFrame), the split masses fixed for the step, and its parts. Its Go mirror (tbJoint) is
// generated into gpu/kernels_gen.go, and TestLayoutsMatchC checks every field's offset.
struct TbJoint {
	int type;
	int a, b; // dense body indices; b is -1 for the static world
	unsigned flags;
	float3 localA, localB, axisA, axisB, perpA, perpB;
	float rel0[4]; // qA^-1 qB at creation (x, y, z, w)
	float lo, hi;  // coordinate limits
	float motorSpeed, motorMaxForce;
	float motorTarget;      // a servo's target coordinate (TB_JOINT_SERVO)
	float swing;            // ball: swing cone angle, 0 for none
	float twistLo, twistHi; // ball: twist limits
	float friction;         // ball: friction torque, 0 for none

	// Per step: inverse masses and world inverse inertias scaled by the split counts (column-major).
	float mA, mB;
	float iA[9], iB[9];
	float coord;      // hinge angle, piston travel or ball twist at the last refresh
	float swingAngle; // ball: swing angle at the last refresh

	// Point part: anchors (world offsets from the centres), error, K^-1, impulse.
	float3 rA, rB, pointC;
	float pointMass[9];
	float3 pointImpulse;
	// Hinge-rotation part: rows u1, u2, errors, K^-1 (11, 12, 22), impulses.
	float3 u1, u2;
	float hingeC[2], hingeMass[3], hingeImpulse[2];
	// Rotation part: error (rotation vector), K^-1, impulse.
	float3 rotC;
	float rotMass[9];
	float3 rotImpulse;
	// Friction part (ball): K^-1 = (IA + IB)^-1, impulse.
	float fricMass[9];
	float3 fricImpulse;
	// Scalar rows.
	TbJointRow perp[2];                  // piston: off-axis translation
	TbJointRow swingRow;                 // ball: swing cone (one-sided)
	TbJointRow motor, lower, upper;      // hinge, piston: the coordinate's motor and limits
	TbJointRow twistLower, twistUpper;   // ball: twist limits
};

// jinvert writes m^-1, or zero when m is singular (sim's invert over mathgl's Mat3.Inv, which also
// takes a determinant within 1e-20 of zero as singular).
TB_FN void jinvert(const float *m, float *out) {
	float det = m[0] * m[4] * m[8] + m[3] * m[7] * m[2] + m[6] * m[1] * m[5] - m[6] * m[4] * m[2] -
	            m[3] * m[1] * m[8] - m[0] * m[7] * m[5];
	if (det == 0 || det != det || fabsf(det) < 1e-20f) {
		for (int i = 0; i < 9; i++) {
			out[i] = 0;
		}
		return;
	}
	float inv = 1 / det;
	out[0] = (m[4] * m[8] - m[5] * m[7]) * inv;
	out[1] = (m[2] * m[7] - m[1] * m[8]) * inv;
	out[2] = (m[1] * m[5] - m[2] * m[4]) * inv;
	out[3] = (m[5] * m[6] - m[3] * m[8]) * inv;
	out[4] = (m[0] * m[8] - m[2] * m[6]) * inv;
	out[5] = (m[2] * m[3] - m[0] * m[5]) * inv;
	out[6] = (m[3] * m[7] - m[4] * m[6]) * inv;
	out[7] = (m[1] * m[6] - m[0] * m[7]) * inv;
	out[8] = (m[0] * m[4] - m[1] * m[3]) * inv;
}

// jquatMat writes the rotation matrix (column-major) of the unit quaternion (x, y, z, w), as sim's
// quatMat3.
TB_FN void jquatMat(float4 q, float *m) {
	float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
	float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
	float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
	m[0] = 1 - 2 * (yy + zz);
	m[1] = 2 * (xy + wz);
	m[2] = 2 * (xz - wy);
	m[3] = 2 * (xy - wz);
	m[4] = 1 - 2 * (xx + zz);
	m[5] = 2 * (yz + wx);
	m[6] = 2 * (xz + wy);
	m[7] = 2 * (yz - wx);
	m[8] = 1 - 2 * (xx + yy);
}

// jqmul returns the Hamilton product p q of quaternions stored as (x, y, z, w).
TB_FN float4 jqmul(float4 p, float4 q) {
	float3 pv = make_float3(p.x, p.y, p.z), qv = make_float3(q.x, q.y, q.z);
	float3 v = tbAdd(tbAdd(tbCross(pv, qv), tbScale(qv, p.w)), tbScale(pv, q.w));
	return make_float4(v.x, v.y, v.z, p.w * q.w - tbDot(pv, qv));
}
TB_FN float4 jconj(float4 q) { return make_float4(-q.x, -q.y, -q.z, q.w); }

// TbJointSoft is the soft step of the joint rows (sim's softness).
struct TbJointSoft {
	float biasRate, massScale, impulseScale;
};

// TbJointPair is the state of a joint's two bodies while its parts are solved (sim's jointPair): their
// velocities, split masses, and the sums of the impulses applied (linear on b, angular on a and b).
struct TbJointPair {
	float3 vA, wA, vB, wB;
	float mA, mB;
	const float *iA, *iB;
	float3 lin, angA, angB;
};

TB_FN void japplyRow(TbJointPair &s, float imp, const TbJointRow &r) {
	s.vA = tbSub(s.vA, tbScale(r.d, imp * s.mA));
	s.wA = tbSub(s.wA, tbScale(r.ia, imp));
	s.vB = tbAdd(s.vB, tbScale(r.d, imp * s.mB));
	s.wB = tbAdd(s.wB, tbScale(r.ib, imp));
	s.lin = tbAdd(s.lin, tbScale(r.d, imp));
	s.angA = tbAdd(s.angA, tbScale(r.ra, imp));
	s.angB = tbAdd(s.angB, tbScale(r.rb, imp));
}

TB_FN void japplyPoint(TbJointPair &s, float3 P, float3 rA, float3 rB) {
	float3 lA = tbCross(rA, P), lB = tbCross(rB, P);
	s.vA = tbSub(s.vA, tbScale(P, s.mA));
	s.wA = tbSub(s.wA, tbMulMat(s.iA, lA));
	s.vB = tbAdd(s.vB, tbScale(P, s.mB));
	s.wB = tbAdd(s.wB, tbMulMat(s.iB, lB));
	s.lin = tbAdd(s.lin, P);
	s.angA = tbAdd(s.angA, lA);
	s.angB = tbAdd(s.angB, lB);
}

TB_FN void japplyAngular(TbJointPair &s, float3 L) {
	s.wA = tbSub(s.wA, tbMulMat(s.iA, L));
	s.wB = tbAdd(s.wB, tbMulMat(s.iB, L));
	s.angA = tbAdd(s.angA, L);
	s.angB = tbAdd(s.angB, L);
}

// Scalar rows (sim's axisPart).

TB_FN void jrowSet(TbJointRow &r, float3 d, float3 ra, float3 rb, float c, const TbJoint &j) {
	r.d = d;
	r.ra = ra;
	r.rb = rb;
	r.c = c;
	r.ia = tbMulMat(j.iA, ra);
	r.ib = tbMulMat(j.iB, rb);
	float k = (j.mA + j.mB) * tbDot(d, d) + tbDot(ra, r.ia) + tbDot(rb, r.ib);
	r.mass = k > 0 ? 1 / k : 0;
}

TB_FN float jrowVel(const TbJointPair &s, const TbJointRow &r) {
	return tbDot(r.d, tbSub(s.vB, s.vA)) + tbDot(r.rb, s.wB) - tbDot(r.ra, s.wA);
}

TB_FN void jsolveEquality(TbJointRow &r, TbJointPair &s, const TbJointSoft &soft, bool useBias) {
	float v = jrowVel(s, r);
	float imp;
	if (useBias) {
		imp = -r.mass * soft.massScale * (v + soft.biasRate * r.c) - soft.impulseScale * r.impulse;
	} else {
		imp = -r.mass * v;
	}
	r.impulse += imp;
	japplyRow(s, imp, r);
}

// jsolveLimit holds C >= 0; an open limit (C > 0) lets the gap close within the sub-step and no
// further (speculative), as sim's solveLimit.
TB_FN void jsolveLimit(TbJointRow &r, TbJointPair &s, const TbJointSoft &soft, bool useBias, float invH) {
	float v = jrowVel(s, r);
	float bias = 0, ms = 1, is = 0;
	if (r.c > 0) {
		bias = r.c * invH;
	} else if (useBias) {
		bias = r.c * soft.biasRate;
		ms = soft.massScale;
		is = soft.impulseScale;
	}
	float imp = -r.mass * ms * (v + bias) - is * r.impulse;
	float acc = fmaxf(r.impulse + imp, 0.0f);
	imp = acc - r.impulse;
	r.impulse = acc;
	japplyRow(s, imp, r);
}

TB_FN void jsolveMotor(TbJointRow &r, TbJointPair &s, float speed, float maxImpulse) {
	float v = jrowVel(s, r);
	float acc = fminf(fmaxf(r.impulse + r.mass * (speed - v), -maxImpulse), maxImpulse);
	float imp = acc - r.impulse;
	r.impulse = acc;
	japplyRow(s, imp, r);
}

// jservoError is sim's Motor.servoError: a servo's error, motorTarget - coord, taken the short way
// round on a hinge without limits (its angle is in (-pi, pi]).
TB_FN float jservoError(const TbJoint &j, bool limits) {
	float e = j.motorTarget - j.coord;
	if (j.type == TB_JOINT_HINGE && !limits) {
		// float32(pi) and float32(2 pi), as Go rounds its constants.
		if (e > 3.14159265f) {
			e -= 6.28318531f;
		} else if (e < -3.14159265f) {
			e += 6.28318531f;
		}
	}
	return e;
}

// jmotorRate is sim's Motor.rate: the rate the motor drives the coordinate to, its speed or, for a
// servo, the error times gain, no faster than |motorSpeed| (when not 0) nor than the speed from which
// half the force stops the coordinate within the error.
TB_FN float jmotorRate(const TbJoint &j, bool limits, float gain) {
	if ((j.flags & TB_JOINT_SERVO) == 0) {
		return j.motorSpeed;
	}
	float e = jservoError(j, limits);
	float v = e * gain;
	float s = fabsf(j.motorSpeed);
	if (s > 0) {
		v = fminf(fmaxf(v, -s), s);
	}
	if (j.motor.mass > 0) {
		s = sqrtf(j.motorMaxForce * fabsf(e) / j.motor.mass);
		v = fminf(fmaxf(v, -s), s);
	}
	return v;
}

// jsolveServo is sim's axisPart.solveServo under the soft step: a motor at its rate limit away from
// the target; within a sub-step's travel of it a soft position row at the joints' soft rate in the
// biased pass and a row to rate 0 in the relax pass.
TB_FN void jsolveServo(TbJointRow &r, TbJointPair &s, const TbJoint &j, bool limits, const TbJointSoft &soft,
                       bool useBias, float maxImpulse) {
	float v = jrowVel(s, r);
	float imp;
	float rate = jmotorRate(j, limits, soft.biasRate);
	if (rate != soft.biasRate * jservoError(j, limits)) {
		imp = r.mass * (rate - v);
	} else if (useBias) {
		imp = soft.massScale * r.mass * (rate - v) - soft.impulseScale * r.impulse;
	} else {
		imp = -r.mass * v;
	}
	float acc = fminf(fmaxf(r.impulse + imp, -maxImpulse), maxImpulse);
	imp = acc - r.impulse;
	r.impulse = acc;
	japplyRow(s, imp, r);
}

// Angle parts: a motor and lower and upper limits on one coordinate x with rate (d, ra, rb).

TB_FN void jangleSet(TbJointRow &motor, TbJointRow &lower, TbJointRow &upper, float3 d, float3 ra, float3 rb,
                     float x, bool limits, float lo, float hi, bool hasMotor, const TbJoint &j) {
	if (hasMotor) {
		jrowSet(motor, d, ra, rb, 0, j);
	}
	if (limits) {
		jrowSet(lower, d, ra, rb, x - lo, j);
		jrowSet(upper, tbScale(d, -1), tbScale(ra, -1), tbScale(rb, -1), hi - x, j);
	}
}

// Point part.

TB_FN void jpointSet(TbJoint &j, float3 rA, float3 rB, float3 c) {
	j.rA = rA;
	j.rB = rB;
	j.pointC = c;
	float k[9];
	float3 e[3] = {make_float3(1, 0, 0), make_float3(0, 1, 0), make_float3(0, 0, 1)};
	for (int col = 0; col < 3; col++) {
		float3 kc = tbAdd(tbAdd(tbScale(e[col], j.mA + j.mB), tbCross(tbMulMat(j.iA, tbCross(rA, e[col])), rA)),
		                 tbCross(tbMulMat(j.iB, tbCross(rB, e[col])), rB));
		k[3 * col] = kc.x;
		k[3 * col + 1] = kc.y;
		k[3 * col + 2] = kc.z;
	}
	jinvert(k, j.pointMass);
}

TB_FN void jpointSolve(TbJoint &j, TbJointPair &s, const TbJointSoft &soft, bool useBias) {
	float3 cdot = tbSub(tbSub(tbAdd(s.vB, tbCross(s.wB, j.rB)), s.vA), tbCross(s.wA, j.rA));
	float3 imp;
	if (useBias) {
		imp = tbSub(tbScale(tbMulMat(j.pointMass, tbAdd(cdot, tbScale(j.pointC, soft.biasRate))), -soft.massScale),
		           tbScale(j.pointImpulse, soft.impulseScale));
	} else {
		imp = tbScale(tbMulMat(j.pointMass, cdot), -1);
	}
	j.pointImpulse = tbAdd(j.pointImpulse, imp);
	japplyPoint(s, imp, j.rA, j.rB);
}

// Hinge-rotation part: B's directions b2, c2 perpendicular to its axis stay perpendicular to A's axis a1.

TB_FN void jhingeSet(TbJoint &j, float3 a1, float3 b2, float3 c2) {
	j.u1 = tbCross(b2, a1);
	j.u2 = tbCross(c2, a1);
	j.hingeC[0] = tbDot(a1, b2);
	j.hingeC[1] = tbDot(a1, c2);
	float3 i1 = tbAdd(tbMulMat(j.iA, j.u1), tbMulMat(j.iB, j.u1));
	float3 i2 = tbAdd(tbMulMat(j.iA, j.u2), tbMulMat(j.iB, j.u2));
	float k11 = tbDot(j.u1, i1), k12 = tbDot(j.u1, i2), k22 = tbDot(j.u2, i2);
	float det = k11 * k22 - k12 * k12;
	j.hingeMass[0] = j.hingeMass[1] = j.hingeMass[2] = 0;
	if (det > 1e-12f * (k11 * k22) && det > 0) {
		float inv = 1 / det;
		j.hingeMass[0] = k22 * inv;
		j.hingeMass[1] = -k12 * inv;
		j.hingeMass[2] = k11 * inv;
	}
}

TB_FN void jhingeSolve(TbJoint &j, TbJointPair &s, const TbJointSoft &soft, bool useBias) {
	float3 dw = tbSub(s.wB, s.wA);
	float c1 = tbDot(j.u1, dw), c2 = tbDot(j.u2, dw);
	float ms = 1, is = 0;
	if (useBias) {
		c1 += soft.biasRate * j.hingeC[0];
		c2 += soft.biasRate * j.hingeC[1];
		ms = soft.massScale;
		is = soft.impulseScale;
	}
	float l1 = -ms * (j.hingeMass[0] * c1 + j.hingeMass[1] * c2) - is * j.hingeImpulse[0];
	float l2 = -ms * (j.hingeMass[1] * c1 + j.hingeMass[2] * c2) - is * j.hingeImpulse[1];
	j.hingeImpulse[0] += l1;
	j.hingeImpulse[1] += l2;
	japplyAngular(s, tbAdd(tbScale(j.u1, l1), tbScale(j.u2, l2)));
}

// Rotation part: the error is the rotation vector of qE = qB q0^-1 qA^-1, approximated as 2 vec(qE);
// K = IA + IB.

TB_FN void jrotSet(TbJoint &j, float4 qA, float4 qB) {
	float4 rel0 = make_float4(j.rel0[0], j.rel0[1], j.rel0[2], j.rel0[3]);
	float4 qE = jqmul(jqmul(qB, jconj(rel0)), jconj(qA));
	float3 c = tbScale(make_float3(qE.x, qE.y, qE.z), 2);
	if (qE.w < 0) {
		c = tbScale(c, -1);
	}
	j.rotC = c;
	float k[9];
	for (int i = 0; i < 9; i++) {
		k[i] = j.iA[i] + j.iB[i];
	}
	jinvert(k, j.rotMass);
}

// jfricSolve is sim's frictionPart.solve: the three rotation rows hold wB - wA at zero with the
// accumulated impulse kept within maxImpulse in length.
TB_FN void jfricSolve(TbJoint &j, TbJointPair &s, float maxImpulse) {
	float3 acc = tbSub(j.fricImpulse, tbMulMat(j.fricMass, tbSub(s.wB, s.wA)));
	float l2 = tbDot(acc, acc);
	if (l2 > maxImpulse * maxImpulse) {
		acc = tbScale(acc, maxImpulse / sqrtf(l2));
	}
	float3 imp = tbSub(acc, j.fricImpulse);
	j.fricImpulse = acc;
	japplyAngular(s, imp);
}

TB_FN void jrotSolve(TbJoint &j, TbJointPair &s, const TbJointSoft &soft, bool useBias) {
	float3 cdot = tbSub(s.wB, s.wA);
	float3 imp;
	if (useBias) {
		imp = tbSub(tbScale(tbMulMat(j.rotMass, tbAdd(cdot, tbScale(j.rotC, soft.biasRate))), -soft.massScale),
		           tbScale(j.rotImpulse, soft.impulseScale));
	} else {
		imp = tbScale(tbMulMat(j.rotMass, cdot), -1);
	}
	j.rotImpulse = tbAdd(j.rotImpulse, imp);
	japplyAngular(s, imp);
}

// jrefresh sets every part's rows and errors from the bodies' current poses (sim's refreshJoint).
TB_FN void jrefresh(TbJoint &j, const float4 *pos, const float4 *rot) {
	float RA[9], RB[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	float4 qA = rot[j.a], qB = make_float4(0, 0, 0, 1);
	float3 xA = tbXYZ(pos[j.a]), xB = make_float3(0, 0, 0);
	jquatMat(qA, RA);
	if (j.b >= 0) {
		qB = rot[j.b];
		xB = tbXYZ(pos[j.b]);
		jquatMat(qB, RB);
	}
	float3 rA = tbMulMat(RA, j.localA), rB = tbMulMat(RB, j.localB);
	float3 d = tbSub(tbSub(tbAdd(xB, rB), xA), rA);
	bool limits = (j.flags & TB_JOINT_LIMITS) != 0, motor = (j.flags & TB_JOINT_MOTOR) != 0;
	switch (j.type) {
	case TB_JOINT_BALL:
		jpointSet(j, rA, rB, d);
		if (j.swing > 0 || (j.flags & TB_JOINT_TWIST)) {
			// Swing: the angle between the twist axes; twist: about B's axis once A's reference
			// direction is carried onto B by the shortest rotation from tA to tB (sim's swingTwist).
			float3 tA = tbMulMat(RA, j.axisA), tB = tbMulMat(RB, j.axisB);
			float3 e = tbCross(tA, tB);
			float sn = sqrtf(tbDot(e, e)), cs = tbDot(tA, tB);
			float swing = tbAtan2f(sn, cs);
			float3 pA = tbMulMat(RA, j.perpA), pB = tbMulMat(RB, j.perpB);
			if (cs > -0.999f) {
				pA = tbAdd(tbAdd(tbScale(pA, cs), tbCross(e, pA)), tbScale(e, tbDot(e, pA) / (1 + cs)));
			}
			float twist = tbAtan2f(tbDot(tB, tbCross(pA, pB)), tbDot(pA, pB));
			j.swingAngle = swing;
			j.coord = twist;
			if (j.swing > 0) {
				float3 ax = tbMulMat(RA, j.perpA);
				float s = sqrtf(tbDot(e, e));
				if (s > 1e-6f) {
					ax = tbScale(e, 1 / s);
				}
				ax = tbScale(ax, -1);
				jrowSet(j.swingRow, make_float3(0, 0, 0), ax, ax, j.swing - swing, j);
			}
			if (j.flags & TB_JOINT_TWIST) {
				float3 t = tbAdd(tA, tB);
				t = tbScale(t, 1 / fmaxf(sqrtf(tbDot(t, t)), 1e-6f));
				jangleSet(j.motor, j.twistLower, j.twistUpper, make_float3(0, 0, 0), t, t, twist, true, j.twistLo,
				          j.twistHi, false, j);
			}
		}
		if (j.friction > 0) {
			float k[9];
			for (int i = 0; i < 9; i++) {
				k[i] = j.iA[i] + j.iB[i];
			}
			jinvert(k, j.fricMass);
		}
		break;
	case TB_JOINT_HINGE: {
		jpointSet(j, rA, rB, d);
		float3 a1 = tbMulMat(RA, j.axisA);
		float3 b2 = tbMulMat(RB, j.perpB);
		float3 c2 = tbMulMat(RB, tbCross(j.axisB, j.perpB));
		jhingeSet(j, a1, b2, c2);
		float3 p1 = tbMulMat(RA, j.perpA);
		// A's angle relative to B: its rate is a1.(wA - wB), so the row is -a1.
		j.coord = -tbAtan2f(tbDot(a1, tbCross(p1, b2)), tbDot(p1, b2));
		float3 na1 = tbScale(a1, -1);
		jangleSet(j.motor, j.lower, j.upper, make_float3(0, 0, 0), na1, na1, j.coord, limits, j.lo, j.hi, motor, j);
		break;
	}
	case TB_JOINT_PISTON: {
		float3 n = tbMulMat(RA, j.axisA);
		float3 n1 = tbMulMat(RA, j.perpA);
		float3 n2 = tbCross(n, n1);
		float3 ra = tbAdd(rA, d);
		jrowSet(j.perp[0], n1, tbCross(ra, n1), tbCross(rB, n1), tbDot(n1, d), j);
		jrowSet(j.perp[1], n2, tbCross(ra, n2), tbCross(rB, n2), tbDot(n2, d), j);
		jrotSet(j, qA, qB);
		// A's travel relative to B along the axis: -n.d, at the rate of the reversed row.
		j.coord = -tbDot(n, d);
		float3 nn = tbScale(n, -1);
		jangleSet(j.motor, j.lower, j.upper, nn, tbCross(ra, nn), tbCross(rB, nn), j.coord, limits, j.lo, j.hi, motor,
		          j);
		break;
	}
	case TB_JOINT_FIXED:
		jpointSet(j, rA, rB, d);
		jrotSet(j, qA, qB);
		break;
	}
}

TB_FN TbJointPair jpair(const TbJoint &j) {
	TbJointPair s;
	s.vA = s.wA = s.vB = s.wB = make_float3(0, 0, 0);
	s.lin = s.angA = s.angB = make_float3(0, 0, 0);
	s.mA = j.mA;
	s.mB = j.mB;
	s.iA = j.iA;
	s.iB = j.iB;
	return s;
}

// jrecord writes joint k's recorded impulses (the pair's lin, angA, angB) to its record, which
// tb_solver_gather adds to its dynamic bodies in joint order (what sim's gatherImpulses adds per joint).
TB_FN void jrecord(float4 *jimp, unsigned k, const TbJointPair &s) {
	jimp[3 * k] = make_float4(s.lin.x, s.lin.y, s.lin.z, 0);
	jimp[3 * k + 1] = make_float4(s.angA.x, s.angA.y, s.angA.z, 0);
	jimp[3 * k + 2] = make_float4(s.angB.x, s.angB.y, s.angB.z, 0);
}

// tb_joint_count adds one to the split count of each of a joint's bodies (sim's jointAdjacency).
TB_KERNEL void tb_joint_count(const TbJoint *joints, int n, unsigned *split) {
	unsigned k = tbThread();
	if (k >= (unsigned)n) {
		return;
	}
	const TbJoint &j = joints[k];
	atomicAdd(&split[j.a], 1u);
	if (j.b >= 0) {
		atomicAdd(&split[j.b], 1u);
	}
}

// tb_joint_prepare fixes the joints' inverse masses and inertias for the step: a body on c constraints
// counts as c bodies of mass m / c (sim's jointMasses under Jacobi). invIW holds three float4 rows per
// body. reset zeroes the accumulated impulses (no warm starting).
TB_KERNEL void tb_joint_prepare(TbJoint *joints, int n, const float4 *pos, const float4 *invIW, const unsigned *split,
                                int reset) {
	unsigned k = tbThread();
	if (k >= (unsigned)n) {
		return;
	}
	TbJoint &j = joints[k];
	float sA = (float)max(split[j.a], 1u);
	j.mA = pos[j.a].w * sA;
	for (int r = 0; r < 3; r++) {
		float4 row = invIW[3 * j.a + r];
		j.iA[r] = row.x * sA;
		j.iA[3 + r] = row.y * sA;
		j.iA[6 + r] = row.z * sA;
	}
	j.mB = 0;
	for (int i = 0; i < 9; i++) {
		j.iB[i] = 0;
	}
	if (j.b >= 0) {
		float sB = (float)max(split[j.b], 1u);
		j.mB = pos[j.b].w * sB;
		for (int r = 0; r < 3; r++) {
			float4 row = invIW[3 * j.b + r];
			j.iB[r] = row.x * sB;
			j.iB[3 + r] = row.y * sB;
			j.iB[6 + r] = row.z * sB;
		}
	}
	if (reset) {
		j.pointImpulse = j.rotImpulse = make_float3(0, 0, 0);
		j.hingeImpulse[0] = j.hingeImpulse[1] = 0;
		j.perp[0].impulse = j.perp[1].impulse = j.swingRow.impulse = 0;
		j.motor.impulse = j.lower.impulse = j.upper.impulse = 0;
		j.twistLower.impulse = j.twistUpper.impulse = 0;
		j.fricImpulse = make_float3(0, 0, 0);
	}
}

// tb_joint_refresh sets the joints' rows from the bodies' current poses.
TB_KERNEL void tb_joint_refresh(TbJoint *joints, int n, const float4 *pos, const float4 *rot) {
	unsigned k = tbThread();
	if (k >= (unsigned)n) {
		return;
	}
	jrefresh(joints[k], pos, rot);
}

// jwarm records joint k's accumulated impulses (sim's warmJoint).
TB_FN void jwarm(unsigned k, const TbJoint *joints, float4 *jimp) {
	const TbJoint &j = joints[k];
	TbJointPair s = jpair(j);
	bool limits = (j.flags & TB_JOINT_LIMITS) != 0, motor = (j.flags & TB_JOINT_MOTOR) != 0;
	switch (j.type) {
	case TB_JOINT_BALL:
		japplyPoint(s, j.pointImpulse, j.rA, j.rB);
		if (j.swing > 0) {
			japplyRow(s, j.swingRow.impulse, j.swingRow);
		}
		if (j.flags & TB_JOINT_TWIST) {
			japplyRow(s, j.twistLower.impulse, j.twistLower);
			japplyRow(s, j.twistUpper.impulse, j.twistUpper);
		}
		if (j.friction > 0) {
			japplyAngular(s, j.fricImpulse);
		}
		break;
	case TB_JOINT_HINGE:
	case TB_JOINT_PISTON:
		if (j.type == TB_JOINT_HINGE) {
			japplyPoint(s, j.pointImpulse, j.rA, j.rB);
			japplyAngular(s, tbAdd(tbScale(j.u1, j.hingeImpulse[0]), tbScale(j.u2, j.hingeImpulse[1])));
		} else {
			japplyRow(s, j.perp[0].impulse, j.perp[0]);
			japplyRow(s, j.perp[1].impulse, j.perp[1]);
			japplyAngular(s, j.rotImpulse);
		}
		if (motor) {
			japplyRow(s, j.motor.impulse, j.motor);
		}
		if (limits) {
			japplyRow(s, j.lower.impulse, j.lower);
			japplyRow(s, j.upper.impulse, j.upper);
		}
		break;
	case TB_JOINT_FIXED:
		japplyPoint(s, j.pointImpulse, j.rA, j.rB);
		japplyAngular(s, j.rotImpulse);
		break;
	}
	jrecord(jimp, k, s);
}

// tb_joint_warm is jwarm, a thread per joint.
TB_KERNEL void tb_joint_warm(const TbJoint *joints, int n, float4 *jimp) {
	unsigned k = tbThread();
	if (k < (unsigned)n) {
		jwarm(k, joints, jimp);
	}
}

// jsolveParts solves joint j's parts in sequence on the pair s (motor and limits first, the equality
// parts last, as sim's solveJointParts; the limit rows with their own softness, limit) and returns the
// square of the translation impulse it carries (sim's joint.force before the root and the division by h).
TB_FN float jsolveParts(TbJoint &j, TbJointPair &s, const TbJointSoft &soft, const TbJointSoft &limit, bool bias,
                        float invH) {
	bool limits = (j.flags & TB_JOINT_LIMITS) != 0, motor = (j.flags & TB_JOINT_MOTOR) != 0;
	float l2 = 0;
	switch (j.type) {
	case TB_JOINT_BALL:
		if (j.friction > 0) {
			jfricSolve(j, s, j.friction / invH);
		}
		if (j.swing > 0) {
			jsolveLimit(j.swingRow, s, limit, bias, invH);
		}
		if (j.flags & TB_JOINT_TWIST) {
			jsolveLimit(j.twistLower, s, limit, bias, invH);
			jsolveLimit(j.twistUpper, s, limit, bias, invH);
		}
		jpointSolve(j, s, soft, bias);
		l2 = tbDot(j.pointImpulse, j.pointImpulse);
		break;
	case TB_JOINT_HINGE:
	case TB_JOINT_PISTON:
		if (motor && (j.flags & TB_JOINT_SERVO) != 0) {
			jsolveServo(j.motor, s, j, limits, soft, bias, j.motorMaxForce / invH);
		} else if (motor) {
			jsolveMotor(j.motor, s, j.motorSpeed, j.motorMaxForce / invH);
		}
		if (limits) {
			jsolveLimit(j.lower, s, limit, bias, invH);
			jsolveLimit(j.upper, s, limit, bias, invH);
		}
		if (j.type == TB_JOINT_HINGE) {
			jhingeSolve(j, s, soft, bias);
			jpointSolve(j, s, soft, bias);
			l2 = tbDot(j.pointImpulse, j.pointImpulse);
		} else {
			jrotSolve(j, s, soft, bias);
			jsolveEquality(j.perp[0], s, soft, bias);
			jsolveEquality(j.perp[1], s, soft, bias);
			float t = j.lower.impulse - j.upper.impulse + j.motor.impulse;
			l2 = j.perp[0].impulse * j.perp[0].impulse + j.perp[1].impulse * j.perp[1].impulse + t * t;
		}
		break;
	case TB_JOINT_FIXED:
		jrotSolve(j, s, soft, bias);
		jpointSolve(j, s, soft, bias);
		l2 = tbDot(j.pointImpulse, j.pointImpulse);
		break;
	}
	return l2;
}

// jload returns joint j's pair with its bodies' velocities (the static world's are zero).
TB_FN TbJointPair jload(const TbJoint &j, const float4 *vel, const float4 *omega) {
	TbJointPair s = jpair(j);
	s.vA = tbXYZ(vel[j.a]);
	s.wA = tbXYZ(omega[j.a]);
	if (j.b >= 0) {
		s.vB = tbXYZ(vel[j.b]);
		s.wB = tbXYZ(omega[j.b]);
	}
	return s;
}

// jsolve is one Jacobi pass over joint k: it solves its parts in sequence from the velocities at the
// start of the pass, records the impulses it applied, and writes the force it carries (translation
// impulse over the sub-step, sim's joint.force) to force[k]. The limit rows take their own softness,
// limit (sim's limitSoft).
TB_FN void jsolve(unsigned k, TbJoint *joints, const float4 *vel, const float4 *omega, float4 *jimp,
                  const TbJointSoft &soft, const TbJointSoft &limit, float invH, int useBias, float *force) {
	TbJoint &j = joints[k];
	TbJointPair s = jload(j, vel, omega);
	float l2 = jsolveParts(j, s, soft, limit, useBias != 0, invH);
	force[k] = sqrtf(l2) * invH;
	jrecord(jimp, k, s);
}

// tb_joint_solve is jsolve, a thread per joint; the limit rows' softness is limitBias, limitMass,
// limitImpulse.
TB_KERNEL void tb_joint_solve(TbJoint *joints, int n, const float4 *vel, const float4 *omega, float4 *jimp,
                              float biasRate, float massScale, float impulseScale, float limitBias,
                              float limitMass, float limitImpulse, float invH, int useBias, float *force) {
	unsigned k = tbThread();
	if (k < (unsigned)n) {
		TbJointSoft soft = {biasRate, massScale, impulseScale};
		TbJointSoft limit = {limitBias, limitMass, limitImpulse};
		jsolve(k, joints, vel, omega, jimp, soft, limit, invH, useBias, force);
	}
}

// jgs is one Gauss-Seidel pass over joint k (sim's solveJoint): it solves its parts in sequence on its
// bodies' current velocities, with unsplit masses, and writes the dynamic ones back, and its force as
// jsolve does.
TB_FN void jgs(int k, TbJoint *joints, const float4 *pos, float4 *vel, float4 *omega, const TbJointSoft &soft,
               const TbJointSoft &limit, float invH, int useBias, float *force) {
	TbJoint &j = joints[k];
	TbJointPair s = jload(j, vel, omega);
	float l2 = jsolveParts(j, s, soft, limit, useBias != 0, invH);
	force[k] = sqrtf(l2) * invH;
	if (pos[j.a].w != 0) {
		vel[j.a] = make_float4(s.vA.x, s.vA.y, s.vA.z, 0);
		omega[j.a] = make_float4(s.wA.x, s.wA.y, s.wA.z, 0);
	}
	if (j.b >= 0 && pos[j.b].w != 0) {
		vel[j.b] = make_float4(s.vB.x, s.vB.y, s.vB.z, 0);
		omega[j.b] = make_float4(s.wB.x, s.wB.y, s.wB.z, 0);
	}
}

// tb_joint_gs is jgs over colour c's joints (order, colourStart: tb_gs_colour): a thread per joint,
// or for the overflow one thread for all of them in order; the limit rows' softness is limitBias,
// limitMass, limitImpulse.
TB_KERNEL void tb_joint_gs(TbJoint *joints, const int *order, const int *colourStart, int c, const float4 *pos,
                           float4 *vel, float4 *omega, float biasRate, float massScale, float impulseScale,
                           float limitBias, float limitMass, float limitImpulse, float invH, int useBias,
                           float *force) {
	int lo, hi;
	tbColourRange(colourStart, c, &lo, &hi);
	TbJointSoft soft = {biasRate, massScale, impulseScale};
	TbJointSoft limit = {limitBias, limitMass, limitImpulse};
	for (int i = lo; i < hi; i++) {
		jgs(order[i], joints, pos, vel, omega, soft, limit, invH, useBias, force);
	}
}

// tb_joint_keep carries the accumulated impulses of the joints that an edit kept over to the new joint
// array (from[k] is joint k's index in src, or -1 for a new joint), so that warm starting survives the
// removal or addition of other joints, as on the CPU. The rows are set again by the next refresh.
TB_KERNEL void tb_joint_keep(TbJoint *dst, const TbJoint *src, const int *from, int n) {
	unsigned k = tbThread();
	if (k >= (unsigned)n || from[k] < 0) {
		return;
	}
	TbJoint &j = dst[k];
	const TbJoint &o = src[from[k]];
	j.pointImpulse = o.pointImpulse;
	j.rotImpulse = o.rotImpulse;
	j.hingeImpulse[0] = o.hingeImpulse[0];
	j.hingeImpulse[1] = o.hingeImpulse[1];
	j.perp[0].impulse = o.perp[0].impulse;
	j.perp[1].impulse = o.perp[1].impulse;
	j.swingRow.impulse = o.swingRow.impulse;
	j.motor.impulse = o.motor.impulse;
	j.lower.impulse = o.lower.impulse;
	j.upper.impulse = o.upper.impulse;
	j.twistLower.impulse = o.twistLower.impulse;
	j.twistUpper.impulse = o.twistUpper.impulse;
	j.fricImpulse = o.fricImpulse;
}

// tb_joint_sizes writes sizeof(TbJoint) and sizeof(TbJointRow), for the test that checks gpu/joints.go's
// mirror.
TB_KERNEL void tb_joint_sizes(unsigned *out) {
	if (tbThread() == 0) {
		out[0] = sizeof(TbJoint);
		out[1] = sizeof(TbJointRow);
	}
}

// tb_joint_atan2 writes tbAtan2f(y[i], x[i]) to out[i], for the test that it is Go's math.Atan2 to the bit.
TB_KERNEL void tb_joint_atan2(const float *y, const float *x, float *out, int n) {
	int i = tbThread();
	if (i < n) {
		out[i] = tbAtan2f(y[i], x[i]);
	}
}

TB_REGISTER(tb_joint_atan2)
TB_REGISTER(tb_joint_count)
TB_REGISTER(tb_joint_prepare)
TB_REGISTER(tb_joint_refresh)
TB_REGISTER(tb_joint_warm)
TB_REGISTER(tb_joint_solve)
TB_REGISTER(tb_joint_gs)
TB_REGISTER(tb_joint_keep)
TB_REGISTER(tb_joint_sizes)

// tbJointHold keeps in held the force of joint k if its island is awake (sim's holdJointForces): a
// joint is asleep when one of its bodies sleeps and the other sleeps too or is not dynamic (the world,
// a static or kinematic body); a sleeping joint's held force is the one it carried when it fell asleep.
TB_FN void tbJointHold(int k, const TbJoint *joints, const unsigned *flags, const float *force, float *held) {
	int asleep = 0, still = 0;
	int body[2] = {joints[k].a, joints[k].b};
	for (int s = 0; s < 2; s++) {
		int i = body[s];
		if (i < 0 || (flags[i] & TB_TYPE_MASK) != TB_DYNAMIC) {
			still++;
		} else if ((flags[i] & TB_ASLEEP) != 0) {
			asleep++;
		}
	}
	if (!(asleep > 0 && asleep + still == 2)) {
		held[k] = force[k];
	}
}

// tb_joint_hold runs tbJointHold over the n joints.
TB_KERNEL void tb_joint_hold(const TbJoint *joints, int n, const unsigned *flags, const float *force, float *held) {
	int k = tbThread();
	if (k < n) {
		tbJointHold(k, joints, flags, force, held);
	}
}
TB_REGISTER(tb_joint_hold)
