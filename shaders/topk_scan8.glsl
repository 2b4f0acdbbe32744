// topk_scan8.glsl: topk_select.comp's vector gates for 8-bit integer rows
// of input stride 1 (SCAN8 variants, VEC16): a 16-byte vector holds
// sixteen elements, and the scans test all of them against the gate in a
// few word operations (SWAR), so that a position costs well under one
// operation where only the rare vector that may win is offered element by
// element (argmax_col8y.comp's filter is the model).
//
// An 8-bit integer's score (topk.glsl) is its key (the byte, sign bit
// flipped for INT8) under DECREASING and the key's inversion under
// INCREASING: every score of one kernel shares its bits above the lowest
// byte, so scores order as their lowest bytes do, the BYTE SCORE. One xor
// (SCAN8_X) turns four raw bytes into four byte scores, which are spread
// into two words of two 16-bit fields each (bytes 0, 2 and bytes 1, 3).
// Adding C = 0x100 - m to a field sets its bit 8 exactly when the byte
// score is at least m; sums stay below 0x200, so fields never carry into
// each other.

// SCAN8_X: raw byte to byte score, four at once.
const uint SCAN8_X = (KIND == KIND_SIGNED ? 0x80808080u : 0u) ^ (DECR != 0u ? 0u : 0xFFFFFFFFu);
const uint SCAN8_FIELDS = 0x00FF00FFu;
const uint SCAN8_WON = 0x01000100u;

// scan8_any: has any byte of the 16-byte vector raw a byte score of at
// least m (0 <= m <= 0x100; 0x100: none)?
bool scan8_any(uvec4 raw, uint m) {
	uvec4 c = uvec4((0x100u - m) * 0x00010001u);
	uvec4 s = raw ^ SCAN8_X;
	uvec4 t = ((s & SCAN8_FIELDS) + c) | (((s >> 8) & SCAN8_FIELDS) + c);
	return ((t.x | t.y | t.z | t.w) & SCAN8_WON) != 0u;
}

// scan8_byte_score is the byte score of the number whose gate key
// (gate_key: the key's top bit flipped, moved to bit 31) is t.
uint scan8_byte_score(int t) {
	uint key = (uint(t) >> 24) ^ 0x80u;
	return DECR != 0u ? key : key ^ 0xFFu;
}

// vec_gate_before: does any element of the 16-byte vector raw come
// before gate key t, by gate key alone (a strictly higher byte score)?
bool vec_gate_before(uvec4 raw, int t) { return scan8_any(raw, scan8_byte_score(t) + 1u); }


// scan8_hits marks the bytes of the 16-byte vector raw whose byte score
// is at least m (0 <= m <= 0xFF): byte b of component c (position 4c + b
// of the vector) at bit 8b + c. my is m in every byte, nmy its inversion
// and myl my without the bytes' top bits (the loop's invariants). Per
// byte, x >= y is x's top bit set and y's clear, or the top bits equal
// and (x | 0x80) - (y & 0x7F) keeping bit 7 (its low seven bits compare):
// that subtraction never borrows out of its byte.
uint scan8_hits(uvec4 raw, uint my, uint nmy, uint myl) {
	const uint H = 0x80808080u;
	uvec4 x = raw ^ SCAN8_X;
	uvec4 d = (x | H) - myl;
	uvec4 ge = ((x & nmy) | ((x ^ nmy) & d)) & H;
	return (ge.x >> 7) | (ge.y >> 6) | (ge.z >> 5) | (ge.w >> 4);
}
