// reduce_float.glsl: the FLOAT32 arithmetic of REDUCE's float functions
// (docs/semantics.md rules 40-41) in 32-bit integer arithmetic, bit for
// bit ops/reduce_float_ref.go: FLOAT16 widening and narrowing, the
// multiplication x*x of SUM_SQUARE's and L2's terms, AVERAGE's division by
// the count and L2's square root, each correctly rounded (nearest even,
// denormals kept), and vkdml's exp and log in fixed point (LOG_SUM_EXP's
// terms, LOG_SUM's and LOG_SUM_EXP's last step). Include it after
// reduce_exact.glsl (round64).

// f32_parts splits a finite FLOAT32 into its integer significand m
// (denormals included) and exponent e, the value being ±m·2^e.
void f32_parts(uint x, out uint m, out int e) {
	uint biased = (x >> 23) & 0xffu;
	m = x & 0x7fffffu;
	if (biased != 0u) {
		m |= 0x800000u;
	} else {
		biased = 1u;
	}
	e = int(biased) - 150;
}

// f32_parts_normal is f32_parts of a finite nonzero x with a denormal's
// significand shifted up to 24 bits (m in [2^23, 2^24)).
void f32_parts_normal(uint x, out uint m, out int e) {
	f32_parts(x, m, e);
	int sh = 23 - findMSB(m);
	m <<= uint(sh);
	e -= sh;
}

bool f32_is_nan(uint x) { return (x & 0x7fffffffu) > 0x7f800000u; }
bool f32_is_inf(uint x) { return (x & 0x7fffffffu) == 0x7f800000u; }

// f16_to_f32 widens FLOAT16 bits exactly; a NaN keeps its sign and payload.
uint f16_to_f32(uint h) {
	uint sign = (h >> 15) << 31;
	uint biased = (h >> 10) & 0x1fu, man = h & 0x3ffu;
	if (biased == 0x1fu) {
		return sign | 0x7f800000u | (man << 13);
	}
	if (biased == 0u) {
		return round64(uvec2(man, 0u), -24, sign != 0u, FMT_F32);
	}
	return sign | ((biased + 112u) << 23) | (man << 13);
}

// f32_to_f16 rounds FLOAT32 bits to FLOAT16 once; NaN becomes vkdml's NaN.
uint f32_to_f16(uint x) {
	if (f32_is_nan(x)) {
		return fmt_nan(FMT_F16);
	}
	if (f32_is_inf(x)) {
		return fmt_inf(FMT_F16, (x >> 31) != 0u);
	}
	uint m;
	int e;
	f32_parts(x, m, e);
	return round64(uvec2(m, 0u), e, (x >> 31) != 0u, FMT_F16);
}

// mul_f32 is IEEE FLOAT32 multiplication, from the significands' 48-bit
// product.
uint mul_f32(uint x, uint y) {
	bool negative = ((x ^ y) >> 31) != 0u;
	if (f32_is_nan(x) || f32_is_nan(y)) {
		return fmt_nan(FMT_F32);
	}
	if (f32_is_inf(x) || f32_is_inf(y)) {
		if ((x & 0x7fffffffu) == 0u || (y & 0x7fffffffu) == 0u) {
			return fmt_nan(FMT_F32);
		}
		return fmt_inf(FMT_F32, negative);
	}
	uint mx, my, hi, lo;
	int ex, ey;
	f32_parts(x, mx, ex);
	f32_parts(y, my, ey);
	umulExtended(mx, my, hi, lo);
	return round64(uvec2(lo, hi), ex + ey, negative, FMT_F32);
}

// div_f32_count is x/n for a count n >= 1, correctly rounded: the 63-bit
// m·2^39 divided by n in long division, the remainder's sticky bit below
// the quotient.
uint div_f32_count(uint x, uint n) {
	if (f32_is_nan(x) || f32_is_inf(x)) {
		return f32_is_nan(x) ? fmt_nan(FMT_F32) : x;
	}
	uint m;
	int e;
	f32_parts(x, m, e);
	// m·2^39 (m < 2^24) is the 64-bit (m·2^7 : 0)
	uint qhi = (m << 7) / n, r = (m << 7) % n, qlo = 0u;
	for (int i = 31; i >= 0; i--) { // (r : 0) / n, r < n
		bool over = (r >> 31) != 0u;
		r <<= 1;
		if (over || r >= n) {
			r -= n;
			qlo |= 1u << uint(i);
		}
	}
	// q·2 | sticky: q < 2^63
	uvec2 q = uvec2((qlo << 1) | (r != 0u ? 1u : 0u), (qhi << 1) | (qlo >> 31));
	return round64(q, e - 40, (x >> 31) != 0u, FMT_F32);
}

// sqrt_f32 is the correctly rounded square root: -0 for -0, NaN below
// zero; the integer root of m·2^38 (or 2^39) bit by bit.
uint sqrt_f32(uint x) {
	if (f32_is_nan(x) || (x >> 31) != 0u && (x & 0x7fffffffu) != 0u) {
		return fmt_nan(FMT_F32);
	}
	if ((x & 0x7fffffffu) == 0u || f32_is_inf(x)) {
		return x;
	}
	uint m;
	int e;
	f32_parts_normal(x, m, e);
	uint s = 38u;
	if ((e & 1) != 0) {
		s = 39u;
		e--;
	}
	uvec2 v = uvec2(0u, m << (s - 32u)); // m·2^s < 2^63, m < 2^24
	uvec2 root = uvec2(0u);
	for (int k = 31; k >= 0; k--) { // bit = 4^k
		uvec2 bit = k >= 16 ? uvec2(0u, 1u << uint(2 * k - 32)) : uvec2(1u << uint(2 * k), 0u);
		uint c;
		uvec2 t = uvec2(uaddCarry(root.x, bit.x, c), 0u);
		t.y = root.y + bit.y + c;
		bool ge = v.y > t.y || (v.y == t.y && v.x >= t.x);
		uvec2 half_root = uvec2((root.x >> 1) | (root.y << 31), root.y >> 1);
		if (ge) {
			uint b;
			v.x = usubBorrow(v.x, t.x, b);
			v.y = v.y - t.y - b;
			root = uvec2(uaddCarry(half_root.x, bit.x, c), 0u);
			root.y = half_root.y + bit.y + c;
		} else {
			root = half_root;
		}
	}
	bool inexact = v != uvec2(0u);
	root = uvec2((root.x << 1) | (inexact ? 1u : 0u), (root.y << 1) | (root.x >> 31));
	return round64(root, (e - 38) / 2 - 1, false, FMT_F32);
}

// 64-bit integers as uvec2 (low word x), two's complement where signed.
uvec2 u64_add(uvec2 a, uvec2 b) {
	uint c;
	uint lo = uaddCarry(a.x, b.x, c);
	return uvec2(lo, a.y + b.y + c);
}
uvec2 u64_sub(uvec2 a, uvec2 b) {
	uint br;
	uint lo = usubBorrow(a.x, b.x, br);
	return uvec2(lo, a.y - b.y - br);
}
bool u64_lt(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
bool i64_is_neg(uvec2 a) { return (a.y >> 31) != 0u; }
uvec2 i64_neg(uvec2 a) { return u64_sub(uvec2(0u), a); }
uvec2 i64_abs(uvec2 a) { return i64_is_neg(a) ? i64_neg(a) : a; }

// shl64 is v shifted left by 0 <= d < 64 bits.
uvec2 shl64(uvec2 v, int d) {
	if (d >= 32) {
		return uvec2(0u, v.x << uint(d - 32));
	}
	if (d == 0) {
		return v;
	}
	return uvec2(v.x << uint(d), (v.y << uint(d)) | (v.x >> uint(32 - d)));
}

// mul128 is the 128-bit product a·b as (hi, lo).
void mul128(uvec2 a, uvec2 b, out uvec2 hi, out uvec2 lo) {
	uint p00h, p00l, p01h, p01l, p10h, p10l, p11h, p11l;
	umulExtended(a.x, b.x, p00h, p00l);
	umulExtended(a.x, b.y, p01h, p01l);
	umulExtended(a.y, b.x, p10h, p10l);
	umulExtended(a.y, b.y, p11h, p11l);
	uint c1, c2, c3, c4, c5;
	uint w1 = uaddCarry(p00h, p01l, c1);
	w1 = uaddCarry(w1, p10l, c2);
	uint w2 = uaddCarry(p01h, p10h, c3);
	w2 = uaddCarry(w2, p11l, c4);
	w2 = uaddCarry(w2, c1 + c2, c5);
	lo = uvec2(p00l, w1);
	hi = uvec2(w2, p11h + c3 + c4 + c5);
}

// mul_q62 is a·b/2^62 for signed Q62 numbers, the magnitude truncated
// (the reference's mulQ62).
uvec2 mul_q62(uvec2 a, uvec2 b) {
	uvec2 hi, lo;
	mul128(i64_abs(a), i64_abs(b), hi, lo);
	uvec2 v = shl64(hi, 2) | shr64(lo, 62);
	return i64_is_neg(a) != i64_is_neg(b) ? i64_neg(v) : v;
}

// round128 rounds (-1)^negative · (hi:lo) · 2^lsb_exp to f: the 64 bits
// from the highest set bit down, with a sticky bit for the rest, round as
// the whole does (exact_round's argument).
uint round128(uvec2 hi, uvec2 lo, int lsb_exp, bool negative, Format f) {
	if (hi == uvec2(0u)) {
		return round64(lo, lsb_exp, negative, f);
	}
	int sh = msb64(hi) + 1; // 1..64
	uvec2 v = sh == 64 ? hi : shl64(hi, 64 - sh) | shr64(lo, sh);
	if (any64_below(lo, sh)) {
		v.x |= 1u;
	}
	return round64(v, lsb_exp + sh, negative, f);
}

// The fixed-point constants of exp and log, as ops/reduce_float_ref.go's
// fixedConstants computes them (TestReduceFloatGLSLConstants holds them
// equal): ln 2·2^64 and 1/ln 2·2^62 truncated, round(2^62/j!) and
// round(2^62/(2j+1)).
const uvec2 LN2_Q64 = uvec2(0xd1cf79abu, 0xb17217f7u);
const uvec2 LOG2E_Q62 = uvec2(0xae0bf85du, 0x5c551d94u);
const uvec2 EXP_C0 = uvec2(0x00000000u, 0x40000000u);
const uvec2 EXP_C1 = uvec2(0x00000000u, 0x40000000u);
const uvec2 EXP_C2 = uvec2(0x00000000u, 0x20000000u);
const uvec2 EXP_C3 = uvec2(0xaaaaaaabu, 0x0aaaaaaau);
const uvec2 EXP_C4 = uvec2(0xaaaaaaabu, 0x02aaaaaau);
const uvec2 EXP_C5 = uvec2(0x88888889u, 0x00888888u);
const uvec2 EXP_C6 = uvec2(0x16c16c17u, 0x0016c16cu);
const uvec2 EXP_C7 = uvec2(0x03403403u, 0x00034034u);
const uvec2 EXP_C8 = uvec2(0x80680680u, 0x00006806u);
const uvec2 EXP_C9 = uvec2(0xf1d2ab64u, 0x00000b8eu);
const uvec2 EXP_C10 = uvec2(0xe4fb778au, 0x00000127u);
const uvec2 EXP_C11 = uvec2(0xe64567f5u, 0x0000001au);
const uvec2 EXP_C12 = uvec2(0x3ddb1dffu, 0x00000002u);
const uvec2 EXP_C13 = uvec2(0x2c248c27u, 0x00000000u);
const uvec2 EXP_C14 = uvec2(0x03272e95u, 0x00000000u);
const uvec2 EXP_C15 = uvec2(0x0035cfe8u, 0x00000000u);
const uvec2 ATANH_C0 = uvec2(0x00000000u, 0x40000000u);
const uvec2 ATANH_C1 = uvec2(0x55555555u, 0x15555555u);
const uvec2 ATANH_C2 = uvec2(0xcccccccdu, 0x0cccccccu);
const uvec2 ATANH_C3 = uvec2(0x24924925u, 0x09249249u);
const uvec2 ATANH_C4 = uvec2(0x1c71c71cu, 0x071c71c7u);
const uvec2 ATANH_C5 = uvec2(0x1745d174u, 0x05d1745du);
const uvec2 ATANH_C6 = uvec2(0xec4ec4ecu, 0x04ec4ec4u);
const uvec2 ATANH_C7 = uvec2(0x44444444u, 0x04444444u);
const uvec2 ATANH_C8 = uvec2(0xc3c3c3c4u, 0x03c3c3c3u);
const uvec2 ATANH_C9 = uvec2(0x9435e50du, 0x035e50d7u);
const uvec2 ATANH_C10 = uvec2(0x0c30c30cu, 0x030c30c3u);
const uvec2 ATANH_C11 = uvec2(0x21642c86u, 0x02c8590bu);
const uvec2 ATANH_C12 = uvec2(0xf5c28f5cu, 0x028f5c28u);

// exp_f32_q62 is vkdml's exp (the reference's expFloat32): x = k·ln2 + r
// with |r| <= ln2/2 in fixed point, exp(r) by its Taylor series in Q62
// (Horner, unrolled), 2^k·exp(r) rounded once. exp_f32 runs it where its
// fast evaluation cannot decide the rounding.
uint exp_f32_q62(uint x) {
	if (f32_is_nan(x)) {
		return fmt_nan(FMT_F32);
	}
	if (x == 0xff800000u) {
		return 0u;
	}
	if (f32_is_inf(x)) {
		return x;
	}
	bool negative = (x >> 31) != 0u;
	uint m;
	int e;
	f32_parts(x, m, e);
	if (e + 23 < -26) { // |x| < 2^-26: exp(x) rounds to 1
		return 0x3f800000u;
	}
	if (!negative && x >= 0x42b20000u) { // x >= 89: past FLT_MAX
		return fmt_inf(FMT_F32, false);
	}
	if (negative && x >= 0xc2d00000u) { // x <= -104: below 2^-150
		return 0u;
	}
	uvec2 ax = shl64(uvec2(m, 0u), e + 56); // |x|·2^56, exact
	uvec2 hi, lo;
	mul128(ax, LOG2E_Q62, hi, lo);                              // |x|/ln2·2^118
	uint k = shr64(u64_add(hi, uvec2(0u, 1u << 21)), 54).x;     // round(|x|/ln2)
	uvec2 khi, klo;
	mul128(uvec2(k, 0u), LN2_Q64, khi, klo);
	uvec2 xhi = shr64(ax, 56), xlo = shl64(ax, 8); // |x|·2^64
	uvec2 dlo = u64_sub(xlo, klo);
	uvec2 dhi = u64_sub(u64_sub(xhi, khi), uvec2(u64_lt(xlo, klo) ? 1u : 0u, 0u));
	uvec2 r = shl64(dhi, 62) | shr64(dlo, 2); // |r| < 2^61
	int ki = int(k);
	if (negative) {
		r = i64_neg(r);
		ki = -ki;
	}
	uvec2 p = EXP_C15;
#define EXP_STEP(j) p = u64_add(EXP_C##j, mul_q62(p, r));
	EXP_STEP(14) EXP_STEP(13) EXP_STEP(12) EXP_STEP(11) EXP_STEP(10) EXP_STEP(9) EXP_STEP(8)
	EXP_STEP(7) EXP_STEP(6) EXP_STEP(5) EXP_STEP(4) EXP_STEP(3) EXP_STEP(2) EXP_STEP(1) EXP_STEP(0)
#undef EXP_STEP
	return round64(p, ki - 62, false, FMT_F32);
}

// exp_f32's fast evaluation (the reference's expFloat32Fast; the bound
// and its proof: docs/semantics.md rule 40): d_i = (ln 2/16)^i/i! for
// 2^(h/16) = 1 + h·(d1 + h·(d2 + ...)), d7..d3 in 32-bit words at the
// binary scales 76, 68, 61, 54, 48, d2 in Q72, d1 in Q68, and 2^(j/16) in
// Q62 (TestExpFastConstants holds them equal to the reference's).
const uint EXP_F_D7 = 0xffe5fe2cu; // d7·2^76
const uint EXP_F_D6 = 0xa184897cu; // d6·2^68
const uint EXP_F_D5 = 0xaec3ff3cu; // d5·2^61
const uint EXP_F_D4 = 0x9d955b7eu; // d4·2^54
const uint EXP_F_D3 = 0xe35846b8u; // d3·2^48
const uvec2 EXP_F_D2 = uvec2(0x058b1d51u, 0x3d7f7bffu);
const uvec2 EXP_F_D1 = uvec2(0xd1cf79acu, 0xb17217f7u);
const uvec2 EXP2_J16[16] = uvec2[](
	uvec2(0x00000000u, 0x40000000u),
	uvec2(0xe6243d8au, 0x42d561b3u),
	uvec2(0xf545eb73u, 0x45cae0f1u),
	uvec2(0xd588e19bu, 0x48e1e9b9u),
	uvec2(0xc6dc54b8u, 0x4c1bf828u),
	uvec2(0x48d088d7u, 0x4f7a9930u),
	uvec2(0xd8a89c75u, 0x52ff6b54u),
	uvec2(0x2150a563u, 0x56ac1f75u),
	uvec2(0xfcef3242u, 0x5a827999u),
	uvec2(0xac061b5fu, 0x5e8451cfu),
	uvec2(0xaa836d6fu, 0x62b39508u),
	uvec2(0x8fc24072u, 0x6712460au),
	uvec2(0x6b4eb57au, 0x6ba27e65u),
	uvec2(0x154a7089u, 0x70666f76u),
	uvec2(0xee921c97u, 0x75606373u),
	uvec2(0x92436616u, 0x7a92be8au));

// EXP_FAST_MARGIN is the distance, in units of 2^-62 of the value's
// binade, from a rounding midpoint inside which exp_f32 runs exp_f32_q62:
// the fast error's bound 2^16.31 plus exp_f32_q62's (2^7), rounded up.
#ifndef EXP_FAST_MARGIN
#define EXP_FAST_MARGIN 0x20000u
#endif

// mul_hi64 is floor(a·b/2^64) less 0, 1 or 2: the low words' product and
// the cross products' low words are dropped.
uvec2 mul_hi64(uvec2 a, uvec2 b) {
	uint h11, l11, h01, l01, h10, l10, c1, c2;
	umulExtended(a.y, b.y, h11, l11);
	umulExtended(a.x, b.y, h01, l01);
	umulExtended(a.y, b.x, h10, l10);
	uint lo = uaddCarry(l11, h01, c1);
	lo = uaddCarry(lo, h10, c2);
	return uvec2(lo, h11 + c1 + c2);
}

// exp_f32_fast is the fast evaluation, branch free: *fallback is set
// where its bits are not exp_f32_q62's: x outside 2^-25 <= |x|,
// -104 < x < 89 (NaN and infinities included), a result that is not a
// normal FLOAT32, or a value within EXP_FAST_MARGIN of a midpoint.
// t = |x|·log2 e in Q55 from the exact product of x's significand and
// LOG2E_Q62; ±t = k + j/16 + h/16 with h in [0, 1); 2^k · 2^(j/16) ·
// 2^(h/16) in Q62, rounded with the round bit added (a tie falls back).
uint exp_f32_fast(uint x, out bool fallback) {
	uint biased = bitfieldExtract(x, 23, 8);
	uint m = (x & 0x7fffffu) | 0x800000u;
	uint sh = (133u - biased) & 31u; // 7 - e - 24
	uint p0, q1, p1, p2, c;
	umulExtended(m, LOG2E_Q62.x, q1, p0);
	umulExtended(m, LOG2E_Q62.y, p2, p1);
	p1 = uaddCarry(p1, q1, c);
	p2 += c;
	// the 88-bit product >> 24, then >> sh: t·2^55
	uvec2 pp = uvec2((p0 >> 24) | (p1 << 8), (p1 >> 24) | (p2 << 8));
	uvec2 s = uvec2((pp.x >> sh) | ((pp.y << 1) << (31u - sh)), pp.y >> sh);
	bool negative = (x >> 31) != 0u;
	uint b;
	uvec2 ns;
	ns.x = usubBorrow(0u, s.x, b);
	ns.y = 0u - s.y - b;
	s = negative ? ns : s;
	int k = int(s.y) >> 23;
	uint h32 = (s.y << 13) | (s.x >> 19);                                     // h in Q32
	uvec2 h60 = uvec2(s.x << 9, (bitfieldExtract(s.y, 0, 19) << 9) | (s.x >> 23)); // h in Q60
	uint a = EXP_F_D7, lo;
	umulExtended(h32, a, a, lo);
	a = EXP_F_D6 + (a >> 8);
	umulExtended(h32, a, a, lo);
	a = EXP_F_D5 + (a >> 7);
	umulExtended(h32, a, a, lo);
	a = EXP_F_D4 + (a >> 7);
	umulExtended(h32, a, a, lo);
	a = EXP_F_D3 + (a >> 6);
	uint ph;
	umulExtended(h32, a, ph, lo);
	uvec2 a2 = u64_add(EXP_F_D2, uvec2((lo >> 8) | (ph << 24), ph >> 8)); // Q72
	uvec2 a1 = u64_add(EXP_F_D1, mul_hi64(h60, a2));                      // Q68
	uvec2 w = mul_hi64(h60, a1);                                           // Q64
	uvec2 tj = EXP2_J16[bitfieldExtract(s.y, 19, 4)];
	uvec2 v = u64_add(tj, mul_hi64(tj, w)); // Q62, in [2^62, 2^63]
	uint r = (v.y >> 6) & 1u;
	uint flip = r - 1u; // bits 37..0 against the midpoint 2^38
	bool near = all(bvec2(((v.y ^ flip) & 0x3fu) == 0u, (v.x ^ flip) <= EXP_FAST_MARGIN));
	bool in_range = all(bvec3(biased >= 102u, x < (negative ? 0xc2d00000u : 0x42b20000u), uint(k + 126) < 254u));
	fallback = any(bvec2(near, !in_range));
	return (uint(k + 126) << 23) + (v.y >> 7) + r; // a carry out of the significand bumps the exponent
}

// exp_f32 is rule 40's exp: the fast evaluation where it decides the
// rounding (all but about 2^-21 of the x it takes), else exp_f32_q62;
// both round the same value's neighbourhood the same way, so the bits
// are exp_f32_q62's. (lavapipe runs a divergent if's arm for every lane:
// the float kernels' fast scan calls exp_f32_fast alone and leaves the
// fallback to part_fold, outside its loop.)
uint exp_f32(uint x) {
	bool fallback;
	uint y = exp_f32_fast(x, fallback);
	if (fallback) {
		y = exp_f32_q62(x);
	}
	return y;
}

// log_f32 is vkdml's natural logarithm (the reference's logFloat32): x =
// 2^k·f with f in [sqrt(1/2), sqrt(2)], log f = 2·atanh((f-1)/(f+1)) by
// its series in Q62, k·ln2 + log f rounded once. It runs once per output.
uint log_f32(uint x) {
	if (f32_is_nan(x) || (x >> 31) != 0u && (x & 0x7fffffffu) != 0u) {
		return fmt_nan(FMT_F32);
	}
	if ((x & 0x7fffffffu) == 0u) {
		return fmt_inf(FMT_F32, true);
	}
	if (f32_is_inf(x)) {
		return x;
	}
	if (x == 0x3f800000u) {
		return 0u;
	}
	uint m;
	int e;
	f32_parts_normal(x, m, e);
	int k = e + 23;
	uvec2 f = uvec2(0u, m << 6); // m·2^38: f in Q61, [1, 2)
	if (m > 11863283u) {         // f > sqrt 2: halve it
		f = shr64(f, 1);
		k++;
	}
	const uvec2 one = uvec2(0u, 1u << 29);
	uvec2 num = u64_sub(f, one), den = u64_add(f, one);
	uvec2 anum = i64_abs(num);
	// s = num/den scaled by 2^scale into [1/4, 1), in Q62.
	int scale = k == 0 ? msb64(den) - msb64(anum) - 1 : 0;
	int s62 = 62 + scale;
	uvec2 nhi = s62 < 64 ? shr64(anum, 64 - s62) : shl64(anum, s62 - 64);
	uvec2 nlo = s62 < 64 ? shl64(anum, s62) : uvec2(0u);
	// (nhi:nlo) / den, nhi < den, by long division
	uvec2 rem = nhi, sq = uvec2(0u);
	for (int i = 63; i >= 0; i--) {
		bool over = i64_is_neg(rem);
		rem = shl64(rem, 1) | uvec2((i >= 32 ? nlo.y >> uint(i - 32) : nlo.x >> uint(i)) & 1u, 0u);
		sq = shl64(sq, 1);
		if (over || !u64_lt(rem, den)) {
			rem = u64_sub(rem, den);
			sq.x |= 1u;
		}
	}
	uvec2 s = i64_is_neg(num) ? i64_neg(sq) : sq;
	uvec2 z = shr64(mul_q62(s, s), 2 * scale);
	uvec2 q = ATANH_C12;
#define ATANH_STEP(j) q = u64_add(ATANH_C##j, mul_q62(q, z));
	ATANH_STEP(11) ATANH_STEP(10) ATANH_STEP(9) ATANH_STEP(8) ATANH_STEP(7) ATANH_STEP(6)
	ATANH_STEP(5) ATANH_STEP(4) ATANH_STEP(3) ATANH_STEP(2) ATANH_STEP(1) ATANH_STEP(0)
#undef ATANH_STEP
	uvec2 logf = shl64(mul_q62(s, q), 1); // log f · 2^scale in Q62
	bool lneg = i64_is_neg(logf);
	uvec2 alog = i64_abs(logf);
	if (k == 0) {
		return round64(alog, -62 - scale, lneg, FMT_F32);
	}
	// k·ln2 + log f in Q64 as a signed 128-bit number (|k| <= 150).
	uvec2 hi, lo;
	mul128(uvec2(uint(abs(k)), 0u), LN2_Q64, hi, lo);
	uvec2 fhi = shr64(alog, 62), flo = shl64(alog, 2);
	bool negative = k < 0;
	if (lneg == negative) { // same signs: add the magnitudes
		uvec2 sum = u64_add(lo, flo);
		hi = u64_add(u64_add(hi, fhi), uvec2(u64_lt(sum, lo) ? 1u : 0u, 0u));
		lo = sum;
	} else { // |k·ln2| > ln2/2 >= |log f|
		uvec2 diff = u64_sub(lo, flo);
		hi = u64_sub(u64_sub(hi, fhi), uvec2(u64_lt(lo, flo) ? 1u : 0u, 0u));
		lo = diff;
	}
	return round128(hi, lo, -64, negative, FMT_F32);
}
