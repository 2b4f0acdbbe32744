// reduce_half.glsl: the integer arithmetic of reduce_half_fast.glsl's
// FLOAT16 vector scan (read its header): which halves the conversion sets
// aside, and the terms h·2^24 of the others as 64-bit integers. Needs
// GL_ARB_gpu_shader_int64. TestHalfVecGLSL checks both on every FLOAT16.

#define HALF_MAG 0x7fff7fff7fff7fffUL
#define HALF_LANE_TOP 0x8000800080008000UL

// half_odd is bit 15 of each 16-bit lane set for the halves of q that the
// conversion does not take: denormals, infinities and NaN.
// half_outside is bit 15 of each 16-bit lane set for the halves of q
// whose magnitude bits t (15 bits in a 16-bit lane: no carry leaves a
// lane) lie in [1, lo) or [hi, 0x8000), given lo_add = 0x8000 - lo and
// hi_add = 0x8000 - hi in every lane (lo <= hi): bit 15 of t + 0x7fff is
// t >= 1, of t + lo_add is t >= lo, of t + hi_add is t >= hi, each
// implying the one before, so the three xor to exactly those halves.
uint64_t half_outside(uint64_t q, uint64_t lo_add, uint64_t hi_add) {
	uint64_t t = q & HALF_MAG;
	return (t + 0x7fff7fff7fff7fffUL) ^ (t + lo_add) ^ (t + hi_add);
}

uint64_t half_odd(uint64_t q) { return half_outside(q, 0x7c007c007c007c00UL, 0x0400040004000400UL); }

// half_term is f·2^136 as an integer: f the FLOAT32 bits that the
// conversion above builds, times 2^127 and 2^9 (two exact products; not
// ldexp, which lavapipe gets wrong here).
int64_t half_term(uint f) {
	precise float x = uintBitsToFloat(f) * uintBitsToFloat(0x7f000000u);
	precise float y = x * 512.0;
	return int64_t(y);
}

// HALF_KEEP_X and HALF_KEEP_ABS keep the FLOAT32 bits of the conversion
// in both words of a 64-bit pair: the sign too where the term is x, not
// for L1's |x|.
#define HALF_KEEP_X 0x8fffe0008fffe000UL
#define HALF_KEEP_ABS 0x0fffe0000fffe000UL

// half_keep is the pair of words x and y, each shifted right
// arithmetically by 3, masked by keep (one 64-bit mask for both).
uvec2 half_keep(uint x, uint y, uint64_t keep) { return unpackUint2x32(packUint2x32(uvec2(ivec2(x, y) >> 3)) & keep); }

// half_quad is the sum of the terms h·2^24 (keep HALF_KEEP_ABS: |h|·2^24)
// of the four halves of the words w, none a denormal, an infinity or
// NaN: the high halves from the words as they are, the low ones from the
// pair shifted left by 16 as one 64-bit number (the high word's low half
// is then the low word's high half, which the mask drops).
int64_t half_quad(uvec2 w, uint64_t keep) {
	uvec2 hi = half_keep(w.x, w.y, keep);
	uvec2 l = unpackUint2x32(packUint2x32(w) << 16);
	uvec2 lo = half_keep(l.x, l.y, keep);
	return half_term(hi.x) + half_term(hi.y) + half_term(lo.x) + half_term(lo.y);
}


// THE SQUARES (SUM_SQUARE, L2: rule 41's term x·x, exact in FLOAT32 and
// not rounded to FLOAT16). A normal FLOAT16 h is m·2^(e-25) with an
// 11-bit m, so h·h is m·m·2^(2e-50): 22 significant bits, a multiple of
// 2^-48, below 2^32. A window w takes the halves of magnitude in
// [2^-a, 2^b) and ±0: with scale 2^(10+a), x = h·2^(10+a) is exact (a
// normal FLOAT32 times a power of two, normal result), and x·x =
// h·h·2^(20+2a) is an integer (h is a multiple of 2^-(a+10)) below
// 2^(2(a+b)+20) with 22 significant bits, so exact in FLOAT32 and, as a
// uint64, exact (OpConvertFToU of an integer value). With a + b = 20 a
// square is below 2^60 and eight of them below 2^63, so the eight squares
// of a 16-byte vector sum in a uint64 and that sum is added to a 128-bit
// lane sum (a uint64 and its carries): no overflow at any length. Both
// products are precise (nothing to fuse anyway: there is no add); no
// rounding mode, fused multiply-add or denormal flushing enters, as the
// conversion unpackHalf2x16 of a normal FLOAT16 or ±0 is exact and the
// windows hold no FLOAT16 denormal (a driver may flush those).
// The scans square and convert a vector's every half before the window
// test's verdict is known; a half outside the window (256 and up in
// window 0, ±Inf, NaN) may give a value past uint64's range, whose
// conversion SPIR-V leaves undefined. Only the lane's sum, which is then
// thrown away, takes such a value: no branch, address or kept sum depends
// on it. Zeroing those halves first (about 5 ops a vector, 0.3 ops per
// byte) would not fit the h100 budget's headroom.
//   window 0: [2^-14, 2^6): every normal half below 64, units 2^-48;
//   window 1: [2^-4, 2^16): every finite half from 1/16 up, units 2^-28.
// half_outside's bounds for them (lo_add, hi_add), the scale 2^(10+a),
// and the limb bit of a unit (2^(p-149), reduce_exact.glsl).
const uint64_t HALF_SQ_LO_ADD[2] = uint64_t[2](0x7c007c007c007c00UL, 0x5400540054005400UL);
const uint64_t HALF_SQ_HI_ADD[2] = uint64_t[2](0x2c002c002c002c00UL, 0x0400040004000400UL);
const float HALF_SQ_SCALE[2] = float[2](16777216.0, 16384.0);
const uint HALF_SQ_UNIT_BIT[2] = uint[2](101u, 121u);

// half_sq_outside: half_outside for window w.
uint64_t half_sq_outside(uint64_t q, uint w) { return half_outside(q, HALF_SQ_LO_ADD[w], HALF_SQ_HI_ADD[w]); }

// half_sq2 is the squares of the two halves of the word h times scale²
// (a window's HALF_SQ_SCALE): exact integers where both are in its window.
vec2 half_sq2(uint h, float scale) {
	vec2 x = unpackHalf2x16(h);
	precise vec2 y = x * scale;
	precise vec2 z = y * y;
	return z;
}

// half_sq_pair is the sum of the squares of the two halves of the word
// h, in window w's units; both in the window.
uint64_t half_sq_pair(uint h, uint w) {
	vec2 z = half_sq2(h, HALF_SQ_SCALE[w]);
	return uint64_t(z.x) + uint64_t(z.y);
}

// half_sq_vec is the sum of the squares of the eight halves of q, in
// window w's units, all in the window: below 2^63.
uint64_t half_sq_vec(uvec4 q, uint w) { return (half_sq_pair(q.x, w) + half_sq_pair(q.y, w)) + (half_sq_pair(q.z, w) + half_sq_pair(q.w, w)); }

// half_sq_add adds s to the 128-bit sum (lo, hi: its carries).
void half_sq_add(inout uint64_t lo, inout uint64_t hi, uint64_t s) {
	lo += s;
	hi += lo < s ? 1UL : 0UL;
}

#if EXP_TABLE
// LOG_SUM_EXP'S TERMS (EXP_TABLE: exp_table_term, ops.TableExpHalf). A
// half h with |h| < 8 has a term exp(h) in (2^-12, 2^12): a normal
// FLOAT32 whose last bit weighs at least 2^-35, so the term is an integer
// number of units 2^-35 below 2^47, and the argIters (2^14) halves a lane
// or a column of a segment takes sum below 2^61 in a signed 64-bit
// integer. The term's bits with 35 added to the exponent are that integer
// as a FLOAT32 (a normal value; nothing is rounded), which OpConvertFToU
// makes exact. The scans (reduce_half_fast.glsl lse_scan,
// reduce_half_col.comp) test the halves' magnitudes first (lse_outside)
// and take the others (|h| >= 8, infinities and NaN) through part_fold,
// the lane window of reduce_part_float.glsl with the table's term. A sum
// goes into the limbs once (limb bit 149 - 35); every term is +0 or more,
// so a scanned half sets EXACT_NOT_ALL_NEG_ZERO.
#define LSE_UNIT_EXP 35u
#define LSE_HI_ADD 0x3800380038003800UL // 0x8000 - 8.0's bits 0x4800
const uint LSE_UNIT_BIT = 149u - LSE_UNIT_EXP;

// half_of is half i (0-7) of the vector q, lowest bits first.
uint half_of(uvec4 q, uint i) {
	uint w = i < 4u ? (i < 2u ? q.x : q.y) : (i < 6u ? q.z : q.w);
	return (w >> (16u * (i & 1u))) & 0xffffu;
}

// lse_unit is the term of the half h, |h| < 8, in units 2^-35.
uint64_t lse_unit(uint h) { return uint64_t(uintBitsToFloat(exp_table_term(h) + (LSE_UNIT_EXP << 23))); }

// lse_pair is the terms of the two halves of the word w in units 2^-35.
uint64_t lse_pair(uint w) { return lse_unit(w & 0xffffu) + lse_unit(w >> 16); }

// lse_outside has bit 15 of a 16-bit lane set for each half of q with
// |h| >= 8: its magnitude bits (15 in a 16-bit lane, so no carry leaves
// the lane) plus 0x8000 - 0x4800.
uint64_t lse_outside(uvec2 q) { return (packUint2x32(q) & HALF_MAG) + LSE_HI_ADD; }

#endif

#ifdef EXACT_LIMBS
// half_sq_settle adds the 128-bit sum (lo, hi) of units 2^(p-149) to the
// limbs: lo's low 63 bits at p, and the rest (hi·2 and lo's top bit,
// non-negative and small: hi counts carries) at p + 63.
void half_sq_settle(inout uint acc[EXACT_LIMBS], uint64_t lo, uint64_t hi, uint p) {
	exact_add_i64(acc, unpackUint2x32(lo & 0x7fffffffffffffffUL), p);
	exact_add_i64(acc, unpackUint2x32((lo >> 63) | (hi << 1)), p + 63u);
}

// half_sq_exact adds the square of the FLOAT16 h, any bits, to the
// 128-bit sum (lo, hi) of units 2^-48 (limb bit 101), or its infinity
// or NaN to the flags f: h = m·2^(max(e,1)-25) (m the significand,
// denormals too), so h·h is m·m (below 2^22) shifted left by
// 2·(max(e,1)-1) <= 58, whose bits past 64 go to hi.
void half_sq_exact(inout uint64_t lo, inout uint64_t hi, inout uint f, uint h) {
	uint t = h & 0x7fffu, e = t >> 10;
	if (e == 31u) {
		f |= t != 0x7c00u ? EXACT_NAN : EXACT_POS_INF;
		return;
	}
	uint s = 2u * (max(e, 1u) - 1u);
	uint64_t m2 = uint64_t(e == 0u ? t * t : ((t & 0x3ffu) | 0x400u) * ((t & 0x3ffu) | 0x400u));
	half_sq_add(lo, hi, m2 << s);
	hi += s > 42u ? m2 >> (64u - s) : 0UL;
}
#endif
