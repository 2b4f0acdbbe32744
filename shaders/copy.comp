#version 450
// copy.comp: ELEMENT_WISE_IDENTITY, the strided copy every other kernel is
// measured against. The element is copied bit for bit, so one variant per
// element width serves all ten data types.
//
// Defines: ELEM_BITS (8, 16, 32 or 64) and NATIVE, as in elem.glsl.

#define ELEM_SRC 0
#define ELEM_DST 1
#include "elem.glsl"
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
		elem_store(pc.base_out, oo, elem_load(pc.base_in, io));
	}
}
