#version 450
// reduce_fmul.comp: REDUCE MULTIPLY of FLOAT32 and FLOAT16
// (docs/semantics.md rule 42). A floating-point product depends on its
// order, so every plan follows the canonical one: the block's values in
// row-major order, padded with 1s to a power of two, multiplied as a
// balanced binary tree of aligned power-of-two ranges, each product
// reduce_float.glsl's mul_f32 (integer arithmetic: no fused multiply-add,
// no denormal flushing, no driver rounding) or, HW_MUL, the hardware's
// with the float controls that make it the same IEEE product. Multiplying by 1 is exact
// (NaN aside, which the output writes as the one NaN, rule 43), so a node
// whose right part lies past the block is its left part, and a scan can
// build the tree with a stack (tree_push): the k-th value merges with the
// stack's top once per trailing one bit of k.
//
// The planner (ops/reduce_segments.go) cuts a block into segments of one
// power-of-two length L that start at multiples of L (window boxes too),
// so a segment's value is the tree's node over it and the combine pass,
// scanning an output's partials in order with the same stack, finishes
// the tree. One segment per block (no partials) is the whole tree.
//
// Shapes, as argmax.comp's (same bindings, specialization constants and
// push words, so ops/reduce_emit.go emits them alike):
//   COMBINE 0, GROUP 0: one invocation per (output, segment) scans the
//     segment in order.
//   COMBINE 0, GROUP 1: one workgroup per (output, segment); lane t takes
//     the t-th aligned chunk of c = max(1, P/WG) positions, P the segment's
//     length rounded up to a power of two, and the lanes' values meet in a
//     shared-memory tree whose level h pairs lane t with lane t + h for t a
//     multiple of 2h: the canonical tree above the chunks (lanes past the
//     segment hold 1).
//   COMBINE 1, GROUP 0: one invocation per output scans its partials.
//   COMBINE 1, GROUP 1: one workgroup per output, chunks of partials as
//     the first pass's chunks of positions.
// LOADS (first pass): 8 loads eight positions of a lane's run before
// pushing them (a GPU needs about 2 MiB in flight, and one 4-byte value
// per resident lane is about 1 MiB on an H100), as their aligned subtree
// (tree_push8: a run starts at an aligned position, so its k-th batch of
// eight is a node of the tree); the products and their order are the
// same as one at a time. 1 or undefined: one at a time.
// A partial is word 0 of reduce_part_float.glsl's PART_WORDS-word entry
// (the float functions share one partial size): the node's FLOAT32 bits.
// FLOAT16 inputs widen exactly; the products are FLOAT32 and the answer is
// rounded to FLOAT16 once at the end (DirectML computes FLOAT16 in
// FLOAT32, rule 41).
// HW_MUL 1: each product is the hardware's FLOAT32 multiply (OpFMul,
// `precise`: NoContraction), in place of mul_f32's ~50 integer ops. The
// variant table declares DenormPreserve, SignedZeroInfNanPreserve and
// RoundingModeRTE for 32-bit floats on these modules (RoundingRTE32), so
// the multiply is IEEE's correctly rounded one, to nearest even, with
// denormals kept in and out and ±0, ±inf and NaN respected: the same bits
// as mul_f32 for every pair but NaN's payload, which output_bits replaces
// with the one NaN (a partial NaN stays a NaN through every later
// product). The planner runs them only where the device reports the three
// float controls.

#ifndef LOADS
#define LOADS 1
#endif
#ifndef HW_MUL
#define HW_MUL 0
#endif
#ifndef HALF_VEC
#define HALF_VEC 0
#endif
#ifndef COL
#define COL 0
#endif
#if HALF_VEC
#extension GL_ARB_gpu_shader_int64 : require
#define ELEM_SRC4 0
#endif
#if COL
#extension GL_EXT_control_flow_attributes : require
#endif
#if COMBINE
#define REDUCE_COMBINE 1
#define WORD_SRC 0
#else
#define ELEM_SRC 0
#endif
#define WORD_DST 1
#define WORD_DST_RW 1
#include "elem.glsl"
#include "common.glsl"
#include "reduce.glsl"
#include "reduce_part_float.glsl"

const uint F32_ONE = 0x3f800000u;

// tree_mul is the FLOAT32 product x·y of two nodes, rounded to nearest
// even (HW_MUL: see the header).
uint tree_mul(uint x, uint y) {
#if HW_MUL
	precise float p = uintBitsToFloat(x) * uintBitsToFloat(y);
	return floatBitsToUint(p);
#else
	return mul_f32(x, y);
#endif
}

// The tree's stack: node values of strictly decreasing sizes, bottom
// first. A scan pushes at most argIters values (2^14), so 16 levels hold
// it; 32 hold any 32-bit count.
#define TREE_DEPTH 32
uint tree_v[TREE_DEPTH];
uint tree_depth, tree_count;

void tree_start() {
	tree_depth = 0u;
	tree_count = 0u;
}

// tree_push appends the next value in order: its subtree merges with each
// complete left sibling on the stack.
void tree_push(uint x) {
	uint v = x;
	for (uint m = tree_count; (m & 1u) != 0u; m >>= 1) {
		tree_depth--;
		v = tree_mul(tree_v[tree_depth], v);
	}
	tree_v[tree_depth] = v;
	tree_depth++;
	tree_count++;
}

// tree_push_node appends the node v over the next 2^k values, the count
// a multiple of 2^k: its merges with the stack (once per trailing one bit
// of count/2^k), the products and their order tree_push's 2^k times.
void tree_push_node(uint v, uint k) {
	for (uint m = tree_count >> k; (m & 1u) != 0u; m >>= 1) {
		tree_depth--;
		v = tree_mul(tree_v[tree_depth], v);
	}
	tree_v[tree_depth] = v;
	tree_depth++;
	tree_count += 1u << k;
}

// tree8 is the subtree of eight values in order.
uint tree8(uint x0, uint x1, uint x2, uint x3, uint x4, uint x5, uint x6, uint x7) {
	return tree_mul(tree_mul(tree_mul(x0, x1), tree_mul(x2, x3)), tree_mul(tree_mul(x4, x5), tree_mul(x6, x7)));
}

// tree_push8 appends the next eight values, the count a multiple of 8.
void tree_push8(uint x0, uint x1, uint x2, uint x3, uint x4, uint x5, uint x6, uint x7) {
	tree_push_node(tree8(x0, x1, x2, x3, x4, x5, x6, x7), 3u);
}

// tree_value is the tree over the values pushed, padded with 1s: the
// stack's nodes multiplied from the top down (1 for none).
uint tree_value() {
	if (tree_depth == 0u) {
		return F32_ONE;
	}
	uint v = tree_v[tree_depth - 1u];
	for (uint i = tree_depth - 1u; i > 0u; i--) {
		v = tree_mul(tree_v[i - 1u], v);
	}
	return v;
}

// output_bits is the value written: the one NaN (rule 43), and FLOAT16
// outputs rounded once.
uint output_bits(uint v) {
	if (f32_is_nan(v)) {
		v = fmt_nan(FMT_F32);
	}
	return VAL_LOG == 1u ? f32_to_f16(v) : v;
}

#if GROUP
#define WG_MAX 256
shared uint sh_v[WG_MAX];

// lane_chunk is the positions (or partials) a lane takes of a range of
// len: the range's power-of-two cover split over the workgroup's lanes.
uint lane_chunk(uint len) {
	uint p = len <= 1u ? 1u : 1u << uint(findMSB(len - 1u) + 1);
	return max(1u, p / gl_WorkGroupSize.x);
}

// lanes_tree multiplies the lanes' values, lane 0 first, as the canonical
// tree over them; every lane gets the result. The caller meets a barrier
// before sh_v is reused.
uint lanes_tree(uint v) {
	uint t = gl_LocalInvocationID.x;
	sh_v[t] = v;
	barrier();
	for (uint h = 1u; h < gl_WorkGroupSize.x; h <<= 1) {
		if ((t & (2u * h - 1u)) == 0u) {
			sh_v[t] = tree_mul(sh_v[t], sh_v[t + h]);
		}
		barrier();
	}
	return sh_v[0];
}
#endif

#if !COMBINE

layout(push_constant) uniform Push {
	uint base_src;   // words
	uint base_dst;   // words
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

// term is block position j's value as FLOAT32 bits.
uint term(uint kin, uint j) {
	uint x = elem_load(pc.base_src, kin + red_offset(j) - pc.in_win).x;
	return VAL_LOG == 1u ? f16_to_f32(x) : x;
}

#if HALF_VEC
// THE VECTOR RUN (HALF_VEC). A normal FLOAT16 h (exponent field e in
// 1..30) widens to the FLOAT32 |h| by integer arithmetic on a 64-bit word
// of four halves, two halves at once: its magnitude bits placed in a
// FLOAT32's (e to bits 23..27, the significand to bits 13..22: a shift
// and a mask) make the FLOAT32 of exponent field e, and adding 112 to
// that field makes it e + 112, the FLOAT32 |h| (half_mag4). Zeros,
// denormals (e = 0), infinities and NaN (e = 31) are found on the way
// (half_mag4's odd and normal): a lane that meets one pushes its whole
// run again through term() (the widening path). The magnitudes' tree is
// the values' tree up to the sign: each product is rounded to nearest
// even, symmetric in the sign, and every factor's sign multiplies into
// the product, so a node's sign is the parity of its values' signs (a
// NaN's sign aside, which output_bits drops). The products are
// tree_mul's, as on every other path.

#define HALF_MAG 0x7fff7fff7fff7fffUL
#define HALF_TOP 0x8000800080008000UL
#define HALF_F32_KEEP 0x0fffe0000fffe000UL
#define HALF_F32_BIAS 0x3800000038000000UL // 112 in each word's exponent field

// half_mag4 is the FLOAT32 magnitudes of the four halves of the 64-bit
// word a, the low half of a's low word first: the low halves from a
// shifted left by 13, the high ones from a shifted right by 3. odd
// gathers bit 15 set for a half of exponent field 31, normal keeps it
// only while every half has one of 1 or more, sgn gathers the signs.
uvec4 half_mag4(uint64_t a, inout uint64_t odd, inout uint64_t normal, inout uint64_t sgn) {
	uint64_t t = a & HALF_MAG;
	odd |= t + 0x0400040004000400UL;
	normal &= t + 0x7c007c007c007c00UL;
	sgn ^= a;
	uvec2 lo = unpackUint2x32(((a << 13) & HALF_F32_KEEP) + HALF_F32_BIAS);
	uvec2 hi = unpackUint2x32(((a >> 3) & HALF_F32_KEEP) + HALF_F32_BIAS);
	return uvec4(lo.x, hi.x, lo.y, hi.y);
}

// half_node4 is the subtree of the four halves of the 64-bit word a
// (positions 0..3, half_mag4's order).
uint half_node4(uint64_t a, inout uint64_t odd, inout uint64_t normal, inout uint64_t sgn) {
	uvec4 m = half_mag4(a, odd, normal, sgn);
	return tree_mul(tree_mul(m.x, m.y), tree_mul(m.z, m.w));
}

// half_sign is the parity of the sign bits gathered in sgn, at bit 31.
uint half_sign(uint64_t sgn) {
	uint s = unpackUint2x32(sgn).x ^ unpackUint2x32(sgn).y;
	s ^= s << 16;
	return s & 0x80000000u;
}
#endif

// push_run pushes block positions [j, end) in order.
void push_run(uint kin, uint j, uint end) {
#if LOADS == 8
	for (; end - j >= 8u; j += 8u) {
		uint x0 = term(kin, j), x1 = term(kin, j + 1u), x2 = term(kin, j + 2u), x3 = term(kin, j + 3u);
		uint x4 = term(kin, j + 4u), x5 = term(kin, j + 5u), x6 = term(kin, j + 6u), x7 = term(kin, j + 7u);
		tree_push8(x0, x1, x2, x3, x4, x5, x6, x7);
	}
#endif
	for (; j < end; j++) {
		tree_push(term(kin, j));
	}
}

#if HALF_VEC
// push_run_vec pushes the positions [j, end) of a contiguous block in
// order: sixteen halves a trip from a 16-byte aligned start (their
// magnitudes), the rest through push_run; it returns the sign bit the
// magnitudes' product takes (0 where push_run took them all).
uint push_run_vec(uint kin, uint j, uint end) {
	uint e = pc.base_src * 2u + kin + red_offset(j) - pc.in_win;
	if ((e & 7u) != 0u || end - j < 16u) {
		push_run(kin, j, end);
		return 0u;
	}
	uint j0 = j;
	uint64_t odd = 0UL, normal = HALF_TOP, sgn = 0UL;
	for (uint v = e >> 3; end - j >= 16u; j += 16u, v += 2u) {
		uvec4 q0 = elem_src4.x[v], q1 = elem_src4.x[v + 1u];
		uint n0 = tree_mul(half_node4(packUint2x32(q0.xy), odd, normal, sgn), half_node4(packUint2x32(q0.zw), odd, normal, sgn));
		uint n1 = tree_mul(half_node4(packUint2x32(q1.xy), odd, normal, sgn), half_node4(packUint2x32(q1.zw), odd, normal, sgn));
		tree_push_node(tree_mul(n0, n1), 4u);
	}
	if ((odd & HALF_TOP) != 0UL || (normal & HALF_TOP) != HALF_TOP) {
		// A zero, a denormal, an infinity or a NaN: the whole run
		// again, widened.
		tree_start();
		push_run(kin, j0, end);
		return 0u;
	}
	push_run(kin, j, end);
	return half_sign(sgn);
}
#endif

void write_value(uint o, uint seg, uint kout, uint v) {
	if (OUT_MODE == 2u) {
		word_dst.x[pc.base_dst + PART_WORDS * (o * pc.nseg + seg - pc.dst_win)] = v;
	} else {
		store_value(pc.base_dst, kout - pc.dst_win, output_bits(v));
	}
}

#if COL
// THE COLUMN KERNEL (COL, with HALF_VEC; thread shape): FLOAT16 columns in
// reduce_half_col.comp's layout (the innermost kept dimension of stride
// 1 and a multiple of 8 long, every other input stride a multiple of 8
// elements: ops/reduce_layout.go argVecLayout), one invocation per (8
// adjacent outputs, segment) reading one 16-byte vector of their 8
// halves a block position. Each column builds the thread kernel's tree
// over its segment, the columns in lockstep: their stacks (col_a for
// columns 0..3, col_b for 4..7) take the same pushes at the same counts,
// so each column's products and their order are tree_push's over its
// positions. LOADS (16) positions' vectors are loaded before any is
// used; a segment holds a multiple of 16 positions or is its block's
// last (the planner's segments are aligned powers of two), so each whole
// batch of 16 is a node of the tree (tree16 of the column's 16 values,
// pushed as col_push_node(.., 4)) and the rest go one at a time. The
// halves widen as the vector run's (half_mag4: magnitudes, the sign of a
// column's product the parity of its signs, gathered per column in
// sgn_a and sgn_b's bit 15 of each 16-bit lane); a zero, denormal,
// infinity or NaN in any column sends the invocation's segment through
// the widening path again (f16_to_f32 of each half, signs kept).

// tree_mul4 is tree_mul of each of four columns' pairs.
uvec4 tree_mul4(uvec4 x, uvec4 y) {
	return uvec4(tree_mul(x.x, y.x), tree_mul(x.y, y.y), tree_mul(x.z, y.z), tree_mul(x.w, y.w));
}

// The columns' stacks, as tree_v: a segment holds at most argIters/2
// (2^13) positions, so at most 14 nodes.
#define COL_DEPTH 16
uvec4 col_a[COL_DEPTH], col_b[COL_DEPTH];
uint col_depth, col_count;

// col_push_node appends the nodes a (columns 0..3) and b (4..7) over the
// next 2^k positions, the count a multiple of 2^k (tree_push_node).
void col_push_node(uvec4 a, uvec4 b, uint k) {
	for (uint m = col_count >> k; (m & 1u) != 0u; m >>= 1) {
		col_depth--;
		a = tree_mul4(col_a[col_depth], a);
		b = tree_mul4(col_b[col_depth], b);
	}
	col_a[col_depth] = a;
	col_b[col_depth] = b;
	col_depth++;
	col_count += 1u << k;
}

// col_value is each column's tree over the positions pushed (tree_value;
// a segment holds one at least).
void col_value(out uvec4 a, out uvec4 b) {
	a = col_a[col_depth - 1u];
	b = col_b[col_depth - 1u];
	for (uint i = col_depth - 1u; i > 0u; i--) {
		a = tree_mul4(col_a[i - 1u], a);
		b = tree_mul4(col_b[i - 1u], b);
	}
}

// col_sign4 is the sign bit of four columns' products: the parity of
// their halves' signs gathered in sgn (half_mag4's, word by word).
uvec4 col_sign4(uint64_t sgn) {
	uvec2 s = unpackUint2x32(sgn);
	return uvec4(s.x << 16, s.x, s.y << 16, s.y) & 0x80000000u;
}

// col_exact4 widens the four halves of w (f16_to_f32: signs, zeros,
// denormals, infinities and NaN kept), the low half of w.x first.
uvec4 col_exact4(uvec2 w) {
	return uvec4(f16_to_f32(w.x & 0xffffu), f16_to_f32(w.x >> 16), f16_to_f32(w.y & 0xffffu), f16_to_f32(w.y >> 16));
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
		uint64_t odd = 0UL, normal = HALF_TOP, sgn_a = 0UL, sgn_b = 0UL;
		// MAG widens vector q's halves to the magnitudes a##u (columns
		// 0..3) and b##u (4..7).
#define MAG(q, u)                                                         \
	uvec4 a##u = half_mag4(packUint2x32(q.xy), odd, normal, sgn_a);      \
	uvec4 b##u = half_mag4(packUint2x32(q.zw), odd, normal, sgn_b);
#define LOADQ(u) NEXT() uvec4 q##u = elem_src4.x[v];
#define PAIR(u, w, p) MAG(q##u, u) MAG(q##w, w) uvec4 a##p = tree_mul4(a##u, a##w), b##p = tree_mul4(b##u, b##w);
#define JOIN(u, w, p) uvec4 a##p = tree_mul4(a##u, a##w), b##p = tree_mul4(b##u, b##w);
		col_depth = 0u;
		col_count = 0u;
		uint k = 0u;
		for (; n - k >= 16u; k += 16u) {
			if (k > 0u) {
				NEXT()
			}
			uvec4 q0 = elem_src4.x[v];
			LOADQ(1) LOADQ(2) LOADQ(3) LOADQ(4) LOADQ(5) LOADQ(6) LOADQ(7)
			LOADQ(8) LOADQ(9) LOADQ(10) LOADQ(11) LOADQ(12) LOADQ(13) LOADQ(14) LOADQ(15)
			// tree16 of each column: pairs, fours, eights, sixteen.
			PAIR(0, 1, 16) PAIR(2, 3, 17) PAIR(4, 5, 18) PAIR(6, 7, 19)
			PAIR(8, 9, 20) PAIR(10, 11, 21) PAIR(12, 13, 22) PAIR(14, 15, 23)
			JOIN(16, 17, 24) JOIN(18, 19, 25) JOIN(20, 21, 26) JOIN(22, 23, 27)
			JOIN(24, 25, 28) JOIN(26, 27, 29) JOIN(28, 29, 30)
			col_push_node(a30, b30, 4u);
		}
		for (; k < n; k++) {
			if (k > 0u) {
				NEXT()
			}
			uvec4 q = elem_src4.x[v];
			MAG(q, 0)
			col_push_node(a0, b0, 0u);
		}
#undef JOIN
#undef PAIR
#undef LOADQ
#undef MAG
		uvec4 ra, rb;
		if ((odd & HALF_TOP) != 0UL || (normal & HALF_TOP) != HALF_TOP) {
			// A zero, a denormal, an infinity or a NaN: the segment
			// again, each half widened with its sign.
			col_depth = 0u;
			col_count = 0u;
			roff = red_coords(j0, c);
			v = (ebase + roff) >> 3;
			for (uint r = 0u; r < n; r++) {
				if (r > 0u) {
					NEXT()
				}
				uvec4 q = elem_src4.x[v];
				col_push_node(col_exact4(q.xy), col_exact4(q.zw), 0u);
			}
			col_value(ra, rb);
		} else {
			col_value(ra, rb);
			ra ^= col_sign4(sgn_a);
			rb ^= col_sign4(sgn_b);
		}
#undef NEXT
		// One loop, not eight copies of output_bits' rounding: the
		// pipeline compiles in a fraction of the time.
		uint vals[8] = uint[8](ra.x, ra.y, ra.z, ra.w, rb.x, rb.y, rb.z, rb.w);
		[[dont_unroll]] for (uint i = 0u; i < 8u; i++) {
			write_value(o + i, pc.seg_base + sl, kout + i * DO0, vals[i]);
		}
	}
}
#elif !GROUP
void main() {
	uint items = pc.o_count * pc.nloc;
	uint step = grid_size();
	for (uint it = grid_index(); it < items; it += step) {
		uint ol = it % pc.o_count, sl = it / pc.o_count;
		uint o = pc.o_begin + ol;
		uint kin, kout;
		kept_offsets(o, kin, kout);
		uint jb = sl * pc.seg_len;
		uint n = min(pc.seg_len, pc.j_count - jb);
		uint j0 = pc.j_begin + jb;
		tree_start();
		push_run(kin, j0, j0 + n);
		write_value(o, pc.seg_base + sl, kout, tree_value());
	}
}
#else
void main() {
	uint items = pc.o_count * pc.nloc;
	uint ngroups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
	uint t = gl_LocalInvocationID.x;
	uint c = lane_chunk(pc.seg_len);
	for (uint it = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; it < items; it += ngroups) {
		uint ol = it / pc.nloc, sl = it % pc.nloc;
		uint o = pc.o_begin + ol;
		uint kin, kout;
		kept_offsets(o, kin, kout);
		uint jb = sl * pc.seg_len;
		uint n = min(pc.seg_len, pc.j_count - jb);
		uint j0 = pc.j_begin + jb;
		tree_start();
		// (lanes past the segment scan nothing: t*c >= n)
		uint js = j0 + min(t * c, n), je = j0 + min(t * c + c, n), sign = 0u;
#if HALF_VEC
		if (NR == 1u && DI7 == 1u) {
			sign = push_run_vec(kin, js, je);
		} else
#endif
		push_run(kin, js, je);
		uint v = lanes_tree(tree_value() ^ sign);
		if (t == 0u) {
			write_value(o, pc.seg_base + sl, kout, v);
		}
		barrier();
	}
}
#endif

#else // COMBINE

layout(push_constant) uniform Push {
	uint base_tmp;  // words
	uint base_out;  // words
	uint o_begin;
	uint o_count;
	uint nseg;      // partials per output
	uint tmp_win;   // partial entry at the start of the temporary window
	uint out_win;   // output element offset of the output window (mod 2^32)
} pc;

// push_partials pushes output o's partials [s, end) in order: the word
// index steps by PART_WORDS, so a trip costs a load and its push (no
// push-constant loads or index arithmetic a partial).
void push_partials(uint o, uint s, uint end) {
	uint w = pc.base_tmp + PART_WORDS * (o * pc.nseg + s - pc.tmp_win);
	for (uint w_end = w + PART_WORDS * (end - s); w != w_end; w += PART_WORDS) {
		tree_push(word_src.x[w]);
	}
}

#if !GROUP
void main() {
	uint step = grid_size();
	for (uint ol = grid_index(); ol < pc.o_count; ol += step) {
		uint o = pc.o_begin + ol;
		tree_start();
		push_partials(o, 0u, pc.nseg);
		uint kin, kout;
		kept_offsets(o, kin, kout);
		store_value(pc.base_out, kout - pc.out_win, output_bits(tree_value()));
	}
}
#else
void main() {
	uint ngroups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
	uint t = gl_LocalInvocationID.x;
	uint c = lane_chunk(pc.nseg);
	for (uint ol = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; ol < pc.o_count; ol += ngroups) {
		uint o = pc.o_begin + ol;
		tree_start();
		push_partials(o, min(t * c, pc.nseg), min(t * c + c, pc.nseg));
		uint v = lanes_tree(tree_value());
		if (t == 0u) {
			uint kin, kout;
			kept_offsets(o, kin, kout);
			store_value(pc.base_out, kout - pc.out_win, output_bits(v));
		}
		// The next output reuses sh_v.
		barrier();
	}
}
#endif

#endif
