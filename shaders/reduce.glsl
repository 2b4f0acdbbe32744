// reduce.glsl: what reductions over coalesced dimensions share: the
// shape (kept and reduced dimension slots), the coordinates and offsets of
// an output and of a block position, each element's score, and the order
// in which a later element replaces the best so far. ARGMAX / ARGMIN and
// REDUCE are its users (argmax.comp, argmax_vec_row.comp, argmax_vec_col.comp,
// argmax_col8y.comp, argmax_combine.comp, argmax_combine_group.comp); argmax.comp explains
// why the order is correct. Include elem.glsl first; a combine pass,
// which reads partials rather than elements, defines REDUCE_COMBINE to
// leave out the block coordinates and the score.
//
// Specialization constants (0 is the workgroup size, in common.glsl):
//   1     FLAGS: KIND (bits 0-1: elem.glsl's KIND_*), IS_MIN
//         (bit 2, ARGMIN), LAST (bit 3, DML_AXIS_DIRECTION_DECREASING: the
//         last extreme wins), OUT_MODE (bits 4-5: 0 32-bit indices to the
//         output, 1 64-bit indices as two words with the high word 0, 2
//         (score, index) partials to the temporary resource, 3 values of
//         REDUCE's value functions to the output), NK (bits
//         8-11) and NR (bits 12-15): kept / reduced dimensions after
//         coalescing, NK + NR <= 8; OUT_MODE 3 and FUNC (bits 20-22) and
//         VAL_LOG (bits 24-25) belong to REDUCE's value functions
//         (reduce_part.glsl)
//   2+s   DS[s]  size of dimension slot s
//   10+s  DI[s]  its input stride (elements)
//   18+s  DO[s]  its output stride (kept dimensions only)
// Kept dimension i (innermost first) is slot i; reduced dimension i
// (innermost first) is slot 7-i.
// Offsets are computed modulo 2^32 and made window-relative by one
// subtraction, which is exact because every element a step touches lies
// inside its window (the host guarantees it).

layout(constant_id = 1) const uint FLAGS = 0u;
const uint KIND = FLAGS & 3u;
const uint IS_MIN = (FLAGS >> 2) & 1u;
const uint LAST = (FLAGS >> 3) & 1u;
const uint OUT_MODE = (FLAGS >> 4) & 3u;
const uint NK = (FLAGS >> 8) & 15u;
const uint NR = (FLAGS >> 12) & 15u;
// FUNC: what the reduction computes. FUNC_INDEX is ARGMAX / ARGMIN's
// index; the others are REDUCE's value functions (reduce_part.glsl).
const uint FUNC = (FLAGS >> 20) & 7u;
const uint FUNC_INDEX = 0u;
const uint FUNC_EXTREME = 1u; // MAX, or MIN with IS_MIN
const uint FUNC_SUM = 2u;
const uint FUNC_MULTIPLY = 3u;
const uint FUNC_L1 = 4u;
const uint FUNC_SUM_SQUARE = 5u;
// ORDERED: the result is the maximum of a total order on (score,
// position); otherwise it is an accumulation modulo 2^64.
const bool ORDERED = FUNC <= FUNC_EXTREME;

layout(constant_id = 2) const uint DS0 = 1u;
layout(constant_id = 3) const uint DS1 = 1u;
layout(constant_id = 4) const uint DS2 = 1u;
layout(constant_id = 5) const uint DS3 = 1u;
layout(constant_id = 6) const uint DS4 = 1u;
layout(constant_id = 7) const uint DS5 = 1u;
layout(constant_id = 8) const uint DS6 = 1u;
layout(constant_id = 9) const uint DS7 = 1u;
layout(constant_id = 10) const uint DI0 = 0u;
layout(constant_id = 11) const uint DI1 = 0u;
layout(constant_id = 12) const uint DI2 = 0u;
layout(constant_id = 13) const uint DI3 = 0u;
layout(constant_id = 14) const uint DI4 = 0u;
layout(constant_id = 15) const uint DI5 = 0u;
layout(constant_id = 16) const uint DI6 = 0u;
layout(constant_id = 17) const uint DI7 = 0u;
layout(constant_id = 18) const uint DO0 = 0u;
layout(constant_id = 19) const uint DO1 = 0u;
layout(constant_id = 20) const uint DO2 = 0u;
layout(constant_id = 21) const uint DO3 = 0u;
layout(constant_id = 22) const uint DO4 = 0u;
layout(constant_id = 23) const uint DO5 = 0u;
layout(constant_id = 24) const uint DO6 = 0u;
layout(constant_id = 25) const uint DO7 = 0u;

// kept_offsets splits output number o into kept coordinates and returns its
// input and output element offsets (mod 2^32).
void kept_offsets(uint o, out uint kin, out uint kout) {
	kin = 0u;
	kout = 0u;
#define KSTEP(i)                         \
	if (NK > uint(i)) {              \
		uint c = o % DS##i;              \
		o /= DS##i;                      \
		kin += c * DI##i;                \
		kout += c * DO##i;               \
	}
	KSTEP(0) KSTEP(1) KSTEP(2) KSTEP(3) KSTEP(4) KSTEP(5) KSTEP(6) KSTEP(7)
#undef KSTEP
}

#ifndef REDUCE_COMBINE

// red_offset is the input element offset of block position j (the
// outermost reduced coordinate needs no modulo: j is inside the block).
uint red_offset(uint j) {
	uint off = 0u;
#define RSTEP(i, s)                      \
	if (NR == uint(i) + 1u) {        \
		off += j * DI##s;                \
	} else if (NR > uint(i)) {       \
		off += (j % DS##s) * DI##s;      \
		j /= DS##s;                      \
	}
	RSTEP(0, 7) RSTEP(1, 6) RSTEP(2, 5) RSTEP(3, 4) RSTEP(4, 3) RSTEP(5, 2) RSTEP(6, 1) RSTEP(7, 0)
#undef RSTEP
	return off;
}

// red_coords is red_offset that also returns the coordinates, for red_next.
uint red_coords(uint j, out uint c[8]) {
	uint off = 0u;
	for (int i = 0; i < 8; i++) {
		c[i] = 0u;
	}
#define RSTEP(i, s)                      \
	if (NR > uint(i)) {              \
		c[i] = j % DS##s;                \
		off += c[i] * DI##s;             \
		j /= DS##s;                      \
	}
	RSTEP(0, 7) RSTEP(1, 6) RSTEP(2, 5) RSTEP(3, 4) RSTEP(4, 3) RSTEP(5, 2) RSTEP(6, 1) RSTEP(7, 0)
#undef RSTEP
	return off;
}

// red_next advances coordinates c and offset off to the next block
// position (an odometer; the caller never steps past the block's end).
void red_next(inout uint c[8], inout uint off) {
#define RINC(i, s)                       \
	if (NR <= uint(i)) {             \
		return;                          \
	}                                    \
	off += DI##s;                        \
	if (++c[i] < DS##s) {                \
		return;                          \
	}                                    \
	c[i] = 0u;                           \
	off -= DS##s * DI##s;
	RINC(0, 7) RINC(1, 6) RINC(2, 5) RINC(3, 4) RINC(4, 3) RINC(5, 2) RINC(6, 1) RINC(7, 0)
#undef RINC
}

// score maps an element's raw bits (x low word, y high word) at block
// position j to its unsigned score, higher winning; (y, x) compare
// lexicographically (key_gt). The score is elem.glsl's order-preserving key,
// bit-inverted for ARGMIN; a NaN scores above everything at j = 0 and below
// everything elsewhere (argmax.comp explains why), except for REDUCE's
// MAX/MIN (FUNC_EXTREME), which ignore NaN wherever it sits: there a NaN
// scores 0, below every number, everywhere.
uvec2 score(uvec2 raw, uint j) {
	uvec2 k = elem_key2(raw, KIND);
#if ELEM_BITS == 64
	if (IS_MIN != 0u) {
		k = ~k;
	}
#else
	if (elem_is_nan(raw.x, KIND)) {
		return uvec2(j == 0u && FUNC == FUNC_INDEX ? 0xFFFFFFFFu : 0u, 0u);
	}
	if (IS_MIN != 0u) {
		k.x = ~k.x;
	}
#endif
	return k;
}

#if ELEM_BITS < 64
// filter_bounds is the raw-interval filter for a lane (or vector
// component) whose best scores t: (lo, lim) such that every element that the sequential update
// would take next (score4_later >= t under DECREASING, > t otherwise)
// has raw bits x with ((x - lo) mod 2^ELEM_BITS) << (32 - ELEM_BITS) <= lim
// (lim's low bits are ones, so the other sub-elements that the shift
// leaves below do not matter). The interval may hold more (NaNs, or one
// raw value when nothing can win), which costs an exact visit, never an
// answer. The elements that can win are those of key >= K (ARGMAX) or
// key <= K (ARGMIN) for a K from t; the key (elem.glsl) is the raw bits
// for unsigned integers and the raw bits plus ELEM_SIGN (mod 2^ELEM_BITS)
// for signed ones, so a key range is a raw range; for floats the keys
// above ELEM_SIGN are the positive values, in raw order, and those below
// it the negative ones, in reverse raw order, so a key range that reaches
// ELEM_SIGN is again one raw range (modulo 2^ELEM_BITS), and one that does
// not lies on one side.
uvec2 filter_bounds(uint t) {
	// t' = t (DECREASING) or t + 1: the least score that wins. A first-
	// index best of score 2^32 - 1 (a NaN at block position 0, or ARGMIN's
	// least integer) can never be replaced.
	bool never = LAST == 0u && t == 0xFFFFFFFFu;
	uint tp = LAST != 0u ? t : t + 1u;
	bool all = tp == 0u && !never;
	uint lo = 0u, w = ELEM_MASK;
	if (IS_MIN == 0u) {
		uint k = tp; // winners: key >= k
		never = never || k > ELEM_MASK;
		if (KIND == KIND_UNSIGNED) {
			lo = k;
			w = ELEM_MASK - k;
		} else if (KIND == KIND_SIGNED || k > ELEM_SIGN) {
			lo = k ^ ELEM_SIGN;
			w = ELEM_MASK - k;
		} else {
			// Every positive value, and the negative ones down to key k.
			lo = 0u;
			w = ELEM_MASK - (k - 1u);
		}
	} else {
		uint k = ~tp; // winners: key <= k (score = ~key)
		all = all || k >= ELEM_MASK;
		if (KIND == KIND_UNSIGNED) {
			lo = 0u;
			w = k;
		} else if (KIND == KIND_SIGNED || k >= ELEM_SIGN) {
			lo = ELEM_SIGN;
			w = k;
		} else if (k == 0u) {
			never = true;
		} else {
			// Only negative values, from the most negative up to key k.
			lo = (ELEM_MASK - k + 1u) & ELEM_MASK;
			w = k - 1u;
		}
	}
	if (never) {
		// One raw value, the least likely to occur: the other end of the
		// order.
		w = 0u;
		if (IS_MIN == 0u) {
			lo = KIND == KIND_UNSIGNED ? 0u : KIND == KIND_SIGNED ? ELEM_SIGN : ELEM_MASK;
		} else {
			lo = KIND == KIND_UNSIGNED ? ELEM_MASK : ELEM_SIGN - 1u;
		}
	} else if (all) {
		lo = 0u;
		w = ELEM_MASK;
	}
	const uint sh = 32u - ELEM_BITS;
	return uvec2(lo << sh, (w << sh) | ((1u << sh) - 1u));
}
#endif

#endif // REDUCE_COMBINE

// later_wins: does an element at a higher block position with score s
// replace the best so far (the sequential form of the order)?
bool later_wins(uvec2 s, uvec2 best) { return key_gt(s, best) || (LAST != 0u && s == best); }

// better: does (s, si) come after (b, bi) in the total order?
bool better(uvec2 s, uint si, uvec2 b, uint bi) {
	return key_gt(s, b) || (s == b && (LAST != 0u ? si > bi : si < bi));
}
