#version 450
// topk_gather.comp: the split radix select's scan (topk_split.glsl,
// topk_gather.glsl), one row a workgroup, for the rows in state want:
// the sampled rows where the planner keeps it apart from the sampled
// threshold (topk_thresh.comp GATHER 0), and the exact rows.

#extension GL_EXT_control_flow_attributes : require

#define ELEM_BITS 32
#define ELEM_SRC 0
#define ELEM_SRC_TEXEL 1
#include "elem.glsl"
#include "common.glsl"
#include "topk.glsl"
#include "topk_split.glsl"

#include "topk_gather.glsl"

void main() {
	uint rl = split_item();
	if (rl >= pc.r_count) {
		return;
	}
	if (pc.want == ROW_SAMPLED && rl == 0u && gl_LocalInvocationID.x == 0u) {
		// The first dispatch after the sample's threshold, over every
		// row: the rankings' lists start empty.
		split_init();
	}
	uint kin, kv, kx;
	row_offsets(pc.r_begin + rl, kin, kv, kx);
	uint row = split_row(rl);
	gather_row(row, kin, rows_buf.x[row + ST_STATE] == pc.want, rows_buf.x[row + ST_TS], rows_buf.x[row + ST_TJ]);
}
