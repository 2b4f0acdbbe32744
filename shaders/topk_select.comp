#version 450
// topk_select.comp: TOP_K / TOP_K1, first pass. Each (row, segment) item
// selects the top min(K, segment length) entries of its segment of the
// axis, sorted in topk.glsl's order, and writes them either as the row's
// result (one segment per row) or as a run of entries in the temporary
// resource for topk_merge.comp.
//
// Defines:
//   ELEM_BITS, NATIVE  the element (elem.glsl)
//   SHAPE  0 (thread): one invocation per item scans its segment in
//            increasing index, keeping a sorted list of its best K
//            entries (K <= 16);
//          1 (lane): one workgroup per item; lane t keeps such a list
//            over positions t, t+WG, ... of the segment, then the lanes'
//            lists are sorted together in shared memory (K <= 16);
//          2 (sort): one workgroup per item loads its segment (at most
//            SORT_MAX positions) into shared memory and sorts it (any K:
//            the run keeps min(K, segment length));
//          3 (filter): one workgroup per item keeps its best list_n
//            entries sorted in shared memory; lanes test WG positions (or,
//            samp_step VW on VEC rows, WG 16-byte vectors) at a
//            time against the list's K-th entry and append the better ones
//            to a candidate buffer, which is sorted into the list (one sort
//            of sort_n entries) when it could overflow: after the first
//            chunks few positions pass, so most cost one compare (K up to
//            SORT_MAX/2); with SCAN8 and samp_step VW, THE BYTE SELECT
//            (a sampled threshold byte, one gather, one sort);
//          4 (radix): one workgroup per item selects on the order key
//            (score, then the position counted from the segment's end, so
//            that lower indices come first: a key per entry, all
//            different): histogram passes over RADIX_BITS-bit digits,
//            highest first, each over the entries whose higher digits
//            match the ones chosen so far, find the digits of the
//            K-th entry's key until the entries at or above the chosen
//            prefix fit sort_n (at most SORT_MAX); one more scan gathers
//            those into shared memory, where each lane ranks its share
//            against all of them (up to list_n of them) or a bitonic sort
//            orders them (K up to SORT_MAX). Below 64 bits, with
//            floor_step > 1 a sparse sample gives a floor that the
//            later passes count from, with samp_step > 1 the passes
//            first run over a denser sample of the segment and one scan
//            gathers against its threshold (radix_select, exact passes
//            only when that fails), and
//            with cand_n > 0 at least cand_n gathered entries are ranked
//            within buckets of equal score ranges (bucket_rank_emit).
//   RUNS   1: write runs to the temporary resource; 0: write the results.
//   TEXEL  1: read the input (32-bit elements) through a uniform texel
//          buffer (the CPU class's lane and radix plans: ops tuning
//          topKTexel); the same loads in the same order, so the same
//          results.
// Shared memory is SORT_MAX entries of ENTRY_WORDS words: 16 KiB for up to
// 32-bit elements, 24 KiB for 64-bit ones, within every device's 32 KiB.

#extension GL_EXT_control_flow_attributes : require

// SCAN8 1: the thread and lane scans of 8-bit integer rows of
// input stride 1 read 16-byte vectors of sixteen positions and test them
// with topk_scan8.glsl's gates (VEC16; the GPU class's plans: ops tuning
// topKScan8); the filter (samp_step VW) is THE BYTE SELECT instead.
#ifndef SCAN8
#define SCAN8 0
#endif
// SCAN64 1: the radix scans of 64-bit rows of input stride 1 read 16-byte
// vectors of two positions and test both keys' bits that may pass before
// offering them (VEC2; the GPU class's plans: ops tuning topKRadixVec2),
// where one position a scalar load counted 4.3 SPIR-V ops per byte on the
// h100 profile (internal/opcount; the budget is 4). Lavapipe keeps the
// scalar scans its plans were timed with.
#ifndef SCAN64
#define SCAN64 0
#endif

#define ELEM_SRC 0
#if TEXEL
// The input is a uniform texel buffer of 16-byte texels (32-bit elements
// only): on lavapipe a texel fetch gathers every lane's 16 bytes with one
// load and no branch, where a storage buffer load is a loop over the
// lanes (BENCHMARKS.md "lavapipe load paths, measured"). The scalar
// loads fetch the texel and take one word (elem.glsl).
#define ELEM_SRC_TEXEL 1
#define LOAD4(V) texelFetch(elem_srct, int(V))
#else
#if ELEM_BITS == 32 || ELEM_BITS == 16 || SCAN8 || SCAN64
// A second view of binding 0 (read-only buffers may alias): the scans of
// rows of input stride 1 read their aligned middle 16 bytes at a time
// (scan_split), which lavapipe's lanes load and test four times faster
// than four scalar loads, and which hold eight 16-bit elements (SCAN8:
// sixteen 8-bit ones).
#define ELEM_SRC4 0
#endif
#define LOAD4(V) elem_src4.x[V]
#endif
#if RUNS
#define WORD_DST 1
#else
#define ELEM_DST 1
#define WORD_DST 2
#endif
#include "elem.glsl"
#include "common.glsl"
#include "topk.glsl"

layout(push_constant) uniform Push {
	uint base_src; // words
	uint base_b1;  // words: the values, or the runs
#if !RUNS
	uint base_b2; // words: the indices
#endif
	uint r_begin;  // first row of this step
	uint r_count;  // rows in this step
	uint seg_len;  // axis positions per segment
	uint nseg;     // segments per row
	uint run_cap;  // entries per run in the temporary resource: min(K, seg_len)
	uint sort_n;   // SHAPE 2: the power of two the segments are padded to; SHAPE 1: lanes x list length;
	               // SHAPE 3: the entries sorted at a merge
	uint list_n;   // SHAPE 3: entries of the kept list (a power of two at least K); SHAPE 4: the most gathered
	               // entries ranked (more are sorted)
	uint cand_n;   // SHAPE 3: entries of the candidate buffer after the list; SHAPE 4: the least gathered
	               // entries ordered in buckets (bucket_rank_emit; 0: never)
	uint samp_step; // SHAPE 4: positions between two of the sample that sets the threshold (0, 1: no sample);
	                // SHAPE 3: VW when the lanes of VEC rows test a 16-byte vector a chunk (else one position)
	uint floor_step; // SHAPE 4: positions between two of the sample that sets the floor (radix_select; 0, 1: none; TEXEL only);
	                 // the byte select: between two of the threshold's sample (a multiple of 4)
	uint in_win;   // element offset of the input window
	uint v_win;    // element offset of the values window
	uint x_win;    // element offset of the indices window
} pc;

const uint LIST_MAX = 16u;
const uint SORT_MAX = 2048u;

uvec2 load_raw(uint off) { return elem_load(pc.base_src, off - pc.in_win); }

// VEC4, VEC8, VEC16: the scans read 16-byte vectors of VW elements (VEC:
// any of those): four 32-bit, eight 16-bit or (SCAN8) sixteen 8-bit
// elements of input stride 1; VEC2, (SCAN64) the radix scans two 64-bit
// ones.
const bool VEC4 = ELEM_BITS == 32 && AI == 1u;
const bool VEC8 = ELEM_BITS == 16 && AI == 1u;
const bool VEC16 = ELEM_BITS == 8 && SCAN8 != 0 && AI == 1u;
#if SCAN64
const bool VEC2 = ELEM_BITS == 64 && AI == 1u;
#endif
const bool VEC = VEC4 || VEC8 || VEC16;
const uint VW = ELEM_BITS == 64 ? 2u : ELEM_BITS == 16 ? 8u : ELEM_BITS == 8 ? 16u : 4u;

// scan_split cuts positions [j0, j1) of the row at kin into a head of
// scalar positions [j0, mid), nv 16-byte vectors from vector v0 of the
// uvec4 view (positions mid + VW v ...), and a tail [mid + VW nv, j1): the
// vectors are the aligned middle. A lane that scans its share in the
// order head, vectors, tail sees its positions in increasing index.
void scan_split(uint kin, uint j0, uint j1, out uint mid, out uint v0, out uint nv) {
#if ELEM_BITS == 64
	// Word number of position j0 in the binding: an element at an odd
	// word (never, on 8-byte aligned tensors) leaves no aligned middle.
	uint w0 = pc.base_src + 2u * ((kin - pc.in_win) + j0);
	uint head = (w0 & 1u) != 0u ? j1 - j0 : min(((4u - (w0 & 3u)) & 3u) >> 1, j1 - j0);
	mid = j0 + head;
	v0 = (w0 + 2u * head) >> 2;
	nv = (j1 - mid) / VW;
#else
	// Element number of position j0 in the binding (base_src is words).
	uint e0 = pc.base_src * (32u / uint(ELEM_BITS)) + (kin - pc.in_win) + j0;
	uint head = min((VW - (e0 & (VW - 1u))) & (VW - 1u), j1 - j0);
	mid = j0 + head;
	v0 = (e0 + head) / VW;
	nv = (j1 - mid) / VW;
#endif
}

#if ELEM_BITS == 32 || ELEM_BITS == 16
// score4 is score() of four elements (16-bit: each in a component's low
// half, the high half 0).
uvec4 score4(uvec4 raw) {
	uvec4 k = elem_key(raw, KIND);
	if (DECR == 0u) {
		k = ~k;
	}
	return mix(k, uvec4(0u), elem_is_nan(raw, KIND));
}
#endif

// emit writes rank r (entry s, i) of item (row rl of the step, segment sg).
void emit(uint rl, uint sg, uint kin, uint kv, uint kx, uint r, uvec2 s, uint i) {
#if RUNS
	store_entry(pc.base_b1, (rl * pc.nseg + sg) * pc.run_cap + r, s, i);
#else
	store_result(pc.base_src, pc.base_b1, pc.base_b2, kin, kv, kx, pc.in_win, pc.v_win, pc.x_win, r, i);
#endif
}

// THE GATE. A position of a scan comes after every position already in
// the list (each scan goes in increasing index), so it beats the list's
// last entry (b, bi) only by a higher score, or by an equal one when bi
// is padding (a NaN beats padding, rule 34). While the last entry is a
// number, the scan tests each position with gate_key alone: an integer
// whose order refines the values' (gate_key(x) > gate_key(t) whenever x
// comes before t; it splits -0 from +0 and places NaNs past the
// infinities, which only sends those to the full test), computed from
// the raw bits in a few operations instead of the score and (score,
// index) order. Only a position the gate passes, or any position while
// the last entry is padding or a NaN ("open"), takes the full test and
// the insertion, which is exact on its own: the gate only skips
// positions that cannot enter.
#if ELEM_BITS == 64
#define GATE_T uvec2
GATE_T gate_key(uvec2 raw) { return elem_key2(raw, KIND); }
// gate_of_score is the gate key of a number whose score is s.
GATE_T gate_of_score(uvec2 s) { return DECR != 0u ? s : ~s; }
bool gate_before(GATE_T a, GATE_T t) { return DECR != 0u ? key_gt(a, t) : key_gt(t, a); }
#else
#define GATE_T int
const uint GATE_SHIFT = 32u - uint(ELEM_BITS);
// gate_key: an integer's key with its top bit flipped and moved to bit
// 31 (so signed order is the key's order); a float's bits with the sign
// moved to bit 31 and, for a negative value (sign-magnitude), the
// magnitude bits inverted, so that a larger magnitude is a lower integer.
GATE_T gate_key(uvec2 raw) {
	if (KIND == KIND_FLOAT) {
		int v = int(raw.x << GATE_SHIFT);
		return v ^ ((v >> 31) & 0x7FFFFFFF);
	}
	return int((elem_key(raw.x, KIND) ^ ELEM_SIGN) << GATE_SHIFT);
}
// gate_of_score is the gate key of a number whose score is s (for a
// zero, +0's): the key's top bit flipped and moved to bit 31 is the value
// itself for integers and positive floats, and one above it for a
// negative float (-m where its gate key is -1-m).
GATE_T gate_of_score(uvec2 s) {
	uint k = (DECR != 0u ? s.x : ~s.x) & ELEM_MASK;
	int x = int((k ^ ELEM_SIGN) << GATE_SHIFT);
	return KIND == KIND_FLOAT && x < 0 ? x - 1 : x;
}
bool gate_before(GATE_T a, GATE_T t) { return DECR != 0u ? a > t : a < t; }

// gate_keys4 is gate_key of four elements whose bits are the top
// ELEM_BITS bits of each component of x (the rest 0; 32 or 16 bits).
ivec4 gate_keys4(uvec4 x) {
	ivec4 v = ivec4(x);
	if (KIND == KIND_FLOAT) {
		return v ^ ((v >> 31) & 0x7FFFFFFF);
	}
	return KIND == KIND_SIGNED ? v : v ^ ivec4(0x80000000);
}

// gate_hi and gate_lo are, per component of a 16-byte vector of raw
// elements (VEC), the greatest and the least gate key of its elements:
// for eight 16-bit elements, two to a word, of its word's two.
ivec4 gate_hi(uvec4 raw) {
#if ELEM_BITS == 16
	return max(gate_keys4(raw << 16), gate_keys4(raw & 0xFFFF0000u));
#else
	return gate_keys4(raw);
#endif
}
ivec4 gate_lo(uvec4 raw) {
#if ELEM_BITS == 16
	return min(gate_keys4(raw << 16), gate_keys4(raw & 0xFFFF0000u));
#else
	return gate_keys4(raw);
#endif
}

#if ELEM_BITS == 8
#include "topk_scan8.glsl"
#else
// vec_gate_before: does any element of the 16-byte vector raw come
// before gate key t, by gate key alone (gate_before)?
bool vec_gate_before(uvec4 raw, int t) {
	return DECR != 0u ? any(greaterThan(gate_hi(raw), ivec4(t))) : any(lessThan(gate_lo(raw), ivec4(t)));
}

// vec_gate_reaches: does any element of the 16-byte vector raw come
// before gate key t or have it (the filter's pretest: gate_floor)?
bool vec_gate_reaches(uvec4 raw, int t) {
	return DECR != 0u ? any(greaterThanEqual(gate_hi(raw), ivec4(t))) : any(lessThanEqual(gate_lo(raw), ivec4(t)));
}
#endif

// gate_floor is the gate key that every number scoring at least s (a
// number's score, s > 0) reaches (vec_gate_reaches): gate_of_score, but
// under DECREASING -0's (-1) for a zero, which +0's score is too.
int gate_floor(uvec2 s) {
	int g = gate_of_score(s);
	return KIND == KIND_FLOAT && DECR != 0u && g == 0 ? -1 : g;
}

// vec_elem is element c of the 16-byte vector raw, as elem_load returns
// it.
uvec2 vec_elem(uvec4 raw, uint c) {
#if ELEM_BITS == 16
	return uvec2(ELEM_SUB(raw[c >> 1], c & 1u), 0u);
#elif ELEM_BITS == 8
	return uvec2(ELEM_SUB(raw[c >> 2], c & 3u), 0u);
#else
	return uvec2(raw[c], 0u);
#endif
}
#endif

#if SHAPE == 0 || SHAPE == 1
#if ELEM_BITS == 8
#define SCAN8_OFFERS [[dont_unroll]]
#else
#define SCAN8_OFFERS [[unroll]]
#endif
// The sorted list of one invocation: K entries (K <= LIST_MAX), padding
// entries past the ones it holds. Every index into it is a constant once
// K is specialized and the loops over LIST_MAX are unrolled, so that the
// list stays in registers rather than in indexed (scratch) memory.
uvec2 ls[LIST_MAX];
uint li[LIST_MAX];

// list_offer offers position j (raw bits raw) to the list. A position the
// gate passes and that beats the list's last entry sinks through the
// list, swapping with every entry it beats: the list stays sorted and its
// last entry drops out.
void list_offer(uvec2 raw, uint j, inout bool open, inout GATE_T gate) {
	// The insertion, which the common position skips: the gate fails.
	if (any(bvec2(open, gate_before(gate_key(raw), gate)))) {
		uvec2 s = score(raw);
		uint i = j;
		if (better(s, i, ls[K - 1u], li[K - 1u])) {
			[[unroll]] for (uint q = 0u; q < LIST_MAX; q++) {
				if (q < K && better(s, i, ls[q], li[q])) {
					uvec2 ts = ls[q];
					uint ti = li[q];
					ls[q] = s;
					li[q] = i;
					s = ts;
					i = ti;
				}
			}
			// The new last entry: open while it is padding or a NaN
			// (only a NaN scores 0 among floats: topk.glsl's ORDER),
			// else its gate key, from its score.
			open = li[K - 1u] == PAD_INDEX || KIND == KIND_FLOAT && ls[K - 1u] == uvec2(0u);
			gate = gate_of_score(ls[K - 1u]);
		}
	}
}

// list_take1 makes entry (s, i) the list's one entry (K = 1) if it comes
// before it.
void list_take1(uvec2 s, uint i) {
	bool take = better(s, i, ls[0], li[0]);
	ls[0] = take ? s : ls[0];
	li[0] = take ? i : li[0];
}

// take1_vec is K = 1's step of one accumulator (list_scan): vector v's
// scores s4 replace a component's best b4 (and its vector number at)
// only where strictly greater, the accumulator's vectors coming in rising
// position, so that a tie keeps the lower index.
void take1_vec(inout uvec4 b4, inout uvec4 at, uvec4 s4, uint v) {
	at = mix(at, uvec4(v), greaterThan(s4, b4));
	b4 = max(b4, s4);
}

// list_scan fills the list with the best K entries of positions j0 +
// lane, j0 + lane + lanes, ... < j1 (padding where there are fewer); with
// VEC, lane scans its share of the head, the 16-byte vectors and the tail
// instead (scan_split), and tests a vector's gate keys at once
// (vec_gate_before), offering its positions in order only when one passes
// or the list is open.
void list_scan(uint kin, uint j0, uint j1, uint lane, uint lanes) {
	[[unroll]] for (uint q = 0u; q < LIST_MAX; q++) {
		ls[q] = uvec2(0u);
		li[q] = PAD_INDEX;
	}
	// The push constants read once: the loop then costs an address, a
	// load, the gate and its counter.
	uint base = pc.base_src;
	uint e0 = kin - pc.in_win;
	bool open = true;
	GATE_T gate = gate_key(uvec2(0u));
#if ELEM_BITS == 32 || ELEM_BITS == 16 || SCAN8
	if (VEC) {
		uint mid, v0, nv;
		scan_split(kin, j0, j1, mid, v0, nv);
#if ELEM_BITS == 32
		if (K == 1u) {
			// K = 1: the best of each vector component, kept without
			// branches (better() is a strict total order, so the
			// bests and the head and tail combine in any order); on
			// lavapipe a data-dependent branch costs every lane of the
			// SIMD row whenever one lane takes it. Each accumulator
			// sees its vectors in rising position, so a later one wins
			// a component only with a strictly greater score (ties go
			// to the lower index), and the winner is kept as its
			// vector number: a step is a load, the scores, a max and a
			// select. Two accumulators, A over the lane's even-numbered
			// vectors (v = lane, lane + 2 lanes, ...) and B over its
			// odd ones, each step loading one of each: one chain of
			// dependent maxes and selects is latency-bound, and two
			// independent ones overlap (lavapipe, BENCHMARKS.md: 8x32000
			// 0.18 ms against 0.23, 128x256000 on one thread 20.5 ms
			// against 25). B's first vector is A's when the lane has
			// one vector: the same entry offered twice.
			if (lane < nv) {
				uint step = 2u * lanes;
				uint vb = lane + lanes < nv ? lane + lanes : lane;
				uvec4 a4 = score4(LOAD4(v0 + lane));
				uvec4 av = uvec4(lane);
				uvec4 b4 = score4(LOAD4(v0 + vb));
				uvec4 bv = uvec4(vb);
				uint v = lane + step;
				// Four vectors a trip where there are: the fetches of a
				// trip overlap (as argmax_vec_row.comp's TEXEL loop).
				for (; v + 3u * lanes < nv; v += 2u * step) {
					uvec4 sa = score4(LOAD4(v0 + v));
					uvec4 sb = score4(LOAD4(v0 + v + lanes));
					uvec4 sc = score4(LOAD4(v0 + v + 2u * lanes));
					uvec4 sd = score4(LOAD4(v0 + v + 3u * lanes));
					take1_vec(a4, av, sa, v);
					take1_vec(b4, bv, sb, v + lanes);
					take1_vec(a4, av, sc, v + 2u * lanes);
					take1_vec(b4, bv, sd, v + 3u * lanes);
				}
				for (; v + lanes < nv; v += step) {
					uvec4 sa = score4(LOAD4(v0 + v));
					uvec4 sb = score4(LOAD4(v0 + v + lanes));
					take1_vec(a4, av, sa, v);
					take1_vec(b4, bv, sb, v + lanes);
				}
				// An odd count: the last A vector, without a B partner.
				if (v < nv) {
					take1_vec(a4, av, score4(LOAD4(v0 + v)), v);
				}
				[[unroll]] for (uint c = 0u; c < 4u; c++) {
					list_take1(uvec2(a4[c], 0u), mid + 4u * av[c] + c);
					list_take1(uvec2(b4[c], 0u), mid + 4u * bv[c] + c);
				}
			}
			for (uint j = j0 + lane; j < mid; j += lanes) {
				list_take1(score(elem_load(base, e0 + j)), j);
			}
			for (uint j = mid + 4u * nv + lane; j < j1; j += lanes) {
				list_take1(score(elem_load(base, e0 + j)), j);
			}
			return;
		}
#endif
		for (uint j = j0 + lane; j < mid; j += lanes) {
			list_offer(elem_load(base, e0 + j), j, open, gate);
		}
		for (uint v = lane; v < nv; v += lanes) {
			uvec4 raw = LOAD4(v0 + v);
			// Both tests every vector (no short circuit): the gate is
			// the common path, open only the first positions'.
			if (any(bvec2(open, vec_gate_before(raw, gate)))) {
				uint j = mid + VW * v;
				// SCAN8: sixteen inlined insertions of up to K
				// entries each took lavapipe a minute to compile at K
				// = 16; one in a loop.
				SCAN8_OFFERS for (uint c = 0u; c < VW; c++) {
					list_offer(vec_elem(raw, c), j + c, open, gate);
				}
			}
		}
		for (uint j = mid + VW * nv + lane; j < j1; j += lanes) {
			list_offer(elem_load(base, e0 + j), j, open, gate);
		}
		return;
	}
#endif
	for (uint j = j0 + lane; j < j1; j += lanes) {
		list_offer(elem_load(base, e0 + j * AI), j, open, gate);
	}
}
#endif

#if SHAPE == 0

void main() {
	uint items = pc.r_count * pc.nseg;
	for (uint it = grid_index(); it < items; it += grid_size()) {
		// Rows vary fastest: for a strided axis neighbouring invocations
		// then read neighbouring elements.
		uint rl = it % pc.r_count, sg = it / pc.r_count;
		uint kin, kv, kx;
		row_offsets(pc.r_begin + rl, kin, kv, kx);
		uint j0 = sg * pc.seg_len;
		uint j1 = min(j0 + pc.seg_len, N);
		list_scan(kin, j0, j1, 0u, 1u);
		for (uint r = 0u; r < min(K, j1 - j0); r++) {
			emit(rl, sg, kin, kv, kx, r, ls[r], li[r]);
		}
	}
}

#else

shared uint sh_lo[SORT_MAX];
#if ENTRY_WORDS == 3
shared uint sh_hi[SORT_MAX];
#endif
shared uint sh_idx[SORT_MAX];
shared uint sh_count; // SHAPE 3: candidates in the buffer

void sh_put(uint e, uvec2 s, uint i) {
	sh_lo[e] = s.x;
#if ENTRY_WORDS == 3
	sh_hi[e] = s.y;
#endif
	sh_idx[e] = i;
}

uvec2 sh_score(uint e) {
#if ENTRY_WORDS == 3
	return uvec2(sh_lo[e], sh_hi[e]);
#else
	return uvec2(sh_lo[e], 0u);
#endif
}

// sh_sort sorts entries [0, p) of shared memory (p a power of two) best
// first: a bitonic sort, every lane taking pairs t, t+WG, ...
void sh_sort(uint p) {
	uint t = gl_LocalInvocationID.x;
	for (uint k = 2u; k <= p; k <<= 1) {
		for (uint j = k >> 1; j > 0u; j >>= 1) {
			barrier();
			for (uint q = t; q < p / 2u; q += gl_WorkGroupSize.x) {
				uint lo = ((q & ~(j - 1u)) << 1) | (q & (j - 1u));
				uint hi = lo + j;
				uvec2 a = sh_score(lo), b = sh_score(hi);
				uint ai = sh_idx[lo], bi = sh_idx[hi];
				// Best first in blocks whose bit k is 0, worst first in
				// the others: the bitonic sequences the next stage merges.
				bool swap = (lo & k) == 0u ? better(b, bi, a, ai) : better(a, ai, b, bi);
				if (swap) {
					sh_put(lo, b, bi);
					sh_put(hi, a, ai);
				}
			}
		}
	}
	barrier();
}

#if SHAPE == 3
// filter_offer appends entry (s, j) to the candidate buffer (after the
// list's list_n entries) if it beats the threshold entry (ths, thi).
void filter_offer(uvec2 s, uint j, uvec2 ths, uint thi) {
	if (better(s, j, ths, thi)) {
		sh_put(pc.list_n + atomicAdd(sh_count, 1u), s, j);
	}
}

#if ELEM_BITS == 32
// filter_offer4 appends the entries (s[c], j + c) that beat (ths, thi)
// among the components p marks, with one atomic for all of them.
void filter_offer4(uvec4 s, bvec4 p, uint j, uvec2 ths, uint thi) {
	uvec4 pi;
	[[unroll]] for (uint c = 0u; c < 4u; c++) {
		pi[c] = uint(p[c] && better(uvec2(s[c], 0u), j + c, ths, thi));
	}
	uint e = pc.list_n + atomicAdd(sh_count, pi.x + pi.y + pi.z + pi.w);
	[[unroll]] for (uint c = 0u; c < 4u; c++) {
		if (pi[c] != 0u) {
			sh_put(e, uvec2(s[c], 0u), j + c);
		}
		e += pi[c];
	}
}
#endif

// filter_chunk_end ends a chunk of the scan (t the lane): when the next
// chunk's most candidates could overflow the buffer, or this was the last
// one, the candidates are sorted into the list and (ths, thi) becomes its
// K-th entry; it returns whether they did (uniform).
bool filter_chunk_end(uint t, uint most, bool last, inout uvec2 ths, inout uint thi) {
	barrier();
	// Uniform: every lane reads the count after the barrier.
	bool full = sh_count + most > pc.cand_n || last;
	barrier();
	if (full) {
		sh_sort(pc.sort_n);
		// The candidates are now in the list; their slots (and every
		// slot past the list) hold padding again.
		for (uint q = pc.list_n + t; q < pc.sort_n; q += gl_WorkGroupSize.x) {
			sh_put(q, uvec2(0u), PAD_INDEX);
		}
		if (t == 0u) {
			sh_count = 0u;
		}
		ths = sh_score(K - 1u);
		thi = sh_idx[K - 1u];
		barrier();
	}
	return full;
}

#if SCAN8
// THE BYTE SELECT (SCAN8 filter, samp_step VW = 16; the GPU class's plans
// of 8-bit rows of input stride 1). A score has 256 values, its byte
// score (topk_scan8.glsl), so no running list is kept: a threshold byte
// m with at least kk positions at or above it (and at most SORT_MAX)
// makes the positions at or above it a superset of the segment's best
// kk, which one gather and one sort of at most SORT_MAX entries order.
// m comes from a histogram of a sample of the segment, every
// floor_step-th position (the four of every (floor_step/4)-th 32-bit
// word): the highest byte with, in the sample, kk's share plus three
// standard deviations and four positions at or above it
// (radix_threshold's margin). The gather tests sixteen positions a
// 16-byte vector in a few word operations (scan8_hits) and loops over
// the ones that pass: on uniformly random bytes the planner keeps those
// under one a vector on average (ops cutByteSelect). When the gather
// misses (fewer than kk or more than SORT_MAX), or the sample expects it
// to (large kk on long rows), exact counts of the bytes at or above the
// sample's threshold give the kk-th best byte m*: one gather at m* when
// its count fits, else the positions above m* and the first at m* in
// increasing index, exactly kk (any kk up to SORT_MAX).
shared uint sh_hist[256];
shared uint sh_m; // the threshold byte lane 0 found

// bsel_hist_clear zeroes sh_hist.
void bsel_hist_clear() {
	for (uint q = gl_LocalInvocationID.x; q < 256u; q += gl_WorkGroupSize.x) {
		sh_hist[q] = 0u;
	}
	barrier();
}

// bsel_sample counts in sh_hist the byte scores of a sample of [j0, j1):
// the four positions of every (step/4)-th 32-bit word of its aligned
// middle (scan_split; step a multiple of 4), and returns the positions
// sampled.
uint bsel_sample(uint kin, uint j0, uint j1, uint step) {
	bsel_hist_clear();
	uint mid, v0, nv;
	scan_split(kin, j0, j1, mid, v0, nv);
	uint sw = step / 4u;
	uint nw = (4u * nv + sw - 1u) / sw;
	for (uint i = gl_LocalInvocationID.x; i < nw; i += gl_WorkGroupSize.x) {
		uint w = i * sw;
		uint x = elem_src4.x[v0 + (w >> 2)][w & 3u] ^ SCAN8_X;
		[[unroll]] for (uint b = 0u; b < 4u; b++) {
			atomicAdd(sh_hist[(x >> (8u * b)) & 0xFFu], 1u);
		}
	}
	barrier();
	return 4u * nw;
}

// bsel_find makes sh_m the highest byte at or above which sh_hist holds
// at least need positions (0 when it holds fewer), and returns it and
// (ge) the positions at or above it.
uint bsel_find(float need, out uint ge) {
	if (gl_LocalInvocationID.x == 0u) {
		uint acc = 0u, m = 255u;
		for (;; m--) {
			acc += sh_hist[m];
			if (float(acc) >= need || m == 0u) {
				break;
			}
		}
		sh_m = m;
		sh_count = acc;
	}
	barrier();
	uint m = sh_m;
	ge = sh_count;
	barrier();
	return m;
}

// bsel_put appends entry (s, j) to shared memory; past SORT_MAX entries
// it only counts it (the gather missed).
void bsel_put(uvec2 s, uint j) {
	uint e = atomicAdd(sh_count, 1u);
	if (e < SORT_MAX) {
		sh_put(e, s, j);
	}
}

// bsel_gather appends the positions of [j0, j1) whose byte score is at
// least m and returns their count (uniform): the head and tail scalar,
// the aligned middle (scan_split) a 16-byte vector a lane.
uint bsel_gather(uint kin, uint j0, uint j1, uint m) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	if (t == 0u) {
		sh_count = 0u;
	}
	barrier();
	uint mid, v0, nv;
	scan_split(kin, j0, j1, mid, v0, nv);
	for (uint q = t; q < 2u * (VW - 1u); q += WG) {
		bool head = q < VW - 1u;
		uint j = head ? j0 + q : mid + VW * nv + q - (VW - 1u);
		if (j < (head ? mid : j1)) {
			uvec2 s = score(load_raw(kin + j));
			if ((s.x & 0xFFu) >= m) {
				bsel_put(s, j);
			}
		}
	}
	if (m > 255u) {
		nv = 0u; // none reach it
	}
	uint my = m * 0x01010101u;
	uint nmy = ~my, myl = my & 0x7F7F7F7Fu;
	for (uint v = t; v < nv; v += WG) {
		uvec4 raw = LOAD4(v0 + v);
		uint j = mid + VW * v;
		// Rare on the planner's segments: under one position a vector.
		for (uint hits = scan8_hits(raw, my, nmy, myl); hits != 0u; hits &= hits - 1u) {
			uint p = uint(findLSB(hits));
			uint c = p & 3u, b = p >> 3;
			bsel_put(score(uvec2(ELEM_SUB(raw[c], b), 0u)), j + 4u * c + b);
		}
	}
	barrier();
	uint cnt = sh_count;
	barrier();
	return cnt;
}

// bsel_count counts in sh_hist the byte scores of the positions of
// [j0, j1) whose byte score is at least m (m 0: every position; the
// counts of the bytes below m stay 0): the head and tail scalar, the
// aligned middle a 16-byte vector a lane, a trip of the inner loop for
// each of its positions at or above m (on the planner's segments of
// random bytes, about as many as the gather's: ops cutByteSelect).
void bsel_count(uint kin, uint j0, uint j1, uint m) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	bsel_hist_clear();
	uint mid, v0, nv;
	scan_split(kin, j0, j1, mid, v0, nv);
	for (uint q = t; q < 2u * (VW - 1u); q += WG) {
		bool head = q < VW - 1u;
		uint j = head ? j0 + q : mid + VW * nv + q - (VW - 1u);
		if (j < (head ? mid : j1)) {
			uint b = score(load_raw(kin + j)).x & 0xFFu;
			if (b >= m) {
				atomicAdd(sh_hist[b], 1u);
			}
		}
	}
	uint my = m * 0x01010101u;
	uint nmy = ~my, myl = my & 0x7F7F7F7Fu;
	for (uint v = t; v < nv; v += WG) {
		uvec4 raw = LOAD4(v0 + v);
		for (uint hits = scan8_hits(raw, my, nmy, myl); hits != 0u; hits &= hits - 1u) {
			uint p = uint(findLSB(hits));
			atomicAdd(sh_hist[((raw[p & 3u] ^ SCAN8_X) >> (8u * (p >> 3))) & 0xFFu], 1u);
		}
	}
	barrier();
}

// bsel_eq is, for the 16-byte vector raw, bit 7 of each byte set where
// its byte score is m (em: m in every byte), the rest 0: a byte of y is 0
// exactly when its low seven bits add no carry into bit 7 and its bit 7
// is clear (no carry crosses a byte: 0x7F + 0x7F < 0x100).
uvec4 bsel_eq(uvec4 raw, uint em) {
	uvec4 y = raw ^ uvec4(SCAN8_X ^ em);
	return ~(((y & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | y) & 0x80808080u;
}

// bsel_eq_mask is bsel_eq's bytes as a mask of the vector's positions in
// increasing index: position 4c + b (byte b of component c) at that bit.
uint bsel_eq_mask(uvec4 raw, uint em) {
	uvec4 e = bsel_eq(raw, em);
	uint mask = 0u;
	[[unroll]] for (uint c = 0u; c < 4u; c++) {
		uint x = e[c];
		mask |= (((x >> 7) & 1u) | ((x >> 14) & 2u) | ((x >> 21) & 4u) | ((x >> 28) & 8u)) << (4u * c);
	}
	return mask;
}

// bsel_rank_ties appends the positions of [j0, j1) whose byte score is
// above m and the first need of those at m, in increasing index: exactly
// the best kk when need is kk less the positions above m. Lane t takes a
// block of consecutive vectors (lane 0 the head before its block, the
// last lane the tail after its), counts its positions at m, and ranks its
// own after those of the lanes before it (in sh_hist, one word a lane:
// the byte select's workgroups have at most 256 lanes).
void bsel_rank_ties(uint kin, uint j0, uint j1, uint m, uint need) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	uint mid, v0, nv;
	scan_split(kin, j0, j1, mid, v0, nv);
	uint per = (nv + WG - 1u) / WG;
	uint vb = min(nv, t * per), ve = min(nv, vb + per);
	uint hb = t == 0u ? j0 : mid, tb = t == WG - 1u ? mid + VW * nv : j1;
	uint em = m * 0x01010101u;
	uint mine = 0u;
	for (uint j = hb; j < mid; j++) {
		mine += (score(load_raw(kin + j)).x & 0xFFu) == m ? 1u : 0u;
	}
	for (uint v = vb; v < ve; v++) {
		uvec4 n4 = uvec4(bitCount(bsel_eq(LOAD4(v0 + v), em)));
		mine += n4.x + n4.y + n4.z + n4.w;
	}
	for (uint j = tb; j < j1; j++) {
		mine += (score(load_raw(kin + j)).x & 0xFFu) == m ? 1u : 0u;
	}
	barrier(); // every lane has read sh_hist (bsel_find)
	sh_hist[t] = mine;
	if (t == 0u) {
		sh_count = 0u;
	}
	barrier();
	uint r = 0u; // ties at m before this lane's next position
	for (uint u = 0u; u < t; u++) {
		r += sh_hist[u];
	}
	for (uint j = hb; j < mid; j++) {
		uvec2 s = score(load_raw(kin + j));
		uint b = s.x & 0xFFu;
		if (b > m || b == m && r < need) {
			bsel_put(s, j);
		}
		r += b == m ? 1u : 0u;
	}
	uint my = m * 0x01010101u;
	uint nmy = ~my, myl = my & 0x7F7F7F7Fu;
	for (uint v = vb; v < ve; v++) {
		uvec4 raw = LOAD4(v0 + v);
		uint hits = scan8_hits(raw, my, nmy, myl);
		if (hits != 0u) {
			uint eq = bsel_eq_mask(raw, em);
			for (; hits != 0u; hits &= hits - 1u) {
				uint p = uint(findLSB(hits));
				uint c = p & 3u, b = p >> 3, pos = 4u * c + b;
				if ((eq >> pos & 1u) == 0u || r + uint(bitCount(eq & ((1u << pos) - 1u))) < need) {
					bsel_put(score(uvec2(ELEM_SUB(raw[c], b), 0u)), mid + VW * v + pos);
				}
			}
			r += uint(bitCount(eq));
		}
	}
	for (uint j = tb; j < j1; j++) {
		uvec2 s = score(load_raw(kin + j));
		uint b = s.x & 0xFFu;
		if (b > m || b == m && r < need) {
			bsel_put(s, j);
		}
		r += b == m ? 1u : 0u;
	}
	barrier();
}

// byte_select leaves the best kk entries of [j0, j1) sorted at the start
// of shared memory. Where the sample expects the gather at its threshold
// to fit three quarters of SORT_MAX, that gather runs first; where it
// misses or was not tried, the exact counts of the bytes at or above the
// sample's threshold (of every byte when the sample fell short of it, or
// the counts do) give the kk-th best byte m*, and either one gather at
// m* (at most SORT_MAX at or above it) or the positions above m* and the
// first at m* in increasing index (bsel_rank_ties), exactly kk.
void byte_select(uint kin, uint j0, uint j1, uint kk) {
	// The sample's share of kk (ns positions sampled), its margin.
	uint len = j1 - j0;
	uint ns = bsel_sample(kin, j0, j1, max(pc.floor_step, 4u));
	float q = float(kk) * float(ns) / float(len);
	float want = q + 3.0 * sqrt(q) + 4.0;
	uint ge;
	uint m = bsel_find(want, ge);
	bool reached = float(ge) >= want;
	uint cnt = 0u;
	bool done = false;
	// Uniform: ge and m are read after bsel_find's barrier.
	if (reached && float(ge) * float(len) <= float(SORT_MAX * 3u / 4u) * float(ns)) {
		cnt = bsel_gather(kin, j0, j1, m);
		done = cnt >= kk && cnt <= SORT_MAX;
	}
	if (!done) {
		uint flo = reached ? m : 0u;
		bsel_count(kin, j0, j1, flo);
		m = bsel_find(float(kk), ge);
		if (ge < kk) {
			// Fewer than kk at or above the sample's threshold.
			bsel_count(kin, j0, j1, 0u);
			m = bsel_find(float(kk), ge);
		}
		if (ge <= SORT_MAX) {
			cnt = bsel_gather(kin, j0, j1, m);
		} else {
			uint above = ge - sh_hist[m];
			bsel_rank_ties(kin, j0, j1, m, kk - above);
			cnt = kk;
		}
	}
	uint p = 1u;
	while (p < cnt) {
		p <<= 1;
	}
	for (uint e = cnt + gl_LocalInvocationID.x; e < p; e += gl_WorkGroupSize.x) {
		sh_put(e, uvec2(0u), PAD_INDEX);
	}
	sh_sort(p);
}
#endif
#endif

#if SHAPE == 4
// RADIX_BITS: a digit's bits; its histogram (2^RADIX_BITS counts) lives
// in sh_idx, which holds SORT_MAX words, and the per-lane sums of its bins
// in sh_lo, until the gather reuses both for the entries.
const uint RADIX_BITS = 11u;
shared uint sh_pick;   // the chosen bin
shared uint sh_before; // entries in the bins above it
// OWN_MAX: the gathered entries one lane ranks, at most (the planner
// gives the radix strategy workgroups of at least 64 lanes).
const uint OWN_MAX = SORT_MAX / 64u;

// radix_key is the entry's key as three words (lowest first): the
// position from the segment's end, ib bits, under the score.
uvec3 radix_key(uvec2 s, uint back, uint ib) {
	return uvec3(back | (s.x << ib), (s.x >> (32u - ib)) | (s.y << ib), s.y >> (32u - ib));
}

// radix_top is k with the bits below bit lo cleared.
uvec3 radix_top(uvec3 k, uint lo) {
	uvec3 m;
	[[unroll]] for (uint w = 0u; w < 3u; w++) {
		uint b = 32u * w;
		m[w] = lo <= b ? 0xFFFFFFFFu : (lo >= b + 32u ? 0u : ~((1u << (lo - b)) - 1u));
	}
	return k & m;
}

// radix_ge: is key a at least key b (high words first)?
bool radix_ge(uvec3 a, uvec3 b) {
	return a.z > b.z || (a.z == b.z && (a.y > b.y || (a.y == b.y && a.x >= b.x)));
}

// radix_digit is bits [lo, lo+w) of k (w <= RADIX_BITS).
uint radix_digit(uvec3 k, uint lo, uint w) {
	uint wi = lo >> 5, off = lo & 31u;
	uint v = k[wi] >> off;
	if (off + w > 32u && wi < 2u) {
		v |= k[wi + 1u] << (32u - off);
	}
	return v & ((1u << w) - 1u);
}

// RADIX_FLOOR: the variants that take a floor (push word floor_step,
// radix_select), the texel ones (lavapipe's plans, tuning
// topKRadixFloor). Elsewhere no scan compares a score with the floor: a
// compare a position there cost the h100 profile's radix plans 3.88 ops
// a byte against 2.82 without it (internal/opcount, budget 4), and their
// plans take no floor (ops topKSegments.floorStep only with texel).
#if TEXEL
#define RADIX_FLOOR 1
#else
#define RADIX_FLOOR 0
#endif

// radix_at_floor: does score s reach the floor flo (every score does
// without RADIX_FLOOR)?
bool radix_at_floor(uint s, uint flo) {
#if RADIX_FLOOR
	return s >= flo;
#else
	return true;
#endif
}

// radix_offer offers position j of [j0, j1), whose score is s, to a
// scan of radix_gather: a histogram pass (gather false) counts its digit
// [lo, lo+w) if its key's bits from hi up are the prefix pre; the gather
// (gather true, hi = lo) keeps it if its key's bits from lo up are at
// least pre. Either skips an entry that scores below the floor flo (0:
// none, every score is at least 0; radix_at_floor). sh_count counts every
// entry kept; only the first SORT_MAX are stored (the sampled
// threshold's gather may pass more, and then falls back: radix_select).
void radix_offer(uvec2 s, uint j, uint j1, uint ib, uvec3 pre, uint hi, uint lo, uint w, bool gather, uint flo) {
	uvec3 k = radix_key(s, j1 - 1u - j, ib);
	if (gather) {
		if (radix_at_floor(s.x, flo) && radix_ge(radix_top(k, lo), pre)) {
			uint e = atomicAdd(sh_count, 1u);
			if (e < SORT_MAX) {
				sh_put(e, s, j);
			}
		}
	} else if (radix_at_floor(s.x, flo) && radix_top(k, hi) == pre) {
		atomicAdd(sh_idx[radix_digit(k, lo, w)], 1u);
	}
}

// SCAN_BLOCK and SAMPLE_BLOCK: the 16-byte vectors (four positions
// each) and the sampled positions a lane of radix_scan and thr_collect
// tests before it offers the ones that pass, a bit each in one word. On
// lavapipe a store or an atomic to shared memory is a loop over the SIMD
// row's lanes, paid whether or not a lane takes the branch around it
// (BENCHMARKS.md "TOP_K's texel scans"): testing a block first (a load,
// the scores and a compare a vector, in registers) pays it once a block
// and once for each vector (or sampled position) that passes, not once a
// vector. A block's offers take a trip of a loop each, so that a scan
// takes at most one more trip than its vectors (or positions) for each
// block: topk_plan.go's topKRadixIters counts them. Storage buffers
// (GPUs) take no blocks in radix_scan and blocks of one vector in
// thr_collect (which their plans do not run): a branch not taken costs a
// GPU nothing, and blocks of eight vectors or of one were over the h100
// profile's budget of ops per byte (internal/opcount: 9.2 and 6.3
// against 2.8).
#if TEXEL
const uint SCAN_BLOCK = 8u;
#else
const uint SCAN_BLOCK = 1u;
#endif
const uint SAMPLE_BLOCK = 32u;

// radix_may4: may the positions whose scores are s pass radix_offer?
// Their score bits from sh up must be pt (a histogram pass), at least pt
// (the gather), or anything (all: the first pass, sh past the score),
// and the scores at least flo (RADIX_FLOOR): 1 for yes, per component.
uvec4 radix_may4(uvec4 s, uint sh, uint pt, bool all, bool gather, uint flo) {
	uvec4 st = all ? uvec4(0u) : s >> sh;
	bvec4 p = gather ? greaterThanEqual(st, uvec4(pt)) : equal(st, uvec4(pt));
#if RADIX_FLOOR
	return uvec4(p) & uvec4(greaterThanEqual(s, uvec4(flo)));
#else
	return uvec4(p);
#endif
}

// lane_vectors is lane t's share of a segment's nv 16-byte vectors, as
// (first, end, step). Lavapipe's plans give each lane a block of
// consecutive vectors: a lane is one SIMD slot of a CPU thread, whose
// loads then stay in its own cache lines (128x256000 FLOAT32, 2026-11-27:
// K=50 566 ms against 713 strided, K=1024 885 against 1080). GPU plans
// set STRIDED, every WG-th vector from t: a subgroup's lanes then read
// neighbouring vectors in one transaction, and every lane has work
// wherever nv >= WG (blocks of ceil(nv / WG) leave the last lanes empty:
// 24 of 1024 for 8000 vectors), which is what the plan facts count
// (ops/facts_topk.go).
uvec3 lane_vectors(uint t, uint nv) {
	const uint WG = gl_WorkGroupSize.x;
	if (STRIDED != 0u) {
		return uvec3(t, nv, WG);
	}
	uint per = (nv + WG - 1u) / WG;
	uint vb = min(nv, t * per);
	return uvec3(vb, min(nv, vb + per), 1u);
}

// radix_scan runs radix_offer over lane t's share of positions [j0, j1),
// or with step > 1 of the sample j0, j0 + step, ... < j1 (scalar loads).
// Below 64 bits, the sample, and with VEC4 the 16-byte vectors of
// scan_split, are read in blocks a lane (SCAN_BLOCK) and a position is
// offered only when it may pass, from its score alone (radix_may4): a
// key whose bits from hi up are pre (or at least pre) has a score whose
// bits from hi - ib up (0 once hi is within the position's ib bits) are
// pre's score's (or at least those); at the first pass (hi - ib = the
// score's bits) every position at the floor is offered. A scan's order
// does not matter (the counts, and the gathered entries' slots, are put
// in order by the ranking or the sort).
void radix_scan(uint kin, uint j0, uint j1, uint step, uint ib, uvec3 pre, uint hi, uint lo, uint w, bool gather, uint flo) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	// The score is bits [ib, ib + 32) of the key.
	uint sh = hi > ib ? hi - ib : 0u;
	bool all = sh >= 32u;
	uint ps = ib >= 32u ? pre.y : (pre.x >> ib) | (pre.y << (32u - ib)); // ib is at least 1
	uint pt = all ? 0u : ps >> sh;
	if (step > 1u) {
		uint nq = (j1 - j0 - 1u) / step + 1u;
#if ENTRY_WORDS == 2 && TEXEL
		// Lane t's block of the sample, SAMPLE_BLOCK positions at a time.
		uint per = (nq + WG - 1u) / WG;
		uint qb = t * per, qe = min(nq, qb + per);
		for (uint b = qb; b < qe; b += SAMPLE_BLOCK) {
			uint hits = 0u;
			for (uint i = 0u; i < min(SAMPLE_BLOCK, qe - b); i++) {
				uint s = score(load_raw(kin + (j0 + (b + i) * step) * AI)).x;
				hits |= radix_may4(uvec4(s), sh, pt, all, gather, flo).x << i;
			}
			while (hits != 0u) {
				uint j = j0 + (b + uint(findLSB(hits))) * step;
				hits &= hits - 1u;
				radix_offer(score(load_raw(kin + j * AI)), j, j1, ib, pre, hi, lo, w, gather, flo);
			}
		}
#else
		for (uint q = t; q < nq; q += WG) {
			uint j = j0 + q * step;
			radix_offer(score(load_raw(kin + j * AI)), j, j1, ib, pre, hi, lo, w, gather, flo);
		}
#endif
		return;
	}
#if ELEM_BITS == 64 && SCAN64
	// VEC2: two positions a 16-byte vector. The key's bits from hi up are
	// pre's (or at least pre's, the gather) only where the score's bits
	// from sh64 = hi - ib up (all 64 once hi is within the position's ib
	// bits; none at the first pass, sh64 = 64) are pre's score's (or at
	// least those, as a 64-bit number): a vector is offered when either
	// of its scores, masked to those bits, may pass, and radix_offer
	// tests each position exactly.
	if (VEC2) {
		uint mid, v0, nv;
		scan_split(kin, j0, j1, mid, v0, nv);
		for (uint j = j0 + t; j < mid; j += WG) {
			radix_offer(score(load_raw(kin + j)), j, j1, ib, pre, hi, lo, w, gather, flo);
		}
		uint sh64 = hi > ib ? hi - ib : 0u;
		uvec2 m = sh64 >= 64u ? uvec2(0u) : sh64 >= 32u ? uvec2(0u, 0xFFFFFFFFu << (sh64 - 32u)) : uvec2(0xFFFFFFFFu << sh64, 0xFFFFFFFFu);
		// pre's score part, bits [ib, ib + 64) of pre (1 <= ib <= 32).
		uvec2 ps = ib >= 32u ? pre.yz : uvec2((pre.x >> ib) | (pre.y << (32u - ib)), (pre.y >> ib) | (pre.z << (32u - ib)));
		uvec2 pm = ps & m;
		uvec3 lv = lane_vectors(t, nv);
		for (uint v = lv.x; v < lv.y; v += lv.z) {
			uvec4 raw = LOAD4(v0 + v);
			uvec2 s0 = score(raw.xy), s1 = score(raw.zw);
			uvec4 a = uvec4(s0, s1) & m.xyxy;
			bool may = gather ? !key_gt(pm, a.xy) || !key_gt(pm, a.zw) : a.xy == pm || a.zw == pm;
			if (may) {
				radix_offer(s0, mid + 2u * v, j1, ib, pre, hi, lo, w, gather, flo);
				radix_offer(s1, mid + 2u * v + 1u, j1, ib, pre, hi, lo, w, gather, flo);
			}
		}
		for (uint j = mid + 2u * nv + t; j < j1; j += WG) {
			radix_offer(score(load_raw(kin + j)), j, j1, ib, pre, hi, lo, w, gather, flo);
		}
		return;
	}
#endif
#if ELEM_BITS == 32
	if (VEC4) {
		uint mid, v0, nv;
		scan_split(kin, j0, j1, mid, v0, nv);
		for (uint j = j0 + t; j < mid; j += WG) {
			radix_offer(score(load_raw(kin + j)), j, j1, ib, pre, hi, lo, w, gather, flo);
		}
		uvec3 lv = lane_vectors(t, nv);
		uint vb = lv.x, ve = lv.y;
#if TEXEL
		// Blocks over a floor, which the planner takes only where few
		// positions are expected at it (topk_plan.go
		// topKRadixFloorPays): where most vectors pass, a block's trips
		// cost more than its tests save. A lane's vectors are
		// consecutive here (texel plans are lavapipe's, never STRIDED).
		if (STRIDED == 0u && pc.floor_step > 1u) {
		for (uint b = vb; b < ve; b += SCAN_BLOCK) {
			uint hits = 0u;
			for (uint i = 0u; i < min(SCAN_BLOCK, ve - b); i++) {
				uvec4 p = radix_may4(score4(LOAD4(v0 + b + i)), sh, pt, all, gather, flo);
				hits |= (p.x | (p.y << 1) | (p.z << 2) | (p.w << 3)) << (4u * i);
			}
			// A vector with a position that may pass a trip: its four
			// positions are offered (radix_offer tests each).
			while (hits != 0u) {
				uint i = uint(findLSB(hits)) >> 2;
				hits &= ~(15u << (4u * i));
				uint v = b + i;
				uvec4 s = score4(LOAD4(v0 + v));
				[[unroll]] for (uint c = 0u; c < 4u; c++) {
					radix_offer(uvec2(s[c], 0u), mid + 4u * v + c, j1, ib, pre, hi, lo, w, gather, flo);
				}
			}
		}
		vb = ve; // the vectors are done
		}
#endif
		// A vector at a time: a branch not taken costs a GPU (storage
		// buffers) nothing.
		for (uint v = vb; v < ve; v += lv.z) {
			uvec4 s = score4(LOAD4(v0 + v));
#if RADIX_FLOOR
			bool may = any(notEqual(radix_may4(s, sh, pt, all, gather, flo), uvec4(0u)));
#else
			uvec4 st = all ? uvec4(0u) : s >> sh;
			bool may = gather ? any(greaterThanEqual(st, uvec4(pt))) : any(equal(st, uvec4(pt)));
#endif
			if (may) {
				[[unroll]] for (uint c = 0u; c < 4u; c++) {
					radix_offer(uvec2(s[c], 0u), mid + 4u * v + c, j1, ib, pre, hi, lo, w, gather, flo);
				}
			}
		}
		for (uint j = mid + 4u * nv + t; j < j1; j += WG) {
			radix_offer(score(load_raw(kin + j)), j, j1, ib, pre, hi, lo, w, gather, flo);
		}
		return;
	}
#elif ELEM_BITS == 16
	// VEC8: eight positions a 16-byte vector, two to a word (the low half
	// first). A vector is tested on its elements' keys against the keys
	// whose scores may pass: scores [slo, shi] are keys [slo, shi]
	// (DECREASING) or [~shi, ~slo] (score ~key), and a NaN scores 0, so a
	// scan whose scores start at 0 offers every vector. The keys of a
	// word's two elements are made at once: an integer's as elem_key's; a
	// float's are elem_key's for a positive value and one less for a
	// negative one (its magnitude inverted in place, where elem_key
	// negates it: -0 one below +0), so the range starts one lower for
	// floats. radix_offer tests each offered position exactly.
	if (VEC8) {
		uint mid, v0, nv;
		scan_split(kin, j0, j1, mid, v0, nv);
		for (uint j = j0 + t; j < mid; j += WG) {
			radix_offer(score(load_raw(kin + j)), j, j1, ib, pre, hi, lo, w, gather, flo);
		}
		uint slo = all ? 0u : pt << sh;
		uint shi = all || gather ? 0xFFFFFFFFu : slo | ((1u << sh) - 1u);
		bool every = slo == 0u;
		uint wide = KIND == KIND_FLOAT ? 1u : 0u;
		uint klo = (DECR != 0u ? slo : ~shi) - wide;
		uint kspan = min(shi - slo, 0xFFFFFFFEu) + wide;
		uvec3 lv = lane_vectors(t, nv);
		for (uint v = lv.x; v < lv.y; v += lv.z) {
			uvec4 raw = LOAD4(v0 + v);
			uvec4 k2 = KIND == KIND_FLOAT ? raw ^ (((raw & 0x80008000u) >> 15) * 0x7FFFu) ^ 0x80008000u : KIND == KIND_SIGNED ? raw ^ 0x80008000u : raw;
			bvec4 pe = lessThanEqual((k2 & 0xFFFFu) - klo, uvec4(kspan)), po = lessThanEqual((k2 >> 16) - klo, uvec4(kspan));
			if (every || any(pe) || any(po)) {
				uvec4 se = score4(raw & 0xFFFFu), so = score4(raw >> 16);
				[[unroll]] for (uint c = 0u; c < 8u; c++) {
					radix_offer(uvec2((c & 1u) == 0u ? se[c >> 1] : so[c >> 1], 0u), mid + 8u * v + c, j1, ib, pre, hi, lo, w, gather, flo);
				}
			}
		}
		for (uint j = mid + 8u * nv + t; j < j1; j += WG) {
			radix_offer(score(load_raw(kin + j)), j, j1, ib, pre, hi, lo, w, gather, flo);
		}
		return;
	}
#endif
	for (uint j = j0 + t; j < j1; j += WG) {
		radix_offer(score(load_raw(kin + j * AI)), j, j1, ib, pre, hi, lo, w, gather, flo);
	}
}

// radix_ib is the bits of the position part of the keys of a segment
// of len positions.
uint radix_ib(uint len) { return uint(max(findMSB(len - 1u) + 1, 1)); }

const uint NO_PICK = 0xFFFFFFFFu;

// radix_passes runs the histogram passes over the positions of [j0, j1)
// that radix_scan's step takes (nq of them) and that score at least flo
// until the entries among them whose keys are at or above the prefix of
// the kk-th best's key number at most limit (at least kk, so that the
// passes end: keys differ). It sets the prefix, whose bits below lo are
// 0, and returns true; or false when fewer than kk of those positions
// score at least flo (never with flo 0).
bool radix_passes(uint kin, uint j0, uint j1, uint step, uint nq, uint kk, uint limit, uint ib, uint flo, out uvec3 pre, out uint lo) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	lo = ib + (ENTRY_WORDS == 3 ? 64u : 32u); // bits [lo, ...) of pre are chosen
	pre = uvec3(0u);
	uint above = 0u, inbin = nq; // entries above the prefix, and at it (nq: at most)
	bool ok = true;
	while (ok && above + inbin > limit) {
		uint w = min(RADIX_BITS, lo);
		uint hi = lo;
		lo -= w;
		uint nbins = 1u << w;
		for (uint q = t; q < nbins; q += WG) {
			sh_idx[q] = 0u;
		}
		barrier();
		radix_scan(kin, j0, j1, step, ib, pre, hi, lo, w, false, flo);
		barrier();
		// Lane t sums bins [t*per, (t+1)*per); lane 0 finds the lane whose
		// bins hold the (kk-above)-th entry from the top, then the bin.
		uint per = (nbins + WG - 1u) / WG;
		uint sum = 0u;
		for (uint q = t * per; q < min(nbins, (t + 1u) * per); q++) {
			sum += sh_idx[q];
		}
		sh_lo[t] = sum;
		barrier();
		if (t == 0u) {
			uint need = kk - above, acc = 0u, tot = need;
			// Below a floor there may be fewer than need (uniform: flo
			// is; 8x32000 K=2048, no floor, is small enough to feel
			// this loop).
			if (flo != 0u) {
				tot = 0u;
				for (uint c = 0u; c < WG; c++) {
					tot += sh_lo[c];
				}
			}
			sh_pick = NO_PICK;
			if (tot >= need) {
				uint c = WG - 1u;
				while (acc + sh_lo[c] < need) {
					acc += sh_lo[c];
					c--;
				}
				uint b = min(nbins, (c + 1u) * per) - 1u;
				while (acc + sh_idx[b] < need) {
					acc += sh_idx[b];
					b--;
				}
				sh_pick = b;
				sh_before = acc;
			}
		}
		barrier();
		// Uniform: every lane reads the pick after the barrier.
		uint b = sh_pick;
		ok = b != NO_PICK;
		above += sh_before;
		inbin = ok ? sh_idx[b] : 0u;
		uvec3 dk = uvec3(0u);
		dk[lo >> 5] = b << (lo & 31u);
		if ((lo & 31u) + w > 32u && (lo >> 5) < 2u) {
			dk[(lo >> 5) + 1u] = b >> (32u - (lo & 31u));
		}
		pre |= dk;
		barrier();
	}
	return ok;
}

// radix_collect gathers into shared memory the entries of [j0, j1) that
// score at least flo and whose keys' bits from lo up are at least pre's,
// and returns their count (only the first SORT_MAX are stored).
uint radix_collect(uint kin, uint j0, uint j1, uint ib, uvec3 pre, uint lo, uint flo) {
	if (gl_LocalInvocationID.x == 0u) {
		sh_count = 0u;
	}
	barrier();
	radix_scan(kin, j0, j1, 1u, ib, pre, lo, lo, 0u, true, flo);
	barrier();
	// Uniform: every lane reads the count after the barrier.
	uint cnt = sh_count;
	barrier();
	return cnt;
}

// radix_gather leaves in shared memory, sh_count of them, the entries of
// positions [j0, j1) whose keys are at or above the kk-th best's prefix
// and that score at least flo: at least kk of them (every entry of the
// best kk), at most sort_n (at least kk, at most SORT_MAX). It returns
// false, with nothing left, when fewer than kk entries score at least
// flo (never with flo 0): every pass then counts only the entries at the
// floor, which a scan tests on one compare (radix_scan's blocks).
bool radix_gather(uint kin, uint j0, uint j1, uint kk, uint flo) {
	uint ib = radix_ib(j1 - j0);
	uvec3 pre;
	uint lo;
	if (!radix_passes(kin, j0, j1, 1u, j1 - j0, kk, pc.sort_n, ib, flo, pre, lo)) {
		return false;
	}
	return radix_collect(kin, j0, j1, ib, pre, lo, flo) >= kk;
}

#if ENTRY_WORDS == 2
// thr_keep appends the entry (s, j) to the gathered ones: sh_count
// counts them all, the first SORT_MAX are stored.
void thr_keep(uint s, uint j) {
	uint e = atomicAdd(sh_count, 1u);
	if (e < SORT_MAX) {
		sh_put(e, uvec2(s, 0u), j);
	}
}

// thr_collect gathers into shared memory the entries of [j0, j1) that
// score at least thr (thr > 0: no NaN among them) and returns their count
// (only the first SORT_MAX are stored). The work of a position that does
// not pass is a load and a compare: the 16-byte vectors are tested in
// blocks (radix_scan's SCAN_BLOCK), and each position that passes is
// kept by thr_keep, one atomic and the stores, not radix_offer's keys.
uint thr_collect(uint kin, uint j0, uint j1, uint thr) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	if (t == 0u) {
		sh_count = 0u;
	}
	barrier();
	uint mid = j0, v0 = 0u, nv = 0u;
#if ELEM_BITS == 32
	if (VEC4) {
		scan_split(kin, j0, j1, mid, v0, nv);
		// A block of vectors a lane, as radix_scan reads them.
		uint per = (nv + WG - 1u) / WG;
		uint vb = t * per, ve = min(nv, vb + per);
		for (uint b = vb; b < ve; b += SCAN_BLOCK) {
			uint hits = 0u;
			for (uint i = 0u; i < min(SCAN_BLOCK, ve - b); i++) {
				uvec4 p = uvec4(greaterThanEqual(score4(LOAD4(v0 + b + i)), uvec4(thr)));
				hits |= (p.x | (p.y << 1) | (p.z << 2) | (p.w << 3)) << (4u * i);
			}
			// A position that passes a trip: on lavapipe the atomic and
			// the two stores are a loop over the SIMD row's lanes each,
			// whether a lane keeps one position or none, so a trip a
			// vector, keeping its (up to) four positions, made nine
			// (8x32000 FLOAT32 K=1024: 4.0 -> 3.5 ms on one thread).
			while (hits != 0u) {
				uint q = uint(findLSB(hits));
				hits &= hits - 1u;
				uint v = b + (q >> 2);
				thr_keep(score4(LOAD4(v0 + v))[q & 3u], mid + 4u * v + (q & 3u));
			}
		}
	}
#endif
	// The scalar positions: the head and tail of VEC4's split, or all.
	uint len = j1 - j0, nvp = 4u * nv, head = mid - j0;
	for (uint q = t; q < len - nvp; q += WG) {
		uint j = q < head ? j0 + q : j0 + nvp + q;
		uint s = score(load_raw(kin + j * AI)).x;
		if (s >= thr) {
			thr_keep(s, j);
		}
	}
	barrier();
	// Uniform: every lane reads the count after the barrier.
	uint cnt = sh_count;
	barrier();
	return cnt;
}

// radix_threshold is a score that, on rows whose sample is like the rest
// (random data), at least kk and not many more entries of [j0, j1)
// reach: the histogram passes run over every step-th position (those
// scoring at least flo) down to the score of its s-th best entry, s the
// sample's expected count above the kk-th best plus three of its
// standard deviations and four. 0 where there is none (the sample too
// small, fewer than s sampled positions at the floor, or the s-th best a
// NaN's score). It only bounds the work: whoever uses it checks the
// count it gives.
#if ENTRY_WORDS == 2 && TEXEL
// thr_cand is the i-th of THR_CANDS candidate thresholds in the scores
// [a, b], 2^sh apart from a (at most b).
const uint THR_CANDS = 16u;
uint thr_cand(uint a, uint b, uint sh, uint i) { return a + min(i << sh, b - a); }

// thr_count adds to n0..n3 (candidate 4i + c in component c of ni) 1 for
// each candidate of c0..c3 that score v reaches.
void thr_count(uint v, uvec4 c0, uvec4 c1, uvec4 c2, uvec4 c3, inout uvec4 n0, inout uvec4 n1, inout uvec4 n2, inout uvec4 n3) {
	uvec4 v4 = uvec4(v);
	n0 += uvec4(greaterThanEqual(v4, c0));
	n1 += uvec4(greaterThanEqual(v4, c1));
	n2 += uvec4(greaterThanEqual(v4, c2));
	n3 += uvec4(greaterThanEqual(v4, c3));
}

// thr_search is radix_threshold for the texel variants' one-word scores,
// without radix_passes' histograms: the sample is every step-th 16-byte
// vector of scan_split's middle (VEC4; else every step-th position), and
// the threshold the highest score a that at least s of the sampled
// positions reach, to the resolution of passes that stop once at most
// limit = 1.5 s reach it or a is exact; 0 where fewer than s sampled
// positions score at least flo and 1 (a NaN scores 0). A pass counts, in
// each lane's registers, the lane's sampled positions at or above each
// of THR_CANDS candidates spread over the scores left [a, b], and merges
// the counts in shared memory with an atomic a candidate a lane, not a
// sampled position (lavapipe runs each shared-memory atomic a lane at a
// time: radix_passes' histograms took 1.3 of 3.5 ms of 8x32000 FLOAT32
// K=1024 on one thread); its texel loads are four sampled positions each
// (a load cost more than the position's 16 compares). Each pass leaves
// at most 2^-4 of [a, b] (a candidate's interval), so there are at most
// 8 (topk_plan.go topKThrPasses).
uint thr_search(uint kin, uint j0, uint j1, uint kk, uint step, uint flo) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	uint len = j1 - j0;
	uint mid = j0, v0 = 0u, nv = 0u;
#if ELEM_BITS == 32
	if (VEC4) {
		scan_split(kin, j0, j1, mid, v0, nv);
	}
#endif
	// nl: the sample's loads, nq: its positions.
	uint nl = VEC4 ? (nv + step - 1u) / step : (len - 1u) / step + 1u;
	uint nq = VEC4 ? 4u * nl : nl;
	float fq = float(kk) * float(nq) / float(len);
	uint s = uint(fq + 3.0 * sqrt(fq)) + 4u;
	if (s >= nq) {
		return 0u;
	}
	uint limit = s + (s >> 1);
	uint per = (nl + WG - 1u) / WG;
	uint qb = min(nl, t * per), qe = min(nl, qb + per);
	uint a = max(flo, 1u), b = 0xFFFFFFFFu;
	while (a < b) {
		uint sh = uint(max(findMSB(b - a) - 3, 0));
		for (uint q = t; q < THR_CANDS; q += WG) {
			sh_idx[q] = 0u;
		}
		barrier();
		uvec4 c0 = uvec4(thr_cand(a, b, sh, 0u), thr_cand(a, b, sh, 1u), thr_cand(a, b, sh, 2u), thr_cand(a, b, sh, 3u));
		uvec4 c1 = uvec4(thr_cand(a, b, sh, 4u), thr_cand(a, b, sh, 5u), thr_cand(a, b, sh, 6u), thr_cand(a, b, sh, 7u));
		uvec4 c2 = uvec4(thr_cand(a, b, sh, 8u), thr_cand(a, b, sh, 9u), thr_cand(a, b, sh, 10u), thr_cand(a, b, sh, 11u));
		uvec4 c3 = uvec4(thr_cand(a, b, sh, 12u), thr_cand(a, b, sh, 13u), thr_cand(a, b, sh, 14u), thr_cand(a, b, sh, 15u));
		uvec4 n0 = uvec4(0u), n1 = uvec4(0u), n2 = uvec4(0u), n3 = uvec4(0u);
		for (uint q = qb; q < qe; q++) {
#if ELEM_BITS == 32
			if (VEC4) {
				uvec4 v = score4(LOAD4(v0 + q * step));
				[[unroll]] for (uint c = 0u; c < 4u; c++) {
					thr_count(v[c], c0, c1, c2, c3, n0, n1, n2, n3);
				}
				continue;
			}
#endif
			thr_count(score(load_raw(kin + (j0 + q * step) * AI)).x, c0, c1, c2, c3, n0, n1, n2, n3);
		}
		[[unroll]] for (uint c = 0u; c < 4u; c++) {
			atomicAdd(sh_idx[c], n0[c]);
			atomicAdd(sh_idx[4u + c], n1[c]);
			atomicAdd(sh_idx[8u + c], n2[c]);
			atomicAdd(sh_idx[12u + c], n3[c]);
		}
		barrier();
		if (t == 0u) {
			// The counts fall with the candidate: the last that s reach.
			uint na = 0u, nb = 0u;
			if (sh_idx[0] >= s) {
				uint i = THR_CANDS - 1u;
				while (sh_idx[i] < s) {
					i--;
				}
				na = thr_cand(a, b, sh, i);
				nb = sh_idx[i] <= limit ? na : (i + 1u < THR_CANDS ? thr_cand(a, b, sh, i + 1u) - 1u : b);
			}
			sh_pick = na;
			sh_before = nb;
		}
		barrier();
		// Uniform: every lane reads them after the barrier.
		a = sh_pick;
		b = sh_before;
	}
	return a;
}
#endif

uint radix_threshold(uint kin, uint j0, uint j1, uint kk, uint step, uint flo) {
#if ENTRY_WORDS == 2 && TEXEL
	return thr_search(kin, j0, j1, kk, step, flo);
#else
	uint len = j1 - j0;
	uint nq = (len - 1u) / step + 1u;
	float q = float(kk) * float(nq) / float(len);
	uint s = uint(q + 3.0 * sqrt(q)) + 4u;
	if (s >= nq) {
		return 0u;
	}
	uint ib = radix_ib(len);
	uvec3 pre;
	uint lo;
	if (!radix_passes(kin, j0, j1, step, nq, s, s + (s >> 1), ib, flo, pre, lo)) {
		return 0u;
	}
	// The score part of the prefix (bits below lo cleared: a lower
	// bound of the s-th best sample's score), as a key without position.
	return ib >= 32u ? pre.y : (pre.x >> ib) | (pre.y << (32u - ib));
#endif
}

// radix_select leaves in shared memory what radix_gather leaves, for
// scores of one word, by cheaper routes where the data allows. With
// floor_step > 1 a sparse sample (every floor_step-th position) gives a
// floor (radix_threshold) that at least kk entries reach on random data;
// with samp_step > 1 the passes over a denser sample (every
// samp_step-th position), counting only the sampled positions at the
// floor, give a threshold with, on random data, at least kk and at most
// SORT_MAX entries at or above it, and one scan gathers those
// (thr_collect; the vector test skips a 16-byte vector on one compare):
// every entry of the best kk is among them when there are at least kk
// (the kk-th best scores at least as much), so the result is exact.
// Otherwise (fewer than kk, or more than SORT_MAX: all-equal, sorted or
// NaN-heavy rows, a sample unlike the row) the exact passes run counting
// only the entries at the floor (each scan tests a vector on one
// compare), and where fewer than kk reach it, over every entry.
void radix_select(uint kin, uint j0, uint j1, uint kk) {
	uint flo = 0u;
#if RADIX_FLOOR
	if (pc.floor_step > 1u) {
		flo = radix_threshold(kin, j0, j1, kk, pc.floor_step, 0u);
	}
#endif
	if (pc.samp_step > 1u) {
		uint thr = flo;
		if (pc.samp_step < pc.floor_step || pc.floor_step <= 1u) {
			thr = max(flo, radix_threshold(kin, j0, j1, kk, pc.samp_step, flo));
		}
		// thr 0: every entry, NaNs too, would pass.
		if (thr != 0u) {
			uint cnt = thr_collect(kin, j0, j1, thr);
			if (cnt >= kk && cnt <= SORT_MAX) {
				return;
			}
			if (RADIX_FLOOR != 0 && cnt >= kk) {
				flo = thr;
			}
		}
	}
	if (flo == 0u || !radix_gather(kin, j0, j1, kk, flo)) {
		radix_gather(kin, j0, j1, kk, 0u);
	}
}
#endif

// radix_rank_emit writes the best kk of the sh_count gathered entries in
// order: lane t ranks entries t, t+WG, ... (in registers) by counting the
// entries that come before each, reading every entry once in the same
// order as every other lane. Each rank is a count over a strict total
// order, so the ranks are a permutation and no sort (and no scatter into
// shared memory) is needed: about sh_count^2/WG compares a lane, which on
// a CPU's lanes beat a bitonic sort's shared-memory exchanges.
void radix_rank_emit(uint rl, uint sg, uint kin, uint kv, uint kx, uint kk) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	uint cnt = sh_count;
	uvec2 ms[OWN_MAX];
	uint mi[OWN_MAX], mr[OWN_MAX];
	[[unroll]] for (uint q = 0u; q < OWN_MAX; q++) {
		uint e = t + q * WG;
		ms[q] = uvec2(0u);
		mi[q] = PAD_INDEX;
		if (q * WG < SORT_MAX && e < cnt) {
			ms[q] = sh_score(e);
			mi[q] = sh_idx[e];
		}
		mr[q] = 0u;
	}
	for (uint j = 0u; j < cnt; j++) {
		uvec2 s = sh_score(j);
		uint i = sh_idx[j];
		[[unroll]] for (uint q = 0u; q < OWN_MAX; q++) {
			if (q * WG < SORT_MAX && better(s, i, ms[q], mi[q])) {
				mr[q]++;
			}
		}
	}
	[[unroll]] for (uint q = 0u; q < OWN_MAX; q++) {
		if (q * WG < SORT_MAX && t + q * WG < cnt && mr[q] < kk) {
			emit(rl, sg, kin, kv, kx, mr[q], ms[q], mi[q]);
		}
	}
}
#endif

#if SHAPE == 4 && ENTRY_WORDS == 2
// The buckets of bucket_rank_emit: the gathered entries' scores cut into
// BUCKETS equal ranges of (smax - s) >> shift, the best first. sh_bk
// holds a bucket's count, then its first slot in sh_ord, then (once the
// entries are placed) its end; sh_ord holds the lanes' sums of their
// buckets' counts, then the entries (their slots in sh_lo and sh_idx) in
// bucket order. 32 KiB of shared memory holds no more: sh_lo and sh_idx
// are 16.
const uint BUCKETS = 1024u;
const uint BUCKET_BITS = 10u; // log2(BUCKETS)
const uint BUCKET_MAX = 64u; // a bucket's most entries: bounds a lane's walk
shared uint sh_bk[BUCKETS];
shared uint sh_ord[SORT_MAX];
shared uint sh_smax;
shared uint sh_smin;
shared uint sh_most;

// bucket_of is the bucket of score s.
uint bucket_of(uint s, uint smax, uint shift) { return (smax - s) >> shift; }

// bucket_word is entry (s, i) of a segment from position j0 whose
// positions take ib bits as one word, for shift + ib <= 32: the score's
// offset in its bucket above the position from the segment's end, so
// that of two entries of a bucket the better one (the higher score, or
// the same score and the lower index) has the larger word.
uint bucket_word(uint s, uint i, uint smax, uint shift, uint j0, uint ib) {
	uint m = (1u << shift) - 1u, im = (1u << ib) - 1u;
	return ((m - ((smax - s) & m)) << ib) | (im - (i - j0));
}

// bucket_rank_emit writes the best kk of the cnt (>= 16) gathered entries
// in order, as radix_rank_emit does, but counts for each entry only the
// entries of its own bucket: a bucket is a range of scores, so every
// entry of a better bucket comes before every entry of a worse one, and
// an entry's rank is the entries of the buckets before its own (a prefix
// sum of the buckets' counts) plus those before it in its bucket, which
// a counting sort has listed in consecutive slots of sh_ord. On lavapipe
// every shared-memory access is a loop over the SIMD row's lanes
// (uniform addresses too): this makes about a dozen an entry, where
// ranking against sorted splitters (every 8th entry ranked among the
// others, two binary searches and a linked list an entry) made over a
// hundred (8x32000 FLOAT32 K=1024, about 1300 gathered entries a row:
// one or two a bucket). It returns false, having written nothing and
// left the entries in place, when a bucket holds more than BUCKET_MAX
// entries (ties, or scores bunched at one end of the range); the caller
// then orders them its usual way.
bool bucket_rank_emit(uint rl, uint sg, uint kin, uint kv, uint kx, uint kk, uint cnt, uint j0, uint ib) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	for (uint b = t; b < BUCKETS; b += WG) {
		sh_bk[b] = 0u;
	}
	if (t == 0u) {
		sh_smax = 0u;
		sh_smin = 0xFFFFFFFFu;
		sh_most = 0u;
	}
	uint smax = 0u, smin = 0xFFFFFFFFu;
	for (uint e = t; e < cnt; e += WG) {
		uint s = sh_lo[e];
		smax = max(smax, s);
		smin = min(smin, s);
	}
	barrier();
	if (t < cnt) {
		atomicMax(sh_smax, smax);
		atomicMin(sh_smin, smin);
	}
	barrier();
	// Uniform: every lane reads them after the barrier.
	smax = sh_smax;
	uint d = smax - sh_smin;
	uint shift = d < BUCKETS ? 0u : uint(findMSB(d)) + 1u - BUCKET_BITS;
	for (uint e = t; e < cnt; e += WG) {
		atomicAdd(sh_bk[bucket_of(sh_lo[e], smax, shift)], 1u);
	}
	barrier();
	// Lane t's buckets [b0, b1): their sum, and the largest.
	uint per = (BUCKETS + WG - 1u) / WG;
	uint b0 = min(BUCKETS, t * per), b1 = min(BUCKETS, b0 + per);
	uint sum = 0u, most = 0u;
	for (uint b = b0; b < b1; b++) {
		uint c = sh_bk[b];
		sum += c;
		most = max(most, c);
	}
	sh_ord[t] = sum;
	atomicMax(sh_most, most);
	barrier();
	if (t == 0u) {
		uint acc = 0u;
		for (uint c = 0u; c < WG; c++) {
			uint s = sh_ord[c];
			sh_ord[c] = acc;
			acc += s;
		}
	}
	barrier();
	// Uniform: every lane reads it after the barrier.
	if (sh_most > BUCKET_MAX) {
		return false;
	}
	uint acc = sh_ord[t];
	for (uint b = b0; b < b1; b++) {
		uint c = sh_bk[b];
		sh_bk[b] = acc;
		acc += c;
	}
	barrier();
	// sh_bk[b] moves from bucket b's first slot to its end. Where a
	// score's offset in its bucket (shift bits) and the position (ib
	// bits) fit a word (packed, uniform), sh_ord holds the entry as one
	// word that orders the bucket's entries as better does, so that a
	// walk reads one word an entry, not three (the slot, the score and
	// the index).
	bool packed = shift + ib <= 32u;
	for (uint e = t; e < cnt; e += WG) {
		uint s = sh_lo[e];
		uint f = atomicAdd(sh_bk[bucket_of(s, smax, shift)], 1u);
		sh_ord[f] = packed ? bucket_word(s, sh_idx[e], smax, shift, j0, ib) : e;
	}
	barrier();
	for (uint e = t; e < cnt; e += WG) {
		uint s = sh_lo[e], i = sh_idx[e];
		uint b = bucket_of(s, smax, shift);
		uint g0 = b > 0u ? sh_bk[b - 1u] : 0u, g1 = sh_bk[b];
		uint r = g0;
		if (packed) {
			uint w = bucket_word(s, i, smax, shift, j0, ib);
			for (uint g = g0; g < g1; g++) {
				r += sh_ord[g] > w ? 1u : 0u;
			}
		} else {
			for (uint g = g0; g < g1; g++) {
				uint o = sh_ord[g];
				r += better(uvec2(sh_lo[o], 0u), sh_idx[o], uvec2(s, 0u), i) ? 1u : 0u;
			}
		}
		if (r < kk) {
			emit(rl, sg, kin, kv, kx, r, uvec2(s, 0u), i);
		}
	}
	return true;
}
#endif

void main() {
	uint items = pc.r_count * pc.nseg;
	uint ngroups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	for (uint it = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; it < items; it += ngroups) {
		uint rl = it / pc.nseg, sg = it % pc.nseg;
		uint kin, kv, kx;
		row_offsets(pc.r_begin + rl, kin, kv, kx);
		uint j0 = sg * pc.seg_len;
		uint j1 = min(j0 + pc.seg_len, N);
		uint kk = min(K, j1 - j0);
#if SHAPE == 4
#if ENTRY_WORDS == 2
		radix_select(kin, j0, j1, kk);
#else
		radix_gather(kin, j0, j1, kk, 0u);
#endif
#elif SHAPE == 1
		// Lane t's list, padded, at entries [t*lk, (t+1)*lk) with lk =
		// sort_n / WG (a power of two at least K).
		uint lk = pc.sort_n / WG;
		list_scan(kin, j0, j1, t, WG);
		[[unroll]] for (uint q = 0u; q < LIST_MAX; q++) {
			if (q < lk) {
				if (q < K) {
					sh_put(t * lk + q, ls[q], li[q]);
				} else {
					sh_put(t * lk + q, uvec2(0u), PAD_INDEX);
				}
			}
		}
#elif SHAPE == 3
#if SCAN8
		if (VEC16 && pc.samp_step == VW) {
			byte_select(kin, j0, j1, kk);
			for (uint r = t; r < kk; r += WG) {
				emit(rl, sg, kin, kv, kx, r, sh_score(r), sh_idx[r]);
			}
			barrier();
			continue;
		}
#endif
		for (uint q = t; q < pc.sort_n; q += WG) {
			sh_put(q, uvec2(0u), PAD_INDEX);
		}
		if (t == 0u) {
			sh_count = 0u;
		}
		barrier();
		uvec2 ths = uvec2(0u);
		uint thi = PAD_INDEX;
#if ELEM_BITS == 32 || ELEM_BITS == 16
		if (VEC && pc.samp_step == VW) {
			// Chunks of WG 16-byte vectors of the aligned middle
			// (scan_split), a vector a lane; before the first, the head's
			// and the tail's at most VW - 1 positions each, which the
			// first chunk's sort takes in (the planner's cand_n holds
			// VW WG + 2 (VW - 1)).
			uint mid, v0, nv;
			scan_split(kin, j0, j1, mid, v0, nv);
			for (uint q = t; q < 2u * (VW - 1u); q += WG) {
				bool head = q < VW - 1u;
				uint j = head ? j0 + q : mid + VW * nv + q - (VW - 1u);
				if (j < (head ? mid : j1)) {
					filter_offer(score(load_raw(kin + j)), j, ths, thi);
				}
			}
#if ELEM_BITS == 16
			// The gate key every number scoring at least ths reaches.
			int thg = gate_floor(ths);
#endif
			for (uint c = 0u;; c += WG) {
				if (c + t < nv) {
#if ELEM_BITS == 32
					uvec4 s4 = score4(LOAD4(v0 + c + t));
					// A position that beats (ths, thi) scores at least ths.
					bvec4 p = greaterThanEqual(s4, uvec4(ths.x));
					if (any(p)) {
						filter_offer4(s4, p, mid + 4u * (c + t), ths, thi);
					}
#else
					// Eight positions on their gate keys: a number that
					// beats (ths, thi) reaches thg; while ths is padding
					// or a NaN's (score 0) every position is offered.
					uvec4 raw = LOAD4(v0 + c + t);
					if (any(bvec2(ths.x == 0u, vec_gate_reaches(raw, thg)))) {
						uint j = mid + 8u * (c + t);
						[[unroll]] for (uint e = 0u; e < 8u; e++) {
							filter_offer(score(vec_elem(raw, e)), j + e, ths, thi);
						}
					}
#endif
				}
				bool last = c + WG >= nv;
				if (filter_chunk_end(t, VW * WG, last, ths, thi)) {
#if ELEM_BITS == 16
					thg = gate_floor(ths);
#endif
				}
				if (last) {
					break;
				}
			}
		} else
#endif
		{
			for (uint base = j0; base < j1; base += WG) {
				uint j = base + t;
				if (j < j1) {
					filter_offer(score(load_raw(kin + j * AI)), j, ths, thi);
				}
				filter_chunk_end(t, WG, base + WG >= j1, ths, thi);
			}
		}
#else
		for (uint q = t; q < pc.sort_n; q += WG) {
			uint j = j0 + q;
			if (j < j1) {
				sh_put(q, score(load_raw(kin + j * AI)), j);
			} else {
				sh_put(q, uvec2(0u), PAD_INDEX);
			}
		}
#endif
#if SHAPE == 4
		// Uniform: every lane reads the count after radix_gather's barrier.
		uint cnt = sh_count;
		bool done = false;
#if ENTRY_WORDS == 2
		if (pc.cand_n > 0u && cnt >= max(pc.cand_n, 16u)) {
			done = bucket_rank_emit(rl, sg, kin, kv, kx, kk, cnt, j0, radix_ib(j1 - j0));
		}
#endif
		if (!done && cnt <= pc.list_n) {
			radix_rank_emit(rl, sg, kin, kv, kx, kk);
		} else if (!done) {
			uint p = 1u;
			while (p < cnt) {
				p <<= 1;
			}
			for (uint q = cnt + t; q < p; q += WG) {
				sh_put(q, uvec2(0u), PAD_INDEX);
			}
			sh_sort(p);
			for (uint r = t; r < kk; r += WG) {
				emit(rl, sg, kin, kv, kx, r, sh_score(r), sh_idx[r]);
			}
		}
#else
#if SHAPE != 3
		sh_sort(pc.sort_n);
#endif
		for (uint r = t; r < kk; r += WG) {
			emit(rl, sg, kin, kv, kx, r, sh_score(r), sh_idx[r]);
		}
#endif
		barrier();
	}
}

#endif
