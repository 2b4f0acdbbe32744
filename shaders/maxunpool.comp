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
// A plan whose tensors do not fit one binding each runs the WINDOWED
// variants, over chunks of whole (n, c) planes: the input and the indices
// in input chunks, the output and the winners in output chunks. Each
// clear step covers one output chunk; each scatter and gather step one
// (output chunk, input chunk) pair: a scatter step updates the winners of
// its output chunk named by its input chunk's indices, and a gather step
// writes the output elements whose winner lies in its input chunk, and
// (its first input chunk only) those with no winner, so every output
// element is still written exactly once.
//
// Defines:
//   PASS       0, 1 or 2, as above
//   WINDOWED   PASS 1 and 2: 1 for the chunked variants
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
#if WINDOWED
// Planes per batch of an input chunk: its local plane q is batch q / ICSTEP,
// channel q % ICSTEP of the chunk.
layout(constant_id = 8) const uint ICSTEP = 1;
#endif

layout(push_constant) uniform Push {
	uint base_idx; // words
	uint base_win; // words
	uint total;     // input elements (of the chunk)
#if WINDOWED
	uint p0;        // row-major position of the chunk's first input element
	uint idx_e0;    // element offset of the chunk's first element in the indices binding
	uint out_lo;    // the output position of the bound winners' first word
	uint out_count; // winners bound: indices outside [out_lo, out_lo + out_count) are another step's
#else
	uint out_total; // output elements: indices at or past it are skipped
#endif
} pc;

void main() {
	uint step = grid_size();
	for (uint p = grid_index(); p < pc.total; p += step) {
		uint w = p % IW;
		uint r = p / IW;
		uint h = r % IH;
		r /= IH;
#if WINDOWED
		uint c = r % ICSTEP;
		uint n = r / ICSTEP;
		uint e = pc.idx_e0 + n * IDX_SN + c * IDX_SC + h * IDX_SH + w * IDX_SW;
#else
		uint c = r % IC;
		uint n = r / IC;
		uint e = n * IDX_SN + c * IDX_SC + h * IDX_SH + w * IDX_SW;
#endif
#if IDX_BITS == 64
		uint lo = word_src.x[pc.base_idx + 2u * e];
		bool high = word_src.x[pc.base_idx + 2u * e + 1u] != 0u;
#else
		uint lo = word_src.x[pc.base_idx + e];
		bool high = false;
#endif
#if WINDOWED
		// One unsigned compare: below out_lo wraps past out_count.
		uint at = lo - pc.out_lo;
		if (!high && at < pc.out_count) {
			atomicMax(winner.x[pc.base_win + at], pc.p0 + p + 1u);
		}
#else
		if (!high && lo < pc.out_total) {
			atomicMax(winner.x[pc.base_win + lo], p + 1u);
		}
#endif
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
#if WINDOWED
// Planes per batch of an input chunk and of an output chunk (see ICSTEP in
// the scatter pass).
layout(constant_id = 15) const uint ICSTEP = 1;
layout(constant_id = 16) const uint OCSTEP = 1;
#endif

layout(push_constant) uniform Push {
	uint base_in;  // words
	uint base_win; // words
	uint base_out; // words
	uint total;    // output elements (of the chunk)
#if WINDOWED
	uint in_e0;    // element offset of the input chunk's first element in the input binding
	uint out_e0;   // ... of the output chunk's first element in the output binding
	uint p_lo;     // row-major position of the input chunk's first element
	uint p_count;  // input elements in the chunk: winners outside it are another step's
	uint zeros;    // 1: this step also writes the elements no input names
#endif
} pc;

void main() {
	uint step = grid_size();
	for (uint o = grid_index(); o < pc.total; o += step) {
		uint w = o % OW;
		uint r = o / OW;
		uint h = r % OH;
		r /= OH;
#if WINDOWED
		uint c = r % OCSTEP;
		uint n = r / OCSTEP;
		uint out_e = pc.out_e0 + n * OUT_SN + c * OUT_SC + h * OUT_SH + w * OUT_SW;
#else
		uint c = r % OC;
		uint n = r / OC;
		uint out_e = n * OUT_SN + c * OUT_SC + h * OUT_SH + w * OUT_SW;
#endif
		uint win = word_src.x[pc.base_win + o];
		uvec2 v = uvec2(0u);
		if (win != 0u) {
#if WINDOWED
			uint p = win - 1u - pc.p_lo; // wraps past p_count when below p_lo
			if (p >= pc.p_count) {
				continue;
			}
			uint ccount = ICSTEP;
			uint ebase = pc.in_e0;
#else
			uint p = win - 1u;
			uint ccount = IC;
			uint ebase = 0u;
#endif
			uint iw = p % IW;
			uint q = p / IW;
			uint ih = q % IH;
			q /= IH;
			uint ic = q % ccount;
			uint in_ = q / ccount;
			v = elem_load(pc.base_in, ebase + in_ * IN_SN + ic * IN_SC + ih * IN_SH + iw * IN_SW);
		}
#if WINDOWED
		else if (pc.zeros == 0u) {
			continue;
		}
#endif
		elem_store(pc.base_out, out_e, v);
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
