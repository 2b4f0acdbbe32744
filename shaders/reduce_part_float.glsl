// reduce_part_float.glsl: reduce_part.glsl's vocabulary (Part,
// part_identity, part_elem, part_fold, part_merge, the partial, the
// stored result) for REDUCE's float functions (docs/semantics.md rules
// 39-44), which argmax.comp, argmax_combine.comp and
// argmax_combine_group.comp run when compiled with REDUCE_FLOAT 1. A Part
// is reduce_exact.glsl's exact accumulator of the block's terms: merging
// two is an integer addition, associative and commutative, so every lane,
// workgroup, segment and plan reaches the same state, and the one rounding
// and the function's last step (reduce_float.glsl) come after the last
// merge. FLOAT16 elements widen exactly and their terms are FLOAT32's
// (rule 41).
//
// FLAGS bits 26-29 hold FFUNC, the DML_REDUCE_FUNCTION; VAL_LOG (bits
// 24-25) is 2 for FLOAT32, 1 for FLOAT16 outputs. A partial is
// PART_WORDS words: the ten limbs, the flags and one unused word.

#include "reduce_exact.glsl"
#include "reduce_float.glsl"

const uint VAL_LOG = (FLAGS >> 24) & 3u;
const uint FFUNC = (FLAGS >> 26) & 15u;
// DML_REDUCE_FUNCTION values (ops/reduce.go).
const uint FF_AVERAGE = 2u, FF_L1 = 3u, FF_L2 = 4u, FF_LOG_SUM = 5u, FF_LOG_SUM_EXP = 6u, FF_SUM = 10u, FF_SUM_SQUARE = 11u;

#define PART_WORDS 12u

// THE LANE WINDOW. Adding a term to the ten limbs costs about 60 ops, so a
// Part also keeps a 64-bit two's complement fixed-point accumulator, fast
// (low word x), whose last bit weighs 2^(win-150): a normal term of biased
// exponent e in [win, win+LANE_W) is m·2^(e-win) units (m its 24-bit
// significand), added as the 64-bit product of m and ±2^(e-win), both
// 32-bit (imulExtended), with no branch but the window test. Any other
// term takes part_add_slow: zeros, denormals, infinities and NaN go to
// the limbs (exact_add, where the flags are kept); a normal term outside
// the window flushes fast into the limbs (exact, exact_add_i64) and moves
// the window to it, LANE_ABOVE binades above its exponent, within [1,
// 254], so that a window never holds a denormal, an infinity or a NaN.
// A term in the window has |m·2^(e-win)| < 2^(24+LANE_W) = 2^48, so fast
// holds the sum of 2^15 of them: more than a Part ever folds before it is
// settled (ops/reduce_float.go reduceFloatLaneTerms: a lane scans at most
// argIters elements of a segment, and its first; argmax.comp's
// texel_scan six more at most). The flag EXACT_NOT_ALL_NEG_ZERO
// was set when the window was (a normal term), so a term in the window
// changes no flag. A settled Part (part_settle) has fast = 0: the value
// is the limbs'; what is written, shared or rounded is settled, so the
// partials, the combine and the rounding are those of the limbs alone,
// and every grouping gives the same exact sum.
#define LANE_W 24u
#define LANE_ABOVE 3u
#define LANE_NO_WINDOW 256u // no window: every term is outside it

struct Part {
	uint acc[EXACT_LIMBS];
	uint flags;
	uvec2 fast;
	uint win;
};

Part part_identity() {
	Part p;
	exact_zero(p.acc, p.flags);
	p.fast = uvec2(0u);
	p.win = LANE_NO_WINDOW;
	return p;
}

// part_settle flushes st.fast into the limbs.
Part part_settle(Part st) {
	if (st.fast != uvec2(0u)) {
		exact_add_i64(st.acc, st.fast, st.win - 1u);
		st.fast = uvec2(0u);
	}
	return st;
}

// part_merge adds the settled Part b into the settled Part a.
Part part_merge(Part a, Part b) {
	exact_merge(a.acc, a.flags, b.acc, b.flags);
	return a;
}

// TERMS_NONNEG: the function's terms |x| and x·x have no sign (a NaN's
// takes the limbs' path), so lane_product needs none.
const bool TERMS_NONNEG = FFUNC == FF_L1 || FFUNC == FF_SUM_SQUARE || FFUNC == FF_L2;

// lane_product is the FLOAT32 x (biased exponent win + s) as units of
// the window: its significand times ±2^s.
uvec2 lane_product(uint x, uint s) {
	int hi, lo;
	imulExtended(int(bitfieldInsert(x, 1u, 23, 9)), (TERMS_NONNEG ? 1 : int(x) >> 31 | 1) << s, hi, lo);
	return uvec2(lo, hi);
}

// part_add_slow adds a FLOAT32 term outside the window (see above).
void part_add_slow(inout Part st, uint x) {
	uint e = bitfieldExtract(x, 23, 8);
	if (e == 0u || e == 255u) {
		exact_add(st.acc, st.flags, x);
		return;
	}
	st = part_settle(st);
	st.win = uint(clamp(int(e + LANE_ABOVE) - int(LANE_W - 1u), 1, 255 - int(LANE_W)));
	st.flags |= EXACT_NOT_ALL_NEG_ZERO;
	st.fast = lane_product(x, e - st.win);
}

// lane_add adds the FLOAT32 term x at s = its biased exponent - win <
// LANE_W into fast.
void lane_add(inout Part st, uint x, uint s) {
	uvec2 t = lane_product(x, s);
	uint c;
	st.fast.x = uaddCarry(st.fast.x, t.x, c);
	st.fast.y += t.y + c;
}

// lane_s is the FLOAT32 x's place in the window: LANE_W or more outside.
uint lane_s(Part st, uint x) { return bitfieldExtract(x, 23, 8) - st.win; }

// part_add adds the FLOAT32 term x.
void part_add(inout Part st, uint x) {
	uint s = lane_s(st, x);
	if (s < LANE_W) {
		lane_add(st, x, s);
	} else {
		part_add_slow(st, x);
	}
}

#ifndef REDUCE_COMBINE
#ifndef HW_MUL
#define HW_MUL 0
#endif
#ifndef EXP_TABLE
#define EXP_TABLE 0
#endif
#if EXP_TABLE
// EXP_TABLE (FLOAT16 LOG_SUM_EXP, ops.TableExpHalf): the term exp(x) of
// the FLOAT16 whose bits are h is word h of a table the host computed
// with the reference's exp (rule 40) and binds read-only, so it equals
// exp_f32 of the widened half by construction; the kernel defines it
// after its push constants.
#if !defined(ELEM_BITS) || ELEM_BITS != 16
#error EXP_TABLE holds the terms of FLOAT16 elements
#endif
uint exp_table_term(uint h);
#endif
// part_term is the FLOAT32 term of an element's raw bits: x, |x|, x*x or exp(x)
// (rule 41). |x| clears the sign bit: a NaN stays a NaN, and any NaN
// term makes the one NaN (rule 43). x*x is mul_f32's integer product or,
// HW_MUL, the hardware's FLOAT32 multiply under the float controls that
// make it IEEE's (reduce_fmul.comp's header): the same bits, a NaN's
// payload aside.
uint part_term(uvec2 raw) {
	uint x = VAL_LOG == 1u ? f16_to_f32(raw.x) : raw.x;
	if (FFUNC == FF_L1) {
		return x & 0x7fffffffu;
	}
	if (FFUNC == FF_SUM_SQUARE || FFUNC == FF_L2) {
#if HW_MUL
		precise float p = uintBitsToFloat(x) * uintBitsToFloat(x);
		return floatBitsToUint(p);
#else
		return mul_f32(x, x);
#endif
	}
	if (FFUNC == FF_LOG_SUM_EXP) {
#if EXP_TABLE
		return exp_table_term(raw.x);
#else
		return exp_f32(x);
#endif
	}
	return x;
}

Part part_elem(uvec2 raw, uint j) {
	Part p = part_identity();
	part_add(p, part_term(raw));
	return p;
}

Part part_fold(Part st, uvec2 raw, uint j) {
	part_add(st, part_term(raw));
	return st;
}

// THE FAST SCANS. lavapipe runs both arms of an if whose condition
// differs between lanes (masked), so part_fold's rare arm, about 150 ops,
// would cost every element there; a loop, though, ends when its last
// lane leaves it. So the kernels scan in two loops: an inner one of
// part_fast4, which adds four elements' terms when all lie in the window
// and otherwise leaves the loop, adding nothing; and an outer one that
// folds those four through part_fold and goes back in (measured on
// lavapipe, SUM of 4096x16384 FLOAT32 N(0,1) over axis 0: the rare arm
// inside the loop took 1.7x the time of the limbs alone, the two loops
// 0.7x). A lane that leaves waits for the
// others of its SIMD row while they scan on; where terms outside the
// window are rare (after the first few that place it: LANE_W binades
// hold the usual data), the waits are too.

// part_term_fast is part_term with LOG_SUM_EXP's exp by its fast
// evaluation alone (reduce_float.glsl): fallback is set where that term
// needs exp_f32's fallback, which part_fold computes. So the fast scan's
// loop holds no fallback code, which lavapipe would run on every element.
// With EXP_TABLE a term is a table read and never falls back.
uint part_term_fast(uvec2 raw, inout bool fallback) {
#if !EXP_TABLE
	if (FFUNC == FF_LOG_SUM_EXP) {
		bool fb;
		uint y = exp_f32_fast(VAL_LOG == 1u ? f16_to_f32(raw.x) : raw.x, fb);
		fallback = any(bvec2(fallback, fb));
		return y;
	}
#endif
	return part_term(raw);
}

// part_fast4 adds the four elements' terms when all lie in the window
// (and their exps need no fallback).
bool part_fast4(inout Part st, uvec2 r0, uvec2 r1, uvec2 r2, uvec2 r3) {
	bool fallback = false;
	uint x0 = part_term_fast(r0, fallback), x1 = part_term_fast(r1, fallback);
	uint x2 = part_term_fast(r2, fallback), x3 = part_term_fast(r3, fallback);
	uint s0 = lane_s(st, x0), s1 = lane_s(st, x1), s2 = lane_s(st, x2), s3 = lane_s(st, x3);
	if (fallback || max(max(s0, s1), max(s2, s3)) >= LANE_W) {
		return false;
	}
	lane_add(st, x0, s0);
	lane_add(st, x1, s1);
	lane_add(st, x2, s2);
	lane_add(st, x3, s3);
	return true;
}
#endif

// block_count is the elements of a block: the product of the reduced
// dimensions' sizes.
uint block_count() {
	uint n = 1u;
	if (NR > 0u) n *= DS7;
	if (NR > 1u) n *= DS6;
	if (NR > 2u) n *= DS5;
	if (NR > 3u) n *= DS4;
	if (NR > 4u) n *= DS3;
	if (NR > 5u) n *= DS2;
	if (NR > 6u) n *= DS1;
	if (NR > 7u) n *= DS0;
	return n;
}

// part_value is the output's bits: the exact sum rounded once to the
// output type (SUM, L1, SUM_SQUARE), or to FLOAT32, then divided by the
// count (AVERAGE), its square root (L2) or its logarithm (LOG_SUM,
// LOG_SUM_EXP) taken, then rounded to FLOAT16
// for FLOAT16 outputs (rules 39-41).
uint part_value(Part st) {
	st = part_settle(st);
	if (FFUNC == FF_SUM || FFUNC == FF_L1 || FFUNC == FF_SUM_SQUARE) {
		return exact_round(st.acc, st.flags, VAL_LOG == 1u ? FMT_F16 : FMT_F32);
	}
	uint s = exact_round(st.acc, st.flags, FMT_F32);
	uint v = FFUNC == FF_AVERAGE ? div_f32_count(s, block_count()) : FFUNC == FF_L2 ? sqrt_f32(s) : log_f32(s);
	return VAL_LOG == 1u ? f32_to_f16(v) : v;
}

void write_part(uint w, Part st) {
	st = part_settle(st);
#define PART_PUT(i) word_dst.x[w + uint(i)] = st.acc[i];
	EXACT_UNROLL(PART_PUT)
#undef PART_PUT
	word_dst.x[w + 10u] = st.flags;
}

#define READ_PART(view, w) read_part_##view(w)
#ifdef WORD_SRC
Part read_part_word_src(uint w) {
	Part p;
#define PART_GET(i) p.acc[i] = word_src.x[w + uint(i)];
	EXACT_UNROLL(PART_GET)
#undef PART_GET
	p.flags = word_src.x[w + 10u];
	p.fast = uvec2(0u);
	p.win = LANE_NO_WINDOW;
	return p;
}
#endif

// store_value writes output bits v to output element e of the word view
// whose base offset is base words; a FLOAT16 through atomics that leave
// the neighbouring element, which another invocation owns, as it is.
void store_value(uint base, uint e, uint v) {
	if (VAL_LOG == 2u) {
		word_dst.x[base + e] = v;
	} else {
		uint t = base * 2u + e, sh = (t & 1u) * 16u;
		atomicAnd(word_dst.x[t >> 1], ~(0xffffu << sh));
		atomicOr(word_dst.x[t >> 1], v << sh);
	}
}

// store_result writes a Part's value (store_value).
void store_result(uint base, uint e, Part st) { store_value(base, e, part_value(st)); }
