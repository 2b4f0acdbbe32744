#version 450
// maxpool_grid.comp: MAX_POOLING, MAX_POOLING1 and MAX_POOLING2 (semantics.md
// rules 7-11) for GPUs: maxpool.comp's rules with a 3D grid instead of its
// grid-stride loop and div/mod chain. One invocation per output: x covers
// the output columns, y the output rows (D·H), z the step's (n, c) planes;
// a workgroup of WG lanes is a tile of WGX columns by WG / WGX rows, so
// that the host can make the grid exact (no empty lane) for any output
// width. Consecutive lanes take consecutive columns, so neighbouring
// lanes read and write neighbours in memory.
//
// The window's scan, and rule 9's exact order, are maxpool_window.glsl's.
//
// Defines: ELEM_BITS, NATIVE and PRELOAD as in maxpool.comp; IDX_BITS 0, 32
// or 64 (UINT64 indices are one 8-byte store each: the flat index, then 0).

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

// The tile: WGX columns by WG / WGX rows.
layout(constant_id = 31) const uint WGX = 1;
// The indices tensor's strides (N, C, D, H, W).
layout(constant_id = 32) const uint IDX_SN = 0;
layout(constant_id = 33) const uint IDX_SC = 0;
layout(constant_id = 34) const uint IDX_SD = 0;
layout(constant_id = 35) const uint IDX_SH = 0;
layout(constant_id = 36) const uint IDX_SW = 0;

const uint WGY = gl_WorkGroupSize.x / WGX;

layout(push_constant) uniform Push {
	uint base_in;  // words
	uint base_out; // words
#if IDX_BITS
	uint base_idx; // words (even for UINT64 indices)
#endif
	uint plane0;   // global plane number (n·C + c) of the step's first plane
	uint p0;       // the dispatch's first plane, local to the step
	uint r0;       // the dispatch's first output row (od·OH + oh)
	uint in_e0;    // element offset of the step's first plane in the input binding
	uint out_e0;   // ... in the output binding
	uint idx_e0;   // ... in the indices binding
} pc;

void main() {
	// A lane past the last column or row (the host keeps them within 1%
	// of the lanes) computes the last one again and stores what its owner
	// stores, rather than branching around the work.
	uint lane = gl_LocalInvocationID.x;
	uint ow = min(gl_WorkGroupID.x * WGX + lane % WGX, OW - 1u);
	uint r = min(pc.r0 + gl_WorkGroupID.y * WGY + lane / WGX, OD * OH - 1u);
	uint p = pc.p0 + gl_WorkGroupID.z; // the step's local plane
	uint od = OD == 1u ? 0u : r / OH, oh = OD == 1u ? r : r % OH;
	// CSTEP 0: the planes are evenly spaced in every tensor (or a step
	// holds one batch), so p is a channel of batch 0.
	uint nl = CSTEP == 0u ? 0u : p / CSTEP, cl = CSTEP == 0u ? p : p % CSTEP;

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
