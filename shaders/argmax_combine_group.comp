#version 450
// argmax_combine_group.comp: the second pass of ARGMAX / ARGMIN with one
// workgroup per output. argmax_combine.comp gives an output one invocation,
// which reads its partials in a serial loop of dependent L2 round trips (a
// fixed ~155 us for split-K's 1024 partials on an H100); here lane t reads
// partials t, t+WG, ... (adjacent lanes, adjacent partials), so an output's
// nseg partials cost ceil(nseg / WG) loads per lane, then the lanes combine
// through subgroup arithmetic (SUBGROUP 1) or a shared-memory tree. The
// partials are maxima of argmax.comp's total order over disjoint parts of
// one block, so the maximum over them in any grouping is semantics.md rule
// 5's sequential scan (argmax.comp explains why).
//
// REDUCE's value functions merge their partials the same way
// (reduce_part.glsl).
//
// Specialization constants: reduce.glsl's (OUT_MODE 0, 1 or 3), with
// the workgroup size a power of two of at most WG_MAX. Push constants:
// argmax_combine.comp's. Workgroups stride over the step's outputs.

#if SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#define REDUCE_COMBINE 1
#define WORD_SRC 0
#define WORD_DST 1
#define WORD_DST_RW 1
#include "elem.glsl"
#include "common.glsl"
#include "reduce.glsl"
#if REDUCE_FLOAT
#include "reduce_part_float.glsl"
#else
#include "reduce_part.glsl"
#endif
#include "reduce_group.glsl"

layout(push_constant) uniform Push {
	uint base_tmp;  // words
	uint base_out;  // words
	uint o_begin;
	uint o_count;
	uint nseg;      // partials per output
	uint tmp_win;   // partial entry at the start of the temporary window
	uint out_win;   // output element offset of the output window (mod 2^32)
} pc;

void main() {
	uint ngroups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	for (uint ol = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; ol < pc.o_count; ol += ngroups) {
		uint o = pc.o_begin + ol;
		uint w0 = pc.base_tmp + PART_WORDS * (o * pc.nseg - pc.tmp_win);
		Part st = part_identity();
		for (uint s = t; s < pc.nseg; s += WG) {
			st = part_merge(st, READ_PART(word_src, w0 + PART_WORDS * s));
		}
		if (group_combine(st)) {
			uint kin, kout;
			kept_offsets(o, kin, kout);
			store_result(pc.base_out, kout - pc.out_win, st);
		}
		// The next output reuses the shared entries.
		barrier();
	}
}
