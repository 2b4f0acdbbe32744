#version 450
// topk_merge.comp: TOP_K / TOP_K1, a merge pass. Each row's runs of
// entries (topk_select.comp's, or an earlier merge's), sorted in
// topk.glsl's order, are merged in pairs (2t, 2t+1) into runs of at most
// K entries; the last pass writes the row's result instead. One
// invocation per input entry finds the entry's rank in the merged run:
// its position in its own run plus the count of entries of the other run
// that come before it (a binary search: the order is strict, so no two
// entries tie), and writes it there if the rank is below K.
//
// Run s of a pass covers axis positions [s*span, (s+1)*span) and holds
// the best min(K, its positions) of them, at entries (row * nruns + s) *
// cap of the binding, cap = min(K, span).
//
// Defines:
//   FINAL  1: write values and indices (bindings: runs, input, values,
//          indices); 0: write runs (bindings: runs in, runs out)
//   ELEM_BITS, NATIVE  with FINAL, the element (elem.glsl)
//   KEY64  without FINAL, 1 for 64-bit elements' three-word entries

#define WORD_SRC 0
#if FINAL
#define ELEM_SRC 1
#define ELEM_DST 2
#define WORD_DST 3
#else
#define WORD_DST 1
#endif
#include "elem.glsl"
#include "common.glsl"
#include "topk.glsl"

layout(push_constant) uniform Push {
	uint base_runs; // words
#if FINAL
	uint base_src; // words
	uint base_v;   // words
	uint base_x;   // words
#else
	uint base_out; // words
#endif
	uint r_begin;   // first row of this step
	uint r_count;   // rows in this step
	uint span;      // axis positions an input run covers
	uint cap_in;    // entries per input run: min(K, span)
	uint nruns_in;  // input runs per row
	uint cap_out;   // entries per output run: min(K, 2 span)
	uint nruns_out; // output runs per row: ceil(nruns_in / 2)
	uint in_win;    // element offset of the input window (FINAL)
	uint v_win;     // element offset of the values window (FINAL)
	uint x_win;     // element offset of the indices window (FINAL)
} pc;

// run_len is the entries run s of a row holds.
uint run_len(uint s) {
	if (s >= pc.nruns_in) {
		return 0u;
	}
	uint j0 = s * pc.span;
	return min(K, min(pc.span, N - j0));
}

void main() {
	uint per = 2u * pc.cap_in;
	uint items = pc.r_count * pc.nruns_out * per;
	for (uint it = grid_index(); it < items; it += grid_size()) {
		uint e = it % per, rest = it / per;
		uint t = rest % pc.nruns_out, rl = rest / pc.nruns_out;
		uint side = e >= pc.cap_in ? 1u : 0u;
		uint pos = e - side * pc.cap_in;
		uint mine = 2u * t + side, other = 2u * t + 1u - side;
		if (pos >= run_len(mine)) {
			continue;
		}
		uint rowBase = rl * pc.nruns_in;
		uvec2 s;
		uint i;
		load_entry(pc.base_runs, (rowBase + mine) * pc.cap_in + pos, s, i);
		uint ob = (rowBase + other) * pc.cap_in;
		uint lo = 0u, hi = run_len(other);
		while (lo < hi) {
			uint mid = (lo + hi) >> 1;
			uvec2 ms;
			uint mi;
			load_entry(pc.base_runs, ob + mid, ms, mi);
			if (better(ms, mi, s, i)) {
				lo = mid + 1u;
			} else {
				hi = mid;
			}
		}
		uint rank = pos + lo;
		if (rank >= min(K, run_len(2u * t) + run_len(2u * t + 1u))) {
			continue;
		}
#if FINAL
		uint kin, kv, kx;
		row_offsets(pc.r_begin + rl, kin, kv, kx);
		store_result(pc.base_src, pc.base_v, pc.base_x, kin, kv, kx, pc.in_win, pc.v_win, pc.x_win, rank, i);
#else
		store_entry(pc.base_out, (rl * pc.nruns_out + t) * pc.cap_out + rank, s, i);
#endif
	}
}
