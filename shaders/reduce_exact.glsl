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
	uint c, c2;
	acc[q] = uaddCarry(acc[q], lo, c);
	uint t = uaddCarry(acc[q + 1u], hi, c2);
	acc[q + 1u] = uaddCarry(t, c, c);
	c |= c2;
	for (uint i = q + 2u; i < uint(EXACT_LIMBS) && (c | ext) != 0u; i++) {
		t = uaddCarry(acc[i], ext, c2);
		acc[i] = uaddCarry(t, c, c);
		c |= c2;
	}
}

// exact_merge adds the accumulator b into acc.
void exact_merge(inout uint acc[EXACT_LIMBS], inout uint flags, uint b[EXACT_LIMBS], uint bflags) {
	uint c = 0u;
	for (int i = 0; i < EXACT_LIMBS; i++) {
		uint c1, c2;
		uint t = uaddCarry(acc[i], b[i], c1);
		acc[i] = uaddCarry(t, c, c2);
		c = c1 | c2;
	}
	flags |= bflags;
}

// exact_bit is bit i of mag (0 outside it).
uint exact_bit(uint mag[EXACT_LIMBS], int i) {
	if (i < 0 || i >= 32 * EXACT_LIMBS) {
		return 0u;
	}
	return (mag[i >> 5] >> uint(i & 31)) & 1u;
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

// exact_field is bits lo..lo+23 of mag.
uint exact_field24(uint mag[EXACT_LIMBS], int lo) {
	uint w = uint(lo >> 5), s = uint(lo & 31);
	uint v = mag[w] >> s;
	if (s != 0u && w + 1u < uint(EXACT_LIMBS)) {
		v |= mag[w + 1u] << (32u - s);
	}
	return v & 0xffffffu;
}

// exact_round_f32 rounds the sum once to FLOAT32 (nearest even, denormals
// kept, to infinity past the largest finite value): NaN (0x7FC00000) for a
// NaN term or infinities of both signs, the infinity of the terms', -0 for
// an exact zero only when every term was -0.
uint exact_round_f32(uint acc[EXACT_LIMBS], uint flags) {
	if ((flags & EXACT_NAN) != 0u || (flags & (EXACT_POS_INF | EXACT_NEG_INF)) == (EXACT_POS_INF | EXACT_NEG_INF)) {
		return 0x7fc00000u;
	}
	if ((flags & EXACT_POS_INF) != 0u) {
		return 0x7f800000u;
	}
	if ((flags & EXACT_NEG_INF) != 0u) {
		return 0xff800000u;
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
	uint sign = negative ? 0x80000000u : 0u;
	if (h < 0) {
		return (flags & EXACT_NOT_ALL_NEG_ZERO) != 0u ? 0u : 0x80000000u;
	}
	int top = h - 149; // the value lies in [2^top, 2^(top+1))
	if (top > 128) {
		return sign | 0x7f800000u;
	}
	int lsb = max(top, -126) - 23; // the exponent of the result's last bit
	int d = lsb + 149;
	uint keep;
	if (d <= 0) {
		keep = acc[0] << uint(-d);
	} else {
		keep = exact_field24(acc, d);
		if (exact_bit(acc, d - 1) == 1u && ((keep & 1u) == 1u || exact_any_below(acc, d - 1))) {
			keep++;
		}
		if (keep == 0x1000000u) {
			keep >>= 1;
			lsb++;
		}
	}
	if (keep < 0x800000u) { // a denormal
		return sign | keep;
	}
	int biased = lsb + 23 + 127;
	if (biased >= 255) {
		return sign | 0x7f800000u;
	}
	return sign | (uint(biased) << 23) | (keep & 0x7fffffu);
}
