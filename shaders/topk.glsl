// topk.glsl: what TOP_K's kernels (topk_select.comp, topk_merge.comp)
// share: the shape of the rows, each element's score, the order of
// (score, index) entries, the runs of entries in the temporary resource,
// and the final stores. Include elem.glsl and common.glsl first.
//
// THE ORDER (semantics.md rules 32-35). An element's SCORE is elem.glsl's
// order-preserving key (DECREASING) or its bit inversion (INCREASING), so
// that a higher score always comes first; -0 and +0 share a key, and so a
// score. A NaN scores 0, below every number's score (float keys lie in
// [0x00800000, 0xFF800000] for FLOAT32 and [0x0400, 0xFC00] for FLOAT16,
// strictly above 0, and so do their inversions), so that NaN comes after
// every number in both directions. Entries are ordered by (score
// descending, then index ascending): a strict total order (indices are
// unique) whose first K entries are the rules' answer: ties, signed zeros
// and NaNs alike go to the lower index. A total order's top K may be
// taken from any split of the row and merged in any grouping, which is
// what the segments and merge passes do. Padding entries (score 0, index
// 0xFFFFFFFF) come after every real entry, even a NaN's or an unsigned 0's.
//
// Specialization constants (0 is the workgroup size, in common.glsl):
//   1      FLAGS: KIND (bits 0-1), DECR (bit 3: DML_AXIS_DIRECTION_
//          DECREASING), IDX64 (bit 4: 64-bit indices), STRIDED (bit 5:
//          topk_select.comp's radix scans give lane t every WG-th 16-byte
//          vector from t, not a block: lane_vectors), NK (bits 8-11: kept
//          dimensions after coalescing, at most 7)
//   2      K      the selection count
//   3      N      the axis length
//   4-6    AI, AV, AX: the axis stride of the input, the values and the
//          indices (elements)
//   7+s    DS[s]  size of kept dimension slot s (innermost first)
//   14+s   DI[s]  its input stride
//   21+s   DV[s]  its values stride
//   28+s   DX[s]  its indices stride
// Offsets are computed modulo 2^32 and made window-relative by one
// subtraction, exact because every element a step touches lies in its
// window.

layout(constant_id = 1) const uint FLAGS = 0u;
const uint KIND = FLAGS & 3u;
const uint DECR = (FLAGS >> 3) & 1u;
const uint IDX64 = (FLAGS >> 4) & 1u;
const uint STRIDED = (FLAGS >> 5) & 1u;
const uint NK = (FLAGS >> 8) & 15u;
layout(constant_id = 2) const uint K = 1u;
layout(constant_id = 3) const uint N = 1u;
layout(constant_id = 4) const uint AI = 1u;
layout(constant_id = 5) const uint AV = 1u;
layout(constant_id = 6) const uint AX = 1u;
layout(constant_id = 7) const uint DS0 = 1u;
layout(constant_id = 8) const uint DS1 = 1u;
layout(constant_id = 9) const uint DS2 = 1u;
layout(constant_id = 10) const uint DS3 = 1u;
layout(constant_id = 11) const uint DS4 = 1u;
layout(constant_id = 12) const uint DS5 = 1u;
layout(constant_id = 13) const uint DS6 = 1u;
layout(constant_id = 14) const uint DI0 = 0u;
layout(constant_id = 15) const uint DI1 = 0u;
layout(constant_id = 16) const uint DI2 = 0u;
layout(constant_id = 17) const uint DI3 = 0u;
layout(constant_id = 18) const uint DI4 = 0u;
layout(constant_id = 19) const uint DI5 = 0u;
layout(constant_id = 20) const uint DI6 = 0u;
layout(constant_id = 21) const uint DV0 = 0u;
layout(constant_id = 22) const uint DV1 = 0u;
layout(constant_id = 23) const uint DV2 = 0u;
layout(constant_id = 24) const uint DV3 = 0u;
layout(constant_id = 25) const uint DV4 = 0u;
layout(constant_id = 26) const uint DV5 = 0u;
layout(constant_id = 27) const uint DV6 = 0u;
layout(constant_id = 28) const uint DX0 = 0u;
layout(constant_id = 29) const uint DX1 = 0u;
layout(constant_id = 30) const uint DX2 = 0u;
layout(constant_id = 31) const uint DX3 = 0u;
layout(constant_id = 32) const uint DX4 = 0u;
layout(constant_id = 33) const uint DX5 = 0u;
layout(constant_id = 34) const uint DX6 = 0u;

// ENTRY_WORDS: a run entry is (score, index), or (score low, score high,
// index) for 64-bit elements.
#if ELEM_BITS == 64 || KEY64
#define ENTRY_WORDS 3
#else
#define ENTRY_WORDS 2
#endif

const uint PAD_INDEX = 0xFFFFFFFFu;

// row_offsets splits row number r into kept coordinates and returns the
// element offsets (mod 2^32) of its first element in the input, the values
// and the indices.
void row_offsets(uint r, out uint kin, out uint kv, out uint kx) {
	kin = 0u;
	kv = 0u;
	kx = 0u;
#define KSTEP(i)                     \
	if (NK > uint(i)) {              \
		uint c = r % DS##i;          \
		r /= DS##i;                  \
		kin += c * DI##i;            \
		kv += c * DV##i;             \
		kx += c * DX##i;             \
	}
	KSTEP(0) KSTEP(1) KSTEP(2) KSTEP(3) KSTEP(4) KSTEP(5) KSTEP(6)
#undef KSTEP
}

// better: does entry (s, si) come before (b, bi)?
bool better(uvec2 s, uint si, uvec2 b, uint bi) { return key_gt(s, b) || (s == b && si < bi); }

#ifdef ELEM_BITS
// score is an element's score (see THE ORDER).
uvec2 score(uvec2 raw) {
	uvec2 k = elem_key2(raw, KIND);
#if ELEM_BITS == 64
	if (DECR == 0u) {
		k = ~k;
	}
#else
	if (elem_is_nan(raw.x, KIND)) {
		return uvec2(0u);
	}
	if (DECR == 0u) {
		k.x = ~k.x;
	}
#endif
	return k;
}
#endif

#ifdef WORD_SRC
// load_entry reads entry e of the run words at base (words).
void load_entry(uint base, uint e, out uvec2 s, out uint i) {
	uint w = base + e * uint(ENTRY_WORDS);
#if ENTRY_WORDS == 3
	s = uvec2(word_src.x[w], word_src.x[w + 1u]);
	i = word_src.x[w + 2u];
#else
	s = uvec2(word_src.x[w], 0u);
	i = word_src.x[w + 1u];
#endif
}
#endif

#if defined(WORD_DST) && !defined(ELEM_DST)
// store_entry writes entry e of the run words at base (words).
void store_entry(uint base, uint e, uvec2 s, uint i) {
	uint w = base + e * uint(ENTRY_WORDS);
	word_dst.x[w] = s.x;
#if ENTRY_WORDS == 3
	word_dst.x[w + 1u] = s.y;
	word_dst.x[w + 2u] = i;
#else
	word_dst.x[w + 1u] = i;
#endif
}
#endif

#if defined(ELEM_SRC) && defined(ELEM_DST) && defined(WORD_DST)
// store_result writes rank r of a row: the input element at axis index i,
// its bits as they are (so -0 stays -0 and a NaN keeps its payload), to
// the values, and i to the indices. kin, kv, kx are the row's offsets;
// the windows' first elements are in_win, v_win, x_win.
void store_result(uint base_in, uint base_v, uint base_x, uint kin, uint kv, uint kx, uint in_win, uint v_win, uint x_win,
		uint r, uint i) {
	uvec2 raw = elem_load(base_in, kin + i * AI - in_win);
	elem_store(base_v, kv + r * AV - v_win, raw);
	store_index(base_x, kx + r * AX - x_win, i, IDX64 != 0u);
}
#endif
