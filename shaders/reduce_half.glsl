// reduce_half.glsl: the integer arithmetic of reduce_half_fast.glsl's
// FLOAT16 vector scan (read its header): which halves the conversion sets
// aside, and the terms h·2^24 of the others as 64-bit integers. Needs
// GL_ARB_gpu_shader_int64. TestHalfVecGLSL checks both on every FLOAT16.

#define HALF_MAG 0x7fff7fff7fff7fffUL
#define HALF_LANE_TOP 0x8000800080008000UL

// half_odd is bit 15 of each 16-bit lane set for the halves of q that the
// conversion does not take: denormals, infinities and NaN.
uint64_t half_odd(uint64_t q) {
	uint64_t t = q & HALF_MAG;
	return (t + 0x7fff7fff7fff7fffUL) ^ (t + 0x7c007c007c007c00UL) ^ (t + 0x0400040004000400UL);
}

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

