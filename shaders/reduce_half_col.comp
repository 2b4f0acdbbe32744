#version 450
// reduce_half_col.comp (vec-col of REDUCE's float functions): the first
// pass of FLOAT16 SUM, AVERAGE, LOG_SUM, L1, SUM_SQUARE and L2
// (docs/semantics.md rules 39 and 41) over columns: the innermost kept
// dimension has input stride 1 and a size that is a multiple of 8, and
// every other input stride is a multiple of 8 elements
// (ops/reduce_layout.go argVecLayout), so one invocation per (8 adjacent
// outputs, segment) reads one 16-byte vector a block position, LOADS of
// them before it converts any, and keeps each
// of its 8 columns' exact sum in a signed 64-bit integer of units 2^-24:
// reduce_half_fast.glsl's row scan (read its header for the conversion,
// reduce_half.glsl) turned sideways, each half's term h·2^24 added to its
// column's sum instead of the lane's. A segment has at most argIters
// positions and a finite term is below 2^40, so no sum overflows.
//
// A lane whose segment holds a denormal, an infinity or a NaN (half_odd,
// any of its vectors) drops the fast sums and scans the segment again,
// each half through half_exact: the same integer term, built by shifts
// (denormals too), and the flags of exact_add (reduce_exact.glsl) for
// infinities and NaN. Either way the state of a column is its exact sum
// and flags, which go into a Part (reduce_part_float.glsl: the sum into
// the limbs once, at limb bit 125) written as the partial or rounded to
// the output: the same state as every other plan's, so the same bits.
//
// Signed zeros (rule 43): a column sum that is not 0 had a term that is
// not -0; L1's |x| is never -0; a column of the fast path whose sum is 0
// rereads its halves (only while some such column has not seen one that
// is not -0), as reduce_half_fast.glsl does.
//
// LOG_SUM_EXP with EXP_TABLE: each half's term exp(h) from binding 2's
// table (ops.TableExpHalf) into its column's signed 64-bit sum of units
// 2^-35 where |h| < 8 (reduce_half.glsl's LOG_SUM_EXP section); a segment
// holding a half outside is scanned again a column at a time through
// part_fold, the lane window of reduce_part_float.glsl with the table's
// terms.
//
// SUM_SQUARE and L2 (HALF_SQ) take reduce_half.glsl's squares instead
// (read its section): a column's 128-bit sum of x·x in window 0, the
// squares of eight positions summed below 2^63 before each addition;
// where a half of the segment's 8 columns lies outside window 0 the
// segment is scanned again in window 1, and where one lies outside that
// too, again with half_sq_exact (integer squares, any half) into the same
// 128-bit sums. A square is never -0, so every column's flag is set.
//
// Needs shaderInt64; no 16-bit storage (the vectors are uvec4 words).

#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_control_flow_attributes : require

// ELEM_BITS is 16 (the variant's define, which the facts read).
#define NATIVE 0
#define ELEM_SRC 0
#define ELEM_SRC4 0
#define WORD_DST 1
#define WORD_DST_RW 1
#include "elem.glsl"
#include "common.glsl"
#include "reduce.glsl"
#include "reduce_part_float.glsl"
#include "reduce_half.glsl"

layout(push_constant) uniform Push {
	uint base_src;   // words (a multiple of 4: bindings start 16-byte aligned)
	uint base_dst;   // words
#if EXP_TABLE
	uint base_tab;   // words: binding 2's table, 0 (argmax.comp's exp_table_term)
#endif
	uint o_begin;    // first output of this step (a multiple of 8)
	uint o_count;    // outputs in this step (a multiple of 8)
	uint j_begin;    // first block position of this step's range
	uint j_count;    // block positions in the range
	uint seg_len;    // block positions per segment
	uint nloc;       // segments in the range: ceil(j_count / seg_len)
	uint seg_base;   // global number of the range's first segment
	uint nseg;       // segments per output in all (partials layout)
	uint in_win;     // element offset of the input window (a multiple of 8)
	uint dst_win;    // output element offset / partial entry of the window
} pc;

#ifndef LOADS
#define LOADS 1
#endif

#if EXP_TABLE
// Binding 2: LOG_SUM_EXP's FLOAT16 terms, as argmax.comp's.
layout(std430, binding = 2) readonly buffer ExpHalf { uint x[]; } exp_half;
uint exp_table_term(uint h) { return exp_half.x[h]; }
#endif

const uint64_t HALF_KEEP = FFUNC == FF_L1 ? HALF_KEEP_ABS : HALF_KEEP_X;
// HALF_SQ: SUM_SQUARE and L2, whose terms x·x take reduce_half.glsl's
// squares (read its section).
const bool HALF_SQ = FFUNC == FF_SUM_SQUARE || FFUNC == FF_L2;

// half_exact adds the FLOAT16 h's term (x, or |x| for L1) to the column
// sum s in units 2^-24, or its infinity or NaN to the flags f, as
// exact_add adds its widened FLOAT32 term.
void half_exact(inout int64_t s, inout uint f, uint h) {
	uint x = FFUNC == FF_L1 ? h & 0x7fffu : h;
	if (x != 0x8000u) {
		f |= EXACT_NOT_ALL_NEG_ZERO;
	}
	uint t = x & 0x7fffu, e = t >> 10;
	if (e == 31u) {
		f |= t != 0x7c00u ? EXACT_NAN : (x >> 15) != 0u ? EXACT_NEG_INF : EXACT_POS_INF;
		return;
	}
	// A denormal is m units; a normal (1024 + m)·2^(e-1).
	int64_t m = int64_t(e == 0u ? t : (t & 0x3ffu) | 0x400u) << (max(e, 1u) - 1u);
	s += (x >> 15) != 0u ? -m : m;
}

void write_col_part(uint o, uint seg, uint kout, Part st);

// write_col writes output o's state: the column sum (lo, hi) and flags f;
// HALF_SQ's 128-bit sum of squares of units 2^(p-149), the others' signed
// 64-bit sum lo of units 2^(p-149) (2^-24; LOG_SUM_EXP's 2^-35).
void write_col(uint o, uint seg, uint kout, uint64_t lo, uint64_t hi, uint p, uint f) {
	Part st = part_identity();
	if (HALF_SQ) {
		half_sq_settle(st.acc, lo, hi, p);
	} else {
		exact_add_i64(st.acc, unpackUint2x32(lo), p);
	}
	st.flags |= f;
	write_col_part(o, seg, kout, st);
}

// write_col_part writes output o's Part: its partial or its value.
void write_col_part(uint o, uint seg, uint kout, Part st) {
	if (OUT_MODE == 2u) {
		write_part(pc.base_dst + PART_WORDS * (o * pc.nseg + seg - pc.dst_win), st);
	} else {
		store_result(pc.base_dst, kout - pc.dst_win, st);
	}
}

// HALF_COL4 adds the terms of the four halves of the words w (columns
// a, b, c, d: w.x's low and high half, w.y's) to their sums.
#define HALF_COL4(w, sa, sb, sc, sd)                                 \
	{                                                                \
		uvec2 hi = half_keep(w.x, w.y, HALF_KEEP);                   \
		uvec2 l = unpackUint2x32(packUint2x32(w) << 16);             \
		uvec2 lo = half_keep(l.x, l.y, HALF_KEEP);                   \
		sa += half_term(lo.x);                                       \
		sb += half_term(hi.x);                                       \
		sc += half_term(lo.y);                                       \
		sd += half_term(hi.y);                                       \
	}
// HALF_COL8 adds the vector q's eight halves, and notes in odd those the
// conversion does not take.
// LOG_SUM_EXP's (EXP_TABLE): the terms of halves with |h| < 8 in units
// 2^-35 (reduce_half.glsl), those outside noted in odd.
#if EXP_TABLE
#define LSE_COL8(q)                                                          \
	if (FFUNC == FF_LOG_SUM_EXP) {                                           \
		odd |= lse_outside(q.xy) | lse_outside(q.zw);                        \
		s0 += int64_t(lse_unit(q.x & 0xffffu));                              \
		s1 += int64_t(lse_unit(q.x >> 16));                                  \
		s2 += int64_t(lse_unit(q.y & 0xffffu));                              \
		s3 += int64_t(lse_unit(q.y >> 16));                                  \
		s4 += int64_t(lse_unit(q.z & 0xffffu));                              \
		s5 += int64_t(lse_unit(q.z >> 16));                                  \
		s6 += int64_t(lse_unit(q.w & 0xffffu));                              \
		s7 += int64_t(lse_unit(q.w >> 16));                                  \
	} else
#else
#define LSE_COL8(q)
#endif
#define HALF_COL8(q)                                                           \
	LSE_COL8(q) {                                                             \
		odd |= half_odd(packUint2x32(q.xy)) | half_odd(packUint2x32(q.zw));   \
		HALF_COL4(q.xy, s0, s1, s2, s3)                                       \
		HALF_COL4(q.zw, s4, s5, s6, s7)                                       \
	}

void main() {
	uint groups = pc.o_count / 8u;
	uint items = groups * pc.nloc;
	uint step = grid_size();
	for (uint it = grid_index(); it < items; it += step) {
		// Output groups vary fastest: neighbouring invocations read
		// neighbouring vectors of the same rows.
		uint ql = it % groups, sl = it / groups;
		uint o = pc.o_begin + ql * 8u;
		uint kin, kout;
		kept_offsets(o, kin, kout);
		uint jb = sl * pc.seg_len;
		uint n = min(pc.seg_len, pc.j_count - jb);
		uint j0 = pc.j_begin + jb;
		uint seg = pc.seg_base + sl;
		// The element number of output o's block position 0 in the
		// binding's own array: a multiple of 8 (the layout, the window).
		uint ebase = pc.base_src * 2u - pc.in_win + kin;
		uint c[8];
		uint roff = red_coords(j0, c);
		uint v = (ebase + roff) >> 3;
		// NEXT moves v to the next block position's vector: one reduced
		// dimension (NR) steps by its stride, more step the odometer.
#define NEXT()                     \
	if (NR == 1u) {                \
		v += DI7 >> 3;             \
	} else {                       \
		red_next(c, roff);         \
		v = (ebase + roff) >> 3;   \
	}
		// ROWS scans the segment again, vector q a position.
#define ROWS(body)                                    \
	roff = red_coords(j0, c);                         \
	v = (ebase + roff) >> 3;                          \
	for (uint r = 0u; r < n; r++) {                   \
		if (r > 0u) {                                 \
			NEXT()                                    \
		}                                             \
		uvec4 q = elem_src4.x[v];                     \
		body                                          \
	}
		uint64_t los[8], his[8];
		uint flags[8];
		uint pbit = 101u;
		if (HALF_SQ) {
			// x·x: window 0, else window 1 (reduce_half.glsl), eight
			// positions' squares a column summed below 2^63 and added
			// to its 128-bit sum; else every half through
			// half_sq_exact. A square is never -0.
			uint64_t l0, l1, l2, l3, l4, l5, l6, l7, h0, h1, h2, h3, h4, h5, h6, h7;
			bool done = false;
			[[dont_unroll]] for (uint w = 0u; w < 2u && !done; w++) {
				uint64_t lo_add = w == 0u ? HALF_SQ_LO_ADD[0] : HALF_SQ_LO_ADD[1];
				uint64_t hi_add = w == 0u ? HALF_SQ_HI_ADD[0] : HALF_SQ_HI_ADD[1];
				float scale = w == 0u ? HALF_SQ_SCALE[0] : HALF_SQ_SCALE[1];
				l0 = l1 = l2 = l3 = l4 = l5 = l6 = l7 = 0UL;
				h0 = h1 = h2 = h3 = h4 = h5 = h6 = h7 = 0UL;
				uint64_t outside = 0UL;
				uint64_t b0, b1, b2, b3, b4, b5, b6, b7;
				// SQ_Q adds the squares of the vector q's halves to the
				// columns' batch sums b0..b7 and notes those outside.
#define SQ_W(word, ba, bb)                           \
	{                                                \
		vec2 z = half_sq2(word, scale);              \
		ba += uint64_t(z.x);                         \
		bb += uint64_t(z.y);                         \
	}
#define SQ_Q(q)                                                                                             \
	outside |= half_outside(packUint2x32(q.xy), lo_add, hi_add) | half_outside(packUint2x32(q.zw), lo_add, hi_add); \
	SQ_W(q.x, b0, b1) SQ_W(q.y, b2, b3) SQ_W(q.z, b4, b5) SQ_W(q.w, b6, b7)
#define SQ_BATCH(body)                                                              \
	b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = 0UL;                                    \
	body half_sq_add(l0, h0, b0); half_sq_add(l1, h1, b1); half_sq_add(l2, h2, b2); \
	half_sq_add(l3, h3, b3); half_sq_add(l4, h4, b4); half_sq_add(l5, h5, b5);      \
	half_sq_add(l6, h6, b6); half_sq_add(l7, h7, b7);
				roff = red_coords(j0, c);
				v = (ebase + roff) >> 3;
				{
					uvec4 q = elem_src4.x[v];
					SQ_BATCH(SQ_Q(q))
				}
				uint k = 1u;
#define LOADQ(u) NEXT() uvec4 q##u = elem_src4.x[v];
				// 16 positions' vectors in flight (LOADS), two batches.
				for (; n - k >= 16u; k += 16u) {
					LOADQ(0) LOADQ(1) LOADQ(2) LOADQ(3) LOADQ(4) LOADQ(5) LOADQ(6) LOADQ(7)
					LOADQ(8) LOADQ(9) LOADQ(10) LOADQ(11) LOADQ(12) LOADQ(13) LOADQ(14) LOADQ(15)
					SQ_BATCH(SQ_Q(q0) SQ_Q(q1) SQ_Q(q2) SQ_Q(q3) SQ_Q(q4) SQ_Q(q5) SQ_Q(q6) SQ_Q(q7))
					SQ_BATCH(SQ_Q(q8) SQ_Q(q9) SQ_Q(q10) SQ_Q(q11) SQ_Q(q12) SQ_Q(q13) SQ_Q(q14) SQ_Q(q15))
				}
#undef LOADQ
				for (; k < n; k++) {
					NEXT()
					uvec4 q = elem_src4.x[v];
					SQ_BATCH(SQ_Q(q))
				}
#undef SQ_BATCH
#undef SQ_Q
#undef SQ_W
				done = (outside & HALF_LANE_TOP) == 0UL;
				pbit = w == 0u ? HALF_SQ_UNIT_BIT[0] : HALF_SQ_UNIT_BIT[1];
			}
			uint f0 = 0u, f1 = 0u, f2 = 0u, f3 = 0u, f4 = 0u, f5 = 0u, f6 = 0u, f7 = 0u;
			if (!done) {
				l0 = l1 = l2 = l3 = l4 = l5 = l6 = l7 = 0UL;
				h0 = h1 = h2 = h3 = h4 = h5 = h6 = h7 = 0UL;
				pbit = 101u;
				ROWS(half_sq_exact(l0, h0, f0, q.x & 0xffffu); half_sq_exact(l1, h1, f1, q.x >> 16);
				     half_sq_exact(l2, h2, f2, q.y & 0xffffu); half_sq_exact(l3, h3, f3, q.y >> 16);
				     half_sq_exact(l4, h4, f4, q.z & 0xffffu); half_sq_exact(l5, h5, f5, q.z >> 16);
				     half_sq_exact(l6, h6, f6, q.w & 0xffffu); half_sq_exact(l7, h7, f7, q.w >> 16);)
			}
			const uint Z = EXACT_NOT_ALL_NEG_ZERO;
			los = uint64_t[8](l0, l1, l2, l3, l4, l5, l6, l7);
			his = uint64_t[8](h0, h1, h2, h3, h4, h5, h6, h7);
			flags = uint[8](f0 | Z, f1 | Z, f2 | Z, f3 | Z, f4 | Z, f5 | Z, f6 | Z, f7 | Z);
		} else {
		int64_t s0 = 0L, s1 = 0L, s2 = 0L, s3 = 0L, s4 = 0L, s5 = 0L, s6 = 0L, s7 = 0L;
		uint64_t odd = 0UL;
		{
			uvec4 q = elem_src4.x[v];
			HALF_COL8(q)
		}
		uint k = 1u;
#if LOADS == 16
#define LOADQ(u) NEXT() uvec4 q##u = elem_src4.x[v];
		for (; n - k >= 16u; k += 16u) {
			LOADQ(0) LOADQ(1) LOADQ(2) LOADQ(3) LOADQ(4) LOADQ(5) LOADQ(6) LOADQ(7)
			LOADQ(8) LOADQ(9) LOADQ(10) LOADQ(11) LOADQ(12) LOADQ(13) LOADQ(14) LOADQ(15)
			HALF_COL8(q0) HALF_COL8(q1) HALF_COL8(q2) HALF_COL8(q3)
			HALF_COL8(q4) HALF_COL8(q5) HALF_COL8(q6) HALF_COL8(q7)
			HALF_COL8(q8) HALF_COL8(q9) HALF_COL8(q10) HALF_COL8(q11)
			HALF_COL8(q12) HALF_COL8(q13) HALF_COL8(q14) HALF_COL8(q15)
		}
#undef LOADQ
#endif
		for (; k < n; k++) {
			NEXT()
			uvec4 q = elem_src4.x[v];
			HALF_COL8(q)
		}
		uint f0 = 0u, f1 = 0u, f2 = 0u, f3 = 0u, f4 = 0u, f5 = 0u, f6 = 0u, f7 = 0u;
		pbit = 125u;
#if EXP_TABLE
		if (FFUNC == FF_LOG_SUM_EXP) {
			if ((odd & HALF_LANE_TOP) != 0UL) {
				// A half with |h| >= 8: each column of the segment
				// again through the lane window (part_fold, the
				// table's terms), one column after the other in one
				// loop (not a loop of columns around one of rows: the
				// hot loop stays the deepest that loads the source,
				// for internal/opcount).
				Part st = part_identity();
				roff = red_coords(j0, c);
				v = (ebase + roff) >> 3;
				for (uint r = 0u, i = 0u; i < 8u;) {
					st = part_fold(st, uvec2(half_of(elem_src4.x[v], i), 0u), 0u);
					if (++r < n) {
						NEXT()
						continue;
					}
					write_col_part(o + i, seg, kout + i * DO0, st);
					st = part_identity();
					r = 0u;
					i++;
					roff = red_coords(j0, c);
					v = (ebase + roff) >> 3;
				}
				continue;
			}
			// Every term is +0 or more.
			f0 = f1 = f2 = f3 = f4 = f5 = f6 = f7 = EXACT_NOT_ALL_NEG_ZERO;
			pbit = LSE_UNIT_BIT;
		} else
#endif
		if ((odd & HALF_LANE_TOP) != 0UL) {
			// A denormal, an infinity or a NaN: every half through
			// half_exact.
			s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0L;
			ROWS(half_exact(s0, f0, q.x & 0xffffu); half_exact(s1, f1, q.x >> 16);
			     half_exact(s2, f2, q.y & 0xffffu); half_exact(s3, f3, q.y >> 16);
			     half_exact(s4, f4, q.z & 0xffffu); half_exact(s5, f5, q.z >> 16);
			     half_exact(s6, f6, q.w & 0xffffu); half_exact(s7, f7, q.w >> 16);)
		} else {
			// A sum that is not 0 had a term that is not -0; L1's terms
			// never are.
			const uint Z = EXACT_NOT_ALL_NEG_ZERO;
			bool l1 = FFUNC == FF_L1;
			f0 = l1 || s0 != 0L ? Z : 0u;
			f1 = l1 || s1 != 0L ? Z : 0u;
			f2 = l1 || s2 != 0L ? Z : 0u;
			f3 = l1 || s3 != 0L ? Z : 0u;
			f4 = l1 || s4 != 0L ? Z : 0u;
			f5 = l1 || s5 != 0L ? Z : 0u;
			f6 = l1 || s6 != 0L ? Z : 0u;
			f7 = l1 || s7 != 0L ? Z : 0u;
			if ((f0 & f1 & f2 & f3 & f4 & f5 & f6 & f7) == 0u) {
				// Zero sums: a half that is not -0 (0x8000) sets the
				// flag of its column.
#define NZ(f, h) f |= (h) != 0x8000u ? Z : 0u;
				ROWS(NZ(f0, q.x & 0xffffu) NZ(f1, q.x >> 16) NZ(f2, q.y & 0xffffu) NZ(f3, q.y >> 16)
				     NZ(f4, q.z & 0xffffu) NZ(f5, q.z >> 16) NZ(f6, q.w & 0xffffu) NZ(f7, q.w >> 16)
				     if ((f0 & f1 & f2 & f3 & f4 & f5 & f6 & f7) != 0u) { break; })
#undef NZ
			}
		}
#undef ROWS
#undef NEXT
		// One loop, not eight copies of the rounding and the function's
		// last step (log, the division): the pipeline compiles in a
		// fraction of the time.
		los = uint64_t[8](s0, s1, s2, s3, s4, s5, s6, s7);
		his = uint64_t[8](0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL);
		flags = uint[8](f0, f1, f2, f3, f4, f5, f6, f7);
		}
		[[dont_unroll]] for (uint i = 0u; i < 8u; i++) {
			write_col(o + i, seg, kout + i * DO0, los[i], his[i], pbit, flags[i]);
		}
	}
}
