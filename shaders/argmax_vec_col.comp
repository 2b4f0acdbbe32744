#version 450
// argmax_vec_col.comp (vec-col): ARGMAX / ARGMIN and REDUCE first pass
// (argmax_vec_common.glsl's lane state) when the
// innermost kept dimension has input stride 1, a size that is a multiple
// of PER, and every other input stride (kept and reduced) is a multiple of
// PER elements, with argmax_vec_common.glsl's 16-byte loads. One invocation
// per (PER adjacent outputs, segment) walks the block in order reading one
// 16-byte vector per position (two for WIDE): PER sequential scans side by
// side. PER is EPV (16 for 8-bit, 8 for 16-bit, 2 for 64-bit elements), and
// for 32-bit elements 4, or 8 with WIDE. Results are written with scalar
// stores, one per addressed output element (rule 6).
//
// Defines:
//   WIDE  32-bit elements only: 1 gives each invocation 8 adjacent outputs
//         (two 16-byte loads per position; the innermost kept size is then
//         a multiple of 8), 0 gives it 4.
//   W64   with WIDE: when the host sets FLAGS bit 16 (every input stride a
//         multiple of 8 elements) and the binding's base offset makes the
//         first element 32-byte aligned (a uniform test at run time), one
//         32-byte (u64vec4) load per block position instead of two 16-byte
//         ones; needs shaderInt64.
//   LOADS 8-, 16- and 64-bit elements: 4 loads four rows before scanning
//         them (SCAN_ROWS), so that a lane has 64 bytes in flight; 1 (or
//         undefined) one row at a time.

#if W64
#extension GL_ARB_gpu_shader_int64 : require
#endif

#ifndef ELEM_BITS
#define ELEM_BITS 32
#endif
// Two views of binding 0 (descriptor aliasing of read-only storage
// buffers): words for the unaligned head and tail, and 16-byte vectors.
#define ELEM_SRC 0
#define ELEM_SRC4 0
#define WORD_DST 1
#define WORD_DST_RW 1
#include "elem.glsl"
#include "common.glsl"
#include "reduce.glsl"
#include "reduce_part.glsl"
#include "argmax_vec_common.glsl"

#if W64
// A third view for 32-byte loads.
layout(std430, binding = 0) readonly buffer Src8 { u64vec4 x[]; } src8;
#endif
const uint VW = 128u / ELEM_BITS; // EPV
#ifndef LOADS
#define LOADS 1
#endif

#if ELEM_BITS != 32
const uint PER = VW; // outputs per invocation: one load per block position
#elif WIDE
const uint PER = 8u;
#else
const uint PER = 4u;
#endif

void main() {
	uint groups = pc.o_count / PER;
	uint items = groups * pc.nloc;
	uint step = grid_size();
	for (uint it = grid_index(); it < items; it += step) {
		// Output groups vary fastest: workgroups that run at the same time
		// (and one after another) read neighbouring pieces of the same rows
		// of a segment, rather than each walking its own column through
		// the whole block.
		uint ql = it % groups, sl = it / groups;
		uint o = pc.o_begin + ql * PER;
		uint kin, kout;
		kept_offsets(o, kin, kout);
		uint jb = sl * pc.seg_len;
		uint n = min(pc.seg_len, pc.j_count - jb);
		uint j = pc.j_begin + jb;
		uint c[8];
		uint roff = red_coords(j, c);
		uint seg = pc.seg_base + sl;
		uint ein = elem_base(pc.base_src) - pc.in_win + kin; // output o's block position 0
		// The rest of the block, in order (sequential scans: a later
		// element wins when greater, or equal under DECREASING).
#define NEXT()                               \
	if (NR == 1u) {                              \
		roff += DI7;                             \
	} else {                                     \
		red_next(c, roff);                       \
	}                                            \
	j++;
#define SCAN(S, B, I) later4(B, I, (S), uvec4(j));
// SCAN_ROWS scans rows 1..n-1 of the segment with the width's LOAD_AT (the
// load of block offset R) and SCAN_ALL (the scans of one load's
// elements). With LOADS 4 it issues four rows' loads before their scans,
// which then run in increasing j: the same sequential scans, with four
// independent loads in flight per lane; the last n-1 mod 4 rows go one by
// one.
#if LOADS == 4
#define SCAN_ROWS()                                                \
	uint k = 1u;                                                   \
	for (; n - k >= 4u; k += 4u) {                                 \
		NEXT() uint r0 = roff;                                     \
		NEXT() uint r1 = roff;                                     \
		NEXT() uint r2 = roff;                                     \
		NEXT() uint r3 = roff;                                     \
		uvec4 q0 = LOAD_AT(r0), q1 = LOAD_AT(r1), q2 = LOAD_AT(r2); \
		uvec4 q3 = LOAD_AT(r3);                                    \
		j -= 3u;                                                   \
		SCAN_ALL(q0) j++;                                          \
		SCAN_ALL(q1) j++;                                          \
		SCAN_ALL(q2) j++;                                          \
		SCAN_ALL(q3)                                               \
	}                                                              \
	for (; k < n; k++) {                                           \
		NEXT()                                                     \
		q = LOAD_AT(roff);                                         \
		SCAN_ALL(q)                                                \
	}
#else
#define SCAN_ROWS()                                                \
	for (uint k = 1u; k < n; k++) {                                \
		NEXT()                                                     \
		q = LOAD_AT(roff);                                         \
		SCAN_ALL(q)                                                \
	}
#endif
#if ELEM_BITS == 32
		uint wbase = pc.base_src - pc.in_win + kin; // + roff: a multiple of 4
		uvec4 best = start4(elem_src4.x[(wbase + roff) >> 2], uvec4(j));
		uvec4 bi = uvec4(j);
#if WIDE
		uvec4 best2 = start4(elem_src4.x[((wbase + roff) >> 2) + 1u], uvec4(j));
		uvec4 bi2 = uvec4(j);
#endif
#if W64
		if ((FLAGS & 0x10000u) != 0u && ((pc.base_src - pc.in_win) & 7u) == 0u) {
			for (uint k = 1u; k < n; k++) {
				NEXT()
				u64vec4 q = src8.x[(wbase + roff) >> 3];
				SCAN(uvec4(unpackUint2x32(q.x), unpackUint2x32(q.y)), best, bi)
				SCAN(uvec4(unpackUint2x32(q.z), unpackUint2x32(q.w)), best2, bi2)
			}
		} else
#endif
		for (uint k = 1u; k < n; k++) {
			NEXT()
			uint v = (wbase + roff) >> 2;
			SCAN(elem_src4.x[v], best, bi)
#if WIDE
			SCAN(elem_src4.x[v + 1u], best2, bi2)
#endif
		}
#define WRITE4(B, I, c)                                                         \
	write_result(o + (c), seg, kout + (c) * DO0, ein + (c), B.x, I.x);                  \
	write_result(o + (c) + 1u, seg, kout + ((c) + 1u) * DO0, ein + (c) + 1u, B.y, I.y); \
	write_result(o + (c) + 2u, seg, kout + ((c) + 2u) * DO0, ein + (c) + 2u, B.z, I.z); \
	write_result(o + (c) + 3u, seg, kout + ((c) + 3u) * DO0, ein + (c) + 3u, B.w, I.w);
		WRITE4(best, bi, 0u)
#if WIDE
		WRITE4(best2, bi2, 4u)
#endif
#elif ELEM_BITS == 64
		// Two outputs: the two elements of each load.
		uint ebase = elem_base(pc.base_src) - pc.in_win + kin; // + roff: even
		uvec4 q = elem_src4.x[(ebase + roff) >> 1];
		// reduce_part.glsl's Parts: part_fold is the sequential step.
		Part p0 = part_elem(q.xy, j), p1 = part_elem(q.zw, j);
#define LOAD_AT(R) elem_src4.x[(ebase + (R)) >> 1]
#define SCAN_ALL(Q)                    \
	{                                  \
		p0 = part_fold(p0, (Q).xy, j); \
		p1 = part_fold(p1, (Q).zw, j); \
	}
		SCAN_ROWS()
		// (part_elem's position is already j + 1 for MAX / MIN.)
		uint d = FUNC == FUNC_EXTREME ? 1u : 0u;
		write_result(o, seg, kout, ein, p0.s, p0.i - d);
		write_result(o + 1u, seg, kout + DO0, ein + 1u, p1.s, p1.i - d);
#else
		// VW outputs: sub-element b of word w of each load is output
		// o + w * (32 / ELEM_BITS) + b, scanned in component w of best_b.
		const uint EPW = 32u / ELEM_BITS;
		uint ebase = elem_base(pc.base_src) - pc.in_win + kin; // + roff: a multiple of VW
		uvec4 q = elem_src4.x[(ebase + roff) / VW];
		uvec4 best0 = start4(ELEM_SUB(q, 0), uvec4(j)), bi0 = uvec4(j);
		uvec4 best1 = start4(ELEM_SUB(q, 1), uvec4(j)), bi1 = uvec4(j);
#if ELEM_BITS == 8
		uvec4 best2 = start4(ELEM_SUB(q, 2), uvec4(j)), bi2 = uvec4(j);
		uvec4 best3 = start4(ELEM_SUB(q, 3), uvec4(j)), bi3 = uvec4(j);
#endif
#define LOAD_AT(R) elem_src4.x[(ebase + (R)) / VW]
#if ELEM_BITS == 8
#define SCAN_ALL(Q)                     \
	SCAN(ELEM_SUB(Q, 0), best0, bi0)    \
	SCAN(ELEM_SUB(Q, 1), best1, bi1)    \
	SCAN(ELEM_SUB(Q, 2), best2, bi2)    \
	SCAN(ELEM_SUB(Q, 3), best3, bi3)
#else
#define SCAN_ALL(Q)                     \
	SCAN(ELEM_SUB(Q, 0), best0, bi0)    \
	SCAN(ELEM_SUB(Q, 1), best1, bi1)
#endif
		SCAN_ROWS()
#define WRITE4(B, I, b)                                                                                     \
	write_result(o + (b), seg, kout + (b) * DO0, ein + (b), B.x, I.x);                                      \
	write_result(o + EPW + (b), seg, kout + (EPW + (b)) * DO0, ein + EPW + (b), B.y, I.y);                  \
	write_result(o + 2u * EPW + (b), seg, kout + (2u * EPW + (b)) * DO0, ein + 2u * EPW + (b), B.z, I.z);   \
	write_result(o + 3u * EPW + (b), seg, kout + (3u * EPW + (b)) * DO0, ein + 3u * EPW + (b), B.w, I.w);
		WRITE4(best0, bi0, 0u)
		WRITE4(best1, bi1, 1u)
#if ELEM_BITS == 8
		WRITE4(best2, bi2, 2u)
		WRITE4(best3, bi3, 3u)
#endif
#endif
	}
}
