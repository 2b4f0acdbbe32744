// argmax_partial.glsl: ARGMAX / ARGMIN's partial, what a first pass
// (argmax.comp, argmax_vec_row.comp, argmax_vec_col.comp) writes for each
// (output, segment) of a split block and the combine passes
// (argmax_combine.comp, argmax_combine_group.comp) read: the segment's
// best (score, index) in 4 words, 16 bytes (ops/reduce_plan.go's
// argPartial). Include it after reduce.glsl, with WORD_DST defined, or
// with PART_DST naming the buffer the partials go to (argmax_vec_row.comp's
// TICKET variants, whose word_dst is the output).

#ifndef PART_DST
#define PART_DST word_dst
#endif

// write_partial writes a (score, index) partial, 4 words, at word w of the
// temporary resource; argmax_combine.comp reads it.
void write_partial(uint w, uvec2 s, uint idx) {
	PART_DST.x[w] = s.x;
	PART_DST.x[w + 1u] = s.y;
	PART_DST.x[w + 2u] = idx;
	PART_DST.x[w + 3u] = 0u;
}
