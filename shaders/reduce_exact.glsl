// reduce_exact.glsl: the exact FLOAT32 accumulator of REDUCE's float
// functions (docs/semantics.md rule 39) in 32-bit integer arithmetic, bit
// for bit ops/reduce_float_ref.go's exactAcc: a 320-bit two's complement
// fixed-point number of ten limbs, limb i weighing 2^(32i-149), and flags
// for the terms' infinities, NaN and signed zeros. Nothing here uses the
// float unit, so fused multiply-add and denormal flushing cannot change a
// sum.

#define EXACT_LIMBS 10
#define EXACT_POS_INF 1u
#define EXACT_NEG_INF 2u
#define EXACT_NAN 4u
#define EXACT_NOT_ALL_NEG_ZERO 8u // a term other than -0 was added

// EXACT_UNROLL(M) expands M(i) for every limb: lavapipe counts every loop
// iteration of an invocation against one limit (65535, the planner's
// argIters), so the per-term work has no loops.
#define EXACT_UNROLL(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9)

// exact_add_words adds the two's complement number whose words are w0,
// w1, w2 at limbs q, q+1, q+2 (q <= 7), zero below and ext (0 or all
// ones, its sign) in every limb above.
void exact_add_words(inout uint acc[EXACT_LIMBS], uint q, uint w0, uint w1, uint w2, uint ext) {
	uint c = 0u;
#define EXACT_ADD_LIMB(i)                                                                  \
	{                                                                                     \
		uint v = uint(i) < q ? 0u : uint(i) == q ? w0 : uint(i) == q + 1u ? w1 : uint(i) == q + 2u ? w2 : ext; \
		uint c1, c2;                                                                      \
		uint t = uaddCarry(acc[i], v, c1);                                                \
		acc[i] = uaddCarry(t, c, c2);                                                     \
		c = c1 | c2;                                                                      \
	}
	EXACT_UNROLL(EXACT_ADD_LIMB)
#undef EXACT_ADD_LIMB
}

// exact_add adds the FLOAT32 term x (bits).
void exact_add(inout uint acc[EXACT_LIMBS], inout uint flags, uint x) {
	if (x != 0x80000000u) {
		flags |= EXACT_NOT_ALL_NEG_ZERO;
	}
	uint ax = x & 0x7fffffffu;
	if (ax > 0x7f800000u) {
		flags |= EXACT_NAN;
		return;
	}
	if (ax == 0x7f800000u) {
		flags |= (x >> 31) != 0u ? EXACT_NEG_INF : EXACT_POS_INF;
		return;
	}
	uint biased = ax >> 23;
	uint m = ax & 0x7fffffu;
	if (biased != 0u) {
		m |= 0x800000u;
	} else {
		biased = 1u;
	}
	if (m == 0u) {
		return;
	}
	uint p = biased - 1u; // the bit of m's lowest bit, 0..253
	uint q = p >> 5, s = p & 31u;
	uint lo = m << s;
	uint hi = s == 0u ? 0u : m >> (32u - s);
	// A negative term is added as its two's complement: the 64-bit word
	// pair negated, and all-ones limbs above it.
	uint ext = 0u;
	if ((x >> 31) != 0u) {
		uint c0, c1;
		lo = uaddCarry(~lo, 1u, c0);
		hi = uaddCarry(~hi, c0, c1);
		ext = c1 != 0u ? 0u : 0xffffffffu;
	}
	exact_add_words(acc, q, lo, hi, ext, ext);
}

// exact_add_i64 adds the signed 64-bit v (low word x, two's complement)
// times 2^(p-149), whose top bit lies at most at bit 297 (p <= 234): the
// word pair shifted into three words from limb p/32 up, and its sign in
// every limb above them.
void exact_add_i64(inout uint acc[EXACT_LIMBS], uvec2 v, uint p) {
	uint q = p >> 5, s = p & 31u;
	uint ext = uint(int(v.y) >> 31);
	uint w1 = s == 0u ? v.y : (v.y << s) | (v.x >> (32u - s));
	uint w2 = s == 0u ? ext : uint(int(v.y) >> (32u - s));
	exact_add_words(acc, q, v.x << s, w1, w2, ext);
}

// exact_merge adds the accumulator b into acc.
void exact_merge(inout uint acc[EXACT_LIMBS], inout uint flags, uint b[EXACT_LIMBS], uint bflags) {
	uint c = 0u;
#define EXACT_MERGE_LIMB(i)                        \
	{                                             \
		uint c1, c2;                              \
		uint t = uaddCarry(acc[i], b[i], c1);     \
		acc[i] = uaddCarry(t, c, c2);             \
		c = c1 | c2;                              \
	}
	EXACT_UNROLL(EXACT_MERGE_LIMB)
#undef EXACT_MERGE_LIMB
	flags |= bflags;
}

// exact_zero is the empty sum.
void exact_zero(out uint acc[EXACT_LIMBS], out uint flags) {
#define EXACT_ZERO_LIMB(i) acc[i] = 0u;
	EXACT_UNROLL(EXACT_ZERO_LIMB)
#undef EXACT_ZERO_LIMB
	flags = 0u;
}

// exact_any_below reports whether any of bits 0..i-1 of mag is set.
bool exact_any_below(uint mag[EXACT_LIMBS], int i) {
	for (int w = 0; w < EXACT_LIMBS && 32 * w < i; w++) {
		uint keep = mag[w];
		int n = i - 32 * w;
		if (n < 32) {
			keep &= (1u << uint(n)) - 1u;
		}
		if (keep != 0u) {
			return true;
		}
	}
	return false;
}

// The binary formats a result rounds to: significand bits (hidden bit
// included), the least normal exponent and the bias (ops/reduce_float_ref.go
// binaryFormat).
struct Format {
	int prec;
	int emin;
	int bias;
};
const Format FMT_F32 = Format(24, -126, 127);
const Format FMT_F16 = Format(11, -14, 15);

uint fmt_sign(Format f, bool negative) { return negative ? (f.prec == 24 ? 0x80000000u : 0x8000u) : 0u; }
uint fmt_inf(Format f, bool negative) { return fmt_sign(f, negative) | (uint(2 * f.bias + 1) << uint(f.prec - 1)); }
uint fmt_nan(Format f) { return f.prec == 24 ? 0x7fc00000u : 0x7e00u; }

// shr64 is the 64-bit v (low word x) shifted right by d >= 0 bits.
uvec2 shr64(uvec2 v, int d) {
	if (d >= 64) {
		return uvec2(0u);
	}
	if (d >= 32) {
		return uvec2(v.y >> uint(d - 32), 0u);
	}
	if (d == 0) {
		return v;
	}
	return uvec2((v.x >> uint(d)) | (v.y << uint(32 - d)), v.y >> uint(d));
}

// any64_below: is any of bits 0..i-1 of v set?
bool any64_below(uvec2 v, int i) {
	if (i <= 0) {
		return false;
	}
	if (i >= 64) {
		return v != uvec2(0u);
	}
	if (i >= 32) {
		return v.x != 0u || (i > 32 && (v.y & ((1u << uint(i - 32)) - 1u)) != 0u);
	}
	return (v.x & ((1u << uint(i)) - 1u)) != 0u;
}

int msb64(uvec2 v) { return v.y != 0u ? 32 + findMSB(v.y) : findMSB(v.x); }

// round64 rounds (-1)^negative · mag · 2^lsb_exp to f, to nearest with
// ties to even, denormals kept, past the largest finite value to infinity:
// the reference's roundBinary on a 64-bit magnitude.
uint round64(uvec2 mag, int lsb_exp, bool negative, Format f) {
	int h = msb64(mag);
	uint sign = fmt_sign(f, negative);
	if (h < 0) {
		return sign;
	}
	int top = h + lsb_exp; // the value lies in [2^top, 2^(top+1))
	if (top > f.bias + 1) {
		return fmt_inf(f, negative);
	}
	int lsb = max(top, f.emin) - (f.prec - 1); // the exponent of the result's last bit
	int d = lsb - lsb_exp;
	uint keep;
	if (d <= 0) {
		keep = mag.x << uint(-d); // h + 1 <= prec bits: the low word holds them
	} else {
		keep = shr64(mag, d).x & ((1u << uint(f.prec)) - 1u);
		if ((shr64(mag, d - 1).x & 1u) == 1u && ((keep & 1u) == 1u || any64_below(mag, d - 1))) {
			keep++;
		}
		if (keep == (1u << uint(f.prec))) {
			keep >>= 1;
			lsb++;
		}
	}
	uint hidden = 1u << uint(f.prec - 1);
	if (keep < hidden) { // a denormal
		return sign | keep;
	}
	int biased = lsb + f.prec - 1 + f.bias;
	if (biased >= 2 * f.bias + 1) {
		return fmt_inf(f, negative);
	}
	return sign | (uint(biased) << uint(f.prec - 1)) | (keep & (hidden - 1u));
}

// exact_round rounds the sum once to f (nearest even, denormals kept, to
// infinity past the largest finite value): NaN for a NaN term or
// infinities of both signs, the infinity of the terms', -0 for an exact
// zero only when every term was -0. The 64 bits from the highest set bit
// down, with the bits below them folded into the lowest as a sticky bit,
// round as the whole does: the result's last bit lies 40 bits above it.
uint exact_round(uint acc[EXACT_LIMBS], uint flags, Format f) {
	if ((flags & EXACT_NAN) != 0u || (flags & (EXACT_POS_INF | EXACT_NEG_INF)) == (EXACT_POS_INF | EXACT_NEG_INF)) {
		return fmt_nan(f);
	}
	if ((flags & (EXACT_POS_INF | EXACT_NEG_INF)) != 0u) {
		return fmt_inf(f, (flags & EXACT_NEG_INF) != 0u);
	}
	bool negative = (acc[EXACT_LIMBS - 1] >> 31) != 0u;
	if (negative) { // two's complement negation
		uint c = 1u;
		for (int i = 0; i < EXACT_LIMBS; i++) {
			acc[i] = uaddCarry(~acc[i], c, c);
		}
	}
	int h = -1;
	for (int i = EXACT_LIMBS - 1; i >= 0 && h < 0; i--) {
		if (acc[i] != 0u) {
			h = 32 * i + findMSB(acc[i]);
		}
	}
	if (h < 0) {
		return fmt_sign(f, (flags & EXACT_NOT_ALL_NEG_ZERO) == 0u);
	}
	int b = max(h - 63, 0);
	uint w = uint(b >> 5), s = uint(b & 31);
	uvec2 v = uvec2(acc[w], w + 1u < uint(EXACT_LIMBS) ? acc[w + 1u] : 0u);
	uint v2 = w + 2u < uint(EXACT_LIMBS) ? acc[w + 2u] : 0u;
	if (s != 0u) {
		v = uvec2((v.x >> s) | (v.y << (32u - s)), (v.y >> s) | (v2 << (32u - s)));
	}
	if (exact_any_below(acc, b)) {
		v.x |= 1u;
	}
	return round64(v, b - 149, negative, f);
}

// exact_round_f32 is exact_round to FLOAT32.
uint exact_round_f32(uint acc[EXACT_LIMBS], uint flags) { return exact_round(acc, flags, FMT_F32); }
