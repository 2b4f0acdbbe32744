// reduce_part.glsl: what a reduction carries from its elements to its
// output, for every DML_REDUCE_FUNCTION the reduction kernels run
// (argmax.comp, argmax_combine.comp, argmax_combine_group.comp; the
// vectorised first passes carry a narrower state, argmax_vec_common.glsl,
// and write Parts): the
// Part, how a first pass builds one from an element and folds in the
// next element, how two merge (lanes, subgroups, segments, in any
// grouping), the 16-byte partial that carries one between passes, and the
// output value. Include it after reduce.glsl (WORD_DST defined, with
// WORD_DST_RW for the sub-word value stores).
//
// FUNC_INDEX (ARGMAX / ARGMIN) and FUNC_EXTREME (REDUCE's MAX / MIN) are
// ORDERED: a Part is the best element so far under argmax.comp's total
// order on (score, position), whose maximum is associative and
// commutative. MAX / MIN score a NaN 0, below every number, and set LAST
// (the later of equal values wins, so MAX([-0, +0]) = +0 and
// MAX([+0, -0]) = -0); their position is j + 1, so that the identity's 0
// loses every tie, and p keeps the winner's raw low word (the sign of a
// zero; 64-bit elements are integers, whose key is invertible). A block of
// NaN only, whose best scores 0, gives -inf (MAX) or +inf (MIN), as
// DirectML does (measured: it starts from the infinity and skips NaN).
//
// The other functions (integer types of 32 and 64 bits only) accumulate
// modulo 2^64 in s: SUM of x, MULTIPLY of x, L1 of |x|, SUM_SQUARE of x*x,
// each x taken modulo 2^64 from its 32- or 64-bit bits (|x| and x*x of a
// 32-bit x modulo 2^32, then zero-extended). Addition and multiplication
// modulo 2^64 are associative and commutative and their low 32 bits depend
// only on the operands' low 32 bits, so any grouping gives the exact
// result modulo 2^n, which is the output (the integers wrap, semantics.md).
// 64-bit arithmetic is done on two 32-bit words: no variant needs
// shaderInt64.
//
// OUT_MODE 3 writes the value, of 2^VAL_LOG bytes, to the output.

const uint VAL_LOG = (FLAGS >> 24) & 3u;

// PART_WORDS is a partial's words (reduce_part_float.glsl's are 12).
#define PART_WORDS 4u

// Part: s is the score (ORDERED) or the accumulator (low word x), i the
// position (ORDERED), p the raw low word of the best element (FUNC_EXTREME).
struct Part {
	uvec2 s;
	uint i;
	uint p;
};

uvec2 add64(uvec2 a, uvec2 b) {
	uint carry;
	uint lo = uaddCarry(a.x, b.x, carry);
	return uvec2(lo, a.y + b.y + carry);
}

uvec2 mul64(uvec2 a, uvec2 b) {
	uint hi, lo;
	umulExtended(a.x, b.x, hi, lo);
	return uvec2(lo, hi + a.x * b.y + a.y * b.x);
}

// part_identity is the Part of no element: below every element in the
// order (score 0 and, LAST, position 0; FUNC_INDEX's first-wins position
// is the largest), or the accumulation's neutral value.
Part part_identity() {
	if (ORDERED) {
		return Part(uvec2(0u), LAST != 0u ? 0u : 0xFFFFFFFFu, 0u);
	}
	return Part(uvec2(FUNC == FUNC_MULTIPLY ? 1u : 0u, 0u), 0u, 0u);
}

// part_merge combines the Parts of two disjoint sets of a block's elements.
Part part_merge(Part a, Part b) {
	if (ORDERED) {
		return better(b.s, b.i, a.s, a.i) ? b : a;
	}
	if (FUNC == FUNC_MULTIPLY) {
		return Part(mul64(a.s, b.s), 0u, 0u);
	}
	return Part(add64(a.s, b.s), 0u, 0u);
}

#ifndef REDUCE_COMBINE
// part_term is an element's term of an accumulation: x, |x| or x*x.
uvec2 part_term(uvec2 raw) {
#if ELEM_BITS == 64
	bool neg = KIND == KIND_SIGNED && raw.y >= 0x80000000u;
	uvec2 mag = neg ? add64(~raw, uvec2(1u, 0u)) : raw;
#else
	bool neg = KIND == KIND_SIGNED && raw.x >= 0x80000000u;
	uvec2 mag = uvec2(neg ? 0u - raw.x : raw.x, 0u);
	raw.y = 0u;
#endif
	if (FUNC == FUNC_L1) {
		return mag;
	}
	if (FUNC == FUNC_SUM_SQUARE) {
#if ELEM_BITS == 64
		return mul64(raw, raw);
#else
		return uvec2(raw.x * raw.x, 0u);
#endif
	}
	return raw;
}

// part_elem is the Part of the element with raw bits raw at block
// position j.
Part part_elem(uvec2 raw, uint j) {
	if (ORDERED) {
		return Part(score(raw, j), FUNC == FUNC_EXTREME ? j + 1u : j, raw.x);
	}
	return Part(part_term(raw), 0u, 0u);
}

// part_fold folds the element at a later block position j into st (the
// sequential scan's step).
Part part_fold(Part st, uvec2 raw, uint j) {
	if (ORDERED) {
		uvec2 s = score(raw, j);
		if (later_wins(s, st.s)) {
			return Part(s, FUNC == FUNC_EXTREME ? j + 1u : j, raw.x);
		}
		return st;
	}
	return part_merge(st, Part(part_term(raw), 0u, 0u));
}
#endif // REDUCE_COMBINE

#if SUBGROUP
// sg_part leaves the subgroup's merged Part in every lane. ORDERED: the
// maximum high word, then the maximum low word among the lanes holding it,
// then the first (or, LAST, the last) position among the lanes holding
// both, and that lane's payload. Sums modulo 2^64 add the low words in
// 16-bit halves, so that no subgroup sum overflows (a subgroup has at most
// 2^16 lanes), and carry into the high word. MULTIPLY multiplies the low
// words: exact modulo 2^32, so the planner gives 64-bit MULTIPLY only the
// kernels without subgroup arithmetic.
Part sg_part(Part st) {
	if (ORDERED) {
		uint mh = subgroupMax(st.s.y);
		uint ml = subgroupMax(st.s.y == mh ? st.s.x : 0u);
		bool top = st.s.x == ml && st.s.y == mh;
		uint idx = LAST != 0u ? subgroupMax(top ? st.i : 0u) : subgroupMin(top ? st.i : 0xFFFFFFFFu);
		uint p = FUNC == FUNC_EXTREME ? subgroupMax(top && st.i == idx ? st.p : 0u) : 0u;
		return Part(uvec2(ml, mh), idx, p);
	}
	if (FUNC == FUNC_MULTIPLY) {
		return Part(uvec2(subgroupMul(st.s.x), 0u), 0u, 0u);
	}
	uint a = subgroupAdd(st.s.x & 0xFFFFu), b = subgroupAdd(st.s.x >> 16);
	uint carry;
	uint lo = uaddCarry(a, b << 16, carry);
	return Part(uvec2(lo, subgroupAdd(st.s.y) + (b >> 16) + carry), 0u, 0u);
}
#endif

// part_value is the output value of a value function's Part: the best
// element's bits (MAX / MIN), or the accumulator.
uvec2 part_value(Part st) {
	if (FUNC != FUNC_EXTREME) {
		return st.s;
	}
	if (KIND == KIND_FLOAT && st.s == uvec2(0u)) {
		uint inf = VAL_LOG == 2u ? 0x7F800000u : 0x7C00u, sign = VAL_LOG == 2u ? 0x80000000u : 0x8000u;
		return uvec2(IS_MIN != 0u ? inf : inf | sign, 0u);
	}
	if (VAL_LOG < 3u) {
		return uvec2(st.p, 0u);
	}
	uvec2 k = IS_MIN != 0u ? ~st.s : st.s;
	return KIND == KIND_SIGNED ? uvec2(k.x, k.y ^ 0x80000000u) : k;
}

// PART_DST is the buffer the partials go to: word_dst, or the one a
// kernel names (argmax_vec_row.comp's TICKET variants, whose word_dst is
// the output).
#ifndef PART_DST
#define PART_DST word_dst
#endif

// write_part writes a Part as a 16-byte partial, 4 words, at word w of the
// temporary resource (PART_DST); READ_PART reads one from a word view.
void write_part(uint w, Part st) {
	PART_DST.x[w] = st.s.x;
	PART_DST.x[w + 1u] = st.s.y;
	PART_DST.x[w + 2u] = st.i;
	PART_DST.x[w + 3u] = st.p;
}

#define READ_PART(view, w) Part(uvec2(view.x[w], view.x[(w) + 1u]), view.x[(w) + 2u], view.x[(w) + 3u])

// store_result writes a Part's result to output element e of the word
// view whose base offset is base words: the index (OUT_MODE 0, 1) or the
// value (OUT_MODE 3), sub-word values through atomics that leave the
// neighbouring elements, which other invocations own, as they are.
void store_result(uint base, uint e, Part st) {
	if (OUT_MODE != 3u) {
		store_index(base, e, st.i, OUT_MODE == 1u);
		return;
	}
	uvec2 v = part_value(st);
	if (VAL_LOG == 3u) {
		word_dst.x[base + 2u * e] = v.x;
		word_dst.x[base + 2u * e + 1u] = v.y;
	} else if (VAL_LOG == 2u) {
		word_dst.x[base + e] = v.x;
	} else {
#ifdef WORD_DST_RW
		uint bits = 8u << VAL_LOG, per = 32u / bits;
		uint t = base * per + e, sh = (t % per) * bits, mask = (1u << bits) - 1u;
		atomicAnd(word_dst.x[t / per], ~(mask << sh));
		atomicOr(word_dst.x[t / per], (v.x & mask) << sh);
#endif
	}
}
