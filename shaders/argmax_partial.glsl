// argmax_partial.glsl: ARGMAX / ARGMIN's partial, what a first pass
// (argmax.comp, argmax_vec_row.comp, argmax_vec_col.comp) writes for each
// (output, segment) of a split block and the combine passes
// (argmax_combine.comp, argmax_combine_group.comp) read: the segment's
// best (score, index) in 4 words, 16 bytes (ops/reduce_plan.go's
// argPartial). Include it after reduce.glsl, with WORD_DST defined.

// write_partial writes a (score, index) partial, 4 words, at word w of the
// temporary resource; argmax_combine.comp reads it.
void write_partial(uint w, uvec2 s, uint idx) {
	word_dst.x[w] = s.x;
	word_dst.x[w + 1u] = s.y;
	word_dst.x[w + 2u] = idx;
	word_dst.x[w + 3u] = 0u;
}
