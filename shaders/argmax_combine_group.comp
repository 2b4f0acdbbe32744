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
// Specialization constants: reduce.glsl's (OUT_MODE 0 or 1), with
// the workgroup size a power of two of at most WG_MAX. Push constants:
// argmax_combine.comp's. Workgroups stride over the step's outputs.

#if SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#define REDUCE_COMBINE 1
#define WORD_SRC 0
#define WORD_DST 1
#include "elem.glsl"
#include "common.glsl"
#include "reduce.glsl"

layout(push_constant) uniform Push {
	uint base_tmp;  // words
	uint base_out;  // words
	uint o_begin;
	uint o_count;
	uint nseg;      // partials per output
	uint tmp_win;   // partial entry at the start of the temporary window
	uint out_win;   // output element offset of the output window (mod 2^32)
} pc;

#define WG_MAX 256
// One entry per lane (SUBGROUP 0) or per subgroup (SUBGROUP 1).
shared uint sh_lo[WG_MAX], sh_hi[WG_MAX], sh_idx[WG_MAX];

// The identity: below every partial in the total order (a partial equal to
// it is the identity itself, so the maximum is unchanged).
const uint ID_IDX = LAST != 0u ? 0u : 0xFFFFFFFFu;

#if SUBGROUP
// sg_reduce leaves the subgroup's best (score, index) in every lane: the
// maximum high word, then the maximum low word among the lanes holding it,
// then the first (or, LAST, the last) index among the lanes holding both.
void sg_reduce(inout uvec2 s, inout uint idx) {
	uint mh = subgroupMax(s.y);
	uint ml = subgroupMax(s.y == mh ? s.x : 0u);
	bool top = s.x == ml && s.y == mh;
	if (LAST != 0u) {
		idx = subgroupMax(top ? idx : 0u);
	} else {
		idx = subgroupMin(top ? idx : 0xFFFFFFFFu);
	}
	s = uvec2(ml, mh);
}
#endif

void main() {
	uint ngroups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	for (uint ol = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; ol < pc.o_count; ol += ngroups) {
		uint o = pc.o_begin + ol;
		uint w0 = pc.base_tmp + 4u * (o * pc.nseg - pc.tmp_win);
		uvec2 best = uvec2(0u);
		uint bi = ID_IDX;
		for (uint s = t; s < pc.nseg; s += WG) {
			uint w = w0 + 4u * s;
			uvec2 v = uvec2(word_src.x[w], word_src.x[w + 1u]);
			uint vi = word_src.x[w + 2u];
			if (better(v, vi, best, bi)) {
				best = v;
				bi = vi;
			}
		}
#if SUBGROUP
		sg_reduce(best, bi);
		if (subgroupElect()) {
			sh_lo[gl_SubgroupID] = best.x;
			sh_hi[gl_SubgroupID] = best.y;
			sh_idx[gl_SubgroupID] = bi;
		}
		barrier();
		if (gl_SubgroupID == 0u) {
			best = uvec2(0u);
			bi = ID_IDX;
			for (uint k = gl_SubgroupInvocationID; k < gl_NumSubgroups; k += gl_SubgroupSize) {
				uvec2 v = uvec2(sh_lo[k], sh_hi[k]);
				if (better(v, sh_idx[k], best, bi)) {
					best = v;
					bi = sh_idx[k];
				}
			}
			sg_reduce(best, bi);
			if (subgroupElect()) {
				uint kin, kout;
				kept_offsets(o, kin, kout);
				store_index(pc.base_out, kout - pc.out_win, bi, OUT_MODE == 1u);
			}
		}
#else
		sh_lo[t] = best.x;
		sh_hi[t] = best.y;
		sh_idx[t] = bi;
		barrier();
		for (uint h = WG / 2u; h > 0u; h >>= 1) {
			if (t < h) {
				uvec2 a = uvec2(sh_lo[t], sh_hi[t]);
				uvec2 b = uvec2(sh_lo[t + h], sh_hi[t + h]);
				if (better(b, sh_idx[t + h], a, sh_idx[t])) {
					sh_lo[t] = b.x;
					sh_hi[t] = b.y;
					sh_idx[t] = sh_idx[t + h];
				}
			}
			barrier();
		}
		if (t == 0u) {
			uint kin, kout;
			kept_offsets(o, kin, kout);
			store_index(pc.base_out, kout - pc.out_win, sh_idx[0], OUT_MODE == 1u);
		}
#endif
		// The next output reuses the shared entries.
		barrier();
	}
}
