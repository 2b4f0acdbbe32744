#version 450
// argmax_vec.comp: ARGMAX / ARGMIN first pass with 16-byte (uvec4) loads,
// for 8-, 16-, 32- and 64-bit elements (ELEM_BITS, 32 when undefined): a
// load holds EPV = 128 / ELEM_BITS elements. Elements are read as 32-bit
// words and split by shifts, 64-bit ones as two words, so no width needs
// 8/16-bit storage or shaderInt64. Same push constants, specialization constants,
// scores and order as argmax.comp (read its header for why any grouping of
// the (score, index) maximum equals semantics.md rule 5's sequential scan);
// the host (ops/argmax_plan.go) picks this kernel only for layouts it fits.
//
// Loads are what costs on a CPU device: lavapipe turns every storage-buffer
// access into a per-lane scalar loop with a bounds check, so 16 bytes per
// lane and access cost about as much as 4. On GPUs, 16-byte loads are the
// usual vectorisation.
//
// Defines:
//   COL 0 (vec-row): the block is one contiguous run (one reduced dimension
//         of input stride 1). One workgroup per (output, segment); lane t
//         reads the 16-byte vectors t, t+WG, ... of the segment's aligned
//         middle, keeping one best per vector component, and the head and
//         tail (< 4 elements each) with scalar loads; then the lanes combine
//         through subgroup arithmetic (SUBGROUP 1) or shared memory.
//       1 (vec-col): the innermost kept dimension has input stride 1, a size
//         that is a multiple of 4, and every other input stride (kept and
//         reduced) is a multiple of 4 elements. One invocation per (4
//         adjacent outputs, segment) walks the block in order reading one
//         16-byte vector per position: 4 sequential scans side by side.
//         Results are written with scalar stores, one per addressed output
//         element (rule 6).
//   SUBGROUP with COL 0: 1 uses subgroup arithmetic.
//   ONESG    with SUBGROUP: the host guarantees the workgroup is one whole
//            subgroup; the combine needs no shared memory or barrier.
//   WIDE     with COL 0: 1 reads 32-byte vectors (u64vec4, needs
//            shaderInt64; on lavapipe about 1.3x the bytes per lane-iteration
//            of uvec4), 8 elements per load; 0 reads uvec4.
//            With COL 1: 1 gives each invocation 8 adjacent outputs (two
//            16-byte loads per position; the innermost kept size is then a
//            multiple of 8), 0 gives it 4.
//   W64      with COL 1 and WIDE 1: when the host sets FLAGS bit 16 (every
//            input stride a multiple of 8 elements) and the binding's base
//            offset makes the first element 32-byte aligned (a uniform test
//            at run time), one 32-byte (u64vec4) load per block position
//            instead of two 16-byte ones; needs shaderInt64.
// WIDE and W64 are for 32-bit elements only. For other widths "4" above
// reads EPV: vec-col gives each invocation EPV adjacent outputs (the
// innermost kept size and every other input stride a multiple of EPV), and
// vec-row's head and tail are under EPV elements each.
// 64-bit outputs are written as two words; only WIDE row variants and W64
// need shaderInt64.

#if !COL && WIDE || COL && W64
#extension GL_ARB_gpu_shader_int64 : require
#endif
#if !COL && SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#ifndef ELEM_BITS
#define ELEM_BITS 32
#endif
// Two views of binding 0 (descriptor aliasing of read-only storage
// buffers): words for the unaligned head and tail, and 16-byte vectors.
#define ELEM_SRC 0
#define ELEM_SRC4 0
#define WORD_DST 1
#include "elem.glsl"
#include "common.glsl"
#include "argmax_common.glsl"

layout(push_constant) uniform Push {
	uint base_src;   // words (a multiple of 4: bindings start 16-byte aligned)
	uint base_dst;   // words
	uint o_begin;    // first output of this step (COL: a multiple of PER)
	uint o_count;    // outputs in this step (COL: a multiple of PER)
	uint j_begin;    // first block position of this step's range
	uint j_count;    // block positions in the range
	uint seg_len;    // block positions per segment
	uint nloc;       // segments in the range: ceil(j_count / seg_len)
	uint seg_base;   // global number of the range's first segment
	uint nseg;       // segments per output in all (partials layout)
	uint in_win;     // element offset of the input window (a multiple of 16 bytes)
	uint dst_win;    // output element offset / partial entry of the window
} pc;

// A third view for 32-byte loads.
#if COL && W64
layout(std430, binding = 0) readonly buffer Src8 { u64vec4 x[]; } src8;
#endif
#if !COL && WIDE
layout(std430, binding = 0) readonly buffer Src8 { u64vec4 x[]; } src8;
const uint VW = 8u; // elements per vector load
#else
const uint VW = 128u / ELEM_BITS; // EPV
#endif

// elem_base is the element number of binding word base (a multiple of 4:
// bindings start 16-byte aligned), the origin of elem_load(0u, e).
#if ELEM_BITS == 64
uint elem_base(uint base) { return base >> 1; }
#else
uint elem_base(uint base) { return base * (32u / ELEM_BITS); }
#endif

// SCORE: one element's score, argmax_common.glsl's uvec2 narrowed to its
// low word below 64 bits (the high word is 0 there).
#if ELEM_BITS == 64
#define SCORE uvec2
#define SCORE_ID uvec2(0u)
#define SCORE2(s) (s)
#else
#define SCORE uint
#define SCORE_ID 0u
#define SCORE2(s) uvec2(s, 0u)
#endif

void write_result(uint o, uint seg, uint kept_out, SCORE s, uint idx) {
	if (OUT_MODE == 2u) {
		write_partial(pc.base_dst + 4u * (o * pc.nseg + seg - pc.dst_win), SCORE2(s), idx);
	} else {
		store_index(pc.base_dst, kept_out - pc.dst_win, idx, OUT_MODE == 1u);
	}
}

#if ELEM_BITS < 64
// score4_later is argmax_common.glsl's score for four elements (raw bits,
// one a component) at block positions j > 0, where a NaN scores 0.
uvec4 score4_later(uvec4 v) {
	uvec4 k = elem_key(v, KIND);
	if (IS_MIN != 0u) {
		k = ~k;
	}
	return mix(k, uvec4(0u), elem_is_nan(v, KIND));
}

// score4 is score for four elements at any block positions j: a NaN
// scores above everything at j = 0.
uvec4 score4(uvec4 v, uvec4 j) {
	uvec4 nan = mix(uvec4(0u), uvec4(0xFFFFFFFFu), equal(j, uvec4(0u)));
	return mix(score4_later(v), nan, elem_is_nan(v, KIND));
}
#endif

#if ELEM_BITS < 32
// SUB(q, b): element b (lowest bits first) of every word of q.
#define SUB(q, b) (((q) >> (uint(b) * ELEM_BITS)) & ELEM_MASK)
#endif

#if !COL

// better1 is better() for SCORE.
bool better1(SCORE s, uint si, SCORE b, uint bi) {
#if ELEM_BITS == 64
	return better(s, si, b, bi);
#else
	return s > b || (s == b && (LAST != 0u ? si > bi : si < bi));
#endif
}

#if !ONESG
#define WG_MAX 256
shared SCORE sh_s[WG_MAX];
shared uint sh_idx[WG_MAX];
#endif

#if SUBGROUP
void sg_reduce(inout SCORE s, inout uint idx) {
#if ELEM_BITS == 64
	// The maximum high word, then the maximum low word among the lanes
	// that hold it: no 64-bit subgroup arithmetic needed.
	uint mh = subgroupMax(s.y);
	uint ml = subgroupMax(s.y == mh ? s.x : 0u);
	bool top = s.y == mh && s.x == ml;
	SCORE m = uvec2(ml, mh);
#else
	uint m = subgroupMax(s);
	bool top = s == m;
#endif
	if (LAST != 0u) {
		idx = subgroupMax(top ? idx : 0u);
	} else {
		idx = subgroupMin(top ? idx : 0xFFFFFFFFu);
	}
	s = m;
}
#endif

void main() {
	uint items = pc.o_count * pc.nloc;
	uint ngroups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	// The identity: below every element in the total order.
	const uint ID_IDX = LAST != 0u ? 0u : 0xFFFFFFFFu;
	for (uint it = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; it < items; it += ngroups) {
		uint ol = it / pc.nloc, sl = it % pc.nloc;
		uint o = pc.o_begin + ol;
		uint kin, kout;
		kept_offsets(o, kin, kout);
		uint jb = sl * pc.seg_len;
		uint n = min(pc.seg_len, pc.j_count - jb);
		uint j0 = pc.j_begin + jb;
		// Element number (elem_base) of the segment's first element; block
		// position of element a is a + jdelta (mod 2^32).
		uint a0 = elem_base(pc.base_src) + (kin + j0 * DI7 - pc.in_win);
		uint jdelta = j0 - a0;
		uint h = min((VW - (a0 & (VW - 1u))) & (VW - 1u), n);
		uint vb = (a0 + h) / VW;
		uint nv = (n - h) / VW;
		uint tail0 = (vb + nv) * VW;
		uint ntail = n - h - nv * VW;

#if ELEM_BITS == 64
		// Two elements a vector, one best (better1 is the total order, so
		// the order of visits does not matter).
		SCORE best = SCORE_ID;
		uint bi = ID_IDX;
		for (uint v = vb + t; v < vb + nv; v += WG) {
			uvec4 q = elem_src4.x[v];
			uint j = v * 2u + jdelta;
			uvec2 s0 = score(q.xy, j), s1 = score(q.zw, j + 1u);
			if (better1(s0, j, best, bi)) {
				best = s0;
				bi = j;
			}
			if (better1(s1, j + 1u, best, bi)) {
				best = s1;
				bi = j + 1u;
			}
		}
#else
		// One best per vector component (word c of every load); better1
		// is the total order, so the order of visits does not matter.
		uvec4 b4 = uvec4(0u), i4 = uvec4(ID_IDX);
		uvec4 lane_j = uvec4(0u, 1u, 2u, 3u) * (32u / ELEM_BITS) + jdelta;
#define UPDATE(RAW, J)                                                                       \
	{                                                                                            \
		uvec4 j_ = (J);                                                                          \
		uvec4 s_ = score4((RAW), j_);                                                            \
		bvec4 tie_ = LAST != 0u ? greaterThan(j_, i4) : lessThan(j_, i4);                        \
		bvec4 upd_ = bvec4(uvec4(greaterThan(s_, b4)) | (uvec4(equal(s_, b4)) & uvec4(tie_)));   \
		b4 = mix(b4, s_, upd_);                                                                  \
		i4 = mix(i4, j_, upd_);                                                                  \
	}
		for (uint v = vb + t; v < vb + nv; v += WG) {
#if WIDE
			u64vec4 q = src8.x[v];
			UPDATE(uvec4(unpackUint2x32(q.x), unpackUint2x32(q.y)), lane_j + v * 8u)
			UPDATE(uvec4(unpackUint2x32(q.z), unpackUint2x32(q.w)), lane_j + (v * 8u + 4u))
#elif ELEM_BITS == 32
			UPDATE(elem_src4.x[v], lane_j + (v << 2))
#else
			// Written out: lavapipe counts every loop iteration against
			// one per-shader limit (see ops/argmax_plan.go argIters).
			uvec4 q = elem_src4.x[v];
			uvec4 jv = lane_j + v * VW;
			UPDATE(SUB(q, 0), jv)
			UPDATE(SUB(q, 1), jv + 1u)
#if ELEM_BITS == 8
			UPDATE(SUB(q, 2), jv + 2u)
			UPDATE(SUB(q, 3), jv + 3u)
#endif
#endif
		}
		uint best = b4.x, bi = i4.x;
		if (better1(b4.y, i4.y, best, bi)) { best = b4.y; bi = i4.y; }
		if (better1(b4.z, i4.z, best, bi)) { best = b4.z; bi = i4.z; }
		if (better1(b4.w, i4.w, best, bi)) { best = b4.w; bi = i4.w; }
#endif
		// The unaligned head and the tail, fewer than VW elements each.
		for (uint k = t; k < h + ntail; k += WG) {
			uint a = k < h ? a0 + k : tail0 + (k - h);
			uint j = a + jdelta;
#if ELEM_BITS == 64
			SCORE s = score(elem_load(0u, a), j);
#else
			SCORE s = score(elem_load(0u, a), j).x;
#endif
			if (better1(s, j, best, bi)) {
				best = s;
				bi = j;
			}
		}
#if SUBGROUP && ONESG
		// The workgroup is exactly one subgroup: no shared memory, no
		// barrier (lavapipe runs barrier-free shaders without switching
		// between its per-subgroup coroutines).
		sg_reduce(best, bi);
		if (subgroupElect()) {
			write_result(o, pc.seg_base + sl, kout, best, bi);
		}
#elif SUBGROUP
		sg_reduce(best, bi);
		if (subgroupElect()) {
			sh_s[gl_SubgroupID] = best;
			sh_idx[gl_SubgroupID] = bi;
		}
		barrier();
		if (gl_SubgroupID == 0u) {
			best = SCORE_ID;
			bi = ID_IDX;
			for (uint k = gl_SubgroupInvocationID; k < gl_NumSubgroups; k += gl_SubgroupSize) {
				if (better1(sh_s[k], sh_idx[k], best, bi)) {
					best = sh_s[k];
					bi = sh_idx[k];
				}
			}
			sg_reduce(best, bi);
			if (subgroupElect()) {
				write_result(o, pc.seg_base + sl, kout, best, bi);
			}
		}
		barrier();
#else
		sh_s[t] = best;
		sh_idx[t] = bi;
		barrier();
		for (uint hh = WG / 2u; hh > 0u; hh >>= 1) {
			if (t < hh && better1(sh_s[t + hh], sh_idx[t + hh], sh_s[t], sh_idx[t])) {
				sh_s[t] = sh_s[t + hh];
				sh_idx[t] = sh_idx[t + hh];
			}
			barrier();
		}
		if (t == 0u) {
			write_result(o, pc.seg_base + sl, kout, sh_s[0], sh_idx[0]);
		}
		barrier();
#endif
	}
}

#else // COL

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
		// The rest of the block, in order (sequential scans: a later
		// element wins when greater, or equal under DECREASING).
#define NEXT()                               \
	if (NR == 1u) {                              \
		roff += DI7;                             \
	} else {                                     \
		red_next(c, roff);                       \
	}                                            \
	j++;
#define SCAN(S, B, I)                                                         \
	{                                                                         \
		uvec4 s_ = score4_later(S);                                           \
		bvec4 u_ = LAST != 0u ? greaterThanEqual(s_, B) : greaterThan(s_, B); \
		B = mix(B, s_, u_);                                                   \
		I = mix(I, uvec4(j), u_);                                             \
	}
#if ELEM_BITS == 32
		uint wbase = pc.base_src - pc.in_win + kin; // + roff: a multiple of 4
		uvec4 best = score4(elem_src4.x[(wbase + roff) >> 2], uvec4(j));
		uvec4 bi = uvec4(j);
#if WIDE
		uvec4 best2 = score4(elem_src4.x[((wbase + roff) >> 2) + 1u], uvec4(j));
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
		write_result(o, seg, kout, best.x, bi.x);
		write_result(o + 1u, seg, kout + DO0, best.y, bi.y);
		write_result(o + 2u, seg, kout + 2u * DO0, best.z, bi.z);
		write_result(o + 3u, seg, kout + 3u * DO0, best.w, bi.w);
#if WIDE
		write_result(o + 4u, seg, kout + 4u * DO0, best2.x, bi2.x);
		write_result(o + 5u, seg, kout + 5u * DO0, best2.y, bi2.y);
		write_result(o + 6u, seg, kout + 6u * DO0, best2.z, bi2.z);
		write_result(o + 7u, seg, kout + 7u * DO0, best2.w, bi2.w);
#endif
#elif ELEM_BITS == 64
		// Two outputs: the two elements of each load.
		uint ebase = elem_base(pc.base_src) - pc.in_win + kin; // + roff: even
		uvec4 q = elem_src4.x[(ebase + roff) >> 1];
		uvec2 b0 = score(q.xy, j), b1 = score(q.zw, j);
		uint i0 = j, i1 = j;
		for (uint k = 1u; k < n; k++) {
			NEXT()
			q = elem_src4.x[(ebase + roff) >> 1];
			uvec2 s0 = score(q.xy, j), s1 = score(q.zw, j);
			if (later_wins(s0, b0)) {
				b0 = s0;
				i0 = j;
			}
			if (later_wins(s1, b1)) {
				b1 = s1;
				i1 = j;
			}
		}
		write_result(o, seg, kout, b0, i0);
		write_result(o + 1u, seg, kout + DO0, b1, i1);
#else
		// VW outputs: sub-element b of word w of each load is output
		// o + w * (32 / ELEM_BITS) + b, scanned in component w of best_b.
		const uint EPW = 32u / ELEM_BITS;
		uint ebase = elem_base(pc.base_src) - pc.in_win + kin; // + roff: a multiple of VW
		uvec4 q = elem_src4.x[(ebase + roff) / VW];
		uvec4 best0 = score4(SUB(q, 0), uvec4(j)), bi0 = uvec4(j);
		uvec4 best1 = score4(SUB(q, 1), uvec4(j)), bi1 = uvec4(j);
#if ELEM_BITS == 8
		uvec4 best2 = score4(SUB(q, 2), uvec4(j)), bi2 = uvec4(j);
		uvec4 best3 = score4(SUB(q, 3), uvec4(j)), bi3 = uvec4(j);
#endif
		for (uint k = 1u; k < n; k++) {
			NEXT()
			q = elem_src4.x[(ebase + roff) / VW];
			SCAN(SUB(q, 0), best0, bi0)
			SCAN(SUB(q, 1), best1, bi1)
#if ELEM_BITS == 8
			SCAN(SUB(q, 2), best2, bi2)
			SCAN(SUB(q, 3), best3, bi3)
#endif
		}
#define WRITE4(B, I, b)                                                                 \
	write_result(o + (b), seg, kout + (b) * DO0, B.x, I.x);                             \
	write_result(o + EPW + (b), seg, kout + (EPW + (b)) * DO0, B.y, I.y);               \
	write_result(o + 2u * EPW + (b), seg, kout + (2u * EPW + (b)) * DO0, B.z, I.z);     \
	write_result(o + 3u * EPW + (b), seg, kout + (3u * EPW + (b)) * DO0, B.w, I.w);
		WRITE4(best0, bi0, 0u)
		WRITE4(best1, bi1, 1u)
#if ELEM_BITS == 8
		WRITE4(best2, bi2, 2u)
		WRITE4(best3, bi3, 3u)
#endif
#endif
	}
}

#endif
