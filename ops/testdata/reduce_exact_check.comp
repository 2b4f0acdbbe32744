#version 450
// reduce_exact_check.comp: TestExactAccGLSL's kernel. Invocation b sums
// block b of N words of FLOAT32 bits with shaders/reduce_exact.glsl, in two
// accumulators (the block's first CUT terms, then the rest) merged, and
// writes the sum's FLOAT32 bits, which must equal the Go reference's.
#include "reduce_exact.glsl"

layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint x[]; } src;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint y[]; } dst;
layout(push_constant) uniform Push {
	uint base_in;
	uint base_out;
	uint n;   // terms per block
	uint cut; // the first accumulator's terms
} pc;

void main() {
	uint b = gl_GlobalInvocationID.x;
	uint a0[EXACT_LIMBS], a1[EXACT_LIMBS];
	for (int i = 0; i < EXACT_LIMBS; i++) {
		a0[i] = 0u;
		a1[i] = 0u;
	}
	uint f0 = 0u, f1 = 0u;
	for (uint i = 0u; i < pc.n; i++) {
		uint x = src.x[pc.base_in + b * pc.n + i];
		if (i < pc.cut) {
			exact_add(a0, f0, x);
		} else {
			exact_add(a1, f1, x);
		}
	}
	exact_merge(a1, f1, a0, f0);
	dst.y[pc.base_out + b] = exact_round_f32(a1, f1);
}
