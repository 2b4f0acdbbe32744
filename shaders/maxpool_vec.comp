#version 450
// maxpool_vec.comp: MAX_POOLING/1/2 for the common 2x2 window, stride 2,
// no padding, dilation 1, on packed 4D tensors of 32-bit elements whose
// output width is a multiple of 4 and input width a multiple of 4 (the host,
// ops/maxpool_plan.go, checks all of it, and that every window lies inside
// the input). Each invocation computes 4 adjacent outputs of one row from
// two 32-byte input row pieces (four 16-byte loads) and writes the values
// and indices with 16-byte stores: every element stored is an addressed
// output element (the output is packed and the 4 outputs are whole).
//
// Rule 9 exactly as maxpool.comp: the best starts at the type's lowest
// finite value with the first tap's index, taps are visited in row-major
// window order ((0,0), (0,1), (1,0), (1,1)) and replace the best only when
// strictly greater, comparing elem.glsl's keys (NaN is never selectable, −∞
// has a key below −FLT_MAX's). Indices are flat over the packed input
// (rule 10); with a packed input they equal the element offsets.
//
// Defines: IDX_BITS 0, 32 or 64 (two words per index: the index, then 0).
// The element kind (FLOAT32, UINT32 or INT32) is the specialization
// constant KIND.

#define ELEM_BITS 32
#define ELEM_SRC4 0
#define ELEM_DST4 1
#if IDX_BITS
#define WORD_DST4 2
#endif
#include "elem.glsl"
#include "common.glsl"

layout(constant_id = 1) const uint IH = 2;
layout(constant_id = 2) const uint IW = 8;
layout(constant_id = 3) const uint OH = 1;
layout(constant_id = 4) const uint OW = 4;
// The element kind: KIND_UNSIGNED, KIND_SIGNED or KIND_FLOAT (elem.glsl).
layout(constant_id = 5) const uint KIND = KIND_UNSIGNED;

layout(push_constant) uniform Push {
	uint base_in;  // words (multiples of 4: bindings start 16-byte aligned)
	uint base_out; // words
#if IDX_BITS
	uint base_idx; // words
#endif
	uint quads;    // groups of 4 outputs
	uint per;      // quads per invocation
} pc;

uvec4 best_key, best_bits, best_idx;

void visit(uvec4 b, uvec4 i) {
	uvec4 k = elem_key(b, KIND);
	bvec4 upd = bvec4(uvec4(not(elem_is_nan(b, KIND))) & uvec4(greaterThan(k, best_key)));
	best_key = mix(best_key, k, upd);
	best_bits = mix(best_bits, b, upd);
	best_idx = mix(best_idx, i, upd);
}

void main() {
	const uint QW = OW / 4u;
	const uint WG = gl_WorkGroupSize.x;
	// Workgroup g owns quads [g·per·WG, (g+1)·per·WG), its lanes
	// interleaved, so that each step of the loop reads one contiguous piece
	// of two input rows (and on a CPU device, one workgroup streams through
	// its own part of memory).
	uint g = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
	uint first = g * pc.per * WG + gl_LocalInvocationID.x;
	for (uint k = 0u; k < pc.per; k++) {
		uint i = first + k * WG;
		if (i >= pc.quads) {
			break;
		}
		uint q = i % QW;
		uint r = i / QW; // plane * OH + oh
		uint oh = r % OH;
		uint p = r / OH;
		uint e = p * (IH * IW) + 2u * oh * IW + 8u * q; // first tap of output 0
		uint v = (pc.base_in + e) >> 2;
		uvec4 a0 = elem_src4.x[v], a1 = elem_src4.x[v + 1u];
		uvec4 b0 = elem_src4.x[v + IW / 4u], b1 = elem_src4.x[v + IW / 4u + 1u];
		uvec4 i0 = e + uvec4(0u, 2u, 4u, 6u);
		best_bits = uvec4(elem_lowest(KIND).x);
		best_key = elem_key(best_bits, KIND);
		best_idx = i0;
		visit(uvec4(a0.xz, a1.xz), i0);
		visit(uvec4(a0.yw, a1.yw), i0 + 1u);
		visit(uvec4(b0.xz, b1.xz), i0 + IW);
		visit(uvec4(b0.yw, b1.yw), i0 + IW + 1u);
		uint o = r * OW + 4u * q; // packed output offset of output 0
		elem_dst4.x[(pc.base_out >> 2) + (o >> 2)] = best_bits;
#if IDX_BITS == 32
		word_dst4.x[(pc.base_idx >> 2) + (o >> 2)] = best_idx;
#elif IDX_BITS == 64
		uint w = (pc.base_idx >> 2) + (o >> 1);
		word_dst4.x[w] = uvec4(best_idx.x, 0u, best_idx.y, 0u);
		word_dst4.x[w + 1u] = uvec4(best_idx.z, 0u, best_idx.w, 0u);
#endif
	}
}
