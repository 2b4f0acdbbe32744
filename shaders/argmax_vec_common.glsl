// argmax_vec_common.glsl: what the vectorised first passes of ARGMAX /
// ARGMIN and of REDUCE's value functions (argmax_vec_row.comp,
// argmax_vec_col.comp, argmax_col8y.comp) share: 16-byte (uvec4) loads of
// 8-, 16-, 32- and 64-bit elements (ELEM_BITS, 32 when undefined), a load
// holding EPV = 128 / ELEM_BITS elements. Elements are read as 32-bit words
// and split by shifts (elem.glsl's ELEM_SUB), 64-bit ones as two words, so
// no width needs 8/16-bit storage or shaderInt64. Same push constants,
// specialization constants, scores and order as argmax.comp (read its
// header for why any grouping of the (score, index) maximum equals
// semantics.md rule 5's sequential scan, and reduce_part.glsl's for the
// value functions); the host (ops/reduce_plan.go) picks these kernels only
// for layouts they fit.
//
// A lane's state is a SCORE and an index: for the ORDERED functions the
// best element's score and block position j (the value of MAX / MIN is
// read back from the input at the end, write_result), for the
// accumulations (32- and 64-bit integers only) the sum or product so far
// modulo 2^ELEM_BITS (the output keeps the low ELEM_BITS bits, which
// depend only on the operands' low bits) and no index.
//
// Loads are what costs on a CPU device: lavapipe turns every storage-buffer
// access into a per-lane scalar loop with a bounds check, so 16 bytes per
// lane and access cost about as much as 4. On GPUs, 16-byte loads are the
// usual vectorisation.
//
// Include it after reduce.glsl and reduce_part.glsl, with ELEM_BITS
// defined. 64-bit outputs are written as two words.
//
// TICKET 1 (argmax_vec_row.comp): the partials go to binding 2 whatever
// OUT_MODE says, and binding 1 is the output, which the workgroup that
// finishes last writes (OUT_MODE 0, 1 or 3).

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
// low word below 64 bits (the high word is 0 there), or an accumulation;
// SCORE_ID the state of no element (with the index ID_IDX).
#if ELEM_BITS == 64
#define SCORE uvec2
#define SCORE_ID uvec2(ACC_ID, 0u)
#define SCORE2(s) (s)
#else
#define SCORE uint
#define SCORE_ID ACC_ID
#define SCORE2(s) uvec2(s, 0u)
#endif

#if ELEM_BITS == 64
#define SCORE1(s2) (s2)
#else
#define SCORE1(s2) ((s2).x)
#endif

// better1 is better() for SCORE.
bool better1(SCORE s, uint si, SCORE b, uint bi) {
#if ELEM_BITS == 64
	return better(s, si, b, bi);
#else
	return s > b || (s == b && (LAST != 0u ? si > bi : si < bi));
#endif
}

// ACC_ID is the accumulations' identity, 1 for MULTIPLY and 0 otherwise,
// and the ORDERED functions' initial score.
const uint ACC_ID = FUNC == FUNC_MULTIPLY ? 1u : 0u;

// acc1 is an accumulation's merge of two SCOREs (reduce_part.glsl's
// part_merge, modulo 2^ELEM_BITS below 64 bits).
SCORE acc1(SCORE a, SCORE b) {
#if ELEM_BITS == 64
	return FUNC == FUNC_MULTIPLY ? mul64(a, b) : add64(a, b);
#else
	return FUNC == FUNC_MULTIPLY ? a * b : a + b;
#endif
}

// merge1 merges the state (s, si) of disjoint elements into (b, bi): the
// total order's maximum, or the accumulation.
void merge1(inout SCORE b, inout uint bi, SCORE s, uint si) {
	if (!ORDERED) {
		b = acc1(b, s);
	} else if (better1(s, si, b, bi)) {
		b = s;
		bi = si;
	}
}

// fold1 folds the element of raw bits raw at block position j into (b,
// bi), in any order of visits.
void fold1(inout SCORE b, inout uint bi, uvec2 raw, uint j) {
	merge1(b, bi, SCORE1(ORDERED ? score(raw, j) : part_term(raw)), j);
}

// write_result writes the state (s, idx) of output o's segment seg: a
// partial (OUT_MODE 2) or the result to output element kept_out. ein is
// the element number (elem_load(0u, .)) of the output's block position 0:
// MAX / MIN read their best element's raw bits back from there, which
// floats need (the score of -0 is +0's); their position is j + 1, as in
// reduce_part.glsl's part_elem. 64-bit elements are integers, whose value
// part_value recovers from the score.
void write_result(uint o, uint seg, uint kept_out, uint ein, SCORE s, uint idx) {
	Part st = Part(SCORE2(s), idx, 0u);
	if (FUNC == FUNC_EXTREME) {
		st.i = idx + 1u;
		if (ELEM_BITS < 64) {
			st.p = elem_load(0u, ein + red_offset(idx)).x;
		}
	}
#if TICKET
	// Always a partial: the workgroup that finishes last combines them.
	write_part(pc.base_part + 4u * (o * pc.nseg + seg - pc.dst_win), st);
#else
	if (OUT_MODE == 2u) {
		write_part(pc.base_dst + 4u * (o * pc.nseg + seg - pc.dst_win), st);
	} else {
		store_result(pc.base_dst, kept_out - pc.dst_win, st);
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
// scores above everything at j = 0 for the index, 0 for MAX / MIN.
uvec4 score4(uvec4 v, uvec4 j) {
	uvec4 nan = mix(uvec4(0u), uvec4(FUNC == FUNC_INDEX ? 0xFFFFFFFFu : 0u), equal(j, uvec4(0u)));
	return mix(score4_later(v), nan, elem_is_nan(v, KIND));
}

// acc4 folds four 32-bit elements into four accumulations (reduce_part.glsl's
// part_term of each, modulo 2^32).
uvec4 acc4(uvec4 a, uvec4 raw) {
	if (FUNC == FUNC_MULTIPLY) {
		return a * raw;
	}
	if (FUNC == FUNC_L1 && KIND == KIND_SIGNED) {
		raw = mix(raw, uvec4(0u) - raw, greaterThanEqual(raw, uvec4(0x80000000u)));
	}
	return a + (FUNC == FUNC_SUM_SQUARE ? raw * raw : raw);
}

// start4 and later4 are the sequential scan of four lanes of elements:
// start4 the state of each lane's first element, at positions j, later4
// the step that folds in each lane's next element, at positions j > 0.
uvec4 start4(uvec4 raw, uvec4 j) { return ORDERED ? score4(raw, j) : acc4(uvec4(ACC_ID), raw); }

void later4(inout uvec4 b, inout uvec4 i, uvec4 raw, uvec4 j) {
	if (ORDERED) {
		uvec4 s = score4_later(raw);
		bvec4 u = LAST != 0u ? greaterThanEqual(s, b) : greaterThan(s, b);
		b = mix(b, s, u);
		i = mix(i, j, u);
	} else {
		b = acc4(b, raw);
	}
}
#endif
