#version 450
// maxpool.comp: MAX_POOLING, MAX_POOLING1 and MAX_POOLING2 (semantics.md
// rules 7-11). One invocation per output element, in a grid-stride loop;
// consecutive invocations take consecutive output W positions, so reads and
// writes of neighbouring invocations are neighbours in memory.
//
// The operator's shape (sizes, strides, window, dilation, padding) is given
// as specialization constants, so the driver folds the index arithmetic and
// unrolls the interior loop; only what changes between the steps of one
// operator (the window of planes a step covers) is in push constants.
//
// The window's scan, and rule 9's exact order, are maxpool_window.glsl's.
//
// Defines:
//   ELEM_BITS  8, 16, 32 or 64: the width of the input and output elements;
//              their kind (unsigned, signed, float) is in the specialization
//              constant KIND, so one variant serves every type of a width
//   NATIVE     8/16-bit elements only: storage path, as in elem.glsl
//   IDX_BITS   0 (no indices), 32 (UINT32) or 64 (UINT64, one 8-byte store
//              each: the flat index, then 0; inputs have < 2^32 elements)
//   PRELOAD    1: an interior window's taps are all loaded before the
//              first is compared (maxpool_window.glsl)

#if PRELOAD
#extension GL_EXT_control_flow_attributes : require
#endif

#define ELEM_SRC 0
#define ELEM_DST 1
#if IDX_BITS == 32
#define WORD_DST 2
#elif IDX_BITS == 64
#define WORD_DST2 2
#endif
#include "elem.glsl"
#include "common.glsl"
#include "maxpool_window.glsl"

layout(push_constant) uniform Push {
	uint base_in;  // words
	uint base_out; // words
#if IDX_BITS
	uint base_idx; // words (even for UINT64 indices)
#endif
	uint total;    // output elements this step
	uint plane0;   // global plane number (n·C + c) of the step's first plane
	uint in_e0;    // element offset of the step's first plane in the input binding
	uint out_e0;   // ... in the output binding
	uint idx_e0;   // ... in the indices binding
} pc;

#if IDX_BITS
// The indices tensor's strides (N, C, D, H, W).
layout(constant_id = 31) const uint IDX_SN = 0;
layout(constant_id = 32) const uint IDX_SC = 0;
layout(constant_id = 33) const uint IDX_SD = 0;
layout(constant_id = 34) const uint IDX_SH = 0;
layout(constant_id = 35) const uint IDX_SW = 0;
#endif

void main() {
	uint step = grid_size(), total = pc.total;
	for (uint i = grid_index(); i < total; i += step) {
		// The coordinates; an axis of one output (D in 4D) costs nothing.
		uint ow = OW == 1u ? 0u : i % OW;
		uint r = OW == 1u ? i : i / OW;
		uint oh = OH == 1u ? 0u : r % OH;
		r = OH == 1u ? r : r / OH;
		uint od = OD == 1u ? 0u : r % OD;
		uint p = OD == 1u ? r : r / OD; // the step's local plane
		uint nl = CSTEP == 1u ? p : p / CSTEP, cl = CSTEP == 1u ? 0u : p % CSTEP;

		pool_window(pc.base_in, pc.in_e0 + nl * IN_SN + cl * IN_SC, (pc.plane0 + p) * PLANE,
			int(od * SD) - PD, int(oh * SH) - PH, int(ow * SW) - PW);

		uint e = pc.out_e0 + nl * OUT_SN + cl * OUT_SC + od * OUT_SD + oh * OUT_SH + ow * OUT_SW;
#if ELEM_BITS == 64
		elem_store(pc.base_out, e, best_bits);
#else
		elem_store(pc.base_out, e, uvec2(best_bits, 0u));
#endif
#if IDX_BITS
		e = pc.idx_e0 + nl * IDX_SN + cl * IDX_SC + od * IDX_SD + oh * IDX_SH + ow * IDX_SW;
#if IDX_BITS == 64
		word_dst2.x[pc.base_idx / 2u + e] = uvec2(best_idx, 0u);
#else
		word_dst.x[pc.base_idx + e] = best_idx;
#endif
#endif
	}
}
