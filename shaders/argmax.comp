#version 450
// argmax.comp: ARGMAX / ARGMIN / REDUCE, first pass: the index of
// ARGMAX / ARGMIN (REDUCE's ARGMAX / ARGMIN alike), or the value of
// REDUCE's MAX, MIN, SUM, MULTIPLY, L1 and SUM_SQUARE (the FUNC
// specialization constant, reduce.glsl; what each carries and why any
// grouping is exact: reduce_part.glsl).
//
// The host (ops/reduce_plan.go) coalesces the tensor into K kept and R
// reduced dimensions, passed as specialization constants, innermost first.
// Output element o (row-major over the kept dimensions) reduces block
// positions j (row-major over the reduced dimensions); the index written is
// j (semantics.md rule 1).
//
// THE COMBINE (semantics.md rule 5). Rule 5 is a sequential scan: start at
// j = 0, move to a later element only when it compares greater (ARGMAX) /
// less (ARGMIN), or greater-or-equal / less-or-equal under DECREASING, where
// every comparison with NaN is false. Such a scan is not a reduction one may
// split, but its result is: if x[0] is NaN nothing ever compares greater
// than it, so the answer is 0; otherwise the scan only ever holds non-NaN
// elements, skips every NaN, and returns the first (INCREASING) or last
// (DECREASING) extreme among the non-NaN elements, with -0 == +0. So we give
// every element a 32- or 64-bit unsigned SCORE:
//   - non-NaN: elem.glsl's order-preserving unsigned key (floats: 2^(B-1)
//     plus or minus the magnitude, so -0 and +0 tie; signed integers: sign
//     bit flipped), bit-inverted for ARGMIN so that higher always wins;
//   - NaN at j = 0: 0xFFFFFFFF, above every non-NaN float score;
//   - NaN at j > 0: 0, below every non-NaN float score.
// (Float keys of non-NaN values lie strictly inside (0, 0xFFFFFFFF): -inf
// maps to 0x00800000 and +inf to 0xFF800000, and the 16-bit keys of FLOAT16
// lie in [0x0400, 0xFC00]; their inversions likewise. Integer types have no
// NaN and use the whole range.)
// Elements are then ordered by (score, then lower j for INCREASING / higher j
// for DECREASING). That is a strict total order on the block's elements (j
// is unique), and its maximum is exactly rule 5's answer: with x[0] NaN it
// is j = 0 alone; otherwise the maximum score is a non-NaN value's (x[0]
// itself has one) and the tie-break picks the first or last such extreme.
// The maximum of a total order is associative and commutative, so lanes,
// subgroups, workgroups, split-K segments and windowed steps may combine
// partial results in any grouping and still agree with the scan. Within one
// invocation elements are visited in increasing j, where "replace when
// score > best, or score >= best under DECREASING" is the same order.
//
// Defines:
//   ELEM_BITS  8, 16, 32 or 64: the input element width
//   NATIVE     1: 8/16-bit storage buffers; 0: 32-bit words with the element
//              extracted by shifts (devices without 8/16-bit storage); see
//              elem.glsl
//   GROUP      0: one invocation per (output, segment), scanning its
//              elements in order (the kept axis is the fast one, so adjacent
//              invocations, adjacent outputs, read adjacent memory); 1: one
//              workgroup per (output, segment), lanes strided along the
//              reduced axis
//   SUBGROUP   with GROUP: 1 uses subgroup arithmetic and shared memory for
//              the subgroups' results; 0 shared memory only
//   LOADS      with GROUP 0: 8 loads eight block positions before scanning
//              them in increasing j (the same sequential scan, with eight
//              independent loads in flight per lane: a GPU needs ~2 MiB in
//              flight, and one 1- to 8-byte element per resident lane is
//              at most 270 KiB to 2 MiB on an H100); 1 or undefined one
//              at a time; with REDUCE_FLOAT: 4 has a lane load four
//              positions a trip for reduce_part_float.glsl's fast scan
//              (GROUP 1: where one dimension is reduced)
//   HW_MUL     with REDUCE_FLOAT: 1 computes SUM_SQUARE's and L2's terms
//              x·x by the native multiply (reduce_part_float.glsl)
//   HALF_FAST  with REDUCE_FLOAT, ELEM_BITS 16 and GROUP: SUM, AVERAGE,
//              LOG_SUM, L1, SUM_SQUARE and L2 of a block that is one
//              contiguous run (one reduced dimension of input stride 1)
//              is scanned in 16-byte vectors of eight FLOAT16 into a
//              64-bit lane sum (128-bit for squares: reduce_half_fast.glsl
//              half_scan; needs shaderInt64); with EXP_TABLE, LOG_SUM_EXP
//              too (its terms in a window, reduce_half_fast.glsl lse_scan)
//   EXP_TABLE  with REDUCE_FLOAT and ELEM_BITS 16: LOG_SUM_EXP's terms
//              are read from binding 2, a table of exp(h) rounded to
//              FLOAT32 for every FLOAT16 h (ops.TableExpHalf), instead
//              of computed (reduce_part_float.glsl)
//   TEXEL      with REDUCE_FLOAT, ELEM_BITS 32 and GROUP: binding 0 is a
//              uniform texel buffer of R32G32B32A32_UINT texels (elem.glsl
//              ELEM_SRC_TEXEL), every load a texel fetch, and a block
//              that is one contiguous run is scanned a 16-byte texel
//              (four elements) at a time (texel_scan below). Lavapipe's
//              texel fetch is one branch-free gather, its storage-buffer
//              load a loop over the lanes with a bounds-check branch each
//              (the tuning knob reduceFloatTexel). The sum is exact, so
//              the grouping of the terms changes no bit.
// 64-bit inputs are always compared as two 32-bit words and FLOAT16 as bit
// patterns, so no variant but HALF_FAST needs shaderInt64, and none
// shaderFloat16 or subgroup extended types; 64-bit outputs are written as
// two 32-bit words.

#if HALF_FAST
#extension GL_ARB_gpu_shader_int64 : require
#define ELEM_SRC4 0
#endif
#if GROUP && SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#define ELEM_SRC 0
#if TEXEL
#if !REDUCE_FLOAT || ELEM_BITS != 32 || !GROUP
#error TEXEL reads the float functions' FLOAT32 elements in the group shape
#endif
#define ELEM_SRC_TEXEL 1
#endif
#define WORD_DST 1
#define WORD_DST_RW 1
#include "elem.glsl"
#include "common.glsl"
#include "reduce.glsl"
#if REDUCE_FLOAT
#include "reduce_part_float.glsl"
#else
#include "reduce_part.glsl"
#endif

layout(push_constant) uniform Push {
	uint base_src;   // words
	uint base_dst;   // words
#if EXP_TABLE
	uint base_tab;   // words: binding 2's table, 0 (see exp_table_term)
#endif
	uint o_begin;    // first output of this step
	uint o_count;    // outputs in this step
	uint j_begin;    // first block position of this step's range
	uint j_count;    // block positions in the range
	uint seg_len;    // block positions per segment
	uint nloc;       // segments in the range: ceil(j_count / seg_len)
	uint seg_base;   // global number of the range's first segment
	uint nseg;       // segments per output in all (partials layout)
	uint in_win;     // element offset of the input window (mod 2^32)
	uint dst_win;    // output element offset / partial entry of the window
} pc;

#if EXP_TABLE
// Binding 2: LOG_SUM_EXP's FLOAT16 terms (reduce_part_float.glsl
// EXP_TABLE, ops.TableExpHalf), a FLOAT32 a half, indexed by its bits.
// The host binds the device's table whole from its buffer's start (dml
// tables.go), which is a block's 256-aligned start, aligned for every
// device: base_tab is 0, and the index leaves it out (an add a half).
layout(std430, binding = 2) readonly buffer ExpHalf { uint x[]; } exp_half;
uint exp_table_term(uint h) { return exp_half.x[h]; }
#endif

// load returns the raw bits of the element at element offset off inside the
// window: low word in x, high word (64-bit types only) in y.
uvec2 load(uint off) {
	return elem_load(pc.base_src, off - pc.in_win); // exact: the element lies in the window
}

void write_result(uint o, uint seg, uint kept_out, Part st) {
	if (OUT_MODE == 2u) {
		write_part(pc.base_dst + PART_WORDS * (o * pc.nseg + seg - pc.dst_win), st);
	} else {
		store_result(pc.base_dst, kept_out - pc.dst_win, st);
	}
}

// at is the index, in the source binding's own element array, of the
// element at offset off inside the window (the binding's base folded in),
// and load_at its raw bits: load_at(at(off)) == load(off). A scan that
// steps by one stride then steps that index alone.
#if ELEM_BITS < 64
uint at(uint off) { return pc.base_src * (32u / ELEM_BITS) + off - pc.in_win; }
uvec2 load_at(uint e) { return elem_load(0u, e); }
#else
uint at(uint off) { return off; }
uvec2 load_at(uint e) { return load(e); }
#endif

#if HALF_FAST
#include "reduce_half_fast.glsl"
#endif

#if TEXEL && GROUP
// texel_fold folds the four elements of texel q through part_fold.
void texel_fold(inout Part st, uvec4 q) {
	st = part_fold(st, uvec2(q.x, 0u), 0u);
	st = part_fold(st, uvec2(q.y, 0u), 0u);
	st = part_fold(st, uvec2(q.z, 0u), 0u);
	st = part_fold(st, uvec2(q.w, 0u), 0u);
}

// texel_fast is part_fast4 of texel q's four elements.
bool texel_fast(inout Part st, uvec4 q) {
	return part_fast4(st, uvec2(q.x, 0u), uvec2(q.y, 0u), uvec2(q.z, 0u), uvec2(q.w, 0u));
}

// texel_scan adds lane t's share (of wg lanes) of the n elements from
// word w0 of binding 0 on (the binding's base folded in): an element of
// the head before the first whole texel and one of the tail after the
// last, and the whole texels t, t+wg, ... between, two fetched a trip,
// through the fast scan (reduce_part_float.glsl part_fast4: a texel's
// four terms when all lie in the window; the others leave the inner
// loop for part_fold). A lane folds at most its group-kernel share
// (ceil(n / wg)) plus six terms, within reduceFloatLaneTerms.
void texel_scan(inout Part st, uint w0, uint n, uint t, uint wg) {
	uint head = min((4u - (w0 & 3u)) & 3u, n);
	uint nv = (n - head) >> 2;
	uint tail = n - head - 4u * nv;
	// Lane t's head element (q = 0, where t < head) and tail element
	// (q = 1, where t < tail), at one fold site: each site inlines the
	// exact accumulation, and lavapipe's compile time grows with them.
	for (uint q = t < head ? 0u : 1u, q_end = t < tail ? 2u : 1u; q < q_end; q++) {
		st = part_fold(st, load_at(q == 0u ? w0 + t : w0 + head + 4u * nv + t), 0u);
	}
	uint m = nv > t ? (nv - 1u - t) / wg + 1u : 0u; // texels of lane t
	uint v = (w0 + head) / 4u + t;
	while (m > 0u) {
		// Two texels a trip through the fast scan; the texels it leaves
		// (a and b from the first texel to fold, or a lone last one) go
		// through texel_fold's one site below.
		uvec4 a = uvec4(0u), b;
		uint first = 1u;
		if (m >= 2u) {
			bool aIn = false;
			for (; m >= 2u; m -= 2u) {
				a = texelFetch(elem_srct, int(v));
				b = texelFetch(elem_srct, int(v + wg));
				aIn = texel_fast(st, a);
				if (!aIn || !texel_fast(st, b)) {
					break;
				}
				v += 2u * wg;
			}
			if (m < 2u) {
				continue; // every pair fast: a lone last texel or none
			}
			first = aIn ? 1u : 0u;
			v += 2u * wg;
			m -= 2u;
		} else {
			b = texelFetch(elem_srct, int(v));
			m = 0u;
		}
		for (uint i = first; i < 2u; i++) {
			texel_fold(st, i == 0u ? a : b);
		}
	}
}
#endif

#if !GROUP

void main() {
	uint items = pc.o_count * pc.nloc;
	uint step = grid_size();
	for (uint it = grid_index(); it < items; it += step) {
		// Outputs vary fastest: when a block is cut into segments (long
		// blocks, or the GPU column split), neighbouring invocations scan
		// the same positions of neighbouring outputs, which for the layouts
		// this kernel gets lie next to each other in memory.
		uint ol = it % pc.o_count, sl = it / pc.o_count;
		uint o = pc.o_begin + ol;
		uint kin, kout;
		kept_offsets(o, kin, kout);
		uint jb = sl * pc.seg_len;
		uint n = min(pc.seg_len, pc.j_count - jb);
		uint j = pc.j_begin + jb;
		uint c[8];
		uint roff = red_coords(j, c);
		uint e = at(kin + roff);
		Part st = part_elem(load_at(e), j);
		uint k = 1u;
		// NEXT moves e to the next block position: one reduced dimension
		// (NR, a specialization constant) steps by its stride; more step
		// the odometer.
#define NEXT()                        \
	if (NR == 1u) {                   \
		e += DI7;                     \
	} else {                          \
		red_next(c, roff);            \
		e = at(kin + roff);           \
	}
#if LOADS == 8
#define LOAD(u) NEXT() uvec2 q##u = load_at(e);
#define SCAN(u) st = part_fold(st, q##u, j + (u + 1u));
#if ELEM_BITS < 64
		// The raw-interval filter (reduce.glsl filter_bounds): the eight
		// loaded elements are visited exactly only when one of them lies
		// in the interval of raw values that could replace the best, which
		// is exact, since the sequential update would leave the best as
		// it is. The bounds are recomputed only after such a visit, so the
		// common trip costs a shift, a subtraction and a minimum per
		// element over its load. Only the ORDERED functions have a best
		// to filter against (REDUCE's MAX / MIN too: LAST, so an equal
		// value lies in the interval, and a best NaN scores 0, whose
		// interval is every raw value); every element changes an
		// accumulation, which therefore visits all eight. ORDERED is a
		// specialization constant, so the driver folds the test away.
		const uint FSH = 32u - ELEM_BITS;
		uvec2 fb = ORDERED ? filter_bounds(st.s.x) : uvec2(0u);
#define F(u) ((q##u.x << FSH) - fb.x)
#endif
		for (; n - k >= 8u; k += 8u) {
			LOAD(0) LOAD(1) LOAD(2) LOAD(3) LOAD(4) LOAD(5) LOAD(6) LOAD(7)
#if ELEM_BITS < 64
			if (!ORDERED || min(min(min(F(0), F(1)), min(F(2), F(3))), min(min(F(4), F(5)), min(F(6), F(7)))) <= fb.y) {
				SCAN(0) SCAN(1) SCAN(2) SCAN(3) SCAN(4) SCAN(5) SCAN(6) SCAN(7)
				if (ORDERED) {
					fb = filter_bounds(st.s.x);
				}
			}
#else
			SCAN(0) SCAN(1) SCAN(2) SCAN(3) SCAN(4) SCAN(5) SCAN(6) SCAN(7)
#endif
			j += 8u;
		}
#undef F
#undef LOAD
#undef SCAN
#endif
#if REDUCE_FLOAT && LOADS == 4
		// The fast scan (reduce_part_float.glsl): four elements in the
		// window a trip, and four that are not all in it through
		// part_fold (whose terms ignore j); the last few below.
		while (n - k >= 4u) {
			uvec2 q0, q1, q2, q3;
			for (; n - k >= 4u; k += 4u) {
				NEXT()
				q0 = load_at(e);
				NEXT()
				q1 = load_at(e);
				NEXT()
				q2 = load_at(e);
				NEXT()
				q3 = load_at(e);
				if (!part_fast4(st, q0, q1, q2, q3)) {
					break;
				}
			}
			if (n - k >= 4u) {
				st = part_fold(st, q0, 0u);
				st = part_fold(st, q1, 0u);
				st = part_fold(st, q2, 0u);
				st = part_fold(st, q3, 0u);
				k += 4u;
			}
		}
#endif
		for (; k < n; k++) {
			NEXT()
			j++;
			st = part_fold(st, load_at(e), j);
		}
#undef NEXT
		write_result(o, pc.seg_base + sl, kout, st);
	}
}

#else

#include "reduce_group.glsl"

void main() {
	uint items = pc.o_count * pc.nloc;
	uint ngroups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	for (uint it = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; it < items; it += ngroups) {
		uint ol = it / pc.nloc, sl = it % pc.nloc;
		uint o = pc.o_begin + ol;
		uint kin, kout;
		kept_offsets(o, kin, kout);
		uint jb = sl * pc.seg_len;
		uint n = min(pc.seg_len, pc.j_count - jb);
		uint j0 = pc.j_begin + jb;
		// Lane t scans j0+t, j0+t+WG, ... in increasing order. A lane with
		// no element holds the identity, which loses to every element.
		Part st = part_identity();
#if HALF_FAST
#if EXP_TABLE
		if ((HALF_SCAN || FFUNC == FF_LOG_SUM_EXP) && NR == 1u && DI7 == 1u) {
#else
		if (HALF_SCAN && NR == 1u && DI7 == 1u) {
#endif
			half_scan(st, at(kin + red_offset(j0)), n, t, WG);
		} else
#endif
#if TEXEL
		if (NR == 1u && DI7 == 1u) {
			texel_scan(st, at(kin + red_offset(j0)), n, t, WG);
		} else
#endif
		if (t < n) {
			uint j = j0 + t;
			st = part_elem(load(kin + red_offset(j)), j);
			// (counted, so that k + WG never wraps on 2^32-element blocks)
			uint m = (n - 1u - t) / WG;
#if REDUCE_FLOAT && LOADS == 4
			// The float functions' terms ignore j: with one reduced
			// dimension the lane steps its element index by WG strides,
			// four loads a trip.
			if (NR == 1u) {
				uint e = at(kin + red_offset(j));
				const uint S = WG * DI7;
				// The fast scan (reduce_part_float.glsl): four
				// elements in the window a trip, and the four that are
				// not all in it through part_fold.
				while (m >= 4u) {
					uvec2 q0, q1, q2, q3;
					for (; m >= 4u; m -= 4u) {
						q0 = load_at(e + S);
						q1 = load_at(e + 2u * S);
						q2 = load_at(e + 3u * S);
						q3 = load_at(e + 4u * S);
						if (!part_fast4(st, q0, q1, q2, q3)) {
							break;
						}
						e += 4u * S;
					}
					if (m >= 4u) {
						st = part_fold(st, q0, 0u);
						st = part_fold(st, q1, 0u);
						st = part_fold(st, q2, 0u);
						st = part_fold(st, q3, 0u);
						e += 4u * S;
						m -= 4u;
					}
				}
				for (; m > 0u; m--) {
					e += S;
					st = part_fold(st, load_at(e), 0u);
				}
			}
#endif
			for (uint k = t; m > 0u; m--) {
				k += WG;
				j = j0 + k;
				st = part_fold(st, load(kin + red_offset(j)), j);
			}
		}
		if (group_combine(st)) {
			write_result(o, pc.seg_base + sl, kout, st);
		}
		barrier();
	}
}

#endif
