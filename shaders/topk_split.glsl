// topk_split.glsl: what the split radix select's kernels share
// (topk_thresh.comp, topk_gather.comp, topk_rank.comp; ops topk_plan.go
// emitSplit, the CPU class's plans of long 32-bit rows). Include
// elem.glsl, common.glsl and topk.glsl first, with ELEM_BITS 32, ELEM_SRC
// 0 and ELEM_SRC_TEXEL 1.
//
// Llvmpipe runs every `if` body and every loop's first trip whether or not
// a lane takes it, so a kernel costs its whole code once per SIMD row
// (BENCHMARKS.md "TOP_K radix on 128x256000: where the time goes"). The
// split select therefore runs one row a workgroup in dispatches that each
// carry only their own code:
//   1. topk_thresh.comp (EXACT 0): a threshold score from a sample of the
//      row (the positions of every samp_step-th 16-byte texel) that, on
//      random data, at least K and not many more positions reach;
//   2. topk_gather.comp (topk_gather.glsl): one scan of the row's
//      16-byte texels that appends, per lane, the texels holding a
//      position at or above the threshold to the lane's region of the
//      row; for the sampled rows it runs in step 1's dispatch, after the
//      threshold, where the planner can (topk_thresh.comp GATHER 1: ops
//      tuning topKSplitThreshGather), a dispatch fewer;
//   3. topk_rank.comp: the positions of those texels that pass, ranked in
//      shared memory and the best K written; a row with fewer than K or
//      more than SPLIT_SORT_MAX of them, or a region over its capacity, is
//      marked ROW_FAILED instead; 8 lanes a row, which leave the rows
//      they cannot rank within their trips to 64 lanes (ROW_WIDE), a
//      second dispatch;
//   4. topk_thresh.comp (EXACT 1): for the ROW_FAILED rows only, histogram
//      passes over every position find the prefix of the K-th best
//      (score, index) key at or above which at most SPLIT_SORT_MAX
//      entries lie;
//   5., 6. topk_gather.comp and topk_rank.comp again for those rows, which
//      cannot fail: at most SPLIT_SORT_MAX entries pass an exact
//      threshold, and a region holds that many texels and the three kept
//      ones that may pass none (the row's end texels, the threshold's).
// A row's state in the temporary resource (row_words words a row of the
// step) is written by each dispatch for the next; a dispatch works only on
// the rows in the state it is given (want). Steps 1-3 run a workgroup a
// row; the rest are indirect dispatches (ops Step.Indirect), a workgroup
// a row of a list that the rankings fill: topk_rank.comp's second
// ranking over the ROW_WIDE rows, steps 4-6 over the ROW_FAILED ones.
// On random rows both lists are empty and those dispatches run no
// workgroup: llvmpipe runs an idle workgroup's whole code once per SIMD
// row, and the four idle dispatches cost 8x32000 K = 2048 about a
// quarter of its time on two threads. The passing entries are those (score s, position j) with s > ts,
// or s = ts and j <= tj: the threshold (ts, tj) is an entry of topk.glsl's
// order, so the entries passing it are the best of the row.

layout(std430, binding = 1) buffer SplitRows { uint x[]; } rows_buf;

layout(push_constant) uniform Push {
	uint base_src; // words (texels of four)
	uint base_tmp; // words: the rows' states
#ifdef ELEM_DST
	uint base_v; // words: the values
	uint base_x; // words: the indices
#endif
	uint r_begin;   // first row of this step
	uint r_count;   // rows in this step
	uint row_words; // words of one row's state
	uint cap;       // texels a region holds
	uint samp_step; // EXACT 0: the sample takes every samp_step-th 16-byte texel
	uint gw;        // regions a row (topk_gather.comp's workgroup size)
	uint want;      // the state of the rows this dispatch works on
	uint in_win;    // element offset of the input window
	uint v_win;     // element offset of the values window
	uint x_win;     // element offset of the indices window
} pc;

// The step's header, the words from base_tmp before its rows' states: the
// indirect dispatches' arguments, at multiples of 16 bytes (ops
// topKSplitHeaderWords), and their lists of rows. The dispatch of the
// sampled rows' gather sets them (topk_gather.comp's, or topk_thresh.comp
// GATHER 1's), the rankings add to them (split_append).
const uint HDR_WIDE = 0u;  // 3 words: the ROW_WIDE ranking's groups (n, 1, 1)
const uint HDR_EXACT = 4u; // 3 words: the exact path's groups (n, 1, 1)
const uint HDR_LISTS = 8u; // r_count words: the ROW_WIDE rows; then r_count words: the ROW_FAILED rows

// A row's state: its words from split_row(rl).
const uint ST_STATE = 0u;   // one of the states below
const uint ST_TS = 1u;      // the threshold's score
const uint ST_TJ = 2u;      // the threshold's position
const uint ST_FLOOR = 3u;   // ROW_FAILED: a score at least K positions reach (0: none known)
const uint ST_COUNT = 4u;    // gw words: texels in each region
const uint ST_MAX = 68u;     // gw words: the best score of each gather lane's block of the row
const uint ST_REGION = 132u; // gw regions of cap words: texel numbers (gw <= 64)

const uint ROW_SAMPLED = 1u; // the sample's threshold is set
const uint ROW_FAILED = 2u;  // no sample's threshold, or its gather did not fit
const uint ROW_EXACT = 3u;   // the exact threshold is set
const uint ROW_DONE = 4u;    // the results are written
const uint ROW_WIDE = 5u;    // the sampled threshold holds; topk_rank.comp's 64 lanes rank it (topk_rank.comp)

// SPLIT_SORT_MAX is the most passing entries topk_rank.comp ranks: its
// scores and positions (8 bytes an entry), its 2048 buckets' words and
// 64 lanes' sums fit 32 KiB of shared memory (32,012 bytes of 32,768),
// room for K = 2048 and its sample's margin (about 2,460 entries at
// every 8th texel, ops topKSplitSampleCap).
const uint SPLIT_SORT_MAX = 2944u;

// split_row is the first word of row rl's state, after the header
// (HDR_LISTS and two lists, rounded up to 16 bytes).
uint split_row(uint rl) { return pc.base_tmp + ((HDR_LISTS + 2u * pc.r_count + 3u) & ~3u) + rl * pc.row_words; }

// split_list is the first word of the list of the indirect dispatches
// whose arguments are at header word hdr.
uint split_list(uint hdr) { return pc.base_tmp + HDR_LISTS + (hdr == HDR_WIDE ? 0u : pc.r_count); }

// split_append adds row rl to the list of the indirect dispatches whose
// arguments are at header word hdr: a workgroup more. A row joins each
// list at most once (ROW_WIDE from the sampled ranking; ROW_FAILED from
// the sample, the sampled ranking or the wide one, which end each other),
// so a count stays within r_count (and were it not, the list's words
// would: the dispatch's groups past it find no row).
void split_append(uint hdr, uint rl) {
	uint at = atomicAdd(rows_buf.x[pc.base_tmp + hdr], 1u);
	if (at < pc.r_count) {
		rows_buf.x[split_list(hdr) + at] = rl;
	}
}

// split_init sets the indirect dispatches' arguments to no workgroup
// (n 0, 1, 1), before any ranking adds to them.
void split_init() {
	[[unroll]] for (uint h = HDR_WIDE; h <= HDR_EXACT; h += HDR_EXACT) {
		rows_buf.x[pc.base_tmp + h] = 0u;
		rows_buf.x[pc.base_tmp + h + 1u] = 1u;
		rows_buf.x[pc.base_tmp + h + 2u] = 1u;
	}
}

// split_e0 is the texel-space word number of position 0 of the row whose
// input offset is kin: position j is word split_e0 + j, component
// (split_e0 + j) % 4 of texel (split_e0 + j) / 4.
uint split_e0(uint kin) { return pc.base_src + kin - pc.in_win; }

// split_passes: does entry (s, j) pass threshold (ts, tj)?
bool split_passes(uint s, uint j, uint ts, uint tj) { return s > ts || (s == ts && j <= tj); }

// split_score4 is topk.glsl's score() of four elements (a NaN's 0).
uvec4 split_score4(uvec4 raw) {
	uvec4 k = elem_key(raw, KIND) ^ uvec4(DECR == 0u ? 0xFFFFFFFFu : 0u);
	return mix(k, uvec4(0u), elem_is_nan(raw, KIND));
}

// split_item is this workgroup's row of the step (r_count or more: none):
// the group's own in the dispatches over every row (want 0, the sample's
// threshold, or ROW_SAMPLED), else the group's entry of its list:
// ROW_WIDE's, or the ROW_FAILED rows' for the exact path (want
// ROW_FAILED, ROW_EXACT).
uint split_item() {
	uint g = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
	if (pc.want != 0u && pc.want != ROW_SAMPLED) {
		// Uniform: every lane reads the same word. The arguments count
		// the list's rows; a group past r_count has none.
		return g < pc.r_count ? rows_buf.x[split_list(pc.want == ROW_WIDE ? HDR_WIDE : HDR_EXACT) + g] : pc.r_count;
	}
	return g;
}
