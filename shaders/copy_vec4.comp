#version 450
// copy_vec4.comp: ELEMENT_WISE_IDENTITY when input and output are both
// packed and their byte count is a multiple of 16: a straight copy of
// 16-byte vectors, the bandwidth reference every other kernel is measured
// against. DirectML binding offsets are multiples of 16 bytes, so the base
// offsets (in words) are multiples of 4.

#define ELEM_SRC4 0
#define ELEM_DST4 1
#include "elem.glsl"
#include "common.glsl"

layout(push_constant) uniform Push {
	uint base_in;  // words
	uint base_out; // words
	uint count;    // 16-byte vectors
} pc;

void main() {
	uint step = grid_size();
	uint si = pc.base_in / 4u, di = pc.base_out / 4u;
	for (uint i = grid_index(); i < pc.count; i += step) {
		elem_dst4.x[di + i] = elem_src4.x[si + i];
	}
}
