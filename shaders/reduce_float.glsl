// reduce_float.glsl: the FLOAT32 arithmetic of REDUCE's float functions
// (docs/semantics.md rules 40-41) in 32-bit integer arithmetic, bit for
// bit ops/reduce_float_ref.go: FLOAT16 widening and narrowing, the
// multiplication x*x of SUM_SQUARE's and L2's terms, AVERAGE's division by
// the count and L2's square root, each correctly rounded (nearest even,
// denormals kept). Include it after reduce_exact.glsl (round64).

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
	f32_parts(x, m, e);
	int sh = 23 - findMSB(m); // normalise a denormal
	m <<= uint(sh);
	e -= sh;
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
