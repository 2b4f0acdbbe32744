#version 450
// reduce_float_check.comp: TestFloatFunctionsGLSL's kernel. Invocation i
// applies shaders/reduce_float.glsl's function FN (push) to word i of the
// input and writes the result's bits, which must equal the Go reference's:
// 0 exp_f32, 1 log_f32, 2 sqrt_f32, 3 div_f32_count by i % 1000 + 1,
// 4 f32_to_f16, 5 mul_f32(x, x), 6 f16_to_f32 of the low half, 7
// exp_f32_fast (0xffffffff where it falls back), 8 exp_f32_q62.
#include "reduce_exact.glsl"
#include "reduce_float.glsl"

layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint x[]; } src;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint y[]; } dst;
layout(push_constant) uniform Push {
	uint base_in;
	uint base_out;
	uint n;
	uint fn;
} pc;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i >= pc.n) {
		return;
	}
	uint x = src.x[pc.base_in + i], y = 0u;
	switch (pc.fn) {
	case 0u: y = exp_f32(x); break;
	case 1u: y = log_f32(x); break;
	case 2u: y = sqrt_f32(x); break;
	case 3u: y = div_f32_count(x, i % 1000u + 1u); break;
	case 4u: y = f32_to_f16(x); break;
	case 5u: y = mul_f32(x, x); break;
	case 6u: y = f16_to_f32(x & 0xffffu); break;
	case 7u: {
		bool fallback;
		y = exp_f32_fast(x, fallback);
		y = fallback ? 0xffffffffu : y;
		break;
	}
	case 8u: y = exp_f32_q62(x); break;
	}
	dst.y[pc.base_out + i] = y;
}
