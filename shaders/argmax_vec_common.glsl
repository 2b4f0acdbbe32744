// argmax_vec_common.glsl: what the vectorised ARGMAX / ARGMIN first passes
// (argmax_vec_row.comp, argmax_vec_col.comp) share: 16-byte (uvec4) loads of
// 8-, 16-, 32- and 64-bit elements (ELEM_BITS, 32 when undefined), a load
// holding EPV = 128 / ELEM_BITS elements. Elements are read as 32-bit words
// and split by shifts (elem.glsl's ELEM_SUB), 64-bit ones as two words, so
// no width needs 8/16-bit storage or shaderInt64. Same push constants,
// specialization constants, scores and order as argmax.comp (read its
// header for why any grouping of the (score, index) maximum equals
// semantics.md rule 5's sequential scan); the host (ops/reduce_plan.go)
// picks these kernels only for layouts they fit.
//
// Loads are what costs on a CPU device: lavapipe turns every storage-buffer
// access into a per-lane scalar loop with a bounds check, so 16 bytes per
// lane and access cost about as much as 4. On GPUs, 16-byte loads are the
// usual vectorisation.
//
// Include it after reduce.glsl and argmax_partial.glsl, with ELEM_BITS
// defined. 64-bit outputs are written as two words.
//
// TICKET 1 (argmax_vec_row.comp): the partials go to binding 2 whatever
// OUT_MODE says, and binding 1 is the output, which the workgroup that
// finishes last writes (OUT_MODE 0 or 1).

#ifndef TICKET
#define TICKET 0
#endif

layout(push_constant) uniform Push {
	uint base_src;   // words (a multiple of 4: bindings start 16-byte aligned)
	uint base_dst;   // words
#if TICKET
	uint base_part;  // words: the partials (temporary resource)
	uint base_ticket; // words: the ticket (persistent resource)
#endif
	uint o_begin;    // first output of this step (vec-col: a multiple of PER)
	uint o_count;    // outputs in this step (vec-col: a multiple of PER)
	uint j_begin;    // first block position of this step's range
	uint j_count;    // block positions in the range
	uint seg_len;    // block positions per segment
	uint nloc;       // segments in the range: ceil(j_count / seg_len)
	uint seg_base;   // global number of the range's first segment
	uint nseg;       // segments per output in all (partials layout)
	uint in_win;     // element offset of the input window (a multiple of 16 bytes)
	uint dst_win;    // output element offset / partial entry of the window
#if TICKET
	uint out_win;    // TICKET: output element offset of the output window
#endif
} pc;

// elem_base is the element number of binding word base (a multiple of 4:
// bindings start 16-byte aligned), the origin of elem_load(0u, e).
#if ELEM_BITS == 64
uint elem_base(uint base) { return base >> 1; }
#else
uint elem_base(uint base) { return base * (32u / ELEM_BITS); }
#endif

// SCORE: one element's score, reduce.glsl's uvec2 narrowed to its
// low word below 64 bits (the high word is 0 there).
#if ELEM_BITS == 64
#define SCORE uvec2
#define SCORE_ID uvec2(0u)
#define SCORE2(s) (s)
#else
#define SCORE uint
#define SCORE_ID 0u
#define SCORE2(s) uvec2(s, 0u)
#endif

void write_result(uint o, uint seg, uint kept_out, SCORE s, uint idx) {
#if TICKET
	// Always a partial: the workgroup that finishes last combines them.
	write_partial(pc.base_part + 4u * (o * pc.nseg + seg - pc.dst_win), SCORE2(s), idx);
#else
	if (OUT_MODE == 2u) {
		write_partial(pc.base_dst + 4u * (o * pc.nseg + seg - pc.dst_win), SCORE2(s), idx);
	} else {
		store_index(pc.base_dst, kept_out - pc.dst_win, idx, OUT_MODE == 1u);
	}
#endif
}

#if ELEM_BITS < 64
// score4_later is reduce.glsl's score for four elements (raw bits,
// one a component) at block positions j > 0, where a NaN scores 0.
uvec4 score4_later(uvec4 v) {
	uvec4 k = elem_key(v, KIND);
	if (IS_MIN != 0u) {
		k = ~k;
	}
	return mix(k, uvec4(0u), elem_is_nan(v, KIND));
}

// score4 is score for four elements at any block positions j: a NaN
// scores above everything at j = 0.
uvec4 score4(uvec4 v, uvec4 j) {
	uvec4 nan = mix(uvec4(0u), uvec4(0xFFFFFFFFu), equal(j, uvec4(0u)));
	return mix(score4_later(v), nan, elem_is_nan(v, KIND));
}
#endif
