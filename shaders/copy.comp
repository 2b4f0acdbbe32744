#version 450
// copy.comp: ELEMENT_WISE_IDENTITY, the strided copy every other kernel is
// measured against. The element is copied bit for bit, so one variant per
// element width serves all ten data types.
//
// Defines:
//   ELEM_BITS  8, 16, 32 or 64
//   NATIVE     1: 8/16-bit storage buffers (VK_KHR_8bit_storage,
//              storageBuffer16BitAccess); 0: 32-bit words, with sub-word
//              stores through atomicAnd/atomicOr so that neighbouring
//              elements, which other invocations own, are never touched.

#if NATIVE && ELEM_BITS == 8
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#elif NATIVE && ELEM_BITS == 16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#endif

#include "common.glsl"

#define MAX_RANK 8

layout(push_constant) uniform Push {
	uint base_in;   // words
	uint base_out;  // words
	uint rank;
	uint total;     // logical elements
	uint sizes[MAX_RANK];
	uint in_strides[MAX_RANK];
	uint out_strides[MAX_RANK];
} pc;

#if NATIVE && ELEM_BITS == 8
layout(std430, binding = 0) readonly buffer In { uint8_t x[]; } src;
layout(std430, binding = 1) writeonly buffer Out { uint8_t x[]; } dst;
#define SCALE 4u
#elif NATIVE && ELEM_BITS == 16
layout(std430, binding = 0) readonly buffer In { uint16_t x[]; } src;
layout(std430, binding = 1) writeonly buffer Out { uint16_t x[]; } dst;
#define SCALE 2u
#else
layout(std430, binding = 0) readonly buffer In { uint x[]; } src;
layout(std430, binding = 1) buffer Out { uint x[]; } dst;
#define SCALE 1u
#endif

void main() {
	uint step = grid_size();
	for (uint i = grid_index(); i < pc.total; i += step) {
		// Logical index -> element offsets, innermost dimension first.
		uint rest = i, io = 0u, oo = 0u;
		for (int d = int(pc.rank) - 1; d >= 0; d--) {
			uint c = rest % pc.sizes[d];
			rest /= pc.sizes[d];
			io += c * pc.in_strides[d];
			oo += c * pc.out_strides[d];
		}
#if ELEM_BITS == 64
		uint s = pc.base_in + 2u * io, t = pc.base_out + 2u * oo;
		dst.x[t] = src.x[s];
		dst.x[t + 1u] = src.x[s + 1u];
#elif NATIVE || ELEM_BITS == 32
		dst.x[pc.base_out * SCALE + oo] = src.x[pc.base_in * SCALE + io];
#else
		// Sub-word element in 32-bit words.
		const uint per = 32u / ELEM_BITS, mask = (1u << ELEM_BITS) - 1u;
		uint s = pc.base_in * per + io, t = pc.base_out * per + oo;
		uint v = (src.x[s / per] >> ((s % per) * ELEM_BITS)) & mask;
		uint sh = (t % per) * ELEM_BITS;
		atomicAnd(dst.x[t / per], ~(mask << sh));
		atomicOr(dst.x[t / per], v << sh);
#endif
	}
}
