#version 450
// reduce_half_sq_check.comp: TestHalfSquaresGLSL's kernel. Invocation i
// takes the i-th word (a FLOAT16 in its low half, +0 in its high one) and
// writes shaders/reduce_half.glsl's verdicts on it as six 64-bit words:
// half_sq_outside's lane tops in windows 0 and 1, half_sq_pair's sum of
// squares in windows 0 and 1, and half_sq_exact's 128-bit square (low
// word, then the high word with the flags in its top 32 bits).
#extension GL_ARB_gpu_shader_int64 : require
#include "reduce_exact.glsl"
#include "reduce_half.glsl"

layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint x[]; } src;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uvec2 y[]; } dst;
layout(push_constant) uniform Push {
	uint base_in;
	uint base_out;
	uint n; // words
} pc;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i >= pc.n) {
		return;
	}
	uint w = src.x[i];
	dst.y[6u * i] = unpackUint2x32(half_sq_outside(uint64_t(w), 0u) & HALF_LANE_TOP);
	dst.y[6u * i + 1u] = unpackUint2x32(half_sq_outside(uint64_t(w), 1u) & HALF_LANE_TOP);
	dst.y[6u * i + 2u] = unpackUint2x32(half_sq_pair(w, 0u));
	dst.y[6u * i + 3u] = unpackUint2x32(half_sq_pair(w, 1u));
	uint64_t lo = 0UL, hi = 0UL;
	uint f = 0u;
	half_sq_exact(lo, hi, f, w & 0xffffu);
	dst.y[6u * i + 4u] = unpackUint2x32(lo);
	dst.y[6u * i + 5u] = uvec2(uint(hi), f);
}
