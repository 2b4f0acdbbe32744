// reduce_half_fast.glsl: the FLOAT16 vector scan of REDUCE's exact sums
// of x and |x| (SUM, AVERAGE, LOG_SUM, L1: argmax.comp HALF_FAST;
// docs/semantics.md rules 39 and 41), and of x·x (SUM_SQUARE, L2:
// reduce_half.glsl's squares, read its section), for a block that is one
// contiguous run. Every FLOAT16 is an integer multiple of
// 2^-24 below 2^16, so a finite term x·2^24 is an integer below 2^40 and a
// signed 64-bit lane sum holds 2^23 of them exactly: far more than a lane
// scans (a lane takes at most argIters positions of a segment, the
// planner's bound, reduceFloatLaneTerms). The sum goes into the limbs once
// (exact_add_i64, its last bit weighing 2^-24: limb bit 125), so the
// state, and every grouping of it, is the same exact sum as the widening
// path's: only the speed differs.
//
// THE CONVERSION, per FLOAT16 h with exponent field e and significand
// bits man: its bits placed in a FLOAT32's (sign to bit 31, e and man to
// bits 23..27 and 13..22: an arithmetic shift and a mask) give the FLOAT32
// of field e, ±(1 + man/1024)·2^(e-127), which for e in 1..30 is normal
// and exactly h·2^-112, and for h = ±0 is ±0. Multiplying by 2^127 and by 2^9
// makes it h·2^24 (exact: a normal value times a power of two with a
// normal result, which Vulkan's correctly rounded OpFMul gives in any
// rounding mode; precise, so never fused) and the conversion to int64 is
// exact (an integer below 2^40; ±0 gives 0). No rounding mode, fused
// multiply-add or denormal flushing enters: no operand or result is a
// FLOAT32 denormal. The other halves, e = 0 with man != 0 (a FLOAT16
// denormal, a FLOAT32 denormal above, which a driver may flush) and e = 31
// (infinity, NaN), are found first, four halves a 64-bit word: with t the
// half's 15 magnitude bits in a 16-bit lane (no carry leaves a lane),
// bit 15 of t + 0x7fff is t >= 1, of t + 0x7c00 is e >= 1, of t + 0x400 is
// e = 31, and the three, each implying the one before, xor to e = 0 with
// man != 0, or e = 31. A lane that meets one drops its fast sum and folds
// all its halves through part_fold (the widening path: exact_add keeps
// the flags), a word (two halves) a trip: with the fast loop's trip a
// vector, 5/8 of a trip a half, within lavapipe's loop limit where the
// element-a-trip scan is (reduce_exact.glsl EXACT_UNROLL). The block's
// unaligned head and tail (< 8 halves each) take part_fold too.
//
// Signed zeros: the flag EXACT_NOT_ALL_NEG_ZERO (rule 43) is set when the
// lane sum is not 0 (a term was not -0); a zero lane sum rereads the
// lane's vectors only while no term has set it, and sets it if a half is
// not -0 (0x8000).

#include "reduce_half.glsl"

const uint64_t HALF_KEEP = FFUNC == FF_L1 ? HALF_KEEP_ABS : HALF_KEEP_X;

// HALF_SCAN: the functions whose terms are x or |x| (rule 41); the
// others' terms (x·x, exp x) are FLOAT32s that the lane window sums.
// HALF_SQ: the functions whose terms are x·x (reduce_half.glsl's squares
// take them); HALF_SCAN covers both.
const bool HALF_SQ = FFUNC == FF_SUM_SQUARE || FFUNC == FF_L2;
const bool HALF_SCAN = FFUNC == FF_SUM || FFUNC == FF_AVERAGE || FFUNC == FF_LOG_SUM || FFUNC == FF_L1 || HALF_SQ;

// half_sq_lane adds the squares of lane t's vectors v0+t, v0+t+wg, ...
// below v1 to st in reduce_half.glsl's window w and returns true, or
// returns false, st unchanged, where a half lies outside the window.
bool half_sq_lane(inout Part st, uint v0, uint v1, uint t, uint wg, uint w) {
	uint64_t lo = 0UL, hi = 0UL, outside = 0UL;
	for (uint v = v0 + t; v < v1; v += wg) {
		uvec4 q = elem_src4.x[v];
		outside |= half_sq_outside(packUint2x32(q.xy), w) | half_sq_outside(packUint2x32(q.zw), w);
		half_sq_add(lo, hi, half_sq_vec(q, w));
	}
	if ((outside & HALF_LANE_TOP) != 0UL) {
		return false;
	}
	half_sq_settle(st.acc, lo, hi, HALF_SQ_UNIT_BIT[w]);
	return true;
}

#if EXP_TABLE
// lse_scan adds the terms of lane t's vectors v0+t, v0+t+wg, ... below
// v1 to st.
void lse_scan(inout Part st, uint v0, uint v1, uint t, uint wg) {
	int64_t sum = 0L;
	uint v = v0 + t;
	if (v < v1) {
		st.flags |= EXACT_NOT_ALL_NEG_ZERO;
	}
	// Two loops (reduce_part_float.glsl's fast scans): the inner one
	// while every half is in the window, the outer one folding the
	// vector that left it.
	while (v < v1) {
		uvec4 q = uvec4(0u);
		for (; v < v1; v += wg) {
			q = elem_src4.x[v];
			if (((lse_outside(q.xy) | lse_outside(q.zw)) & HALF_LANE_TOP) != 0UL) {
				break;
			}
			sum += int64_t((lse_pair(q.x) + lse_pair(q.y)) + (lse_pair(q.z) + lse_pair(q.w)));
		}
		if (v < v1) {
			for (uint i = 0u; i < 8u; i++) {
				st = part_fold(st, uvec2(half_of(q, i), 0u), 0u);
			}
			v += wg;
		}
	}
	exact_add_i64(st.acc, unpackUint2x32(uint64_t(sum)), LSE_UNIT_BIT);
}
#endif

// half_scan adds the n halves from element e0 of the source binding to
// st, lane t of wg: the unaligned head and tail through part_fold, lane t
// the 16-byte vectors t, t+wg, ... of the aligned middle.
void half_scan(inout Part st, uint e0, uint n, uint t, uint wg) {
	uint e1 = e0 + n;
	uint v0 = (e0 + 7u) >> 3, v1 = e1 >> 3;
	if (v0 >= v1) { // no whole vector
		for (uint e = e0 + t; e < e1; e += wg) {
			st = part_fold(st, load_at(e), 0u);
		}
		return;
	}
	// Head and tail hold up to 7 halves each, and a workgroup may be
	// narrower (4 lanes on lavapipe at subgroup size 4): lane t takes
	// every wg-th of them.
	for (uint i = t; i < 8u * v0 - e0; i += wg) {
		st = part_fold(st, load_at(e0 + i), 0u);
	}
	for (uint i = t; i < e1 - 8u * v1; i += wg) {
		st = part_fold(st, load_at(8u * v1 + i), 0u);
	}
	// The lane's words, vector v0+t+(i/4)·wg's word i%4, for i < nw.
	uint nw = v0 + t < v1 ? 4u * ((v1 - v0 - t - 1u) / wg + 1u) : 0u;
#define HALF_WORD(i) elem_src4.x[v0 + t + ((i) >> 2) * wg][(i) & 3u]
#if EXP_TABLE
	if (FFUNC == FF_LOG_SUM_EXP) {
		lse_scan(st, v0, v1, t, wg);
		return;
	}
#endif
	if (HALF_SQ) {
		// x·x: window 0, else window 1, else every half through
		// part_fold (the widening path), a word a trip. A square is
		// never -0.
		if (nw > 0u) {
			st.flags |= EXACT_NOT_ALL_NEG_ZERO;
		}
		if (!half_sq_lane(st, v0, v1, t, wg, 0u) && !half_sq_lane(st, v0, v1, t, wg, 1u)) {
			for (uint i = 0u; i < nw; i++) {
				uint w = HALF_WORD(i);
				st = part_fold(st, uvec2(w & 0xffffu, 0u), 0u);
				st = part_fold(st, uvec2(w >> 16, 0u), 0u);
			}
		}
		return;
	}
	int64_t sum = 0L;
	uint64_t odd = 0UL;
	for (uint v = v0 + t; v < v1; v += wg) {
		uvec4 q = elem_src4.x[v];
		odd |= half_odd(packUint2x32(q.xy)) | half_odd(packUint2x32(q.zw));
		sum += half_quad(q.xy, HALF_KEEP) + half_quad(q.zw, HALF_KEEP);
	}
	if ((odd & HALF_LANE_TOP) != 0UL) {
		// A denormal, an infinity or a NaN: the fast sum is dropped and
		// the lane's halves go through part_fold, a word a trip.
		for (uint i = 0u; i < nw; i++) {
			uint w = HALF_WORD(i);
			st = part_fold(st, uvec2(w & 0xffffu, 0u), 0u);
			st = part_fold(st, uvec2(w >> 16, 0u), 0u);
		}
		return;
	}
	if (FFUNC == FF_L1 && nw > 0u) {
		st.flags |= EXACT_NOT_ALL_NEG_ZERO; // |x| is never -0
	}
	if (sum != 0L) {
		st.flags |= EXACT_NOT_ALL_NEG_ZERO;
		exact_add_i64(st.acc, unpackUint2x32(uint64_t(sum)), 125u);
	} else if ((st.flags & EXACT_NOT_ALL_NEG_ZERO) == 0u) {
		for (uint i = 0u; i < nw; i++) {
			if (HALF_WORD(i) != 0x80008000u) {
				st.flags |= EXACT_NOT_ALL_NEG_ZERO;
				break;
			}
		}
	}
#undef HALF_WORD
}
