#version 450
// maxunpool.comp: MAX_UNPOOLING (semantics.md rules 17-22), in three passes
// over a temporary of one 32-bit word per output element, the output's
// "winner": 0 for none, else 1 + the row-major position of the input element
// that writes it.
//
//   PASS 0 (clear)    every winner word 0;
//   PASS 1 (scatter)  each input position p whose index i is in range
//                     (rule 19) makes winner[i] the larger of itself and
//                     p + 1, with atomicMax: so of several inputs with one
//                     index the last in row-major order wins (rule 20),
//                     whatever order the invocations run in;
//   PASS 2 (gather)   each output element takes the input element its
//                     winner names, or 0 (rule 18).
//
// The gather writes every output element exactly once, through elem.glsl's
// stores, so bytes between strided elements are never touched (rule 6) and
// the result does not depend on the device's scheduling. Values are moved
// as raw bits, so one variant per element width serves every type.
//
// Defines:
//   PASS       0, 1 or 2, as above
//   IDX_BITS   PASS 1: 32 (UINT32 indices) or 64 (UINT64, two words; an
//              index with a nonzero high word is out of range: rule 19,
//              where DirectML reads the low word alone)
//   ELEM_BITS, NATIVE   PASS 2: the element width and storage path, as in
//              elem.glsl

#if PASS == 1
#define WORD_SRC 0 // the indices
#define WINNER 1
#elif PASS == 2
#define ELEM_SRC 0 // the input
#define WORD_SRC 1 // the winners
#define ELEM_DST 2 // the output
#else
#define WINNER 0
#endif
#include "elem.glsl"
#include "common.glsl"

#ifdef WINNER
// Read-write for atomicMax; elem.glsl's word views are one-way.
layout(std430, binding = WINNER) buffer Winner { uint x[]; } winner;
#endif

#if PASS == 1
// The input's (and the indices') sizes C, H, W, and the indices' strides
// (N, C, H, W) in elements.
layout(constant_id = 1) const uint IC = 1;
layout(constant_id = 2) const uint IH = 1;
layout(constant_id = 3) const uint IW = 1;
layout(constant_id = 4) const uint IDX_SN = 0;
layout(constant_id = 5) const uint IDX_SC = 0;
layout(constant_id = 6) const uint IDX_SH = 0;
layout(constant_id = 7) const uint IDX_SW = 0;

layout(push_constant) uniform Push {
	uint base_idx; // words
	uint base_win; // words
	uint total;     // input elements
	uint out_total; // output elements: indices at or past it are skipped
} pc;

void main() {
	uint step = grid_size();
	for (uint p = grid_index(); p < pc.total; p += step) {
		uint w = p % IW;
		uint r = p / IW;
		uint h = r % IH;
		r /= IH;
		uint c = r % IC;
		uint n = r / IC;
		uint e = n * IDX_SN + c * IDX_SC + h * IDX_SH + w * IDX_SW;
#if IDX_BITS == 64
		uint lo = word_src.x[pc.base_idx + 2u * e];
		bool in_range = word_src.x[pc.base_idx + 2u * e + 1u] == 0u && lo < pc.out_total;
#else
		uint lo = word_src.x[pc.base_idx + e];
		bool in_range = lo < pc.out_total;
#endif
		if (in_range) {
			atomicMax(winner.x[pc.base_win + lo], p + 1u);
		}
	}
}

#elif PASS == 2
// The input's sizes C, H, W and strides (N, C, H, W); the output's sizes
// C, H, W and strides (N, C, H, W). Strides are in elements.
layout(constant_id = 1) const uint IC = 1;
layout(constant_id = 2) const uint IH = 1;
layout(constant_id = 3) const uint IW = 1;
layout(constant_id = 4) const uint IN_SN = 0;
layout(constant_id = 5) const uint IN_SC = 0;
layout(constant_id = 6) const uint IN_SH = 0;
layout(constant_id = 7) const uint IN_SW = 0;
layout(constant_id = 8) const uint OC = 1;
layout(constant_id = 9) const uint OH = 1;
layout(constant_id = 10) const uint OW = 1;
layout(constant_id = 11) const uint OUT_SN = 0;
layout(constant_id = 12) const uint OUT_SC = 0;
layout(constant_id = 13) const uint OUT_SH = 0;
layout(constant_id = 14) const uint OUT_SW = 0;

layout(push_constant) uniform Push {
	uint base_in;  // words
	uint base_win; // words
	uint base_out; // words
	uint total;    // output elements
} pc;

void main() {
	uint step = grid_size();
	for (uint o = grid_index(); o < pc.total; o += step) {
		uint w = o % OW;
		uint r = o / OW;
		uint h = r % OH;
		r /= OH;
		uint c = r % OC;
		uint n = r / OC;
		uint win = word_src.x[pc.base_win + o];
		uvec2 v = uvec2(0u);
		if (win != 0u) {
			uint p = win - 1u;
			uint iw = p % IW;
			uint q = p / IW;
			uint ih = q % IH;
			q /= IH;
			uint ic = q % IC;
			uint in_ = q / IC;
			v = elem_load(pc.base_in, in_ * IN_SN + ic * IN_SC + ih * IN_SH + iw * IN_SW);
		}
		elem_store(pc.base_out, n * OUT_SN + c * OUT_SC + h * OUT_SH + w * OUT_SW, v);
	}
}

#else
layout(push_constant) uniform Push {
	uint base_win; // words
	uint count;    // winner words
} pc;

void main() {
	uint step = grid_size();
	for (uint i = grid_index(); i < pc.count; i += step) {
		winner.x[pc.base_win + i] = 0u;
	}
}
#endif
