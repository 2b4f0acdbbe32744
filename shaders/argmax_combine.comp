#version 450
// argmax_combine.comp: the second pass of ARGMAX / ARGMIN when a block was
// split into segments (split-K, or input windows over maxStorageBufferRange).
// Each invocation owns one output, reads its segments' (score, index)
// partials and keeps the maximum of the total order described in
// argmax.comp, which is the sequential scan's answer whatever the split.
// The specialization constants are reduce.glsl's; OUT_MODE is 0, 1 or 3.
// REDUCE's value functions merge their partials the same way
// (reduce_part.glsl).

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
	uint step = grid_size();
	for (uint ol = grid_index(); ol < pc.o_count; ol += step) {
		uint o = pc.o_begin + ol;
		uint w = pc.base_tmp + PART_WORDS * (o * pc.nseg - pc.tmp_win);
		Part st = READ_PART(word_src, w);
		for (uint s = 1u; s < pc.nseg; s++) {
			w += PART_WORDS;
			st = part_merge(st, READ_PART(word_src, w));
		}
		uint kin, kout;
		kept_offsets(o, kin, kout);
		store_result(pc.base_out, kout - pc.out_win, st);
	}
}
