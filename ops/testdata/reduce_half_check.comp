#version 450
// reduce_half_check.comp: TestHalfVecGLSL's kernel. Invocation i takes the
// i-th pair of words (four FLOAT16) and writes shaders/reduce_half.glsl's
// verdicts: half_odd's lane tops (a 64-bit word), and half_quad's sum of
// the terms h·2^24 as x, then as |x| (64-bit words, two's complement).
#extension GL_ARB_gpu_shader_int64 : require
#include "reduce_half.glsl"

layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uvec2 x[]; } src;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uvec2 y[]; } dst;
layout(push_constant) uniform Push {
	uint base_in;
	uint base_out;
	uint n; // pairs
} pc;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i >= pc.n) {
		return;
	}
	uvec2 w = src.x[i];
	dst.y[3u * i] = unpackUint2x32(half_odd(packUint2x32(w)) & HALF_LANE_TOP);
	dst.y[3u * i + 1u] = unpackUint2x32(uint64_t(half_quad(w, HALF_KEEP_X)));
	dst.y[3u * i + 2u] = unpackUint2x32(uint64_t(half_quad(w, HALF_KEEP_ABS)));
}
