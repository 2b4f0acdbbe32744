#version 450
// argmax_vec.comp: ARGMAX / ARGMIN first pass for 32-bit elements with
// 16-byte (uvec4) loads. Same push constants, specialization constants,
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
// 64-bit outputs are written as two words; only WIDE row variants and W64
// need shaderInt64.

#if !COL && WIDE || COL && W64
#extension GL_ARB_gpu_shader_int64 : require
#endif
#if !COL && SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#define ELEM_BITS 32
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
	uint o_begin;    // first output of this step (COL: a multiple of 4)
	uint o_count;    // outputs in this step (COL: a multiple of 4)
	uint j_begin;    // first block position of this step's range
	uint j_count;    // block positions in the range
	uint seg_len;    // block positions per segment
	uint nloc;       // segments in the range: ceil(j_count / seg_len)
	uint seg_base;   // global number of the range's first segment
	uint nseg;       // segments per output in all (partials layout)
	uint in_win;     // element offset of the input window (COL: a multiple of 4)
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
const uint VW = 4u;
#endif
void write_result(uint o, uint seg, uint kept_out, uint s, uint idx) {
	if (OUT_MODE == 2u) {
		write_partial(pc.base_dst + 4u * (o * pc.nseg + seg - pc.dst_win), uvec2(s, 0u), idx);
	} else {
		store_index(pc.base_dst, kept_out - pc.dst_win, idx, OUT_MODE == 1u);
	}
}

// score4_later is argmax_common.glsl's score for four 32-bit elements at
// block positions j > 0, where a NaN scores 0.
uvec4 score4_later(uvec4 v) {
	uvec4 k = elem_key(v, KIND);
	if (IS_MIN != 0u) {
		k = ~k;
	}
	return mix(k, uvec4(0u), elem_is_nan(v, KIND));
}

// score4 is score for four 32-bit elements at any block positions j: a NaN
// scores above everything at j = 0.
uvec4 score4(uvec4 v, uvec4 j) {
	uvec4 nan = mix(uvec4(0u), uvec4(0xFFFFFFFFu), equal(j, uvec4(0u)));
	return mix(score4_later(v), nan, elem_is_nan(v, KIND));
}

#if !COL

// better1 is better() for 32-bit scores.
bool better1(uint s, uint si, uint b, uint bi) {
	return s > b || (s == b && (LAST != 0u ? si > bi : si < bi));
}

#if !ONESG
#define WG_MAX 256
shared uint sh_s[WG_MAX], sh_idx[WG_MAX];
#endif

#if SUBGROUP
void sg_reduce(inout uint s, inout uint idx) {
	uint m = subgroupMax(s);
	bool top = s == m;
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
		// Word address of the segment's first element; block position of
		// word a is a + jdelta (mod 2^32).
		uint a0 = pc.base_src + (kin + j0 * DI7 - pc.in_win);
		uint jdelta = j0 - a0;
		uint h = min((VW - (a0 & (VW - 1u))) & (VW - 1u), n);
		uint vb = (a0 + h) / VW;
		uint nv = (n - h) / VW;
		uint tail0 = (vb + nv) * VW;
		uint ntail = n - h - nv * VW;

		// One best per vector component: component c sees block
		// positions in increasing order, and better1 is the total order.
		uvec4 b4 = uvec4(0u), i4 = uvec4(ID_IDX);
		uvec4 lane_j = uvec4(0u, 1u, 2u, 3u) + jdelta;
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
#else
			UPDATE(elem_src4.x[v], lane_j + (v << 2))
#endif
		}
		uint best = b4.x, bi = i4.x;
		if (better1(b4.y, i4.y, best, bi)) { best = b4.y; bi = i4.y; }
		if (better1(b4.z, i4.z, best, bi)) { best = b4.z; bi = i4.z; }
		if (better1(b4.w, i4.w, best, bi)) { best = b4.w; bi = i4.w; }
		// The unaligned head and the tail, fewer than VW elements each.
		for (uint k = t; k < h + ntail; k += WG) {
			uint a = k < h ? a0 + k : tail0 + (k - h);
			uint j = a + jdelta;
			uint s = score(uvec2(elem_src.x[a], 0u), j).x;
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
			best = 0u;
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

#if WIDE
const uint PER = 8u; // outputs per invocation
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
		uint wbase = pc.base_src - pc.in_win + kin; // + roff: a multiple of 4
		uvec4 best = score4(elem_src4.x[(wbase + roff) >> 2], uvec4(j));
		uvec4 bi = uvec4(j);
#if WIDE
		uvec4 best2 = score4(elem_src4.x[((wbase + roff) >> 2) + 1u], uvec4(j));
		uvec4 bi2 = uvec4(j);
#endif
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
		uint seg = pc.seg_base + sl;
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
	}
}

#endif
