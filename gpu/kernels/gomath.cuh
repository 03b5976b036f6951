// gomath.cuh: Go's math.Atan2, line for line in double precision, so that a kernel's angle is the
// CPU step's to the bit (sim measures hinge, swing and twist angles with float32(math.Atan2(float64,
// float64))). CUDA's atan2f, and the host's on the emulator, are other approximations: a hinge's
// coordinate, hence its limit and motor rows, differed from the CPU's in the last bits. Compiled with
// -fmad=false, as the PTX is, nothing is fused, as Go does not fuse on amd64.
#pragma once
#include "tumble.cuh"

#define TB_GO_PI 3.14159265358979323846264338327950288419716939937510582097494459
#define TB_GO_PI_2 1.57079632679489661923132169163975144209858469968755291048747230
#define TB_GO_PI_4 0.785398163397448309615660845819875721049292349843776455243736148
#define TB_GO_3PI_4 2.35619449019234492884698253745962716314787704953132936573120844

// tbGoXatan is Go's xatan: a series valid in [0, 0.66] (Cephes).
TB_FN double tbGoXatan(double x) {
	const double P0 = -8.750608600031904122785e-01, P1 = -1.615753718733365076637e+01,
	             P2 = -7.500855792314704667340e+01, P3 = -1.228866684490136173410e+02,
	             P4 = -6.485021904942025371773e+01, Q0 = +2.485846490142306297962e+01,
	             Q1 = +1.650270098316988542046e+02, Q2 = +4.328810604912902668951e+02,
	             Q3 = +4.853903996359136964868e+02, Q4 = +1.945506571482613964425e+02;
	double z = x * x;
	z = z * ((((P0 * z + P1) * z + P2) * z + P3) * z + P4) / (((((z + Q0) * z + Q1) * z + Q2) * z + Q3) * z + Q4);
	z = x * z + x;
	return z;
}

// tbGoSatan is Go's satan: x > 0 reduced to [0, 0.66].
TB_FN double tbGoSatan(double x) {
	const double Morebits = 6.123233995736765886130e-17, Tan3pio8 = 2.41421356237309504880;
	if (x <= 0.66) {
		return tbGoXatan(x);
	}
	if (x > Tan3pio8) {
		return TB_GO_PI_2 - tbGoXatan(1 / x) + Morebits;
	}
	return TB_GO_PI_4 + tbGoXatan((x - 1) / (x + 1)) + 0.5 * Morebits;
}

// tbGoAtan is Go's atan.
TB_FN double tbGoAtan(double x) {
	if (x == 0) {
		return x;
	}
	if (x > 0) {
		return tbGoSatan(x);
	}
	return -tbGoSatan(-x);
}

// tbGoAtan2 is Go's math.Atan2 (on amd64, where it is this pure code), special cases included.
TB_FN double tbGoAtan2(double y, double x) {
	if (isnan(y) || isnan(x)) {
		return y + x;
	}
	if (y == 0) {
		if (x >= 0 && !signbit(x)) {
			return copysign(0.0, y);
		}
		return copysign(TB_GO_PI, y);
	}
	if (x == 0) {
		return copysign(TB_GO_PI_2, y);
	}
	if (isinf(x)) {
		if (x > 0) {
			return isinf(y) ? copysign(TB_GO_PI_4, y) : copysign(0.0, y);
		}
		return isinf(y) ? copysign(TB_GO_3PI_4, y) : copysign(TB_GO_PI, y);
	}
	if (isinf(y)) {
		return copysign(TB_GO_PI_2, y);
	}
	double q = tbGoAtan(y / x);
	if (x < 0) {
		if (q <= 0) {
			return q + TB_GO_PI;
		}
		return q - TB_GO_PI;
	}
	return q;
}

// tbAtan2f is float32(math.Atan2(float64(y), float64(x))), as sim computes its joint angles.
TB_FN float tbAtan2f(float y, float x) { return (float)tbGoAtan2((double)y, (double)x); }
