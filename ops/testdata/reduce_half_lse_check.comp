#version 450
// reduce_half_lse_check.comp: TestHalfLSEGLSL's kernel. Binding 0 is
// ops.TableExpHalf (a FLOAT32 word a half); invocation h writes
// shaders/reduce_half.glsl's lse_unit(h) (a 64-bit word; the caller checks
// it for |h| < 8 only) and lse_outside's lane tops for the four halves
// (h, h, h, h) (a 64-bit word).
#extension GL_ARB_gpu_shader_int64 : require
#define EXP_TABLE 1
uint exp_table_term(uint h);
#include "reduce_half.glsl"

layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint x[]; } exp_half;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uvec2 y[]; } dst;
layout(push_constant) uniform Push {
	uint base_in; // 0 (the gpu package's words)
	uint base_out;
	uint n; // halves
} pc;

uint exp_table_term(uint h) { return exp_half.x[h]; }

void main() {
	uint h = gl_GlobalInvocationID.x;
	if (h >= pc.n) {
		return;
	}
	dst.y[2u * h] = unpackUint2x32(lse_unit(h));
	dst.y[2u * h + 1u] = unpackUint2x32(lse_outside(uvec2(h | h << 16)) & HALF_LANE_TOP);
}
