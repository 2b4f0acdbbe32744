#version 450
// argmax_vec_row.comp (vec-row): ARGMAX / ARGMIN and REDUCE first pass
// (argmax_vec_common.glsl's lane state) when the block is one contiguous
// run (one reduced dimension of input stride 1), with
// argmax_vec_common.glsl's 16-byte loads. One workgroup per (output,
// segment); lane t reads the 16-byte vectors t, t+WG, ... of the segment's
// aligned middle, keeping one best per vector component (below 64 bits, a
// load none of whose elements can replace its component's best is skipped
// after a raw-interval test: filter_bounds), and the head and tail (< EPV
// elements each) with scalar loads; then the lanes combine
// through subgroup arithmetic (SUBGROUP 1) or shared memory.
//
// Defines:
//   SUBGROUP 1 uses subgroup arithmetic.
//   ROWS     with SUBGROUP: one subgroup per (output, segment) instead of
//            one workgroup, for short rows (a row of 1,000 floats is 125
//            32-byte loads, which leave half of a 256-lane workgroup
//            idle); the host requires full subgroups of one size, so that
//            every subgroup has gl_SubgroupSize lanes to stride with. The
//            combine is the subgroup's alone: no shared memory, no barrier.
//   ONESG    with SUBGROUP: the host guarantees the workgroup is one whole
//            subgroup; the combine needs no shared memory or barrier.
//   TEXEL    with WIDE, 32-bit elements: binding 0 is a uniform texel
//            buffer of R32G32B32A32_UINT texels (elem.glsl ELEM_SRC_TEXEL)
//            and a 32-byte vector is two texel fetches, the same elements
//            in the same order as the u64vec4 load. Lavapipe's texel fetch
//            gathers one 16-byte texel per lane without a branch, where
//            its storage-buffer load takes a bounds-checked branch per lane
//            and component (the tuning knob argRowTexel says more).
//   WIDE     32-bit elements only: 1 reads 32-byte vectors (u64vec4, needs
//            shaderInt64; on lavapipe about 1.3x the bytes per
//            lane-iteration of uvec4), 8 elements per load; 0 reads uvec4.
//   TICKET   neither ONESG nor ROWS: one dispatch where a combine pass
//            would follow. Bindings: 0 the input, 1 the output, 2 the
//            partials (temporary resource), 3 a ticket word (persistent
//            resource, zeroed by the operator's initializer). Every item
//            writes its partial; each workgroup then takes a ticket, and
//            the one that takes the last combines every output's nseg
//            partials as argmax_combine.comp (TICKET_GROUP 0: a lane per
//            output) or argmax_combine_group.comp (TICKET_GROUP, FLAGS bit
//            18: the workgroup per output) would, merging Parts
//            (reduce_part.glsl), writes the indices or values (OUT_MODE
//            0, 1 or 3) and puts the ticket back to 0 for the next
//            execution. The host plans it for one step whose combine is
//            one workgroup, so it saves a dispatch and costs no
//            parallelism.

#if WIDE && !TEXEL
#extension GL_ARB_gpu_shader_int64 : require
#endif

#if SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#ifndef ELEM_BITS
#define ELEM_BITS 32
#endif
#if TEXEL && (ELEM_BITS != 32 || !WIDE)
#error TEXEL reads 32-bit elements as 32-byte vectors (WIDE)
#endif
// Two views of binding 0 (descriptor aliasing of read-only storage
// buffers): words for the unaligned head and tail, and 16-byte vectors.
#define ELEM_SRC 0
#if TEXEL
#define ELEM_SRC_TEXEL 1
#else
#define ELEM_SRC4 0
#endif
#define WORD_DST 1
#define WORD_DST_RW 1
#if TICKET
// Coherent: the last workgroup reads what the others wrote in this
// dispatch, past their (non-coherent) caches.
layout(std430, binding = 2) coherent buffer PartDst { uint x[]; } part_dst;
layout(std430, binding = 3) coherent buffer Ticket { uint x[]; } ticket;
shared bool sh_last;
#define PART_DST part_dst
#endif
#include "elem.glsl"
#include "common.glsl"
#include "reduce.glsl"
#include "reduce_part.glsl"
#include "argmax_vec_common.glsl"
#if TICKET
// group_combine, the workgroup-per-output tail's merge of Parts.
#include "reduce_group.glsl"
#endif

#if WIDE
#if !TEXEL
// A third view for 32-byte loads.
layout(std430, binding = 0) readonly buffer Src8 { u64vec4 x[]; } src8;
#endif
const uint VW = 8u; // elements per vector load
#else
const uint VW = 128u / ELEM_BITS; // EPV
#endif

// ROW_FILTER (FLAGS bit 17): the raw-interval filter below runs. The host
// sets it where the device class's tuning asks (argRowFilter): on a GPU
// the scans of narrow and float elements are integer-ALU bound, while on
// lavapipe the filter's bookkeeping costs more than the visits it saves.
// Only the ORDERED functions have a best to filter against.
const uint ROW_FILTER = ORDERED ? (FLAGS >> 17) & 1u : 0u;
const uint TICKET_GROUP = (FLAGS >> 18) & 1u;

// The identity: below every element in the total order.
const uint ID_IDX = LAST != 0u ? 0u : 0xFFFFFFFFu;

#if ELEM_BITS < 64
#if TEXEL
// A 32-byte vector as its two texels: elements 0-3 and 4-7.
struct Texels2 {
	uvec4 lo, hi;
};
#define VEC_T Texels2
#elif WIDE
#define VEC_T u64vec4
#else
#define VEC_T uvec4
#endif
#endif

#if !ONESG && !ROWS
#ifndef WG_MAX
#define WG_MAX 256
#endif
shared SCORE sh_s[WG_MAX];
shared uint sh_si[WG_MAX];
#endif

#if SUBGROUP
void sg_reduce(inout SCORE s, inout uint idx) {
	if (!ORDERED) {
		// (The host gives 64-bit MULTIPLY no subgroup variant: sg_part.)
		s = SCORE1(sg_part(Part(SCORE2(s), 0u, 0u)).s);
		return;
	}
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

#if !ONESG && !ROWS
// wg_combine merges every lane's (best, bi) into the workgroup's and
// returns true in the one lane that holds it; the caller writes it there,
// then meets a barrier before the shared entries are reused.
bool wg_combine(inout SCORE best, inout uint bi) {
#if SUBGROUP
	sg_reduce(best, bi);
	if (subgroupElect()) {
		sh_s[gl_SubgroupID] = best;
		sh_si[gl_SubgroupID] = bi;
	}
	barrier();
	bool lead = false;
	if (gl_SubgroupID == 0u) {
		best = SCORE_ID;
		bi = ID_IDX;
		for (uint k = gl_SubgroupInvocationID; k < gl_NumSubgroups; k += gl_SubgroupSize) {
			merge1(best, bi, sh_s[k], sh_si[k]);
		}
		sg_reduce(best, bi);
		lead = subgroupElect();
	}
	return lead;
#else
	uint t = gl_LocalInvocationID.x;
	sh_s[t] = best;
	sh_si[t] = bi;
	barrier();
	for (uint hh = gl_WorkGroupSize.x / 2u; hh > 0u; hh >>= 1) {
		if (t < hh) {
			SCORE s = sh_s[t];
			uint si = sh_si[t];
			merge1(s, si, sh_s[t + hh], sh_si[t + hh]);
			sh_s[t] = s;
			sh_si[t] = si;
		}
		barrier();
	}
	best = sh_s[0];
	bi = sh_si[0];
	return t == 0u;
#endif
}
#endif

#if TICKET
// ticket_combine runs after the workgroup's last item: the workgroup takes
// a ticket, and the one that takes the last of ngroups combines the
// partials, Parts merged by reduce_part.glsl's part_merge as the combine
// passes merge them (so for every function the first pass runs), and
// writes each output's index or value (store_result). The order: every
// lane's partial stores, then its memoryBarrierBuffer (device scope: the
// stores are visible before what follows), the workgroup barrier, then
// lane 0's atomicAdd; the last workgroup's barrier on memory after the
// atomic orders its coherent loads of the partials after every other
// workgroup's stores.
void ticket_combine(uint ngroups) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	memoryBarrierBuffer();
	barrier();
	if (t == 0u) {
		sh_last = atomicAdd(ticket.x[pc.base_ticket], 1u) == ngroups - 1u;
	}
	barrier();
	if (!sh_last) {
		return;
	}
	memoryBarrierBuffer();
	uint kin, kout;
	if (TICKET_GROUP != 0u) {
		for (uint o = pc.o_begin; o < pc.o_begin + pc.o_count; o++) {
			uint w0 = pc.base_part + 4u * (o * pc.nseg - pc.dst_win);
			Part st = part_identity();
			for (uint s = t; s < pc.nseg; s += WG) {
				st = part_merge(st, READ_PART(part_dst, w0 + 4u * s));
			}
			if (group_combine(st)) {
				kept_offsets(o, kin, kout);
				store_result(pc.base_dst, kout - pc.out_win, st);
			}
			// The next output reuses the shared entries.
			barrier();
		}
	} else {
		for (uint o = pc.o_begin + t; o < pc.o_begin + pc.o_count; o += WG) {
			uint w0 = pc.base_part + 4u * (o * pc.nseg - pc.dst_win);
			Part st = part_identity();
			for (uint s = 0u; s < pc.nseg; s++) {
				st = part_merge(st, READ_PART(part_dst, w0 + 4u * s));
			}
			kept_offsets(o, kin, kout);
			store_result(pc.base_dst, kout - pc.out_win, st);
		}
	}
	if (t == 0u) {
		// Ready for the next execution (which the host orders after
		// this one with a barrier, as any two dispatches on one resource).
		atomicExchange(ticket.x[pc.base_ticket], 0u);
	}
}
#endif

void main() {
	uint items = pc.o_count * pc.nloc;
	uint ngroups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
	uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
#if ROWS
	// Lane t of WG, the subgroup, which takes items first, first + stride,
	// ... on its own.
	uint t = gl_SubgroupInvocationID;
	uint WG = gl_SubgroupSize;
	uint first = group * gl_NumSubgroups + gl_SubgroupID, stride = ngroups * gl_NumSubgroups;
#else
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	uint first = group, stride = ngroups;
#endif
	for (uint it = first; it < items; it += stride) {
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
		uint ein = elem_base(pc.base_src) + kin - pc.in_win; // block position 0
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
			fold1(best, bi, q.xy, j);
			fold1(best, bi, q.zw, j + 1u);
		}
#else
		// One best per vector component (word c of every load). A
		// component visits increasing block positions j (its sub-elements
		// in order, then the lane's next vector), so the sequential form
		// of the order is exact within it: the first element it sees
		// (through score4, which knows j = 0's NaN rule) is taken, and a
		// later one replaces the best when it scores higher, or as high
		// under DECREASING (score4_later: j > 0 there). A lane with no
		// vector keeps the identity.
		uvec4 b4 = uvec4(SCORE_ID), i4 = uvec4(ID_IDX);
		uvec4 lane_j = uvec4(0u, 1u, 2u, 3u) * (32u / ELEM_BITS) + jdelta;
#define FIRST(RAW, J)                                                          \
	{                                                                          \
		i4 = (J);                                                              \
		b4 = start4((RAW), i4);                                                \
	}
#define LATER(RAW, J) later4(b4, i4, (RAW), (J));
// LOAD_VEC(v) is vector v; SCAN_VEC(q, v, UPDATE0, UPDATE) visits its
// elements, the first component-wise one through UPDATE0, the others
// through UPDATE; FILTER_VEC(q) is, per component, the least of
// (raw - lo) << (32 - ELEM_BITS) over the component's sub-elements (the
// raw-interval filter below).
#if TEXEL
#define LOAD_VEC(V) Texels2(texelFetch(elem_srct, int(2u * (V))), texelFetch(elem_srct, int(2u * (V) + 1u)))
#define SCAN_VEC(Q, V, UPDATE0, UPDATE)                                        \
	{                                                                          \
		UPDATE0((Q).lo, lane_j + (V) * 8u)                                     \
		UPDATE((Q).hi, lane_j + ((V) * 8u + 4u))                               \
	}
#define FILTER_VEC(Q) min((Q).lo - lo4, (Q).hi - lo4)
#elif WIDE
#define LOAD_VEC(V) src8.x[V]
#define SCAN_VEC(Q, V, UPDATE0, UPDATE)                                        \
	{                                                                          \
		UPDATE0(uvec4(unpackUint2x32((Q).x), unpackUint2x32((Q).y)), lane_j + (V) * 8u) \
		UPDATE(uvec4(unpackUint2x32((Q).z), unpackUint2x32((Q).w)), lane_j + ((V) * 8u + 4u)) \
	}
#define FILTER_VEC(Q)                                                          \
	min(uvec4(unpackUint2x32((Q).x), unpackUint2x32((Q).y)) - lo4,             \
	    uvec4(unpackUint2x32((Q).z), unpackUint2x32((Q).w)) - lo4)
#elif ELEM_BITS == 32
#define LOAD_VEC(V) elem_src4.x[V]
#define SCAN_VEC(Q, V, UPDATE0, UPDATE) UPDATE0((Q), lane_j + ((V) << 2))
#define FILTER_VEC(Q) ((Q) - lo4)
#elif ELEM_BITS == 16
#define LOAD_VEC(V) elem_src4.x[V]
#define SCAN_VEC(Q, V, UPDATE0, UPDATE)                                        \
	{                                                                          \
		uvec4 jv = lane_j + (V) * VW;                                          \
		UPDATE0(ELEM_SUB(Q, 0), jv)                                            \
		UPDATE(ELEM_SUB(Q, 1), jv + 1u)                                        \
	}
#define FILTER_VEC(Q) min((Q) - lo4, ((Q) << 16) - lo4)
#else
#define LOAD_VEC(V) elem_src4.x[V]
#define SCAN_VEC(Q, V, UPDATE0, UPDATE)                                        \
	{                                                                          \
		uvec4 jv = lane_j + (V) * VW;                                          \
		UPDATE0(ELEM_SUB(Q, 0), jv)                                            \
		UPDATE(ELEM_SUB(Q, 1), jv + 1u)                                        \
		UPDATE(ELEM_SUB(Q, 2), jv + 2u)                                        \
		UPDATE(ELEM_SUB(Q, 3), jv + 3u)                                        \
	}
#define FILTER_VEC(Q) min(min((Q) - lo4, ((Q) << 8) - lo4), min(((Q) << 16) - lo4, ((Q) << 24) - lo4))
#endif
		// The filter: after each exact visit, (lo4, lim4) bound, per
		// component, the raw elements that could still replace its best
		// (filter_bounds); a vector none of whose elements lies in its
		// component's interval is skipped, which is exact, as the
		// sequential update would leave the best as it is. The bounds are
		// recomputed only when a vector passes, so the common vector costs
		// a subtraction and a minimum per element.
		uvec4 lo4, lim4;
#define BOUNDS()                                                               \
	{                                                                          \
		uvec2 f_ = filter_bounds(b4.x);                                        \
		lo4.x = f_.x;                                                          \
		lim4.x = f_.y;                                                         \
		f_ = filter_bounds(b4.y);                                              \
		lo4.y = f_.x;                                                          \
		lim4.y = f_.y;                                                         \
		f_ = filter_bounds(b4.z);                                              \
		lo4.z = f_.x;                                                          \
		lim4.z = f_.y;                                                         \
		f_ = filter_bounds(b4.w);                                              \
		lo4.w = f_.x;                                                          \
		lim4.w = f_.y;                                                         \
	}
		// (Sub-elements written out: lavapipe counts every loop iteration
		// against one per-shader limit; see ops/reduce_plan.go argIters.)
		uint v = vb + t;
		if (v < vb + nv) {
			{
				VEC_T q = LOAD_VEC(v);
				SCAN_VEC(q, v, FIRST, LATER)
			}
			// ROW_FILTER is a specialization constant: each plan's
			// module keeps one of the two forms of this loop.
			if (ROW_FILTER != 0u) {
				BOUNDS()
			}
			v += WG;
#if TEXEL
			// Two vectors a trip, four texel fetches issued before their
			// scans (the same visits in the same order): on lavapipe the
			// fetches of one trip overlap.
			if (ROW_FILTER == 0u) {
				for (; v + WG < vb + nv; v += 2u * WG) {
					VEC_T q0 = LOAD_VEC(v);
					VEC_T q1 = LOAD_VEC(v + WG);
					SCAN_VEC(q0, v, LATER, LATER)
					SCAN_VEC(q1, (v + WG), LATER, LATER)
				}
			}
#endif
			for (; v < vb + nv; v += WG) {
				VEC_T q = LOAD_VEC(v);
				if (ROW_FILTER == 0u || any(lessThanEqual(FILTER_VEC(q), lim4))) {
					SCAN_VEC(q, v, LATER, LATER)
					if (ROW_FILTER != 0u) {
						BOUNDS()
					}
				}
			}
		}
		uint best = b4.x, bi = i4.x;
		merge1(best, bi, b4.y, i4.y);
		merge1(best, bi, b4.z, i4.z);
		merge1(best, bi, b4.w, i4.w);
#endif
		// The unaligned head and the tail, fewer than VW elements each.
		for (uint k = t; k < h + ntail; k += WG) {
			uint a = k < h ? a0 + k : tail0 + (k - h);
			fold1(best, bi, elem_load(0u, a), a + jdelta);
		}
#if SUBGROUP && (ONESG || ROWS)
		// The item's lanes are exactly one subgroup: no shared memory, no
		// barrier (lavapipe runs barrier-free shaders without switching
		// between its per-subgroup coroutines).
		sg_reduce(best, bi);
		if (subgroupElect()) {
			write_result(o, pc.seg_base + sl, kout, ein, best, bi);
		}
#else
		if (wg_combine(best, bi)) {
			write_result(o, pc.seg_base + sl, kout, ein, best, bi);
		}
		barrier();
#endif
	}
#if TICKET
	ticket_combine(ngroups);
#endif
}
